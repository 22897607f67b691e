/**
 * The demo: `runDemo` against the real ovsdb-server and the in-memory
 * server gives the expected counts, and `npm run demo` (its own in-memory
 * server, no Open vSwitch needed) exits 0 with the summary.
 */

import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../../examples/pod-allocation/demo.js';
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';
import { NB_SCHEMA } from './helpers.js';

const EXPECTED = {
  pods: 49,
  ready: 37,
  failed: 7,
  deleted: 5,
  failuresByReason: {
    BadAnnotation: 3,
    OutsideCidr: 1,
    ExcludedIp: 1,
    IpConflict: 1,
    PoolExhausted: 1,
  },
  // 2 EIPs left (one EIP pod deleted) and 3 SNAT; 1 north gateway left;
  // 5 namespaces and 3 nodes; DHCPv4 for both subnets and DHCPv6 for the dual one.
  nb: { podPorts: 37, nat: 5, policies: 1, portGroups: 8, dhcpOptions: 3 },
};

describe.each(SERVER_KINDS)('demo against %s', (kind) => {
  it('reports the expected counts', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const lines: string[] = [];
    try {
      const summary = await runDemo({ remote: server.unixRemote, print: (s) => lines.push(s) });
      expect(summary).toMatchObject(EXPECTED);
      const text = lines.join('\n');
      expect(text).toContain('router-port: ovn-cluster-dual');
      expect(text).toMatch(/bad\/duplicate-ip\s+-\s+-\s+-\s+failed: IpConflict/);
      expect(text).toMatch(/db\/db-2\s+ovn-default\s+10\.16\.2\.12\s/);
      expect(text).toContain('pods: 49 (ready 37, failed 7, deleted 5)');
    } finally {
      await server.stop();
    }
  });
});

describe('npm run demo', () => {
  it('runs on its own in-memory server and exits 0', async () => {
    const env = { ...process.env };
    delete env['OVN_NB_DB'];
    const child = spawn('npm', ['run', '--silent', 'demo'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('# ovn-nbctl show');
    expect(out).toContain('pods: 49 (ready 37, failed 7, deleted 5)');
    expect(out).toContain(
      'NB: 37 pod ports, 5 NAT rules, 1 policies, 8 port groups, 3 DHCP options rows',
    );
    expect(out).toMatch(/\(in-memory server\)/);
  }, 60_000);
});

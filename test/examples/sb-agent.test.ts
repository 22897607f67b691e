/**
 * `examples/sb-agent`: its `main.ts` runs as a child process on SB, with
 * ovn-northd between NB and SB, on real ovsdb-servers and on the in-memory
 * server. Ports created with `ovn-nbctl` and `options:requested-chassis`
 * become Port_Bindings that the agent claims (`ovn-sbctl` shows them under
 * its chassis, and northd reports them `up` in NB), `ovn-nbctl --wait=hv`
 * completes, a port requested elsewhere is released, and starting again
 * changes nothing. The SB model is the one `ovnkit-codegen` generates from
 * the server's own schema.
 */

import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import {
  checkExampleModel,
  type OvnRig,
  runExample,
  SB_SCHEMA,
  SERVER_KINDS,
  spawnExample,
  startOvnRig,
} from './ovn-rig.js';

describe('examples/sb-agent: the model', () => {
  it('is generated from the server schema (SB 20.27.0) and up to date', async () => {
    requireOvsdbServer();
    expect(JSON.parse(readFileSync(SB_SCHEMA, 'utf8')).version).toBe('20.27.0');
    const r = await checkExampleModel('sb-agent', SB_SCHEMA);
    expect(r.stderr).toContain('is up to date with /usr/share/ovn/ovn-sb.ovsschema');
    expect(r.code).toBe(0);
  });
});

const until = async <T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  what: string,
  log: () => string,
): Promise<T> => {
  const deadline = Date.now() + 10_000;
  let v = await read();
  while (!ok(v) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    v = await read();
  }
  expect(ok(v), `${what}: ${JSON.stringify(v)}\nagent output:\n${log()}`).toBe(true);
  return v;
};

for (const kind of SERVER_KINDS) {
  describe(`examples/sb-agent on ${kind} with ovn-northd`, () => {
    let rig: OvnRig;
    let child: ChildProcess | undefined;
    let out = '';

    beforeAll(async () => {
      requireOvsdbServer();
      rig = await startOvnRig(kind);
    });
    afterAll(async () => {
      if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
      await rig?.stop();
    });

    /** A port binding's chassis (by name, '' for none) and up, as ovn-sbctl reads them. */
    async function binding(port: string): Promise<{ chassis: string; up: string }> {
      const pb = (
        await rig.sbctl('--bare', '--columns=_uuid', 'find', 'Port_Binding', `logical_port=${port}`)
      ).trim();
      expect(pb, `no Port_Binding for ${port}`).not.toBe('');
      const chassis = (await rig.sbctl('--bare', 'get', 'Port_Binding', pb, 'chassis')).trim();
      const up = (await rig.sbctl('--bare', 'get', 'Port_Binding', pb, 'up')).trim();
      const name =
        chassis === '[]'
          ? ''
          : (await rig.sbctl('--bare', 'get', 'Chassis', chassis, 'name')).trim();
      return { chassis: name, up };
    }

    const lsp = (port: string, chassis?: string) => [
      '--',
      'lsp-add',
      'sw0',
      port,
      ...(chassis === undefined
        ? []
        : ['--', 'lsp-set-options', port, `requested-chassis=${chassis}`]),
    ];

    it('registers the chassis, claims the ports requested for it, and releases one moved away', async () => {
      await rig.nbctl(
        '--wait=sb',
        'ls-add',
        'sw0',
        ...lsp('p1', 'hv1'),
        ...lsp('p2', 'hv1'),
        ...lsp('p3', 'hv2'),
        ...lsp('p4'),
      );
      const args = ['--sb', rig.sb.unixRemote, '--chassis', 'hv1', '--encap-ip', '192.0.2.1'];
      child = spawnExample('sb-agent', args);
      child.stdout!.setEncoding('utf8').on('data', (s: string) => {
        out += s;
      });
      child.stderr!.setEncoding('utf8').on('data', (s: string) => {
        out += s;
      });

      // northd sees the new chassis, points p1 and p2 at it; the agent claims them.
      const log = () => out;
      await until(
        () => binding('p1'),
        (b) => b.chassis === 'hv1' && b.up === 'true',
        'p1 claimed',
        log,
      );
      await until(
        () => binding('p2'),
        (b) => b.chassis === 'hv1' && b.up === 'true',
        'p2 claimed',
        log,
      );
      expect(await binding('p3')).toEqual({ chassis: '', up: 'false' });
      expect(await binding('p4')).toEqual({ chassis: '', up: 'false' });

      const show = await rig.sbctl('show');
      expect(show).toMatch(/Chassis hv1\n\s+hostname: \S+\n\s+Encap geneve\n\s+ip: "192\.0\.2\.1"/);
      expect(show).toContain('Port_Binding p1');
      expect(show).toContain('Port_Binding p2');
      expect(show).not.toContain('Port_Binding p3');
      expect((await rig.sbctl('get', 'Chassis_Private', 'hv1', 'chassis')).trim()).toBe(
        (await rig.sbctl('get', 'Chassis', 'hv1', '_uuid')).trim(),
      );

      // northd reports the claims to NB.
      await until(
        async () => (await rig.nbctl('get', 'Logical_Switch_Port', 'p1', 'up')).trim(),
        (up) => up === 'true',
        'NB p1 up',
        log,
      );
      // The agent reports nb_cfg back: ovn-nbctl --wait=hv returns.
      await rig.nbctl('--wait=hv', 'sync');
      const nbCfg = (await rig.nbctl('get', 'NB_Global', '.', 'nb_cfg')).trim();
      expect((await rig.nbctl('get', 'NB_Global', '.', 'hv_cfg')).trim()).toBe(nbCfg);

      // A new port for hv1 is claimed; p2 requested elsewhere is released.
      await rig.nbctl(...lsp('p5', 'hv1').slice(1));
      await until(
        () => binding('p5'),
        (b) => b.chassis === 'hv1' && b.up === 'true',
        'p5 claimed',
        log,
      );
      await rig.nbctl('lsp-set-options', 'p2', 'requested-chassis=hv2');
      await until(
        () => binding('p2'),
        (b) => b.chassis === '' && b.up === 'false',
        'p2 released',
        log,
      );
      await until(
        async () => (await rig.nbctl('get', 'Logical_Switch_Port', 'p2', 'up')).trim(),
        (up) => up === 'false',
        'NB p2 down',
        log,
      );

      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
      const lines = out.trim().split('\n');
      expect(lines[0]).toBe('chassis hv1 registered (geneve 192.0.2.1)');
      // The claims come as northd points the ports at the new chassis: before
      // or after the agent's first pass.
      expect(lines.slice(1, -1).sort()).toEqual([
        'claimed p1',
        'claimed p2',
        'claimed p5',
        'released p2',
        `watching Port_Binding for chassis hv1 on ${rig.sb.unixRemote}`,
      ]);
      expect(lines.at(-1)).toBe('stopped: 3 claimed, 1 released');
      expect(out).not.toContain('error');

      // Started again: the chassis is found and the claims stand; nothing in SB changes.
      const before = await rig.sb.ovsdbClient('dump', 'OVN_Southbound');
      const again = await runExample('sb-agent', [...args, '--once']);
      expect(again.stderr).toBe('');
      expect(again.stdout).toBe(
        'chassis hv1 already registered (geneve 192.0.2.1)\nstopped: 0 claimed, 0 released\n',
      );
      expect(await rig.sb.ovsdbClient('dump', 'OVN_Southbound')).toBe(before);
    }, 60_000);
  });
}

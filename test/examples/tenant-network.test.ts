/**
 * `examples/tenant-network`: its `main.ts`, run as a user runs it, builds the
 * tenant network on NB and waits for ovn-northd, against real ovsdb-servers
 * and against ovnkit's in-memory server (ovn-northd runs between the
 * in-memory NB and SB as between real ones). A second run sends nothing: the
 * whole NB database is the same afterwards, `nb_cfg` included. The model it
 * is written against is the one `ovnkit-codegen` generates from the
 * server's own schema.
 */

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import {
  checkExampleModel,
  NB_SCHEMA,
  type OvnRig,
  runExample,
  SERVER_KINDS,
  startOvnRig,
} from './ovn-rig.js';

const words = (s: string): string[] => s.split(/\s+/).filter((w) => w !== '');

describe('examples/tenant-network: the model', () => {
  it('is generated from the server schema 7.0.0 and up to date', async () => {
    requireOvsdbServer();
    expect(JSON.parse(readFileSync(NB_SCHEMA, 'utf8')).version).toBe('7.0.0');
    const r = await checkExampleModel('tenant-network', NB_SCHEMA);
    expect(r.stderr).toContain('is up to date with /usr/share/ovn/ovn-nb.ovsschema');
    expect(r.code).toBe(0);
  });
});

for (const kind of SERVER_KINDS) {
  describe(`examples/tenant-network on ${kind} with ovn-northd`, () => {
    let rig: OvnRig;

    beforeAll(async () => {
      requireOvsdbServer();
      rig = await startOvnRig(kind);
    });
    afterAll(async () => {
      await rig?.stop();
    });

    it('builds the network, ovn-northd processes it, and a second run changes nothing', async () => {
      const args = ['--nb', rig.nb.unixRemote, '--sb', rig.sb.unixRemote];
      const first = await runExample('tenant-network', args);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/^tenant network created \(\d+ operations, ovn-northd done\)/);
      expect(first.stdout).toContain(
        'NB: 3 switches, 7 switch ports, 3 router ports, 4 ACLs, 2 NAT rules, 1 routes, 1 policies, 1 load balancers',
      );

      // What ovn-nbctl sees.
      const show = await rig.nbctl('show');
      for (const name of ['tn-router', 'tn-ext', 'tn-web', 'tn-db']) {
        expect(show).toContain(`(${name})`);
      }
      for (const port of ['web-1', 'web-2', 'db-1', 'tn-router-ext', 'tn-ext-localnet']) {
        expect(show).toContain(`port ${port}\n`);
      }
      expect(show).toContain('gateway chassis: [gw-1]');
      const nat = await rig.nbctl('lr-nat-list', 'tn-router');
      expect(nat).toMatch(/snat\s+172\.16\.0\.10\s+10\.10\.0\.0\/16/);
      expect(nat).toMatch(/dnat_and_snat\s+172\.16\.0\.11\s+10\.10\.1\.11/);
      expect(await rig.nbctl('lr-route-list', 'tn-router')).toMatch(
        /0\.0\.0\.0\/0\s+172\.16\.0\.254 dst-ip/,
      );
      expect(await rig.nbctl('lr-policy-list', 'tn-router')).toContain(
        'ip4.src == 10.10.2.0/24 && ip4.dst == 192.168.100.0/24',
      );
      const acls = (await rig.nbctl('acl-list', 'pg_web')).trim().split('\n');
      expect(acls).toHaveLength(4);
      expect(acls.join('\n')).toContain('ip4.src == $as_admins && tcp.dst == 22');
      expect(
        words(await rig.nbctl('--bare', '--columns=ports', 'find', 'Port_Group', 'name=pg_web')),
      ).toHaveLength(2);
      expect(await rig.nbctl('get', 'Address_Set', 'as_admins', 'addresses')).toContain(
        '192.168.100.0/24',
      );
      const dhcp = words(await rig.nbctl('dhcp-options-list'));
      expect(dhcp).toHaveLength(1);
      expect(await rig.nbctl('lsp-get-dhcpv4-options', 'web-1')).toContain('10.10.1.0/24');
      expect(await rig.nbctl('ls-lb-list', 'tn-web')).toContain('172.16.0.100:80');
      expect(await rig.nbctl('lr-lb-list', 'tn-router')).toContain(
        '10.10.1.11:8080,10.10.1.12:8080',
      );

      // What ovn-northd made of it (the example waited for it: no polling here).
      const bindings = words(
        await rig.sbctl('--bare', '--columns=logical_port', 'find', 'Port_Binding'),
      );
      for (const port of ['web-1', 'web-2', 'db-1', 'tn-router-ext', 'tn-ext-localnet']) {
        expect(bindings).toContain(port);
      }
      expect(first.stdout).toContain('SB: datapaths tn-db tn-ext tn-router tn-web');
      const nbCfg = (await rig.nbctl('get', 'NB_Global', '.', 'nb_cfg')).trim();
      expect(Number(nbCfg)).toBeGreaterThan(0);
      expect((await rig.nbctl('get', 'NB_Global', '.', 'sb_cfg')).trim()).toBe(nbCfg);

      // Again: nothing is sent, and the whole database is as it was.
      const before = await rig.nb.ovsdbClient('dump', 'OVN_Northbound');
      const second = await runExample('tenant-network', args);
      expect(second.code).toBe(0);
      expect(second.stdout).toMatch(/^tenant network up to date \(nothing sent\)/);
      expect(second.stdout).toContain('NB: 3 switches, 7 switch ports');
      expect(await rig.nb.ovsdbClient('dump', 'OVN_Northbound')).toBe(before);
    }, 60_000);
  });
}

/**
 * `examples/desired-state`: its `main.ts`, run as a user runs it (a child
 * process, `OVN_NB_DB` naming the server), against a real ovsdb-server and
 * against ovnkit's in-memory server: the three plans it prints, and the NB
 * rows it leaves, read with a separate client and with ovn-nbctl. Without
 * `OVN_NB_DB` it starts an in-memory server of its own.
 *
 * And the pod-allocation controller's topology as desired state, on both
 * servers: the rows carry the controller's owner mark; a topology written
 * by hand (as the controller's DSL calls used to) is adopted without
 * duplicates; a restart with one subnet less and another lease time deletes
 * that subnet's rows and updates the DHCP options; a GC pass re-creates a
 * switch deleted behind the controller's back.
 */

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANNOTATIONS,
  type ClusterTopology,
  declareTopology,
  type Pod,
  topologyOwner,
} from '../../examples/pod-allocation/controller/index.js';
import { Ipam } from '../../examples/pod-allocation/ipam/ipam.js';
import { connectDatabase, type DatabaseClient } from '../../src/client/index.js';
import {
  connectSwitchToRouter,
  createNb,
  dhcpOptionsCreate,
  lrAdd,
  lsAdd,
  NB,
  type NBTables,
} from '../../src/nb/index.js';
import { planDesired } from '../../src/transactions/index.js';
import { SERVER_KINDS, startTestServer, type TestServerHandle } from '../helpers/servers.js';
import { rig, until } from './pod-allocation/helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const NB_SCHEMA = join(ROOT, 'schema', 'ovn-nb-7.18.0.ovsschema');
const OWNER_KEY = 'ovnkit-owner';
const run = promisify(execFile);

/** Run the example's CLI; `remote` goes into `OVN_NB_DB` (none: the example starts its own server). */
async function runMain(remote: string | undefined): Promise<{ stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env['OVN_NB_DB'];
  if (remote !== undefined) env['OVN_NB_DB'] = remote;
  return run(
    process.execPath,
    [
      '--conditions=ovnkit-source',
      '--import',
      'tsx',
      join(ROOT, 'examples', 'desired-state', 'main.ts'),
    ],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 },
  );
}

/** The three plans the example prints, by section. */
function sections(stdout: string): string[] {
  return stdout.split(/^== /m).slice(1);
}

function expectOutput(stdout: string): void {
  const [first, second, third] = sections(stdout);
  expect(first).toMatch(/^plan 1: the tenant ==\n/);
  expect(first).toContain(
    'Plan for owner "tenant-ds": 13 to create, 0 to update, 0 to delete (13 operations, 6 guards)',
  );
  expect(first!.match(/^ {2}\+ /gm)).toHaveLength(13);
  expect(first).toContain('applied: 1 transaction, 13 operations, 6 guards');

  expect(second).toMatch(/^plan 2: the change ==\n/);
  expect(second).toContain(
    'Plan for owner "tenant-ds": 1 to create, 5 to update, 1 to delete (6 operations, 9 guards)',
  );
  expect(second).toContain(
    '  + Logical_Switch_Port{name="ds-web-3"} in Logical_Switch{name="ds-web"}\n',
  );
  expect(second).toContain('      log: false → true');
  expect(second).toContain('      addresses += ["192.168.101.0/24"]');
  expect(second).toContain(
    '  ~ Port_Group{name="ds_web"}\n      ports += [Logical_Switch_Port{name="ds-web-3"}]\n',
  );
  expect(second).toContain(
    '  - NAT{type="snat", external_ip="172.16.50.10", logical_ip="10.50.1.0/24"} in Logical_Router{name="ds-router"} (unlink)',
  );
  expect(second).toContain('applied: 1 transaction, 6 operations, 9 guards');

  expect(third).toBe(
    'plan 3: again ==\nPlan for owner "tenant-ds": no changes.\nnothing sent\n\n' +
      'NB: 4 switch ports, 3 ACLs, 0 NAT rules, 1 routes\n',
  );
}

describe.each(SERVER_KINDS)('examples/desired-state on %s', (kind) => {
  let server: TestServerHandle;
  let client: DatabaseClient<NBTables>;
  beforeAll(async () => {
    server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    client = connectDatabase({ remotes: server.unixRemote, model: NB });
    await client.whenSynced();
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  const nbctl = async (...args: string[]): Promise<string> =>
    (
      await run('ovn-nbctl', [`--db=${server.unixRemote}`, '--timeout=20', ...args], {
        encoding: 'utf8',
      })
    ).stdout;

  it('prints the three plans and leaves the declared tenant in NB', async () => {
    const { stdout, stderr } = await runMain(server.unixRemote);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^NB: unix:/);
    expectOutput(stdout);

    await client.transact([{ op: 'comment', comment: 'settle' }]);
    await client.drained();
    const rows = <T extends keyof NBTables>(t: T) => [...client.rows(t)];
    const lspName = new Map(rows('Logical_Switch_Port').map((p) => [p._uuid as string, p.name]));
    const [sw] = rows('Logical_Switch');
    expect(rows('Logical_Switch')).toHaveLength(1);
    expect(sw!.name).toBe('ds-web');
    expect(sw!.other_config).toEqual({ subnet: '10.50.1.0/24' });
    expect(sw!.ports.map((u) => lspName.get(u)).sort()).toEqual([
      'ds-web-1',
      'ds-web-2',
      'ds-web-3',
      'ds-web-router',
    ]);
    const web3 = rows('Logical_Switch_Port').find((p) => p.name === 'ds-web-3')!;
    expect(web3.addresses).toEqual(['0a:00:00:00:01:03 10.50.1.13']);
    const [pg] = rows('Port_Group');
    expect(pg!.ports.map((u) => lspName.get(u)).sort()).toEqual([
      'ds-web-1',
      'ds-web-2',
      'ds-web-3',
    ]);
    expect(pg!.acls).toHaveLength(3);
    const ssh = rows('ACL').find((a) => a.match.includes('tcp.dst == 22'))!;
    expect(ssh.log).toBe(true);
    expect(rows('ACL').filter((a) => a.log)).toHaveLength(1);
    expect([...rows('Address_Set')[0]!.addresses].sort()).toEqual([
      '192.168.100.0/24',
      '192.168.101.0/24',
    ]);
    const [lr] = rows('Logical_Router');
    expect(lr!.nat).toEqual([]);
    expect(rows('NAT')).toEqual([]);
    expect(lr!.static_routes).toHaveLength(1);
    expect(rows('Logical_Router_Static_Route')[0]).toMatchObject({
      ip_prefix: '0.0.0.0/0',
      nexthop: '172.16.50.254',
    });
    // Every row the example made carries its owner mark.
    for (const t of [
      'Logical_Switch',
      'Logical_Switch_Port',
      'Port_Group',
      'ACL',
      'Address_Set',
      'Logical_Router',
      'Logical_Router_Port',
      'Logical_Router_Static_Route',
    ] as const) {
      for (const r of rows(t))
        expect(r.external_ids[OWNER_KEY], `${t} ${r._uuid}`).toBe('tenant-ds');
    }

    // What ovn-nbctl sees.
    expect((await nbctl('acl-list', 'ds_web')).trim().split('\n')).toHaveLength(3);
    expect(await nbctl('lr-route-list', 'ds-router')).toMatch(
      /0\.0\.0\.0\/0\s+172\.16\.50\.254 dst-ip/,
    );
    expect((await nbctl('lr-nat-list', 'ds-router')).trim()).toBe('');
    expect(await nbctl('lsp-get-type', 'ds-web-router')).toBe('router\n');

    // Run again: its first plan takes the tenant back to version 1 (the
    // SNAT again, no ds-web-3; the port group's weak reference to ds-web-3
    // is left to the server, so no change of the port group), the second
    // forward to version 2 again.
    const again = await runMain(server.unixRemote);
    const [back, forward, none] = sections(again.stdout);
    expect(back).toContain(
      'Plan for owner "tenant-ds": 1 to create, 4 to update, 1 to delete (5 operations, 8 guards)',
    );
    expect(back).toMatch(/^ {2}\+ NAT\{type="snat"/m);
    expect(back).toMatch(/^ {2}- Logical_Switch_Port\{name="ds-web-3"\} \(unlink\)$/m);
    expect(back).not.toMatch(/^ {2}~ Port_Group/m);
    expect(forward).toContain('1 to create, 5 to update, 1 to delete');
    expect(none).toContain('no changes.');
  }, 90_000);
});

describe('examples/desired-state without OVN_NB_DB', () => {
  it('starts an in-memory server of its own and prints the same plans', async () => {
    const { stdout, stderr } = await runMain(undefined);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^NB: in-memory server\n/);
    expectOutput(stdout);
  }, 60_000);
});

const POD: Pod = {
  namespace: 'ns',
  name: 'p1',
  node: 'n1',
  annotations: { [ANNOTATIONS.logicalSwitch]: 'ds-a' },
};

const TOPOLOGY: ClusterTopology = {
  router: 'lr-ds',
  subnets: [
    { name: 'ds-a', cidr: '10.60.0.0/24,fd00:60::/64' },
    { name: 'ds-b', cidr: '10.61.0.0/24' },
  ],
};

describe.each(SERVER_KINDS)('pod-allocation topology as desired state on %s', (kind) => {
  let server: TestServerHandle;
  beforeAll(async () => {
    server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('adopts a hand-made topology, deletes a dropped subnet, updates DHCP, heals at GC', async () => {
    const remote = server.unixRemote;
    const owner = topologyOwner('lr-ds');
    // The topology as the controller's DSL calls used to make it (no owner mark).
    const setup = connectDatabase({ remotes: remote, model: NB });
    await setup.whenSynced();
    const nb = createNb(setup);
    await nb.transact((t) => {
      lrAdd(t, 'lr-ds', { externalIds: { vendor: 'ovnkit' } });
      lsAdd(t, 'ds-b', { externalIds: { vendor: 'ovnkit', cidr: '10.61.0.0/24' } });
      connectSwitchToRouter(t, {
        switch: 'ds-b',
        router: 'lr-ds',
        mac: '0a:00:00:00:99:01',
        networks: ['10.61.0.1/24'],
        routerPort: 'lr-ds-ds-b',
        switchPort: 'ds-b-lr-ds',
      });
      dhcpOptionsCreate(
        t,
        '10.61.0.0/24',
        {
          server_id: '10.61.0.1',
          server_mac: '0a:00:00:00:99:01',
          lease_time: 3600,
          router: '10.61.0.1',
        },
        { externalIds: { vendor: 'ovnkit', subnet: 'ds-b', protocol: 'IPv4' } },
      );
    });
    await setup.close();

    let r = await rig(remote, TOPOLOGY);
    try {
      await r.controller.start();
      const c = r.client;
      const rows = <T extends keyof NBTables>(t: T) => [...c.rows(t)];
      expect(rows('Logical_Router').map((x) => x.name)).toEqual(['lr-ds']);
      expect(
        rows('Logical_Switch')
          .map((x) => x.name)
          .sort(),
      ).toEqual(['ds-a', 'ds-b']);
      expect(
        rows('Logical_Router_Port')
          .map((x) => x.name)
          .sort(),
      ).toEqual(['lr-ds-ds-a', 'lr-ds-ds-b']);
      // Adopted, not duplicated: one DHCP row per subnet and family.
      expect(
        rows('DHCP_Options')
          .map((x) => x.cidr)
          .sort(),
      ).toEqual(['10.60.0.0/24', '10.61.0.0/24', 'fd00:60::/64']);
      for (const t of [
        'Logical_Router',
        'Logical_Switch',
        'Logical_Router_Port',
        'DHCP_Options',
      ] as const) {
        for (const x of rows(t)) expect(x.external_ids[OWNER_KEY], `${t} ${x._uuid}`).toBe(owner);
      }
      // The adopted router port got the controller's MAC.
      const lrpB = rows('Logical_Router_Port').find((x) => x.name === 'lr-ds-ds-b')!;
      expect(lrpB.mac).not.toBe('0a:00:00:00:99:01');
      // Pods on ds-a are served.
      r.source.add(POD);
      await r.controller.idle();
      expect(r.controller.status.get('ns/p1')?.state).toBe('ready');
      // Nothing left to do: the plan over the same topology is empty.
      const ipam = new Ipam(TOPOLOGY.subnets);
      expect(planDesired(c, declareTopology(NB, 'lr-ds', ipam.listSubnets())).empty).toBe(true);
    } finally {
      await r.close();
    }

    // Restart with ds-b dropped and another lease time.
    r = await rig(
      remote,
      { ...TOPOLOGY, subnets: [TOPOLOGY.subnets[0]!], dhcpLeaseTime: 7200 },
      {},
      r.source,
    );
    try {
      await r.controller.start();
      const c = r.client;
      const rows = <T extends keyof NBTables>(t: T) => [...c.rows(t)];
      expect(rows('Logical_Switch').map((x) => x.name)).toEqual(['ds-a']);
      expect(rows('Logical_Router_Port').map((x) => x.name)).toEqual(['lr-ds-ds-a']);
      expect(
        rows('Logical_Switch_Port')
          .map((x) => x.name)
          .sort(),
      ).toEqual(['ds-a-lr-ds', 'p1.ns']);
      const dhcp = rows('DHCP_Options');
      expect(dhcp.map((x) => x.cidr).sort()).toEqual(['10.60.0.0/24', 'fd00:60::/64']);
      expect(dhcp.find((x) => x.cidr === '10.60.0.0/24')!.options['lease_time']).toBe('7200');
      await until(() => r.controller.status.get('ns/p1')?.state === 'ready');

      // A switch deleted behind the controller's back comes back at the next GC pass.
      const sw = rows('Logical_Switch')[0]!;
      await c.transact([
        { op: 'delete', table: 'Logical_Switch', where: [['_uuid', '==', ['uuid', sw._uuid]]] },
      ]);
      await c.drained();
      expect(rows('Logical_Switch')).toEqual([]);
      await r.controller.gc();
      expect(rows('Logical_Switch').map((x) => x.name)).toEqual(['ds-a']);
      expect(rows('Logical_Switch')[0]!.ports.length).toBe(1);
    } finally {
      await r.close();
    }
  }, 60_000);
});

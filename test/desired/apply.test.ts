/**
 * `planDesired` / `applyDesired` on a real ovsdb-server and on the
 * in-memory server: creates, updates with column-level changes and
 * mutations, deletes of only the owner's rows, shared rows, guards that
 * trip and re-plan, an unchanged state that sends nothing, and bad desired
 * states refused before anything is sent.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type DatabaseClient } from '../../src/client/index.js';
import {
  applyDesired,
  DesiredState,
  DesiredStateError,
  keyOf,
  planDesired,
} from '../../src/desired/index.js';
import { NB, type NBTables } from '../../src/nb/generated/index.js';
import { nbDesiredState } from '../../src/nb/index.js';
import { defineModel, type TableMap } from '../../src/ovsdb/schema/model.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import { SERVER_KINDS, startTestServer, type TestServerHandle } from '../helpers/servers.js';
import { interceptSends } from '../helpers/typed.js';

const NB_SCHEMA = new URL('../../schema/ovn-nb-7.18.0.ovsschema', import.meta.url).pathname;
const BACKOFF = { initialDelayMs: 20, maxDelayMs: 200 } as const;

const EXT = { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } };

const NB_KEYS_TEST = {
  Logical_Switch: { columns: ['name'] },
  Logical_Router: { columns: ['name'] },
  ACL: { columns: ['direction', 'priority', 'match'] },
} as const;

describe.each(SERVER_KINDS)('desired state on %s', (kind) => {
  let server: TestServerHandle;
  let client: DatabaseClient<NBTables>;
  let other: DatabaseClient<NBTables>;
  beforeAll(async () => {
    server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    client = connectDatabase({ remotes: server.unixRemote, model: NB, backoff: BACKOFF });
    other = connectDatabase({ remotes: server.unixRemote, model: NB, backoff: BACKOFF });
    await client.whenSynced();
    await other.whenSynced();
  });
  afterAll(async () => {
    await client?.close();
    await other?.close();
    await server?.stop();
  });

  /** A round trip on `c`: the updates of every commit before it are in its replica after. */
  const settle = async (c: DatabaseClient<NBTables>): Promise<void> => {
    await c.transactRaw([{ op: 'comment', comment: 'settle' }]);
    await c.drained();
  };

  const state = (owner: string): DesiredState<NBTables> =>
    new DesiredState(NB, { owner, keys: NB_KEYS_TEST });

  it('creates, then sends nothing for the same state, then applies a column-level diff', async () => {
    const d = state('a1');
    const sw = d.add('Logical_Switch', { name: 'a1-sw', other_config: { subnet: '10.0.0.0/24' } });
    d.add(
      'Logical_Switch_Port',
      { name: 'a1-p1', addresses: ['00:00:00:00:00:01 10.0.0.2'] },
      { in: sw },
    );
    d.add(
      'Logical_Switch_Port',
      { name: 'a1-p2', addresses: ['00:00:00:00:00:02 10.0.0.3'] },
      { in: sw },
    );
    const pg = d.add('Port_Group', {
      name: 'a1_pg',
      ports: [keyOf('Logical_Switch_Port', { name: 'a1-p1' })],
    });
    d.add(
      'ACL',
      {
        direction: 'to-lport',
        priority: 1000,
        match: 'outport == @a1_pg',
        action: 'allow-related',
      },
      { in: pg },
    );
    const first = await applyDesired(client, d);
    expect(first.outcome).toBe('applied');
    expect(first.transactions).toBe(1);
    expect(first.operations).toBe(5); // 5 inserts: children ride in their parents' inserts
    const sw0 = client.find('Logical_Switch', (r) => r.name === 'a1-sw')!;
    expect(sw0.external_ids).toEqual({ 'ovnkit-owner': 'a1' });
    expect(sw0.ports.length).toBe(2);
    const pg0 = client.lookup('Port_Group', { name: 'a1_pg' })!;
    expect(pg0.acls.length).toBe(1);
    expect(client.get('ACL', pg0.acls[0]!)?.action).toBe('allow-related');

    const again = await applyDesired(client, d);
    expect(again.outcome).toBe('unchanged');
    expect(again.transactions).toBe(0);
    expect(planDesired(client, d).empty).toBe(true);

    const d2 = state('a1');
    const sw2 = d2.add('Logical_Switch', {
      name: 'a1-sw',
      other_config: { subnet: '10.0.1.0/24' },
    });
    d2.add(
      'Logical_Switch_Port',
      { name: 'a1-p1', addresses: ['00:00:00:00:00:09 10.0.0.9'] },
      { in: sw2 },
    );
    d2.add('Port_Group', { name: 'a1_pg', ports: [] });
    const plan = planDesired(client, d2);
    expect(plan.counts).toEqual({ creates: 0, updates: 3, deletes: 2 });
    // sw: mutate (other_config, ports −p2); p1: mutate (addresses); pg: mutate (ports −p1, acls −acl)
    expect(plan.operations).toBe(3);
    expect(plan.render()).toContain('~ Logical_Switch{name="a1-sw"}');
    const r = await applyDesired(client, d2);
    expect(r.operations).toBe(3);
    expect(client.lookup('Logical_Switch_Port', { name: 'a1-p2' })).toBeUndefined();
    expect(client.lookup('Logical_Switch_Port', { name: 'a1-p1' })?.addresses).toEqual([
      '00:00:00:00:00:09 10.0.0.9',
    ]);
    expect(client.lookup('Port_Group', { name: 'a1_pg' })?.acls).toEqual([]);
    expect(client.count('ACL')).toBe(0);
    expect((await applyDesired(client, d2)).outcome).toBe('unchanged');
  });

  it("deletes only its own rows, never another owner's or unmarked ones", async () => {
    const a = state('b1');
    a.add('Logical_Switch', { name: 'b1-a' });
    const b = state('b2');
    b.add('Logical_Switch', { name: 'b1-b' });
    await applyDesired(client, a);
    await applyDesired(client, b);
    await other.transactRaw([{ op: 'insert', table: 'Logical_Switch', row: { name: 'b1-free' } }]);
    await settle(client);
    const empty = state('b1');
    const plan = planDesired(client, empty);
    expect(plan.changes.map((c) => [c.action, c.key])).toEqual([
      ['delete', 'Logical_Switch{name="b1-a"}'],
    ]);
    await applyDesired(client, empty);
    const names = [...client.rows('Logical_Switch')]
      .map((r) => r.name)
      .filter((n) => n.startsWith('b1-'));
    expect(names.sort()).toEqual(['b1-b', 'b1-free']);
  });

  it('refuses a row owned by another owner, and an unmarked one unless adopted', async () => {
    const b = state('c2');
    b.add('Logical_Switch', { name: 'c1-x' });
    await applyDesired(client, b);
    const a = state('c1');
    a.add('Logical_Switch', { name: 'c1-x' });
    const e = (() => {
      try {
        planDesired(client, a);
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(DesiredStateError);
    expect((e as DesiredStateError).kind).toBe('owned-by-other');
    expect((e as DesiredStateError).owner).toBe('c2');

    await other.transactRaw([{ op: 'insert', table: 'Logical_Switch', row: { name: 'c1-free' } }]);
    await settle(client);
    const c = state('c1');
    c.add('Logical_Switch', { name: 'c1-free', other_config: { k: 'v' } });
    expect(() => planDesired(client, c)).toThrow(/carries no owner mark/);
    const adopt = new DesiredState(NB, { owner: 'c1', keys: NB_KEYS_TEST, adopt: true });
    adopt.add('Logical_Switch', { name: 'c1-free', other_config: { k: 'v' } });
    await applyDesired(client, adopt);
    const row = client.find('Logical_Switch', (r) => r.name === 'c1-free')!;
    expect(row.external_ids).toEqual({ 'ovnkit-owner': 'c1' });
    expect(row.other_config).toEqual({ k: 'v' });
  });

  it('shared port group: two owners contribute ports and both survive', async () => {
    const mk = (owner: string, ports: string[]): DesiredState<NBTables> => {
      const d = state(owner);
      const sw = d.add('Logical_Switch', { name: `${owner}-sw` });
      for (const p of ports) d.add('Logical_Switch_Port', { name: p }, { in: sw });
      d.add(
        'Port_Group',
        { name: 'shared_pg', ports: ports.map((p) => keyOf('Logical_Switch_Port', { name: p })) },
        { shared: true },
      );
      return d;
    };
    const results = await Promise.all([
      applyDesired(client, mk('d1', ['d1-p1', 'd1-p2'])),
      applyDesired(other, mk('d2', ['d2-p1'])),
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['applied', 'applied']);
    await settle(client);
    const names = (): string[] =>
      client
        .lookup('Port_Group', { name: 'shared_pg' })!
        .ports.map((u) => client.get('Logical_Switch_Port', u)!.name)
        .sort();
    expect(names()).toEqual(['d1-p1', 'd1-p2', 'd2-p1']);
    expect(client.lookup('Port_Group', { name: 'shared_pg' })!.external_ids).toEqual({});
    // d1 drops one of its ports from the group: only that element goes.
    await applyDesired(client, mk('d1', ['d1-p1']));
    expect(names()).toEqual(['d1-p1', 'd2-p1']);
  });

  it('a writer changing a row between plan and apply trips the guard, and the re-plan wins', async () => {
    const d = state('e1');
    d.add('Logical_Switch', { name: 'e1-sw', other_config: { mode: 'a' } });
    await applyDesired(client, d);
    const sw = client.find('Logical_Switch', (r) => r.name === 'e1-sw')!;
    const d2 = state('e1');
    d2.add('Logical_Switch', { name: 'e1-sw', other_config: { mode: 'b' } });
    // The first transaction the apply sends is preceded by another writer's change of the row.
    let sent = 0;
    const racing = interceptSends(client, (request, forward) => {
      if (sent++ > 0) {
        forward();
        return;
      }
      other
        .transactRaw([
          {
            op: 'mutate',
            table: 'Logical_Switch',
            where: [['_uuid', '==', ['uuid', sw._uuid]]],
            mutations: [['external_ids', 'insert', ['map', [['note', 'x']]]]],
          },
        ])
        .then(forward, request.onError);
    });
    const r = await applyDesired(racing, d2);
    expect(r.outcome).toBe('applied');
    expect(r.conflicts).toBe(1);
    expect(r.attempts).toBe(2);
    const row = client.find('Logical_Switch', (x) => x.name === 'e1-sw')!;
    // The re-plan kept the other writer's pair (external_ids is not declared) and set other_config.
    expect(row.other_config).toEqual({ mode: 'b' });
    expect(row.external_ids).toEqual({ 'ovnkit-owner': 'e1', note: 'x' });
  });

  it('NB keys: a router with its port, NAT, routes and policies, changed by key', async () => {
    const mk = (nat: string, nexthop: string): DesiredState<NBTables> => {
      const d = nbDesiredState(NB, { owner: 'g1' });
      const lr = d.add('Logical_Router', { name: 'g1-lr' });
      d.add(
        'Logical_Router_Port',
        { name: 'g1-lrp', mac: '00:00:00:00:01:01', networks: ['10.9.0.1/24'] },
        { in: lr },
      );
      d.add('NAT', { type: 'snat', logical_ip: '10.9.0.0/24', external_ip: nat }, { in: lr });
      d.add('Logical_Router_Static_Route', { ip_prefix: '0.0.0.0/0', nexthop }, { in: lr });
      d.add(
        'Logical_Router_Policy',
        { priority: 100, match: 'ip4.src == 10.9.0.0/24', action: 'allow' },
        { in: lr },
      );
      return d;
    };
    const first = await applyDesired(client, mk('172.16.0.10', '172.16.0.1'));
    expect(first.operations).toBe(5);
    const lr = client.find('Logical_Router', (r) => r.name === 'g1-lr')!;
    expect([lr.ports.length, lr.nat.length, lr.static_routes.length, lr.policies.length]).toEqual([
      1, 1, 1, 1,
    ]);
    expect((await applyDesired(client, mk('172.16.0.10', '172.16.0.1'))).outcome).toBe('unchanged');
    // A NAT with another external IP is another row (new key); the route's nexthop is its key too.
    const plan = planDesired(client, mk('172.16.0.11', '172.16.0.1'));
    expect(plan.counts).toEqual({ creates: 1, updates: 1, deletes: 1 });
    expect(plan.operations).toBe(2); // insert the NAT; one mutate of the router's nat set (link + unlink)
    await applyDesired(client, mk('172.16.0.11', '172.16.0.254'));
    const lr2 = client.find('Logical_Router', (r) => r.name === 'g1-lr')!;
    expect(client.get('NAT', lr2.nat[0]!)?.external_ip).toBe('172.16.0.11');
    expect(client.get('Logical_Router_Static_Route', lr2.static_routes[0]!)?.nexthop).toBe(
      '172.16.0.254',
    );
    expect(client.count('NAT')).toBe(1);
    expect(() =>
      nbDesiredState(NB, { owner: 'g1' }).add(
        'ACL',
        { direction: 'to-lport', priority: 1, match: 'tcp.dst == "443"', action: 'allow' },
        { in: keyOf('Logical_Switch', { name: 'x' }) },
      ),
    ).toThrow(/ACL\.match: .*16-bit/);
  });

  it('NB keys: DHCP options, a load balancer, QoS rules and a meter with bands, changed and unchanged', async () => {
    const mk = (lease: string, rate: number, vip: string): DesiredState<NBTables> => {
      const d = nbDesiredState(NB, { owner: 'q1' });
      const dhcp = d.add('DHCP_Options', {
        cidr: '10.77.0.0/24',
        options: {
          lease_time: lease,
          router: '10.77.0.1',
          server_id: '10.77.0.1',
          server_mac: '0a:00:00:00:77:01',
        },
      });
      const lb = d.add('Load_Balancer', {
        name: 'q1-lb',
        vips: { [vip]: '10.77.0.10:80,10.77.0.11:80' },
        protocol: 'tcp',
      });
      const sw = d.add('Logical_Switch', { name: 'q1-sw', load_balancer: [lb] });
      d.add(
        'Logical_Switch_Port',
        { name: 'q1-p', addresses: ['0a:00:00:00:77:10 10.77.0.10'], dhcpv4_options: dhcp },
        { in: sw },
      );
      d.add(
        'QoS',
        {
          direction: 'from-lport',
          priority: 100,
          match: 'ip4.src == 10.77.0.10',
          action: { dscp: 10 },
        },
        { in: sw },
      );
      const meter = d.add('Meter', { name: 'q1-meter', unit: 'pktps' });
      d.add('Meter_Band', { action: 'drop', rate, burst_size: 0 }, { in: meter });
      return d;
    };
    const first = await applyDesired(client, mk('3600', 100, '10.77.1.1:80'));
    expect(first.operations).toBe(7);
    const sw = client.find('Logical_Switch', (r) => r.name === 'q1-sw')!;
    expect(sw.load_balancer.length).toBe(1);
    expect(client.get('QoS', sw.qos_rules[0]!)?.action).toEqual({ dscp: 10 });
    const port = client.lookup('Logical_Switch_Port', { name: 'q1-p' })!;
    expect(client.get('DHCP_Options', port.dhcpv4_options!)?.options['lease_time']).toBe('3600');
    const meter = client.lookup('Meter', { name: 'q1-meter' })!;
    expect(client.get('Meter_Band', meter.bands[0]!)?.rate).toBe(100);
    expect((await applyDesired(client, mk('3600', 100, '10.77.1.1:80'))).outcome).toBe('unchanged');
    // A lease time (map pair), a band's rate (its key: a new band) and a VIP (map key) change.
    const plan = planDesired(client, mk('7200', 200, '10.77.1.2:80'));
    expect(plan.counts).toEqual({ creates: 1, updates: 3, deletes: 1 });
    await applyDesired(client, mk('7200', 200, '10.77.1.2:80'));
    expect(client.get('DHCP_Options', port.dhcpv4_options!)?.options['lease_time']).toBe('7200');
    const meter2 = client.lookup('Meter', { name: 'q1-meter' })!;
    expect(meter2.bands.map((u) => client.get('Meter_Band', u)?.rate)).toEqual([200]);
    expect(client.count('Meter_Band')).toBe(1);
    expect(Object.keys(client.find('Load_Balancer', (r) => r.name === 'q1-lb')!.vips)).toEqual([
      '10.77.1.2:80',
    ]);
    expect((await applyDesired(client, mk('7200', 200, '10.77.1.2:80'))).outcome).toBe('unchanged');
  });

  it('refuses parents that form a cycle no root row holds, and a parent table that holds no such rows', () => {
    // Two non-root tables that hold each other: rows of them that only hold each other would be
    // garbage-collected by the server at commit.
    const ref = (t: string) => ({
      type: { key: { type: 'uuid', refTable: t }, min: 0, max: 'unlimited' },
    });
    const model = defineModel<TableMap>(
      parseSchema({
        name: 'Cyc',
        version: '1.0.0',
        tables: {
          Root: {
            isRoot: true,
            columns: { name: { type: 'string' }, as: ref('A'), external_ids: EXT },
          },
          A: {
            columns: { name: { type: 'string' }, bs: ref('B'), external_ids: EXT },
            indexes: [['name']],
          },
          B: {
            columns: { name: { type: 'string' }, as: ref('A'), external_ids: EXT },
            indexes: [['name']],
          },
        },
      }),
    );
    const d = new DesiredState(model, { owner: 'cy' });
    d.add('A' as never, { name: 'a1' } as never, { in: keyOf('B', { name: 'b1' }) });
    d.add('B' as never, { name: 'b1' } as never, { in: keyOf('A', { name: 'a1' }) });
    const reader = { rows: () => [], isMonitored: () => true };
    let e: unknown;
    try {
      planDesired(reader as never, d);
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(DesiredStateError);
    expect((e as DesiredStateError).kind).toBe('cycle');
    expect(String(e)).toMatch(/cycle .* that no root row holds/);
    const nb = nbDesiredState(NB, { owner: 'cy' });
    expect(() =>
      nb.add(
        'ACL',
        { direction: 'to-lport', priority: 1, match: '1', action: 'drop' },
        { in: keyOf('ACL', { direction: 'to-lport', priority: 2, match: '1' }) },
      ),
    ).toThrow(/ACL has no column that holds ACL rows/);
  });

  it('batches: a 40-row state in batches of 7 commits in order, and a re-apply sends nothing', async () => {
    const d = state('h1');
    const sw = d.add('Logical_Switch', { name: 'h1-sw' });
    const ports = [];
    for (let i = 0; i < 38; i++)
      ports.push(d.add('Logical_Switch_Port', { name: `h1-p${i}` }, { in: sw }));
    d.add('Port_Group', { name: 'h1_pg', ports });
    const r = await applyDesired(client, d, { batchSize: 7 });
    expect(r.transactions).toBe(Math.ceil(40 / 7));
    const swRow = client.find('Logical_Switch', (x) => x.name === 'h1-sw')!;
    expect(swRow.ports.length).toBe(38);
    expect(client.lookup('Port_Group', { name: 'h1_pg' })!.ports.length).toBe(38);
    expect((await applyDesired(client, d, { batchSize: 7 })).outcome).toBe('unchanged');
  });

  it('refuses bad desired states before sending anything', async () => {
    const d = state('f1');
    expect(() => d.add('Logical_Switch_Port', { name: 'f1-p' })).toThrow(/not a root table/);
    const sw = d.add('Logical_Switch', { name: 'f1-sw' });
    expect(() => d.add('Logical_Switch', { name: 'f1-sw' })).toThrow(/declared twice/);
    d.add('Port_Group', { name: 'f1_pg', ports: [keyOf('Logical_Switch_Port', { name: 'nope' })] });
    void sw;
    expect(() => planDesired(client, d)).toThrow(/neither declared nor in the database/);
    const bad = state('f1');
    bad.add('Logical_Switch', { name: 'f1-sw2' });
    bad.add('ACL', { direction: 'sideways', priority: 1, match: '1', action: 'allow' } as never, {
      in: keyOf('Logical_Switch', { name: 'f1-sw2' }),
    });
    expect(() => planDesired(client, bad)).toThrow(DesiredStateError);
    const missing = state('f1');
    const sw3 = missing.add('Logical_Switch', { name: 'f1-sw3' });
    missing.add('ACL', { direction: 'to-lport', priority: 1, match: '1' }, { in: sw3 });
    expect(() => planDesired(client, missing)).toThrow(
      /ACL\{.*\} in Logical_Switch\{name="f1-sw3"\} is new and does not give action/,
    );
    expect(client.find('Logical_Switch', (r) => r.name.startsWith('f1-'))).toBeUndefined();
  });
});

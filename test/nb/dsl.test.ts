/**
 * The DSL against a real ovsdb-server (NB 7.18.0): one transaction per
 * `nb.transact`, the uniform meaning of `mayExist` and `ifExists` across
 * every kind of object, ambiguous names, the server-side name check against
 * concurrent clients, NB_Global created concurrently, dry runs, and waits
 * without ovn-northd.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import type { NBTables } from '../../src/nb/generated/model.js';
import {
  AlreadyExistsError,
  AmbiguousNameError,
  aclAdd,
  aclDel,
  addressSetAdd,
  addressSetDel,
  createNb,
  DuplicateNameError,
  dhcpOptionsCreate,
  dhcpOptionsDel,
  haChassisGroupAdd,
  haChassisGroupDel,
  lbAdd,
  lbAddVip,
  lbDel,
  lbDelVip,
  lbHealthCheckAdd,
  lbHealthCheckDel,
  lrAdd,
  lrDel,
  lrNatAdd,
  lrNatDel,
  lrPolicyAdd,
  lrPolicyDel,
  lrpAdd,
  lrpDel,
  lrpDelGatewayChassis,
  lrpSetGatewayChassis,
  lrRouteAdd,
  lrRouteDel,
  lsAdd,
  lsDel,
  lsLbAdd,
  lsLbDel,
  lspAdd,
  lspDel,
  match,
  type Nb,
  type NbTxn,
  NbWaitTimeoutError,
  NotFoundError,
  pgAdd,
  pgAddPorts,
  pgDel,
  pgGet,
} from '../../src/nb/index.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { TransactionError } from '../../src/ovsdb/wire/errors.js';
import { interceptSends } from '../helpers/typed.js';
import { NB_SCHEMA_7_18, type NbServer, rawDump, startNb } from './helpers/differential.js';

let s: NbServer;
let raw: OvsdbConnection;

beforeAll(async () => {
  s = await startNb(NB_SCHEMA_7_18);
  raw = await connect(s.server.unixRemote);
});
afterAll(async () => {
  raw?.close();
  await s?.close();
});

/** Empty the database (and wait for the replica to show it). */
async function reset(): Promise<void> {
  const tables = Object.keys(s.client.model.schema.tables);
  await s.client.transactRaw(tables.map((table) => ({ op: 'delete' as const, table, where: [] })));
}

/** The whole database as JSON (UUIDs included). */
async function snapshot(): Promise<string> {
  return JSON.stringify(await rawDump(s.server));
}

/** A client whose first send first runs `before` (another client's change). */
function interfering(before: () => Promise<void>): DatabaseClient<NBTables> {
  let done = false;
  return interceptSends(s.client, (request, forward) => {
    if (done) forward();
    else {
      done = true;
      before().then(forward, request.onError);
    }
  });
}

describe('one transaction per nb.transact', () => {
  beforeEach(reset);

  it('commits every operation of the callback atomically, and returns the refs', async () => {
    const r = await s.nb.transact((t) => {
      const sw = lsAdd(t, 'sw0');
      const ports = ['a', 'b', 'c'].map((p) => lspAdd(t, sw, p));
      const pg = pgAdd(t, 'pg1', { ports: ['a', 'b'] });
      pgAddPorts(t, pg, [ports[2]!]);
      return { sw, ports, pg };
    });
    expect(
      r.ops.filter((o) => o.op === 'insert').map((o) => (o as { table: string }).table),
    ).toEqual([
      'NB_Global',
      'Logical_Switch',
      'Logical_Switch_Port',
      'Logical_Switch_Port',
      'Logical_Switch_Port',
      'Port_Group',
    ]);
    expect(s.client.get('Logical_Switch', r.value.sw)?.ports.slice().sort()).toEqual(
      [...r.value.ports].sort(),
    );
    expect(s.client.get('Port_Group', r.value.pg)?.ports).toHaveLength(3);
  });

  it('a server-side failure rolls every operation back', async () => {
    await s.nb.transact((t) => lsAdd(t, 'sw0'));
    const before = await snapshot();
    // The second port group of the same name breaks the unique index at commit.
    const err = await s.nb
      .transact((t) => {
        lsAdd(t, 'sw1');
        lspAdd(t, 'sw0', 'p1');
        pgAdd(t, 'pg1', { ports: ['p1'] });
        t.insert('Port_Group', { name: 'pg1' });
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(TransactionError);
    expect(await snapshot()).toBe(before);
  });

  it('a DSL error in the callback sends nothing', async () => {
    await s.nb.transact((t) => lsAdd(t, 'sw0'));
    const before = await snapshot();
    await expect(
      s.nb.transact((t) => {
        lsAdd(t, 'sw1');
        lspAdd(t, 'sw0', 'p1', { addresses: ['not an address'] });
      }),
    ).rejects.toThrow('is not a valid logical switch port address');
    expect(await snapshot()).toBe(before);
  });

  it('dryRun returns the operations without sending them', async () => {
    const before = await snapshot();
    const { ops, value } = s.nb.dryRun((t) => lspAdd(t, lsAdd(t, 'sw0'), 'p1'));
    expect(ops.map((o) => o.op)).toEqual(['wait', 'insert', 'wait', 'insert', 'insert', 'mutate']);
    expect(typeof value).toBe('string');
    expect(await snapshot()).toBe(before);
  });
});

/** A create, the same create again, and the matching delete, for one kind of object. */
interface Existence {
  readonly kind: string;
  readonly setup?: (t: NbTxn) => void;
  readonly create: (t: NbTxn, mayExist: boolean) => unknown;
  readonly del: (t: NbTxn, ifExists: boolean) => unknown;
}

const KINDS: readonly Existence[] = [
  {
    kind: 'logical switch',
    create: (t, m) => lsAdd(t, 'sw0', { mayExist: m }),
    del: (t, i) => lsDel(t, 'sw0', { ifExists: i }),
  },
  {
    kind: 'logical switch port',
    setup: (t) => lsAdd(t, 'sw0'),
    create: (t, m) => lspAdd(t, 'sw0', 'p1', { mayExist: m, addresses: ['00:00:00:00:00:01'] }),
    del: (t, i) => lspDel(t, 'p1', { ifExists: i }),
  },
  {
    kind: 'port group',
    create: (t, m) => pgAdd(t, 'pg1', { mayExist: m }),
    del: (t, i) => pgDel(t, 'pg1', { ifExists: i }),
  },
  {
    kind: 'logical router',
    create: (t, m) => lrAdd(t, 'lr0', { mayExist: m }),
    del: (t, i) => lrDel(t, 'lr0', { ifExists: i }),
  },
  {
    kind: 'logical router port',
    setup: (t) => lrAdd(t, 'lr0'),
    create: (t, m) =>
      lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['10.0.0.1/24'], { mayExist: m }),
    del: (t, i) => lrpDel(t, 'lrp0', { ifExists: i }),
  },
  {
    kind: 'ACL',
    setup: (t) => lsAdd(t, 'sw0'),
    create: (t, m) =>
      aclAdd(
        t,
        { switch: 'sw0' },
        { direction: 'to-lport', priority: 10, match: match.field('ip4'), action: 'drop' },
        { mayExist: m },
      ),
    del: (t, i) =>
      aclDel(
        t,
        { switch: 'sw0' },
        { direction: 'to-lport', priority: 10, match: 'ip4' },
        { ifExists: i },
      ),
  },
  {
    kind: 'address set',
    create: (t, m) => addressSetAdd(t, 'as1', ['10.0.0.1'], { mayExist: m }),
    del: (t, i) => addressSetDel(t, 'as1', { ifExists: i }),
  },
  {
    kind: 'load balancer',
    create: (t, m) => lbAdd(t, 'lb0', { vips: { '10.0.0.10': '10.0.0.5' }, mayExist: m }),
    del: (t, i) => lbDel(t, 'lb0', { ifExists: i }),
  },
  {
    kind: 'load balancer VIP',
    setup: (t) => lbAdd(t, 'lb0'),
    create: (t, m) => lbAddVip(t, 'lb0', '10.0.0.10:80', ['10.0.0.5:80'], { mayExist: m }),
    del: (t, i) => lbDelVip(t, 'lb0', '10.0.0.10:80', { ifExists: i }),
  },
  {
    kind: 'load balancer health check',
    setup: (t) => lbAdd(t, 'lb0', { vips: { '10.0.0.10:80': ['10.0.0.5:80'] } }),
    create: (t, m) => lbHealthCheckAdd(t, 'lb0', '10.0.0.10:80', { interval: 5 }, { mayExist: m }),
    del: (t, i) => lbHealthCheckDel(t, 'lb0', '10.0.0.10:80', { ifExists: i }),
  },
  {
    kind: 'load balancer on a switch',
    setup: (t) => {
      lsAdd(t, 'sw0');
      lbAdd(t, 'lb0');
    },
    create: (t, m) => lsLbAdd(t, 'sw0', 'lb0', { mayExist: m }),
    del: (t, i) => lsLbDel(t, 'sw0', 'lb0', { ifExists: i }),
  },
  {
    kind: 'HA chassis group',
    create: (t, m) => haChassisGroupAdd(t, 'hag', { mayExist: m }),
    del: (t, i) => haChassisGroupDel(t, 'hag', { ifExists: i }),
  },
  {
    kind: 'NAT',
    setup: (t) => lrAdd(t, 'lr0'),
    create: (t, m) =>
      lrNatAdd(
        t,
        'lr0',
        { type: 'snat', externalIp: '172.16.0.1', logicalIp: '10.0.0.0/24' },
        { mayExist: m },
      ),
    del: (t, i) => lrNatDel(t, 'lr0', { type: 'snat', ip: '10.0.0.0/24' }, { ifExists: i }),
  },
  {
    kind: 'router policy',
    setup: (t) => lrAdd(t, 'lr0'),
    create: (t, m) =>
      lrPolicyAdd(t, 'lr0', { priority: 5, match: 'ip4', action: 'drop' }, { mayExist: m }),
    del: (t, i) => lrPolicyDel(t, 'lr0', { priority: 5, match: 'ip4' }, { ifExists: i }),
  },
  {
    kind: 'static route',
    setup: (t) => lrAdd(t, 'lr0'),
    create: (t, m) =>
      lrRouteAdd(t, 'lr0', { prefix: '10.1.0.0/16', nexthop: '10.0.0.1' }, { mayExist: m }),
    del: (t, i) => lrRouteDel(t, 'lr0', { prefix: '10.1.0.0/16' }, { ifExists: i }),
  },
  {
    kind: 'DHCP options',
    create: (t, m) =>
      dhcpOptionsCreate(
        t,
        '10.0.0.0/24',
        { server_id: '10.0.0.1', server_mac: '00:00:00:00:00:01', lease_time: 60 },
        { mayExist: m, externalIds: { k: 'v' } },
      ),
    del: (t, i) => {
      const row = t.find('DHCP_Options', (r) => r.external_ids['k'] === 'v');
      dhcpOptionsDel(t, row?._uuid ?? '00000000-0000-0000-0000-000000000000', { ifExists: i });
    },
  },
  {
    kind: 'gateway chassis (delete only)',
    setup: (t) => {
      lrAdd(t, 'lr0');
      lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['10.0.0.1/24']);
    },
    create: (t, m) => {
      const existing = t.find('Gateway_Chassis', () => true);
      if (existing !== undefined && !m) throw new AlreadyExistsError('gateway chassis', 'ch1');
      return lrpSetGatewayChassis(t, 'lrp0', 'ch1', 1);
    },
    del: (t, i) => lrpDelGatewayChassis(t, 'lrp0', 'ch1', { ifExists: i }),
  },
];

describe('mayExist and ifExists mean the same for every kind of object', () => {
  beforeEach(reset);

  it.each(KINDS.map((k) => [k.kind, k] as const))('%s', async (_kind, k) => {
    const nb: Nb = s.nb;
    const first = await nb.transact((t) => {
      k.setup?.(t);
      return k.create(t, false);
    });
    const created = await snapshot();
    // A duplicate is an error by default...
    const dup = await nb
      .transact((t) => k.create(t, false))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(dup).toBeInstanceOf(AlreadyExistsError);
    // ...and with mayExist a no-op that returns the existing object.
    const again = await nb.transact((t) => k.create(t, true));
    if (typeof first.value === 'string') expect(again.value).toBe(first.value);
    expect(await snapshot()).toBe(created);
    // Deleting it works; deleting it again is an error, unless ifExists.
    await nb.transact((t) => k.del(t, false));
    const deleted = await snapshot();
    expect(deleted).not.toBe(created);
    const missing = await nb
      .transact((t) => k.del(t, false))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(missing).toBeInstanceOf(NotFoundError);
    await nb.transact((t) => k.del(t, true));
    expect(await snapshot()).toBe(deleted);
  });
});

describe('names that are not unique', () => {
  beforeEach(reset);

  it('a name shared by two switches is ambiguous; the UUID still works', async () => {
    const r = await s.nb.transact((t) => [
      t.insert('Logical_Switch', { name: 'dup' }),
      t.insert('Logical_Switch', { name: 'dup' }),
    ]);
    const err = await s.nb
      .transact((t) => lspAdd(t, 'dup', 'p1'))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(AmbiguousNameError);
    expect((err as AmbiguousNameError).uuids).toEqual([...r.value].sort());
    const p = await s.nb.transact((t) => lspAdd(t, r.value[0]!, 'p1'));
    expect(s.client.get('Logical_Switch', r.value[0]!)?.ports).toEqual([p.value]);
  });

  it('a switch created concurrently by another client makes lsAdd fail on the server with DuplicateNameError', async () => {
    const nb = createNb(
      interfering(async () => {
        await raw.transact('OVN_Northbound', [
          { op: 'insert', table: 'Logical_Switch', row: { name: 'race' } },
        ]);
      }),
    );
    const err = await nb
      .transact((t) => lsAdd(t, 'race'))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(DuplicateNameError);
    expect((err as DuplicateNameError).cause).toBeInstanceOf(TransactionError);
    expect([...s.client.rows('Logical_Switch')].filter((r) => r.name === 'race')).toHaveLength(1);
  });

  it('NB_Global created concurrently (as ovn-northd does at start): the transaction is run again, once', async () => {
    const nb = createNb(
      interfering(async () => {
        await raw.transact('OVN_Northbound', [
          { op: 'insert', table: 'NB_Global', row: { name: 'theirs' } },
        ]);
      }),
    );
    const r = await nb.transact((t) => lsAdd(t, 'sw0'));
    const globals = [...s.client.rows('NB_Global')];
    expect(globals.map((g) => g.name)).toEqual(['theirs']);
    expect(s.client.get('Logical_Switch', r.value)?.name).toBe('sw0');
  });
});

describe('waiting without ovn-northd', () => {
  beforeEach(reset);

  it('wait: "hv" times out cleanly, after the transaction committed', async () => {
    const err = await s.nb
      .transact((t) => lsAdd(t, 'sw0'), { wait: 'hv', waitTimeoutMs: 200 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(NbWaitTimeoutError);
    expect(err).toMatchObject({ target: 'hv', expected: 1, current: 0, timeoutMs: 200 });
    expect((err as Error).message).toContain('is ovn-northd (and every ovn-controller) running?');
    expect([...s.client.rows('Logical_Switch')].map((r) => r.name)).toEqual(['sw0']);
  });

  it('a wait that is already satisfied resolves at once', async () => {
    // Play ovn-northd: copy nb_cfg to sb_cfg and hv_cfg as soon as it moves.
    const pending: Promise<unknown>[] = [];
    const off = s.client.on('NB_Global', 'update', (row) => {
      if (row.nb_cfg > row.sb_cfg) {
        pending.push(
          raw.transact('OVN_Northbound', [
            {
              op: 'update',
              table: 'NB_Global',
              where: [],
              row: { sb_cfg: Number(row.nb_cfg), hv_cfg: Number(row.nb_cfg) },
            },
          ]),
        );
      }
    });
    try {
      await s.nb.transact((t) => lsAdd(t, 'sw0'));
      const cfg = await s.nb.waitFor('hv', { timeoutMs: 10_000 });
      expect(cfg).toBe(1);
      const r = await s.nb.transact((t) => pgGet(t, 'nope', { ifExists: true }), {
        wait: 'sb',
        waitTimeoutMs: 10_000,
      });
      expect(r.nbCfg).toBe(2);
    } finally {
      off();
      await Promise.all(pending);
    }
    expect(pending.length).toBeGreaterThanOrEqual(2);
  });
});

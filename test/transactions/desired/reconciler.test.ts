/**
 * `desiredReconciler` on the real ovsdb-server and on the ovnkit-server
 * program: a long-lived desired state (switches with ports, a port group
 * with ACLs, address sets, a router with NATs and static routes) changed by
 * random commands (replace a row's columns; add, move or withdraw a port;
 * another writer editing the owner's rows, declared columns and others,
 * linking one of its ports into a second switch, or a row of nobody's). After every command the reconciler's plan equals a
 * full `planDesired` of the same state (the same changes, operations and
 * guards); every few commands the reconciler applies, after which a full
 * plan is empty. The incremental path must be taken for a quarter of the
 * plans at least, a row inserted or deleted must make the next plan full,
 * and the rows of the reconciler's own last commit need no plan. An apply
 * from inside a row event handler completes (with a full plan).
 */

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/client/index.js';
import { NB, type NBTables } from '../../../src/nb/generated/index.js';
import { nbDesiredState } from '../../../src/nb/index.js';
import {
  type DesiredState,
  desiredReconciler,
  type KeyRef,
  type Plan,
  planDesired,
} from '../../../src/transactions/index.js';
import { connectNb, KINDS, type NbServer, settle, startNbServer } from './helpers.js';

const RUNS = Number(process.env['DESIRED_RUNS'] ?? 25);
const SEED = process.env['FC_SEED'] === undefined ? undefined : Number(process.env['FC_SEED']);
const OWNER = 'rec-a';
const SWITCHES = 2;
const PORTS = 6;

/** A plan as comparable data: UUIDs of new rows replaced by "new", edits with their guards. */
function comparable(plan: Plan, client: DatabaseClient<NBTables>): unknown {
  const known = (u: string): boolean =>
    ['Logical_Switch_Port', 'Logical_Switch', 'ACL', 'Port_Group', 'Address_Set', 'NAT'].some(
      (t) => client.get(t as 'ACL', u) !== undefined,
    ) ||
    client.get('Logical_Router', u) !== undefined ||
    client.get('Logical_Router_Static_Route', u) !== undefined;
  const isNew = (x: unknown): boolean =>
    typeof x === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(x) && !known(x);
  // New rows' UUIDs differ between two plans, as values and as keys (of a change's `refs`).
  const mask = (v: unknown): unknown =>
    JSON.parse(
      JSON.stringify(v, (_k, x) =>
        isNew(x)
          ? 'new'
          : x !== null && typeof x === 'object' && !Array.isArray(x)
            ? Object.fromEntries(Object.entries(x).map(([k, y]) => [isNew(k) ? 'new' : k, y]))
            : x,
      ),
    );
  const edits = [...plan.edits.values()]
    .map((e) => ({
      uuid: e.uuid,
      set: [...e.set].sort(),
      mutate: [...e.mutate.keys()].sort(),
      guard: [...e.guard].sort(),
    }))
    .sort((a, b) => (a.uuid < b.uuid ? -1 : 1));
  return mask({
    json: plan.toJSON(),
    edits,
    roots: [...plan.ownedRoots].map(([t, l]) => [t, [...l].sort()]).sort(),
  });
}

/** The commands. */
type Command =
  | { kind: 'port'; sw: number; port: number; addresses: string[]; enabled: boolean | undefined }
  | { kind: 'add-port'; sw: number }
  | { kind: 'move-port'; sw: number; port: number }
  | { kind: 'drop-port'; sw: number; port: number }
  | { kind: 'address-set'; n: number; addresses: string[] }
  | { kind: 'acl'; priority: number; action: 'allow' | 'drop' | 'allow-related' }
  | { kind: 'nat'; mac: string | undefined }
  | { kind: 'route'; options: Record<string, string> }
  | { kind: 'outside-edit'; sw: number; port: number; value: string }
  | { kind: 'outside-foreign'; value: string }
  | { kind: 'outside-link'; sw: number; port: number }
  | { kind: 'apply' };

/** A command naming one of the model's ports. */
const portCommand = <K extends 'move-port' | 'drop-port' | 'outside-link'>(kind: K) =>
  fc.record({ kind: fc.constant(kind), sw: fc.nat(SWITCHES - 1), port: fc.nat(PORTS - 1) });

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('port' as const),
      sw: fc.nat(SWITCHES - 1),
      port: fc.nat(PORTS - 1),
      addresses: fc.subarray(['unknown', '0a:00:00:00:00:01 10.0.0.1', 'router']),
      enabled: fc.option(fc.boolean(), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('add-port' as const), sw: fc.nat(1) }) },
  { weight: 1, arbitrary: portCommand('move-port') },
  { weight: 1, arbitrary: portCommand('drop-port') },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('address-set' as const),
      n: fc.nat(1),
      addresses: fc.subarray(['10.0.0.1', '10.0.0.2', '10.1.0.0/16']),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('acl' as const),
      priority: fc.constantFrom(100, 200),
      action: fc.constantFrom('allow' as const, 'drop' as const, 'allow-related' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('nat' as const),
      mac: fc.option(fc.constantFrom('0a:00:00:00:01:01', '0a:00:00:00:01:02'), { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('route' as const),
      options: fc.dictionary(fc.constantFrom('ecmp_symmetric_reply'), fc.constantFrom('true')),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('outside-edit' as const),
      sw: fc.nat(SWITCHES - 1),
      port: fc.nat(PORTS - 1),
      value: fc.constantFrom('x', 'y'),
    }),
  },
  { weight: 1, arbitrary: portCommand('outside-link') },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('outside-foreign' as const),
      value: fc.constantFrom('x', 'y'),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'apply' as const }) },
);

/** The long-lived state and what it holds. */
class Model {
  readonly d: DesiredState<NBTables>;
  readonly switches: KeyRef<'Logical_Switch'>[] = [];
  readonly ports = new Map<string, KeyRef>();
  readonly pg: KeyRef<'Port_Group'>;
  readonly router: KeyRef<'Logical_Router'>;

  constructor() {
    this.d = nbDesiredState(NB, { owner: OWNER });
    for (let s = 0; s < SWITCHES; s++) {
      this.switches.push(this.d.set('Logical_Switch', { name: `rec-s${s}` }));
      for (let p = 0; p < PORTS; p++) this.port(s, p, ['unknown'], undefined);
    }
    this.pg = this.d.set('Port_Group', { name: 'rec_pg' });
    this.acl(100, 'allow');
    this.acl(200, 'drop');
    this.addressSet(0, ['10.0.0.1']);
    this.addressSet(1, []);
    this.router = this.d.set('Logical_Router', { name: 'rec-r' });
    this.nat(undefined);
    this.route({});
  }

  port(s: number, p: number, addresses: string[], enabled: boolean | undefined): void {
    const name = `rec-s${s}-p${p}`;
    const row = enabled === undefined ? { name, addresses } : { name, addresses, enabled };
    this.ports.set(name, this.d.set('Logical_Switch_Port', row, { in: this.switches[s]! }));
  }

  acl(priority: number, action: 'allow' | 'drop' | 'allow-related'): void {
    this.d.set(
      'ACL',
      { direction: 'to-lport', priority, match: `tcp.dst == ${priority}`, action },
      { in: this.pg },
    );
  }

  addressSet(n: number, addresses: string[]): void {
    this.d.set('Address_Set', { name: `rec_as${n}`, addresses });
  }

  nat(mac: string | undefined): void {
    this.d.set(
      'NAT',
      {
        type: 'snat',
        external_ip: '172.16.0.1',
        logical_ip: '10.0.0.0/24',
        ...(mac === undefined ? {} : { external_mac: mac }),
      },
      { in: this.router },
    );
  }

  route(options: Record<string, string>): void {
    this.d.set(
      'Logical_Router_Static_Route',
      { ip_prefix: '0.0.0.0/0', nexthop: '172.16.0.254', options },
      { in: this.router },
    );
  }
}

describe.each(KINDS)('desiredReconciler on %s', (kind) => {
  let server: NbServer;
  let client: DatabaseClient<NBTables>;
  let other: DatabaseClient<NBTables>;

  beforeAll(async () => {
    server = await startNbServer(kind);
    client = await connectNb(server.remote);
    other = await connectNb(server.remote);
  });
  afterAll(async () => {
    await other?.close();
    await client?.close();
    await server?.stop();
  });

  it('plans what a full plan plans, incrementally for updates, for random commands', async () => {
    let round = 0;
    let incremental = 0;
    let full = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 4, maxLength: 14 }), async (commands) => {
        round++;
        // Each run's names carry its number; the runs before it are withdrawn by its first apply.
        const m = new Model();
        const r = desiredReconciler(client, renamed(m, round));
        try {
          await r.apply();
          expect(planDesired(client, r.state).empty).toBe(true);
          for (const c of commands) {
            await step(c, r.state);
            const inc = await r.plan();
            const whole = planDesired(client, r.state);
            expect(comparable(inc, client)).toEqual(comparable(whole, client));
            if (c.kind === 'apply') {
              await r.apply();
              await settle(client);
              expect(planDesired(client, r.state).empty).toBe(true);
            }
          }
          const last = await r.apply();
          await settle(client);
          const after = planDesired(client, r.state);
          if (!after.empty)
            console.log('DBG', JSON.stringify(r.stats), last.plan.render(), '---', after.render());
          expect(after.empty).toBe(true);
          incremental += r.stats.incrementalPlans;
          full += r.stats.fullPlans;
        } finally {
          r.close();
        }
      }),
      { numRuns: RUNS, endOnFailure: true, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
    // Plans of updates are incremental: a quarter of all, at least (a full plan follows every
    // insert and delete, and every plan is full after a full plan until it is applied).
    expect(incremental * 3).toBeGreaterThan(full);
  }, 120_000);

  /** Apply command `c` to the state, or to the database through `other`. */
  async function step(c: Command, d: DesiredState<NBTables>): Promise<void> {
    const sfx = suffixOf(d);
    const sw = (s: number) => ({ name: `rec-s${s}${sfx}` }) as const;
    switch (c.kind) {
      case 'port': {
        const name = `rec-s${c.sw}-p${c.port}${sfx}`;
        const row =
          c.enabled === undefined
            ? { name, addresses: c.addresses }
            : { name, addresses: c.addresses, enabled: c.enabled };
        d.set('Logical_Switch_Port', row, { in: keyOfSwitch(d, sw(c.sw).name) });
        return;
      }
      case 'add-port': {
        const n = d.size;
        d.set(
          'Logical_Switch_Port',
          { name: `rec-x${n}${sfx}`, addresses: ['unknown'] },
          { in: keyOfSwitch(d, sw(c.sw).name) },
        );
        return;
      }
      case 'move-port': {
        // The port declared again in the other switch.
        const name = `rec-s${c.sw}-p${c.port}${sfx}`;
        for (const dd of d.declared.values()) {
          if (dd.table !== 'Logical_Switch_Port' || dd.row['name'] !== name) continue;
          const to = dd.parent?.key['name'] === sw(0).name ? sw(1).name : sw(0).name;
          d.set('Logical_Switch_Port', dd.row as never, { in: keyOfSwitch(d, to) });
          return;
        }
        return;
      }
      case 'drop-port': {
        for (const dd of d.declared.values()) {
          if (
            dd.table === 'Logical_Switch_Port' &&
            dd.row['name'] === `rec-s${c.sw}-p${c.port}${sfx}`
          ) {
            d.delete(dd.ref);
            return;
          }
        }
        return;
      }
      case 'address-set':
        d.set('Address_Set', {
          name: `rec_as${c.n}${sfx.replace('-', '_')}`,
          addresses: c.addresses,
        });
        return;
      case 'acl': {
        const pg = keyOfRoot(d, 'Port_Group', `rec_pg${sfx.replace('-', '_')}`);
        d.set(
          'ACL',
          {
            direction: 'to-lport',
            priority: c.priority,
            match: `tcp.dst == ${c.priority}`,
            action: c.action,
          },
          { in: pg },
        );
        return;
      }
      case 'nat': {
        const lr = keyOfRoot(d, 'Logical_Router', `rec-r${sfx}`);
        d.set(
          'NAT',
          {
            type: 'snat',
            external_ip: '172.16.0.1',
            logical_ip: '10.0.0.0/24',
            ...(c.mac === undefined ? {} : { external_mac: c.mac }),
          },
          { in: lr },
        );
        return;
      }
      case 'route': {
        const lr = keyOfRoot(d, 'Logical_Router', `rec-r${sfx}`);
        d.set(
          'Logical_Router_Static_Route',
          { ip_prefix: '0.0.0.0/0', nexthop: '172.16.0.254', options: c.options },
          { in: lr },
        );
        return;
      }
      case 'outside-edit': {
        await settle(other);
        const row = other.lookup('Logical_Switch_Port', { name: `rec-s${c.sw}-p${c.port}${sfx}` });
        if (row !== undefined) {
          await other.transact([
            {
              op: 'mutate',
              table: 'Logical_Switch_Port',
              where: [['_uuid', '==', ['uuid', row._uuid]]],
              mutations: [
                ['options', 'insert', ['map', [['outside', c.value]]]],
                ['addresses', 'insert', `0a:00:00:00:00:0${c.value === 'x' ? 8 : 9}`],
              ],
            },
          ]);
          await settle(client);
        }
        return;
      }
      case 'outside-link': {
        // Another writer links one of the owner's ports into the other switch as well.
        await settle(other);
        const port = other.lookup('Logical_Switch_Port', { name: `rec-s${c.sw}-p${c.port}${sfx}` });
        const to = other.find('Logical_Switch', (x) => x.name === sw(1 - c.sw).name);
        if (port !== undefined && to !== undefined) {
          await other.transact([
            {
              op: 'mutate',
              table: 'Logical_Switch',
              where: [['_uuid', '==', ['uuid', to._uuid]]],
              mutations: [['ports', 'insert', ['uuid', port._uuid]]],
            },
          ]);
          await settle(client);
        }
        return;
      }
      case 'outside-foreign': {
        // A switch of nobody's: the reconciler has nothing to plan for it.
        await settle(other);
        const row = other.find('Logical_Switch', (x) => x.name === 'rec-foreign');
        const ops =
          row === undefined
            ? [{ op: 'insert' as const, table: 'Logical_Switch', row: { name: 'rec-foreign' } }]
            : [
                {
                  op: 'update' as const,
                  table: 'Logical_Switch',
                  where: [['_uuid', '==', ['uuid', row._uuid]]] as never,
                  row: { other_config: ['map', [['v', c.value]]] },
                },
              ];
        await other.transact(ops as never);
        await settle(client);
        return;
      }
      case 'apply':
        return;
    }
  }

  it('creates and updates are planned incrementally, a deleted row or declaration makes a full plan', async () => {
    const d = nbDesiredState(NB, { owner: 'rec-b' });
    const sw = d.set('Logical_Switch', { name: 'rec-b-s' });
    for (let i = 0; i < 20; i++) {
      d.set('Logical_Switch_Port', { name: `rec-b-p${i}`, addresses: ['unknown'] }, { in: sw });
    }
    const r = desiredReconciler(client, d);
    try {
      const first = await r.apply();
      expect(first.operations).toBe(21);
      expect(r.stats.fullPlans).toBe(1);
      // Its own inserts join the base: the next plan looks at those 21 rows only, and is empty.
      await settle(client);
      expect((await r.plan()).empty).toBe(true);
      expect(r.stats).toMatchObject({ fullPlans: 1, incrementalPlans: 1, rowsPlanned: 21 });
      // An update of one port: planned alone.
      d.set('Logical_Switch_Port', { name: 'rec-b-p3', addresses: ['router'] }, { in: sw });
      const upd = await r.apply();
      expect(upd.operations).toBe(1);
      expect(r.stats).toMatchObject({ fullPlans: 1, incrementalPlans: 2, rowsPlanned: 22 });
      // Its own commit's change of p3 needs no plan: p3 still has the _version right after it.
      await settle(client);
      expect((await r.plan()).empty).toBe(true);
      expect(r.stats).toMatchObject({ fullPlans: 1, incrementalPlans: 3, rowsPlanned: 22 });
      // Another writer's change of p3 is planned (and reverted).
      await settle(other);
      const p3 = other.lookup('Logical_Switch_Port', { name: 'rec-b-p3' })!;
      await other.transact([
        {
          op: 'update',
          table: 'Logical_Switch_Port',
          where: [['_uuid', '==', ['uuid', p3._uuid]]],
          row: { addresses: 'unknown' },
        },
      ]);
      await settle(client);
      const revert = await r.apply();
      expect(revert.operations).toBe(1);
      expect(r.stats).toMatchObject({ fullPlans: 1, incrementalPlans: 4, rowsPlanned: 23 });
      // A new port: its insert and the switch's ports gaining it, planned alone.
      await settle(client);
      d.set('Logical_Switch_Port', { name: 'rec-b-p20', addresses: ['unknown'] }, { in: sw });
      const created = await r.apply();
      expect(created.plan.counts).toEqual({ creates: 1, updates: 1, deletes: 0 });
      expect(r.stats).toMatchObject({ fullPlans: 1, incrementalPlans: 5, rowsPlanned: 24 });
      await settle(client);
      expect((await r.plan()).empty).toBe(true);
      expect(r.stats.fullPlans).toBe(1);
      // Another writer deletes a port: a full plan creates it again.
      const p5 = other.lookup('Logical_Switch_Port', { name: 'rec-b-p5' });
      const s = other.find('Logical_Switch', (x) => x.name === 'rec-b-s');
      await settle(other);
      await other.transact([
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [['_uuid', '==', ['uuid', (s as { _uuid: string })._uuid]]],
          mutations: [['ports', 'delete', ['uuid', p5!._uuid]]],
        },
      ]);
      await settle(client);
      const again = await r.apply();
      // p5 again, and the switch's ports gaining it.
      expect(again.plan.counts).toEqual({ creates: 1, updates: 1, deletes: 0 });
      expect(r.stats.fullPlans).toBe(2);
      expect(r.stats.lastFullReason).toMatch(/deleted from Logical_Switch_Port|lost rows/);
      // Withdrawing a declaration: a full plan deletes the port.
      await settle(client);
      expect((await r.plan()).empty).toBe(true);
      expect(r.stats.fullPlans).toBe(2);
      d.delete([...d.declared.values()].find((x) => x.row['name'] === 'rec-b-p7')!.ref);
      const del = await r.apply();
      // The port unlinked from the switch (its update) and gone.
      expect(del.plan.counts).toEqual({ creates: 0, updates: 1, deletes: 1 });
      expect(r.stats.lastFullReason).toBe('a declaration was withdrawn');
      // A port of another owner's, created in this owner's switch, needs no plan.
      await settle(client);
      expect((await r.plan()).empty).toBe(true);
      const full = r.stats.fullPlans;
      await other.transact([
        {
          op: 'insert',
          table: 'Logical_Switch_Port',
          row: { name: 'rec-b-foreign', external_ids: ['map', [['ovnkit-owner', 'rec-z']]] },
          'uuid-name': 'f',
        },
        {
          op: 'mutate',
          table: 'Logical_Switch',
          where: [['_uuid', '==', ['uuid', (s as { _uuid: string })._uuid]]],
          mutations: [['ports', 'insert', ['named-uuid', 'f']]],
        },
      ]);
      await settle(client);
      expect((await r.plan()).empty).toBe(true);
      expect(r.stats.fullPlans).toBe(full);
    } finally {
      r.close();
    }
    await expect(r.plan()).rejects.toThrow(/closed/);
  });
});

describe.each(KINDS)('desiredReconciler from a row event handler on %s', (kind) => {
  let server: NbServer;
  let client: DatabaseClient<NBTables>;

  beforeAll(async () => {
    server = await startNbServer(kind);
    client = await connectNb(server.remote);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it('applies without waiting for the event being handled, with a full plan', async () => {
    const d = nbDesiredState(NB, { owner: 'rec-h' });
    const sw = d.set('Logical_Switch', { name: 'rec-h-s' });
    const r = desiredReconciler(client, d);
    try {
      await r.apply();
      await settle(client);
      expect((await r.plan()).empty).toBe(true);
      const [ins] = await client.transact([
        { op: 'insert', table: 'Address_Set', row: { name: 'rec_h_as' } },
      ]);
      await settle(client);
      expect((await r.plan()).empty).toBe(true);
      // A controller's handler: on a changed address set, declare a port for it and apply.
      const done = new Promise<number>((resolve, reject) => {
        const stop = client.on('Address_Set', 'update', async (row) => {
          stop();
          try {
            d.set('Logical_Switch_Port', { name: `rec-h-${row.name}` }, { in: sw });
            resolve((await r.apply()).operations);
          } catch (error) {
            reject(error);
          }
        });
      });
      await client.transact([
        {
          op: 'update',
          table: 'Address_Set',
          where: [['_uuid', '==', ['uuid', (ins as { uuid: [string, string] }).uuid[1]]]],
          row: { addresses: '10.0.0.1' },
        },
      ]);
      expect(await done).toBe(2); // the port, and the switch's ports gaining it
      expect(r.stats.lastFullReason).toBe('row events are not delivered yet');
      await settle(client);
      expect(planDesired(client, d).empty).toBe(true);
    } finally {
      r.close();
    }
  });
});

/** The suffix of a run's names. */
function suffixOf(d: DesiredState<NBTables>): string {
  for (const dd of d.declared.values()) {
    if (dd.table === 'Logical_Switch') return String(dd.row['name']).replace(/^rec-s\d+/, '');
  }
  return '';
}

function keyOfSwitch(d: DesiredState<NBTables>, name: string): KeyRef {
  return keyOfRoot(d, 'Logical_Switch', name);
}

function keyOfRoot(d: DesiredState<NBTables>, table: string, name: string): KeyRef {
  for (const dd of d.declared.values())
    if (dd.table === table && dd.row['name'] === name) return dd.ref;
  throw new Error(`${table} ${name} is not declared`);
}

/** The model's state with every name given the run's suffix. */
function renamed(m: Model, round: number): DesiredState<NBTables> {
  const sfx = `-${round}`;
  const d = nbDesiredState(NB, { owner: OWNER });
  const refs = new Map<string, KeyRef>();
  const name = (table: string, n: string): string =>
    table === 'Port_Group' || table === 'Address_Set' ? `${n}_${round}` : `${n}${sfx}`;
  for (const dd of m.d.declared.values()) {
    const row: Record<string, unknown> = { ...dd.row };
    if (typeof row['name'] === 'string') row['name'] = name(dd.table, row['name'] as string);
    const parent = dd.parent === undefined ? undefined : refs.get(dd.parent.id);
    const ref = d.set(dd.table as never, row as never, parent === undefined ? {} : { in: parent });
    refs.set(dd.ref.id, ref);
  }
  return d;
}

/**
 * Every type difference between two fixture schemas of one database (each
 * pair of consecutive NB, SB and Open_vSwitch versions that changes a
 * column's type), against real `ovsdb-server`s serving both schemas, in both
 * directions: a client whose model is one schema, on a server of the other.
 *
 * For each column that changes (an enum that gains or loses values, a range
 * that widens, a set whose `max` grows or whose `min` drops, a scalar that
 * becomes optional):
 * - the compat report says which way is exact (`reads`, `writes`) and what
 *   only each side admits;
 * - a value both admit, written through the drifted client, lands on the
 *   server and reads back through it exactly as a client of the server's own
 *   model reads it;
 * - a value only the server admits, written by a raw writer, reads as the
 *   server holds it when the model's type has a form for it, and leaves the
 *   column out of that row when it has none (an empty optional under a
 *   scalar model), coming back when a later change gives it a form;
 * - a value only the model admits is refused before anything is sent with a
 *   `SchemaDriftError` naming the table, the column, the value, the server's
 *   type and its version.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import { type ColumnTypeDifference, SchemaDriftError } from '../../src/ovsdb/schema/compat.js';
import { type DatabaseModel, defineModel, type TableTypes } from '../../src/ovsdb/schema/model.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../../src/ovsdb/schema/schema-types.js';
import { defaultValue } from '../../src/ovsdb/values/datum.js';
import type { Operation, WireAtom, WireValue } from '../../src/ovsdb/wire/wire.js';
import { type OvsdbServerHandle, startOvsdbServer } from '../../src/testing/index.js';
import { rawConnection } from './helpers/fixtures.js';

const SCHEMAS = join(import.meta.dirname, '../fixtures/schemas');

/** A fixture schema by file name. */
const FILES = {
  'nb-7.0.0': 'ovn-nb-7.0.0.ovsschema',
  'nb-7.1.0': 'ovn-nb-7.1.0.ovsschema',
  'nb-7.3.0': 'ovn-nb-7.3.0.ovsschema',
  'nb-7.6.0': 'ovn-nb-7.6.0.ovsschema',
  'nb-7.11.0': 'ovn-nb-7.11.0.ovsschema',
  'nb-7.12.0': 'ovn-nb-7.12.0.ovsschema',
  'nb-7.18.0': 'ovn-nb-7.18.0.ovsschema',
  'nb-7.19.0': 'ovn-nb-7.19.0.ovsschema',
  'sb-20.27.0': 'ovn-sb-20.27.0.ovsschema',
  'sb-21.11.0': 'ovn-sb.ovsschema',
  'vs-8.3.1': 'vswitch-8.3.1.ovsschema',
  'vs-8.8.0': 'vswitch.ovsschema',
} as const;
type SchemaId = keyof typeof FILES;

const schemas = new Map<SchemaId, DatabaseSchema>(
  Object.entries(FILES).map(([id, file]) => [
    id as SchemaId,
    parseSchema(JSON.parse(readFileSync(join(SCHEMAS, file), 'utf8'))),
  ]),
);
const schemaOf = (id: SchemaId): DatabaseSchema => schemas.get(id)!;
/** Any table: rows of any columns (the tests read them by name). */
type Rec = Record<string, unknown>;
type AnyTables = { readonly [table: string]: TableTypes<Rec, Rec, Rec> };
const modelOf = (id: SchemaId): DatabaseModel<AnyTables> => defineModel<AnyTables>(schemaOf(id));

/** A fresh value for the unique `id` (1–255) of a Network_Function or its group. */
let ids = 0;
const nextId = (): number => (ids++ % 255) + 1;

/**
 * One column whose type differs between `older` and `newer`: how to insert
 * a row holding a value in it (`value` undefined: the column left out), a
 * value both schemas admit, and values only one of them does.
 */
interface Case {
  readonly older: SchemaId;
  readonly newer: SchemaId;
  readonly table: string;
  readonly column: string;
  /** Operations inserting the row (`uuid-name` `row`) and what it needs. */
  readonly insert: (value: WireValue | undefined, tag: string) => Operation[];
  readonly common: WireValue;
  readonly onlyNewer: readonly (WireValue | undefined)[];
  readonly onlyOlder?: readonly WireValue[];
}

const ref = (name: string): WireAtom => ['named-uuid', name];
const set = (...v: WireAtom[]): WireValue => ['set', v];
const map = (...pairs: [WireAtom, WireAtom][]): WireValue => ['map', pairs];

/** The row `row` of `table` with `column` holding `value` (left out when undefined). */
function row(
  table: string,
  fields: Record<string, WireValue>,
  column: string,
  value: WireValue | undefined,
): Operation {
  const r: Record<string, WireValue> = { ...fields };
  if (value !== undefined) r[column] = value;
  return { op: 'insert', table, row: r, 'uuid-name': 'row' };
}

const aclIn = (action: WireValue | undefined, tag: string): Operation[] => [
  row(
    'ACL',
    { priority: 1, direction: 'to-lport', match: `ip4 && tag == "${tag}"` },
    'action',
    action,
  ),
  { op: 'insert', table: 'Logical_Switch', row: { name: `ls-${tag}`, acls: ref('row') } },
];
const mirror =
  (column: 'filter' | 'type') =>
  (value: WireValue | undefined, tag: string): Operation[] => [
    row(
      'Mirror',
      { name: `m-${tag}`, sink: 's', index: 1, filter: 'to-lport', type: 'gre' },
      column,
      value,
    ),
  ];
const sbMirror = mirror;

const CASES: readonly Case[] = [
  {
    older: 'nb-7.18.0',
    newer: 'nb-7.19.0',
    table: 'Network_Function',
    column: 'outport',
    insert: (value, tag) => [
      { op: 'insert', table: 'Logical_Switch_Port', row: { name: `in-${tag}` }, 'uuid-name': 'in' },
      {
        op: 'insert',
        table: 'Logical_Switch_Port',
        row: { name: `out-${tag}` },
        'uuid-name': 'out',
      },
      {
        op: 'insert',
        table: 'Logical_Switch',
        row: { name: `ls-${tag}`, ports: set(ref('in'), ref('out')) },
      },
      row(
        'Network_Function',
        { name: `nf-${tag}`, inport: ref('in'), id: nextId() },
        'outport',
        value,
      ),
    ],
    common: ref('out'),
    // Empty, given or left out: 7.19.0 (OVN main) lets a vtap function have no outport.
    onlyNewer: [set(), undefined],
  },
  {
    older: 'nb-7.18.0',
    newer: 'nb-7.19.0',
    table: 'Network_Function_Group',
    column: 'mode',
    insert: (value, tag) => [
      row('Network_Function_Group', { name: `g-${tag}`, id: nextId() }, 'mode', value),
    ],
    common: 'inline',
    onlyNewer: ['vtap'],
  },
  {
    older: 'nb-7.0.0',
    newer: 'nb-7.1.0',
    table: 'ACL',
    column: 'action',
    insert: aclIn,
    common: 'drop',
    onlyNewer: ['pass'],
  },
  {
    older: 'nb-7.0.0',
    newer: 'nb-7.1.0',
    table: 'Mirror',
    column: 'filter',
    insert: mirror('filter'),
    common: 'from-lport',
    onlyNewer: ['both'],
  },
  {
    older: 'nb-7.0.0',
    newer: 'nb-7.1.0',
    table: 'Mirror',
    column: 'type',
    insert: mirror('type'),
    common: 'erspan',
    onlyNewer: ['local'],
  },
  {
    older: 'nb-7.1.0',
    newer: 'nb-7.3.0',
    table: 'QoS',
    column: 'action',
    insert: (value, tag) => [
      row(
        'QoS',
        { priority: 1, direction: 'to-lport', match: `ip4 && tag == "${tag}"` },
        'action',
        value,
      ),
      { op: 'insert', table: 'Logical_Switch', row: { name: `ls-${tag}`, qos_rules: ref('row') } },
    ],
    common: map(['dscp', 10]),
    // A key the older enum lacks, and a value above its maxInteger 63.
    onlyNewer: [map(['mark', 100_000]), map(['dscp', 64])],
  },
  {
    older: 'nb-7.6.0',
    newer: 'nb-7.11.0',
    table: 'Logical_Router_Port',
    column: 'networks',
    insert: (value, tag) => [
      row(
        'Logical_Router_Port',
        { name: `lrp-${tag}`, mac: '00:00:00:00:00:01' },
        'networks',
        value,
      ),
      { op: 'insert', table: 'Logical_Router', row: { name: `lr-${tag}`, ports: ref('row') } },
    ],
    common: set('10.0.0.1/24', '10.0.1.1/24'),
    // min 1 → 0: no network at all (given empty, or left out).
    onlyNewer: [set(), undefined],
  },
  {
    older: 'nb-7.6.0',
    newer: 'nb-7.11.0',
    table: 'Load_Balancer',
    column: 'selection_fields',
    insert: (value, tag) => [
      row('Load_Balancer', { name: `lb-${tag}` }, 'selection_fields', value),
    ],
    common: set('ip_dst', 'ip_src'),
    onlyNewer: [set('ip_src', 'ipv6_src')],
  },
  {
    older: 'nb-7.6.0',
    newer: 'nb-7.11.0',
    table: 'Logical_Router_Policy',
    column: 'action',
    insert: (value, tag) => [
      row(
        'Logical_Router_Policy',
        { priority: 1, match: `ip4 && tag == "${tag}"` },
        'action',
        value,
      ),
      { op: 'insert', table: 'Logical_Router', row: { name: `lr-${tag}`, policies: ref('row') } },
    ],
    common: 'allow',
    onlyNewer: ['jump'],
  },
  {
    older: 'nb-7.11.0',
    newer: 'nb-7.12.0',
    table: 'Mirror',
    column: 'type',
    insert: mirror('type'),
    common: 'local',
    onlyNewer: ['lport'],
  },
  {
    older: 'sb-20.27.0',
    newer: 'sb-21.11.0',
    table: 'Logical_Flow',
    column: 'table_id',
    insert: (value, tag) => [
      row(
        'Logical_Flow',
        { pipeline: 'ingress', priority: 1, match: `tag == "${tag}"`, actions: 'next;' },
        'table_id',
        value,
      ),
    ],
    common: 32,
    onlyNewer: [33, 34],
  },
  {
    older: 'sb-20.27.0',
    newer: 'sb-21.11.0',
    table: 'Encap',
    column: 'type',
    insert: (value, tag) => [
      row('Encap', { ip: `10.0.0.1-${tag}`, chassis_name: `ch-${tag}` }, 'type', value),
      {
        op: 'insert',
        table: 'Chassis',
        row: { name: `ch-${tag}`, hostname: 'h', encaps: ref('row') },
      },
    ],
    common: 'geneve',
    // 21.11.0 dropped STT: a narrowing in the newer schema.
    onlyNewer: [],
    onlyOlder: ['stt'],
  },
  {
    older: 'sb-20.27.0',
    newer: 'sb-21.11.0',
    table: 'DHCPv6_Options',
    column: 'type',
    insert: (value, tag) => [row('DHCPv6_Options', { name: `o-${tag}`, code: 1 }, 'type', value)],
    common: 'str',
    onlyNewer: ['domain'],
  },
  {
    older: 'sb-20.27.0',
    newer: 'sb-21.11.0',
    table: 'Service_Monitor',
    column: 'protocol',
    insert: (value, tag) => [
      row(
        'Service_Monitor',
        { ip: '10.0.0.1', port: 80, logical_port: `lp-${tag}`, src_ip: '10.0.0.2' },
        'protocol',
        value,
      ),
    ],
    common: 'udp',
    onlyNewer: ['icmp'],
  },
  {
    older: 'sb-20.27.0',
    newer: 'sb-21.11.0',
    table: 'Mirror',
    column: 'type',
    insert: sbMirror('type'),
    common: 'erspan',
    onlyNewer: ['local', 'lport'],
  },
  {
    older: 'sb-20.27.0',
    newer: 'sb-21.11.0',
    table: 'Mirror',
    column: 'filter',
    insert: sbMirror('filter'),
    common: 'to-lport',
    onlyNewer: ['both'],
  },
  {
    older: 'vs-8.3.1',
    newer: 'vs-8.8.0',
    table: 'Flow_Table',
    column: 'prefixes',
    insert: (value, tag) => [
      row('Flow_Table', { name: `ft-${tag}` }, 'prefixes', value),
      {
        op: 'insert',
        table: 'Bridge',
        row: { name: `br-${tag}`, flow_tables: map([0, ref('row')]) },
        'uuid-name': 'br',
      },
      // The one Open_vSwitch row (made in beforeAll) holds the bridge.
      {
        op: 'mutate',
        table: 'Open_vSwitch',
        where: [],
        mutations: [['bridges', 'insert', ref('br')]],
      },
    ],
    common: set('ip_dst', 'ip_src', 'ipv6_src'),
    // max 3 → 4.
    onlyNewer: [set('ip_dst', 'ip_src', 'ipv6_dst', 'ipv6_src')],
  },
];

/** The operations without the row members the schema lacks (as a client of that schema writes them). */
function forSchema(ops: readonly Operation[], schema: DatabaseSchema): Operation[] {
  return ops.map((op) => {
    if (op.op !== 'insert') return op;
    const t = schema.tables[op.table]!;
    const r = Object.fromEntries(
      Object.entries(op.row).filter(([c]) => t.columns[c] !== undefined),
    );
    return { ...op, row: r };
  });
}

/** The UUID of the `row` insert of `ops` in the transaction's results. */
function rowUuid(ops: readonly Operation[], results: readonly unknown[]): string {
  const i = ops.findIndex((o) => o.op === 'insert' && o['uuid-name'] === 'row');
  return (results[i] as { uuid: [string, string] }).uuid[1];
}

const servers = new Map<SchemaId, OvsdbServerHandle>();
const clients: DatabaseClient<AnyTables>[] = [];

beforeAll(async () => {
  const ids = [...new Set(CASES.flatMap((c) => [c.older, c.newer]))];
  const started = await Promise.all(
    ids.map((id) => startOvsdbServer({ schemaPath: join(SCHEMAS, FILES[id]) })),
  );
  for (const [i, id] of ids.entries()) servers.set(id, started[i]!);
  for (const id of ['vs-8.3.1', 'vs-8.8.0'] as const) {
    await rawTransact(id, [{ op: 'insert', table: 'Open_vSwitch', row: {} }]);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([...servers.values()].map((s) => s.stop()));
});

/** A client of `model` on the server of `server`, closed after the file. */
async function clientOf(model: SchemaId, server: SchemaId): Promise<DatabaseClient<AnyTables>> {
  const c = connectDatabase({ remotes: servers.get(server)!.unixRemote, model: modelOf(model) });
  clients.push(c);
  await c.ready;
  return c;
}

/** Run `ops` on `server` with a raw connection (no model between). */
async function rawTransact(server: SchemaId, ops: readonly Operation[]): Promise<unknown[]> {
  const conn = await rawConnection(servers.get(server)!.unixRemote);
  try {
    const results = await conn.transact(schemaOf(server).name, ops);
    const failed = results.find((r) => r !== null && typeof r === 'object' && 'error' in r);
    if (failed !== undefined || results.length < ops.length) {
      throw new Error(`raw transaction failed: ${JSON.stringify(results)}`);
    }
    return results;
  } finally {
    conn.close();
  }
}

/** What `p` rejects with. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

let tags = 0;

/** Resolves once each client's replica holds every change committed before the call. */
async function synced(...cs: DatabaseClient<AnyTables>[]): Promise<void> {
  // ovsdb-server sends a monitor's updates before its reply to any later request.
  await Promise.all(cs.map((c) => c.transactRaw([{ op: 'comment', comment: 'sync' }])));
}

describe.each(CASES)('column $column of $table, between $older and $newer', (c) => {
  // Both directions: the model on one side, the server on the other.
  describe.each([
    { model: c.newer, server: c.older, modelExtra: c.onlyNewer, serverExtra: c.onlyOlder ?? [] },
    { model: c.older, server: c.newer, modelExtra: c.onlyOlder ?? [], serverExtra: c.onlyNewer },
  ])('model $model, server $server', ({ model, server, modelExtra, serverExtra }) => {
    it('the compat report says which way is exact and what only each side admits', async () => {
      const client = await clientOf(model, server);
      const d = client.compat!.typeDifferences.find(
        (x) => x.table === c.table && x.column === c.column,
      ) as ColumnTypeDifference;
      expect(d).toBeDefined();
      expect(d.incompatible).toBe(false);
      expect(d.reads).toBe(serverExtra.length > 0 ? 'wider' : 'exact');
      expect(d.writes).toBe(modelExtra.length > 0 ? 'checked' : 'exact');
      expect(d.serverOnly.length > 0).toBe(serverExtra.length > 0);
      expect(d.modelOnly.length > 0).toBe(modelExtra.length > 0);
      // Columns that differ are monitored, not left out.
      expect(client.hasColumn(c.table, c.column)).toBe(true);
      expect(client.absentColumns(c.table)).not.toContain(c.column);
    });

    it('a value both admit is written through the drifted client and reads back exactly', async () => {
      const drifted = await clientOf(model, server);
      const exact = await clientOf(server, server);
      const tag = `w${++tags}`;
      const ops = forSchema(c.insert(c.common, tag), schemaOf(server));
      const uuid = rowUuid(ops, await drifted.transactRaw(ops));
      const held = await exact.waitFor(c.table, (r) => r._uuid === uuid, { timeoutMs: 5000 });
      const read = drifted.get(c.table, uuid)!;
      expect(read).toHaveProperty(c.column);
      expect(read[c.column as never]).toEqual(held[c.column as never]);
    });

    it.each(serverExtra.map((v) => [JSON.stringify(v) ?? 'left out', v] as const))(
      'a value only the server admits (%s) reads as held, or leaves the column out of the row',
      async (_name, value) => {
        const drifted = await clientOf(model, server);
        const exact = await clientOf(server, server);
        const tag = `r${++tags}`;
        const ops = forSchema(c.insert(value, tag), schemaOf(server));
        const uuid = rowUuid(ops, await rawTransact(server, ops));
        const held = await exact.waitFor(c.table, (r) => r._uuid === uuid, { timeoutMs: 5000 });
        const read = await drifted.waitFor(c.table, (r) => r._uuid === uuid, { timeoutMs: 5000 });
        const d = drifted.compat!.typeDifferences.find(
          (x) => x.table === c.table && x.column === c.column,
        )!;
        const mType = schemaOf(model).tables[c.table]!.columns[c.column]!.type;
        const v = held[c.column as never] as unknown;
        const count = v === null ? 0 : Array.isArray(v) ? v.length : 1;
        const hasForm =
          mType.kind === 'set' ||
          mType.kind === 'map' ||
          count === 1 ||
          (count === 0 && mType.kind === 'optional');
        if (hasForm) {
          expect(read[c.column as never]).toEqual(v);
          return;
        }
        // No form in the model's type: the row lacks the column, as if the server lacked it.
        expect(d.rowsMayLack).toBe(true);
        expect(c.column in read).toBe(false);
        for (const other of Object.keys(held)) {
          if (other !== c.column) expect(read[other as never], other).toEqual(held[other as never]);
        }
        // A change that gives it a form brings it back; one that takes it away leaves it out again.
        const common = forSchema(c.insert(c.common, `${tag}b`), schemaOf(server));
        const target = common.find((o) => o.op === 'insert' && o['uuid-name'] === 'row')!;
        const others = common.filter((o) => o !== target);
        const givenValue = (target as { row: Record<string, WireValue> }).row[c.column]!;
        await rawTransact(server, [
          ...others,
          {
            op: 'update',
            table: c.table,
            where: [['_uuid', '==', ['uuid', uuid]]],
            row: { [c.column]: givenValue },
          },
        ]);
        await synced(drifted, exact);
        const given = drifted.get(c.table, uuid)!;
        expect(given).toHaveProperty(c.column);
        expect(given[c.column as never]).toEqual(exact.get(c.table, uuid)![c.column as never]);
        await rawTransact(server, [
          {
            op: 'update',
            table: c.table,
            where: [['_uuid', '==', ['uuid', uuid]]],
            row: { [c.column]: value ?? set() },
          },
        ]);
        await synced(drifted);
        const lacking = drifted.get(c.table, uuid)!;
        expect(c.column in lacking).toBe(false);
        expect(lacking['_uuid' as never]).toBe(uuid);
      },
    );

    it.each(modelExtra.map((v) => [JSON.stringify(v) ?? 'left out', v] as const))(
      'a value only the model admits (%s) is refused before sending, naming the column, value and server',
      async (_name, value) => {
        const drifted = await clientOf(model, server);
        const ops = forSchema(c.insert(value, `x${++tags}`), schemaOf(server));
        let sent = false;
        const error = await rejection(drifted.transactRaw(ops, { onSent: () => (sent = true) }));
        expect(sent).toBe(false);
        expect(error).toBeInstanceOf(SchemaDriftError);
        const e = error as SchemaDriftError;
        expect(e).toMatchObject({
          table: c.table,
          column: c.column,
          serverVersion: schemaOf(server).version,
        });
        expect(e.value).toEqual(value);
        expect(e.reason).toBeTruthy();
        expect(e.serverType).toBeTruthy();
        expect(e.message).toContain(`${c.table}.${c.column}`);
        expect(e.message).toContain(`version ${schemaOf(server).version}`);
        expect(e.message).toContain(e.serverType!);
        // What ovsdb-server itself does with the same write, sent raw: refuse it, or (a
        // column left out) store its own default where the model means none.
        if (value !== undefined) {
          await expect(rawTransact(server, ops)).rejects.toThrow();
          return;
        }
        const stored = await rawTransact(server, ops).then(
          (results) => ({ uuid: rowUuid(ops, results) }),
          (e: unknown) => ({ error: e }),
        );
        if ('error' in stored) return;
        const exact = await clientOf(server, server);
        await synced(exact);
        const modelColumn = schemaOf(model).tables[c.table]!.columns[c.column]!;
        expect(exact.get(c.table, stored.uuid)![c.column]).not.toEqual(defaultValue(modelColumn));
      },
    );
  });
});

describe('the other operations that carry a value of a narrower column', () => {
  it('an update, a mutation, a condition and a monitor condition with "vtap" are refused before sending', async () => {
    const drifted = await clientOf('nb-7.19.0', 'nb-7.18.0');
    const ops = forSchema(
      [row('Network_Function_Group', { name: 'g-ops', id: nextId() }, 'mode', 'inline')],
      schemaOf('nb-7.18.0'),
    );
    const uuid = rowUuid(ops, await drifted.transactRaw(ops));
    const where = [['_uuid', '==', ['uuid', uuid]]] as const;
    const refused: Operation[] = [
      { op: 'update', table: 'Network_Function_Group', where: [...where], row: { mode: 'vtap' } },
      { op: 'select', table: 'Network_Function_Group', where: [['mode', '==', 'vtap']] },
      { op: 'delete', table: 'Network_Function_Group', where: [['mode', '!=', 'vtap']] },
      {
        op: 'wait',
        table: 'Network_Function_Group',
        where: [...where],
        columns: ['mode'],
        until: '==',
        rows: [{ mode: 'vtap' }],
        timeout: 0,
      },
    ];
    for (const op of refused) {
      let sent = false;
      const e = await rejection(drifted.transactRaw([op], { onSent: () => (sent = true) }));
      expect(e, op.op).toBeInstanceOf(SchemaDriftError);
      expect(e, op.op).toMatchObject({ column: 'mode', value: 'vtap', serverVersion: '7.18.0' });
      expect(sent).toBe(false);
    }
    const m = await rejection(
      drifted.setMonitor('Network_Function_Group', { where: [['mode', '==', 'vtap']] }),
    );
    expect(m).toBeInstanceOf(SchemaDriftError);
    expect(m).toMatchObject({ opIndex: -1, column: 'mode', value: 'vtap' });
    // The values both admit pass.
    await drifted.transactRaw([
      { op: 'update', table: 'Network_Function_Group', where: [...where], row: { mode: 'inline' } },
    ]);
    await drifted.setMonitor('Network_Function_Group', { where: [['mode', '==', 'inline']] });
  });

  it('a set mutation past the server’s enum is refused; one within it is sent', async () => {
    const drifted = await clientOf('nb-7.11.0', 'nb-7.6.0');
    const ops = [row('Load_Balancer', { name: 'lb-mut' }, 'selection_fields', set('ip_src'))];
    const uuid = rowUuid(ops, await drifted.transactRaw(ops));
    const mutate = (v: WireValue): Operation => ({
      op: 'mutate',
      table: 'Load_Balancer',
      where: [['_uuid', '==', ['uuid', uuid]]],
      mutations: [['selection_fields', 'insert', v]],
    });
    const e = await rejection(drifted.transactRaw([mutate(set('ipv6_src'))]));
    expect(e).toBeInstanceOf(SchemaDriftError);
    expect(e).toMatchObject({ column: 'selection_fields', serverVersion: '7.6.0' });
    await drifted.transactRaw([mutate(set('ip_dst'))]);
    expect(drifted.get('Load_Balancer', uuid)!['selection_fields' as never]).toEqual([
      'ip_dst',
      'ip_src',
    ]);
  });
});

/**
 * Required insert columns against a real ovsdb-server: every column the
 * committed NB 7.18.0 model (`src/nb/generated`) makes required in its
 * `…Insert` type is refused by ovsdb-server when an insert leaves out only
 * it (every other required column given a valid value), and an insert that
 * gives only the required columns — leaving out every other column — is
 * accepted. The same for a small schema of the cases NB lacks (a weak
 * reference, a `min: 1` set whose default is allowed, a map's value enum).
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultViolation } from '../../codegen/column-types.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import type {
  BaseType,
  ColumnSchema,
  DatabaseSchema,
  TableSchema,
} from '../../src/ovsdb/schema/schema-types.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { ROOT } from './helpers.js';

type Json = null | boolean | number | string | readonly Json[] | { readonly [k: string]: Json };

let strings = 0;

/** A valid atom of `base` (one that its own constraints allow), in wire form. */
function validAtom(base: BaseType, ref: () => Json): Json {
  if (base.enum !== undefined) {
    const a = base.enum[0]!;
    return typeof a === 'bigint' ? Number(a) : (a as Json);
  }
  switch (base.type) {
    case 'integer':
    case 'real': {
      const min = base.type === 'integer' ? base.minInteger : base.minReal;
      const max = base.type === 'integer' ? base.maxInteger : base.maxReal;
      if (min !== undefined && min > 0) return Number(min);
      if (max !== undefined && max < 0) return Number(max);
      return 0;
    }
    case 'boolean':
      return false;
    case 'string':
      // Distinct strings, for the unique indexes of rows inserted together.
      return `x${++strings}`.padEnd(base.minLength ?? 0, 'x');
    case 'uuid':
      return base.refTable === undefined ? ['uuid', '00000000-0000-0000-0000-000000000001'] : ref();
  }
}

/**
 * The operations of one insert into `table` giving `columns` valid values
 * (and inserting, in the same transaction, a row for each reference they
 * need, with that row's own required and indexed columns).
 */
function insertOps(
  schema: DatabaseSchema,
  required: ReadonlyMap<string, readonly string[]>,
  table: string,
  columns: readonly string[],
): Operation[] {
  const ops: Operation[] = [];
  let n = 0;
  const build = (t: TableSchema, cols: readonly string[], depth: number): string => {
    const name = `row${n++}`;
    const row: Record<string, Json> = {};
    const ref = (base: BaseType) => (): Json => {
      if (depth > 4) throw new Error(`reference chain too deep from ${table}`);
      const target = schema.tables[base.refTable!]!;
      // Referenced rows give their indexed columns too: several may be inserted together.
      const cols = new Set([...(required.get(target.name) ?? []), ...target.indexes.flat()]);
      return ['named-uuid', build(target, [...cols], depth + 1)];
    };
    for (const c of cols) {
      const column: ColumnSchema = t.columns[c]!;
      const { key, value } = column.type;
      const k = validAtom(key, ref(key));
      row[c] = value === undefined ? ['set', [k]] : ['map', [[k, validAtom(value, ref(value))]]];
    }
    ops.push({ op: 'insert', table: t.name, row, 'uuid-name': name } as Operation);
    return name;
  };
  build(schema.tables[table]!, columns, 0);
  return ops;
}

/** The first error of a transaction's results, or undefined when it committed. */
function firstError(results: readonly unknown[]): string | undefined {
  for (const r of results) {
    if (r !== null && typeof r === 'object' && 'error' in r && r.error !== null) {
      const details = 'details' in r ? `: ${String(r.details)}` : '';
      return `${String(r.error)}${details}`;
    }
  }
  return undefined;
}

/** `transact`, resolving with the result array as the server sent it. */
function transactRaw(
  conn: OvsdbConnection,
  db: string,
  ops: readonly Operation[],
): Promise<unknown[]> {
  return new Promise((onReply, onError) =>
    conn.sendTransact(db, ops, { onReply: onReply as (r: unknown) => void, onError }),
  );
}

/** Delete every row of every table, so that unique indexes start over. */
async function deleteAll(conn: OvsdbConnection, schema: DatabaseSchema): Promise<void> {
  const ops = Object.keys(schema.tables).map(
    (table) => ({ op: 'delete', table, where: [] }) as Operation,
  );
  expect(firstError(await transactRaw(conn, schema.name, ops))).toBeUndefined();
}

/** The required columns of each table, read from a generated model's `…Insert` interfaces. */
function requiredInCommittedModel(dir: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of readdirSync(dir)) {
    const text = readFileSync(join(dir, file), 'utf8');
    const table = /What an insert into `([^`]+)`/.exec(text)?.[1];
    if (table === undefined) continue;
    const m = /^export interface \w+Insert extends Partial<Pick<\w+, (.*)>> \{$/m.exec(text);
    if (m === null) throw new Error(`${file}: no insert interface`);
    const excluded = /^Exclude<\w+, (.*)>$/.exec(m[1]!)?.[1];
    out.set(
      table,
      excluded === undefined ? [] : [...excluded.matchAll(/'([^']+)'/g)].map((x) => x[1]!),
    );
  }
  return out;
}

/** The required columns of each table by the generator's rule. */
function requiredByRule(schema: DatabaseSchema): Map<string, string[]> {
  return new Map(
    Object.values(schema.tables).map((t) => [
      t.name,
      t.columnNames.filter((c) => defaultViolation(t.columns[c]!) !== undefined),
    ]),
  );
}

/** Sorted entries, tables without required columns left out. */
function nonEmpty(m: ReadonlyMap<string, readonly string[]>): [string, string[]][] {
  return [...m]
    .filter(([, cols]) => cols.length > 0)
    .map(([t, cols]): [string, string[]] => [t, [...cols].sort()])
    .sort(([a], [b]) => (a < b ? -1 : 1));
}

const NB_SCHEMA = parseSchema(
  JSON.parse(readFileSync(join(ROOT, 'schema/ovn-nb-7.18.0.ovsschema'), 'utf8')),
);
const NB_REQUIRED = requiredInCommittedModel(join(ROOT, 'src/nb/generated'));

/** Cases the NB schema lacks. */
const EXTRA_SCHEMA_JSON = {
  name: 'Required_Test',
  version: '1.0.0',
  tables: {
    Target: { columns: { name: { type: 'string' } }, isRoot: true },
    Holder: {
      columns: {
        // min 1, unconstrained: the default {""} is allowed, so not required.
        tags: { type: { key: 'string', min: 1, max: 'unlimited' } },
        // min 1 with minLength: the default {""} is refused.
        names: { type: { key: { type: 'string', minLength: 1 }, min: 1, max: 3 } },
        // A weak reference: the all-zero UUID is dropped, leaving the column below min 1.
        weak: {
          type: { key: { type: 'uuid', refTable: 'Target', refType: 'weak' }, min: 1, max: 1 },
        },
        // A map whose value enum lacks "".
        modes: {
          type: {
            key: 'string',
            value: { type: 'string', enum: ['set', ['on', 'off']] },
            min: 1,
            max: 'unlimited',
          },
        },
        // maxInteger below 0, and a boolean enum without false.
        negative: { type: { key: { type: 'integer', maxInteger: -1 } } },
        yes: { type: { key: { type: 'boolean', enum: true } } },
        // Constraints that allow the default.
        count: { type: { key: { type: 'integer', minInteger: 0, maxInteger: 9 } } },
        ratio: { type: { key: { type: 'real', minReal: -1, maxReal: 1 } } },
        optionalRef: {
          type: { key: { type: 'uuid', refTable: 'Target' }, min: 0, max: 1 },
        },
        plainUuid: { type: 'uuid' },
      },
      isRoot: true,
    },
  },
};
const EXTRA_SCHEMA = parseSchema(EXTRA_SCHEMA_JSON);

let nbServer: OvsdbServerHandle;
let extraServer: OvsdbServerHandle;
let nb: OvsdbConnection;
let extra: OvsdbConnection;

beforeAll(async () => {
  requireOvsdbServer();
  [nbServer, extraServer] = await Promise.all([
    startOvsdbServer({ schemaPath: join(ROOT, 'schema/ovn-nb-7.18.0.ovsschema') }),
    startOvsdbServer({ schema: EXTRA_SCHEMA_JSON }),
  ]);
  [nb, extra] = await Promise.all([connect(nbServer.unixRemote), connect(extraServer.unixRemote)]);
}, 60_000);

afterAll(async () => {
  nb?.close();
  extra?.close();
  await Promise.all([nbServer?.stop(), extraServer?.stop()]);
});

/**
 * For each table: an insert giving only the required columns commits, and
 * leaving out any one of them is refused. Returns the refusals by column.
 */
async function checkAgainstServer(
  conn: OvsdbConnection,
  schema: DatabaseSchema,
  required: ReadonlyMap<string, readonly string[]>,
): Promise<{ accepted: string[]; refused: Map<string, string>; wrong: string[] }> {
  const accepted: string[] = [];
  const refused = new Map<string, string>();
  const wrong: string[] = [];
  for (const table of Object.keys(schema.tables).sort()) {
    const cols = required.get(table) ?? [];
    const ok = firstError(
      await transactRaw(conn, schema.name, insertOps(schema, required, table, cols)),
    );
    if (ok === undefined) accepted.push(table);
    else wrong.push(`${table} with only ${cols.join(', ') || 'no columns'} was refused: ${ok}`);
    await deleteAll(conn, schema);
    for (const col of cols) {
      const without = cols.filter((c) => c !== col);
      const ops = insertOps(schema, required, table, without);
      const error = firstError(await transactRaw(conn, schema.name, ops));
      if (error === undefined) {
        wrong.push(`${table} without ${col} was accepted`);
        await deleteAll(conn, schema);
      } else refused.set(`${table}.${col}`, error);
    }
  }
  return { accepted, refused, wrong };
}

describe('NB 7.18.0: required insert columns', () => {
  it('the committed model marks exactly the columns the generator’s rule finds', () => {
    expect(nonEmpty(NB_REQUIRED)).toEqual(nonEmpty(requiredByRule(NB_SCHEMA)));
    expect(NB_REQUIRED.size).toBe(Object.keys(NB_SCHEMA.tables).length);
    expect(NB_REQUIRED.get('ACL')).toEqual(['action', 'direction']);
    expect(NB_REQUIRED.get('Logical_Switch')).toEqual([]);
  });

  it('ovsdb-server refuses an insert without any one of them, and accepts one with only them', async () => {
    const { accepted, refused, wrong } = await checkAgainstServer(nb, NB_SCHEMA, NB_REQUIRED);
    expect(wrong).toEqual([]);
    // Every table: every column that is not required may be left out.
    expect(accepted).toEqual(Object.keys(NB_SCHEMA.tables).sort());
    const marked = [...NB_REQUIRED].flatMap(([t, cols]) => cols.map((c) => `${t}.${c}`));
    expect([...refused.keys()].sort()).toEqual(marked.sort());
    expect(refused.get('ACL.action')).toMatch(
      /^constraint violation: "" is not one of the allowed values/,
    );
    expect(refused.get('Meter.bands')).toMatch(/^referential integrity violation/);
    expect(refused.get('Sample.metadata')).toMatch(/^constraint violation/);
    console.log(
      `NB 7.18.0: ${refused.size} required columns refused when left out, ${accepted.length} tables accepted with only them`,
    );
  }, 120_000);
});

describe('a schema of other cases', () => {
  it('the rule: min 1 sets, weak references, map values, negative ranges, boolean enums', () => {
    expect(nonEmpty(requiredByRule(EXTRA_SCHEMA))).toEqual([
      ['Holder', ['modes', 'names', 'negative', 'weak', 'yes']],
    ]);
    const holder = EXTRA_SCHEMA.tables['Holder']!;
    const why = (c: string) => defaultViolation(holder.columns[c]!);
    expect(why('names')).toBe('the default `""` is shorter than the minimum length 1');
    expect(why('weak')).toBe('the default, the all-zero UUID, refers to no row of `Target`');
    expect(why('modes')).toBe('the default `""` is not one of the allowed values for a value');
    expect(why('negative')).toBe('the default `0` is above the maximum -1');
    expect(why('yes')).toBe('the default `false` is not one of the allowed values');
    expect(why('tags')).toBeUndefined();
    expect(why('optionalRef')).toBeUndefined();
  });

  it('ovsdb-server agrees', async () => {
    const { accepted, refused, wrong } = await checkAgainstServer(
      extra,
      EXTRA_SCHEMA,
      requiredByRule(EXTRA_SCHEMA),
    );
    expect(wrong).toEqual([]);
    expect(accepted).toEqual(['Holder', 'Target']);
    expect([...refused.keys()].sort()).toEqual([
      'Holder.modes',
      'Holder.names',
      'Holder.negative',
      'Holder.weak',
      'Holder.yes',
    ]);
  }, 60_000);
});

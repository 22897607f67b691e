/**
 * The engine's query planner and secondary indexes (`query.ts`,
 * `secondary-index.ts`): how many rows a condition is evaluated on
 * (`Database.rowsVisited`, counted, never timed) on a 100,000-row table, the
 * lazy build and drop of indexes, their upkeep on commit, and a property
 * test that the indexed answer always equals a full scan's, inside and
 * outside transactions with staged inserts, updates and deletes.
 */

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../../src/ovsdb/schema/schema-types.js';
import {
  Database,
  evaluateCondition,
  parseCondition,
  type TransactResult,
} from '../../src/server/core-index.js';
import { compileCondition } from '../../src/server/engine/conditions.js';
import { DEFAULT_INDEX_POLICY, type IndexPolicy } from '../../src/server/engine/secondary-index.js';

const SCHEMA_JSON = {
  name: 'Ix',
  version: '1.0.0',
  tables: {
    T: {
      isRoot: true,
      indexes: [['id'], ['b', 'id']],
      columns: {
        id: { type: 'string' },
        k: { type: 'string' },
        grp: { type: 'string' },
        n: { type: 'integer' },
        o: { type: { key: 'integer', min: 0, max: 1 } },
        r: { type: 'real' },
        b: { type: 'boolean' },
        s: { type: { key: 'string', min: 0, max: 'unlimited' } },
        m: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
        peer: {
          type: { key: { type: 'uuid', refTable: 'W', refType: 'weak' }, min: 0, max: 'unlimited' },
        },
      },
    },
    W: { isRoot: true, columns: { name: { type: 'string' } } },
  },
};

const schema = parseSchema(SCHEMA_JSON);
/** The same schema without its unique indexes: every lookup of the reference database scans. */
const scanSchema: DatabaseSchema = parseSchema({
  ...SCHEMA_JSON,
  tables: { ...SCHEMA_JSON.tables, T: { ...SCHEMA_JSON.tables.T, indexes: [] } },
});
const NEVER_INDEX: IndexPolicy = {
  ...DEFAULT_INDEX_POLICY,
  buildAfterUses: Number.POSITIVE_INFINITY,
};

function run(db: Database, ops: unknown[]): unknown[] {
  const out = db.transact(ops);
  if (out.blocked === true) throw new Error('unexpectedly blocked');
  return (out as TransactResult).results;
}

function ok(db: Database, ops: unknown[]): unknown[] {
  const results = run(db, ops);
  const bad = results.find((r) => r === null || (r as { error?: unknown }).error !== undefined);
  if (bad !== undefined) throw new Error(`transaction failed: ${JSON.stringify(results)}`);
  return results;
}

function uuidOf(i: number): string {
  return `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
}

/** The UUID of row `i` of table W. */
function wUuidOf(i: number): string {
  return `00000000-0000-4000-9000-${i.toString(16).padStart(12, '0')}`;
}

/** Rows evaluated while running `fn`. */
function visits(db: Database, fn: () => void): number {
  const before = db.rowsVisited;
  fn();
  return db.rowsVisited - before;
}

/** The `_uuid`s a `select` result holds, sorted. */
function uuids(result: unknown): string[] {
  return (result as { rows: { _uuid: [string, string] }[] }).rows.map((r) => r._uuid[1]).sort();
}

function select(where: unknown[]): Record<string, unknown> {
  return { op: 'select', table: 'T', where, columns: ['_uuid'] };
}

describe('rows visited on a 100,000-row table', () => {
  const N = 100_000;
  const db = new Database(schema);

  beforeAll(() => {
    for (let start = 0; start < N; start += 5000) {
      const ops: unknown[] = [];
      for (let i = start; i < start + 5000; i++) {
        ops.push({
          op: 'insert',
          table: 'T',
          uuid: uuidOf(i),
          row: {
            id: `id-${i}`,
            k: `k-${i}`,
            grp: `g-${i % 100}`,
            n: i,
            b: i % 2 === 0,
            s: ['set', [`t${i % 50}`, 'all']],
            m: ['map', [['pos', String(i)]]],
          },
        });
      }
      ok(db, ops);
    }
  });

  /** Rows visited by one `select` of `where` in its own transaction, and the rows it returned. */
  function query(where: unknown[]): { visited: number; matched: number } {
    let result: unknown;
    const visited = visits(db, () => {
      result = ok(db, [select(where)])[0];
    });
    return { visited, matched: uuids(result).length };
  }

  it('`_uuid ==` and a schema index visit the one row, from the first use', () => {
    expect(query([['_uuid', '==', ['uuid', uuidOf(777)]]])).toEqual({ visited: 1, matched: 1 });
    expect(query([['id', '==', 'id-4242']])).toEqual({ visited: 1, matched: 1 });
    expect(query([['id', '==', 'id-none']])).toEqual({ visited: 0, matched: 0 });
    expect(
      query([
        ['b', '==', true],
        ['id', '==', 'id-4242'],
      ]),
    ).toEqual({ visited: 1, matched: 1 });
  });

  it('`==` on a scalar column scans until the index is built, then visits only the matches', () => {
    const { buildAfterUses } = DEFAULT_INDEX_POLICY;
    for (let use = 1; use < buildAfterUses; use++) {
      expect(query([['k', '==', `k-${use}`]])).toEqual({ visited: N, matched: 1 });
    }
    // The use that builds the index already looks it up.
    expect(query([['k', '==', 'k-99']])).toEqual({ visited: 1, matched: 1 });
    for (const i of [0, 5, 31_337, N - 1]) {
      const { visited, matched } = query([['k', '==', `k-${i}`]]);
      expect(matched).toBe(1);
      expect(visited).toBeLessThanOrEqual(matched + 1);
    }
    expect(query([['k', '==', 'k-none']])).toEqual({ visited: 0, matched: 0 });
    expect(db.tables.get('T')?.secondary.names()).toContain('k');
  });

  it('`includes` of one element of a set visits the rows holding it', () => {
    for (let i = 0; i < DEFAULT_INDEX_POLICY.buildAfterUses; i++) query([['s', 'includes', 't3']]);
    const { visited, matched } = query([['s', 'includes', ['set', ['t7']]]]);
    expect(matched).toBe(N / 50);
    expect(visited).toBe(matched);
    // Several elements: the rarest one's rows are the candidates.
    expect(query([['s', 'includes', ['set', ['all', 't9']]]])).toEqual({
      visited: N / 50,
      matched: N / 50,
    });
  });

  it('an indexed equality combined with other clauses visits only its candidates', () => {
    for (let i = 0; i < DEFAULT_INDEX_POLICY.buildAfterUses; i++) query([['grp', '==', 'g-1']]);
    const candidates = N / 100;
    const r = query([
      ['n', '>=', N / 2],
      ['grp', '==', 'g-7'],
      ['m', 'excludes', ['map', [['pos', '107']]]],
    ]);
    expect(r.matched).toBe(candidates / 2);
    expect(r.visited).toBe(candidates);
    // With two indexed columns, the smaller bucket is looked up.
    expect(
      query([
        ['grp', '==', 'g-7'],
        ['k', '==', 'k-7'],
      ]),
    ).toEqual({ visited: 1, matched: 1 });
  });

  it('`!=`, ordered comparisons and `excludes` scan the table', () => {
    expect(query([['k', '!=', 'k-1']])).toEqual({ visited: N, matched: N - 1 });
    expect(query([['n', '<', 10]])).toEqual({ visited: N, matched: 10 });
    expect(query([['s', 'excludes', ['set', ['all']]]])).toEqual({ visited: N, matched: 0 });
  });

  it('a `false` clause visits nothing', () => {
    expect(query([['k', '!=', 'k-1'], false])).toEqual({ visited: 0, matched: 0 });
  });

  it('inside a transaction, sees the staged inserts, updates and deletes, as a scan does', () => {
    for (let i = 0; i < DEFAULT_INDEX_POLICY.buildAfterUses; i++) query([['k', '==', 'k-1']]);
    const staged = [
      { op: 'insert', table: 'T', uuid: uuidOf(N), row: { id: 'id-new', k: 'k-new', grp: 'g-7' } },
      { op: 'update', table: 'T', where: [['k', '==', 'k-5']], row: { k: 'k-5x' } },
      { op: 'delete', table: 'T', where: [['k', '==', 'k-6']] },
      {
        op: 'mutate',
        table: 'T',
        where: [['id', '==', 'id-7']],
        mutations: [['s', 'insert', 'x']],
      },
    ];
    const lookups = [
      [['k', '==', 'k-new']],
      [['k', '==', 'k-5']],
      [['k', '==', 'k-5x']],
      [['k', '==', 'k-6']],
      [['k', '==', 'k-7']],
      [['s', 'includes', 'x']],
      [['grp', '==', 'g-7']],
      [['id', '==', 'id-new']],
      [['id', '==', 'id-6']],
    ];
    const ops = [
      ...staged,
      ...lookups.map(select),
      // The full-scan reference: every row, filtered here.
      { op: 'select', table: 'T', where: [], columns: ['_uuid', 'k', 'grp', 'id', 's'] },
      { op: 'abort' },
    ];
    let results: unknown[] = [];
    const visited = visits(db, () => {
      results = run(db, ops);
    });
    type Wire = { _uuid: [string, string]; k: string; grp: string; id: string; s: unknown };
    const all = (results[staged.length + lookups.length] as { rows: Wire[] }).rows;
    const has = (s: unknown, x: string) =>
      s === x || (Array.isArray(s) && s[0] === 'set' && (s[1] as string[]).includes(x));
    const expected: ((r: Wire) => boolean)[] = [
      (r) => r.k === 'k-new',
      (r) => r.k === 'k-5',
      (r) => r.k === 'k-5x',
      (r) => r.k === 'k-6',
      (r) => r.k === 'k-7',
      (r) => has(r.s, 'x'),
      (r) => r.grp === 'g-7',
      (r) => r.id === 'id-new',
      (r) => r.id === 'id-6',
    ];
    let matched = 0;
    expected.forEach((pred, i) => {
      const want = all
        .filter(pred)
        .map((r) => r._uuid[1])
        .sort();
      expect(uuids(results[staged.length + i])).toEqual(want);
      matched += want.length;
    });
    expect(matched).toBe(1 + 0 + 1 + 0 + 1 + 1 + (N / 100 + 1) + 1 + 0);
    // The staged ops and the lookups: the matches, the staged rows, and a
    // constant; the reference scan: every row once.
    const stagedRows = 4;
    const stagedLookups = 4 + lookups.length * stagedRows + matched + 2;
    expect(visited - (N + 1)).toBeLessThanOrEqual(stagedLookups);
  });

  it('keeps the indexes up to date on commit', () => {
    for (let i = 0; i < DEFAULT_INDEX_POLICY.buildAfterUses; i++) query([['k', '==', 'k-1']]);
    ok(db, [
      { op: 'update', table: 'T', where: [['k', '==', 'k-10']], row: { k: 'k-10x' } },
      { op: 'delete', table: 'T', where: [['k', '==', 'k-11']] },
      { op: 'insert', table: 'T', uuid: uuidOf(N + 1), row: { id: 'id-n1', k: 'k-n1' } },
      {
        op: 'mutate',
        table: 'T',
        where: [['k', '==', 'k-12']],
        mutations: [['s', 'delete', 'all']],
      },
    ]);
    expect(query([['k', '==', 'k-10']])).toEqual({ visited: 0, matched: 0 });
    expect(query([['k', '==', 'k-10x']])).toEqual({ visited: 1, matched: 1 });
    expect(query([['k', '==', 'k-11']])).toEqual({ visited: 0, matched: 0 });
    expect(query([['k', '==', 'k-n1']])).toEqual({ visited: 1, matched: 1 });
    expect(query([['s', 'includes', 'all']]).matched).toBe(N - 2);
  });

  it('an insert-and-look-up-by-key transaction visits as many rows at 100,000 rows as at 1,000', () => {
    const small = new Database(schema);
    const ops: unknown[] = [];
    for (let i = 0; i < 1000; i++)
      ops.push({ op: 'insert', table: 'T', row: { id: `id-${i}`, k: `k-${i}` } });
    ok(small, ops);
    // One insert, and a mutate of a row found by `k`: the looked-up row and the staged insert.
    const txn = (i: number) => [
      { op: 'insert', table: 'T', row: { id: `id-x${i}`, k: `k-x${i}` } },
      {
        op: 'mutate',
        table: 'T',
        where: [['k', '==', `k-${i}`]],
        mutations: [['s', 'insert', 'y']],
      },
    ];
    for (const d of [small, db]) {
      for (let i = 0; i < DEFAULT_INDEX_POLICY.buildAfterUses; i++) ok(d, txn(i));
    }
    const cost = (d: Database) => visits(d, () => ok(d, txn(500)));
    const large = cost(db);
    expect(large).toBe(cost(small));
    expect(large).toBe(2);
  });
});

describe('index policy', () => {
  function table(db: Database, n: number, from = 0): void {
    const ops: unknown[] = [];
    for (let i = from; i < from + n; i++) {
      ops.push({
        op: 'insert',
        table: 'T',
        row: { id: `id-${i}`, k: `k-${i}`, grp: `g-${i % 3}` },
      });
    }
    ok(db, ops);
  }

  it('never indexes a table smaller than minRows', () => {
    const db = new Database(schema);
    table(db, DEFAULT_INDEX_POLICY.minRows - 1);
    for (let i = 0; i < 10; i++) ok(db, [select([['k', '==', 'k-1']])]);
    expect(db.tables.get('T')?.secondary.names()).toEqual([]);
    table(db, 1, DEFAULT_INDEX_POLICY.minRows - 1);
    ok(db, [select([['k', '==', 'k-1']])]);
    expect(db.tables.get('T')?.secondary.names()).toEqual(['k']);
  });

  it('drops an index unused for idleTransactions transactions, and rebuilds it after new uses', () => {
    const db = new Database(schema);
    db.indexPolicy = { ...DEFAULT_INDEX_POLICY, idleTransactions: 20, sweepEvery: 5 };
    table(db, 100);
    const names = () => db.tables.get('T')?.secondary.names();
    for (let i = 0; i < 3; i++) ok(db, [select([['k', '==', 'k-1']])]);
    expect(names()).toEqual(['k']);
    for (let i = 0; i < 15; i++)
      ok(db, [select([['k', '==', 'k-1']]), select([['id', '==', 'x']])]);
    expect(names()).toEqual(['k']);
    for (let i = 0; i < 25; i++) ok(db, [select([['id', '==', 'x']])]);
    expect(names()).toEqual([]);
    expect(visits(db, () => ok(db, [select([['k', '==', 'k-1']])]))).toBe(100);
    for (let i = 0; i < 2; i++) ok(db, [select([['k', '==', 'k-1']])]);
    expect(names()).toEqual(['k']);
  });

  it('holds at most maxPerTable indexes, dropping the least recently used', () => {
    const db = new Database(schema);
    db.indexPolicy = { ...DEFAULT_INDEX_POLICY, buildAfterUses: 1, maxPerTable: 2 };
    table(db, 100);
    const names = () => db.tables.get('T')?.secondary.names().sort();
    ok(db, [select([['k', '==', 'k-1']])]);
    ok(db, [select([['grp', '==', 'g-1']])]);
    ok(db, [select([['k', '==', 'k-1']])]);
    ok(db, [select([['n', '==', 1]])]);
    expect(names()).toEqual(['k', 'n']);
  });

  it('follows rows written to the table directly, and a cleared table', () => {
    const db = new Database(schema);
    db.indexPolicy = { ...DEFAULT_INDEX_POLICY, buildAfterUses: 1, minRows: 0 };
    table(db, 10);
    const store = db.tables.get('T');
    if (store === undefined) throw new Error('no table T');
    const count = (k: string) => uuids(ok(db, [select([['k', '==', k]])])[0]).length;
    expect(count('k-1')).toBe(1);
    const rows = [...store.rows.values()];
    store.rows.clear();
    expect(count('k-1')).toBe(0);
    for (const row of rows) store.rows.set(row.uuid, row);
    expect(count('k-1')).toBe(1);
    const row = rows[1];
    if (row === undefined) throw new Error('no row');
    store.rows.set(row.uuid, {
      uuid: row.uuid,
      fields: { ...row.fields, k: { keys: ['k-moved'] } },
    });
    expect(count('k-1')).toBe(0);
    expect(count('k-moved')).toBe(1);
    store.rows.delete(row.uuid);
    expect(count('k-moved')).toBe(0);
  });

  it('finds the weak referrers of a deleted row through an index of the referring column', () => {
    const db = new Database(schema);
    const ops: unknown[] = [];
    for (let w = 0; w < 3; w++) {
      ops.push({ op: 'insert', table: 'W', uuid: wUuidOf(w), row: { name: `w${w}` } });
    }
    for (let i = 1; i <= 500; i++) {
      const peers = [0, 1, 2].filter((w) => i % (w + 2) === 0).map((w) => ['uuid', wUuidOf(w)]);
      ops.push({ op: 'insert', table: 'T', row: { id: `id-${i}`, peer: ['set', peers] } });
    }
    ok(db, ops);
    ok(db, [{ op: 'delete', table: 'W', where: [['name', '==', 'w0']] }]);
    expect(db.tables.get('T')?.secondary.names()).toEqual(['peer']);
    const holding = (w: number) =>
      uuids(ok(db, [select([['peer', 'includes', ['uuid', wUuidOf(w)]]])])[0]).length;
    expect([holding(0), holding(1), holding(2)]).toEqual([0, 166, 125]);
    ok(db, [{ op: 'delete', table: 'W', where: [] }]);
    expect(ok(db, [select([['peer', '!=', ['set', []]]])])[0]).toEqual({ rows: [] });
  });
});

// ---------------------------------------------------------------------------
// Property: the indexed answer is the full scan's.

const K = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const INT = fc.constantFrom(-1, 0, 1, 2, 3, 2n ** 60n);
const REAL = fc.constantFrom(0, 0.5, 1.5, -2);
const ELEMENTS = fc.uniqueArray(fc.constantFrom('x', 'y', 'z', 'w'), { maxLength: 3 });
const PAIRS = fc.uniqueArray(
  fc.tuple(fc.constantFrom('p', 'q', 'r'), fc.constantFrom('1', '2', '3')),
  { maxLength: 3, selector: (p) => p[0] },
);
const setOf = (xs: unknown[]) => ['set', xs];
const mapOf = (ps: unknown[]) => ['map', ps];

const rowArb = fc.record({
  k: K,
  grp: fc.constantFrom('g1', 'g2'),
  n: INT,
  o: fc.oneof(
    INT.map((v) => setOf([v])),
    fc.constant(setOf([])),
  ),
  r: REAL,
  b: fc.boolean(),
  s: ELEMENTS.map(setOf),
  m: PAIRS.map(mapOf),
});

/** A `where` clause over any column, given the UUIDs rows may have. */
function clauseArb(rowUuids: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const eq = fc.constantFrom('==', '!=', 'includes', 'excludes');
  const ord = fc.constantFrom('<', '<=', '==', '!=', '>=', '>', 'includes', 'excludes');
  return fc.oneof(
    fc.tuple(fc.constant('k'), eq, K),
    fc.tuple(fc.constant('grp'), eq, fc.constantFrom('g1', 'g2', 'g3')),
    fc.tuple(
      fc.constant('id'),
      fc.constantFrom('==', '!='),
      fc.nat(40).map((i) => `id-${i}`),
    ),
    fc.tuple(fc.constant('n'), ord, INT),
    fc.tuple(fc.constant('o'), fc.constantFrom('<', '<=', '>=', '>'), INT),
    fc.tuple(
      fc.constant('o'),
      fc.constantFrom('==', '!=', 'includes'),
      fc.oneof(INT, fc.constant(setOf([]))),
    ),
    fc.tuple(
      fc.constant('o'),
      fc.constant('excludes'),
      fc.uniqueArray(INT, { maxLength: 2 }).map(setOf),
    ),
    fc.tuple(fc.constant('r'), ord, REAL),
    fc.tuple(fc.constant('b'), fc.constantFrom('==', '!='), fc.boolean()),
    fc.tuple(fc.constant('s'), eq, ELEMENTS.map(setOf)),
    fc.tuple(fc.constant('s'), fc.constantFrom('includes', '=='), fc.constantFrom('x', 'y')),
    fc.tuple(fc.constant('m'), eq, PAIRS.map(mapOf)),
    fc.tuple(
      fc.constant('_uuid'),
      fc.constantFrom('==', '!='),
      rowUuids.map((u) => ['uuid', u]),
    ),
    fc.tuple(
      fc.constant('peer'),
      fc.constantFrom('includes', 'excludes'),
      fc.nat(12).map((w) => ['uuid', wUuidOf(w)]),
    ),
    fc.boolean(),
  );
}

const COLUMNS = ['_uuid', 'id', 'k', 'grp', 'n', 'o', 'r', 'b', 's', 'm', 'peer'];

type Step =
  | { readonly kind: 'insert'; readonly row: Record<string, unknown>; readonly peers: number[] }
  | { readonly kind: 'update'; readonly where: unknown[]; readonly row: Record<string, unknown> }
  | { readonly kind: 'mutate'; readonly where: unknown[]; readonly mutation: readonly unknown[] }
  | { readonly kind: 'delete'; readonly where: unknown[] }
  | { readonly kind: 'select'; readonly where: unknown[] };

function stepArb(rowUuids: fc.Arbitrary<string>): fc.Arbitrary<Step> {
  const where = fc.array(clauseArb(rowUuids), { maxLength: 3 });
  const partial = rowArb.chain((r) =>
    fc
      .subarray(Object.keys(r), { minLength: 1 })
      .map((ks) => Object.fromEntries(ks.map((k) => [k, r[k as keyof typeof r]]))),
  );
  const mutation = fc.oneof(
    fc.constant(['n', '+=', 1]),
    fc.constant(['o', '-=', 1]),
    fc.tuple(fc.constant('s'), fc.constantFrom('insert', 'delete'), ELEMENTS.map(setOf)),
    fc.tuple(fc.constant('m'), fc.constant('insert'), PAIRS.map(mapOf)),
    fc.tuple(
      fc.constant('m'),
      fc.constant('delete'),
      fc.uniqueArray(fc.constantFrom('p', 'q'), { maxLength: 2 }).map(setOf),
    ),
  );
  return fc.oneof(
    fc.record({
      kind: fc.constant('insert' as const),
      row: rowArb,
      peers: fc.uniqueArray(fc.nat(12), { maxLength: 2 }),
    }),
    fc.record({ kind: fc.constant('update' as const), where, row: partial }),
    fc.record({ kind: fc.constant('mutate' as const), where, mutation }),
    fc.record({ kind: fc.constant('delete' as const), where }),
    fc.record({ kind: fc.constant('select' as const), where }),
    fc.record({ kind: fc.constant('select' as const), where }),
  );
}

/** Turns steps into operations; inserted rows get the next UUID and id. */
class Ops {
  next = 0;
  op(step: Step): Record<string, unknown> {
    switch (step.kind) {
      case 'insert': {
        const i = this.next++;
        // W holds rows 0–9: a reference to 10–12 is dropped by the commit.
        const peer = setOf(step.peers.map((p) => ['uuid', wUuidOf(p)]));
        return {
          op: 'insert',
          table: 'T',
          uuid: uuidOf(i),
          row: { ...step.row, id: `id-${i}`, peer },
        };
      }
      case 'update':
        return { op: 'update', table: 'T', where: step.where, row: step.row };
      case 'mutate':
        return { op: 'mutate', table: 'T', where: step.where, mutations: [step.mutation] };
      case 'delete':
        return { op: 'delete', table: 'T', where: step.where };
      case 'select':
        return { op: 'select', table: 'T', where: step.where, columns: COLUMNS, sort: ['_uuid'] };
    }
  }
}

/** Every secondary index of `db` holds exactly what a fresh build would. */
function checkIndexes(db: Database): void {
  for (const store of db.tables.values()) {
    for (const index of store.secondary.all()) {
      const want = new Map<unknown, string[]>();
      for (const row of store.rows.values()) {
        const d = row.fields[index.column];
        for (const a of (index.values ? d?.values : d?.keys) ?? []) {
          const list = want.get(a) ?? [];
          if (!list.includes(row.uuid)) list.push(row.uuid);
          want.set(a, list);
        }
      }
      const got = new Map<unknown, string[]>();
      for (const [a, b] of index.buckets) got.set(a, typeof b === 'string' ? [b] : [...b]);
      const norm = (m: Map<unknown, string[]>) =>
        [...m].map(([a, us]) => [String(a), [...us].sort()]).sort();
      expect(norm(got)).toEqual(norm(want));
    }
  }
}

function dumpWithoutVersions(db: Database): unknown {
  return (db.dump().T ?? []).map(({ _version: _, ...rest }) => rest);
}

describe('property: the indexed answer is the full scan’s', () => {
  it('over random tables, conditions and transactions with staged changes', () => {
    const rowUuids = fc.nat(40).map(uuidOf);
    fc.assert(
      fc.property(
        fc.record({
          rows: fc.array(fc.tuple(rowArb, fc.uniqueArray(fc.nat(12), { maxLength: 2 })), {
            maxLength: 40,
          }),
          // Each inner array is one transaction; the last ones typically mix staged changes and queries.
          txns: fc.array(fc.array(stepArb(rowUuids), { minLength: 1, maxLength: 8 }), {
            minLength: 1,
            maxLength: 8,
          }),
          buildAfterUses: fc.integer({ min: 1, max: 3 }),
        }),
        ({ rows, txns, buildAfterUses }) => {
          const indexed = new Database(schema);
          indexed.indexPolicy = { ...DEFAULT_INDEX_POLICY, buildAfterUses, minRows: 0 };
          const scanned = new Database(scanSchema);
          scanned.indexPolicy = NEVER_INDEX;
          const ops = new Ops();
          const ws = Array.from({ length: 10 }, (_, w) => ({
            op: 'insert',
            table: 'W',
            uuid: wUuidOf(w),
            row: { name: `w${w}` },
          }));
          const first = rows.map(([row, peers]) => ops.op({ kind: 'insert', row, peers }));
          const all = [[...ws, ...first], ...txns.map((t) => t.map((s) => ops.op(s)))];
          for (const txn of all) {
            const a = run(indexed, txn);
            const b = run(scanned, txn);
            expect(a).toEqual(b);
            checkIndexes(indexed);
          }
          expect(dumpWithoutVersions(indexed)).toEqual(dumpWithoutVersions(scanned));
          expect(indexed.rowsVisited).toBeLessThanOrEqual(scanned.rowsVisited);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('property: a compiled condition is the evaluated one', () => {
  it('over random rows and conditions', () => {
    const rowUuids = fc.nat(40).map(uuidOf);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(rowArb, fc.uniqueArray(fc.nat(12), { maxLength: 2 })), {
          minLength: 1,
          maxLength: 20,
        }),
        fc.array(fc.array(clauseArb(rowUuids), { maxLength: 3 }), { minLength: 1, maxLength: 10 }),
        (rows, wheres) => {
          const db = new Database(schema);
          const ops = new Ops();
          ok(
            db,
            rows.map(([row, peers]) => ops.op({ kind: 'insert', row, peers })),
          );
          const store = db.tables.get('T');
          if (store === undefined) throw new Error('no table T');
          for (const where of wheres) {
            const cond = parseCondition(store.schema, where, new Map());
            const pred = compileCondition(cond);
            for (const row of store.rows.values()) {
              expect(pred(row.fields)).toBe(evaluateCondition(row.fields, cond));
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

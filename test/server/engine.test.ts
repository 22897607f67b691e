/**
 * Engine behaviour that the differential tests cannot observe: the blocking
 * signal of `wait`, lock ownership for `assert`, the committed changes handed
 * to monitors, atomicity, and the OVS formatting helpers.
 */

import { describe, expect, it } from 'vitest';
import {
  Database,
  formatG15,
  OpError,
  ovsJsonText,
  roundReal,
  rowToJs,
  type TransactResult,
  type TxnChanges,
} from '../../src/server/core-index.js';
import { serverColumnOrder, shashOrder } from '../../src/server/engine/ovs-hash.js';
import { loadSchema, TEST_SCHEMA_PATH } from './harness.js';

const schema = loadSchema(TEST_SCHEMA_PATH);

function done(db: Database, ops: unknown[], options = {}): TransactResult {
  const out = db.transact(ops, options);
  if (out.blocked === true) throw new Error('unexpectedly blocked');
  return out;
}

describe('wait', () => {
  const waitOp = (timeout?: number) => ({
    op: 'wait',
    table: 'Root',
    where: [],
    columns: ['name'],
    until: '==',
    rows: [{ name: 'x' }],
    ...(timeout === undefined ? {} : { timeout }),
  });

  it('blocks with the smallest timeout when the condition does not hold yet', () => {
    const db = new Database(schema);
    const out = db.transact([waitOp(500), waitOp(200)]);
    expect(out).toEqual({ blocked: true, timeoutMs: 500 });
    const first = db.transact([waitOp(200), { op: 'insert', table: 'Root', row: { name: 'y' } }]);
    expect(first).toEqual({ blocked: true, timeoutMs: 200 });
    expect(db.dump().Root).toEqual([]);
  });

  it('blocks forever without a timeout and succeeds once the condition holds', () => {
    const db = new Database(schema);
    expect(db.transact([waitOp()])).toEqual({ blocked: true, timeoutMs: Number.POSITIVE_INFINITY });
    done(db, [{ op: 'insert', table: 'Root', row: { name: 'x' } }]);
    expect(done(db, [waitOp()]).results).toEqual([{}]);
  });

  it('times out once the elapsed time reaches the timeout', () => {
    const db = new Database(schema);
    expect(done(db, [waitOp(100)], { elapsedMs: 100 }).results).toEqual([
      { error: 'timed out', details: '"wait" timed out after 100 ms' },
    ]);
    expect(done(db, [waitOp(0)]).results).toEqual([
      { error: 'timed out', details: '"where" clause test failed' },
    ]);
  });

  it('reports "not supported" when the caller cannot block', () => {
    const db = new Database(schema);
    expect(done(db, [waitOp(100)], { canBlock: false }).results).toEqual([
      { error: 'not supported', details: 'triggers not supported' },
    ]);
  });
});

describe('assert', () => {
  it('passes only for locks the session owns', () => {
    const db = new Database(schema);
    const owns = (name: string) => name === 'mine';
    expect(done(db, [{ op: 'assert', lock: 'mine' }], { ownsLock: owns }).results).toEqual([{}]);
    expect(done(db, [{ op: 'assert', lock: 'other' }], { ownsLock: owns }).results).toEqual([
      { error: 'not owner', details: 'Asserted lock other not held.' },
    ]);
  });
});

describe('committed changes', () => {
  it('lists inserts, modifications and deletes with old and new rows', () => {
    const db = new Database(schema);
    const ins = done(db, [
      { op: 'insert', table: 'Root', row: { name: 'a', i: 1 } },
      { op: 'comment', comment: 'first' },
      { op: 'commit', durable: true },
    ]);
    expect(ins.durable).toBe(true);
    expect(ins.changes?.comment).toBe('first');
    const [c0] = ins.changes?.rows ?? [];
    expect(c0?.table).toBe('Root');
    expect(c0?.old).toBeNull();
    expect(c0?.new?.fields.i).toEqual({ keys: [1] });
    expect(c0?.changed).toContain('name');

    const upd = done(db, [{ op: 'update', table: 'Root', where: [], row: { i: 2 } }]);
    const [c1] = upd.changes?.rows ?? [];
    expect(c1?.old?.fields.i).toEqual({ keys: [1] });
    expect(c1?.new?.fields.i).toEqual({ keys: [2] });
    expect([...(c1?.changed ?? [])].sort()).toEqual(['_version', 'i']);
    expect(c1?.new?.fields._version).not.toEqual(c1?.old?.fields._version);

    const del = done(db, [{ op: 'delete', table: 'Root', where: [] }]);
    const [c2] = del.changes?.rows ?? [];
    expect(c2?.new).toBeNull();
    expect(c2?.old?.fields.i).toEqual({ keys: [2] });
  });

  it('reports no changes for a no-op and keeps _version', () => {
    const db = new Database(schema);
    done(db, [{ op: 'insert', table: 'Root', row: { name: 'a' } }]);
    const before = db.dump().Root?.[0]?._version;
    const out = done(db, [
      { op: 'update', table: 'Root', where: [], row: { i: 5 } },
      { op: 'update', table: 'Root', where: [], row: { i: 0 } },
    ]);
    expect(out.results).toEqual([{ count: 1 }, { count: 1 }]);
    expect(out.changes).toBeNull();
    expect(db.dump().Root?.[0]?._version).toEqual(before);
  });

  it('includes rows changed by weak-reference cleanup and garbage collection', () => {
    const db = new Database(schema);
    done(db, [
      { op: 'insert', table: 'Weak', row: { name: 'w' }, 'uuid-name': 'w' },
      { op: 'insert', table: 'Child', row: { name: 'c' }, 'uuid-name': 'c' },
      {
        op: 'insert',
        table: 'Root',
        row: { name: 'r', weak: ['named-uuid', 'w'], children: ['named-uuid', 'c'] },
      },
    ]);
    const out = done(db, [
      { op: 'delete', table: 'Weak', where: [] },
      { op: 'update', table: 'Root', where: [], row: { children: ['set', []] } },
    ]);
    const byTable = Object.fromEntries((out.changes?.rows ?? []).map((r) => [r.table, r]));
    expect(byTable.Weak?.new).toBeNull();
    expect(byTable.Child?.new).toBeNull();
    expect(byTable.Root?.changed).toEqual(expect.arrayContaining(['weak', 'children', '_version']));
    expect(byTable.Root?.new?.fields.weak).toEqual({ keys: [] });
  });
});

describe('rowToJs', () => {
  it('decodes rows to the codec representation', () => {
    const db = new Database(schema);
    done(db, [
      {
        op: 'insert',
        table: 'Root',
        row: { name: 'a', iset: ['set', [3, 1]], smap: ['map', [['k', 'v']]], oi: 4 },
      },
    ]);
    const [row] = db.tables.get('Root')?.rows.values() ?? [];
    const js = rowToJs(schema.tables.Root as never, row as never);
    expect(js.iset).toEqual([1, 3]);
    expect(js.smap).toEqual({ k: 'v' });
    expect(js.oi).toBe(4);
    expect(js.u).toBeNull();
    expect(js._uuid).toBe(row?.uuid);
  });
});

describe('atomicity', () => {
  it('leaves the database unchanged when an operation fails', () => {
    const db = new Database(schema);
    done(db, [{ op: 'insert', table: 'Root', row: { name: 'a' } }]);
    const before = db.dump();
    const out = done(db, [
      { op: 'insert', table: 'Root', row: { name: 'b' } },
      { op: 'delete', table: 'Root', where: [['name', '==', 'a']] },
      { op: 'mutate', table: 'Root', where: [], mutations: [['i', '/=', 0]] },
      { op: 'insert', table: 'Root', row: { name: 'c' } },
    ]);
    expect(out.results).toEqual([
      { uuid: expect.any(Array) },
      { count: 1 },
      { error: 'domain error', details: 'Division by zero.' },
      null,
    ]);
    expect(out.changes).toBeNull();
    expect(db.dump()).toEqual(before);
  });

  it('leaves the database unchanged when the commit fails', () => {
    const db = new Database(schema);
    const out = done(db, [
      { op: 'insert', table: 'Limited', row: { a: 1 } },
      { op: 'insert', table: 'Limited', row: { a: 2 } },
      { op: 'insert', table: 'Limited', row: { a: 3 } },
    ]);
    expect(out.results).toHaveLength(4);
    expect(out.results[3]).toEqual({
      error: 'constraint violation',
      details:
        'transaction causes "Limited" table to contain 3 rows, greater than the schema-defined limit of 2 row(s)',
    });
    expect(db.dump().Limited).toEqual([]);
  });

  it('prepares before the commit: a refusal then changes nothing', () => {
    const db = new Database(schema);
    done(db, [{ op: 'insert', table: 'Root', row: { name: 'a' } }]);
    const before = db.dump();
    const ops = [
      { op: 'insert', table: 'Root', row: { name: 'b' } },
      { op: 'update', table: 'Root', where: [['name', '==', 'a']], row: { i: 7 } },
    ];
    let seen: { rows: number; durable: boolean; results: number } | undefined;
    const out = done(db, ops, {
      beforeCommit: (changes: TxnChanges, durable: boolean, results: readonly unknown[]) => {
        // What the commit will change, before it is made.
        expect(db.dump()).toEqual(before);
        seen = { rows: changes.rows.length, durable, results: results.length };
        throw new OpError('resources exhausted', 'no room for the record');
      },
    });
    expect(seen).toEqual({ rows: 2, durable: false, results: 2 });
    expect(out.changes).toBeNull();
    expect(out.results).toEqual([
      { uuid: expect.any(Array) },
      { count: 1 },
      { error: 'resources exhausted', details: 'no room for the record' },
    ]);
    expect(db.dump()).toEqual(before);
    // Any other failure is passed on, and changes nothing either.
    expect(() =>
      db.transact(ops, {
        beforeCommit: () => {
          throw new RangeError('Invalid string length');
        },
      }),
    ).toThrow(RangeError);
    expect(db.dump()).toEqual(before);
    // Without a refusal, the commit is made.
    expect(done(db, ops, { beforeCommit: () => undefined }).changes?.rows).toHaveLength(2);
    expect(db.dump().Root).toHaveLength(2);
  });
});

describe('OVS formatting helpers', () => {
  it('formats reals as %.15g', () => {
    expect(formatG15(0.1 + 0.2)).toBe('0.3');
    expect(formatG15(1000.5)).toBe('1000.5');
    expect(formatG15(1e21)).toBe('1e+21');
    expect(formatG15(1.5e-7)).toBe('1.5e-07');
    expect(formatG15(-2)).toBe('-2');
    expect(formatG15(1.2345678901234568e17)).toBe('1.23456789012346e+17');
    expect(roundReal(0.1 + 0.2)).toBe(0.3);
  });

  it('serializes JSON as json_to_string with sorted members', () => {
    expect(ovsJsonText({ b: [1, 2.5, 'x\n"'], a: null, c: true })).toBe(
      '{"a":null,"b":[1,2.5,"x\\n\\""],"c":true}',
    );
  });

  it('reproduces ovsdb-server hash-table order', () => {
    // Orders observed from ovsdb-server 3.1 (a transact error and a stored schema).
    expect(shashOrder(['op', 'table', 'row', 'extra', 'more'])[0]).toBe('more');
    expect(
      shashOrder(shashOrder(shashOrder(['Root', 'Child', 'Weak', 'WeakReq', 'Limited']))),
    ).toEqual(['Weak', 'Child', 'Limited', 'Root', 'WeakReq']);
    expect(serverColumnOrder(['a', 'b', 'c'])).toEqual(['_version', 'a', 'b', '_uuid', 'c']);
  });
});

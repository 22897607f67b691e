/**
 * Transaction records (src/server/storage/records.ts): for any change of a
 * row's set, map and scalar columns, the record written for the commit,
 * replayed on the row as it was, gives the row as it became, with and
 * without column diffs; the record's text, built without the record
 * object, is exactly the text of that object; and a record's diff that
 * breaks the column's size is refused.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSchema } from '../../../src/ovsdb/schema/schema.js';
import type { Atom } from '../../../src/ovsdb/schema/schema-types.js';
import {
  type Datum,
  type DatumType,
  datumDiff,
  unionDatums,
} from '../../../src/ovsdb/values/sorted-datum.js';
import { stringifyJson } from '../../../src/ovsdb/wire/json-stringify.js';
import {
  applyTxnRecord,
  Database,
  type TransactResult,
  txnRecord,
} from '../../../src/server/core-index.js';
import { datumToWire } from '../../../src/server/engine/values.js';
import { datumJsonText, recordDiff, txnRecordText } from '../../../src/server/storage/records.js';

const SCHEMA = parseSchema({
  name: 'R',
  version: '1.0.0',
  tables: {
    T: {
      isRoot: true,
      columns: {
        s: { type: { key: 'integer', min: 0, max: 'unlimited' } },
        few: { type: { key: 'string', min: 0, max: 3 } },
        m: { type: { key: 'string', value: 'integer', min: 0, max: 'unlimited' } },
        o: { type: { key: 'integer', min: 0, max: 1 } },
        n: { type: 'integer' },
      },
    },
  },
});

const UUID = '11111111-2222-4333-8444-555555555555';

function dbWith(row: Record<string, unknown>): Database {
  const db = new Database(SCHEMA);
  const out = db.transact([{ op: 'insert', table: 'T', uuid: UUID, row }]);
  expect((out as TransactResult).changes).not.toBeNull();
  return db;
}

const ints = fc.uniqueArray(fc.integer({ min: -5, max: 40 }), { maxLength: 30 });
const strs = fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 3 });
const map = fc.uniqueArray(
  fc.tuple(fc.constantFrom('k', 'l', 'm', 'n', 'o', 'p'), fc.integer({ min: 0, max: 3 })),
  {
    selector: (p) => p[0],
    maxLength: 6,
  },
);
const rowArb = fc.record({
  s: ints,
  few: strs,
  m: map,
  o: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
  n: fc.integer({ min: -3, max: 3 }),
});

interface RowValue {
  s: number[];
  few: string[];
  m: [string, number][];
  o: number | undefined;
  n: number;
}

function wire(r: RowValue): Record<string, unknown> {
  return {
    s: ['set', r.s],
    few: ['set', r.few],
    m: ['map', r.m],
    o: r.o === undefined ? ['set', []] : r.o,
    n: r.n,
  };
}

function rowOf(db: Database): unknown {
  const { _version, ...rest } = db.dump().T?.[0] ?? {};
  return rest;
}

describe('records', () => {
  for (const columnDiff of [true, false]) {
    it(`replayed on the old row give the new row (${columnDiff ? 'diffs' : 'whole columns'})`, () => {
      fc.assert(
        fc.property(rowArb, rowArb, (before, after) => {
          const primary = dbWith(wire(before));
          const replica = dbWith(wire(before));
          const out = primary.transact([
            { op: 'update', table: 'T', where: [], row: wire(after) },
          ]) as TransactResult;
          if (out.changes === null) {
            expect(rowOf(primary)).toEqual(rowOf(replica));
            return;
          }
          const record = txnRecord(primary, out.changes, columnDiff, 5);
          expect(record).toBeDefined();
          expect(txnRecordText(primary, out.changes, columnDiff, 5)).toBe(stringifyJson(record));
          // Only the changed columns are written.
          const written = Object.keys((record!.T as Record<string, object>)[UUID] ?? {});
          for (const c of written) {
            expect(JSON.stringify(wire(before)[c])).not.toBe(JSON.stringify(wire(after)[c]));
          }
          applyTxnRecord(replica, JSON.parse(JSON.stringify(record)) as Record<string, unknown>);
          expect(rowOf(replica)).toEqual(rowOf(primary));
        }),
        { numRuns: 300 },
      );
    });
  }

  it('as text: several tables and rows, inserts, changes and deletes, a comment, nothing', () => {
    const db = new Database(SCHEMA);
    const steps: unknown[][] = [
      [
        { op: 'insert', table: 'T', row: { n: 1, m: ['map', [['k', 1]]] } },
        { op: 'insert', table: 'T', uuid: UUID, row: { n: 2, few: ['set', ['a', 'é"\\\n']] } },
        { op: 'comment', comment: 'two "rows"\nand a line' },
      ],
      [
        { op: 'update', table: 'T', where: [['n', '==', 1]], row: { m: ['map', [['l', 2]]] } },
        { op: 'delete', table: 'T', where: [['_uuid', '==', ['uuid', UUID]]] },
        { op: 'insert', table: 'T', row: { n: 3 } },
      ],
      [{ op: 'update', table: 'T', where: [], row: {} }],
    ];
    let written = 0;
    for (const ops of steps) {
      const out = db.transact(ops) as TransactResult;
      for (const columnDiff of [true, false]) {
        const record = out.changes === null ? undefined : txnRecord(db, out.changes, columnDiff, 7);
        const text =
          out.changes === null ? undefined : txnRecordText(db, out.changes, columnDiff, 7);
        expect(text).toBe(record === undefined ? undefined : stringifyJson(record));
        if (text !== undefined) written++;
      }
    }
    expect(written).toBe(4);
  });

  it('refuses a diff that leaves a column outside its size, and other bad records', () => {
    const db = dbWith({ few: ['set', ['a', 'b', 'c']] });
    expect(() =>
      applyTxnRecord(db, { _is_diff: true, T: { [UUID]: { few: ['set', ['d']] } } }),
    ).toThrow(/column few: the diff leaves 4 elements, outside the 0 to 3 the column allows/);
    expect(() => applyTxnRecord(db, { T: { [UUID]: { nope: 1 } } })).toThrow(
      /table T, row 11111111-2222-4333-8444-555555555555: no column nope in table T/,
    );
    expect(() => applyTxnRecord(db, { T: { 'not-a-uuid': null } })).toThrow(/is not a valid UUID/);
    expect(() => applyTxnRecord(db, { _date: 'today' })).toThrow(/invalid _date member/);
    // Nothing was applied by the failed records.
    expect((db.dump().T![0] as { few: unknown }).few).toEqual(['set', ['a', 'b', 'c']]);
  });
});

describe('datumJsonText', () => {
  const types: Record<string, DatumType> = {
    str: { key: { type: 'string' }, min: 0, max: Number.POSITIVE_INFINITY },
    one: { key: { type: 'string' }, min: 1, max: 1 },
    real: { key: { type: 'real' }, min: 0, max: Number.POSITIVE_INFINITY },
    int: { key: { type: 'integer' }, min: 0, max: Number.POSITIVE_INFINITY },
    bool: { key: { type: 'boolean' }, min: 0, max: 2 },
    uuid: { key: { type: 'uuid' }, min: 0, max: Number.POSITIVE_INFINITY },
    map: {
      key: { type: 'string' },
      value: { type: 'uuid' },
      min: 0,
      max: Number.POSITIVE_INFINITY,
    },
  } as unknown as Record<string, DatumType>;
  const text = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.string({ unit: 'grapheme' }),
    fc.constantFrom('', '"', '\\', '\u0000', '\n', '\u001f', '\ud800', '\udc00x', '😀', 'a"b\\c'),
    // Long strings with one character to escape (or none) anywhere in them.
    fc
      .tuple(
        fc.nat(300),
        fc.constantFrom('', '"', '\\', '\u0000', '\n', '\u001f', '\ud800', '\udfff', '😀', 'é'),
        fc.nat(300),
      )
      .map(([a, c, b]) => `${'x'.repeat(a)}${c}${'y'.repeat(b)}`),
  );
  const atoms: Record<string, fc.Arbitrary<Atom>> = {
    str: text,
    one: text,
    real: fc.double({ noNaN: true, noDefaultInfinity: true }),
    int: fc.oneof(fc.integer(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
    bool: fc.boolean(),
    uuid: fc.uuid(),
  };

  it('is the text of the datum as wire JSON, for every atomic type and escapes', () => {
    for (const [name, type] of Object.entries(types)) {
      const keyArb = name === 'map' ? text : (atoms[name] as fc.Arbitrary<Atom>);
      const n = name === 'one' ? fc.constant(1) : fc.integer({ min: 0, max: 4 });
      fc.assert(
        fc.property(
          n,
          fc.array(keyArb, { minLength: 4, maxLength: 4 }),
          fc.array(fc.uuid(), { minLength: 4, maxLength: 4 }),
          (len, ks, vs) => {
            const d: Datum =
              name === 'map'
                ? { keys: ks.slice(0, len), values: vs.slice(0, len) }
                : { keys: ks.slice(0, len) };
            expect(datumJsonText(d, type)).toBe(stringifyJson(datumToWire(d, type)));
          },
        ),
        { numRuns: 200 },
      );
    }
  });
});

describe('recordDiff', () => {
  const setType = {
    key: { type: 'integer' },
    min: 0,
    max: Number.POSITIVE_INFINITY,
  } as unknown as DatumType;
  const mapType = {
    key: { type: 'string' },
    value: { type: 'integer' },
    min: 0,
    max: Number.POSITIVE_INFINITY,
  } as unknown as DatumType;
  const sorted = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b);

  it('is datumDiff, for sets and maps, made by mutations or not', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 30 })),
        fc.array(fc.integer({ min: 0, max: 30 })),
        fc.boolean(),
        (a, b, mutated) => {
          const old: Datum = { keys: sorted(a) };
          const next: Datum = mutated ? unionDatums(old, { keys: sorted(b) }) : { keys: sorted(b) };
          expect(recordDiff(old, next, setType).keys).toEqual(datumDiff(old, next, setType).keys);
        },
      ),
      { numRuns: 300 },
    );
    const pairs = fc.uniqueArray(
      fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.integer({ min: 0, max: 3 })),
      {
        selector: (p) => p[0],
      },
    );
    const mapOf = (ps: [string, number][]): Datum => {
      const s = [...ps].sort((x, y) => (x[0] < y[0] ? -1 : 1));
      return { keys: s.map((p) => p[0]), values: s.map((p) => p[1]) };
    };
    fc.assert(
      fc.property(pairs, pairs, (a, b) => {
        const old = mapOf(a);
        const next = mapOf(b);
        const got = recordDiff(old, next, mapType);
        const want = datumDiff(old, next, mapType);
        expect([got.keys, got.values]).toEqual([want.keys, want.values]);
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * One value core for the replica and the in-memory server: the atom order
 * is ovsdb-server's (strings by UTF-8 bytes), and the replica's set and map
 * algebra (`applySetDiff`, `applyMapDiff`, the row codec) ends where the
 * server's sorted datums (parse → `sortDatum` → `unionDatums` /
 * `subtractDatums`, `datumDiff` for update2) end, element for element and in
 * the same order.
 *
 * Strings are drawn mostly from characters where UTF-16 and UTF-8 order
 * disagree: astral characters (surrogate pairs) against U+E000–U+FFFF.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSchema } from '../../../src/ovsdb/schema/schema.js';
import type { Atom, BaseType, TableSchema } from '../../../src/ovsdb/schema/schema-types.js';
import { compileColumnCodec, parseMapKey } from '../../../src/ovsdb/values/datum.js';
import { isDefaultDatum } from '../../../src/ovsdb/values/defaults.js';
import { toInt64 } from '../../../src/ovsdb/values/int64.js';
import {
  compareAtoms,
  compareStrings,
  isSortedDistinct,
  sortAtoms,
  sortedDistinct,
} from '../../../src/ovsdb/values/order.js';
import {
  applyMapDiff,
  applySetDiff,
  EMPTY_MAP,
  EMPTY_SET,
} from '../../../src/ovsdb/values/set-map.js';
import {
  type Datum,
  type DatumType,
  datumDiff,
  datumsEqual,
  subtractDatums,
  unionDatums,
} from '../../../src/ovsdb/values/sorted-datum.js';
import type { WireRow } from '../../../src/ovsdb/wire/wire.js';
import { compileRowCodec } from '../../../src/rows/codec.js';
import { applyRowUpdate2 } from '../../../src/rows/row-changes.js';
import { datumToWire, parseDatum } from '../../../src/server/engine/values.js';

/**
 * 64-bit integers in canonical form from a small pool (so sets overlap):
 * both sides of ±(2^53−1), the int64 bounds, small values.
 */
const int64Atom: fc.Arbitrary<Atom> = fc
  .constantFrom(
    -(2n ** 63n),
    -(2n ** 63n) + 1n,
    -(2n ** 53n) - 1n,
    -(2n ** 53n),
    -(2n ** 53n) + 1n,
    -1n,
    0n,
    1n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    2n ** 62n,
    2n ** 63n - 2n,
    2n ** 63n - 1n,
  )
  .map((b) => toInt64(b) as Atom);

/** UTF-8 byte order, the reference. */
function byteOrder(a: string, b: string): number {
  return Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** Characters around the places where UTF-16 and UTF-8 order disagree. */
const TRICKY = [
  'a',
  'b',
  'z',
  '~',
  '\u00e9',
  '\u07ff',
  '\u0800',
  '\ud7ff',
  '\ue000',
  '\uf8ff',
  '\ufb01',
  '\ufffd',
  '\uffff',
  '\u{10000}',
  '\u{1f600}',
  '\u{1f601}',
  '\u{10ffff}',
];

/** A valid (surrogate-pair-safe) string, mostly of {@link TRICKY} characters. */
const trickyString = fc.string({
  unit: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...TRICKY) },
    {
      weight: 1,
      // Never U+0000, which OVSDB strings cannot hold.
      arbitrary: fc
        .string({ unit: 'binary', minLength: 1, maxLength: 1 })
        .filter((c) => c !== '\u0000'),
    },
  ),
  maxLength: 6,
});

/** Strings sharing a long prefix, so that the comparison gets past its first units. */
const prefixed = fc
  .tuple(
    fc.constantFrom('', 'external_ids:', '\u{1f600}\u{1f600}\u{1f600}\u{1f600}x'),
    trickyString,
  )
  .map(([p, s]) => p + s);

const anyString = fc.oneof(trickyString, prefixed);

describe('one atom order', () => {
  it('compares strings as their UTF-8 bytes', () => {
    fc.assert(
      fc.property(anyString, anyString, (a, b) => {
        expect(compareStrings(a, b)).toBe(byteOrder(a, b));
        expect(compareAtoms(a, b)).toBe(byteOrder(a, b));
      }),
      { numRuns: 3000 },
    );
  });

  it('compares numbers numerically, booleans false first, UUIDs as strings', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.double({ noNaN: true }), (a, b) => {
        expect(Math.sign(compareAtoms(a, b))).toBe(a < b ? -1 : a > b ? 1 : 0);
      }),
    );
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), (a, b) => {
        expect(compareAtoms(a, b)).toBe(byteOrder(a, b));
      }),
    );
    expect(compareAtoms(false, true)).toBe(-1);
    expect(compareAtoms(true, false)).toBe(1);
    expect(compareAtoms(true, true)).toBe(0);
  });

  it('sorts lists in that order: plain strings by the default sort, anything else by compareAtoms', () => {
    // Plain strings (UUIDs, ASCII names) take the native sort; one unit ≥ U+D800 anywhere, or
    // a non-string, sends the whole list to compareAtoms. Both must give the UTF-8 byte order.
    const plain = fc.oneof(fc.uuid(), fc.string({ unit: 'grapheme-ascii', maxLength: 8 }));
    const lists = fc.oneof(
      fc.array(plain, { maxLength: 40 }),
      fc.array(fc.oneof(plain, anyString), { maxLength: 40 }),
    );
    fc.assert(
      fc.property(lists, (xs) => {
        const expected = [...xs].sort(byteOrder);
        expect(sortAtoms([...xs])).toEqual(expected);
        const distinct = expected.filter((x, i) => i === 0 || x !== expected[i - 1]);
        expect(sortedDistinct(xs)).toEqual(distinct);
        expect(isSortedDistinct(xs)).toBe(
          xs.length === distinct.length && xs.every((x, i) => x === distinct[i]),
        );
        // A list already sorted and distinct is returned as is.
        expect(sortedDistinct(distinct)).toBe(distinct);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.array(int64Atom, { maxLength: 30 }), (xs) => {
        const sorted = sortAtoms([...xs]);
        for (let i = 1; i < sorted.length; i++) {
          expect(compareAtoms(sorted[i - 1] as Atom, sorted[i] as Atom)).toBeLessThanOrEqual(0);
        }
      }),
    );
  });

  it('compares 64-bit integers (numbers and bigints in canonical form) by value', () => {
    fc.assert(
      fc.property(int64Atom, int64Atom, (a, b) => {
        const x = BigInt(a as number | bigint);
        const y = BigInt(b as number | bigint);
        expect(Math.sign(compareAtoms(a, b))).toBe(x < y ? -1 : x > y ? 1 : 0);
      }),
      { numRuns: 3000 },
    );
  });

  it('sorts "\\uFFFD" before "\\u{1F600}" (UTF-8 EF BF BD < F0 9F 98 80), on both sides', () => {
    const smile = '\u{1f600}';
    const fffd = '\ufffd';
    expect(compareAtoms(fffd, smile)).toBe(-1);
    expect([smile, fffd].sort(compareAtoms)).toEqual([fffd, smile]);
    // The server parses a set into its sorted datum...
    const type: DatumType = { key: { type: 'string' }, min: 0, max: Number.POSITIVE_INFINITY };
    expect(parseDatum(type, ['set', [smile, fffd]], undefined).keys).toEqual([fffd, smile]);
    // ...and the replica merges diffs into the same order, small sets and large.
    expect(applySetDiff(EMPTY_SET, [smile, fffd])).toEqual([fffd, smile]);
    expect(applySetDiff([fffd, smile], ['\ue000'])).toEqual(['\ue000', fffd, smile]);
    const many = Array.from({ length: 40 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    expect(applySetDiff(Object.freeze([...many, fffd]), [smile])).toEqual([...many, fffd, smile]);
  });
});

const STRING: BaseType = { type: 'string' };
const INTEGER: BaseType = { type: 'integer' };
const UNLIMITED = Number.POSITIVE_INFINITY;

/** One mutation-like step: elements (or pairs) inserted or deleted. */
type Step<T> = { readonly insert: boolean; readonly elements: readonly T[] };

function steps<T>(element: fc.Arbitrary<T>, maxLength: number): fc.Arbitrary<Step<T>[]> {
  return fc.array(fc.record({ insert: fc.boolean(), elements: fc.array(element, { maxLength }) }), {
    maxLength: 8,
  });
}

/** `xs` without repeats, first occurrence kept (a wire set may not repeat an element). */
function unique<T>(xs: readonly T[], key: (x: T) => unknown = (x) => x): T[] {
  const seen = new Set<unknown>();
  return xs.filter((x) => {
    const k = key(x);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The replica's set after the steps, built only by `applySetDiff` of decoded wire diffs. */
function replicaSet(base: BaseType, start: readonly Atom[], run: Step<Atom>[]): readonly Atom[] {
  const codec = compileColumnCodec('T', {
    name: 's',
    type: { key: base, min: 0, max: UNLIMITED, kind: 'set' },
    ephemeral: false,
    mutable: true,
  });
  const decode = (xs: readonly Atom[]) => codec.decode(codec.encode(xs)) as Atom[];
  let v: readonly Atom[] = applySetDiff(EMPTY_SET, decode(unique(start)));
  for (const step of run) {
    const present = new Set(v);
    // The elements whose membership the step flips, in the step's (unsorted) order.
    const flip = unique(step.elements).filter((x) => present.has(x) !== step.insert);
    v = Object.freeze(applySetDiff(v, decode(flip)) as Atom[]);
  }
  return v;
}

/** The server's set after the steps: parsed, then union (insert) or subtraction (delete). */
function serverSet(base: BaseType, start: readonly Atom[], run: Step<Atom>[]): Datum {
  const type: DatumType = { key: base, min: 0, max: UNLIMITED };
  const wire = (xs: readonly Atom[]) => [
    'set',
    unique(xs).map((x) => (base.type === 'uuid' ? ['uuid', x] : x)),
  ];
  let d = parseDatum(type, wire(start), undefined);
  for (const step of run) {
    const arg = parseDatum(type, wire(step.elements), undefined);
    d = step.insert ? unionDatums(d, arg) : subtractDatums(d, arg);
  }
  return d;
}

function checkSets(base: BaseType, atom: fc.Arbitrary<Atom>, size: number, numRuns: number) {
  fc.assert(
    fc.property(fc.array(atom, { maxLength: size, size: 'max' }), steps(atom, 12), (start, run) => {
      expect([...replicaSet(base, start, run)]).toEqual([...serverSet(base, start, run).keys]);
    }),
    { numRuns },
  );
}

describe('replica and server build the same sets', () => {
  it('of strings, small', () => checkSets(STRING, anyString, 12, 400));
  it('of strings, large (bisection, twins)', () => checkSets(STRING, anyString, 400, 40));
  it('of integers', () => checkSets(INTEGER, fc.integer({ min: -40, max: 40 }), 40, 300));
  it('of 64-bit integers', () => checkSets(INTEGER, int64Atom, 40, 300));
  it('of UUIDs', () => {
    const pool = fc.sample(fc.uuid(), 30);
    checkSets({ type: 'uuid' }, fc.constantFrom(...pool), 30, 200);
  });
});

type Pair = readonly [Atom, Atom];

/** The replica's map after the steps, built only by `applyMapDiff` of decoded wire diffs. */
function replicaMap(key: BaseType, start: readonly Pair[], run: Step<Pair>[]): [Atom, Atom][] {
  const codec = compileColumnCodec('T', {
    name: 'm',
    type: { key, value: STRING, min: 0, max: UNLIMITED, kind: 'map' },
    ephemeral: false,
    mutable: true,
  });
  const decode = (pairs: readonly Pair[]) =>
    codec.decode(['map', pairs.map(([k, v]) => [k, v])]) as Record<string, unknown>;
  const first = (pairs: readonly Pair[]) => unique(pairs, (p) => p[0]);
  let m: Readonly<Record<string, unknown>> = applyMapDiff(EMPTY_MAP, decode(first(start)));
  for (const step of run) {
    const diff: Pair[] = [];
    for (const [k, v] of first(step.elements)) {
      const ks = String(k);
      const has = Object.hasOwn(m, ks);
      // Insert: a new key is added, an existing one keeps its value (union).
      if (step.insert && !has) diff.push([k, v]);
      // Delete: a pair whose key and value both match is removed (subtraction).
      if (!step.insert && has && m[ks] === v) diff.push([k, v]);
    }
    m = applyMapDiff(m, decode(diff));
  }
  const entries = Object.entries(m).map(([k, v]): [Atom, Atom] => [parseMapKey(key, k), v as Atom]);
  return entries.sort((x, y) => compareAtoms(x[0], y[0]));
}

function serverMap(key: BaseType, start: readonly Pair[], run: Step<Pair>[]): [Atom, Atom][] {
  const type: DatumType = { key, value: STRING, min: 0, max: UNLIMITED };
  const wire = (pairs: readonly Pair[]) => ['map', unique(pairs, (p) => p[0])];
  let d = parseDatum(type, wire(start), undefined);
  for (const step of run) {
    const arg = parseDatum(type, wire(step.elements), undefined);
    d = step.insert ? unionDatums(d, arg) : subtractDatums(d, arg);
  }
  return d.keys.map((k, i): [Atom, Atom] => [k, d.values?.[i] as Atom]);
}

function checkMaps(key: BaseType, atom: fc.Arbitrary<Atom>, size: number, numRuns: number) {
  const pair = fc.tuple(atom, fc.constantFrom('x', 'y', '\u{1f600}', '\ufffd'));
  fc.assert(
    fc.property(fc.array(pair, { maxLength: size, size: 'max' }), steps(pair, 10), (start, run) => {
      // A JS object cannot keep key order: the replica's pairs are compared in atom order.
      expect(replicaMap(key, start, run)).toEqual(serverMap(key, start, run));
    }),
    { numRuns },
  );
}

describe('replica and server build the same maps', () => {
  it('with string keys', () => checkMaps(STRING, anyString, 20, 300));
  it('with integer keys', () => checkMaps(INTEGER, fc.integer({ min: -20, max: 20 }), 20, 200));
  it('with 64-bit integer keys', () => checkMaps(INTEGER, int64Atom, 20, 200));
});

const SCHEMA = parseSchema({
  name: 'Values',
  version: '1.0.0',
  tables: {
    T: {
      columns: {
        name: { type: 'string' },
        flag: { type: 'boolean' },
        ratio: { type: 'real' },
        opt: { type: { key: 'string', min: 0, max: 1 } },
        strs: { type: { key: 'string', min: 0, max: 'unlimited' } },
        ints: { type: { key: 'integer', min: 0, max: 'unlimited' } },
        refs: { type: { key: 'uuid', min: 0, max: 'unlimited' } },
        bools: { type: { key: 'boolean', min: 0, max: 2 } },
        reals: { type: { key: 'real', min: 1, max: 'unlimited' } },
        smap: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
        imap: { type: { key: 'integer', value: 'string', min: 0, max: 'unlimited' } },
        one: { type: { key: 'string', value: 'integer', min: 0, max: 1 } },
      },
    },
  },
});
const TABLE = SCHEMA.tables['T'] as TableSchema;
const COLUMNS = TABLE.columnNames;

/** A random wire value for each column (every column present). */
function wireRow(uuids: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const real = fc.integer({ min: -4000, max: 4000 }).map((n) => n / 8);
  const uuid = fc.constantFrom(...uuids).map((u) => ['uuid', u]);
  const set = <T>(a: fc.Arbitrary<T>, min: number, max: number, key = (x: T): unknown => x) =>
    fc
      .uniqueArray(a, { minLength: min, maxLength: max, selector: key, size: 'max' })
      .map((xs) => ['set', xs]);
  const map = <K>(k: fc.Arbitrary<K>, v: fc.Arbitrary<unknown>, max: number) =>
    fc
      .uniqueArray(fc.tuple(k, v), { maxLength: max, selector: (p) => p[0] })
      .map((ps) => ['map', ps]);
  return fc.record({
    name: anyString,
    flag: fc.boolean(),
    ratio: real,
    opt: set(anyString, 0, 1),
    strs: set(anyString, 0, 60),
    ints: set(fc.integer({ min: -50, max: 50 }), 0, 30),
    refs: set(uuid, 0, 20, (u) => u[1]),
    bools: set(fc.boolean(), 0, 2),
    reals: set(real, 1, 10),
    smap: map(anyString, anyString, 12),
    imap: map(fc.integer({ min: -20, max: 20 }), anyString, 12),
    one: map(anyString, fc.integer(), 1),
  });
}

type ServerRow = Record<string, Datum>;

function typeOf(column: string): DatumType {
  return TABLE.columns[column]?.type as DatumType;
}

function parseRow(wire: Record<string, unknown>): ServerRow {
  const row: ServerRow = {};
  for (const c of COLUMNS) row[c] = parseDatum(typeOf(c), wire[c], undefined);
  return row;
}

/** What the server's monitor sends for an insert: the columns that are not default. */
function initialOf(row: ServerRow): WireRow {
  const out: Record<string, unknown> = {};
  for (const c of COLUMNS) {
    const d = row[c] as Datum;
    if (!isDefaultDatum(d, typeOf(c))) out[c] = datumToWire(d, typeOf(c));
  }
  return out as WireRow;
}

/** What the server's monitor sends for a modify: each changed column's `datumDiff`. */
function modifyOf(old: ServerRow, next: ServerRow): WireRow {
  const out: Record<string, unknown> = {};
  for (const c of COLUMNS) {
    if (datumsEqual(old[c] as Datum, next[c] as Datum)) continue;
    out[c] = datumToWire(datumDiff(old[c] as Datum, next[c] as Datum, typeOf(c)), typeOf(c));
  }
  return out as WireRow;
}

describe('a replica row follows the server row through update2 diffs', () => {
  it('equals the server row after every change, sets in the same order', () => {
    const uuids = fc.sample(fc.uuid(), 25);
    const codec = compileRowCodec(TABLE, COLUMNS);
    const uuid = '6d6e1c9b-0f3a-4d6c-9d1a-3f1f0c1e2a3b';
    fc.assert(
      fc.property(fc.array(wireRow(uuids), { minLength: 1, maxLength: 6 }), (wires) => {
        const rows = wires.map(parseRow);
        let replica = applyRowUpdate2(codec, uuid, undefined, {
          insert: initialOf(rows[0] as ServerRow),
        });
        for (let i = 0; ; i++) {
          const server = rows[i] as ServerRow;
          // The server's row as the replica would decode a fresh dump of it.
          const dump: Record<string, unknown> = {};
          for (const c of COLUMNS) dump[c] = datumToWire(server[c] as Datum, typeOf(c));
          expect(replica).toEqual(codec.decodeRow(uuid, dump as WireRow));
          for (const c of COLUMNS) {
            const v = replica?.[c];
            if (Array.isArray(v)) expect(v).toEqual([...(server[c] as Datum).keys]);
          }
          const next = rows[i + 1];
          if (next === undefined) break;
          replica = applyRowUpdate2(codec, uuid, replica, { modify: modifyOf(server, next) });
        }
      }),
      { numRuns: 150 },
    );
  });
});

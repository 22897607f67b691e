/**
 * update2 diff semantics as pure functions (`rows/codec.ts`,
 * `ovsdb/values/set-map.ts`): set symmetric difference, map pair changes,
 * single-valued columns, defaults for omitted columns, structural sharing, and a
 * property test that applying the diff computed between two random values gives
 * the second one.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSchema } from '../../../src/ovsdb/schema/schema.js';
import { type Int64, toInt64 } from '../../../src/ovsdb/values/int64.js';
import { compareAtoms } from '../../../src/ovsdb/values/order.js';
import {
  applyMapDiff,
  applySetDiff,
  EMPTY_MAP,
  EMPTY_SET,
} from '../../../src/ovsdb/values/set-map.js';
import { stringifyJson } from '../../../src/ovsdb/wire/json-stringify.js';
import { parseJson } from '../../../src/ovsdb/wire/json-text.js';
import { compileRowCodec, ReplicaInconsistencyError } from '../../../src/rows/codec.js';
import {
  applyRowUpdate,
  applyRowUpdate2,
  columnDiff,
  rowDiff,
} from '../../../src/rows/row-changes.js';

const SCHEMA = parseSchema({
  name: 'D',
  version: '1.0.0',
  tables: {
    T: {
      columns: {
        s: { type: 'string' },
        i: { type: 'integer' },
        o: { type: { key: 'string', min: 0, max: 1 } },
        ob: { type: { key: 'boolean', min: 0, max: 1 } },
        ss: { type: { key: 'string', min: 0, max: 'unlimited' } },
        is: { type: { key: 'integer', min: 0, max: 'unlimited' } },
        us: {
          type: { key: { type: 'uuid', refTable: 'T', refType: 'weak' }, min: 0, max: 'unlimited' },
        },
        m: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
        im: { type: { key: 'integer', value: 'string', min: 0, max: 'unlimited' } },
        m1: { type: { key: 'string', value: 'integer', min: 0, max: 1 } },
      },
      isRoot: true,
    },
  },
});
const T = SCHEMA.tables['T']!;
const codec = compileRowCodec(T);
const U1 = '11111111-1111-1111-1111-111111111111';
const U2 = '22222222-2222-2222-2222-222222222222';
const U3 = '33333333-3333-3333-3333-333333333333';

describe('decodeRow (initial / insert)', () => {
  it('fills omitted columns with their defaults and shares empty values', () => {
    const row = codec.decodeRow(U1, { s: 'x' });
    expect(row).toEqual({
      _uuid: U1,
      _version: '00000000-0000-0000-0000-000000000000',
      i: 0,
      im: {},
      is: [],
      m: {},
      m1: {},
      o: null,
      ob: null,
      s: 'x',
      ss: [],
      us: [],
    });
    expect(row['ss']).toBe(EMPTY_SET);
    expect(row['m']).toBe(EMPTY_MAP);
    expect(Object.keys(row)[0]).toBe('_uuid');
  });

  it('decodes one-element sets sent as bare atoms, UUIDs and maps', () => {
    const row = codec.decodeRow(U1, {
      ss: 'a',
      us: ['uuid', U2.toUpperCase()],
      o: 'v',
      im: ['map', [[7, 'seven']]],
      ob: ['set', []],
    } as never);
    expect(row['ss']).toEqual(['a']);
    expect(row['us']).toEqual([U2]);
    expect(row['o']).toBe('v');
    expect(row['im']).toEqual({ '7': 'seven' });
    expect(row['ob']).toBeNull();
  });

  it('ignores columns that are not monitored', () => {
    const partial = compileRowCodec(T, ['s']);
    expect(partial.decodeRow(U1, { s: 'a', i: 5 } as never)).toEqual({ _uuid: U1, s: 'a' });
  });

  it('stores a __proto__ map key as an own property', () => {
    const row = codec.decodeRow(U1, { m: ['map', [['__proto__', 'x']]] } as never);
    const m = row['m'] as Record<string, string>;
    expect(Object.hasOwn(m, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
  });
});

describe('modify diffs (as ovsdb-server 3.1 sends them)', () => {
  const base = codec.decodeRow(U1, {
    s: 'x',
    i: 1,
    o: 'a',
    ss: ['set', ['a', 'c']],
    m: [
      'map',
      [
        ['k1', 'v1'],
        ['k2', 'v2'],
      ],
    ],
    m1: ['map', [['only', 1]]],
  } as never);

  it('single-valued columns (scalar, optional, map with max 1) take the new value', () => {
    const a = codec.applyModify(base, {
      s: 'y',
      i: 2,
      o: 'b',
      m1: ['map', [['other', 2]]],
    } as never);
    expect(a).toMatchObject({ s: 'y', i: 2, o: 'b', m1: { other: 2 } });
    const b = codec.applyModify(a, { o: ['set', []] } as never);
    expect(b['o']).toBeNull();
  });

  it('a set diff is the symmetric difference, and order stays ascending', () => {
    // "a" present → removed; "b" absent → added (between a and c).
    const a = codec.applyModify(base, { ss: ['set', ['a', 'b']] } as never);
    expect(a['ss']).toEqual(['b', 'c']);
    const b = codec.applyModify(a, { ss: ['set', ['0', 'd']] } as never);
    expect(b['ss']).toEqual(['0', 'b', 'c', 'd']);
    const c = codec.applyModify(b, { ss: ['set', ['0', 'b', 'c', 'd']] } as never);
    expect(c['ss']).toBe(EMPTY_SET);
  });

  it('a map diff adds new keys, removes same-value keys, updates others', () => {
    const a = codec.applyModify(base, {
      m: [
        'map',
        [
          ['k1', 'v1'],
          ['k2', 'changed'],
          ['k3', 'new'],
        ],
      ],
    } as never);
    expect(a['m']).toEqual({ k2: 'changed', k3: 'new' });
    const b = codec.applyModify(a, {
      m: [
        'map',
        [
          ['k2', 'changed'],
          ['k3', 'new'],
        ],
      ],
    } as never);
    expect(b['m']).toBe(EMPTY_MAP);
  });

  it('shares unchanged values with the old row and leaves the old row alone', () => {
    const a = codec.applyModify(base, { s: 'z' } as never);
    expect(a).not.toBe(base);
    expect(a['ss']).toBe(base['ss']);
    expect(a['m']).toBe(base['m']);
    expect(base['s']).toBe('x');
  });

  it('returns the same row when nothing changes', () => {
    expect(codec.applyModify(base, {} as never)).toBe(base);
    expect(codec.applyModify(base, { unknown_column: 5 } as never)).toBe(base);
  });
});

describe('applyRowUpdate2 / applyRowUpdate', () => {
  it('rejects a modify or delete of a missing row and an insert of a present one', () => {
    const row = codec.decodeRow(U1, {});
    expect(() => applyRowUpdate2(codec, U1, undefined, { modify: {} })).toThrow(
      ReplicaInconsistencyError,
    );
    expect(() => applyRowUpdate2(codec, U1, undefined, { delete: null })).toThrow(
      /delete of a row not in the replica/,
    );
    expect(() => applyRowUpdate2(codec, U1, row, { insert: {} })).toThrow(/already in the replica/);
    expect(applyRowUpdate2(codec, U1, row, { delete: null })).toBeUndefined();
    expect(applyRowUpdate2(codec, U1, row, { initial: { s: 'q' } })).toMatchObject({ s: 'q' });
  });

  it('plain update: new replaces the columns it has, no diff semantics', () => {
    const row = codec.decodeRow(U1, { ss: ['set', ['a', 'b']], s: 'x' } as never);
    const next = applyRowUpdate(codec, U1, row, {
      old: { ss: ['set', ['a', 'b']] },
      new: { ss: 'a', s: 'x' },
    } as never);
    expect(next?.['ss']).toEqual(['a']);
    expect(next?.['s']).toBe('x');
    expect(applyRowUpdate(codec, U1, row, { old: {} })).toBeUndefined();
  });
});

describe('set and map helpers', () => {
  it('applySetDiff keeps canonical order for numbers and UUIDs', () => {
    expect(applySetDiff([1, 5, 10], [2, 10, 20])).toEqual([1, 2, 5, 20]);
    expect(applySetDiff([U1, U3], [U2])).toEqual([U1, U2, U3]);
    const same = [1, 2];
    expect(applySetDiff(same, [])).toBe(same);
  });

  it('applyMapDiff compares values, not keys only', () => {
    expect(applyMapDiff({ a: '1' }, { a: '2' })).toEqual({ a: '2' });
    expect(applyMapDiff({ a: '1' }, { a: '1' })).toBe(EMPTY_MAP);
  });
});

const stringSet = fc
  .uniqueArray(fc.string({ maxLength: 4 }), { maxLength: 8 })
  .map((a) => a.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
const intSet = fc
  .uniqueArray(fc.integer({ min: -50, max: 50 }), { maxLength: 8 })
  .map((a) => a.sort((x, y) => x - y));
const stringMap = fc.dictionary(fc.string({ maxLength: 3 }), fc.constantFrom('a', 'b', 'c'), {
  maxKeys: 6,
});
const row = fc.record({
  s: fc.string({ maxLength: 5 }),
  i: fc.integer({ min: -100, max: 100 }),
  o: fc.option(fc.string({ maxLength: 3 }), { nil: null }),
  ss: stringSet,
  is: intSet,
  m: stringMap,
});

describe('property: applying columnDiff(before, after) to before gives after', () => {
  const sub = compileRowCodec(T, ['s', 'i', 'o', 'ss', 'is', 'm']);
  it('for random rows', () => {
    fc.assert(
      fc.property(row, row, (a, b) => {
        const before = sub.decodeRow(U1, encodeRow(a));
        const after = sub.decodeRow(U1, encodeRow(b));
        const diff = rowDiff(sub, before, after);
        const applied = diff === undefined ? before : sub.applyModify(before, diff);
        expect(sub.equalRows(applied, after)).toBe(true);
        expect(applied).toEqual(after);
        if (diff === undefined) expect(sub.equalRows(before, after)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('a set diff lists exactly the elements in one set only', () => {
    fc.assert(
      fc.property(stringSet, stringSet, (a, b) => {
        const d = columnDiff('T', T.columns['ss']!, a, b) as ['set', string[]] | undefined;
        const expected = [
          ...a.filter((x) => !b.includes(x)),
          ...b.filter((x) => !a.includes(x)),
        ].sort();
        if (expected.length === 0) expect(d).toBeUndefined();
        else expect([...d![1]].sort()).toEqual(expected);
      }),
    );
  });
});

/** 64-bit integers from a small pool (so sets overlap), canonical: bigints beyond ±(2^53−1). */
const int64 = fc
  .constantFrom(
    -(2n ** 63n),
    -(2n ** 53n) - 1n,
    -(2n ** 53n),
    -1n,
    0n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 53n + 1n,
    2n ** 63n - 1n,
  )
  .map((b) => toInt64(b) as Int64);
const row64 = fc.record({
  i: int64,
  // In the order ovsdb-server sends sets: ascending.
  is: fc.uniqueArray(int64, { maxLength: 8 }).map((xs) => xs.sort((x, y) => compareAtoms(x, y))),
  im: fc.uniqueArray(fc.tuple(int64, fc.constantFrom('a', 'b')), {
    maxLength: 5,
    selector: ([k]) => k,
  }),
});

describe('64-bit integers in rows', () => {
  const sub = compileRowCodec(T, ['i', 'is', 'im']);
  /** A row as the framer gives it: the wire text of the values, parsed exactly. */
  const decode = (r: { i: Int64; is: Int64[]; im: [Int64, string][] }) =>
    sub.decodeRow(
      U1,
      parseJson(stringifyJson({ i: r.i, is: ['set', r.is], im: ['map', r.im] })) as never,
    );

  it('decode exactly, in canonical order, and diffs between them apply exactly', () => {
    fc.assert(
      fc.property(row64, row64, (a, b) => {
        const before = decode(a);
        const after = decode(b);
        expect(before['i']).toBe(a.i);
        expect(before['is']).toEqual(a.is);
        const diff = rowDiff(sub, before, after);
        // The diff goes over the wire too.
        const wire = diff === undefined ? undefined : (parseJson(stringifyJson(diff)) as never);
        const applied = wire === undefined ? before : sub.applyModify(before, wire);
        expect(sub.equalRows(applied, after)).toBe(true);
        expect(applied).toEqual(after);
        expect(diff === undefined).toBe(sub.equalRows(before, after));
        // A plain `update` (old/new) gives the same row.
        const viaNew = applyRowUpdate(sub, U1, before, {
          old: {},
          new: parseJson(stringifyJson({ i: b.i, is: ['set', b.is], im: ['map', b.im] })) as never,
        });
        expect(viaNew).toEqual(after);
      }),
      { numRuns: 400 },
    );
  });

  it('never rounds: neighbours of 2^53 and the int64 limits stay distinct', () => {
    const row = decode({
      i: 2n ** 53n + 1n,
      is: [-(2n ** 63n), 2 ** 53 - 1, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n],
      im: [
        [2n ** 53n + 1n, 'a'],
        [2n ** 53n, 'b'],
      ],
    });
    expect(row['i']).toBe(2n ** 53n + 1n);
    expect(row['is']).toEqual([
      -(2n ** 63n),
      2 ** 53 - 1,
      2n ** 53n,
      2n ** 53n + 1n,
      2n ** 63n - 1n,
    ]);
    expect(row['im']).toEqual({ '9007199254740993': 'a', '9007199254740992': 'b' });
  });
});

function encodeRow(r: {
  s: string;
  i: number;
  o: string | null;
  ss: string[];
  is: number[];
  m: Record<string, string>;
}): never {
  return {
    s: r.s,
    i: r.i,
    o: r.o === null ? ['set', []] : r.o,
    ss: ['set', r.ss],
    is: ['set', r.is],
    m: ['map', Object.entries(r.m)],
  } as never;
}

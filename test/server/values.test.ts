/**
 * The set and map operations of the sorted datums
 * (`ovsdb/values/sorted-datum.ts`) against plain reference versions written
 * element by element: union (existing map keys keep their value), subtraction
 * (by key, or by key and value), and the added/removed split the commit uses for
 * reference counts. Datums are sorted with distinct keys, as the engine keeps
 * them.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Atom } from '../../src/ovsdb/schema/schema-types.js';
import { compareAtoms } from '../../src/ovsdb/values/order.js';
import {
  addedRemoved,
  type Datum,
  findKey,
  subtractDatums,
  unionDatums,
} from '../../src/ovsdb/values/sorted-datum.js';

/** Keys from a small alphabet (so that datums overlap), including surrogate-pair strings. */
const stringKey = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'Z', 'é', '😀', 'aa', '');
const intKey = fc.integer({ min: -6, max: 6 });
const value = fc.constantFrom('x', 'y', 'z');

function makeDatum(entries: readonly [Atom, Atom][], isMap: boolean): Datum {
  const byKey = new Map<Atom, Atom>();
  for (const [k, v] of entries) if (!byKey.has(k)) byKey.set(k, v);
  const keys = [...byKey.keys()].sort(compareAtoms);
  return isMap ? { keys, values: keys.map((k) => byKey.get(k) as Atom) } : { keys };
}

function datumArb(key: fc.Arbitrary<Atom>, isMap: boolean, maxLength = 12): fc.Arbitrary<Datum> {
  return fc
    .array(fc.tuple(key, value), { maxLength })
    .map((entries) => makeDatum(entries as [Atom, Atom][], isMap));
}

/** A datum's elements as `key` or `key=value` strings, in order. */
function elements(d: Datum): string[] {
  return d.keys.map((k, i) =>
    d.values === undefined ? JSON.stringify(k) : `${JSON.stringify(k)}=${d.values[i]}`,
  );
}

function refUnion(a: Datum, b: Datum): Datum {
  const entries: [Atom, Atom][] = a.keys.map((k, i) => [k, a.values?.[i] ?? '']);
  for (let i = 0; i < b.keys.length; i++) {
    const k = b.keys[i] as Atom;
    if (!a.keys.includes(k)) entries.push([k, b.values?.[i] ?? '']);
  }
  return makeDatum(entries, a.values !== undefined);
}

function refSubtract(a: Datum, b: Datum): Datum {
  const withValues = a.values !== undefined && b.values !== undefined;
  const entries: [Atom, Atom][] = [];
  for (let i = 0; i < a.keys.length; i++) {
    const k = a.keys[i] as Atom;
    const j = b.keys.indexOf(k);
    const gone = j >= 0 && (!withValues || b.values?.[j] === a.values?.[i]);
    if (!gone) entries.push([k, a.values?.[i] ?? '']);
  }
  return makeDatum(entries, a.values !== undefined);
}

function check(isMap: boolean, key: fc.Arbitrary<Atom>, maxLength?: number): void {
  fc.assert(
    fc.property(datumArb(key, isMap, maxLength), datumArb(key, isMap, maxLength), (a, b) => {
      const u = unionDatums(a, b);
      expect(elements(u)).toEqual(elements(refUnion(a, b)));
      expect(u.values !== undefined).toBe(isMap);
      expect(elements(subtractDatums(a, b))).toEqual(elements(refSubtract(a, b)));
      const { added, removed } = addedRemoved(a, b);
      // Comparing whole pairs: a map value change is one removal and one addition.
      expect(elements(added)).toEqual(elements(refSubtract(b, a)));
      expect(elements(removed)).toEqual(elements(refSubtract(a, b)));
      for (const k of b.keys) expect(findKey(u, k)).toBeGreaterThanOrEqual(0);
    }),
    { numRuns: 400 },
  );
}

describe('datum union, subtraction and added/removed', () => {
  it('match the reference on string sets', () => check(false, stringKey));
  it('match the reference on integer sets', () => check(false, intKey));
  it('match the reference on string maps', () => check(true, stringKey));
  it('match the reference on integer-keyed maps', () => check(true, intKey));

  it('match the reference on large sets with many additions', () => {
    const many = fc.integer({ min: 0, max: 400 });
    check(false, many, 150);
  });

  it('return the first datum itself when nothing changes', () => {
    const a: Datum = { keys: ['a', 'c', 'e'] };
    expect(unionDatums(a, { keys: ['c'] })).toBe(a);
    expect(unionDatums(a, { keys: [] })).toBe(a);
    expect(subtractDatums(a, { keys: ['b', 'd'] })).toBe(a);
    const m: Datum = { keys: ['a'], values: ['x'] };
    expect(subtractDatums(m, { keys: ['a'], values: ['y'] })).toBe(m);
    expect(subtractDatums(m, { keys: ['a'] })).toEqual({ keys: [], values: [] });
  });

  it('keep the existing value of a map key on union', () => {
    const u = unionDatums(
      { keys: ['a', 'c'], values: ['1', '3'] },
      { keys: ['a', 'b', 'd'], values: ['9', '2', '4'] },
    );
    expect(u).toEqual({ keys: ['a', 'b', 'c', 'd'], values: ['1', '2', '3', '4'] });
  });
});

/**
 * The order of OVSDB atoms, as ovsdb-server sorts them (`ovsdb_atom_compare_3way`),
 * and the searches over sorted atom arrays built on it. Every sorted set and
 * map of ovnkit (the replica's rows, the in-memory server's datums, enums in
 * schemas and messages) is in this order.
 *
 * - integers and reals numerically (an integer beyond ±(2^53−1) is a
 *   `bigint`, compared exactly with numbers and bigints);
 * - `false` before `true`;
 * - strings and UUIDs by their UTF-8 bytes (`strcmp`), which is the order of
 *   their Unicode code points.
 *
 * JS compares strings by UTF-16 code units, which agrees with code point
 * order except at a surrogate (part of a character above U+FFFF) against a
 * unit in U+E000–U+FFFF: UTF-16 puts the surrogate first, UTF-8 last. So `<`
 * is right unless the first unequal units of the two strings are such a pair
 * (both then ≥ U+D800), and the comparisons here use `<` whenever that is
 * ruled out cheaply.
 * @module
 */

import type { Atom } from '../schema/schema-types.js';

/** A UTF-16 unit at which `<` may disagree with code point order: only a string with one can sort differently. */
const HIGH_UNIT = /[\uD800-\uFFFF]/;

/** How many leading units {@link compareStrings} compares one by one before using `<`. */
const HEAD = 16;

/** The order of two unequal UTF-16 units found at the first difference of two strings. */
function compareUnits(x: number, y: number): number {
  if (x >= 0xd800 && y >= 0xd800) {
    const xs = x <= 0xdfff;
    if (xs !== y <= 0xdfff) return xs ? 1 : -1;
  }
  return x < y ? -1 : 1;
}

/** {@link compareStrings} from unit `from` on, where the two strings agree before it. */
function compareFrom(a: string, b: string, from: number): number {
  const n = Math.min(a.length, b.length);
  let i = from;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i < n) return compareUnits(a.charCodeAt(i), b.charCodeAt(i));
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/**
 * Three-way comparison of two strings by their UTF-8 bytes, as ovsdb-server
 * orders strings and UUIDs (equivalently: by Unicode code point).
 *
 * Strings that differ early (UUIDs, names) are decided on their first units;
 * past those, `<` decides unless both strings have a unit ≥ U+D800.
 */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  const head = Math.min(n, HEAD);
  for (let i = 0; i < head; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return compareUnits(x, y);
  }
  if (head === n) return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
  if (a === b) return 0;
  if (HIGH_UNIT.test(a) && HIGH_UNIT.test(b)) return compareFrom(a, b, head);
  return a < b ? -1 : 1;
}

/**
 * Three-way comparison of two atoms of the same type in ovsdb-server's
 * order: integers (numbers and bigints) and reals numerically, `false`
 * before `true`, strings (and UUIDs) by UTF-8 bytes ({@link compareStrings}).
 */
export function compareAtoms(a: Atom, b: Atom): number {
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  // Integers in canonical int64 form: `<` compares a number and a bigint by value, exactly.
  if (typeof a === 'bigint' || typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  return compareStrings(String(a), String(b));
}

/**
 * The first index `i >= from` of `xs` (sorted by {@link compareAtoms}) with
 * `xs[i] >= x`: binary search. A string `x` without units ≥ U+D800 is
 * compared with `<` inline (the common case: UUIDs, names).
 */
export function lowerBound(xs: readonly Atom[], x: Atom, from = 0): number {
  let lo = from;
  let hi = xs.length;
  if (typeof x === 'string' && !HIGH_UNIT.test(x)) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((xs[mid] as string) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareAtoms(xs[mid] as Atom, x) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * True when every element of `xs` is a string without units ≥ U+D800: then
 * JS's `<`, and the default `Array.prototype.sort`, agree with
 * {@link compareAtoms} (UUIDs, names: the common case).
 */
function plainStrings(xs: readonly Atom[]): boolean {
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    if (typeof x !== 'string' || HIGH_UNIT.test(x)) return false;
  }
  return true;
}

/**
 * Sort `xs` in place in ovsdb-server's order ({@link compareAtoms}); returns
 * it. Plain strings take the default sort (its native comparison is exact
 * for them, and about twice as fast as a comparator for 1,000 UUIDs).
 */
export function sortAtoms<T extends Atom>(xs: T[]): T[] {
  return plainStrings(xs) ? xs.sort() : xs.sort(compareAtoms);
}

/** True when `xs` is strictly ascending (sorted, no two elements equal). */
export function isSortedDistinct(xs: readonly Atom[]): boolean {
  return ascending(xs, plainStrings(xs));
}

/** {@link isSortedDistinct}, told whether `xs` holds {@link plainStrings} only. */
function ascending(xs: readonly Atom[], plain: boolean): boolean {
  if (plain) {
    for (let i = 1; i < xs.length; i++)
      if (!((xs[i - 1] as string) < (xs[i] as string))) return false;
    return true;
  }
  for (let i = 1; i < xs.length; i++)
    if (compareAtoms(xs[i - 1] as Atom, xs[i] as Atom) >= 0) return false;
  return true;
}

/** `xs` in ascending order without repeated elements: `xs` itself when it already is, else a sorted copy. */
export function sortedDistinct(xs: readonly Atom[]): readonly Atom[] {
  const plain = plainStrings(xs);
  if (ascending(xs, plain)) return xs;
  const out = plain ? [...xs].sort() : [...xs].sort(compareAtoms);
  let n = 0;
  for (let i = 0; i < out.length; i++) {
    if (n === 0 || (plain ? out[n - 1] !== out[i] : compareAtoms(out[n - 1]!, out[i]!) !== 0))
      out[n++] = out[i] as Atom;
  }
  out.length = n;
  return out;
}

/**
 * For each element of `b` in order (strictly ascending), the index of the
 * equal element of `a` (ascending), or `-(p + 1)` when there is none and `p`
 * is where it would be inserted. Positions only move forward, so the whole
 * pass costs O(|b| · log |a|) and never rescans `a`.
 * @param search - finds `b[j]`'s {@link lowerBound} in `a` from `from` on
 *   (default: `lowerBound` itself; a caller may search a faster index of `a`).
 */
export function matchSorted(
  a: readonly Atom[],
  b: readonly Atom[],
  search?: (j: number, from: number) => number,
): Int32Array {
  const out = new Int32Array(b.length);
  let from = 0;
  for (let j = 0; j < b.length; j++) {
    const k = b[j] as Atom;
    const i = search === undefined ? lowerBound(a, k, from) : search(j, from);
    if (i < a.length && (a[i] === k || compareAtoms(a[i] as Atom, k) === 0)) {
      out[j] = i;
      from = i + 1;
    } else {
      out[j] = -(i + 1);
      from = i;
    }
  }
  return out;
}

/**
 * A copy of `xs` edited as `edits` (from {@link matchSorted} of `xs` and
 * `ins`) says, in one pass: where `edits[j] >= 0` and `remove`, element
 * `edits[j]` of `xs` is left out; where `edits[j] < 0` and `ins` is given,
 * `ins[j]` is inserted at `-edits[j] - 1`. Other entries are ignored.
 * `size` is the length of the result.
 */
export function spliceSorted<T>(
  xs: readonly T[],
  edits: Int32Array,
  ins: readonly T[] | undefined,
  remove: boolean,
  size: number,
): T[] {
  const out: T[] = new Array(size);
  let i = 0;
  let o = 0;
  for (let j = 0; j < edits.length; j++) {
    const p = edits[j] as number;
    if (p >= 0) {
      if (!remove) continue;
      while (i < p) out[o++] = xs[i++] as T;
      i++;
    } else if (ins !== undefined) {
      const stop = -p - 1;
      while (i < stop) out[o++] = xs[i++] as T;
      out[o++] = ins[j] as T;
    }
  }
  while (i < xs.length) out[o++] = xs[i++] as T;
  return out;
}

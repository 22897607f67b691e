/**
 * Column values in sorted form, as ovsdb-server holds them, and the set and
 * map operations it performs on them: comparison, search, union,
 * subtraction, the elements two values differ by, and the `update2` diff.
 *
 * A {@link Datum} holds its keys (and, for maps, values) sorted by key in the
 * atom order of `order.ts`, with no duplicate keys. Atoms are JS numbers,
 * booleans and strings (UUIDs as lower-case strings), as in the datum codec.
 * Datums are never changed once built: an operation returns a new datum (or
 * its input, when nothing changes).
 * @module
 */

import type { Atom, BaseType } from '../schema/schema-types.js';
import {
  compareAtoms,
  isSortedDistinct,
  lowerBound,
  matchSorted,
  sortAtoms,
  spliceSorted,
} from './order.js';

/** One column value: sorted, duplicate-free keys and, for maps, the matching values. */
export interface Datum {
  readonly keys: readonly Atom[];
  /** Present exactly for map columns. */
  readonly values?: readonly Atom[] | undefined;
}

/**
 * The type a datum is parsed or checked against: a column's type, possibly
 * relaxed (other bounds, no value type) as conditions and mutations do.
 */
export interface DatumType {
  readonly key: BaseType;
  readonly value?: BaseType | undefined;
  readonly min: number;
  /** `Infinity` for unlimited. */
  readonly max: number;
}

function atomsEqual(a: Atom, b: Atom): boolean {
  return a === b || compareAtoms(a, b) === 0;
}

/** Three-way comparison of two datums: by size, then keys, then values. */
export function compareDatums(a: Datum, b: Datum): number {
  if (a === b) return 0;
  if (a.keys.length !== b.keys.length) return a.keys.length < b.keys.length ? -1 : 1;
  for (let i = 0; i < a.keys.length; i++) {
    const c = compareAtoms(a.keys[i] as Atom, b.keys[i] as Atom);
    if (c !== 0) return c;
  }
  if (a.values !== undefined && b.values !== undefined) {
    for (let i = 0; i < a.values.length; i++) {
      const c = compareAtoms(a.values[i] as Atom, b.values[i] as Atom);
      if (c !== 0) return c;
    }
  }
  return 0;
}

/** True when two datums of the same type are equal. */
export function datumsEqual(a: Datum, b: Datum): boolean {
  return compareDatums(a, b) === 0;
}

/** Index of `key` among `d`'s keys, or -1. */
export function findKey(d: Datum, key: Atom): number {
  const i = lowerBound(d.keys, key, 0);
  return i < d.keys.length && compareAtoms(key, d.keys[i] as Atom) === 0 ? i : -1;
}

/** A datum holding one UUID. */
export function uuidDatum(uuid: string): Datum {
  return { keys: [uuid] };
}

/** Whether element `i` of `a` (key, and value when `withValues`) is in `b`. */
function containsElement(b: Datum, a: Datum, i: number, withValues: boolean): boolean {
  const idx = findKey(b, a.keys[i] as Atom);
  if (idx < 0) return false;
  if (!withValues || a.values === undefined || b.values === undefined) return true;
  return atomsEqual(a.values[i] as Atom, b.values[idx] as Atom);
}

/** True when every element of `a` is in `b` (`ovsdb_datum_includes_all`). */
export function includesAll(a: Datum, b: Datum): boolean {
  if (a.keys.length > b.keys.length) return false;
  for (let i = 0; i < a.keys.length; i++) if (!containsElement(b, a, i, true)) return false;
  return true;
}

/** True when no element of `a` is in `b` (`ovsdb_datum_excludes_all`). */
export function excludesAll(a: Datum, b: Datum): boolean {
  for (let i = 0; i < a.keys.length; i++) if (containsElement(b, a, i, true)) return false;
  return true;
}

/**
 * `a ∪ b`; for maps, keys already in `a` keep their value (`ovsdb_datum_union`,
 * no replace). Both are sorted with distinct keys, so this is one merge:
 * O(|a| + |b| · log |a|), and `a` itself when `b` adds nothing.
 */
export function unionDatums(a: Datum, b: Datum): Datum {
  const m = b.keys.length;
  if (m === 0) return a;
  const pos = matchSorted(a.keys, b.keys);
  let added = 0;
  for (let j = 0; j < m; j++) if ((pos[j] as number) < 0) added++;
  if (added === 0) return a;
  const ak = a.keys;
  const av = a.values;
  const bv = b.values;
  const newKeys: Atom[] = [];
  const newValues: Atom[] | undefined = bv === undefined ? undefined : [];
  for (let j = 0; j < m; j++) {
    if ((pos[j] as number) >= 0) continue;
    newKeys.push(b.keys[j] as Atom);
    newValues?.push((bv as readonly Atom[])[j] as Atom);
  }
  const delta = (u: Datum): Datum => {
    const d = av === undefined ? { keys: [] } : { keys: [], values: [] };
    recordChange(u, a, { keys: newKeys, values: av === undefined ? undefined : newValues }, d);
    return u;
  };
  if (added === 1) {
    // One new element (the usual case): one copy with the element inserted.
    let j = 0;
    while ((pos[j] as number) >= 0) j++;
    const at = -(pos[j] as number) - 1;
    const keys = ak.toSpliced(at, 0, b.keys[j] as Atom);
    if (av === undefined) return delta({ keys });
    return delta({ keys, values: av.toSpliced(at, 0, (bv as readonly Atom[])[j] as Atom) });
  }
  const size = ak.length + added;
  const keys = spliceSorted(ak, pos, b.keys, false, size);
  if (av === undefined) return delta({ keys });
  return delta({ keys, values: spliceSorted(av, pos, bv, false, size) });
}

/**
 * `a − b` (`ovsdb_datum_subtract`): removes from `a` every element of `b`. When
 * `b` has values, a map pair is removed only if its value matches too. Both
 * are sorted with distinct keys; `a` itself is returned when nothing is removed.
 */
export function subtractDatums(a: Datum, b: Datum): Datum {
  const m = b.keys.length;
  if (m === 0 || a.keys.length === 0) return a;
  const withValues = b.values !== undefined && a.values !== undefined;
  const pos = matchSorted(a.keys, b.keys);
  let removed = 0;
  for (let j = 0; j < m; j++) {
    const i = pos[j] as number;
    if (i < 0) continue;
    if (
      withValues &&
      !atomsEqual(
        (a.values as readonly Atom[])[i] as Atom,
        (b.values as readonly Atom[])[j] as Atom,
      )
    ) {
      pos[j] = -1;
      continue;
    }
    removed++;
  }
  if (removed === 0) return a;
  const ak = a.keys;
  const av = a.values;
  const size = ak.length - removed;
  const keys = spliceSorted(ak, pos, undefined, true, size);
  const values = av === undefined ? undefined : spliceSorted(av, pos, undefined, true, size);
  const goneKeys: Atom[] = [];
  const goneValues: Atom[] | undefined = av === undefined ? undefined : [];
  for (let j = 0; j < m; j++) {
    const at = pos[j] as number;
    if (at < 0) continue;
    goneKeys.push(ak[at] as Atom);
    goneValues?.push((av as readonly Atom[])[at] as Atom);
  }
  const out: Datum = { keys, values };
  recordChange(out, a, av === undefined ? { keys: [] } : { keys: [], values: [] }, {
    keys: goneKeys,
    values: goneValues,
  });
  return out;
}

/** How a datum made by {@link unionDatums} or {@link subtractDatums} differs from the datum it was made from. */
interface DatumChange {
  /** The {@link datumId} of the datum it was made from (not the datum: that would keep every ancestor alive). */
  readonly base: number;
  readonly added: Datum;
  readonly removed: Datum;
}

/**
 * The change each union or subtraction result made, so that
 * {@link addedRemoved} of the two does not compare them element by element
 * (datums are immutable, so the record stays true).
 */
const changes = new WeakMap<Datum, DatumChange>();
const datumIds = new WeakMap<Datum, number>();
let lastDatumId = 0;

/** A number that identifies `d` for as long as it lives. */
function datumId(d: Datum): number {
  let id = datumIds.get(d);
  if (id === undefined) {
    id = ++lastDatumId;
    datumIds.set(d, id);
  }
  return id;
}

function recordChange(result: Datum, base: Datum, added: Datum, removed: Datum): void {
  changes.set(result, { base: datumId(base), added, removed });
}

/** Sets at least this long are searched through {@link uuidPrefixes} when they hold UUIDs. */
const PREFIX_MIN = 1024;

/**
 * For a long sorted array of UUIDs (the canonical lower-case text; more
 * exactly, strings that start with 8 lower-case hex digits, a dash and 4 hex
 * digits): the value of each one's first 12 hex digits, which orders them
 * as their text does. Built when a diff is first applied to such a set, and
 * made for each result along with it, so that the binary searches of the
 * next diff read this array instead of the strings it stands for (each in
 * another place of the heap: most of what a search costs in a large set).
 * `null`: the array holds something else.
 */
const uuidPrefixes = new WeakMap<readonly Atom[], Float64Array | null>();

/** The value of the first 12 hex digits of a UUID's text (see {@link uuidPrefixes}), or -1. */
function uuidPrefix(a: Atom): number {
  if (typeof a !== 'string' || a.length < 13 || a.charCodeAt(8) !== 0x2d) return -1;
  let v = 0;
  for (let i = 0; i < 13; i++) {
    if (i === 8) continue;
    const c = a.charCodeAt(i);
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** The {@link uuidPrefix} of every element of `xs`, or null when one has none. */
function prefixArray(xs: readonly Atom[]): Float64Array | null {
  const p = new Float64Array(xs.length);
  for (let i = 0; i < xs.length; i++) {
    const v = uuidPrefix(xs[i] as Atom);
    if (v < 0) return null;
    p[i] = v;
  }
  return p;
}

/** The {@link uuidPrefixes} of `xs` (made now if need be), or undefined when it holds anything else. */
function prefixesOf(xs: readonly Atom[]): Float64Array | undefined {
  let p = uuidPrefixes.get(xs);
  if (p === undefined) {
    p = prefixArray(xs);
    uuidPrefixes.set(xs, p);
  }
  return p ?? undefined;
}

/**
 * The {@link lowerBound} of `k` in `xs` from `from` on, for `xs` with
 * prefixes `p` and `k` with prefix `v`: a binary search over `p`, then by
 * text among the elements that share `v`.
 */
function lowerBoundByPrefix(
  xs: readonly Atom[],
  p: Float64Array,
  k: Atom,
  v: number,
  from: number,
): number {
  const n = xs.length;
  let lo = from;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((p[mid] as number) < v) lo = mid + 1;
    else hi = mid;
  }
  if (lo < n && p[lo] === v) {
    // Elements with the same prefix, [lo, end): the first of them not before `k`, by text.
    let end = lo + 1;
    hi = n;
    while (end < hi) {
      const mid = (end + hi) >>> 1;
      if ((p[mid] as number) <= v) end = mid + 1;
      else hi = mid;
    }
    while (lo < end) {
      const mid = (lo + end) >>> 1;
      if (compareAtoms(xs[mid] as Atom, k) < 0) lo = mid + 1;
      else end = mid;
    }
  }
  return lo;
}

/**
 * `old` with an `update2` diff applied (`ovsdb_datum_apply_diff_in_place`),
 * as a new datum: a key of `diff` (sorted, distinct) that `old` lacks is
 * added; one it has is removed, or, in a map (`isMap`) whose value differs,
 * given the diff's value (and the diff's key). One pass over `old` after a
 * binary search per diff key (in a long set of UUIDs, over their
 * {@link uuidPrefixes}); what was added and removed is recorded, so that
 * {@link addedRemoved} of `old` and the result costs nothing.
 */
export function applyDatumDiff(old: Datum, diff: Datum, isMap: boolean): Datum {
  const ok = old.keys;
  const ov = old.values ?? [];
  const dk = diff.keys;
  const dv = diff.values ?? [];
  const diffPrefixes =
    ok.length >= PREFIX_MIN && dk.length > 0 ? (prefixArray(dk) ?? undefined) : undefined;
  const prefixes = diffPrefixes !== undefined ? prefixesOf(ok) : undefined;
  const pos =
    prefixes !== undefined && diffPrefixes !== undefined
      ? matchSorted(ok, dk, (j, from) =>
          lowerBoundByPrefix(ok, prefixes, dk[j] as Atom, diffPrefixes[j] as number, from),
        )
      : matchSorted(ok, dk);
  const addK: Atom[] = [];
  const remK: Atom[] = [];
  const addV: Atom[] | undefined = isMap ? [] : undefined;
  const remV: Atom[] | undefined = isMap ? [] : undefined;
  let size = ok.length;
  for (let j = 0; j < dk.length; j++) {
    const p = pos[j] as number;
    if (p < 0) {
      addK.push(dk[j] as Atom);
      addV?.push(dv[j] as Atom);
      size++;
    } else if (isMap && !atomsEqual(ov[p] as Atom, dv[j] as Atom)) {
      // A new value: the pair is replaced (its old version removed, the new one added).
      remK.push(ok[p] as Atom);
      remV?.push(ov[p] as Atom);
      addK.push(dk[j] as Atom);
      addV?.push(dv[j] as Atom);
    } else {
      remK.push(ok[p] as Atom);
      remV?.push(ov[p] as Atom);
      size--;
    }
  }
  const keys: Atom[] = new Array(size);
  const values: Atom[] | undefined = isMap ? new Array(size) : undefined;
  // The result's prefixes, made along (its elements are the old ones and the diff's).
  const np = prefixes !== undefined ? new Float64Array(size) : undefined;
  let i = 0;
  let o = 0;
  for (let j = 0; j < dk.length; j++) {
    const p = pos[j] as number;
    const stop = p >= 0 ? p : -p - 1;
    if (np !== undefined) np.set((prefixes as Float64Array).subarray(i, stop), o);
    if (values === undefined) {
      while (i < stop) keys[o++] = ok[i++] as Atom;
    } else {
      while (i < stop) {
        keys[o] = ok[i] as Atom;
        values[o++] = ov[i++] as Atom;
      }
    }
    if (p < 0) {
      keys[o] = dk[j] as Atom;
      if (values !== undefined) values[o] = dv[j] as Atom;
      if (np !== undefined) np[o] = (diffPrefixes as Float64Array)[j] as number;
      o++;
    } else {
      if (values !== undefined && !atomsEqual(ov[p] as Atom, dv[j] as Atom)) {
        keys[o] = dk[j] as Atom;
        values[o] = dv[j] as Atom;
        if (np !== undefined) np[o] = (diffPrefixes as Float64Array)[j] as number;
        o++;
      }
      i++;
    }
  }
  if (np !== undefined) np.set((prefixes as Float64Array).subarray(i), o);
  if (values === undefined) {
    while (i < ok.length) keys[o++] = ok[i++] as Atom;
  } else {
    while (i < ok.length) {
      keys[o] = ok[i] as Atom;
      values[o++] = ov[i++] as Atom;
    }
  }
  if (np !== undefined) uuidPrefixes.set(keys, np);
  const out: Datum = values === undefined ? { keys } : { keys, values };
  recordChange(out, old, { keys: addK, values: addV }, { keys: remK, values: remV });
  return out;
}

/**
 * Elements of `b` not in `a` (added) and of `a` not in `b` (removed), comparing
 * whole pairs. One linear merge of the two sorted datums; shared elements are
 * usually the very same strings, so comparing them is cheap.
 */
export function addedRemoved(a: Datum, b: Datum): { added: Datum; removed: Datum } {
  const known = changes.get(b);
  if (known !== undefined && datumIds.get(a) === known.base) {
    return { added: known.added, removed: known.removed };
  }
  const ak = a.keys;
  const bk = b.keys;
  const av = a.values;
  const bv = b.values;
  const isMap = av !== undefined && bv !== undefined;
  const addK: Atom[] = [];
  const remK: Atom[] = [];
  const addV: Atom[] | undefined = b.values === undefined ? undefined : [];
  const remV: Atom[] | undefined = a.values === undefined ? undefined : [];
  let i = 0;
  let j = 0;
  // Skip the common prefix: after a mutation the two usually share most elements.
  const common = Math.min(ak.length, bk.length);
  if (isMap) {
    while (i < common && ak[i] === bk[i] && av[i] === bv[i]) i++;
  } else {
    while (i < common && ak[i] === bk[i]) i++;
  }
  j = i;
  while (i < ak.length && j < bk.length) {
    const x = ak[i] as Atom;
    const y = bk[j] as Atom;
    const c = x === y ? 0 : compareAtoms(x, y);
    if (c === 0) {
      if (isMap && !atomsEqual(av[i] as Atom, bv[j] as Atom)) {
        remK.push(x);
        remV?.push(av[i] as Atom);
        addK.push(y);
        addV?.push(bv[j] as Atom);
      }
      i++;
      j++;
    } else if (c < 0) {
      remK.push(x);
      remV?.push(av?.[i] as Atom);
      i++;
    } else {
      addK.push(y);
      addV?.push(bv?.[j] as Atom);
      j++;
    }
  }
  for (; i < ak.length; i++) {
    remK.push(ak[i] as Atom);
    remV?.push(av?.[i] as Atom);
  }
  for (; j < bk.length; j++) {
    addK.push(bk[j] as Atom);
    addV?.push(bv?.[j] as Atom);
  }
  return { added: { keys: addK, values: addV }, removed: { keys: remK, values: remV } };
}

/**
 * The `update2` `modify` diff from `old` to `next` (`ovsdb_datum_diff`). For a
 * column that holds at most one value, the new value. For a set, the elements
 * in exactly one of the two. For a map, the pairs whose key was removed (with
 * the old value), added, or given a new value (with the new value).
 */
export function datumDiff(old: Datum, next: Datum, type: DatumType): Datum {
  if (!(type.max > 1)) return next;
  const keys: Atom[] = [];
  const values: Atom[] | undefined = type.value === undefined ? undefined : [];
  const ok = old.keys;
  const nk = next.keys;
  let oi = 0;
  let ni = 0;
  while (oi < ok.length && ni < nk.length) {
    const c = compareAtoms(ok[oi] as Atom, nk[ni] as Atom);
    if (c < 0) {
      keys.push(ok[oi] as Atom);
      values?.push(old.values?.[oi] as Atom);
      oi++;
    } else if (c > 0) {
      keys.push(nk[ni] as Atom);
      values?.push(next.values?.[ni] as Atom);
      ni++;
    } else {
      if (values !== undefined) {
        const ov = old.values?.[oi] as Atom;
        const nv = next.values?.[ni] as Atom;
        if (compareAtoms(ov, nv) !== 0) {
          keys.push(nk[ni] as Atom);
          values.push(nv);
        }
      }
      oi++;
      ni++;
    }
  }
  for (; oi < ok.length; oi++) {
    keys.push(ok[oi] as Atom);
    values?.push(old.values?.[oi] as Atom);
  }
  for (; ni < nk.length; ni++) {
    keys.push(nk[ni] as Atom);
    values?.push(next.values?.[ni] as Atom);
  }
  return { keys, values };
}

function sortPairs(keys: Atom[], values: Atom[] | undefined): Datum {
  // Clients send what they keep sorted (OVS's IDL does): then nothing to do.
  if (isSortedDistinct(keys)) return values === undefined ? { keys } : { keys, values };
  if (values === undefined) {
    sortAtoms(keys);
    return { keys };
  }
  const idx = keys.map((_, i) => i);
  idx.sort((x, y) => {
    const c = compareAtoms(keys[x] as Atom, keys[y] as Atom);
    return c !== 0 ? c : compareAtoms(values[x] as Atom, values[y] as Atom);
  });
  return { keys: idx.map((i) => keys[i] as Atom), values: idx.map((i) => values[i] as Atom) };
}

/**
 * Sort keys (and values) and report whether two keys are equal, as
 * `ovsdb_datum_sort` does. Returns the sorted datum, or `undefined` on a
 * duplicate. For a set, `keys` itself is sorted in place.
 */
export function sortDatum(keys: Atom[], values: Atom[] | undefined): Datum | undefined {
  const d = sortPairs(keys, values);
  for (let i = 1; i < d.keys.length; i++) {
    if (atomsEqual(d.keys[i - 1] as Atom, d.keys[i] as Atom)) return undefined;
  }
  return d;
}

/**
 * The `update2` diff algebra on set and map values in the JS representation
 * (the datum codec's arrays and plain objects): applying a set diff
 * (symmetric difference) and a map diff (ovsdb-server(7) §4.1.14).
 *
 * Sets are kept in the atom order of `order.ts`, the order ovsdb-server
 * sends them in, and built with the same sorted-array primitives
 * (`matchSorted`, `spliceSorted`) as the sorted datums of `sorted-datum.ts`,
 * so a set a diff is applied to here has the elements, in the order, of the
 * server's datum it mirrors.
 * @module
 */

import type { Atom } from '../schema/schema-types.js';
import { hasKeys, setOwn } from '../wire/json.js';
import {
  compareAtoms,
  isSortedDistinct,
  matchSorted,
  sortAtoms,
  sortedDistinct,
  spliceSorted,
} from './order.js';

/** The shared value of every empty set (and of empty set-typed defaults). */
export const EMPTY_SET: readonly never[] = Object.freeze([]);

/** The shared value of every empty map. */
export const EMPTY_MAP: Readonly<Record<string, never>> = Object.freeze({});

/**
 * Sets (held by rows) known to be in canonical order: a set built by
 * {@link applySetDiff} from one of them is too, so the order of a large set
 * that changes often is checked only once.
 */
const sortedSets = new WeakSet<readonly Atom[]>();

/** Sets at least this long are searched by bisection (when known sorted). */
const BISECT_MIN = 16;

function isSorted(xs: readonly Atom[]): boolean {
  if (sortedSets.has(xs)) return true;
  if (!isSortedDistinct(xs)) return false;
  sortedSets.add(xs);
  return true;
}

/**
 * Apply a set diff (symmetric difference) to `current`, which is in
 * canonical (ascending) order; the result is too. Returns `current` itself
 * when `diff` is empty.
 *
 * A small diff against a large set (the common case: one port added to a
 * switch) costs a binary search per element and one array copy, not a hash
 * set of `current`.
 */
export function applySetDiff(current: readonly Atom[], diff: readonly Atom[]): readonly Atom[] {
  if (diff.length === 0) return current;
  if (current.length >= BISECT_MIN && isSorted(current)) return applySortedDiff(current, diff);
  const present = current.length > 8 ? new Set<Atom>(current) : undefined;
  const has = (x: Atom) => (present ? present.has(x) : current.includes(x));
  let removed: Set<Atom> | undefined;
  const added: Atom[] = [];
  for (const x of diff) {
    if (has(x)) {
      removed ??= new Set();
      removed.add(x);
    } else added.push(x);
  }
  const kept = removed ? current.filter((x) => !removed.has(x)) : current;
  if (added.length === 0) return kept.length === 0 ? EMPTY_SET : kept;
  sortAtoms(added);
  return mergeSorted(kept, added);
}

/**
 * {@link applySetDiff} for a `current` known to be sorted. (The replica holds
 * large sets as versions instead, see `rows/set-versions.ts`: a
 * copy per diff costs in proportion to the set.)
 */
function applySortedDiff(current: readonly Atom[], diff: readonly Atom[]): readonly Atom[] {
  // A diff never repeats an element, but stay correct if it does.
  const d = sortedDistinct(diff);
  let out: Atom[];
  if (d.length === 1) {
    const p = matchSorted(current, d)[0] as number;
    if (p >= 0 && current.length === 1) return EMPTY_SET;
    // `Array.from` copies a frozen array as fast as a plain one (`slice` and
    // `toSpliced` do not).
    out = Array.from(current);
    if (p >= 0) out.splice(p, 1);
    else out.splice(-p - 1, 0, d[0] as Atom);
  } else {
    out = sortedSymmetricDifference(current, d);
    if (out.length === 0) return EMPTY_SET;
  }
  sortedSets.add(out);
  return out;
}

/** The elements in exactly one of `a` and `b` (both sorted and distinct), as a new sorted array. */
export function sortedSymmetricDifference(a: readonly Atom[], b: readonly Atom[]): Atom[] {
  const pos = matchSorted(a, b);
  let both = 0;
  for (let j = 0; j < pos.length; j++) if ((pos[j] as number) >= 0) both++;
  return spliceSorted(a, pos, b, true, a.length - both + (b.length - both));
}

/** Merge two sorted lists. */
function mergeSorted(kept: readonly Atom[], added: readonly Atom[]): Atom[] {
  const out: Atom[] = [];
  let i = 0;
  let j = 0;
  while (i < kept.length && j < added.length) {
    if (compareAtoms(kept[i]!, added[j]!) <= 0) out.push(kept[i++]!);
    else out.push(added[j++]!);
  }
  while (i < kept.length) out.push(kept[i++]!);
  while (j < added.length) out.push(added[j++]!);
  return out;
}

/**
 * Apply a map diff to `current`: a key absent from `current` is added; a key
 * whose value equals the current one is removed; any other key takes the new
 * value. Returns `current` itself when `diff` is empty.
 */
export function applyMapDiff(
  current: Readonly<Record<string, unknown>>,
  diff: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  const keys = Object.keys(diff);
  if (keys.length === 0) return current;
  const out: Record<string, unknown> = { ...current };
  let removedAny = false;
  for (const k of keys) {
    const v = diff[k];
    if (Object.hasOwn(out, k) && out[k] === v) {
      delete out[k];
      removedAny = true;
    } else {
      setOwn(out, k, v);
    }
  }
  if (removedAny && !hasKeys(out)) return EMPTY_MAP;
  return out;
}

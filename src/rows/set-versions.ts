/**
 * Large sets in replica rows, versioned without a copy per change.
 *
 * A port add changes its switch's `ports` set by one element, and a replica
 * that copied the set for every change would pay in proportion to the set
 * (a 50,000-port group: about 300 µs and 400 KB per add). Instead, a set of
 * at least {@link LAZY_SET_MIN} elements that a diff changes becomes a chain
 * of {@link SetVersion}s: the newest version owns a private array that each
 * new diff edits in place, and each older version keeps only the diff that
 * leads to the next one (a set diff is a symmetric difference, so it is its
 * own inverse). A version's array is built when it is first read, once, from
 * the nearest newer version that has one; until then a change costs a
 * binary search and an in-place splice of one chunk of the newest version's
 * elements.
 *
 * Rows hold a version behind an accessor property (see `codec.ts`), so
 * readers see a plain (frozen) array.
 * @module
 */

import type { Atom } from '../ovsdb/schema/schema-types.js';
import { compareAtoms, lowerBound, sortedDistinct } from '../ovsdb/values/order.js';
import { applySetDiff, EMPTY_SET, sortedSymmetricDifference } from '../ovsdb/values/set-map.js';

/** Sets at least this long that a diff changes are versioned (smaller ones are copied). */
export const LAZY_SET_MIN = 256;

/** Chunks of a chunked set hold at most this many elements (split in two past it). */
const CHUNK_MAX = 512;

/**
 * A sorted set as sorted chunks, edited in place: adding or removing one
 * element moves at most one chunk's elements (a splice of a 50,000-element
 * array moves them all, and while the collector marks, each move is slow).
 */
class Chunked {
  private chunks: Atom[][];
  size: number;

  constructor(sorted: readonly Atom[]) {
    this.chunks = [];
    for (let i = 0; i < sorted.length; i += CHUNK_MAX / 2) {
      this.chunks.push(sorted.slice(i, i + CHUNK_MAX / 2));
    }
    this.size = sorted.length;
  }

  /** The elements as one new array. */
  flat(): Atom[] {
    const out: Atom[] = [];
    for (const c of this.chunks) for (let i = 0; i < c.length; i++) out.push(c[i] as Atom);
    return out;
  }

  /** The chunk that holds `x`, or where it would go: the first whose last element is ≥ `x`. */
  private chunkOf(x: Atom): number {
    const chunks = this.chunks;
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = chunks[mid] as Atom[];
      if (compareAtoms(c[c.length - 1] as Atom, x) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Add `x` when absent, remove it when present (one element of a set diff). */
  toggle(x: Atom): void {
    if (this.chunks.length === 0) {
      this.chunks.push([x]);
      this.size = 1;
      return;
    }
    const k = this.chunkOf(x);
    const c = this.chunks[k] as Atom[];
    const i = lowerBound(c, x);
    if (i < c.length && compareAtoms(c[i] as Atom, x) === 0) {
      c.splice(i, 1);
      this.size--;
      if (c.length === 0) this.chunks.splice(k, 1);
      return;
    }
    c.splice(i, 0, x);
    this.size++;
    if (c.length > CHUNK_MAX) this.chunks.splice(k + 1, 0, c.splice(CHUNK_MAX / 2));
  }
}

/** One version of a large set in canonical (ascending) order. */
export class SetVersion {
  /** The value, once built (frozen when {@link SetVersion.frozen}). */
  private value: readonly Atom[] | undefined;
  /** The newest version's private elements, edited in place by the next diff. */
  private own: Chunked | undefined;
  /** The next newer version, and the diff that turns this version into it. */
  private next: SetVersion | undefined;
  private diff: readonly Atom[] | undefined;
  /** Freeze the value when it is built (the replica's `freeze` option). */
  frozen = false;
  private constructor(own: Chunked) {
    this.own = own;
  }

  /**
   * A first version whose value is `value`, the set `sorted` (the same
   * elements, sorted and distinct: `value` itself when it already is).
   */
  static of(value: readonly Atom[], sorted: readonly Atom[]): SetVersion {
    const v = new SetVersion(new Chunked(sorted));
    v.value = value;
    return v;
  }

  /**
   * The version after the set diff `diff` (elements to add or remove), or
   * the shared empty set when nothing is left. The newest version hands its
   * elements on; applying a diff to an older version builds that version
   * first.
   */
  apply(diff: readonly Atom[]): SetVersion | readonly Atom[] {
    if (diff.length === 0) return this;
    const d = sortedDistinct(diff);
    const newest = this.own !== undefined;
    const base = this.own ?? new Chunked(this.read());
    let edited: Chunked;
    if (d.length <= 64 || d.length * 16 <= base.size) {
      // A small diff: edit in place, element by element.
      if (newest && this.value === undefined && d.length * 8 >= base.size) {
        // Cheaper to keep this version's value than to rebuild it later.
        this.keep(base.flat());
      }
      for (let j = 0; j < d.length; j++) base.toggle(d[j] as Atom);
      edited = base;
    } else {
      // A large one: one pass over the whole set; the old elements stay this version's.
      const flat = base.flat();
      if (newest && this.value === undefined) this.keep(flat);
      edited = new Chunked(sortedSymmetricDifference(flat, d));
    }
    // (An edit that empties the set kept this version's value above: the
    // diff then held every element.)
    const out = edited.size === 0 ? undefined : new SetVersion(edited);
    if (newest) {
      this.own = undefined;
      if (this.value === undefined) {
        this.next = out;
        this.diff = d;
      }
    }
    if (out === undefined) return EMPTY_SET;
    out.frozen = this.frozen;
    return out;
  }

  private keep(value: Atom[]): void {
    if (this.frozen) Object.freeze(value);
    this.value = value;
  }

  /** The value as an array (built once). */
  read(): readonly Atom[] {
    if (this.value !== undefined) return this.value;
    let value: Atom[];
    if (this.own !== undefined) value = this.own.flat();
    else {
      // Walk to the nearest newer version with elements, combining the diffs.
      const diffs: (readonly Atom[])[] = [];
      let v: SetVersion = this;
      while (v.value === undefined && v.own === undefined) {
        diffs.push(v.diff as readonly Atom[]);
        v = v.next as SetVersion;
      }
      const start = v.value ?? (v.own as Chunked).flat();
      let combined = diffs[0] as readonly Atom[];
      for (let i = 1; i < diffs.length; i++)
        combined = sortedSymmetricDifference(combined, diffs[i]!);
      value = sortedSymmetricDifference(start, combined);
      this.next = undefined;
      this.diff = undefined;
    }
    this.keep(value);
    return value;
  }
}

/**
 * The value after applying a set diff to `current` (an array, or a
 * {@link SetVersion} of a large set): a version when the set is large, else
 * `applySetDiff`'s copy.
 */
export function applyVersionedSetDiff(
  current: readonly Atom[] | SetVersion,
  diff: readonly Atom[],
): readonly Atom[] | SetVersion {
  if (current instanceof SetVersion) return current.apply(diff);
  if (current.length < LAZY_SET_MIN || diff.length === 0) return applySetDiff(current, diff);
  return SetVersion.of(current, sortedDistinct(current)).apply(diff);
}

// ---- rows holding versions ----------------------------------------------------

/** A row's versioned columns (a non-enumerable own property of the row). */
const VERSIONS = Symbol('ovnkit.setVersions');

/** Versioned columns by name. */
export type RowVersions = Readonly<Record<string, SetVersion>>;

/** The versioned columns of `row`, if it has any. */
export function rowVersions(row: object): RowVersions | undefined {
  return (row as { readonly [VERSIONS]?: RowVersions })[VERSIONS];
}

/** What {@link modifyVersioned} needs of a column: how a diff applies to its value. */
export interface DiffColumn {
  /** `row`: the current row, for a column whose value it keeps aside (see `row-codec.ts`). */
  applyDiff(current: unknown, diff: unknown, row?: Readonly<Record<string, unknown>>): unknown;
}

/** Per column name, the accessor of a versioned column (one getter shared by every row). */
const accessors = new Map<string, PropertyDescriptor>();

/** The accessor descriptor of versioned column `name`: reads the row's version of it. */
function versionedAccessor(name: string): PropertyDescriptor {
  let d = accessors.get(name);
  if (d === undefined) {
    d = {
      get(this: object): readonly Atom[] {
        const version = rowVersions(this)?.[name];
        if (version === undefined) {
          throw new TypeError(`${name}: this accessor reads a replica row's set, not this object`);
        }
        return version.read();
      },
      enumerable: true,
      configurable: true,
    };
    accessors.set(name, d);
  }
  return d;
}

/**
 * Apply an `update2` `modify` diff to `current`, holding each large set as a
 * version behind an accessor (read on first access). Returns `current`
 * itself when the diff changes nothing.
 */
export function modifyVersioned(
  current: Readonly<Record<string, unknown>>,
  diff: Readonly<Record<string, unknown>>,
  columns: Readonly<Record<string, DiffColumn>>,
): Readonly<Record<string, unknown>> {
  const versions = rowVersions(current);
  // The changed columns and their new values (a diff changes few).
  let names: string[] | undefined;
  let values: unknown[] | undefined;
  for (const k in diff) {
    const c = columns[k];
    if (c === undefined) continue;
    const before = versions?.[k] ?? current[k];
    const after = c.applyDiff(before, diff[k], current);
    if (after === before) continue;
    if (names === undefined || values === undefined) {
      names = [k];
      values = [after];
    } else {
      names.push(k);
      values.push(after);
    }
  }
  if (names === undefined || values === undefined) return current;
  const row: Record<string, unknown> = {};
  const held: Record<string, SetVersion> = Object.create(null);
  let versioned = false;
  // Own keys in order (the shape of the template every row starts from),
  // then any changed column the row did not have.
  for (const k in current) {
    const j = names.indexOf(k);
    versioned =
      putColumn(row, held, k, j >= 0 ? values[j] : (versions?.[k] ?? current[k])) || versioned;
  }
  for (let j = 0; j < names.length; j++) {
    const k = names[j] as string;
    if (!Object.hasOwn(row, k)) versioned = putColumn(row, held, k, values[j]) || versioned;
  }
  if (versioned) Object.defineProperty(row, VERSIONS, { value: held });
  return row;
}

/**
 * Set column `k` of a row being built to `v`: a version goes into `held`
 * behind the column's accessor (returns true), anything else is the value.
 */
function putColumn(
  row: Record<string, unknown>,
  held: Record<string, SetVersion>,
  k: string,
  v: unknown,
): boolean {
  if (!(v instanceof SetVersion)) {
    row[k] = v;
    return false;
  }
  held[k] = v;
  Object.defineProperty(row, k, versionedAccessor(k));
  return true;
}

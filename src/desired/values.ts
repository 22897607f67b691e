/**
 * Column values as a plan compares them: sets as sorted distinct atoms,
 * maps as records, integers canonical, so that equal values compare equal
 * whatever order or integer type they were written in.
 * @module
 */

import type { Atom, ColumnSchema } from '../ovsdb/schema/schema-types.js';
import { toInt64 } from '../ovsdb/values/int64.js';
import { compareAtoms, sortedDistinct } from '../ovsdb/values/order.js';
import { setOwn } from '../ovsdb/wire/json.js';

type Rec = Readonly<Record<string, unknown>>;

function atom(v: unknown): unknown {
  if (typeof v === 'bigint') return toInt64(v) ?? v;
  return v;
}

/** `v` as a sorted, distinct list of atoms (a set value, or `null`/one atom of an optional column). */
export function setAtoms(v: unknown): readonly Atom[] {
  const list = Array.isArray(v) ? v : v === null || v === undefined ? [] : [v];
  return sortedDistinct(list.map(atom) as Atom[]);
}

function atomsEqual(a: unknown, b: unknown): boolean {
  const x = atom(a);
  const y = atom(b);
  if (x === y) return true;
  if (
    (typeof x === 'number' || typeof x === 'bigint') &&
    (typeof y === 'number' || typeof y === 'bigint')
  ) {
    return BigInt(x as number | bigint) === BigInt(y as number | bigint);
  }
  return false;
}

/** True when two lists hold the same atoms in the same order: then they are the same set. */
function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when `a` and `b` are the same value of `column`. */
export function valuesEqual(column: ColumnSchema, a: unknown, b: unknown): boolean {
  if (a === b) return true;
  switch (column.type.kind) {
    case 'scalar':
      return atomsEqual(a, b);
    case 'optional':
      return (a ?? null) === null ? (b ?? null) === null : (b ?? null) !== null && atomsEqual(a, b);
    case 'set': {
      if (Array.isArray(a) && Array.isArray(b) && sameList(a, b)) return true;
      const x = setAtoms(a);
      const y = setAtoms(b);
      return x.length === y.length && x.every((e, i) => compareAtoms(e, y[i]!) === 0);
    }
    case 'map': {
      const x = (a ?? {}) as Rec;
      const y = (b ?? {}) as Rec;
      const kx = Object.keys(x);
      if (kx.length !== Object.keys(y).length) return false;
      return kx.every((k) => Object.hasOwn(y, k) && atomsEqual(x[k], y[k]));
    }
  }
}

/** The elements of set `to` missing from `from`, and those of `from` missing from `to`. */
export function setDiff(from: unknown, to: unknown): { insert: Atom[]; remove: Atom[] } {
  const a = setAtoms(from);
  const b = setAtoms(to);
  const insert: Atom[] = [];
  const remove: Atom[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length) remove.push(a[i++]!);
    else if (i >= a.length) insert.push(b[j++]!);
    else {
      const c = compareAtoms(a[i]!, b[j]!);
      if (c === 0) {
        i++;
        j++;
      } else if (c < 0) remove.push(a[i++]!);
      else insert.push(b[j++]!);
    }
  }
  return { insert, remove };
}

/** The map changes from `from` to `to`: keys to delete (gone or changed) and pairs to insert (new or changed). */
export function mapDiff(
  from: unknown,
  to: unknown,
): { remove: string[]; insert: Record<string, unknown> } {
  const a = (from ?? {}) as Rec;
  const b = (to ?? {}) as Rec;
  const remove: string[] = [];
  const insert: Record<string, unknown> = {};
  for (const k of Object.keys(a).sort()) {
    if (!Object.hasOwn(b, k) || !atomsEqual(a[k], b[k])) remove.push(k);
  }
  for (const k of Object.keys(b).sort()) {
    if (!Object.hasOwn(a, k) || !atomsEqual(a[k], b[k])) {
      setOwn(insert, k, b[k]);
    }
  }
  return { remove, insert };
}

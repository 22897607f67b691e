/**
 * The two datum operations `update2` notifications need, as ovsdb-server
 * performs them: whether a value is its column's default (`initial` and
 * `insert` leave such columns out) and the diff a `modify` carries.
 * @module
 */

import type { Atom } from '../../ovsdb/schema/schema-types.js';
import { compareAtoms, type Datum, type DatumType, defaultAtom } from './values.js';

/**
 * True when `d` is the default value of `type` (`ovsdb_datum_is_default`):
 * empty when `min` is 0, otherwise the single default atom (and value).
 */
export function isDefaultDatum(d: Datum, type: DatumType): boolean {
  if (type.min === 0) return d.keys.length === 0;
  if (d.keys.length !== 1) return false;
  if (!atomIsDefault(d.keys[0] as Atom, type.key.type)) return false;
  if (type.value === undefined) return true;
  return atomIsDefault(d.values?.[0] as Atom, type.value.type);
}

function atomIsDefault(a: Atom, type: DatumType['key']['type']): boolean {
  // -0 is a default real too (0.0 == -0.0).
  return type === 'real' ? a === 0 : a === defaultAtom(type);
}

/**
 * The `modify` diff from `old` to `new` (`ovsdb_datum_diff`). For a column
 * that holds at most one value, the new value. For a set, the elements in
 * exactly one of the two. For a map, the pairs whose key was removed (with
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

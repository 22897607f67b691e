/**
 * The default values of OVSDB (RFC 7047 §5.2.1, and what ovsdb-server stores
 * for a column an `insert` leaves out): the default atom of each atomic type,
 * and the default value of a column type, `min` default atoms. The datum
 * codec's `defaultValue` (the JS form) and the sorted form's
 * {@link defaultDatum} are both built from {@link defaultAtom}.
 * @module
 */

import type { Atom, AtomicType } from '../schema/schema-types.js';
import type { Datum, DatumType } from './sorted-datum.js';
import { ZERO_UUID } from './uuid.js';

/**
 * The default atom of an atomic type: `0` for integer and real, `false`,
 * `""`, or the all-zero UUID.
 */
export function defaultAtom(type: AtomicType): Atom {
  switch (type) {
    case 'integer':
    case 'real':
      return 0;
    case 'boolean':
      return false;
    case 'string':
      return '';
    case 'uuid':
      return ZERO_UUID;
  }
}

/** True when `a` is the default atom of `type` (for a real, `-0` is too: `0.0 == -0.0`). */
export function isDefaultAtom(a: Atom, type: AtomicType): boolean {
  return type === 'real' ? a === 0 : a === defaultAtom(type);
}

const EMPTY_SET_DATUM: Datum = { keys: [] };
const EMPTY_MAP_DATUM: Datum = { keys: [], values: [] };

/**
 * The default datum of a type: empty when `min` is 0, else one default atom
 * (or pair). Empty defaults are shared; datums are never changed.
 */
export function defaultDatum(type: DatumType): Datum {
  if (type.min === 0) return type.value === undefined ? EMPTY_SET_DATUM : EMPTY_MAP_DATUM;
  return {
    keys: [defaultAtom(type.key.type)],
    values: type.value === undefined ? undefined : [defaultAtom(type.value.type)],
  };
}

/**
 * True when `d` is the default value of `type` (`ovsdb_datum_is_default`):
 * empty when `min` is 0, otherwise the single default atom (and value).
 */
export function isDefaultDatum(d: Datum, type: DatumType): boolean {
  if (type.min === 0) return d.keys.length === 0;
  // `===` is isDefaultAtom: the default real is 0, and -0 === 0.
  if (d.keys.length !== 1 || d.keys[0] !== defaultAtom(type.key.type)) return false;
  return type.value === undefined || d.values?.[0] === defaultAtom(type.value.type);
}

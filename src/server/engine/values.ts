/**
 * The engine's internal form of OVSDB values and the operations ovsdb-server
 * performs on them: parsing wire JSON with the server's exact error wording and
 * check order, encoding back to wire JSON, comparison, union and difference.
 *
 * A {@link Datum} holds its keys (and, for maps, values) sorted by key with no
 * duplicate keys, as ovsdb-server keeps them. Atoms are JS numbers, booleans
 * and strings (UUIDs as lower-case strings), as in the datum codec.
 *
 * Whether an atom satisfies its base type's constraints is decided by the
 * shared validators (`validators.ts`); this module only words the violation as
 * ovsdb-server does.
 * @module
 */

import type { Atom, BaseType, ColumnSchema, ColumnType } from '../../ovsdb/schema/schema-types.js';
import { isUuid, newUuid } from '../../ovsdb/values/uuid.js';
import { columnValueProblem } from '../../ovsdb/values/validators.js';
import { OpError, syntaxError } from './op-error.js';
import { formatG15, roundReal } from './ovs-json.js';

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

/** A named-UUID symbol of one transaction (OVS's `ovsdb_symbol`). */
export interface UuidSymbol {
  uuid: string;
  /** True once an `insert` has claimed the name. */
  created: boolean;
}

/** The named-UUID symbols of one transaction. */
export type SymbolTable = Map<string, UuidSymbol>;

/** The all-zero UUID. */
export const ZERO_UUID_STRING = '00000000-0000-0000-0000-000000000000';

const UINT_MAX = 4294967295;
const ID_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True when `s` is an OVSDB `<id>`: a letter or `_`, then letters, digits or `_`. */
export function isId(s: unknown): s is string {
  return typeof s === 'string' && ID_RE.test(s);
}

/** The bound as OVS prints it (`UINT_MAX` for unlimited). */
function boundText(n: number): string {
  return n === Number.POSITIVE_INFINITY ? String(UINT_MAX) : String(n);
}

/** The datum type of a column. */
export function columnDatumType(type: ColumnType): DatumType {
  return { key: type.key, value: type.value, min: type.min, max: type.max };
}

// ---------------------------------------------------------------------------
// Atom comparison

function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-8 byte order is code point order; UTF-16 order differs only around
  // surrogates, so fall back to code points when either string has one.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      if (xs === ys) return x < y ? -1 : 1;
      return xs ? 1 : -1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Three-way comparison of two atoms of the same type, as ovsdb-server orders them. */
export function compareAtoms(a: Atom, b: Atom): number {
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  return compareStrings(String(a), String(b));
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

/** The first index `i >= from` of sorted `keys` with `keys[i] >= key` (binary search). */
function lowerBound(keys: readonly Atom[], key: Atom, from: number): number {
  let lo = from;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareAtoms(keys[mid] as Atom, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * For each element of `b` in order (sorted, distinct keys), the index of the
 * element of `a` with the same key, or `-(p + 1)` when there is none and `p`
 * is where the key would be inserted. Positions only move forward, so
 * the whole pass costs O(|b| · log |a|) and never rescans `a`.
 */
function matchKeys(a: Datum, b: Datum): Int32Array {
  const out = new Int32Array(b.keys.length);
  const ak = a.keys;
  let from = 0;
  for (let j = 0; j < b.keys.length; j++) {
    const k = b.keys[j] as Atom;
    const i = lowerBound(ak, k, from);
    if (i < ak.length && atomsEqual(ak[i] as Atom, k)) {
      out[j] = i;
      from = i + 1;
    } else {
      out[j] = -(i + 1);
      from = i;
    }
  }
  return out;
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
  const pos = matchKeys(a, b);
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
  const n = ak.length;
  const keys: Atom[] = new Array(n + added);
  const values: Atom[] | undefined = av === undefined ? undefined : new Array(n + added);
  let i = 0;
  let o = 0;
  for (let j = 0; j < m; j++) {
    const p = pos[j] as number;
    if (p >= 0) continue;
    const stop = -p - 1;
    for (; i < stop; i++, o++) {
      keys[o] = ak[i] as Atom;
      if (values !== undefined) values[o] = (av as readonly Atom[])[i] as Atom;
    }
    keys[o] = b.keys[j] as Atom;
    if (values !== undefined) values[o] = (bv as readonly Atom[])[j] as Atom;
    o++;
  }
  for (; i < n; i++, o++) {
    keys[o] = ak[i] as Atom;
    if (values !== undefined) values[o] = (av as readonly Atom[])[i] as Atom;
  }
  return delta(values === undefined ? { keys } : { keys, values });
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
  const pos = matchKeys(a, b);
  let removed = 0;
  for (let j = 0; j < m; j++) {
    const i = pos[j] as number;
    if (i < 0) {
      pos[j] = -1;
      continue;
    }
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
  const n = ak.length;
  const keys: Atom[] = new Array(n - removed);
  const values: Atom[] | undefined = av === undefined ? undefined : new Array(n - removed);
  let i = 0;
  let o = 0;
  for (let j = 0; j < m; j++) {
    const stop = pos[j] as number;
    if (stop < 0) continue;
    for (; i < stop; i++, o++) {
      keys[o] = ak[i] as Atom;
      if (values !== undefined) values[o] = (av as readonly Atom[])[i] as Atom;
    }
    i++;
  }
  for (; i < n; i++, o++) {
    keys[o] = ak[i] as Atom;
    if (values !== undefined) values[o] = (av as readonly Atom[])[i] as Atom;
  }
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

function sortPairs(keys: Atom[], values: Atom[] | undefined): Datum {
  if (values === undefined) {
    keys.sort(compareAtoms);
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
 * `ovsdb_datum_sort` does. Returns the sorted datum, or `undefined` on a duplicate.
 */
export function sortDatum(keys: Atom[], values: Atom[] | undefined): Datum | undefined {
  const d = sortPairs(keys, values);
  for (let i = 1; i < d.keys.length; i++) {
    if (atomsEqual(d.keys[i - 1] as Atom, d.keys[i] as Atom)) return undefined;
  }
  return d;
}

/** The default atom of an atomic type (RFC 7047 §5.2.1). */
export function defaultAtom(type: BaseType['type']): Atom {
  switch (type) {
    case 'integer':
    case 'real':
      return 0;
    case 'boolean':
      return false;
    case 'string':
      return '';
    case 'uuid':
      return ZERO_UUID_STRING;
  }
}

/** The default datum of a type: empty when `min` is 0, else one default atom (or pair). */
export function defaultDatum(type: DatumType): Datum {
  if (type.min === 0) return type.value === undefined ? EMPTY_SET : EMPTY_MAP;
  return {
    keys: [defaultAtom(type.key.type)],
    values: type.value === undefined ? undefined : [defaultAtom(type.value.type)],
  };
}

const EMPTY_SET: Datum = { keys: [] };
const EMPTY_MAP: Datum = { keys: [], values: [] };

/** A datum holding one UUID. */
export function uuidDatum(uuid: string): Datum {
  return { keys: [uuid] };
}

// ---------------------------------------------------------------------------
// Text forms used in error details

function isAsciiAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function stringNeedsQuotes(s: string): boolean {
  if (s.length === 0) return true;
  const c0 = s.charCodeAt(0);
  if (!isAsciiAlpha(c0) && c0 !== 95) return true;
  for (let i = 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isAsciiAlpha(c) && !(c >= 48 && c <= 57) && c !== 95 && c !== 45 && c !== 46) return true;
  }
  return s === 'true' || s === 'false';
}

function quoteString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c >= 0x20) out += s[i];
    else if (c === 0x08) out += '\\b';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0d) out += '\\r';
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

/** An atom as `ovsdb_atom_to_string` writes it. */
export function atomToString(atom: Atom, type: BaseType['type']): string {
  switch (type) {
    case 'integer':
      return String(atom);
    case 'real':
      return formatG15(atom as number);
    case 'boolean':
      return atom ? 'true' : 'false';
    case 'string':
      return stringNeedsQuotes(atom as string) ? quoteString(atom as string) : (atom as string);
    case 'uuid':
      return atom as string;
  }
}

/** A datum as `ovsdb_datum_to_string` writes it, e.g. `[1, 2]`, `{a=b}` or `x`. */
export function datumToString(d: Datum, type: DatumType): string {
  const isMap = type.value !== undefined;
  const bracket = type.max > 1 || d.keys.length === 0;
  const parts = d.keys.map((k, i) => {
    const ks = atomToString(k, type.key.type);
    if (!isMap) return ks;
    return `${ks}=${atomToString((d.values as readonly Atom[])[i] as Atom, (type.value as BaseType).type)}`;
  });
  const body = parts.join(', ');
  if (!bracket) return body;
  return isMap ? `{${body}}` : `[${body}]`;
}

/** A type in words, as `ovsdb_type_to_english` writes it (`set of up to 5 integers`). */
export function typeToEnglish(type: DatumType): string {
  const key = type.key.type;
  if (type.min === 1 && type.max === 1 && type.value === undefined) return key;
  let s = type.value === undefined ? 'set' : 'map';
  if (type.max === Number.POSITIVE_INFINITY) {
    s += type.min ? ` of ${type.min} or more` : ' of';
  } else if (type.min) {
    s += ` of ${type.min} to ${type.max}`;
  } else {
    s += ` of up to ${type.max}`;
  }
  if (type.value === undefined) s += ` ${key}s`;
  else s += ` (${key}, ${type.value.type}) pairs`;
  return s;
}

/** English list delimiter as OVS uses it: "", ", ", ", and " or " and ". */
export function englishListDelimiter(index: number, total: number): string {
  if (index === 0) return '';
  if (index < total - 1) return ', ';
  return total > 2 ? ', and ' : ' and ';
}

// ---------------------------------------------------------------------------
// Constraints

const scalarColumns = new WeakMap<BaseType, ColumnSchema>();

function scalarColumnOf(base: BaseType): ColumnSchema {
  let c = scalarColumns.get(base);
  if (c === undefined) {
    c = {
      name: '',
      type: { key: base, min: 1, max: 1, kind: 'scalar' },
      ephemeral: false,
      mutable: true,
    };
    scalarColumns.set(base, c);
  }
  return c;
}

function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Check one atom against its base type's constraints. The decision is the
 * shared validators'; the wording is ovsdb-server's. UUID constraints
 * (referential integrity) are checked at commit, not here.
 */
export function checkAtomConstraints(atom: Atom, base: BaseType): OpError | undefined {
  if (base.type === 'uuid' || base.type === 'boolean') {
    if (base.enum === undefined) return undefined;
  }
  if (columnValueProblem(scalarColumnOf(base), atom) === undefined) return undefined;
  return new OpError('constraint violation', constraintDetails(atom, base));
}

function constraintDetails(atom: Atom, base: BaseType): string {
  if (base.enum !== undefined) {
    const sorted = [...base.enum].sort(compareAtoms);
    const valid = datumToString(
      { keys: sorted },
      { key: base, min: 1, max: Number.POSITIVE_INFINITY },
    );
    return `${atomToString(atom, base.type)} is not one of the allowed values (${valid})`;
  }
  switch (base.type) {
    case 'integer':
    case 'real': {
      const lo = base.type === 'integer' ? base.minInteger : base.minReal;
      const hi = base.type === 'integer' ? base.maxInteger : base.maxReal;
      const f = (n: number): string => (base.type === 'integer' ? String(n) : formatG15(n));
      const x = f(atom as number);
      if (lo !== undefined) {
        if (hi !== undefined)
          return `${x} is not in the valid range ${f(lo)} to ${f(hi)} (inclusive)`;
        return `${x} is less than minimum allowed value ${f(lo)}`;
      }
      return `${x} is greater than maximum allowed value ${f(hi as number)}`;
    }
    case 'string': {
      const s = atom as string;
      const n = codePointLength(s);
      if (base.minLength !== undefined && n < base.minLength) {
        return `"${s}" length ${n} is less than minimum allowed length ${base.minLength}`;
      }
      if (base.maxLength !== undefined && n > base.maxLength) {
        return `"${s}" length ${n} is greater than maximum allowed length ${base.maxLength}`;
      }
      // Only a string that is not valid Unicode (a lone surrogate) is left.
      return 'not a valid UTF-8 string: lone UTF-16 surrogate';
    }
    default:
      return `${atomToString(atom, base.type)} violates a constraint`;
  }
}

/** Check every atom of `d` against `type`'s key and value constraints (keys first). */
export function checkDatumConstraints(d: Datum, type: DatumType): OpError | undefined {
  for (const k of d.keys) {
    const e = checkAtomConstraints(k, type.key);
    if (e !== undefined) return e;
  }
  if (type.value !== undefined && d.values !== undefined) {
    for (const v of d.values) {
      const e = checkAtomConstraints(v, type.value);
      if (e !== undefined) return e;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Parsing wire JSON

function unwrap(json: unknown, name: string, valueType: 'array' | 'string'): unknown {
  if (
    !Array.isArray(json) ||
    json.length !== 2 ||
    typeof json[0] !== 'string' ||
    json[0] !== name ||
    (valueType === 'array' ? !Array.isArray(json[1]) : typeof json[1] !== 'string')
  ) {
    throw syntaxError(json, undefined, `expected ["${name}", <${valueType}>]`);
  }
  return json[1];
}

function isUnwrappable(json: unknown, name: string): json is [string, string] {
  return (
    Array.isArray(json) && json.length === 2 && json[0] === name && typeof json[1] === 'string'
  );
}

function parseUuidAtom(json: unknown, symtab: SymbolTable | undefined): string {
  if (isUnwrappable(json, 'uuid')) {
    const s = json[1];
    if (!isUuid(s)) throw syntaxError(json, undefined, `"${s}" is not a valid UUID`);
    return s.toLowerCase();
  }
  if (symtab !== undefined && isUnwrappable(json, 'named-uuid')) {
    const name = json[1];
    if (!isId(name)) throw syntaxError(json, undefined, 'named-uuid string is not a valid <id>');
    let sym = symtab.get(name);
    if (sym === undefined) {
      sym = { uuid: newUuid(), created: false };
      symtab.set(name, sym);
    }
    return sym.uuid;
  }
  return unwrap(json, 'uuid', 'string') as never;
}

/**
 * Parse one wire atom of `base` and check its constraints
 * (`ovsdb_atom_from_json`). Named UUIDs are accepted when `symtab` is given.
 */
export function parseAtom(base: BaseType, json: unknown, symtab: SymbolTable | undefined): Atom {
  let atom: Atom | undefined;
  switch (base.type) {
    case 'integer':
      if (typeof json === 'number' && Number.isInteger(json)) {
        if (!Number.isSafeInteger(json)) {
          throw syntaxError(json, undefined, 'integer is outside the supported range ±(2^53−1)');
        }
        atom = json;
      }
      break;
    case 'real':
      if (typeof json === 'number' && Number.isFinite(json)) atom = json;
      break;
    case 'boolean':
      if (typeof json === 'boolean') atom = json;
      break;
    case 'string':
      if (typeof json === 'string') atom = json;
      break;
    case 'uuid':
      atom = parseUuidAtom(json, symtab);
      break;
  }
  if (atom === undefined) throw syntaxError(json, undefined, `expected ${base.type}`);
  const e = checkAtomConstraints(atom, base);
  if (e !== undefined) throw e;
  return atom;
}

/**
 * Parse a wire datum of `type` (`ovsdb_datum_from_json`): shape, size, atoms
 * and their constraints, then duplicates. Throws the {@link OpError}
 * ovsdb-server would report.
 */
export function parseDatum(type: DatumType, json: unknown, symtab: SymbolTable | undefined): Datum {
  const isMap = type.value !== undefined;
  if (isMap || (Array.isArray(json) && json.length > 0 && json[0] === 'set')) {
    const cls = isMap ? 'map' : 'set';
    const inner = unwrap(json, cls, 'array') as unknown[];
    const n = inner.length;
    if (n < type.min || n > type.max) {
      throw syntaxError(
        json,
        undefined,
        type.min === 1 && type.max === 1
          ? `${cls} must have exactly one member but ${n} are present`
          : `${cls} must have ${type.min} to ${boundText(type.max)} members but ${n} are present`,
      );
    }
    const keys: Atom[] = [];
    const values: Atom[] | undefined = isMap ? [] : undefined;
    for (const element of inner) {
      if (values !== undefined) {
        if (!Array.isArray(element) || element.length !== 2) {
          throw syntaxError(element, undefined, 'expected 2-element array');
        }
        keys.push(parseAtom(type.key, element[0], symtab));
        values.push(parseAtom(type.value as BaseType, element[1], symtab));
      } else {
        keys.push(parseAtom(type.key, element, symtab));
      }
    }
    const d = sortDatum(keys, values);
    if (d === undefined) {
      throw new OpError(
        'ovsdb error',
        isMap ? 'map contains duplicate key' : 'set contains duplicate',
      );
    }
    return d;
  }
  return { keys: [parseAtom(type.key, json, symtab)] };
}

// ---------------------------------------------------------------------------
// Encoding to wire JSON

/** One atom as wire JSON; reals rounded to 15 significant digits as the server sends them. */
export function atomToWire(atom: Atom, type: BaseType['type']): unknown {
  if (type === 'uuid') return ['uuid', atom];
  if (type === 'real') return roundReal(atom as number);
  return atom;
}

/** A datum as wire JSON (`ovsdb_datum_to_json`): a bare atom for one-element sets. */
export function datumToWire(d: Datum, type: DatumType): unknown {
  if (type.value !== undefined) {
    const vt = type.value.type;
    const vals = d.values ?? [];
    return [
      'map',
      d.keys.map((k, i) => [atomToWire(k, type.key.type), atomToWire(vals[i] as Atom, vt)]),
    ];
  }
  if (d.keys.length === 1) return atomToWire(d.keys[0] as Atom, type.key.type);
  return ['set', d.keys.map((k) => atomToWire(k, type.key.type))];
}

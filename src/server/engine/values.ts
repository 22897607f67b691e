/**
 * The engine's side of OVSDB values: parsing wire JSON into sorted datums with
 * ovsdb-server's exact error wording and check order, checking constraints
 * with its wording, encoding datums back to wire JSON as it sends them, and
 * the named-UUID symbols of a transaction.
 *
 * The values themselves, their order, defaults, set and map operations and
 * text forms are the value core's (`ovsdb/values`: `sorted-datum.ts`,
 * `order.ts`, `defaults.ts`, `ovs-text.ts`), shared with the client.
 *
 * Whether an atom satisfies its base type's constraints is decided by the
 * shared validators (`validators.ts`); this module only words the violation as
 * ovsdb-server does.
 * @module
 */

import type { Atom, AtomicType, BaseType, ColumnSchema } from '../../ovsdb/schema/schema-types.js';
import { INT64_MAX, INT64_MIN, type Int64, toInt64 } from '../../ovsdb/values/int64.js';
import { compareAtoms } from '../../ovsdb/values/order.js';
import { atomToString, datumToString, formatG15, roundReal } from '../../ovsdb/values/ovs-text.js';
import { type Datum, type DatumType, sortDatum } from '../../ovsdb/values/sorted-datum.js';
import { isUuid, newUuid } from '../../ovsdb/values/uuid.js';
import { columnValueProblem } from '../../ovsdb/values/value-checks.js';
import { OpError, syntaxError } from './op-error.js';

/** A named-UUID symbol of one transaction (OVS's `ovsdb_symbol`). */
export interface UuidSymbol {
  uuid: string;
  /** True once an `insert` has claimed the name. */
  created: boolean;
}

/** The named-UUID symbols of one transaction. */
export type SymbolTable = Map<string, UuidSymbol>;

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

// ---------------------------------------------------------------------------
// Text forms used in error details

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

/** `String.prototype.isWellFormed` (ES2024; in every Node this package supports). */
interface WellFormed {
  isWellFormed(): boolean;
}

/**
 * Check one atom against its base type's constraints. The decision is the
 * shared validators' (integers are checked here, over canonical int64); the wording is ovsdb-server's. UUID constraints
 * (referential integrity) are checked at commit, not here.
 */
export function checkAtomConstraints(atom: Atom, base: BaseType): OpError | undefined {
  if (base.type === 'uuid' || base.type === 'boolean') {
    if (base.enum === undefined) return undefined;
  } else if (base.type === 'string') {
    // Without an enum or length bounds, only what every string must be: valid
    // Unicode (no lone surrogate) without U+0000 (the validators' rules).
    if (
      base.enum === undefined &&
      base.minLength === undefined &&
      base.maxLength === undefined &&
      typeof atom === 'string' &&
      (atom as string & WellFormed).isWellFormed() &&
      !atom.includes('\u0000')
    )
      return undefined;
  } else if (base.type === 'integer') {
    // Decided here over canonical int64: numbers and bigints compare exactly, and equal integers are ===.
    const n = atom as Int64;
    const lo = base.minInteger;
    const hi = base.maxInteger;
    if (
      (base.enum === undefined || base.enum.includes(n)) &&
      (lo === undefined || n >= lo) &&
      (hi === undefined || n <= hi)
    )
      return undefined;
    return new OpError('constraint violation', constraintDetails(atom, base));
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
      // ovsdb-server prints a bound left at its default (INT64_MIN, INT64_MAX, ±DBL_MAX) as absent.
      const lo = base.type === 'integer' ? base.minInteger : base.minReal;
      const hi = base.type === 'integer' ? base.maxInteger : base.maxReal;
      const f = (n: number | bigint): string =>
        base.type === 'integer' ? String(n) : formatG15(n as number);
      const x = f(atom as number | bigint);
      if (lo !== undefined && lo !== INT64_MIN) {
        if (hi !== undefined && hi !== INT64_MAX)
          return `${x} is not in the valid range ${f(lo)} to ${f(hi)} (inclusive)`;
        return `${x} is less than minimum allowed value ${f(lo)}`;
      }
      return `${x} is greater than maximum allowed value ${f(hi as number | bigint)}`;
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

/** 2^63, the first magnitude beyond int64 (as a double, exact). */
const TWO_63 = 2 ** 63;

/**
 * The integer atom a wire value denotes, in canonical form, or undefined when
 * it is none. A safe integer or an in-range bigint (the framer's reading of a
 * long integer token) is one; so is an integral number below 2^63 in
 * magnitude, which only a token in exponent or fraction form (`1e16`,
 * `9.2e18`) gives and which ovsdb-server's JSON reader also takes as an
 * integer. Anything else, e.g. a token beyond int64 (a number), is not.
 */
function integerAtom(json: unknown): Int64 | undefined {
  if (typeof json === 'number') {
    if (Number.isSafeInteger(json)) return json === 0 ? 0 : json;
    if (Number.isInteger(json) && Math.abs(json) < TWO_63) return toInt64(BigInt(json));
    return undefined;
  }
  return typeof json === 'bigint' ? toInt64(json) : undefined;
}

/**
 * Parse one wire atom of `base` and check its constraints
 * (`ovsdb_atom_from_json`). Named UUIDs are accepted when `symtab` is given.
 */
export function parseAtom(base: BaseType, json: unknown, symtab: SymbolTable | undefined): Atom {
  let atom: Atom | undefined;
  switch (base.type) {
    case 'integer':
      atom = integerAtom(json);
      break;
    case 'real':
      if (typeof json === 'number') {
        if (Number.isFinite(json)) atom = json;
      } else if (typeof json === 'bigint') {
        // An integer token where a real is expected: converted as ovsdb-server's json_real() does.
        atom = Number(json);
      }
      break;
    case 'boolean':
      if (typeof json === 'boolean') atom = json;
      break;
    case 'string':
      if (typeof json === 'string') {
        // Never from a session (its reader drops the connection first, as OVS's
        // JSON reader does), but a value from elsewhere gets the same verdict.
        if (json.includes('\u0000')) {
          throw syntaxError(json, undefined, 'null bytes not supported in quoted strings');
        }
        atom = json;
      }
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
export function atomToWire(atom: Atom, type: AtomicType): unknown {
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

// ---------------------------------------------------------------------------
// Writing JSON text

const columnNameTexts = new Map<string, string>();

/** A member name (a column's, a table's) as a JSON string followed by a colon, made once per name. */
export function memberPrefix(column: string): string {
  let t = columnNameTexts.get(column);
  if (t === undefined) {
    t = `${JSON.stringify(column)}:`;
    if (columnNameTexts.size < 65536) columnNameTexts.set(column, t);
  }
  return t;
}

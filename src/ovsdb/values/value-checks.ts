/**
 * Constraint checks for OVSDB values in their JS representation (see `datum.ts`),
 * built from the schema at run time. This module is the one place where the
 * rules of a column type live: atomic type, `enum`, `minInteger`/`maxInteger`,
 * `minReal`/`maxReal`, `minLength`/`maxLength` (counted in Unicode code points,
 * as ovsdb-server counts them), set and map sizes (`min`/`max`), duplicate set
 * elements and UUID syntax; and that a string holds no U+0000, which OVS's
 * JSON reader refuses anywhere.
 *
 * Each check returns the broken rule as a sentence (`integer 40000 is above
 * maxInteger 32767`); {@link validateColumnValue} and {@link validateRow} throw
 * it as a {@link DatumError}. The same checks wrapped as validators (the
 * shape of a schema of the common validation libraries) are in
 * `validators.ts`, which re-exports the checks; this module imports no
 * validation library, so a program that only checks values (the server)
 * does not load one.
 * @module
 */

import type { Atom, BaseType, ColumnSchema, TableSchema } from '../schema/schema-types.js';
import { DatumError } from '../wire/errors.js';
import { isPlainObject } from '../wire/json.js';
import { stringifyJson } from '../wire/json-stringify.js';
import { integerReason, parseMapKey } from './datum.js';
import { compareInt64, INT64_MAX, INT64_MIN, type Int64 } from './int64.js';
import { isUuid } from './uuid.js';

/** Returns `undefined` when the value is valid, else the reason it is not. */
type Check = (value: unknown) => string | undefined;

const LONE_SURROGATE_RE = /\p{Cs}/u;
const PREVIEW_MAX = 60;

function show(v: unknown): string {
  let s: string;
  if (typeof v === 'string') s = JSON.stringify(v);
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
  else if (v === null) s = 'null';
  else if (v === undefined) s = 'undefined';
  else if (Array.isArray(v)) s = 'an array';
  else if (typeof v === 'object') s = 'an object';
  else s = `a ${typeof v}`;
  return s.length > PREVIEW_MAX ? `${s.slice(0, PREVIEW_MAX - 3)}...` : s;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number') return Number.isInteger(v) ? `integer ${v}` : `number ${v}`;
  if (typeof v === 'bigint') return `integer ${v}`;
  if (typeof v === 'string') return `string ${show(v)}`;
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

/** The length of `s` in Unicode code points. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * Why a string holding U+0000 is refused: OVS's JSON reader rejects the
 * escape, and ovsdb-server drops a connection that sends one.
 */
function nulReason(s: string): string {
  return `string ${show(s)} contains U+0000 (NUL), which OVSDB does not allow: ovsdb-server drops a connection that sends one`;
}

function enumCheck(base: BaseType, values: readonly Atom[]): Check {
  const allowed = new Set<Atom>(values);
  const list = values.map((v) => String(v)).join(', ');
  const typeCheck = typeOnlyCheck(base);
  const lower = base.type === 'uuid';
  return (v) => {
    const bad = typeCheck(v);
    if (bad !== undefined) return bad;
    const atom = (lower ? (v as string).toLowerCase() : v) as Atom;
    if (!allowed.has(atom)) return `${show(v)} is not one of ${list}`;
    return undefined;
  };
}

function typeOnlyCheck(base: BaseType): Check {
  switch (base.type) {
    case 'integer':
      return (v) => {
        if (typeof v === 'number') {
          if (Number.isSafeInteger(v)) return undefined;
          if (!Number.isInteger(v)) return `expected an integer, got ${kindOf(v)}`;
          return integerReason(v);
        }
        if (typeof v === 'bigint') {
          return v >= INT64_MIN && v <= INT64_MAX ? undefined : integerReason(v);
        }
        return `expected an integer, got ${kindOf(v)}`;
      };
    case 'real':
      return (v) => {
        if (typeof v !== 'number') return `expected a real, got ${kindOf(v)}`;
        if (!Number.isFinite(v)) return `real ${v} is not finite`;
        return undefined;
      };
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? undefined : `expected a boolean, got ${kindOf(v)}`);
    case 'string':
      return (v) => {
        if (typeof v !== 'string') return `expected a string, got ${kindOf(v)}`;
        if (LONE_SURROGATE_RE.test(v)) return `string ${show(v)} contains a lone UTF-16 surrogate`;
        if (v.includes('\u0000')) return nulReason(v);
        return undefined;
      };
    case 'uuid':
      return (v) => {
        if (typeof v !== 'string') return `expected a UUID string, got ${kindOf(v)}`;
        if (!isUuid(v)) return `${show(v)} is not a UUID`;
        return undefined;
      };
  }
}

function buildAtomCheck(base: BaseType): Check {
  if (base.enum !== undefined) return enumCheck(base, base.enum);
  const typeCheck = typeOnlyCheck(base);
  switch (base.type) {
    case 'integer': {
      const lo = base.minInteger;
      const hi = base.maxInteger;
      if (lo === undefined && hi === undefined) return typeCheck;
      // Exact: a number and a bigint compare as values.
      return (v) => {
        const bad = typeCheck(v);
        if (bad !== undefined) return bad;
        const n = v as Int64;
        if (lo !== undefined && compareInt64(n, lo) < 0)
          return `integer ${n} is below minInteger ${lo}`;
        if (hi !== undefined && compareInt64(n, hi) > 0)
          return `integer ${n} is above maxInteger ${hi}`;
        return undefined;
      };
    }
    case 'real': {
      const lo = base.minReal;
      const hi = base.maxReal;
      if (lo === undefined && hi === undefined) return typeCheck;
      return (v) => {
        const bad = typeCheck(v);
        if (bad !== undefined) return bad;
        const n = v as number;
        if (lo !== undefined && n < lo) return `real ${n} is below minReal ${lo}`;
        if (hi !== undefined && n > hi) return `real ${n} is above maxReal ${hi}`;
        return undefined;
      };
    }
    case 'string': {
      const lo = base.minLength;
      const hi = base.maxLength;
      if (lo === undefined && hi === undefined) return typeCheck;
      return (v) => {
        const bad = typeCheck(v);
        if (bad !== undefined) return bad;
        const s = v as string;
        // s.length counts UTF-16 units: an upper bound of the code points, and
        // at most twice their number. Count exactly only when it matters.
        if (lo !== undefined && s.length < lo) {
          return `string ${show(s)} (${codePoints(s)} code points) is shorter than minLength ${lo}`;
        }
        if (hi !== undefined && s.length > hi) {
          const n = codePoints(s);
          if (n > hi) return `string ${show(s)} (${n} code points) is longer than maxLength ${hi}`;
        }
        if (lo !== undefined && s.length < 2 * lo) {
          const n = codePoints(s);
          if (n < lo) return `string ${show(s)} (${n} code points) is shorter than minLength ${lo}`;
        }
        return undefined;
      };
    }
    case 'boolean':
    case 'uuid':
      return typeCheck;
  }
}

const atomChecks = new WeakMap<BaseType, Check>();

function atomCheck(base: BaseType): Check {
  let c = atomChecks.get(base);
  if (c === undefined) {
    c = buildAtomCheck(base);
    atomChecks.set(base, c);
  }
  return c;
}

function sizeRule(
  what: string,
  unit: string,
  n: number,
  min: number,
  max: number,
): string | undefined {
  if (n < min) return `${what} has ${n} ${unit}${n === 1 ? '' : 's'}, min ${min}`;
  if (n > max) return `${what} has ${n} ${unit}${n === 1 ? '' : 's'}, max ${max}`;
  return undefined;
}

/** Sets up to this long are checked for duplicates without a hash set. */
const SMALL_SET = 8;

function buildColumnCheck(column: ColumnSchema): Check {
  const { type } = column;
  const key = atomCheck(type.key);
  const { min, max } = type;
  switch (type.kind) {
    case 'scalar':
      return (v) =>
        v === null || v === undefined ? `a value is required, got ${kindOf(v)}` : key(v);
    case 'optional':
      return (v) => (v === null ? undefined : key(v));
    case 'set': {
      const norm =
        type.key.type === 'uuid' ? (a: unknown) => (a as string).toLowerCase() : (a: unknown) => a;
      return (v) => {
        if (!Array.isArray(v)) return `expected an array, got ${kindOf(v)}`;
        const size = sizeRule('set', 'element', v.length, min, max);
        if (size !== undefined) return size;
        // A hash set only for larger sets: a small one (the usual case, on
        // the path of every write) is searched instead.
        const seen = v.length > SMALL_SET ? new Set<unknown>() : undefined;
        for (let i = 0; i < v.length; i++) {
          const e: unknown = v[i];
          const bad = key(e);
          if (bad !== undefined) return `element ${i}: ${bad}`;
          const n = norm(e);
          if (seen === undefined) {
            for (let j = 0; j < i; j++) {
              if (norm(v[j]) === n) return `duplicate set element ${show(e)}`;
            }
          } else {
            if (seen.has(n)) return `duplicate set element ${show(e)}`;
            seen.add(n);
          }
        }
        return undefined;
      };
    }
    case 'map': {
      const valueType = type.value;
      if (valueType === undefined) throw new TypeError(`${column.name}: map without a value type`);
      const value = atomCheck(valueType);
      const uuidKeys = type.key.type === 'uuid';
      return (v) => {
        if (!isPlainObject(v)) return `expected a plain object, got ${kindOf(v)}`;
        const keys = Object.keys(v);
        const size = sizeRule('map', 'pair', keys.length, min, max);
        if (size !== undefined) return size;
        const seen = uuidKeys ? new Set<string>() : undefined;
        for (const k of keys) {
          let atom: Atom;
          try {
            atom = parseMapKey(type.key, k);
          } catch (err) {
            if (err instanceof DatumError) return err.reason;
            throw err;
          }
          const badKey = key(atom);
          if (badKey !== undefined) return `map key ${JSON.stringify(k)}: ${badKey}`;
          if (seen !== undefined) {
            if (seen.has(atom as string)) return `duplicate map key ${JSON.stringify(k)}`;
            seen.add(atom as string);
          }
          const badValue = value(v[k]);
          if (badValue !== undefined) return `value of map key ${JSON.stringify(k)}: ${badValue}`;
        }
        return undefined;
      };
    }
  }
}

const columnChecks = new WeakMap<ColumnSchema, Check>();

function columnCheck(column: ColumnSchema): Check {
  let c = columnChecks.get(column);
  if (c === undefined) {
    c = buildColumnCheck(column);
    columnChecks.set(column, c);
  }
  return c;
}

/**
 * Why `value` is not a valid JS value of `column`, or `undefined` when it is.
 * The same check as {@link validateColumnValue}, for callers that prefer not to catch.
 */
export function columnValueProblem(column: ColumnSchema, value: unknown): string | undefined {
  return columnCheck(column)(value);
}

/**
 * Check `value` (JS representation) against every rule of `column`'s type.
 * @param table - the table name, for the error.
 * @throws DatumError whose `reason` names the broken rule, e.g.
 *   `integer 40000 is above maxInteger 32767` or `set has 3 elements, max 2`.
 */
export function validateColumnValue(table: string, column: ColumnSchema, value: unknown): void {
  const reason = columnCheck(column)(value);
  if (reason !== undefined) throw new DatumError(table, column.name, value, reason);
}

/** Whether a row is written by an `insert` or an `update`. */
export type RowMode = 'insert' | 'update';

/** A column of a row that breaks a rule: the column (`''` for the row itself), its value and the rule. */
export interface RowProblem {
  readonly column: string;
  readonly value: unknown;
  readonly reason: string;
}

/**
 * The problems of a row written by `insert` or `update` (`all`: every one,
 * else the first): unknown columns, `_uuid` and `_version`, immutable
 * columns in an `update`, and each present column's value. Members whose
 * value is `undefined` count as absent.
 */
export function rowProblems(
  table: TableSchema,
  mode: RowMode,
  row: unknown,
  all: boolean,
): RowProblem[] {
  if (!isPlainObject(row)) {
    return [{ column: '', value: row, reason: `expected a row object, got ${kindOf(row)}` }];
  }
  const out: RowProblem[] = [];
  for (const name of Object.keys(row)) {
    const value = row[name];
    if (value === undefined) continue;
    const column = table.columns[name];
    let reason: string | undefined;
    if (column === undefined) reason = `table ${table.name} has no column ${name}`;
    else if (name === '_uuid' || name === '_version') {
      reason =
        mode === 'insert'
          ? `${name} cannot be written (an insert chooses its UUID with the operation's uuid option)`
          : `${name} cannot be written`;
    } else if (mode === 'update' && !column.mutable) reason = `column ${name} is immutable`;
    else reason = columnCheck(column)(value);
    if (reason !== undefined) {
      out.push({ column: name, value, reason });
      if (!all) break;
    }
  }
  return out;
}

/**
 * Check a row written by `insert` or `update`: every present column must be
 * valid; unknown columns and `_uuid` / `_version` are rejected; `update` also
 * rejects immutable columns (as `rowValidator` of `validators.ts` does).
 * @throws DatumError for the first problem found, naming table and column.
 */
export function validateRow(table: TableSchema, row: unknown, mode: RowMode): void {
  const [p] = rowProblems(table, mode, row, false);
  if (p !== undefined) {
    throw new DatumError(table.name, p.column === '' ? undefined : p.column, p.value, p.reason);
  }
}

const PLURAL: Readonly<Record<BaseType['type'], string>> = {
  integer: 'integers',
  real: 'reals',
  boolean: 'booleans',
  string: 'strings',
  uuid: 'uuids',
};

function range(lo: Int64 | undefined, hi: Int64 | undefined): string {
  if (lo !== undefined && hi !== undefined) return lo === hi ? ` ${lo}` : ` ${lo}–${hi}`;
  if (lo !== undefined) return ` ≥ ${lo}`;
  if (hi !== undefined) return ` ≤ ${hi}`;
  return '';
}

function describeBase(base: BaseType, plural: boolean): string {
  const name = plural ? PLURAL[base.type] : base.type;
  if (base.enum !== undefined) {
    return `${name} ∈ {${base.enum.map((a) => stringifyJson(a)).join(', ')}}`;
  }
  switch (base.type) {
    case 'integer':
      return name + range(base.minInteger, base.maxInteger);
    case 'real':
      return name + range(base.minReal, base.maxReal);
    case 'string': {
      const r = range(base.minLength, base.maxLength);
      return r === '' ? name : `${name} (length${r})`;
    }
    case 'uuid':
      if (base.refTable === undefined) return name;
      return `${name} → ${base.refTable}${base.refType === 'weak' ? ' (weak)' : ''}`;
    case 'boolean':
      return name;
  }
}

function bound(n: number): string {
  return n === Number.POSITIVE_INFINITY ? '∞' : String(n);
}

/**
 * A short human description of a column's type, as used in generated docs:
 * `integer 0–32767`, `optional string`, `set of 0..∞ strings`,
 * `map of string → string`, `optional uuid → Logical_Router_Port (weak)`,
 * `string ∈ {"allow", "drop"}`, `optional string (length ≤ 63)`.
 */
export function describeColumnType(column: ColumnSchema): string {
  const { type } = column;
  switch (type.kind) {
    case 'scalar':
      return describeBase(type.key, false);
    case 'optional':
      return `optional ${describeBase(type.key, false)}`;
    case 'set':
      return `set of ${type.min}..${bound(type.max)} ${describeBase(type.key, true)}`;
    case 'map': {
      const value = type.value === undefined ? '?' : describeBase(type.value, false);
      const size =
        type.min === 0 && type.max === Number.POSITIVE_INFINITY
          ? ''
          : ` (${type.min}..${bound(type.max)} pairs)`;
      return `map of ${describeBase(type.key, false)} → ${value}${size}`;
    }
  }
}

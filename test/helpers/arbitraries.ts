/**
 * fast-check arbitraries built from a parsed OVSDB schema: valid JS values of
 * any column (see `src/ovsdb/values/datum.ts` for the representation), whole rows,
 * and values just outside a column's constraints.
 *
 * @example
 * ```ts
 * fc.assert(fc.property(arbitraryValue(column), (v) => {
 *   validateColumnValue('ACL', column, v); // never throws
 * }));
 * ```
 * @module
 */

import fc from 'fast-check';
import type {
  Atom,
  BaseType,
  ColumnSchema,
  TableSchema,
} from '../../src/ovsdb/schema/schema-types.js';
import { defaultValue, mapKeyString } from '../../src/ovsdb/values/datum.js';
import {
  compareInt64,
  INT64_MAX,
  INT64_MIN,
  type Int64,
  int64BigInt,
  toInt64,
} from '../../src/ovsdb/values/int64.js';
import { columnValueProblem } from '../../src/ovsdb/values/validators.js';

/** Options shared by the value arbitraries. */
export interface ValueArbitraryOptions {
  /**
   * The UUIDs to generate for `uuid` atoms without an enum (default: any
   * lower-case UUID). Pass `fc.constantFrom(...existingRowUuids)` to make
   * references point at real rows; a set column then gets at most as many
   * elements as there are distinct UUIDs.
   */
  readonly uuid?: fc.Arbitrary<string> | undefined;
  /** Upper bound on generated set and map sizes when the column allows more (default 4). */
  readonly maxSize?: number | undefined;
}

const DEFAULT_MAX_SIZE = 4;
/** Keys that break naive map code: `__proto__` and inherited property names. */
const TRICKY_STRINGS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', ''];

/** Any one code point but U+0000. */
const NON_NUL_CHAR = fc
  .string({ unit: 'binary', minLength: 1, maxLength: 1 })
  .filter((c) => c !== '\u0000');

function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Any valid atom of `base`: right type, inside every constraint. */
export function arbitraryAtom(
  base: BaseType,
  options: ValueArbitraryOptions = {},
): fc.Arbitrary<Atom> {
  if (base.enum !== undefined) return fc.constantFrom(...base.enum);
  switch (base.type) {
    case 'integer':
      return arbitraryInteger(base.minInteger ?? INT64_MIN, base.maxInteger ?? INT64_MAX);
    case 'real': {
      const constraints: fc.DoubleConstraints = { noNaN: true, noDefaultInfinity: true };
      if (base.minReal !== undefined) constraints.min = base.minReal;
      if (base.maxReal !== undefined) constraints.max = base.maxReal;
      // -0 becomes 0 through JSON, so generate 0 instead.
      return fc.double(constraints).map((x) => (x === 0 ? 0 : x));
    }
    case 'boolean':
      return fc.boolean();
    case 'string': {
      const minLength = base.minLength ?? 0;
      const maxLength = Math.min(
        base.maxLength ?? Number.POSITIVE_INFINITY,
        Math.max(minLength, 12),
      );
      // Never U+0000: OVSDB strings cannot hold it (OVS's JSON reader refuses it).
      const plain = fc.string({ unit: NON_NUL_CHAR, minLength, maxLength });
      const tricky = TRICKY_STRINGS.filter((s) => {
        const n = codePointLength(s);
        return n >= minLength && n <= maxLength;
      });
      return tricky.length === 0
        ? plain
        : fc.oneof(
            { weight: 9, arbitrary: plain },
            { weight: 1, arbitrary: fc.constantFrom(...tricky) },
          );
    }
    case 'uuid':
      return options.uuid ?? fc.uuid();
  }
}

const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** Integers at which representations change: the int64 bounds and ±(2^53 ± 1). */
const INTEGER_EDGES: readonly bigint[] = [
  INT64_MIN,
  INT64_MIN + 1n,
  INT64_MAX - 1n,
  INT64_MAX,
  -(SAFE_MAX + 2n),
  -(SAFE_MAX + 1n),
  -SAFE_MAX,
  SAFE_MAX,
  SAFE_MAX + 1n,
  SAFE_MAX + 2n,
  -1n,
  0n,
  1n,
];

/**
 * Any integer in `[lo, hi]` in canonical int64 form (a `number` when safe, a
 * `bigint` beyond ±(2^53−1)). Within the safe range it is `fc.integer`;
 * wider ranges mix the whole range, the edges where the representation
 * changes (and the bounds themselves), and small values.
 */
export function arbitraryInteger(lo: Int64, hi: Int64): fc.Arbitrary<Int64> {
  const min = int64BigInt(lo);
  const max = int64BigInt(hi);
  if (typeof lo === 'number' && typeof hi === 'number') return fc.integer({ min: lo, max: hi });
  const canonical = (b: bigint): Int64 => toInt64(b) as Int64;
  const edges = [...INTEGER_EDGES, min, max].filter((b) => b >= min && b <= max);
  const smallMin = min > -1000n ? min : -1000n;
  const smallMax = max < 1000n ? max : 1000n;
  const parts: fc.WeightedArbitrary<bigint>[] = [
    { weight: 4, arbitrary: fc.bigInt({ min, max }) },
    { weight: 2, arbitrary: fc.constantFrom(...edges) },
  ];
  if (smallMin <= smallMax) {
    parts.push({ weight: 2, arbitrary: fc.bigInt({ min: smallMin, max: smallMax }) });
  }
  return fc.oneof(...parts).map(canonical);
}

/** How many distinct atoms `base` admits (`Infinity` when practically unbounded). */
function domainSize(base: BaseType): number {
  if (base.enum !== undefined) return base.enum.length;
  switch (base.type) {
    case 'boolean':
      return 2;
    case 'integer':
      return Number(
        int64BigInt(base.maxInteger ?? INT64_MAX) - int64BigInt(base.minInteger ?? INT64_MIN) + 1n,
      );
    case 'real':
      return base.minReal !== undefined && base.minReal === base.maxReal
        ? 1
        : Number.POSITIVE_INFINITY;
    case 'string':
      return base.maxLength === 0 ? 1 : Number.POSITIVE_INFINITY;
    case 'uuid':
      return Number.POSITIVE_INFINITY;
  }
}

/** The identity of an atom for uniqueness: UUIDs compare case-insensitively. */
function atomIdentity(base: BaseType): (a: Atom) => unknown {
  return base.type === 'uuid' ? (a) => (a as string).toLowerCase() : (a) => a;
}

function sizeBounds(
  column: ColumnSchema,
  options: ValueArbitraryOptions,
): { min: number; max: number } {
  const cap = options.maxSize ?? DEFAULT_MAX_SIZE;
  const { min, max, key } = column.type;
  const upper = Math.max(min, Math.min(max, cap, domainSize(key)));
  return { min, max: upper };
}

/** Build a map object from pairs; `__proto__` becomes an own property. */
function toMap(pairs: readonly (readonly [Atom, Atom])[]): Record<string, Atom> {
  const out: Record<string, Atom> = {};
  for (const [k, v] of pairs) {
    Object.defineProperty(out, mapKeyString(k), {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Any valid JS value of `column`: it passes `validateColumnValue` and
 * round-trips through the datum codec. Set and map sizes stay within the
 * column's `min`/`max`, capped at `options.maxSize`.
 */
export function arbitraryValue(
  column: ColumnSchema,
  options: ValueArbitraryOptions = {},
): fc.Arbitrary<unknown> {
  const { type } = column;
  const key = arbitraryAtom(type.key, options);
  switch (type.kind) {
    case 'scalar':
      return key;
    case 'optional':
      return fc.option(key, { nil: null });
    case 'set': {
      const { min, max } = sizeBounds(column, options);
      return fc.uniqueArray(key, {
        minLength: min,
        maxLength: max,
        selector: atomIdentity(type.key),
      });
    }
    case 'map': {
      const valueType = type.value;
      if (valueType === undefined) throw new TypeError(`${column.name}: map without a value type`);
      const { min, max } = sizeBounds(column, options);
      const keyId = atomIdentity(type.key);
      return fc
        .uniqueArray(fc.tuple(key, arbitraryAtom(valueType, options)), {
          minLength: min,
          maxLength: max,
          selector: ([k]) => mapKeyString(keyId(k) as Atom),
        })
        .map(toMap);
    }
  }
}

/** Which rows {@link arbitraryRow} generates. */
export type RowArbitraryMode = 'full' | 'insert' | 'update';

/**
 * Rows of `table` (declared columns only, never `_uuid`/`_version`):
 * - `full`: every column present;
 * - `insert`: any subset of columns, always including those whose default
 *   value would break a constraint (e.g. an enum scalar), so the server accepts it;
 * - `update`: any subset of the mutable columns.
 */
export function arbitraryRow(
  table: TableSchema,
  mode: RowArbitraryMode = 'full',
  options: ValueArbitraryOptions = {},
): fc.Arbitrary<Record<string, unknown>> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  for (const name of table.columnNames) {
    const column = table.columns[name];
    if (column === undefined) continue;
    if (mode === 'update' && !column.mutable) continue;
    shape[name] = arbitraryValue(column, options);
    if (mode === 'full') required.push(name);
    else if (mode === 'insert' && columnValueProblem(column, defaultValue(column)) !== undefined) {
      required.push(name);
    }
  }
  return fc.record(shape, { requiredKeys: required });
}

/** A value that breaks one rule of a column, and a fragment of the expected reason. */
export interface InvalidValue {
  /** The rule broken: `type`, `enum`, `minInteger`, `maxLength`, `max`, `duplicate`, ... */
  readonly rule: string;
  readonly value: unknown;
  /** A substring of the `DatumError` reason the validator must give. */
  readonly reason: string;
}

/** The neighbouring double of `x` in direction `dir`. */
function nextDouble(x: number, dir: 1 | -1): number {
  if (x === 0) return dir * Number.MIN_VALUE;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigInt64(0);
  buf.setBigInt64(0, x > 0 === dir > 0 ? bits + 1n : bits - 1n);
  return buf.getFloat64(0);
}

const OTHER_UUID = 'ffffffff-ffff-4fff-bfff-ffffffffffff';

/** Atoms of `base`'s type that break exactly one of its constraints. */
function invalidAtoms(base: BaseType): InvalidValue[] {
  const out: InvalidValue[] = [];
  if (base.enum !== undefined) {
    const values = base.enum;
    let outside: Atom | undefined;
    switch (base.type) {
      case 'integer': {
        const top = (values as Int64[]).reduce((a, b) => (compareInt64(a, b) >= 0 ? a : b));
        outside = toInt64(int64BigInt(top) + 1n) ?? toInt64(int64BigInt(top) - 1n);
        while (outside !== undefined && values.includes(outside)) {
          outside = toInt64(int64BigInt(outside) - 1n);
        }
        break;
      }
      case 'real':
        outside = Math.max(...(values as number[])) + 0.5;
        break;
      case 'boolean':
        outside = values.length === 1 ? !values[0] : undefined;
        break;
      case 'string': {
        let s = `${String(values[0])}x`;
        while (values.includes(s)) s += 'x';
        outside = s;
        break;
      }
      case 'uuid':
        outside = values.includes(OTHER_UUID) ? '00000000-0000-4000-8000-000000000000' : OTHER_UUID;
        break;
    }
    if (outside !== undefined) out.push({ rule: 'enum', value: outside, reason: 'is not one of' });
    return out;
  }
  switch (base.type) {
    case 'integer': {
      const below =
        base.minInteger === undefined ? undefined : toInt64(int64BigInt(base.minInteger) - 1n);
      if (below !== undefined)
        out.push({ rule: 'minInteger', value: below, reason: 'below minInteger' });
      const above =
        base.maxInteger === undefined ? undefined : toInt64(int64BigInt(base.maxInteger) + 1n);
      if (above !== undefined)
        out.push({ rule: 'maxInteger', value: above, reason: 'above maxInteger' });
      // A rounded JS number is never taken as an integer, and nothing beyond int64 is one.
      out.push({ rule: 'safe integer', value: 2 ** 53, reason: 'not a safe JS integer' });
      out.push({ rule: 'int64', value: INT64_MAX + 1n, reason: 'outside the int64 range' });
      out.push({ rule: 'int64', value: INT64_MIN - 1n, reason: 'outside the int64 range' });
      break;
    }
    case 'real':
      if (base.minReal !== undefined) {
        out.push({ rule: 'minReal', value: nextDouble(base.minReal, -1), reason: 'below minReal' });
      }
      if (base.maxReal !== undefined) {
        out.push({ rule: 'maxReal', value: nextDouble(base.maxReal, 1), reason: 'above maxReal' });
      }
      out.push({ rule: 'finite', value: Number.POSITIVE_INFINITY, reason: 'not finite' });
      break;
    case 'string':
      if (base.minLength !== undefined && base.minLength > 0) {
        // Astral characters: 2 UTF-16 units each, so only a code-point count catches these.
        out.push({
          rule: 'minLength',
          value: '😀'.repeat(base.minLength - 1),
          reason: 'shorter than minLength',
        });
      }
      if (base.maxLength !== undefined) {
        out.push({
          rule: 'maxLength',
          value: 'a'.repeat(base.maxLength + 1),
          reason: 'longer than maxLength',
        });
        out.push({
          rule: 'maxLength',
          value: '😀'.repeat(base.maxLength + 1),
          reason: 'longer than maxLength',
        });
      }
      out.push({ rule: 'unicode', value: 'a\ud800', reason: 'lone UTF-16 surrogate' });
      out.push({ rule: 'nul', value: 'a\u0000b', reason: 'contains U+0000 (NUL)' });
      break;
    case 'uuid':
      out.push({ rule: 'uuid syntax', value: 'not-a-uuid', reason: 'is not a UUID' });
      out.push({ rule: 'uuid syntax', value: `${OTHER_UUID}0`, reason: 'is not a UUID' });
      break;
    case 'boolean':
      break;
  }
  return out;
}

function wrongTypeAtom(base: BaseType): InvalidValue {
  switch (base.type) {
    case 'integer':
      return { rule: 'type', value: 1.5, reason: 'expected an integer' };
    case 'real':
      return { rule: 'type', value: '1.5', reason: 'expected a real' };
    case 'boolean':
      return { rule: 'type', value: 'true', reason: 'expected a boolean' };
    case 'string':
      return { rule: 'type', value: 7, reason: 'expected a string' };
    case 'uuid':
      return { rule: 'type', value: ['uuid', OTHER_UUID], reason: 'expected a UUID string' };
  }
}

/** `n` distinct valid atoms of `base` (deterministic), or `undefined` if it has fewer. */
function distinctAtoms(base: BaseType, n: number): Atom[] | undefined {
  if (domainSize(base) < n) return undefined;
  const arb = fc.uniqueArray(arbitraryAtom(base), {
    minLength: n,
    maxLength: n,
    selector: atomIdentity(base),
  });
  return fc.sample(arb, { numRuns: 1, seed: 7 })[0];
}

/**
 * Values that break exactly one rule of `column`, each just outside it: one
 * below `minInteger`, the next double above `maxReal`, a string one code point
 * too long, a set one element too large, a duplicate element, a wrong type, …
 * Element-level violations of set and map columns are wrapped in an otherwise
 * valid set or map. Deterministic: the same column gives the same list.
 */
export function invalidValues(column: ColumnSchema): InvalidValue[] {
  const { type } = column;
  const atoms = [...invalidAtoms(type.key), wrongTypeAtom(type.key)];
  const out: InvalidValue[] = [];
  switch (type.kind) {
    case 'scalar':
      out.push(...atoms, { rule: 'required', value: null, reason: 'a value is required' });
      break;
    case 'optional':
      out.push(...atoms, { rule: 'type', value: [], reason: 'got an array' });
      break;
    case 'set': {
      if (type.max >= 1) {
        for (const a of atoms)
          out.push({ rule: `element ${a.rule}`, value: [a.value], reason: a.reason });
      }
      out.push({ rule: 'type', value: 'not an array', reason: 'expected an array' });
      if (type.min > 0)
        out.push({ rule: 'min', value: [], reason: `set has 0 elements, min ${type.min}` });
      if (Number.isFinite(type.max)) {
        const elems = distinctAtoms(type.key, type.max + 1);
        if (elems !== undefined) {
          out.push({
            rule: 'max',
            value: elems,
            reason: `set has ${type.max + 1} elements, max ${type.max}`,
          });
        }
      }
      if (type.max >= 2) {
        const [e] = distinctAtoms(type.key, 1) ?? [];
        if (e !== undefined)
          out.push({ rule: 'duplicate', value: [e, e], reason: 'duplicate set element' });
      }
      break;
    }
    case 'map': {
      const valueType = type.value;
      if (valueType === undefined) break;
      const [k] = distinctAtoms(type.key, 1) ?? [];
      const [v] = distinctAtoms(valueType, 1) ?? [];
      if (k === undefined || v === undefined) break;
      const kStr = mapKeyString(k);
      for (const a of invalidAtoms(type.key)) {
        // An unsafe number's digits are a valid key: only a JS number is inexact.
        if (a.rule === 'safe integer') continue;
        // A key must be a string; wrong types become their string form.
        const bad = typeof a.value === 'string' ? a.value : String(a.value);
        out.push({
          rule: `key ${a.rule}`,
          value: toMapRaw([[bad, v]]),
          reason: `map key ${JSON.stringify(bad)}`,
        });
      }
      for (const a of [...invalidAtoms(valueType), wrongTypeAtom(valueType)]) {
        out.push({
          rule: `value ${a.rule}`,
          value: toMapRaw([[kStr, a.value]]),
          reason: a.reason,
        });
      }
      out.push({ rule: 'type', value: [[k, v]], reason: 'expected a plain object' });
      if (type.min > 0)
        out.push({ rule: 'min', value: {}, reason: `map has 0 pairs, min ${type.min}` });
      if (Number.isFinite(type.max)) {
        const keys = distinctAtoms(type.key, type.max + 1);
        if (keys !== undefined) {
          out.push({
            rule: 'max',
            value: toMap(keys.map((key) => [key, v] as const)),
            reason: `map has ${type.max + 1} pairs, max ${type.max}`,
          });
        }
      }
      break;
    }
  }
  return out;
}

function toMapRaw(pairs: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of pairs) {
    Object.defineProperty(out, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Any of {@link invalidValues} for `column` (all columns have at least one). */
export function arbitraryInvalidValue(column: ColumnSchema): fc.Arbitrary<InvalidValue> {
  return fc.constantFrom(...invalidValues(column));
}

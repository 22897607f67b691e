/**
 * `mutate` mutations (RFC 7047 §5.1 `<mutation>`) as ovsdb-server parses and
 * applies them.
 *
 * - `+=`, `-=`, `*=`, `/=` apply to integer and real columns holding one value
 *   or a set, element by element; `%=` to integers only. Division by zero is a
 *   "domain error"; an integer result outside int64 (ovsdb-server's own
 *   overflow tests, see `ovsMultiply` for `*=`) or a non-finite real is a
 *   "range error"; a result outside the column's constraints a "constraint
 *   violation", as is a set whose elements collide after the operation.
 * - `insert` adds set elements or map pairs (an existing map key keeps its
 *   value); `delete` removes set elements, map pairs matching key and value, or
 *   map pairs by key. The result must have a size the column allows.
 * - Immutable columns cannot be mutated.
 * @module
 */

import type { Atom, ColumnSchema, TableSchema } from '../../ovsdb/schema/schema-types.js';
import {
  INT64_MAX,
  INT64_MIN,
  type Int64,
  type Int64Operator,
  int64Arith,
  int64BigInt,
  toInt64,
} from '../../ovsdb/values/int64.js';
import {
  type Datum,
  type DatumType,
  sortDatum,
  subtractDatums,
  unionDatums,
} from '../../ovsdb/values/sorted-datum.js';
import { OpError, syntaxError } from './op-error.js';
import { checkAtomConstraints, parseDatum, type SymbolTable, typeToEnglish } from './values.js';

/** The mutators of RFC 7047. */
export type Mutator = '+=' | '-=' | '*=' | '/=' | '%=' | 'insert' | 'delete';

const MUTATORS: readonly Mutator[] = ['+=', '-=', '*=', '/=', '%=', 'insert', 'delete'];

/** One parsed mutation. */
export interface Mutation {
  readonly column: ColumnSchema;
  readonly mutator: Mutator;
  readonly arg: Datum;
}

function typeOf(c: ColumnSchema): DatumType {
  return { key: c.type.key, value: c.type.value, min: c.type.min, max: c.type.max };
}

function isScalar(t: DatumType): boolean {
  return t.min === 1 && t.max === 1 && t.value === undefined;
}

function isSet(t: DatumType): boolean {
  return t.value === undefined && !(t.min === 1 && t.max === 1);
}

function parseMutation(table: TableSchema, json: unknown, symtab: SymbolTable): Mutation {
  if (
    !Array.isArray(json) ||
    json.length !== 3 ||
    typeof json[0] !== 'string' ||
    typeof json[1] !== 'string'
  ) {
    throw syntaxError(json, undefined, 'Parse error in mutation.');
  }
  const columnName = json[0];
  const column = Object.hasOwn(table.columns, columnName) ? table.columns[columnName] : undefined;
  if (column === undefined) {
    throw syntaxError(json, 'unknown column', `No column ${columnName} in table ${table.name}.`);
  }
  if (!column.mutable) {
    throw syntaxError(
      json,
      'constraint violation',
      `Cannot mutate immutable column ${columnName} in table ${table.name}.`,
    );
  }
  const mutatorName = json[1];
  if (!(MUTATORS as readonly string[]).includes(mutatorName)) {
    throw new OpError('unknown mutator', `No mutator named ${mutatorName}.`);
  }
  const mutator = mutatorName as Mutator;
  const type = typeOf(column);
  const mismatch = (): OpError =>
    syntaxError(
      json,
      undefined,
      `Type mismatch: "${mutator}" operator may not be applied to column ${column.name} of type ${typeToEnglish(type)}.`,
    );
  switch (mutator) {
    case '+=':
    case '-=':
    case '*=':
    case '/=':
    case '%=': {
      const kt = type.key.type;
      if (
        (!isScalar(type) && !isSet(type)) ||
        (kt !== 'integer' && kt !== 'real') ||
        (mutator === '%=' && kt === 'real')
      ) {
        throw mismatch();
      }
      const argType: DatumType = { key: { type: kt }, min: 1, max: 1 };
      return { column, mutator, arg: parseDatum(argType, json[2], symtab) };
    }
    case 'insert':
    case 'delete': {
      if (!isSet(type) && type.value === undefined) throw mismatch();
      const argType: DatumType = {
        ...type,
        min: 0,
        max: mutator === 'delete' ? Number.POSITIVE_INFINITY : type.max,
      };
      try {
        return { column, mutator, arg: parseDatum(argType, json[2], symtab) };
      } catch (e) {
        if (!(e instanceof OpError) || type.value === undefined || mutator !== 'delete') throw e;
        const keysOnly: DatumType = { key: type.key, min: 0, max: Number.POSITIVE_INFINITY };
        return { column, mutator, arg: parseDatum(keysOnly, json[2], symtab) };
      }
    }
  }
}

/**
 * Parse a `mutations` array (the caller has checked it is an array).
 * @throws OpError as ovsdb-server reports a bad mutation.
 */
export function parseMutations(
  table: TableSchema,
  json: readonly unknown[],
  symtab: SymbolTable,
): Mutation[] {
  return json.map((m) => parseMutation(table, m, symtab));
}

const DBL_MAX = Number.MAX_VALUE;

function rangeError(mutator: Mutator): OpError {
  return new OpError('range error', `Result of "${mutator}" operation is out of range.`);
}

/** Operands below this magnitude multiply exactly as numbers, and ovsdb-server's `*=` never fails on them. */
const SMALL = 2 ** 26;

/**
 * `x * y` as ovsdb-server's `mul_int` computes it: its overflow test, then
 * the product wrapped to 64 bits. The test is taken as written in
 * ovsdb/mutation.c, flaws included, since that is what clients see:
 * - both positive: it fails when `x >= INT64_MAX / y`, so also for a product
 *   that just fits (`INT64_MAX *= 1`, `2 *= 2^62−1`);
 * - both non-positive: it tests `y < INT64_MAX / y` (not `/ x`), so it fails
 *   for any `y < −3037000499` (`−1 *= −3037000500`) and passes products
 *   beyond INT64_MAX, which wrap (`INT64_MIN *= −1` is INT64_MIN,
 *   `−2^62 *= −2` is INT64_MIN).
 * A negative `x` times 0 divides by zero in that test and ends ovsdb-server
 * 3.1 (SIGFPE); here it is 0.
 */
function ovsMultiply(x: Int64, y: Int64, mutator: Mutator): Int64 {
  if (
    typeof x === 'number' &&
    typeof y === 'number' &&
    Math.abs(x) < SMALL &&
    Math.abs(y) < SMALL
  ) {
    const r = x * y;
    return r === 0 ? 0 : r;
  }
  const a = int64BigInt(x);
  const b = int64BigInt(y);
  const overflow =
    a > 0n
      ? b > 0n
        ? a >= INT64_MAX / b
        : b < INT64_MIN / a
      : b > 0n
        ? a < INT64_MIN / b
        : a !== 0n && b !== 0n && b < INT64_MAX / b;
  if (overflow) throw rangeError(mutator);
  return toInt64(BigInt.asIntN(64, a * b)) as Int64;
}

/**
 * One integer mutator as ovsdb-server applies it (`add_int`, `sub_int`,
 * `mul_int`, `div_int`, `mod_int`): exact over int64, "range error" when the
 * result leaves it (and for `INT64_MIN /= −1` and `INT64_MIN %= −1`), "domain
 * error" for division by zero; `*=` as {@link ovsMultiply}.
 */
function mutateInteger(x: Int64, y: Int64, mutator: Mutator): Int64 {
  let op: Int64Operator;
  switch (mutator) {
    case '+=':
      op = '+';
      break;
    case '-=':
      op = '-';
      break;
    case '*=':
      return ovsMultiply(x, y, mutator);
    case '/=':
    case '%=':
      if (y === 0) throw new OpError('domain error', 'Division by zero.');
      if (x === INT64_MIN && y === -1) throw rangeError(mutator);
      op = mutator === '/=' ? '/' : '%';
      break;
    default:
      throw new Error(`not an arithmetic mutator: ${mutator}`);
  }
  const r = int64Arith(op, x, y);
  if (r === 'range') throw rangeError(mutator);
  if (r === 'domain') throw new OpError('domain error', 'Division by zero.');
  return r.value;
}

function mutateReal(x: number, y: number, mutator: Mutator): number {
  let r: number;
  switch (mutator) {
    case '+=':
      r = x + y;
      break;
    case '-=':
      r = x - y;
      break;
    case '*=':
      r = x * y;
      break;
    case '/=':
      if (y === 0) throw new OpError('domain error', 'Division by zero.');
      r = x / y;
      break;
    default:
      throw new Error(`not a real mutator: ${mutator}`);
  }
  if (!(r >= -DBL_MAX && r <= DBL_MAX)) throw rangeError(mutator);
  return r;
}

function checkCount(d: Datum, column: ColumnSchema): void {
  const n = d.keys.length;
  if (n < column.type.min || n > column.type.max) {
    throw new OpError(
      'constraint violation',
      `Attempted to store ${n} elements in ${typeToEnglish(typeOf(column))}.`,
    );
  }
}

/**
 * Apply mutations in order to a row's fields, returning the new fields.
 * @throws OpError ("domain error", "range error", "constraint violation").
 */
export function applyMutations(
  fields: Readonly<Record<string, Datum>>,
  mutations: readonly Mutation[],
): Record<string, Datum> {
  const out: Record<string, Datum> = { ...fields };
  for (const m of mutations) {
    const name = m.column.name;
    const dst = out[name] as Datum;
    switch (m.mutator) {
      case 'insert': {
        const d = unionDatums(dst, m.arg);
        checkCount(d, m.column);
        out[name] = d;
        break;
      }
      case 'delete': {
        const d = subtractDatums(dst, m.arg);
        checkCount(d, m.column);
        out[name] = d;
        break;
      }
      default: {
        const base = m.column.type.key;
        const y = m.arg.keys[0] as Int64;
        const keys: Atom[] = dst.keys.map((x) =>
          base.type === 'integer'
            ? mutateInteger(x as Int64, y, m.mutator)
            : mutateReal(x as number, y as number, m.mutator),
        );
        for (const k of keys) {
          const e = checkAtomConstraints(k, base);
          if (e !== undefined) throw e;
        }
        const d = sortDatum(keys, undefined);
        if (d === undefined) {
          throw new OpError(
            'constraint violation',
            `Result of "${m.mutator}" operation contains duplicates.`,
          );
        }
        out[name] = d;
        break;
      }
    }
  }
  return out;
}

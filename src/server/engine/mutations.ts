/**
 * `mutate` mutations (RFC 7047 §5.1 `<mutation>`) as ovsdb-server parses and
 * applies them.
 *
 * - `+=`, `-=`, `*=`, `/=` apply to integer and real columns holding one value
 *   or a set, element by element; `%=` to integers only. Division by zero is a
 *   "domain error"; an integer result outside int64 (by ovsdb-server's own
 *   overflow tests: `ovsdbIntMutate` in `values/int64.ts`) or a non-finite
 *   real is a "range error"; a result outside the column's constraints a
 *   "constraint violation", as is a set whose elements collide after the
 *   operation.
 * - `insert` adds set elements or map pairs (an existing map key keeps its
 *   value); `delete` removes set elements, map pairs matching key and value, or
 *   map pairs by key. The result must have a size the column allows.
 * - Immutable columns cannot be mutated.
 * @module
 */

import type { Atom, ColumnSchema, TableSchema } from '../../ovsdb/schema/schema-types.js';
import { type Int64, type Int64Operator, ovsdbIntMutate } from '../../ovsdb/values/int64.js';
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

/**
 * One integer mutator as ovsdb-server applies it ({@link ovsdbIntMutate}:
 * exact over int64, its own overflow tests, `mul_int`'s as written): "range
 * error" when the result leaves int64 (and for `INT64_MIN /= −1` and
 * `INT64_MIN %= −1`), "domain error" for division by zero.
 */
function mutateInteger(x: Int64, y: Int64, mutator: Mutator): Int64 {
  const op = INTEGER_OPERATORS[mutator];
  if (op === undefined) throw new Error(`not an arithmetic mutator: ${mutator}`);
  const r = ovsdbIntMutate(op, x, y);
  if (r === 'range') throw rangeError(mutator);
  if (r === 'domain') throw new OpError('domain error', 'Division by zero.');
  return r.value;
}

const INTEGER_OPERATORS: Partial<Record<Mutator, Int64Operator>> = {
  '+=': '+',
  '-=': '-',
  '*=': '*',
  '/=': '/',
  '%=': '%',
};

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

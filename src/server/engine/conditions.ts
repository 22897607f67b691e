/**
 * `where` clauses (RFC 7047 §5.1 `<condition>`) as ovsdb-server parses and
 * evaluates them.
 *
 * - `<`, `<=`, `>`, `>=` apply only to integer and real columns that hold one
 *   value or none (an empty optional value never matches them).
 * - `==` and `!=` compare whole values (set or map equality).
 * - `includes` is true when the column value contains every element of the
 *   argument (a superset, pairs compared whole for maps); `excludes` when it
 *   contains none. On single-valued columns they behave as `==` and `!=`.
 * - A bare `true` or `false` is accepted as a clause that always or never matches.
 *
 * {@link compileCondition} turns a parsed condition into one predicate per
 * operation, specialized per clause (a scalar `==` is one `===`), so that
 * evaluating it on a row allocates nothing.
 * @module
 */

import type { Atom, ColumnSchema, TableSchema } from '../../ovsdb/schema/schema-types.js';
import { compareAtoms } from '../../ovsdb/values/order.js';
import {
  type Datum,
  type DatumType,
  datumsEqual,
  excludesAll,
  findKey,
  includesAll,
} from '../../ovsdb/values/sorted-datum.js';
import { OpError, syntaxError } from './op-error.js';
import { parseDatum, type SymbolTable, typeToEnglish } from './values.js';

/** The condition functions of RFC 7047. */
export type ConditionFunction = '<' | '<=' | '==' | '!=' | '>=' | '>' | 'includes' | 'excludes';

const FUNCTIONS: readonly ConditionFunction[] = [
  '<',
  '<=',
  '==',
  '!=',
  '>=',
  '>',
  'includes',
  'excludes',
];

/** One parsed clause, or a constant (`true`/`false`) clause. */
export type Clause =
  | {
      readonly kind: 'compare';
      readonly column: ColumnSchema;
      readonly fn: ConditionFunction;
      readonly arg: Datum;
      /** The column's shape: one value, zero or one value, or a set or map. */
      readonly shape: 'scalar' | 'optional' | 'multi';
    }
  | { readonly kind: 'constant'; readonly value: boolean };

/** A parsed `where`: every clause must hold. */
export type Condition = readonly Clause[];

function isScalar(c: ColumnSchema): boolean {
  return c.type.min === 1 && c.type.max === 1 && c.type.value === undefined;
}

function isOptionalScalar(c: ColumnSchema): boolean {
  return c.type.min === 0 && c.type.max === 1 && c.type.value === undefined;
}

/** The column's type as a datum type. */
function typeOf(c: ColumnSchema): DatumType {
  return { key: c.type.key, value: c.type.value, min: c.type.min, max: c.type.max };
}

function parseClause(table: TableSchema, json: unknown, symtab: SymbolTable): Clause {
  if (json === true || json === false) return { kind: 'constant', value: json };
  if (
    !Array.isArray(json) ||
    json.length !== 3 ||
    typeof json[0] !== 'string' ||
    typeof json[1] !== 'string'
  ) {
    throw syntaxError(json, undefined, 'Parse error in condition.');
  }
  const columnName = json[0];
  const column = Object.hasOwn(table.columns, columnName) ? table.columns[columnName] : undefined;
  if (column === undefined) {
    throw syntaxError(json, 'unknown column', `No column ${columnName} in table ${table.name}.`);
  }
  const fnName = json[1];
  if (!(FUNCTIONS as readonly string[]).includes(fnName)) {
    throw new OpError('unknown function', `No function named ${fnName}.`);
  }
  const fn = fnName as ConditionFunction;
  let type = typeOf(column);
  switch (fn) {
    case '<':
    case '<=':
    case '>':
    case '>=':
      if (
        !(isScalar(column) || isOptionalScalar(column)) ||
        (column.type.key.type !== 'integer' && column.type.key.type !== 'real')
      ) {
        throw syntaxError(
          json,
          undefined,
          `Type mismatch: "${fn}" operator may not be applied to column ${column.name} of type ${typeToEnglish(type)}.`,
        );
      }
      type = { ...type, min: 1, max: 1 };
      break;
    case 'excludes':
      if (!isScalar(column)) type = { ...type, min: 0, max: Number.POSITIVE_INFINITY };
      break;
    case 'includes':
      if (!isScalar(column)) type = { ...type, min: 0 };
      break;
    default:
      break;
  }
  const shape = isScalar(column) ? 'scalar' : isOptionalScalar(column) ? 'optional' : 'multi';
  return { kind: 'compare', column, fn, arg: parseDatum(type, json[2], symtab), shape };
}

/**
 * Parse a `where` array (the caller has checked it is an array).
 * @throws OpError as ovsdb-server reports a bad clause.
 */
export function parseCondition(
  table: TableSchema,
  json: readonly unknown[],
  symtab: SymbolTable,
): Condition {
  return json.map((c) => parseClause(table, c, symtab));
}

function evaluateClause(fields: Readonly<Record<string, Datum>>, c: Clause): boolean {
  if (c.kind === 'constant') return c.value;
  const field = fields[c.column.name] as Datum;
  const arg = c.arg;
  if (c.shape === 'optional' && (field.keys.length === 0 || arg.keys.length === 0)) {
    // An empty value compares as a set: never ordered, equal only to the empty set.
    switch (c.fn) {
      case '==':
        return datumsEqual(field, arg);
      case '!=':
        return !datumsEqual(field, arg);
      case 'includes':
        return includesAll(arg, field);
      case 'excludes':
        return excludesAll(arg, field);
      default:
        return false;
    }
  }
  if (c.shape !== 'multi') {
    const cmp = compareAtoms(field.keys[0] as never, arg.keys[0] as never);
    switch (c.fn) {
      case '<':
        return cmp < 0;
      case '<=':
        return cmp <= 0;
      case '==':
      case 'includes':
        return cmp === 0;
      case '!=':
      case 'excludes':
        return cmp !== 0;
      case '>=':
        return cmp >= 0;
      case '>':
        return cmp > 0;
    }
  }
  switch (c.fn) {
    case '==':
      return datumsEqual(field, arg);
    case '!=':
      return !datumsEqual(field, arg);
    case 'includes':
      return includesAll(arg, field);
    case 'excludes':
      return excludesAll(arg, field);
    default:
      return false;
  }
}

/** True when the row's fields satisfy every clause. */
export function evaluateCondition(
  fields: Readonly<Record<string, Datum>>,
  cond: Condition,
): boolean {
  for (const c of cond) if (!evaluateClause(fields, c)) return false;
  return true;
}

/** A compiled condition: whether a row's fields satisfy it. */
export type RowPredicate = (fields: Readonly<Record<string, Datum>>) => boolean;

const ALWAYS: RowPredicate = () => true;
const NEVER: RowPredicate = () => false;

type Fields = Readonly<Record<string, Datum>>;

/**
 * One clause as a predicate. Atoms are in canonical form, so atom equality
 * is `===` (strings by code units, integers by value, bigints included) and
 * the order of numbers (integers as numbers or bigints, reals) is `<`.
 */
function compileClause(c: Clause): RowPredicate {
  if (c.kind === 'constant') return c.value ? ALWAYS : NEVER;
  const name = c.column.name;
  const keys = c.arg.keys;
  const a = keys[0] as Atom;
  if (c.shape === 'scalar') {
    switch (c.fn) {
      case '==':
      case 'includes':
        return (f: Fields) => (f[name] as Datum).keys[0] === a;
      case '!=':
      case 'excludes':
        return (f: Fields) => (f[name] as Datum).keys[0] !== a;
      case '<':
        return (f: Fields) => ((f[name] as Datum).keys[0] as number) < (a as number);
      case '<=':
        return (f: Fields) => ((f[name] as Datum).keys[0] as number) <= (a as number);
      case '>':
        return (f: Fields) => ((f[name] as Datum).keys[0] as number) > (a as number);
      case '>=':
        return (f: Fields) => ((f[name] as Datum).keys[0] as number) >= (a as number);
    }
  }
  if (c.shape === 'optional') {
    // An empty value is never ordered and equal only to the empty set.
    switch (c.fn) {
      case '<':
        return (f: Fields) => {
          const k = (f[name] as Datum).keys;
          return k.length !== 0 && (k[0] as number) < (a as number);
        };
      case '<=':
        return (f: Fields) => {
          const k = (f[name] as Datum).keys;
          return k.length !== 0 && (k[0] as number) <= (a as number);
        };
      case '>':
        return (f: Fields) => {
          const k = (f[name] as Datum).keys;
          return k.length !== 0 && (k[0] as number) > (a as number);
        };
      case '>=':
        return (f: Fields) => {
          const k = (f[name] as Datum).keys;
          return k.length !== 0 && (k[0] as number) >= (a as number);
        };
      case '==':
        if (keys.length === 0) return (f: Fields) => (f[name] as Datum).keys.length === 0;
        if (keys.length === 1) {
          return (f: Fields) => {
            const k = (f[name] as Datum).keys;
            return k.length === 1 && k[0] === a;
          };
        }
        break;
      case '!=':
        if (keys.length === 0) return (f: Fields) => (f[name] as Datum).keys.length !== 0;
        if (keys.length === 1) {
          return (f: Fields) => {
            const k = (f[name] as Datum).keys;
            return k.length !== 1 || k[0] !== a;
          };
        }
        break;
      default:
        break;
    }
  } else if (c.fn === 'includes' && keys.length === 1 && c.arg.values === undefined) {
    // One element of a set.
    return (f: Fields) => findKey(f[name] as Datum, a) >= 0;
  }
  return (f: Fields) => evaluateClause(f, c);
}

/**
 * Compile `cond` into one predicate, equivalent to {@link evaluateCondition}
 * and allocation-free per row. Compile once per operation.
 */
export function compileCondition(cond: Condition): RowPredicate {
  const ps: RowPredicate[] = [];
  for (const c of cond) {
    const p = compileClause(c);
    if (p === NEVER) return NEVER;
    if (p !== ALWAYS) ps.push(p);
  }
  const [p0, p1, p2] = ps as [RowPredicate, RowPredicate, RowPredicate];
  switch (ps.length) {
    case 0:
      return ALWAYS;
    case 1:
      return p0;
    case 2:
      return (f) => p0(f) && p1(f);
    case 3:
      return (f) => p0(f) && p1(f) && p2(f);
    default:
      return (f) => {
        for (let i = 0; i < ps.length; i++) if (!(ps[i] as RowPredicate)(f)) return false;
        return true;
      };
  }
}

/** Whether a compiled predicate never holds (a `false` clause): no row needs to be visited. */
export function isNever(p: RowPredicate): boolean {
  return p === NEVER;
}

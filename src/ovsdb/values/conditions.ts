/**
 * Typed `where` clauses: which rows an `update`, `mutate`, `delete`,
 * `select` or `wait` applies to, and their compilation to OVSDB conditions.
 *
 * A `where` is one of:
 * - a UUID or {@link Ref}: that row (`[["_uuid", "==", ["uuid", "…"]]]`);
 * - an index key, an object of column values: the rows whose columns equal
 *   them, e.g. `{ name: 'lsp1' }` (`[["name", "==", "lsp1"]]`). With the
 *   columns of a schema index, it selects at most one row;
 * - a list of conditions `[column, function, value]`, all of which must hold.
 *   The empty list matches every row.
 *
 * The functions a column accepts depend on its type: `==` and `!=` always;
 * `includes` and `excludes` for sets and maps; `<`, `<=`, `>`, `>=` only for
 * numbers (integer or real columns holding one value).
 * @module
 */

import type { ColumnOf, RowOf, TableMap, TableName } from '../schema/model.js';
import type { ColumnSchema, TableSchema } from '../schema/schema-types.js';
import { DatumError } from '../wire/errors.js';
import { isPlainObject } from '../wire/json.js';
import type { Condition, ConditionFunction, WireValue } from '../wire/wire.js';
import { atomType, subsetType } from './argument-types.js';
import { compileColumnCodec, type EncodeContext } from './datum.js';
import { isUuid, type Uuid } from './uuid.js';
import { columnValueProblem, describeColumnType } from './value-checks.js';

/** `==` and `!=`: every column. */
export type EqualityFunction = '==' | '!=';
/** `includes` and `excludes`: sets and maps. */
export type InclusionFunction = 'includes' | 'excludes';
/** `<`, `<=`, `>`, `>=`: numbers only. */
export type ComparisonFunction = '<' | '<=' | '>' | '>=';

/** An atomic JS value: what a single OVSDB atom decodes to (an integer beyond ±(2^53−1) is a bigint). */
export type Atomic = string | number | bigint | boolean;

/** True when `V` (a column's JS type) is a set or a map. */
/** `true` when `V` is a set (array) or map (record) column value. */
export type IsCollection<V> = [V] extends [readonly unknown[]]
  ? true
  : [V] extends [Atomic | null]
    ? false
    : true;

/**
 * The conditions column `C` of JS type `V` accepts: `[C, '==' | '!=', V]`;
 * for a set or map also `[C, 'includes' | 'excludes', V]` (a subset); for a
 * number (or `Int64`) also `[C, '<' | '<=' | '>' | '>=', V]`.
 */
export type ConditionFor<C extends string, V> =
  | readonly [column: C, fn: EqualityFunction, value: V]
  | (IsCollection<V> extends true ? readonly [column: C, fn: InclusionFunction, value: V] : never)
  | ([V] extends [number | bigint | null]
      ? [V] extends [null]
        ? never
        : readonly [column: C, fn: ComparisonFunction, value: NonNullable<V>]
      : never);

/**
 * One condition on table `T` of model `DB`: a `[column, function, value]`
 * tuple whose function and value type follow the column's type.
 *
 * ```ts
 * ['name', '==', 'lsp1']             // ["name","==","lsp1"]
 * ['addresses', 'includes', ['00:00:00:00:00:01']]  // ["addresses","includes","00:00:00:00:00:01"]
 * ['priority', '>=', 1000]           // ACL: ["priority",">=",1000]
 * ['external_ids', 'includes', { pod: 'web-1' }]     // ["external_ids","includes",["map",[["pod","web-1"]]]]
 * ```
 */
export type ConditionOf<DB extends TableMap, T extends TableName<DB>> = RowCondition<RowOf<DB, T>>;

/** One condition on rows of type `R` (see {@link ConditionOf}). */
export type RowCondition<R> = {
  // `undefined`: a column a client's `compat` option says may be absent; its values are the others.
  [C in Extract<keyof R, string>]: ConditionFor<C, Exclude<R[C], undefined>>;
}[Extract<keyof R, string>];

/**
 * One clause of a monitor condition on rows of type `R` (the `where` of a
 * table's monitor, where a row is monitored when **any** clause holds, as
 * ovsdb-server ORs them): a typed condition as in transactions, or `true`
 * (every row) or `false` (none).
 *
 * ```ts
 * where: [['name', '==', 'sw0'], ['external_ids', 'includes', { owner: 'me' }]]
 * // [["name","==","sw0"],["external_ids","includes",["map",[["owner","me"]]]]]
 * ```
 */
export type MonitorCondition<R> = RowCondition<R> | boolean;

/**
 * Rows of table `T` selected by column equality: `{ name: 'lsp1' }` is
 * `[["name", "==", "lsp1"]]`. At least one column must be given.
 */
export type IndexKey<DB extends TableMap, T extends TableName<DB>> = {
  readonly [C in ColumnOf<DB, T>]?: Exclude<RowOf<DB, T>[C], undefined>;
} & {
  /** Not iterable: tells an index key apart from a UUID string and a condition list. */
  readonly [Symbol.iterator]?: never;
};

/**
 * Which rows of table `T` an operation applies to: one row by UUID (or
 * {@link Ref}), rows by an {@link IndexKey}, or rows matching every
 * condition of a list (`[]` matches every row).
 *
 * ```ts
 * tx.delete('Logical_Switch_Port', port._uuid);          // [["_uuid","==",["uuid","…"]]]
 * tx.delete('Logical_Switch_Port', { name: 'lsp1' });    // [["name","==","lsp1"]]
 * tx.delete('ACL', [['priority', '<', 100], ['action', '==', 'drop']]);
 * // [["priority","<",100],["action","==","drop"]]
 * ```
 */
export type Where<DB extends TableMap, T extends TableName<DB>> =
  | Uuid<T>
  | IndexKey<DB, T>
  | readonly ConditionOf<DB, T>[];

const FUNCTIONS: ReadonlySet<string> = new Set<ConditionFunction>([
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'includes',
  'excludes',
]);

function columnOf(table: TableSchema, name: unknown, value: unknown): ColumnSchema {
  if (typeof name !== 'string') {
    throw new DatumError(table.name, undefined, name, 'a condition column must be a string');
  }
  const column = table.columns[name];
  if (column === undefined) {
    throw new DatumError(table.name, name, value, `table ${table.name} has no column ${name}`);
  }
  return column;
}

/** True when `<`, `<=`, `>`, `>=` apply to `column` (as ovsdb-server decides). */
function isComparable(column: ColumnSchema): boolean {
  const t = column.type;
  return (
    (t.key.type === 'integer' || t.key.type === 'real') && t.value === undefined && t.max === 1
  );
}

/**
 * Compile one condition to the wire, after checking the column, the function
 * and the value with the shared validators.
 * @throws DatumError naming the table, column, value and broken rule.
 */
export function compileCondition(
  table: TableSchema,
  condition: unknown,
  ctx: EncodeContext,
): Condition {
  if (!Array.isArray(condition) || condition.length !== 3) {
    throw new DatumError(
      table.name,
      undefined,
      condition,
      'a condition is a [column, function, value] triple',
    );
  }
  const [name, fn, value] = condition as [unknown, unknown, unknown];
  const column = columnOf(table, name, value);
  if (typeof fn !== 'string' || !FUNCTIONS.has(fn)) {
    throw new DatumError(
      table.name,
      column.name,
      fn,
      `unknown condition function ${JSON.stringify(fn)}: use ==, !=, <, <=, >, >=, includes or excludes`,
    );
  }
  let type: ColumnSchema;
  switch (fn as ConditionFunction) {
    case '==':
    case '!=':
      type = column;
      break;
    case 'includes':
    case 'excludes':
      type = subsetType(column);
      break;
    default:
      if (!isComparable(column)) {
        throw new DatumError(
          table.name,
          column.name,
          value,
          `condition function "${fn}" applies only to integer and real columns holding one value, not to ${describeColumnType(column)}`,
        );
      }
      type = atomType(column);
  }
  const problem = columnValueProblem(type, value);
  if (problem !== undefined) {
    throw new DatumError(table.name, column.name, value, `condition "${fn}": ${problem}`);
  }
  const wire = compileColumnCodec(table.name, type).encode(value, ctx);
  return [column.name, fn as ConditionFunction, wire as WireValue];
}

/**
 * Compile a {@link Where} to wire conditions.
 * @throws DatumError naming the table, column, value and broken rule.
 */
export function compileWhere(table: TableSchema, where: unknown, ctx: EncodeContext): Condition[] {
  if (typeof where === 'string') {
    if (!isUuid(where)) {
      throw new DatumError(table.name, '_uuid', where, `${JSON.stringify(where)} is not a UUID`);
    }
    const u = where.toLowerCase();
    const name = ctx.namedUuid?.(u);
    return [['_uuid', '==', name === undefined ? ['uuid', u] : ['named-uuid', name]]];
  }
  if (Array.isArray(where)) {
    const out: Condition[] = [];
    for (const c of where) out.push(compileCondition(table, c, ctx));
    return out;
  }
  if (isPlainObject(where)) {
    const out: Condition[] = [];
    for (const name of Object.keys(where)) {
      const value = where[name];
      if (value === undefined) continue;
      out.push(compileCondition(table, [name, '==', value], ctx));
    }
    if (out.length === 0) {
      throw new DatumError(
        table.name,
        undefined,
        where,
        'an index key needs at least one column (use [] to match every row)',
      );
    }
    return out;
  }
  throw new DatumError(
    table.name,
    undefined,
    where,
    'where must be a UUID, an index key object or a list of conditions',
  );
}

/**
 * Compile the clauses of a monitor condition ({@link MonitorCondition}) to
 * the wire, each checked as a transaction's condition is.
 * @throws DatumError naming the table, column, value and broken rule.
 */
export function compileMonitorWhere(table: TableSchema, where: unknown): Condition[] {
  if (!Array.isArray(where)) {
    throw new DatumError(
      table.name,
      undefined,
      where,
      'a monitor condition is a list of clauses ([] or [true]: every row)',
    );
  }
  const out: Condition[] = [];
  for (const c of where) {
    out.push(typeof c === 'boolean' ? c : compileCondition(table, c, NO_NAMES));
  }
  return out;
}

/** A monitor condition names no row a transaction inserts. */
const NO_NAMES: EncodeContext = {};

/**
 * Typed mutations (`[column, mutator, value]`) and their compilation to the
 * wire. What a column accepts depends on its type:
 *
 * | column                      | mutators                                  | value                              |
 * | --------------------------- | ----------------------------------------- | ---------------------------------- |
 * | set (or optional) `T[]`     | `insert`, `delete`                        | `T[]`: elements to add or remove   |
 * | number, or set of numbers   | `+=`, `-=`, `*=`, `/=`, `%=` (integers)   | `number` (`Int64` for an `Int64` column), applied to every element |
 * | map `Record<K, V>`          | `insert`                                  | `Record<K, V>`: pairs to add (existing keys keep their value) |
 * | map `Record<K, V>`          | `delete`                                  | `K[]`: keys to remove, or `Record<K, V>`: pairs to remove |
 *
 * Only mutable columns can be mutated. The server checks the result against
 * the column's constraints ("constraint violation") and reports arithmetic
 * overflow as "range error".
 * @module
 */

import type { RowOf, TableMap, TableName, UpdateOf } from '../ovsdb/schema/model.js';
import type { ColumnSchema, TableSchema } from '../ovsdb/schema/schema-types.js';
import { bareAtomType, elementsType, keysType, pairsType } from '../ovsdb/values/argument-types.js';
import type { Atomic } from '../ovsdb/values/conditions.js';
import { compileColumnCodec, type EncodeContext, parseMapKey } from '../ovsdb/values/datum.js';
import { columnValueProblem, describeColumnType } from '../ovsdb/values/validators.js';
import { DatumError } from '../ovsdb/wire/errors.js';
import type { Mutation, Mutator, WireValue } from '../ovsdb/wire/wire.js';

/** The arithmetic mutators. `%=` applies to integers only. */
export type ArithmeticMutator = '+=' | '-=' | '*=' | '/=' | '%=';

/**
 * The operand of an arithmetic mutation of elements of type `E`: `number`
 * for a `number` column, `number | bigint` for an `Int64` one; `never` for
 * other columns.
 */
export type ArithmeticOperand<E> = [E] extends [number]
  ? number
  : [E] extends [number | bigint]
    ? number | bigint
    : never;

/** An arithmetic mutation of column `C` whose elements are of type `E` (never when not numeric). */
type ArithmeticMutation<C extends string, E> = [ArithmeticOperand<E>] extends [never]
  ? never
  : readonly [column: C, mutator: ArithmeticMutator, value: ArithmeticOperand<E>];

/** A set mutation: insert or delete elements. */
export type SetMutation<C extends string, E> =
  | readonly [column: C, mutator: 'insert' | 'delete', elements: readonly E[]]
  | ArithmeticMutation<C, E>;

/** A map mutation: insert pairs, delete by key, or delete by pair. */
export type MapMutation<C extends string, V> =
  | readonly [column: C, mutator: 'insert', pairs: V]
  | readonly [
      column: C,
      mutator: 'delete',
      keysOrPairs: readonly Extract<keyof V, string | number>[] | V,
    ];

/** The mutations a column `C` of JS type `V` accepts (see the module table). */
export type MutationFor<C extends string, V> = [V] extends [readonly (infer E)[]]
  ? SetMutation<C, E>
  : [V] extends [Atomic]
    ? ArithmeticMutation<C, V>
    : [V] extends [Atomic | null]
      ? SetMutation<C, NonNullable<V>>
      : MapMutation<C, V>;

/** The columns of table `T` that an update or a mutation may write. */
export type MutableColumnOf<DB extends TableMap, T extends TableName<DB>> = Extract<
  keyof UpdateOf<DB, T>,
  keyof RowOf<DB, T> & string
>;

/**
 * One mutation of table `T`: `[column, mutator, value]`, typed by the
 * column (mutable columns only).
 *
 * ```ts
 * ['ports', 'insert', [port]]                 // ["ports","insert",["set",[["named-uuid","row0"]]]]
 * ['external_ids', 'insert', { owner: 'me' }] // ["external_ids","insert",["map",[["owner","me"]]]]
 * ['external_ids', 'delete', ['owner']]       // ["external_ids","delete",["set",["owner"]]]
 * ['priority', '+=', 10]                      // ACL: ["priority","+=",10]
 * ```
 */
export type MutationOf<DB extends TableMap, T extends TableName<DB>> = {
  // `undefined`: a column a client's `compat` option says may be absent; its values are the others.
  [C in MutableColumnOf<DB, T>]: MutationFor<C, Exclude<RowOf<DB, T>[C], undefined>>;
}[MutableColumnOf<DB, T>];

const ARITHMETIC: ReadonlySet<string> = new Set(['+=', '-=', '*=', '/=', '%=']);

/** The error of a mutation that breaks a rule. */
function mutationError(
  table: TableSchema,
  column: string,
  mutator: unknown,
  value: unknown,
  reason: string,
): never {
  throw new DatumError(table.name, column, value, `mutation "${String(mutator)}": ${reason}`);
}

/**
 * Compile one mutation to the wire, after checking the column, the mutator
 * and the value with the shared validators.
 * @throws DatumError naming the table, column, value and broken rule.
 */
export function compileMutation(
  table: TableSchema,
  mutation: unknown,
  ctx: EncodeContext,
): Mutation {
  if (!Array.isArray(mutation) || mutation.length !== 3) {
    throw new DatumError(
      table.name,
      undefined,
      mutation,
      'a mutation is a [column, mutator, value] triple',
    );
  }
  const [name, mutator, value] = mutation as [unknown, unknown, unknown];
  if (typeof name !== 'string') {
    throw new DatumError(table.name, undefined, name, 'a mutation column must be a string');
  }
  const column = table.columns[name];
  if (column === undefined) {
    throw new DatumError(table.name, name, value, `table ${table.name} has no column ${name}`);
  }
  if (name === '_uuid' || name === '_version' || !column.mutable) {
    throw new DatumError(table.name, name, value, `column ${name} is immutable`);
  }
  const t = column.type;
  let type: ColumnSchema;
  let arg: unknown = value;
  if (typeof mutator === 'string' && ARITHMETIC.has(mutator)) {
    if ((t.key.type !== 'integer' && t.key.type !== 'real') || t.value !== undefined) {
      mutationError(
        table,
        name,
        mutator,
        value,
        `arithmetic applies only to integer and real columns (and sets of them), not to ${describeColumnType(column)}`,
      );
    }
    if (mutator === '%=' && t.key.type !== 'integer') {
      mutationError(
        table,
        name,
        mutator,
        value,
        `"%=" applies only to integer columns, not to ${describeColumnType(column)}`,
      );
    }
    if ((mutator === '/=' || mutator === '%=') && (value === 0 || value === 0n)) {
      mutationError(
        table,
        name,
        mutator,
        value,
        'division by zero (the server would answer "domain error")',
      );
    }
    type = bareAtomType(column);
  } else if (mutator === 'insert' || mutator === 'delete') {
    if (t.value !== undefined) {
      if (mutator === 'delete' && Array.isArray(value)) {
        type = keysType(column);
        // Map keys are strings in JS; delete by key accepts them or the atoms.
        if (t.key.type !== 'string' && t.key.type !== 'uuid') {
          arg = value.map((k: unknown) => {
            if (typeof k !== 'string') return k;
            try {
              return parseMapKey(t.key, k);
            } catch (e) {
              return mutationError(
                table,
                name,
                mutator,
                value,
                e instanceof DatumError ? e.reason : String(e),
              );
            }
          });
        }
      } else {
        type = pairsType(column);
      }
    } else if (t.max > 1 || t.min === 0) {
      type = elementsType(column);
    } else {
      return mutationError(
        table,
        name,
        mutator,
        value,
        `insert and delete apply only to sets and maps, not to ${describeColumnType(column)}`,
      );
    }
  } else {
    return mutationError(
      table,
      name,
      mutator,
      value,
      'unknown mutator: use +=, -=, *=, /=, %=, insert or delete',
    );
  }
  const problem = columnValueProblem(type, arg);
  if (problem !== undefined) mutationError(table, name, mutator, value, problem);
  const wire = compileColumnCodec(table.name, type).encode(arg, ctx);
  return [name, mutator as Mutator, wire as WireValue];
}

/**
 * Compile a list of mutations.
 * @throws DatumError naming the table, column, value and broken rule.
 */
export function compileMutations(
  table: TableSchema,
  mutations: unknown,
  ctx: EncodeContext,
): Mutation[] {
  if (!Array.isArray(mutations)) {
    throw new DatumError(
      table.name,
      undefined,
      mutations,
      'mutations must be a list of [column, mutator, value]',
    );
  }
  const out: Mutation[] = [];
  for (const m of mutations) out.push(compileMutation(table, m, ctx));
  return out;
}

/**
 * The OVSDB types of operation arguments that are not a whole column value:
 * the value of an `includes` condition (a subset), of a `<` condition (one
 * atom), of a set or map mutation, of an arithmetic mutation. Each is a
 * {@link ColumnSchema} derived from the column's, cached per column, so the
 * shared validators and codecs (which cache per column object) check and
 * encode them.
 * @module
 */

import type { BaseType, ColumnKind, ColumnSchema, ColumnType } from '../schema/schema-types.js';

type Derivation =
  | 'subset'
  | 'unbounded'
  | 'atom'
  | 'bareAtom'
  | 'elements'
  | 'pairs'
  | 'keys'
  | 'anyKeys';

const cache = new WeakMap<ColumnSchema, Map<Derivation, ColumnSchema>>();

function kindOf(type: Omit<ColumnType, 'kind'>): ColumnKind {
  if (type.value !== undefined) return 'map';
  if (type.max > 1) return 'set';
  return type.min === 0 ? 'optional' : 'scalar';
}

function derive(column: ColumnSchema, how: Derivation): ColumnSchema {
  let byHow = cache.get(column);
  if (byHow === undefined) {
    byHow = new Map();
    cache.set(column, byHow);
  }
  let out = byHow.get(how);
  if (out === undefined) {
    out = build(column, how);
    byHow.set(how, out);
  }
  return out;
}

function bare(base: BaseType): BaseType {
  return { type: base.type, refTable: base.refTable, refType: base.refType };
}

function build(column: ColumnSchema, how: Derivation): ColumnSchema {
  const t = column.type;
  let type: Omit<ColumnType, 'kind'>;
  switch (how) {
    case 'subset':
      type = { key: t.key, value: t.value, min: 0, max: t.max };
      break;
    case 'unbounded':
      type = { key: t.key, value: t.value, min: 0, max: Number.POSITIVE_INFINITY };
      break;
    case 'atom':
      type = { key: t.key, min: 1, max: 1 };
      break;
    case 'bareAtom':
      type = { key: bare(t.key), min: 1, max: 1 };
      break;
    case 'elements':
    case 'keys':
    case 'anyKeys':
      // Always a set (an array in JS), even for an optional column.
      return {
        name: column.name,
        type: {
          key: t.key,
          min: 0,
          max: how === 'anyKeys' ? Number.POSITIVE_INFINITY : t.max,
          kind: 'set',
        },
        ephemeral: column.ephemeral,
        mutable: column.mutable,
      };
    case 'pairs':
      type = { key: t.key, value: t.value, min: 0, max: t.max };
      break;
  }
  const full: ColumnType = { ...type, kind: kindOf(type) };
  return { name: column.name, type: full, ephemeral: column.ephemeral, mutable: column.mutable };
}

/** The value of an `includes`/`excludes` condition: the column's type with `min` 0. */
export function subsetType(column: ColumnSchema): ColumnSchema {
  return derive(column, 'subset');
}

/** One atom of the column's key type, constraints included (the value of `<`, `<=`, `>`, `>=`). */
export function atomType(column: ColumnSchema): ColumnSchema {
  return derive(column, 'atom');
}

/** One atom of the column's key type without constraints (the argument of `+=` and the others). */
export function bareAtomType(column: ColumnSchema): ColumnSchema {
  return derive(column, 'bareAtom');
}

/**
 * A set of the column's key atoms, with their constraints (the argument of
 * set `insert`/`delete`). It is always a set (kind `set`), even for an
 * optional column, and holds at most the column's `max` elements.
 */
export function elementsType(column: ColumnSchema): ColumnSchema {
  return derive(column, 'elements');
}

/** A map of the column's pairs with `min` 0 (the argument of map `insert`, and of `delete` by pair). */
export function pairsType(column: ColumnSchema): ColumnSchema {
  return derive(column, 'pairs');
}

/** A set of the map column's keys (the argument of map `delete` by key). */
export function keysType(column: ColumnSchema): ColumnSchema {
  return derive(column, 'keys');
}

/**
 * The type ovsdb-server reads the value of condition function `fn` on
 * `column` with (`ovsdb_clause_from_json`): the column's own type for `==`
 * and `!=`; for `includes` the column's with `min` 0, and for `excludes`
 * with `min` 0 and no `max` (both the column's own type for a column holding
 * exactly one value); one atom for `<`, `<=`, `>`, `>=`. Constraints (enum,
 * range, length) are kept, so a value outside them is refused there.
 */
export function serverConditionType(column: ColumnSchema, fn: string): ColumnSchema {
  const scalar = column.type.kind === 'scalar';
  switch (fn) {
    case 'includes':
      return scalar ? column : derive(column, 'subset');
    case 'excludes':
      return scalar ? column : derive(column, 'unbounded');
    case '<':
    case '<=':
    case '>':
    case '>=':
      return derive(column, 'atom');
    default:
      return column;
  }
}

/**
 * The type ovsdb-server reads the argument of `mutator` on `column` with
 * (`ovsdb_mutation_from_json`), constraints kept: `insert` takes the column's
 * type with `min` 0, `delete` with `min` 0 and no `max` (for a map, pairs
 * or, when `byKey`, a set of keys). Undefined for the arithmetic mutators,
 * whose argument the server reads without constraints (it checks the result).
 */
export function serverMutationType(
  column: ColumnSchema,
  mutator: string,
  byKey: boolean,
): ColumnSchema | undefined {
  if (mutator === 'insert') return derive(column, 'subset');
  if (mutator !== 'delete') return undefined;
  return byKey && column.type.value !== undefined
    ? derive(column, 'anyKeys')
    : derive(column, 'unbounded');
}

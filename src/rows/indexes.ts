/**
 * Indexes over the rows of one replica table.
 *
 * - {@link UniqueIndex}: a schema index (`indexes` in the `.ovsschema`): the
 *   combined value of its columns is unique among the table's rows, as the
 *   server enforces at commit.
 * - {@link MultiIndex}: a client index, declared by the program: non-unique,
 *   on a column, on one key of a map column (e.g. `external_ids['pod']`), or
 *   on any value computed from the row.
 *
 * Both are kept up to date by the replica as rows change; a lookup is one
 * hash-map access.
 * @module
 */

import type { TableSchema } from '../ovsdb/schema/schema-types.js';
import { toInt64 } from '../ovsdb/values/int64.js';
import { OvsdbError } from '../ovsdb/wire/errors.js';
import { stringifyJson } from '../ovsdb/wire/json-stringify.js';
import type { Row } from './codec.js';

/** A value an index maps from: an atom (an integer beyond ±(2^53−1) is a bigint). */
export type IndexValue = string | number | bigint | boolean;

/** A looked-up value in canonical form: a bigint that is a safe integer becomes its number. */
function lookupValue<T>(v: T): T {
  return typeof v === 'bigint' ? ((toInt64(v) ?? v) as T) : v;
}

/**
 * How a client index computes its values from a row:
 * - `{ column }`: the column's value: a scalar or optional column gives its
 *   value (rows whose optional column is empty are not indexed); a set column
 *   gives one entry per element; a map column gives one entry per key;
 * - `{ column, key }`: for a map column, the value at `key` (rows without
 *   that key are not indexed), e.g. `{ column: 'external_ids', key: 'pod' }`;
 * - `{ compute }`: whatever the function returns for the row: one value, an
 *   array of values, or null/undefined for none.
 */
export type ClientIndexSpec<R = Row> =
  | { readonly column: Extract<keyof R, string>; readonly key?: string | undefined }
  | {
      readonly compute: (row: R) => IndexValue | readonly IndexValue[] | null | undefined;
    };

/** A lookup that names an index or columns that cannot be used. */
export class IndexError extends OvsdbError {
  override name = 'IndexError';
  constructor(
    /** The table looked up. */
    readonly table: string,
    /** The index name or the column list. */
    readonly index: string,
    /** Why the lookup is not possible. */
    readonly reason: string,
  ) {
    super(`${table}: index ${index}: ${reason}`);
  }
}

/** Canonical JSON of a JS value: set elements and map keys sorted (integers exact). */
function canonical(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    const parts = value.map((v) => stringifyJson(v)).sort();
    return `[${parts.join(',')}]`;
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    const v = value as Record<string, unknown>;
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stringifyJson(v[k])}`).join(',')}}`;
  }
  return value === undefined ? undefined : stringifyJson(value);
}

/**
 * A schema (unique) index: value of its columns → row UUID.
 *
 * ```ts
 * const byName = new UniqueIndex(NB.schema.tables.Logical_Switch_Port!, ['name']);
 * byName.add(row._uuid, row);
 * byName.get({ name: 'lsp1' }); // row._uuid
 * ```
 *
 * While a transaction's changes are being applied, two rows may briefly
 * claim one key (a swap of names); an entry is only removed by the row it
 * points to, so the index is exact again once the whole transaction is in.
 */
export class UniqueIndex {
  /** The index columns, as in the schema. */
  readonly columns: readonly string[];
  private readonly map = new Map<unknown, string>();
  private readonly single: string | undefined;

  /**
   * @param table - the table's schema.
   * @param columns - the index columns.
   */
  constructor(
    readonly table: TableSchema,
    columns: readonly string[],
  ) {
    this.columns = columns;
    const only = columns.length === 1 ? columns[0]! : undefined;
    const kind = only === undefined ? undefined : table.columns[only]?.type.kind;
    this.single = kind === 'scalar' || kind === 'optional' ? only : undefined;
  }

  /** The key of the index columns' values in `values` (a row or a partial row). */
  keyOf(values: Readonly<Record<string, unknown>>): unknown {
    if (this.single !== undefined) return lookupValue(values[this.single]);
    if (this.columns.length === 1) return canonical(values[this.columns[0]!]);
    return this.columns.map((c) => canonical(values[c])).join('\u0000');
  }

  /** Index `row` under `uuid`. */
  add(uuid: string, row: Row): void {
    this.map.set(this.keyOf(row), uuid);
  }

  /** Remove `row`'s entry, if it still points to `uuid`. */
  remove(uuid: string, row: Row): void {
    const key = this.keyOf(row);
    if (this.map.get(key) === uuid) this.map.delete(key);
  }

  /** Move `uuid` from `before`'s key to `after`'s. */
  update(uuid: string, before: Row, after: Row): void {
    if (this.single !== undefined && before[this.single] === after[this.single]) return;
    const a = this.keyOf(before);
    const b = this.keyOf(after);
    if (a === b) return;
    if (this.map.get(a) === uuid) this.map.delete(a);
    this.map.set(b, uuid);
  }

  /** The UUID of the row whose index columns have `values`, if any. */
  get(values: Readonly<Record<string, unknown>>): string | undefined {
    return this.map.get(this.keyOf(values));
  }

  /** Forget every entry. */
  clear(): void {
    this.map.clear();
  }

  /** The number of entries. */
  get size(): number {
    return this.map.size;
  }
}

const NONE: readonly IndexValue[] = Object.freeze([]);

/**
 * A client index: value → UUIDs of the rows that have it (non-unique).
 *
 * ```ts
 * const pods = new MultiIndex('pod', NB.schema.tables.Logical_Switch_Port!, {
 *   column: 'external_ids',
 *   key: 'pod',
 * });
 * pods.add(row._uuid, row);
 * pods.get('ns/web-1'); // [row._uuid]
 * ```
 */
export class MultiIndex {
  // One UUID is stored as the string itself; two or more as a Set.
  private readonly map = new Map<IndexValue, string | Set<string>>();
  private readonly valuesOf: (row: Row) => readonly IndexValue[];
  private readonly column: string | undefined;

  /**
   * @param name - the index name (for errors).
   * @param table - the table's schema.
   * @param spec - what to index; see {@link ClientIndexSpec}.
   * @throws IndexError when `spec` names a column the table does not have, or
   *   a `key` of a column that is not a map.
   */
  constructor(
    readonly name: string,
    readonly table: TableSchema,
    spec: ClientIndexSpec,
  ) {
    if ('compute' in spec) {
      const compute = spec.compute;
      this.column = undefined;
      this.valuesOf = (row) => {
        const v = compute(row);
        if (v === null || v === undefined) return NONE;
        return Array.isArray(v) ? (v as readonly IndexValue[]) : [v as IndexValue];
      };
      return;
    }
    const columnName = spec.column;
    const column = table.columns[columnName];
    if (column === undefined) {
      throw new IndexError(table.name, name, `the table has no column "${columnName}"`);
    }
    this.column = columnName;
    const key = spec.key;
    if (key !== undefined) {
      if (column.type.kind !== 'map') {
        throw new IndexError(
          table.name,
          name,
          `"key" needs a map column, but "${columnName}" is a ${column.type.kind}`,
        );
      }
      this.valuesOf = (row) => {
        const m = row[columnName] as Readonly<Record<string, IndexValue>> | undefined;
        if (m === undefined || !Object.hasOwn(m, key)) return NONE;
        return [m[key]!];
      };
      return;
    }
    switch (column.type.kind) {
      case 'scalar':
        this.valuesOf = (row) => [row[columnName] as IndexValue];
        break;
      case 'optional':
        this.valuesOf = (row) => {
          const v = row[columnName];
          return v === null || v === undefined ? NONE : [v as IndexValue];
        };
        break;
      case 'set':
        this.valuesOf = (row) => (row[columnName] as readonly IndexValue[] | undefined) ?? NONE;
        break;
      case 'map':
        this.valuesOf = (row) => Object.keys((row[columnName] as object | undefined) ?? {});
        break;
    }
  }

  /** The column the index reads, when it reads one (not for `compute`). */
  get sourceColumn(): string | undefined {
    return this.column;
  }

  /** The values `row` is indexed under (what a lookup of any of them finds it by). */
  valuesFor(row: Row): readonly IndexValue[] {
    return this.valuesOf(row);
  }

  /** Index `row` under `uuid`. */
  add(uuid: string, row: Row): void {
    for (const v of this.valuesOf(row)) this.addOne(v, uuid);
  }

  /** Remove `row`'s entries for `uuid`. */
  remove(uuid: string, row: Row): void {
    for (const v of this.valuesOf(row)) this.removeOne(v, uuid);
  }

  /** Move `uuid` from `before`'s values to `after`'s. */
  update(uuid: string, before: Row, after: Row): void {
    const col = this.column;
    if (col !== undefined && before[col] === after[col]) return;
    const a = this.valuesOf(before);
    const b = this.valuesOf(after);
    if (a.length === 1 && b.length === 1 && a[0] === b[0]) return;
    for (const v of a) if (!b.includes(v)) this.removeOne(v, uuid);
    for (const v of b) if (!a.includes(v)) this.addOne(v, uuid);
  }

  /** The UUIDs of the rows indexed under `value` (in no particular order). */
  get(value: IndexValue): string[] {
    const e = this.map.get(lookupValue(value));
    if (e === undefined) return [];
    return typeof e === 'string' ? [e] : [...e];
  }

  /** The distinct values indexed. */
  keys(): IterableIterator<IndexValue> {
    return this.map.keys();
  }

  /** Forget every entry. */
  clear(): void {
    this.map.clear();
  }

  private addOne(v: IndexValue, uuid: string): void {
    const e = this.map.get(v);
    if (e === undefined) this.map.set(v, uuid);
    else if (typeof e === 'string') {
      if (e !== uuid) this.map.set(v, new Set([e, uuid]));
    } else e.add(uuid);
  }

  private removeOne(v: IndexValue, uuid: string): void {
    const e = this.map.get(v);
    if (e === undefined) return;
    if (typeof e === 'string') {
      if (e === uuid) this.map.delete(v);
      return;
    }
    e.delete(uuid);
    if (e.size === 1) this.map.set(v, e.values().next().value as string);
  }
}

/**
 * The committed storage of one table (rows, strong reference counts, unique
 * and secondary indexes) and the row helpers the engine shares: column
 * types, rows as wire JSON, and row comparison over a set of columns.
 * @module
 */

import type { TableSchema } from '../../ovsdb/schema/schema-types.js';
import {
  compareDatums,
  type Datum,
  type DatumType,
  datumsEqual,
} from '../../ovsdb/values/sorted-datum.js';
import { serverColumnIndexOrder, serverColumnOrder } from './ovs-hash.js';
import { type Row, RowMap, TableIndexes } from './secondary-index.js';

export type { Row } from './secondary-index.js';

import { datumToWire } from './values.js';

/** A table's column orders (see {@link TableStore}), shared by every store of one table schema. */
interface ColumnOrders {
  readonly file: readonly string[];
  readonly stored: boolean;
  readonly order: readonly string[];
  readonly index: ReadonlyMap<string, number>;
}

const columnOrderCache = new WeakMap<TableSchema, ColumnOrders>();

/**
 * The column orders of `table`, computed once per table schema (hashing every
 * column name), so that a new database of a schema (one per test) does not
 * compute them again.
 */
function columnOrders(table: TableSchema, file: readonly string[], stored: boolean): ColumnOrders {
  const cached = columnOrderCache.get(table);
  if (
    cached !== undefined &&
    cached.stored === stored &&
    cached.file.length === file.length &&
    cached.file.every((c, i) => c === file[i])
  ) {
    return cached;
  }
  const orders: ColumnOrders = {
    file: [...file],
    stored,
    order: serverColumnOrder(file, stored),
    index: new Map(serverColumnIndexOrder(file, stored).map((c, i) => [c, i])),
  };
  columnOrderCache.set(table, orders);
  return orders;
}

/** The committed rows of one table, with their strong reference counts and indexes. */
export class TableStore {
  /** Rows by UUID, in insertion order (changes to it keep {@link secondary} up to date). */
  readonly rows = new RowMap();
  /** The secondary indexes, built lazily for the columns conditions look up (`secondary-index.ts`). */
  readonly secondary = new TableIndexes(this.rows);
  /** Number of strong references from other rows, per row (absent means 0). */
  readonly refCounts = new Map<string, number>();
  /** One map per schema index: index key → UUID of the row holding it. */
  readonly indexes: Map<string, string>[];
  /** Column names in ovsdb-server's iteration order (`_uuid`, `_version` included). */
  readonly columnOrder: readonly string[];
  /** Each column's index in ovsdb-server (the order it creates them in). */
  readonly columnIndex: ReadonlyMap<string, number>;

  constructor(
    readonly schema: TableSchema,
    fileColumnOrder: readonly string[],
    stored = false,
  ) {
    this.indexes = schema.indexes.map(() => new Map());
    const orders = columnOrders(schema, fileColumnOrder, stored);
    this.columnOrder = orders.order;
    this.columnIndex = orders.index;
  }

  /** The key of `fields` in index `i`. */
  indexKey(i: number, fields: Readonly<Record<string, Datum>>): string {
    return columnsKey(fields, this.schema.indexes[i] as readonly string[]);
  }
}

/** A bigint as an object, which no atom is: keeps keys with bigints distinct from any others. */
function bigintReplacer(_key: string, v: unknown): unknown {
  return typeof v === 'bigint' ? { n: String(v) } : v;
}

/**
 * A string that is equal for two rows exactly when their values in `columns`
 * are (datums are canonical: sorted, and integers in canonical int64 form).
 * One column holding one string (a name, a UUID: most indexes) is keyed as
 * `s` and the string, which no other key starts with (those are JSON arrays).
 */
export function columnsKey(
  fields: Readonly<Record<string, Datum>>,
  columns: readonly string[],
): string {
  if (columns.length === 1) {
    const d = fields[columns[0] as string];
    if (d !== undefined && d.values === undefined && d.keys.length === 1) {
      const k = d.keys[0];
      if (typeof k === 'string') return `s${k}`;
    }
  }
  const values = columns.map((c) => fields[c]);
  try {
    return JSON.stringify(values);
  } catch {
    // Only a bigint makes JSON.stringify throw here: the common path pays nothing for it.
    return JSON.stringify(values, bigintReplacer);
  }
}

const columnTypes = new WeakMap<TableSchema, Map<string, DatumType>>();

/** The type of a column as a datum type (one shared object per column). */
export function columnType(table: TableSchema, column: string): DatumType {
  let types = columnTypes.get(table);
  if (types === undefined) {
    types = new Map();
    columnTypes.set(table, types);
  }
  let t = types.get(column);
  if (t === undefined) {
    const c = Object.hasOwn(table.columns, column) ? table.columns[column] : undefined;
    if (c === undefined) throw new Error(`no column ${table.name}.${column}`);
    t = { key: c.type.key, value: c.type.value, min: c.type.min, max: c.type.max };
    types.set(column, t);
  }
  return t;
}

/** A row as wire JSON with the given columns (all when omitted), as `select` returns it. */
export function rowToWire(
  table: TableSchema,
  row: Row,
  columns?: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of columns ?? Object.keys(table.columns)) {
    out[name] = datumToWire(row.fields[name] as Datum, columnType(table, name));
  }
  return out;
}

/** Whether `a` and `b` hold equal values in every one of `columns`. */
export function rowsEqualOn(a: Row, b: Row, columns: readonly string[]): boolean {
  for (const c of columns)
    if (!datumsEqual(a.fields[c] as Datum, b.fields[c] as Datum)) return false;
  return true;
}

/** `a` against `b` on `columns` in turn (the first difference decides): negative, 0 or positive. */
export function compareRowsOn(a: Row, b: Row, columns: readonly string[]): number {
  for (const c of columns) {
    const r = compareDatums(a.fields[c] as Datum, b.fields[c] as Datum);
    if (r !== 0) return r;
  }
  return 0;
}

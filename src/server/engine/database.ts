/**
 * The in-memory database of ovnkit's OVSDB server engine: committed table
 * storage (rows, strong reference counts, unique indexes) and the
 * {@link Database} facade that runs `transact` requests against it.
 *
 * The engine is pure and synchronous. Everything a client can observe in a
 * `transact` reply, and the database state it leaves, matches ovsdb-server 3.1;
 * see `executor.ts` for the semantics and the documented differences.
 * @module
 */

import type { DatabaseSchema, TableSchema } from '../../ovsdb/schema/schema-types.js';
import { compileTableCodec } from '../../ovsdb/values/datum.js';
import { executeTransaction, type TransactOptions, type TransactOutcome } from './executor.js';
import { serverColumnOrder } from './ovs-hash.js';
import { type Datum, type DatumType, datumToWire } from './values.js';

/** A committed or in-transaction row: its UUID and every column's value (`_uuid`, `_version` included). */
export interface Row {
  readonly uuid: string;
  readonly fields: Readonly<Record<string, Datum>>;
}

/** The committed rows of one table, with their strong reference counts and unique indexes. */
export class TableStore {
  /** Rows by UUID, in insertion order. */
  readonly rows = new Map<string, Row>();
  /** Number of strong references from other rows, per row (absent means 0). */
  readonly refCounts = new Map<string, number>();
  /** One map per schema index: index key → UUID of the row holding it. */
  readonly indexes: Map<string, string>[];
  /** Column names in ovsdb-server's iteration order (`_uuid`, `_version` included). */
  readonly columnOrder: readonly string[];

  constructor(
    readonly schema: TableSchema,
    fileColumnOrder: readonly string[],
  ) {
    this.indexes = schema.indexes.map(() => new Map());
    this.columnOrder = serverColumnOrder(fileColumnOrder);
  }

  /** The key of `fields` in index `i`. */
  indexKey(i: number, fields: Readonly<Record<string, Datum>>): string {
    const cols = this.schema.indexes[i] as readonly string[];
    return JSON.stringify(cols.map((c) => fields[c]));
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

/**
 * A row in ovnkit's JS representation (the datum codec's: `T`, `T | null`,
 * `T[]`, `Record<K, V>`), decoded with the codec from its wire form.
 */
export function rowToJs(table: TableSchema, row: Row): Record<string, unknown> {
  return compileTableCodec(table).decodeRow(rowToWire(table, row));
}

function fileColumnOrder(schema: DatabaseSchema, table: TableSchema): string[] {
  const json = schema.json as { tables?: Record<string, { columns?: Record<string, unknown> }> };
  const cols = json?.tables?.[table.name]?.columns;
  return cols !== undefined && typeof cols === 'object'
    ? Object.keys(cols)
    : [...table.columnNames];
}

/**
 * An OVSDB database held in memory. `transact` runs one request's operations
 * atomically and returns the exact result array ovsdb-server would send, plus
 * the committed changes for monitors.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { parseSchema } from 'ovnkit/ovsdb';
 * import { Database } from 'ovnkit/server';
 *
 * const json: unknown = JSON.parse(readFileSync('ovn-nb.ovsschema', 'utf8'));
 * const db = new Database(parseSchema(json));
 * const outcome = db.transact([{ op: 'insert', table: 'Logical_Switch', row: { name: 'ls0' } }]);
 * if (!outcome.blocked) console.log(outcome.results); // [{ uuid: ['uuid', '…'] }]
 * ```
 */
export class Database {
  /** Committed storage per table. */
  readonly tables: ReadonlyMap<string, TableStore>;

  constructor(readonly schema: DatabaseSchema) {
    const tables = new Map<string, TableStore>();
    for (const [name, table] of Object.entries(schema.tables)) {
      tables.set(name, new TableStore(table, fileColumnOrder(schema, table)));
    }
    this.tables = tables;
  }

  /**
   * Execute one `transact` request. `ops` are the request's params after the
   * database name, as parsed JSON. Either the operations ran (successfully or
   * not) and `results` is the reply's result array, or a `wait` operation
   * cannot be satisfied yet and the outcome is `{ blocked: true, … }` (see
   * {@link TransactOutcome}); nothing is changed in that case.
   */
  transact(ops: readonly unknown[], options: TransactOptions = {}): TransactOutcome {
    return executeTransaction(this, ops, options);
  }

  /** Every row of every table as wire JSON (all columns), rows ordered by UUID. */
  dump(): Record<string, Record<string, unknown>[]> {
    const out: Record<string, Record<string, unknown>[]> = {};
    for (const [name, store] of this.tables) {
      const rows = [...store.rows.values()].sort((a, b) =>
        a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0,
      );
      out[name] = rows.map((r) => rowToWire(store.schema, r));
    }
    return out;
  }

  /** The committed row `uuid` of `table`, if any. */
  getRow(table: string, uuid: string): Row | undefined {
    return this.tables.get(table)?.rows.get(uuid);
  }
}

/**
 * The in-memory database of ovnkit's OVSDB server engine: the
 * {@link Database} facade over the committed table storage (rows, strong
 * reference counts, unique indexes; see `table-store.ts`) that runs
 * `transact` requests against it.
 *
 * The engine is pure and synchronous. Everything a client can observe in a
 * `transact` reply, and the database state it leaves, matches ovsdb-server 3.1;
 * see `executor.ts` for the semantics and the documented differences.
 * @module
 */

import type { DatabaseSchema, TableSchema } from '../../ovsdb/schema/schema-types.js';
import { compileTableCodec } from '../../ovsdb/values/datum.js';
import {
  type EngineTransactOptions,
  executeTransaction,
  type TransactOutcome,
} from './executor.js';
import { isStoredSchema } from './ovs-hash.js';
import { DEFAULT_INDEX_POLICY, type IndexPolicy } from './secondary-index.js';
import { type Row, rowToWire, TableStore } from './table-store.js';
import type { DatabaseState } from './types.js';

export { columnType, type Row, rowToWire, TableStore } from './table-store.js';

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
export class Database implements DatabaseState {
  /** @internal Committed storage per table. */
  readonly tables: ReadonlyMap<string, TableStore>;
  /**
   * @internal The transaction clock: `transact` calls so far. Secondary
   * indexes record their last use in it (see `secondary-index.ts`).
   */
  clock = 0;
  /**
   * @internal The rows conditions have been evaluated on so far (by `select`,
   * `update`, `mutate`, `delete` and `wait`), for tests of the query planner.
   */
  rowsVisited = 0;
  /** @internal When secondary indexes are built and dropped (tests change it). */
  indexPolicy: IndexPolicy = DEFAULT_INDEX_POLICY;

  constructor(readonly schema: DatabaseSchema) {
    const tables = new Map<string, TableStore>();
    for (const [name, table] of Object.entries(schema.tables)) {
      tables.set(
        name,
        new TableStore(table, fileColumnOrder(schema, table), isStoredSchema(schema)),
      );
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
  transact(ops: readonly unknown[], options: EngineTransactOptions = {}): TransactOutcome {
    return executeTransaction(this, ops, options);
  }

  /** @internal Advance the transaction clock; now and then, drop idle secondary indexes. */
  tick(): void {
    this.clock++;
    if (this.clock % this.indexPolicy.sweepEvery !== 0) return;
    for (const store of this.tables.values()) store.secondary.sweep(this.clock, this.indexPolicy);
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

  /** @internal The committed row `uuid` of `table`, if any. */
  getRow(table: string, uuid: string): Row | undefined {
    return this.tables.get(table)?.rows.get(uuid);
  }
}

/**
 * The databases one server serves: for each, its engine, transaction
 * history, schema JSON, pending transactions and monitors; and the
 * `_Server` database that describes them (see `server-db.ts`).
 * @module
 */

import { parseSchema } from '../ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import { Database } from './engine/database.js';
import type { TxnChanges } from './engine/executor.js';
import { shashOrder } from './engine/ovs-hash.js';
import { sharedSchemaJson } from './engine/schema-json.js';
import { TxnHistory } from './monitor/history.js';
import type { Monitor } from './monitor/monitor.js';
import type { PendingTransaction, Session } from './rpc/session.js';
import { ServerDatabase } from './server-db.js';

/** One served database and what the server keeps for it. */
export interface Served {
  readonly name: string;
  readonly db: Database;
  readonly history: TxnHistory;
  /** Whether the database is reserved (`_Server`): never saved, no history. */
  readonly reserved: boolean;
  readonly schemaJson: Readonly<Record<string, unknown>>;
  /** Pending transactions, in arrival order. */
  readonly triggers: Trigger[];
  readonly monitors: Set<Monitor>;
}

/** A `transact` request of a session waiting for a `wait` to be satisfied (or to time out). */
export interface Trigger extends PendingTransaction {
  readonly session: Session;
  readonly served: Served;
  readonly idKey: string;
  readonly ops: readonly unknown[];
  readonly created: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** A database to serve as given to the server: a parsed schema, `.ovsschema` JSON, or an engine {@link Database}. */
export function asDatabase(d: DatabaseSchema | Database | object): Database {
  if (d instanceof Database) return d;
  const maybe = d as Partial<DatabaseSchema>;
  const schema =
    typeof maybe.name === 'string' && maybe.tables !== undefined && 'json' in maybe
      ? (d as DatabaseSchema)
      : parseSchema(d);
  return new Database(schema);
}

/** The served databases of one server, by name, in the order they were added. */
export class DatabaseRegistry {
  private readonly served = new Map<string, Served>();
  private readonly serverDb = new ServerDatabase();
  /** The `_Server` databases of simulated cluster members (see {@link DatabaseRegistry.addView}). */
  private readonly views = new Set<Served>();

  /** @param historyLength How many transactions each database keeps for `monitor_cond_since`. */
  constructor(private readonly historyLength: number) {}

  /** The served database `name` (`_Server` included). */
  get(name: string): Served | undefined {
    return this.served.get(name);
  }

  /** Whether a database of that name is served. */
  has(name: string): boolean {
    return this.served.has(name);
  }

  /** The database names, in the order `list_dbs` returns them. */
  names(): string[] {
    return shashOrder([...this.served.keys()]);
  }

  /** Every served database (`_Server` included), in the order they were added. */
  all(): IterableIterator<Served> {
    return this.served.values();
  }

  /** The served database whose engine is `db` (a member's `_Server` included). */
  of(db: Database): Served | undefined {
    for (const served of this.served.values()) if (served.db === db) return served;
    for (const served of this.views) if (served.db === db) return served;
    return undefined;
  }

  /**
   * A `_Server` database of its own, with a row for every database served
   * now, for the sessions of one simulated cluster member (see
   * `OvsdbServer.serverView`).
   */
  addView(): { readonly served: Served; readonly rows: ServerDatabase } {
    const rows = new ServerDatabase();
    for (const s of this.served.values()) if (!s.reserved) rows.add(s.db.schema);
    const served = this.make(rows.db, true);
    this.views.add(served);
    return { served, rows };
  }

  /** Forget a view made by {@link DatabaseRegistry.addView}. */
  removeView(served: Served): void {
    this.views.delete(served);
  }

  /**
   * Serve `db`. Returns the change it makes to `_Server` (its new row), for
   * the caller to commit to `_Server`'s history and monitors.
   * @throws Error when a database of that name is already served.
   */
  add(db: Database): TxnChanges {
    if (db.schema.name === '_Server' || this.served.has(db.schema.name)) {
      throw new Error(`database ${db.schema.name} is already served`);
    }
    this.served.set(db.schema.name, this.make(db, false));
    return this.serverDb.add(db.schema);
  }

  /** Serve `_Server` itself (once, after the databases the server starts with). */
  addServerDatabase(): void {
    this.served.set('_Server', this.make(this.serverDb.db, true));
  }

  /**
   * Stop serving `name`. Returns the change it makes to `_Server` (its row
   * removed), or undefined when `_Server` has no row for it.
   */
  remove(name: string): TxnChanges | undefined {
    this.served.delete(name);
    return this.serverDb.remove(name);
  }

  /**
   * Serve `db` (a database converted to a new schema) in place of the
   * database of that name, with a new history and no monitors or pending
   * transactions. `_Server`'s row is left as it is: ovsdb-server 3.1 keeps
   * the schema it had there after a standalone database's conversion.
   */
  replace(db: Database): void {
    this.served.set(db.schema.name, this.make(db, false));
  }

  private make(db: Database, reserved: boolean): Served {
    return {
      name: db.schema.name,
      db,
      history: new TxnHistory(reserved ? 0 : this.historyLength),
      reserved,
      schemaJson: sharedSchemaJson(db.schema),
      triggers: [],
      monitors: new Set(),
    };
  }

  /**
   * What every database holds, `_Server` included, as ovsdb-server counts
   * it for `memory/show`: atoms, cells (rows × columns) and weak references.
   */
  contentCounts(): { atoms: number; cells: number; weakRefs: number } {
    let cells = 0;
    let atoms = 0;
    let weakRefs = 0;
    for (const served of this.all()) {
      for (const store of served.db.tables.values()) {
        const columns = Object.keys(store.schema.columns);
        const weak = columns.filter((c) => {
          const t = store.schema.columns[c]?.type;
          return (
            (t?.key.type === 'uuid' && t.key.refType === 'weak') ||
            (t?.value?.type === 'uuid' && t.value.refType === 'weak')
          );
        });
        cells += store.rows.size * columns.length;
        for (const row of store.rows.values()) {
          for (const c of columns) atoms += row.fields[c]?.keys.length ?? 0;
          for (const c of weak) weakRefs += row.fields[c]?.keys.length ?? 0;
        }
      }
    }
    return { atoms, cells, weakRefs };
  }
}

/**
 * The engine's shared types: what a transaction reads of its database
 * ({@link DatabaseState}, which `Database` is), its options, and the
 * changes a commit made. The operations, the staging area and the commit
 * import them from here, below `database.ts` and `executor.ts`.
 * @module
 */

import type { DatabaseSchema } from '../../ovsdb/schema/schema-types.js';
import type { IndexPolicy } from './secondary-index.js';
import type { Row, TableStore } from './table-store.js';

/** What the execution of a transaction reads of its database (a `Database`). */
export interface DatabaseState {
  readonly schema: DatabaseSchema;
  /** Committed storage per table. */
  readonly tables: ReadonlyMap<string, TableStore>;
  /** The transaction clock (see `Database.clock`). */
  readonly clock: number;
  /** The rows conditions have been evaluated on so far (see `Database.rowsVisited`). */
  rowsVisited: number;
  /** When secondary indexes are built and dropped. */
  readonly indexPolicy: IndexPolicy;
  /** Advance the transaction clock. */
  tick(): void;
}

/** Options of one `transact` call. */
export interface EngineTransactOptions {
  /** Whether the session owns lock `name` (for `assert`). Without it, no lock is owned. */
  readonly ownsLock?: ((name: string) => boolean) | undefined;
  /** Milliseconds since the request first arrived (for re-running a blocked request). */
  readonly elapsedMs?: number | undefined;
  /**
   * When false, an unsatisfied `wait` that would block fails instead with
   * "not supported" ("triggers not supported"), as ovsdb-server does where it
   * cannot wait. Defaults to true.
   */
  readonly canBlock?: boolean | undefined;
  /**
   * Only read-only operations: others fail with "not allowed", as on an
   * ovsdb-server connection whose remote is `read_only`.
   */
  readonly readOnly?: boolean | undefined;
  /** The RBAC role of the client (see `rbac.ts`); none or empty: no restriction. */
  readonly role?: string | undefined;
  /** The client's identity for RBAC (its TLS certificate's common name); none: every write is refused. */
  readonly peerId?: string | undefined;
  /**
   * Called once the transaction passed every check and before it changes
   * anything, with what it will change, whether it is durable, and the
   * reply's results: what must be ready before the commit is made there
   * (its record in a database file, its reply). An `OpError` it
   * throws refuses the transaction instead (appended to the results as a
   * commit error); the database is then unchanged.
   */
  readonly beforeCommit?:
    | ((changes: TxnChanges, durable: boolean, results: readonly unknown[]) => void)
    | undefined;
}

/** One committed row change: an insert (`old` null), a delete (`new` null) or a modification. */
export interface RowChange {
  readonly table: string;
  readonly uuid: string;
  readonly old: Row | null;
  readonly new: Row | null;
  /** The columns whose value changed (every column for inserts and deletes; `_version` included). */
  readonly changed: readonly string[];
}

/** The changes one successful commit made. */
export interface TxnChanges {
  /** Row changes, grouped by table in the order the transaction touched the tables. */
  readonly rows: readonly RowChange[];
  /** The `comment` operations' texts, joined by newlines, if any. */
  readonly comment?: string | undefined;
}

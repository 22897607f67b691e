/**
 * What the transaction layer needs from a database client: the
 * {@link TransactionExecutor} interface. The database client satisfies it
 * (see `client-executor.ts`); so does a bare connection without a replica
 * (see `connection-executor.ts`), for programs that do not keep one.
 * @module
 */

import type { DatabaseModel, RowOf, TableMap, TableName } from '../ovsdb/schema/model.js';
import type { Operation } from '../ovsdb/wire/wire.js';

/** The read access to the replica that `verify`, replay and outcome resolution use. */
export interface ReplicaReader<DB extends TableMap> {
  /** The row of `table` with UUID `uuid`, if the replica has it. */
  get<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined;
  /** True when the replica holds `table`. */
  isMonitored(table: TableName<DB>): boolean;
}

/** Options of {@link TransactionExecutor.transact}. */
export interface ExecuteOptions {
  /**
   * Abort waiting for the reply. With `cancelOnAbort`, the executor also
   * asks the server to cancel the request (`cancel`).
   */
  readonly signal?: AbortSignal | undefined;
  /** Send `cancel` for the request when `signal` aborts after it was sent. */
  readonly cancelOnAbort?: boolean | undefined;
  /**
   * Called once the request has been handed to the connection (it may have
   * reached the server). A rejection that comes before this call means the
   * request was never sent.
   */
  readonly onSent?: (() => void) | undefined;
  /**
   * Fence the transaction with this OVSDB lock (`false`: not fenced;
   * undefined: the executor's default, e.g. the database client's `fence`
   * option). A fenced transaction commits only while the executor's
   * session holds the lock; otherwise it is refused with
   * `LockNotHeldError`. An executor that cannot fence rejects a lock name
   * before sending.
   */
  readonly fence?: string | false | undefined;
}

/**
 * The execution side of a database: sends raw operations and reads the
 * replica. The transaction layer depends only on this interface.
 */
export interface TransactionExecutor<DB extends TableMap> {
  /** The database model (its name is the database the operations go to). */
  readonly model: DatabaseModel<DB>;
  /**
   * True when the executor honours `cancelOnAbort` (sends `cancel`). When it
   * does not, a transaction abandoned by a timeout or an abort may still be
   * held by the server (a `wait` with a timeout), so its outcome is checked
   * only once the server must have finished with it.
   */
  readonly cancels?: boolean | undefined;
  /** The replica, when the executor keeps one (needed by `verify`). */
  readonly replica?: ReplicaReader<DB> | undefined;
  /**
   * Send `ops` as one `transact` and resolve with the result array exactly
   * as the server sent it (one entry per operation, error entries included,
   * plus the extra commit-error entry, if any). When the executor keeps a
   * replica, it resolves only once the replica shows the transaction's
   * changes (read-your-writes).
   *
   * Rejects when no reply came: the connection closed, the signal aborted,
   * the server rejected the request as a whole. Call `options.onSent` once
   * the request is handed to the connection, so that the caller can tell a
   * request that was never sent from one whose outcome is unknown.
   */
  transact(ops: readonly Operation[], options: ExecuteOptions): Promise<readonly unknown[]>;
  /**
   * Resolve once the executor is connected and its replica is in sync with
   * the server (at once when it is). Rejects when the executor closed or
   * gave up reconnecting.
   */
  whenSynced(options?: { readonly signal?: AbortSignal | undefined }): Promise<void>;
}

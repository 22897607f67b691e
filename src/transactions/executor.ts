/**
 * What the transaction layer needs of a database: the
 * {@link TransactionExecutor}. The database client is one (its `executor`,
 * `src/client/executor.ts`); so is a bare connection without a replica
 * (`connectionExecutor`, `connection-executor.ts`).
 * @module
 */

import type { ClientObservability } from '../observability/metrics.js';
import type { DatabaseModel, RowOf, TableMap, TableName } from '../ovsdb/schema/model.js';
import type { ReplyHandler, SendOptions } from '../ovsdb/wire/rpc-options.js';
import type { Operation } from '../ovsdb/wire/wire.js';

/** The read access to the replica that `verify`, replay and outcome resolution use. */
export interface ReplicaReader<DB extends TableMap> {
  /** The row of `table` with UUID `uuid`, if the replica has it. */
  get<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined;
  /** True when the replica holds `table`. */
  isMonitored(table: TableName<DB>): boolean;
}

/**
 * One `transact` request on its way, as the executor sees it: what to send,
 * how long to wait, and where to report (it is its own
 * {@link ReplyHandler}). A transaction is one such object from the builder
 * to the socket and back: no promise or closure of its own per layer.
 */
export interface TransactRequest extends ReplyHandler {
  /** The operations, as sent (a fenced transaction's `assert` first). */
  readonly ops: readonly Operation[];
  /** The lock the transaction is fenced with (its `assert` is `ops[0]`), or undefined. */
  readonly fence: string | undefined;
  /**
   * When to give up waiting for the reply (a `Date.now()` time), counting
   * the wait for a connection; undefined: never.
   */
  readonly deadline: number | undefined;
  /** Aborting gives up waiting (and sends `cancel` once sent, with `cancelOnAbort`). */
  readonly signal: AbortSignal | undefined;
  /** Send `cancel` when the wait is given up after sending (timeout or abort). */
  readonly cancelOnAbort: boolean;
  /** Set by the executor as it sends: the server it sent to (for messages). */
  via: string | undefined;
}

/**
 * The execution side of a database: sends transactions and reads the
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
   * The lock a transaction is fenced with when its own `fence` option does
   * not say (the database client's `fence` option); undefined: none.
   */
  readonly fence?: string | undefined;
  /** The metrics recorder and tracer typed transactions report to, if any. */
  readonly observability?: ClientObservability | undefined;
  /**
   * Send `request` as one `transact` once the executor is in sync (at once
   * when it is), and report to it: `onSent(id)` as it is written, then
   * exactly once `onReply` with the result as the server sent it (when the
   * executor keeps a replica, the replica then shows the transaction's
   * changes: the server sends its updates before the reply) or `onError`
   * when no reply will come (closed, timed out, aborted, refused as a
   * whole). A failure before `onSent` means the request was never sent: the
   * executor checks what it can before sending (the server's schema, the
   * fence's lock) and reports a failure there.
   */
  send(request: TransactRequest): void;
  /**
   * Resolve once the executor is connected and its replica is in sync with
   * the server (at once when it is). Rejects when the executor closed or
   * gave up reconnecting.
   */
  whenSynced(options?: { readonly signal?: AbortSignal | undefined }): Promise<void>;
  /** Told of every request that failed (an operation's error, a refusal, a lost reply): for metrics. */
  failed?(error: unknown): void;
}

/**
 * The send options of `request` as the connection takes them (its deadline
 * as the time left), or undefined when it has neither deadline nor signal.
 */
export function sendOptionsOf(request: TransactRequest): SendOptions | undefined {
  const { deadline, signal } = request;
  if (deadline === undefined && signal === undefined) return undefined;
  return {
    timeoutMs: deadline === undefined ? undefined : Math.max(1, deadline - Date.now()),
    signal,
    cancelOnAbort: request.cancelOnAbort,
  };
}

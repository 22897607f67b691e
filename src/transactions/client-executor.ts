/**
 * A {@link TransactionExecutor} over the database client (`connectDatabase`):
 * its replica serves `verify` and outcome resolution, its reconnection
 * brings the connection back after a lost reply.
 * @module
 */

import {
  ClientClosedError,
  LockNotHeldError,
  TransactionOutcomeUnknownError,
} from '../client/client.js';
import type { ClientObservability } from '../client/metrics.js';
import { SchemaDriftError } from '../ovsdb/schema/compat.js';
import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import { TransactionError } from '../ovsdb/wire/errors.js';
import type { Operation } from '../ovsdb/wire/wire.js';
import type { ExecuteOptions, ReplicaReader, TransactionExecutor } from './executor.js';
import type { ObservedExecutor } from './metrics.js';

/** Options the client's raw `transact` accepts. */
export interface ClientTransactOptions {
  /** Abort waiting (for a connection, or for the reply). */
  readonly signal?: AbortSignal | undefined;
  /** Send `cancel` when `signal` aborts after the request was sent (if the client supports it). */
  readonly cancelOnAbort?: boolean | undefined;
  /** Called once the request is handed to the connection (if the client supports it). */
  readonly onSent?: (() => void) | undefined;
  /** Fence the transaction with this lock, or not (`false`); only passed when the client `fences`. */
  readonly fence?: string | false | undefined;
}

/**
 * What {@link clientExecutor} needs of a database client: the model, replica
 * reads, and a raw `transact` that waits for the client to be in sync,
 * resolves with the results once the replica shows the transaction
 * (read-your-writes), and rejects with `TransactionError` (carrying
 * `results`) when an operation failed. `whenSynced` is optional.
 */
export interface TransactingClient<DB extends TableMap> extends ReplicaReader<DB> {
  /** The database model. */
  readonly model: DatabaseModel<DB>;
  /** Send raw operations as one transaction. */
  transact(ops: readonly Operation[], options?: ClientTransactOptions): Promise<readonly unknown[]>;
  /** True when `transact` honours `cancelOnAbort` (sends `cancel`). */
  readonly cancels?: boolean | undefined;
  /** True when `transact` honours `fence` (asserts an OVSDB lock the client keeps). */
  readonly fences?: boolean | undefined;
  /** Resolve once connected and in sync. */
  whenSynced?(options?: { readonly signal?: AbortSignal | undefined }): Promise<void>;
  /**
   * The client's metrics recorder and tracer (`DatabaseClient.observability`):
   * typed transactions are counted and traced through them.
   */
  readonly observability?: ClientObservability | undefined;
}

/** True when `e` proves the request never left the client. */
function neverSent(e: unknown): boolean {
  // The client checks operations against the server's schema, and a fenced
  // transaction's lock, before sending.
  return (
    e instanceof ClientClosedError ||
    e instanceof SchemaDriftError ||
    (e instanceof LockNotHeldError && e.refusedBy === 'client')
  );
}

/**
 * Run transactions through a database client.
 *
 * ```ts
 * const nb = connectDatabase({ remotes: ['unix:/run/ovn/ovnnb_db.sock'], model: NB });
 * const db = createTransactor(clientExecutor(nb));
 * await db.transact((tx) => tx.insert('Logical_Switch', { name: 'sw0' }));
 * ```
 */
export function clientExecutor<DB extends TableMap>(
  client: TransactingClient<DB>,
): TransactionExecutor<DB> {
  const executor: TransactionExecutor<DB> & ObservedExecutor = {
    model: client.model,
    cancels: client.cancels === true,
    replica: client,
    observability: client.observability,
    transact(ops: readonly Operation[], options: ExecuteOptions): Promise<readonly unknown[]> {
      const fence = options.fence;
      if (typeof fence === 'string' && client.fences !== true) {
        return Promise.reject(
          new TypeError('transact: fence needs a client that keeps OVSDB locks (connectDatabase)'),
        );
      }
      let sent = false;
      const onSent = () => {
        if (sent) return;
        sent = true;
        options.onSent?.();
      };
      const request: {
        signal?: AbortSignal;
        cancelOnAbort?: boolean;
        onSent: () => void;
        fence?: string | false;
      } = { onSent };
      if (fence !== undefined && client.fences === true) request.fence = fence;
      if (options.signal !== undefined) request.signal = options.signal;
      if (options.cancelOnAbort !== undefined) request.cancelOnAbort = options.cancelOnAbort;
      let reply: Promise<readonly unknown[]>;
      try {
        reply = client.transact(ops, request);
      } catch (e) {
        reply = Promise.reject(e);
      }
      // A plain `then` rather than an async function: this is on the path of every write.
      return reply.then(undefined, (e: unknown) => {
        if (e instanceof TransactionError && e.results !== undefined) {
          onSent();
          return e.results;
        }
        // Unless the error proves the request was never sent, assume it may
        // have been (the outcome is then resolved, which is always safe).
        if (e instanceof TransactionOutcomeUnknownError || !neverSent(e)) onSent();
        throw e;
      });
    },
    async whenSynced(options?: { readonly signal?: AbortSignal | undefined }): Promise<void> {
      if (client.whenSynced !== undefined) return client.whenSynced(options);
      await client.transact([], {
        ...(options?.signal ? { signal: options.signal } : {}),
        ...(client.fences === true ? { fence: false } : {}),
      });
    },
  };
  return executor;
}

/**
 * A {@link TransactionExecutor} over a bare {@link OvsdbConnection}: no
 * replica (so no `verify`), no reconnection (a lost reply of an inserting
 * transaction is resolved only if the connection is still open, e.g. after
 * a timeout).
 * @module
 */

import type { OvsdbConnection } from '../ovsdb/connection/connection.js';
import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import { ConnectionClosedError } from '../ovsdb/wire/errors.js';
import { sendOptionsOf, type TransactionExecutor, type TransactRequest } from './executor.js';

/**
 * Run transactions of `model`'s database over `conn`.
 *
 * ```ts
 * const conn = await connect('unix:/run/ovn/ovnnb_db.sock');
 * await transact(connectionExecutor(conn, NB), (tx) => { tx.comment('hello'); });
 * ```
 */
export function connectionExecutor<DB extends TableMap>(
  conn: OvsdbConnection,
  model: DatabaseModel<DB>,
): TransactionExecutor<DB> {
  return {
    model,
    cancels: true,
    replica: undefined,
    send(request: TransactRequest): void {
      if (request.fence !== undefined) {
        // Nothing here keeps track of the connection's locks: `tx.assertLock(lock)` is the way.
        request.onError(
          new TypeError(
            'transact: fence needs a database client (openDatabase), which keeps its locks; over a bare connection use tx.assertLock(lock)',
          ),
        );
        return;
      }
      request.via = conn.description;
      conn.sendTransact(model.name, request.ops, request, sendOptionsOf(request));
    },
    whenSynced(): Promise<void> {
      if (conn.isClosed) {
        return Promise.reject(
          new ConnectionClosedError(`${conn.description}: the connection is closed`),
        );
      }
      return Promise.resolve();
    },
  };
}

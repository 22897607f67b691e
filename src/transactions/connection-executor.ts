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
import type { RequestOptions } from '../ovsdb/wire/rpc.js';
import type { Operation } from '../ovsdb/wire/wire.js';
import type { ExecuteOptions, TransactionExecutor } from './executor.js';

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
    transact(ops: readonly Operation[], options: ExecuteOptions): Promise<readonly unknown[]> {
      if (typeof options.fence === 'string') {
        // Nothing here keeps track of the connection's locks: `tx.assert(lock)` is the way.
        return Promise.reject(
          new TypeError(
            'transact: fence needs a database client (connectDatabase), which keeps its locks; over a bare connection use tx.assert(lock)',
          ),
        );
      }
      const request: RequestOptions = {};
      if (options.signal !== undefined) request.signal = options.signal;
      if (options.cancelOnAbort !== undefined) request.cancelOnAbort = options.cancelOnAbort;
      const onSent = options.onSent;
      if (onSent !== undefined) request.onId = () => onSent();
      return conn.transactRaw(model.name, ops, request);
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

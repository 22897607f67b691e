/**
 * Reading `transact` replies: the one place where a reply becomes the
 * operations' results or the error of the operation (or commit) that
 * failed. The connection's `transact`, the database client's typed and raw
 * transactions all read their replies here, once, as the server sent them.
 * @module
 */

import {
  isRefusal,
  ProtocolError,
  RpcError,
  refusalOfRpcError,
  TransactionError,
  TransactionRefusedError,
} from './errors.js';
import { isObject, preview } from './json.js';
import { stringifyJson } from './json-stringify.js';
import type { Operation } from './wire.js';

/**
 * Read the `result` of a `transact` of `ops`: undefined when every
 * operation succeeded, else the error of the first failing entry, a
 * `TransactionRefusedError` for a refusal (`permission error`, `not
 * allowed`, `not owner`) of an operation, a `TransactionError` otherwise
 * (`commit` set for the extra entry of a failed commit). Both carry the
 * whole result array.
 *
 * ```ts
 * readTransactReply(ops, [{ uuid: ['uuid', '…'] }], 'unix:/run/ovn/ovnnb_db.sock'); // undefined
 * readTransactReply(ops, [{}, { error: 'constraint violation', details: '…' }], where);
 * // TransactionError: operation 1 … failed: constraint violation: …
 * ```
 * @param where - who sent the reply, for the message of a malformed one.
 * @throws ProtocolError when the reply is not an array holding an object
 *   for each operation (or the error entry before them).
 */
export function readTransactReply(
  ops: readonly Operation[],
  result: unknown,
  where: string,
): TransactionError | undefined {
  if (!Array.isArray(result)) throw badReply(where, 'an array', result);
  for (let i = 0; i < result.length; i++) {
    const r: unknown = result[i];
    if (!isObject(r)) {
      if (i < ops.length) throw badReply(where, `an object result for operation ${i}`, result);
      continue;
    }
    const e = r['error'];
    if (e === undefined || e === null) continue;
    const op = ops[i];
    const details = typeof r['details'] === 'string' ? r['details'] : undefined;
    const error = typeof e === 'string' ? e : stringifyJson(e);
    const table = op !== undefined && 'table' in op ? op.table : undefined;
    if (isRefusal(error) && i < ops.length) {
      return new TransactionRefusedError('server', i, error, details, op?.op, table, result);
    }
    return new TransactionError(i, error, details, i >= ops.length, op?.op, table, result);
  }
  if (result.length < ops.length) {
    throw badReply(
      where,
      `${ops.length} results (one per operation)`,
      result,
      `got ${result.length}`,
    );
  }
  return undefined;
}

/**
 * The error a `transact` of `ops` that got no result rejects with: a
 * refusal of the whole request (an error reply `permission error`, `not
 * allowed` or `not owner`, from the server or a bridge) as a
 * `TransactionRefusedError`; any other error as it is.
 */
export function transactFailure(error: unknown, ops: readonly Operation[]): unknown {
  return (error instanceof RpcError && refusalOfRpcError(error, ops)) || error;
}

function badReply(where: string, expected: string, got: unknown, extra?: string): ProtocolError {
  return new ProtocolError(
    `${where}: unexpected "transact" reply: expected ${expected}${extra ? ` (${extra})` : ''}, got ${preview(got, 200)}`,
  );
}

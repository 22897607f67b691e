/**
 * Error classes of the OVSDB layer. Every error carries fields a program can
 * inspect; messages are for people.
 * @module
 */

import { preview } from './json.js';
import { stringifyJson } from './json-stringify.js';

/** Base class of every error ovnkit throws. */
export class OvsdbError extends Error {
  override name = 'OvsdbError';
}

/**
 * An `.ovsschema` document is invalid. `path` is the JSON path of the offending
 * member, e.g. `tables.ACL.columns.priority.type.key.maxInteger`.
 */
export class SchemaError extends OvsdbError {
  override name = 'SchemaError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path ? `${path}: ${reason}` : reason);
  }
}

/**
 * A value does not fit its column: wrong JSON shape, wrong type, or a constraint
 * (enum, range, length, cardinality) is broken.
 */
export class DatumError extends OvsdbError {
  override name = 'DatumError';
  constructor(
    readonly table: string | undefined,
    readonly column: string | undefined,
    readonly value: unknown,
    readonly reason: string,
  ) {
    super(`${table ?? '?'}.${column ?? '?'}: ${reason} (value: ${preview(value)})`);
  }
}

/** The peer sent bytes that are not a valid JSON-RPC 1.0 stream (or a message was too large). */
export class ProtocolError extends OvsdbError {
  override name = 'ProtocolError';
}

/** The connection closed (or was closed) while a request was pending or being sent. */
export class ConnectionClosedError extends OvsdbError {
  override name = 'ConnectionClosedError';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`connection closed: ${reason}`, options);
  }
}

/**
 * More bytes waited to be written on a connection than its bound allows
 * (the other side does not read, yet the connection keeps producing:
 * replies to its requests, or requests of the application): the
 * connection is dropped rather than buffering without end.
 */
export class WriteQueueFullError extends OvsdbError {
  override name = 'WriteQueueFullError';
  constructor(
    readonly description: string,
    /** The bytes that were queued, the new message included. */
    readonly queuedBytes: number,
    /** The bound, in bytes. */
    readonly limit: number,
  ) {
    super(
      `${description}: ${queuedBytes} bytes wait to be written, over the ${limit}-byte bound of the write queue (the other side is not reading); dropping the connection`,
    );
  }
}

/** A request got no reply within its timeout. */
export class RequestTimeoutError extends OvsdbError {
  override name = 'RequestTimeoutError';
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`${method}: no reply within ${timeoutMs} ms`);
  }
}

/** The server answered a request with a JSON-RPC error (e.g. `unknown method`, `canceled`). */
export class RpcError extends OvsdbError {
  override name = 'RpcError';
  constructor(
    readonly method: string,
    /** The `error` member of the reply, as sent. */
    readonly error: unknown,
  ) {
    super(`${method}: ${rpcErrorText(error)}`);
  }
  /** The error string: `error` itself when it is a string, or its `error` member. */
  get code(): string {
    return rpcErrorText(this.error);
  }
}

/**
 * A `transact` failed: operation `opIndex` (0-based) returned an error, or, when
 * `commit` is true, the commit itself failed (the extra result entry).
 */
export class TransactionError extends OvsdbError {
  override name = 'TransactionError';
  constructor(
    /** Index of the failing operation; equals the op count for a commit error. */
    readonly opIndex: number,
    /** OVSDB's `error` string, e.g. `constraint violation`. */
    readonly error: string,
    /** OVSDB's `details`, when given. */
    readonly details: string | undefined,
    /** True when the commit failed rather than an operation. */
    readonly commit: boolean,
    /** The failing operation's `op` (e.g. `insert`), when known. */
    readonly op?: string | undefined,
    /** The failing operation's table, when known. */
    readonly table?: string | undefined,
    /** The full result array as the server sent it. */
    readonly results?: readonly unknown[] | undefined,
  ) {
    super(
      `${commit ? 'commit' : `operation ${opIndex}${op ? ` (${op}${table ? ` ${table}` : ''})` : ''}`} failed: ${error}${details ? `: ${details}` : ''}`,
    );
  }
}

/**
 * The `error` strings with which a transaction is refused rather than
 * failed: `permission error` (ovsdb-server's role-based access control, or
 * the policy of an ovnkit bridge), `not allowed` (a read-only connection or
 * server) and `not owner` (an `assert` of a lock the session does not hold).
 */
export const REFUSAL_ERRORS: readonly string[] = ['permission error', 'not allowed', 'not owner'];

/**
 * Who refused a transaction: the OVSDB server, the ovnkit bridge in front of
 * it (its policy), or the client itself before sending (a transaction fenced
 * by a lock the client does not hold).
 */
export type RefusedBy = 'server' | 'bridge' | 'client';

/**
 * A transaction was refused: the server (access control, a read-only
 * connection, a lock not held) or the bridge's policy answered that this
 * client may not do it. The outcome is definite: **the transaction did not
 * commit** (nothing of it was applied), and sending it again changes
 * nothing. `error` and `details` are the refusal as sent; `opIndex`, `op`
 * and `table` name the refused operation when the refusal concerns one
 * (`opIndex` is -1 when it concerns the whole request, such as a bridge
 * refusing the method or the database).
 *
 * ```ts
 * try { await db.transact((tx) => tx.insert('Logical_Switch', { name: 'sw0' })); }
 * catch (e) {
 *   if (e instanceof TransactionRefusedError) console.log(e.refusedBy, e.error, e.details);
 *   // bridge permission error read-only bridge: transact operation 0 is "insert"; …
 * }
 * ```
 */
export class TransactionRefusedError extends TransactionError {
  override name = 'TransactionRefusedError';
  constructor(
    /** Who refused it. */
    readonly refusedBy: RefusedBy,
    opIndex: number,
    error: string,
    details: string | undefined,
    op?: string | undefined,
    table?: string | undefined,
    results?: readonly unknown[] | undefined,
  ) {
    super(opIndex, error, details, false, op, table, results);
    const where =
      opIndex < 0 ? '' : ` (operation ${opIndex}${op ? `: ${op}${table ? ` ${table}` : ''}` : ''})`;
    this.message = `transaction refused by the ${refusedBy}${where}: ${error}${details ? `: ${details}` : ''}; it did not commit`;
  }
}

/** True when `error`, an OVSDB `error` string, is one of {@link REFUSAL_ERRORS}. */
export function isRefusal(error: string): boolean {
  return REFUSAL_ERRORS.includes(error);
}

/**
 * The {@link TransactionRefusedError} for a JSON-RPC error reply to
 * `transact` (`rpc`) when it is a refusal, else undefined. The bridge marks
 * its own refusals (`"refused_by": "bridge"`, with `"operation"` when one
 * operation was refused).
 */
export function refusalOfRpcError(
  rpc: RpcError,
  ops: readonly { readonly op: string; readonly table?: string }[],
): TransactionRefusedError | undefined {
  const e = rpc.error;
  const obj =
    typeof e === 'object' && e !== null && !Array.isArray(e)
      ? (e as Record<string, unknown>)
      : undefined;
  const code =
    typeof e === 'string' ? e : typeof obj?.['error'] === 'string' ? obj['error'] : undefined;
  if (code === undefined || !isRefusal(code)) return undefined;
  const details = typeof obj?.['details'] === 'string' ? obj['details'] : undefined;
  const by: RefusedBy = obj?.['refused_by'] === 'bridge' ? 'bridge' : 'server';
  const at = obj?.['operation'];
  const index =
    typeof at === 'number' && Number.isInteger(at) && at >= 0 && at < ops.length ? at : -1;
  const op = index >= 0 ? ops[index] : undefined;
  const refused = new TransactionRefusedError(by, index, code, details, op?.op, op?.table);
  refused.cause = rpc;
  return refused;
}

function rpcErrorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && 'error' in error) {
    const e = (error as { error: unknown; details?: unknown }).error;
    const d = (error as { details?: unknown }).details;
    return typeof d === 'string' ? `${String(e)}: ${d}` : String(e);
  }
  return stringifyJson(error);
}

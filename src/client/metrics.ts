/**
 * The client's side of metrics and tracing: how its errors and lost connections
 * map to metric labels. Nothing here runs unless the client was given a
 * `metrics` or `tracer` option.
 * @module
 */

import type { ReconnectReason, RpcErrorKind } from '../observability/metrics.js';

export type { ClientObservability } from '../observability/metrics.js';

import { SchemaDriftError } from '../ovsdb/schema/compat.js';
import {
  ConnectionClosedError,
  ProtocolError,
  RequestTimeoutError,
  RpcError,
  TransactionError,
  TransactionRefusedError,
  WriteQueueFullError,
} from '../ovsdb/wire/errors.js';
import type { TableUpdates, TableUpdates2 } from '../ovsdb/wire/wire.js';
import { isUnknownMethod } from './errors.js';

/** The kind of a failed request's error, as a metric label. */
export function rpcErrorKind(e: unknown): RpcErrorKind {
  if (e instanceof TransactionRefusedError) return 'refused';
  if (e instanceof TransactionError) return 'operation_failed';
  if (e instanceof RequestTimeoutError) return 'timeout';
  if (e instanceof ConnectionClosedError) return 'connection_closed';
  if (e instanceof SchemaDriftError) return 'schema_drift';
  if (e instanceof ProtocolError) return 'protocol_error';
  if (isUnknownMethod(e)) return 'unknown_method';
  if (e instanceof RpcError) return 'rpc_error';
  return 'other';
}

/** The method named by a failed request's error, if it names one. */
export function rpcErrorMethod(e: unknown, fallback: string): string {
  if (e instanceof RpcError || e instanceof RequestTimeoutError) return e.method;
  return fallback;
}

/**
 * Why a session in sync ended, as a metric label: the code given when it
 * was ended, else what its reason and error say.
 */
export function reconnectReason(
  code: ReconnectReason | undefined,
  reason: string | undefined,
  error: unknown,
): ReconnectReason {
  if (code !== undefined) return code;
  if (reason?.startsWith('inactivity probe') === true) return 'probe';
  if (error instanceof WriteQueueFullError) return 'write_queue_full';
  if (error instanceof ProtocolError) return 'protocol_error';
  // The server closed its end: an end of stream, no socket error.
  if (error instanceof ConnectionClosedError && error.cause === undefined)
    return 'closed_by_server';
  if (error === undefined) return reason === 'closed by the server' ? 'closed_by_server' : 'other';
  return 'connection_error';
}

/** The row changes of `updates` for the tables in `active`. */
export function countRows(
  updates: TableUpdates | TableUpdates2,
  active: readonly string[],
): number {
  let n = 0;
  for (const table in updates) {
    if (!active.includes(table)) continue;
    const rows = updates[table];
    for (const _ in rows) n++;
  }
  return n;
}

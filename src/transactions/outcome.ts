/**
 * Resolving the outcome of a transaction whose reply was lost.
 *
 * Every insert carries a client-chosen UUID (see `tx.insert`), so "did the
 * transaction commit?" becomes "does a row with one of those UUIDs exist?",
 * a question the server can answer after reconnecting: either the replica
 * (once in sync again) holds one of the rows, or a `select` by `_uuid`
 * finds one. A transaction commits atomically, so one row is enough.
 * @module
 */

import type { TableMap, TableName } from '../ovsdb/schema/model.js';
import { TransactionError } from '../ovsdb/wire/errors.js';
import type { Operation } from '../ovsdb/wire/wire.js';
import type { CompiledTransaction } from './builder.js';
import type { TransactionExecutor } from './executor.js';
import { firstError } from './reply.js';

/** How a transaction's outcome was learnt. */
export type Resolution =
  /** The reply to the transaction itself. */
  | 'reply'
  /** The reply to a retry (with `idempotent: true`, or for a read-only transaction). */
  | 'retry'
  /** The replica, in sync after reconnecting, holds a row the transaction inserted. */
  | 'replica'
  /** A `select` by `_uuid` of the inserted rows, after reconnecting. */
  | 'probe'
  /** A retry failed with "duplicate uuid": an earlier attempt had inserted the row. */
  | 'duplicate uuid';

/** What `resolveOutcome` found. */
export interface ResolvedOutcome {
  /** True when the transaction committed. */
  readonly committed: boolean;
  /** How that was learnt. */
  readonly by: 'replica' | 'probe';
}

const MAX_PROBES = 5;

/**
 * Find out whether `compiled`, which inserts at least one row and whose
 * reply was lost, committed. Waits until the executor is in sync again,
 * then looks for the inserted rows in the replica and, failing that, asks
 * the server with one `select` per inserted row.
 *
 * The answer is exact when the server is done with the request that lost
 * its reply, which holds once the client is in sync again after the server
 * restarted, or after the connection closed (the server handles what it
 * read of a session before noticing the close), and when no other client
 * deleted the inserted rows in between.
 * @throws whatever `whenSynced` rejects with (the client closed or gave
 *   up), or the last connection error after several lost probes.
 */
export async function resolveOutcome<DB extends TableMap>(
  executor: TransactionExecutor<DB>,
  compiled: CompiledTransaction,
  signal?: AbortSignal,
): Promise<ResolvedOutcome> {
  if (compiled.inserts.length === 0) {
    throw new TypeError('resolveOutcome: the transaction inserts no row');
  }
  const probe: Operation[] = compiled.inserts.map((i) => ({
    op: 'select',
    table: i.table,
    where: [['_uuid', '==', ['uuid', i.uuid]]],
    columns: ['_uuid'],
  }));
  for (let attempt = 1; ; attempt++) {
    await executor.whenSynced({ signal });
    const replica = executor.replica;
    if (replica !== undefined) {
      for (const i of compiled.inserts) {
        const table = i.table as TableName<DB>;
        if (replica.isMonitored(table) && replica.get(table, i.uuid) !== undefined) {
          return { committed: true, by: 'replica' };
        }
      }
    }
    let results: readonly unknown[];
    try {
      // Never fenced: the check reads, and must work after the lock was lost.
      results = await executor.transact(probe, { signal, fence: false });
    } catch (e) {
      if (signal?.aborted || attempt >= MAX_PROBES) throw e;
      continue;
    }
    const err = firstError(results);
    if (err !== undefined) {
      const op = probe[err.index];
      throw new TransactionError(
        err.index,
        err.error,
        err.details,
        err.index >= probe.length,
        op?.op,
        op && 'table' in op ? op.table : undefined,
        results,
      );
    }
    const found = results.some((r) => {
      const rows = (r as { rows?: unknown } | null)?.rows;
      return Array.isArray(rows) && rows.length > 0;
    });
    return { committed: found, by: 'probe' };
  }
}

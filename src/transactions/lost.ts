/**
 * A transaction whose reply was lost: send it again when that is safe
 * (it only reads, or it is `idempotent`), else find out whether it
 * committed. Every insert carries a client-chosen UUID (see `tx.insert`),
 * so "did it commit?" becomes "does a row with one of those UUIDs exist?",
 * which the server answers once the client is in sync again: the replica
 * holds one of the rows, or a `select` by `_uuid` finds one. A transaction
 * commits atomically, so one row is enough.
 * @module
 */

import type { TableMap, TableName } from '../ovsdb/schema/model.js';
import { TransactionError } from '../ovsdb/wire/errors.js';
import { errorText } from '../ovsdb/wire/json.js';
import type { Operation } from '../ovsdb/wire/wire.js';
import type { CompiledTransaction } from './builder.js';
import { TransactionOutcomeError } from './errors.js';
import type { TransactionExecutor } from './executor.js';
import type { Resolved } from './handles.js';
import {
  type Counts,
  committed,
  committedWithoutReply,
  type TransactionResult,
} from './outcome.js';
import { transactRaw } from './raw.js';
import { isDuplicateInsert } from './reply.js';

/** What one attempt of a transaction came to. */
export type Attempt =
  | {
      readonly status: 'replied';
      readonly results: readonly unknown[];
      readonly error: TransactionError | undefined;
    }
  | { readonly status: 'not sent'; readonly error: unknown }
  /**
   * Answered with a JSON-RPC error instead of results (a refusal by the
   * server or the bridge, an unknown database): nothing was applied.
   */
  | { readonly status: 'rejected'; readonly error: unknown }
  | LostAttempt;

/** An attempt sent whose reply did not come. */
export interface LostAttempt {
  readonly status: 'lost';
  readonly error: unknown;
  /** What was lost, in words. */
  readonly reason: string;
  /**
   * When the wait was abandoned (timeout or signal) on a live connection:
   * the time the request was sent. The server may still be holding it.
   */
  readonly abandonedSentAt: number | undefined;
}

/** What {@link resolveOutcome} found. */
export interface ResolvedOutcome {
  /** True when the transaction committed. */
  readonly committed: boolean;
  /** How that was learnt. */
  readonly by: 'replica' | 'probe';
}

/** How many times a transaction whose reply was lost is sent again (read-only or idempotent). */
const MAX_RESENDS = 5;
/** Extra time, past the longest `wait`, before checking a transaction the server may hold. */
const HOLD_MARGIN_MS = 100;
/** How many outcome probes may lose their replies before giving up. */
const MAX_PROBES = 5;

/**
 * The longest the server may hold `compiled` before answering: the largest
 * `wait` timeout (a `wait` without one may hold it forever), 0 without waits.
 */
function holdTime(compiled: CompiledTransaction): number {
  let max = 0;
  for (const op of compiled.ops) {
    if (op.op === 'wait') max = Math.max(max, op.timeout ?? Number.POSITIVE_INFINITY);
  }
  return max;
}

/**
 * After an attempt lost its reply: send again (with `again`) when that is
 * safe, then work out the outcome. Returns the final result, or the last
 * attempt when it was answered and the earlier ones did not commit (its
 * error is then handled like any other answer); throws when the outcome is
 * settled as a failure.
 */
export async function settleLost<DB extends TableMap, R>(
  executor: TransactionExecutor<DB>,
  compiled: CompiledTransaction,
  value: R,
  lost: LostAttempt,
  options: { readonly signal: AbortSignal | undefined; readonly idempotent: boolean },
  counts: Counts,
  again: () => Promise<Attempt>,
): Promise<{ done?: TransactionResult<Resolved<R>>; last: Attempt }> {
  let r: Attempt = lost;
  let resends = 0;
  const canResend = compiled.readOnly || options.idempotent;
  while (r.status === 'lost' && canResend && resends < MAX_RESENDS && !options.signal?.aborted) {
    try {
      await executor.whenSynced({ signal: options.signal });
    } catch {
      break;
    }
    resends++;
    r = await again();
  }

  // The first attempt was sent and its reply lost: it may have committed.
  if (r.status === 'replied' && r.error === undefined) {
    return {
      done: committed(value, compiled, r.results, compiled.readOnly ? 'reply' : 'retry', counts),
      last: r,
    };
  }
  if (r.status === 'replied' && r.error !== undefined && isDuplicateInsert(compiled, r.error)) {
    return {
      done: committedWithoutReply(
        value,
        compiled,
        'duplicate uuid',
        `the reply was lost (${lost.reason}); a retry found the inserted row already present`,
        counts,
      ),
      last: r,
    };
  }
  // A retry answered with an error: that answer is the transaction's.
  const answered = r.status === 'replied' || r.status === 'rejected';
  if (compiled.readOnly) {
    if (answered) return { last: r };
    throw new TransactionOutcomeError(
      'not committed',
      `${lost.reason}; the transaction only reads, so nothing was written`,
      { cause: r.error },
    );
  }
  if (compiled.inserts.length === 0) {
    throw new TransactionOutcomeError(
      'unknown',
      answered
        ? `${lost.reason}; a retry failed (${errorText(r.error)}), and the transaction inserts no row whose existence would show whether the first attempt committed`
        : `${lost.reason}; the transaction inserts no row whose existence would show whether it committed`,
      { cause: answered ? r.error : lost.error },
    );
  }
  if (lost.abandonedSentAt !== undefined && executor.cancels !== true) {
    // The server may still hold the transaction (a `wait` with a timeout)
    // and this executor cannot cancel it: check only once it must be done.
    const hold = holdTime(compiled);
    if (hold === Number.POSITIVE_INFINITY) {
      throw new TransactionOutcomeError(
        'unknown',
        `${lost.reason}; the server may still be holding the transaction (a wait without a timeout), and this executor cannot cancel it`,
        { cause: lost.error },
      );
    }
    const until = lost.abandonedSentAt + hold + HOLD_MARGIN_MS;
    if (until > Date.now()) await new Promise((r) => setTimeout(r, until - Date.now()));
  }
  let resolved: ResolvedOutcome;
  try {
    resolved = await resolveOutcome(executor, compiled, options.signal);
  } catch (e) {
    throw new TransactionOutcomeError(
      'unknown',
      `${lost.reason}, and the outcome could not be resolved: ${errorText(e)}`,
      { cause: e },
    );
  }
  if (resolved.committed) {
    return {
      done: committedWithoutReply(
        value,
        compiled,
        resolved.by,
        `the reply was lost (${lost.reason}); the ${resolved.by} shows the inserted rows`,
        counts,
      ),
      last: r,
    };
  }
  if (answered) return { last: r };
  throw new TransactionOutcomeError(
    'not committed',
    `${lost.reason}; after reconnecting, the ${resolved.by} shows that the inserted rows do not exist`,
    { cause: lost.error },
  );
}

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
      results = await transactRaw(executor, probe, { signal, fence: false });
    } catch (e) {
      // An answer (an operation's error) is final; a lost probe is sent again.
      if (signal?.aborted || attempt >= MAX_PROBES || e instanceof TransactionError) throw e;
      continue;
    }
    const found = results.some((r) => {
      const rows = (r as { rows?: unknown } | null)?.rows;
      return Array.isArray(rows) && rows.length > 0;
    });
    return { committed: found, by: 'probe' };
  }
}

/**
 * Running a transaction: build it from the callback, send it, read the
 * reply, replay it when a `verify` failed, and resolve its outcome when the
 * reply was lost.
 *
 * ## Guarantees
 *
 * `transact` either resolves with `outcome: 'committed'`, or throws. What a
 * thrown error means is given by {@link outcomeOf}: every error means "not
 * committed", except a {@link TransactionOutcomeError} whose `outcome` is
 * `committed` or `unknown`.
 *
 * **Transactions that insert at least one row** always end `committed` or
 * `not committed`. Inserts use client-chosen UUIDs, so when the reply is
 * lost (connection dropped after sending, timeout, abort), `transact` waits
 * until the executor is in sync again and checks whether the rows exist:
 * first in the replica, then with a `select` by `_uuid`. With `idempotent:
 * true` it re-sends the same operations instead: the retry either commits
 * (the first attempt did not) or fails with "duplicate uuid" (it did); the
 * two attempts insert the same UUIDs, so at most one of them can commit.
 * The answer is exact provided that:
 * - the server is done with the lost request once the client is in sync
 *   again: true after a server crash or restart, and after a closed
 *   connection (ovsdb-server handles what it read of a session before it
 *   sees the close); with `idempotent: true` this assumption is not needed;
 * - no other client deletes the inserted rows between the commit and the
 *   check (they would look never inserted);
 * - the rows survive the commit: a row of a non-root table that nothing
 *   references is deleted by the server at commit, and cannot witness it
 *   (reference it from a root row in the same transaction, as OVN requires
 *   anyway).
 * The only exception: when the executor closes (or gives up reconnecting)
 * before the outcome is known, `transact` throws a `TransactionOutcomeError`
 * with outcome `unknown`.
 *
 * These guarantees are tested against a standalone server killed at random
 * points (the R2 crash test). On a clustered database there is one more
 * case the check cannot see: a transaction that the old leader wrote to its
 * log but had not committed when it failed may still be committed later by
 * the new leader (Raft commits earlier entries along with its own), after
 * the check said `not committed`.
 *
 * A timeout or abort sends `cancel` when the executor supports it (a bare
 * connection does); a transaction the server is still holding (a `wait`
 * with a timeout) is then dropped before the outcome is checked.
 *
 * **Transactions that insert nothing** cannot be checked this way. When
 * their reply is lost, `transact` throws a `TransactionOutcomeError` with
 * outcome `unknown` and the reason, unless:
 * - the transaction only reads (select, wait, comment, assert): it is simply
 *   sent again once in sync;
 * - `idempotent: true`: it is sent again once in sync (so it may apply
 *   twice; use it only for transactions whose second application changes
 *   nothing, such as setting columns to fixed values).
 *
 * **Conflicts.** A failed `tx.verify` (another client changed the verified
 * columns) makes `transact` wait until the replica shows the change, then
 * run the callback again against the refreshed replica, up to `retries`
 * times (default 3). The callback must therefore be a pure function of the
 * replica: read everything it needs from the replica inside the callback,
 * and have no other side effects.
 * @module
 */

import { TransactionOutcomeUnknownError } from '../client/errors.js';
import type { TableMap, TableName } from '../ovsdb/schema/model.js';
import {
  OvsdbError,
  ProtocolError,
  RequestTimeoutError,
  RpcError,
  type TransactionError,
  TransactionRefusedError,
} from '../ovsdb/wire/errors.js';
import { errorText, preview } from '../ovsdb/wire/json.js';
import type { Operation } from '../ovsdb/wire/wire.js';
import type { CompiledTransaction, VerifiedRow } from './builder.js';
import { compileTransaction, type TransactionCallback } from './compile.js';
import { TransactionOutcomeError, VerifyConflictError } from './errors.js';
import type { ReplicaReader, TransactionExecutor } from './executor.js';
import { containsHandle, type Resolved, resolveHandles } from './handles.js';
import { type ObservedExecutor, observedTransact, type TransactProgress } from './metrics.js';
import { type Resolution, resolveOutcome } from './outcome.js';
import { errorFromResults, failedVerify, isDuplicateInsert } from './reply.js';

/** Options of `transact`. */
export interface TransactOptions {
  /**
   * Give up waiting for the reply after this many ms (counting the wait for
   * a connection) and send `cancel`. A transaction not yet sent then fails
   * with `RequestTimeoutError`; one already sent has its outcome resolved
   * (see the module documentation), which may take longer.
   */
  readonly timeout?: number | undefined;
  /** Aborting works like the timeout: `cancel` is sent, and the outcome resolved. */
  readonly signal?: AbortSignal | undefined;
  /** Build the transaction and return its operations without sending anything. */
  readonly dryRun?: boolean | undefined;
  /** A comment for the server's log (`{"op":"comment"}` appended). */
  readonly comment?: string | undefined;
  /** Reply only once the transaction is on disk (`{"op":"commit","durable":true}` appended). */
  readonly durable?: boolean | undefined;
  /** How many times to replay the callback after a failed `verify` (default 3). */
  readonly retries?: number | undefined;
  /**
   * The transaction is safe to send twice: when its reply is lost, send it
   * again once in sync instead of only resolving the outcome (default false).
   */
  readonly idempotent?: boolean | undefined;
  /**
   * Fence the transaction with this OVSDB lock (`false`: not fenced), over
   * the executor's default (the database client's `fence` option): it
   * carries `{"op": "assert", "lock": …}` and commits only while the client
   * holds the lock, else it fails with `LockNotHeldError` (not committed).
   * When its reply is lost, the outcome is still resolved as below (the
   * check is never fenced). See `docs/locks.md`.
   */
  readonly fence?: string | false | undefined;
}

/** A committed transaction. */
export interface TransactionResult<V> {
  /** Always `committed`: failures throw. */
  readonly outcome: 'committed';
  /** The callback's return value, with every operation handle replaced by its result. */
  readonly value: V;
  /** The operations of the attempt that committed, as sent. */
  readonly ops: readonly Operation[];
  /** How many times operations were sent. */
  readonly attempts: number;
  /** How many times the callback was replayed after a failed `verify`. */
  readonly replays: number;
  /** How the commit was learnt. */
  readonly resolution: Resolution;
}

/** The result of a dry run: what would be sent. */
export interface DryRunResult<R> {
  /** Always `dry run`: nothing was sent. */
  readonly outcome: 'dry run';
  /** The database, the first `transact` parameter. */
  readonly database: string;
  /** The operations, exactly as they would be sent. */
  readonly ops: readonly Operation[];
  /** The callback's value (operation handles unresolved). */
  readonly value: R;
  /** The compiled transaction. */
  readonly compiled: CompiledTransaction;
}

type Attempt =
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
  | {
      readonly status: 'lost';
      readonly error: unknown;
      readonly reason: string;
      /**
       * When the wait was abandoned (timeout or signal) on a live
       * connection: the time the request was sent. The server may still be
       * holding it.
       */
      readonly abandonedSentAt: number | undefined;
    };

/** How many times a transaction whose reply was lost is sent again (read-only or idempotent). */
const MAX_RESENDS = 5;
/** Extra time, past the longest `wait`, before checking a transaction the server may hold. */
const HOLD_MARGIN_MS = 100;

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

/** How long to wait for the replica to show the change that broke a `verify`. */
const REFRESH_WAIT_MS = 2000;

function checkOptions(options: TransactOptions): void {
  const { timeout, retries } = options;
  if (timeout !== undefined && (!Number.isFinite(timeout) || timeout <= 0)) {
    throw new TypeError(`transact: timeout must be a positive number of ms, got ${timeout}`);
  }
  if (retries !== undefined && (!Number.isSafeInteger(retries) || retries < 0)) {
    throw new TypeError(`transact: retries must be a non-negative integer, got ${retries}`);
  }
}

/** Tracks whether a request was handed to the connection. */
class SendState {
  sent = false;
  sentAt = 0;
  readonly onSent = (): void => {
    this.sent = true;
    this.sentAt = Date.now();
  };
}

async function attempt<DB extends TableMap>(
  executor: TransactionExecutor<DB>,
  compiled: CompiledTransaction,
  options: TransactOptions,
): Promise<Attempt> {
  const user = options.signal;
  if (user?.aborted) return { status: 'not sent', error: user.reason };
  // A controller only when there is something to abort (it costs).
  let controller: AbortController | undefined;
  let onUserAbort: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (user !== undefined || options.timeout !== undefined) {
    const c = new AbortController();
    controller = c;
    if (user !== undefined) {
      onUserAbort = () => c.abort(user.reason);
      user.addEventListener('abort', onUserAbort, { once: true });
    }
    if (options.timeout !== undefined) {
      const ms = options.timeout;
      timer = setTimeout(() => c.abort(new RequestTimeoutError('transact', ms)), ms);
    }
  }
  const state = new SendState();
  try {
    const fence = options.fence;
    const results = await executor.transact(
      compiled.ops,
      controller === undefined
        ? fence === undefined
          ? { onSent: state.onSent }
          : { onSent: state.onSent, fence }
        : { signal: controller.signal, cancelOnAbort: true, onSent: state.onSent, fence },
    );
    if (!Array.isArray(results)) throw new ProtocolError('transact: the reply is not an array');
    const error = errorFromResults(executor.model, compiled, results, executor.replica);
    if (error === undefined && results.length < compiled.ops.length) {
      throw new ProtocolError(
        `transact: expected ${compiled.ops.length} results, got ${results.length}`,
      );
    }
    return { status: 'replied', results, error };
  } catch (e) {
    if (!state.sent) return { status: 'not sent', error: e };
    if (e instanceof TransactionRefusedError || (e instanceof RpcError && e.code !== 'canceled')) {
      return { status: 'rejected', error: e };
    }
    if (e instanceof ProtocolError) {
      return {
        status: 'lost',
        error: e,
        reason: `the reply was malformed (${e.message})`,
        abandonedSentAt: undefined,
      };
    }
    const signal = controller?.signal;
    const reason = signal?.aborted
      ? signal.reason instanceof RequestTimeoutError
        ? `no reply within ${options.timeout} ms${executor.cancels ? ' (cancel sent)' : ''}`
        : `aborted after sending${executor.cancels ? ' (cancel sent)' : ''}`
      : e instanceof TransactionOutcomeUnknownError
        ? e.lost
        : `no reply: ${errorText(e)}`;
    return {
      status: 'lost',
      error: e,
      reason,
      abandonedSentAt: signal?.aborted ? state.sentAt : undefined,
    };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (onUserAbort !== undefined) user?.removeEventListener('abort', onUserAbort);
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameValue(x, b[i]));
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    if (Array.isArray(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    return ka.every((k) => Object.hasOwn(rb, k) && sameValue(ra[k], rb[k]));
  }
  return false;
}

/** Wait (a bounded time) until the replica no longer shows the values `verify` asserted. */
async function waitForRefresh<DB extends TableMap>(
  replica: ReplicaReader<DB> | undefined,
  verify: VerifiedRow,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (replica === undefined) return;
  const deadline = Date.now() + REFRESH_WAIT_MS;
  for (;;) {
    const row = replica.get(verify.table as TableName<DB>, verify.uuid) as
      | Readonly<Record<string, unknown>>
      | undefined;
    if (row === undefined) return;
    if (verify.columns.some((c) => !sameValue(row[c], verify.values[c]))) return;
    if (Date.now() >= deadline || signal?.aborted) return;
    await new Promise((r) => setTimeout(r, 2));
  }
}

/**
 * Build the transaction with `build`, send it through `executor`, and
 * resolve once it committed. See the module documentation for the
 * guarantees.
 *
 * ```ts
 * const { value: port } = await transact(executor, (tx) => {
 *   const port = tx.insert('Logical_Switch_Port', { name: 'lsp1' });
 *   tx.mutate('Logical_Switch', { name: 'sw0' }, [['ports', 'insert', [port]]]);
 *   return port;
 * });
 * // transact ["OVN_Northbound",
 * //   {"op":"insert","table":"Logical_Switch_Port","row":{"name":"lsp1"},"uuid":"<port>","uuid-name":"row0"},
 * //   {"op":"mutate","table":"Logical_Switch","where":[["name","==","sw0"]],
 * //    "mutations":[["ports","insert",["set",[["named-uuid","row0"]]]]]}]
 * ```
 * @throws DatumError before sending, for an invalid operation;
 *   TransactionError (or DuplicateIndexError, VerifyConflictError,
 *   TransactionRefusedError) when the server rejected the transaction;
 *   TransactionRefusedError also when a bridge's policy refused it (a
 *   refusal is an answer: it did not commit, and no outcome is resolved); TransactionOutcomeError when the reply
 *   was lost (see its `outcome`); RequestTimeoutError, the signal's reason,
 *   or the executor's error when nothing was sent.
 */
export function transact<DB extends TableMap, R>(
  executor: TransactionExecutor<DB>,
  build: TransactionCallback<DB, R>,
  options: TransactOptions & { readonly dryRun: true },
): Promise<DryRunResult<R>>;
export function transact<DB extends TableMap, R>(
  executor: TransactionExecutor<DB>,
  build: TransactionCallback<DB, R>,
  options?: TransactOptions,
): Promise<TransactionResult<Resolved<R>>>;
export function transact<DB extends TableMap, R>(
  executor: TransactionExecutor<DB>,
  build: TransactionCallback<DB, R>,
  options: TransactOptions = {},
): Promise<TransactionResult<Resolved<R>> | DryRunResult<R>> {
  // Without metrics or a tracer: straight to the run, no extra promise.
  const observe = (executor as ObservedExecutor).observability;
  if (observe === undefined || options.dryRun === true) {
    return runTransact(executor, build, options, undefined);
  }
  return observedTransact(observe, (progress) => runTransact(executor, build, options, progress));
}

/** {@link transact}; `progress`, when given, is kept up to date for its observer. */
async function runTransact<DB extends TableMap, R>(
  executor: TransactionExecutor<DB>,
  build: TransactionCallback<DB, R>,
  options: TransactOptions,
  progress: TransactProgress | undefined,
): Promise<TransactionResult<Resolved<R>> | DryRunResult<R>> {
  checkOptions(options);
  const retries = options.retries ?? 3;
  const counts: Counts = progress ?? { attempts: 0, replays: 0 };
  for (;;) {
    const { compiled, value } = compileTransaction(executor.model, build, {
      replica: executor.replica,
      comment: options.comment,
      durable: options.durable,
    });
    if (progress !== undefined) progress.compiled = compiled;
    if (options.dryRun === true) {
      return {
        outcome: 'dry run',
        database: compiled.database,
        ops: compiled.ops,
        value,
        compiled,
      };
    }

    let r = await attempt(executor, compiled, options);
    counts.attempts++;
    if (r.status === 'lost') {
      const settled = await settleLost(executor, compiled, value, r, options, counts);
      if (settled.done !== undefined) return settled.done;
      r = settled.last;
    }

    if (r.status === 'not sent' || r.status === 'rejected') throw r.error;
    if (r.status === 'lost') throw new OvsdbError('internal: unresolved lost reply');
    if (r.error === undefined) {
      return committed(value, compiled, r.results, 'reply', counts);
    }
    const verify = failedVerify(compiled, r.error);
    if (verify === undefined) throw r.error;
    if (counts.replays >= retries) {
      throw new VerifyConflictError(r.error, verify.uuid, verify.columns, counts.replays);
    }
    counts.replays++;
    await waitForRefresh(executor.replica, verify, options.signal);
    if (options.signal?.aborted) throw options.signal.reason;
    // Two writers replaying in lockstep can starve one of them; a short random
    // pause that grows with the replays breaks the symmetry.
    if (counts.replays > 1) await replayPause(counts.replays);
    if (options.signal?.aborted) throw options.signal.reason;
  }
}

/** A random pause of 0 to min(2^replays, 50) ms before replay `replays`. */
function replayPause(replays: number): Promise<void> {
  const ms = Math.random() * Math.min(2 ** replays, 50);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface Counts {
  attempts: number;
  replays: number;
}

/** The result of a transaction that committed with a reply. */
function committed<R>(
  value: R,
  compiled: CompiledTransaction,
  results: readonly unknown[],
  resolution: Resolution,
  counts: Counts,
): TransactionResult<Resolved<R>> {
  // A callback that returns nothing (or a primitive) has no handle to resolve.
  if (typeof value !== 'object' || value === null) {
    return {
      outcome: 'committed',
      value: value as Resolved<R>,
      ops: compiled.ops,
      attempts: counts.attempts,
      replays: counts.replays,
      resolution,
    };
  }
  let resolved: Resolved<R>;
  try {
    resolved = resolveHandles(value, (h) => {
      const r = results[h.index];
      if (typeof r !== 'object' || r === null) {
        throw new ProtocolError(
          `operation ${h.index}: expected an object result, got ${preview(r)}`,
        );
      }
      return h.decode(r as Readonly<Record<string, unknown>>);
    });
  } catch (e) {
    throw new TransactionOutcomeError(
      'committed',
      `the transaction committed, but its results could not be read: ${errorText(e)}`,
      { cause: e },
    );
  }
  return {
    outcome: 'committed',
    value: resolved,
    ops: compiled.ops,
    attempts: counts.attempts,
    replays: counts.replays,
    resolution,
  };
}

/** The result of a transaction known to have committed, whose reply was lost. */
function committedWithoutReply<R>(
  value: R,
  compiled: CompiledTransaction,
  resolution: Resolution,
  reason: string,
  counts: Counts,
): TransactionResult<Resolved<R>> {
  if (containsHandle(value)) {
    throw new TransactionOutcomeError(
      'committed',
      `${reason}; the results of its operations were lost with the reply, so its value cannot be given`,
    );
  }
  return {
    outcome: 'committed',
    value: value as Resolved<R>,
    ops: compiled.ops,
    attempts: counts.attempts,
    replays: counts.replays,
    resolution,
  };
}

/**
 * After an attempt lost its reply: send again when that is safe, then work
 * out the outcome. Returns the final result, or the last attempt when it
 * was answered and the earlier ones did not commit (its error is then
 * handled like any other answer); throws when the outcome is settled as a
 * failure.
 */
async function settleLost<DB extends TableMap, R>(
  executor: TransactionExecutor<DB>,
  compiled: CompiledTransaction,
  value: R,
  first: Extract<Attempt, { status: 'lost' }>,
  options: TransactOptions,
  counts: Counts,
): Promise<{ done?: TransactionResult<Resolved<R>>; last: Attempt }> {
  const lost = first;
  let r: Attempt = first;
  let resends = 0;
  const canResend = compiled.readOnly || options.idempotent === true;
  while (r.status === 'lost' && canResend && resends < MAX_RESENDS && !options.signal?.aborted) {
    try {
      await executor.whenSynced({ signal: options.signal });
    } catch {
      break;
    }
    resends++;
    r = await attempt(executor, compiled, options);
    counts.attempts++;
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
  let resolved: Awaited<ReturnType<typeof resolveOutcome>>;
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

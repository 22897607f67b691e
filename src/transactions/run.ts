/**
 * Running a typed transaction: build it from the callback, send it, read
 * the reply, replay it when a `verify` failed, and resolve its outcome when
 * the reply was lost.
 *
 * One {@link TransactionRun} carries a transaction from the builder to the
 * socket and back: it is the request the executor sends and the handler the
 * connection reports to, so that a transaction in flight holds the compiled
 * operations, its own state and the caller's promise, and nothing per layer.
 *
 * ## Guarantees
 *
 * `transact` either resolves with `outcome: 'committed'`, or throws. What a
 * thrown error means is given by `outcomeOf`: every error means "not
 * committed", except a `TransactionOutcomeError` whose `outcome` is
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
 * A timeout or abort sends `cancel` when the executor supports it (both the
 * database client and a bare connection do); a transaction the server is
 * still holding (a `wait` with a timeout) is then dropped before the
 * outcome is checked.
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

import type { TableMap, TableName } from '../ovsdb/schema/model.js';
import {
  OvsdbError,
  RequestTimeoutError,
  RpcError,
  type TransactionError,
  TransactionRefusedError,
} from '../ovsdb/wire/errors.js';
import { errorText } from '../ovsdb/wire/json.js';
import { readTransactReply, transactFailure } from '../ovsdb/wire/results.js';
import type { SendOptions } from '../ovsdb/wire/rpc-options.js';
import type { Operation } from '../ovsdb/wire/wire.js';
import type { CompiledTransaction, VerifiedRow } from './builder.js';
import { compileTransaction, type TransactionCallback } from './compile.js';
import { VerifyConflictError } from './errors.js';
import type { ReplicaReader, TransactionExecutor, TransactRequest } from './executor.js';
import type { Resolved } from './handles.js';
import { type Attempt, type LostAttempt, settleLost } from './lost.js';
import { observedTransact } from './metrics.js';
import { committed, type TransactionResult } from './outcome.js';
import { failedVerify, fenced, typedError, unfencedError } from './reply.js';

/** Options of `transact`. */
export interface TransactOptions extends Pick<SendOptions, 'timeoutMs' | 'signal'> {
  /**
   * Give up waiting for the reply after this many ms (counting the wait for
   * a connection) and send `cancel`. A transaction not yet sent then fails
   * with `RequestTimeoutError`; one already sent has its outcome resolved
   * (see the module documentation), which may take longer.
   */
  readonly timeoutMs?: number | undefined;
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

/** What a run's `resolve` and `reject` are until it starts. */
function unset(): void {}

/** How long to wait for the replica to show the change that broke a `verify`. */
const REFRESH_WAIT_MS = 2000;

/** The lock a transaction with `option` is fenced with, over `executor`'s default. */
export function fenceOf(
  executor: TransactionExecutor<TableMap>,
  option: string | false | undefined,
): string | undefined {
  return option === undefined ? executor.fence : option === false ? undefined : option;
}

/**
 * One typed transaction in flight: the request its executor sends, the
 * handler its reply comes back to, and the state its outcome needs (see the
 * module documentation). Reused for each attempt: a replay after a failed
 * `verify`, a resend after a lost reply.
 */
class TransactionRun<DB extends TableMap, R> implements TransactRequest {
  ops: readonly Operation[] = [];
  readonly fence: string | undefined;
  deadline: number | undefined = undefined;
  readonly signal: AbortSignal | undefined;
  readonly cancelOnAbort = true;
  via: string | undefined = undefined;
  /** Attempts sent so far. */
  attempts = 0;
  /** Replays after a failed `verify` so far. */
  replays = 0;
  /** The last compiled form (undefined until the callback ran). */
  compiled: CompiledTransaction | undefined = undefined;
  private value: R | undefined = undefined;
  /** When the current attempt was handed to the connection (0: not yet). */
  private sentAt = 0;
  // (Set in the constructor, so that every field of a run is in the object itself.)
  private resolve: (result: TransactionResult<Resolved<R>>) => void = unset;
  private reject: (error: unknown) => void = unset;
  /** While a lost reply is settled: where the answer of a resend goes. */
  private waiter: ((attempt: Attempt) => void) | undefined = undefined;

  constructor(
    private readonly executor: TransactionExecutor<DB>,
    private readonly build: TransactionCallback<DB, R>,
    private readonly options: TransactOptions,
  ) {
    this.fence = fenceOf(executor, options.fence);
    this.signal = options.signal;
  }

  /** Run the transaction: resolves once it committed (see the module documentation). */
  start(): Promise<TransactionResult<Resolved<R>>> {
    return new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      this.compile();
    });
  }

  // ---- the request's handler: what the connection reports ---------------------

  onSent(): void {
    this.sentAt = Date.now();
  }

  onReply(result: unknown): void {
    const compiled = this.compiled!;
    let error: TransactionError | undefined;
    try {
      error = readTransactReply(this.ops, result, this.via ?? this.executor.model.name);
    } catch (e) {
      this.executor.failed?.(e);
      this.answer({
        status: 'lost',
        error: e,
        reason: `the reply was malformed (${errorText(e)})`,
        abandonedSentAt: undefined,
      });
      return;
    }
    let results = result as readonly unknown[];
    if (this.fence !== undefined) {
      results = results.slice(1);
      if (error !== undefined) error = unfencedError(this.fence, error, results);
    }
    if (error !== undefined) {
      this.executor.failed?.(error);
      error = typedError(this.executor.model, compiled, error, this.executor.replica);
    }
    this.answer({ status: 'replied', results, error });
  }

  onError(e: unknown): void {
    if (this.sentAt === 0) {
      this.answer({ status: 'not sent', error: e });
      return;
    }
    this.executor.failed?.(e);
    const error = transactFailure(e, this.ops);
    if (
      error instanceof TransactionRefusedError ||
      (error instanceof RpcError && error.code !== 'canceled')
    ) {
      this.answer({ status: 'rejected', error });
      return;
    }
    const abandoned = this.signal?.aborted === true || error instanceof RequestTimeoutError;
    const cancel = this.executor.cancels === true ? ' (cancel sent)' : '';
    this.answer({
      status: 'lost',
      error,
      reason: abandoned
        ? error instanceof RequestTimeoutError && !this.signal?.aborted
          ? `no reply within ${this.options.timeoutMs} ms${cancel}`
          : `aborted after sending${cancel}`
        : `no reply came from ${this.via} (${errorText(error)})`,
      abandonedSentAt: abandoned ? this.sentAt : undefined,
    });
  }

  // ---- the run ---------------------------------------------------------------

  /** Build the transaction (again) from the replica, and send it. */
  private compile(): void {
    try {
      const { compiled, value } = compileTransaction(this.executor.model, this.build, {
        replica: this.executor.replica,
        comment: this.options.comment,
        durable: this.options.durable,
      });
      this.compiled = compiled;
      this.value = value;
      this.ops = this.fence === undefined ? compiled.ops : fenced(this.fence, compiled.ops);
    } catch (e) {
      this.reject(e);
      return;
    }
    this.send();
  }

  /** Send the compiled operations (one attempt). */
  private send(): void {
    const timeout = this.options.timeoutMs;
    this.sentAt = 0;
    this.deadline = timeout === undefined ? undefined : Date.now() + timeout;
    this.attempts++;
    this.executor.send(this);
  }

  /** Send the same operations again and wait for the answer (while settling a lost reply). */
  again(): Promise<Attempt> {
    return new Promise((resolve) => {
      this.waiter = resolve;
      this.send();
    });
  }

  private answer(attempt: Attempt): void {
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter(attempt);
    } else this.decide(attempt);
  }

  /** What an answered (or lost) attempt means for the transaction. */
  private decide(a: Attempt): void {
    switch (a.status) {
      case 'not sent':
      case 'rejected':
        this.reject(a.error);
        return;
      case 'lost':
        void this.settle(a);
        return;
      case 'replied':
        break;
    }
    const error = a.error;
    if (error === undefined) {
      this.finish(() => committed(this.value as R, this.compiled!, a.results, 'reply', this));
      return;
    }
    const verify = failedVerify(this.compiled!, error);
    if (verify === undefined) {
      this.reject(error);
      return;
    }
    if (this.replays >= (this.options.retries ?? 3)) {
      this.reject(new VerifyConflictError(error, verify.uuid, verify.columns, this.replays));
      return;
    }
    void this.replay(verify);
  }

  private finish(result: () => TransactionResult<Resolved<R>>): void {
    try {
      this.resolve(result());
    } catch (e) {
      this.reject(e);
    }
  }

  /** Wait for the replica to show what broke the `verify`, then build and send again. */
  private async replay(verify: VerifiedRow): Promise<void> {
    this.replays++;
    const signal = this.signal;
    try {
      await waitForRefresh(this.executor.replica, verify, signal);
      if (signal?.aborted) throw signal.reason;
      // Two writers replaying in lockstep can starve one of them; a short random
      // pause that grows with the replays breaks the symmetry.
      if (this.replays > 1) await replayPause(this.replays);
      if (signal?.aborted) throw signal.reason;
    } catch (e) {
      this.reject(e);
      return;
    }
    this.compile();
  }

  /** A lost reply: send again when that is safe, then work out the outcome. */
  private async settle(lost: LostAttempt): Promise<void> {
    try {
      const settled = await settleLost(
        this.executor,
        this.compiled!,
        this.value as R,
        lost,
        { signal: this.signal, idempotent: this.options.idempotent === true },
        this,
        () => this.again(),
      );
      if (settled.done !== undefined) this.resolve(settled.done);
      else if (settled.last.status === 'lost')
        throw new OvsdbError('internal: unresolved lost reply');
      else this.decide(settled.last);
    } catch (e) {
      this.reject(e);
    }
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

/** A random pause of 0 to min(2^replays, 50) ms before replay `replays`. */
function replayPause(replays: number): Promise<void> {
  const ms = Math.random() * Math.min(2 ** replays, 50);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function checkOptions(options: TransactOptions): void {
  const { timeoutMs, retries } = options;
  if (timeoutMs !== undefined && (!Number.isFinite(timeoutMs) || timeoutMs <= 0)) {
    throw new TypeError(`transact: timeoutMs must be a positive number of ms, got ${timeoutMs}`);
  }
  if (retries !== undefined && (!Number.isSafeInteger(retries) || retries < 0)) {
    throw new TypeError(`transact: retries must be a non-negative integer, got ${retries}`);
  }
}

/**
 * Build the transaction with `build`, send it through `executor`, and
 * resolve once it committed. See the module documentation for the
 * guarantees. The database client's `transact` is this over its executor.
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
 *   TransactionRefusedError, LockNotHeldError) when the server rejected the
 *   transaction; TransactionRefusedError also when a bridge's policy
 *   refused it (a refusal is an answer: it did not commit, and no outcome
 *   is resolved); TransactionOutcomeError when the reply was lost (see its
 *   `outcome`); RequestTimeoutError, the signal's reason, or the executor's
 *   error (SchemaDriftError, ClientClosedError, …) when nothing was sent.
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
  try {
    checkOptions(options);
    if (options.dryRun === true) {
      const { compiled, value } = compileTransaction(executor.model, build, {
        replica: executor.replica,
        comment: options.comment,
        durable: options.durable,
      });
      return Promise.resolve({
        outcome: 'dry run',
        database: compiled.database,
        ops: compiled.ops,
        value,
        compiled,
      });
    }
  } catch (e) {
    return Promise.reject(e);
  }
  const run = new TransactionRun(executor, build, options);
  const observe = executor.observability;
  // Without metrics or a tracer: straight to the run, no extra promise.
  if (observe === undefined) return run.start();
  return observedTransact(observe, run, () => run.start());
}

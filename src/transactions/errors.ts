/**
 * The errors of the transaction layer, and {@link outcomeOf}, which says
 * what an error from `transact` means for the transaction.
 *
 * The rule: **every error `transact` throws means the transaction did not
 * commit, except a {@link TransactionOutcomeError} whose `outcome` is
 * `committed` or `unknown`.** Validation errors (`DatumError`) come
 * before anything is sent; a `TransactionError` (or a subclass) is the
 * server's answer that an operation or the commit failed, which rolls the
 * whole transaction back.
 * @module
 */

import { OvsdbError, TransactionError, TransactionRefusedError } from '../ovsdb/wire/errors.js';
import { stringifyJson } from '../ovsdb/wire/json-stringify.js';

/** What happened to a transaction. */
export type Outcome = 'committed' | 'not committed' | 'unknown';

/**
 * The server answered "constraint violation" because the transaction would
 * make two rows share the value of a unique index. Names the index (its
 * columns), the value and both rows.
 *
 * ```ts
 * try { … } catch (e) {
 *   if (e instanceof DuplicateIndexError) console.log(e.table, e.index, e.value); // Logical_Switch_Port ['name'] { name: 'lsp1' }
 * }
 * ```
 */
export class DuplicateIndexError extends TransactionError {
  override name = 'DuplicateIndexError';
  constructor(
    opIndex: number,
    details: string,
    op: string | undefined,
    /** The table of the index. */
    override readonly table: string,
    /** The index: its columns. */
    readonly index: readonly string[],
    /**
     * The duplicated value, per index column (JS representation), when known:
     * from this transaction's insert, or the replica's copy of the other row.
     */
    readonly value: Readonly<Record<string, unknown>> | undefined,
    /** The value as the server wrote it, e.g. `lsp1` or `1 and x`. */
    readonly valueText: string,
    /** The two rows' UUIDs. */
    readonly rows: readonly [string, string],
    results: readonly unknown[] | undefined,
  ) {
    super(opIndex, 'constraint violation', details, true, op, table, results);
    const shown = value === undefined ? `(${valueText})` : stringifyJson(value);
    this.message = `commit failed: constraint violation: ${table} rows ${rows[0]} and ${rows[1]} would have the same value ${shown} for the unique index (${index.join(', ')})`;
  }
}

/**
 * A `verify` assertion still failed after `replays` replays of the
 * transaction callback: other clients kept changing the row.
 */
export class VerifyConflictError extends TransactionError {
  override name = 'VerifyConflictError';
  constructor(
    base: TransactionError,
    /** The verified row's UUID. */
    readonly uuid: string,
    /** The verified columns. */
    readonly columns: readonly string[],
    /** How many times the callback was replayed. */
    readonly replays: number,
  ) {
    super(base.opIndex, base.error, base.details, false, base.op, base.table, base.results);
    this.message = `verify of ${base.table ?? '?'} row ${uuid} (${columns.join(', ')}) failed after ${replays} replay${replays === 1 ? '' : 's'}: another client keeps changing it`;
  }
}

/**
 * A transaction was sent but its reply never came (the connection dropped,
 * the timeout expired or the signal aborted), and `outcome` says what is
 * known about it:
 * - `committed`: it did commit (found out after reconnecting), but the
 *   results of its operations (rows, counts) are lost, so the callback's
 *   value could not be built;
 * - `not committed`: it did not commit (found out after reconnecting);
 * - `unknown`: it writes no row whose existence would tell, so whether it
 *   committed cannot be known (see `reason`).
 */
export class TransactionOutcomeError extends OvsdbError {
  override name = 'TransactionOutcomeError';
  constructor(
    /** What happened to the transaction. */
    readonly outcome: Outcome,
    /** Why the reply was lost, and how the outcome was found (or why it could not be). */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`transaction outcome ${outcome}: ${reason}`, options);
  }
}

/**
 * What an error thrown by `transact` means for the transaction: `committed`
 * or `unknown` for a {@link TransactionOutcomeError} that says so, `not
 * committed` for everything else (validation errors, server errors, errors
 * before sending).
 */
export function outcomeOf(error: unknown): Outcome {
  if (error instanceof TransactionOutcomeError) return error.outcome;
  return 'not committed';
}

/**
 * A transaction was sent but its reply never came (the connection dropped or
 * the request timed out): its outcome is unknown, it may have committed. The
 * replica shows the truth once the client is in sync again (typed
 * transactions find it out themselves).
 *
 * A refusal is not a lost reply: it comes as a `TransactionRefusedError`.
 */
export class TransactionOutcomeUnknownError extends OvsdbError {
  override name = 'TransactionOutcomeUnknownError';
  /** What was lost, without a verdict: `no reply came from <remote> (<why>)`. */
  readonly lost: string;
  constructor(message: string, options?: { cause?: unknown; lost?: string | undefined }) {
    super(message, options);
    this.lost = options?.lost ?? message;
  }
}

/**
 * A transaction fenced by lock `lock` (the client's or the transaction's
 * `fence` option) was refused because this client does not hold the lock:
 * the server answered its `assert` with `not owner` (`refusedBy: 'server'`:
 * the lock was stolen, or lost with the connection, before the server ran
 * the transaction), or the client refused it before sending because the
 * lock is not held now (`refusedBy: 'client'`: another client holds it, it
 * was stolen, or the connection that held it was lost and the new one has
 * not been granted it yet). Either way **the transaction did not commit**.
 *
 * ```ts
 * try { await db.transact((tx) => { … }, { fence: 'pod-allocation' }); }
 * catch (e) {
 *   if (e instanceof LockNotHeldError) console.log(e.lock, e.refusedBy, e.details);
 *   // pod-allocation client lock "pod-allocation" was stolen by another client
 * }
 * ```
 */
export class LockNotHeldError extends TransactionRefusedError {
  override name = 'LockNotHeldError';
  constructor(
    /** The lock the transaction was fenced with. */
    readonly lock: string,
    refusedBy: 'server' | 'client',
    /** Why the lock is not held, in words (for the server: its `details`). */
    details: string,
  ) {
    super(refusedBy, -1, 'not owner', details, 'assert');
    this.message = `transaction refused by the ${refusedBy}: fenced by lock "${lock}", which this client does not hold (${details}); it did not commit`;
  }
}

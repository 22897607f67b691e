/**
 * The errors of the database client.
 * @module
 */

import { OvsdbError, RpcError, TransactionRefusedError } from '../ovsdb/wire/errors.js';

/** The client was closed, or gave up reconnecting; pending work is rejected with it. */
export class ClientClosedError extends OvsdbError {
  override name = 'ClientClosedError';
  constructor(
    /** Why. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`database client closed: ${reason}`, options);
  }
}

/**
 * A transaction was sent but its reply never came (the connection dropped or
 * the request timed out): its outcome is unknown, it may have committed. The
 * replica shows the truth once the client is in sync again (typed
 * transactions, `ovnkit/transactions`, find it out themselves).
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

/** A server that cannot be used now (not the leader, not joined...). */
export class ServerSkippedError extends OvsdbError {
  override name = 'ServerSkippedError';
  constructor(
    message: string,
    /** Why, as `judgeServer` codes it. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** True when the server replied that it does not know the method. */
export function isUnknownMethod(e: unknown): boolean {
  return e instanceof RpcError && /unknown method/i.test(e.code);
}

/**
 * The errors of the database client.
 * @module
 */

import { OvsdbError, RpcError } from '../ovsdb/wire/errors.js';

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

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

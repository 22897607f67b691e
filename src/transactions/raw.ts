/**
 * Raw operations as one transaction over an executor: the database
 * client's `transactRaw`. The operations are sent as given (after a
 * fence's `assert`), and the reply is read once, by the wire's reader.
 * @module
 */

import type { TableMap } from '../ovsdb/schema/model.js';
import {
  ConnectionClosedError,
  RequestTimeoutError,
  type TransactionError,
  TransactionRefusedError,
} from '../ovsdb/wire/errors.js';
import { errorText } from '../ovsdb/wire/json.js';
import { readTransactReply, transactFailure } from '../ovsdb/wire/results.js';
import type { SendOptions } from '../ovsdb/wire/rpc-options.js';
import type { Operation, OperationResult } from '../ovsdb/wire/wire.js';
import { TransactionOutcomeUnknownError } from './errors.js';
import type { TransactionExecutor, TransactRequest } from './executor.js';
import { fenced, unfencedError } from './reply.js';

/** Options of `transactRaw`: those of every send, and the fence. */
export interface RawTransactOptions extends SendOptions {
  /**
   * Fence the transaction with this lock (`{"op": "assert", "lock": …}`
   * first; its result is taken out of the reply), or `false` for none.
   * Default: the executor's (the database client's `fence` option).
   */
  readonly fence?: string | false | undefined;
}

/** One raw transaction in flight: the request, its handler and the caller's promise. */
class RawRun implements TransactRequest {
  readonly ops: readonly Operation[];
  readonly fence: string | undefined;
  readonly deadline: number | undefined;
  readonly signal: AbortSignal | undefined;
  readonly cancelOnAbort: boolean;
  via: string | undefined = undefined;
  private sent = false;

  constructor(
    private readonly executor: TransactionExecutor<TableMap>,
    private readonly own: readonly Operation[],
    private readonly options: RawTransactOptions,
    private readonly resolve: (results: OperationResult[]) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    const f = options.fence;
    this.fence = f === undefined ? executor.fence : f === false ? undefined : f;
    this.ops = this.fence === undefined ? own : fenced(this.fence, own);
    this.deadline =
      options.timeoutMs === undefined ? undefined : Date.now() + Math.max(0, options.timeoutMs);
    this.signal = options.signal;
    this.cancelOnAbort = options.cancelOnAbort === true;
  }

  onSent(id: number): void {
    this.sent = true;
    this.options.onSent?.(id);
  }

  onReply(result: unknown): void {
    let error: TransactionError | undefined;
    try {
      error = readTransactReply(this.ops, result, this.via ?? this.executor.model.name);
    } catch (e) {
      this.fail(e);
      return;
    }
    let results = result as OperationResult[];
    if (this.fence !== undefined) {
      results = results.slice(1);
      if (error !== undefined) error = unfencedError(this.fence, error, results);
    }
    if (error !== undefined) {
      this.fail(error);
      return;
    }
    const n = this.own.length;
    this.resolve(results.length === n ? results : results.slice(0, n));
  }

  onError(e: unknown): void {
    if (!this.sent) {
      this.reject(e);
      return;
    }
    if (e instanceof ConnectionClosedError || e instanceof RequestTimeoutError) {
      const why = errorText(e);
      this.fail(
        new TransactionOutcomeUnknownError(
          `transaction sent to ${this.via} but no reply came (${why}): its outcome is unknown (it may have committed)`,
          { cause: e, lost: `no reply came from ${this.via} (${why})` },
        ),
        e,
      );
      return;
    }
    let error = transactFailure(e, this.ops);
    if (this.fence !== undefined && error instanceof TransactionRefusedError && error.opIndex > 0) {
      // A bridge's refusal of one operation: its index among the caller's.
      error = new TransactionRefusedError(
        error.refusedBy,
        error.opIndex - 1,
        error.error,
        error.details,
        error.op,
        error.table,
      );
    }
    this.fail(error, e);
  }

  private fail(error: unknown, counted: unknown = error): void {
    this.executor.failed?.(counted);
    this.reject(error);
  }
}

/**
 * Send `ops` as one transaction through `executor` and resolve with their
 * results, once the replica (if the executor keeps one) shows the
 * transaction's changes.
 *
 * ```ts
 * const [r] = await transactRaw(executor, [{ op: 'select', table: 'Logical_Switch', where: [], columns: ['name'] }]);
 * // transact ["OVN_Northbound",{"op":"select","table":"Logical_Switch","where":[],"columns":["name"]}]
 * // r: { rows: [{ name: 'sw0' }] }
 * ```
 * @throws TransactionError (or TransactionRefusedError, LockNotHeldError)
 *   when an operation or the commit failed, or the server or a bridge
 *   refused the transaction; TransactionOutcomeUnknownError when the reply
 *   was lost (it may have committed); the executor's errors when nothing
 *   was sent (SchemaDriftError, LockNotHeldError, ClientClosedError, the
 *   signal's reason, RequestTimeoutError).
 */
export function transactRaw<DB extends TableMap>(
  executor: TransactionExecutor<DB>,
  ops: readonly Operation[],
  options: RawTransactOptions = {},
): Promise<OperationResult[]> {
  return new Promise((resolve, reject) => {
    executor.send(
      new RawRun(executor as TransactionExecutor<TableMap>, ops, options, resolve, reject),
    );
  });
}

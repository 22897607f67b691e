/**
 * The build step, separate from sending: run a transaction callback against
 * a fresh {@link TransactionBuilder} and return the immutable
 * {@link CompiledTransaction} with the callback's value. Nothing is sent, so
 * this is also what a dry run shows.
 * @module
 */

import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import type { Operation } from '../ovsdb/wire/wire.js';
import { type CompiledTransaction, TransactionBuilder } from './builder.js';
import type { ReplicaReader } from './executor.js';

/** A transaction callback: builds the operations with `tx` and returns any value. */
export type TransactionCallback<DB extends TableMap, R> = (tx: TransactionBuilder<DB>) => R;

/** Options of {@link compileTransaction}. */
export interface CompileOptions<DB extends TableMap> {
  /** The replica `tx.verify` reads. */
  readonly replica?: ReplicaReader<DB> | undefined;
  /** Append `{"op": "comment", "comment": …}`. */
  readonly comment?: string | undefined;
  /** Append `{"op": "commit", "durable": true}`: the server replies once the transaction is on disk. */
  readonly durable?: boolean | undefined;
}

/** A compiled transaction and the callback's (unresolved) value. */
export interface Compiled<R> {
  readonly compiled: CompiledTransaction;
  readonly value: R;
}

function isThenable(v: unknown): boolean {
  return (
    (typeof v === 'object' || typeof v === 'function') &&
    v !== null &&
    typeof (v as { then?: unknown }).then === 'function'
  );
}

/**
 * Build a transaction without sending it.
 *
 * ```ts
 * const { compiled } = compileTransaction(NB, (tx) => {
 *   tx.update('Logical_Switch', { name: 'sw0' }, { other_config: { subnet: '10.0.0.0/24' } });
 * }, { comment: 'set subnet' });
 * compiled.ops;
 * // [{"op":"update","table":"Logical_Switch","where":[["name","==","sw0"]],
 * //   "row":{"other_config":["map",[["subnet","10.0.0.0/24"]]]}},
 * //  {"op":"comment","comment":"set subnet"}]
 * ```
 * @throws DatumError (or whatever the callback throws) when an operation is invalid;
 *   TypeError when the callback returns a promise (it must be synchronous).
 */
export function compileTransaction<DB extends TableMap, R>(
  model: DatabaseModel<DB>,
  build: TransactionCallback<DB, R>,
  options: CompileOptions<DB> = {},
): Compiled<R> {
  if (typeof build !== 'function') throw new TypeError('transact: the callback must be a function');
  const tx = new TransactionBuilder<DB>(model, options.replica);
  const value = build(tx);
  if (isThenable(value)) {
    throw new TypeError(
      'transact: the callback must be synchronous (it may be replayed, and must build the whole transaction from the replica at once)',
    );
  }
  const extra: Operation[] = [];
  if (options.comment !== undefined) {
    if (typeof options.comment !== 'string')
      throw new TypeError('transact: comment must be a string');
    extra.push({ op: 'comment', comment: options.comment });
  }
  if (options.durable === true) extra.push({ op: 'commit', durable: true });
  return { compiled: tx.build(extra), value };
}

/**
 * {@link Transactor}: `transact` and `transactBatches` bound to one
 * executor, the shape a database handle offers (`db.transact(tx => …)`).
 * @module
 */

import type { TableMap } from '../ovsdb/schema/model.js';
import { type BatchOptions, type BatchResult, transactBatches } from './batches.js';
import type { TransactionBuilder } from './builder.js';
import type { TransactionCallback } from './compile.js';
import {
  type DryRunResult,
  type TransactionResult,
  type TransactOptions,
  transact,
} from './execute.js';
import type { TransactionExecutor } from './executor.js';
import type { Resolved } from './handles.js';

/** Typed transactions over one database. */
export interface Transactor<DB extends TableMap> {
  /** The executor underneath. */
  readonly executor: TransactionExecutor<DB>;
  /**
   * Build and run one atomic transaction (see `transact` in `execute.ts`
   * for the guarantees).
   *
   * ```ts
   * const { value } = await db.transact((tx) => tx.insert('Logical_Switch', { name: 'sw0' }));
   * // ["OVN_Northbound",{"op":"insert","table":"Logical_Switch","row":{"name":"sw0"},"uuid":"<value>","uuid-name":"row0"}]
   * ```
   */
  transact<R>(
    build: TransactionCallback<DB, R>,
    options: TransactOptions & { readonly dryRun: true },
  ): Promise<DryRunResult<R>>;
  transact<R>(
    build: TransactionCallback<DB, R>,
    options?: TransactOptions,
  ): Promise<TransactionResult<Resolved<R>>>;
  /**
   * Write `items` in transactions of up to `size` items: `build(tx, item, i)`
   * adds the operations of item `i`. Batches are sent one after the other;
   * each is atomic.
   * @throws BatchError when a batch fails (its `cause` is the error).
   */
  transactBatches<I>(
    items: readonly I[],
    size: number,
    build: (tx: TransactionBuilder<DB>, item: I, index: number) => void,
    options?: BatchOptions,
  ): Promise<BatchResult>;
}

/**
 * Bind `transact` and `transactBatches` to `executor`.
 *
 * @example
 * ```ts
 * import { NB } from 'ovnkit/nb';
 * import { connectDatabase } from 'ovnkit/client';
 * import { clientExecutor, createTransactor } from 'ovnkit/transactions';
 *
 * const nb = connectDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * const db = createTransactor(clientExecutor(nb));
 * const { value: sw } = await db.transact((tx) => tx.insert('Logical_Switch', { name: 'sw0' }));
 * await db.transact((tx) => { tx.update('NB_Global', [], { options: { foo: 'bar' } }); });
 * ```
 */
export function createTransactor<DB extends TableMap>(
  executor: TransactionExecutor<DB>,
): Transactor<DB> {
  return {
    executor,
    transact: ((build: TransactionCallback<DB, unknown>, options?: TransactOptions) =>
      transact(executor, build, options)) as Transactor<DB>['transact'],
    transactBatches: (items, size, build, options) =>
      transactBatches(executor, items, size, build, options),
  };
}

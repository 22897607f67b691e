/**
 * Large imports: `transactBatches` (the database client's, over its
 * executor) splits a list of items into transactions of `size` items each, sends them
 * one after the other, and reports progress.
 * @module
 */

import type { TableMap } from '../ovsdb/schema/model.js';
import { OvsdbError } from '../ovsdb/wire/errors.js';
import type { TransactionBuilder } from './builder.js';
import { type Outcome, outcomeOf } from './errors.js';
import type { TransactionExecutor } from './executor.js';
import { type TransactOptions, transact } from './run.js';

/** Progress of `transactBatches`, after each committed batch. */
export interface BatchProgress {
  /** Items committed so far. */
  readonly done: number;
  /** All items. */
  readonly total: number;
  /** Batches committed so far. */
  readonly batch: number;
  /** All batches. */
  readonly batches: number;
}

/** Options of `transactBatches`: those of `transact` (except `dryRun`), plus progress. */
export interface BatchOptions extends Omit<TransactOptions, 'dryRun'> {
  /** Called after each committed batch. An exception it throws stops the import. */
  readonly onProgress?: ((progress: BatchProgress) => void) | undefined;
}

/** What `transactBatches` did. */
export interface BatchResult {
  /** Items committed. */
  readonly items: number;
  /** Transactions committed. */
  readonly batches: number;
  /** Transactions sent, retries and replays included. */
  readonly attempts: number;
}

/**
 * A batch of `transactBatches` failed. The batches before it
 * committed; the ones after it were not sent.
 */
export class BatchError extends OvsdbError {
  override name = 'BatchError';
  constructor(
    /** The failed batch (0-based). */
    readonly batch: number,
    /** Items committed before it (all in earlier batches). */
    readonly done: number,
    /** The failed batch's first item index. */
    readonly firstItem: number,
    /** The failed batch's outcome (`committed` only when its results were lost). */
    readonly outcome: Outcome,
    cause: unknown,
  ) {
    super(
      `batch ${batch} (items ${firstItem}…) failed after ${done} items committed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/**
 * Write `items` in transactions of up to `size` items: `build(tx, item, i)`
 * adds the operations of item `i`. Batches are sent one after the other;
 * each is atomic.
 *
 * ```ts
 * await transactBatches(executor, ports, 500, (tx, p) => {
 *   const ref = tx.insert('Logical_Switch_Port', { name: p.name });
 *   tx.mutate('Logical_Switch', p.switch, [['ports', 'insert', [ref]]]);
 * }, { onProgress: ({ done, total }) => console.log(`${done}/${total}`) });
 * ```
 * @throws BatchError when a batch fails (its `cause` is the error).
 */
export async function transactBatches<DB extends TableMap, I>(
  executor: TransactionExecutor<DB>,
  items: readonly I[],
  size: number,
  build: (tx: TransactionBuilder<DB>, item: I, index: number) => void,
  options: BatchOptions = {},
): Promise<BatchResult> {
  if (!Number.isSafeInteger(size) || size < 1) {
    throw new TypeError(`transactBatches: size must be a positive integer, got ${size}`);
  }
  const { onProgress, ...txOptions } = options;
  const total = items.length;
  const batches = Math.ceil(total / size);
  let done = 0;
  let attempts = 0;
  for (let b = 0; b < batches; b++) {
    const first = b * size;
    const last = Math.min(total, first + size);
    try {
      const result = await transact(
        executor,
        (tx) => {
          for (let i = first; i < last; i++) build(tx, items[i] as I, i);
        },
        txOptions,
      );
      attempts += result.attempts;
    } catch (e) {
      throw new BatchError(b, done, first, outcomeOf(e), e);
    }
    done = last;
    onProgress?.({ done, total, batch: b + 1, batches });
  }
  return { items: done, batches, attempts };
}

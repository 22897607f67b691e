/**
 * {@link applyDesired}: plan, then send the plan guarded by `wait`s on what
 * it read, as one transaction or in batches. A guard that trips (another
 * writer changed a row between the plan and the commit), a duplicate key
 * created meanwhile, or a reply lost with an unknown outcome makes it plan
 * again from the refreshed replica and go on, up to `retries` times: the
 * plan is a function of the replica, so sending it again after an unknown
 * outcome cannot apply anything twice. An empty plan sends nothing.
 * @module
 */

import type { DatabaseClient } from '../client/client.js';
import type { TableMap } from '../ovsdb/schema/model.js';
import { TransactionError } from '../ovsdb/wire/errors.js';
import { DuplicateIndexError, TransactionOutcomeError } from '../transactions/errors.js';
import { BatchProgress, batches, emitBatch } from './emit.js';
import { DesiredConflictError } from './errors.js';
import type { Plan, PlanOptions } from './plan.js';
import { planDesired } from './planner.js';
import type { DesiredReader } from './snapshot.js';
import type { DesiredState } from './state.js';

/**
 * What {@link applyDesired} needs of the database handle (`openDatabase`):
 * its replica's reads, typed transactions, and its sync.
 */
export type DesiredClient<DB extends TableMap> = DesiredReader<DB> &
  Pick<DatabaseClient<DB>, 'model' | 'transact' | 'whenSynced' | 'drained'>;

/** Options of {@link applyDesired}. */
export interface ApplyOptions extends PlanOptions {
  /**
   * Send the plan in transactions of at most this many row changes (a
   * create, an update or a delete each; a child goes with its link to its
   * parent; a child that moves between parents takes its unlink and its
   * link into one transaction, which may exceed the size). Default: the
   * whole plan in one transaction. Each batch is atomic; when one fails, the
   * batches before it have committed, and the next attempt plans from there.
   */
  readonly batchSize?: number | undefined;
  /** Plans made again after a conflict, at most (default 5). */
  readonly retries?: number | undefined;
  /** A `comment` operation in every transaction (shown in the server's log). */
  readonly comment?: string | undefined;
  /** The time each transaction may take, in ms. */
  readonly timeoutMs?: number | undefined;
  /** Abort the apply. */
  readonly signal?: AbortSignal | undefined;
}

/** The result of {@link applyDesired}. */
export interface ApplyResult {
  /** `unchanged`: the database already matched (nothing was sent). */
  readonly outcome: 'applied' | 'unchanged';
  /** The plan of the last attempt (the changes it made). */
  readonly plan: Plan;
  /** Plans made (1 without conflicts). */
  readonly attempts: number;
  /** Transactions committed. */
  readonly transactions: number;
  /** Write operations (insert, update, mutate, delete) in the committed transactions. */
  readonly operations: number;
  /** Guards (`wait`s) in the committed transactions. */
  readonly guards: number;
  /** Conflicts met and planned around (tripped guards, duplicate keys, unknown outcomes). */
  readonly conflicts: number;
}

/**
 * Errors that mean "the database changed under the plan": a guard that
 * tripped (`timed out`), a row with the same key created meanwhile (a
 * duplicate index), a referenced row deleted meanwhile, or a reply lost.
 */
function isConflict(error: unknown): boolean {
  if (error instanceof TransactionOutcomeError) return error.outcome !== 'not committed';
  if (error instanceof DuplicateIndexError) return true;
  if (!(error instanceof TransactionError)) return false;
  if (error.error === 'timed out' || error.error === 'referential integrity violation') return true;
  return error.error === 'constraint violation' && /identical values/.test(error.details ?? '');
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/**
 * Make the database match `state`: plan from the replica, send the plan
 * guarded, and on a conflict plan again (see the module).
 *
 * ```ts
 * const d = new DesiredState(NB, { owner: 'tenant-a' });
 * const sw = d.add('Logical_Switch', { name: 'sw0' });
 * d.add('Logical_Switch_Port', { name: 'p1', addresses: ['00:00:00:00:00:01 10.0.0.2'] }, { in: sw });
 * const r = await applyDesired(client, d);
 * r.plan.render(); // Plan for owner "tenant-a": 2 to create, 0 to update, 0 to delete (2 operations, 1 guards)
 * (await applyDesired(client, d)).outcome; // 'unchanged'
 * ```
 * @throws DesiredStateError for a bad desired state (nothing is sent);
 *   DesiredConflictError after `retries` conflicts; TransactionError for
 *   another refusal of the server (nothing of that transaction committed).
 */
export async function applyDesired<DB extends TableMap>(
  client: DesiredClient<DB>,
  state: DesiredState<DB>,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  return runApply(client, state, options, {
    plan: () => planDesired(client, state, options),
    settled: () => {},
  });
}

/** @internal Where an apply's plans come from, and what it hears of each. */
export interface PlanSource {
  /** The next plan (called once the replica is in sync). */
  plan(): Plan;
  /** The plan was empty or committed whole (`true`), or not (`false`). */
  settled(plan: Plan, committed: boolean): void;
}

/** @internal {@link applyDesired}'s loop, with the plans from `source`. */
export async function runApply<DB extends TableMap>(
  client: DesiredClient<DB>,
  state: DesiredState<DB>,
  options: ApplyOptions,
  source: PlanSource,
): Promise<ApplyResult> {
  const retries = options.retries ?? 5;
  if (!Number.isSafeInteger(retries) || retries < 0) {
    throw new RangeError(`apply: retries must be a non-negative integer, got ${String(retries)}`);
  }
  const size = options.batchSize ?? Number.POSITIVE_INFINITY;
  if (size !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(size) || size < 1)) {
    throw new RangeError(`apply: batchSize must be a positive integer, got ${String(size)}`);
  }
  if (options.guardReads === true && options.batchSize !== undefined) {
    throw new RangeError('apply: guardReads guards one transaction: it cannot go with batchSize');
  }
  const schema = state.model.schema;
  let attempts = 0;
  let transactions = 0;
  let operations = 0;
  let guards = 0;
  let conflicts = 0;
  for (;;) {
    attempts++;
    await client.whenSynced({ signal: options.signal });
    const plan = source.plan();
    if (plan.empty) {
      source.settled(plan, true);
      return {
        outcome: transactions === 0 ? 'unchanged' : 'applied',
        plan,
        attempts,
        transactions,
        operations,
        guards,
        conflicts,
      };
    }
    const progress = new BatchProgress(plan);
    let committed = false;
    try {
      for (const batch of batches(plan, schema, size)) {
        let counts = { operations: 0, guards: 0 };
        await client.transact(
          (tx) => {
            counts = emitBatch(tx as never, plan, schema, batch, progress);
          },
          {
            retries: 0,
            comment: options.comment,
            timeoutMs: options.timeoutMs,
            signal: options.signal,
          },
        );
        progress.commit(batch);
        transactions++;
        operations += counts.operations;
        guards += counts.guards;
      }
      committed = true;
      return { outcome: 'applied', plan, attempts, transactions, operations, guards, conflicts };
    } catch (error) {
      if (!isConflict(error)) throw error;
      conflicts++;
      if (attempts > retries) throw new DesiredConflictError(attempts, error);
      // Let the replica catch up with the change that tripped the plan.
      await client.drained();
      await sleep(Math.min(5 * 2 ** (attempts - 1), 200) * (0.5 + Math.random()), options.signal);
      await client.drained();
    } finally {
      source.settled(plan, committed);
    }
  }
}

/**
 * Typed OVSDB transactions: a builder typed by the model (every table,
 * column, value, reference and condition checked by the compiler), with
 * client-chosen UUIDs for exactly-once inserts, `verify` with replay, and
 * outcome resolution after a lost reply.
 *
 * The database client runs them: `openDatabase(…)` gives a handle whose
 * `transact` is {@link transact} over its executor. This entry point holds
 * the builder's types, the errors, and the pieces underneath: the
 * {@link TransactionExecutor} interface, {@link connectionExecutor} for
 * typed transactions over a bare connection (no replica), and the
 * read-your-writes {@link TransactionView}.
 *
 * ```ts
 * import { openDatabase } from 'ovnkit';
 * import { NB } from 'ovnkit/nb';
 *
 * const db = await openDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * const { value: port } = await db.transact((tx) => {
 *   const port = tx.insert('Logical_Switch_Port', { name: 'lsp1', addresses: ['00:00:00:00:00:01'] });
 *   tx.mutate('Logical_Switch', { name: 'sw0' }, [['ports', 'insert', [port]]]);
 *   return port;
 * });
 * ```
 * @module
 */

export type {
  Atomic,
  ComparisonFunction,
  ConditionFor,
  ConditionOf,
  EqualityFunction,
  InclusionFunction,
  IndexKey,
  IsCollection,
  Where,
} from '../ovsdb/values/conditions.js';
export { type RefusedBy, TransactionRefusedError } from '../ovsdb/wire/errors.js';
export { BatchError, type BatchOptions, type BatchProgress, type BatchResult } from './batches.js';
export {
  type CompiledTransaction,
  type InsertedRow,
  type InsertOptions,
  type SelectOptions,
  TransactionBuilder,
  type VerifiedRow,
  type WaitOptions,
} from './builder.js';
export type { TransactionCallback } from './compile.js';
export { connectionExecutor } from './connection-executor.js';
export {
  DuplicateIndexError,
  LockNotHeldError,
  type Outcome,
  outcomeOf,
  TransactionOutcomeError,
  TransactionOutcomeUnknownError,
  VerifyConflictError,
} from './errors.js';
export type { ReplicaReader, TransactionExecutor, TransactRequest } from './executor.js';
export { OperationHandle, type Resolved } from './handles.js';
export type {
  ArithmeticMutator,
  MapMutation,
  MutableColumnOf,
  MutationFor,
  MutationOf,
  SetMutation,
} from './mutations.js';
export type { Resolution, TransactionResult } from './outcome.js';
export type { RawTransactOptions } from './raw.js';
export type { Ref } from './ref.js';
export { type DryRunResult, type TransactOptions, transact } from './run.js';
export { TransactionView } from './view.js';
export {
  TableNotMonitoredError,
  type TransactionViewOptions,
  type TransactionViewReader,
  type TransactionViewReaderExtras,
} from './view-overlay.js';

/**
 * Typed OVSDB transactions: a builder typed by the model (every table,
 * column, value, reference and condition checked by the compiler), with
 * client-chosen UUIDs for exactly-once inserts, `verify` with replay, and
 * outcome resolution after a lost reply.
 *
 * {@link openDatabase} is the way in: a database client and typed
 * transactions over it, in one handle.
 *
 * ```ts
 * import { NB } from 'ovnkit/nb';
 * import { openDatabase } from 'ovnkit/transactions';
 *
 * const db = await openDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * const { value: port } = await db.transact((tx) => {
 *   const port = tx.insert('Logical_Switch_Port', { name: 'lsp1', addresses: ['00:00:00:00:00:01'] });
 *   tx.mutate('Logical_Switch', { name: 'sw0' }, [['ports', 'insert', [port]]]);
 *   return port;
 * });
 * ```
 *
 * Lower level: {@link createTransactor} binds transactions to any
 * {@link TransactionExecutor}: {@link clientExecutor} over a database client
 * you created with `connectDatabase`, {@link connectionExecutor} over a bare
 * connection (no replica).
 * @module
 */

export { LockNotHeldError } from '../client/errors.js';
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
export {
  type ClientTransactOptions,
  clientExecutor,
  type TransactingClient,
} from './client-executor.js';
export type { TransactionCallback } from './compile.js';
export { connectionExecutor } from './connection-executor.js';
export { DatabaseHandle, openDatabase } from './database.js';
export * from './desired/index.js';
export {
  DuplicateIndexError,
  type Outcome,
  outcomeOf,
  TransactionOutcomeError,
  VerifyConflictError,
} from './errors.js';
export type { DryRunResult, TransactionResult, TransactOptions } from './execute.js';
export type { ExecuteOptions, ReplicaReader, TransactionExecutor } from './executor.js';
export { OperationHandle, type Resolved } from './handles.js';
export type {
  ArithmeticMutator,
  MapMutation,
  MutableColumnOf,
  MutationFor,
  MutationOf,
  SetMutation,
} from './mutations.js';
export type { Resolution, ResolvedOutcome } from './outcome.js';
export type { Ref } from './ref.js';
export { createTransactor, type Transactor } from './transactor.js';
export {
  TableNotMonitoredError,
  TransactionView,
  type TransactionViewOptions,
  type TransactionViewReader,
  type TransactionViewReaderExtras,
} from './view.js';

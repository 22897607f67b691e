/**
 * Typed OVSDB transactions: a builder typed by the model (every table,
 * column, value, reference and condition checked by the compiler), with
 * client-chosen UUIDs for exactly-once inserts, `verify` with replay, and
 * outcome resolution after a lost reply.
 *
 * ```ts
 * import { clientExecutor, createTransactor } from 'ovnkit/transactions';
 *
 * const db = createTransactor(clientExecutor(nb));
 * const { value: port } = await db.transact((tx) => {
 *   const port = tx.insert('Logical_Switch_Port', { name: 'lsp1', addresses: ['00:00:00:00:00:01'] });
 *   tx.mutate('Logical_Switch', { name: 'sw0' }, [['ports', 'insert', [port]]]);
 *   return port;
 * });
 * ```
 *
 * Layers: `builder.ts` (what the callback calls) → `compile.ts` (the
 * immutable operations, also a dry run) → `execute.ts` (send, replay,
 * resolve) over a {@link TransactionExecutor} (`client-executor.ts`,
 * `connection-executor.ts`).
 * @module
 */
export * from './batches.js';
export * from './builder.js';
export * from './client-executor.js';
export * from './compile.js';
export * from './conditions.js';
export * from './connection-executor.js';
export { DatabaseHandle, openDatabase } from './database.js';
export * from './errors.js';
export * from './execute.js';
export * from './executor.js';
export { OperationHandle, type Resolved } from './handles.js';
export * from './mutations.js';
export type { Resolution, ResolvedOutcome } from './outcome.js';
export * from './ref.js';
export * from './transactor.js';
export {
  TransactionView,
  type TransactionViewOptions,
  type TransactionViewReader,
} from './view.js';

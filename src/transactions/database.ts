/**
 * {@link openDatabase}: the typed way into one database. It connects a
 * database client (a replica kept in sync over reconnects and cluster
 * failover), waits until it is in sync, and returns a
 * {@link DatabaseHandle}: typed transactions (`transact`, `transactBatches`)
 * and the replica's reads in one object, and `close()`.
 *
 * It is `connectDatabase` plus `createTransactor(clientExecutor(client))`;
 * those stay available for programs that compose them differently.
 * @module
 */

import {
  connectDatabase,
  type DatabaseClient,
  type DatabaseClientOptions,
  type DatabaseLock,
  type LockOptions,
} from '../client/client.js';
import type { RowEventHandler, RowEventKind } from '../client/replica/event-queue.js';
import type { IndexValue } from '../client/replica/indexes.js';
import type { WaitForOptions } from '../client/replica/replica.js';
import type { IndexesOption } from '../client/replica/store.js';
import type { CompatOption, CompatTables } from '../ovsdb/schema/compat.js';
import type { DatabaseModel, RowOf, TableMap, TableName } from '../ovsdb/schema/model.js';
import type { BatchOptions, BatchResult } from './batches.js';
import type { TransactionBuilder } from './builder.js';
import { clientExecutor } from './client-executor.js';
import type { TransactionCallback } from './compile.js';
import type { DryRunResult, TransactionResult, TransactOptions } from './execute.js';
import type { TransactionExecutor } from './executor.js';
import type { Resolved } from './handles.js';
import { createTransactor, type Transactor } from './transactor.js';

/** The tables of `DB` that have client indexes in `IX`. */
type IndexedTable<DB extends TableMap, IX> = Extract<keyof IX, TableName<DB>>;
/** The client index names of table `T` in `IX`. */
type IndexName<IX, T extends keyof IX> = Extract<keyof NonNullable<IX[T]>, string>;

/**
 * One database, typed by its model: typed transactions and the replica's
 * reads. Open one with {@link openDatabase}; `client` is the database client
 * underneath (status events, raw `transact`, monitors).
 */
export class DatabaseHandle<
  DB extends TableMap,
  IX extends IndexesOption<DB> = Record<never, never>,
> implements Transactor<DB>
{
  /** The database client underneath. */
  readonly client: DatabaseClient<DB, IX>;
  /** The executor the transactions run on (over {@link DatabaseHandle.client}). */
  readonly executor: TransactionExecutor<DB>;
  private readonly transactor: Transactor<DB>;

  /** Use {@link openDatabase}. */
  constructor(client: DatabaseClient<DB, IX>) {
    this.client = client;
    this.transactor = createTransactor(clientExecutor(client));
    this.executor = this.transactor.executor;
  }

  /** The model. */
  get model(): DatabaseModel<DB> {
    return this.client.model;
  }

  /**
   * Build and run one atomic transaction: the callback gets a typed builder
   * (`insert`, `update`, `mutate`, `delete`, `select`, `wait`, `verify`), may
   * be replayed after a failed `verify`, and its value is returned with every
   * operation handle resolved. Resolves once the replica shows the changes.
   *
   * ```ts
   * const { value: sw } = await db.transact((tx) => tx.insert('Logical_Switch', { name: 'sw0' }));
   * db.get('Logical_Switch', sw)?.name; // 'sw0'
   * ```
   * @throws TransactionError (or a subclass: `DuplicateIndexError`,
   *   `VerifyConflictError`) when an operation failed;
   *   `TransactionOutcomeError` when the outcome of a lost reply could not be
   *   learnt; `ClientClosedError` when the handle was closed.
   */
  transact<R>(
    build: TransactionCallback<DB, R>,
    options: TransactOptions & { readonly dryRun: true },
  ): Promise<DryRunResult<R>>;
  transact<R>(
    build: TransactionCallback<DB, R>,
    options?: TransactOptions,
  ): Promise<TransactionResult<Resolved<R>>>;
  transact<R>(
    build: TransactionCallback<DB, R>,
    options?: TransactOptions,
  ): Promise<TransactionResult<Resolved<R>> | DryRunResult<R>> {
    return this.transactor.transact(build, options);
  }

  /**
   * Write `items` in transactions of `size` items each, one after the other:
   * `build` adds one item's operations.
   * @throws BatchError naming the failed batch (the ones before it committed).
   */
  transactBatches<I>(
    items: readonly I[],
    size: number,
    build: (tx: TransactionBuilder<DB>, item: I, index: number) => void,
    options?: BatchOptions,
  ): Promise<BatchResult> {
    return this.transactor.transactBatches(items, size, build, options);
  }

  /**
   * Ask for the OVSDB lock `name`, again after every reconnection, until
   * released (see `DatabaseClient.lock`). With the `fence` option (of
   * `openDatabase` or of a transaction) the handle's transactions commit
   * only while the lock is held.
   *
   * ```ts
   * const db = await openDatabase({ remotes, model: NB, fence: 'pod_allocation' });
   * await db.lock('pod_allocation').whenHeld();
   * ```
   */
  lock(name: string, options?: LockOptions): DatabaseLock {
    return this.client.lock(name, options);
  }

  /** The row of `table` with UUID `uuid`. */
  get<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined {
    return this.client.get(table, uuid);
  }

  /** Look a row up by a schema index, e.g. `lookup('Logical_Switch_Port', { name: 'p1' })`. */
  lookup<T extends TableName<DB>>(table: T, key: Partial<RowOf<DB, T>>): RowOf<DB, T> | undefined {
    return this.client.lookup(table, key);
  }

  /** The rows a client index maps `value` to, e.g. `byIndex('Logical_Switch_Port', 'pod', 'ns/web-1')`. */
  byIndex<T extends IndexedTable<DB, IX>>(
    table: T,
    index: IndexName<IX, T>,
    value: IndexValue,
  ): RowOf<DB, T>[] {
    return this.client.byIndex(table, index, value);
  }

  /** The rows of `table` (a live iterator). */
  rows<T extends TableName<DB>>(table: T): IterableIterator<RowOf<DB, T>> {
    return this.client.rows(table);
  }

  /** The rows of `table` for which `predicate` is true. */
  filter<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
  ): RowOf<DB, T>[] {
    return this.client.filter(table, predicate);
  }

  /** A row of `table` for which `predicate` is true. */
  find<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
  ): RowOf<DB, T> | undefined {
    return this.client.find(table, predicate);
  }

  /** The number of rows of `table`. */
  count(table: TableName<DB>): number {
    return this.client.count(table);
  }

  /**
   * Call `handler` for each `kind` change of `table` from now on (see
   * `DatabaseClient.on`). Returns a function that removes the handler.
   */
  on<T extends TableName<DB>, K extends RowEventKind>(
    table: T,
    kind: K,
    handler: RowEventHandler<RowOf<DB, T>, K>,
  ): () => void {
    return this.client.on(table, kind, handler);
  }

  /**
   * Resolve with the first row of `table` matching `predicate`, now or when
   * a change makes one match.
   * @throws WaitTimeoutError on timeout; ClientClosedError when the handle closes.
   */
  waitFor<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
    options?: WaitForOptions,
  ): Promise<RowOf<DB, T>> {
    return this.client.waitFor(table, predicate, options);
  }

  /** Close the client: pending work is rejected with `ClientClosedError`. */
  close(): Promise<void> {
    return this.client.close();
  }
}

/**
 * Open a database: connect a database client with `options` (those of
 * `connectDatabase`: remotes, model, tables, indexes, TLS, backoff, …), wait
 * until its replica is in sync, and return the typed handle.
 *
 * @example
 * ```ts
 * import { NB } from 'ovnkit/nb';
 * import { openDatabase } from 'ovnkit/transactions';
 *
 * const db = await openDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * const { value: sw } = await db.transact((tx) => {
 *   const port = tx.insert('Logical_Switch_Port', { name: 'web-1', addresses: ['00:00:00:00:00:05'] });
 *   return tx.insert('Logical_Switch', { name: 'sw0', ports: [port] });
 * });
 * console.log(db.get('Logical_Switch', sw)?.ports.length); // 1
 * for (const ls of db.rows('Logical_Switch')) console.log(ls.name);
 * await db.close();
 * ```
 * @throws RemoteSyntaxError for an invalid remote; OvsdbError for
 *   a table, column or index the model does not have; ClientClosedError when
 *   the client gives up (see `backoff`) or `signal` aborts before it is in
 *   sync; the client is closed then.
 */
export async function openDatabase<
  DB extends TableMap,
  const IX extends IndexesOption<CompatTables<DB, C>> = Record<never, never>,
  const C extends CompatOption<DB> = false,
>(options: DatabaseClientOptions<DB, IX, C>): Promise<DatabaseHandle<CompatTables<DB, C>, IX>> {
  const client = connectDatabase<DB, IX, C>(options);
  try {
    await client.ready;
  } catch (e) {
    await client.close();
    throw e;
  }
  return new DatabaseHandle(client);
}

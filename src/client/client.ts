/**
 * The database client: a typed replica of an OVSDB database kept in sync over
 * a connection that survives server restarts, leader changes and network
 * failures.
 *
 * ```ts
 * import { connectDatabase } from 'ovnkit/client';
 * import { NB } from 'ovnkit';
 *
 * const nb = connectDatabase({
 *   remotes: ['tcp:10.0.0.1:6641', 'tcp:10.0.0.2:6641', 'tcp:10.0.0.3:6641'],
 *   model: NB,
 *   indexes: { Logical_Switch_Port: { pod: { column: 'external_ids', key: 'pod' } } },
 * });
 * await nb.ready;
 * nb.lookup('Logical_Switch_Port', { name: 'web-1' });
 * nb.byIndex('Logical_Switch_Port', 'pod', 'default/web-1');
 * nb.on('Logical_Switch_Port', 'update', (row, old) => { ... });
 * nb.onStatus((e) => console.log(e.type, e.reason));
 * ```
 *
 * ## Connecting
 *
 * The client tries its remotes in order (optionally shuffled once). On each
 * server it first monitors `_Server.Database` and skips the server when its
 * database is not usable (see `cluster.ts`: not joined, disconnected, stale,
 * or, with `leaderOnly` (the default), not the leader). It then reads the
 * server's schema, compares it with the model (`compat`), and starts its
 * monitors. `ready` resolves once every monitor's initial contents are in the
 * replica.
 *
 * ## A model newer (or older) than the server
 *
 * Tables and columns of the model that the server's schema lacks are left
 * out of the monitor (`compat` reports every difference). Such a table has
 * no rows; such a column is *absent* from every row: not a property of it
 * (`'tier' in acl` is false, `acl.tier` reads `undefined`), never a default
 * the server does not hold ({@link DatabaseClient.absentColumns},
 * {@link DatabaseClient.hasColumn}). The `compat` option types those
 * columns `T | undefined` (`compat: NB_COMPAT` for the bundled NB model). A
 * write that names one fails with `SchemaDriftError` before anything is
 * sent, and so does a monitor condition unless `absentColumnConditions` is
 * `'drop'`; a client index on one throws `IndexError` naming it when used.
 * A column typed otherwise on the server (scalar or optional, other enum
 * values, set sizes or ranges) is read in the model's form, a row whose
 * value has none lacking it, and written only with values the server's type
 * admits (see `ovsdb/schema/compat.ts`).
 *
 * ## Monitors and resuming
 *
 * Tables are grouped into monitors (`tables: { T: { monitor: 'name' } }`;
 * one monitor by default). Each monitor uses `monitor_cond_since`, falling
 * back to `monitor_cond` and then `monitor` when the server does not know
 * the method. After a reconnection every monitor resumes from its own last
 * transaction id: when the server still has it (`found`), only the missed
 * changes are applied, with their events; when it does not, the monitor's
 * tables are replaced by the new dump, and events are emitted only for rows
 * that really differ from what the replica had (no insert storm).
 *
 * ovsdb-server keeps about the last 100 transactions, and a monitor whose
 * tables rarely change receives no `update3` to learn newer ids. The client
 * still keeps every monitor's resume point recent: an `update3`'s id is the
 * database's latest transaction, and ovsdb-server writes every monitor's
 * update of one flush back to back (and flushes all of them before any
 * reply), so once an update of a later flush (or a reply) arrives, every
 * monitor in sync is known to be current up to the earlier id.
 *
 * Standalone databases keep no transaction ids: there, every reconnection is
 * a full dump, applied as above.
 *
 * ## Reconnecting
 *
 * A lost connection (closed, failed inactivity probe, server left the
 * cluster or lost leadership) starts a new round through the remotes at
 * once, beginning after the server just lost. When a whole round fails, the
 * client waits an exponential, jittered, capped delay (`backoff`) before the
 * next one, and gives up once the backoff's limits are reached: `ready`,
 * pending transactions and `waitFor`s then reject with a
 * {@link ClientClosedError}, and the status becomes `closed`. The client
 * never throws asynchronously: every failure is a rejected promise the
 * caller holds, a status event, or a log line.
 *
 * ## Backpressure
 *
 * Event handlers run from an ordered queue, never inside the socket reader;
 * when the queue reaches its high-water mark, the client pauses reading the
 * socket until handlers catch up (see `replica.ts` for the full model).
 * While paused, replies (including those of `transact`) wait too, and the
 * inactivity probe only keeps the server's probe satisfied.
 * @module
 */

import type { ClientMetricsTarget, ClientObservability } from '../observability/metrics.js';
import {
  absentColumns,
  type CompatOption,
  type CompatReport,
  type CompatTables,
} from '../ovsdb/schema/compat.js';
import type { ColumnOf, DatabaseModel, RowOf, TableMap, TableName } from '../ovsdb/schema/model.js';
import type { Dialer } from '../ovsdb/transport/dial.js';
import type { MonitorCondition } from '../ovsdb/values/conditions.js';
import { ConnectionClosedError, OvsdbError } from '../ovsdb/wire/errors.js';
import type { Condition, Operation, OperationResult } from '../ovsdb/wire/wire.js';
import { type BatchOptions, type BatchResult, transactBatches } from '../transactions/batches.js';
import type { TransactionBuilder } from '../transactions/builder.js';
import type { TransactionCallback } from '../transactions/compile.js';
import type { TransactionExecutor } from '../transactions/executor.js';
import type { Resolved } from '../transactions/handles.js';
import type { TransactionResult } from '../transactions/outcome.js';
import { type RawTransactOptions, transactRaw } from '../transactions/raw.js';
import { type DryRunResult, type TransactOptions, transact } from '../transactions/run.js';
import { ClientClosedError } from './errors.js';
import { ClientExecutor } from './executor.js';
import { checkLockName, type DatabaseLock, type LockOptions } from './locks.js';
import { createLog, logHandlerError } from './log.js';
import { MonitorGroups } from './monitor-groups.js';
import {
  connectionConfig,
  type DatabaseClientOptions,
  type TableMonitorOptions,
} from './options.js';
import { Reconnector } from './reconnect.js';
import { ReplicaFeed } from './replica/feed.js';
import { type IndexesOption, Replica } from './replica/replica.js';
import {
  type ClientHealth,
  type ClientStats,
  type ClientStatus,
  createStats,
  type StatusEvent,
  StatusReporter,
} from './status.js';

export { ClientClosedError } from './errors.js';
export type { DatabaseLock, LockOptions, LockState, LockStatus } from './locks.js';
export type { Logger } from './log.js';
export type { DatabaseClientOptions, TableMonitorOptions } from './options.js';
export type {
  ClientHealth,
  ClientState,
  ClientStats,
  ClientStatus,
  MonitorSyncInfo,
  ServerRole,
  StatusEvent,
  StatusEventType,
} from './status.js';

/**
 * The handle of one database, typed by its model: a replica kept in sync
 * over reconnects and cluster failover (its reads, events and waits are
 * those of {@link Replica}), typed and raw transactions, OVSDB locks,
 * status. Open it with {@link openDatabase}.
 */
export class DatabaseClient<
  DB extends TableMap,
  IX extends IndexesOption<DB> = Record<never, never>,
> extends Replica<DB, IX> {
  /** Resolves once the replica holds the initial contents of every monitor; rejects if the client closes or gives up first. */
  readonly ready: Promise<void>;
  /** Counters. */
  readonly stats: ClientStats;
  /**
   * What the client's transactions run on: it sends each on the current
   * session once in sync (see `TransactionExecutor`). `transact`,
   * `transactBatches` and `transactRaw` go through it, so it is the one
   * place to observe (or delay, in a test) what the client sends.
   */
  readonly executor: TransactionExecutor<DB>;

  private readonly statusReporter: StatusReporter;
  private readonly groups: MonitorGroups<DB>;
  private readonly connection: Reconnector<DB>;

  /**
   * Use `openDatabase`.
   * @param dial - the platform's dialer, for options that give none.
   */
  constructor(options: DatabaseClientOptions<DB, IX>, dial: Dialer) {
    const logger = options.logger ?? {};
    // (Bound once the connection exists; the queue asks only once it fills.)
    const pressure = { to: (_pause: boolean): void => {} };
    super(options.model, {
      indexes: options.indexes,
      freeze: options.freezeRows,
      highWaterMark: options.eventQueue?.highWaterMark,
      lowWaterMark: options.eventQueue?.lowWaterMark,
      onPressure: (pause) => pressure.to(pause),
      onHandlerError: options.onHandlerError ?? logHandlerError(logger),
    });
    // (Sampled at scrape time only: the client exists by then.)
    const observe = observabilityOf(options, {
      queueLength: () => this.queueLength,
      locks: () =>
        this.connection.locks.statuses().map((l) => ({ name: l.name, held: l.state === 'held' })),
      health: () => this.connection.health(),
    });
    const config = connectionConfig(options, dial, observe);
    checkCompatOption(options.model, options.compat);
    const log = createLog(logger);
    const feed = new ReplicaFeed(this.tables);
    this.stats = createStats(this.eventStats);
    this.statusReporter = new StatusReporter((deliver) => feed.enqueueCallback(deliver), log);
    this.groups = new MonitorGroups<DB>(
      options.model,
      options.tables as
        | { readonly [table: string]: TableMonitorOptions | boolean | undefined }
        | undefined,
      feed,
      this.stats,
      log,
      observe,
      options.absentColumnConditions,
    );
    this.connection = new Reconnector<DB>({
      config,
      model: options.model,
      feed,
      groups: this.groups,
      status: this.statusReporter,
      stats: this.stats,
      log,
    });
    const metrics = observe?.metrics;
    pressure.to = (pause) => {
      if (pause) metrics?.backpressurePause();
      this.connection.onPressure(pause);
    };
    this.ready = this.connection.ready;
    const fence = options.fence;
    this.executor = new ClientExecutor(this.connection, options.model, this, fence, observe);
    if (fence !== undefined) {
      checkLockName(fence);
      // On the next microtask, as the first status events: handlers added right after construction see it.
      queueMicrotask(() => {
        if (this.connection.closedError === undefined) this.lock(fence);
      });
    }
    const signal = options.signal;
    if (signal) {
      if (signal.aborted) queueMicrotask(() => void this.close());
      else signal.addEventListener('abort', () => void this.close(), { once: true });
    }
    // Start on the next microtask, so that handlers added right after
    // construction see the first status events.
    this.connection.start();
    if (metrics !== undefined) void this.connection.stopped.then(() => metrics.close());
  }

  // ---- status ----------------------------------------------------------------------

  /** The current state, server and reason, and the state of each lock. */
  get status(): ClientStatus {
    return { ...this.statusReporter.status, locks: this.connection.locks.statuses() };
  }

  /**
   * Whether the client is healthy, now: connected, in sync, the server and
   * its role, the age of the last message from a server and of the last
   * update applied, whether a lock is held. Each status event carries it
   * too, and the Prometheus adapter exports it as gauges. See
   * `docs/liveness.md#health`.
   *
   * ```ts
   * // A Kubernetes readiness probe: ready while the replica is current.
   * http.createServer((req, res) => {
   *   res.writeHead(client.health.inSync ? 200 : 503).end();
   * });
   * ```
   */
  get health(): ClientHealth {
    return this.connection.health();
  }

  /** How the model differs from the server's schema (undefined until a schema was read). */
  get compat(): CompatReport | undefined {
    return this.connection.compat;
  }

  /**
   * The columns of `table` that the rows read from the current server lack:
   * the model's columns the server's schema does not have (a model newer
   * than the server), or has with a type the model cannot read; in the
   * model's column order. Such a column is absent from every row (not a
   * property: `'tier' in acl` is false, `acl.tier` reads `undefined`),
   * never filled with a default. Every column when the server lacks the
   * table; undefined until a schema was read. Columns left out by the
   * `tables` option's `columns` are not listed (they are absent too).
   *
   * ```ts
   * client.absentColumns('ACL'); // against NB 7.0.0 with the 7.18.0 model: ['network_function_group', 'sample_est', 'sample_new', 'tier']
   * ```
   */
  absentColumns(table: TableName<DB>): readonly string[] | undefined {
    const compat = this.connection.compat;
    return compat === undefined ? undefined : absentColumns(compat, this.model.schema, table);
  }

  /**
   * True when the current server's schema has `table.column` with a type
   * the model reads (so rows carry it, when it is monitored), false when it
   * lacks it (see {@link DatabaseClient.absentColumns}); undefined until a
   * schema was read.
   */
  hasColumn<T extends TableName<DB>>(table: T, column: ColumnOf<DB, T>): boolean | undefined {
    const compat = this.connection.compat;
    if (compat === undefined) return undefined;
    if (column === '_uuid' || column === '_version') return !compat.missingTables.includes(table);
    const schema = this.model.schema.tables[table];
    if (schema?.columns[column] === undefined) return false;
    return !absentColumns(compat, this.model.schema, table).includes(column);
  }

  /**
   * The clauses of the monitor condition of `table` that the current server
   * was not sent because its schema lacks their columns (with
   * `absentColumnConditions: 'drop'`), in wire form; empty when none.
   */
  droppedConditions(table: TableName<DB>): readonly Condition[] {
    return this.groups.droppedConditions(table);
  }

  /**
   * Call `handler` for every status event, in order with the row events.
   * Returns a function that removes it.
   */
  onStatus(handler: (event: StatusEvent) => void | Promise<void>): () => void {
    return this.statusReporter.onStatus(handler);
  }

  // ---- locks ------------------------------------------------------------------------

  /**
   * Ask for the OVSDB lock `name` and keep asking for it: once the client is
   * in sync, and again after every reconnection or cluster failover (a new
   * connection holds nothing until the server grants it), until the lock is
   * released or the client closes. Returns the lock: its `state` (`waiting`,
   * `held`, `lost`, `released`), `whenHeld()`, `steal()`, `release()`; each
   * change of state is also a `lock` status event ({@link DatabaseClient.onStatus}).
   * Asking again for a lock already asked for returns the same lock.
   *
   * A lock is kept by the server process the client is connected to; on a
   * cluster, use the leader only (the default). Fence the writes of the
   * holder with it (the `fence` option) so that a replica that lost it
   * cannot commit. See `docs/locks.md`.
   *
   * ```ts
   * const nb = connectDatabase({ remotes, model: NB, fence: 'pod_allocation' });
   * const lock = nb.lock('pod_allocation');
   * await lock.whenHeld(); // the standby waits here
   * ```
   * @throws TypeError for a name OVSDB does not accept (a letter or `_`, then
   *   letters, digits or `_`); ClientClosedError once the client closed.
   */
  lock(name: string, options?: LockOptions): DatabaseLock {
    return this.connection.locks.lock(name, options);
  }

  // ---- writes ------------------------------------------------------------------------------

  /**
   * Build and run one atomic transaction: the callback gets a typed builder
   * (`insert`, `update`, `mutate`, `delete`, `select`, `wait`, `verify`), may
   * be replayed after a failed `verify`, and its value is returned with every
   * operation handle resolved. Resolves once the replica shows the changes
   * (the server sends the updates before the reply). While the client is not
   * in sync, the transaction waits for it.
   *
   * Inserts get client-chosen UUIDs, so that a transaction whose reply was
   * lost still ends `committed` or `not committed`, exactly once (the
   * guarantees are in `src/transactions/run.ts`). With a `fence` (the
   * option's or the client's), `{"op": "assert", "lock": fence}` goes first.
   *
   * ```ts
   * const { value: sw } = await db.transact((tx) => tx.insert('Logical_Switch', { name: 'sw0' }));
   * // ["OVN_Northbound",{"op":"insert","table":"Logical_Switch","row":{"name":"sw0"},"uuid":"<sw>","uuid-name":"row0"}]
   * db.get('Logical_Switch', sw)?.name; // 'sw0'
   * ```
   * @throws DatumError before sending, for an invalid operation;
   *   SchemaDriftError before sending, for a table or column the server
   *   lacks; TransactionError (or a subclass: `DuplicateIndexError`,
   *   `VerifyConflictError`, `TransactionRefusedError`, `LockNotHeldError`)
   *   when the transaction failed; `TransactionOutcomeError` when the
   *   outcome of a lost reply could not be learnt (or its results were
   *   lost); `ClientClosedError` when the client closes first.
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
    return transact(this.executor, build, options);
  }

  /**
   * Write `items` in transactions of up to `size` items each, one after the
   * other: `build(tx, item, i)` adds the operations of item `i`. Each batch
   * is atomic.
   * @throws BatchError naming the failed batch (the ones before it committed).
   */
  transactBatches<I>(
    items: readonly I[],
    size: number,
    build: (tx: TransactionBuilder<DB>, item: I, index: number) => void,
    options?: BatchOptions,
  ): Promise<BatchResult> {
    return transactBatches(this.executor, items, size, build, options);
  }

  /**
   * Run `ops` (raw wire operations) as one transaction, and resolve with
   * their results once the replica shows the transaction's changes. No
   * outcome resolution: a lost reply is a `TransactionOutcomeUnknownError`.
   *
   * ```ts
   * const [r] = await db.transactRaw([{ op: 'select', table: 'Logical_Switch', where: [], columns: ['name'] }]);
   * r?.rows; // [{ name: 'sw0' }]
   * ```
   * @throws SchemaDriftError before sending when an op names a table or
   *   column the server lacks; LockNotHeldError when the transaction is
   *   fenced by a lock this client does not hold (before sending, or the
   *   server's answer: it did not commit); TransactionError when an
   *   operation fails; TransactionOutcomeUnknownError when the reply was
   *   lost; ClientClosedError when the client closes or gives up first.
   */
  transactRaw(
    ops: readonly Operation[],
    options: RawTransactOptions = {},
  ): Promise<OperationResult[]> {
    return transactRaw(this.executor, ops, options);
  }

  /**
   * Change what is monitored of `table` at run time. A new `where` (typed
   * clauses, checked as a transaction's conditions are; a row is monitored
   * when any holds) is sent with `monitor_cond_change` (the server sends the
   * rows that start or stop matching, applied with events, before its
   * reply); new `columns` restart the table's monitor with a full dump
   * (applied as a replace: events only for rows that differ). Resolves once
   * the replica reflects the change; while disconnected, once the next sync
   * is done.
   *
   * ```ts
   * await client.setMonitor('Logical_Switch_Port', { where: [['external_ids', 'includes', { node: 'n1' }]] });
   * ```
   * @throws DatumError (synchronously rejected) for a clause that does not
   *   fit its column; SchemaDriftError for a column the server lacks (see
   *   `absentColumnConditions`) or a value its type does not admit.
   */
  async setMonitor<T extends TableName<DB>>(
    table: T,
    change: {
      readonly columns?: readonly ColumnOf<DB, T>[];
      readonly where?: readonly MonitorCondition<RowOf<DB, T>>[];
    },
  ): Promise<void> {
    const pending = this.groups.change(table, change, this.connection.compat);
    const c = this.connection;
    for (;;) {
      if (c.closedError) throw c.closedError;
      const s = c.session;
      if (s === undefined || !s.synced) {
        await c.whenConnected(undefined, undefined);
        // The sync applied the new settings.
        if (this.groups.applied(pending)) return;
        continue;
      }
      try {
        await this.groups.apply(s, pending);
        return;
      } catch (e) {
        if (s.endReason === undefined && !(e instanceof ConnectionClosedError)) throw e;
        // The connection dropped: the next sync applies the change.
      }
    }
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  /**
   * Resolves once the client is connected and every monitor is in sync (at
   * once when it already is).
   * @throws ClientClosedError when the client closes or gives up first; the
   *   signal's reason when it aborts.
   */
  async whenSynced(options: { readonly signal?: AbortSignal | undefined } = {}): Promise<void> {
    await this.connection.whenConnected(options.signal, undefined);
  }

  /** Drop the current connection (if any) and reconnect, e.g. after an external change. */
  reconnect(reason = 'reconnect requested'): void {
    this.connection.session?.end(reason, undefined, 'requested');
  }

  /**
   * Close the client: the connection closes, pending transactions, `ready`
   * and `waitFor`s reject with {@link ClientClosedError}, every lock is
   * released (the server releases them with the connection). The replica
   * stays readable. Resolves once the connection is closed.
   */
  async close(): Promise<void> {
    if (!this.connection.closedError) {
      this.connection.finish(new ClientClosedError('closed by the program'));
    }
    await this.connection.stopped;
  }
}

/**
 * The handle of `options`, before its first sync, opened with `dial` when
 * the options give no dialer: what `openDatabase` (in Node and in browsers)
 * builds on.
 */
export function connectWith<
  DB extends TableMap,
  IX extends IndexesOption<CompatTables<DB, C>>,
  C extends CompatOption<DB>,
>(
  options: DatabaseClientOptions<DB, IX, C>,
  dial: Dialer,
): DatabaseClient<CompatTables<DB, C>, IX> {
  // The model's rows are rows of CompatTables<DB, C> (it only widens column types).
  return new DatabaseClient<CompatTables<DB, C>, IX>(
    options as unknown as DatabaseClientOptions<CompatTables<DB, C>, IX>,
    dial,
  );
}

/** `connectWith`, resolving once the handle is in sync (closing it when it gives up first). */
export async function openWith<
  DB extends TableMap,
  IX extends IndexesOption<CompatTables<DB, C>>,
  C extends CompatOption<DB>,
>(
  options: DatabaseClientOptions<DB, IX, C>,
  dial: Dialer,
): Promise<DatabaseClient<CompatTables<DB, C>, IX>> {
  const client = connectWith(options, dial);
  try {
    await client.ready;
  } catch (e) {
    await client.close();
    throw e;
  }
  return client;
}

/** The metrics recorder and tracer of a new client, or undefined when it has neither. */
function observabilityOf<DB extends TableMap, IX extends IndexesOption<DB>>(
  options: DatabaseClientOptions<DB, IX>,
  sample: Omit<ClientMetricsTarget, 'db'>,
): ClientObservability | undefined {
  if (options.metrics === undefined && options.tracer === undefined) return undefined;
  const db = options.model.name;
  return {
    db,
    metrics: options.metrics?.forClient({ db, ...sample }),
    tracer: options.tracer,
  };
}

/**
 * Check the table and column names of a `compat` option against the model.
 * @throws OvsdbError for a table or column the model does not have.
 */
function checkCompatOption(model: DatabaseModel<TableMap>, compat: unknown): void {
  if (compat === undefined || typeof compat === 'boolean') return;
  if (compat === null || typeof compat !== 'object') {
    throw new OvsdbError('compat: must be a boolean or an object of table → column names');
  }
  for (const [table, columns] of Object.entries(compat)) {
    const schema = model.schema.tables[table];
    if (schema === undefined) {
      throw new OvsdbError(`compat: database ${model.name} has no table ${table}`);
    }
    if (columns === undefined) continue;
    if (!Array.isArray(columns)) throw new OvsdbError(`compat.${table}: must be a list of columns`);
    for (const c of columns) {
      if (typeof c !== 'string' || schema.columns[c] === undefined) {
        throw new OvsdbError(`compat.${table}: the table has no column ${String(c)}`);
      }
    }
  }
}

/**
 * The replica: an in-memory, typed copy of the monitored tables, with schema
 * and client indexes, iteration, change events and `waitFor`.
 *
 * The database client feeds it the monitor replies and notifications; a
 * program reads it. Reads are synchronous and always see the latest applied
 * transaction.
 *
 * ## Rows are immutable
 *
 * Rows are plain objects that are never changed after they enter the
 * replica (frozen by default, see {@link ReplicaOptions.freeze}). A change
 * builds a new row object that shares every unchanged column value with the
 * old one, so reading never copies, and a row obtained earlier stays a
 * consistent snapshot of that row.
 *
 * ## Events and backpressure
 *
 * Every change applied to the replica becomes an event (`insert`, `update`
 * with the new and old rows, `delete`) appended to one FIFO queue, in commit
 * order; status events of the client go through the same queue, so a
 * `resynced` event follows the row events of its resynchronisation. Handlers
 * are called from that queue, one event at a time, never from inside the
 * socket reader:
 *
 * - the replica is updated first, as soon as a message arrives: when a
 *   handler runs, reads may already show later transactions; the event itself
 *   carries the rows as of its change, and its {@link EventContext} tells
 *   which server update carried it;
 * - a handler that returns a promise is awaited before the next event is
 *   delivered (to any handler), so events are never reordered;
 * - the client never drops or merges events. ovsdb-server itself reports
 *   changes per flush, not per transaction: it flushes a session's monitors
 *   once per main-loop iteration (so the transactions committed in one
 *   iteration arrive as one update) and not at all while the session has
 *   unsent output; a row changed twice in one flush yields one event from
 *   its first to its last state. Every event is therefore a step between two
 *   states the database went through, in commit order, and the chain of
 *   steps is complete;
 * - when the queue reaches {@link ReplicaOptions.highWaterMark} events, the
 *   replica asks its owner to stop reading from the server (the client
 *   pauses the socket); once handlers have brought it down to
 *   {@link ReplicaOptions.lowWaterMark}, reading resumes. While the socket is
 *   paused, the kernel buffers fill, ovsdb-server sees unsent output and
 *   stops flushing this session's monitors, and the changes it holds are
 *   merged per row. Memory therefore stays bounded on both sides: the
 *   client's queue holds at most the high-water mark plus the events of what
 *   one socket read had already delivered, and the server holds at most one
 *   pending change per monitored row, however many transactions are written
 *   meanwhile (one update after a long pause can still be as large as the
 *   number of rows that changed).
 *
 * A handler that throws (or rejects) is reported through
 * {@link ReplicaOptions.onHandlerError} and does not stop delivery. A handler
 * only receives events of changes applied after it was added.
 *
 * `waitFor` is evaluated as changes are applied, not from the queue, so a
 * slow handler does not delay it.
 * @module
 */

import type { DatabaseModel, RowOf, TableMap, TableName } from '../../ovsdb/schema/model.js';
import type { ColumnSchema } from '../../ovsdb/schema/schema-types.js';
import { OvsdbError } from '../../ovsdb/wire/errors.js';
import type { MemberReviver } from '../../ovsdb/wire/split-decoder.js';
import type { TableUpdate, TableUpdate2 } from '../../ovsdb/wire/wire.js';
import type { Row } from '../../rows/codec.js';
import {
  type ClientIndexSpec,
  IndexError,
  type IndexValue,
  MultiIndex,
} from '../../rows/indexes.js';
import {
  EventQueue,
  guardReport,
  type ReplicaEventStats,
  type RowEventHandler,
  type RowEventKind,
} from './event-queue.js';
import {
  type DecodedDump,
  type IndexesOption,
  type PredecodedRows,
  type ReplaceCounts,
  ReplicaStore,
  type Waiter,
} from './store.js';

export type {
  EventContext,
  ReplicaEventStats,
  RowEventHandler,
  RowEventKind,
} from './event-queue.js';
export type {
  DecodedDump,
  IndexesOption,
  PredecodedRows,
  ReplaceCounts,
  ReplaceResult,
} from './store.js';

/** Options of {@link Replica}. */
export interface ReplicaOptions<DB extends TableMap = TableMap> {
  /** Client indexes per table. */
  readonly indexes?: IndexesOption<DB> | undefined;
  /**
   * Freeze rows (and their set and map values) as they enter the replica, so
   * that an accidental write throws. Default true.
   */
  readonly freeze?: boolean | undefined;
  /** Queue length at which {@link ReplicaOptions.onPressure} asks to pause reading. Default 10,000. */
  readonly highWaterMark?: number | undefined;
  /** Queue length at which reading resumes. Default half the high-water mark. */
  readonly lowWaterMark?: number | undefined;
  /** Called with true to ask the owner to stop reading, and false to resume. */
  readonly onPressure?: ((pause: boolean) => void) | undefined;
  /** Called when a handler throws or rejects. Default: `console.error`. */
  readonly onHandlerError?: ((error: unknown, context: string) => void) | undefined;
}

/** Options of {@link Replica.waitFor}. */
export interface WaitForOptions {
  /** Reject with {@link WaitTimeoutError} after this many ms. Default: no timeout. */
  readonly timeoutMs?: number | undefined;
  /** Reject with the signal's reason when it aborts. */
  readonly signal?: AbortSignal | undefined;
}

/** {@link Replica.waitFor} timed out. */
export class WaitTimeoutError extends OvsdbError {
  override name = 'WaitTimeoutError';
  constructor(
    /** The table waited on. */
    readonly table: string,
    /** The timeout, ms. */
    readonly timeoutMs: number,
  ) {
    super(`waitFor(${table}): no matching row within ${timeoutMs} ms`);
  }
}

/**
 * The typed replica of a database's monitored tables.
 *
 * ```ts
 * const replica = new Replica(NB, { indexes: { Logical_Switch_Port: { pod: { column: 'external_ids', key: 'pod' } } } });
 * replica.lookup('Logical_Switch_Port', { name: 'lsp1' });
 * replica.byIndex('Logical_Switch_Port', 'pod', 'ns/web-1');
 * replica.on('Logical_Switch_Port', 'update', (row, old) => console.log(old.up, '→', row.up));
 * ```
 */
export class Replica<DB extends TableMap = TableMap> {
  /** Queue and delivery counters. */
  readonly eventStats: ReplicaEventStats;

  private readonly queue: EventQueue;
  private readonly store: ReplicaStore<DB>;
  private readonly indexes: IndexesOption<DB>;
  /** The client indexes `indexValues` computed with, per table and index name. */
  private readonly valueIndexes = new Map<string, MultiIndex>();

  /**
   * @param model - the database model; every table starts unmonitored and empty.
   * @param options - see {@link ReplicaOptions}.
   * @throws IndexError for a client index on a column the table does not have.
   */
  constructor(
    readonly model: DatabaseModel<DB>,
    options: ReplicaOptions<DB> = {},
  ) {
    const report = guardReport(
      options.onHandlerError ??
        ((error, context) => {
          console.error(`replica: ${context} threw:`, error);
        }),
    );
    this.queue = new EventQueue({
      highWaterMark: options.highWaterMark,
      lowWaterMark: options.lowWaterMark,
      onPressure: options.onPressure,
      report,
    });
    this.eventStats = this.queue.stats;
    this.indexes = options.indexes ?? {};
    this.store = new ReplicaStore<DB>(model, {
      indexes: options.indexes,
      freeze: options.freeze ?? true,
      queue: this.queue,
      report,
    });
  }

  // ---- reading ------------------------------------------------------------------

  /** The row of `table` with UUID `uuid`, if the replica has it. */
  get<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined {
    return this.store.get(table, uuid);
  }

  /** The rows of `table`, in no particular order (a live iterator: do not change the replica while iterating). */
  rows<T extends TableName<DB>>(table: T): IterableIterator<RowOf<DB, T>> {
    return this.store.rows(table);
  }

  /** The number of rows of `table`. */
  count(table: TableName<DB>): number {
    return this.store.count(table);
  }

  /** The rows of `table` for which `predicate` is true. */
  filter<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
  ): RowOf<DB, T>[] {
    return this.store.filter(table, predicate);
  }

  /** The first row of `table` (in no particular order) for which `predicate` is true. */
  find<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
  ): RowOf<DB, T> | undefined {
    return this.store.find(table, predicate);
  }

  /**
   * Look a row up by a schema index: `key` gives a value for exactly the
   * columns of one of the table's `indexes`.
   *
   * ```ts
   * replica.lookup('Logical_Switch_Port', { name: 'lsp1' });
   * ```
   * @throws IndexError when no schema index has exactly those columns, or
   *   one of them is not monitored.
   */
  lookup<T extends TableName<DB>>(table: T, key: Partial<RowOf<DB, T>>): RowOf<DB, T> | undefined {
    return this.store.lookup(table, key);
  }

  /**
   * The rows of `table` that client index `index` maps `value` to (in no
   * particular order).
   * @throws IndexError when the index was not declared, or its column is not monitored.
   */
  byIndex<T extends TableName<DB>>(table: T, index: string, value: IndexValue): RowOf<DB, T>[] {
    return this.store.byIndex(table, index, value);
  }

  /**
   * The values client index `index` of `table` gives `row` (stored or not).
   * @throws IndexError as {@link Replica.byIndex} does.
   */
  indexValues(table: TableName<DB>, index: string, row: object): readonly IndexValue[] {
    const key = `${table}\u0000${index}`;
    let idx = this.valueIndexes.get(key);
    if (idx === undefined) {
      const specs = this.indexes[table] as Readonly<Record<string, ClientIndexSpec>> | undefined;
      const spec = specs !== undefined && Object.hasOwn(specs, index) ? specs[index] : undefined;
      const schema = this.model.schema.tables[table];
      if (spec === undefined || schema === undefined) {
        throw new IndexError(table, index, 'no such client index was declared');
      }
      idx = new MultiIndex(index, schema, spec);
      this.valueIndexes.set(key, idx);
    }
    return idx.valuesFor(row as Row);
  }

  /** True when `table` is monitored (configured with columns). */
  isMonitored(table: TableName<DB>): boolean {
    return this.store.isMonitored(table);
  }

  /** The monitored columns of `table`, or undefined when it is not monitored. */
  monitoredColumns(table: TableName<DB>): readonly string[] | undefined {
    return this.store.monitoredColumns(table);
  }

  // ---- events ---------------------------------------------------------------

  /**
   * Call `handler` for every `kind` change of `table` applied from now on.
   * Returns a function that removes the handler.
   */
  on<T extends TableName<DB>, K extends RowEventKind>(
    table: T,
    kind: K,
    handler: RowEventHandler<RowOf<DB, T>, K>,
  ): () => void {
    return this.store.on(table, kind, handler);
  }

  /**
   * Queue `deliver` behind the row events queued so far (used for status
   * events). A returned promise is awaited like a handler's.
   */
  enqueueCallback(deliver: () => unknown): void {
    this.queue.enqueueCallback(deliver);
  }

  /** Events queued and not yet delivered. */
  get queueLength(): number {
    return this.queue.length;
  }

  /** Resolves when every queued event has been delivered. */
  drained(): Promise<void> {
    return this.queue.drained();
  }

  /**
   * Resolve with the first row of `table` for which `predicate` is true: a
   * row already in the replica, or the next one inserted or updated to
   * match.
   * @throws WaitTimeoutError after `timeout` ms; the signal's reason when it aborts.
   */
  waitFor<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
    options: WaitForOptions = {},
  ): Promise<RowOf<DB, T>> {
    const waiters = this.store.waitersOf(table);
    const { signal, timeoutMs: timeout } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    try {
      const found = this.store.find(table, predicate);
      if (found !== undefined) return Promise.resolve(found);
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise<RowOf<DB, T>>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cleanup = () => {
        waiters.delete(waiter);
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        cleanup();
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        predicate: predicate as (row: Row) => boolean,
        resolve: (row) => {
          cleanup();
          resolve(row as RowOf<DB, T>);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      };
      waiters.add(waiter);
      if (timeout !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          reject(new WaitTimeoutError(table, timeout));
        }, timeout);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Reject every pending {@link Replica.waitFor} with `error` (the client closed or gave up). */
  rejectWaiters(error: unknown): void {
    this.store.rejectWaiters(error);
  }

  // ---- feeding (used by the client) ---------------------------------------------

  /**
   * Start a new batch: the changes applied from now on came in one server
   * update (with transaction id `txnId`, when known).
   */
  beginBatch(txnId?: string): void {
    this.queue.beginBatch(txnId);
  }

  /**
   * Monitor `columns` of `table` from now on (undefined: stop monitoring it,
   * which deletes its rows with events); rows hold exactly those columns
   * (another column is absent: not a property of the row). `absent` names
   * the model's columns the server's schema lacks, for error messages
   * (a client index on one of them cannot be used); `server` gives the
   * server's schema of the columns whose type differs there (decoded by it,
   * held in the model's form). Rebuilds the table's indexes. Rows already
   * present keep their old shape until the next {@link Replica.replace} of
   * the table, which a change of columns needs.
   */
  configure(
    table: TableName<DB> | string,
    columns: readonly string[] | undefined,
    absent: readonly string[] = [],
    server?: Readonly<Record<string, ColumnSchema>>,
  ): void {
    this.store.configure(table, columns, absent, server);
  }

  /**
   * Apply the changes of one `update2`/`update3` (or of a found=true
   * `monitor_cond_since` reply) for `table`, in order, with events.
   * @returns the number of `initial` entries among them.
   * @throws ReplicaInconsistencyError or DatumError; changes before the
   *   failing one stay applied.
   */
  applyUpdate2(table: string, changes: TableUpdate2): number {
    return this.store.applyUpdate2(table, changes);
  }

  /**
   * Apply the changes of one plain `update` for `table`, in order, with events.
   * @throws ReplicaInconsistencyError or DatumError.
   */
  applyUpdate(table: string, changes: TableUpdate): void {
    this.store.applyUpdate(table, changes);
  }

  /**
   * Replace the whole content of `table` with a full dump (`initial` or
   * `insert` rows of update2 format, or `new` rows of plain update format),
   * emitting events only for rows that really differ: an insert for a new
   * row, an update for a changed one, a delete for one no longer there.
   * Rows whose values are unchanged keep their object and get no event.
   * Every row is decoded before any is applied. `predecoded` holds the rows
   * decoded as the dump arrived ({@link Replica.dumpReviver}).
   * @throws ProtocolError for a malformed entry (naming table and key), with
   *   nothing of the dump applied.
   */
  replace(
    table: string,
    dump: TableUpdate2 | TableUpdate,
    format: 'update2' | 'update',
    predecoded?: PredecodedRows,
  ): ReplaceCounts {
    return this.store.replace(table, dump, format, predecoded);
  }

  /**
   * Every row of a full dump of `table`, decoded, with nothing applied yet
   * (a malformed entry is a ProtocolError before any row of it is held).
   */
  decodeDump(
    table: string,
    dump: TableUpdate2 | TableUpdate,
    format: 'update2' | 'update',
    predecoded?: PredecodedRows,
  ): DecodedDump {
    return this.store.decodeDump(table, dump, format, predecoded);
  }

  /** Make a decoded dump the whole content of its table, with events only for rows that differ. */
  applyDump(decoded: DecodedDump): ReplaceCounts {
    return this.store.applyDump(decoded);
  }

  /**
   * A reviver of the rows of `table` in a full dump still arriving, whose
   * object of rows is `target`: decodes them into `into` as they are parsed
   * (see `RequestOptions.reviveLargeReply`).
   */
  dumpReviver(
    table: string,
    target: object,
    format: 'update2' | 'update',
    into: PredecodedRows,
  ): MemberReviver | undefined {
    return this.store.dumpReviver(table, target, format, into);
  }
}

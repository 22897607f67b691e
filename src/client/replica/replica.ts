/**
 * The replica: an in-memory, typed copy of the monitored tables, with schema
 * and client indexes, iteration, change events and `waitFor`. This file is
 * its reading side, which the database client is (`DatabaseClient extends
 * Replica`); its feeding side (monitor replies and updates) is `feed.ts`,
 * over the same state (`tables.ts`). Reads are synchronous and always see
 * the latest applied transaction.
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
import { OvsdbError } from '../../ovsdb/wire/errors.js';
import type { Row } from '../../rows/codec.js';
import { IndexError, type IndexValue, MultiIndex } from '../../rows/indexes.js';
import type { ReplicaEventStats, RowEventHandler, RowEventKind } from './event-queue.js';
import { ReplicaFeed } from './feed.js';
import {
  type IndexesOption,
  type ReplicaOptions,
  ReplicaTables,
  type TableState,
  type Waiter,
} from './tables.js';

export type {
  EventContext,
  ReplicaEventStats,
  RowEventHandler,
  RowEventKind,
} from './event-queue.js';
export type {
  DecodedDump,
  PredecodedRows,
  PredecodedTable,
  ReplaceCounts,
  ReplaceResult,
} from './feed.js';
export type { IndexesOption, ReplicaOptions } from './tables.js';

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

/** The tables of `DB` that have client indexes in `IX`. */
type IndexedTable<DB extends TableMap, IX> = Extract<keyof IX, TableName<DB>>;
/** The client index names of table `T` in `IX`. */
type IndexName<IX, T extends keyof IX> = Extract<keyof NonNullable<IX[T]>, string>;

/**
 * The typed replica of a database's monitored tables: its reads, events and
 * waits. The database client is one, kept in sync with the server; a
 * replica of your own is fed through its {@link ReplicaFeed}
 * ({@link Replica.withFeed}).
 *
 * ```ts
 * const db = await openDatabase({ remotes, model: NB, indexes: { Logical_Switch_Port: { pod: { column: 'external_ids', key: 'pod' } } } });
 * db.lookup('Logical_Switch_Port', { name: 'lsp1' });
 * db.byIndex('Logical_Switch_Port', 'pod', 'ns/web-1');
 * db.on('Logical_Switch_Port', 'update', (row, old) => console.log(old.up, '→', row.up));
 * ```
 */
export class Replica<
  DB extends TableMap = TableMap,
  IX extends IndexesOption<DB> = IndexesOption<DB>,
> {
  /** The model. */
  readonly model: DatabaseModel<DB>;
  /** The state this replica reads, and its feed changes. */
  /** @internal */
  protected readonly tables: ReplicaTables<DB>;
  /** The client indexes `indexValues` computed with, per table and index name. */
  private readonly valueIndexes = new Map<string, MultiIndex>();

  /**
   * @param model - the database model; every table starts unmonitored and empty.
   * @param options - see {@link ReplicaOptions}.
   * @throws IndexError for a client index on a column the table does not have.
   */
  constructor(model: DatabaseModel<DB>, options: ReplicaOptions<DB> = {}) {
    this.model = model;
    this.tables = new ReplicaTables(model, options);
  }

  /**
   * A replica of `model` and the feed that changes it, for a program that
   * keeps a replica over a connection of its own.
   *
   * ```ts
   * const { replica, feed } = Replica.withFeed(NB);
   * feed.configure('Logical_Switch', ['name', 'ports']);
   * conn.on('update2', (_id, updates) => feed.applyUpdate2('Logical_Switch', updates['Logical_Switch'] ?? {}));
   * ```
   */
  static withFeed<DB extends TableMap>(
    model: DatabaseModel<DB>,
    options: ReplicaOptions<DB> = {},
  ): { readonly replica: Replica<DB>; readonly feed: ReplicaFeed<DB> } {
    const replica = new Replica<DB>(model, options);
    return { replica, feed: new ReplicaFeed(replica.tables) };
  }

  /** Queue and delivery counters. */
  get eventStats(): ReplicaEventStats {
    return this.tables.eventStats;
  }

  // ---- reading ------------------------------------------------------------------

  /** The row of `table` with UUID `uuid`. */
  get<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined {
    return this.tables.state(table).rows.get(uuid) as RowOf<DB, T> | undefined;
  }

  /** The rows of `table`, in no particular order (a live iterator: do not change the replica while iterating). */
  rows<T extends TableName<DB>>(table: T): IterableIterator<RowOf<DB, T>> {
    return this.tables.state(table).rows.values() as IterableIterator<RowOf<DB, T>>;
  }

  /** The number of rows of `table`. */
  count(table: TableName<DB>): number {
    return this.tables.state(table).rows.size;
  }

  /** The rows of `table` for which `predicate` is true. */
  filter<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
  ): RowOf<DB, T>[] {
    const out: RowOf<DB, T>[] = [];
    for (const row of this.rows(table)) if (predicate(row)) out.push(row);
    return out;
  }

  /** The first row of `table` (in no particular order) for which `predicate` is true. */
  find<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
  ): RowOf<DB, T> | undefined {
    for (const row of this.rows(table)) if (predicate(row)) return row;
    return undefined;
  }

  /**
   * Look a row up by a schema index: `key` gives a value for exactly the
   * columns of one of the table's `indexes`.
   *
   * ```ts
   * db.lookup('Logical_Switch_Port', { name: 'lsp1' });
   * ```
   * @throws IndexError when no schema index has exactly those columns, or
   *   one of them is not monitored.
   */
  lookup<T extends TableName<DB>>(table: T, key: Partial<RowOf<DB, T>>): RowOf<DB, T> | undefined {
    const st = this.tables.state(table);
    const cols = Object.keys(key).sort();
    const wanted = cols.join(',');
    for (const idx of st.unique) {
      if ([...idx.columns].sort().join(',') === wanted) {
        const uuid = idx.get(key as Readonly<Record<string, unknown>>);
        return uuid === undefined ? undefined : (st.rows.get(uuid) as RowOf<DB, T> | undefined);
      }
    }
    const declared = st.schema.indexes.some((i) => [...i].sort().join(',') === wanted);
    const absent = cols.find((c) => st.absent.includes(c));
    throw new IndexError(
      table,
      `(${cols.join(', ')})`,
      declared
        ? absent !== undefined
          ? `the index column ${table}.${absent} does not exist in the server's schema (the model is newer than the server)`
          : 'an index column is not monitored'
        : `the table has no schema index on exactly these columns; its indexes: ${
            st.schema.indexes.map((i) => `(${i.join(', ')})`).join(' ') || 'none'
          }`,
    );
  }

  /**
   * The rows of `table` that client index `index` maps `value` to (in no
   * particular order), e.g. `byIndex('Logical_Switch_Port', 'pod', 'ns/web-1')`.
   * @throws IndexError when the index was not declared, or its column is not monitored.
   */
  byIndex<T extends IndexedTable<DB, IX>>(
    table: T,
    index: IndexName<IX, T>,
    value: IndexValue,
  ): RowOf<DB, T>[] {
    const st = this.tables.state(table);
    const idx = st.client.get(index);
    if (idx === undefined) {
      throw new IndexError(
        table,
        index,
        st.disabled.get(index) ??
          (st.codec === undefined
            ? 'the table is not monitored'
            : 'no such client index was declared'),
      );
    }
    const out: RowOf<DB, T>[] = [];
    for (const uuid of idx.get(value)) {
      const row = st.rows.get(uuid);
      if (row !== undefined) out.push(row as RowOf<DB, T>);
    }
    return out;
  }

  /**
   * The values client index `index` of `table` gives `row` (any row of the
   * table, stored or not): what `byIndex` finds it by. A transaction view
   * uses it to index the rows it changes.
   * @throws IndexError as `byIndex` does.
   */
  indexValues(table: TableName<DB>, index: string, row: object): readonly IndexValue[] {
    const key = `${table}\u0000${index}`;
    let idx = this.valueIndexes.get(key);
    if (idx === undefined) {
      const specs = this.tables.specsOf(table);
      const spec = Object.hasOwn(specs, index) ? specs[index] : undefined;
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
    return this.tables.state(table).codec !== undefined;
  }

  /** The monitored columns of `table`, or undefined when it is not monitored. */
  monitoredColumns(table: TableName<DB>): readonly string[] | undefined {
    return this.tables.state(table).codec?.columns;
  }

  // ---- events and waits ------------------------------------------------------------

  /**
   * Call `handler` for every `kind` change of `table` applied from now on:
   * `insert` and `delete` get (row, context), `update` gets (new, old,
   * context), where context says which server update carried the change.
   * Returns a function that removes the handler.
   */
  on<T extends TableName<DB>, K extends RowEventKind>(
    table: T,
    kind: K,
    handler: RowEventHandler<RowOf<DB, T>, K>,
  ): () => void {
    if (kind !== 'insert' && kind !== 'update' && kind !== 'delete') {
      throw new TypeError(
        `unknown event kind ${JSON.stringify(kind)}: use insert, update or delete`,
      );
    }
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    const list = this.tables.state(table).handlers[kind];
    return this.tables.queue.subscribe(list, handler as (...args: never[]) => unknown);
  }

  /** Events queued and not yet delivered. */
  get queueLength(): number {
    return this.tables.queue.length;
  }

  /** Resolves when every event queued so far has been delivered to the handlers. */
  drained(): Promise<void> {
    return this.tables.queue.drained();
  }

  /**
   * Resolve with the first row of `table` for which `predicate` is true: a
   * row already in the replica, or the next one inserted or updated to
   * match.
   * @throws WaitTimeoutError after `timeoutMs`; the signal's reason when it
   *   aborts; the reason the replica's owner closed (`ClientClosedError` for
   *   the database client).
   */
  waitFor<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
    options: WaitForOptions = {},
  ): Promise<RowOf<DB, T>> {
    const { signal, timeoutMs } = options;
    if (this.tables.closed !== undefined) return Promise.reject(this.tables.closed);
    if (signal?.aborted) return Promise.reject(signal.reason);
    let st: TableState;
    try {
      st = this.tables.state(table);
      const found = this.find(table, predicate);
      if (found !== undefined) return Promise.resolve(found);
    } catch (e) {
      return Promise.reject(e);
    }
    const waiters = st.waiters;
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
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          reject(new WaitTimeoutError(table, timeoutMs));
        }, timeoutMs);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

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
import type { TableSchema } from '../../ovsdb/schema/schema-types.js';
import {
  applyRowUpdate,
  applyRowUpdate2,
  compileRowCodec,
  type Row,
  type RowCodec,
} from '../../ovsdb/values/updates.js';
import { OvsdbError } from '../../ovsdb/wire/errors.js';
import type { RowUpdate2, TableUpdate, TableUpdate2 } from '../../ovsdb/wire/wire.js';
import {
  type ClientIndexSpec,
  IndexError,
  type IndexValue,
  MultiIndex,
  UniqueIndex,
} from './indexes.js';

/** The kinds of row event. */
export type RowEventKind = 'insert' | 'update' | 'delete';

/**
 * Where an event comes from: the server update that carried the change.
 * ovsdb-server may report several transactions in one update (it flushes a
 * session's monitors once per main-loop iteration, and merges the changes it
 * holds back while the session has unsent output), so one update is one
 * step between two states the database went through, in commit order.
 */
export interface EventContext {
  /**
   * The number of the update (monitor reply or notification) the change
   * came in; increasing. Events with the same batch happened together.
   */
  readonly batch: number;
  /** The update's last transaction id (`update3` and `monitor_cond_since` only). */
  readonly txnId: string | undefined;
}

/**
 * A row event handler: `insert` and `delete` receive the row (for `delete`,
 * the row as it was); `update` receives the new row and the old one. The last
 * argument tells which server update the change came in. A returned promise
 * is awaited before the next event is delivered.
 */
export type RowEventHandler<R, K extends RowEventKind> = K extends 'update'
  ? (row: R, old: R, context: EventContext) => void | Promise<void>
  : (row: R, context: EventContext) => void | Promise<void>;

/** Client indexes per table: index name → spec (see {@link ClientIndexSpec}). */
export type IndexesOption<DB extends TableMap> = {
  readonly [T in TableName<DB>]?: Readonly<Record<string, ClientIndexSpec<RowOf<DB, T>>>>;
};

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
  readonly timeout?: number | undefined;
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

/** Queue and delivery counters of a replica. */
export interface ReplicaEventStats {
  /** Events queued so far. */
  queued: number;
  /** Events delivered so far (all their handlers returned or settled). */
  delivered: number;
  /** The longest the queue has been. */
  maxQueueLength: number;
  /** How many times the replica asked to pause reading. */
  pauses: number;
}

interface HandlerEntry {
  readonly fn: (...args: never[]) => unknown;
  /** Only events with a higher sequence number reach this handler. */
  readonly since: number;
}

interface Waiter {
  readonly predicate: (row: Row) => boolean;
  readonly resolve: (row: Row) => void;
  readonly reject: (error: unknown) => void;
}

interface TableState {
  readonly name: string;
  readonly schema: TableSchema;
  codec: RowCodec | undefined;
  readonly rows: Map<string, Row>;
  unique: UniqueIndex[];
  client: Map<string, MultiIndex>;
  /** Why a client index is unusable (its column is not monitored). */
  disabled: Map<string, string>;
  readonly handlers: Record<RowEventKind, HandlerEntry[]>;
  readonly waiters: Set<Waiter>;
}

/** One queued event. */
type QueuedEvent =
  | {
      readonly seq: number;
      readonly state: TableState;
      readonly kind: RowEventKind;
      readonly row: Row;
      readonly old: Row | undefined;
      readonly context: EventContext;
    }
  | { readonly seq: number; readonly state: undefined; readonly deliver: () => unknown };

/** What a {@link Replica.replace} changed. */
export interface ReplaceResult {
  /** Rows added. */
  readonly inserted: number;
  /** Rows whose values differ from before. */
  readonly updated: number;
  /** Rows no longer present. */
  readonly deleted: number;
  /** Rows present before and after with equal values (no event). */
  readonly unchanged: number;
}

const YIELD_EVERY = 1000;

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    (typeof v === 'object' || typeof v === 'function') &&
    v !== null &&
    typeof (v as { then?: unknown }).then === 'function'
  );
}

function freezeRow(row: Row, before: Row | undefined): Row {
  for (const k in row) {
    const v = row[k];
    if (typeof v === 'object' && v !== null && (before === undefined || before[k] !== v)) {
      Object.freeze(v);
    }
  }
  return Object.freeze(row);
}

/** Let I/O callbacks run (setImmediate in Node, a zero timeout elsewhere). */
const yieldToEventLoop = (): Promise<void> =>
  new Promise((resolve) => {
    if (typeof setImmediate === 'function') setImmediate(resolve);
    else setTimeout(resolve, 0);
  });

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
  readonly eventStats: ReplicaEventStats = {
    queued: 0,
    delivered: 0,
    maxQueueLength: 0,
    pauses: 0,
  };

  private readonly tables = new Map<string, TableState>();
  private readonly freeze: boolean;
  private readonly highWater: number;
  private readonly lowWater: number;
  private readonly onPressure: ((pause: boolean) => void) | undefined;
  private readonly onHandlerError: (error: unknown, context: string) => void;
  private readonly indexSpecs: IndexesOption<DB>;

  private context: EventContext = { batch: 0, txnId: undefined };
  private queue: (QueuedEvent | undefined)[] = [];
  private head = 0;
  private seq = 0;
  private pumping = false;
  private paused = false;
  private drainWaiters: (() => void)[] = [];

  /**
   * @param model - the database model; every table starts unmonitored and empty.
   * @param options - see {@link ReplicaOptions}.
   * @throws IndexError for a client index on a column the table does not have.
   */
  constructor(
    readonly model: DatabaseModel<DB>,
    options: ReplicaOptions<DB> = {},
  ) {
    this.freeze = options.freeze ?? true;
    this.highWater = Math.max(1, options.highWaterMark ?? 10_000);
    this.lowWater = Math.min(
      this.highWater - 1,
      options.lowWaterMark ?? Math.floor(this.highWater / 2),
    );
    this.onPressure = options.onPressure;
    this.onHandlerError =
      options.onHandlerError ??
      ((error, context) => {
        console.error(`replica: ${context} threw:`, error);
      });
    this.indexSpecs = options.indexes ?? {};
    for (const [name, schema] of Object.entries(model.schema.tables)) {
      this.tables.set(name, {
        name,
        schema,
        codec: undefined,
        rows: new Map(),
        unique: [],
        client: new Map(),
        disabled: new Map(),
        handlers: { insert: [], update: [], delete: [] },
        waiters: new Set(),
      });
    }
    for (const table of Object.keys(this.indexSpecs)) {
      const st = this.state(table);
      const specs = (
        this.indexSpecs as Record<string, Record<string, ClientIndexSpec> | undefined>
      )[table];
      // Validate the specs now, so that a typo fails at construction.
      for (const [name, spec] of Object.entries(specs ?? {})) new MultiIndex(name, st.schema, spec);
    }
  }

  // ---- reading ------------------------------------------------------------------

  /** The row of `table` with UUID `uuid`, if the replica has it. */
  get<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined {
    return this.state(table).rows.get(uuid) as RowOf<DB, T> | undefined;
  }

  /** The rows of `table`, in no particular order (a live iterator: do not change the replica while iterating). */
  rows<T extends TableName<DB>>(table: T): IterableIterator<RowOf<DB, T>> {
    return this.state(table).rows.values() as IterableIterator<RowOf<DB, T>>;
  }

  /** The number of rows of `table`. */
  count(table: TableName<DB>): number {
    return this.state(table).rows.size;
  }

  /** The rows of `table` for which `predicate` is true. */
  filter<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
  ): RowOf<DB, T>[] {
    const out: RowOf<DB, T>[] = [];
    for (const row of this.state(table).rows.values()) {
      if (predicate(row as RowOf<DB, T>)) out.push(row as RowOf<DB, T>);
    }
    return out;
  }

  /** The first row of `table` (in no particular order) for which `predicate` is true. */
  find<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
  ): RowOf<DB, T> | undefined {
    for (const row of this.state(table).rows.values()) {
      if (predicate(row as RowOf<DB, T>)) return row as RowOf<DB, T>;
    }
    return undefined;
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
    const st = this.state(table);
    const cols = Object.keys(key).sort();
    const wanted = cols.join(',');
    for (const idx of st.unique) {
      if ([...idx.columns].sort().join(',') === wanted) {
        const uuid = idx.get(key as Readonly<Record<string, unknown>>);
        return uuid === undefined ? undefined : (st.rows.get(uuid) as RowOf<DB, T> | undefined);
      }
    }
    const declared = st.schema.indexes.some((i) => [...i].sort().join(',') === wanted);
    throw new IndexError(
      table,
      `(${cols.join(', ')})`,
      declared
        ? 'an index column is not monitored'
        : `the table has no schema index on exactly these columns; its indexes: ${
            st.schema.indexes.map((i) => `(${i.join(', ')})`).join(' ') || 'none'
          }`,
    );
  }

  /**
   * The rows of `table` that client index `index` maps `value` to (in no
   * particular order).
   * @throws IndexError when the index was not declared, or its column is not monitored.
   */
  byIndex<T extends TableName<DB>>(table: T, index: string, value: IndexValue): RowOf<DB, T>[] {
    const st = this.state(table);
    const idx = st.client.get(index);
    if (idx === undefined) {
      const why = st.disabled.get(index);
      throw new IndexError(
        table,
        index,
        why ??
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

  /** True when `table` is monitored (configured with columns). */
  isMonitored(table: TableName<DB>): boolean {
    return this.state(table).codec !== undefined;
  }

  /** The monitored columns of `table`, or undefined when it is not monitored. */
  monitoredColumns(table: TableName<DB>): readonly string[] | undefined {
    return this.state(table).codec?.columns;
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
    if (kind !== 'insert' && kind !== 'update' && kind !== 'delete') {
      throw new TypeError(
        `unknown event kind ${JSON.stringify(kind)}: use insert, update or delete`,
      );
    }
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    const list = this.state(table).handlers[kind];
    const entry: HandlerEntry = { fn: handler as HandlerEntry['fn'], since: this.seq };
    list.push(entry);
    return () => {
      const i = list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /**
   * Queue `deliver` behind the row events queued so far (used for status
   * events). A returned promise is awaited like a handler's.
   */
  enqueueCallback(deliver: () => unknown): void {
    this.push({ seq: ++this.seq, state: undefined, deliver });
  }

  /** Events queued and not yet delivered. */
  get queueLength(): number {
    return this.queue.length - this.head;
  }

  /** Resolves when every queued event has been delivered. */
  drained(): Promise<void> {
    if (this.queueLength === 0 && !this.pumping) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
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
    const st = this.state(table);
    const { signal, timeout } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    try {
      const found = this.find(table, predicate);
      if (found !== undefined) return Promise.resolve(found);
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise<RowOf<DB, T>>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cleanup = () => {
        st.waiters.delete(waiter);
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
      st.waiters.add(waiter);
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
    for (const st of this.tables.values()) {
      for (const w of [...st.waiters]) w.reject(error);
    }
  }

  // ---- feeding (used by the client) ---------------------------------------------

  /**
   * Start a new batch: the changes applied from now on came in one server
   * update (with transaction id `txnId`, when known).
   */
  beginBatch(txnId?: string): void {
    this.context = { batch: this.context.batch + 1, txnId };
  }

  /**
   * Monitor `columns` of `table` from now on (undefined: stop monitoring it,
   * which deletes its rows with events); rows also carry the `filled`
   * columns with their default value. Rebuilds the table's indexes. Rows
   * already present keep their old shape until the next
   * {@link Replica.replace} of the table, which a change of columns needs.
   */
  configure(
    table: TableName<DB> | string,
    columns: readonly string[] | undefined,
    filled: readonly string[] = [],
  ): void {
    const st = this.state(table);
    if (columns === undefined) {
      if (st.codec === undefined) return;
      for (const [uuid, row] of st.rows) {
        st.rows.delete(uuid);
        this.emit(st, 'delete', row, undefined);
      }
      st.codec = undefined;
      st.unique = [];
      st.client = new Map();
      st.disabled = new Map();
      return;
    }
    const codec = compileRowCodec(st.schema, columns, filled);
    if (st.codec === codec) return;
    st.codec = codec;
    const monitored = new Set([...codec.columns, ...codec.filled]);
    st.unique = st.schema.indexes
      .filter((cols) => cols.every((c) => c === '_uuid' || monitored.has(c)))
      .map((cols) => new UniqueIndex(st.schema, cols));
    st.client = new Map();
    st.disabled = new Map();
    const specs = (this.indexSpecs as Record<string, Record<string, ClientIndexSpec> | undefined>)[
      table
    ];
    for (const [name, spec] of Object.entries(specs ?? {})) {
      const idx = new MultiIndex(name, st.schema, spec);
      const col = idx.sourceColumn;
      if (col !== undefined && !monitored.has(col)) {
        st.disabled.set(name, `its column "${col}" is not monitored`);
        continue;
      }
      st.client.set(name, idx);
    }
    for (const [uuid, row] of st.rows) this.indexAdd(st, uuid, row);
  }

  /**
   * Apply the changes of one `update2`/`update3` (or of a found=true
   * `monitor_cond_since` reply) for `table`, in order, with events.
   * @returns the number of `initial` entries among them.
   * @throws ReplicaInconsistencyError or DatumError; changes before the
   *   failing one stay applied.
   */
  applyUpdate2(table: string, changes: TableUpdate2): number {
    const st = this.state(table);
    const codec = this.codecOf(st);
    let initial = 0;
    for (const uuid in changes) {
      const change = changes[uuid]!;
      if (change.initial !== undefined) initial++;
      const before = st.rows.get(uuid);
      const after = applyRowUpdate2(codec, uuid, before, change);
      this.commit(st, uuid, before, after);
    }
    return initial;
  }

  /**
   * Apply the changes of one plain `update` for `table`, in order, with events.
   * @throws ReplicaInconsistencyError or DatumError.
   */
  applyUpdate(table: string, changes: TableUpdate): void {
    const st = this.state(table);
    const codec = this.codecOf(st);
    for (const uuid in changes) {
      const before = st.rows.get(uuid);
      this.commit(st, uuid, before, applyRowUpdate(codec, uuid, before, changes[uuid]!));
    }
  }

  /**
   * Replace the whole content of `table` with a full dump (`initial` or
   * `insert` rows of update2 format, or `new` rows of plain update format),
   * emitting events only for rows that really differ: an insert for a new
   * row, an update for a changed one, a delete for one no longer there.
   * Rows whose values are unchanged keep their object and get no event.
   * @throws DatumError when a value does not fit its column.
   */
  replace(
    table: string,
    dump: TableUpdate2 | TableUpdate,
    format: 'update2' | 'update',
  ): ReplaceResult {
    const st = this.state(table);
    const codec = this.codecOf(st);
    const rows = st.rows;
    let inserted = 0;
    let updated = 0;
    let unchanged = 0;
    let deleted = 0;
    const hadRows = rows.size > 0;
    const seen = hadRows ? new Set<string>() : undefined;
    for (const uuid in dump) {
      const change = dump[uuid]!;
      let wire: Readonly<Record<string, unknown>> | undefined;
      if (format === 'update2') {
        const c = change as RowUpdate2;
        wire = c.initial ?? c.insert ?? c.modify;
      } else {
        wire = (change as { new?: Readonly<Record<string, unknown>> }).new;
      }
      if (wire === undefined) continue;
      const next = codec.decodeRow(uuid, wire as never);
      seen?.add(uuid);
      const before = hadRows ? rows.get(uuid) : undefined;
      if (before === undefined) {
        inserted++;
        this.commit(st, uuid, undefined, next);
      } else if (codec.equalRows(before, next) && sameShape(before, next)) {
        unchanged++;
      } else {
        updated++;
        this.commit(st, uuid, before, next);
      }
    }
    if (seen !== undefined) {
      for (const [uuid, row] of rows) {
        if (seen.has(uuid)) continue;
        deleted++;
        this.commit(st, uuid, row, undefined);
      }
    }
    return { inserted, updated, deleted, unchanged };
  }

  // ---- internals ----------------------------------------------------------------

  private state(table: string): TableState {
    const st = this.tables.get(table);
    if (st === undefined) {
      throw new IndexError(table, '-', `database ${this.model.name} has no table ${table}`);
    }
    return st;
  }

  private codecOf(st: TableState): RowCodec {
    if (st.codec === undefined) {
      throw new OvsdbError(`${st.name}: received changes for a table that is not monitored`);
    }
    return st.codec;
  }

  /** Store `after` (or delete when undefined), update indexes, wake waiters, queue the event. */
  private commit(
    st: TableState,
    uuid: string,
    before: Row | undefined,
    after: Row | undefined,
  ): void {
    if (after === undefined) {
      if (before === undefined) return;
      st.rows.delete(uuid);
      this.indexRemove(st, uuid, before);
      this.emit(st, 'delete', before, undefined);
      return;
    }
    if (after === before) return;
    const row = this.freeze ? freezeRow(after, before) : after;
    st.rows.set(uuid, row);
    if (before === undefined) {
      this.indexAdd(st, uuid, row);
      this.emit(st, 'insert', row, undefined);
    } else {
      for (const idx of st.unique) idx.update(uuid, before, row);
      for (const idx of st.client.values()) idx.update(uuid, before, row);
      this.emit(st, 'update', row, before);
    }
    if (st.waiters.size > 0) this.checkWaiters(st, row);
  }

  private indexAdd(st: TableState, uuid: string, row: Row): void {
    for (const idx of st.unique) idx.add(uuid, row);
    for (const idx of st.client.values()) idx.add(uuid, row);
  }

  private indexRemove(st: TableState, uuid: string, row: Row): void {
    for (const idx of st.unique) idx.remove(uuid, row);
    for (const idx of st.client.values()) idx.remove(uuid, row);
  }

  private checkWaiters(st: TableState, row: Row): void {
    for (const w of [...st.waiters]) {
      let match = false;
      try {
        match = w.predicate(row);
      } catch (e) {
        this.report(e, `waitFor(${st.name}) predicate`);
      }
      if (match) w.resolve(row);
    }
  }

  private emit(st: TableState, kind: RowEventKind, row: Row, old: Row | undefined): void {
    if (st.handlers[kind].length === 0) return;
    this.push({ seq: ++this.seq, state: st, kind, row, old, context: this.context });
  }

  private push(event: QueuedEvent): void {
    this.queue.push(event);
    this.eventStats.queued++;
    const length = this.queueLength;
    if (length > this.eventStats.maxQueueLength) this.eventStats.maxQueueLength = length;
    if (!this.paused && length >= this.highWater) {
      this.paused = true;
      this.eventStats.pauses++;
      this.pressure(true);
    }
    if (!this.pumping) {
      this.pumping = true;
      queueMicrotask(() => {
        this.pump().catch((e: unknown) => this.report(e, 'event delivery'));
      });
    }
  }

  private pressure(pause: boolean): void {
    if (!this.onPressure) return;
    try {
      this.onPressure(pause);
    } catch (e) {
      this.report(e, 'pressure hook');
    }
  }

  private async pump(): Promise<void> {
    let sinceYield = 0;
    try {
      while (this.head < this.queue.length) {
        const event = this.queue[this.head]!;
        this.queue[this.head] = undefined;
        this.head++;
        // Handlers that return nothing run back to back, without a promise step each.
        const pending = this.deliver(event);
        if (pending !== undefined) await pending;
        this.eventStats.delivered++;
        if (this.head > 4096 && this.head * 2 > this.queue.length) {
          this.queue = this.queue.slice(this.head);
          this.head = 0;
        }
        if (this.paused && this.queueLength <= this.lowWater) {
          this.paused = false;
          this.pressure(false);
        }
        if (++sinceYield >= YIELD_EVERY) {
          sinceYield = 0;
          await yieldToEventLoop();
        }
      }
    } finally {
      this.queue = [];
      this.head = 0;
      this.pumping = false;
      if (this.paused) {
        this.paused = false;
        this.pressure(false);
      }
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** Deliver `event`; returns a promise only when a handler returned one (to await before going on). */
  private deliver(event: QueuedEvent): Promise<void> | undefined {
    if (event.state === undefined) return this.call(event.deliver, [], 'status handler');
    const { state, kind, row, old, seq, context } = event;
    const handlers = state.handlers[kind];
    if (handlers.length === 0) return undefined;
    // A snapshot: handlers added or removed meanwhile affect the next event.
    const list = handlers.length === 1 ? handlers : handlers.slice();
    const args = kind === 'update' ? [row, old, context] : [row, context];
    for (let i = 0; i < list.length; i++) {
      const h = list[i]!;
      if (h.since >= seq) continue;
      const pending = this.call(h.fn, args, `${state.name} ${kind} handler`);
      if (pending !== undefined)
        return pending.then(() => this.deliverRest(list, i + 1, event, args));
    }
    return undefined;
  }

  /** The handlers of `list` from `from` on, after one of them returned a promise. */
  private async deliverRest(
    list: readonly HandlerEntry[],
    from: number,
    event: Extract<QueuedEvent, { state: TableState }>,
    args: unknown[],
  ): Promise<void> {
    for (let i = from; i < list.length; i++) {
      const h = list[i]!;
      if (h.since >= event.seq) continue;
      const pending = this.call(h.fn, args, `${event.state.name} ${event.kind} handler`);
      if (pending !== undefined) await pending;
    }
  }

  /** Call a handler; a returned promise is awaited (its rejection reported) by the caller. */
  private call(
    fn: (...args: never[]) => unknown,
    args: unknown[],
    context: string,
  ): Promise<void> | undefined {
    let r: unknown;
    try {
      r = (fn as (...a: unknown[]) => unknown)(...args);
    } catch (e) {
      this.report(e, context);
      return undefined;
    }
    if (!isThenable(r)) return undefined;
    return Promise.resolve(r).then(
      () => undefined,
      (e: unknown) => this.report(e, context),
    );
  }

  private report(error: unknown, context: string): void {
    try {
      this.onHandlerError(error, context);
    } catch {
      // Nothing left to report to.
    }
  }
}

/** Both rows have the same own keys (a change of monitored columns changes the shape). */
function sameShape(a: Row, b: Row): boolean {
  let n = 0;
  for (const k in a) {
    if (!Object.hasOwn(b, k)) return false;
    n++;
  }
  for (const _ in b) n--;
  return n === 0;
}

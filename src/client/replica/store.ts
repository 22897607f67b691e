/**
 * The replica's row store: per table, the rows (immutable objects, frozen
 * by default), the schema and client indexes over them, the event handlers
 * and the `waitFor` waiters. Applying a change stores the new row, updates
 * the indexes, queues the event and wakes the waiters, in that order.
 * @module
 */

import type { DatabaseModel, RowOf, TableMap, TableName } from '../../ovsdb/schema/model.js';
import type { ColumnSchema, TableSchema } from '../../ovsdb/schema/schema-types.js';
import { OvsdbError } from '../../ovsdb/wire/errors.js';
import type { MemberReviver } from '../../ovsdb/wire/split-decoder.js';
import type { RowUpdate, RowUpdate2, TableUpdate, TableUpdate2 } from '../../ovsdb/wire/wire.js';
import {
  applyRowUpdate,
  applyRowUpdate2,
  compileRowCodec,
  decodeDumpRow,
  type Row,
  type RowCodec,
} from '../../rows/codec.js';
import {
  type ClientIndexSpec,
  IndexError,
  type IndexValue,
  MultiIndex,
  UniqueIndex,
} from '../../rows/indexes.js';
import { rowVersions } from '../../rows/set-versions.js';
import type {
  ErrorReport,
  EventQueue,
  EventSource,
  RowEventHandler,
  RowEventKind,
} from './event-queue.js';

/** Client indexes per table: index name → spec (see {@link ClientIndexSpec}). */
export type IndexesOption<DB extends TableMap> = {
  readonly [T in TableName<DB>]?: Readonly<Record<string, ClientIndexSpec<RowOf<DB, T>>>>;
};

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

/**
 * Rows of a full dump decoded while the reply arrived (`Replica.dumpReviver`),
 * by table. They are not in the dump.
 */
export type PredecodedRows = Map<string, PredecodedTable>;

/** The rows of one table of a dump decoded as it arrived. */
export interface PredecodedTable {
  /** The dump's object of this table's rows. */
  readonly target: object;
  /** The table's codec when they were decoded. */
  readonly codec: RowCodec;
  /** The rows by UUID, in the order they arrived. */
  readonly rows: Map<string, Row>;
  /** Members the reviver was given (a key given twice counts twice). */
  given: number;
}

/** A table's full dump, decoded (`Replica.decodeDump`) and not yet applied. */
export interface DecodedDump {
  readonly table: string;
  readonly codec: RowCodec;
  /** The rows by UUID, in the dump's order. */
  readonly rows: Map<string, Row>;
  /** The dump's entries (rows, and any entry without one). */
  readonly entries: number;
}

/** A {@link ReplaceResult} and how many entries the dump held (rows, and any entry without one). */
export interface ReplaceCounts extends ReplaceResult {
  /** The dump's entries. */
  readonly entries: number;
}

/** Options of {@link ReplicaStore}. */
export interface ReplicaStoreOptions<DB extends TableMap> {
  /** Client indexes per table. */
  readonly indexes?: IndexesOption<DB> | undefined;
  /** Freeze rows as they enter the store. */
  readonly freeze: boolean;
  /** Where the events of applied changes go. */
  readonly queue: EventQueue;
  /** Where a throwing `waitFor` predicate is reported (it must not throw). */
  readonly report: ErrorReport;
}

/** A pending `waitFor`. */
export interface Waiter {
  readonly predicate: (row: Row) => boolean;
  readonly resolve: (row: Row) => void;
  readonly reject: (error: unknown) => void;
}

interface TableState extends EventSource {
  readonly schema: TableSchema;
  codec: RowCodec | undefined;
  /** The model's columns the server lacks (absent from the rows). */
  absent: readonly string[];
  readonly rows: Map<string, Row>;
  unique: UniqueIndex[];
  client: Map<string, MultiIndex>;
  /** Why a client index is unusable (its column is not monitored). */
  disabled: Map<string, string>;
  readonly waiters: Set<Waiter>;
}

function freezeRow(row: Row, before: Row | undefined): Row {
  const versions = rowVersions(row);
  for (const k in row) {
    const version = versions?.[k];
    if (version !== undefined) {
      // Frozen when it is first read.
      version.frozen = true;
      continue;
    }
    const v = row[k];
    if (typeof v === 'object' && v !== null && (before === undefined || before[k] !== v)) {
      Object.freeze(v);
    }
  }
  return Object.freeze(row);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((x, i) => x === b[i]));
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

/** The tables of a replica: rows, indexes, handlers and waiters (see `Replica` for the API). */
export class ReplicaStore<DB extends TableMap = TableMap> {
  private readonly tables = new Map<string, TableState>();
  private readonly freeze: boolean;
  private readonly queue: EventQueue;
  private readonly report: ErrorReport;
  private readonly indexSpecs: IndexesOption<DB>;

  /** @throws IndexError for a client index on a column the table does not have. */
  constructor(
    private readonly model: DatabaseModel<DB>,
    options: ReplicaStoreOptions<DB>,
  ) {
    this.freeze = options.freeze;
    this.queue = options.queue;
    this.report = options.report;
    this.indexSpecs = options.indexes ?? {};
    for (const [name, schema] of Object.entries(model.schema.tables)) {
      this.tables.set(name, {
        name,
        schema,
        codec: undefined,
        absent: [],
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

  /** The row of `table` with UUID `uuid`. */
  get<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined {
    return this.state(table).rows.get(uuid) as RowOf<DB, T> | undefined;
  }

  /** The rows of `table` (a live iterator). */
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

  /** The first row of `table` for which `predicate` is true. */
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
   * Look a row up by a schema index.
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
   * The rows of `table` that client index `index` maps `value` to.
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

  // ---- handlers and waiters -----------------------------------------------------

  /** Call `handler` for every `kind` change of `table` applied from now on; returns its remover. */
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
    return this.queue.subscribe(list, handler as (...args: never[]) => unknown);
  }

  /**
   * The `waitFor` waiters of `table`, checked against every row inserted or
   * updated (add and delete them there).
   * @throws IndexError for a table the model does not have.
   */
  waitersOf(table: string): Set<Waiter> {
    return this.state(table).waiters;
  }

  /** Reject every pending `waitFor` with `error`. */
  rejectWaiters(error: unknown): void {
    for (const st of this.tables.values()) {
      for (const w of [...st.waiters]) w.reject(error);
    }
  }

  // ---- feeding --------------------------------------------------------------------

  /**
   * Monitor `columns` of `table` from now on (undefined: stop monitoring it,
   * which deletes its rows with events); rows hold exactly those columns.
   * `absent` are the columns the server's schema lacks (they name the
   * reason when a client index cannot be used); `server` the server's schema
   * of the columns whose type differs there (read by it, see `row-codec.ts`).
   * Rebuilds the table's indexes.
   */
  configure(
    table: TableName<DB> | string,
    columns: readonly string[] | undefined,
    absent: readonly string[] = [],
    server?: Readonly<Record<string, ColumnSchema>>,
  ): void {
    const st = this.state(table);
    if (columns === undefined) {
      if (st.codec === undefined) return;
      for (const [uuid, row] of st.rows) {
        st.rows.delete(uuid);
        this.queue.emit(st, 'delete', row, undefined);
      }
      st.codec = undefined;
      st.absent = [];
      st.unique = [];
      st.client = new Map();
      st.disabled = new Map();
      return;
    }
    const codec = compileRowCodec(st.schema, columns, server);
    if (st.codec === codec && sameList(st.absent, absent)) return;
    st.codec = codec;
    st.absent = absent;
    const monitored = new Set(codec.columns);
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
        st.disabled.set(
          name,
          absent.includes(col)
            ? `its column ${table}.${col} does not exist in the server's schema (the model is newer than the server)`
            : `its column "${col}" is not monitored`,
        );
        continue;
      }
      st.client.set(name, idx);
    }
    for (const [uuid, row] of st.rows) this.indexAdd(st, uuid, row);
  }

  /**
   * Apply the changes of one `update2`/`update3` for `table`, in order, with events.
   * @returns the number of `initial` entries among them.
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

  /** Apply the changes of one plain `update` for `table`, in order, with events. */
  applyUpdate(table: string, changes: TableUpdate): void {
    const st = this.state(table);
    const codec = this.codecOf(st);
    for (const uuid in changes) {
      const before = st.rows.get(uuid);
      this.commit(st, uuid, before, applyRowUpdate(codec, uuid, before, changes[uuid]!));
    }
  }

  /**
   * Replace the whole content of `table` with a full dump, with events only
   * for rows that differ ({@link ReplicaStore.decodeDump}, then
   * {@link ReplicaStore.applyDump}).
   */
  replace(
    table: string,
    dump: TableUpdate2 | TableUpdate,
    format: 'update2' | 'update',
    predecoded?: PredecodedRows,
  ): ReplaceCounts {
    return this.applyDump(this.decodeDump(table, dump, format, predecoded));
  }

  /**
   * Every row of a full dump of `table`, decoded, with nothing applied: a
   * malformed entry is a ProtocolError (naming table and key) before any
   * row of the dump is held. Rows `predecoded` holds for this dump (see
   * {@link ReplicaStore.dumpReviver}) are taken from there.
   */
  decodeDump(
    table: string,
    dump: TableUpdate2 | TableUpdate,
    format: 'update2' | 'update',
    predecoded?: PredecodedRows,
  ): DecodedDump {
    const st = this.state(table);
    // Rows decoded as the dump arrived left it: what is in it, they could not decode.
    const pre = predecoded?.get(table);
    const fromPre = pre !== undefined && pre.target === dump ? pre : undefined;
    const codec = this.codecOf(st, fromPre?.codec);
    const rows = fromPre?.rows ?? new Map<string, Row>();
    let entries = 0;
    for (const uuid in dump) {
      entries++;
      const row = decodeDumpRow(codec, uuid, dump[uuid]!, format);
      if (row !== undefined) rows.set(uuid, row);
    }
    return { table, codec, rows, entries: fromPre?.given ?? entries };
  }

  /**
   * Make `decoded` the whole content of its table, with events only for
   * rows that differ: an insert for a new row, an update for a changed
   * one, a delete for one no longer there.
   * @throws OvsdbError when the table's monitored columns changed since it was decoded.
   */
  applyDump(decoded: DecodedDump): ReplaceCounts {
    const st = this.state(decoded.table);
    const codec = this.codecOf(st, decoded.codec);
    const rows = st.rows;
    let inserted = 0;
    let updated = 0;
    let unchanged = 0;
    let deleted = 0;
    const hadRows = rows.size > 0;
    for (const [uuid, next] of decoded.rows) {
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
    if (hadRows) {
      for (const [uuid, row] of rows) {
        if (decoded.rows.has(uuid)) continue;
        deleted++;
        this.commit(st, uuid, row, undefined);
      }
    }
    return { inserted, updated, deleted, unchanged, entries: decoded.entries };
  }

  /**
   * A reviver of the rows of `table` in a full dump that is still arriving
   * (see `RequestOptions.reviveLargeReply`): decodes each entry as it is
   * parsed and keeps the row in `into`, out of the dump (`target`, the
   * dump's object of this table's rows), where {@link ReplicaStore.decodeDump}
   * takes it. An entry it cannot decode stays in the dump as it came, for
   * `decodeDump` to report. Undefined when the table is not monitored.
   */
  dumpReviver(
    table: string,
    target: object,
    format: 'update2' | 'update',
    into: PredecodedRows,
  ): MemberReviver | undefined {
    const codec = this.tables.get(table)?.codec;
    if (codec === undefined) return undefined;
    const pre: PredecodedTable = { target, codec, rows: new Map(), given: 0 };
    // A table named twice in one dump: the last one stands, in the dump and here.
    into.set(table, pre);
    return (uuid, change) => {
      pre.given++;
      let row: Row | undefined;
      if (typeof change === 'object' && change !== null) {
        try {
          row = decodeDumpRow(codec, uuid, change as RowUpdate2 | RowUpdate, format);
        } catch {
          // Left in the dump: decodeDump reports it.
        }
      }
      if (row === undefined) return change;
      pre.rows.set(uuid, row);
      return undefined;
    };
  }

  // ---- internals ----------------------------------------------------------------

  private state(table: string): TableState {
    const st = this.tables.get(table);
    if (st === undefined) {
      throw new IndexError(table, '-', `database ${this.model.name} has no table ${table}`);
    }
    return st;
  }

  /**
   * The table's codec; with `decodedWith`, the codec rows of a dump were
   * decoded with, which must still be the table's.
   */
  private codecOf(st: TableState, decodedWith?: RowCodec): RowCodec {
    if (st.codec === undefined) {
      throw new OvsdbError(`${st.name}: received changes for a table that is not monitored`);
    }
    if (decodedWith !== undefined && decodedWith !== st.codec) {
      throw new OvsdbError(`${st.name}: the monitored columns changed while its dump arrived`);
    }
    return st.codec;
  }

  /** Store `after` (or delete when undefined), update indexes, queue the event, wake waiters. */
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
      this.queue.emit(st, 'delete', before, undefined);
      return;
    }
    if (after === before) return;
    const row = this.freeze ? freezeRow(after, before) : after;
    st.rows.set(uuid, row);
    if (before === undefined) {
      this.indexAdd(st, uuid, row);
      this.queue.emit(st, 'insert', row, undefined);
    } else {
      for (const idx of st.unique) idx.update(uuid, before, row);
      if (st.client.size > 0) for (const idx of st.client.values()) idx.update(uuid, before, row);
      this.queue.emit(st, 'update', row, before);
    }
    if (st.waiters.size > 0) this.checkWaiters(st, row);
  }

  private indexAdd(st: TableState, uuid: string, row: Row): void {
    for (const idx of st.unique) idx.add(uuid, row);
    if (st.client.size > 0) for (const idx of st.client.values()) idx.add(uuid, row);
  }

  private indexRemove(st: TableState, uuid: string, row: Row): void {
    for (const idx of st.unique) idx.remove(uuid, row);
    if (st.client.size > 0) for (const idx of st.client.values()) idx.remove(uuid, row);
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
}

/**
 * Feeding a replica: the monitor replies and updates the database client
 * receives, applied to the replica's state (`tables.ts`) in order, each
 * change storing the new row, updating the indexes, queueing the event and
 * waking the waiters, in that order. The reading side is `replica.ts`.
 * @module
 */

import type { TableMap, TableName } from '../../ovsdb/schema/model.js';
import type { ColumnSchema } from '../../ovsdb/schema/schema-types.js';
import { OvsdbError } from '../../ovsdb/wire/errors.js';
import type { MemberReviver } from '../../ovsdb/wire/split-decoder.js';
import type { RowUpdate, RowUpdate2, TableUpdate, TableUpdate2 } from '../../ovsdb/wire/wire.js';
import { compileRowCodec, type Row, type RowCodec } from '../../rows/codec.js';
import { MultiIndex, UniqueIndex } from '../../rows/indexes.js';
import { applyRowUpdate, applyRowUpdate2, decodeDumpRow } from '../../rows/row-changes.js';
import { rowVersions } from '../../rows/set-versions.js';
import type { ReplicaTables, TableState } from './tables.js';

/** What applying a full dump of a table changed. */
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
 * Rows of a full dump decoded while the reply arrived (`ReplicaFeed.dumpReviver`),
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

/** A table's full dump, decoded (`ReplicaFeed.decodeDump`) and not yet applied. */
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

/** What changes a replica: the database client's side of it (see the module documentation). */
export class ReplicaFeed<DB extends TableMap = TableMap> {
  /** @internal Made by `Replica.create`, over the state of the replica this feed changes. */
  constructor(private readonly tables: ReplicaTables<DB>) {}

  /**
   * Start a new batch: the changes applied from now on came in one server
   * update (with transaction id `txnId`, when known).
   */
  beginBatch(txnId?: string): void {
    this.tables.queue.beginBatch(txnId);
  }

  /**
   * Queue `deliver` behind the row events queued so far (used for status
   * events). A returned promise is awaited like a handler's.
   */
  enqueueCallback(deliver: () => unknown): void {
    this.tables.queue.enqueueCallback(deliver);
  }

  /** The monitored columns of `table`, or undefined when it is not monitored. */
  monitoredColumns(table: string): readonly string[] | undefined {
    return this.tables.state(table).codec?.columns;
  }

  /**
   * Reject every pending `waitFor` with `error`, and every later one (the
   * client closed or gave up).
   */
  close(error: unknown): void {
    this.tables.closed = error;
    for (const st of this.tables.tables.values()) {
      for (const w of [...st.waiters]) w.reject(error);
    }
  }

  /**
   * Monitor `columns` of `table` from now on (undefined: stop monitoring it,
   * which deletes its rows with events); rows hold exactly those columns.
   * `absent` are the columns the server's schema lacks (they name the
   * reason when a client index cannot be used); `server` the server's schema
   * of the columns whose type differs there (read by it, see `rows/codec.ts`).
   * Rebuilds the table's indexes.
   */
  configure(
    table: TableName<DB> | string,
    columns: readonly string[] | undefined,
    absent: readonly string[] = [],
    server?: Readonly<Record<string, ColumnSchema>>,
  ): void {
    const st = this.tables.state(table);
    if (columns === undefined) {
      if (st.codec === undefined) return;
      for (const [uuid, row] of st.rows) {
        st.rows.delete(uuid);
        this.tables.queue.emit(st, 'delete', row, undefined);
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
    for (const [name, spec] of Object.entries(this.tables.specsOf(table))) {
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
    const st = this.tables.state(table);
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
    const st = this.tables.state(table);
    const codec = this.codecOf(st);
    for (const uuid in changes) {
      const before = st.rows.get(uuid);
      this.commit(st, uuid, before, applyRowUpdate(codec, uuid, before, changes[uuid]!));
    }
  }

  /**
   * Replace the whole content of `table` with a full dump (`initial` or
   * `insert` rows of update2 format, or `new` rows of plain update format),
   * emitting events only for rows that really differ: {@link ReplicaFeed.decodeDump},
   * then {@link ReplicaFeed.applyDump}.
   */
  replace(
    table: string,
    dump: TableUpdate2 | TableUpdate,
    format: 'update2' | 'update',
  ): ReplaceCounts {
    return this.applyDump(this.decodeDump(table, dump, format));
  }

  /**
   * Every row of a full dump of `table`, decoded, with nothing applied: a
   * malformed entry is a ProtocolError (naming table and key) before any
   * row of the dump is held. Rows `predecoded` holds for this dump (see
   * {@link ReplicaFeed.dumpReviver}) are taken from there.
   */
  decodeDump(
    table: string,
    dump: TableUpdate2 | TableUpdate,
    format: 'update2' | 'update',
    predecoded?: PredecodedRows,
  ): DecodedDump {
    const st = this.tables.state(table);
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
    const st = this.tables.state(decoded.table);
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
   * (see `LargeReplyOptions.reviveLargeReply`): decodes each entry as it is
   * parsed and keeps the row in `into`, out of the dump (`target`, the
   * dump's object of this table's rows), where {@link ReplicaFeed.decodeDump}
   * takes it. An entry it cannot decode stays in the dump as it came, for
   * `decodeDump` to report. Undefined when the table is not monitored.
   */
  dumpReviver(
    table: string,
    target: object,
    format: 'update2' | 'update',
    into: PredecodedRows,
  ): MemberReviver | undefined {
    const codec = this.tables.tables.get(table)?.codec;
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
      this.tables.queue.emit(st, 'delete', before, undefined);
      return;
    }
    if (after === before) return;
    const row = this.tables.freeze ? freezeRow(after, before) : after;
    st.rows.set(uuid, row);
    if (before === undefined) {
      this.indexAdd(st, uuid, row);
      this.tables.queue.emit(st, 'insert', row, undefined);
    } else {
      for (const idx of st.unique) idx.update(uuid, before, row);
      if (st.client.size > 0) for (const idx of st.client.values()) idx.update(uuid, before, row);
      this.tables.queue.emit(st, 'update', row, before);
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
        this.tables.report(e, `waitFor(${st.name}) predicate`);
      }
      if (match) w.resolve(row);
    }
  }
}

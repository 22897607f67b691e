/**
 * The staged state of one `transact` request: the rows it inserted, modified
 * or deleted (OVS's `ovsdb_txn_row`s), on top of the committed tables, until
 * the commit applies them or the transaction is dropped.
 * @module
 */

import type { Atom } from '../../ovsdb/schema/schema-types.js';
import type { Datum } from '../../ovsdb/values/sorted-datum.js';
import type { Row, TableStore } from './table-store.js';
import type { DatabaseState } from './types.js';

/** One weak reference element of a row: the column and the element's key and value. */
export interface WeakRef {
  readonly column: string;
  readonly key: Atom;
  readonly value: Atom | undefined;
}

/** A committed row holding a weak reference, and the reference. */
export interface WeakReferrer {
  readonly table: string;
  readonly uuid: string;
  readonly ref: WeakRef;
}

/** A row the transaction touched: its committed and staged versions and its bookkeeping. */
export interface TxnRow {
  readonly store: TableStore;
  readonly uuid: string;
  readonly old: Row | null;
  new: Row | null;
  nRefs: number;
  /** The columns found changed (see {@link markChanged}); absent while there is none, never empty. */
  changed: Set<string> | undefined;
  /** Every column changed (an insert or delete as the transaction ended); `changed` is then not filled. */
  allChanged: boolean;
  /** Weak references to rows this transaction deletes, to remove from this row (absent while there is none). */
  deletedRefs: WeakRef[] | undefined;
  /** The last {@link Txn.forEachRow} pass that visited the row. */
  pass: number;
  /** The last query ({@link Txn.nextMark}) that evaluated the row. */
  mark: number;
}

/** Whether the transaction changed `column` of `tr`. */
export function hasChange(tr: TxnRow, column: string): boolean {
  return tr.allChanged || tr.changed?.has(column) === true;
}

/** Whether the transaction changed any column of `tr`. */
export function anyChange(tr: TxnRow): boolean {
  return tr.allChanged || tr.changed !== undefined;
}

/** Note that the transaction changed `column` of `tr`. */
export function markChanged(tr: TxnRow, column: string): void {
  if (tr.changed === undefined) tr.changed = new Set([column]);
  else tr.changed.add(column);
}

/** The staged row changes of one transaction, over the committed tables of its database. */
export class Txn {
  /** Touched tables in first-touch order; rows in first-touch order. */
  readonly tables = new Map<string, Map<string, TxnRow>>();
  /** How many {@link Txn.forEachRow} passes have started. */
  private passes = 0;
  /** How many queries have marked rows. */
  private marks = 0;

  constructor(readonly db: DatabaseState) {}

  store(table: string): TableStore {
    const s = this.db.tables.get(table);
    if (s === undefined) throw new Error(`no table ${table}`);
    return s;
  }

  txnTable(table: string): Map<string, TxnRow> {
    let t = this.tables.get(table);
    if (t === undefined) {
      t = new Map();
      this.tables.set(table, t);
    }
    return t;
  }

  findTxnRow(table: string, uuid: string): TxnRow | undefined {
    return this.tables.get(table)?.get(uuid);
  }

  /** The row as the transaction currently sees it. */
  getRow(table: string, uuid: string): Row | undefined {
    const tr = this.findTxnRow(table, uuid);
    if (tr !== undefined) return tr.new ?? undefined;
    return this.store(table).rows.get(uuid);
  }

  /** A fresh mark for one query to tag the rows it evaluated (see `query.ts`). */
  nextMark(): number {
    return ++this.marks;
  }

  /** The number of rows of `table` as the transaction currently sees it. */
  count(table: string): number {
    let n = this.store(table).rows.size;
    for (const tr of this.tables.get(table)?.values() ?? []) {
      if (tr.old === null) {
        if (tr.new !== null) n++;
      } else if (tr.new === null) n--;
    }
    return n;
  }

  mayCreateRow(table: string, uuid: string): boolean {
    return this.getRow(table, uuid) === undefined && this.findTxnRow(table, uuid) === undefined;
  }

  insert(table: string, row: Row): void {
    this.txnTable(table).set(row.uuid, {
      store: this.store(table),
      uuid: row.uuid,
      old: null,
      new: row,
      nRefs: 0,
      changed: undefined,
      allChanged: false,
      deletedRefs: undefined,
      pass: 0,
      mark: 0,
    });
  }

  modify(table: string, uuid: string, fields: Record<string, Datum>): void {
    const row: Row = { uuid, fields };
    const tr = this.findTxnRow(table, uuid);
    if (tr !== undefined) {
      tr.new = row;
      return;
    }
    const store = this.store(table);
    const old = store.rows.get(uuid) as Row;
    this.txnTable(table).set(uuid, {
      store,
      uuid,
      old,
      new: row,
      nRefs: store.refCounts.get(uuid) ?? 0,
      changed: undefined,
      allChanged: false,
      deletedRefs: undefined,
      pass: 0,
      mark: 0,
    });
  }

  delete(table: string, uuid: string): void {
    const t = this.txnTable(table);
    const tr = t.get(uuid);
    if (tr !== undefined) {
      if (tr.old === null) t.delete(uuid);
      else tr.new = null;
      return;
    }
    const store = this.store(table);
    t.set(uuid, {
      store,
      uuid,
      old: store.rows.get(uuid) as Row,
      new: null,
      nRefs: store.refCounts.get(uuid) ?? 0,
      changed: undefined,
      allChanged: false,
      deletedRefs: undefined,
      pass: 0,
      mark: 0,
    });
  }

  /** OVS's `find_or_make_txn_row`: pull a committed row into the transaction unchanged. */
  findOrMake(table: string, uuid: string): TxnRow | undefined {
    const tr = this.findTxnRow(table, uuid);
    if (tr !== undefined) return tr;
    const store = this.store(table);
    const row = store.rows.get(uuid);
    if (row === undefined) return undefined;
    const made: TxnRow = {
      store,
      uuid,
      old: row,
      new: row,
      nRefs: store.refCounts.get(uuid) ?? 0,
      changed: undefined,
      allChanged: false,
      deletedRefs: undefined,
      pass: 0,
      mark: 0,
    };
    this.txnTable(table).set(uuid, made);
    return made;
  }

  /**
   * Call `cb` for every transaction row, including rows added while iterating,
   * as OVS's `for_each_txn_row` does. Tables left empty are dropped.
   */
  forEachRow(cb: (tr: TxnRow) => void): void {
    const pass = ++this.passes;
    let anyWork = true;
    while (anyWork) {
      anyWork = false;
      for (const [name, t] of [...this.tables]) {
        // A Map iterator sees the rows added while it runs (after the others,
        // in insertion order) and skips the rows deleted before it reaches them.
        for (const tr of t.values()) {
          if (tr.pass === pass) continue;
          tr.pass = pass;
          anyWork = true;
          cb(tr);
        }
        if (t.size === 0) this.tables.delete(name);
      }
    }
  }
}

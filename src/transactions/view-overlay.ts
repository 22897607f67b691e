/**
 * The overlay of a {@link TransactionView}: the rows of the replica as the
 * transaction changed them so far, following the server's garbage
 * collection and weak references, with indexes of its own over the rows it
 * changed; and what the view reads the replica through.
 * @module
 */

import { absentColumns, type CompatReport, SchemaDriftError } from '../ovsdb/schema/compat.js';
import type { RowOf, TableMap, TableName } from '../ovsdb/schema/model.js';
import type { TableSchema } from '../ovsdb/schema/schema-types.js';
import { isUuid } from '../ovsdb/values/uuid.js';
import { OvsdbError } from '../ovsdb/wire/errors.js';
import type { IndexValue } from '../rows/indexes.js';
import type { TransactionBuilder } from './builder.js';
import { OverlayIndex } from './view-indexes.js';
import {
  copyRow,
  isRefColumn,
  type Rec,
  refSites,
  refsIn,
  setMember,
  withoutRef,
} from './view-rows.js';

/**
 * The replica reads a {@link TransactionView} needs: the database client
 * (`connectDatabase`) provides them, and the {@link TransactionViewReaderExtras}.
 */
export interface TransactionViewReader<DB extends TableMap> {
  /** The row of `table` with UUID `uuid`. */
  get<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined;
  /** Every row of `table`. */
  rows<T extends TableName<DB>>(table: T): Iterable<RowOf<DB, T>>;
}

/**
 * What a reader may have besides `get` and `rows`, and the view then uses
 * (the database client has all of it): a reader without `isMonitored` holds
 * every table; one without `lookup`, `byIndex` and `indexValues` has no
 * indexes (the view's `lookup` then scans, its `byIndex` throws).
 */
export interface TransactionViewReaderExtras<DB extends TableMap> {
  /** True when the replica holds `table` (it is monitored, and the server has it). */
  isMonitored?(table: TableName<DB>): boolean;
  /** How the model differs from the server's schema (undefined until known). */
  readonly compat?: CompatReport | undefined;
  /** The row a schema index maps `key` to. @throws IndexError for no such index. */
  lookup?<T extends TableName<DB>>(table: T, key: Partial<RowOf<DB, T>>): RowOf<DB, T> | undefined;
  /**
   * The rows client index `index` maps `value` to. @throws IndexError for no such index.
   * (The parameters are `never` so that clients typed by their own index names fit.)
   */
  byIndex?(table: never, index: never, value: IndexValue): readonly object[];
  /** The values client index `index` gives `row`. @throws IndexError for no such index. */
  indexValues?(table: TableName<DB>, index: string, row: object): readonly IndexValue[];
}

/**
 * A transaction view read a table that the database client does not
 * monitor (it is not in the client's `tables`, or the client is not in sync
 * yet): the view would have seen it empty.
 */
export class TableNotMonitoredError extends OvsdbError {
  override name = 'TableNotMonitoredError';
  constructor(
    /** The table read. */
    readonly table: string,
    /** Who read it (the view's label: `Northbound`, or the schema's name). */
    readonly reader: string,
  ) {
    super(
      `${reader}: table ${table} is read, but the database client does not monitor it: add ${table} to the client's tables (or leave tables out to monitor every table), and wait for client.ready`,
    );
  }
}

/** Options of the {@link TransactionView} constructor. */
export interface TransactionViewOptions {
  /**
   * How error messages name the database (`unknown <label> table …`);
   * default: the schema's name.
   */
  readonly label?: string | undefined;
}

/** The rows a transaction changed, over the replica it reads (see {@link TransactionView}). */
export class ViewOverlay<DB extends TableMap> {
  /** @internal Per table, the rows changed: the new row, or null for a deleted one. */
  protected readonly overlay = new Map<string, Map<string, Rec | null>>();
  /** @internal Per table, the rows inserted. */
  protected readonly inserted = new Map<string, Set<string>>();
  /** @internal Per table, the view's indexes over the rows it changed (index id → index). */
  protected readonly overlayIndexes = new Map<string, Map<string, OverlayIndex>>();
  /** @internal The tables reads have been allowed from (see `monitors`). */
  protected readonly readable = new Set<string>();
  /** @internal */
  protected readonly label: string;

  /**
   * @param tx - the transaction builder (the `tx` of `transact(tx => …)`).
   * @param reader - the replica (the database client; see {@link TransactionViewReaderExtras}).
   * @param options - see {@link TransactionViewOptions}.
   */
  constructor(
    readonly tx: TransactionBuilder<DB>,
    readonly reader: TransactionViewReader<DB> & TransactionViewReaderExtras<DB>,
    options: TransactionViewOptions = {},
  ) {
    this.label = options.label ?? tx.model.schema.name;
  }

  /** Every row of `table`, as changed by this transaction so far (no monitoring check). */
  protected allRows<T extends TableName<DB>>(table: T): RowOf<DB, T>[] {
    const monitored = this.reader.isMonitored?.(table) !== false;
    const o = this.overlay.get(table);
    const out: RowOf<DB, T>[] = [];
    for (const row of monitored ? this.reader.rows(table) : []) {
      const u = (row as { _uuid: string })._uuid;
      if (o?.has(u)) {
        const v = o.get(u);
        if (v) out.push(v as RowOf<DB, T>);
      } else out.push(row);
    }
    const ins = this.inserted.get(table);
    if (ins !== undefined && o !== undefined) {
      for (const u of ins) {
        const v = o.get(u);
        if (v) out.push(v as RowOf<DB, T>);
      }
    }
    return out;
  }

  /**
   * The table's schema.
   * @throws TypeError for a table the model does not have.
   */
  schema(table: string): TableSchema {
    const s = this.tx.model.schema.tables[table];
    if (s === undefined) throw new TypeError(`unknown ${this.label} table ${table}`);
    return s;
  }

  /**
   * The columns of `table` the server's schema lacks (none when the reader
   * does not say): absent from the rows, and not writable.
   */
  protected absent(table: string): readonly string[] {
    const compat = this.reader.compat;
    if (compat === undefined || compat.identical) return [];
    // A table the server lacks: a write to it is a SchemaDriftError for the table.
    if (compat.missingTables.includes(table)) this.drift(table, undefined);
    return absentColumns(compat, this.tx.model.schema, table);
  }

  /** @throws SchemaDriftError for `table.column` (or `table`), at the operation about to be added. */
  protected drift(table: string, column: string | undefined): never {
    throw new SchemaDriftError(table, column, this.tx.size, this.reader.compat!.serverVersion);
  }

  protected uuidOf(uuid: string): string {
    if (!isUuid(uuid)) throw new TypeError(`not a UUID: ${JSON.stringify(uuid)}`);
    return uuid.toLowerCase();
  }

  /**
   * Allow reads of `table` from the replica.
   * @throws TypeError for a table the model does not have; SchemaDriftError
   *   when the server lacks it; TableNotMonitoredError when the client does
   *   not monitor it.
   */
  protected checkRead(table: string): void {
    if (this.readable.has(table)) return;
    this.schema(table);
    const reader = this.reader;
    if (reader.isMonitored !== undefined && !reader.isMonitored(table as TableName<DB>)) {
      const compat = reader.compat;
      if (compat?.missingTables.includes(table)) {
        throw new SchemaDriftError(table, undefined, this.tx.size, compat.serverVersion);
      }
      throw new TableNotMonitoredError(table, this.label);
    }
    this.readable.add(table);
  }

  /** The row, as changed by this transaction (no monitoring check: the view's own bookkeeping). */
  protected peek(table: string, uuid: string): Rec | undefined {
    const o = this.overlay.get(table);
    if (o?.has(uuid)) return o.get(uuid) ?? undefined;
    if (this.reader.isMonitored?.(table as TableName<DB>) === false) return undefined;
    return this.reader.get(table as TableName<DB>, uuid) as Rec | undefined;
  }

  /** The view's index `id` of the changed rows of `table`, built on first use. */
  protected overlayIndex(
    table: string,
    id: string,
    keys: (row: Rec) => readonly unknown[],
  ): OverlayIndex {
    let byId = this.overlayIndexes.get(table);
    if (byId === undefined) {
      byId = new Map();
      this.overlayIndexes.set(table, byId);
    }
    let idx = byId.get(id);
    if (idx === undefined) {
      idx = new OverlayIndex(keys);
      for (const [uuid, row] of this.overlay.get(table) ?? []) idx.set(uuid, row);
      byId.set(id, idx);
    }
    return idx;
  }

  protected put(table: string, uuid: string, row: Rec | null): void {
    let o = this.overlay.get(table);
    if (o === undefined) {
      o = new Map();
      this.overlay.set(table, o);
    }
    o.set(uuid, row);
    for (const idx of this.overlayIndexes.get(table)?.values() ?? []) idx.set(uuid, row);
  }

  /** Replace a row and collect what lost its last strong reference. */
  protected replace(table: string, uuid: string, before: Rec, after: Rec): void {
    this.put(table, uuid, after);
    const schema = this.schema(table);
    const released: [string, string][] = [];
    for (const c of Object.values(schema.columns)) {
      if (!isRefColumn(c)) continue;
      const now = new Set(refsIn(c, after[c.name]));
      for (const [base, strong] of [
        [c.type.key, c.type.key.refType !== 'weak'],
        [c.type.value, c.type.value?.refType !== 'weak'],
      ] as const) {
        if (base?.refTable === undefined || !strong) continue;
        for (const u of refsIn(c, before[c.name], base.refTable)) {
          if (!now.has(u)) released.push([base.refTable, u]);
        }
      }
    }
    this.collect(released);
  }

  /** Mark a row deleted, drop weak references to it, and collect what it held. */
  protected remove(table: string, uuid: string): void {
    const row = this.peek(table, uuid);
    if (row === undefined) return;
    this.put(table, uuid, null);
    const tables = this.tx.model.schema.tables;
    for (const [t, column, strong] of refSites(tables).get(table) ?? []) {
      if (strong) continue;
      const col = tables[t]!.columns[column]!;
      for (const r of this.allRows(t as TableName<DB>) as Rec[]) {
        if (!refsIn(col, r[column]).includes(uuid)) continue;
        const next = copyRow(r);
        setMember(next, column, withoutRef(col, r[column], uuid));
        this.put(t, r['_uuid'] as string, next);
      }
    }
    const schema = this.schema(table);
    const released: [string, string][] = [];
    for (const c of Object.values(schema.columns)) {
      for (const base of [c.type.key, c.type.value]) {
        if (base?.refTable === undefined || base.refType === 'weak') continue;
        for (const u of refsIn(c, row[c.name], base.refTable)) released.push([base.refTable, u]);
      }
    }
    this.collect(released);
  }

  protected collect(candidates: [string, string][]): void {
    const tables = this.tx.model.schema.tables;
    for (const [table, uuid] of candidates) {
      const schema = tables[table];
      if (schema === undefined || schema.isRoot) continue;
      if (this.peek(table, uuid) === undefined) continue;
      let referenced = false;
      for (const [t, column, strong] of refSites(tables).get(table) ?? []) {
        if (!strong) continue;
        const col = tables[t]!.columns[column]!;
        if (
          (this.allRows(t as TableName<DB>) as Rec[]).some((r) =>
            refsIn(col, r[column]).includes(uuid),
          )
        ) {
          referenced = true;
          break;
        }
      }
      if (!referenced) this.remove(table, uuid);
    }
  }
}

/**
 * {@link TransactionView}: one transaction being built, with read-your-writes
 * inside it, for any database model.
 *
 * The view wraps the transaction builder (`view.tx`) and the replica
 * (`view.reader`). Its writes (`insert`, `update`, `mutate`, `delete`, …)
 * append operations to the builder and record the change in an overlay;
 * its reads (`get`, `rows`, `find`, `referrers`, …) see the replica *as
 * changed by the operations already added*. The overlay also follows the
 * server's garbage collection (a row of a non-root table that loses its last
 * strong reference disappears) and weak references (references to a deleted
 * row vanish), so what the callback reads matches what the server will
 * commit.
 *
 * Write through the view rather than `view.tx` directly when later reads of
 * the same transaction must see the change. The Northbound DSL builds on it
 * (`NbTxn` is a `TransactionView` of the NB model).
 *
 * Index reads (`lookup` by a schema index, `byIndex` by a client index of
 * the database client) use the replica's indexes for the rows the
 * transaction did not touch and indexes of the view's own for those it did,
 * so they never scan a table.
 *
 * A read of a table the replica does not hold fails at once:
 * `SchemaDriftError` when the server's schema lacks the table (the model is
 * newer), {@link TableNotMonitoredError} when the client does not monitor
 * it. (Otherwise the view would see an empty table.)
 *
 * A column the server's schema lacks (`reader.compat`) is absent from the
 * replica's rows, and from the rows the view inserts (no default is made
 * up for it); a write that gives it a value (`insert`, `update`, `mutate`)
 * fails at once with `SchemaDriftError` naming `table.column`, before the
 * operation is added.
 * @module
 */

import { absentColumns, type CompatReport, SchemaDriftError } from '../ovsdb/schema/compat.js';
import type { InsertOf, RowOf, TableMap, TableName, UpdateOf } from '../ovsdb/schema/model.js';
import type { TableSchema } from '../ovsdb/schema/schema-types.js';
import { defaultValue } from '../ovsdb/values/datum.js';
import { isUuid, type Uuid, ZERO_UUID } from '../ovsdb/values/uuid.js';
import { OvsdbError } from '../ovsdb/wire/errors.js';
import { IndexError, type IndexValue, UniqueIndex } from '../rows/indexes.js';
import type { TransactionBuilder } from './builder.js';
import type { MutationOf } from './mutations.js';
import type { Ref } from './ref.js';
import { OverlayIndex } from './view-indexes.js';
import {
  applyMutation,
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

/**
 * A transaction being built, with read-your-writes: the transaction builder
 * `tx`, the replica `reader`, and the changes made so far (see the module
 * documentation). Create one inside a `transact` callback; the callback may
 * be replayed, so read the replica only through the view.
 *
 * ```ts
 * const db = createTransactor(clientExecutor(client)); // client = connectDatabase({ remotes, model: NB })
 * await db.transact((tx) => {
 *   const view = new TransactionView(tx, client);
 *   const sw = view.find('Logical_Switch', (s) => s.name === 'sw0')!;
 *   const port = view.insert('Logical_Switch_Port', { name: 'lsp1' });
 *   view.mutate('Logical_Switch', sw._uuid, [['ports', 'insert', [port]]]);
 *   view.get('Logical_Switch', sw._uuid)?.ports; // […, port]
 *   view.delete('Logical_Switch', sw._uuid);
 *   view.get('Logical_Switch_Port', port); // undefined: its last strong reference is gone
 * });
 * ```
 *
 * @typeParam DB - the database's table map (`NBTables`, …).
 */
export class TransactionView<DB extends TableMap> {
  private readonly overlay = new Map<string, Map<string, Rec | null>>();
  private readonly inserted = new Map<string, Set<string>>();
  private readonly guards = new Map<number, () => Error>();
  /** Per table, the view's indexes over the rows it changed (index id → index). */
  private readonly overlayIndexes = new Map<string, Map<string, OverlayIndex>>();
  private readonly uniqueIndexes = new Map<string, UniqueIndex>();
  /** The tables reads have been allowed from (see {@link TransactionView.monitors}). */
  private readonly readable = new Set<string>();
  private readonly label: string;

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

  // ---- reads ---------------------------------------------------------------------

  /**
   * The row of `table` with UUID `uuid`, as changed by this transaction so far.
   * @throws TableNotMonitoredError, SchemaDriftError (see the module
   *   documentation) when the row is not one this transaction wrote.
   */
  get<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined {
    if (typeof uuid !== 'string') return undefined;
    const u = uuid.toLowerCase();
    const o = this.overlay.get(table);
    if (o?.has(u)) return (o.get(u) ?? undefined) as RowOf<DB, T> | undefined;
    this.checkRead(table);
    return this.reader.get(table, u);
  }

  /**
   * Every row of `table`, as changed by this transaction so far.
   * @throws TableNotMonitoredError, SchemaDriftError (see the module documentation).
   */
  rows<T extends TableName<DB>>(table: T): RowOf<DB, T>[] {
    this.checkRead(table);
    return this.allRows(table);
  }

  /**
   * True when the replica holds `table`, so that reads of it see its rows
   * (always, for a reader that does not say). Reading a table for which it
   * is false throws; check first when the read is optional.
   */
  monitors(table: TableName<DB>): boolean {
    return this.readable.has(table) || this.reader.isMonitored?.(table) !== false;
  }

  /**
   * The row of `table` that a schema index (an `indexes` entry of the
   * `.ovsschema`) maps `key` to, as changed by this transaction so far: one
   * hash lookup in the replica's index, one in the view's index of the rows
   * this transaction changed. `key` has exactly the index's columns.
   *
   * ```ts
   * const port = t.lookup('Logical_Switch_Port', { name: 'web-1' });
   * ```
   * @throws IndexError when no schema index has exactly those columns (or
   *   one is not monitored); TableNotMonitoredError, SchemaDriftError.
   */
  lookup<T extends TableName<DB>>(table: T, key: Partial<RowOf<DB, T>>): RowOf<DB, T> | undefined {
    this.checkRead(table);
    const schema = this.schema(table);
    const cols = Object.keys(key).sort();
    const id = cols.join(',');
    const columns = schema.indexes.find((i) => [...i].sort().join(',') === id);
    if (columns === undefined) {
      throw new IndexError(
        table,
        `(${cols.join(', ')})`,
        `the table has no schema index on exactly these columns; its indexes: ${
          schema.indexes.map((i) => `(${i.join(', ')})`).join(' ') || 'none'
        }`,
      );
    }
    let unique = this.uniqueIndexes.get(`${table}\u0000${id}`);
    if (unique === undefined) {
      unique = new UniqueIndex(schema, columns);
      this.uniqueIndexes.set(`${table}\u0000${id}`, unique);
    }
    const u = unique;
    const want = u.keyOf(key as Rec);
    if (this.reader.lookup === undefined) {
      return this.allRows(table).find((r) => u.keyOf(r as Rec) === want);
    }
    const base = this.reader.lookup(table, key);
    const o = this.overlay.get(table);
    if (o === undefined) return base;
    const changed = this.overlayIndex(table, `schema:${id}`, (row) => [u.keyOf(row)]);
    for (const uuid of changed.get(want)) {
      const row = o.get(uuid);
      if (row) return row as RowOf<DB, T>;
    }
    if (base !== undefined && !o.has((base as Rec)['_uuid'] as string)) return base;
    return undefined;
  }

  /**
   * The rows that client index `index` of the database client (its
   * `indexes` option) maps `value` to, as changed by this transaction so
   * far: the replica's index for the rows this transaction did not touch,
   * the view's own for those it did (inserted, updated to match or no longer
   * to match, deleted). No table scan.
   *
   * ```ts
   * // connectDatabase({ …, indexes: { Logical_Switch_Port: { pod: { column: 'external_ids', key: 'pod' } } } })
   * const ports = t.byIndex('Logical_Switch_Port', 'pod', 'ns/web-1');
   * ```
   * @throws IndexError when the client has no such index (or the reader no
   *   client indexes); TableNotMonitoredError, SchemaDriftError.
   */
  byIndex<T extends TableName<DB>>(table: T, index: string, value: IndexValue): RowOf<DB, T>[] {
    this.checkRead(table);
    this.schema(table);
    const reader = this.reader;
    if (reader.byIndex === undefined || reader.indexValues === undefined) {
      throw new IndexError(table, index, 'the reader has no client indexes');
    }
    const base = reader.byIndex(table as never, index as never, value) as RowOf<DB, T>[];
    const o = this.overlay.get(table);
    if (o === undefined) return [...base];
    const indexValues = reader.indexValues.bind(reader);
    const changed = this.overlayIndex(table, `client:${index}`, (row) =>
      indexValues(table, index, row),
    );
    const out = base.filter((r) => !o.has((r as Rec)['_uuid'] as string));
    for (const uuid of changed.get(value)) {
      const row = o.get(uuid);
      if (row) out.push(row as RowOf<DB, T>);
    }
    return out;
  }

  /** Every row of `table`, as changed by this transaction so far (no monitoring check). */
  private allRows<T extends TableName<DB>>(table: T): RowOf<DB, T>[] {
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

  /** The rows of `table` for which `predicate` is true. */
  filter<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
  ): RowOf<DB, T>[] {
    return this.rows(table).filter(predicate);
  }

  /** A row of `table` for which `predicate` is true. */
  find<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
  ): RowOf<DB, T> | undefined {
    return this.rows(table).find(predicate);
  }

  /**
   * The rows whose column `column` references `uuid` (e.g. the switches
   * whose `ports` hold a port).
   */
  referrers<T extends TableName<DB>>(table: T, column: string, uuid: string): RowOf<DB, T>[] {
    const schema = this.schema(table);
    const col = schema.columns[column];
    if (col === undefined) return [];
    this.checkRead(table);
    return this.allRows(table).filter((r) => refsIn(col, (r as Rec)[column]).includes(uuid));
  }

  /** True when this transaction inserted row `uuid` of `table`. */
  isNew(table: TableName<DB>, uuid: string): boolean {
    return this.inserted.get(table)?.has(uuid.toLowerCase()) ?? false;
  }

  // ---- writes --------------------------------------------------------------------

  /**
   * Insert a row (see `tx.insert`); later reads of this transaction see it,
   * with OVSDB's default for every column left out.
   *
   * ```ts
   * const sw = t.insert('Logical_Switch', { name: 'sw0' });
   * // {"op":"insert","table":"Logical_Switch","row":{"name":"sw0"},"uuid":"<sw>","uuid-name":"row0"}
   * ```
   */
  insert<T extends TableName<DB>>(table: T, row: InsertOf<DB, T>): Ref<T> {
    const schema = this.schema(table);
    const absent = this.absent(table);
    for (const name of absent) {
      if ((row as Rec)[name] !== undefined) this.drift(table, name);
    }
    const ref = this.tx.insert(table, row);
    const full: Rec = {};
    for (const name of schema.columnNames) {
      // A column the server lacks is absent from the row, as from the replica's.
      if (absent.includes(name)) continue;
      const given = (row as Rec)[name];
      setMember(full, name, given === undefined ? defaultValue(schema.columns[name]!) : given);
    }
    setMember(full, '_uuid', ref);
    setMember(full, '_version', ZERO_UUID);
    this.put(table, ref, copyRow(full));
    let ins = this.inserted.get(table);
    if (ins === undefined) {
      ins = new Set();
      this.inserted.set(table, ins);
    }
    ins.add(ref);
    return ref;
  }

  /**
   * Set columns of row `uuid` (see `tx.update`).
   *
   * ```ts
   * t.update('Logical_Switch_Port', port._uuid, { enabled: false });
   * // {"op":"update","table":"Logical_Switch_Port","where":[["_uuid","==",["uuid","<port>"]]],"row":{"enabled":false}}
   * ```
   * @throws TypeError when `uuid` is not a UUID or the row does not exist
   *   (in this transaction).
   */
  update<T extends TableName<DB>>(table: T, uuid: Uuid<T> | string, row: UpdateOf<DB, T>): void {
    const u = this.uuidOf(uuid);
    const absent = this.absent(table);
    for (const name of absent) {
      if ((row as Rec)[name] !== undefined) this.drift(table, name);
    }
    const current = this.requireRow(table, u);
    this.tx.update(table, u as Uuid<T>, row);
    const next = copyRow(current);
    for (const [k, v] of Object.entries(row as Rec)) {
      if (v !== undefined) setMember(next, k, Array.isArray(v) ? [...v] : v);
    }
    this.replace(table, u, current, next);
  }

  /**
   * Apply mutations to row `uuid` (see `tx.mutate`). Does nothing for an
   * empty list.
   *
   * ```ts
   * t.mutate('Logical_Switch', sw, [['ports', 'insert', [port]]]);
   * // {"op":"mutate","table":"Logical_Switch","where":[["_uuid","==",["uuid","<sw>"]]],
   * //  "mutations":[["ports","insert",["set",[["named-uuid","row1"]]]]]}
   * ```
   * @throws TypeError when `uuid` is not a UUID or the row does not exist
   *   (in this transaction).
   */
  mutate<T extends TableName<DB>>(
    table: T,
    uuid: Uuid<T> | string,
    mutations: readonly MutationOf<DB, T>[],
  ): void {
    if (mutations.length === 0) return;
    const u = this.uuidOf(uuid);
    const absent = this.absent(table);
    for (const m of mutations as readonly (readonly [string, ...unknown[]])[]) {
      if (absent.includes(m[0])) this.drift(table, m[0]);
    }
    const current = this.requireRow(table, u);
    this.tx.mutate(table, u as Uuid<T>, mutations);
    const schema = this.schema(table);
    const next = copyRow(current);
    for (const m of mutations as readonly (readonly [string, string, unknown])[]) {
      const [name, mutator, value] = m;
      const column = schema.columns[name]!;
      setMember(next, name, applyMutation(column, next[name], mutator, value));
    }
    this.replace(table, u, current, next);
  }

  /**
   * Add elements to a set column of row `uuid` (one `mutate` … `insert`).
   * Does nothing for an empty list.
   */
  addToSet<T extends TableName<DB>>(
    table: T,
    uuid: string,
    column: string,
    values: readonly unknown[],
  ): void {
    if (values.length === 0) return;
    this.mutate(table, uuid, [[column, 'insert', values]] as unknown as MutationOf<DB, T>[]);
  }

  /**
   * Remove elements from a set column of row `uuid` (one `mutate` …
   * `delete`). Does nothing for an empty list.
   */
  removeFromSet<T extends TableName<DB>>(
    table: T,
    uuid: string,
    column: string,
    values: readonly unknown[],
  ): void {
    if (values.length === 0) return;
    this.mutate(table, uuid, [[column, 'delete', values]] as unknown as MutationOf<DB, T>[]);
  }

  /**
   * Set or remove keys of a map column of row `uuid` without touching the
   * others: `null` removes the key. One `mutate` with a `delete` of the keys
   * and an `insert` of the new pairs.
   *
   * ```ts
   * t.setMapKeys('Logical_Switch', sw, 'other_config', { subnet: '10.0.0.0/24', mcast_snoop: null });
   * // {"op":"mutate",…,"mutations":[["other_config","delete",["set",["subnet","mcast_snoop"]]],
   * //                               ["other_config","insert",["map",[["subnet","10.0.0.0/24"]]]]]}
   * ```
   */
  setMapKeys<T extends TableName<DB>>(
    table: T,
    uuid: string,
    column: string,
    pairs: Readonly<Record<string, string | null | undefined>>,
  ): void {
    const keys = Object.keys(pairs).filter((k) => pairs[k] !== undefined);
    if (keys.length === 0) return;
    const insert: Record<string, string> = {};
    for (const k of keys) {
      const v = pairs[k];
      if (typeof v === 'string') setMember(insert, k, v);
    }
    const mutations: unknown[] = [[column, 'delete', keys]];
    if (Object.keys(insert).length > 0) mutations.push([column, 'insert', insert]);
    this.mutate(table, uuid, mutations as MutationOf<DB, T>[]);
  }

  /**
   * Delete row `uuid` (see `tx.delete`). References to it from weak
   * columns vanish; rows of non-root tables it alone referenced are
   * collected, as the server will do.
   *
   * ```ts
   * t.delete('Logical_Switch', sw);
   * // {"op":"delete","table":"Logical_Switch","where":[["_uuid","==",["uuid","<sw>"]]]}
   * ```
   * @throws TypeError when `uuid` is not a UUID or the row does not exist
   *   (in this transaction).
   */
  delete<T extends TableName<DB>>(table: T, uuid: Uuid<T> | string): void {
    const u = this.uuidOf(uuid);
    this.requireRow(table, u);
    this.tx.delete(table, u as Uuid<T>);
    this.remove(table, u);
  }

  /**
   * Add a server-side check that no row of `table` has `column` equal to
   * `value` (no row at all, for `undefined`) at this point of the
   * transaction (a `wait` with timeout 0). When the transaction fails at
   * that operation, the caller throws `error()` (see {@link guardErrors})
   * instead of the server's "timed out" (the Northbound DSL's `nb.transact`
   * does so).
   *
   * ```ts
   * // {"op":"wait","table":"Logical_Switch","where":[["name","==","sw0"]],"columns":["name"],
   * //  "until":"==","rows":[],"timeout":0}
   * ```
   */
  guardAbsent(
    table: TableName<DB>,
    column: string,
    value: string | undefined,
    error: () => Error,
  ): void {
    const index = this.tx.size;
    this.tx.wait(
      table,
      (value === undefined ? [] : [[column, '==', value]]) as never,
      { columns: [column], until: '==', rows: [], timeout: 0 } as never,
    );
    this.guards.set(index, error);
  }

  /**
   * What a failed guard stands for, by the index of its operation: kept
   * past the callback (rather than the whole view) to read the reply with.
   */
  guardErrors(): ReadonlyMap<number, () => Error> {
    return this.guards;
  }

  // ---- internals ---------------------------------------------------------------------

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
  private absent(table: string): readonly string[] {
    const compat = this.reader.compat;
    if (compat === undefined || compat.identical) return [];
    // A table the server lacks: a write to it is a SchemaDriftError for the table.
    if (compat.missingTables.includes(table)) this.drift(table, undefined);
    return absentColumns(compat, this.tx.model.schema, table);
  }

  /** @throws SchemaDriftError for `table.column` (or `table`), at the operation about to be added. */
  private drift(table: string, column: string | undefined): never {
    throw new SchemaDriftError(table, column, this.tx.size, this.reader.compat!.serverVersion);
  }

  private uuidOf(uuid: string): string {
    if (!isUuid(uuid)) throw new TypeError(`not a UUID: ${JSON.stringify(uuid)}`);
    return uuid.toLowerCase();
  }

  /**
   * Allow reads of `table` from the replica.
   * @throws TypeError for a table the model does not have; SchemaDriftError
   *   when the server lacks it; TableNotMonitoredError when the client does
   *   not monitor it.
   */
  private checkRead(table: string): void {
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
  private peek(table: string, uuid: string): Rec | undefined {
    const o = this.overlay.get(table);
    if (o?.has(uuid)) return o.get(uuid) ?? undefined;
    if (this.reader.isMonitored?.(table as TableName<DB>) === false) return undefined;
    return this.reader.get(table as TableName<DB>, uuid) as Rec | undefined;
  }

  /** The view's index `id` of the changed rows of `table`, built on first use. */
  private overlayIndex(
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

  private requireRow(table: string, uuid: string): Rec {
    const row = this.get(table as TableName<DB>, uuid) as Rec | undefined;
    if (row === undefined) throw new TypeError(`${table} has no row ${uuid} (in this transaction)`);
    return row;
  }

  private put(table: string, uuid: string, row: Rec | null): void {
    let o = this.overlay.get(table);
    if (o === undefined) {
      o = new Map();
      this.overlay.set(table, o);
    }
    o.set(uuid, row);
    for (const idx of this.overlayIndexes.get(table)?.values() ?? []) idx.set(uuid, row);
  }

  /** Replace a row and collect what lost its last strong reference. */
  private replace(table: string, uuid: string, before: Rec, after: Rec): void {
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
  private remove(table: string, uuid: string): void {
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

  private collect(candidates: [string, string][]): void {
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

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

import type { InsertOf, RowOf, TableMap, TableName, UpdateOf } from '../ovsdb/schema/model.js';
import { defaultValue } from '../ovsdb/values/datum.js';
import { type Uuid, ZERO_UUID } from '../ovsdb/values/uuid.js';
import { IndexError, type IndexValue, UniqueIndex } from '../rows/indexes.js';
import type { MutationOf } from './mutations.js';
import type { Ref } from './ref.js';
import { ViewOverlay } from './view-overlay.js';
import { applyMutation, copyRow, type Rec, refsIn, setMember } from './view-rows.js';

/**
 * A transaction being built, with read-your-writes: the transaction builder
 * `tx`, the replica `reader`, and the changes made so far (see the module
 * documentation). Create one inside a `transact` callback; the callback may
 * be replayed, so read the replica only through the view.
 *
 * ```ts
 * const db = await openDatabase({ remotes, model: NB });
 * await db.transact((tx) => {
 *   const view = new TransactionView(tx, db);
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
export class TransactionView<DB extends TableMap> extends ViewOverlay<DB> {
  private readonly guards = new Map<number, () => Error>();
  private readonly uniqueIndexes = new Map<string, UniqueIndex>();

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

  private requireRow(table: string, uuid: string): Rec {
    const row = this.get(table as TableName<DB>, uuid) as Rec | undefined;
    if (row === undefined) throw new TypeError(`${table} has no row ${uuid} (in this transaction)`);
    return row;
  }
}

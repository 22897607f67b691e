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
 * @module
 */

import type { InsertOf, RowOf, TableMap, TableName, UpdateOf } from '../ovsdb/schema/model.js';
import type { TableSchema } from '../ovsdb/schema/schema-types.js';
import { defaultValue } from '../ovsdb/values/datum.js';
import { isUuid, type Uuid, ZERO_UUID } from '../ovsdb/values/uuid.js';
import type { TransactionBuilder } from './builder.js';
import type { MutationOf } from './mutations.js';
import type { Ref } from './ref.js';
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
 * (`connectDatabase`) provides them.
 */
export interface TransactionViewReader<DB extends TableMap> {
  /** The row of `table` with UUID `uuid`. */
  get<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined;
  /** Every row of `table`. */
  rows<T extends TableName<DB>>(table: T): Iterable<RowOf<DB, T>>;
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
  private readonly label: string;

  /**
   * @param tx - the transaction builder (the `tx` of `transact(tx => …)`).
   * @param reader - the replica (the database client).
   * @param options - see {@link TransactionViewOptions}.
   */
  constructor(
    readonly tx: TransactionBuilder<DB>,
    readonly reader: TransactionViewReader<DB>,
    options: TransactionViewOptions = {},
  ) {
    this.label = options.label ?? tx.model.schema.name;
  }

  // ---- reads ---------------------------------------------------------------------

  /** The row of `table` with UUID `uuid`, as changed by this transaction so far. */
  get<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined {
    if (typeof uuid !== 'string') return undefined;
    const u = uuid.toLowerCase();
    const o = this.overlay.get(table);
    if (o?.has(u)) return (o.get(u) ?? undefined) as RowOf<DB, T> | undefined;
    return this.reader.get(table, u);
  }

  /** Every row of `table`, as changed by this transaction so far. */
  rows<T extends TableName<DB>>(table: T): RowOf<DB, T>[] {
    const o = this.overlay.get(table);
    const out: RowOf<DB, T>[] = [];
    for (const row of this.reader.rows(table)) {
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
    return this.rows(table).filter((r) => refsIn(col, (r as Rec)[column]).includes(uuid));
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
    const ref = this.tx.insert(table, row);
    const schema = this.schema(table);
    const full: Rec = {};
    for (const name of schema.columnNames) {
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
   * that operation, {@link guardError} gives `error()` for the caller to
   * throw instead of the server's "timed out" (the Northbound DSL's
   * `nb.transact` does so).
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

  /** The error a failed guard at operation `index` stands for, if any. */
  guardError(index: number): Error | undefined {
    return this.guards.get(index)?.();
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

  private uuidOf(uuid: string): string {
    if (!isUuid(uuid)) throw new TypeError(`not a UUID: ${JSON.stringify(uuid)}`);
    return uuid.toLowerCase();
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
    const row = this.get(table as TableName<DB>, uuid) as Rec | undefined;
    if (row === undefined) return;
    this.put(table, uuid, null);
    const tables = this.tx.model.schema.tables;
    for (const [t, column, strong] of refSites(tables).get(table) ?? []) {
      if (strong) continue;
      const col = tables[t]!.columns[column]!;
      for (const r of this.rows(t as TableName<DB>) as Rec[]) {
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
      if (this.get(table as TableName<DB>, uuid) === undefined) continue;
      let referenced = false;
      for (const [t, column, strong] of refSites(tables).get(table) ?? []) {
        if (!strong) continue;
        const col = tables[t]!.columns[column]!;
        if (
          (this.rows(t as TableName<DB>) as Rec[]).some((r) =>
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

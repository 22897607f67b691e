/**
 * {@link NbTxn}: one Northbound transaction being built, with read-your-writes
 * inside it.
 *
 * Every DSL operation (`lsAdd`, `lspAdd`, `aclAdd`, …) takes an `NbTxn`,
 * appends OVSDB operations to its transaction builder (`t.tx`) and returns
 * the refs (UUIDs) of what it created, so that later operations of the same
 * transaction can use them. Lookups by name read the replica *as changed by
 * the operations already added*: after `lsAdd(t, 'sw0')`,
 * `lspAdd(t, 'sw0', 'p1')` finds the new switch; after `lspDel(t, 'p1')`, a
 * port group no longer lists `p1`. The overlay also follows the server's
 * garbage collection (a row of a non-root table that loses its last strong
 * reference disappears) and weak references (references to a deleted row
 * vanish), so what the DSL reads matches what the server will commit.
 *
 * Write through the `NbTxn` methods (`insert`, `update`, `mutate`, `delete`)
 * rather than `t.tx` directly when later lookups of the same transaction
 * must see the change.
 *
 * ```ts
 * const nb = createNb(client);
 * await nb.transact((t) => {
 *   const sw = lsAdd(t, 'sw0');
 *   lspAdd(t, sw, 'p1', { addresses: ['00:00:00:00:00:01 10.0.0.5'] });
 * });
 * ```
 * @module
 */

import type { InsertOf, RowOf, TableName, UpdateOf } from '../ovsdb/schema/model.js';
import type { ColumnSchema, TableSchema } from '../ovsdb/schema/schema-types.js';
import { defaultValue } from '../ovsdb/values/datum.js';
import { isUuid, type Uuid, ZERO_UUID } from '../ovsdb/values/uuid.js';
import type { TransactionBuilder } from '../transactions/builder.js';
import type { MutationOf } from '../transactions/mutations.js';
import type { Ref } from '../transactions/ref.js';
import type { NBTables } from './generated/model.js';

/** A Northbound table name. */
export type NbTable = TableName<NBTables>;
/** A Northbound row of table `T`, as read from the replica. */
export type NbRow<T extends NbTable> = RowOf<NBTables, T>;
/** What may be inserted into table `T`. */
export type NbInsert<T extends NbTable> = InsertOf<NBTables, T>;
/** What may be updated in table `T`. */
export type NbUpdate<T extends NbTable> = UpdateOf<NBTables, T>;

/**
 * The replica reads the DSL needs: the database client (`connectDatabase`)
 * provides them.
 */
export interface NbReader {
  /** The row of `table` with UUID `uuid`. */
  get<T extends NbTable>(table: T, uuid: string): NbRow<T> | undefined;
  /** Every row of `table`. */
  rows<T extends NbTable>(table: T): Iterable<NbRow<T>>;
}

type Rec = Record<string, unknown>;

/** Where the columns of the schema reference a table: [table, column, strong?]. */
type RefSite = readonly [table: string, column: string, strong: boolean];

function setMember(obj: Rec, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function copyRow(row: Readonly<Rec>): Rec {
  const out: Rec = {};
  for (const k of Object.keys(row)) {
    const v = row[k];
    setMember(
      out,
      k,
      Array.isArray(v) ? [...v] : v !== null && typeof v === 'object' ? { ...v } : v,
    );
  }
  return out;
}

function isRefColumn(c: ColumnSchema): boolean {
  return c.type.key.refTable !== undefined || c.type.value?.refTable !== undefined;
}

/** The UUIDs a column value holds (in keys or values, per the column's type). */
function refsIn(column: ColumnSchema, value: unknown, target?: string): string[] {
  const out: string[] = [];
  const keyRef = column.type.key.refTable;
  const valueRef = column.type.value?.refTable;
  const want = (t: string | undefined) => t !== undefined && (target === undefined || t === target);
  if (column.type.kind === 'map') {
    if (value === null || typeof value !== 'object') return out;
    for (const [k, v] of Object.entries(value as Rec)) {
      if (want(keyRef)) out.push(k);
      if (want(valueRef) && typeof v === 'string') out.push(v);
    }
    return out;
  }
  if (!want(keyRef)) return out;
  if (Array.isArray(value)) {
    for (const v of value) if (typeof v === 'string') out.push(v);
  } else if (typeof value === 'string') out.push(value);
  return out;
}

/** `value` with every reference to `uuid` removed. */
function withoutRef(column: ColumnSchema, value: unknown, uuid: string): unknown {
  if (column.type.kind === 'map') {
    const out: Rec = {};
    for (const [k, v] of Object.entries(value as Rec)) {
      if (column.type.key.refTable !== undefined && k === uuid) continue;
      if (column.type.value?.refTable !== undefined && v === uuid) continue;
      setMember(out, k, v);
    }
    return out;
  }
  if (Array.isArray(value)) return value.filter((v) => v !== uuid);
  return value === uuid ? null : value;
}

const refSitesCache = new WeakMap<object, Map<string, RefSite[]>>();

function refSites(tables: Readonly<Record<string, TableSchema>>): Map<string, RefSite[]> {
  let sites = refSitesCache.get(tables);
  if (sites === undefined) {
    sites = new Map();
    for (const t of Object.values(tables)) {
      for (const c of Object.values(t.columns)) {
        if (!isRefColumn(c)) continue;
        for (const base of [c.type.key, c.type.value]) {
          if (base?.refTable === undefined) continue;
          const list = sites.get(base.refTable) ?? [];
          list.push([t.name, c.name, base.refType !== 'weak']);
          sites.set(base.refTable, list);
        }
      }
    }
    refSitesCache.set(tables, sites);
  }
  return sites;
}

/**
 * A Northbound transaction being built: the transaction builder `tx`, the
 * replica `reader`, and the changes made so far (see the module
 * documentation).
 */
export class NbTxn {
  private readonly overlay = new Map<string, Map<string, Rec | null>>();
  private readonly inserted = new Map<string, Set<string>>();
  private readonly guards = new Map<number, () => Error>();

  /**
   * @param tx - the transaction builder (the `tx` of `transact(tx => …)`).
   * @param reader - the replica (the database client).
   */
  constructor(
    readonly tx: TransactionBuilder<NBTables>,
    readonly reader: NbReader,
  ) {}

  // ---- reads ---------------------------------------------------------------------

  /** The row of `table` with UUID `uuid`, as changed by this transaction so far. */
  get<T extends NbTable>(table: T, uuid: string): NbRow<T> | undefined {
    if (typeof uuid !== 'string') return undefined;
    const u = uuid.toLowerCase();
    const o = this.overlay.get(table);
    if (o?.has(u)) return (o.get(u) ?? undefined) as NbRow<T> | undefined;
    return this.reader.get(table, u);
  }

  /** Every row of `table`, as changed by this transaction so far. */
  rows<T extends NbTable>(table: T): NbRow<T>[] {
    const o = this.overlay.get(table);
    const out: NbRow<T>[] = [];
    for (const row of this.reader.rows(table)) {
      const u = (row as { _uuid: string })._uuid;
      if (o?.has(u)) {
        const v = o.get(u);
        if (v) out.push(v as unknown as NbRow<T>);
      } else out.push(row);
    }
    const ins = this.inserted.get(table);
    if (ins !== undefined && o !== undefined) {
      for (const u of ins) {
        const v = o.get(u);
        if (v) out.push(v as unknown as NbRow<T>);
      }
    }
    return out;
  }

  /** The rows of `table` for which `predicate` is true. */
  filter<T extends NbTable>(table: T, predicate: (row: NbRow<T>) => boolean): NbRow<T>[] {
    return this.rows(table).filter(predicate);
  }

  /** A row of `table` for which `predicate` is true. */
  find<T extends NbTable>(table: T, predicate: (row: NbRow<T>) => boolean): NbRow<T> | undefined {
    return this.rows(table).find(predicate);
  }

  /**
   * The rows whose column `column` references `uuid` (e.g. the switches
   * whose `ports` hold a port).
   */
  referrers<T extends NbTable>(table: T, column: string, uuid: string): NbRow<T>[] {
    const schema = this.schema(table);
    const col = schema.columns[column];
    if (col === undefined) return [];
    return this.rows(table).filter((r) =>
      refsIn(col, (r as unknown as Rec)[column]).includes(uuid),
    );
  }

  /** True when this transaction inserted row `uuid` of `table`. */
  isNew(table: NbTable, uuid: string): boolean {
    return this.inserted.get(table)?.has(uuid.toLowerCase()) ?? false;
  }

  // ---- writes --------------------------------------------------------------------

  /**
   * Insert a row (see `tx.insert`); later reads of this transaction see it.
   *
   * ```ts
   * const sw = t.insert('Logical_Switch', { name: 'sw0' });
   * // {"op":"insert","table":"Logical_Switch","row":{"name":"sw0"},"uuid":"<sw>","uuid-name":"row0"}
   * ```
   */
  insert<T extends NbTable>(table: T, row: NbInsert<T>): Ref<T> {
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
   */
  update<T extends NbTable>(table: T, uuid: Uuid<T> | string, row: NbUpdate<T>): void {
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
   * Apply mutations to row `uuid` (see `tx.mutate`).
   *
   * ```ts
   * t.mutate('Logical_Switch', sw, [['ports', 'insert', [port]]]);
   * // {"op":"mutate","table":"Logical_Switch","where":[["_uuid","==",["uuid","<sw>"]]],
   * //  "mutations":[["ports","insert",["set",[["named-uuid","row1"]]]]]}
   * ```
   */
  mutate<T extends NbTable>(
    table: T,
    uuid: Uuid<T> | string,
    mutations: readonly MutationOf<NBTables, T>[],
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
  addToSet<T extends NbTable>(
    table: T,
    uuid: string,
    column: string,
    values: readonly unknown[],
  ): void {
    if (values.length === 0) return;
    this.mutate(table, uuid, [[column, 'insert', values]] as unknown as MutationOf<NBTables, T>[]);
  }

  /**
   * Remove elements from a set column of row `uuid` (one `mutate` …
   * `delete`). Does nothing for an empty list.
   */
  removeFromSet<T extends NbTable>(
    table: T,
    uuid: string,
    column: string,
    values: readonly unknown[],
  ): void {
    if (values.length === 0) return;
    this.mutate(table, uuid, [[column, 'delete', values]] as unknown as MutationOf<NBTables, T>[]);
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
  setMapKeys<T extends NbTable>(
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
    this.mutate(table, uuid, mutations as MutationOf<NBTables, T>[]);
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
   */
  delete<T extends NbTable>(table: T, uuid: Uuid<T> | string): void {
    const u = this.uuidOf(uuid);
    this.requireRow(table, u);
    this.tx.delete(table, u as Uuid<T>);
    this.remove(table, u);
  }

  /**
   * Add a server-side check that no row of `table` has `column` equal to
   * `value` (no row at all, for `undefined`) at this point of the
   * transaction (a `wait` with timeout 0); when
   * it fails, `nb.transact` throws `error()` instead of the server's
   * "timed out".
   *
   * ```ts
   * // {"op":"wait","table":"Logical_Switch","where":[["name","==","sw0"]],"columns":["name"],
   * //  "until":"==","rows":[],"timeout":0}
   * ```
   */
  guardAbsent(table: NbTable, column: string, value: string | undefined, error: () => Error): void {
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

  /** The table's schema. */
  schema(table: string): TableSchema {
    const s = this.tx.model.schema.tables[table];
    if (s === undefined) throw new TypeError(`unknown Northbound table ${table}`);
    return s;
  }

  private uuidOf(uuid: string): string {
    if (!isUuid(uuid)) throw new TypeError(`not a UUID: ${JSON.stringify(uuid)}`);
    return uuid.toLowerCase();
  }

  private requireRow(table: string, uuid: string): Rec {
    const row = this.get(table as NbTable, uuid) as Rec | undefined;
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
    const row = this.get(table as NbTable, uuid) as Rec | undefined;
    if (row === undefined) return;
    this.put(table, uuid, null);
    const tables = this.tx.model.schema.tables;
    for (const [t, column, strong] of refSites(tables).get(table) ?? []) {
      if (strong) continue;
      const col = tables[t]!.columns[column]!;
      for (const r of this.rows(t as NbTable) as unknown as Rec[]) {
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
      if (this.get(table as NbTable, uuid) === undefined) continue;
      let referenced = false;
      for (const [t, column, strong] of refSites(tables).get(table) ?? []) {
        if (!strong) continue;
        const col = tables[t]!.columns[column]!;
        if (
          (this.rows(t as NbTable) as unknown as Rec[]).some((r) =>
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

function applyMutation(
  column: ColumnSchema,
  current: unknown,
  mutator: string,
  value: unknown,
): unknown {
  const t = column.type;
  if (t.kind === 'map') {
    const out: Rec = { ...(current as Rec) };
    if (mutator === 'insert') {
      for (const [k, v] of Object.entries(value as Rec))
        if (!Object.hasOwn(out, k)) setMember(out, k, v);
    } else if (mutator === 'delete') {
      if (Array.isArray(value)) {
        for (const k of value) delete out[String(k)];
      } else {
        for (const [k, v] of Object.entries(value as Rec)) if (out[k] === v) delete out[k];
      }
    }
    return out;
  }
  const list: unknown[] =
    t.kind === 'optional'
      ? current === null
        ? []
        : [current]
      : Array.isArray(current)
        ? [...current]
        : [current];
  let next: unknown[];
  if (mutator === 'insert') {
    next = [...list];
    for (const v of value as unknown[]) if (!next.includes(v)) next.push(v);
  } else if (mutator === 'delete') {
    next = list.filter((v) => !(value as unknown[]).includes(v));
  } else {
    const n = value as number;
    next = list.map((v) => {
      const x = v as number;
      switch (mutator) {
        case '+=':
          return x + n;
        case '-=':
          return x - n;
        case '*=':
          return x * n;
        case '/=':
          return t.key.type === 'integer' ? Math.trunc(x / n) : x / n;
        default:
          return x % n;
      }
    });
  }
  if (t.kind === 'optional') return next[0] ?? null;
  if (t.kind === 'scalar') return next[0];
  return next;
}

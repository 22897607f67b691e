/**
 * Seeds: the rows a test database starts with, written per table as
 * `{ name: row }`, typed by the model. A row refers to another by the name
 * the seed gives it (`ports: ['p1']` names the `Logical_Switch_Port` declared
 * as `p1`), or by UUID.
 *
 * Rows are loaded as one transaction on the server's engine, so the seed
 * meets every rule a client's transaction meets: types, enums and ranges,
 * referential integrity, unique indexes, and garbage collection (a row of a
 * non-root table that no seeded row refers to is an error here, since the
 * server would delete it). Rows wrapped in {@link invalidRow} are loaded
 * directly into the tables instead, unchecked, to test a program's repair
 * path.
 * @module
 */

import type { InsertOf, TableMap, TableName } from '../../ovsdb/schema/model.js';
import type { DatabaseSchema, TableSchema } from '../../ovsdb/schema/schema-types.js';
import { defaultDatum, isDefaultDatum } from '../../ovsdb/values/defaults.js';
import { type Datum, uuidDatum } from '../../ovsdb/values/sorted-datum.js';
import { isUuid, newUuid, type Uuid } from '../../ovsdb/values/uuid.js';
import type { Operation, WireRow } from '../../ovsdb/wire/wire.js';
import { Database, type Row } from '../../server/engine/database.js';
import { columnType, rowToWire } from '../../server/engine/table-store.js';
import { datumToWire } from '../../server/engine/values.js';
import { datumOf, type UuidResolver } from './datums.js';
import { NameBook, nameUuid } from './names.js';

/** The marker of an {@link InvalidRow}. */
export const INVALID_ROW: unique symbol = Symbol('ovnkit.testing.invalidRow');

/** A seed row that may break the schema's constraints: made by {@link invalidRow}. */
export interface InvalidRow<R> {
  readonly [INVALID_ROW]: R;
}

/**
 * Mark a seed row as deliberately invalid, to test how a program repairs a
 * database that breaks its schema's constraints (what an old bug, a manual
 * edit or a crashed writer may leave). The row is stored as given, with
 * defaults for the columns it omits, bypassing every commit check: it may
 * hold a value outside an enum or range, a set of the wrong size, a
 * reference to a row that does not exist (a UUID no row has), the same
 * index value as another row, or be a row of a non-root table that nothing
 * refers to. Its values must still have the column's type (an integer where
 * an integer goes).
 *
 * The server's commit checks look only at what a transaction changes, as
 * ovsdb-server's do, so such a row stays as it is until a transaction
 * touches it, and reads (`select`, monitors, a client's replica) show it as
 * stored. Then:
 * - a row of a non-root table that nothing refers to is deleted at the end
 *   of the first transaction that modifies it (garbage collection);
 * - a row whose index value another row holds too: a transaction that
 *   modifies it fails with `constraint violation` unless it gives the row
 *   a free value (the row holding the value in the index, a valid row or
 *   else the invalid row declared first, can be modified);
 * - a value outside the column's constraints stays until a transaction
 *   writes the column, with a value the constraints accept;
 * - a dangling reference (strong or weak) stays until the column is
 *   written or the row deleted.
 *
 * A valid seed row must not depend on an invalid one to stay alive: a
 * non-root row that only invalid rows refer to is garbage (an error).
 * @example
 * ```ts
 * import { NB } from 'ovnkit/nb';
 * import { invalidRow, seedDatabase } from 'ovnkit/testing';
 *
 * const db = await seedDatabase(NB, {
 *   Logical_Switch: { sw0: { name: 'sw0', ports: ['p1'] } },
 *   Logical_Switch_Port: {
 *     p1: { name: 'p1' },
 *     orphan: invalidRow({ name: 'orphan' }), // on no switch: the server would have collected it
 *   },
 * });
 * await db.close();
 * ```
 */
export function invalidRow<const R extends object>(row: R): InvalidRow<R> {
  return { [INVALID_ROW]: row };
}

function isInvalid(v: unknown): v is InvalidRow<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && INVALID_ROW in v;
}

/** The names a seed declares: table → the union of its row names. */
export type NamesOf<S> = { readonly [T in keyof S]: Extract<keyof S[T], string> };

/** The names declared for table `X` in names `N` (never when none). */
type NamesIn<N, X> = X extends keyof N ? N[X] : never;

/**
 * Value type `V` of a model column where every reference to a table `X`
 * (a `Uuid<'X'>`) may also be the name of a row declared for `X` in `N`.
 */
export type WithNames<V, N> =
  V extends Uuid<infer X>
    ? V | NamesIn<N, X>
    : V extends readonly (infer E)[]
      ? readonly WithNames<E, N>[]
      : V extends object
        ? { readonly [K in keyof V]: WithNames<V[K], N> }
        : V;

/** A seed row of table `T` with names `N`: the insert type, references by name allowed. */
export type SeedRow<DB extends TableMap, T extends TableName<DB>, N> = {
  readonly [C in keyof InsertOf<DB, T>]?: WithNames<InsertOf<DB, T>[C], N>;
};

/** The loose shape of a seed of model `DB`, checked exactly by {@link CheckedSeed}. */
export type SeedShape<DB extends TableMap> = {
  readonly [T in TableName<DB>]?: { readonly [name: string]: object };
};

/**
 * Value type `V` as an invalid row may hold it: the column's type, but any
 * string where it takes strings (an enum's or a reference's) and any number.
 */
export type LooseValue<V> = V extends string
  ? string
  : V extends number
    ? number | bigint
    : V extends readonly (infer E)[]
      ? readonly LooseValue<E>[]
      : V extends object
        ? { readonly [K in keyof V]: LooseValue<V[K]> }
        : V;

/** An invalid row `R` of table `T` checked column by column: known columns, values of their types. */
type CheckInvalidRow<DB extends TableMap, T extends TableName<DB>, R> = {
  readonly [C in keyof R]: C extends keyof InsertOf<DB, T> ? LooseValue<InsertOf<DB, T>[C]> : never;
};

/** Row `R` of table `T` checked column by column: an unknown column is `never`. */
type CheckRow<DB extends TableMap, T extends TableName<DB>, R, N> = {
  readonly [C in keyof R]: C extends keyof InsertOf<DB, T>
    ? WithNames<InsertOf<DB, T>[C], N>
    : never;
};

/** The columns an insert into `T` must give (those whose default its constraints refuse). */
type RequiredColumns<DB extends TableMap, T extends TableName<DB>, N> = {
  readonly [C in keyof InsertOf<DB, T> as Record<never, never> extends Pick<InsertOf<DB, T>, C>
    ? never
    : C]: WithNames<InsertOf<DB, T>[C], N>;
};

/**
 * Seed `S` of model `DB` as it must be: every table of the model, every
 * column of its table, every value of its column's type, every reference a
 * UUID or a name declared for the referenced table, and the columns an
 * insert must give (unless the row is an {@link InvalidRow}). Where `S` differs, the
 * compiler reports it.
 */
export type CheckedSeed<DB extends TableMap, S> = {
  readonly [T in keyof S]: T extends TableName<DB>
    ? {
        readonly [K in keyof S[T]]: S[T][K] extends InvalidRow<infer R>
          ? InvalidRow<CheckInvalidRow<DB, T, R>>
          : CheckRow<DB, T, S[T][K], NamesOf<S>> & RequiredColumns<DB, T, NamesOf<S>>;
      }
    : never;
};

/** A seed as the loader reads it (untyped). */
export type SeedInput = Readonly<Record<string, Readonly<Record<string, object>>>>;

/** How seeded rows get their UUIDs. */
export type SeedUuids = 'random' | 'deterministic';

function tableOf(db: Database, table: string): TableSchema {
  const t = Object.hasOwn(db.schema.tables, table) ? db.schema.tables[table] : undefined;
  if (t === undefined) throw new Error(`seed: ${db.schema.name} has no table ${table}`);
  return t;
}

/** Strong reference targets of a column's key or value type. */
function strongTarget(
  table: TableSchema,
  column: string,
  part: 'key' | 'value',
): string | undefined {
  const base = table.columns[column]?.type[part];
  if (base === undefined || base.type !== 'uuid' || base.refType === 'weak') return undefined;
  return base.refTable;
}

function describeError(r: unknown): string {
  const e = r as { error?: unknown; details?: unknown };
  return typeof e.details === 'string' && e.details !== ''
    ? `${String(e.error)}: ${e.details}`
    : String(e.error);
}

/** The datum `d` without the atoms (keys, or map entries) that are in `drop`. */
function without(d: Datum, drop: ReadonlySet<string>): Datum {
  if (d.values === undefined) {
    const keys = d.keys.filter((k) => !drop.has(k as string));
    return keys.length === d.keys.length ? d : { keys };
  }
  const keys: Datum['keys'][number][] = [];
  const values: Datum['keys'][number][] = [];
  d.keys.forEach((k, i) => {
    const v = (d.values as Datum['keys'])[i];
    if (drop.has(k as string) || drop.has(v as string)) return;
    keys.push(k);
    values.push(v as Datum['keys'][number]);
  });
  return keys.length === d.keys.length ? d : { keys, values };
}

/** Count the strong references `row` holds in `columns` to rows of `db` (other than itself; only to `only`, when given). */
function countRefs(
  db: Database,
  table: TableSchema,
  row: Row,
  columns: Iterable<string>,
  only?: ReadonlySet<string>,
): void {
  for (const column of columns) {
    const d = row.fields[column] as Datum;
    const parts: [string | undefined, readonly unknown[]][] = [
      [strongTarget(table, column, 'key'), d.keys],
      [strongTarget(table, column, 'value'), d.values ?? []],
    ];
    for (const [target, atoms] of parts) {
      if (target === undefined) continue;
      const targetStore = db.tables.get(target);
      for (const a of atoms) {
        const uuid = a as string;
        if (uuid === row.uuid || targetStore?.rows.has(uuid) !== true) continue;
        if (only !== undefined && !only.has(uuid)) continue;
        targetStore.refCounts.set(uuid, (targetStore.refCounts.get(uuid) ?? 0) + 1);
      }
    }
  }
}

/** Put `row` into its table's unique indexes where its values are free. */
function indexRow(db: Database, table: TableSchema, row: Row): void {
  const store = db.tables.get(table.name);
  if (store === undefined) return;
  for (let i = 0; i < table.indexes.length; i++) {
    const key = store.indexKey(i, row.fields);
    const index = store.indexes[i];
    if (index !== undefined && !index.has(key)) index.set(key, row.uuid);
  }
}

/**
 * Load `seed` into `db` (a fresh engine database): valid rows in one
 * transaction, invalid ones directly. Returns the names and the UUIDs they
 * got.
 *
 * A valid row's references to invalid rows are left out of the
 * transaction (which would otherwise check the invalid rows it touches)
 * and stored once both are in place.
 * @throws Error naming the table, row name and column when a row has an
 *   unknown table or column, a value of the wrong type, names a row the
 *   seed does not declare, breaks a constraint (without {@link invalidRow}),
 *   or would be garbage-collected.
 */
export function loadSeed(db: Database, seed: SeedInput, uuids: SeedUuids = 'random'): NameBook {
  const book = new NameBook();
  const tables = Object.keys(seed);
  const invalidUuids = new Set<string>();
  for (const table of tables) {
    tableOf(db, table);
    const rows = seed[table];
    if (rows === null || typeof rows !== 'object' || Array.isArray(rows)) {
      throw new TypeError(`seed: table ${table} must map row names to rows`);
    }
    for (const [name, row] of Object.entries(rows)) {
      const uuid = uuids === 'deterministic' ? nameUuid(db.schema.name, table, name) : newUuid();
      book.add(table, name, uuid);
      if (isInvalid(row)) invalidUuids.add(uuid);
    }
  }
  const resolve: UuidResolver = (v, refTable, where) => {
    const named = refTable === undefined ? undefined : book.uuid(refTable, v);
    if (named !== undefined) return named;
    if (isUuid(v)) return v.toLowerCase();
    throw new TypeError(
      refTable === undefined
        ? `${where}: "${v}" is not a UUID`
        : `${where}: "${v}" is neither a UUID nor the name of a ${refTable} row of the seed`,
    );
  };

  const invalid: { table: TableSchema; row: Row }[] = [];
  /** Columns of valid rows whose references to invalid rows wait: table, uuid, column → datum. */
  const deferred: { table: TableSchema; uuid: string; column: string; datum: Datum }[] = [];
  const ops: unknown[] = [];
  const opRow: { table: string; name: string }[] = [];
  for (const table of tables) {
    const schema = tableOf(db, table);
    for (const [name, value] of Object.entries(seed[table] as Record<string, object>)) {
      const uuid = book.uuid(table, name) as string;
      const where = `seed: ${table} "${name}"`;
      const given = Object.entries(isInvalid(value) ? value[INVALID_ROW] : value);
      for (const [c] of given) {
        if (c === '_uuid' || c === '_version')
          throw new TypeError(`${where}: ${c} cannot be seeded`);
      }
      if (isInvalid(value)) {
        const fields: Record<string, Datum> = {};
        for (const c of Object.keys(schema.columns))
          fields[c] = defaultDatum(columnType(schema, c));
        for (const [c, v] of given) {
          if (v !== undefined) fields[c] = datumOf(schema, c, v, resolve, where);
        }
        fields._uuid = uuidDatum(uuid);
        fields._version = uuidDatum(newUuid());
        invalid.push({ table: schema, row: { uuid, fields } });
        continue;
      }
      const wire: Record<string, unknown> = {};
      for (const [c, v] of given) {
        if (v === undefined) continue;
        const datum = datumOf(schema, c, v, resolve, where);
        const sent = invalidUuids.size === 0 ? datum : without(datum, invalidUuids);
        if (sent !== datum) deferred.push({ table: schema, uuid, column: c, datum });
        wire[c] = datumToWire(sent, columnType(schema, c));
      }
      ops.push({ op: 'insert', table, uuid, row: wire });
      opRow.push({ table, name });
    }
  }

  if (ops.length > 0) {
    const out = db.transact(ops);
    if (out.blocked === true) throw new Error('seed: the seed transaction cannot wait');
    const failed = out.results.findIndex(
      (r) => typeof r === 'object' && r !== null && 'error' in r,
    );
    if (failed >= 0) {
      const at = opRow[failed];
      const reason = describeError(out.results[failed]);
      throw new Error(
        at === undefined
          ? `seed: the rows cannot be committed: ${reason} (wrap a row in invalidRow() to seed it anyway)`
          : `seed: ${at.table} "${at.name}": ${reason} (wrap the row in invalidRow() to seed it anyway)`,
      );
    }
    for (const { table, name } of opRow) {
      const uuid = book.uuid(table, name) as string;
      if (db.tables.get(table)?.rows.has(uuid) === true) continue;
      throw new Error(
        `seed: ${table} "${name}" would be garbage-collected: ${table} is not a root table and no valid seeded row refers to it (the server deletes such rows at commit); refer to it from another row, or wrap it in invalidRow() to keep it anyway`,
      );
    }
  }

  // Invalid rows, stored as given: then their index values and references.
  for (const { table, row } of invalid) db.tables.get(table.name)?.rows.set(row.uuid, row);
  for (const { table, row } of invalid) {
    indexRow(db, table, row);
    countRefs(db, table, row, Object.keys(table.columns));
  }
  // The references of valid rows to invalid ones.
  for (const { table, uuid, column, datum } of deferred) {
    const store = db.tables.get(table.name);
    const old = store?.rows.get(uuid);
    if (store === undefined || old === undefined) continue;
    const row: Row = { uuid, fields: { ...old.fields, [column]: datum } };
    for (let i = 0; i < table.indexes.length; i++) {
      const index = store.indexes[i];
      const oldKey = store.indexKey(i, old.fields);
      if (index?.get(oldKey) === uuid) index.delete(oldKey);
    }
    store.rows.set(uuid, row);
    indexRow(db, table, row);
    countRefs(db, table, row, [column], invalidUuids);
  }
  return book;
}

/**
 * `seed` as one transaction for a server that is not in this process (a
 * real `ovsdb-server`): checked and loaded as {@link loadSeed} does, then
 * written as inserts of every row with the UUID it got.
 * @throws Error as {@link loadSeed} does, and for an {@link invalidRow}
 *   (another server checks what it is sent: only the in-memory server can
 *   hold invalid rows).
 */
export function seedTransaction(
  schema: DatabaseSchema,
  seed: SeedInput,
  uuids: SeedUuids = 'random',
): { readonly ops: Operation[]; readonly book: NameBook } {
  for (const [table, rows] of Object.entries(seed)) {
    for (const [name, row] of Object.entries(rows ?? {})) {
      if (isInvalid(row)) {
        throw new Error(
          `seed: ${table} "${name}" is an invalidRow, which only the in-memory server can hold`,
        );
      }
    }
  }
  const db = new Database(schema);
  const book = loadSeed(db, seed, uuids);
  const ops: Operation[] = [];
  for (const [name, store] of db.tables) {
    const table = store.schema;
    for (const row of store.rows.values()) {
      const columns = table.columnNames.filter(
        (c) => !isDefaultDatum(row.fields[c] as Datum, columnType(table, c)),
      );
      ops.push({
        op: 'insert',
        table: name,
        uuid: row.uuid,
        row: rowToWire(table, row, columns) as WireRow,
      });
    }
  }
  return { ops, book };
}

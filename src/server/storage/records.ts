/**
 * The records of a standalone database file as ovsdb-server writes and reads
 * them (`ovsdb/file.c`): one JSON object per committed transaction,
 *
 * ```json
 * {"_date":1714557600000,"_comment":"…","_is_diff":true,
 *  "Logical_Switch":{"<uuid>":{"name":"sw0"},"<uuid>":null}}
 * ```
 *
 * with, per table, the rows the transaction changed by UUID: `null` for a
 * delete, every persistent column that does not hold its default for an
 * insert, and the changed columns only for a modification. With `_is_diff`
 * (ovsdb-server's default since 2.15), a changed set or map column holds its
 * diff (the `update2` diff: the elements added or removed, a map's changed
 * pairs with their new values); without it, its new value. `_uuid`,
 * `_version` and ephemeral columns are never written. `_date` (milliseconds
 * since the epoch) and `_comment` (the transaction's `comment` operations,
 * when any) are for administrators.
 *
 * Replaying a record runs the same commit as a transaction (reference
 * counts, garbage collection, weak references, unique indexes, `maxRows`),
 * as `ovsdb_txn_replay_commit` does, so a file that ovsdb-server would refuse
 * half-way is refused here too.
 * @module
 */

import type {
  Atom,
  AtomicType,
  DatabaseSchema,
  TableSchema,
} from '../../ovsdb/schema/schema-types.js';
import { defaultDatum, isDefaultDatum } from '../../ovsdb/values/defaults.js';
import {
  addedRemoved,
  applyDatumDiff,
  type Datum,
  type DatumType,
  datumDiff,
  uuidDatum,
} from '../../ovsdb/values/sorted-datum.js';
import { isUuid, newUuid } from '../../ovsdb/values/uuid.js';
import { isPlainObject, setOwn } from '../../ovsdb/wire/json.js';
import {
  joinPieces,
  stringifyJson,
  type TextInPieces,
  TextPieces,
} from '../../ovsdb/wire/json-stringify.js';
import { commit, precommit } from '../engine/commit.js';
import { Database } from '../engine/database.js';
import type { TxnChanges } from '../engine/executor.js';
import { OpError } from '../engine/op-error.js';
import { shashOrder } from '../engine/ovs-hash.js';
import { Txn } from '../engine/staging.js';
import { columnType, type Row, type TableStore } from '../engine/table-store.js';
import { atomToWire, datumToWire, memberPrefix, parseDatum } from '../engine/values.js';

/** The members of a transaction record that are not tables. */
const ANNOTATIONS = new Set(['_date', '_comment', '_is_diff']);

const persistentCache = new WeakMap<TableStore, readonly string[]>();
const defaultsCache = new WeakMap<TableSchema, Readonly<Record<string, Datum>>>();

/**
 * Every column of `table` at its default, built once per table (copy it with
 * a spread). Built by `Object.fromEntries`, so that the object keeps fast
 * properties: one built by keyed stores turns into a dictionary past a dozen
 * columns, and spreading a dictionary costs some 20 times as much (it is
 * spread once per inserted row when a file is read).
 */
function defaultFields(table: TableSchema): Readonly<Record<string, Datum>> {
  let d = defaultsCache.get(table);
  if (d === undefined) {
    d = Object.fromEntries(
      Object.keys(table.columns).map((c) => [c, defaultDatum(columnType(table, c))]),
    ) as Record<string, Datum>;
    defaultsCache.set(table, d);
  }
  return d;
}

/** The columns a file holds for `store`'s table, in ovsdb-server's order: all but `_uuid`, `_version` and ephemeral ones. */
function persistentColumns(store: TableStore): readonly string[] {
  let cols = persistentCache.get(store);
  if (cols === undefined) {
    const table = store.schema;
    cols = store.columnOrder.filter(
      (c) => c !== '_uuid' && c !== '_version' && table.columns[c]?.ephemeral !== true,
    );
    persistentCache.set(store, cols);
  }
  return cols;
}

function isPersistent(table: TableSchema, column: string): boolean {
  return column !== '_uuid' && column !== '_version' && table.columns[column]?.ephemeral !== true;
}

/** A new row's JSON in a record: every persistent column that does not hold its default. */
function insertJson(store: TableStore, row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const table = store.schema;
  for (const c of persistentColumns(store)) {
    const type = columnType(table, c);
    const d = row.fields[c] as Datum;
    if (!isDefaultDatum(d, type)) setOwn(out, c, datumToWire(d, type));
  }
  return out;
}

function annotate(
  out: Record<string, unknown>,
  comment: string | undefined,
  columnDiff: boolean,
): Record<string, unknown> {
  if (comment !== undefined && comment !== '') out._comment = comment;
  if (columnDiff) out._is_diff = true;
  return out;
}

/**
 * The diff a record holds for a changed column, `datumDiff(old, next, type)`
 * (the `update2` diff): made from {@link addedRemoved}, which knows the
 * change of a datum made by a mutation without comparing the two, and
 * otherwise compares shared elements by identity first; then the added and
 * removed elements are merged by `datumDiff` itself (a few elements, not the
 * two whole sets).
 */
export function recordDiff(old: Datum, next: Datum, type: DatumType): Datum {
  if (!(type.max > 1)) return next;
  const { added, removed } = addedRemoved(old, next);
  // A map key in both (its value changed) keeps the new value, as datumDiff's own merge does.
  return datumDiff(removed, added, type);
}

/**
 * What a record holds for one changed row: `null` for a delete, the row's
 * columns for an insert, the changed persistent columns for a modification;
 * undefined when a modification changed none of those (nothing is written).
 */
function rowRecord(
  store: TableStore,
  ch: TxnChanges['rows'][number],
  columnDiff: boolean,
): Record<string, unknown> | null | undefined {
  if (ch.new === null) return null;
  if (ch.old === null) return insertJson(store, ch.new);
  const table = store.schema;
  const row: Record<string, unknown> = {};
  let columns = 0;
  for (const c of ch.changed) {
    if (!isPersistent(table, c)) continue;
    const type = columnType(table, c);
    const value = ch.new.fields[c] as Datum;
    const d = columnDiff ? recordDiff(ch.old.fields[c] as Datum, value, type) : value;
    setOwn(row, c, datumToWire(d, type));
    columns++;
  }
  return columns === 0 ? undefined : row;
}

/**
 * The record of one committed transaction, or undefined when it changed no
 * persistent column (ovsdb-server then writes nothing either).
 * `columnDiff` false writes changed columns whole, as ovsdb-server's
 * `--disable-file-column-diff` does.
 */
export function txnRecord(
  db: Database,
  changes: TxnChanges,
  columnDiff: boolean,
  now = Date.now(),
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = { _date: now };
  let any = false;
  for (const ch of changes.rows) {
    const store = db.tables.get(ch.table);
    if (store === undefined) continue;
    const row = rowRecord(store, ch, columnDiff);
    if (row === undefined) continue;
    let t = Object.hasOwn(out, ch.table) ? (out[ch.table] as Record<string, unknown>) : undefined;
    if (t === undefined) {
      t = {};
      setOwn(out, ch.table, t);
    }
    setOwn(t, ch.uuid, row);
    any = true;
  }
  return any ? annotate(out, changes.comment, columnDiff) : undefined;
}

/**
 * A string without a character JSON.stringify escapes (or a surrogate, which
 * it may): other strings are left to it. Anchored and negated, so that the
 * whole string is matched in one pass of the character class (a search for
 * one such character restarts the match at every position, and costs about
 * twice as much per character).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is looked for
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** `JSON.stringify(s)`: a string without anything to escape is only quoted, which costs a scan instead of a copy per character. */
function stringText(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s);
}

function atomText(atom: Atom, type: AtomicType): string {
  if (typeof atom === 'string') {
    return type === 'uuid' ? `["uuid",${stringText(atom)}]` : stringText(atom);
  }
  return stringifyJson(atomToWire(atom, type));
}

/** The JSON text of `d` (`stringifyJson(datumToWire(d, type))`) into `out`, an element at a time. */
function writeDatum(d: Datum, type: DatumType, out: TextPieces): void {
  const kt = type.key.type;
  if (type.value !== undefined) {
    const vt = type.value.type;
    const vals = d.values ?? [];
    out.add('["map",[');
    for (let i = 0; i < d.keys.length; i++) {
      out.add(
        `${i > 0 ? ',' : ''}[${atomText(d.keys[i] as Atom, kt)},${atomText(vals[i] as Atom, vt)}]`,
      );
    }
    out.add(']]');
    return;
  }
  if (d.keys.length === 1) {
    out.add(atomText(d.keys[0] as Atom, kt));
    return;
  }
  out.add('["set",[');
  for (let i = 0; i < d.keys.length; i++) {
    const a = atomText(d.keys[i] as Atom, kt);
    out.add(i > 0 ? `,${a}` : a);
  }
  out.add(']]');
}

/** `stringifyJson(datumToWire(d, type))`, written directly. */
export function datumJsonText(d: Datum, type: DatumType): string {
  const out = new TextPieces();
  writeDatum(d, type, out);
  return joinPieces(out.finish());
}

/** Whether {@link rowRecord} writes anything for `ch`: a modification of no persistent column writes nothing. */
function hasRowRecord(table: TableSchema, ch: TxnChanges['rows'][number]): boolean {
  if (ch.new === null || ch.old === null) return true;
  for (const c of ch.changed) if (isPersistent(table, c)) return true;
  return false;
}

/** The JSON text of {@link rowRecord} (`stringifyJson` of it) into `out`, for a change that has one. */
function writeRowRecord(
  store: TableStore,
  ch: TxnChanges['rows'][number],
  columnDiff: boolean,
  out: TextPieces,
): void {
  if (ch.new === null) {
    out.add('null');
    return;
  }
  const table = store.schema;
  out.add('{');
  let columns = 0;
  if (ch.old === null) {
    const row = ch.new;
    for (const c of persistentColumns(store)) {
      const type = columnType(table, c);
      const d = row.fields[c] as Datum;
      if (isDefaultDatum(d, type)) continue;
      out.add(columns === 0 ? memberPrefix(c) : `,${memberPrefix(c)}`);
      writeDatum(d, type, out);
      columns++;
    }
  } else {
    for (const c of ch.changed) {
      if (!isPersistent(table, c)) continue;
      const type = columnType(table, c);
      const value = ch.new.fields[c] as Datum;
      const d = columnDiff ? recordDiff(ch.old.fields[c] as Datum, value, type) : value;
      out.add(columns === 0 ? memberPrefix(c) : `,${memberPrefix(c)}`);
      writeDatum(d, type, out);
      columns++;
    }
  }
  out.add('}');
}

/**
 * The JSON text of {@link txnRecord} (the same text `stringifyJson` makes
 * of it), built without the record object: each row is written on its own
 * and the text around them here, in pieces when it is longer than one
 * string can be. An object keyed by row UUIDs would get a new hidden class
 * for every UUID it ever held, which is most of what the object costs.
 */
export function txnRecordText(
  db: Database,
  changes: TxnChanges,
  columnDiff: boolean,
  now = Date.now(),
): TextInPieces | undefined {
  let tables: Map<string, { store: TableStore; rows: TxnChanges['rows'][number][] }> | undefined;
  for (const ch of changes.rows) {
    const store = db.tables.get(ch.table);
    if (store === undefined || !hasRowRecord(store.schema, ch)) continue;
    tables ??= new Map();
    let t = tables.get(ch.table);
    if (t === undefined) {
      t = { store, rows: [] };
      tables.set(ch.table, t);
    }
    t.rows.push(ch);
  }
  if (tables === undefined) return undefined;
  const out = new TextPieces();
  out.add(`{"_date":${stringifyJson(now)}`);
  for (const [name, { store, rows }] of tables) {
    out.add(`,${JSON.stringify(name)}:{`);
    for (let i = 0; i < rows.length; i++) {
      const ch = rows[i] as TxnChanges['rows'][number];
      out.add(i === 0 ? `${JSON.stringify(ch.uuid)}:` : `,${JSON.stringify(ch.uuid)}:`);
      writeRowRecord(store, ch, columnDiff, out);
    }
    out.add('}');
  }
  const comment = changes.comment;
  if (comment !== undefined && comment !== '') out.add(`,"_comment":${JSON.stringify(comment)}`);
  out.add(columnDiff ? ',"_is_diff":true}' : '}');
  return out.finish();
}

/** The whole contents of `db` as one record of inserts (`ovsdb_to_txn_json`), as compaction writes it. */
export function snapshotRecord(
  db: Database,
  comment: string,
  columnDiff: boolean,
  now = Date.now(),
): Record<string, unknown> {
  const out: Record<string, unknown> = { _date: now };
  for (const [name, store] of db.tables) {
    if (store.rows.size === 0) continue;
    const t: Record<string, unknown> = {};
    for (const row of store.rows.values()) setOwn(t, row.uuid, insertJson(store, row));
    setOwn(out, name, t);
  }
  return annotate(out, comment, columnDiff);
}

/**
 * Apply a column diff of a record to `old` (`ovsdb_datum_apply_diff_in_place`):
 * a key of the diff that `old` lacks is added; one it has is removed, or for
 * a map whose value differs, updated ({@link applyDatumDiff}: one pass over
 * `old`, and the elements added and removed are known to the commit without
 * comparing the two sets). The result must fit the column's size bounds.
 */
function applyDiff(old: Datum, diff: Datum, type: DatumType): Datum {
  if (!(type.max > 1)) return diff;
  const next = applyDatumDiff(old, diff, type.value !== undefined);
  const length = next.keys.length;
  if (length < type.min || length > type.max) {
    throw new Error(
      `the diff leaves ${length} elements, outside the ${type.min} to ${type.max === Number.POSITIVE_INFINITY ? 'unlimited' : type.max} the column allows`,
    );
  }
  return next;
}

function opErrorText(e: unknown): string {
  if (e instanceof OpError) return e.details === undefined ? e.error : `${e.error}: ${e.details}`;
  return e instanceof Error ? e.message : String(e);
}

/** Fill `fields` from a record's row JSON; `isDiff` for a modification written as diffs. */
function readColumns(
  table: TableSchema,
  json: Record<string, unknown>,
  fields: Record<string, Datum>,
  isDiff: boolean,
  where: string,
): void {
  for (const column of Object.keys(json)) {
    if (column === '_uuid' || column === '_version') continue;
    if (!Object.hasOwn(table.columns, column)) {
      throw new Error(`${where}: no column ${column} in table ${table.name}`);
    }
    const type = columnType(table, column);
    try {
      if (isDiff) {
        const relaxed: DatumType = { key: type.key, value: type.value, min: 0, max: Infinity };
        const diff = parseDatum(relaxed, json[column], undefined);
        setOwn(fields, column, applyDiff(fields[column] as Datum, diff, type));
      } else {
        setOwn(fields, column, parseDatum(type, json[column], undefined));
      }
    } catch (e) {
      throw new Error(`${where}, column ${column}: ${opErrorText(e)}`);
    }
  }
}

/**
 * Replay one transaction record on `db`, committing it as a transaction.
 * Returns what the commit changed (null when nothing).
 * @throws Error naming the table, row and column when the record does not
 *   fit the schema or the commit fails (a dangling reference, a duplicate
 *   index value, …); `db` is then unchanged.
 */
export function applyTxnRecord(db: Database, json: Record<string, unknown>): TxnChanges | null {
  const isDiff = json._is_diff === true;
  const txn = new Txn(db);
  for (const name of Object.keys(json)) {
    const value = json[name];
    const store = db.tables.get(name);
    if (store === undefined) {
      if (name === '_date' && (Number.isInteger(value) || typeof value === 'bigint')) continue;
      if (name === '_is_diff' && typeof value === 'boolean') continue;
      if (name === '_comment') continue;
      throw new Error(
        ANNOTATIONS.has(name) ? `invalid ${name} member` : `no table named ${name} in the schema`,
      );
    }
    if (!isPlainObject(value)) throw new Error(`table ${name}: expected a JSON object`);
    const table = store.schema;
    for (const uuidText of Object.keys(value)) {
      if (!isUuid(uuidText)) throw new Error(`table ${name}: "${uuidText}" is not a valid UUID`);
      const uuid = uuidText.toLowerCase();
      const where = `table ${name}, row ${uuid}`;
      const rowJson = value[uuidText];
      const current = txn.getRow(name, uuid);
      if (rowJson === null) {
        if (current === undefined) {
          throw new Error(`${where}: the transaction deletes a row that does not exist`);
        }
        txn.delete(name, uuid);
        continue;
      }
      if (!isPlainObject(rowJson)) throw new Error(`${where}: a row must be a JSON object`);
      if (current !== undefined) {
        const fields = { ...current.fields } as Record<string, Datum>;
        readColumns(table, rowJson, fields, isDiff, where);
        txn.modify(name, uuid, fields);
      } else {
        const fields = { ...defaultFields(table) } as Record<string, Datum>;
        readColumns(table, rowJson, fields, false, where);
        fields._uuid = uuidDatum(uuid);
        fields._version = uuidDatum(newUuid());
        txn.insert(name, { uuid, fields });
      }
    }
  }
  try {
    precommit(txn);
  } catch (e) {
    throw new Error(`the transaction cannot be committed: ${opErrorText(e)}`);
  }
  const comment = typeof json._comment === 'string' ? json._comment : undefined;
  return commit(txn, comment);
}

/**
 * The contents of `src` in a new database of `schema`, as `ovsdb-tool
 * convert` makes it (`ovsdb_convert`): tables and columns that `schema`
 * lacks are dropped, new columns take their defaults, every value is
 * checked against its new type, and the result is committed (so references
 * and indexes are checked again).
 * @throws Error naming the table, row and column of a value that does not fit.
 */
export function convertDatabase(src: Database, schema: DatabaseSchema): Database {
  const dst = new Database(schema);
  const txn = new Txn(dst);
  for (const [name, store] of src.tables) {
    const dstStore = dst.tables.get(name);
    if (dstStore === undefined) continue;
    const from = store.schema;
    const to = dstStore.schema;
    for (const row of store.rows.values()) {
      const fields = { ...defaultFields(to) } as Record<string, Datum>;
      for (const c of Object.keys(from.columns)) {
        if (c === '_uuid' || c === '_version' || !Object.hasOwn(to.columns, c)) continue;
        try {
          const wire = datumToWire(row.fields[c] as Datum, columnType(from, c));
          setOwn(fields, c, parseDatum(columnType(to, c), wire, undefined));
        } catch (e) {
          throw new Error(`table ${name}, row ${row.uuid}, column ${c}: ${opErrorText(e)}`);
        }
      }
      fields._uuid = uuidDatum(row.uuid);
      fields._version = uuidDatum(newUuid());
      txn.insert(name, { uuid: row.uuid, fields });
    }
  }
  try {
    precommit(txn);
  } catch (e) {
    throw new Error(`the converted data cannot be committed: ${opErrorText(e)}`);
  }
  commit(txn, undefined);
  return dst;
}

/** JSON as ovsdb-server writes what it parsed: each object's members in its hash order. */
export function ovsReserialized(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(ovsReserialized);
  if (json === null || typeof json !== 'object') return json;
  const obj = json as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of shashOrder(Object.keys(obj))) setOwn(out, k, ovsReserialized(obj[k]));
  return out;
}

/**
 * The error ovsdb-server replies to a `convert` whose data does not fit the
 * new schema: the error the value or the commit met ({@link convertDatabase}
 * names it after where it was met).
 */
export function conversionError(e: Error): OpError {
  const m =
    /^(?:table [^,]+, row [^,]+, column [^:]+|the converted data cannot be committed): ([^:]+)(?:: ([\s\S]*))?$/.exec(
      e.message,
    );
  if (m === null) return new OpError('constraint violation', e.message);
  return new OpError(m[1] as string, m[2]);
}

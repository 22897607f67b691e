/**
 * Execution of one `transact` request (RFC 7047 §4.1.3, §5.2) with ovsdb-server
 * 3.1's semantics, result shapes and error wording.
 *
 * ## Operations
 * `insert` (with `uuid-name` and the OVS `uuid` extension), `select` (with the
 * OVS `sort` extension; rows are distinct over the selected columns unless
 * `_uuid` is among them), `update`, `mutate`, `delete`, `wait`, `commit`,
 * `abort`, `comment` and `assert`. A named UUID may be used before the
 * `insert` that defines it (forward reference); a name never inserted stands
 * for a fresh UUID that no row has.
 *
 * ## Results
 * One entry per operation: `{"uuid": ["uuid", …]}`, `{"rows": […]}`,
 * `{"count": n}` or `{}`. The first failing operation's entry is its error and
 * every later entry is `null`. When every operation succeeds but the commit
 * fails (referential integrity, `maxRows`, weak-reference constraints, unique
 * indexes), the commit's error is appended as an extra entry. On any error the
 * database is unchanged.
 *
 * ## Commit
 * In ovsdb-server's order: drop rows that did not really change; count strong
 * references and reject dangling ones or the deletion of a referenced row;
 * delete unreferenced rows of non-root tables (recursively); check `maxRows`;
 * remove weak references to deleted rows and newly added weak references to
 * rows that do not exist (rejecting a column left smaller than its `min`);
 * check unique indexes; give every changed row a new `_version`.
 *
 * Weak references follow ovsdb-server's row-by-row pass exactly, including its
 * quirk: a row changed by the transaction in a table touched before the table
 * of a row it weakly references keeps the reference when that row is deleted
 * (the reference is left dangling). Within one table ovsdb-server's order is
 * its hash order of the random row UUIDs, so there the outcome cannot be
 * predicted; the engine uses the order in which the transaction touched rows.
 *
 * ## `wait` and blocking
 * A `wait` whose condition does not hold fails with "timed out" when its
 * `timeout` has elapsed (`timeout: 0` fails at once). Otherwise ovsdb-server
 * keeps the request pending and re-runs it after later commits; the engine
 * returns `{ blocked: true, timeoutMs }` instead and changes nothing, so that
 * the network layer can re-run the request (passing `elapsedMs`) after each
 * commit and when `timeoutMs` has passed. `timeoutMs` is the smallest `timeout`
 * among the request's `wait` operations (`Infinity` when none has one).
 *
 * Databases whose name starts with `_` (such as `_Server`) are read-only:
 * writing operations fail with "not allowed".
 *
 * ## Known differences from ovsdb-server
 * - Integers are JS numbers: values beyond ±(2^53−1) are rejected with a
 *   "syntax error", and arithmetic results beyond that range are a "range
 *   error" (the server's limit is the 64-bit range).
 * - JSON `1.0` cannot be told from `1` once parsed, so `1.0` is accepted where
 *   an integer is expected.
 * @module
 */

import type { Atom, BaseType, TableSchema } from '../../ovsdb/schema/schema-types.js';
import { isUuid, newUuid } from '../../ovsdb/values/uuid.js';
import { type Condition, evaluateCondition, parseCondition } from './conditions.js';
import type { Database, Row, TableStore } from './database.js';
import { columnType, rowToWire } from './database.js';
import { applyMutations, parseMutations } from './mutations.js';
import { OpError, type OpErrorJson, syntaxError } from './op-error.js';
import {
  OP_ARRAY,
  OP_BOOLEAN,
  OP_ID,
  OP_INTEGER,
  OP_OBJECT,
  OP_OPTIONAL,
  OP_STRING,
  OpParser,
} from './op-parser.js';
import { shashOrder } from './ovs-hash.js';
import {
  addedRemoved,
  checkDatumConstraints,
  compareAtoms,
  compareDatums,
  type Datum,
  datumsEqual,
  datumToString,
  defaultDatum,
  englishListDelimiter,
  parseDatum,
  type SymbolTable,
  subtractDatums,
  uuidDatum,
  ZERO_UUID_STRING,
} from './values.js';

/** Options of one `transact` call. */
export interface TransactOptions {
  /** Whether the session owns lock `name` (for `assert`). Without it, no lock is owned. */
  readonly ownsLock?: ((name: string) => boolean) | undefined;
  /** Milliseconds since the request first arrived (for re-running a blocked request). */
  readonly elapsedMs?: number | undefined;
  /**
   * When false, an unsatisfied `wait` that would block fails instead with
   * "not supported" ("triggers not supported"), as ovsdb-server does where it
   * cannot wait. Defaults to true.
   */
  readonly canBlock?: boolean | undefined;
}

/** One committed row change: an insert (`old` null), a delete (`new` null) or a modification. */
export interface RowChange {
  readonly table: string;
  readonly uuid: string;
  readonly old: Row | null;
  readonly new: Row | null;
  /** The columns whose value changed (every column for inserts and deletes; `_version` included). */
  readonly changed: readonly string[];
}

/** The changes one successful commit made. */
export interface TxnChanges {
  /** Row changes, grouped by table in the order the transaction touched the tables. */
  readonly rows: readonly RowChange[];
  /** The `comment` operations' texts, joined by newlines, if any. */
  readonly comment?: string | undefined;
}

/** The outcome of a request that ran to completion (successfully or not). */
export interface TransactResult {
  readonly blocked?: false | undefined;
  /** The reply's result array. */
  readonly results: unknown[];
  /** The committed changes; null when the transaction failed or changed nothing. */
  readonly changes: TxnChanges | null;
  /** Whether a `commit` operation asked for a durable commit. */
  readonly durable: boolean;
}

/** A request that must wait: re-run it after later commits or once `timeoutMs` has elapsed. */
export interface TransactBlocked {
  readonly blocked: true;
  /** The smallest `timeout` of the request's `wait` operations, `Infinity` if none. */
  readonly timeoutMs: number;
}

/** What {@link Database.transact} returns. */
export type TransactOutcome = TransactResult | TransactBlocked;

// ---------------------------------------------------------------------------
// Transaction state

/** One weak reference element of a row: the column and the element's key and value. */
interface WeakRef {
  readonly column: string;
  readonly key: Atom;
  readonly value: Atom | undefined;
}

interface TxnRow {
  readonly store: TableStore;
  readonly uuid: string;
  readonly old: Row | null;
  new: Row | null;
  nRefs: number;
  readonly changed: Set<string>;
  /** Every column changed (an insert or delete as the transaction ended); `changed` is then not filled. */
  allChanged: boolean;
  /** Weak references to rows this transaction deletes, to remove from this row. */
  deletedRefs: WeakRef[];
  /** The last {@link Txn.forEachRow} pass that visited the row. */
  pass: number;
}

/** Whether the transaction changed `column` of `tr`. */
function hasChange(tr: TxnRow, column: string): boolean {
  return tr.allChanged || tr.changed.has(column);
}

/** Whether the transaction changed any column of `tr`. */
function anyChange(tr: TxnRow): boolean {
  return tr.allChanged || tr.changed.size > 0;
}

class Txn {
  /** Touched tables in first-touch order; rows in first-touch order. */
  readonly tables = new Map<string, Map<string, TxnRow>>();
  /** Cache of {@link weakReferrers}, per referenced table. */
  readonly weakReferrers = new Map<string, Map<string, WeakReferrer[]>>();
  /** How many {@link Txn.forEachRow} passes have started. */
  private passes = 0;

  constructor(readonly db: Database) {}

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

  /** Every row of `table` as the transaction currently sees it. */
  *rows(table: string): Generator<Row> {
    const t = this.tables.get(table);
    for (const [uuid, row] of this.store(table).rows) {
      const tr = t?.get(uuid);
      if (tr === undefined) yield row;
      else if (tr.new !== null) yield tr.new;
    }
    if (t !== undefined) {
      for (const tr of t.values()) if (tr.old === null && tr.new !== null) yield tr.new;
    }
  }

  count(table: string): number {
    let n = 0;
    for (const _ of this.rows(table)) n++;
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
      changed: new Set(),
      allChanged: false,
      deletedRefs: [],
      pass: 0,
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
      changed: new Set(),
      allChanged: false,
      deletedRefs: [],
      pass: 0,
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
      changed: new Set(),
      allChanged: false,
      deletedRefs: [],
      pass: 0,
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
      changed: new Set(),
      allChanged: false,
      deletedRefs: [],
      pass: 0,
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

// ---------------------------------------------------------------------------
// Execution context

interface Exec {
  readonly db: Database;
  readonly txn: Txn;
  readonly symtab: SymbolTable;
  readonly options: TransactOptions;
  durable: boolean;
  timeoutMs: number;
  readonly comments: string[];
}

type Result = Record<string, unknown>;
type Executor = (x: Exec, p: OpParser, result: Result) => void;

function tableOf(x: Exec, p: OpParser): TableSchema | undefined {
  const name = p.member('table', OP_ID) as string | undefined;
  if (name === undefined) return undefined;
  const t = Object.hasOwn(x.db.schema.tables, name) ? x.db.schema.tables[name] : undefined;
  if (t === undefined) p.raise(`No table named ${name}.`);
  return t;
}

interface DefaultRow {
  /** Every column's default value. */
  readonly fields: Readonly<Record<string, Datum>>;
  /** The columns whose default value satisfies the column's constraints. */
  readonly valid: ReadonlySet<string>;
}

const defaultRows = new WeakMap<TableSchema, DefaultRow>();

/** The default value of every column of `table` (computed once per table). */
function defaultRow(table: TableSchema): DefaultRow {
  let row = defaultRows.get(table);
  if (row === undefined) {
    // Built in one go (not member by member) so that the engine keeps it, and
    // every copy of it, a fast object rather than a hash table.
    const fields: Record<string, Datum> = Object.fromEntries(
      Object.keys(table.columns).map((name) => [name, defaultDatum(columnType(table, name))]),
    );
    const valid = new Set<string>();
    for (const [name, d] of Object.entries(fields)) {
      if (checkDatumConstraints(d, columnType(table, name)) === undefined) valid.add(name);
    }
    row = { fields, valid };
    defaultRows.set(table, row);
  }
  return row;
}

/** A fresh copy of the default value of every column (datums are shared: they are immutable). */
function defaultFields(table: TableSchema): Record<string, Datum> {
  return { ...defaultRow(table).fields };
}

/** OVS's `ovsdb_row_from_json`: parse the members of a row object into `fields`. */
function parseRowInto(
  table: TableSchema,
  json: unknown,
  symtab: SymbolTable,
  fields: Record<string, Datum>,
): string[] {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw syntaxError(json, undefined, 'row must be JSON object');
  }
  const obj = json as Record<string, unknown>;
  const columns: string[] = [];
  for (const name of shashOrder(Object.keys(obj))) {
    if (!Object.hasOwn(table.columns, name)) {
      throw syntaxError(json, 'unknown column', `No column ${name} in table ${table.name}.`);
    }
    fields[name] = parseDatum(columnType(table, name), obj[name], symtab);
    columns.push(name);
  }
  return columns;
}

function queryRows(x: Exec, table: TableSchema, cond: Condition): Row[] {
  // A `_uuid == <uuid>` clause selects at most one row: look it up directly.
  for (const c of cond) {
    if (c.kind === 'compare' && c.column.name === '_uuid' && c.fn === '==') {
      const row = x.txn.getRow(table.name, c.arg.keys[0] as string);
      return row !== undefined && evaluateCondition(row.fields, cond) ? [row] : [];
    }
  }
  const indexed = indexCandidates(x, table, cond);
  if (indexed !== undefined) return indexed.filter((row) => evaluateCondition(row.fields, cond));
  const out: Row[] = [];
  for (const row of x.txn.rows(table.name)) if (evaluateCondition(row.fields, cond)) out.push(row);
  return out;
}

/**
 * When `cond` has `==` clauses on every column of a unique index, the rows it
 * can match: the committed row holding that index value plus every row the
 * transaction inserted or modified. Otherwise `undefined` (scan the table).
 */
function indexCandidates(x: Exec, table: TableSchema, cond: Condition): Row[] | undefined {
  if (table.indexes.length === 0) return undefined;
  const eq = new Map<string, Datum>();
  for (const c of cond) if (c.kind === 'compare' && c.fn === '==') eq.set(c.column.name, c.arg);
  const i = table.indexes.findIndex((cols) => cols.every((c) => eq.has(c)));
  if (i < 0) return undefined;
  const store = x.txn.store(table.name);
  const out = new Map<string, Row>();
  const uuid = store.indexes[i]?.get(store.indexKey(i, Object.fromEntries(eq)));
  if (uuid !== undefined) {
    const row = x.txn.getRow(table.name, uuid);
    if (row !== undefined) out.set(uuid, row);
  }
  for (const tr of x.txn.tables.get(table.name)?.values() ?? []) {
    if (tr.new !== null) out.set(tr.uuid, tr.new);
  }
  return [...out.values()];
}

/** OVS's `ovsdb_column_set_from_json`. */
function parseColumnSet(table: TableSchema, store: TableStore, json: unknown): string[] {
  if (json === undefined) return [...store.columnOrder];
  const generic = (): OpError =>
    syntaxError(json, undefined, 'array of distinct column names expected');
  if (!Array.isArray(json)) throw generic();
  const out: string[] = [];
  for (const e of json) {
    if (typeof e !== 'string') throw generic();
    if (!Object.hasOwn(table.columns, e)) {
      throw syntaxError(json, undefined, `${e} is not a valid column name`);
    }
    if (out.includes(e)) throw generic();
    out.push(e);
  }
  return out;
}

function rowsEqualOn(a: Row, b: Row, columns: readonly string[]): boolean {
  for (const c of columns)
    if (!datumsEqual(a.fields[c] as Datum, b.fields[c] as Datum)) return false;
  return true;
}

function compareRowsOn(a: Row, b: Row, columns: readonly string[]): number {
  for (const c of columns) {
    const r = compareDatums(a.fields[c] as Datum, b.fields[c] as Datum);
    if (r !== 0) return r;
  }
  return 0;
}

/** Rows distinct over `columns` (first occurrence kept). */
function distinctRows(rows: readonly Row[], columns: readonly string[]): Row[] {
  const seen = new Map<string, Row[]>();
  const out: Row[] = [];
  for (const r of rows) {
    const key = JSON.stringify(columns.map((c) => r.fields[c]));
    const bucket = seen.get(key);
    if (bucket?.some((o) => rowsEqualOn(o, r, columns))) continue;
    if (bucket === undefined) seen.set(key, [r]);
    else bucket.push(r);
    out.push(r);
  }
  return out;
}

const executeInsert: Executor = (x, p, result) => {
  const table = tableOf(x, p);
  const uuidJson = p.member('uuid', OP_STRING | OP_OPTIONAL) as string | undefined;
  const uuidName = p.member('uuid-name', OP_ID | OP_OPTIONAL) as string | undefined;
  const rowJson = p.member('row', OP_OBJECT);
  p.check();
  const t = table as TableSchema;
  let rowUuid: string | undefined;
  if (uuidJson !== undefined) {
    if (!isUuid(uuidJson)) throw syntaxError(uuidJson, undefined, 'bad uuid');
    rowUuid = uuidJson.toLowerCase();
    if (!x.txn.mayCreateRow(t.name, rowUuid)) {
      throw syntaxError(
        uuidJson,
        'duplicate uuid',
        'This UUID would duplicate a UUID already present within the table or deleted within the same transaction.',
      );
    }
  }
  if (uuidName !== undefined) {
    let sym = x.symtab.get(uuidName);
    if (sym === undefined) {
      sym = { uuid: newUuid(), created: false };
      x.symtab.set(uuidName, sym);
    }
    if (sym.created) {
      throw syntaxError(
        uuidName,
        'duplicate uuid-name',
        'This "uuid-name" appeared on an earlier "insert" operation.',
      );
    }
    if (rowUuid !== undefined) sym.uuid = rowUuid;
    else rowUuid = sym.uuid;
    sym.created = true;
  } else if (rowUuid === undefined) {
    rowUuid = newUuid();
  }
  const defaults = defaultRow(t);
  const fields = { ...defaults.fields };
  parseRowInto(t, rowJson, x.symtab, fields);
  const store = x.txn.store(t.name);
  for (const name of store.columnOrder) {
    const d = fields[name] as Datum;
    if (d === defaults.fields[name] && defaults.valid.has(name)) continue;
    if (d.keys.length === 1) {
      const e = checkDatumConstraints(d, columnType(t, name));
      if (e !== undefined) throw e;
    }
  }
  fields._uuid = uuidDatum(rowUuid);
  fields._version = uuidDatum(newUuid());
  x.txn.insert(t.name, { uuid: rowUuid, fields });
  result.uuid = ['uuid', rowUuid];
};

const executeSelect: Executor = (x, p, result) => {
  const table = tableOf(x, p);
  const where = p.member('where', OP_ARRAY) as unknown[];
  const columnsJson = p.member('columns', OP_ARRAY | OP_OPTIONAL);
  const sortJson = p.member('sort', OP_ARRAY | OP_OPTIONAL);
  p.check();
  const t = table as TableSchema;
  const store = x.txn.store(t.name);
  const cond = parseCondition(t, where, x.symtab);
  const columns = parseColumnSet(t, store, columnsJson);
  const sort = parseColumnSet(t, store, sortJson);
  let rows = queryRows(x, t, cond);
  if (columnsJson !== undefined && !columns.includes('_uuid')) rows = distinctRows(rows, columns);
  if (sort.length > 0 && rows.length > 1) rows.sort((a, b) => compareRowsOn(a, b, sort));
  result.rows = rows.map((r) => rowToWire(t, r, columns));
};

const executeUpdate: Executor = (x, p, result) => {
  const table = tableOf(x, p);
  const where = p.member('where', OP_ARRAY) as unknown[];
  const rowJson = p.member('row', OP_OBJECT);
  p.check();
  const t = table as TableSchema;
  const fields = defaultFields(t);
  const columns = parseRowInto(t, rowJson, x.symtab, fields);
  for (const name of columns) {
    if (!(t.columns[name] as { mutable: boolean }).mutable) {
      throw syntaxError(
        p.json,
        'constraint violation',
        `Cannot update immutable column ${name} in table ${t.name}.`,
      );
    }
  }
  const cond = parseCondition(t, where, x.symtab);
  const rows = queryRows(x, t, cond);
  for (const row of rows) {
    let same = true;
    for (const c of columns) {
      if (!datumsEqual(row.fields[c] as Datum, fields[c] as Datum)) same = false;
    }
    if (same) continue;
    const next: Record<string, Datum> = { ...row.fields };
    for (const c of columns) next[c] = fields[c] as Datum;
    x.txn.modify(t.name, row.uuid, next);
  }
  result.count = rows.length;
};

const executeMutate: Executor = (x, p, result) => {
  const table = tableOf(x, p);
  const where = p.member('where', OP_ARRAY) as unknown[];
  const mutationsJson = p.member('mutations', OP_ARRAY) as unknown[];
  p.check();
  const t = table as TableSchema;
  const mutations = parseMutations(t, mutationsJson, x.symtab);
  const cond = parseCondition(t, where, x.symtab);
  const rows = queryRows(x, t, cond);
  for (const row of rows) x.txn.modify(t.name, row.uuid, applyMutations(row.fields, mutations));
  result.count = rows.length;
};

const executeDelete: Executor = (x, p, result) => {
  const where = p.member('where', OP_ARRAY) as unknown[];
  const table = tableOf(x, p);
  p.check();
  const t = table as TableSchema;
  const cond = parseCondition(t, where, x.symtab);
  const rows = queryRows(x, t, cond);
  for (const row of rows) x.txn.delete(t.name, row.uuid);
  result.count = rows.length;
};

const executeWait: Executor = (x, p) => {
  const timeout = p.member('timeout', OP_INTEGER | OP_OPTIONAL) as number | undefined;
  const where = p.member('where', OP_ARRAY) as unknown[];
  const columnsJson = p.member('columns', OP_ARRAY | OP_OPTIONAL);
  const until = p.member('until', OP_STRING) as string;
  const rowsJson = p.member('rows', OP_ARRAY) as unknown[];
  const table = tableOf(x, p);
  p.check();
  const t = table as TableSchema;
  const store = x.txn.store(t.name);
  const cond = parseCondition(t, where, x.symtab);
  const columns = parseColumnSet(t, store, columnsJson);
  let timeoutMs = Number.POSITIVE_INFINITY;
  if (timeout !== undefined) {
    if (timeout < 0) throw syntaxError(timeout, undefined, 'timeout must be nonnegative');
    timeoutMs = timeout;
    if (timeout < x.timeoutMs) x.timeoutMs = timeout;
  }
  if (until !== '==' && until !== '!=') {
    throw syntaxError(until, undefined, '"until" must be "==" or "!="');
  }
  const expected: Row[] = [];
  for (const rj of rowsJson) {
    const fields = defaultFields(t);
    parseRowInto(t, rj, x.symtab, fields);
    const row: Row = { uuid: '', fields };
    if (!expected.some((e) => rowsEqualOn(e, row, columns))) expected.push(row);
  }
  let equal = true;
  const actual: Row[] = [];
  for (const row of queryRows(x, t, cond)) {
    if (!expected.some((e) => rowsEqualOn(e, row, columns))) {
      equal = false;
      break;
    }
    if (!actual.some((a) => rowsEqualOn(a, row, columns))) actual.push(row);
  }
  if (equal) equal = actual.length === expected.length;
  if ((until === '==') !== equal) {
    const elapsed = x.options.elapsedMs ?? 0;
    if (timeout !== undefined && elapsed >= timeoutMs) {
      throw new OpError(
        'timed out',
        elapsed ? `"wait" timed out after ${elapsed} ms` : '"where" clause test failed',
      );
    }
    throw new OpError('not supported', 'triggers not supported');
  }
};

const executeCommit: Executor = (x, p) => {
  const durable = p.member('durable', OP_BOOLEAN);
  if (durable === true) x.durable = true;
};

const executeAbort: Executor = () => {
  throw new OpError('aborted', 'aborted by request');
};

const executeComment: Executor = (x, p) => {
  const comment = p.member('comment', OP_STRING) as string | undefined;
  if (comment !== undefined) x.comments.push(comment);
};

const executeAssert: Executor = (x, p) => {
  const lock = p.member('lock', OP_ID) as string | undefined;
  if (lock === undefined) return;
  if (x.options.ownsLock?.(lock) === true) return;
  throw new OpError('not owner', `Asserted lock ${lock} not held.`);
};

/** Operations that never write (allowed on reserved databases such as `_Server`). */
const READ_ONLY = new Set(['select', 'wait', 'abort', 'comment', 'assert']);

const EXECUTORS: Readonly<Record<string, Executor>> = {
  insert: executeInsert,
  select: executeSelect,
  update: executeUpdate,
  mutate: executeMutate,
  delete: executeDelete,
  wait: executeWait,
  commit: executeCommit,
  abort: executeAbort,
  comment: executeComment,
  assert: executeAssert,
};

// ---------------------------------------------------------------------------
// Commit

function strongRefTargets(base: BaseType | undefined): string | undefined {
  if (base === undefined || base.type !== 'uuid' || base.refTable === undefined) return undefined;
  return base.refType === 'weak' ? undefined : base.refTable;
}

function weakRefTarget(base: BaseType | undefined): string | undefined {
  if (base === undefined || base.type !== 'uuid' || base.refTable === undefined) return undefined;
  return base.refType === 'weak' ? base.refTable : undefined;
}

function hasStrongRefs(table: TableSchema, column: string): boolean {
  const c = table.columns[column];
  return (
    c !== undefined &&
    (strongRefTargets(c.type.key) !== undefined || strongRefTargets(c.type.value) !== undefined)
  );
}

/** Adjust the reference counts of the rows `d` strongly references from `row` by `delta`. */
function adjustRefs(
  txn: Txn,
  table: TableSchema,
  rowUuid: string,
  column: string,
  d: Datum,
  delta: number,
): void {
  const c = table.columns[column];
  if (c === undefined) return;
  const parts: [BaseType | undefined, readonly Atom[]][] = [
    [c.type.key, d.keys],
    [c.type.value, d.values ?? []],
  ];
  for (const [base, atoms] of parts) {
    const target = strongRefTargets(base);
    if (target === undefined) continue;
    for (const a of atoms) {
      const uuid = a as string;
      if (uuid === rowUuid) continue;
      const tr = txn.findOrMake(target, uuid);
      if (tr === undefined) {
        if (delta < 0) continue;
        throw new OpError(
          'referential integrity violation',
          `Table ${table.name} column ${column} row ${rowUuid} references nonexistent row ${uuid} in table ${target}.`,
        );
      }
      tr.nRefs += delta;
    }
  }
}

function deleteGarbageRow(txn: Txn, tr: TxnRow): void {
  if (tr.store.schema.isRoot || tr.new === null) return;
  const row = tr.new;
  tr.new = null;
  const table = tr.store.schema;
  for (const column of tr.store.columnOrder) {
    const c = table.columns[column];
    if (c === undefined) continue;
    const d = row.fields[column] as Datum;
    const parts: [BaseType | undefined, readonly Atom[]][] = [
      [c.type.key, d.keys],
      [c.type.value, d.values ?? []],
    ];
    for (const [base, atoms] of parts) {
      const target = strongRefTargets(base);
      if (target === undefined) continue;
      for (const a of atoms) {
        const uuid = a as string;
        if (uuid === row.uuid) continue;
        const ttr = txn.findOrMake(target, uuid);
        if (ttr === undefined || ttr.new === null || ttr.nRefs === 0) continue;
        ttr.nRefs--;
        if (ttr.nRefs === 0) deleteGarbageRow(txn, ttr);
      }
    }
  }
}

function columnsToString(row: Row, table: TableSchema, columns: readonly string[]): string {
  return columns
    .map(
      (c, i) =>
        englishListDelimiter(i, columns.length) +
        datumToString(row.fields[c] as Datum, columnType(table, c)),
    )
    .join('');
}

function describeIndexRow(
  txn: Txn,
  table: TableSchema,
  index: readonly string[],
  row: Row,
  title: string,
): string {
  let s = `${title} row, with UUID ${row.uuid}, `;
  const tr = txn.findTxnRow(table.name, row.uuid);
  if (tr === undefined || !anyChange(tr)) {
    s += 'existed in the database before this transaction and was not modified by the transaction.';
  } else if (tr.old === null) {
    s += 'was inserted by this transaction.';
  } else if (rowsEqualOn(tr.old, row, index)) {
    s +=
      "existed in the database before this transaction, which modified some of the row's columns but not any columns in this index.";
  } else {
    s += `had the following index values before the transaction: ${columnsToString(tr.old, table, index)}.`;
  }
  return s;
}

function duplicateIndexError(
  txn: Txn,
  store: TableStore,
  index: readonly string[],
  a0: Row,
  b0: Row,
): OpError {
  const table = store.schema;
  let a = a0;
  let b = b0;
  if (compareRowsOn(a, b, store.columnOrder) < 0) [a, b] = [b, a];
  const indexText = `column${index.length > 1 ? 's' : ''} ${index
    .map((c, i) => `${englishListDelimiter(i, index.length)}"${c}"`)
    .join('')}`;
  const details =
    `Transaction causes multiple rows in "${table.name}" table to have identical values (${columnsToString(a, table, index)}) for index on ${indexText}.  ` +
    `${describeIndexRow(txn, table, index, a, 'First')}  ${describeIndexRow(txn, table, index, b, 'Second')}`;
  return new OpError('constraint violation', details);
}

interface WeakReferrer {
  readonly table: string;
  readonly uuid: string;
  readonly ref: WeakRef;
}

/**
 * The committed rows holding weak references into `dstTable`, by referenced
 * UUID (OVS keeps these as each row's `dst_refs`). Built once per table and
 * transaction.
 */
function weakReferrers(txn: Txn, dstTable: string): Map<string, WeakReferrer[]> {
  const cached = txn.weakReferrers.get(dstTable);
  if (cached !== undefined) return cached;
  const out = new Map<string, WeakReferrer[]>();
  const add = (dst: Atom | undefined, r: WeakReferrer): void => {
    if (dst === undefined || dst === r.uuid) return;
    const list = out.get(dst as string);
    if (list === undefined) out.set(dst as string, [r]);
    else list.push(r);
  };
  for (const store of txn.db.tables.values()) {
    const table = store.schema;
    for (const column of store.columnOrder) {
      const c = table.columns[column];
      if (c === undefined) continue;
      const byKey = weakRefTarget(c.type.key) === dstTable;
      const byValue = weakRefTarget(c.type.value) === dstTable;
      if (!byKey && !byValue) continue;
      for (const row of store.rows.values()) {
        const d = row.fields[column] as Datum;
        for (let i = 0; i < d.keys.length; i++) {
          const k = d.keys[i] as Atom;
          const v = d.values?.[i];
          const r: WeakReferrer = {
            table: table.name,
            uuid: row.uuid,
            ref: { column, key: k, value: v },
          };
          if (byKey) add(k, r);
          if (byValue && v !== k) add(v, r);
        }
      }
    }
  }
  txn.weakReferrers.set(dstTable, out);
  return out;
}

/**
 * OVS's `assess_weak_refs`, row by row in transaction order: a deleted row
 * queues the removal of the weak references to it in the rows that hold them
 * (pulling those rows into the transaction); a row's own pass removes the
 * queued references and the newly added references to rows that do not exist.
 * As in ovsdb-server, references queued for a row whose pass already ran (a row
 * changed earlier in the transaction, in a table touched before the deleted
 * row's) are not removed.
 */
function assessWeakRefs(txn: Txn): void {
  txn.forEachRow((tr) => {
    const table = tr.store.schema;
    if (tr.old !== null && tr.new === null) {
      for (const r of weakReferrers(txn, table.name).get(tr.uuid) ?? []) {
        txn.findOrMake(r.table, r.uuid)?.deletedRefs.push(r.ref);
      }
    }
    if (tr.new === null) return;
    let fields: Record<string, Datum> | undefined;
    for (const column of tr.store.columnOrder) {
      const c = table.columns[column];
      if (c === undefined) continue;
      const kt = weakRefTarget(c.type.key);
      const vt = weakRefTarget(c.type.value);
      if (kt === undefined && vt === undefined) continue;
      let d = (fields ?? tr.new.fields)[column] as Datum;
      const origN = d.keys.length;
      const isMap = c.type.value !== undefined;
      let zero = false;

      if (tr.deletedRefs.length > 0) {
        const queued = tr.deletedRefs.filter((r) => r.column === column);
        if (queued.length > 0) {
          tr.deletedRefs = tr.deletedRefs.filter((r) => r.column !== column);
          const del = sortUnique(
            queued.map((r) => r.key),
            isMap ? queued.map((r) => r.value as Atom) : undefined,
          );
          d = subtractDatums(d, del);
        }
      }

      // Only references this transaction added can point to missing rows.
      if (d.keys.length === origN && !hasChange(tr, column)) continue;
      const added = tr.old !== null ? subtractDatums(d, tr.old.fields[column] as Datum) : d;
      const missingKeys: Atom[] = [];
      const missingValues: Atom[] = [];
      for (let i = 0; i < added.keys.length; i++) {
        const k = added.keys[i] as Atom;
        const v = added.values?.[i];
        const missing = weakTargetMissing(txn, tr, kt, k);
        const missingValue = weakTargetMissing(txn, tr, vt, v);
        if (missing !== 0 || missingValue !== 0) {
          if (missing === 2 || missingValue === 2) zero = true;
          missingKeys.push(k);
          if (isMap) missingValues.push(v as Atom);
        }
      }
      if (missingKeys.length > 0) {
        d = subtractDatums(d, sortUnique(missingKeys, isMap ? missingValues : undefined));
      }

      if (d.keys.length === origN) continue;
      fields ??= { ...tr.new.fields };
      fields[column] = d;
      tr.changed.add(column);
      if (d.keys.length < c.type.min) {
        if (zero && tr.old === null) {
          throw new OpError(
            'constraint violation',
            `Weak reference column "${column}" in "${table.name}" row ${tr.uuid} (inserted within this transaction) contained all-zeros UUID (probably as the default value for this column) but deleting this value caused a constraint volation because this column is not allowed to be empty.`,
          );
        }
        throw new OpError(
          'constraint violation',
          `Deletion of ${origN - d.keys.length} weak reference(s) to deleted (or never-existing) rows from column "${column}" in "${table.name}" row ${tr.uuid} ${tr.old === null ? '(inserted within this transaction) ' : ''}caused this column to become empty, but constraints on this column disallow an empty column.`,
        );
      }
    }
    if (fields !== undefined) tr.new = { uuid: tr.uuid, fields };
  });
}

/**
 * Whether weak reference `uuid` (to table `target`) from row `tr` points to no
 * row: 0 when it does point to one (or is not a reference), 1 when it does
 * not, 2 when it does not and is the all-zero UUID.
 */
function weakTargetMissing(
  txn: Txn,
  tr: TxnRow,
  target: string | undefined,
  uuid: Atom | undefined,
): 0 | 1 | 2 {
  if (target === undefined || uuid === undefined) return 0;
  if (uuid === tr.uuid || txn.getRow(target, uuid as string) !== undefined) return 0;
  return uuid === ZERO_UUID_STRING ? 2 : 1;
}

/** Sorted datum of the given elements, keeping the first of equal keys. */
function sortUnique(keys: Atom[], values: Atom[] | undefined): Datum {
  const idx = keys.map((_, i) => i);
  idx.sort((x, y) => {
    const c = compareAtoms(keys[x] as Atom, keys[y] as Atom);
    return c !== 0 || values === undefined ? c : compareAtoms(values[x] as Atom, values[y] as Atom);
  });
  const outK: Atom[] = [];
  const outV: Atom[] | undefined = values === undefined ? undefined : [];
  for (const i of idx) {
    const k = keys[i] as Atom;
    if (outK.length > 0 && compareAtoms(outK[outK.length - 1] as Atom, k) === 0) continue;
    outK.push(k);
    outV?.push((values as Atom[])[i] as Atom);
  }
  return { keys: outK, values: outV };
}

function precommit(txn: Txn): void {
  // Figure out what actually changed.
  txn.forEachRow((tr) => {
    const cols = tr.store.columnOrder;
    if (tr.old !== null && tr.new !== null) {
      for (const c of cols) {
        if (!datumsEqual(tr.old.fields[c] as Datum, tr.new.fields[c] as Datum)) tr.changed.add(c);
      }
      if (tr.changed.size === 0) txn.tables.get(tr.store.schema.name)?.delete(tr.uuid);
    } else {
      tr.allChanged = true;
    }
  });
  if (txn.tables.size === 0) return;

  // Reference counts and referential integrity.
  txn.forEachRow((tr) => {
    const table = tr.store.schema;
    for (const column of tr.store.columnOrder) {
      if (!hasChange(tr, column) || !hasStrongRefs(table, column)) continue;
      if (tr.old !== null && tr.new === null) {
        adjustRefs(txn, table, tr.uuid, column, tr.old.fields[column] as Datum, -1);
      } else if (tr.old === null && tr.new !== null) {
        adjustRefs(txn, table, tr.uuid, column, tr.new.fields[column] as Datum, 1);
      } else if (tr.old !== null && tr.new !== null) {
        const { added, removed } = addedRemoved(
          tr.old.fields[column] as Datum,
          tr.new.fields[column] as Datum,
        );
        adjustRefs(txn, table, tr.uuid, column, removed, -1);
        adjustRefs(txn, table, tr.uuid, column, added, 1);
      }
    }
  });
  txn.forEachRow((tr) => {
    if (tr.new === null && tr.nRefs > 0) {
      throw new OpError(
        'referential integrity violation',
        `cannot delete ${tr.store.schema.name} row ${tr.uuid} because of ${tr.nRefs} remaining reference(s)`,
      );
    }
  });

  // Delete unreferenced rows of non-root tables.
  txn.forEachRow((tr) => {
    if (tr.new !== null && tr.nRefs === 0) deleteGarbageRow(txn, tr);
  });

  // maxRows.
  for (const name of txn.tables.keys()) {
    const store = txn.store(name);
    if (store.schema.maxRows === Number.POSITIVE_INFINITY) continue;
    const n = txn.count(name);
    if (n > store.schema.maxRows) {
      throw new OpError(
        'constraint violation',
        `transaction causes "${name}" table to contain ${n} rows, greater than the schema-defined limit of ${store.schema.maxRows} row(s)`,
      );
    }
  }

  // Weak references.
  assessWeakRefs(txn);

  // Unique indexes.
  const txnIndexes = new Map<string, Map<string, Row>[]>();
  txn.forEachRow((tr) => {
    const row = tr.new;
    if (row === null) return;
    const store = tr.store;
    const table = store.schema;
    let ti = txnIndexes.get(table.name);
    if (ti === undefined) {
      ti = table.indexes.map(() => new Map());
      txnIndexes.set(table.name, ti);
    }
    for (let i = 0; i < table.indexes.length; i++) {
      const index = table.indexes[i] as readonly string[];
      const key = store.indexKey(i, row.fields);
      const m = ti[i] as Map<string, Row>;
      const dup = m.get(key);
      if (dup !== undefined) throw duplicateIndexError(txn, store, index, dup, row);
      const committed = store.indexes[i]?.get(key);
      if (committed !== undefined && txn.findTxnRow(table.name, committed) === undefined) {
        throw duplicateIndexError(txn, store, index, store.rows.get(committed) as Row, row);
      }
      m.set(key, row);
    }
  });

  // New _version for modified rows.
  txn.forEachRow((tr) => {
    if (tr.old !== null && tr.new !== null && anyChange(tr)) {
      tr.changed.add('_version');
      tr.new = { uuid: tr.uuid, fields: { ...tr.new.fields, _version: uuidDatum(newUuid()) } };
    }
  });
}

function commit(txn: Txn, comment: string | undefined): TxnChanges | null {
  const changes: RowChange[] = [];
  for (const [name, t] of txn.tables) {
    const store = txn.store(name);
    for (const tr of t.values()) {
      if (tr.old !== null) {
        for (let i = 0; i < store.indexes.length; i++) {
          const key = store.indexKey(i, tr.old.fields);
          if (store.indexes[i]?.get(key) === tr.uuid) store.indexes[i]?.delete(key);
        }
      }
      if (tr.new === null) {
        store.rows.delete(tr.uuid);
        store.refCounts.delete(tr.uuid);
      } else {
        store.rows.set(tr.uuid, tr.new);
        if (tr.nRefs > 0) store.refCounts.set(tr.uuid, tr.nRefs);
        else store.refCounts.delete(tr.uuid);
      }
    }
    for (const tr of t.values()) {
      if (tr.new !== null) {
        for (let i = 0; i < store.indexes.length; i++) {
          store.indexes[i]?.set(store.indexKey(i, tr.new.fields), tr.uuid);
        }
      }
      if (tr.old === null && tr.new === null) continue;
      if (tr.old !== null && tr.new !== null && !anyChange(tr)) continue;
      changes.push({
        table: name,
        uuid: tr.uuid,
        old: tr.old,
        new: tr.new,
        changed: tr.allChanged
          ? store.columnOrder
          : store.columnOrder.filter((c) => tr.changed.has(c)),
      });
    }
  }
  if (changes.length === 0) return null;
  return comment === undefined ? { rows: changes } : { rows: changes, comment };
}

/**
 * Run one `transact` request against `db`. `ops` are the params after the
 * database name. See the module documentation for the semantics.
 */
export function executeTransaction(
  db: Database,
  ops: readonly unknown[],
  options: TransactOptions,
): TransactOutcome {
  const x: Exec = {
    db,
    txn: new Txn(db),
    symtab: new Map(),
    options,
    durable: false,
    timeoutMs: Number.POSITIVE_INFINITY,
    comments: [],
  };
  const results: unknown[] = [];
  const n = ops.length;
  let failed: OpErrorJson | undefined;
  for (let i = 0; i < n; i++) {
    const p = new OpParser(ops[i], `ovsdb operation ${i + 1} of ${n}`, shashOrder);
    const op = p.member('op', OP_ID) as string | undefined;
    const result: Result = {};
    let error: OpError | undefined;
    if (op !== undefined) {
      const executor = Object.hasOwn(EXECUTORS, op) ? EXECUTORS[op] : undefined;
      if (executor !== undefined) {
        try {
          executor(x, p, result);
        } catch (e) {
          if (!(e instanceof OpError)) throw e;
          error = e;
        }
      } else {
        p.raise(`No operation "${op}"`);
      }
    }
    const parseError = p.finish();
    if (parseError !== undefined) error = parseError;
    if (
      error === undefined &&
      op !== undefined &&
      !READ_ONLY.has(op) &&
      db.schema.name[0] === '_'
    ) {
      error = new OpError(
        'not allowed',
        `${op} operation not allowed on table in reserved database ${db.schema.name}`,
      );
    }
    if (error !== undefined) {
      if (error.error === 'not supported' && options.canBlock !== false) {
        return { blocked: true, timeoutMs: x.timeoutMs };
      }
      failed = error.toJson();
      results.push(failed);
      break;
    }
    results.push(result);
  }
  while (results.length < n) results.push(null);
  if (failed !== undefined) return { results, changes: null, durable: x.durable };
  try {
    precommit(x.txn);
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    results.push(e.toJson());
    return { results, changes: null, durable: x.durable };
  }
  const comment = x.comments.length > 0 ? x.comments.join('\n') : undefined;
  return { results, changes: commit(x.txn, comment), durable: x.durable };
}

/**
 * The operations of a `transact` request (RFC 7047 §5.2 and the OVS
 * extensions): one executor per operation, in {@link EXECUTORS}. Each parses
 * its members, stages its changes in the transaction ({@link Txn}) and fills
 * in its result; see `executor.ts` for the semantics.
 * @module
 */

import type { TableSchema } from '../../ovsdb/schema/schema-types.js';
import { defaultDatum } from '../../ovsdb/values/defaults.js';
import { type Datum, datumsEqual, uuidDatum } from '../../ovsdb/values/sorted-datum.js';
import { isUuid, newUuid } from '../../ovsdb/values/uuid.js';
import { type Condition, parseCondition } from './conditions.js';
import { applyMutations, parseMutations } from './mutations.js';
import { OpError, syntaxError } from './op-error.js';
import {
  OP_ARRAY,
  OP_BOOLEAN,
  OP_ID,
  OP_INTEGER,
  OP_OBJECT,
  OP_OPTIONAL,
  OP_STRING,
  type OpParser,
} from './op-parser.js';
import { shashOrder } from './ovs-hash.js';
import { queryRows as query } from './query.js';
import { checkDelete, checkInsert, checkModify, type RbacClient, rbacClient } from './rbac.js';
import type { Txn } from './staging.js';
import {
  columnsKey,
  columnType,
  compareRowsOn,
  type Row,
  rowsEqualOn,
  rowToWire,
  type TableStore,
} from './table-store.js';
import type { DatabaseState, EngineTransactOptions } from './types.js';
import { checkDatumConstraints, parseDatum, type SymbolTable } from './values.js';

/** The state of one request's execution, shared by its operations. */
export interface Exec {
  readonly db: DatabaseState;
  readonly txn: Txn;
  readonly symtab: SymbolTable;
  readonly options: EngineTransactOptions;
  durable: boolean;
  timeoutMs: number;
  readonly comments: string[];
}

/** One operation's result object, filled in by its executor. */
export type Result = Record<string, unknown>;
/** One operation: parse its members from `p`, stage its changes in `x.txn`, fill in `result`. */
export type Executor = (x: Exec, p: OpParser, result: Result) => void;

function queryRows(x: Exec, table: TableSchema, cond: Condition): Row[] {
  return query(x.db, x.txn, table, cond);
}

/** The transaction's client when RBAC applies to it (a session with a role). */
function rbac(x: Exec): RbacClient | undefined {
  return rbacClient(x.db, x.txn, x.options.role, x.options.peerId);
}

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
  /** The columns whose default value breaks the column's constraints (an insert must give them). */
  readonly invalid: ReadonlySet<string>;
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
    const invalid = new Set<string>();
    for (const [name, d] of Object.entries(fields)) {
      if (checkDatumConstraints(d, columnType(table, name)) !== undefined) invalid.add(name);
    }
    row = { fields, invalid };
    defaultRows.set(table, row);
  }
  return row;
}

/** A fresh copy of the default value of every column (datums are shared: they are immutable). */
function defaultFields(table: TableSchema): Record<string, Datum> {
  return { ...defaultRow(table).fields };
}

/**
 * OVS's `ovsdb_row_from_json`: parse the members of a row object into
 * `fields`. Returns the members' names, in the object's order. ovsdb-server
 * parses them in its hash order, which decides the error it reports when
 * several members are bad: the members are parsed in the object's order
 * first, and only when one fails are they parsed again in that order, to
 * throw its first error.
 */
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
  const names = Object.keys(obj);
  try {
    for (const name of names) parseMember(table, obj, name, symtab, fields);
  } catch (e) {
    if (names.length > 1) {
      for (const name of shashOrder(names)) parseMember(table, obj, name, symtab, fields);
    }
    throw e;
  }
  return names;
}

function parseMember(
  table: TableSchema,
  obj: Record<string, unknown>,
  name: string,
  symtab: SymbolTable,
  fields: Record<string, Datum>,
): void {
  if (!Object.hasOwn(table.columns, name)) {
    throw syntaxError(obj, 'unknown column', `No column ${name} in table ${table.name}.`);
  }
  fields[name] = parseDatum(columnType(table, name), obj[name], symtab);
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
/** Rows distinct over `columns` (first occurrence kept). */
function distinctRows(rows: readonly Row[], columns: readonly string[]): Row[] {
  const seen = new Map<string, Row[]>();
  const out: Row[] = [];
  for (const r of rows) {
    const key = columnsKey(r.fields, columns);
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
  // ovsdb-server then checks every column in order: the values parsed were
  // checked as they were parsed, so only a default left in place may fail.
  if (defaults.invalid.size > 0) {
    for (const name of x.txn.store(t.name).columnOrder) {
      const d = fields[name] as Datum;
      if (d !== defaults.fields[name] || !defaults.invalid.has(name)) continue;
      const e = checkDatumConstraints(d, columnType(t, name));
      if (e !== undefined) throw e;
    }
  }
  fields._uuid = uuidDatum(rowUuid);
  fields._version = uuidDatum(newUuid());
  const client = rbac(x);
  if (client !== undefined) checkInsert(client, t, { uuid: rowUuid, fields });
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
  // ovsdb-server puts the members in the order of the column set and writes
  // the row object in its hash order.
  const members = shashOrder(columns);
  result.rows = rows.map((r) => rowToWire(t, r, members));
};

const executeUpdate: Executor = (x, p, result) => {
  const table = tableOf(x, p);
  const where = p.member('where', OP_ARRAY) as unknown[];
  const rowJson = p.member('row', OP_OBJECT);
  p.check();
  const t = table as TableSchema;
  const fields = defaultFields(t);
  // In ovsdb-server's order: the first immutable column is the one reported.
  const columns = shashOrder(parseRowInto(t, rowJson, x.symtab, fields));
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
  const client = rbac(x);
  if (client !== undefined) checkModify(client, t, columns, rows, false);
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
  const client = rbac(x);
  if (client !== undefined) {
    checkModify(
      client,
      t,
      mutations.map((m) => m.column.name),
      rows,
      true,
    );
  }
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
  const client = rbac(x);
  if (client !== undefined) checkDelete(client, t, rows);
  for (const row of rows) x.txn.delete(t.name, row.uuid);
  result.count = rows.length;
};

const executeWait: Executor = (x, p) => {
  const timeout = p.member('timeout', OP_INTEGER | OP_OPTIONAL) as number | bigint | undefined;
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
    // Any int64 is allowed; beyond 2^53 ms a number is as good as exact.
    timeoutMs = Number(timeout);
    if (timeoutMs < x.timeoutMs) x.timeoutMs = timeoutMs;
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
export const READ_ONLY = new Set(['select', 'wait', 'abort', 'comment', 'assert']);

/** The executor of each operation, by its `op` name. */
export const EXECUTORS: Readonly<Record<string, Executor>> = {
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

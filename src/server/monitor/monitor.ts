/**
 * Monitors (`monitor`, `monitor_cond`, `monitor_cond_since`) as ovsdb-server
 * 3.1 runs them: parsing the monitor requests with its checks and wording,
 * and composing the `update` (version 1) and `update2`/`update3` (versions 2
 * and 3) row updates from committed changes.
 *
 * ## Requests
 * Per table, one request object or an array of them; each names `columns`
 * (default: every column but `_uuid`, `_version` included), a `select`
 * (`initial`, `insert`, `delete`, `modify`, each true by default) that
 * applies to those columns, and for versions 2 and 3 a `where`. A column may
 * be named by one request only. When a table has several requests, the first
 * request's `where` is the table's condition.
 *
 * ## Version 1 (`update`)
 * `{"new": …}` for initial rows and inserts, `{"old": …}` for deletes and
 * `{"old": <changed columns>, "new": <all columns>}` for modifications, every
 * monitored column whose `select` includes the kind of change.
 *
 * ## Versions 2 and 3 (`update2`, `update3`)
 * `initial` and `insert` carry the columns that do not hold their default value,
 * `modify` the diff of each changed column (`datumDiff` of
 * `ovsdb/values/sorted-datum.ts`) and `delete` is null. The condition's clauses
 * are ORed; a modified row that enters the condition is sent as `insert` and one
 * that leaves it as `delete`.
 *
 * Columns that a condition reads but that are not monitored are still
 * watched for changes: a modification of only such a column, to a row that
 * matches the condition before and after, is sent as an empty `modify`, as
 * ovsdb-server does. A modification of only unmonitored, unwatched columns
 * sends nothing.
 * @module
 */

import type { TableSchema } from '../../ovsdb/schema/schema-types.js';
import { isDefaultDatum } from '../../ovsdb/values/defaults.js';
import {
  type Datum,
  type DatumType,
  datumDiff,
  datumsEqual,
} from '../../ovsdb/values/sorted-datum.js';
import type { Database, Row, TableStore } from '../engine/database.js';
import type { RowChange, TxnChanges } from '../engine/executor.js';
import { syntaxError } from '../engine/op-error.js';
import { OP_ARRAY, OP_BOOLEAN, OP_OBJECT, OP_OPTIONAL, OpParser } from '../engine/op-parser.js';
import { shashOrder } from '../engine/ovs-hash.js';
import { datumToWire } from '../engine/values.js';
import type { HistoryEntry } from './history.js';
import { MonitorCondition } from './monitor-condition.js';

/** The monitor protocol version: 1 `monitor`, 2 `monitor_cond`, 3 `monitor_cond_since`. */
export type MonitorVersion = 1 | 2 | 3;

/** `{table: {uuid: row-update}}`, as sent in a reply or notification. */
export type MonitorUpdates = Record<string, Record<string, Record<string, unknown>>>;

const INITIAL = 1;
const INSERT = 2;
const DELETE = 4;
const MODIFY = 8;

interface MonitoredColumn {
  readonly name: string;
  readonly type: DatumType;
  readonly select: number;
}

/** The monitored part of one table. */
class MonitorTable {
  /** Union of the columns' `select` flags. */
  select = 0;
  /** The monitored columns, in request order. */
  readonly columns: MonitoredColumn[] = [];
  /** Monitored columns plus the columns conditions read: a change to any of them counts. */
  readonly watched = new Set<string>();
  private readonly monitored = new Set<string>();
  /** The conditions of the table's requests; the first is the table's condition. */
  readonly requestConditions: MonitorCondition[] = [];
  /** The condition old rows are matched against (versions 2 and 3). */
  oldCondition: MonitorCondition | undefined;
  /** The condition new rows are matched against (differs from `oldCondition` only during a change). */
  newCondition: MonitorCondition | undefined;

  constructor(
    readonly table: TableSchema,
    readonly store: TableStore,
  ) {}

  /** Add a monitored column; false when it is already monitored. */
  addColumn(name: string, select: number): boolean {
    if (this.monitored.has(name)) return false;
    const c = this.table.columns[name];
    if (c === undefined) return false;
    this.monitored.add(name);
    this.watched.add(name);
    this.columns.push({
      name,
      select,
      type: { key: c.type.key, value: c.type.value, min: c.type.min, max: c.type.max },
    });
    return true;
  }

  /** Watch the columns a condition reads. */
  watchCondition(cond: MonitorCondition): void {
    for (const c of cond.columns) this.watched.add(c);
  }

  /** True when a change to `changed` columns concerns this table's monitor. */
  touches(change: RowChange): boolean {
    if (change.old === null || change.new === null) return true;
    for (const c of change.changed) if (this.watched.has(c)) return true;
    return false;
  }
}

function wire(d: Datum, type: DatumType): unknown {
  return datumToWire(d, type);
}

function changedColumns(mt: MonitorTable, old: Row, next: Row): Set<string> | undefined {
  let out: Set<string> | undefined;
  for (const c of mt.watched) {
    if (!datumsEqual(old.fields[c] as Datum, next.fields[c] as Datum)) {
      out ??= new Set();
      out.add(c);
    }
  }
  return out;
}

/**
 * One monitor of one session on one database.
 *
 * ```ts
 * const db = new Database(NB.schema);
 * db.transact([{ op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' } }]);
 * const m = Monitor.create(db, 2, 'm1', { Logical_Switch: { columns: ['name'] } });
 * m.initial(); // { Logical_Switch: { '…uuid…': { initial: { name: 'sw0' } } } }
 * ```
 */
export class Monitor {
  private constructor(
    readonly db: Database,
    readonly version: MonitorVersion,
    /** The monitor id as the client gave it (any JSON). */
    public id: unknown,
    private readonly tables: ReadonlyMap<string, MonitorTable>,
  ) {}

  /**
   * Parse `requests` (the monitor-requests object) for database `db`.
   * @throws OpError with ovsdb-server's error for the first bad request.
   */
  static create(
    db: Database,
    version: MonitorVersion,
    id: unknown,
    requests: Record<string, unknown>,
  ): Monitor {
    const tables = new Map<string, MonitorTable>();
    const conditional = version !== 1;
    for (const name of shashOrder(Object.keys(requests))) {
      const table = Object.hasOwn(db.schema.tables, name) ? db.schema.tables[name] : undefined;
      const store = db.tables.get(name);
      if (table === undefined || store === undefined) {
        throw syntaxError(undefined, undefined, `no table named ${name}`);
      }
      const mt = new MonitorTable(table, store);
      tables.set(name, mt);
      const value = requests[name];
      if (Array.isArray(value)) {
        for (const r of value) parseRequest(mt, r, conditional);
      } else {
        parseRequest(mt, value, conditional);
      }
    }
    for (const mt of tables.values()) {
      for (const cond of mt.requestConditions) mt.watchCondition(cond);
      mt.oldCondition = mt.requestConditions[0];
      mt.newCondition = mt.oldCondition;
      // ovsdb-server sorts a monitor's columns by column (its creation order).
      const index = mt.store.columnIndex;
      mt.columns.sort((a, b) => (index.get(a.name) ?? 0) - (index.get(b.name) ?? 0));
    }
    const m = new Monitor(db, version, id, tables);
    m.setMode();
    return m;
  }

  /**
   * Whether updates are written with sorted members: ovsdb-server
   * pre-serializes (sorted) the updates of version 2 and 3 monitors whose
   * session has no condition other than "true"; others are written in its
   * hash order.
   */
  private sorted = false;

  /** `ovsdb_monitor_session_condition_set_mode`. */
  private setMode(): void {
    let conditional = false;
    for (const mt of this.tables.values()) {
      if (mt.newCondition !== undefined && !mt.newCondition.isTrue) conditional = true;
    }
    this.sorted = this.version !== 1 && !conditional;
  }

  /** The names of the monitored tables. */
  get tableNames(): string[] {
    return [...this.tables.keys()];
  }

  /** The initial contents: every row of the tables whose `select` includes `initial`. */
  initial(): MonitorUpdates | undefined {
    let out: MonitorUpdates | undefined;
    for (const [name, mt] of this.tables) {
      if (!(mt.select & INITIAL)) continue;
      let rows: Record<string, Record<string, unknown>> | undefined;
      for (const row of mt.store.rows.values()) {
        const u = this.rowUpdate(mt, null, row, true);
        if (u === undefined) continue;
        if (rows === undefined) {
          rows = {};
          out ??= {};
          out[name] = rows;
        }
        rows[row.uuid] = u;
      }
    }
    return finishUpdates(out, this.sorted);
  }

  /** The row updates one committed transaction causes, if any. */
  update(changes: TxnChanges): MonitorUpdates | undefined {
    let out: MonitorUpdates | undefined;
    let lastTable = '';
    let mt: MonitorTable | undefined;
    let rows: Record<string, Record<string, unknown>> | undefined;
    for (const change of changes.rows) {
      if (change.table !== lastTable) {
        lastTable = change.table;
        mt = this.tables.get(change.table);
        rows = out?.[change.table];
      }
      if (mt === undefined || !mt.touches(change)) continue;
      const u = this.rowUpdate(mt, change.old, change.new, false);
      if (u === undefined) continue;
      if (rows === undefined) {
        rows = {};
        out ??= {};
        out[change.table] = rows;
      }
      rows[change.uuid] = u;
    }
    return finishUpdates(out, this.sorted);
  }

  /**
   * The changes of several transactions (from the history) merged per row,
   * as `monitor_cond_since` sends them when it finds the client's last
   * transaction: a row inserted and then deleted is left out, one inserted
   * and then modified is one insert with its final value.
   */
  since(entries: readonly HistoryEntry[]): MonitorUpdates | undefined {
    const merged = new Map<string, Map<string, { old: Row | null; new: Row | null }>>();
    for (const entry of entries) {
      for (const change of entry.changes.rows) {
        const mt = this.tables.get(change.table);
        if (mt === undefined || !mt.touches(change)) continue;
        let rows = merged.get(change.table);
        if (rows === undefined) {
          rows = new Map();
          merged.set(change.table, rows);
        }
        const seen = rows.get(change.uuid);
        if (seen === undefined) {
          rows.set(change.uuid, { old: change.old, new: change.new });
        } else if (change.new !== null) {
          seen.new = change.new;
        } else {
          seen.new = null;
          if (seen.old === null) rows.delete(change.uuid);
        }
      }
    }
    let out: MonitorUpdates | undefined;
    for (const [name, rows] of merged) {
      const mt = this.tables.get(name) as MonitorTable;
      for (const [uuid, r] of rows) {
        const u = this.rowUpdate(mt, r.old, r.new, false);
        if (u === undefined) continue;
        out ??= {};
        out[name] ??= {};
        (out[name] as Record<string, Record<string, unknown>>)[uuid] = u;
      }
    }
    return finishUpdates(out, this.sorted);
  }

  /**
   * Apply a `monitor_cond_change` request object (`{table: [{where}]}`).
   * Tables are handled in ovsdb-server's order; on an error, the conditions
   * of the tables handled before it stay changed (but take full effect only
   * with the next successful change), as in ovsdb-server.
   * @throws OpError for the first bad table or request.
   */
  changeConditions(requests: Record<string, unknown>): void {
    for (const name of shashOrder(Object.keys(requests))) {
      const table = Object.hasOwn(this.db.schema.tables, name)
        ? this.db.schema.tables[name]
        : undefined;
      if (table === undefined) throw syntaxError(undefined, undefined, `no table named ${name}`);
      const mt = this.tables.get(name);
      if (mt === undefined) {
        throw syntaxError(undefined, undefined, `no table named ${name} in monitor session`);
      }
      const value = requests[name];
      if (!Array.isArray(value)) {
        throw syntaxError(undefined, undefined, `table ${name} no monitor-cond-change JSON array`);
      }
      for (const r of value) {
        const p = new OpParser(r, `table ${name}`, shashOrder);
        const columns = p.member('columns', OP_ARRAY | OP_OPTIONAL);
        const where = p.member('where', OP_ARRAY | OP_OPTIONAL) as unknown[] | undefined;
        const err = p.finish();
        if (err !== undefined) throw err;
        if (columns !== undefined) {
          throw syntaxError(r, undefined, 'changing columns is unsupported');
        }
        if (this.version === 1 || mt.newCondition === undefined) continue;
        const cond = MonitorCondition.parse(table, where);
        mt.newCondition = cond;
        mt.watchCondition(cond);
      }
    }
  }

  /**
   * After {@link Monitor.changeConditions}: the rows that entered (`insert`)
   * or left (`delete`) the condition of each table whose condition changed.
   * The new conditions then become the current ones.
   */
  conditionChangeUpdate(): MonitorUpdates | undefined {
    if (this.version === 1) return undefined;
    let out: MonitorUpdates | undefined;
    let changed = false;
    for (const [name, mt] of this.tables) {
      const oldC = mt.oldCondition;
      const newC = mt.newCondition;
      if (oldC === undefined || newC === undefined || oldC.sameAs(newC)) continue;
      for (const row of mt.store.rows.values()) {
        const u = this.rowUpdate(mt, row, row, false);
        if (u === undefined) continue;
        out ??= {};
        out[name] ??= {};
        (out[name] as Record<string, Record<string, unknown>>)[row.uuid] = u;
      }
      mt.oldCondition = newC;
      changed = true;
    }
    // Composed for this session alone: never pre-serialized, so in hash order.
    const updates = finishUpdates(out, false);
    if (changed) this.setMode();
    return updates;
  }

  private rowUpdate(
    mt: MonitorTable,
    old: Row | null,
    next: Row | null,
    initial: boolean,
  ): Record<string, unknown> | undefined {
    // Row objects are put in order by finishUpdates.
    return this.version === 1
      ? rowUpdate1(mt, old, next, initial)
      : rowUpdate2(mt, old, next, initial);
  }
}

function parseRequest(mt: MonitorTable, json: unknown, conditional: boolean): void {
  const name = mt.table.name;
  const p = new OpParser(json, `table ${name}`, shashOrder);
  const where = conditional
    ? (p.member('where', OP_ARRAY | OP_OPTIONAL) as unknown[] | undefined)
    : undefined;
  const columns = p.member('columns', OP_ARRAY | OP_OPTIONAL) as unknown[] | undefined;
  const selectJson = p.member('select', OP_OBJECT | OP_OPTIONAL);
  const err = p.finish();
  if (err !== undefined) throw err;

  let select = INITIAL | INSERT | DELETE | MODIFY;
  if (selectJson !== undefined) {
    const sp = new OpParser(selectJson, `table ${name} select`, shashOrder);
    const flag = (member: string, bit: number): number =>
      (sp.member(member, OP_BOOLEAN | OP_OPTIONAL) ?? true) === true ? bit : 0;
    select = flag('initial', INITIAL) | flag('insert', INSERT);
    select |= flag('delete', DELETE) | flag('modify', MODIFY);
    const serr = sp.finish();
    if (serr !== undefined) throw serr;
  }
  mt.select |= select;

  if (columns !== undefined) {
    for (const c of columns) {
      if (typeof c !== 'string') {
        throw syntaxError(columns, undefined, 'array of column names expected');
      }
      if (!Object.hasOwn(mt.table.columns, c)) {
        throw syntaxError(columns, undefined, `${c} is not a valid column name`);
      }
      if (!mt.addColumn(c, select)) {
        throw syntaxError(columns, undefined, `column ${c} mentioned more than once`);
      }
    }
  } else {
    for (const c of mt.store.columnOrder) {
      if (c === '_uuid') continue;
      if (!mt.addColumn(c, select)) {
        throw syntaxError(undefined, undefined, `column ${c} mentioned more than once`);
      }
    }
  }
  if (conditional) mt.requestConditions.push(MonitorCondition.parse(mt.table, where));
}

/** `obj`'s members sorted by name, or in ovsdb-server's hash order of their insertion. */
function ordered<T>(obj: Record<string, T>, sorted: boolean): Record<string, T> {
  const names = Object.keys(obj);
  if (names.length <= 1) return obj;
  const order = sorted ? names.sort() : shashOrder(names);
  const out: Record<string, T> = {};
  for (const name of order) out[name] = obj[name] as T;
  return out;
}

/**
 * `updates` with every object's members in the order ovsdb-server writes
 * them: sorted (a pre-serialized update) or its hash order.
 */
function finishUpdates(
  updates: MonitorUpdates | undefined,
  sorted: boolean,
): MonitorUpdates | undefined {
  if (updates === undefined) return undefined;
  const out: MonitorUpdates = {};
  for (const [table, rows] of Object.entries(ordered(updates, sorted))) {
    const rowsOut: Record<string, Record<string, unknown>> = {};
    for (const [uuid, u] of Object.entries(ordered(rows, sorted))) {
      const uOut: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(ordered(u, sorted))) {
        uOut[k] =
          v !== null && typeof v === 'object' ? ordered(v as Record<string, unknown>, sorted) : v;
      }
      rowsOut[uuid] = uOut;
    }
    out[table] = rowsOut;
  }
  return out;
}

/** A version-1 `<row-update>`, or undefined when nothing is to be sent. */
function rowUpdate1(
  mt: MonitorTable,
  old: Row | null,
  next: Row | null,
  initial: boolean,
): Record<string, unknown> | undefined {
  const type = initial ? INITIAL : old === null ? INSERT : next === null ? DELETE : MODIFY;
  if (!(mt.select & type)) return undefined;
  let changed: Set<string> | undefined;
  if (type === MODIFY) {
    changed = changedColumns(mt, old as Row, next as Row);
    if (changed === undefined) return undefined;
  }
  const out: Record<string, unknown> = {};
  let oldJson: Record<string, unknown> | undefined;
  let newJson: Record<string, unknown> | undefined;
  if (type & (DELETE | MODIFY)) {
    oldJson = {};
    out.old = oldJson;
  }
  if (type & (INITIAL | INSERT | MODIFY)) {
    newJson = {};
    out.new = newJson;
  }
  for (const c of mt.columns) {
    if (!(type & c.select)) continue;
    if (oldJson !== undefined && (type === DELETE || changed?.has(c.name))) {
      oldJson[c.name] = wire((old as Row).fields[c.name] as Datum, c.type);
    }
    if (newJson !== undefined) {
      newJson[c.name] = wire((next as Row).fields[c.name] as Datum, c.type);
    }
  }
  return out;
}

/** The kind of change after the table's condition is applied (0: none). */
function conditionType(
  mt: MonitorTable,
  old: Row | null,
  next: Row | null,
  initial: boolean,
): number {
  let type = initial ? INITIAL : old === null ? INSERT : next === null ? DELETE : MODIFY;
  const oldC = mt.oldCondition;
  const newC = mt.newCondition;
  if (oldC === undefined || newC === undefined) return type;
  const oldMatch = old !== null && oldC.matches(old.fields);
  const newMatch = next !== null && newC.matches(next.fields);
  if (!oldMatch && !newMatch) return 0;
  switch (type) {
    case INITIAL:
    case INSERT:
      if (!newMatch) type = 0;
      break;
    case MODIFY:
      type = !oldMatch ? INSERT : !newMatch ? DELETE : MODIFY;
      break;
    case DELETE:
      if (!oldMatch) type = 0;
      break;
  }
  return type;
}

/** A version-2 `<row-update2>`, or undefined when nothing is to be sent. */
function rowUpdate2(
  mt: MonitorTable,
  old: Row | null,
  next: Row | null,
  initial: boolean,
): Record<string, unknown> | undefined {
  const type = conditionType(mt, old, next, initial);
  if (!(mt.select & type)) return undefined;
  if (type === DELETE) return { delete: null };
  let changed: Set<string> | undefined;
  if (type === MODIFY) {
    changed = changedColumns(mt, old as Row, next as Row);
    if (changed === undefined) return undefined;
  }
  const row = next as Row;
  const diff: Record<string, unknown> = {};
  for (const c of mt.columns) {
    if (!(type & c.select)) continue;
    const value = row.fields[c.name] as Datum;
    if (type === MODIFY) {
      if (!changed?.has(c.name)) continue;
      diff[c.name] = wire(datumDiff((old as Row).fields[c.name] as Datum, value, c.type), c.type);
    } else if (!isDefaultDatum(value, c.type)) {
      diff[c.name] = wire(value, c.type);
    }
  }
  return { [type === INITIAL ? 'initial' : type === MODIFY ? 'modify' : 'insert']: diff };
}

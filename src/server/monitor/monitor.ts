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
import { type TextInPieces, TextPieces } from '../../ovsdb/wire/json-stringify.js';
import type { Database, Row, TableStore } from '../engine/database.js';
import type { RowChange, TxnChanges } from '../engine/executor.js';
import { syntaxError } from '../engine/op-error.js';
import { OP_ARRAY, OP_BOOLEAN, OP_OBJECT, OP_OPTIONAL, OpParser } from '../engine/op-parser.js';
import { shashOrder } from '../engine/ovs-hash.js';
import { datumToWire, memberPrefix } from '../engine/values.js';
import type { HistoryEntry } from './history.js';
import { MonitorCondition } from './monitor-condition.js';

/** The monitor protocol version: 1 `monitor`, 2 `monitor_cond`, 3 `monitor_cond_since`. */
export type MonitorVersion = 1 | 2 | 3;

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
  /** The monitored columns, in ovsdb-server's column order (see {@link Monitor.create}). */
  readonly columns: MonitoredColumn[] = [];
  /** The monitored columns by name (a pre-serialized update writes members sorted). */
  sortedColumns: readonly MonitoredColumn[] = [];
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

/**
 * The watched columns whose value differs between `old` and `next`, if any.
 * `candidates`, when known, holds every column that may differ (a commit's
 * changed columns): only those are compared.
 */
function changedColumns(
  mt: MonitorTable,
  old: Row,
  next: Row,
  candidates: readonly string[] | undefined,
): Set<string> | undefined {
  let out: Set<string> | undefined;
  for (const c of candidates ?? mt.watched) {
    if (candidates !== undefined && !mt.watched.has(c)) continue;
    if (!datumsEqual(old.fields[c] as Datum, next.fields[c] as Datum)) {
      out ??= new Set();
      out.add(c);
    }
  }
  return out;
}

/** One row's update, decided but not yet written. */
interface RowUpdate {
  readonly uuid: string;
  /** {@link INITIAL}, {@link INSERT}, {@link DELETE} or {@link MODIFY}. */
  readonly type: number;
  readonly old: Row | null;
  readonly next: Row | null;
  /** For a modification, the watched columns whose value changed. */
  readonly changed: ReadonlySet<string> | undefined;
}

/** The row updates one table gets, in the order they were made. */
interface TableUpdates {
  readonly name: string;
  readonly mt: MonitorTable;
  readonly rows: RowUpdate[];
}

/**
 * One monitor of one session on one database.
 *
 * ```ts
 * const db = new Database(NB.schema);
 * db.transact([{ op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' } }]);
 * const m = Monitor.create(db, 2, 'm1', { Logical_Switch: { columns: ['name'] } });
 * m.initial(); // '{"Logical_Switch":{"…uuid…":{"initial":{"name":"sw0"}}}}'
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
      mt.sortedColumns = [...mt.columns].sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
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
  initial(): TextInPieces | undefined {
    const out = new Map<string, TableUpdates>();
    for (const [name, mt] of this.tables) {
      if (!(mt.select & INITIAL)) continue;
      for (const row of mt.store.rows.values()) {
        const u = this.decide(mt, row.uuid, null, row, true, undefined);
        if (u !== undefined) addUpdate(out, name, mt, u);
      }
    }
    return this.write(out, this.sorted);
  }

  /** The row updates one committed transaction causes, if any. */
  update(changes: TxnChanges): TextInPieces | undefined {
    const out = new Map<string, TableUpdates>();
    let lastTable = '';
    let mt: MonitorTable | undefined;
    for (const change of changes.rows) {
      if (change.table !== lastTable) {
        lastTable = change.table;
        mt = this.tables.get(change.table);
      }
      if (mt === undefined || !mt.touches(change)) continue;
      const u = this.decide(mt, change.uuid, change.old, change.new, false, change.changed);
      if (u !== undefined) addUpdate(out, change.table, mt, u);
    }
    return this.write(out, this.sorted);
  }

  /**
   * The changes of several transactions (from the history) merged per row,
   * as `monitor_cond_since` sends them when it finds the client's last
   * transaction: a row inserted and then deleted is left out, one inserted
   * and then modified is one insert with its final value.
   */
  since(entries: readonly HistoryEntry[]): TextInPieces | undefined {
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
    const out = new Map<string, TableUpdates>();
    for (const [name, rows] of merged) {
      const mt = this.tables.get(name) as MonitorTable;
      for (const [uuid, r] of rows) {
        const u = this.decide(mt, uuid, r.old, r.new, false, undefined);
        if (u !== undefined) addUpdate(out, name, mt, u);
      }
    }
    return this.write(out, this.sorted);
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
  conditionChangeUpdate(): TextInPieces | undefined {
    if (this.version === 1) return undefined;
    const out = new Map<string, TableUpdates>();
    let changed = false;
    for (const [name, mt] of this.tables) {
      const oldC = mt.oldCondition;
      const newC = mt.newCondition;
      if (oldC === undefined || newC === undefined || oldC.sameAs(newC)) continue;
      for (const row of mt.store.rows.values()) {
        const u = this.decide(mt, row.uuid, row, row, false, undefined);
        if (u !== undefined) addUpdate(out, name, mt, u);
      }
      mt.oldCondition = newC;
      changed = true;
    }
    // Composed for this session alone: never pre-serialized, so in hash order.
    const updates = this.write(out, false);
    if (changed) this.setMode();
    return updates;
  }

  /**
   * What monitor table `mt` sends for a row that was `old` and is `next`
   * (`initial`: a row of the initial contents), if anything. `candidates`:
   * the columns that may have changed, when known.
   */
  private decide(
    mt: MonitorTable,
    uuid: string,
    old: Row | null,
    next: Row | null,
    initial: boolean,
    candidates: readonly string[] | undefined,
  ): RowUpdate | undefined {
    const type =
      this.version === 1
        ? initial
          ? INITIAL
          : old === null
            ? INSERT
            : next === null
              ? DELETE
              : MODIFY
        : conditionType(mt, old, next, initial);
    if (!(mt.select & type)) return undefined;
    let changed: Set<string> | undefined;
    if (type === MODIFY) {
      changed = changedColumns(mt, old as Row, next as Row, candidates);
      if (changed === undefined) return undefined;
    }
    return { uuid, type, old, next, changed };
  }

  /**
   * The JSON text of `{table: {uuid: row-update}}` for `tables`, with every
   * object's members in the order ovsdb-server writes them: sorted (a
   * pre-serialized update) or in its hash order (see `ordered`). Each row
   * update is built in that order and written on its own; the text is in
   * pieces when it is long.
   */
  private write(tables: Map<string, TableUpdates>, sorted: boolean): TextInPieces | undefined {
    if (tables.size === 0) return undefined;
    const out = new TextPieces();
    let t = 0;
    for (const table of ordered([...tables.values()], (x) => x.name, sorted)) {
      out.add(`${t++ === 0 ? '{' : ','}${memberPrefix(table.name)}{`);
      let r = 0;
      for (const u of ordered(table.rows, (x) => x.uuid, sorted)) {
        // A row's UUID is canonical (hex digits and dashes): nothing to escape.
        const key = `${r++ === 0 ? '' : ','}"${u.uuid}":`;
        if (this.version === 1) writeRowUpdate1(table.mt, u, key, out);
        else writeRowUpdate2(table.mt, u, sorted, key, out);
      }
      out.add('}');
    }
    out.add('}');
    return out.finish();
  }
}

function addUpdate(
  out: Map<string, TableUpdates>,
  name: string,
  mt: MonitorTable,
  u: RowUpdate,
): void {
  const t = out.get(name);
  if (t === undefined) out.set(name, { name, mt, rows: [u] });
  else t.rows.push(u);
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

/**
 * `items` in the order ovsdb-server writes the members they are named by:
 * sorted by name (a pre-serialized update), or its hash order of their
 * insertion (`items`' order; a name given twice keeps its first place).
 */
function ordered<T>(items: T[], name: (item: T) => string, sorted: boolean): T[] {
  if (items.length <= 1) return items;
  const byName = new Map<string, T>();
  for (const item of items) {
    const n = name(item);
    if (!byName.has(n)) byName.set(n, item);
  }
  // Sorted by the engine's own string order (no comparator to call).
  const names = sorted ? [...byName.keys()].sort() : shashOrder([...byName.keys()]);
  return names.map((n) => byName.get(n) as T);
}

/**
 * Write `prefix`, the JSON text of `value` and `suffix`: one
 * `JSON.stringify` for the value, or, when it cannot write it (a bigint, a
 * text longer than one string), `stringifyJson`'s text in pieces.
 */
function writeJson(prefix: string, value: unknown, suffix: string, out: TextPieces): void {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text !== undefined) {
    out.add(prefix + text + suffix);
    return;
  }
  out.add(prefix);
  out.json(value);
  out.add(suffix);
}

/** The members of a version-1 row update in ovsdb-server's order when it has both. */
const OLD_NEW = shashOrder(['old', 'new']);

/** A row object (`{column: value}`) of `columns`' wire values, in ovsdb-server's hash order of their insertion. */
function rowObject(columns: MonitoredColumn[], values: Datum[]): Record<string, unknown> {
  const names = columns.map((c) => c.name);
  const order = names.length <= 1 ? names : shashOrder(names);
  const obj: Record<string, unknown> = {};
  for (let i = 0; i < order.length; i++) {
    const j = order === names ? i : names.indexOf(order[i] as string);
    const c = columns[j] as MonitoredColumn;
    obj[c.name] = datumToWire(values[j] as Datum, c.type);
  }
  return obj;
}

/**
 * A version-1 `<row-update>`: `{"old": …}` for deletes, `{"new": …}` for
 * initial rows and inserts, both for modifications (`old` with the changed
 * columns); every monitored column whose `select` includes the kind of change.
 */
function writeRowUpdate1(mt: MonitorTable, u: RowUpdate, key: string, out: TextPieces): void {
  const type = u.type;
  const hasOld = (type & (DELETE | MODIFY)) !== 0;
  const hasNew = (type & (INITIAL | INSERT | MODIFY)) !== 0;
  const oldColumns: MonitoredColumn[] = [];
  const oldValues: Datum[] = [];
  const newColumns: MonitoredColumn[] = [];
  const newValues: Datum[] = [];
  for (const c of mt.columns) {
    if (!(type & c.select)) continue;
    if (hasOld && (type === DELETE || u.changed?.has(c.name))) {
      oldColumns.push(c);
      oldValues.push((u.old as Row).fields[c.name] as Datum);
    }
    if (hasNew) {
      newColumns.push(c);
      newValues.push((u.next as Row).fields[c.name] as Datum);
    }
  }
  const members = hasOld && hasNew ? OLD_NEW : hasOld ? ['old'] : ['new'];
  const update: Record<string, unknown> = {};
  for (const m of members) {
    update[m] = m === 'old' ? rowObject(oldColumns, oldValues) : rowObject(newColumns, newValues);
  }
  writeJson(key, update, '', out);
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

/**
 * A version-2 `<row-update2>`: `initial` and `insert` carry the columns that
 * do not hold their default value, `modify` the diff of each changed column,
 * `delete` null; members sorted (`sorted`) or in ovsdb-server's hash order.
 */
function writeRowUpdate2(
  mt: MonitorTable,
  u: RowUpdate,
  sorted: boolean,
  key: string,
  out: TextPieces,
): void {
  const type = u.type;
  if (type === DELETE) {
    out.add(`${key}{"delete":null}`);
    return;
  }
  const row = u.next as Row;
  const columns: MonitoredColumn[] = [];
  const values: Datum[] = [];
  let diff: Record<string, unknown> | undefined = sorted ? {} : undefined;
  for (const c of sorted ? mt.sortedColumns : mt.columns) {
    if (!(type & c.select)) continue;
    let value = row.fields[c.name] as Datum;
    if (type === MODIFY) {
      if (!u.changed?.has(c.name)) continue;
      value = datumDiff((u.old as Row).fields[c.name] as Datum, value, c.type);
    } else if (isDefaultDatum(value, c.type)) {
      continue;
    }
    // Sorted: the members go in as they come.
    if (diff !== undefined) diff[c.name] = datumToWire(value, c.type);
    else {
      columns.push(c);
      values.push(value);
    }
  }
  diff ??= rowObject(columns, values);
  const kind = type === INITIAL ? 'initial' : type === MODIFY ? 'modify' : 'insert';
  writeJson(`${key}{"${kind}":`, diff, '}', out);
}

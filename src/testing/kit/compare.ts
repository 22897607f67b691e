/**
 * Comparing a database's state with an expected state written like a seed:
 * rows per table, by name (`{ p1: { name: 'p1' } }`) or in a list, each
 * giving the columns it checks, references by name or UUID.
 *
 * Names are matched to rows: a name the seed gave a row stands for that row;
 * any other name stands for whichever row makes every expected row match
 * (found by a search that backtracks). Sets and maps compare unordered,
 * integers by value. A failure is a diff by table and row, rows and
 * references written by name or natural key.
 * @module
 */

import type { ColumnType, TableSchema } from '../../ovsdb/schema/schema-types.js';
import { defaultDatum } from '../../ovsdb/values/defaults.js';
import { type Datum, datumsEqual } from '../../ovsdb/values/sorted-datum.js';
import { isUuid } from '../../ovsdb/values/uuid.js';
import { columnsKey, columnType } from '../../server/engine/table-store.js';
import { datumOf } from './datums.js';
import { Labeler, NAME_TOKEN, nameToken, naturalKey } from './format.js';
import { seedNameOf } from './names.js';
import type { State, StateRow } from './state.js';

/** An expected state as the comparison reads it (untyped). */
export type ExpectedInput = Readonly<
  Record<string, Readonly<Record<string, object>> | readonly object[]>
>;

/**
 * How expected rows are compared:
 * - `data`: each table named holds exactly the rows given (no more, no
 *   fewer); columns not given are not compared; other tables are not read.
 * - `exact`: every table holds exactly the rows given (a table not named is
 *   empty), and every column not given holds its default.
 * - `subset`: each table named holds at least the rows given.
 */
export type CompareMode = 'data' | 'exact' | 'subset';

/** The verdict of a comparison, and the message to show either way. */
export interface CompareResult {
  readonly pass: boolean;
  /** Why it failed (a diff), or what holds (for a negated assertion). */
  readonly message: string;
}

/** Most steps of the search for a matching before it gives up. */
const SEARCH_LIMIT = 200_000;

interface ExpRow {
  readonly table: TableSchema;
  readonly label: string;
  /** The key of its name (`table NUL name`), when it has one. */
  readonly key: string | undefined;
  /** Columns it checks, with their JS values as written. */
  readonly given: ReadonlyMap<string, unknown>;
  /** The columns compared (given ones, and in `exact` mode every other one). */
  readonly columns: readonly string[];
  /** Datums of the columns that name no row, computed once. */
  readonly ground: ReadonlyMap<string, Datum>;
  /** Columns that name rows: compared under the binding of names. */
  readonly named: readonly string[];
}

class Abort extends Error {}

const MODE_TEXT: Record<CompareMode | 'empty', string> = {
  data: 'to have data: each table named holds exactly the rows given (columns not given are not compared)',
  exact:
    'to have exactly this data: every table holds exactly the rows given, every column not given holds its default',
  subset:
    'to have at least this data: each table named holds the rows given (columns not given are not compared)',
  empty: 'to be empty',
};

function key(table: string, name: string): string {
  return `${table}${NAME_TOKEN}${name}`;
}

function hasToken(d: Datum): boolean {
  for (const k of d.keys) if (typeof k === 'string' && k.startsWith(NAME_TOKEN)) return true;
  for (const v of d.values ?? [])
    if (typeof v === 'string' && v.startsWith(NAME_TOKEN)) return true;
  return false;
}

/** One comparison: the expected rows, the state, and the binding of names to rows. */
class Comparison {
  readonly rows: ExpRow[] = [];
  /** The tables compared (named ones; every table in `exact` mode). */
  readonly tables: string[] = [];
  /** Names used (declared or referenced), by key. */
  private readonly used = new Set<string>();
  /** Name key → UUID, and back. */
  readonly binding = new Map<string, string>();
  private readonly boundBy = new Map<string, string>();
  /** The names bound by the seed, before any search. */
  private readonly seedBinding = new Map<string, string>();
  private steps = 0;

  constructor(
    readonly state: State,
    expected: ExpectedInput,
    readonly mode: CompareMode,
  ) {
    const schema = state.schema;
    const declared = new Set<string>();
    const raw: { table: TableSchema; label: string; key: string | undefined; row: object }[] = [];
    for (const [table, rows] of Object.entries(expected)) {
      const ts = Object.hasOwn(schema.tables, table) ? schema.tables[table] : undefined;
      if (ts === undefined)
        throw new TypeError(`expected state: ${schema.name} has no table ${table}`);
      this.tables.push(table);
      if (Array.isArray(rows)) {
        rows.forEach((row, i) => {
          raw.push({ table: ts, label: `${table}[${i}]`, key: undefined, row: row as object });
        });
      } else {
        for (const [name, row] of Object.entries(rows as Record<string, object>)) {
          declared.add(key(table, name));
          raw.push({ table: ts, label: name, key: key(table, name), row });
        }
      }
    }
    if (mode === 'exact') {
      for (const t of Object.keys(schema.tables)) if (!this.tables.includes(t)) this.tables.push(t);
    }
    // Seed names of rows present stand for those rows.
    const seedBound = new Map<string, string>();
    for (const [table, rows] of state.tables) {
      for (const r of rows) {
        const n = seedNameOf(table, r.uuid);
        if (n !== undefined) seedBound.set(key(table, n), r.uuid);
      }
    }
    const check = (v: string, refTable: string | undefined, where: string) => {
      if (isUuid(v)) return v.toLowerCase();
      if (refTable === undefined) throw new TypeError(`${where}: "${v}" is not a UUID`);
      const k = key(refTable, v);
      if (!declared.has(k) && !seedBound.has(k)) {
        throw new TypeError(
          `${where}: "${v}" names no ${refTable} row of the expected state or of the seed`,
        );
      }
      this.used.add(k);
      return nameToken(refTable, v);
    };
    for (const r of raw) {
      if (r.key !== undefined) this.used.add(r.key);
      const where = `expected state: ${r.table.name} ${r.label}`;
      if (typeof r.row !== 'object' || r.row === null || Array.isArray(r.row)) {
        throw new TypeError(`${where}: a row must be an object of columns`);
      }
      const given = new Map<string, unknown>();
      const ground = new Map<string, Datum>();
      const named: string[] = [];
      for (const [c, v] of Object.entries(r.row)) {
        if (v === undefined) continue;
        if (c === '_version') throw new TypeError(`${where}: _version cannot be compared`);
        given.set(c, v);
        const d = datumOf(r.table, c, v, check, where);
        if (hasToken(d)) named.push(c);
        else ground.set(c, d);
      }
      const columns = [...given.keys()];
      if (mode === 'exact') {
        for (const c of r.table.columnNames) {
          if (given.has(c)) continue;
          columns.push(c);
          ground.set(c, defaultDatum(columnType(r.table, c)));
        }
      }
      this.rows.push({ table: r.table, label: r.label, key: r.key, given, columns, ground, named });
    }
    for (const [k, uuid] of seedBound) {
      if (!this.used.has(k)) continue;
      this.seedBinding.set(k, uuid);
      this.binding.set(k, uuid);
      this.boundBy.set(uuid, k);
    }
  }

  /** Datum of column `c` of expected row `r` under the current binding. */
  expected(r: ExpRow, c: string): Datum {
    const g = r.ground.get(c);
    if (g !== undefined) return g;
    return datumOf(
      r.table,
      c,
      r.given.get(c),
      (v, refTable) => {
        if (isUuid(v) || refTable === undefined) return v.toLowerCase();
        const k = key(refTable, v);
        return this.binding.get(k) ?? nameToken(refTable, v);
      },
      r.label,
    );
  }

  /** Whether `a` matches `r` on its columns that name no row. */
  private groundMatch(r: ExpRow, a: StateRow): boolean {
    for (const [c, d] of r.ground) {
      const got = a.fields[c];
      if (got === undefined || !datumsEqual(d, got)) return false;
    }
    return true;
  }

  /** Candidate rows of `r`: its table's rows that match it on ground columns. */
  candidates(r: ExpRow): StateRow[] {
    const rows = this.state.tables.get(r.table.name) ?? [];
    const bound = r.key === undefined ? undefined : this.binding.get(r.key);
    if (bound !== undefined) return rows.filter((a) => a.uuid === bound && this.groundMatch(r, a));
    return rows.filter((a) => this.groundMatch(r, a));
  }

  /** Columns naming rows, as far as the binding tells: equal when all bound, else of equal size. */
  private namedMatch(r: ExpRow, a: StateRow, final: boolean): boolean {
    for (const c of r.named) {
      const d = this.expected(r, c);
      const got = a.fields[c];
      if (got === undefined) return false;
      if (hasToken(d)) {
        if (final || d.keys.length !== got.keys.length) return false;
      } else if (!datumsEqual(d, got)) {
        return false;
      }
    }
    return true;
  }

  private bind(r: ExpRow, uuid: string): boolean | undefined {
    if (r.key === undefined) return false;
    const b = this.binding.get(r.key);
    if (b !== undefined) return b === uuid ? false : undefined;
    const other = this.boundBy.get(uuid);
    if (other !== undefined && other !== r.key) return undefined;
    this.binding.set(r.key, uuid);
    this.boundBy.set(uuid, r.key);
    return true;
  }

  private unbind(r: ExpRow, uuid: string): void {
    if (r.key === undefined) return;
    this.binding.delete(r.key);
    this.boundBy.delete(uuid);
  }

  /**
   * Find rows for every expected row (distinct rows, names bound
   * consistently). Returns the assignment, or undefined when there is none
   * (or the search gave up).
   */
  search(): Map<ExpRow, string> | undefined {
    const cands = new Map<ExpRow, StateRow[]>();
    for (const r of this.rows) cands.set(r, this.candidates(r));
    const order = [...this.rows].sort(
      (a, b) => (cands.get(a)?.length ?? 0) - (cands.get(b)?.length ?? 0),
    );
    const assign = new Map<ExpRow, string>();
    const used = new Set<string>();
    const dfs = (i: number): boolean => {
      if (++this.steps > SEARCH_LIMIT) throw new Abort();
      if (i === order.length) {
        for (const [r, uuid] of assign) {
          const a = this.state.byUuid.get(uuid)?.row as StateRow;
          if (!this.namedMatch(r, a, true)) return false;
        }
        return true;
      }
      const r = order[i] as ExpRow;
      for (const a of cands.get(r) ?? []) {
        if (used.has(a.uuid)) continue;
        const bound = this.bind(r, a.uuid);
        if (bound === undefined) continue;
        if (this.namedMatch(r, a, false)) {
          used.add(a.uuid);
          assign.set(r, a.uuid);
          if (dfs(i + 1)) return true;
          assign.delete(r);
          used.delete(a.uuid);
        }
        if (bound) this.unbind(r, a.uuid);
      }
      return false;
    };
    try {
      return dfs(0) ? assign : undefined;
    } catch (e) {
      if (e instanceof Abort) return undefined;
      throw e;
    }
  }

  /** How many of `r`'s columns `a` holds as expected (under the current binding). */
  private score(r: ExpRow, a: StateRow): number {
    let n = 0;
    for (const c of r.columns) {
      const got = a.fields[c];
      if (got !== undefined && datumsEqual(this.expected(r, c), got)) n++;
    }
    return n;
  }

  /**
   * A pairing for the diff when no matching exists: rows bound by name
   * first, then each expected row with the free row of its table that
   * shares its natural key, or else holds most of its columns.
   */
  pairing(): Map<ExpRow, string> {
    // Start again from the seed's names (a search that gave up may leave others bound).
    this.binding.clear();
    this.boundBy.clear();
    for (const [k, uuid] of this.seedBinding) {
      this.binding.set(k, uuid);
      this.boundBy.set(uuid, k);
    }
    const pairs = new Map<ExpRow, string>();
    const used = new Set<string>();
    const take = (r: ExpRow, uuid: string): void => {
      pairs.set(r, uuid);
      used.add(uuid);
      this.bind(r, uuid);
    };
    for (const r of this.rows) {
      const b = r.key === undefined ? undefined : this.binding.get(r.key);
      if (b !== undefined && this.state.byUuid.has(b) && !used.has(b)) take(r, b);
    }
    for (const r of this.rows) {
      if (pairs.has(r)) continue;
      const free = (this.state.tables.get(r.table.name) ?? []).filter((a) => !used.has(a.uuid));
      const index = r.table.indexes.find((ix) => ix.every((c) => r.ground.has(c)));
      let best: StateRow | undefined;
      if (index !== undefined) {
        const want = columnsKey(Object.fromEntries(r.ground), index);
        best = free.find((a) => columnsKey(a.fields, index) === want);
      }
      if (best === undefined) {
        let bestScore = 0;
        for (const a of free) {
          const s = this.score(r, a);
          if (s > bestScore) {
            bestScore = s;
            best = a;
          }
        }
        if (best !== undefined && bestScore * 2 < r.columns.length) best = undefined;
      }
      if (best !== undefined) take(r, best.uuid);
    }
    return pairs;
  }

  /** Whether every compared table holds as many rows as expected (`subset`: at least). */
  countsMatch(): boolean {
    if (this.mode === 'subset') return true;
    for (const t of this.tables) {
      const want = this.rows.filter((r) => r.table.name === t).length;
      if ((this.state.tables.get(t)?.length ?? 0) !== want) return false;
    }
    return true;
  }
}

/** UUID → name, for the labels of a comparison's rows. */
function namesOf(c: Comparison): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, uuid] of c.binding) out.set(uuid, k.slice(k.indexOf(NAME_TOKEN) + 1));
  return out;
}

function diff(c: Comparison, pairs: Map<ExpRow, string>, database: string): string {
  const labels = new Labeler(c.state, namesOf(c));
  const lines: string[] = [`expected ${database} ${MODE_TEXT[c.mode]}`];
  const paired = new Set(pairs.values());
  for (const t of c.tables) {
    const table = c.state.schema.tables[t] as TableSchema;
    const body: string[] = [];
    let differs = 0;
    let missing = 0;
    let unexpected = 0;
    for (const r of c.rows) {
      if (r.table.name !== t) continue;
      const uuid = pairs.get(r);
      if (uuid === undefined) {
        missing++;
        const summary = [...r.given.keys()]
          .map(
            (col) =>
              `${col}: ${labels.value(table.columns[col]?.type as ColumnType, c.expected(r, col))}`,
          )
          .join(', ');
        body.push(`  - ${r.label}  missing: {${summary}}`);
        continue;
      }
      const a = c.state.byUuid.get(uuid)?.row as StateRow;
      const cols = r.columns.filter((col) => {
        const got = a.fields[col];
        return got === undefined || !datumsEqual(c.expected(r, col), got);
      });
      if (cols.length === 0) continue;
      differs++;
      const actual = labels.label(t, uuid);
      const alt = naturalKey(table, a);
      const shown =
        actual === r.label
          ? alt === r.label
            ? r.label
            : `${r.label} (${alt})`
          : `${r.label} (paired with ${actual})`;
      body.push(`  ~ ${shown}`);
      for (const col of cols) {
        const type = table.columns[col]?.type as ColumnType;
        const pad = ' '.repeat(col.length);
        body.push(`      ${col}: expected ${labels.value(type, c.expected(r, col))}`);
        body.push(`      ${pad}  received ${labels.value(type, a.fields[col])}`);
      }
    }
    if (c.mode !== 'subset') {
      const extra = (c.state.tables.get(t) ?? []).filter((a) => !paired.has(a.uuid));
      unexpected = extra.length;
      const shownExtra = extra
        .map((a) => ({ label: labels.label(t, a.uuid), a }))
        .sort((x, y) => compareText(x.label, y.label));
      for (const { label, a } of shownExtra.slice(0, 10)) {
        body.push(`  + ${label}  unexpected: ${labels.summary(table, a)}`);
      }
      if (extra.length > 10) body.push(`  + … ${extra.length - 10} more unexpected rows`);
    }
    if (body.length === 0) continue;
    const counts = [
      differs > 0 ? `${differs} differ${differs === 1 ? 's' : ''}` : '',
      missing > 0 ? `${missing} missing` : '',
      unexpected > 0 ? `${unexpected} unexpected` : '',
    ].filter((s) => s !== '');
    lines.push('', `${t}: ${counts.join(', ')}`, ...body);
  }
  if (lines.length === 1) {
    lines.push(
      '',
      'no row could be matched to every expected row at once (names bound differently); the rows themselves match one by one',
    );
  }
  return lines.join('\n');
}

/**
 * Compare `state` with `expected` in `mode`. The message is a diff when
 * the comparison fails, a sentence when it holds (for negation).
 * @throws TypeError when `expected` names an unknown table or column, has a
 *   value of the wrong type, or refers to a name it does not declare and no
 *   seed gave.
 */
export function compareState(
  state: State,
  expected: ExpectedInput,
  mode: CompareMode,
): CompareResult {
  const c = new Comparison(state, expected, mode);
  const found = c.search();
  const database = state.schema.name;
  if (found !== undefined && c.countsMatch()) {
    return { pass: true, message: `expected ${database} not ${MODE_TEXT[mode]}, but it does` };
  }
  return { pass: false, message: diff(c, found ?? c.pairing(), database) };
}

/** Compare `state` with an empty database. */
export function compareEmpty(state: State): CompareResult {
  const c = new Comparison(state, {}, 'exact');
  const database = state.schema.name;
  if (c.countsMatch()) {
    return { pass: true, message: `expected ${database} not ${MODE_TEXT.empty}, but it is` };
  }
  return {
    pass: false,
    message: diff(c, new Map(), database).replace(MODE_TEXT.exact, MODE_TEXT.empty),
  };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** JSON text of `v` with bigints as digits: an order for rows of the same label. */
function stableText(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
}

/**
 * The state as plain data for a snapshot: `{ table: { label: row } }` with
 * the tables that have rows, each row's columns that do not hold their
 * defaults, and every reference written as the label of its row (a seed
 * name or a natural key). The same for any UUIDs the rows got.
 */
export function plainState(state: State): Record<string, Record<string, Record<string, unknown>>> {
  const labels = new Labeler(state);
  const out: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const t of Object.keys(state.schema.tables).sort()) {
    const rows = state.tables.get(t) ?? [];
    if (rows.length === 0) continue;
    const table = state.schema.tables[t] as TableSchema;
    const entries = rows.map((r) => {
      const row = labels.plain(table, r);
      return { label: labels.label(t, r.uuid), row, text: stableText(row) };
    });
    entries.sort((a, b) => compareText(a.label, b.label) || compareText(a.text, b.text));
    const byLabel: Record<string, Record<string, unknown>> = {};
    for (const { label, row } of entries) {
      let l = label;
      for (let i = 2; Object.hasOwn(byLabel, l); i++) l = `${label} #${i}`;
      byLabel[l] = row;
    }
    out[t] = byLabel;
  }
  return out;
}

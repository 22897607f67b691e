/**
 * Applying monitor row changes to rows in the JS representation: the `initial`,
 * `insert`, `modify` and `delete` changes of `update2`/`update3` (and of
 * `monitor_cond*` replies), and the `old`/`new` changes of `update` (plain
 * `monitor`).
 *
 * Everything here is a pure function of (table schema, monitored columns,
 * current row, change): it keeps no state, so a client replica and a server
 * that composes or replays updates share one definition of the semantics.
 *
 * ## Rows
 *
 * A row is a plain object with `_uuid` first, then every monitored column (in
 * the table's column order, `_version` included when monitored), all rows of a
 * {@link RowCodec} sharing one shape. Rows are never changed once built: a
 * change produces a new object that shares the unchanged column values with
 * the old one (structural sharing). Empty sets and maps are the shared frozen
 * {@link EMPTY_SET} and {@link EMPTY_MAP}.
 *
 * ## `update2` diff semantics (ovsdb-server(7) §4.1.14)
 *
 * - `initial`/`insert` rows omit columns whose value is the column default;
 *   the default is filled in ({@link defaultValue}).
 * - `modify` carries, per changed column:
 *   - a column holding at most one value (scalar, optional, or a map with
 *     `max` 1): the new value;
 *   - a set (`max` > 1): the symmetric difference: each element present is
 *     removed, each absent one added;
 *   - a map (`max` > 1): changed pairs: a new key is added, a key whose value
 *     equals the current one is removed, a key with another value is updated.
 * - `delete` is `null`.
 *
 * Sets stay in the canonical order ovsdb-server sends them in (ascending):
 * added elements are merged in, so a replica equals a fresh dump element for
 * element.
 * @module
 */

import type { Atom, ColumnSchema, TableSchema } from '../schema/schema-types.js';
import { DatumError, OvsdbError } from '../wire/errors.js';
import type { RowUpdate, RowUpdate2, WireRow } from '../wire/wire.js';
import { compileColumnCodec, defaultValue } from './datum.js';

/** A row as the replica holds it: `_uuid` plus the monitored columns. Never mutated. */
export type Row = Readonly<Record<string, unknown>>;

/** The shared value of every empty set (and of empty set-typed defaults). */
export const EMPTY_SET: readonly never[] = Object.freeze([]);

/** The shared value of every empty map. */
export const EMPTY_MAP: Readonly<Record<string, never>> = Object.freeze({});

/**
 * A change that cannot be applied to the current state: a `modify` or
 * `delete` of a row the replica does not have, or an `insert` of one it
 * already has. It means the replica and the server disagree; the client
 * answers it with a full resynchronisation.
 */
export class ReplicaInconsistencyError extends OvsdbError {
  override name = 'ReplicaInconsistencyError';
  constructor(
    /** The table of the row. */
    readonly table: string,
    /** The row's UUID. */
    readonly uuid: string,
    /** What was wrong. */
    readonly reason: string,
  ) {
    super(`${table} row ${uuid}: ${reason}`);
  }
}

type ValueDecoder = (json: unknown) => unknown;
type DiffApplier = (current: unknown, diff: unknown) => unknown;

/** How one monitored column is decoded, diffed and compared. */
interface ColumnOps {
  readonly name: string;
  readonly column: ColumnSchema;
  /** Wire value → JS value (empties shared). */
  readonly decode: ValueDecoder;
  /** Current JS value + wire diff → new JS value. */
  readonly applyDiff: DiffApplier;
  /** JS value equality. */
  readonly equal: (a: unknown, b: unknown) => boolean;
}

/**
 * The compiled operations of one table for one set of monitored columns.
 * Build it once with {@link compileRowCodec}; it is immutable.
 */
export interface RowCodec {
  /** The table's schema. */
  readonly table: TableSchema;
  /** The monitored columns (`_version` included when monitored), in row order. */
  readonly columns: readonly string[];
  /**
   * Columns present in every row with their default value but not monitored
   * (columns the server lacks), in row order.
   */
  readonly filled: readonly string[];
  /**
   * Build the row of an `initial` or `insert` change: columns the wire row
   * omits get their default value; columns that are not monitored are
   * ignored.
   * @throws DatumError when a value does not fit its column.
   */
  decodeRow(uuid: string, wire: WireRow): Row;
  /**
   * Apply an `update2` `modify` diff to `current`, returning a new row that
   * shares every unchanged value with `current` (or `current` itself when
   * the diff changes nothing).
   * @throws DatumError when a value does not fit its column.
   */
  applyModify(current: Row, diff: WireRow): Row;
  /**
   * Apply the `new` member of a plain `update` to `current`: each column
   * present replaces the current value (no diff semantics). Without
   * `current`, this builds a new row like {@link RowCodec.decodeRow}.
   */
  applyNew(uuid: string, current: Row | undefined, wire: WireRow): Row;
  /** True when the two rows have equal values in every monitored column. */
  equalRows(a: Row, b: Row): boolean;
  /** The monitored columns whose values differ between `a` and `b`. */
  changedColumns(a: Row, b: Row): string[];
}

// ---- atoms and canonical order ------------------------------------------

/**
 * Compare two atoms of the same type in ovsdb-server's order: numbers
 * numerically, `false` before `true`, strings (and UUIDs) by UTF-16 code
 * units (which matches the server's byte order except between characters
 * above U+FFFF and those in U+E000–U+FFFF).
 */
export function compareAtoms(a: Atom, b: Atom): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function isEmptyWireSet(j: unknown): boolean {
  return Array.isArray(j) && j.length === 2 && j[0] === 'set' && (j[1] as unknown[]).length === 0;
}

function isEmptyWireMap(j: unknown): boolean {
  return Array.isArray(j) && j.length === 2 && j[0] === 'map' && (j[1] as unknown[]).length === 0;
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

function defineKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    obj[key] = value;
  }
}

/** The default value of `column` with shared empties. */
function sharedDefault(column: ColumnSchema): unknown {
  const v = defaultValue(column);
  if (Array.isArray(v) && v.length === 0) return EMPTY_SET;
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && !hasKeys(v)) return EMPTY_MAP;
  return v;
}

// ---- set and map diffs ----------------------------------------------------

/**
 * Sets (held by rows) known to be in canonical order: a set built by
 * {@link applySetDiff} from one of them is too, so the order of a large set
 * that changes often is checked only once.
 */
const sortedSets = new WeakSet<readonly Atom[]>();

/**
 * Private, never frozen copies of large sets that rows hold: the replica
 * freezes a row's values, and V8 copies frozen arrays element by element
 * (`toSpliced` of a frozen 5,000-element array takes ~100 times as long as
 * of a plain one), so the next diff of the set copies the twin instead. Keyed weakly: a twin lives as long as its set.
 */
const twins = new WeakMap<readonly Atom[], readonly Atom[]>();

/** Sets at least this long get a twin. */
const TWIN_MIN = 256;

/** Sets at least this long are searched by bisection (when known sorted). */
const BISECT_MIN = 16;

function isSorted(xs: readonly Atom[]): boolean {
  if (twins.has(xs) || sortedSets.has(xs)) return true;
  for (let i = 1; i < xs.length; i++) if (compareAtoms(xs[i - 1]!, xs[i]!) >= 0) return false;
  sortedSets.add(xs);
  return true;
}

/** The index of `x` in sorted `xs`, or `-(insertion point) - 1`. */
function bisect(xs: readonly Atom[], x: Atom): number {
  let lo = 0;
  let hi = xs.length;
  if (typeof x === 'string') {
    // Strings and UUIDs (the common case) compared inline.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const y = xs[mid] as string;
      if (y < x) lo = mid + 1;
      else if (y > x) hi = mid;
      else return mid;
    }
    return -lo - 1;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareAtoms(xs[mid]!, x);
    if (c < 0) lo = mid + 1;
    else if (c > 0) hi = mid;
    else return mid;
  }
  return -lo - 1;
}

/**
 * Apply a set diff (symmetric difference) to `current`, which is in
 * canonical (ascending) order; the result is too. Returns `current` itself
 * when `diff` is empty.
 *
 * A small diff against a large set (the common case: one port added to a
 * switch) costs a binary search per element and one array copy, not a hash
 * set of `current`.
 */
export function applySetDiff(current: readonly Atom[], diff: readonly Atom[]): readonly Atom[] {
  if (diff.length === 0) return current;
  if (current.length >= BISECT_MIN && isSorted(current)) return applySortedDiff(current, diff);
  const present = current.length > 8 ? new Set<Atom>(current) : undefined;
  const has = (x: Atom) => (present ? present.has(x) : current.includes(x));
  let removed: Set<Atom> | undefined;
  const added: Atom[] = [];
  for (const x of diff) {
    if (has(x)) {
      removed ??= new Set();
      removed.add(x);
    } else added.push(x);
  }
  const kept = removed ? current.filter((x) => !removed.has(x)) : current;
  if (added.length === 0) return kept.length === 0 ? EMPTY_SET : kept;
  added.sort(compareAtoms);
  return mergeSorted(kept, added);
}

/** {@link applySetDiff} for a `current` known to be sorted. */
function applySortedDiff(current: readonly Atom[], diff: readonly Atom[]): readonly Atom[] {
  // `slice` makes a plain copy: `toSpliced` of a frozen array yields one
  // whose later copies are slow too.
  const src =
    twins.get(current) ??
    (current.length >= TWIN_MIN && Object.isFrozen(current) ? current.slice() : current);
  let removeAt: number[] | undefined;
  let added: Atom[] | undefined;
  for (const x of diff) {
    const i = bisect(src, x);
    if (i >= 0) {
      removeAt ??= [];
      removeAt.push(i);
    } else {
      added ??= [];
      added.push(x);
    }
  }
  let kept: Atom[] | undefined;
  if (removeAt !== undefined) {
    if (removeAt.length === 1) {
      kept = src.toSpliced(removeAt[0]!, 1);
    } else {
      // A diff never names one element twice, but stay correct if it does.
      const drop = new Set(removeAt);
      kept = src.filter((_, i) => !drop.has(i));
    }
  }
  let out: Atom[];
  if (added === undefined) {
    if (kept === undefined || kept.length === 0) return EMPTY_SET;
    out = kept;
  } else if (added.length === 1) {
    const x = added[0]!;
    const from = kept ?? src;
    out = from.toSpliced(-bisect(from, x) - 1, 0, x);
  } else {
    added.sort(compareAtoms);
    out = insertSorted(kept ?? src, dedupeSorted(added));
  }
  if (out.length < TWIN_MIN) {
    sortedSets.add(out);
    return out;
  }
  const shown = out.slice();
  twins.set(shown, out);
  return shown;
}

function dedupeSorted(xs: Atom[]): Atom[] {
  let n = 0;
  for (let i = 0; i < xs.length; i++) {
    if (i === 0 || compareAtoms(xs[i - 1]!, xs[i]!) !== 0) xs[n++] = xs[i]!;
  }
  xs.length = n;
  return xs;
}

/**
 * Insert sorted `added` (none of them in `kept`) into sorted `kept`: each
 * position is found by bisection and the runs of `kept` between them are
 * copied without comparing.
 */
function insertSorted(kept: readonly Atom[], added: readonly Atom[]): Atom[] {
  const out: Atom[] = [];
  let from = 0;
  for (const x of added) {
    let lo = from;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareAtoms(kept[mid]!, x) < 0) lo = mid + 1;
      else hi = mid;
    }
    while (from < lo) out.push(kept[from++]!);
    out.push(x);
  }
  while (from < kept.length) out.push(kept[from++]!);
  return out;
}

/** Merge two sorted lists. */
function mergeSorted(kept: readonly Atom[], added: readonly Atom[]): Atom[] {
  const out: Atom[] = [];
  let i = 0;
  let j = 0;
  while (i < kept.length && j < added.length) {
    if (compareAtoms(kept[i]!, added[j]!) <= 0) out.push(kept[i++]!);
    else out.push(added[j++]!);
  }
  while (i < kept.length) out.push(kept[i++]!);
  while (j < added.length) out.push(added[j++]!);
  return out;
}

/**
 * Apply a map diff to `current`: a key absent from `current` is added; a key
 * whose value equals the current one is removed; any other key takes the new
 * value. Returns `current` itself when `diff` is empty.
 */
export function applyMapDiff(
  current: Readonly<Record<string, unknown>>,
  diff: Readonly<Record<string, unknown>>,
): Readonly<Record<string, unknown>> {
  const keys = Object.keys(diff);
  if (keys.length === 0) return current;
  const out: Record<string, unknown> = { ...current };
  let removedAny = false;
  for (const k of keys) {
    const v = diff[k];
    if (Object.hasOwn(out, k) && out[k] === v) {
      delete out[k];
      removedAny = true;
    } else {
      defineKey(out, k, v);
    }
  }
  if (removedAny && !hasKeys(out)) return EMPTY_MAP;
  return out;
}

function setsEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const x = a as readonly Atom[];
  const y = b as readonly Atom[];
  if (x.length !== y.length) return false;
  let i = 0;
  while (i < x.length && x[i] === y[i]) i++;
  if (i === x.length) return true;
  // Same elements in another order?
  const s = new Set<Atom>(x);
  for (const e of y) if (!s.has(e)) return false;
  return true;
}

function mapsEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const x = a as Readonly<Record<string, unknown>>;
  const y = b as Readonly<Record<string, unknown>>;
  let n = 0;
  for (const k in x) {
    if (!Object.hasOwn(y, k) || x[k] !== y[k]) return false;
    n++;
  }
  for (const _ in y) n--;
  return n === 0;
}

function atomsEqual(a: unknown, b: unknown): boolean {
  return a === b;
}

// ---- per-column operations ------------------------------------------------

const columnOpsCache = new WeakMap<ColumnSchema, Map<string, ColumnOps>>();

function columnOps(table: string, column: ColumnSchema): ColumnOps {
  let byTable = columnOpsCache.get(column);
  if (byTable === undefined) {
    byTable = new Map();
    columnOpsCache.set(column, byTable);
  }
  let ops = byTable.get(table);
  if (ops === undefined) {
    ops = buildColumnOps(table, column);
    byTable.set(table, ops);
  }
  return ops;
}

function buildColumnOps(table: string, column: ColumnSchema): ColumnOps {
  const codec = compileColumnCodec(table, column);
  const raw = codec.decode;
  const { type } = column;
  const name = column.name;
  let decode: ValueDecoder;
  let applyDiff: DiffApplier;
  let equal: (a: unknown, b: unknown) => boolean;
  switch (type.kind) {
    case 'scalar': {
      const atomType = type.key.type;
      if (atomType === 'string') decode = (j) => (typeof j === 'string' ? j : raw(j));
      else if (atomType === 'integer')
        decode = (j) => (typeof j === 'number' && Number.isSafeInteger(j) ? j : raw(j));
      else if (atomType === 'real')
        decode = (j) => (typeof j === 'number' && Number.isFinite(j) ? j : raw(j));
      else if (atomType === 'boolean') decode = (j) => (typeof j === 'boolean' ? j : raw(j));
      else decode = raw;
      applyDiff = (_current, diff) => decode(diff);
      equal = atomsEqual;
      break;
    }
    case 'optional':
      decode = (j) => (isEmptyWireSet(j) ? null : raw(j));
      applyDiff = (_current, diff) => decode(diff);
      equal = atomsEqual;
      break;
    case 'set':
      decode = (j) => {
        if (isEmptyWireSet(j)) return EMPTY_SET;
        const v = raw(j) as Atom[];
        return v.length === 0 ? EMPTY_SET : v;
      };
      applyDiff = (current, diff) =>
        applySetDiff(current as readonly Atom[], raw(diff) as readonly Atom[]);
      equal = setsEqual;
      break;
    case 'map':
      decode = (j) => {
        if (isEmptyWireMap(j)) return EMPTY_MAP;
        const v = raw(j) as Record<string, unknown>;
        return hasKeys(v) ? v : EMPTY_MAP;
      };
      applyDiff =
        type.max > 1
          ? (current, diff) =>
              applyMapDiff(
                current as Readonly<Record<string, unknown>>,
                raw(diff) as Readonly<Record<string, unknown>>,
              )
          : (_current, diff) => decode(diff);
      equal = mapsEqual;
      break;
  }
  return { name, column, decode, applyDiff, equal };
}

// ---- row codec --------------------------------------------------------------

const rowCodecCache = new WeakMap<TableSchema, Map<string, RowCodec>>();

/**
 * The {@link RowCodec} of `table` when `columns` are monitored (default: every
 * column, `_version` included). Columns in `filled` are in every row with
 * their default value (for columns the server lacks). Cached per table and
 * column lists.
 * @throws DatumError when a column is not in the table.
 */
export function compileRowCodec(
  table: TableSchema,
  columns?: readonly string[],
  filled: readonly string[] = [],
): RowCodec {
  const list = columns ?? ['_version', ...table.columnNames];
  const cacheKey = `${list.join('\u0000')}\u0001${filled.join('\u0000')}`;
  let byColumns = rowCodecCache.get(table);
  if (byColumns === undefined) {
    byColumns = new Map();
    rowCodecCache.set(table, byColumns);
  }
  let codec = byColumns.get(cacheKey);
  if (codec === undefined) {
    codec = buildRowCodec(table, list, filled);
    byColumns.set(cacheKey, codec);
  }
  return codec;
}

function buildRowCodec(
  table: TableSchema,
  requested: readonly string[],
  filledColumns: readonly string[],
): RowCodec {
  const tableName = table.name;
  const wanted = new Set(requested);
  const fill = new Set(filledColumns.filter((c) => !wanted.has(c)));
  // Row order: _version first (when monitored), then the table's column order.
  const ordered: string[] = [];
  const inRow: string[] = [];
  if (wanted.has('_version')) {
    ordered.push('_version');
    inRow.push('_version');
  }
  for (const c of table.columnNames) {
    if (wanted.has(c)) ordered.push(c);
    if (wanted.has(c) || fill.has(c)) inRow.push(c);
  }
  for (const c of [...requested, ...fill]) {
    if (c === '_uuid') continue;
    if (table.columns[c] === undefined) {
      throw new DatumError(tableName, c, undefined, `table ${tableName} has no column ${c}`);
    }
  }
  const ops: ColumnOps[] = ordered.map((c) => columnOps(tableName, table.columns[c]!));
  const byName: Record<string, ColumnOps> = Object.create(null);
  for (const o of ops) byName[o.name] = o;

  // Every row starts as a copy of this template, so all rows share one shape.
  const template: Record<string, unknown> = { _uuid: '' };
  for (const c of inRow) template[c] = sharedDefault(table.columns[c]!);

  const columnsList = Object.freeze(ordered.slice());
  const filledList = Object.freeze(inRow.filter((c) => fill.has(c)));

  const decodeRow = compileBuilder(inRow, byName, template) ?? genericBuilder(template, byName);

  const applyModify = (current: Row, diff: WireRow): Row => {
    let row: Record<string, unknown> | undefined;
    for (const k in diff) {
      const o = byName[k];
      if (o === undefined) continue;
      const before = current[k];
      const after = o.applyDiff(before, diff[k]);
      if (after === before) continue;
      row ??= { ...current };
      row[k] = after;
    }
    return row ?? current;
  };

  const applyNew = (uuid: string, current: Row | undefined, wire: WireRow): Row => {
    if (current === undefined) return decodeRow(uuid, wire);
    let row: Record<string, unknown> | undefined;
    for (const k in wire) {
      const o = byName[k];
      if (o === undefined) continue;
      const after = o.decode(wire[k]);
      if (o.equal(after, current[k])) continue;
      row ??= { ...current };
      row[k] = after;
    }
    return row ?? current;
  };

  // A row built under other monitored columns may lack a column.
  const same = (o: ColumnOps, x: unknown, y: unknown): boolean =>
    x === undefined || y === undefined ? x === y : o.equal(x, y);

  const equalRows = (a: Row, b: Row): boolean => {
    if (a === b) return true;
    for (const o of ops) if (!same(o, a[o.name], b[o.name])) return false;
    return true;
  };

  const changedColumns = (a: Row, b: Row): string[] => {
    const out: string[] = [];
    for (const o of ops) if (!same(o, a[o.name], b[o.name])) out.push(o.name);
    return out;
  };

  return {
    table,
    columns: columnsList,
    filled: filledList,
    decodeRow,
    applyModify,
    applyNew,
    equalRows,
    changedColumns,
  };
}

type RowBuilder = (uuid: string, wire: WireRow) => Row;

/** Copy the template, then decode the columns the wire row has. */
function genericBuilder(
  template: Readonly<Record<string, unknown>>,
  byName: Readonly<Record<string, ColumnOps>>,
): RowBuilder {
  return (uuid, wire) => {
    const row: Record<string, unknown> = { ...template };
    row['_uuid'] = uuid;
    for (const k in wire) {
      const o = byName[k];
      if (o !== undefined) row[k] = o.decode(wire[k]);
    }
    return row;
  };
}

const IDENTIFIER_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A builder that makes each row with one object literal listing every
 * column, so that all rows of the table share one compact shape with their
 * properties stored in the object itself (this halves the decoding time and
 * the garbage of a large initial dump). Column names are schema identifiers,
 * checked again here; undefined when one cannot be used as a literal key
 * (`__proto__`), and the generic builder is used instead.
 */
function compileBuilder(
  inRow: readonly string[],
  byName: Readonly<Record<string, ColumnOps>>,
  template: Readonly<Record<string, unknown>>,
): RowBuilder | undefined {
  if (!inRow.every((c) => IDENTIFIER_RE.test(c) && !(c in Object.prototype) && c !== '_uuid')) {
    return undefined;
  }
  const decoders: ValueDecoder[] = [];
  const defaults: unknown[] = [];
  const fields = inRow.map((c, i) => {
    defaults.push(template[c]);
    const o = byName[c];
    if (o === undefined) return `${c}: f[${i}]`;
    decoders.push(o.decode);
    const d = decoders.length - 1;
    return `${c}: (v = w.${c}) === undefined ? f[${i}] : d[${d}](v)`;
  });
  const body = `return function decodeRow(u, w) { let v; return { _uuid: u, ${fields.join(', ')} }; };`;
  try {
    const make = new Function('d', 'f', body) as (d: ValueDecoder[], f: unknown[]) => RowBuilder;
    return make(decoders, defaults);
  } catch {
    return undefined;
  }
}

// ---- applying one change ----------------------------------------------------

/**
 * Apply one `update2`/`update3` row change to `current` (the row before, or
 * undefined when the replica does not have it). Returns the row after, or
 * undefined when the change deletes it.
 * @throws ReplicaInconsistencyError for a `modify` or `delete` of a missing
 *   row, or an `insert` of a present one (an `initial` always replaces).
 * @throws DatumError when a value does not fit its column.
 */
export function applyRowUpdate2(
  codec: RowCodec,
  uuid: string,
  current: Row | undefined,
  change: RowUpdate2,
): Row | undefined {
  if (change.modify !== undefined) {
    if (current === undefined) {
      throw new ReplicaInconsistencyError(
        codec.table.name,
        uuid,
        'modify of a row not in the replica',
      );
    }
    return codec.applyModify(current, change.modify);
  }
  if (change.initial !== undefined) return codec.decodeRow(uuid, change.initial);
  if (change.insert !== undefined) {
    if (current !== undefined) {
      throw new ReplicaInconsistencyError(
        codec.table.name,
        uuid,
        'insert of a row already in the replica',
      );
    }
    return codec.decodeRow(uuid, change.insert);
  }
  if ('delete' in change) {
    if (current === undefined) {
      throw new ReplicaInconsistencyError(
        codec.table.name,
        uuid,
        'delete of a row not in the replica',
      );
    }
    return undefined;
  }
  throw new ReplicaInconsistencyError(
    codec.table.name,
    uuid,
    `a row change needs one of "initial", "insert", "modify" or "delete", got ${JSON.stringify(Object.keys(change))}`,
  );
}

/**
 * Apply one plain `update` row change (`old`/`new`, from `monitor`) to
 * `current`. Returns the row after, or undefined when the change deletes it.
 * @throws ReplicaInconsistencyError for a deletion of a missing row.
 * @throws DatumError when a value does not fit its column.
 */
export function applyRowUpdate(
  codec: RowCodec,
  uuid: string,
  current: Row | undefined,
  change: RowUpdate,
): Row | undefined {
  if (change.new === undefined) {
    if (current === undefined) {
      throw new ReplicaInconsistencyError(
        codec.table.name,
        uuid,
        'delete of a row not in the replica',
      );
    }
    return undefined;
  }
  return codec.applyNew(uuid, current, change.new);
}

// ---- computing diffs (for servers and tests) ----------------------------------

/**
 * The `update2` `modify` diff of one column from `before` to `after` (JS
 * values), as wire JSON, or undefined when they are equal. Applying it with
 * {@link RowCodec.applyModify} to `before` gives `after`.
 * @param table - the table name, for error messages.
 * @throws DatumError when a value does not fit the column.
 */
export function columnDiff(
  table: string,
  column: ColumnSchema,
  before: unknown,
  after: unknown,
): unknown {
  const ops = columnOps(table, column);
  if (ops.equal(before, after)) return undefined;
  const codec = compileColumnCodec(table, column);
  const { type } = column;
  if (type.max <= 1) return codec.encode(after);
  if (type.kind === 'set') {
    const a = new Set<Atom>(before as readonly Atom[]);
    const b = new Set<Atom>(after as readonly Atom[]);
    const diff: Atom[] = [];
    for (const x of a) if (!b.has(x)) diff.push(x);
    for (const x of b) if (!a.has(x)) diff.push(x);
    diff.sort(compareAtoms);
    return codec.encode(diff);
  }
  const a = before as Readonly<Record<string, unknown>>;
  const b = after as Readonly<Record<string, unknown>>;
  const diff: Record<string, unknown> = {};
  for (const k of Object.keys(a)) {
    if (!Object.hasOwn(b, k)) defineKey(diff, k, a[k]);
    else if (a[k] !== b[k]) defineKey(diff, k, b[k]);
  }
  for (const k of Object.keys(b)) if (!Object.hasOwn(a, k)) defineKey(diff, k, b[k]);
  return codec.encode(diff);
}

/**
 * The `modify` row of an `update2` from `before` to `after` over `columns`
 * (default: every column of `codec`): only the changed columns, each as
 * {@link columnDiff}. Undefined when nothing changed.
 */
export function rowDiff(codec: RowCodec, before: Row, after: Row): WireRow | undefined {
  const out: Record<string, unknown> = {};
  let any = false;
  for (const c of codec.columns) {
    const d = columnDiff(codec.table.name, codec.table.columns[c]!, before[c], after[c]);
    if (d !== undefined) {
      out[c] = d;
      any = true;
    }
  }
  return any ? (out as WireRow) : undefined;
}

/**
 * The replica's row codec: applying monitor row changes to rows in the JS
 * representation: the `initial`, `insert`, `modify` and `delete` changes of
 * `update2`/`update3` (and of `monitor_cond*` replies), and the `old`/`new`
 * changes of `update` (plain `monitor`). The rows and their compiled
 * codecs are here; applying one change of each kind, checked first, is
 * `row-changes.ts`.
 *
 * Everything here is a pure function of (table schema, monitored columns,
 * current row, change): it keeps no state. The values it works on come from
 * the value core of `ovsdb/values`, which the in-memory server uses too:
 * defaults (`defaults.ts`), the atom order (`order.ts`), and the set and map
 * algebra (`set-map.ts` here, `sorted-datum.ts` in the server, built on the
 * same sorted-array primitives). So a row the replica builds from the
 * server's `update2` diffs (`datumDiff`) holds what the server's row holds:
 * each set element for element and in the same order, each map pair for
 * pair. A property test (`test/ovsdb/values/order.property.test.ts`) checks
 * it.
 *
 * ## Rows
 *
 * A row is a plain object with `_uuid` first, then every monitored column (in
 * the table's column order, `_version` included when monitored), all rows of a
 * {@link RowCodec} sharing one shape. A column that is not monitored is not a
 * property of the row at all (`'tier' in row` is false, `row.tier` reads
 * `undefined`): in particular a column the server's schema lacks (a model
 * newer than the server) is absent, never filled with a default the server
 * does not hold. Rows are never changed once built: a
 * change produces a new object that shares the unchanged column values with
 * the old one (structural sharing). Empty sets and maps are the shared frozen
 * {@link EMPTY_SET} and {@link EMPTY_MAP}.
 *
 * ## Columns whose type differs on the server
 *
 * A column the server's schema types otherwise (see `ovsdb/schema/compat.ts`:
 * scalar against optional, other set sizes) is decoded by the server's type,
 * whose default the server leaves out of its updates and whose diffs it
 * sends, then takes the model's form: a scalar as an optional or a
 * one-element set, an optional holding a value as a scalar, a set of one
 * element as an optional. A value the model's type has no form for (no
 * value for a scalar, several for a scalar or an optional) leaves the column
 * out of that row: it is not a property of it, as a column the server lacks;
 * the server's value is kept aside, since a later change of a set arrives
 * as a diff from it.
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
 * Sets stay in the canonical order ovsdb-server sends them in (ascending by
 * UTF-8 bytes for strings and UUIDs): added elements are merged in, so a
 * replica equals a fresh dump element for element.
 * @module
 */

import type { Atom, ColumnSchema, ColumnType, TableSchema } from '../ovsdb/schema/schema-types.js';
import { compileColumnCodec, defaultValue } from '../ovsdb/values/datum.js';
import { applyMapDiff, EMPTY_MAP, EMPTY_SET } from '../ovsdb/values/set-map.js';
import { DatumError, OvsdbError } from '../ovsdb/wire/errors.js';
import { hasKeys } from '../ovsdb/wire/json.js';
import type { WireRow } from '../ovsdb/wire/wire.js';
import { applyVersionedSetDiff, modifyVersioned, rowVersions, SetVersion } from './set-versions.js';

/** A row as the replica holds it: `_uuid` plus the monitored columns. Never mutated. */
export type Row = Readonly<Record<string, unknown>>;

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
/** Current value + wire diff → new value; `row` is the current row (for a value kept aside). */
type DiffApplier = (current: unknown, diff: unknown, row?: Row) => unknown;

/**
 * A value the server holds that the model's type has no form for: the
 * column is left out of the row, the value kept in {@link asideValues}.
 */
class NoModelForm {
  constructor(readonly server: unknown) {}
}

/** Per row, the server's values of the columns it lacks for want of a form in the model's type. */
const asideValues = new WeakMap<Row, Readonly<Record<string, unknown>>>();

/**
 * The server's value of `column` that row `row` lacks because the model's
 * type has no form for it (see the module documentation), or undefined.
 */
export function valueAside(row: Row, column: string): unknown {
  return asideValues.get(row)?.[column];
}

/** How one monitored column is decoded, diffed and compared. */
export interface ColumnOps {
  readonly name: string;
  readonly column: ColumnSchema;
  /** Wire value → JS value (empties shared). */
  readonly decode: ValueDecoder;
  /** Current JS value + wire diff → new JS value. */
  readonly applyDiff: DiffApplier;
  /** JS value equality. */
  readonly equal: (a: unknown, b: unknown) => boolean;
  /** The value of a column an `initial` or `insert` row leaves out: the server's default. */
  readonly byDefault: unknown;
}

/**
 * The compiled operations of one table for one set of monitored columns.
 * Build it once with {@link compileRowCodec}; it is immutable.
 */
export interface RowCodec {
  /** The table's schema. */
  readonly table: TableSchema;
  /**
   * The monitored columns (`_version` included when monitored), in row
   * order: the properties of every row besides `_uuid`.
   */
  readonly columns: readonly string[];
  /**
   * Build the row of an `initial` or `insert` change: monitored columns the
   * wire row omits get their default value (the server omits defaults);
   * columns that are not monitored are ignored, and absent from the row.
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

// ---- helpers ------------------------------------------------------------------

function isEmptyWireSet(j: unknown): boolean {
  return Array.isArray(j) && j.length === 2 && j[0] === 'set' && (j[1] as unknown[]).length === 0;
}

function isEmptyWireMap(j: unknown): boolean {
  return Array.isArray(j) && j.length === 2 && j[0] === 'map' && (j[1] as unknown[]).length === 0;
}

/** The default value of `column` with shared empties. */
function sharedDefault(column: ColumnSchema): unknown {
  const v = defaultValue(column);
  if (Array.isArray(v) && v.length === 0) return EMPTY_SET;
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && !hasKeys(v)) return EMPTY_MAP;
  return v;
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

/**
 * The operations of `column` of `table` (with `server`, the server's schema
 * of a column whose type differs there), cached per column and table.
 */
export function columnOps(table: string, column: ColumnSchema, server?: ColumnSchema): ColumnOps {
  if (server !== undefined) return convertedOps(table, column, server);
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
      // A large set becomes a version (see set-versions.ts), not a copy.
      applyDiff = (current, diff) =>
        applyVersionedSetDiff(
          current as readonly Atom[] | SetVersion,
          raw(diff) as readonly Atom[],
        );
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
  return { name, column, decode, applyDiff, equal, byDefault: sharedDefault(column) };
}

const identity = (v: unknown): unknown => v;

/** The elements of a value of a scalar, optional or set type (a set version: undefined). */
function elementsOf(kind: ColumnType['kind'], v: unknown): readonly unknown[] | undefined {
  if (kind === 'scalar') return [v];
  if (kind === 'optional') return v === null ? EMPTY_SET : [v];
  return v instanceof SetVersion ? undefined : (v as readonly unknown[]);
}

/** A value of the server's type `s` in the form of the model's type `m` (or {@link NoModelForm}). */
function modelForm(m: ColumnType, s: ColumnType): (v: unknown) => unknown {
  // The same JS form: sets of any size are arrays, maps of any size objects.
  if (m.kind === s.kind || m.kind === 'map') return identity;
  return (v) => {
    const elems = elementsOf(s.kind, v);
    if (elems === undefined) return m.kind === 'set' ? v : new NoModelForm(v);
    if (m.kind === 'set') return elems.length === 0 ? EMPTY_SET : elems === v ? v : [...elems];
    if (elems.length === 1) return elems[0];
    return elems.length === 0 && m.kind === 'optional' ? null : new NoModelForm(v);
  };
}

/** A value of the model's type `m` in the form of the server's type `s` (it always has one). */
function serverForm(m: ColumnType, s: ColumnType): (v: unknown) => unknown {
  if (m.kind === s.kind || m.kind === 'map') return identity;
  return (v) => {
    const elems = elementsOf(m.kind, v);
    if (elems === undefined || s.kind === 'set')
      return elems?.length === 0 ? EMPTY_SET : (elems ?? v);
    return elems.length === 0 ? null : elems[0];
  };
}

/**
 * The operations of a column the model types `model` and the server
 * `server` (the same atomic types): decoded and diffed by the server's type,
 * held in the model's form (see the module documentation).
 */
function convertedOps(table: string, model: ColumnSchema, server: ColumnSchema): ColumnOps {
  const own = buildColumnOps(table, server);
  const toModel = modelForm(model.type, server.type);
  const toServer = serverForm(model.type, server.type);
  const modelEqual = columnOps(table, model).equal;
  const name = model.name;
  const fallback = sharedDefault(server);
  return {
    name,
    column: model,
    decode: (j) => toModel(own.decode(j)),
    applyDiff: (current, diff, row) => {
      const before =
        current !== undefined
          ? toServer(current)
          : ((row === undefined ? undefined : valueAside(row, name)) ?? fallback);
      return toModel(own.applyDiff(before, diff));
    },
    equal: (a, b) => !(a instanceof NoModelForm) && !(b instanceof NoModelForm) && modelEqual(a, b),
    byDefault: toModel(fallback),
  };
}

/**
 * Leave out of `row` (being built from `previous`) the columns of `aside`
 * holding a value without a model form, keeping the values aside, and keep
 * aside what `previous` kept for a column the change did not touch.
 */
function setAside(
  row: Record<string, unknown>,
  previous: Row | undefined,
  aside: readonly string[],
): Row {
  if (row === previous) return row;
  const before = previous === undefined ? undefined : asideValues.get(previous);
  let kept: Record<string, unknown> | undefined;
  for (const k of aside) {
    if (Object.hasOwn(row, k)) {
      const v = row[k];
      if (v instanceof NoModelForm) {
        delete row[k];
        kept ??= {};
        kept[k] = v.server;
      }
    } else if (before !== undefined && Object.hasOwn(before, k)) {
      kept ??= {};
      kept[k] = before[k];
    }
  }
  if (kept !== undefined) asideValues.set(row, kept);
  return row;
}

// ---- row codec --------------------------------------------------------------

const rowCodecCache = new WeakMap<TableSchema, Map<string, RowCodec>>();

/**
 * The {@link RowCodec} of `table` when `columns` are monitored (default: every
 * column, `_version` included). Rows hold exactly those columns. `server`
 * gives the server's schema of the columns whose type differs there (read by
 * it, held in the model's form). Cached per table, column list and server
 * types.
 * @throws DatumError when a column is not in the table.
 */
export function compileRowCodec(
  table: TableSchema,
  columns?: readonly string[],
  server?: Readonly<Record<string, ColumnSchema>>,
): RowCodec {
  const list = columns ?? ['_version', ...table.columnNames];
  let cacheKey = list.join('\u0000');
  if (server !== undefined) {
    for (const [c, col] of Object.entries(server)) {
      cacheKey += `\u0001${c}\u0002${JSON.stringify(col.type, (_k, v) => (v === Number.POSITIVE_INFINITY ? '∞' : typeof v === 'bigint' ? String(v) : v))}`;
    }
  }
  let byColumns = rowCodecCache.get(table);
  if (byColumns === undefined) {
    byColumns = new Map();
    rowCodecCache.set(table, byColumns);
  }
  let codec = byColumns.get(cacheKey);
  if (codec === undefined) {
    codec = buildRowCodec(table, list, server ?? {});
    byColumns.set(cacheKey, codec);
  }
  return codec;
}

function buildRowCodec(
  table: TableSchema,
  requested: readonly string[],
  server: Readonly<Record<string, ColumnSchema>>,
): RowCodec {
  const tableName = table.name;
  const wanted = new Set(requested);
  // Row order: _version first (when monitored), then the table's column order.
  const ordered: string[] = [];
  if (wanted.has('_version')) ordered.push('_version');
  for (const c of table.columnNames) if (wanted.has(c)) ordered.push(c);
  for (const c of requested) {
    if (c === '_uuid') continue;
    if (table.columns[c] === undefined) {
      throw new DatumError(tableName, c, undefined, `table ${tableName} has no column ${c}`);
    }
  }
  const serverOf = (c: string): ColumnSchema | undefined =>
    Object.hasOwn(server, c) ? server[c] : undefined;
  const ops: ColumnOps[] = ordered.map((c) => columnOps(tableName, table.columns[c]!, serverOf(c)));
  const byName: Record<string, ColumnOps> = Object.create(null);
  for (const o of ops) byName[o.name] = o;
  // The columns that may hold a value without a model form (left out of the row).
  const aside = ordered.filter((c) => serverOf(c) !== undefined);

  // Every row starts as a copy of this template, so all rows share one shape.
  const template: Record<string, unknown> = { _uuid: '' };
  for (const c of ordered) template[c] = byName[c]!.byDefault;

  const columnsList = Object.freeze(ordered.slice());

  const build = compileBuilder(ordered, byName, template) ?? genericBuilder(template, byName);
  const decodeRow: RowBuilder =
    aside.length === 0
      ? build
      : (uuid, wire) => setAside(build(uuid, wire) as Record<string, unknown>, undefined, aside);

  const modify = (current: Row, diff: WireRow): Row => {
    if (rowVersions(current) !== undefined) return modifyVersioned(current, diff, byName);
    let row: Record<string, unknown> | undefined;
    for (const k in diff) {
      const o = byName[k];
      if (o === undefined) continue;
      const before = current[k];
      const after = o.applyDiff(before, diff[k], current);
      if (after === before) continue;
      // A large set's first version: start again, holding it as one (the
      // diffs applied so far left `current` as it was).
      if (after instanceof SetVersion) return modifyVersioned(current, diff, byName);
      row ??= { ...current };
      row[k] = after;
    }
    return row ?? current;
  };
  const applyModify =
    aside.length === 0
      ? modify
      : (current: Row, diff: WireRow): Row =>
          setAside(modify(current, diff) as Record<string, unknown>, current, aside);

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
    return row === undefined ? current : aside.length === 0 ? row : setAside(row, current, aside);
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

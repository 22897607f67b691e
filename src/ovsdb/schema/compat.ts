/**
 * Schema drift: how a client's model (e.g. generated from OVN NB 7.18.0)
 * differs from the schema the server actually runs (e.g. 7.0.0), and what the
 * client does about it.
 *
 * - A table or column the server lacks is left out of the monitor: the
 *   table has no rows, and the column is *absent* from every row (not a
 *   property of it: it reads `undefined`; never a default the server does
 *   not hold). {@link absentColumns} lists them; the database client's
 *   `compat` option types them `T | undefined`.
 * - A column whose type differs is compared by what can be read and written
 *   exactly ({@link ColumnTypeDifference}): every value of one type that the
 *   other admits (scalar and optional, an enum that gains values, a set whose
 *   `max` grows, a range or length that widens, each in its direction).
 *   - **Reads** decode the server's values by the server's type, then take
 *     the model's form: a scalar read as an optional, an optional holding a
 *     value read as a scalar, one element as a one-element set. A value the
 *     model's type has no form for (no value where the model requires one,
 *     several where it holds at most one) leaves the column out of that row
 *     (`rowsMayLack`); a value outside the model's constraints (an enum value
 *     it lacks, a larger integer) is read as the server holds it.
 *   - **Writes** of a value the server's type does not admit (an enum value
 *     it lacks, a second element in its one-element set, an integer outside
 *     its range, no value where it requires one) fail before anything is
 *     sent with a {@link SchemaDriftError} naming the table, the column, the
 *     value and the server's type and version.
 * - A column whose type the model cannot read at all (another atomic type, a
 *   set against a map, a reference to another table) is treated as missing.
 * - Tables and columns only the server has are ignored (and reported).
 * - A write that touches a missing table or column fails before anything is
 *   sent, with a {@link SchemaDriftError}.
 * @module
 */

import { describeColumnType } from '../values/value-checks.js';
import { OvsdbError } from '../wire/errors.js';
import { preview } from '../wire/json.js';
import type { ColumnOf, TableMap, TableName } from './model.js';
import type { BaseType, ColumnSchema, ColumnType, DatabaseSchema } from './schema-types.js';

// ---- types of rows that may lack columns ---------------------------------------

/**
 * Per table, the columns of model `DB` that a server the client talks to may
 * lack (the database client's `compat` option): `{ ACL: ['tier'] }`.
 */
export type CompatSpec<DB extends TableMap> = {
  readonly [T in TableName<DB>]?: readonly ColumnOf<DB, T>[];
};

/**
 * The database client's `compat` option: `false` (the default: the server
 * has every column of the model), `true` (any column but `_uuid` and
 * `_version` may be absent), or a {@link CompatSpec} naming the columns
 * that may be.
 */
export type CompatOption<DB extends TableMap> = boolean | CompatSpec<DB>;

/** The columns of row type `R` (table `T`) that `C` says may be absent. */
type AbsentKeys<C, T, R> = [C] extends [boolean]
  ? Exclude<keyof R, '_uuid' | '_version'>
  : T extends keyof C
    ? NonNullable<C[T]> extends readonly (infer K)[]
      ? K
      : never
    : never;

/** `R` with the columns `K` typed `| undefined`. */
type WithAbsent<R, K> = { readonly [P in keyof R]: P extends K ? R[P] | undefined : R[P] };

/**
 * The table map of model `DB` as a client with `compat: C` reads it: every
 * column `C` says may be absent is typed `T | undefined` in the row type
 * (the property is then missing from rows read from a server that lacks the
 * column); insert and update types are unchanged (a write to a missing
 * column fails with {@link SchemaDriftError}). `CompatTables<DB, false>` is
 * `DB`.
 *
 * ```ts
 * type Rows = CompatTables<NBTables, { ACL: ['tier'] }>;
 * type Tier = Rows['ACL']['row']['tier']; // number | undefined
 * ```
 */
export type CompatTables<DB extends TableMap, C> = [C] extends [false | undefined]
  ? DB
  : {
      readonly [T in keyof DB]: [AbsentKeys<C, T, DB[T]['row']>] extends [never]
        ? DB[T]
        : {
            readonly row: WithAbsent<DB[T]['row'], AbsentKeys<C, T, DB[T]['row']>>;
            readonly insert: DB[T]['insert'];
            readonly update: DB[T]['update'];
            readonly schema?: NonNullable<DB[T]['schema']>;
          };
    };

/**
 * A column whose type differs between the model and the server, compared by
 * what each side can hold exactly.
 *
 * ```ts
 * // the bundled 7.18.0 model against a 7.19.0 server:
 * { table: 'Network_Function', column: 'outport', reads: 'wider', writes: 'exact', rowsMayLack: true,
 *   serverOnly: ['no value (the server's min is 0, the model's 1)'], modelOnly: [], … }
 * { table: 'Network_Function_Group', column: 'mode', reads: 'wider', writes: 'exact', rowsMayLack: false,
 *   serverOnly: ['enum value "vtap"'], modelOnly: [], … }
 * // a 7.19.0 model against a 7.18.0 server: the same columns with reads 'exact', writes 'checked',
 * // and modelOnly ['no value (the server's min is 1, the model's 0)'] and ['enum value "vtap"']
 * ```
 */
export interface ColumnTypeDifference {
  readonly table: string;
  readonly column: string;
  /** The model's type, e.g. `set of 0..∞ strings` or `string ∈ {"inline"}`. */
  readonly model: string;
  /** The server's type. */
  readonly server: string;
  /**
   * True when the model cannot read the server's values at all (another
   * atomic type, a set against a map, a reference to another table): the
   * column is then left out of the monitor like a missing one, and a write
   * to it fails with {@link SchemaDriftError}.
   */
  readonly incompatible: boolean;
  /**
   * Reading the server's values into the model's type: `exact` when every
   * value the server's type admits is one of the model's; `wider` when the
   * server's admits more ({@link ColumnTypeDifference.serverOnly}); `none`
   * when incompatible.
   */
  readonly reads: 'exact' | 'wider' | 'none';
  /**
   * Writing the model's values to the server: `exact` when the server's type
   * admits every value of the model's; `checked` when it refuses some
   * ({@link ColumnTypeDifference.modelOnly}): every value a transaction
   * writes to the column or compares it with is then checked against the
   * server's type, and one it would refuse fails with
   * {@link SchemaDriftError} before anything is sent; `none` when
   * incompatible.
   */
  readonly writes: 'exact' | 'checked' | 'none';
  /**
   * True when the server may hold a value the model's type has no form for
   * (no value where the model requires one, several where it holds at most
   * one): such a row lacks the column (it is not a property of the row), as
   * if the server's schema lacked it.
   */
  readonly rowsMayLack: boolean;
  /** What only the server's type admits, in words (what reads may meet). */
  readonly serverOnly: readonly string[];
  /** What only the model's type admits, in words (what a write may not hold). */
  readonly modelOnly: readonly string[];
}

/**
 * What differs between the model and the server's schema. Everything is
 * sorted by table, then column.
 */
export interface CompatReport {
  /** The database name. */
  readonly database: string;
  /** The model's schema version. */
  readonly modelVersion: string;
  /** The server's schema version. */
  readonly serverVersion: string;
  /** True when the server has every table and column of the model with readable types. */
  readonly identical: boolean;
  /** Model tables the server does not have (not monitored; writes fail fast). */
  readonly missingTables: readonly string[];
  /** Model columns the server does not have, per table (not monitored; writes fail fast). */
  readonly missingColumns: Readonly<Record<string, readonly string[]>>;
  /** Server tables the model does not know (ignored). */
  readonly extraTables: readonly string[];
  /** Server columns the model does not know, per table (ignored). */
  readonly extraColumns: Readonly<Record<string, readonly string[]>>;
  /** Columns whose types differ. */
  readonly typeDifferences: readonly ColumnTypeDifference[];
}

/** Why a value cannot be written to the server (see {@link SchemaDriftError.value}). */
export interface DriftedValue {
  /** The value, in wire form; undefined for an insert that leaves out a column the server requires. */
  readonly value: unknown;
  /** The rule of the server's type it breaks, e.g. `"vtap" is not one of inline`. */
  readonly reason: string;
  /** The server's type of the column, e.g. `string ∈ {"inline"}`. */
  readonly serverType: string;
}

/**
 * An operation (a write, a read of a table, a condition) names a table or
 * column that the server's schema does not have, or gives a column a value
 * the server's type of it does not admit (a model newer than the server).
 * Raised by the client before anything is sent.
 */
export class SchemaDriftError extends OvsdbError {
  override name = 'SchemaDriftError';
  /** The value the server's type refuses (wire form); undefined when the table or column is missing. */
  readonly value: unknown;
  /** Why the server's type refuses {@link SchemaDriftError.value}; undefined when the table or column is missing. */
  readonly reason: string | undefined;
  /** The server's type of the column, when it has the column. */
  readonly serverType: string | undefined;
  constructor(
    /** The table named. */
    readonly table: string,
    /** The column, or undefined when the whole table is missing. */
    readonly column: string | undefined,
    /**
     * The index of the operation in the transaction; -1 outside a
     * transaction (a monitor condition).
     */
    readonly opIndex: number,
    /** The server's schema version. */
    readonly serverVersion: string,
    /** What named it, for the message (default: `operation <opIndex>`). */
    context?: string,
    /** The value the server's type refuses, when the server has the column. */
    refused?: DriftedValue,
  ) {
    const where = context ?? `operation ${opIndex}`;
    super(
      refused === undefined
        ? `${where}: ${column === undefined ? `table ${table}` : `column ${table}.${column}`} does not exist in the server's schema (version ${serverVersion}); the model is newer than the server`
        : `${where}: column ${table}.${column}: the server's schema (version ${serverVersion}) does not allow ${refused.value === undefined ? 'leaving it out' : preview(refused.value)}: ${refused.reason} (the server's type: ${refused.serverType})`,
    );
    this.value = refused?.value;
    this.reason = refused?.reason;
    this.serverType = refused?.serverType;
  }
}

/** A lower or upper bound: undefined is no bound. */
type Bound = number | bigint | undefined;

/** True when bound `a` admits less than bound `b` on its side (`low`: lower bounds). */
function tighter(a: Bound, b: Bound, low: boolean): boolean {
  if (a === undefined) return false;
  if (b === undefined) return true;
  return low ? a > b : a < b;
}

/**
 * What base type `a` admits that `b` does not, in words (`what`: `''` for
 * the key, `'value '` for a map's value).
 */
function baseOnly(a: BaseType, b: BaseType, what: string): string[] {
  const out: string[] = [];
  if (a.enum !== undefined) {
    if (b.enum !== undefined) {
      const theirs = new Set(b.enum);
      for (const v of a.enum) {
        if (!theirs.has(v)) out.push(`${what}enum value ${JSON.stringify(String(v))}`);
      }
    }
  } else if (b.enum !== undefined) {
    out.push(
      `${what}values outside the enum {${b.enum.map((v) => JSON.stringify(String(v))).join(', ')}}`,
    );
  }
  const ranges: [Bound, Bound, Bound, Bound, string][] = [
    [a.minInteger, a.maxInteger, b.minInteger, b.maxInteger, 'integers'],
    [a.minReal, a.maxReal, b.minReal, b.maxReal, 'reals'],
    [a.minLength, a.maxLength, b.minLength, b.maxLength, 'strings of length'],
  ];
  for (const [alo, ahi, blo, bhi, noun] of ranges) {
    if (tighter(blo, alo, true)) out.push(`${what}${noun} below ${String(blo)}`);
    if (tighter(bhi, ahi, false)) out.push(`${what}${noun} above ${String(bhi)}`);
  }
  return out;
}

function bound(n: number): string {
  return n === Number.POSITIVE_INFINITY ? '∞' : String(n);
}

/** What type `a` (`own`: its side's name) admits that `b` does not, in words. */
function typeOnly(a: ColumnType, b: ColumnType, own: string, other: string): string[] {
  const out: string[] = [];
  if (a.min < b.min) {
    out.push(
      `${a.min === 0 ? 'no value' : `fewer than ${b.min} values`} (${own} min is ${a.min}, ${other} ${b.min})`,
    );
  }
  if (a.max > b.max) {
    out.push(
      `more than ${bound(b.max)} value${b.max === 1 ? '' : 's'} (${own} max is ${bound(a.max)}, ${other} ${bound(b.max)})`,
    );
  }
  out.push(...baseOnly(a.key, b.key, ''));
  if (a.value !== undefined && b.value !== undefined)
    out.push(...baseOnly(a.value, b.value, 'value '));
  return out;
}

/** True when the model cannot read the server's values at all. */
function unreadable(m: ColumnType, s: ColumnType): boolean {
  const refs = (a: BaseType | undefined, b: BaseType | undefined): boolean =>
    a?.type === 'uuid' && (a.refTable ?? null) !== (b?.refTable ?? null);
  return (
    m.key.type !== s.key.type ||
    (m.value?.type ?? null) !== (s.value?.type ?? null) ||
    refs(m.key, s.key) ||
    refs(m.value, s.value)
  );
}

/**
 * True when the server may hold a value of type `s` that the model's type
 * `m` has no JS form for (no value for a scalar, several for a scalar or an
 * optional).
 */
function mayLack(m: ColumnType, s: ColumnType): boolean {
  if (m.kind === 'scalar') return s.min < 1 || s.max > 1;
  return m.kind === 'optional' && s.max > 1;
}

/** The two column schemas behind each difference {@link compareSchemas} reports. */
export const differenceColumns = new WeakMap<
  ColumnTypeDifference,
  { readonly model: ColumnSchema; readonly server: ColumnSchema }
>();

function compareColumn(
  table: string,
  model: ColumnSchema,
  server: ColumnSchema,
): ColumnTypeDifference | undefined {
  const m = model.type;
  const s = server.type;
  const describedModel = describeColumnType(model);
  const describedServer = describeColumnType(server);
  const incompatible = unreadable(m, s);
  const serverOnly = incompatible ? [] : typeOnly(s, m, "the server's", "the model's");
  const modelOnly = incompatible ? [] : typeOnly(m, s, "the model's", "the server's");
  if (
    !incompatible &&
    serverOnly.length === 0 &&
    modelOnly.length === 0 &&
    describedModel === describedServer
  ) {
    return undefined;
  }
  const difference: ColumnTypeDifference = {
    table,
    column: model.name,
    model: describedModel,
    server: describedServer,
    incompatible,
    reads: incompatible ? 'none' : serverOnly.length > 0 ? 'wider' : 'exact',
    writes: incompatible ? 'none' : modelOnly.length > 0 ? 'checked' : 'exact',
    rowsMayLack: !incompatible && mayLack(m, s),
    serverOnly,
    modelOnly,
  };
  differenceColumns.set(difference, { model, server });
  return difference;
}

/**
 * Compare the model's schema with the server's.
 *
 * ```ts
 * const report = compareSchemas(NB.schema, parseSchema(await conn.getSchema('OVN_Northbound')));
 * report.missingTables; // e.g. ['DHCP_Relay', 'Sample', ...] against a 7.0.0 server
 * ```
 */
export function compareSchemas(model: DatabaseSchema, server: DatabaseSchema): CompatReport {
  const missingTables: string[] = [];
  const missingColumns: Record<string, string[]> = {};
  const extraTables: string[] = [];
  const extraColumns: Record<string, string[]> = {};
  const typeDifferences: ColumnTypeDifference[] = [];
  for (const name of Object.keys(model.tables).sort()) {
    const mt = model.tables[name]!;
    const st = server.tables[name];
    if (st === undefined) {
      missingTables.push(name);
      continue;
    }
    const missing = mt.columnNames.filter((c) => st.columns[c] === undefined);
    if (missing.length > 0) missingColumns[name] = missing;
    const extra = st.columnNames.filter((c) => mt.columns[c] === undefined);
    if (extra.length > 0) extraColumns[name] = extra;
    for (const c of mt.columnNames) {
      const sc = st.columns[c];
      if (sc === undefined) continue;
      const d = compareColumn(name, mt.columns[c]!, sc);
      if (d) typeDifferences.push(d);
    }
  }
  for (const name of Object.keys(server.tables).sort()) {
    if (model.tables[name] === undefined) extraTables.push(name);
  }
  return {
    database: model.name,
    modelVersion: model.version,
    serverVersion: server.version,
    identical:
      missingTables.length === 0 &&
      Object.keys(missingColumns).length === 0 &&
      !typeDifferences.some((d) => d.incompatible),
    missingTables,
    missingColumns,
    extraTables,
    extraColumns,
    typeDifferences,
  };
}

/**
 * The columns of the model's `table` that are absent from the rows the
 * client reads from this server: those the server's schema lacks, and those
 * it has with a type the model cannot read; in the model's column order.
 * Every column when the server lacks the table; empty for a table the model
 * does not have.
 *
 * ```ts
 * absentColumns(client.compat!, NB.schema, 'ACL'); // against NB 7.0.0: ['network_function_group', 'sample_est', 'sample_new', 'tier']
 * ```
 */
export function absentColumns(
  report: CompatReport,
  model: DatabaseSchema,
  table: string,
): readonly string[] {
  const mt = model.tables[table];
  if (mt === undefined) return [];
  if (report.missingTables.includes(table)) return mt.columnNames;
  const missing = new Set(report.missingColumns[table] ?? []);
  for (const d of report.typeDifferences) {
    if (d.table === table && d.incompatible) missing.add(d.column);
  }
  return missing.size === 0 ? [] : mt.columnNames.filter((c) => missing.has(c));
}

/**
 * The columns of `table` the client can monitor on this server: the model's
 * columns (or `requested`) that the server has with a readable type, plus
 * `_version`. Undefined when the server lacks the table.
 */
export function usableColumns(
  report: CompatReport,
  model: DatabaseSchema,
  table: string,
  requested?: readonly string[],
): string[] | undefined {
  if (report.missingTables.includes(table)) return undefined;
  const mt = model.tables[table];
  if (mt === undefined) return undefined;
  const missing = new Set(absentColumns(report, model, table));
  const base = requested ?? ['_version', ...mt.columnNames];
  return base.filter((c) => c === '_version' || c === '_uuid' || !missing.has(c));
}

/**
 * The server's schema of each column of `table` whose values the client
 * decodes by the server's type rather than the model's (then takes the
 * model's form of them): those whose type differs in what it holds (scalar,
 * optional, set sizes), which changes the default the server leaves out of
 * its updates and how it sends a change. Undefined when there is none.
 */
export function serverReadColumns(
  report: CompatReport,
  table: string,
): Readonly<Record<string, ColumnSchema>> | undefined {
  let out: Record<string, ColumnSchema> | undefined;
  for (const d of report.typeDifferences) {
    if (d.table !== table || d.incompatible) continue;
    const columns = differenceColumns.get(d);
    if (columns === undefined) continue;
    const m = columns.model.type;
    const s = columns.server.type;
    if (m.kind === s.kind && m.min === s.min && m.max === s.max) continue;
    out ??= {};
    out[d.column] = columns.server;
  }
  return out;
}

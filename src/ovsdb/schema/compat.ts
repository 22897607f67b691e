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
 * - A column whose type differs in a way the model's codec cannot read (the
 *   atomic type, or scalar/optional/set/map) is treated the same way.
 * - Constraint differences (enum values, ranges, lengths, set sizes,
 *   reference tables) are reported but harmless to reading.
 * - Tables and columns only the server has are ignored (and reported).
 * - A write that touches a missing table or column fails before anything is
 *   sent, with a {@link SchemaDriftError}.
 * @module
 */

import { OvsdbError } from '../wire/errors.js';
import type { Condition, Operation } from '../wire/wire.js';
import type { ColumnOf, TableMap, TableName } from './model.js';
import type { BaseType, ColumnSchema, DatabaseSchema } from './schema-types.js';

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
          };
    };

/** A column whose type differs between the model and the server. */
export interface ColumnTypeDifference {
  readonly table: string;
  readonly column: string;
  /** The model's type, e.g. `set of 0..∞ string`. */
  readonly model: string;
  /** The server's type. */
  readonly server: string;
  /**
   * True when the model cannot read the server's values (different atomic
   * type or kind): the column is then left out of the monitor like a missing
   * one. False for constraint-only differences.
   */
  readonly incompatible: boolean;
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

/**
 * An operation (a write, a read of a table, a condition) names a table or
 * column that the server's schema does not have. Raised by the client before
 * anything is sent.
 */
export class SchemaDriftError extends OvsdbError {
  override name = 'SchemaDriftError';
  constructor(
    /** The table named. */
    readonly table: string,
    /** The missing column, or undefined when the whole table is missing. */
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
  ) {
    super(
      `${context ?? `operation ${opIndex}`}: ${column === undefined ? `table ${table}` : `column ${table}.${column}`} does not exist in the server's schema (version ${serverVersion}); the model is newer than the server`,
    );
  }
}

function describeBase(b: BaseType): string {
  return b.type === 'uuid' && b.refTable ? `uuid→${b.refTable}` : b.type;
}

function describeType(c: ColumnSchema): string {
  const t = c.type;
  const max = t.max === Number.POSITIVE_INFINITY ? '∞' : String(t.max);
  switch (t.kind) {
    case 'scalar':
      return describeBase(t.key);
    case 'optional':
      return `optional ${describeBase(t.key)}`;
    case 'set':
      return `set of ${t.min}..${max} ${describeBase(t.key)}`;
    case 'map':
      return `map of ${t.min}..${max} ${describeBase(t.key)}→${describeBase(t.value!)}`;
  }
}

/** The same enum values in the same order (atoms are canonical, so `===` compares them). */
function sameEnum(a: BaseType['enum'], b: BaseType['enum']): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function sameBase(a: BaseType, b: BaseType): boolean {
  return (
    a.type === b.type &&
    sameEnum(a.enum, b.enum) &&
    a.minInteger === b.minInteger &&
    a.maxInteger === b.maxInteger &&
    a.minReal === b.minReal &&
    a.maxReal === b.maxReal &&
    a.minLength === b.minLength &&
    a.maxLength === b.maxLength &&
    a.refTable === b.refTable &&
    (a.refType ?? 'strong') === (b.refType ?? 'strong')
  );
}

function compareColumn(
  table: string,
  model: ColumnSchema,
  server: ColumnSchema,
): ColumnTypeDifference | undefined {
  const m = model.type;
  const s = server.type;
  const incompatible =
    m.kind !== s.kind ||
    m.key.type !== s.key.type ||
    (m.value?.type ?? null) !== (s.value?.type ?? null);
  const same =
    !incompatible &&
    m.min === s.min &&
    m.max === s.max &&
    sameBase(m.key, s.key) &&
    (m.value === undefined || s.value === undefined || sameBase(m.value, s.value));
  if (same) return undefined;
  return {
    table,
    column: model.name,
    model: describeType(model),
    server: describeType(server),
    incompatible,
  };
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
 * Check that the columns a monitor condition (`where`, wire form) of
 * `table` names exist on the server.
 * @throws SchemaDriftError naming the first one that does not.
 */
export function checkConditionColumns(
  report: CompatReport,
  model: DatabaseSchema,
  table: string,
  where: readonly Condition[] | undefined,
): void {
  const absent = absentColumns(report, model, table);
  if (absent.length === 0) return;
  for (const c of conditionColumns(where)) {
    if (absent.includes(c)) {
      throw new SchemaDriftError(
        table,
        c,
        -1,
        report.serverVersion,
        `the monitor condition of table ${table}`,
      );
    }
  }
}

function conditionColumns(where: readonly Condition[] | undefined): string[] {
  const out: string[] = [];
  for (const c of where ?? []) if (typeof c !== 'boolean') out.push(c[0]);
  return out;
}

/**
 * Check that every table and column `ops` name exists on the server.
 * @throws SchemaDriftError naming the first one that does not.
 */
export function checkOperations(
  report: CompatReport,
  server: DatabaseSchema,
  ops: readonly Operation[],
): void {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (!('table' in op)) continue;
    const table = server.tables[op.table];
    if (table === undefined) {
      // Let the server answer for tables neither side knows.
      if (report.missingTables.includes(op.table)) {
        throw new SchemaDriftError(op.table, undefined, i, report.serverVersion);
      }
      continue;
    }
    // On the path of every write: nothing to look for in a table the server has whole.
    const absent = Object.hasOwn(report.missingColumns, op.table)
      ? report.missingColumns[op.table]
      : undefined;
    if (absent === undefined || absent.length === 0) continue;
    const missing = new Set(absent);
    const named: string[] = [];
    switch (op.op) {
      case 'insert':
      case 'update':
        named.push(...Object.keys(op.row));
        if (op.op === 'update') named.push(...conditionColumns(op.where));
        break;
      case 'mutate':
        named.push(...op.mutations.map((m) => m[0]), ...conditionColumns(op.where));
        break;
      case 'select':
        named.push(...(op.columns ?? []), ...(op.sort ?? []), ...conditionColumns(op.where));
        break;
      case 'delete':
        named.push(...conditionColumns(op.where));
        break;
      case 'wait':
        named.push(...(op.columns ?? []), ...conditionColumns(op.where));
        for (const r of op.rows) named.push(...Object.keys(r));
        break;
    }
    for (const c of named) {
      if (missing.has(c)) throw new SchemaDriftError(op.table, c, i, report.serverVersion);
    }
  }
}

/**
 * The canonical form of a parsed schema that generated code embeds. Two
 * documents that mean the same schema (e.g. an `.ovsschema` file and what
 * `get_schema` returns for it, which orders enums and spells defaults
 * differently) have the same canonical form, so they generate the same code.
 *
 * Canonical means: enum values sorted as OVSDB sorts atoms; columns sorted by
 * name; defaults omitted (`min`/`max` 1, `refType` strong, `mutable` true,
 * `ephemeral` false, unlimited `maxRows`, `minInteger` −2^63 and
 * `maxInteger` 2^63−1, which bound nothing); `isRoot` always explicit.
 * @module
 */

import {
  type Atom,
  type BaseType,
  type ColumnSchema,
  type ColumnType,
  type DatabaseSchema,
  INT64_MAX,
  INT64_MIN,
  type TableSchema,
} from 'ovnkit/ovsdb';

/** A JSON value (integers beyond 2^53−1 are bigints, as in parsed schemas). */
export type Json = string | number | bigint | boolean | null | readonly Json[] | JsonObject;
/** A JSON object. */
export interface JsonObject {
  readonly [member: string]: Json;
}

/**
 * Compare atoms as OVSDB orders them: numbers (and bigint integers)
 * numerically, `false < true`, strings by UTF-8 bytes.
 */
export function compareAtoms(a: Atom, b: Atom): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (
    (typeof a === 'number' || typeof a === 'bigint') &&
    (typeof b === 'number' || typeof b === 'bigint')
  ) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return Buffer.compare(Buffer.from(String(a), 'utf8'), Buffer.from(String(b), 'utf8'));
}

/**
 * `base` with its enum sorted, and without integer bounds at the int64 limits
 * (ovsdb-server holds those as no bound, and `get_schema` leaves them out).
 */
function normalizeBase(base: BaseType): BaseType {
  const { minInteger, maxInteger, ...rest } = base;
  const dropMin = minInteger === INT64_MIN;
  const dropMax = maxInteger === INT64_MAX;
  if (base.enum === undefined && !dropMin && !dropMax) return base;
  const out: { -readonly [K in keyof BaseType]: BaseType[K] } = { ...rest };
  if (minInteger !== undefined && !dropMin) out.minInteger = minInteger;
  if (maxInteger !== undefined && !dropMax) out.maxInteger = maxInteger;
  if (base.enum !== undefined) out.enum = [...base.enum].sort(compareAtoms);
  return out;
}

function sortType(type: ColumnType): ColumnType {
  const key = normalizeBase(type.key);
  const value = type.value === undefined ? undefined : normalizeBase(type.value);
  if (key === type.key && value === type.value) return type;
  return value === undefined ? { ...type, key } : { ...type, key, value };
}

/**
 * `schema` with every enum sorted and integer bounds at the int64 limits left
 * out (the form `get_schema` reports).
 */
export function normalizeSchema(schema: DatabaseSchema): DatabaseSchema {
  const tables: Record<string, TableSchema> = Object.create(null);
  for (const name of Object.keys(schema.tables).sort()) {
    const table = schema.tables[name]!;
    const columns: Record<string, ColumnSchema> = Object.create(null);
    for (const [col, column] of Object.entries(table.columns)) {
      const type = sortType(column.type);
      columns[col] = type === column.type ? column : { ...column, type };
    }
    tables[name] = { ...table, columns };
  }
  return { ...schema, tables };
}

function baseJson(base: BaseType): Json {
  const out: Record<string, Json> = { type: base.type };
  if (base.enum !== undefined) out['enum'] = ['set', [...base.enum].sort(compareAtoms)];
  if (base.minInteger !== undefined && base.minInteger !== INT64_MIN) {
    out['minInteger'] = base.minInteger;
  }
  if (base.maxInteger !== undefined && base.maxInteger !== INT64_MAX) {
    out['maxInteger'] = base.maxInteger;
  }
  if (base.minReal !== undefined) out['minReal'] = base.minReal;
  if (base.maxReal !== undefined) out['maxReal'] = base.maxReal;
  if (base.minLength !== undefined) out['minLength'] = base.minLength;
  if (base.maxLength !== undefined) out['maxLength'] = base.maxLength;
  if (base.refTable !== undefined) out['refTable'] = base.refTable;
  if (base.refTable !== undefined && base.refType === 'weak') out['refType'] = 'weak';
  return Object.keys(out).length === 1 ? base.type : out;
}

function typeJson(type: ColumnType): Json {
  const key = baseJson(type.key);
  if (type.value === undefined && type.min === 1 && type.max === 1 && typeof key === 'string') {
    return key;
  }
  const out: Record<string, Json> = { key };
  if (type.value !== undefined) out['value'] = baseJson(type.value);
  if (type.min !== 1) out['min'] = type.min;
  if (type.max !== 1) out['max'] = type.max === Number.POSITIVE_INFINITY ? 'unlimited' : type.max;
  return out;
}

function columnJson(column: ColumnSchema): JsonObject {
  const out: Record<string, Json> = { type: typeJson(column.type) };
  if (column.ephemeral) out['ephemeral'] = true;
  if (!column.mutable) out['mutable'] = false;
  return out;
}

/** The canonical JSON of one table (the `<table-schema>` member of `tables`). */
export function tableJson(table: TableSchema): JsonObject {
  const columns: Record<string, Json> = {};
  for (const name of table.columnNames) columns[name] = columnJson(table.columns[name]!);
  const out: Record<string, Json> = { columns };
  if (table.maxRows !== Number.POSITIVE_INFINITY) out['maxRows'] = table.maxRows;
  out['isRoot'] = table.isRoot;
  if (table.indexes.length > 0) out['indexes'] = table.indexes.map((ix) => [...ix]);
  return out;
}

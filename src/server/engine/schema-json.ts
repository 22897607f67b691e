/**
 * A parsed schema written back as JSON the way ovsdb-server writes it
 * (`ovsdb_schema_to_json`): the form `get_schema` returns and, serialized with
 * sorted members, the text `_Server.Database.schema` holds.
 *
 * Members that hold their default are left out: a bound at its default
 * (`minInteger` −2^63, `maxInteger` 2^63−1, …) is no bound, a column type
 * without constraints is its bare atomic type name (`"integer"`), `min` appears only
 * when it is not 1 and `max` only when it is not 1 (`"unlimited"` for no
 * limit), `refType` only for weak references, `ephemeral` and `mutable` only
 * when they differ from the default, and `isRoot` only when some tables are
 * root and others are not. A one-value `enum` is the bare value.
 *
 * Tables and columns come in the order ovsdb-server writes them (its hash
 * order, after `ovsdb-tool create` stored the schema, or, for a schema read
 * from a database file, after the file's schema record), and so do the
 * members of every object: clients such as `ovsdb-client list-tables`,
 * `list-columns` and `monitor` list them in an order that follows from it.
 * @module
 */

import type {
  BaseType,
  ColumnSchema,
  DatabaseSchema,
  TableSchema,
} from '../../ovsdb/schema/schema-types.js';
import { INT64_MAX, INT64_MIN } from '../../ovsdb/values/int64.js';
import { compareAtoms } from '../../ovsdb/values/order.js';
import { ovsJsonText } from '../../ovsdb/values/ovs-text.js';
import {
  isStoredSchema,
  serverColumnOrder,
  serverObjectOrder,
  serverTableOrder,
  shashOrder,
  toolColumnOrder,
  toolTableOrder,
} from './ovs-hash.js';
import { atomToWire } from './values.js';

const UINT_MAX = 4294967295;

/**
 * `obj` with its members in the order ovsdb-server writes a JSON object
 * (an `shash`) whose members were put in `obj`'s order.
 */
function hashOrdered(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of shashOrder(Object.keys(obj))) out[name] = obj[name];
  return out;
}

/**
 * The base type's bounds as ovsdb-server holds them: a bound at its default
 * (INT64_MIN and INT64_MAX for integers, ∓DBL_MAX for reals, UINT_MAX for a
 * maximum length) is no bound, and is never written.
 */
function bounds(base: BaseType): {
  minInteger?: number | bigint;
  maxInteger?: number | bigint;
  minReal?: number;
  maxReal?: number;
  maxLength?: number;
} {
  const out: ReturnType<typeof bounds> = {};
  if (base.minInteger !== undefined && base.minInteger !== INT64_MIN)
    out.minInteger = base.minInteger;
  if (base.maxInteger !== undefined && base.maxInteger !== INT64_MAX)
    out.maxInteger = base.maxInteger;
  if (base.minReal !== undefined && base.minReal !== -Number.MAX_VALUE) out.minReal = base.minReal;
  if (base.maxReal !== undefined && base.maxReal !== Number.MAX_VALUE) out.maxReal = base.maxReal;
  if (base.maxLength !== undefined && base.maxLength !== UINT_MAX) out.maxLength = base.maxLength;
  return out;
}

function baseHasConstraints(base: BaseType): boolean {
  const b = bounds(base);
  return (
    base.enum !== undefined ||
    b.minInteger !== undefined ||
    b.maxInteger !== undefined ||
    b.minReal !== undefined ||
    b.maxReal !== undefined ||
    (base.minLength !== undefined && base.minLength !== 0) ||
    b.maxLength !== undefined ||
    base.refTable !== undefined
  );
}

function baseToJson(base: BaseType): unknown {
  if (!baseHasConstraints(base)) return base.type;
  const out: Record<string, unknown> = { type: base.type };
  if (base.enum !== undefined) {
    const atoms = [...base.enum].sort(compareAtoms).map((a) => atomToWire(a, base.type));
    out.enum = atoms.length === 1 ? atoms[0] : ['set', atoms];
  }
  const b = bounds(base);
  if (b.minInteger !== undefined) out.minInteger = b.minInteger;
  if (b.maxInteger !== undefined) out.maxInteger = b.maxInteger;
  if (b.minReal !== undefined) out.minReal = b.minReal;
  if (b.maxReal !== undefined) out.maxReal = b.maxReal;
  if (base.minLength !== undefined && base.minLength !== 0) out.minLength = base.minLength;
  if (b.maxLength !== undefined) out.maxLength = b.maxLength;
  if (base.refTable !== undefined) {
    out.refTable = base.refTable;
    if (base.refType === 'weak') out.refType = 'weak';
  }
  return hashOrdered(out);
}

function columnToJson(column: ColumnSchema): Record<string, unknown> {
  const t = column.type;
  let type: unknown;
  if (t.min === 1 && t.max === 1 && t.value === undefined && !baseHasConstraints(t.key)) {
    type = t.key.type;
  } else {
    const obj: Record<string, unknown> = { key: baseToJson(t.key) };
    if (t.value !== undefined) obj.value = baseToJson(t.value);
    if (t.min !== 1) obj.min = t.min;
    if (t.max === Number.POSITIVE_INFINITY) obj.max = 'unlimited';
    else if (t.max !== 1) obj.max = t.max;
    type = hashOrdered(obj);
  }
  const out: Record<string, unknown> = {};
  if (!column.mutable) out.mutable = false;
  if (column.ephemeral) out.ephemeral = true;
  out.type = type;
  return hashOrdered(out);
}

type SchemaJson = {
  tables?: Record<string, { mutable?: unknown; columns?: Record<string, unknown> }>;
};

/** The table's columns in the order of the schema document (the order `ovsdb-tool create` read). */
function fileOrder(schema: DatabaseSchema, table: TableSchema): readonly string[] {
  const cols = (schema.json as SchemaJson | undefined)?.tables?.[table.name]?.columns;
  return cols !== undefined && typeof cols === 'object' ? Object.keys(cols) : table.columnNames;
}

function tableMutable(schema: DatabaseSchema, table: TableSchema): boolean {
  const json = schema.json as SchemaJson | undefined;
  return json?.tables?.[table.name]?.mutable !== false;
}

function tableToJson(
  schema: DatabaseSchema,
  table: TableSchema,
  defaultIsRoot: boolean,
  created: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!tableMutable(schema, table)) out.mutable = false;
  if (table.isRoot !== defaultIsRoot) out.isRoot = table.isRoot;
  const columns: Record<string, unknown> = {};
  const order = fileOrder(schema, table);
  const iteration = created
    ? toolColumnOrder(order)
    : serverColumnOrder(order, isStoredSchema(schema));
  for (const name of serverObjectOrder(iteration)) {
    const column = table.columns[name];
    if (column !== undefined) columns[name] = columnToJson(column);
  }
  out.columns = columns;
  if (table.maxRows !== Number.POSITIVE_INFINITY) out.maxRows = table.maxRows;
  if (table.indexes.length > 0) out.indexes = table.indexes.map((ix) => [...ix]);
  return hashOrdered(out);
}

/**
 * The schema as ovsdb-server returns it from `get_schema`.
 *
 * ```ts
 * schemaToJson(parseSchema({ name: 'T', version: '1.0.0', tables: { A: { columns: { n: { type: { key: 'integer', min: 1, max: 1 } } } } } }));
 * // { name: 'T', version: '1.0.0', tables: { A: { columns: { n: { type: 'integer' } } } } }
 * ```
 */
export function schemaToJson(schema: DatabaseSchema): Record<string, unknown> {
  return toJson(schema, false);
}

/**
 * The schema record `ovsdb-tool create` writes for the schema document
 * `schema` was parsed from: its tables and columns in the tool's own hash
 * order, which a server reading the file then starts from (see
 * `markStoredSchema` in `ovs-hash.ts`).
 */
export function createdSchemaJson(schema: DatabaseSchema): Record<string, unknown> {
  return toJson(schema, !isStoredSchema(schema));
}

function toJson(schema: DatabaseSchema, created: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { name: schema.name };
  if (schema.version !== '') out.version = schema.version;
  if (schema.cksum !== undefined && schema.cksum !== '') out.cksum = schema.cksum;
  const tables = Object.values(schema.tables);
  const defaultIsRoot = tables.every((t) => t.isRoot);
  const tablesJson: Record<string, unknown> = {};
  const fileTables = (schema.json as SchemaJson | undefined)?.tables;
  const names = Object.keys(
    fileTables !== undefined && typeof fileTables === 'object' ? fileTables : schema.tables,
  );
  const iteration = created
    ? toolTableOrder(names)
    : serverTableOrder(names, isStoredSchema(schema));
  for (const name of serverObjectOrder(iteration)) {
    const table = schema.tables[name];
    if (table !== undefined) tablesJson[name] = tableToJson(schema, table, defaultIsRoot, created);
  }
  out.tables = tablesJson;
  return hashOrdered(out);
}

/** Made once per schema object (and per stored mark, which changes the order). */
const sharedJson = new WeakMap<
  DatabaseSchema,
  { readonly stored: boolean; readonly json: Readonly<Record<string, unknown>>; text?: string }
>();

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/**
 * {@link schemaToJson}, made once per schema object and shared (frozen):
 * what every server serving that schema answers `get_schema` with, so that
 * a new server (one per test) does not serialize the schema again.
 */
export function sharedSchemaJson(schema: DatabaseSchema): Readonly<Record<string, unknown>> {
  return shared(schema).json;
}

function shared(schema: DatabaseSchema) {
  const stored = isStoredSchema(schema);
  let entry = sharedJson.get(schema);
  if (entry === undefined || entry.stored !== stored) {
    entry = { stored, json: deepFreeze(schemaToJson(schema)) };
    sharedJson.set(schema, entry);
  }
  return entry;
}

/** The schema as the compact, member-sorted text `_Server.Database.schema` holds (made once per schema object). */
export function schemaText(schema: DatabaseSchema): string {
  const entry = shared(schema);
  entry.text ??= ovsJsonText(entry.json);
  return entry.text;
}

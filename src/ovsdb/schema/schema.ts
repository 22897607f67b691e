/**
 * Parsing and validation of `.ovsschema` documents (RFC 7047 §3.2, ovsdb(7),
 * ovsdb-server(7) §3.2).
 *
 * {@link parseSchema} checks a schema as `ovsdb-tool create` does and returns
 * the {@link DatabaseSchema} the rest of ovnkit consumes. Errors are
 * {@link SchemaError}s whose `path` names the offending JSON member with dots,
 * e.g. `tables.ACL.columns.priority.type.key.maxInteger`; array elements are
 * numbered from 0 (`tables.Port.indexes.0.1`).
 *
 * What the parser adds to the document:
 * - the implicit columns `_uuid` and `_version` (scalar `uuid`, immutable) in
 *   every table's `columns`;
 * - `columnNames`: the declared columns, sorted;
 * - defaults: `mutable` true, `ephemeral` false, `maxRows` `Infinity`, `min`
 *   and `max` 1, `refType` `strong` when `refTable` is given, `version` `""`
 *   when the (optional, per ovsdb-server(7)) member is absent;
 * - when no table sets `isRoot`, every table is root (RFC 7047 §3.2);
 * - a column holding weak references is always mutable (ovsdb-server(7) §3.2).
 *
 * The `tables` and `columns` records have no prototype, so a lookup such as
 * `schema.tables['constructor']` is `undefined` unless the schema declares it.
 *
 * Integers range over int64. `minInteger`, `maxInteger` and integer `enum`
 * values are stored canonical: a `number` when safe (|v| ≤ 2^53−1), else a
 * `bigint` (see `values/int64.ts`); `maxRows` (any int64 from 1) is kept as a
 * number. In `json`, an integer beyond ±(2^53−1) must be a `bigint`: a
 * `number` there is already rounded, so it is rejected rather than taken
 * inexactly. {@link parseSchemaText} reads such integers exactly from the text.
 *
 * As with `ovsdb-tool`, whose JSON reader takes any number with an integral
 * value in int64 as an integer, `1.0` and `1e3` count as integers. The one
 * difference left: an integer beyond ±(2^53−1) written with a fraction or an
 * exponent (`1e18`) is not read exactly, so it is rejected.
 * @module
 */

import { decodeAtom } from '../values/datum.js';
import { type Int64, toInt64 } from '../values/int64.js';
import { DatumError, SchemaError } from '../wire/errors.js';
import { isObject } from '../wire/json.js';
import { parseJson } from '../wire/json-text.js';
import type {
  Atom,
  AtomicType,
  BaseType,
  ColumnKind,
  ColumnSchema,
  ColumnType,
  DatabaseSchema,
  TableSchema,
} from './schema-types.js';

const ID_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const VERSION_RE = /^[0-9]+\.[0-9]+\.[0-9]+$/;
const ATOMIC_TYPES: readonly AtomicType[] = ['integer', 'real', 'boolean', 'string', 'uuid'];
const UINT_MAX = 4294967295;

type JsonObject = Record<string, unknown>;

function join(path: string, member: string | number): string {
  return path === '' ? String(member) : `${path}.${member}`;
}

function fail(path: string, reason: string): never {
  throw new SchemaError(path, reason);
}

function expectObject(v: unknown, path: string): JsonObject {
  if (!isObject(v)) fail(path, 'expected an object');
  return v;
}

/** Reject members of `obj` that are not in `allowed`, naming the first unknown one. */
function rejectUnknown(obj: JsonObject, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) fail(join(path, key), 'unknown member');
  }
}

function has(obj: JsonObject, key: string): boolean {
  return Object.hasOwn(obj, key);
}

function optBoolean(obj: JsonObject, key: string, path: string): boolean | undefined {
  if (!has(obj, key)) return undefined;
  const v = obj[key];
  if (typeof v !== 'boolean') fail(join(path, key), 'expected a boolean');
  return v;
}

/**
 * Why `v` is not an int64 integer, or undefined when it is one: a
 * safe-integer number, or a bigint within int64 (canonical or not).
 */
function int64Problem(v: unknown): string | undefined {
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) return undefined;
    if (Number.isInteger(v)) {
      // As a number, ±2^63 may be a rounded token from outside int64 (JSON text gives those as numbers).
      if (Math.abs(v) >= 2 ** 63) return `integer ${v} is outside int64 (−2^63 to 2^63−1)`;
      return `integer ${v} is beyond ±(2^53−1), where a number is inexact: give it as a bigint`;
    }
  } else if (typeof v === 'bigint') {
    if (toInt64(v) !== undefined) return undefined;
    return `integer ${v} is outside int64 (−2^63 to 2^63−1)`;
  }
  return 'expected an integer';
}

/** `v` in canonical int64 form when it is an int64 integer (see {@link int64Problem}), else undefined. */
function asInt64(v: unknown): Int64 | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  return typeof v === 'bigint' ? toInt64(v) : undefined;
}

function optInteger(obj: JsonObject, key: string, path: string): Int64 | undefined {
  if (!has(obj, key)) return undefined;
  const v = obj[key];
  const n = asInt64(v);
  if (n === undefined) fail(join(path, key), int64Problem(v) ?? 'expected an integer');
  return n;
}

function optNumber(obj: JsonObject, key: string, path: string): number | undefined {
  if (!has(obj, key)) return undefined;
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(join(path, key), 'expected a number');
  return v;
}

function optLength(obj: JsonObject, key: string, path: string): number | undefined {
  const v = optInteger(obj, key, path);
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || v < 0 || v > UINT_MAX) {
    fail(join(path, key), `expected an integer from 0 to ${UINT_MAX}`);
  }
  return v;
}

function checkId(name: string, path: string, what: string): void {
  if (name.startsWith('_')) fail(path, `${what} names beginning with "_" are reserved`);
  if (!ID_RE.test(name)) {
    fail(path, `${what} name must be an <id> (a letter or "_", then letters, digits or "_")`);
  }
}

function atomicType(v: unknown, path: string): AtomicType {
  if (typeof v !== 'string') fail(path, 'expected an atomic type name');
  if (!(ATOMIC_TYPES as readonly string[]).includes(v)) {
    fail(path, `${JSON.stringify(v)} is not an atomic type (${ATOMIC_TYPES.join(', ')})`);
  }
  return v as AtomicType;
}

/** A table reference still to be checked once every table name is known. */
interface PendingRef {
  readonly refTable: string;
  readonly path: string;
}

function parseEnum(json: unknown, type: AtomicType, path: string): Atom[] {
  let elems: readonly unknown[];
  if (Array.isArray(json) && json[0] === 'set') {
    const inner = json[1];
    if (json.length !== 2 || !Array.isArray(inner)) {
      fail(path, 'expected an atom or ["set", [atom, ...]]');
    }
    elems = inner;
  } else if (Array.isArray(json) && json[0] === 'map') {
    fail(path, 'expected an atom or ["set", [atom, ...]], not a map');
  } else {
    elems = [json];
  }
  if (elems.length === 0) fail(path, 'enum must have at least one value');
  const base: BaseType = { type };
  const seen = new Set<Atom>();
  const out: Atom[] = [];
  elems.forEach((e, i) => {
    const elemPath = elems.length === 1 && !Array.isArray(json) ? path : join(path, i);
    let atom: Atom;
    if (type === 'integer' && (typeof e === 'bigint' || typeof e === 'number')) {
      const n = asInt64(e);
      if (n === undefined) fail(elemPath, int64Problem(e) ?? 'expected an integer');
      atom = n;
    } else {
      try {
        atom = decodeAtom(base, e);
      } catch (err) {
        if (err instanceof DatumError) fail(elemPath, err.reason);
        throw err;
      }
    }
    if (seen.has(atom)) fail(elemPath, `duplicate enum value ${atomText(atom)}`);
    seen.add(atom);
    out.push(atom);
  });
  return out;
}

/** An atom as JSON text (a bigint as its digits). */
function atomText(atom: Atom): string {
  return typeof atom === 'bigint' ? String(atom) : JSON.stringify(atom);
}

function parseBaseType(json: unknown, path: string, refs: PendingRef[]): BaseType {
  if (typeof json === 'string') return { type: atomicType(json, path) };
  if (!isObject(json)) fail(path, 'expected an atomic type name or an object');
  if (!has(json, 'type')) fail(join(path, 'type'), 'required member is missing');
  const type = atomicType(json['type'], join(path, 'type'));

  const allowed = ['type', 'enum'];
  let enumValues: Atom[] | undefined;
  if (has(json, 'enum')) {
    enumValues = parseEnum(json['enum'], type, join(path, 'enum'));
  } else {
    if (type === 'integer') allowed.push('minInteger', 'maxInteger');
    if (type === 'real') allowed.push('minReal', 'maxReal');
    if (type === 'string') allowed.push('minLength', 'maxLength');
    if (type === 'uuid') allowed.push('refTable', 'refType');
  }
  for (const key of Object.keys(json)) {
    if (allowed.includes(key)) continue;
    const p = join(path, key);
    if (CONSTRAINT_TYPE[key] !== undefined) {
      if (enumValues !== undefined && CONSTRAINT_TYPE[key] === type) {
        fail(p, 'not allowed together with enum');
      }
      fail(p, `not allowed for type ${type}`);
    }
    fail(p, 'unknown member');
  }

  const base: {
    -readonly [K in keyof BaseType]: BaseType[K];
  } = { type };
  if (enumValues !== undefined) base.enum = enumValues;
  switch (type) {
    case 'integer': {
      const min = optInteger(json, 'minInteger', path);
      const max = optInteger(json, 'maxInteger', path);
      if (min !== undefined && max !== undefined && min > max) {
        fail(join(path, 'maxInteger'), `minInteger ${min} exceeds maxInteger ${max}`);
      }
      if (min !== undefined) base.minInteger = min;
      if (max !== undefined) base.maxInteger = max;
      break;
    }
    case 'real': {
      const min = optNumber(json, 'minReal', path);
      const max = optNumber(json, 'maxReal', path);
      if (min !== undefined && max !== undefined && min > max) {
        fail(join(path, 'maxReal'), `minReal ${min} exceeds maxReal ${max}`);
      }
      if (min !== undefined) base.minReal = min;
      if (max !== undefined) base.maxReal = max;
      break;
    }
    case 'string': {
      const min = optLength(json, 'minLength', path);
      const max = optLength(json, 'maxLength', path);
      if (min !== undefined && max !== undefined && min > max) {
        fail(join(path, 'maxLength'), `minLength ${min} exceeds maxLength ${max}`);
      }
      if (min !== undefined) base.minLength = min;
      if (max !== undefined) base.maxLength = max;
      break;
    }
    case 'uuid': {
      if (has(json, 'refTable')) {
        const refTable = json['refTable'];
        if (typeof refTable !== 'string' || !ID_RE.test(refTable)) {
          fail(join(path, 'refTable'), 'expected a table name');
        }
        refs.push({ refTable, path: join(path, 'refTable') });
        base.refTable = refTable;
        base.refType = 'strong';
        if (has(json, 'refType')) {
          const refType = json['refType'];
          if (refType !== 'strong' && refType !== 'weak') {
            fail(join(path, 'refType'), 'expected "strong" or "weak"');
          }
          base.refType = refType;
        }
      } else if (has(json, 'refType')) {
        fail(join(path, 'refType'), 'not allowed without refTable');
      }
      break;
    }
    case 'boolean':
      break;
  }
  return base;
}

/** The atomic type each constraint member belongs to. */
const CONSTRAINT_TYPE: Readonly<Record<string, AtomicType>> = Object.assign(Object.create(null), {
  minInteger: 'integer',
  maxInteger: 'integer',
  minReal: 'real',
  maxReal: 'real',
  minLength: 'string',
  maxLength: 'string',
  refTable: 'uuid',
  refType: 'uuid',
});

/** The {@link ColumnKind} of a type with these parts (see `schema-types.ts`). */
function columnKind(hasValue: boolean, min: number, max: number): ColumnKind {
  if (hasValue) return 'map';
  if (max === 1) return min === 1 ? 'scalar' : 'optional';
  return 'set';
}

function parseType(json: unknown, path: string, refs: PendingRef[]): ColumnType {
  if (typeof json === 'string') {
    return { key: parseBaseType(json, path, refs), min: 1, max: 1, kind: 'scalar' };
  }
  if (!isObject(json)) fail(path, 'expected an atomic type name or an object');
  rejectUnknown(json, ['key', 'value', 'min', 'max'], path);
  if (!has(json, 'key')) fail(join(path, 'key'), 'required member is missing');
  const key = parseBaseType(json['key'], join(path, 'key'), refs);
  const value = has(json, 'value')
    ? parseBaseType(json['value'], join(path, 'value'), refs)
    : undefined;

  let min = 1;
  if (has(json, 'min')) {
    const v = asInt64(json['min']);
    if (v !== 0 && v !== 1) fail(join(path, 'min'), 'expected 0 or 1');
    min = v;
  }
  let max = 1;
  if (has(json, 'max')) {
    const v = json['max'] === 'unlimited' ? 'unlimited' : asInt64(json['max']);
    if (v === 'unlimited') max = Number.POSITIVE_INFINITY;
    else if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= UINT_MAX) max = v;
    else fail(join(path, 'max'), 'expected an integer from 1 to 4294967295 or "unlimited"');
  }
  // min is 0 or 1 and max is at least 1, so min <= max always holds here.
  const kind = columnKind(value !== undefined, min, max);
  return value === undefined ? { key, min, max, kind } : { key, value, min, max, kind };
}

function isWeak(base: BaseType | undefined): boolean {
  return base?.refTable !== undefined && base.refType === 'weak';
}

function parseColumn(name: string, json: unknown, path: string, refs: PendingRef[]): ColumnSchema {
  const obj = expectObject(json, path);
  rejectUnknown(obj, ['type', 'ephemeral', 'mutable'], path);
  if (!has(obj, 'type')) fail(join(path, 'type'), 'required member is missing');
  const type = parseType(obj['type'], join(path, 'type'), refs);
  const ephemeral = optBoolean(obj, 'ephemeral', path) ?? false;
  let mutable = optBoolean(obj, 'mutable', path) ?? true;
  if (isWeak(type.key) || isWeak(type.value)) mutable = true;
  return { name, type, ephemeral, mutable };
}

const UUID_TYPE: ColumnType = { key: { type: 'uuid' }, min: 1, max: 1, kind: 'scalar' };

function implicitColumn(name: '_uuid' | '_version'): ColumnSchema {
  return { name, type: UUID_TYPE, ephemeral: false, mutable: false };
}

interface ParsedTable {
  name: string;
  columns: Record<string, ColumnSchema>;
  columnNames: string[];
  maxRows: number;
  isRoot: boolean | undefined;
  indexes: string[][];
}

function parseTable(name: string, json: unknown, path: string, refs: PendingRef[]): ParsedTable {
  const obj = expectObject(json, path);
  rejectUnknown(obj, ['columns', 'mutable', 'maxRows', 'isRoot', 'indexes'], path);
  if (!has(obj, 'columns')) fail(join(path, 'columns'), 'required member is missing');
  const columnsJson = expectObject(obj['columns'], join(path, 'columns'));
  optBoolean(obj, 'mutable', path);
  // Any int64 from 1 up; beyond 2^53 rows the limit is as good as none, so a number will do.
  const maxRowsInt = optInteger(obj, 'maxRows', path);
  if (maxRowsInt !== undefined && maxRowsInt < 1) fail(join(path, 'maxRows'), 'must be at least 1');
  const maxRowsJson = maxRowsInt === undefined ? undefined : Number(maxRowsInt);
  const isRoot = optBoolean(obj, 'isRoot', path);

  const names = Object.keys(columnsJson);
  if (names.length === 0) fail(join(path, 'columns'), 'a table must have at least one column');
  const columns: Record<string, ColumnSchema> = Object.create(null);
  columns['_uuid'] = implicitColumn('_uuid');
  columns['_version'] = implicitColumn('_version');
  for (const col of names) {
    const colPath = join(join(path, 'columns'), col);
    checkId(col, colPath, 'column');
    columns[col] = parseColumn(col, columnsJson[col], colPath, refs);
  }

  const indexes: string[][] = [];
  if (has(obj, 'indexes')) {
    const ixPath = join(path, 'indexes');
    const ixJson = obj['indexes'];
    if (!Array.isArray(ixJson)) fail(ixPath, 'expected an array of indexes');
    ixJson.forEach((ix: unknown, i) => {
      const p = join(ixPath, i);
      if (!Array.isArray(ix)) fail(p, 'expected an array of column names');
      if (ix.length === 0) fail(p, 'an index must have at least one column');
      const seen = new Set<string>();
      ix.forEach((c: unknown, j) => {
        const cp = join(p, j);
        if (typeof c !== 'string') fail(cp, 'expected a column name');
        const column = columns[c];
        if (column === undefined) fail(cp, `no column ${JSON.stringify(c)} in table ${name}`);
        if (seen.has(c)) fail(cp, `column ${JSON.stringify(c)} appears twice in the index`);
        if (column.ephemeral) fail(cp, `ephemeral column ${JSON.stringify(c)} may not be indexed`);
        seen.add(c);
      });
      indexes.push(ix as string[]);
    });
  }

  return {
    name,
    columns,
    columnNames: [...names].sort(),
    maxRows: maxRowsJson ?? Number.POSITIVE_INFINITY,
    isRoot,
    indexes,
  };
}

/**
 * Validate an `.ovsschema` document and return its parsed form.
 *
 * @param json - the schema as parsed JSON (e.g. the result of `get_schema`);
 *   integers beyond ±(2^53−1) as bigints. `JSON.parse` rounds those, so read
 *   schema text with {@link parseSchemaText}, which keeps them exact.
 * @returns the schema, with implicit columns and defaults filled in; `json`
 *   holds the input unchanged.
 * @throws SchemaError naming the JSON path of the first problem found.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { parseSchema } from 'ovnkit/ovsdb';
 *
 * const text = readFileSync('ovn-nb.ovsschema', 'utf8');
 * const schema = parseSchema(JSON.parse(text));
 * schema.tables['ACL']?.columns['priority']?.type.key.maxInteger; // 32767
 * ```
 */
export function parseSchema(json: unknown): DatabaseSchema {
  const obj = expectObject(json, '');
  rejectUnknown(obj, ['name', 'version', 'cksum', 'tables'], '');

  if (!has(obj, 'name')) fail('name', 'required member is missing');
  const name = obj['name'];
  if (typeof name !== 'string' || !ID_RE.test(name)) {
    fail('name', 'expected an <id> (a letter or "_", then letters, digits or "_")');
  }

  let version = '';
  if (has(obj, 'version')) {
    const v = obj['version'];
    if (typeof v !== 'string' || !VERSION_RE.test(v)) {
      fail('version', 'expected a version string of the form x.y.z');
    }
    version = v;
  }

  let cksum: string | undefined;
  if (has(obj, 'cksum')) {
    const v = obj['cksum'];
    if (typeof v !== 'string') fail('cksum', 'expected a string');
    cksum = v;
  }

  if (!has(obj, 'tables')) fail('tables', 'required member is missing');
  const tablesJson = expectObject(obj['tables'], 'tables');

  const refs: PendingRef[] = [];
  const parsed: ParsedTable[] = [];
  for (const tableName of Object.keys(tablesJson)) {
    const path = join('tables', tableName);
    checkId(tableName, path, 'table');
    parsed.push(parseTable(tableName, tablesJson[tableName], path, refs));
  }

  const tableNames = new Set(parsed.map((t) => t.name));
  for (const ref of refs) {
    if (!tableNames.has(ref.refTable)) fail(ref.path, `no table named ${ref.refTable}`);
  }

  const anyRoot = parsed.some((t) => t.isRoot === true);
  const tables: Record<string, TableSchema> = Object.create(null);
  for (const t of parsed) {
    tables[t.name] = {
      name: t.name,
      columns: t.columns,
      columnNames: t.columnNames,
      maxRows: t.maxRows,
      isRoot: anyRoot ? t.isRoot === true : true,
      indexes: t.indexes,
    };
  }

  return cksum === undefined
    ? { name, version, tables, json }
    : { name, version, cksum, tables, json };
}

/**
 * Parse the text of an `.ovsschema` file and validate it with {@link parseSchema}.
 * Integers beyond ±(2^53−1) (e.g. `"maxInteger": 9223372036854775807`) are
 * read exactly.
 * @throws SchemaError when the text is not JSON (path `""`) or the schema is invalid.
 */
export function parseSchemaText(text: string): DatabaseSchema {
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (err) {
    throw new SchemaError(
      '',
      `not valid JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return parseSchema(json);
}

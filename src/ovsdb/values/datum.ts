/**
 * The datum codec: converts OVSDB values between their wire JSON (RFC 7047 §5.1)
 * and the JS values ovnkit hands to programs, driven by the column's schema.
 *
 * ## JS representation
 *
 * | OVSDB                                   | JS                                   |
 * | --------------------------------------- | ------------------------------------ |
 * | `integer`                               | `Int64`: `number` when safe, `bigint` beyond ±(2^53−1) |
 * | `real`                                  | `number` (finite)                    |
 * | `boolean`                               | `boolean`                            |
 * | `string`                                | `string`                             |
 * | `uuid`                                  | `Uuid<RefTable>`: lower-case string  |
 * | scalar column (min 1, max 1)            | the atom `T`                         |
 * | optional column (min 0, max 1)          | `T \| null`                          |
 * | set column (max > 1)                    | `T[]`                                |
 * | map column (has a value type)           | `Record<K, V>`, a plain object       |
 *
 * Integers are 64-bit and exact: decoding gives the canonical int64 form (a
 * safe-integer `number`, or a `bigint` outside ±(2^53−1), never a rounded
 * number); encoding takes a safe-integer `number` or any `bigint` within
 * int64. A `number` that is an integer but not a safe one (`2 ** 53 + 1`,
 * already rounded) is a {@link DatumError}: pass a `bigint` instead.
 *
 * Map keys are the string form of the key atom: integers and reals as
 * `String(n)` (`"42"`, `"9223372036854775807"`, `"1.5"`), booleans as `"true"`/`"false"`, UUIDs in lower
 * case. The encoder converts them back using the key's base type and rejects
 * non-canonical forms such as `"042"`. A key named `__proto__` is an own
 * property of the object (set with `Object.defineProperty`), so maps never
 * touch the object prototype.
 *
 * On the wire, a UUID is `["uuid", "…"]` (or `["named-uuid", "name"]` inside a
 * transaction), a set is `["set", […]]` (a one-element set may be sent as the
 * bare atom, and OVS always does so), and a map is `["map", [[k, v], …]]`.
 *
 * ## What the codec checks
 *
 * Decoding and encoding check the shape and the atomic types, and throw a
 * {@link DatumError} naming table, column, the offending value and the reason.
 * Encoding also refuses a string holding U+0000, which ovsdb-server (OVS's
 * JSON reader) refuses anywhere in a message by dropping the connection.
 * They do not check enums, ranges, lengths, set sizes or duplicate set
 * elements: those are constraints, checked by `validators.ts` (a `modify`
 * diff of a set column may legitimately be larger than the column's `max`).
 *
 * Codecs are compiled once per column and cached on the schema objects, so
 * repeated calls to {@link compileColumnCodec} and {@link compileTableCodec}
 * are cheap.
 * @module
 */

import type { Atom, BaseType, ColumnSchema, TableSchema } from '../schema/schema-types.js';
import { DatumError } from '../wire/errors.js';
import { isPlainObject, setOwn } from '../wire/json.js';
import { defaultAtom } from './defaults.js';
import { INT64_MAX, INT64_MIN, toInt64 } from './int64.js';
import { isCanonicalUuid, isUuid } from './uuid.js';

/** Options for encoding values that may reference rows inserted in the same transaction. */
export interface EncodeContext {
  /**
   * Called for every UUID being encoded. When it returns a name, the UUID is
   * sent as `["named-uuid", name]` instead of `["uuid", uuid]`.
   */
  readonly namedUuid?: ((uuid: string) => string | undefined) | undefined;
}

/** Options for decoding values that may contain named UUIDs (servers only). */
export interface DecodeContext {
  /**
   * Resolves `["named-uuid", name]` to the UUID of the row inserted under that
   * name. Without it, a named UUID is a {@link DatumError}.
   */
  readonly resolveNamedUuid?: ((name: string) => string) | undefined;
}

/** The compiled codec of one column. */
export interface ColumnCodec {
  /** The table the column belongs to (used in error messages). */
  readonly table: string;
  /** The column's schema. */
  readonly column: ColumnSchema;
  /**
   * Wire JSON → JS value. For speed, a set of non-UUID atoms is returned as the
   * wire array itself (after checking it), so the result may share arrays with
   * `json`: treat decoded values as immutable, or copy before mutating.
   * @throws DatumError when the JSON does not have the column's shape or atomic type.
   */
  decode(json: unknown, ctx?: DecodeContext): unknown;
  /**
   * JS value → wire JSON.
   * @throws DatumError when the value does not have the column's shape or atomic type.
   */
  encode(value: unknown, ctx?: EncodeContext): unknown;
}

/** The compiled codecs of one table. */
export interface TableCodec {
  /** The table's schema. */
  readonly table: TableSchema;
  /** One codec per column, `_uuid` and `_version` included. */
  readonly columns: Readonly<Record<string, ColumnCodec>>;
  /**
   * Decode the columns present in a wire row. Columns the schema does not know
   * (a newer server may have more) are skipped, not rejected.
   * @throws DatumError when a known column's value is malformed.
   */
  decodeRow(
    wireRow: Readonly<Record<string, unknown>>,
    ctx?: DecodeContext,
  ): Record<string, unknown>;
  /**
   * Encode the columns present in a JS row. Members whose value is `undefined`
   * are left out.
   * @throws DatumError for a column the table does not have, or a malformed value.
   */
  encodeRow(row: Readonly<Record<string, unknown>>, ctx?: EncodeContext): Record<string, unknown>;
}

type Fail = (value: unknown, reason: string) => never;
type AtomDecoder = (json: unknown, ctx: DecodeContext | undefined) => Atom;
type AtomEncoder = (value: unknown, ctx: EncodeContext | undefined) => unknown;

const INTEGER_KEY_RE = /^-?(?:0|[1-9][0-9]*)$/;

function describe(json: unknown): string {
  if (json === null) return 'null';
  if (Array.isArray(json)) return 'an array';
  if (typeof json === 'number') return Number.isInteger(json) ? 'an integer' : 'a real';
  if (typeof json === 'bigint') return 'an integer';
  if (typeof json === 'object') return 'an object';
  return `a ${typeof json}`;
}

/** Why `v` is not an integer atom (see {@link integerAtom}). */
export function integerReason(v: unknown): string {
  if (typeof v === 'number' && Number.isInteger(v)) {
    if (v >= -(2 ** 63) && v < 2 ** 63) {
      return `integer ${v} is not a safe JS integer (it may already be rounded): pass it as a bigint, e.g. ${BigInt(v)}n`;
    }
    return `integer ${v} is outside the int64 range`;
  }
  if (typeof v === 'bigint') {
    return `integer ${v} is outside the int64 range ${INT64_MIN}..${INT64_MAX}`;
  }
  return `expected an integer, got ${describe(v)}`;
}

/**
 * The canonical int64 of an integer atom given as a safe-integer `number` or
 * a `bigint` within int64, or undefined for anything else (a rounded,
 * unsafe `number` included).
 */
export function integerAtom(v: unknown): Atom | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  if (typeof v === 'bigint') return toInt64(v);
  return undefined;
}

function makeAtomDecoder(base: BaseType, fail: Fail): AtomDecoder {
  switch (base.type) {
    case 'integer':
      return (j) => {
        if (typeof j === 'number' && Number.isSafeInteger(j)) return j;
        // The wire decoders give integers beyond ±(2^53−1) as bigints; a
        // JSON.parse'd value may hold one as an already rounded number.
        const v = integerAtom(j);
        if (v !== undefined) return v;
        return fail(j, integerReason(j));
      };
    case 'real':
      return (j) => {
        if (typeof j === 'number' && Number.isFinite(j)) return j;
        // A real with an integral value beyond 2^53 may come as a long integer token.
        if (typeof j === 'bigint') return Number(j);
        return fail(j, `expected a real, got ${describe(j)}`);
      };
    case 'boolean':
      return (j) => {
        if (typeof j === 'boolean') return j;
        return fail(j, `expected a boolean, got ${describe(j)}`);
      };
    case 'string':
      return (j) => {
        if (typeof j === 'string') return j;
        return fail(j, `expected a string, got ${describe(j)}`);
      };
    case 'uuid':
      return (j, ctx) => {
        if (Array.isArray(j) && j.length === 2) {
          const tag = j[0];
          const s: unknown = j[1];
          if (tag === 'uuid' && typeof s === 'string') {
            if (isCanonicalUuid(s)) return s;
            if (isUuid(s)) return s.toLowerCase();
            return fail(j, `${JSON.stringify(s)} is not a UUID`);
          }
          if (tag === 'named-uuid' && typeof s === 'string') {
            const resolve = ctx?.resolveNamedUuid;
            if (resolve === undefined) {
              return fail(
                j,
                `named UUID ${JSON.stringify(s)} is only allowed inside a transaction`,
              );
            }
            const u = resolve(s);
            if (!isUuid(u))
              return fail(j, `named UUID ${JSON.stringify(s)} did not resolve to a UUID`);
            return u.toLowerCase();
          }
        }
        return fail(
          j,
          `expected ["uuid", <string>] or ["named-uuid", <string>], got ${describe(j)}`,
        );
      };
  }
}

const nulText =
  'a string holding U+0000 (NUL) cannot be sent: ovsdb-server drops a connection that sends one';

function makeAtomEncoder(base: BaseType, fail: Fail): AtomEncoder {
  switch (base.type) {
    case 'integer':
      return (v) => {
        if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
        const a = integerAtom(v);
        if (a !== undefined) return a;
        return fail(v, integerReason(v));
      };
    case 'real':
      return (v) => {
        if (typeof v === 'number' && Number.isFinite(v)) return v;
        return fail(
          v,
          typeof v === 'number' ? `real ${v} is not finite` : `expected a real, got ${describe(v)}`,
        );
      };
    case 'boolean':
      return (v) => {
        if (typeof v === 'boolean') return v;
        return fail(v, `expected a boolean, got ${describe(v)}`);
      };
    case 'string':
      return (v) => {
        if (typeof v === 'string') {
          // OVS's JSON reader refuses U+0000: ovsdb-server would drop the connection.
          if (v.includes('\u0000')) return fail(v, nulText);
          return v;
        }
        return fail(v, `expected a string, got ${describe(v)}`);
      };
    case 'uuid':
      return (v, ctx) => {
        if (typeof v !== 'string') return fail(v, `expected a UUID string, got ${describe(v)}`);
        if (!isUuid(v)) return fail(v, `${JSON.stringify(v)} is not a UUID`);
        const u = v.toLowerCase();
        const name = ctx?.namedUuid?.(u);
        return name === undefined ? ['uuid', u] : ['named-uuid', name];
      };
  }
}

/**
 * The map-key string of an atom: `String(n)` for numbers and bigints (the
 * decimal digits, no `n`), `"true"`/`"false"` for booleans, the string
 * itself for strings and UUIDs.
 */
export function mapKeyString(atom: Atom): string {
  return typeof atom === 'string' ? atom : String(atom);
}

type KeyParser = (key: string) => Atom;

function makeKeyParser(base: BaseType, fail: Fail): KeyParser {
  switch (base.type) {
    case 'string':
      return (k) => k;
    case 'integer':
      return (k) => {
        if (INTEGER_KEY_RE.test(k)) {
          if (k.length <= 15) return Number(k);
          const v = toInt64(BigInt(k));
          if (v !== undefined) return v;
          return fail(k, `map key ${JSON.stringify(k)}: integer ${k} is outside the int64 range`);
        }
        return fail(k, `map key ${JSON.stringify(k)} is not an integer in canonical decimal form`);
      };
    case 'real':
      return (k) => {
        const n = Number(k);
        if (k !== '' && Number.isFinite(n) && String(n) === k) return n;
        return fail(k, `map key ${JSON.stringify(k)} is not a real in canonical form (String(n))`);
      };
    case 'boolean':
      return (k) => {
        if (k === 'true') return true;
        if (k === 'false') return false;
        return fail(k, `map key ${JSON.stringify(k)} is not "true" or "false"`);
      };
    case 'uuid':
      return (k) => {
        if (isUuid(k)) return k.toLowerCase();
        return fail(k, `map key ${JSON.stringify(k)} is not a UUID`);
      };
  }
}

function bareFail(value: unknown, reason: string): never {
  throw new DatumError(undefined, undefined, value, reason);
}

/**
 * Parse a map-key string (see the module docs) back to the atom of `base`.
 * @throws DatumError (with no table or column) when `key` is not the canonical
 *   string form of an atom of that type.
 */
export function parseMapKey(base: BaseType, key: string): Atom {
  return makeKeyParser(base, bareFail)(key);
}

/**
 * Decode one wire atom of type `base` (`5`, `"x"`, `["uuid", "…"]`, …). Only the
 * atomic type is checked, not `base`'s constraints.
 * @throws DatumError (with no table or column) when `json` is not such an atom.
 */
export function decodeAtom(base: BaseType, json: unknown, ctx?: DecodeContext): Atom {
  return makeAtomDecoder(base, bareFail)(json, ctx);
}

/**
 * Encode one JS atom of type `base` to wire JSON. Only the atomic type is
 * checked, not `base`'s constraints.
 * @throws DatumError (with no table or column) when `value` is not such an atom.
 */
export function encodeAtom(base: BaseType, value: unknown, ctx?: EncodeContext): unknown {
  return makeAtomEncoder(base, bareFail)(value, ctx);
}

function isSet(j: unknown): j is ['set', unknown] {
  return Array.isArray(j) && j.length === 2 && j[0] === 'set';
}

function buildColumnCodec(table: string, column: ColumnSchema): ColumnCodec {
  const name = column.name;
  const fail: Fail = (value, reason) => {
    throw new DatumError(table, name, value, reason);
  };
  const { type } = column;
  const decodeKey = makeAtomDecoder(type.key, fail);
  const encodeKey = makeAtomEncoder(type.key, fail);

  const setElems = (j: ['set', unknown]): unknown[] => {
    const elems = j[1];
    if (!Array.isArray(elems)) return fail(j, 'expected ["set", [...]]');
    return elems;
  };

  let decode: ColumnCodec['decode'];
  let encode: ColumnCodec['encode'];

  switch (type.kind) {
    case 'scalar':
      decode = (j, ctx) => {
        if (isSet(j)) {
          const elems = setElems(j);
          if (elems.length !== 1) {
            return fail(j, `expected exactly one value, got a set of ${elems.length}`);
          }
          return decodeKey(elems[0], ctx);
        }
        return decodeKey(j, ctx);
      };
      encode = (v, ctx) => {
        if (v === null || v === undefined)
          return fail(v, `a value is required, got ${describe(v)}`);
        return encodeKey(v, ctx);
      };
      break;
    case 'optional':
      decode = (j, ctx) => {
        if (isSet(j)) {
          const elems = setElems(j);
          if (elems.length === 0) return null;
          if (elems.length !== 1) {
            return fail(j, `expected at most one value, got a set of ${elems.length}`);
          }
          return decodeKey(elems[0], ctx);
        }
        return decodeKey(j, ctx);
      };
      encode = (v, ctx) => (v === null ? ['set', []] : encodeKey(v, ctx));
      break;
    case 'set':
      if (type.key.type === 'uuid') {
        decode = (j, ctx) => {
          if (isSet(j)) {
            const elems = setElems(j);
            const out: unknown[] = [];
            for (let i = 0; i < elems.length; i++) out.push(decodeKey(elems[i], ctx));
            return out;
          }
          return [decodeKey(j, ctx)];
        };
      } else {
        // Atoms other than UUIDs are their own JS value: check the elements and
        // return the wire array itself instead of copying it (unless an integer
        // was not in canonical form, e.g. a small bigint).
        decode = (j, ctx) => {
          if (isSet(j)) {
            const elems = setElems(j);
            for (let i = 0; i < elems.length; i++) {
              const a = decodeKey(elems[i], ctx);
              if (a !== elems[i]) return elems.map((e) => decodeKey(e, ctx));
            }
            return elems;
          }
          return [decodeKey(j, ctx)];
        };
      }
      encode = (v, ctx) => {
        if (!Array.isArray(v)) return fail(v, `expected an array, got ${describe(v)}`);
        const out: unknown[] = [];
        for (let i = 0; i < v.length; i++) out.push(encodeKey(v[i], ctx));
        return ['set', out];
      };
      break;
    case 'map': {
      const valueType = type.value;
      if (valueType === undefined)
        throw new TypeError(`${table}.${name}: map without a value type`);
      const decodeValue = makeAtomDecoder(valueType, fail);
      const encodeValue = makeAtomEncoder(valueType, fail);
      const parseKey = makeKeyParser(type.key, fail);
      const stringMap = type.key.type === 'string' && valueType.type === 'string';
      decode = (j, ctx) => {
        if (!Array.isArray(j) || j.length !== 2 || j[0] !== 'map' || !Array.isArray(j[1])) {
          return fail(j, `expected ["map", [[key, value], ...]], got ${describe(j)}`);
        }
        const pairs: unknown[] = j[1];
        const out: Record<string, unknown> = {};
        if (stringMap) {
          // The common string → string map (external_ids, options, ...), inlined.
          for (let i = 0; i < pairs.length; i++) {
            const pair = pairs[i];
            if (!Array.isArray(pair) || pair.length !== 2)
              return fail(pair, 'expected a [key, value] pair');
            const k: unknown = pair[0];
            const v: unknown = pair[1];
            // For a non-string, the general decoders throw the usual DatumError.
            if (typeof k !== 'string') return decodeKey(k, ctx) as never;
            if (typeof v !== 'string') return decodeValue(v, ctx) as never;
            if (out[k] !== undefined && Object.hasOwn(out, k)) {
              return fail(j, `duplicate map key ${JSON.stringify(k)}`);
            }
            if (k === '__proto__') setOwn(out, k, v);
            else out[k] = v;
          }
          return out;
        }
        for (let i = 0; i < pairs.length; i++) {
          const pair = pairs[i];
          if (!Array.isArray(pair) || pair.length !== 2) {
            return fail(pair, 'expected a [key, value] pair');
          }
          const k = mapKeyString(decodeKey(pair[0], ctx));
          if (Object.hasOwn(out, k)) return fail(j, `duplicate map key ${JSON.stringify(k)}`);
          setOwn(out, k, decodeValue(pair[1], ctx));
        }
        return out;
      };
      encode = (v, ctx) => {
        if (!isPlainObject(v)) return fail(v, `expected a plain object, got ${describe(v)}`);
        const pairs: unknown[] = [];
        for (const k of Object.keys(v)) {
          pairs.push([encodeKey(parseKey(k), ctx), encodeValue(v[k], ctx)]);
        }
        return ['map', pairs];
      };
      break;
    }
  }
  return { table, column, decode, encode };
}

const columnCodecs = new WeakMap<ColumnSchema, Map<string, ColumnCodec>>();

/**
 * The codec of one column, compiled once and cached on the column object.
 * @param table - the table name, used in error messages.
 */
export function compileColumnCodec(table: string, column: ColumnSchema): ColumnCodec {
  let byTable = columnCodecs.get(column);
  if (byTable === undefined) {
    byTable = new Map();
    columnCodecs.set(column, byTable);
  }
  let codec = byTable.get(table);
  if (codec === undefined) {
    codec = buildColumnCodec(table, column);
    byTable.set(table, codec);
  }
  return codec;
}

const tableCodecs = new WeakMap<TableSchema, TableCodec>();

/** The codecs of every column of `table`, compiled once and cached on the table object. */
export function compileTableCodec(table: TableSchema): TableCodec {
  const cached = tableCodecs.get(table);
  if (cached !== undefined) return cached;
  const columns: Record<string, ColumnCodec> = Object.create(null);
  for (const [name, column] of Object.entries(table.columns)) {
    columns[name] = compileColumnCodec(table.name, column);
  }
  const tableName = table.name;
  const decoders = new Map<string, ColumnCodec['decode']>();
  for (const [name, c] of Object.entries(columns)) decoders.set(name, c.decode);
  const codec: TableCodec = {
    table,
    columns,
    decodeRow(wireRow, ctx) {
      const out: Record<string, unknown> = {};
      for (const k in wireRow) {
        const decode = decoders.get(k);
        if (decode !== undefined) out[k] = decode(wireRow[k], ctx);
      }
      return out;
    },
    encodeRow(row, ctx) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(row)) {
        const v = row[k];
        if (v === undefined) continue;
        const c = columns[k];
        if (c === undefined) {
          throw new DatumError(tableName, k, v, `table ${tableName} has no column ${k}`);
        }
        setOwn(out, k, c.encode(v, ctx));
      }
      return out;
    },
  };
  tableCodecs.set(table, codec);
  return codec;
}

/**
 * The value OVSDB gives a column that an `insert` leaves out (RFC 7047 §5.2.1,
 * and what ovsdb-server actually stores), in the JS representation. The default
 * atom is `0` for integer and real, `false`, `""`, or the all-zero UUID, and a
 * column gets `min` of them:
 * - scalar: the default atom;
 * - optional: `null`;
 * - set: `[]`, or `[defaultAtom]` when `min` is 1;
 * - map: `{}`, or `{ [defaultKey]: defaultValue }` when `min` is 1.
 *
 * A fresh array or object is returned on every call. The default ignores the
 * column's constraints: for a column with an enum or a range that excludes it
 * (e.g. OVN's `ACL.action`), the server rejects an insert that omits the column.
 */
export function defaultValue(column: ColumnSchema): unknown {
  const { type } = column;
  switch (type.kind) {
    case 'scalar':
      return defaultAtom(type.key.type);
    case 'optional':
      return null;
    case 'set':
      return type.min === 0 ? [] : [defaultAtom(type.key.type)];
    case 'map': {
      const out: Record<string, unknown> = {};
      if (type.min > 0 && type.value !== undefined) {
        setOwn(out, mapKeyString(defaultAtom(type.key.type)), defaultAtom(type.value.type));
      }
      return out;
    }
  }
}

/**
 * Rows of the test kit as the server engine holds them: a JS value of a
 * column (the datum codec's shapes: `T`, `T | null`, `T[]`,
 * `Record<K, V>`) made into a sorted {@link Datum}, with every UUID atom
 * passed through a resolver (seeds and expected states name rows instead of
 * giving their UUIDs).
 * @module
 */

import type { Atom, BaseType, TableSchema } from '../../ovsdb/schema/schema-types.js';
import { integerAtom, parseMapKey } from '../../ovsdb/values/datum.js';
import { type Datum, sortDatum } from '../../ovsdb/values/sorted-datum.js';

/**
 * Turns a string in a UUID position into the atom to store: a row name into
 * its UUID, a UUID into itself. `refTable` is the table the column
 * references (undefined for a plain `uuid` column).
 */
export type UuidResolver = (value: string, refTable: string | undefined, where: Where) => string;

/** Where a value came from, for error messages: `Logical_Switch sw0` or similar. */
export type Where = string;

function atomOf(base: BaseType, v: unknown, resolve: UuidResolver, where: Where): Atom {
  switch (base.type) {
    case 'integer': {
      const a = integerAtom(v);
      if (a === undefined) throw new TypeError(`${where}: expected an integer, got ${show(v)}`);
      return a;
    }
    case 'real':
      if (typeof v === 'number' && Number.isFinite(v)) return v;
      if (typeof v === 'bigint') return Number(v);
      throw new TypeError(`${where}: expected a real, got ${show(v)}`);
    case 'boolean':
      if (typeof v === 'boolean') return v;
      throw new TypeError(`${where}: expected a boolean, got ${show(v)}`);
    case 'string':
      if (typeof v === 'string') return v;
      throw new TypeError(`${where}: expected a string, got ${show(v)}`);
    case 'uuid':
      if (typeof v === 'string') return resolve(v, base.refTable, where);
      throw new TypeError(`${where}: expected a UUID or a row name, got ${show(v)}`);
  }
}

function show(v: unknown): string {
  if (typeof v === 'bigint') return `${v}n`;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * The datum of column `column` of `table` holding the JS value `value`.
 * Checks the shape and the atoms' types, not the column's constraints
 * (enums, ranges, set sizes): a seed's invalid rows may break those.
 * @throws TypeError naming the table, column and value when the value does
 *   not have the column's shape or atomic type, or repeats a set element or
 *   map key.
 */
export function datumOf(
  table: TableSchema,
  column: string,
  value: unknown,
  resolve: UuidResolver,
  where: Where,
): Datum {
  const schema = Object.hasOwn(table.columns, column) ? table.columns[column] : undefined;
  if (schema === undefined)
    throw new TypeError(`${where}: table ${table.name} has no column ${column}`);
  const type = schema.type;
  const at = `${where}, column ${column}`;
  let keys: Atom[];
  let values: Atom[] | undefined;
  switch (type.kind) {
    case 'scalar':
      keys = [atomOf(type.key, value, resolve, at)];
      break;
    case 'optional':
      keys = value === null ? [] : [atomOf(type.key, value, resolve, at)];
      break;
    case 'set':
      if (!Array.isArray(value))
        throw new TypeError(`${at}: expected an array, got ${show(value)}`);
      keys = value.map((v) => atomOf(type.key, v, resolve, at));
      break;
    case 'map': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new TypeError(`${at}: expected an object (a map), got ${show(value)}`);
      }
      const valueType = type.value as BaseType;
      keys = [];
      values = [];
      for (const [k, v] of Object.entries(value)) {
        const key =
          type.key.type === 'uuid' ? resolve(k, type.key.refTable, at) : parseMapKey(type.key, k);
        keys.push(key);
        values.push(atomOf(valueType, v, resolve, at));
      }
      break;
    }
  }
  const d = sortDatum(keys, values);
  if (d === undefined) throw new TypeError(`${at}: ${show(value)} repeats an element`);
  return d;
}

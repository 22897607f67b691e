/**
 * Row and column helpers of {@link TransactionView}: copying rows, finding
 * the references a column value holds, dropping a reference, the columns
 * that reference each table, and applying a mutation to a value, all as the
 * server does them.
 * @module
 */

import type { ColumnSchema, TableSchema } from '../ovsdb/schema/schema-types.js';
import { type Int64, type Int64Operator, ovsdbIntMutate, toInt64 } from '../ovsdb/values/int64.js';

/** A row or a map value, as the replica holds it. */
export type Rec = Record<string, unknown>;

/** Where the columns of the schema reference a table: [table, column, strong?]. */
export type RefSite = readonly [table: string, column: string, strong: boolean];

/** Set `obj[key]` as an own enumerable member (also for keys like `__proto__`). */
export function setMember(obj: Rec, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A copy of `row` whose sets and maps are copies too. */
export function copyRow(row: Readonly<Rec>): Rec {
  const out: Rec = {};
  for (const k of Object.keys(row)) {
    const v = row[k];
    setMember(
      out,
      k,
      Array.isArray(v) ? [...v] : v !== null && typeof v === 'object' ? { ...v } : v,
    );
  }
  return out;
}

/** True when the column's keys or values reference a table. */
export function isRefColumn(c: ColumnSchema): boolean {
  return c.type.key.refTable !== undefined || c.type.value?.refTable !== undefined;
}

/**
 * The UUIDs a column value holds (in keys or values, per the column's type),
 * only those referencing `target` when given.
 */
export function refsIn(column: ColumnSchema, value: unknown, target?: string): string[] {
  const out: string[] = [];
  const keyRef = column.type.key.refTable;
  const valueRef = column.type.value?.refTable;
  const want = (t: string | undefined) => t !== undefined && (target === undefined || t === target);
  if (column.type.kind === 'map') {
    if (value === null || typeof value !== 'object') return out;
    for (const [k, v] of Object.entries(value as Rec)) {
      if (want(keyRef)) out.push(k);
      if (want(valueRef) && typeof v === 'string') out.push(v);
    }
    return out;
  }
  if (!want(keyRef)) return out;
  if (Array.isArray(value)) {
    for (const v of value) if (typeof v === 'string') out.push(v);
  } else if (typeof value === 'string') out.push(value);
  return out;
}

/** `value` with every reference to `uuid` removed. */
export function withoutRef(column: ColumnSchema, value: unknown, uuid: string): unknown {
  if (column.type.kind === 'map') {
    const out: Rec = {};
    for (const [k, v] of Object.entries(value as Rec)) {
      if (column.type.key.refTable !== undefined && k === uuid) continue;
      if (column.type.value?.refTable !== undefined && v === uuid) continue;
      setMember(out, k, v);
    }
    return out;
  }
  if (Array.isArray(value)) return value.filter((v) => v !== uuid);
  return value === uuid ? null : value;
}

const refSitesCache = new WeakMap<object, Map<string, RefSite[]>>();

/** For each referenced table, the columns that reference it (computed once per schema). */
export function refSites(tables: Readonly<Record<string, TableSchema>>): Map<string, RefSite[]> {
  let sites = refSitesCache.get(tables);
  if (sites === undefined) {
    sites = new Map();
    for (const t of Object.values(tables)) {
      for (const c of Object.values(t.columns)) {
        if (!isRefColumn(c)) continue;
        for (const base of [c.type.key, c.type.value]) {
          if (base?.refTable === undefined) continue;
          const list = sites.get(base.refTable) ?? [];
          list.push([t.name, c.name, base.refType !== 'weak']);
          sites.set(base.refTable, list);
        }
      }
    }
    refSitesCache.set(tables, sites);
  }
  return sites;
}

/** `v` in canonical form: a bigint that is a safe integer becomes its number. */
function canonical(v: unknown): unknown {
  return typeof v === 'bigint' ? (toInt64(v) ?? v) : v;
}

/**
 * `x op n` on integers as ovsdb-server's mutators compute it
 * ({@link ovsdbIntMutate}, the arithmetic the in-memory server uses too, so
 * also where its overflow test lets a product through wrapped to 64 bits);
 * `x` unchanged when the server fails the transaction (`range error`,
 * `domain error`).
 */
function integerArith(op: Int64Operator, x: Int64, n: Int64): Int64 {
  const r = ovsdbIntMutate(op, x, n);
  return typeof r === 'object' ? r.value : x;
}

/**
 * The value of `column` after applying `mutator` with `value` to `current`.
 * Integer arithmetic is exact over int64; a result the server would reject
 * (out of range, division by zero) leaves the value as it was.
 */
export function applyMutation(
  column: ColumnSchema,
  current: unknown,
  mutator: string,
  value: unknown,
): unknown {
  const t = column.type;
  if (t.kind === 'map') {
    const out: Rec = { ...(current as Rec) };
    if (mutator === 'insert') {
      for (const [k, v] of Object.entries(value as Rec))
        if (!Object.hasOwn(out, k)) setMember(out, k, canonical(v));
    } else if (mutator === 'delete') {
      if (Array.isArray(value)) {
        for (const k of value) delete out[String(k)];
      } else {
        for (const [k, v] of Object.entries(value as Rec))
          if (out[k] === canonical(v)) delete out[k];
      }
    }
    return out;
  }
  const list: unknown[] =
    t.kind === 'optional'
      ? current === null
        ? []
        : [current]
      : Array.isArray(current)
        ? [...current]
        : [current];
  let next: unknown[];
  if (mutator === 'insert') {
    next = [...list];
    for (const v of (value as unknown[]).map(canonical)) if (!next.includes(v)) next.push(v);
  } else if (mutator === 'delete') {
    const gone = (value as unknown[]).map(canonical);
    next = list.filter((v) => !gone.includes(v));
  } else if (t.key.type === 'integer') {
    const op = mutator.slice(0, 1) as Int64Operator;
    const n = canonical(value) as Int64;
    next = list.map((v) => integerArith(op, v as Int64, n));
  } else {
    const n = value as number;
    next = list.map((v) => {
      const x = v as number;
      switch (mutator) {
        case '+=':
          return x + n;
        case '-=':
          return x - n;
        case '*=':
          return x * n;
        case '/=':
          return x / n;
        default:
          return x % n;
      }
    });
  }
  if (t.kind === 'optional') return next[0] ?? null;
  if (t.kind === 'scalar') return next[0];
  return next;
}

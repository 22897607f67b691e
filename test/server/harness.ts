/**
 * Differential harness: runs the same transactions on the engine and on a real
 * ovsdb-server and normalizes both sides' replies and dumps for comparison.
 *
 * Normalizations (each side keeps its own label maps):
 * - Row UUIDs become `U1`, `U2`, … in order of first appearance: first the
 *   `insert` results of a reply in operation order, then everything else in a
 *   canonical traversal order. `_version` UUIDs become `V1`, `V2`, … the same
 *   way, so an unchanged row keeps its label and a changed row gets a new one.
 *   UUIDs inside strings (error `details`, `syntax`) are replaced too.
 * - `select` rows are compared as a multiset (ovsdb-server returns them in
 *   hash order); with `sort`, the order is kept and only rows that tie on the
 *   sort columns are put in canonical order.
 * - The elapsed milliseconds in `"wait" timed out after N ms` are replaced by
 *   `N`, since the real server measures wall-clock time.
 * @module
 */

import { readFileSync } from 'node:fs';
import { parseSchemaText } from '../../src/ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../../src/ovsdb/schema/schema-types.js';
import { stringifyJson } from '../../src/ovsdb/wire/json-stringify.js';
import { Database, type TransactOutcome } from '../../src/server/core-index.js';
import type { RealServer } from '../helpers/ovsdb-client.js';

const UUID_RE = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;
const UUID_EXACT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Path of the small test schema. */
export const TEST_SCHEMA_PATH = new URL('../fixtures/test.ovsschema', import.meta.url).pathname;
/** Path of the int64 schema: integer columns bounded and unbounded, bounds at and near the int64 limits. */
export const INT64_SCHEMA_PATH = new URL('../fixtures/int64.ovsschema', import.meta.url).pathname;
/** Path of the default NB schema. */
export const NB_SCHEMA_PATH = new URL('../../schema/ovn-nb-7.18.0.ovsschema', import.meta.url)
  .pathname;

/** Parse a schema file. */
export function loadSchema(path: string): DatabaseSchema {
  return parseSchemaText(readFileSync(path, 'utf8'));
}

const INDEX_PAIR_RE =
  /^(.*for index on .*?\. {2})First row, with UUID (\S+), (.*?) {2}Second row, with UUID (\S+), (.*)$/s;

/**
 * ovsdb-server names the two rows of an index conflict "First" and "Second" in
 * the order of a comparison over all columns in its hash order, which often
 * starts with the random `_uuid` or `_version`: put them in label order.
 */
function canonicalIndexPair(s: string): string {
  const m = INDEX_PAIR_RE.exec(s);
  if (m === null) return s;
  const [, head, u1, d1, u2, d2] = m as unknown as [string, string, string, string, string, string];
  const pairs = [
    [u1, d1],
    [u2, d2],
  ].sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1));
  const [[a, ad], [b, bd]] = pairs as [[string, string], [string, string]];
  return `${head}First row, with UUID ${a}, ${ad}  Second row, with UUID ${b}, ${bd}`;
}

/** Replaces UUIDs by stable labels. */
export class Normalizer {
  /**
   * @param loose - in a commit error's details, keep only the wording: reduce
   *   index-conflict details to the table named, row labels to `U*`,
   *   numbers to `N`, and drop "(inserted within this transaction)". When
   *   several rows break a commit check at once (three rows sharing an index
   *   value, two referenced rows deleted), which one ovsdb-server names depends
   *   on its hash order of the random row UUIDs. Used by the random test only.
   */
  constructor(private readonly loose = false) {}

  private readonly rows = new Map<string, string>();
  private readonly versions = new Map<string, string>();

  private rowLabel(u: string): string {
    const k = u.toLowerCase();
    let l = this.rows.get(k) ?? this.versions.get(k);
    if (l === undefined) {
      l = `U${this.rows.size + 1}`;
      this.rows.set(k, l);
    }
    return l;
  }

  private versionLabel(u: string): string {
    const k = u.toLowerCase();
    let l = this.versions.get(k);
    if (l === undefined) {
      l = `V${this.versions.size + 1}`;
      this.versions.set(k, l);
    }
    return l;
  }

  private peek(u: string): string {
    const k = u.toLowerCase();
    return this.rows.get(k) ?? this.versions.get(k) ?? '?';
  }

  /** Normalize without assigning new labels (for ordering). */
  private mask(v: unknown): unknown {
    if (typeof v === 'string') return v.replace(UUID_RE, (u) => this.peek(u));
    if (Array.isArray(v)) return v.map((e) => this.mask(e));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) {
        out[k] = k === '_version' ? '?' : this.mask((v as Record<string, unknown>)[k]);
      }
      return out;
    }
    return v;
  }

  /** Replace UUIDs in any JSON value (assigning labels in traversal order). */
  value(v: unknown, key?: string, loose = false): unknown {
    if (typeof v === 'string') {
      if (key === '_version' && UUID_EXACT.test(v)) return this.versionLabel(v);
      const s = canonicalIndexPair(
        v
          .replace(UUID_RE, (u) => this.rowLabel(u))
          .replace(/"wait" timed out after \d+ ms/, '"wait" timed out after N ms'),
      );
      if (!loose) return s;
      return s
        .replace(/(to have identical values) .*$/s, '$1')
        .replace(/\bU\d+\b/g, 'U*')
        .replace(/ \(inserted within this transaction\)/g, '')
        .replace(/\d+/g, 'N');
    }
    if (Array.isArray(v)) {
      if (v.length === 2 && v[0] === 'uuid' && typeof v[1] === 'string') {
        return ['uuid', key === '_version' ? this.versionLabel(v[1]) : this.rowLabel(v[1])];
      }
      if (
        v.length === 2 &&
        (v[0] === 'set' || v[0] === 'map') &&
        Array.isArray(v[1]) &&
        stringifyJson(v[1]).includes('"uuid"')
      ) {
        // UUID sets and maps are sorted by the (random) UUIDs: sort by label instead.
        const elems = (v[1] as unknown[]).map((e) => this.value(e, key, loose));
        const keyed = elems.map((e) => [stringifyJson(e), e] as const);
        keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        return [v[0], keyed.map((k) => k[1])];
      }
      return v.map((e) => this.value(e, key, loose));
    }
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) {
        out[k] = this.value((v as Record<string, unknown>)[k], k, loose);
      }
      return out;
    }
    return v;
  }

  /** Order `rows` canonically (by their masked form), keeping `sort` order when given. */
  private orderRows(rows: unknown[], sort: readonly string[] | undefined): unknown[] {
    const keyOf = (r: unknown): string => stringifyJson(this.mask(r));
    if (sort === undefined || sort.length === 0) {
      return [...rows].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
    }
    const sortKey = (r: unknown): string =>
      stringifyJson(sort.map((c) => this.mask((r as Record<string, unknown>)[c])));
    const out: unknown[] = [];
    let group: unknown[] = [];
    const flush = (): void => {
      group.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
      out.push(...group);
      group = [];
    };
    for (const r of rows) {
      const first = group[0];
      if (first !== undefined && sortKey(first) !== sortKey(r)) flush();
      group.push(r);
    }
    flush();
    return out;
  }

  /** Normalize one reply's result array, given the operations sent. */
  results(ops: readonly unknown[], results: readonly unknown[]): unknown[] {
    results.forEach((r, i) => {
      const op = ops[i] as { op?: unknown } | undefined;
      const u = (r as { uuid?: unknown } | null)?.uuid;
      if (op?.op === 'insert' && Array.isArray(u) && typeof u[1] === 'string') this.rowLabel(u[1]);
    });
    return results.map((r, i) => {
      const op = ops[i] as { op?: unknown; sort?: unknown } | undefined;
      const rows = (r as { rows?: unknown } | null)?.rows;
      if (op?.op === 'select' && Array.isArray(rows)) {
        const sort = Array.isArray(op.sort) ? (op.sort as string[]) : undefined;
        return { rows: this.orderRows(rows, sort).map((row) => this.value(row)) };
      }
      return this.value(r, undefined, this.loose && i === ops.length);
    });
  }

  /** Normalize a dump (`{table: rows[]}`), rows ordered by UUID label. */
  dump(d: Record<string, unknown[]>): Record<string, unknown[]> {
    const out: Record<string, unknown[]> = {};
    for (const table of Object.keys(d).sort()) {
      out[table] = this.orderRows(d[table] ?? [], undefined).map((r) => this.value(r));
    }
    return out;
  }
}

/** A select-all of every table, as one transaction. */
export function dumpOps(schema: DatabaseSchema): unknown[] {
  return Object.keys(schema.tables)
    .sort()
    .map((table) => ({ op: 'select', table, where: [] }));
}

/** Dump the real server's contents as `{table: rows[]}`. */
export async function dumpServer(
  server: RealServer,
  schema: DatabaseSchema,
): Promise<Record<string, unknown[]>> {
  const ops = dumpOps(schema);
  const res = await server.transact(ops);
  const out: Record<string, unknown[]> = {};
  ops.forEach((op, i) => {
    out[(op as { table: string }).table] = (res[i] as { rows: unknown[] }).rows;
  });
  return out;
}

/** Dump the engine's contents as `{table: rows[]}`. */
export function dumpEngine(db: Database): Record<string, unknown[]> {
  return db.dump();
}

/**
 * Run a transaction on the engine the way the real server answers it: a
 * request that blocks is re-run once its smallest `wait` timeout has elapsed.
 */
export function engineTransact(db: Database, ops: readonly unknown[]): unknown[] {
  const out: TransactOutcome = db.transact(ops);
  if (out.blocked !== true) return out.results;
  if (!Number.isFinite(out.timeoutMs)) throw new Error('engine: request blocks forever');
  const again = db.transact(ops, { elapsedMs: Math.max(out.timeoutMs, 1) });
  if (again.blocked === true) throw new Error('engine: request still blocked after its timeout');
  return again.results;
}

/** One differential step's normalized outputs. */
export interface StepOutput {
  readonly results: unknown;
}

/** Both sides of a differential session. */
export class Differential {
  engine: Database;
  private engineNorm: Normalizer;
  private serverNorm: Normalizer;

  /** @param loose - see {@link Normalizer}. */
  constructor(
    readonly schema: DatabaseSchema,
    readonly server: RealServer,
    private readonly loose = false,
  ) {
    this.engine = new Database(schema);
    this.engineNorm = new Normalizer(loose);
    this.serverNorm = new Normalizer(loose);
  }

  /** Start over: empty both databases and forget labels. */
  async reset(): Promise<void> {
    await this.server.reset();
    this.engine = new Database(this.schema);
    this.engineNorm = new Normalizer(this.loose);
    this.serverNorm = new Normalizer(this.loose);
  }

  /** Run one transaction on both; returns both normalized result arrays. */
  async step(ops: readonly unknown[]): Promise<{ engine: unknown; server: unknown }> {
    const serverRes = await this.server.transact(ops);
    const engineRes = engineTransact(this.engine, ops);
    return {
      server: this.serverNorm.results(ops, serverRes),
      engine: this.engineNorm.results(ops, engineRes),
    };
  }

  /** Both normalized dumps. */
  async dumps(): Promise<{ engine: unknown; server: unknown }> {
    const s = await dumpServer(this.server, this.schema);
    const e = dumpEngine(this.engine);
    return { server: this.serverNorm.dump(s), engine: this.engineNorm.dump(e) };
  }
}

/**
 * The replica as a plan reads it: rows by key (built once per plan, for
 * the tables the plan needs), the owner's rows, and who holds a child row.
 * @module
 */

import type { RowOf, TableMap, TableName } from '../ovsdb/schema/model.js';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import { DesiredStateError } from './errors.js';
import type { ResolvedKeys } from './keys.js';
import { identity, type KeyRef } from './state.js';

/** The key value of a null or missing key column, in a single-column index. */
const NULL_KEY = Symbol('null key');

/** A key column's value as a single-column index holds it (as `identity` normalizes it), or undefined when it is not a plain atom. */
function plainKey(v: unknown): string | boolean | symbol | undefined {
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v === null || v === undefined) return NULL_KEY;
  return undefined;
}

/** What a plan reads: the replica's rows. A `DatabaseClient` or `DatabaseHandle` is one. */
export interface DesiredReader<DB extends TableMap> {
  /** The rows of `table`. */
  rows<T extends TableName<DB>>(table: T): Iterable<DB[T]['row']>;
  /** True when the replica holds `table`. */
  isMonitored(table: TableName<DB>): boolean;
  /** The row of `table` with `key`, by the index on exactly its columns (used, when given, instead of a scan). */
  lookup?<T extends TableName<DB>>(table: T, key: Partial<RowOf<DB, T>>): RowOf<DB, T> | undefined;
  /** The row of `table` with UUID `uuid` (used, when given, instead of a scan for one row). */
  get?<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined;
}

/** A replica row, untyped. */
export type AnyRow = Readonly<Record<string, unknown>> & { readonly _uuid: string };

/** Where a child row is held: the parent's table, column and UUID. */
export interface Holder {
  readonly table: string;
  readonly column: string;
  readonly uuid: string;
}

/** One plan's reads of the replica, each table scanned at most once. */
export class Snapshot {
  private readonly uuids = new Map<string, Map<string, AnyRow>>();
  private readonly keyed = new Map<string, Map<string, AnyRow[]>>();
  private readonly holders = new Map<string, Map<string, Holder[]>>();
  private readonly ids = new Map<string, string | null>();
  /** Single-column unscoped keys: rows by key value (null: the table has a value that is not a plain atom). */
  private readonly single = new Map<string, Map<string | boolean | symbol, AnyRow[]> | null>();

  constructor(
    private readonly reader: DesiredReader<TableMap>,
    readonly schema: DatabaseSchema,
    private readonly keys: ResolvedKeys,
  ) {}

  monitored(table: string): boolean {
    return this.reader.isMonitored(table);
  }

  /** The rows of `table` by UUID. */
  table(table: string): Map<string, AnyRow> {
    let m = this.uuids.get(table);
    if (m === undefined) {
      if (!this.reader.isMonitored(table)) {
        throw new DesiredStateError(
          'not-monitored',
          `the plan needs table ${table}, which the client does not monitor`,
          { table },
        );
      }
      m = new Map();
      for (const row of this.reader.rows(table) as Iterable<AnyRow>) m.set(row._uuid, row);
      this.uuids.set(table, m);
    }
    return m;
  }

  row(table: string, uuid: string): AnyRow | undefined {
    const m = this.uuids.get(table);
    if (m !== undefined) return m.get(uuid);
    if (this.reader.get !== undefined && this.reader.isMonitored(table)) {
      return this.reader.get(table, uuid) as AnyRow | undefined;
    }
    return this.table(table).get(uuid);
  }

  /**
   * The row of `table` with the values of `key`, through the reader's index
   * on exactly those columns: `undefined` when none has them, `null` when the
   * reader cannot look it up (no `lookup`, or no such index).
   */
  lookup(table: string, key: Readonly<Record<string, unknown>>): AnyRow | undefined | null {
    if (this.reader.lookup === undefined || !this.reader.isMonitored(table)) return null;
    try {
      return this.reader.lookup(table, key as never) as AnyRow | undefined;
    } catch {
      return null;
    }
  }

  /** The parents holding each row of `child` (strong reference sets of non-root rows). */
  holdersOf(child: string, uuid: string): readonly Holder[] {
    let m = this.holders.get(child);
    if (m === undefined) {
      m = new Map();
      for (const [ptable, pcol] of this.keys.parentsOf(child)) {
        if (!this.reader.isMonitored(ptable)) continue;
        for (const p of this.table(ptable).values()) {
          const v = p[pcol];
          const list = Array.isArray(v) ? v : v === null || v === undefined ? [] : [v];
          for (const c of list as string[]) {
            let hs = m.get(c);
            if (hs === undefined) {
              hs = [];
              m.set(c, hs);
            }
            hs.push({ table: ptable, column: pcol, uuid: p._uuid });
          }
        }
      }
      this.holders.set(child, m);
    }
    return m.get(uuid) ?? [];
  }

  /** The identity of an existing row (its first, when several parents hold it), if its table has a key. */
  identityOf(table: string, row: AnyRow): string | undefined {
    const cacheKey = `${table}\u0000${row._uuid}`;
    const cached = this.ids.get(cacheKey);
    if (cached !== undefined) return cached ?? undefined;
    this.ids.set(cacheKey, null); // guards against a cycle of parents
    const ids = this.identitiesOf(table, row);
    const id = ids[0];
    this.ids.set(cacheKey, id ?? null);
    return id;
  }

  /** Every identity of an existing row: one, or one per parent for a key scoped to its parent. */
  identitiesOf(table: string, row: AnyRow): string[] {
    const spec = this.keys.get(table);
    if (spec === undefined) return [];
    const key: Record<string, unknown> = {};
    for (const c of spec.columns) key[c] = row[c];
    if (!spec.scoped) return [identity(table, key, undefined)];
    const out: string[] = [];
    for (const h of this.holdersOf(table, row._uuid)) {
      const parent = this.row(h.table, h.uuid);
      const pid = parent === undefined ? undefined : this.identityOf(h.table, parent);
      if (pid !== undefined) out.push(identity(table, key, pid));
    }
    return out;
  }

  /**
   * The rows with the key of `ref`: through a map of the key column's
   * values for a table keyed by one column outside any parent (no identity
   * strings built), otherwise by identity.
   */
  byKey(ref: KeyRef): readonly AnyRow[] {
    const table = ref.table;
    const spec = this.keys.get(table);
    const column = spec?.columns.length === 1 && !spec.scoped ? spec.columns[0]! : undefined;
    const names = Object.keys(ref.key);
    const want =
      column === undefined || names.length !== 1 || names[0] !== column
        ? undefined
        : plainKey(ref.key[column]);
    if (column === undefined || want === undefined) return this.byIdentity(table, ref.id);
    let m = this.single.get(table);
    if (m === undefined) {
      m = new Map();
      for (const row of this.table(table).values()) {
        const k = plainKey(row[column]);
        if (k === undefined) {
          m = null;
          break;
        }
        const list = m.get(k);
        if (list === undefined) m.set(k, [row]);
        else list.push(row);
      }
      this.single.set(table, m);
    }
    if (m === null) return this.byIdentity(table, ref.id);
    return m.get(want) ?? [];
  }

  /** The rows of `table` with identity `id`. */
  byIdentity(table: string, id: string): readonly AnyRow[] {
    let m = this.keyed.get(table);
    if (m === undefined) {
      m = new Map();
      for (const row of this.table(table).values()) {
        for (const rid of this.identitiesOf(table, row)) {
          let list = m.get(rid);
          if (list === undefined) {
            list = [];
            m.set(rid, list);
          }
          list.push(row);
        }
      }
      this.keyed.set(table, m);
    }
    return m.get(id) ?? [];
  }
}

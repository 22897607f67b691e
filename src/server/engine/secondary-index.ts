/**
 * Secondary indexes of the committed tables: hash lookups that answer the
 * equality clauses of `where` conditions (and the weak-reference pass of the
 * commit) without visiting every row of a table.
 *
 * ## What an index holds
 * A {@link ColumnIndex} covers one column and one part of its values: the
 * keys (for scalar columns the value itself, for sets their elements, for
 * maps their keys) or, for maps, the values. It maps every atom found there
 * to the committed rows whose value holds it: a single UUID string while one
 * row does (the common case, a name), a `Set` of UUIDs once several do.
 * Atoms are in canonical form (see `values/int64.ts`), so `Map`'s key
 * equality is the atom equality of `order.ts`: strings and UUIDs by their
 * code units, integers by value (bigints included), reals numerically.
 *
 * An index answers a clause with a superset of its rows: `==` or `includes`
 * with at least one element looks up one element; the condition is then
 * evaluated on each candidate (see `query.ts`). Schema indexes (the table's
 * unique `indexes`, kept in {@link TableStore.indexes} for the commit's
 * uniqueness check) are used first when a condition fixes all their columns.
 *
 * ## When an index exists (the memory bound)
 * - A query whose condition could use an index on column `c`, when none
 *   exists, counts a use of `c` and scans. At the
 *   `buildAfterUses`-th use, once the table has at least
 *   `minRows` rows, the index is built (one pass over the table), so a column
 *   compared once, or a small table, never costs index memory.
 * - The weak-reference pass builds the index of a weak reference column at
 *   its first use: the alternative is a pass over the whole referring table.
 * - Every use stamps the index with the database's transaction clock (one
 *   tick per `transact`). {@link TableIndexes.sweep}, run every `sweepEvery`
 *   transactions, drops the indexes unused for `idleTransactions`
 *   transactions and forgets the use counts of columns not indexed, so an
 *   index is built only for a column used `buildAfterUses` times within one
 *   sweep period. A table holds at most `maxPerTable` indexes (building one
 *   more drops the least recently used).
 * - The policy is per database ({@link IndexPolicy}, `Database.indexPolicy`);
 *   tests change it.
 *
 * So the memory is at most one map entry per distinct atom of each column in
 * recent use, and its upkeep one map update per changed element of an
 * indexed column per commit.
 *
 * ## Consistency
 * The indexes describe the committed rows only, and stay exact because the
 * table's row map ({@link RowMap}) updates them on every `set`, `delete` and
 * `clear`, whoever writes it (the commit, restoring a snapshot, `_Server`'s
 * rows). An update compares the old and new datum (identical datums, the
 * common case for unchanged columns, cost nothing; sorted keys are merged so
 * only the elements that changed touch the index). The rows a transaction has
 * staged but not committed are not indexed: a query inside a transaction
 * checks the candidates against the transaction's rows and evaluates every
 * row the transaction inserted or modified in that table (see `query.ts`).
 * @module
 */

import type { Atom } from '../../ovsdb/schema/schema-types.js';
import { compareAtoms } from '../../ovsdb/values/order.js';
import type { Datum } from '../../ovsdb/values/sorted-datum.js';

/** A committed or in-transaction row: its UUID and every column's value (`_uuid`, `_version` included). */
export interface Row {
  readonly uuid: string;
  readonly fields: Readonly<Record<string, Datum>>;
}

/** The tunables of the lazy index policy (see the module documentation). */
export interface IndexPolicy {
  /** Uses of a column by queries before its index is built. */
  readonly buildAfterUses: number;
  /** Tables smaller than this are scanned, never indexed for queries. */
  readonly minRows: number;
  /** Transactions without a use after which an index is dropped. */
  readonly idleTransactions: number;
  /** How often (in transactions) idle indexes are looked for. */
  readonly sweepEvery: number;
  /** Indexes per table at most. */
  readonly maxPerTable: number;
}

/** The policy every database starts with. */
export const DEFAULT_INDEX_POLICY: IndexPolicy = Object.freeze({
  buildAfterUses: 3,
  minRows: 64,
  idleTransactions: 10_000,
  sweepEvery: 1_000,
  maxPerTable: 8,
});

const NO_ATOMS: readonly Atom[] = [];

/** The rows holding one atom: one UUID, or several. */
export type Bucket = string | Set<string>;

/** The number of rows in `b` (0 for none). */
export function bucketSize(b: Bucket | undefined): number {
  return b === undefined ? 0 : typeof b === 'string' ? 1 : b.size;
}

/** The UUIDs of the rows in `b`. */
export function bucketItems(b: Bucket | undefined): Iterable<string> {
  return b === undefined ? [] : typeof b === 'string' ? [b] : b;
}

/** One column's index: every atom of its keys (or map values) → the rows holding it. */
export class ColumnIndex {
  readonly buckets = new Map<Atom, Bucket>();
  /** The transaction clock of the last use. */
  lastUsed: number;

  constructor(
    readonly column: string,
    /** Whether it indexes a map's values rather than its keys. */
    readonly values: boolean,
    clock: number,
  ) {
    this.lastUsed = clock;
  }

  /** The rows holding atom `a`. */
  bucket(a: Atom): Bucket | undefined {
    return this.buckets.get(a);
  }

  private atoms(d: Datum | undefined): readonly Atom[] {
    if (d === undefined) return NO_ATOMS;
    return this.values ? (d.values ?? NO_ATOMS) : d.keys;
  }

  private addAtom(a: Atom, uuid: string): void {
    const b = this.buckets.get(a);
    if (b === undefined) this.buckets.set(a, uuid);
    else if (typeof b !== 'string') b.add(uuid);
    else if (b !== uuid) this.buckets.set(a, new Set([b, uuid]));
  }

  private removeAtom(a: Atom, uuid: string): void {
    const b = this.buckets.get(a);
    if (b === undefined) return;
    if (typeof b === 'string') {
      if (b === uuid) this.buckets.delete(a);
      return;
    }
    if (!b.delete(uuid) || b.size > 1) return;
    for (const only of b) this.buckets.set(a, only);
    if (b.size === 0) this.buckets.delete(a);
  }

  /** Index row `uuid`'s value `d`. */
  add(uuid: string, d: Datum | undefined): void {
    for (const a of this.atoms(d)) this.addAtom(a, uuid);
  }

  /** Remove row `uuid`'s value `d`. */
  remove(uuid: string, d: Datum | undefined): void {
    for (const a of this.atoms(d)) this.removeAtom(a, uuid);
  }

  /** Row `uuid`'s value went from `from` to `to`. */
  update(uuid: string, from: Datum | undefined, to: Datum | undefined): void {
    if (from === to) return;
    if (this.values || from === undefined || to === undefined) {
      // Map values are not sorted (and may repeat): remove all, then add all.
      this.remove(uuid, from);
      this.add(uuid, to);
      return;
    }
    // Sorted, distinct keys: merge, touching only the elements that differ.
    const a = from.keys;
    const b = to.keys;
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const x = a[i] as Atom;
      const y = b[j] as Atom;
      const c = x === y ? 0 : compareAtoms(x, y);
      if (c === 0) {
        i++;
        j++;
      } else if (c < 0) {
        this.removeAtom(x, uuid);
        i++;
      } else {
        this.addAtom(y, uuid);
        j++;
      }
    }
    for (; i < a.length; i++) this.removeAtom(a[i] as Atom, uuid);
    for (; j < b.length; j++) this.addAtom(b[j] as Atom, uuid);
  }
}

/**
 * A table's committed rows by UUID, in insertion order: a `Map` that keeps
 * the table's secondary indexes up to date on every change.
 */
export class RowMap extends Map<string, Row> {
  /** The indexes to keep up to date (owned by {@link TableIndexes}). */
  indexes: readonly ColumnIndex[];

  /** An empty map (no initial entries: `set` needs {@link indexes} assigned). */
  constructor() {
    super();
    this.indexes = [];
  }

  override set(uuid: string, row: Row): this {
    const ix = this.indexes;
    if (ix.length !== 0) {
      const old = super.get(uuid);
      for (let i = 0; i < ix.length; i++) {
        const index = ix[i] as ColumnIndex;
        if (old === undefined) index.add(uuid, row.fields[index.column]);
        else index.update(uuid, old.fields[index.column], row.fields[index.column]);
      }
    }
    return super.set(uuid, row);
  }

  override delete(uuid: string): boolean {
    const ix = this.indexes;
    if (ix.length !== 0) {
      const old = super.get(uuid);
      if (old !== undefined) {
        for (let i = 0; i < ix.length; i++) {
          const index = ix[i] as ColumnIndex;
          index.remove(uuid, old.fields[index.column]);
        }
      }
    }
    return super.delete(uuid);
  }

  override clear(): void {
    for (const index of this.indexes) index.buckets.clear();
    super.clear();
  }
}

/** The secondary indexes of one table, built and dropped by the policy of the module documentation. */
export class TableIndexes {
  /** Indexes by {@link indexName}. */
  private readonly byName = new Map<string, ColumnIndex>();
  /** Uses by queries of columns not (yet) indexed. */
  private readonly uses = new Map<string, number>();

  constructor(private readonly rows: RowMap) {}

  /** How many indexes the table has. */
  get size(): number {
    return this.byName.size;
  }

  /** The index of `column`'s keys, if built; a use at `clock`. */
  use(column: string, clock: number): ColumnIndex | undefined {
    const index = this.byName.get(column);
    if (index !== undefined) index.lastUsed = clock;
    return index;
  }

  /**
   * A query could have used an index of `column`'s keys and none exists:
   * count the use; returns the index when this use builds it.
   */
  noteUse(column: string, clock: number, policy: IndexPolicy): ColumnIndex | undefined {
    const n = (this.uses.get(column) ?? 0) + 1;
    if (n < policy.buildAfterUses || this.rows.size < policy.minRows) {
      this.uses.set(column, n);
      return undefined;
    }
    this.uses.delete(column);
    return this.build(column, false, clock, policy);
  }

  /** The index of `column`'s keys (`values`: its map values), built now if needed; a use at `clock`. */
  ensure(column: string, values: boolean, clock: number, policy: IndexPolicy): ColumnIndex {
    const index = this.byName.get(indexName(column, values));
    if (index !== undefined) {
      index.lastUsed = clock;
      return index;
    }
    return this.build(column, values, clock, policy);
  }

  private build(column: string, values: boolean, clock: number, policy: IndexPolicy): ColumnIndex {
    if (this.byName.size >= Math.max(1, policy.maxPerTable)) {
      let lru: ColumnIndex | undefined;
      for (const ix of this.byName.values())
        if (lru === undefined || ix.lastUsed < lru.lastUsed) lru = ix;
      if (lru !== undefined) this.drop(lru);
    }
    const index = new ColumnIndex(column, values, clock);
    for (const row of this.rows.values()) index.add(row.uuid, row.fields[column]);
    this.byName.set(indexName(column, values), index);
    this.rows.indexes = [...this.byName.values()];
    return index;
  }

  private drop(index: ColumnIndex): void {
    this.byName.delete(indexName(index.column, index.values));
    this.rows.indexes = [...this.byName.values()];
  }

  /** Drop the indexes unused since `clock − idleTransactions`, and forget old use counts. */
  sweep(clock: number, policy: IndexPolicy): void {
    for (const ix of [...this.byName.values()]) {
      if (clock - ix.lastUsed >= policy.idleTransactions) this.drop(ix);
    }
    this.uses.clear();
  }

  /** The indexed columns, for tests: `column` or `column/values`. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The indexes, for tests. */
  all(): readonly ColumnIndex[] {
    return this.rows.indexes;
  }
}

function indexName(column: string, values: boolean): string {
  return values ? `${column}/values` : column;
}

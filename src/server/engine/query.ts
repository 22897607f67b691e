/**
 * The rows a `where` condition selects, as the transaction sees them (OVS's
 * `ovsdb_query`): the committed rows with the transaction's staged changes
 * applied, in the table's order for scans.
 *
 * The condition is compiled once ({@link compileCondition}), and the rows to
 * evaluate it on are found, cheapest first:
 * 1. a `false` clause: none;
 * 2. `_uuid ==`: the one row with that UUID;
 * 3. `==` on every column of a schema (unique) index: the row holding that
 *    value, if any;
 * 4. `==` or `includes` of at least one element, on a column with a
 *    secondary index (`secondary-index.ts`; a use may build it): the rows
 *    holding the element of the smallest bucket;
 * 5. otherwise every row of the table (a scan without a generator or any
 *    per-row allocation).
 *
 * With a lookup (3, 4), the candidates are committed rows: each is replaced by
 * its staged version when the transaction touched it (dropped when deleted),
 * and every other row the transaction inserted or modified in the table is
 * evaluated too, so the answer is the scan's. The number of rows evaluated is
 * added to {@link Database.rowsVisited}.
 * @module
 */

import type { Atom, TableSchema } from '../../ovsdb/schema/schema-types.js';
import type { Datum } from '../../ovsdb/values/sorted-datum.js';
import {
  type Clause,
  type Condition,
  compileCondition,
  isNever,
  type RowPredicate,
} from './conditions.js';
import { type Bucket, bucketSize, type ColumnIndex } from './secondary-index.js';
import type { Txn, TxnRow } from './staging.js';
import type { Row, TableStore } from './table-store.js';
import type { DatabaseState } from './types.js';

/** Where the candidate rows of a condition come from. */
type Lookup =
  | { readonly kind: 'scan' }
  /** `_uuid ==`: only this row (committed or staged) can match. */
  | { readonly kind: 'uuid'; readonly uuid: string }
  /** These committed rows, and the staged ones. */
  | { readonly kind: 'bucket'; readonly bucket: Bucket | undefined };

const SCAN: Lookup = { kind: 'scan' };
const NONE = Symbol('none');

/** Whether an index of the clause's column can give a superset of the rows it matches. */
function indexable(c: Clause): c is Clause & { kind: 'compare' } {
  return c.kind === 'compare' && (c.fn === '==' || c.fn === 'includes') && c.arg.keys.length > 0;
}

/** The smallest of `best` and the buckets of `keys` in `index`. */
function smaller(
  index: ColumnIndex,
  keys: readonly Atom[],
  best: Bucket | undefined | typeof NONE,
): Bucket | undefined | typeof NONE {
  let b = best;
  for (const a of keys) {
    const x = index.bucket(a);
    if (b === NONE || bucketSize(x) < bucketSize(b)) b = x;
  }
  return b;
}

/** The cheapest way to find the rows `cond` can match (see the module documentation). */
function planLookup(db: DatabaseState, store: TableStore, cond: Condition): Lookup {
  let eqColumns = 0;
  for (const c of cond) {
    if (c.kind !== 'compare') continue;
    if (c.column.name === '_uuid' && (c.fn === '==' || c.fn === 'includes')) {
      return { kind: 'uuid', uuid: c.arg.keys[0] as string };
    }
    if (c.fn === '==') eqColumns++;
  }
  const table = store.schema;
  if (eqColumns > 0) {
    for (let i = 0; i < table.indexes.length; i++) {
      const key = uniqueIndexKey(store, i, cond);
      if (key !== undefined) return { kind: 'bucket', bucket: store.indexes[i]?.get(key) };
    }
  }
  let best: Bucket | undefined | typeof NONE = NONE;
  let unindexed: string | undefined;
  for (const c of cond) {
    if (!indexable(c)) continue;
    const index = store.secondary.use(c.column.name, db.clock);
    if (index === undefined) unindexed ??= c.column.name;
    else best = smaller(index, c.arg.keys, best);
  }
  if (best === NONE && unindexed !== undefined) {
    const built = store.secondary.noteUse(unindexed, db.clock, db.indexPolicy);
    if (built !== undefined) {
      for (const c of cond) {
        if (indexable(c) && c.column.name === unindexed) best = smaller(built, c.arg.keys, best);
      }
    }
  }
  return best === NONE ? SCAN : { kind: 'bucket', bucket: best };
}

/** The key of schema index `i` fixed by `==` clauses of `cond`, or undefined when some column is not. */
function uniqueIndexKey(store: TableStore, i: number, cond: Condition): string | undefined {
  const columns = store.schema.indexes[i] as readonly string[];
  const fields: Record<string, Datum> = {};
  for (const name of columns) {
    let arg: Datum | undefined;
    for (const c of cond) {
      if (c.kind === 'compare' && c.fn === '==' && c.column.name === name) {
        arg = c.arg;
        break;
      }
    }
    if (arg === undefined) return undefined;
    fields[name] = arg;
  }
  return store.indexKey(i, fields);
}

/** Rows found by one query, and how many rows it evaluated. */
class Collector {
  readonly out: Row[] = [];
  visited = 0;
  constructor(
    readonly pred: RowPredicate,
    readonly staged: Map<string, TxnRow> | undefined,
    readonly mark: number,
  ) {}

  /** Evaluate committed row `uuid` as the transaction sees it. */
  committed(store: TableStore, uuid: string): void {
    const tr = this.staged?.get(uuid);
    let row: Row | null | undefined;
    if (tr === undefined) row = store.rows.get(uuid);
    else {
      tr.mark = this.mark;
      row = tr.new;
    }
    if (row === undefined || row === null) return;
    this.visited++;
    if (this.pred(row.fields)) this.out.push(row);
  }

  /** Evaluate the staged rows not evaluated yet. */
  rest(): void {
    if (this.staged === undefined) return;
    for (const tr of this.staged.values()) {
      if (tr.mark === this.mark || tr.new === null) continue;
      this.visited++;
      if (this.pred(tr.new.fields)) this.out.push(tr.new);
    }
  }
}

/** Every row of the table that satisfies `pred`, in the table's order (committed rows, then inserted ones). */
function scan(
  store: TableStore,
  staged: Map<string, TxnRow> | undefined,
  pred: RowPredicate,
  out: Row[],
): number {
  if (staged === undefined || staged.size === 0) {
    for (const row of store.rows.values()) if (pred(row.fields)) out.push(row);
    return store.rows.size;
  }
  let visited = 0;
  for (const row of store.rows.values()) {
    const tr = staged.get(row.uuid);
    if (tr === undefined) {
      visited++;
      if (pred(row.fields)) out.push(row);
    } else if (tr.new !== null) {
      visited++;
      if (pred(tr.new.fields)) out.push(tr.new);
    }
  }
  for (const tr of staged.values()) {
    if (tr.old !== null || tr.new === null) continue;
    visited++;
    if (pred(tr.new.fields)) out.push(tr.new);
  }
  return visited;
}

/** The rows of `table` that satisfy `cond`, as transaction `txn` sees them. */
export function queryRows(db: DatabaseState, txn: Txn, table: TableSchema, cond: Condition): Row[] {
  const pred = compileCondition(cond);
  if (isNever(pred)) return [];
  const store = txn.store(table.name);
  const staged = txn.tables.get(table.name);
  const lookup = planLookup(db, store, cond);
  if (lookup.kind === 'scan') {
    const out: Row[] = [];
    db.rowsVisited += scan(store, staged, pred, out);
    return out;
  }
  if (lookup.kind === 'uuid') {
    const row = txn.getRow(table.name, lookup.uuid);
    if (row === undefined) return [];
    db.rowsVisited++;
    return pred(row.fields) ? [row] : [];
  }
  const c = new Collector(pred, staged, txn.nextMark());
  if (typeof lookup.bucket === 'string') c.committed(store, lookup.bucket);
  else if (lookup.bucket !== undefined) for (const uuid of lookup.bucket) c.committed(store, uuid);
  c.rest();
  db.rowsVisited += c.visited;
  return c.out;
}

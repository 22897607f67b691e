/**
 * The weak-reference pass of a commit (OVS's `assess_weak_refs`): weak
 * references to rows the transaction deletes, and newly added weak
 * references to rows that do not exist, are removed from the rows holding
 * them, row by row in transaction order, with ovsdb-server's quirk described
 * in `executor.ts`. The rows referring to a deleted row are found with the
 * referring columns' secondary indexes (`secondary-index.ts`), so deleting a
 * row costs the same whatever the size of the tables referring to its table.
 * @module
 */

import type {
  Atom,
  BaseType,
  ColumnSchema,
  DatabaseSchema,
} from '../../ovsdb/schema/schema-types.js';
import { compareAtoms } from '../../ovsdb/values/order.js';
import { type Datum, subtractDatums } from '../../ovsdb/values/sorted-datum.js';
import { ZERO_UUID } from '../../ovsdb/values/uuid.js';
import { OpError } from './op-error.js';
import { bucketItems } from './secondary-index.js';
import { hasChange, markChanged, type Txn, type TxnRow, type WeakReferrer } from './staging.js';
import type { TableStore } from './table-store.js';

/** The table a weak reference of type `base` points into, if `base` is one. */
export function weakRefTarget(base: BaseType | undefined): string | undefined {
  if (base === undefined || base.type !== 'uuid' || base.refTable === undefined) return undefined;
  return base.refType === 'weak' ? base.refTable : undefined;
}

/** A column holding weak references into some table, by key or by (map) value. */
interface WeakColumn {
  readonly table: string;
  readonly column: string;
  readonly byKey: boolean;
  readonly byValue: boolean;
}

const weakColumnsBySchema = new WeakMap<DatabaseSchema, Map<string, WeakColumn[]>>();

/** The columns of the database holding weak references into `dstTable`, in table and column order. */
function weakColumnsInto(txn: Txn, dstTable: string): readonly WeakColumn[] {
  let byDst = weakColumnsBySchema.get(txn.db.schema);
  if (byDst === undefined) {
    byDst = new Map();
    weakColumnsBySchema.set(txn.db.schema, byDst);
  }
  let out = byDst.get(dstTable);
  if (out === undefined) {
    out = [];
    for (const store of txn.db.tables.values()) {
      const table = store.schema;
      for (const column of store.columnOrder) {
        const c = table.columns[column];
        if (c === undefined) continue;
        const byKey = weakRefTarget(c.type.key) === dstTable;
        const byValue = weakRefTarget(c.type.value) === dstTable;
        if (byKey || byValue) out.push({ table: table.name, column, byKey, byValue });
      }
    }
    byDst.set(dstTable, out);
  }
  return out;
}

/**
 * The committed rows holding weak references to row `dst` of `dstTable`
 * (OVS keeps these as each row's `dst_refs`), one entry per reference: found
 * with the secondary index of each referring column (built at its first use),
 * rows in index order, a row's references in element order.
 */
function weakReferrers(txn: Txn, dstTable: string, dst: string): WeakReferrer[] {
  const out: WeakReferrer[] = [];
  for (const wc of weakColumnsInto(txn, dstTable)) {
    const store = txn.store(wc.table);
    const { clock, indexPolicy } = txn.db;
    const byKey = wc.byKey
      ? store.secondary.ensure(wc.column, false, clock, indexPolicy).bucket(dst)
      : undefined;
    const byValue = wc.byValue
      ? store.secondary.ensure(wc.column, true, clock, indexPolicy).bucket(dst)
      : undefined;
    if (byKey === undefined && byValue === undefined) continue;
    const uuids =
      byValue === undefined
        ? bucketItems(byKey)
        : byKey === undefined
          ? bucketItems(byValue)
          : new Set([...bucketItems(byKey), ...bucketItems(byValue)]);
    for (const uuid of uuids) {
      if (uuid === dst) continue;
      const row = store.rows.get(uuid);
      if (row === undefined) continue;
      const d = row.fields[wc.column] as Datum;
      for (let i = 0; i < d.keys.length; i++) {
        const k = d.keys[i] as Atom;
        const v = d.values?.[i];
        if ((wc.byKey && k === dst) || (wc.byValue && v !== k && v === dst)) {
          out.push({ table: wc.table, uuid, ref: { column: wc.column, key: k, value: v } });
        }
      }
    }
  }
  return out;
}

/** A column of a table holding weak references, with the tables its keys and values point into. */
interface OwnWeakColumn {
  readonly column: string;
  readonly keyTarget: string | undefined;
  readonly valueTarget: string | undefined;
}

const ownWeakColumnsCache = new WeakMap<TableStore, readonly OwnWeakColumn[]>();

/** The columns of `store`'s table holding weak references, in its column order (built once per table). */
function ownWeakColumns(store: TableStore): readonly OwnWeakColumn[] {
  let out = ownWeakColumnsCache.get(store);
  if (out === undefined) {
    const table = store.schema;
    const cols: OwnWeakColumn[] = [];
    for (const column of store.columnOrder) {
      const c = table.columns[column];
      if (c === undefined) continue;
      const keyTarget = weakRefTarget(c.type.key);
      const valueTarget = weakRefTarget(c.type.value);
      if (keyTarget !== undefined || valueTarget !== undefined) {
        cols.push({ column, keyTarget, valueTarget });
      }
    }
    out = cols;
    ownWeakColumnsCache.set(store, out);
  }
  return out;
}

/**
 * OVS's `assess_weak_refs`, row by row in transaction order: a deleted row
 * queues the removal of the weak references to it in the rows that hold them
 * (pulling those rows into the transaction); a row's own pass removes the
 * queued references and the newly added references to rows that do not exist.
 * As in ovsdb-server, references queued for a row whose pass already ran (a row
 * changed earlier in the transaction, in a table touched before the deleted
 * row's) are not removed.
 */
export function assessWeakRefs(txn: Txn): void {
  txn.forEachRow((tr) => {
    const table = tr.store.schema;
    if (tr.old !== null && tr.new === null) {
      for (const r of weakReferrers(txn, table.name, tr.uuid)) {
        const referrer = txn.findOrMake(r.table, r.uuid);
        if (referrer === undefined) continue;
        if (referrer.deletedRefs === undefined) referrer.deletedRefs = [r.ref];
        else referrer.deletedRefs.push(r.ref);
      }
    }
    if (tr.new === null) return;
    let fields: Record<string, Datum> | undefined;
    for (const { column, keyTarget: kt, valueTarget: vt } of ownWeakColumns(tr.store)) {
      const c = table.columns[column] as ColumnSchema;
      let d = (fields ?? tr.new.fields)[column] as Datum;
      const origN = d.keys.length;
      const isMap = c.type.value !== undefined;
      let zero = false;

      if (tr.deletedRefs !== undefined && tr.deletedRefs.length > 0) {
        const queued = tr.deletedRefs.filter((r) => r.column === column);
        if (queued.length > 0) {
          tr.deletedRefs = tr.deletedRefs.filter((r) => r.column !== column);
          const del = sortUnique(
            queued.map((r) => r.key),
            isMap ? queued.map((r) => r.value as Atom) : undefined,
          );
          d = subtractDatums(d, del);
        }
      }

      // Only references this transaction added can point to missing rows.
      if (d.keys.length === origN && !hasChange(tr, column)) continue;
      const added = tr.old !== null ? subtractDatums(d, tr.old.fields[column] as Datum) : d;
      const missingKeys: Atom[] = [];
      const missingValues: Atom[] = [];
      for (let i = 0; i < added.keys.length; i++) {
        const k = added.keys[i] as Atom;
        const v = added.values?.[i];
        const missing = weakTargetMissing(txn, tr, kt, k);
        const missingValue = weakTargetMissing(txn, tr, vt, v);
        if (missing !== 0 || missingValue !== 0) {
          if (missing === 2 || missingValue === 2) zero = true;
          missingKeys.push(k);
          if (isMap) missingValues.push(v as Atom);
        }
      }
      if (missingKeys.length > 0) {
        d = subtractDatums(d, sortUnique(missingKeys, isMap ? missingValues : undefined));
      }

      if (d.keys.length === origN) continue;
      fields ??= { ...tr.new.fields };
      fields[column] = d;
      markChanged(tr, column);
      if (d.keys.length < c.type.min) {
        if (zero && tr.old === null) {
          throw new OpError(
            'constraint violation',
            `Weak reference column "${column}" in "${table.name}" row ${tr.uuid} (inserted within this transaction) contained all-zeros UUID (probably as the default value for this column) but deleting this value caused a constraint volation because this column is not allowed to be empty.`,
          );
        }
        throw new OpError(
          'constraint violation',
          `Deletion of ${origN - d.keys.length} weak reference(s) to deleted (or never-existing) rows from column "${column}" in "${table.name}" row ${tr.uuid} ${tr.old === null ? '(inserted within this transaction) ' : ''}caused this column to become empty, but constraints on this column disallow an empty column.`,
        );
      }
    }
    if (fields !== undefined) tr.new = { uuid: tr.uuid, fields };
  });
}

/**
 * Whether weak reference `uuid` (to table `target`) from row `tr` points to no
 * row: 0 when it does point to one (or is not a reference), 1 when it does
 * not, 2 when it does not and is the all-zero UUID.
 */
function weakTargetMissing(
  txn: Txn,
  tr: TxnRow,
  target: string | undefined,
  uuid: Atom | undefined,
): 0 | 1 | 2 {
  if (target === undefined || uuid === undefined) return 0;
  if (uuid === tr.uuid || txn.getRow(target, uuid as string) !== undefined) return 0;
  return uuid === ZERO_UUID ? 2 : 1;
}

/** Sorted datum of the given elements, keeping the first of equal keys. */
function sortUnique(keys: Atom[], values: Atom[] | undefined): Datum {
  const idx = keys.map((_, i) => i);
  idx.sort((x, y) => {
    const c = compareAtoms(keys[x] as Atom, keys[y] as Atom);
    return c !== 0 || values === undefined ? c : compareAtoms(values[x] as Atom, values[y] as Atom);
  });
  const outK: Atom[] = [];
  const outV: Atom[] | undefined = values === undefined ? undefined : [];
  for (const i of idx) {
    const k = keys[i] as Atom;
    if (outK.length > 0 && compareAtoms(outK[outK.length - 1] as Atom, k) === 0) continue;
    outK.push(k);
    outV?.push((values as Atom[])[i] as Atom);
  }
  return { keys: outK, values: outV };
}

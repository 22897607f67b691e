/**
 * The commit of a `transact` request: the checks that run once every
 * operation succeeded (referential integrity, garbage collection of
 * non-root rows, `maxRows`, weak references, unique indexes) and applying
 * the staged changes to the committed tables.
 * @module
 */

import type { Atom, BaseType, TableSchema } from '../../ovsdb/schema/schema-types.js';
import { datumToString } from '../../ovsdb/values/ovs-text.js';
import {
  addedRemoved,
  type Datum,
  datumsEqual,
  uuidDatum,
} from '../../ovsdb/values/sorted-datum.js';
import { newUuid } from '../../ovsdb/values/uuid.js';
import { OpError } from './op-error.js';
import { anyChange, hasChange, markChanged, type Txn, type TxnRow } from './staging.js';
import {
  columnType,
  compareRowsOn,
  type Row,
  rowsEqualOn,
  type TableStore,
} from './table-store.js';
import type { RowChange, TxnChanges } from './types.js';
import { englishListDelimiter } from './values.js';
import { assessWeakRefs } from './weak-refs.js';

function strongRefTargets(base: BaseType | undefined): string | undefined {
  if (base === undefined || base.type !== 'uuid' || base.refTable === undefined) return undefined;
  return base.refType === 'weak' ? undefined : base.refTable;
}

function hasStrongRefs(table: TableSchema, column: string): boolean {
  const c = table.columns[column];
  return (
    c !== undefined &&
    (strongRefTargets(c.type.key) !== undefined || strongRefTargets(c.type.value) !== undefined)
  );
}

const strongRefColumnsCache = new WeakMap<TableStore, readonly string[]>();

/** The columns of `store`'s table that hold strong references, in its column order (built once per table). */
function strongRefColumns(store: TableStore): readonly string[] {
  let cols = strongRefColumnsCache.get(store);
  if (cols === undefined) {
    const table = store.schema;
    cols = store.columnOrder.filter((c) => hasStrongRefs(table, c));
    strongRefColumnsCache.set(store, cols);
  }
  return cols;
}

/** Adjust the reference counts of the rows `d` strongly references from `row` by `delta`. */
function adjustRefs(
  txn: Txn,
  table: TableSchema,
  rowUuid: string,
  column: string,
  d: Datum,
  delta: number,
): void {
  // Keys first, then values (an empty datum, the usual case, references nothing).
  if (d.keys.length === 0) return;
  const c = table.columns[column];
  if (c === undefined) return;
  adjustAtomRefs(txn, table, rowUuid, column, strongRefTargets(c.type.key), d.keys, delta);
  if (d.values !== undefined) {
    adjustAtomRefs(txn, table, rowUuid, column, strongRefTargets(c.type.value), d.values, delta);
  }
}

/** {@link adjustRefs} for the keys or the values of a datum, which reference rows of `target` (if any). */
function adjustAtomRefs(
  txn: Txn,
  table: TableSchema,
  rowUuid: string,
  column: string,
  target: string | undefined,
  atoms: readonly Atom[],
  delta: number,
): void {
  if (target === undefined) return;
  for (let i = 0; i < atoms.length; i++) {
    const uuid = atoms[i] as string;
    if (uuid === rowUuid) continue;
    const tr = txn.findOrMake(target, uuid);
    if (tr === undefined) {
      if (delta < 0) continue;
      throw new OpError(
        'referential integrity violation',
        `Table ${table.name} column ${column} row ${rowUuid} references nonexistent row ${uuid} in table ${target}.`,
      );
    }
    tr.nRefs += delta;
  }
}

/**
 * Delete `tr`, a row no strong reference points to, and with it every row
 * whose last strong reference it held, depth first in reference order, as
 * OVS's recursive `delete_garbage_row` does. Iterative (an explicit stack of
 * the rows being walked and how far), so a chain of any length is safe.
 */
function deleteGarbageRow(txn: Txn, tr: TxnRow): void {
  /** A row being deleted: the strong references it held, `[table, uuid]`, and the next to drop. */
  const stack: { readonly uuid: string; readonly refs: [string, string][]; next: number }[] = [];
  const enter = (r: TxnRow): void => {
    if (r.store.schema.isRoot || r.new === null) return;
    const row = r.new;
    r.new = null;
    const table = r.store.schema;
    const refs: [string, string][] = [];
    for (const column of r.store.columnOrder) {
      const c = table.columns[column];
      if (c === undefined) continue;
      const d = row.fields[column] as Datum;
      const parts: [BaseType | undefined, readonly Atom[]][] = [
        [c.type.key, d.keys],
        [c.type.value, d.values ?? []],
      ];
      for (const [base, atoms] of parts) {
        const target = strongRefTargets(base);
        if (target === undefined) continue;
        for (const a of atoms) refs.push([target, a as string]);
      }
    }
    stack.push({ uuid: row.uuid, refs, next: 0 });
  };
  enter(tr);
  for (;;) {
    const top = stack[stack.length - 1];
    if (top === undefined) return;
    if (top.next >= top.refs.length) {
      stack.pop();
      continue;
    }
    const [target, uuid] = top.refs[top.next++] as [string, string];
    if (uuid === top.uuid) continue;
    const ttr = txn.findOrMake(target, uuid);
    if (ttr === undefined || ttr.new === null || ttr.nRefs === 0) continue;
    ttr.nRefs--;
    if (ttr.nRefs === 0) enter(ttr);
  }
}

function columnsToString(row: Row, table: TableSchema, columns: readonly string[]): string {
  return columns
    .map(
      (c, i) =>
        englishListDelimiter(i, columns.length) +
        datumToString(row.fields[c] as Datum, columnType(table, c)),
    )
    .join('');
}

function describeIndexRow(
  txn: Txn,
  table: TableSchema,
  index: readonly string[],
  row: Row,
  title: string,
): string {
  let s = `${title} row, with UUID ${row.uuid}, `;
  const tr = txn.findTxnRow(table.name, row.uuid);
  if (tr === undefined || !anyChange(tr)) {
    s += 'existed in the database before this transaction and was not modified by the transaction.';
  } else if (tr.old === null) {
    s += 'was inserted by this transaction.';
  } else if (rowsEqualOn(tr.old, row, index)) {
    s +=
      "existed in the database before this transaction, which modified some of the row's columns but not any columns in this index.";
  } else {
    s += `had the following index values before the transaction: ${columnsToString(tr.old, table, index)}.`;
  }
  return s;
}

function duplicateIndexError(
  txn: Txn,
  store: TableStore,
  index: readonly string[],
  a0: Row,
  b0: Row,
): OpError {
  const table = store.schema;
  let a = a0;
  let b = b0;
  if (compareRowsOn(a, b, store.columnOrder) < 0) [a, b] = [b, a];
  const indexText = `column${index.length > 1 ? 's' : ''} ${index
    .map((c, i) => `${englishListDelimiter(i, index.length)}"${c}"`)
    .join('')}`;
  const details =
    `Transaction causes multiple rows in "${table.name}" table to have identical values (${columnsToString(a, table, index)}) for index on ${indexText}.  ` +
    `${describeIndexRow(txn, table, index, a, 'First')}  ${describeIndexRow(txn, table, index, b, 'Second')}`;
  return new OpError('constraint violation', details);
}

/**
 * The commit checks, in ovsdb-server's order (see `executor.ts`): drop rows
 * that did not really change, count strong references, collect garbage,
 * check `maxRows`, weak references and unique indexes, and give every
 * changed row a new `_version`. Throws the first violation as an
 * {@link OpError}; the committed tables are not touched.
 */
export function precommit(txn: Txn): void {
  // Figure out what actually changed.
  txn.forEachRow((tr) => {
    const cols = tr.store.columnOrder;
    if (tr.old !== null && tr.new !== null) {
      for (const c of cols) {
        if (!datumsEqual(tr.old.fields[c] as Datum, tr.new.fields[c] as Datum)) markChanged(tr, c);
      }
      if (tr.changed === undefined) txn.tables.get(tr.store.schema.name)?.delete(tr.uuid);
    } else {
      tr.allChanged = true;
    }
  });
  if (txn.tables.size === 0) return;

  // Reference counts and referential integrity.
  txn.forEachRow((tr) => {
    const table = tr.store.schema;
    for (const column of strongRefColumns(tr.store)) {
      if (!hasChange(tr, column)) continue;
      if (tr.old !== null && tr.new === null) {
        adjustRefs(txn, table, tr.uuid, column, tr.old.fields[column] as Datum, -1);
      } else if (tr.old === null && tr.new !== null) {
        adjustRefs(txn, table, tr.uuid, column, tr.new.fields[column] as Datum, 1);
      } else if (tr.old !== null && tr.new !== null) {
        const { added, removed } = addedRemoved(
          tr.old.fields[column] as Datum,
          tr.new.fields[column] as Datum,
        );
        adjustRefs(txn, table, tr.uuid, column, removed, -1);
        adjustRefs(txn, table, tr.uuid, column, added, 1);
      }
    }
  });
  txn.forEachRow((tr) => {
    if (tr.new === null && tr.nRefs > 0) {
      throw new OpError(
        'referential integrity violation',
        `cannot delete ${tr.store.schema.name} row ${tr.uuid} because of ${tr.nRefs} remaining reference(s)`,
      );
    }
  });

  // Delete unreferenced rows of non-root tables.
  txn.forEachRow((tr) => {
    if (tr.new !== null && tr.nRefs === 0) deleteGarbageRow(txn, tr);
  });

  // maxRows.
  for (const name of txn.tables.keys()) {
    const store = txn.store(name);
    if (store.schema.maxRows === Number.POSITIVE_INFINITY) continue;
    const n = txn.count(name);
    if (n > store.schema.maxRows) {
      throw new OpError(
        'constraint violation',
        `transaction causes "${name}" table to contain ${n} rows, greater than the schema-defined limit of ${store.schema.maxRows} row(s)`,
      );
    }
  }

  // Weak references.
  assessWeakRefs(txn);

  // Unique indexes.
  const txnIndexes = new Map<string, Map<string, Row>[]>();
  txn.forEachRow((tr) => {
    const row = tr.new;
    if (row === null) return;
    const store = tr.store;
    const table = store.schema;
    let ti = txnIndexes.get(table.name);
    if (ti === undefined) {
      ti = table.indexes.map(() => new Map());
      txnIndexes.set(table.name, ti);
    }
    for (let i = 0; i < table.indexes.length; i++) {
      const index = table.indexes[i] as readonly string[];
      const key = store.indexKey(i, row.fields);
      const m = ti[i] as Map<string, Row>;
      const dup = m.get(key);
      if (dup !== undefined) throw duplicateIndexError(txn, store, index, dup, row);
      const committed = store.indexes[i]?.get(key);
      if (committed !== undefined && txn.findTxnRow(table.name, committed) === undefined) {
        throw duplicateIndexError(txn, store, index, store.rows.get(committed) as Row, row);
      }
      m.set(key, row);
    }
  });

  // New _version for modified rows.
  txn.forEachRow((tr) => {
    if (tr.old !== null && tr.new !== null && anyChange(tr)) {
      markChanged(tr, '_version');
      tr.new = { uuid: tr.uuid, fields: { ...tr.new.fields, _version: uuidDatum(newUuid()) } };
    }
  });
}

/**
 * The changes the transaction's checked rows make (see {@link precommit}),
 * as monitors and database files see them, or null when nothing changes;
 * the committed tables are not touched yet ({@link applyTxn} does it).
 */
export function txnChanges(txn: Txn, comment: string | undefined): TxnChanges | null {
  const changes: RowChange[] = [];
  for (const [name, t] of txn.tables) {
    const store = txn.store(name);
    for (const tr of t.values()) {
      if (tr.old === null && tr.new === null) continue;
      if (tr.old !== null && tr.new !== null && !anyChange(tr)) continue;
      changes.push({
        table: name,
        uuid: tr.uuid,
        old: tr.old,
        new: tr.new,
        changed: tr.allChanged
          ? store.columnOrder
          : store.columnOrder.filter((c) => tr.changed?.has(c) === true),
      });
    }
  }
  if (changes.length === 0) return null;
  return comment === undefined ? { rows: changes } : { rows: changes, comment };
}

/**
 * Apply the transaction's checked changes to the committed tables (rows,
 * reference counts, unique indexes).
 */
export function applyTxn(txn: Txn): void {
  for (const [name, t] of txn.tables) {
    const store = txn.store(name);
    for (const tr of t.values()) {
      if (tr.old !== null) {
        for (let i = 0; i < store.indexes.length; i++) {
          const key = store.indexKey(i, tr.old.fields);
          if (store.indexes[i]?.get(key) === tr.uuid) store.indexes[i]?.delete(key);
        }
      }
      if (tr.new === null) {
        store.rows.delete(tr.uuid);
        store.refCounts.delete(tr.uuid);
      } else {
        store.rows.set(tr.uuid, tr.new);
        if (tr.nRefs > 0) store.refCounts.set(tr.uuid, tr.nRefs);
        // A row the table did not have has no count to drop.
        else if (tr.old !== null) store.refCounts.delete(tr.uuid);
      }
    }
    if (store.indexes.length === 0) continue;
    for (const tr of t.values()) {
      if (tr.new === null) continue;
      for (let i = 0; i < store.indexes.length; i++) {
        store.indexes[i]?.set(store.indexKey(i, tr.new.fields), tr.uuid);
      }
    }
  }
}

/**
 * Apply the transaction's checked changes to the committed tables. Returns
 * the changes for monitors, or null when nothing changed.
 */
export function commit(txn: Txn, comment: string | undefined): TxnChanges | null {
  const changes = txnChanges(txn, comment);
  applyTxn(txn);
  return changes;
}

/**
 * Turning a {@link Plan} into operations: the guards first (`wait`s with
 * timeout 0 on what the plan read), then inserts, updates, mutations and
 * deletes. A plan goes out whole in one transaction, or in batches: the new
 * rows in dependency order (a parent before its children, a referenced row
 * before the rows that reference it), then the updates, then the deletes.
 * @module
 */

import type { TableMap } from '../../ovsdb/schema/model.js';
import type { DatabaseSchema } from '../../ovsdb/schema/schema-types.js';
import type { Uuid } from '../../ovsdb/values/uuid.js';
import { setOwn } from '../../ovsdb/wire/json.js';
import type { TransactionBuilder } from '../builder.js';
import { DesiredStateError } from './errors.js';
import { childTableOf } from './keys.js';
import type { Contains, Create, Delete, Edit, Plan } from './plan.js';
import { setAtoms } from './values.js';

/** One batch: the items of a plan that go out in one transaction. */
export interface Batch {
  readonly creates: readonly Create[];
  readonly edits: readonly Edit[];
  readonly deletes: readonly Delete[];
}

/** What the batches of one plan before this one did (their links to existing parents). */
export class BatchProgress {
  /** The plan's new rows. */
  readonly isNew: ReadonlySet<string>;
  /** New rows committed by earlier batches. */
  readonly done = new Set<string>();
  /** New rows with the owner mark committed by earlier batches, per table. */
  readonly doneOwned = new Map<string, string[]>();
  /** Root rows deleted by earlier batches. */
  readonly deleted = new Set<string>();
  /** Children linked by earlier batches: parent UUID → column → child UUIDs. */
  readonly linked = new Map<string, Map<string, string[]>>();

  constructor(private readonly plan: Plan) {
    this.isNew = new Set(plan.creates.map((c) => c.uuid));
  }

  /** Record what a committed batch did, for the guards of the next ones. */
  commit(batch: Batch): void {
    for (const c of batch.creates) {
      const p = c.parent;
      if (p !== undefined && (!this.isNew.has(p.uuid) || this.done.has(p.uuid))) {
        this.link(p.uuid, p.column, [c.uuid]);
      }
    }
    for (const c of batch.creates) {
      this.done.add(c.uuid);
      const ext = c.row['external_ids'] as Readonly<Record<string, string>> | undefined;
      // Shared rows carry no mark, so they are not among the owner's rows.
      if (ext?.[this.plan.ownerKey] === this.plan.owner) {
        const list = this.doneOwned.get(c.table);
        if (list === undefined) this.doneOwned.set(c.table, [c.uuid]);
        else list.push(c.uuid);
      }
    }
    for (const d of batch.deletes) this.deleted.add(d.uuid);
  }

  private link(parent: string, column: string, children: readonly string[]): void {
    let cols = this.linked.get(parent);
    if (cols === undefined) {
      cols = new Map();
      this.linked.set(parent, cols);
    }
    cols.set(column, [...(cols.get(column) ?? []), ...children]);
  }
}

function isChildColumn(schema: DatabaseSchema, table: string, column: string): boolean {
  const col = schema.tables[table]?.columns[column];
  return col !== undefined && childTableOf(schema, col) !== undefined;
}

function refsIn(v: unknown, into: string[]): void {
  if (typeof v === 'string') into.push(v);
  else if (Array.isArray(v)) for (const e of v) if (typeof e === 'string') into.push(e);
}

/**
 * The plan's items split into batches of at most `size` items (`Infinity`: one
 * batch); the edits that move children between parents go in one batch, even
 * past `size`.
 */
export function batches(plan: Plan, schema: DatabaseSchema, size: number): Batch[] {
  const newRows = new Map(plan.creates.map((c) => [c.uuid, c]));
  const ordered: Create[] = [];
  const state = new Map<string, 1 | 2>();
  const visit = (c: Create): void => {
    const s = state.get(c.uuid);
    if (s === 2) return;
    if (s === 1) {
      throw new DesiredStateError(
        'cycle',
        `${c.table} ${c.uuid}: new rows reference each other in a cycle, which cannot be split into batches; apply it in one transaction`,
        { table: c.table },
      );
    }
    state.set(c.uuid, 1);
    const deps: string[] = [];
    if (c.parent !== undefined) deps.push(c.parent.uuid);
    for (const col of Object.keys(c.row)) {
      if (!isChildColumn(schema, c.table, col)) refsIn(c.row[col], deps);
    }
    for (const d of deps) {
      const dc = newRows.get(d);
      if (dc !== undefined && dc !== c) visit(dc);
    }
    state.set(c.uuid, 2);
    ordered.push(c);
  };
  if (size !== Number.POSITIVE_INFINITY) for (const c of plan.creates) visit(c);
  // The edits that move an existing child from one parent to another go out together:
  // apart, the unlink could commit first and the server would delete the child, held by
  // no parent until the link.
  const moved = new Set<string>();
  for (const e of plan.edits.values()) {
    for (const [col, m] of e.mutate) {
      if (!isChildColumn(schema, e.table, col) || !Array.isArray(m.insert)) continue;
      for (const u of m.insert as string[]) if (!newRows.has(u)) moved.add(u);
    }
  }
  const moves: Edit[] = [];
  const edits: Edit[] = [];
  for (const e of plan.edits.values()) {
    let moving = false;
    for (const [col, m] of e.mutate) {
      if (!isChildColumn(schema, e.table, col)) continue;
      const touched = [...m.remove, ...(Array.isArray(m.insert) ? m.insert : [])] as string[];
      if (touched.some((u) => moved.has(u))) moving = true;
    }
    (moving ? moves : edits).push(e);
  }
  const groups: (Create | Edit | Delete)[][] = [
    ...(size === Number.POSITIVE_INFINITY ? plan.creates : ordered).map((c) => [c]),
    ...(moves.length > 0 ? [moves] : []),
    ...edits.map((e) => [e]),
    ...plan.deletes.map((d) => [d]),
  ];
  const out: Batch[] = [];
  const creates = new Set(plan.creates);
  const deletes = new Set(plan.deletes);
  let chunk: (Create | Edit | Delete)[] = [];
  const flush = (): void => {
    out.push({
      creates: chunk.filter((x): x is Create => creates.has(x as Create)),
      deletes: chunk.filter((x): x is Delete => deletes.has(x as Delete)),
      edits: chunk.filter((x): x is Edit => !creates.has(x as Create) && !deletes.has(x as Delete)),
    });
    chunk = [];
  };
  for (const g of groups) {
    if (chunk.length > 0 && chunk.length + g.length > size) flush();
    chunk.push(...g);
  }
  if (chunk.length > 0) flush();
  return out;
}

type Tx = TransactionBuilder<TableMap>;

/**
 * A `wait` that row `uuid` exists, has `values`, and holds the elements
 * `contains` asks for.
 */
function guard(
  tx: Tx,
  table: string,
  uuid: string,
  values: ReadonlyMap<string, unknown>,
  contains?: ReadonlyMap<string, Contains>,
): void {
  const row: Record<string, unknown> = {};
  for (const [c, v] of values) setOwn(row, c, v);
  const where: unknown[] = [['_uuid', '==', uuid]];
  for (const [c, { includes, excludes }] of contains ?? []) {
    const some = Array.isArray(includes) ? includes.length > 0 : Object.keys(includes).length > 0;
    if (some) where.push([c, 'includes', includes]);
    if (excludes.length > 0) where.push([c, 'excludes', excludes]);
  }
  tx.wait(table, (where.length === 1 ? uuid : where) as never, {
    columns: [...values.keys()] as never[],
    until: '==',
    rows: [row],
    timeout: 0,
  });
}

/**
 * The mutations of one row. The server checks a column's size after each
 * mutation: removals go first (room under a `max`), except in a set of at
 * least one element, which gains its new elements before it loses the old.
 */
function mutations(schema: DatabaseSchema, table: string, m: Edit['mutate']): unknown[] {
  const out: unknown[] = [];
  for (const [c, { remove, insert }] of m) {
    const empty = Array.isArray(insert) ? insert.length === 0 : Object.keys(insert).length === 0;
    const del = remove.length > 0 ? [c, 'delete', remove] : undefined;
    const ins = empty ? undefined : [c, 'insert', insert];
    const insertFirst = (schema.tables[table]?.columns[c]?.type.min ?? 0) >= 1;
    for (const x of insertFirst ? [ins, del] : [del, ins]) if (x !== undefined) out.push(x);
  }
  return out;
}

/** The counts of what a batch sent. */
export interface EmitCounts {
  operations: number;
  guards: number;
}

/**
 * Add the operations of `batch` to `tx`. `progress` holds what earlier
 * batches committed; call `progress.commit(batch)` once this one commits.
 */
export function emitBatch(
  tx: Tx,
  plan: Plan,
  schema: DatabaseSchema,
  batch: Batch,
  progress: BatchProgress,
): EmitCounts {
  const counts: EmitCounts = { operations: 0, guards: 0 };
  const isNew = progress.isNew;
  const inBatch = new Set(batch.creates.map((c) => c.uuid));
  const present = (u: string): boolean => !isNew.has(u) || inBatch.has(u) || progress.done.has(u);

  // Links of new children to parents that exist (or were created by an earlier batch).
  const links = new Map<string, { table: string; cols: Map<string, string[]> }>();
  for (const c of batch.creates) {
    const p = c.parent;
    if (p === undefined || (isNew.has(p.uuid) && !progress.done.has(p.uuid))) continue;
    let l = links.get(p.uuid);
    if (l === undefined) {
      l = { table: p.table, cols: new Map() };
      links.set(p.uuid, l);
    }
    l.cols.set(p.column, [...(l.cols.get(p.column) ?? []), c.uuid]);
  }
  // The edits of this batch, without links of new children (they go with their child).
  const edits = new Map<string, { edit: Edit; mutate: Edit['mutate'] }>();
  for (const e of batch.edits) {
    const mutate: Edit['mutate'] = new Map();
    for (const [col, m] of e.mutate) {
      const insert = Array.isArray(m.insert)
        ? (m.insert as string[]).filter(
            (u) => !(isChildColumn(schema, e.table, col) && isNew.has(u)),
          )
        : m.insert;
      const empty = Array.isArray(insert) ? insert.length === 0 : Object.keys(insert).length === 0;
      if (m.remove.length > 0 || !empty) mutate.set(col, { remove: m.remove, insert });
    }
    if (e.set.size > 0 || mutate.size > 0) edits.set(e.uuid, { edit: e, mutate });
  }
  const parentGuard = (uuid: string): Map<string, unknown> => {
    const e = plan.edits.get(uuid);
    const g = new Map<string, unknown>();
    if (e === undefined) return g;
    for (const [c, v] of e.guard) {
      const more = progress.linked.get(uuid)?.get(c);
      g.set(c, more === undefined ? v : setAtoms([...setAtoms(v), ...more]));
    }
    return g;
  };

  // Guards.
  const guarded = new Set<string>();
  for (const { edit } of edits.values()) {
    guard(tx, edit.table, edit.uuid, parentGuard(edit.uuid), edit.contains);
    guarded.add(edit.uuid);
    counts.guards++;
  }
  for (const [uuid, l] of links) {
    if (guarded.has(uuid)) continue;
    const e = plan.edits.get(uuid);
    const g = parentGuard(uuid);
    // A parent the plan only links to: its existence, and its children where a scoped child is created.
    const keep = new Map<string, unknown>();
    for (const [c, v] of g) if (e?.set.has(c) !== true && c !== 'external_ids') keep.set(c, v);
    guard(tx, l.table, uuid, keep, e?.contains);
    guarded.add(uuid);
    counts.guards++;
  }
  // The owner's rows of a table are exactly `rows` (on `columns`).
  const ownerWait = (table: string, columns: string[], rows: Record<string, string>[]): void => {
    tx.wait(table, [['external_ids', 'includes', { [plan.ownerKey]: plan.owner }]] as never, {
      columns: columns as never[],
      until: '==',
      rows: rows as never[],
      timeout: 0,
    });
    counts.guards++;
  };
  // With guardReads (one transaction): the owner's rows of each table, with the versions read.
  for (const [table, read] of plan.readGuards ?? []) {
    ownerWait(
      table,
      ['_uuid', '_version'],
      read.map(([u, v]) => ({ _uuid: u, _version: v })),
    );
  }
  // The owner's set of rows of each root table, as the plan read it (and earlier batches changed it).
  for (const [table, read] of plan.readGuards === undefined ? plan.ownedRoots : []) {
    const rows = [
      ...read.filter((u) => !progress.deleted.has(u)),
      ...(progress.doneOwned.get(table) ?? []),
    ];
    ownerWait(
      table,
      ['_uuid'],
      rows.map((u) => ({ _uuid: u })),
    );
  }
  // With guardReads (one transaction): the owner's part of the shared rows read and not written.
  for (const g of plan.sharedReads) {
    guard(tx, g.table, g.uuid, g.guard, g.contains);
    counts.guards++;
  }
  for (const c of batch.creates) {
    if (c.absentKey === undefined) continue;
    tx.wait(c.table, c.absentKey as never, { columns: [], until: '==', rows: [], timeout: 0 });
    counts.guards++;
  }
  for (const d of batch.deletes) {
    guard(tx, d.table, d.uuid, d.guard);
    counts.guards++;
  }
  // Writes.
  for (const c of batch.creates) {
    const row: Record<string, unknown> = {};
    for (const col of Object.keys(c.row)) {
      let v = c.row[col];
      if (isChildColumn(schema, c.table, col) && Array.isArray(v)) {
        v = (v as string[]).filter((u) => present(u));
      }
      setOwn(row, col, v);
    }
    tx.insert(c.table, row as never, { uuid: c.uuid as never });
    counts.operations++;
  }
  for (const { edit } of edits.values()) {
    if (edit.set.size === 0) continue;
    const row: Record<string, unknown> = {};
    for (const [c, v] of edit.set) setOwn(row, c, v);
    tx.update(edit.table, edit.uuid as Uuid, row as never);
    counts.operations++;
  }
  for (const [uuid, l] of links) {
    const own = edits.get(uuid);
    const mutate: Edit['mutate'] = own === undefined ? new Map() : own.mutate;
    for (const [col, children] of l.cols) {
      const m = mutate.get(col) ?? { remove: [], insert: [] };
      mutate.set(col, { remove: m.remove, insert: [...(m.insert as unknown[]), ...children] });
    }
    if (own === undefined)
      edits.set(uuid, { edit: plan.edits.get(uuid) ?? emptyEdit(l.table, uuid), mutate });
  }
  for (const { edit, mutate } of edits.values()) {
    if (mutate.size === 0) continue;
    tx.mutate(edit.table, edit.uuid as Uuid, mutations(schema, edit.table, mutate) as never);
    counts.operations++;
  }
  for (const d of batch.deletes) {
    tx.delete(d.table, d.uuid as Uuid);
    counts.operations++;
  }
  return counts;
}

function emptyEdit(table: string, uuid: string): Edit {
  return { table, uuid, set: new Map(), mutate: new Map(), guard: new Map() };
}

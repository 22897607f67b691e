/**
 * The guarding half of a plan: the rows it creates and edits, what an
 * apply guards them on (so that a concurrent writer makes it plan again),
 * and how each change is named for the reader of the plan. The planner
 * (`planner.ts`) builds on it, over the reading half (`matching.ts`).
 * @module
 */

import type { ColumnSchema } from '../ovsdb/schema/schema-types.js';
import { setOwn } from '../ovsdb/wire/json.js';
import { contributionGuard } from './contributions.js';
import { Matching, ownerOf } from './matching.js';
import {
  type ColumnChange,
  type Contains,
  type Create,
  type Edit,
  type Guard,
  type PlannedChange,
  refKeys,
} from './plan.js';
import type { AnyRow } from './snapshot.js';
import type { Declared } from './state.js';
import { setAtoms } from './values.js';

/** The mutation entry of `column` in edit `e`, made on first use. */
export /** The mutation entry of `column` in edit `e`, made on first use. */
function mutation(
  e: Edit,
  column: string,
): Edit['mutate'] extends Map<string, infer M> ? M : never {
  let m = e.mutate.get(column);
  if (m === undefined) {
    m = { remove: [], insert: [] };
    e.mutate.set(column, m);
  }
  return m;
}

function isRefColumn(column: ColumnSchema): boolean {
  return column.type.key.refTable !== undefined && column.type.value === undefined;
}

/** The plan's creates and edits, and their guards, over what {@link Matching} read. */
export class Guarding extends Matching {
  protected readonly edits = new Map<string, Edit>();
  protected readonly creates: Create[] = [];
  /** Existing rows that this plan deletes (directly, by unlinking, or with a deleted parent). */
  protected readonly dying = new Set<string>();
  /** Parents that get a scoped child created: guard their children column. */
  protected readonly scopedParents = new Map<string, Set<string>>();
  /** Unmarked, undeclared rows from which the plan removes the owner's elements. */
  protected readonly dropsFrom = new Set<string>();
  /** With `guardReads`: the guards of shared rows read and not written. */
  protected readonly sharedReads: Guard[] = [];

  /** The declaration of an existing row (an incremental plan also looks in its base). */
  protected declOf(uuid: string): Declared | undefined {
    return this.declOfUuid.get(uuid);
  }

  /**
   * The edit of an existing row, made on first use. A declared row the
   * owner holds is guarded on its owner mark (the `external_ids` the plan
   * read).
   */
  protected edit(table: string, uuid: string): Edit {
    let e = this.edits.get(uuid);
    if (e === undefined) {
      e = { table, uuid, set: new Map(), mutate: new Map(), guard: new Map() };
      const d = this.declOf(uuid);
      if (
        d !== undefined &&
        !d.shared &&
        this.tables[table]!.columns['external_ids'] !== undefined
      ) {
        const row = this.existingOf.get(d.ref.id) ?? this.snap.row(table, uuid)!;
        e.guard.set('external_ids', row['external_ids']);
      }
      this.edits.set(uuid, e);
    }
    return e;
  }

  protected readonly refColumns = new Map<string, readonly string[]>();

  /** The set reference columns of `table` that may hold the owner's rows as contributions. */
  protected contributionColumns(table: string): readonly string[] {
    let cols = this.refColumns.get(table);
    if (cols === undefined) {
      const schema = this.tables[table]!;
      cols = schema.columnNames.filter((c) => {
        const col = schema.columns[c]!;
        if (!isRefColumn(col) || col.type.kind !== 'set') return false;
        const target = this.tables[col.type.key.refTable!];
        // Strong references to non-root rows hold children: those are planned as children.
        return target !== undefined && (col.type.key.refType === 'weak' || target.isRoot);
      });
      this.refColumns.set(table, cols);
    }
    return cols;
  }

  /** The owner's rows of each table, made on first use. */
  protected ownedByTable: Map<string, string[]> | undefined;

  /**
   * The owner's part of the shared rows: a shared row this plan writes (or,
   * with `guardReads`, one it declares) is guarded on exactly the elements
   * its contribution was computed from, so that a concurrent change of them
   * (another applier of the same owner) makes the apply plan again, and
   * other owners' elements do not:
   * - of a declared set, the elements the row holds (a removed one would be
   *   lost, since the plan does not insert what it found), `includes`;
   * - of a reference set, the owner's rows the row does not hold and that
   *   are not declared (one inserted meanwhile would stay), `excludes`;
   * - of a declared map, the pairs of the declared keys the row holds.
   * A declared element the row lacks is inserted, an undeclared one of the
   * owner's it holds is deleted: both mutations hold whatever happened
   * meanwhile, so they need no guard (see {@link contributionGuard}).
   */
  protected guardContributions(): void {
    for (const d of this.declared.values()) {
      if (!d.shared) continue;
      const row = this.existingOf.get(d.ref.id);
      if (row === undefined) continue;
      const e = this.edits.get(row._uuid);
      if (e !== undefined) this.guardContribution(e, row, d);
      else if (this.options.guardReads === true) {
        const g: Guard = { table: d.table, uuid: row._uuid, guard: new Map() };
        this.guardContribution(g, row, d);
        if (g.guard.size > 0 || g.contains !== undefined) this.sharedReads.push(g);
      }
    }
    for (const uuid of this.dropsFrom) {
      const e = this.edits.get(uuid);
      const row = e === undefined ? undefined : this.snap.row(e.table, uuid);
      if (e !== undefined && row !== undefined) this.guardContribution(e, row, undefined);
    }
  }

  /** Guard the owner's part of `row`, declared shared by `d` or holding the owner's rows undeclared. */
  protected guardContribution(g: Guard, row: AnyRow, d: Declared | undefined): void {
    const refCols = this.contributionColumns(g.table);
    const columns = new Set(refCols);
    if (d !== undefined) for (const c of Object.keys(d.row)) columns.add(c);
    const contains = new Map<string, Contains>();
    for (const c of columns) {
      if (g.guard.has(c)) continue;
      const column = this.tables[g.table]!.columns[c]!;
      const raw = d?.row[c];
      const want = raw === undefined ? undefined : this.resolveValue(raw, d!, c);
      const owned = refCols.includes(c) ? this.ownedOf(column.type.key.refTable!) : [];
      const need = contributionGuard(column, row[c], want, owned);
      if (need === 'whole') g.guard.set(c, row[c]);
      else if (need !== undefined) contains.set(c, need);
    }
    if (contains.size > 0) g.contains = contains;
  }

  /**
   * The owner's rows of `table`, those this plan deletes included: the
   * server keeps a weak reference to a row deleted in a transaction in a row
   * that transaction modifies, so one inserted meanwhile must trip the guard.
   */
  protected ownedOf(table: string): readonly string[] {
    if (this.ownedByTable === undefined) {
      this.ownedByTable = new Map();
      for (const [uuid, t] of this.owned) {
        const list = this.ownedByTable.get(t);
        if (list === undefined) this.ownedByTable.set(t, [uuid]);
        else list.push(uuid);
      }
    }
    return this.ownedByTable.get(table) ?? [];
  }

  /**
   * A row of the owner's that the plan mutates is guarded on the columns it
   * mutates (the values read), as on the scalars it overwrites, so that a
   * concurrent writer's change to them (another applier of the same owner)
   * trips the guard and the plan is made again, instead of two sets of
   * element changes mixing. Shared rows take contributions from several
   * owners and are guarded on the owner's elements only (see
   * {@link Guarding.guardContributions}).
   */
  protected guardMutations(): void {
    for (const e of this.edits.values()) {
      if (e.mutate.size === 0) continue;
      const row = this.snap.row(e.table, e.uuid);
      if (row === undefined) continue;
      const d = this.declOf(e.uuid);
      const mine = d === undefined ? this.rowOwner(e.table, row) === this.owner : !d.shared;
      if (!mine) continue;
      for (const [c, m] of e.mutate) {
        if (e.guard.has(c)) continue;
        // A weak reference to a row this plan deletes can go before the batch that writes
        // this row (the server drops it): such a column is not guarded.
        const weak = this.tables[e.table]!.columns[c]!.type.key.refType === 'weak';
        if (weak && m.remove.some((u) => this.dying.has(u as string))) continue;
        e.guard.set(c, row[c]);
      }
    }
  }

  protected addParentGuards(): void {
    for (const [uuid, cols] of this.scopedParents) {
      const e = this.edits.get(uuid);
      const row = e === undefined ? undefined : this.snap.row(e.table, uuid);
      if (e === undefined || row === undefined) continue;
      for (const c of cols) e.guard.set(c, row[c]);
    }
  }

  /** New rows by UUID, made on first use (after the plan is made). */
  protected createdByUuid: Map<string, Create> | undefined;

  /**
   * The key, as text, of row `uuid` of `table`: a new row's declared key, an
   * existing row's from its key columns; undefined for a row of a table
   * without a key, or one that is not there.
   */
  protected nameOf(table: string, uuid: string): string | undefined {
    this.createdByUuid ??= new Map(this.creates.map((c) => [c.uuid, c]));
    const created = this.createdByUuid.get(uuid);
    if (created !== undefined) return created.key;
    if (this.state.keys.get(table) === undefined || !this.snap.monitored(table)) return undefined;
    const row = this.snap.row(table, uuid);
    return row === undefined ? undefined : this.keyText(table, row);
  }

  /** The keys of the rows that `values` of reference column `column` of `table` name by UUID. */
  protected refsOf(
    table: string,
    column: string,
    values: readonly unknown[],
  ): Record<string, string> | undefined {
    return refKeys(this.tables[table]!.columns[column]!, values, (t, u) => this.nameOf(t, u));
  }

  /** A create, with its parent and the rows it references named by key. */
  protected namedCreate(c: PlannedChange & { action: 'create' }): PlannedChange {
    const refs: Record<string, Record<string, string>> = {};
    for (const col of Object.keys(c.row)) {
      const named = this.refsOf(c.table, col, [c.row[col]]);
      if (named !== undefined) setOwn(refs, col, named);
    }
    const parentKey =
      c.parent === undefined ? undefined : this.nameOf(c.parent.table, c.parent.uuid);
    return {
      ...c,
      ...(c.parent === undefined || parentKey === undefined
        ? {}
        : { parent: { ...c.parent, key: parentKey } }),
      ...(Object.keys(refs).length === 0 ? {} : { refs }),
    };
  }

  protected updateChange(e: Edit): PlannedChange {
    const row = this.snap.row(e.table, e.uuid)!;
    const columns: ColumnChange[] = [];
    for (const [c, to] of e.set) {
      const refs = this.refsOf(e.table, c, [row[c], to]);
      columns.push({
        column: c,
        how: 'set',
        from: row[c],
        to,
        ...(refs === undefined ? {} : { refs }),
      });
    }
    for (const [c, m] of e.mutate) {
      const insert = m.insert;
      const refs = this.refsOf(e.table, c, [m.remove, insert]);
      columns.push({
        column: c,
        how: 'mutate',
        ...(m.remove.length > 0 ? { remove: m.remove } : {}),
        ...(Array.isArray(insert)
          ? insert.length > 0
            ? { insert }
            : {}
          : Object.keys(insert).length > 0
            ? { insert }
            : {}),
        ...(refs === undefined ? {} : { refs }),
      });
    }
    columns.sort((a, b) => (a.column < b.column ? -1 : a.column > b.column ? 1 : 0));
    const declared = this.declOf(e.uuid);
    return {
      action: 'update',
      table: e.table,
      key: this.keyText(e.table, row),
      uuid: e.uuid,
      columns,
      shared: declared?.shared === true || this.rowOwner(e.table, row) !== this.owner,
    };
  }

  /**
   * Unmarked rows holding references to the owner's rows: the references
   * that no shared declaration of the row keeps are the owner's old
   * contributions, and are removed.
   */
  protected planSharedContributions(): void {
    const declaredShared = new Map<string, Declared>();
    for (const d of this.declared.values()) {
      const row = this.existingOf.get(d.ref.id);
      if (d.shared && row !== undefined) declaredShared.set(row._uuid, d);
    }
    for (const table of this.scopeTables()) {
      const refCols = this.contributionColumns(table);
      if (refCols.length === 0) continue;
      for (const row of this.snap.table(table).values()) {
        if (ownerOf(row, this.ownerKey) !== undefined || this.dying.has(row._uuid)) continue;
        const d = declaredShared.get(row._uuid);
        if (d === undefined && this.matched.has(row._uuid)) continue; // adopted: planned as owned
        for (const c of refCols) {
          const keep = new Set<string>(
            d === undefined ? [] : (setAtoms(this.resolveValue(d.row[c], d, c)) as string[]),
          );
          const drop: string[] = [];
          for (const u of setAtoms(row[c]) as string[]) {
            if (this.owned.has(u) && !keep.has(u)) drop.push(u);
          }
          if (drop.length === 0) continue;
          mutation(this.edit(table, row._uuid), c).remove.push(...drop);
          if (d === undefined) this.dropsFrom.add(row._uuid);
        }
      }
    }
  }
}

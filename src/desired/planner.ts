/**
 * {@link planDesired} and the planner behind it (see `plan.ts` for the
 * rules a plan follows).
 * @module
 */

import type { TableMap } from '../ovsdb/schema/model.js';
import type { ColumnSchema } from '../ovsdb/schema/schema-types.js';
import { defaultValue } from '../ovsdb/values/datum.js';
import { newUuid } from '../ovsdb/values/uuid.js';
import { columnValueProblem } from '../ovsdb/values/validators.js';
import { setOwn } from '../ovsdb/wire/json.js';
import { DesiredStateError } from './errors.js';
import { Guarding, mutation } from './guards.js';
import { childTableOf } from './keys.js';
import { ownerOf } from './matching.js';
import {
  type Create,
  type Delete,
  type Edit,
  Plan,
  type PlannedChange,
  type PlanOptions,
} from './plan.js';
import type { AnyRow, DesiredReader } from './snapshot.js';
import type { Declared, DesiredState, KeyRef } from './state.js';
import { mapDiff, setAtoms, setDiff, valuesEqual } from './values.js';

/**
 * Compare `state` with the replica and return the {@link Plan}. No I/O.
 * @throws DesiredStateError for a reference to a key that exists neither
 *   in the desired set nor in the database, a value the schema refuses, a
 *   declared row that another owner (or nobody, without `adopt`) holds, a
 *   delete that would take another owner's rows with it, a parent chain
 *   that never reaches a root row, or a table the client does not monitor.
 */
export function planDesired<DB extends TableMap>(
  reader: DesiredReader<DB>,
  state: DesiredState<DB>,
  options: PlanOptions = {},
): Plan {
  return new Planner(
    reader as unknown as DesiredReader<TableMap>,
    state as unknown as DesiredState<TableMap>,
    options,
  ).run();
}

/**
 * @internal What a full plan read, kept by a {@link DesiredReconciler} to
 * plan only what changed after it: the existing row each declaration
 * matched, the declaration of each matched row, the owner's rows, and the
 * owner's rows of each root table.
 */
export interface PlanBase {
  readonly existingOf: Map<string, AnyRow>;
  readonly declOfUuid: Map<string, Declared>;
  readonly owned: Map<string, string>;
  readonly ownedRoots: Map<string, string[]>;
}

/** @internal An incremental plan cannot be made; the reason says why (a full plan is made instead). */
export class NeedsFullPlan extends Error {}

/** @internal {@link planDesired}, also returning what it read, for later incremental plans. */
export function planWithBase(
  reader: DesiredReader<TableMap>,
  state: DesiredState<TableMap>,
  options: PlanOptions,
): { plan: Plan; base: PlanBase } {
  const p = new Planner(reader, state, options);
  const plan = p.run();
  return { plan, base: p.base() };
}

/**
 * @internal The plan of the declarations `changed` only, every other
 * declaration being known to match the database since the full plan that
 * made `base` (the rows that changed since are among `changed`). It is the
 * plan a full plan would make, for the updates of existing rows the owner
 * holds; anything else throws {@link NeedsFullPlan}.
 */
export function planChanged(
  reader: DesiredReader<TableMap>,
  state: DesiredState<TableMap>,
  options: PlanOptions,
  base: PlanBase,
  changed: ReadonlyMap<string, Declared>,
): Plan {
  return new Planner(reader, state, options, { base, changed }).run();
}

class Planner extends Guarding {
  constructor(
    reader: DesiredReader<TableMap>,
    state: DesiredState<TableMap>,
    options: PlanOptions,
    private readonly incremental?: {
      readonly base: PlanBase;
      readonly changed: ReadonlyMap<string, Declared>;
    },
  ) {
    super(reader, state, options);
  }

  /** What this (full) plan read. */
  base(): PlanBase {
    return {
      existingOf: this.existingOf,
      declOfUuid: this.declOfUuid,
      owned: this.owned,
      ownedRoots: this.ownedRoots,
    };
  }

  private readonly createdChanges: (PlannedChange & { action: 'create' })[] = [];
  private readonly deletes: Delete[] = [];
  private readonly deleteChanges: PlannedChange[] = [];
  /** Declared children per existing/new parent UUID (with its table) and column. */
  private readonly children = new Map<
    string,
    { readonly table: string; readonly cols: Map<string, Set<string>> }
  >();

  run(): Plan {
    if (this.incremental !== undefined) return this.runChanged(this.incremental);
    this.findOwned();
    for (const d of this.declared.values()) {
      if (!d.shared && this.tables[d.table]!.isRoot && !this.ownedRoots.has(d.table)) {
        this.ownedRoots.set(d.table, []);
      }
    }
    this.matchDeclared();
    this.checkParentChains();
    this.checkChildrenColumns();
    for (const d of this.declared.values()) this.planRow(d);
    this.planDeletes();
    this.checkRequired();
    this.planSharedContributions();
    this.weakRefsToDying();
    this.addParentGuards();
    this.guardMutations();
    return this.finish();
  }

  /**
   * The incremental plan (see {@link planChanged}). What it leaves out of a
   * full plan holds because nothing but updates of the owner's declared rows
   * happened since the base (the reconciler makes a full plan after any
   * insert, delete, change of a key, an owner mark or a children column):
   * no row to delete, cascade or adopt; no child to link or move; no
   * contribution of an unmarked row to drop; the same owned root rows.
   */
  private runChanged(inc: {
    readonly base: PlanBase;
    readonly changed: ReadonlyMap<string, Declared>;
  }): Plan {
    if (this.options.guardReads === true) throw new NeedsFullPlan('guardReads');
    for (const [t, list] of inc.base.ownedRoots) this.ownedRoots.set(t, [...list]);
    for (const d of inc.changed.values()) {
      const was = inc.base.existingOf.get(d.ref.id);
      const schema = this.tables[d.table]!;
      if (d.shared) throw new NeedsFullPlan(`${d.ref.toString()} is shared`);
      if (was === undefined) {
        this.newRow(d, inc.base, inc.changed);
        continue;
      }
      if (schema.columns['external_ids'] === undefined) {
        throw new NeedsFullPlan(`${d.table} has no owner mark`);
      }
      const before = inc.base.declOfUuid.get(was._uuid);
      if (
        before === undefined ||
        before.ref.id !== d.ref.id ||
        before.parent?.id !== d.parent?.id ||
        before.parentColumn !== d.parentColumn
      ) {
        throw new NeedsFullPlan(`${d.ref.toString()} has another parent`);
      }
      for (const c of Object.keys(d.row)) {
        if (
          d.row[c] !== undefined &&
          childTableOf(this.state.model.schema, schema.columns[c]!) !== undefined
        ) {
          throw new NeedsFullPlan(`${d.ref.toString()} declares its children column ${c}`);
        }
      }
      const row = this.snap.row(d.table, was._uuid);
      if (row === undefined || ownerOf(row, this.ownerKey) !== this.owner) {
        throw new NeedsFullPlan(`${d.ref.toString()} is gone or not the owner's`);
      }
      this.existingOf.set(d.ref.id, row);
      this.uuidOf.set(d.ref.id, row._uuid);
      this.matched.add(row._uuid);
      this.declOfUuid.set(row._uuid, d);
      this.owned.set(row._uuid, d.table);
    }
    this.declared = inc.changed;
    for (const d of inc.changed.values()) this.planRow(d);
    // Only new children need a link: the others were linked as the base found them.
    for (const [parent, entry] of this.children) {
      for (const [col, set] of entry.cols) {
        for (const u of set) if (this.matched.has(u)) set.delete(u);
        if (set.size === 0) entry.cols.delete(col);
      }
      if (entry.cols.size === 0) this.children.delete(parent);
    }
    this.linkChildren();
    this.checkRequired();
    this.guardMutations();
    return this.finish();
  }

  /**
   * A new declaration in an incremental plan: its key must be a schema index
   * (looked up, not scanned) that no row holds, and its parent a row the
   * base matched; anything else is left to a full plan.
   */
  private newRow(d: Declared, base: PlanBase, changed: ReadonlyMap<string, Declared>): void {
    const spec = this.state.keys.get(d.table)!;
    if (!spec.unique || spec.scoped) {
      throw new NeedsFullPlan(`${d.ref.toString()} is new and its key is not a schema index`);
    }
    const found = this.snap.lookup(d.table, d.ref.key);
    if (found !== undefined) {
      throw new NeedsFullPlan(
        `${d.ref.toString()} is new, and a row has its key or it cannot be looked up`,
      );
    }
    if (d.parent !== undefined) {
      const p = base.existingOf.get(d.parent.id);
      if (p === undefined || !this.state.declared.has(d.parent.id) || changed.has(d.parent.id)) {
        throw new NeedsFullPlan(`${d.ref.toString()} is new in a parent that is new or changed`);
      }
    }
    if (this.tables[d.table]!.isRoot && !this.ownedRoots.has(d.table)) {
      this.ownedRoots.set(d.table, []);
    }
    this.uuidOf.set(d.ref.id, newUuid());
  }

  /** The declaration of an existing row: of this plan, or for an incremental plan of its base. */
  protected override declOf(uuid: string): Declared | undefined {
    return this.declOfUuid.get(uuid) ?? this.incremental?.base.declOfUuid.get(uuid);
  }

  /** A declared row outside an incremental plan resolves to the row the base matched. */
  protected override resolve(ref: KeyRef, from: Declared, column: string): string {
    const inc = this.incremental;
    if (inc !== undefined && !this.uuidOf.has(ref.id) && this.state.declared.has(ref.id)) {
      const row = inc.base.existingOf.get(ref.id);
      if (row !== undefined) return row._uuid;
    }
    return super.resolve(ref, from, column);
  }

  private finish(): Plan {
    const updates: PlannedChange[] = [];
    for (const e of this.edits.values()) {
      if (e.set.size === 0 && e.mutate.size === 0) continue;
      updates.push(this.updateChange(e));
    }
    // Edits with nothing to write are not sent (nor their guards).
    for (const [uuid, e] of this.edits)
      if (e.set.size === 0 && e.mutate.size === 0) this.edits.delete(uuid);
    this.guardContributions();
    const byTableKey = (a: PlannedChange, b: PlannedChange): number =>
      a.table < b.table ? -1 : a.table > b.table ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
    const changes = [
      ...this.createdChanges.map((c) => this.namedCreate(c)).sort(byTableKey),
      ...updates.sort(byTableKey),
      ...this.deleteChanges.sort(byTableKey),
    ];
    return new Plan(
      this.owner,
      changes,
      this.creates,
      this.edits,
      this.deletes,
      this.ownedRoots,
      this.ownerKey,
      this.readGuards(),
      this.sharedReads,
    );
  }

  /** A new row gives every column whose default its own constraints refuse (an ACL's action, say). */
  private checkRequired(): void {
    for (const c of this.creates) {
      const schema = this.tables[c.table]!;
      for (const name of schema.columnNames) {
        if (c.row[name] !== undefined) continue;
        const column = schema.columns[name]!;
        const problem = columnValueProblem(column, defaultValue(column));
        if (problem === undefined) continue;
        throw new DesiredStateError(
          'bad-value',
          `${c.key} is new and does not give ${name}, whose default is refused (${problem})`,
          { table: c.table, column: name, key: c.key },
        );
      }
    }
  }

  private addChild(parentTable: string, parentUuid: string, column: string, child: string): void {
    let entry = this.children.get(parentUuid);
    if (entry === undefined) {
      entry = { table: parentTable, cols: new Map() };
      this.children.set(parentUuid, entry);
    }
    const cols = entry.cols;
    let set = cols.get(column);
    if (set === undefined) {
      set = new Set();
      cols.set(column, set);
    }
    set.add(child);
  }

  private planRow(d: Declared): void {
    const schema = this.tables[d.table]!;
    const uuid = this.uuidOf.get(d.ref.id)!;
    const existing = this.existingOf.get(d.ref.id);
    const values: Record<string, unknown> = {};
    for (const c of Object.keys(d.row)) {
      const raw = d.row[c];
      if (raw === undefined) continue;
      const v = this.resolveValue(raw, d, c);
      const problem = columnValueProblem(schema.columns[c]!, v);
      if (problem !== undefined) {
        throw new DesiredStateError('bad-value', `${d.ref.toString()}.${c}: ${problem}`, {
          table: d.table,
          column: c,
          key: d.ref.toString(),
        });
      }
      setOwn(values, c, v);
    }
    let parentUuid: string | undefined;
    if (d.parent !== undefined) {
      parentUuid = this.resolve(d.parent, d, 'in');
    }
    if (!d.shared && schema.columns['external_ids'] !== undefined) {
      // Declared external_ids are the whole map; otherwise the row keeps its pairs and gains the mark.
      const declared = values['external_ids'] as Record<string, string> | undefined;
      const ext =
        declared ?? (existing?.['external_ids'] as Record<string, string> | undefined) ?? {};
      // An existing row that already carries the mark keeps its map as it is (nothing to copy).
      values['external_ids'] =
        declared === undefined && existing !== undefined && ext[this.ownerKey] === this.owner
          ? ext
          : { ...ext, [this.ownerKey]: this.owner };
    }
    if (existing === undefined) {
      const spec = this.state.keys.get(d.table)!;
      let absentKey: Record<string, unknown> | undefined;
      if (!spec.unique && !spec.scoped) {
        absentKey = {};
        for (const c of spec.columns) absentKey[c] = values[c];
      }
      const parentNew = parentUuid !== undefined && !this.matched.has(parentUuid);
      const create: Create = {
        key: d.ref.toString(),
        table: d.table,
        uuid,
        row: values,
        absentKey,
        parent:
          parentUuid === undefined
            ? undefined
            : { table: d.parent!.table, uuid: parentUuid, column: d.parentColumn! },
        parentNew,
      };
      this.creates.push(create);
      if (parentUuid !== undefined) {
        this.addChild(d.parent!.table, parentUuid, d.parentColumn!, uuid);
        if (spec.scoped && !parentNew) {
          let cols = this.scopedParents.get(parentUuid);
          if (cols === undefined) {
            cols = new Set();
            this.scopedParents.set(parentUuid, cols);
          }
          cols.add(d.parentColumn!);
        }
      }
      this.createdChanges.push({
        action: 'create',
        table: d.table,
        key: d.ref.toString(),
        uuid,
        row: values,
        ...(create.parent === undefined ? {} : { parent: create.parent }),
      });
      return;
    }
    if (parentUuid !== undefined) {
      this.addChild(d.parent!.table, parentUuid, d.parentColumn!, uuid);
    }
    // Made only when a column differs: most rows of a large state are unchanged.
    let e: Edit | undefined;
    for (const c of Object.keys(values)) {
      const column = schema.columns[c]!;
      const want = values[c];
      const have = existing[c];
      if (d.shared) {
        e ??= this.edit(d.table, uuid);
        this.contribute(e, column, have, want);
        continue;
      }
      if (valuesEqual(column, have, want)) continue;
      if (!column.mutable) {
        throw new DesiredStateError(
          'immutable-column',
          `${d.ref.toString()}.${c} is immutable and differs (${JSON.stringify(have)} in the database): the row must be deleted and created again`,
          { table: d.table, column: c, key: d.ref.toString() },
        );
      }
      e ??= this.edit(d.table, uuid);
      if (column.type.kind === 'scalar' || column.type.kind === 'optional') {
        e.set.set(c, want);
        e.guard.set(c, have);
      } else if (column.type.kind === 'set') {
        const { insert, remove } = setDiff(have, want);
        e.mutate.set(c, { remove, insert });
      } else {
        const { insert, remove } = mapDiff(have, want);
        e.mutate.set(c, { remove, insert });
      }
    }
    if (d.shared) this.edit(d.table, uuid);
  }

  /** A shared row: add the declared elements; scalars count only at creation. */
  private contribute(e: Edit, column: ColumnSchema, have: unknown, want: unknown): void {
    if (column.type.kind === 'set') {
      const { insert } = setDiff(have, want);
      if (insert.length > 0) e.mutate.set(column.name, { remove: [], insert });
    } else if (column.type.kind === 'map') {
      const { insert } = mapDiff(have, want);
      // Only keys the row lacks: a shared row's existing pairs are not overwritten.
      const cur = (have ?? {}) as Record<string, unknown>;
      const add: Record<string, unknown> = {};
      for (const k of Object.keys(insert)) if (!Object.hasOwn(cur, k)) setOwn(add, k, insert[k]);
      if (Object.keys(add).length > 0) e.mutate.set(column.name, { remove: [], insert: add });
    }
  }

  private planDeletes(): void {
    // Which owned rows no declaration matched.
    const gone: [string, string][] = [];
    for (const [uuid, table] of this.owned) if (!this.matched.has(uuid)) gone.push([uuid, table]);
    for (const [uuid] of gone) this.dying.add(uuid);
    // A child row whose only holders are dying goes with them.
    const cascade = (table: string, uuid: string): void => {
      const schema = this.tables[table]!;
      const row = this.snap.row(table, uuid);
      if (row === undefined) return;
      for (const c of schema.columnNames) {
        const ref = childTableOf(this.state.model.schema, schema.columns[c]!);
        if (ref === undefined || !this.snap.monitored(ref)) continue;
        for (const cu of setAtoms(row[c]) as string[]) {
          if (this.dying.has(cu)) continue;
          const holders = this.snap.holdersOf(ref, cu);
          if (holders.some((h) => !this.dying.has(h.uuid))) continue;
          const crow = this.snap.row(ref, cu);
          if (crow !== undefined && this.matched.has(cu)) {
            // A declared child whose declared parent lives moves there (linked in the same plan).
            const decl = this.declOfUuid.get(cu);
            const to = decl?.parent === undefined ? undefined : this.uuidOf.get(decl.parent.id);
            if (to !== undefined && !this.dying.has(to)) continue;
            throw new DesiredStateError(
              'dangling-reference',
              `${this.keyText(ref, crow)} is declared, but its parent ${this.keyText(table, row)} is not and is deleted`,
              { table: ref, key: this.keyText(ref, crow) },
            );
          }
          if (crow !== undefined && this.rowOwner(ref, crow) !== this.owner) {
            const other = this.rowOwner(ref, crow);
            throw new DesiredStateError(
              'owned-by-other',
              `deleting ${this.keyText(table, row)} would delete ${this.keyText(ref, crow)}, which ${other === undefined ? 'carries no owner mark' : `is owned by ${JSON.stringify(other)}`}`,
              { table: ref, key: this.keyText(ref, crow), owner: other },
            );
          }
          this.dying.add(cu);
          this.cascaded.add(cu);
          cascade(ref, cu);
        }
      }
    };
    for (const [uuid, table] of gone) cascade(table, uuid);
    for (const [uuid, table] of gone) {
      const row = this.snap.row(table, uuid)!;
      const key = this.keyText(table, row);
      if (this.tables[table]!.isRoot) {
        const guard = new Map<string, unknown>();
        guard.set('external_ids', row['external_ids']);
        this.deletes.push({ table, uuid, guard });
        this.deleteChanges.push({ action: 'delete', table, key, uuid, how: 'delete' });
        continue;
      }
      if (this.cascaded.has(uuid)) {
        this.deleteChanges.push({ action: 'delete', table, key, uuid, how: 'cascade' });
        continue;
      }
      const holders = this.snap.holdersOf(table, uuid).filter((h) => !this.dying.has(h.uuid));
      for (const h of holders) {
        mutation(this.edit(h.table, h.uuid), h.column).remove.push(uuid);
      }
      this.deleteChanges.push({
        action: 'delete',
        table,
        key,
        uuid,
        how: holders.length === 0 ? 'cascade' : 'unlink',
      });
    }
    this.linkChildren();
    // A declared existing child held by a parent other than the declared one moves.
    for (const d of this.declared.values()) {
      const row = this.existingOf.get(d.ref.id);
      if (row === undefined || d.parent === undefined) continue;
      const want = this.uuidOf.get(d.parent.id) ?? this.resolve(d.parent, d, 'in');
      for (const h of this.snap.holdersOf(d.table, row._uuid)) {
        if (h.uuid === want && h.column === d.parentColumn) continue;
        if (this.dying.has(h.uuid)) continue;
        if (this.children.get(h.uuid)?.cols.get(h.column)?.has(row._uuid) === true) continue;
        mutation(this.edit(h.table, h.uuid), h.column).remove.push(row._uuid);
      }
    }
    for (const uuid of this.dying) this.edits.delete(uuid);
  }

  /** Children links of existing parents: new children are added to them (new parents insert theirs). */
  private linkChildren(): void {
    const created = new Map(this.creates.map((c) => [c.uuid, c]));
    for (const [parent, { table: ptable, cols }] of this.children) {
      const create = created.get(parent);
      if (create !== undefined) {
        // A new parent: its children go into its insert.
        for (const [col, set] of cols) {
          const cur = setAtoms(create.row[col]);
          setOwn(create.row, col, setAtoms([...cur, ...set]));
        }
        continue;
      }
      const prow = this.snap.row(ptable, parent)!;
      for (const [col, set] of cols) {
        const cur = prow[col];
        const have = new Set<unknown>(
          Array.isArray(cur) ? cur : cur === null || cur === undefined ? [] : [cur],
        );
        const add = [...set].filter((u) => !have.has(u));
        if (add.length === 0) continue;
        (mutation(this.edit(ptable, parent), col).insert as unknown[]).push(...add);
      }
    }
  }

  /**
   * Weak references to rows this plan deletes. The server drops them from a
   * row the transaction does not otherwise write, so there they cost no
   * operation; but a row the transaction writes keeps them (ovsdb-server
   * leaves a weak reference to a row deleted in the same transaction in a
   * row that transaction modifies), so a row written anyway has them
   * removed in its own mutate.
   */
  private weakRefsToDying(): void {
    for (const e of this.edits.values()) {
      const schema = this.tables[e.table]!;
      const dead = new Map<string, unknown[]>();
      for (const [col, m] of e.mutate) {
        if (schema.columns[col]!.type.key.refType !== 'weak') continue;
        const gone = m.remove.filter((u) => this.dying.has(u as string));
        if (gone.length === 0) continue;
        dead.set(col, gone);
        m.remove = m.remove.filter((u) => !this.dying.has(u as string));
        if (m.remove.length === 0 && (m.insert as unknown[]).length === 0) e.mutate.delete(col);
      }
      if (dead.size === 0 || (e.set.size === 0 && e.mutate.size === 0)) continue;
      for (const [col, gone] of dead) mutation(e, col).remove.push(...gone);
    }
  }

  private readonly cascaded = new Set<string>();
}

/**
 * {@link planDesired} and the planner behind it (see `plan.ts` for the
 * rules a plan follows).
 * @module
 */

import type { TableMap } from '../../ovsdb/schema/model.js';
import type { ColumnSchema, TableSchema } from '../../ovsdb/schema/schema-types.js';
import { defaultValue } from '../../ovsdb/values/datum.js';
import { newUuid } from '../../ovsdb/values/uuid.js';
import { columnValueProblem } from '../../ovsdb/values/validators.js';
import { DesiredStateError } from './errors.js';
import {
  type ColumnChange,
  type Create,
  type Delete,
  type Edit,
  Plan,
  type PlannedChange,
  type PlanOptions,
} from './plan.js';
import { type AnyRow, type DesiredReader, Snapshot } from './snapshot.js';
import { type Declared, type DesiredState, KeyRef } from './state.js';
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

function ownerOf(row: AnyRow, ownerKey: string): string | undefined {
  const ext = row['external_ids'] as Readonly<Record<string, string>> | undefined;
  return ext === undefined || ext === null ? undefined : ext[ownerKey];
}

function isRefColumn(column: ColumnSchema): boolean {
  return column.type.key.refTable !== undefined && column.type.value === undefined;
}

class Planner {
  private readonly snap: Snapshot;
  private readonly tables: Readonly<Record<string, TableSchema>>;
  private readonly owner: string;
  private readonly ownerKey: string;
  /** Declared row id → its UUID (existing or new). */
  private readonly uuidOf = new Map<string, string>();
  /** Declared row id → the existing row, when it exists. */
  private readonly existingOf = new Map<string, AnyRow>();
  /** UUIDs of existing rows matched by a declaration. */
  private readonly matched = new Set<string>();
  /** The owner's rows per root table in scope (guarded by an apply). */
  private readonly ownedRoots = new Map<string, string[]>();
  /** Existing row UUID → its declaration. */
  private readonly declOfUuid = new Map<string, Declared>();
  private readonly edits = new Map<string, Edit>();
  private readonly creates: Create[] = [];
  private readonly createdChanges: PlannedChange[] = [];
  private readonly deletes: Delete[] = [];
  private readonly deleteChanges: PlannedChange[] = [];
  /** Existing rows that this plan deletes (directly, by unlinking, or with a deleted parent). */
  private readonly dying = new Set<string>();
  /** The owner's rows (undeclared ones are deleted), by UUID, with their table. */
  private readonly owned = new Map<string, string>();
  /** Declared children per existing/new parent UUID and column. */
  private readonly children = new Map<string, Map<string, Set<string>>>();
  /** Parents that get a scoped child created: guard their children column. */
  private readonly scopedParents = new Map<string, Set<string>>();

  constructor(
    reader: DesiredReader<TableMap>,
    private readonly state: DesiredState<TableMap>,
    private readonly options: PlanOptions,
  ) {
    this.snap = new Snapshot(reader, state.model.schema, state.keys);
    this.tables = state.model.schema.tables;
    this.owner = state.owner;
    this.ownerKey = state.ownerKey;
  }

  run(): Plan {
    this.findOwned();
    for (const d of this.state.declared.values()) {
      if (!d.shared && this.tables[d.table]!.isRoot && !this.ownedRoots.has(d.table)) {
        this.ownedRoots.set(d.table, []);
      }
    }
    this.matchDeclared();
    this.checkParentChains();
    this.checkChildrenColumns();
    for (const d of this.state.declared.values()) this.planRow(d);
    this.planDeletes();
    this.checkRequired();
    this.planSharedContributions();
    this.weakRefsToDying();
    this.addParentGuards();
    this.guardMutations();
    const updates: PlannedChange[] = [];
    for (const e of this.edits.values()) {
      if (e.set.size === 0 && e.mutate.size === 0) continue;
      updates.push(this.updateChange(e));
    }
    // Edits with nothing to write are not sent (nor their guards).
    for (const [uuid, e] of this.edits)
      if (e.set.size === 0 && e.mutate.size === 0) this.edits.delete(uuid);
    const byTableKey = (a: PlannedChange, b: PlannedChange): number =>
      a.table < b.table ? -1 : a.table > b.table ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
    const changes = [
      ...this.createdChanges.sort(byTableKey),
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
    );
  }

  private keyText(table: string, row: AnyRow): string {
    const spec = this.state.keys.get(table);
    if (spec === undefined) return `${table}{_uuid=${row._uuid}}`;
    const key: Record<string, unknown> = {};
    for (const c of spec.columns) key[c] = row[c];
    let parent: KeyRef | undefined;
    if (spec.scoped) {
      const h = this.snap.holdersOf(table, row._uuid)[0];
      const p = h === undefined ? undefined : this.snap.row(h.table, h.uuid);
      if (h !== undefined && p !== undefined) {
        const pspec = this.state.keys.get(h.table);
        const pkey: Record<string, unknown> = {};
        for (const c of pspec?.columns ?? []) pkey[c] = p[c];
        parent = new KeyRef(h.table, pkey);
      }
    }
    return new KeyRef(table, key, parent).toString();
  }

  private scopeTables(): string[] {
    if (this.options.tables !== undefined) return [...this.options.tables];
    return Object.keys(this.tables).filter(
      (t) => this.tables[t]!.columns['external_ids']?.type.kind === 'map' && this.snap.monitored(t),
    );
  }

  private findOwned(): void {
    for (const t of this.scopeTables()) {
      const root = this.tables[t]!.isRoot;
      const mine: string[] = [];
      for (const row of this.snap.table(t).values()) {
        if (ownerOf(row, this.ownerKey) === this.owner) {
          this.owned.set(row._uuid, t);
          if (root) mine.push(row._uuid);
        }
      }
      // Guarded: the tables the owner has rows in, or declares rows of (see run()).
      if (root && mine.length > 0) this.ownedRoots.set(t, mine);
    }
    // Child rows of tables without external_ids belong to the owner of the parent that holds them.
    for (const t of this.markless()) {
      for (const row of this.snap.table(t).values()) {
        if (this.rowOwner(t, row) === this.owner) this.owned.set(row._uuid, t);
      }
    }
  }

  /** With `guardReads`: the owner's rows per table with an owner mark, and their versions. */
  private readGuards(): Map<string, [string, string][]> | undefined {
    if (this.options.guardReads !== true) return undefined;
    const out = new Map<string, [string, string][]>();
    for (const t of this.ownedRoots.keys()) out.set(t, []);
    for (const [uuid, table] of this.owned) {
      if (this.tables[table]!.columns['external_ids'] === undefined) continue;
      const row = this.snap.row(table, uuid);
      if (row === undefined) continue;
      let list = out.get(table);
      if (list === undefined) {
        list = [];
        out.set(table, list);
      }
      list.push([uuid, row['_version'] as string]);
    }
    return out;
  }

  /** The monitored non-root tables without an external_ids column. */
  private markless(): string[] {
    return Object.keys(this.tables).filter((t) => {
      const s = this.tables[t]!;
      return !s.isRoot && s.columns['external_ids'] === undefined && this.snap.monitored(t);
    });
  }

  /** The owner of a row: its mark, or for a child row without external_ids its holder's owner. */
  private rowOwner(table: string, row: AnyRow, depth = 0): string | undefined {
    if (this.tables[table]!.columns['external_ids'] !== undefined || depth > 8) {
      return ownerOf(row, this.ownerKey);
    }
    for (const h of this.snap.holdersOf(table, row._uuid)) {
      const p = this.snap.row(h.table, h.uuid);
      const o = p === undefined ? undefined : this.rowOwner(h.table, p, depth + 1);
      if (o !== undefined) return o;
    }
    return undefined;
  }

  private matchDeclared(): void {
    for (const d of this.state.declared.values()) {
      const found = this.snap.byKey(d.ref);
      let row: AnyRow | undefined;
      if (found.length > 1) {
        const mine = found.filter((r) => this.rowOwner(d.table, r) === this.owner);
        if (mine.length !== 1) {
          throw new DesiredStateError(
            'duplicate-key',
            `${d.ref.toString()}: ${found.length} rows in the database have this key, so it names no single row`,
            { table: d.table, key: d.ref.toString() },
          );
        }
        row = mine[0];
      } else row = found[0];
      if (row !== undefined) {
        if (!d.shared) {
          const mark = this.rowOwner(d.table, row);
          if (mark !== undefined && mark !== this.owner) {
            throw new DesiredStateError(
              'owned-by-other',
              `${d.ref.toString()} exists and is owned by ${JSON.stringify(mark)} (external_ids:${this.ownerKey})`,
              { table: d.table, key: d.ref.toString(), owner: mark },
            );
          }
          if (mark === undefined && !d.adopt) {
            throw new DesiredStateError(
              'unowned',
              `${d.ref.toString()} exists and carries no owner mark: pass adopt: true to take it over, or declare it shared`,
              { table: d.table, key: d.ref.toString() },
            );
          }
        }
        this.existingOf.set(d.ref.id, row);
        this.uuidOf.set(d.ref.id, row._uuid);
        this.matched.add(row._uuid);
        this.declOfUuid.set(row._uuid, d);
      } else {
        this.uuidOf.set(d.ref.id, newUuid());
      }
    }
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

  /** A parent declares its children column, or children with { in }, not both. */
  private checkChildrenColumns(): void {
    for (const d of this.state.declared.values()) {
      if (d.parent === undefined || d.parentColumn === undefined) continue;
      const p = this.state.declared.get(d.parent.id);
      if (p !== undefined && p.row[d.parentColumn] !== undefined) {
        throw new DesiredStateError(
          'children-column',
          `${p.ref.toString()} declares ${d.parentColumn}, and ${d.ref.toString()} is declared in it: declare the children with { in } only`,
          { table: p.table, column: d.parentColumn, key: p.ref.toString() },
        );
      }
    }
  }

  /** Every new child's chain of parents must end at a root row or an existing row. */
  private checkParentChains(): void {
    for (const d of this.state.declared.values()) {
      if (this.existingOf.has(d.ref.id) || d.parent === undefined) continue;
      const seen = new Set<string>([d.ref.id]);
      let p: KeyRef | undefined = d.parent;
      while (p !== undefined) {
        if (seen.has(p.id)) {
          throw new DesiredStateError(
            'cycle',
            `${d.ref.toString()}: its parents form a cycle (${[...seen].length} rows) that no root row holds, so the server would delete them at commit`,
            { table: d.table, key: d.ref.toString() },
          );
        }
        seen.add(p.id);
        const pd = this.state.declared.get(p.id);
        if (pd === undefined || this.existingOf.has(p.id) || this.tables[pd.table]!.isRoot) break;
        p = pd.parent;
      }
    }
  }

  /** The UUID a reference names. */
  private resolve(ref: KeyRef, from: Declared, column: string): string {
    const declared = this.uuidOf.get(ref.id);
    if (declared !== undefined) return declared;
    if (this.tables[ref.table] === undefined) {
      throw new DesiredStateError(
        'dangling-reference',
        `${from.ref.toString()}.${column}: no table ${ref.table}`,
        {
          table: from.table,
          column,
          key: from.ref.toString(),
        },
      );
    }
    const rows = this.snap.byKey(ref);
    if (rows.length === 0) {
      throw new DesiredStateError(
        'dangling-reference',
        `${from.ref.toString()}.${column} references ${ref.toString()}, which is neither declared nor in the database`,
        { table: from.table, column, key: from.ref.toString() },
      );
    }
    if (rows.length > 1) {
      throw new DesiredStateError(
        'dangling-reference',
        `${from.ref.toString()}.${column} references ${ref.toString()}, and ${rows.length} rows have that key`,
        { table: from.table, column, key: from.ref.toString() },
      );
    }
    const row = rows[0]!;
    if (this.owned.has(row._uuid)) {
      throw new DesiredStateError(
        'dangling-reference',
        `${from.ref.toString()}.${column} references ${ref.toString()}, which is owned by ${JSON.stringify(this.owner)} and not declared, so this plan deletes it`,
        { table: from.table, column, key: from.ref.toString() },
      );
    }
    return row._uuid;
  }

  private resolveValue(v: unknown, d: Declared, column: string): unknown {
    if (v instanceof KeyRef) return this.resolve(v, d, column);
    if (!Array.isArray(v) || !v.some((e) => e instanceof KeyRef)) return v;
    return v.map((e) => (e instanceof KeyRef ? this.resolve(e, d, column) : e));
  }

  /**
   * The edit of an existing row, made on first use. A declared row the
   * owner holds is guarded on its owner mark (the `external_ids` the plan
   * read).
   */
  private edit(table: string, uuid: string): Edit {
    let e = this.edits.get(uuid);
    if (e === undefined) {
      e = { table, uuid, set: new Map(), mutate: new Map(), guard: new Map() };
      const d = this.declOfUuid.get(uuid);
      if (
        d !== undefined &&
        !d.shared &&
        this.tables[table]!.columns['external_ids'] !== undefined
      ) {
        e.guard.set('external_ids', this.existingOf.get(d.ref.id)!['external_ids']);
      }
      this.edits.set(uuid, e);
    }
    return e;
  }

  private addChild(parentUuid: string, column: string, child: string): void {
    let cols = this.children.get(parentUuid);
    if (cols === undefined) {
      cols = new Map();
      this.children.set(parentUuid, cols);
    }
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
      setMember(values, c, v);
    }
    let parentUuid: string | undefined;
    if (d.parent !== undefined) {
      parentUuid = this.resolve(d.parent, d, 'in');
      if (this.dying.has(parentUuid)) {
        throw new DesiredStateError(
          'dangling-reference',
          `${d.ref.toString()}: its parent is deleted`,
          {
            table: d.table,
            key: d.ref.toString(),
          },
        );
      }
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
        this.addChild(parentUuid, d.parentColumn!, uuid);
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
      this.addChild(parentUuid, d.parentColumn!, uuid);
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
      for (const k of Object.keys(insert)) if (!Object.hasOwn(cur, k)) setMember(add, k, insert[k]);
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
        const col = schema.columns[c]!;
        const ref = col.type.key.refTable;
        if (ref === undefined || col.type.key.refType === 'weak' || col.type.value !== undefined)
          continue;
        const child = this.tables[ref];
        if (child === undefined || child.isRoot || !this.snap.monitored(ref)) continue;
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
        const e = this.edit(h.table, h.uuid);
        const m = e.mutate.get(h.column) ?? { remove: [], insert: [] };
        m.remove.push(uuid);
        e.mutate.set(h.column, m);
      }
      this.deleteChanges.push({
        action: 'delete',
        table,
        key,
        uuid,
        how: holders.length === 0 ? 'cascade' : 'unlink',
      });
    }
    // Children links of existing parents: add new children, move children held elsewhere.
    const created = new Map(this.creates.map((c) => [c.uuid, c]));
    for (const [parent, cols] of this.children) {
      if (!this.matched.has(parent) && !this.isExisting(parent)) {
        // A new parent: its children go into its insert.
        const create = created.get(parent)!;
        for (const [col, set] of cols) {
          const cur = setAtoms(create.row[col]);
          setMember(create.row, col, setAtoms([...cur, ...set]));
        }
        continue;
      }
      const prow = this.findRow(parent)!;
      for (const [col, set] of cols) {
        const cur = prow.row[col];
        const have = new Set<unknown>(
          Array.isArray(cur) ? cur : cur === null || cur === undefined ? [] : [cur],
        );
        const add = [...set].filter((u) => !have.has(u));
        if (add.length === 0) continue;
        const e = this.edit(prow.table, parent);
        const m = e.mutate.get(col) ?? { remove: [], insert: [] };
        (m.insert as unknown[]).push(...add);
        e.mutate.set(col, m);
      }
    }
    // A declared existing child held by a parent other than the declared one moves.
    for (const d of this.state.declared.values()) {
      const row = this.existingOf.get(d.ref.id);
      if (row === undefined || d.parent === undefined) continue;
      const want = this.uuidOf.get(d.parent.id) ?? this.resolve(d.parent, d, 'in');
      for (const h of this.snap.holdersOf(d.table, row._uuid)) {
        if (h.uuid === want && h.column === d.parentColumn) continue;
        if (this.dying.has(h.uuid)) continue;
        if (this.children.get(h.uuid)?.get(h.column)?.has(row._uuid) === true) continue;
        const e = this.edit(h.table, h.uuid);
        const m = e.mutate.get(h.column) ?? { remove: [], insert: [] };
        m.remove.push(row._uuid);
        e.mutate.set(h.column, m);
      }
    }
    for (const uuid of this.dying) this.edits.delete(uuid);
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
      for (const [col, gone] of dead) {
        const m = e.mutate.get(col) ?? { remove: [], insert: [] };
        m.remove.push(...gone);
        e.mutate.set(col, m);
      }
    }
  }

  private readonly cascaded = new Set<string>();

  private isExisting(uuid: string): boolean {
    return this.findRow(uuid) !== undefined;
  }

  private findRow(uuid: string): { table: string; row: AnyRow } | undefined {
    const t = this.owned.get(uuid);
    if (t !== undefined) return { table: t, row: this.snap.row(t, uuid)! };
    const d = this.declOfUuid.get(uuid);
    if (d !== undefined) return { table: d.table, row: this.existingOf.get(d.ref.id)! };
    for (const table of Object.keys(this.tables)) {
      if (!this.snap.monitored(table)) continue;
      const row = this.snap.row(table, uuid);
      if (row !== undefined) return { table, row };
    }
    return undefined;
  }

  /**
   * Unmarked rows holding references to the owner's rows: the references
   * that no shared declaration of the row keeps are the owner's old
   * contributions, and are removed.
   */
  private planSharedContributions(): void {
    const declaredShared = new Map<string, Declared>();
    for (const d of this.state.declared.values()) {
      const row = this.existingOf.get(d.ref.id);
      if (d.shared && row !== undefined) declaredShared.set(row._uuid, d);
    }
    for (const table of this.scopeTables()) {
      const schema = this.tables[table]!;
      const refCols = schema.columnNames.filter((c) => {
        const col = schema.columns[c]!;
        if (!isRefColumn(col) || col.type.kind !== 'set') return false;
        const target = this.tables[col.type.key.refTable!];
        if (target === undefined) return false;
        // Strong references to non-root rows hold children: those are planned as children.
        return col.type.key.refType === 'weak' || target.isRoot;
      });
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
          const e = this.edit(table, row._uuid);
          const m = e.mutate.get(c) ?? { remove: [], insert: [] };
          m.remove.push(...drop);
          e.mutate.set(c, m);
        }
      }
    }
  }

  /**
   * A row of the owner's that the plan mutates is guarded on the columns it
   * mutates (the values read), as on the scalars it overwrites, so that a
   * concurrent writer's change to them (another applier of the same owner)
   * trips the guard and the plan is made again, instead of two sets of
   * element changes mixing. Shared rows take contributions from several
   * owners and are guarded on their existence only.
   */
  private guardMutations(): void {
    for (const e of this.edits.values()) {
      if (e.mutate.size === 0) continue;
      const found = this.findRow(e.uuid);
      if (found === undefined) continue;
      const d = this.declOfUuid.get(e.uuid);
      const mine = d === undefined ? this.rowOwner(e.table, found.row) === this.owner : !d.shared;
      if (!mine) continue;
      for (const [c, m] of e.mutate) {
        if (e.guard.has(c)) continue;
        // A weak reference to a row this plan deletes can go before the batch that writes
        // this row (the server drops it): such a column is not guarded.
        const weak = this.tables[e.table]!.columns[c]!.type.key.refType === 'weak';
        if (weak && m.remove.some((u) => this.dying.has(u as string))) continue;
        e.guard.set(c, found.row[c]);
      }
    }
  }

  private addParentGuards(): void {
    for (const [uuid, cols] of this.scopedParents) {
      const e = this.edits.get(uuid);
      const found = this.findRow(uuid);
      if (e === undefined || found === undefined) continue;
      for (const c of cols) e.guard.set(c, found.row[c]);
    }
  }

  private updateChange(e: Edit): PlannedChange {
    const found = this.findRow(e.uuid)!;
    const columns: ColumnChange[] = [];
    for (const [c, to] of e.set) columns.push({ column: c, how: 'set', from: found.row[c], to });
    for (const [c, m] of e.mutate) {
      const insert = m.insert;
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
      });
    }
    columns.sort((a, b) => (a.column < b.column ? -1 : a.column > b.column ? 1 : 0));
    const declared = this.declOfUuid.get(e.uuid);
    return {
      action: 'update',
      table: e.table,
      key: this.keyText(e.table, found.row),
      uuid: e.uuid,
      columns,
      shared: declared?.shared === true || this.rowOwner(e.table, found.row) !== this.owner,
    };
  }
}

function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  // A plain assignment, except for a key that would set the prototype instead of a member.
  if (key !== '__proto__') obj[key] = value;
  else
    Object.defineProperty(obj, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
}

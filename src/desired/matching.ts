/**
 * The reading half of a plan: which existing rows the owner holds, which
 * row each declaration names, and the UUID each reference resolves to.
 * The guards (`guards.ts`) and the planner (`planner.ts`) build on it.
 * @module
 */

import type { TableMap } from '../ovsdb/schema/model.js';
import type { TableSchema } from '../ovsdb/schema/schema-types.js';
import { newUuid } from '../ovsdb/values/uuid.js';
import { DesiredStateError } from './errors.js';
import type { PlanOptions } from './plan.js';
import { type AnyRow, type DesiredReader, Snapshot } from './snapshot.js';
import { type Declared, type DesiredState, KeyRef } from './state.js';

/** The owner mark of `row`, if it has one. */
export function ownerOf(row: AnyRow, ownerKey: string): string | undefined {
  const ext = row['external_ids'] as Readonly<Record<string, string>> | undefined;
  return ext === undefined || ext === null ? undefined : ext[ownerKey];
}

/** The owner's rows and the rows the declarations name, read once per plan. */
export class Matching {
  protected readonly snap: Snapshot;
  protected readonly tables: Readonly<Record<string, TableSchema>>;
  protected readonly owner: string;
  protected readonly ownerKey: string;
  /** Declared row id → its UUID (existing or new). */
  protected readonly uuidOf = new Map<string, string>();
  /** Declared row id → the existing row, when it exists. */
  protected readonly existingOf = new Map<string, AnyRow>();
  /** UUIDs of existing rows matched by a declaration. */
  protected readonly matched = new Set<string>();
  /** The owner's rows per root table in scope (guarded by an apply). */
  protected readonly ownedRoots = new Map<string, string[]>();
  /** Existing row UUID → its declaration. */
  protected readonly declOfUuid = new Map<string, Declared>();
  /** The owner's rows (undeclared ones are deleted), by UUID, with their table. */
  protected readonly owned = new Map<string, string>();
  /** The declarations planned: all of the state's, or the changed ones of an incremental plan. */
  protected declared: ReadonlyMap<string, Declared>;

  constructor(
    reader: DesiredReader<TableMap>,
    protected readonly state: DesiredState<TableMap>,
    protected readonly options: PlanOptions,
  ) {
    this.snap = new Snapshot(reader, state.model.schema, state.keys);
    this.tables = state.model.schema.tables;
    this.owner = state.owner;
    this.ownerKey = state.ownerKey;
    this.declared = state.declared;
  }

  protected keyText(table: string, row: AnyRow): string {
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

  protected scopeTables(): string[] {
    if (this.options.tables !== undefined) return [...this.options.tables];
    return Object.keys(this.tables).filter(
      (t) => this.tables[t]!.columns['external_ids']?.type.kind === 'map' && this.snap.monitored(t),
    );
  }

  protected findOwned(): void {
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

  /**
   * With `guardReads`: the owner's rows and their versions, per table with
   * an owner mark in which the plan looked for them (none is a read too: a
   * row another applier of the owner creates there trips the guard).
   */
  protected readGuards(): Map<string, [string, string][]> | undefined {
    if (this.options.guardReads !== true) return undefined;
    const out = new Map<string, [string, string][]>();
    for (const t of this.ownedRoots.keys()) out.set(t, []);
    for (const t of this.scopeTables()) {
      if (this.tables[t]?.columns['external_ids'] !== undefined) out.set(t, []);
    }
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
  protected markless(): string[] {
    return Object.keys(this.tables).filter((t) => {
      const s = this.tables[t]!;
      return !s.isRoot && s.columns['external_ids'] === undefined && this.snap.monitored(t);
    });
  }

  /** The owner of a row: its mark, or for a child row without external_ids its holder's owner. */
  protected rowOwner(table: string, row: AnyRow, depth = 0): string | undefined {
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

  protected matchDeclared(): void {
    for (const d of this.declared.values()) {
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
        // Another owner's row is refused, shared or not: contributing to it would undo that
        // owner's state (and it ours) at every apply.
        const mark = this.rowOwner(d.table, row);
        if (mark !== undefined && mark !== this.owner) {
          throw new DesiredStateError(
            'owned-by-other',
            `${d.ref.toString()} exists and is owned by ${JSON.stringify(mark)} (external_ids:${this.ownerKey})${d.shared ? ': a shared row carries no owner mark' : ''}`,
            { table: d.table, key: d.ref.toString(), owner: mark },
          );
        }
        if (!d.shared && mark === undefined && !d.adopt) {
          throw new DesiredStateError(
            'unowned',
            `${d.ref.toString()} exists and carries no owner mark: pass adopt: true to take it over, or declare it shared`,
            { table: d.table, key: d.ref.toString() },
          );
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

  /** Every new child's chain of parents must end at a root row or an existing row. */
  protected checkParentChains(): void {
    for (const d of this.declared.values()) {
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
  protected resolve(ref: KeyRef, from: Declared, column: string): string {
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

  protected resolveValue(v: unknown, d: Declared, column: string): unknown {
    if (v instanceof KeyRef) return this.resolve(v, d, column);
    if (!Array.isArray(v) || !v.some((e) => e instanceof KeyRef)) return v;
    return v.map((e) => (e instanceof KeyRef ? this.resolve(e, d, column) : e));
  }
  /** A parent declares its children column, or children with { in }, not both. */
  protected checkChildrenColumns(): void {
    for (const d of this.declared.values()) {
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
}

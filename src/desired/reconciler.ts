/**
 * {@link DesiredReconciler}: plan and apply one long-lived
 * {@link DesiredState} again and again, each time planning only what
 * changed since the last time the database matched it.
 *
 * `planDesired` compares every declared row with the replica, so its cost
 * grows with the desired state (about 4 µs a row). A controller that keeps
 * one state up to date (`set`, `delete`) and reconciles after each change
 * needs only the rows that changed: the rows it declared, replaced or
 * withdrawn since, and the rows of the replica that changed since (another
 * writer's edits of the owner's rows, its own last commit). The reconciler
 * follows both, from the state's journal and from the replica's row events,
 * and plans those rows alone while that is exactly the plan a full plan
 * would make: updates of the owner's existing rows, and new rows whose key is
 * a schema index (a port by name) in a parent that exists. The rows its own
 * commits create join what it knows from their insert events. It makes a
 * full plan instead:
 * - the first time, and until a plan was empty, committed whole, or held
 *   only updates of the owner's declared rows;
 * - after a row was deleted from a monitored table; a row inserted that
 *   carries the owner's mark and no declared key, has a declared key and
 *   another owner (or none), has a key that is not a schema index, or
 *   references the owner's rows; the key columns, the owner mark of a row
 *   changed, a children column lost rows or gained one of the owner's rows
 *   declared in another parent; an unmarked row's references to the
 *   owner's rows changed;
 * - for a declaration withdrawn, shared, moved to another parent, declaring
 *   its children column, of a table without `external_ids`, or new with a
 *   key that is not a schema index or in a parent that is new or changed;
 * - after any change of the connection's status (a reconnection, a resync);
 * - while row events of the replica are queued and not yet delivered (a
 *   plan made from inside a row event handler: it never waits for them);
 * - with `guardReads`, and when the state's journal no longer reaches back.
 *
 * {@link DesiredReconciler.stats} counts both kinds and says why the last
 * full plan was needed.
 * @module
 */

import type { DatabaseClient } from '../client/client.js';
import type { TableMap, TableName } from '../ovsdb/schema/model.js';
import type { ColumnSchema, TableSchema } from '../ovsdb/schema/schema-types.js';
import { type ApplyOptions, type ApplyResult, type DesiredClient, runApply } from './apply.js';
import { childTableOf } from './keys.js';
import { ownerOf } from './matching.js';
import type { Plan } from './plan.js';
import { NeedsFullPlan, type PlanBase, planChanged, planWithBase } from './planner.js';
import type { AnyRow, DesiredReader } from './snapshot.js';
import { type Declared, type DesiredState, identity, KeyRef } from './state.js';
import { setAtoms, valuesEqual } from './values.js';

/**
 * What a {@link DesiredReconciler} needs of the database handle
 * (`openDatabase`): what `applyDesired` needs, its row and status events,
 * its counters and its rows by UUID.
 */
export type ReconcilerClient<DB extends TableMap> = DesiredClient<DB> &
  Pick<DatabaseClient<DB>, 'on' | 'onStatus' | 'stats' | 'get'>;

/** Counts of a {@link DesiredReconciler}'s plans. */
export interface ReconcilerStats {
  /** Plans of every declared row. */
  readonly fullPlans: number;
  /** Plans of the changed rows only. */
  readonly incrementalPlans: number;
  /** Rows planned by the incremental plans, in all. */
  readonly rowsPlanned: number;
  /** Why the last full plan was made. */
  readonly lastFullReason: string | undefined;
}

/** What a plan took from the reconciler, given back unless it settles. */
interface Taken {
  readonly plan: Plan;
  readonly base: PlanBase | undefined;
  readonly revision: number;
  readonly rows: Set<string>;
  readonly full: boolean;
}

/**
 * Plans and applies one long-lived desired state, incrementally (see the
 * module). Make it with {@link desiredReconciler}; `close` it when done.
 *
 * ```ts
 * const d = new DesiredState(NB, { owner: 'tenant-a' });
 * const sw = d.set('Logical_Switch', { name: 'sw0' });
 * d.set('Logical_Switch_Port', { name: 'p1', addresses: ['00:00:00:00:00:01 10.0.0.2'] }, { in: sw });
 * const r = desiredReconciler(client, d);
 * await r.apply(); // a full plan: creates sw0 and p1
 * d.set('Logical_Switch_Port', { name: 'p1', addresses: ['00:00:00:00:00:01 10.0.0.3'] }, { in: sw });
 * await r.apply(); // plans p1 alone: one mutate of its addresses
 * r.close();
 * ```
 * @typeParam DB - the model's table map.
 */
export class DesiredReconciler<DB extends TableMap> {
  private base: PlanBase | undefined;
  /** The base is clean: every declaration outside the changes matches the database. */
  private clean = false;
  private revision = 0;
  /** Existing rows (UUIDs) changed since the last settled plan. */
  private rows = new Set<string>();
  /** Children added to parents since the last plan (checked when planning). */
  private readonly links: Link[] = [];
  /** The rows the last committed plan wrote, and their `_version` right after. */
  private readonly written = new Map<string, string>();
  /** Why the next plan must be full, if it must. */
  private fullBecause: string | undefined = 'first plan';
  private readonly stops: (() => void)[] = [];
  private counts = { fullPlans: 0, incrementalPlans: 0, rowsPlanned: 0 };
  private lastFullReason: string | undefined;
  private closed = false;

  /** @internal Use {@link desiredReconciler}. */
  constructor(
    private readonly client: ReconcilerClient<DB>,
    /** The desired state. */
    readonly state: DesiredState<DB>,
    private readonly options: ApplyOptions = {},
  ) {
    const schema = state.model.schema;
    this.stops.push(client.onStatus(() => this.needFull('the connection status changed')));
    for (const table of Object.keys(schema.tables) as TableName<DB>[]) {
      if (!client.isMonitored(table)) continue;
      const t = schema.tables[table]!;
      const watch = new TableWatch(t, state.keys.get(table)?.columns ?? [], schema);
      this.stops.push(
        client.on(table, 'insert', (row) => this.inserted(table, watch, row as AnyRow)),
      );
      this.stops.push(
        client.on(table, 'delete', () => this.needFull(`a row was deleted from ${table}`)),
      );
      this.stops.push(
        client.on(table, 'update', (row, old) =>
          this.updated(table, watch, row as AnyRow, old as AnyRow),
        ),
      );
    }
  }

  /** Counts of the plans made so far. */
  get stats(): ReconcilerStats {
    return { ...this.counts, lastFullReason: this.lastFullReason };
  }

  /**
   * The plan that makes the database match the state now (no I/O).
   * Nothing is applied.
   * @throws DesiredStateError as {@link planDesired}.
   */
  async plan(): Promise<Plan> {
    this.checkOpen();
    const taken = this.take();
    this.settle(taken, taken.plan.empty);
    return taken.plan;
  }

  /**
   * Make the database match the state, as {@link applyDesired} does, with
   * the reconciler's plans.
   * @throws as {@link applyDesired}.
   */
  async apply(): Promise<ApplyResult> {
    this.checkOpen();
    let taken: Taken | undefined;
    return runApply(this.client, this.state, this.options, {
      plan: () => {
        taken = this.take();
        return taken.plan;
      },
      settled: (_plan, committed) => {
        if (taken !== undefined) this.settle(taken, committed);
        taken = undefined;
      },
    });
  }

  /** Stop following the replica. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.stops.splice(0)) stop();
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the desired-state reconciler is closed');
  }

  private needFull(reason: string): void {
    this.fullBecause ??= reason;
  }

  /**
   * A row was inserted. The owner's row with a declared key joins the base
   * (a row the last commit created, say) and is planned again; a row of
   * another owner's or nobody's needs no plan unless its key is declared or
   * it references the owner's rows; anything else needs a full plan.
   */
  private inserted(table: string, watch: TableWatch, row: AnyRow): void {
    if (this.fullBecause !== undefined) return;
    const base = this.base;
    const spec = this.state.keys.get(table);
    if (base === undefined || spec === undefined || spec.scoped || !watch.marked) {
      this.needFull(`a row was inserted into ${table}`);
      return;
    }
    const key: Record<string, unknown> = {};
    for (const c of spec.columns) key[c] = row[c];
    const id = identity(table, key, undefined);
    const d = this.state.declared.get(id);
    if (ownerOf(row, this.state.ownerKey) === this.state.owner) {
      if (d === undefined || d.shared || base.existingOf.has(id)) {
        this.needFull(`${table} ${row._uuid} was inserted, the owner's, and not declared once`);
        return;
      }
      base.existingOf.set(id, row);
      base.declOfUuid.set(row._uuid, d);
      base.owned.set(row._uuid, table);
      if (watch.root) {
        const list = base.ownedRoots.get(table);
        if (list === undefined) base.ownedRoots.set(table, [row._uuid]);
        else list.push(row._uuid);
      }
      this.rows.add(row._uuid);
      return;
    }
    if (d !== undefined) {
      this.needFull(`${table} ${row._uuid} was inserted with a declared key`);
      return;
    }
    if (watch.refersTo(row, base.owned)) {
      this.needFull(`${table} ${row._uuid} was inserted and references the owner's rows`);
    }
  }

  /** A row of the replica changed: plan its declaration again, or plan everything. */
  private updated(table: string, watch: TableWatch, row: AnyRow, old: AnyRow): void {
    if (this.fullBecause !== undefined) return;
    const why = watch.structural(row, old, this.state.ownerKey, this.links);
    if (why !== undefined) {
      this.needFull(`${table} ${row._uuid}: ${why}`);
      return;
    }
    const base = this.base;
    if (base === undefined) return;
    if (base.declOfUuid.has(row._uuid)) {
      this.rows.add(row._uuid);
      return;
    }
    if (base.owned.has(row._uuid)) {
      this.needFull(`${table} ${row._uuid} is the owner's and not declared`);
      return;
    }
    if (watch.refersTo(row, base.owned) || watch.refersTo(old, base.owned)) {
      this.needFull(`${table} ${row._uuid} references the owner's rows`);
    }
  }

  /** Make the next plan, taking the changes it covers. */
  private take(): Taken {
    const state = this.state as unknown as DesiredState<TableMap>;
    const reader = this.client as unknown as DesiredReader<TableMap>;
    const revision = state.revision;
    const rows = this.rows;
    this.rows = new Set();
    // Row events still queued (a plan made from a row event handler, say) are changes the
    // reconciler has not heard of yet: only a full plan sees them.
    const events = this.client.stats.events;
    if (events.queued !== events.delivered) this.needFull('row events are not delivered yet');
    const links = this.links.splice(0);
    if (this.fullBecause === undefined && this.base !== undefined) {
      const why = this.linksProblem(this.base, links);
      if (why !== undefined) this.needFull(why);
    }
    if (this.clean && this.base !== undefined && this.fullBecause === undefined) {
      const changed = this.changed(this.base, rows);
      if (typeof changed !== 'string') {
        try {
          const plan = planChanged(reader, state, this.options, this.base, changed);
          this.counts.incrementalPlans++;
          this.counts.rowsPlanned += changed.size;
          return { plan, base: this.base, revision, rows, full: false };
        } catch (error) {
          if (!(error instanceof NeedsFullPlan)) {
            this.restore(rows);
            throw error;
          }
          this.fullBecause = error.message;
        }
      } else this.fullBecause = changed;
    }
    this.lastFullReason = this.fullBecause ?? 'the last plan was not applied';
    this.fullBecause = undefined;
    // A full plan reads everything: the changes so far are in it.
    let made: { plan: Plan; base: PlanBase };
    try {
      made = planWithBase(reader, state, this.options);
    } catch (error) {
      this.clean = false;
      this.needFull('the last full plan failed');
      throw error;
    }
    this.counts.fullPlans++;
    this.base = made.base;
    this.clean = false;
    return { plan: made.plan, base: made.base, revision, rows: new Set(), full: true };
  }

  /**
   * Children added to a parent since the last plan: each must be a row of
   * nobody's declarations (another writer's child), or the owner's declared
   * child of that very parent (the last commit linked it); a declared row
   * linked into another parent is a move that only a full plan undoes.
   */
  private linksProblem(base: PlanBase, links: readonly Link[]): string | undefined {
    for (const l of links) {
      for (const u of l.added) {
        const d = base.declOfUuid.get(u);
        if (d === undefined) {
          if (base.owned.has(u)) return `${l.table} ${l.parent} gained a row of the owner's`;
          continue;
        }
        const now = this.state.declared.get(d.ref.id);
        const parent = now?.parent === undefined ? undefined : base.existingOf.get(now.parent.id);
        if (parent?._uuid !== l.parent || now?.parentColumn !== l.column) {
          return `${l.table} ${l.parent}.${l.column} gained ${d.ref.toString()}, declared elsewhere`;
        }
      }
    }
    return undefined;
  }

  /** The declarations to plan again, or why a full plan is needed. */
  private changed(base: PlanBase, rows: ReadonlySet<string>): Map<string, Declared> | string {
    const ids = this.state.changesSince(this.revision);
    if (ids === undefined) return 'the journal of declarations does not reach back';
    const out = new Map<string, Declared>();
    for (const id of ids) {
      const d = this.state.declared.get(id);
      if (d === undefined) return 'a declaration was withdrawn';
      out.set(id, d);
    }
    for (const uuid of rows) {
      const mine = this.written.get(uuid);
      if (mine !== undefined && mine === this.versionOf(base, uuid)) continue;
      const was = base.declOfUuid.get(uuid);
      if (was === undefined) return 'a changed row is not one the last full plan matched';
      const d = this.state.declared.get(was.ref.id);
      if (d === undefined) return 'a declaration was withdrawn';
      out.set(d.ref.id, d);
    }
    return out;
  }

  /** The plan `taken` was empty or committed (`done`), or not. */
  private settle(taken: Taken, done: boolean): void {
    if (done) {
      this.revision = taken.revision;
      this.base = taken.base;
      this.clean = true;
      this.written.clear();
      // The rows it wrote match their declarations as they now are: while their `_version`
      // stays, their update events (its own commit's) need no plan.
      for (const e of taken.plan.edits.values()) {
        const row = this.client.get(e.table as TableName<DB>, e.uuid) as AnyRow | undefined;
        const v = row?.['_version'];
        const was = taken.base?.declOfUuid.get(e.uuid);
        const d = was === undefined ? undefined : this.state.declared.get(was.ref.id);
        if (typeof v === 'string' && d !== undefined && this.matches(d, row!)) {
          this.written.set(e.uuid, v);
        }
      }
      return;
    }
    if (!taken.full) {
      this.restore(taken.rows);
      return;
    }
    // A full plan not applied: when it only updates declared rows of the owner's, the other
    // declarations match the database, and those rows are planned again next time.
    const base = taken.base!;
    const rows: string[] = [];
    const schema = this.state.model.schema;
    for (const c of taken.plan.changes) {
      const d = c.action === 'update' && !c.shared ? base.declOfUuid.get(c.uuid) : undefined;
      // Only changes of the columns the row declares (not a child linked, moved or unlinked).
      const own =
        d !== undefined &&
        !d.shared &&
        c.action === 'update' &&
        c.columns.every(
          (col) =>
            (col.column === 'external_ids' || d.row[col.column] !== undefined) &&
            childTableOf(schema, schema.tables[d.table]!.columns[col.column]!) === undefined,
        );
      if (!own) {
        this.clean = false;
        return;
      }
      rows.push(c.uuid);
      // Its declaration changed since that row was written: the row is to be planned.
      this.written.delete(c.uuid);
    }
    this.revision = taken.revision;
    this.base = base;
    this.clean = true;
    this.restore(rows);
  }

  /**
   * True when `row` holds what `d` declares (plain values only: a
   * declaration with references is not checked, and is planned again).
   */
  private matches(d: Declared, row: AnyRow): boolean {
    const schema = this.state.model.schema.tables[d.table]!;
    const ownerKey = this.state.ownerKey;
    if (ownerOf(row, ownerKey) !== this.state.owner) return false;
    for (const c of Object.keys(d.row)) {
      const want = d.row[c];
      if (want === undefined) continue;
      if (
        want instanceof KeyRef ||
        (Array.isArray(want) && want.some((x) => x instanceof KeyRef))
      ) {
        return false;
      }
      const column = schema.columns[c]!;
      if (c === 'external_ids') {
        const have = { ...(row[c] as Record<string, string>) };
        if (have[ownerKey] !== this.state.owner) return false;
        delete have[ownerKey];
        if (!valuesEqual(column, have, want)) return false;
      } else if (!valuesEqual(column, row[c], want)) return false;
    }
    return true;
  }

  /** The replica's `_version` of a row the base matched. */
  private versionOf(base: PlanBase, uuid: string): unknown {
    const table = base.declOfUuid.get(uuid)?.table;
    if (table === undefined) return undefined;
    return (this.client.get(table as TableName<DB>, uuid) as AnyRow | undefined)?.['_version'];
  }

  private restore(rows: Iterable<string>): void {
    for (const uuid of rows) this.rows.add(uuid);
  }
}

/** Children added to a parent row's children column. */
interface Link {
  readonly table: string;
  readonly parent: string;
  readonly column: string;
  readonly added: readonly string[];
}

/** What changes of one table's rows a reconciler cannot plan incrementally. */
class TableWatch {
  private readonly children: readonly ColumnSchema[];
  private readonly refs: readonly string[];
  /** The table has an `external_ids` column (its rows carry owner marks). */
  readonly marked: boolean;
  /** The table is a root table. */
  readonly root: boolean;

  constructor(
    private readonly table: TableSchema,
    private readonly keyColumns: readonly string[],
    schema: Parameters<typeof childTableOf>[0],
  ) {
    this.marked = table.columns['external_ids'] !== undefined;
    this.root = table.isRoot;
    this.children = table.columnNames
      .map((c) => table.columns[c]!)
      .filter((c) => childTableOf(schema, c) !== undefined);
    // Reference columns through which an unmarked row holds the owner's rows (contributions).
    this.refs = table.columnNames.filter((c) => {
      const k = table.columns[c]!.type.key;
      return k.refTable !== undefined && childTableOf(schema, table.columns[c]!) === undefined;
    });
  }

  /**
   * Why the change of `old` into `row` needs a full plan, if it does. A
   * children column that only gained rows is recorded in `links`, to be
   * checked at the next plan (the inserts of those rows may come after).
   */
  structural(row: AnyRow, old: AnyRow, ownerKey: string, links: Link[]): string | undefined {
    for (const c of this.keyColumns) {
      if (!valuesEqual(this.table.columns[c]!, row[c], old[c]))
        return `its key column ${c} changed`;
    }
    if (this.marked && ownerOf(row, ownerKey) !== ownerOf(old, ownerKey)) {
      return 'its owner mark changed';
    }
    for (const c of this.children) {
      const now = row[c.name];
      const was = old[c.name];
      if (valuesEqual(c, now, was)) continue;
      const before = new Set(setAtoms(was) as string[]);
      const after = setAtoms(now) as string[];
      if (after.length < before.size) return `its children column ${c.name} lost rows`;
      const added: string[] = [];
      for (const u of after) if (!before.delete(u)) added.push(u);
      if (before.size > 0) return `its children column ${c.name} lost rows`;
      links.push({ table: this.table.name, parent: row._uuid, column: c.name, added });
    }
    return undefined;
  }

  /** True when `row` references one of `owned` outside its children columns. */
  refersTo(row: AnyRow, owned: ReadonlyMap<string, string>): boolean {
    for (const c of this.refs) {
      const v = row[c];
      if (typeof v === 'string') {
        if (owned.has(v)) return true;
      } else if (Array.isArray(v)) {
        for (const u of v) if (typeof u === 'string' && owned.has(u)) return true;
      } else if (v !== null && typeof v === 'object') {
        for (const u of Object.values(v)) if (typeof u === 'string' && owned.has(u)) return true;
      }
    }
    return false;
  }
}

/**
 * A {@link DesiredReconciler} of `state` over `client`, with the options
 * of {@link applyDesired} for its applies (and `tables`, `guardReads` for
 * its plans).
 */
export function desiredReconciler<DB extends TableMap>(
  client: ReconcilerClient<DB>,
  state: DesiredState<DB>,
  options: ApplyOptions = {},
): DesiredReconciler<DB> {
  return new DesiredReconciler(client, state, options);
}

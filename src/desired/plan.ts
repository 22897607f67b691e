/**
 * The result of `planDesired`: from the replica and a {@link DesiredState}, with no
 * I/O, the changes that make the database match it, as a {@link Plan}.
 *
 * The rules, which also fix the number of operations an apply sends:
 * - a declared row missing from the database is created: one `insert`
 *   (carrying the new children of a new parent);
 * - a declared row that exists gets at most one `update` (its changed
 *   scalar and optional columns) and at most one `mutate` (the elements of
 *   its set and map columns to remove and to add, the children linked to
 *   it or unlinked from it); unchanged rows get nothing;
 * - a row carrying the owner's mark that is not declared is deleted: a
 *   root row with one `delete`, a child row by its removal from each
 *   parent's `mutate`; the children of a deleted row go with it (no
 *   operation of their own), and weak references to deleted rows are left
 *   to the server to drop;
 * - every existing row the plan writes is guarded by one `wait` (the
 *   values the plan read: the owner mark and the scalar columns it
 *   overwrites; a parent's children, where it creates a child whose key is
 *   scoped to that parent; the owner's elements of a shared row; or only the
 *   row's existence, for a parent it links to), and a new row whose key is not a schema index by
 *   a `wait` that no row with that key exists; and for each root table the
 *   owner has or declares rows of, one `wait` that the owner's rows of it are
 *   the ones the plan read.
 *
 * `plan.render()` ({@link renderPlan}) prints it in the spirit of
 * `terraform plan`: `+` creates, `~` updates, `-` deletes, one column per
 * line, every row named by its natural key (a child's with its parent's),
 * references by the key of the row they name; a UUID only for a row
 * without a key.
 * @module
 */

import type { ColumnSchema } from '../ovsdb/schema/schema-types.js';
import { setOwn } from '../ovsdb/wire/json.js';

/** One column's change on an existing row. */
export interface ColumnChange {
  /** The column. */
  readonly column: string;
  /** `set`: written whole with `update`; `mutate`: elements (or map pairs) removed and added. */
  readonly how: 'set' | 'mutate';
  /** For `set`: the value read. */
  readonly from?: unknown;
  /** For `set`: the value written. */
  readonly to?: unknown;
  /** For `mutate`: set elements, or map keys, removed. */
  readonly remove?: readonly unknown[] | undefined;
  /** For `mutate`: set elements added, or map pairs inserted. */
  readonly insert?: readonly unknown[] | Readonly<Record<string, unknown>> | undefined;
  /**
   * For a reference column: the key, as text, of each row named by UUID in
   * the values above (`{ "<uuid>": "Logical_Switch_Port{name=\"p1\"}" }`);
   * a row without a key is left out.
   */
  readonly refs?: Readonly<Record<string, string>> | undefined;
}

/** A planned change of one row. */
export type PlannedChange =
  | {
      readonly action: 'create';
      readonly table: string;
      /** The row's key, as text. */
      readonly key: string;
      /** The new row's UUID (client-chosen). */
      readonly uuid: string;
      /** The columns written, references resolved to UUIDs. */
      readonly row: Readonly<Record<string, unknown>>;
      /** The parent that holds it, for a child row (`key`: the parent's key, as text). */
      readonly parent?: {
        readonly table: string;
        readonly uuid: string;
        readonly column: string;
        readonly key?: string | undefined;
      };
      /**
       * Per reference column of `row`: the key, as text, of each row it
       * names by UUID (a row without a key is left out).
       */
      readonly refs?: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined;
    }
  | {
      readonly action: 'update';
      readonly table: string;
      readonly key: string;
      readonly uuid: string;
      /** The column changes. */
      readonly columns: readonly ColumnChange[];
      /** True for a shared row (contributions only). */
      readonly shared: boolean;
    }
  | {
      readonly action: 'delete';
      readonly table: string;
      readonly key: string;
      readonly uuid: string;
      /** `delete` for a root row; `unlink` for a child row, removed from its parents. */
      readonly how: 'delete' | 'unlink' | 'cascade';
    };

/**
 * @internal What a guard requires of the elements of a set or map column:
 * every element (or map pair) of `includes`, and none of the set elements
 * of `excludes` (a `wait` with `includes`/`excludes` conditions).
 */
export interface Contains {
  readonly includes: readonly unknown[] | Readonly<Record<string, unknown>>;
  readonly excludes: readonly unknown[];
}

/** @internal The guard of one existing row: a `wait` on what the plan read of it. */
export interface Guard {
  readonly table: string;
  readonly uuid: string;
  /** Columns and the values the plan read (an empty map guards existence only). */
  readonly guard: Map<string, unknown>;
  /** Set and map columns of which the plan read some elements only (a shared row's). */
  contains?: Map<string, Contains> | undefined;
}

/** @internal A write to an existing row. */
export interface Edit extends Guard {
  /** Scalar and optional columns to write. */
  readonly set: Map<string, unknown>;
  /** Set/map columns: elements (or keys) to remove, then to insert. */
  readonly mutate: Map<string, { remove: unknown[]; insert: unknown[] | Record<string, unknown> }>;
}

/** @internal A row to create. */
export interface Create {
  readonly table: string;
  readonly uuid: string;
  readonly row: Record<string, unknown>;
  /** `[column, value]` pairs a `wait` must find no row with (a key that is not a schema index). */
  readonly absentKey: Record<string, unknown> | undefined;
  readonly parent:
    | { readonly table: string; readonly uuid: string; readonly column: string }
    | undefined;
  /** The parent is new in this plan. */
  readonly parentNew: boolean;
  /** The row's key, as text. */
  readonly key: string;
}

/** @internal A root row to delete. */
export interface Delete {
  readonly table: string;
  readonly uuid: string;
  readonly guard: Map<string, unknown>;
}

/** Options of {@link planDesired}. */
export interface PlanOptions {
  /**
   * The tables in which rows carrying the owner's mark are looked for (and
   * deleted when not declared). Default: every monitored table with an
   * `external_ids` column. The cost of a plan is one pass over the rows of
   * these tables and of the tables the declarations name.
   */
  readonly tables?: readonly string[] | undefined;
  /**
   * Guard every row of the owner's that the plan read, not only the ones it
   * writes: one `wait` per table in which the plan looked for the owner's
   * rows that they have the `_version`s the plan read (or that there are
   * none), and the owner's elements of every shared row declared. Any change
   * to them between plan and commit then makes the apply plan again, so
   * that two appliers of one owner racing end exactly at the desired set of
   * the one that commits last. It costs a `wait` listing every owned row of
   * each table; one transaction only (not with `batchSize`). Default false.
   */
  readonly guardReads?: boolean | undefined;
}

/** The JSON form of a {@link Plan}. */
export interface PlanJson {
  readonly owner: string;
  readonly creates: number;
  readonly updates: number;
  readonly deletes: number;
  readonly operations: number;
  readonly guards: number;
  readonly changes: readonly PlannedChange[];
}

/**
 * The changes that make the database match a desired state, computed from
 * the replica. `empty` when it already does. Render it with
 * {@link Plan.render} (in the spirit of `terraform plan`) or
 * `JSON.stringify(plan)`.
 */
export class Plan {
  /** The changes, creates first, then updates, then deletes. */
  readonly changes: readonly PlannedChange[];
  /** @internal */
  readonly creates: readonly Create[];
  /** @internal */
  readonly edits: ReadonlyMap<string, Edit>;
  /** @internal */
  readonly deletes: readonly Delete[];

  /** @internal */
  constructor(
    /** The owner. */
    readonly owner: string,
    changes: readonly PlannedChange[],
    creates: readonly Create[],
    edits: ReadonlyMap<string, Edit>,
    deletes: readonly Delete[],
    ownedRoots: ReadonlyMap<string, readonly string[]> = new Map(),
    /** The owner mark's `external_ids` key. */
    readonly ownerKey = 'ovnkit-owner',
    readReads: ReadonlyMap<string, readonly (readonly [string, string])[]> | undefined = undefined,
    sharedReads: readonly Guard[] = [],
  ) {
    this.readGuards = readReads;
    this.sharedReads = sharedReads;
    this.changes = changes;
    this.creates = creates;
    this.edits = edits;
    this.deletes = deletes;
    this.ownedRoots = ownedRoots;
  }

  /**
   * @internal The owner's rows of each root table the plan scanned, as it
   * read them: an apply guards each set, so that a row another applier of
   * the same owner created or deleted meanwhile makes it plan again.
   */
  readonly ownedRoots: ReadonlyMap<string, readonly string[]>;

  /** @internal With `guardReads`: the owner's rows of each table as `[_uuid, _version]`, as read. */
  readonly readGuards: ReadonlyMap<string, readonly (readonly [string, string])[]> | undefined;

  /**
   * @internal With `guardReads`: the guards of the shared rows the plan read
   * and does not write (their owner's elements, as read).
   */
  readonly sharedReads: readonly Guard[];

  /** True when nothing is to change. */
  get empty(): boolean {
    return this.changes.length === 0;
  }

  /** The number of write operations (insert, update, mutate, delete) an apply in one transaction sends. */
  get operations(): number {
    let n = this.creates.length + this.deletes.length;
    for (const e of this.edits.values())
      n += (e.set.size > 0 ? 1 : 0) + (e.mutate.size > 0 ? 1 : 0);
    return n;
  }

  /** The number of guards (`wait` operations) an apply in one transaction sends. */
  get guards(): number {
    let n = this.deletes.length + this.edits.size + this.sharedReads.length;
    n += this.readGuards === undefined ? this.ownedRoots.size : this.readGuards.size;
    for (const c of this.creates) if (c.absentKey !== undefined) n++;
    return n;
  }

  /** Counts of changes by action. */
  get counts(): { readonly creates: number; readonly updates: number; readonly deletes: number } {
    let creates = 0;
    let updates = 0;
    let deletes = 0;
    for (const c of this.changes) {
      if (c.action === 'create') creates++;
      else if (c.action === 'update') updates++;
      else deletes++;
    }
    return { creates, updates, deletes };
  }

  /** The machine-readable form. */
  toJSON(): PlanJson {
    return {
      owner: this.owner,
      ...this.counts,
      operations: this.operations,
      guards: this.guards,
      changes: this.changes.map((c) => jsonSafe(c) as PlannedChange),
    };
  }

  /** The human-readable form, in the spirit of `terraform plan`. */
  render(): string {
    return renderPlan(this);
  }
}

function jsonSafe(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      setOwn(out, k, jsonSafe((v as Record<string, unknown>)[k]));
    }
    return out;
  }
  return v;
}

// ---- rendering ------------------------------------------------------------

/**
 * The keys (as text, from `nameOf`) of the rows that `values` of `column`
 * name by UUID: set elements, single values, and the keys or values of map
 * pairs, as the column's type references rows; undefined when none has a key.
 */
export function refKeys(
  column: ColumnSchema,
  values: readonly unknown[],
  nameOf: (table: string, uuid: string) => string | undefined,
): Record<string, string> | undefined {
  const keyRef = column.type.key.refTable;
  const valueRef = column.type.value?.refTable;
  if (keyRef === undefined && valueRef === undefined) return undefined;
  const out: Record<string, string> = {};
  const name = (ref: string | undefined, u: unknown): void => {
    if (ref === undefined || typeof u !== 'string' || Object.hasOwn(out, u)) return;
    const key = nameOf(ref, u);
    if (key !== undefined) setOwn(out, u, key);
  };
  for (const v of values) {
    if (Array.isArray(v)) for (const u of v) name(keyRef, u);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        name(keyRef, k);
        name(valueRef, x);
      }
    } else name(keyRef, v);
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function json(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? 'undefined';
}

/**
 * `v` as text; with `refs`, a UUID that names a row with a key is shown as
 * that key, without the ` in <owner>` of a child shown in its own parent.
 */
function text(
  v: unknown,
  refs: Readonly<Record<string, string>> | undefined,
  owner: string,
): string {
  if (refs === undefined) return json(v);
  const one = (x: unknown): string => {
    if (typeof x !== 'string' || !Object.hasOwn(refs, x)) return json(x);
    const key = refs[x]!;
    const suffix = ` in ${owner}`;
    return key.endsWith(suffix) ? key.slice(0, -suffix.length) : key;
  };
  // A set's elements in the order of their text (a set has no order of its own).
  if (Array.isArray(v)) return `[${v.map(one).sort().join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const pairs = Object.entries(v).map(([k, x]) => `${one(k)}: ${one(x)}`);
    return `{${pairs.join(', ')}}`;
  }
  return one(v);
}

function columnLines(c: ColumnChange, owner: string): string[] {
  const t = (v: unknown): string => text(v, c.refs, owner);
  if (c.how === 'set') return [`${c.column}: ${t(c.from)} → ${t(c.to)}`];
  const out: string[] = [];
  if (c.remove !== undefined && c.remove.length > 0) out.push(`${c.column} -= ${t(c.remove)}`);
  if (c.insert !== undefined) {
    const empty = Array.isArray(c.insert)
      ? c.insert.length === 0
      : Object.keys(c.insert).length === 0;
    if (!empty) out.push(`${c.column} += ${t(c.insert)}`);
  }
  return out;
}

/** Render `plan` as text (see the module's example). */
export function renderPlan(plan: Plan): string {
  const { creates, updates, deletes } = plan.counts;
  const head = plan.empty
    ? `Plan for owner ${json(plan.owner)}: no changes.`
    : `Plan for owner ${json(plan.owner)}: ${creates} to create, ${updates} to update, ${deletes} to delete (${plan.operations} operations, ${plan.guards} guards)`;
  const lines = [head];
  if (!plan.empty) lines.push('');
  for (const c of plan.changes) {
    if (c.action === 'create') {
      const p = c.parent;
      // A key scoped to its parent already names it.
      const parent =
        p === undefined || c.key.includes(' in ') ? '' : ` in ${p.key ?? `${p.table} ${p.uuid}`}`;
      lines.push(`  + ${c.key}${parent}`);
      for (const col of Object.keys(c.row).sort()) {
        lines.push(`      ${col} = ${text(c.row[col], c.refs?.[col], c.key)}`);
      }
    } else if (c.action === 'update') {
      lines.push(`  ~ ${c.key}${c.shared ? ' (shared)' : ''}`);
      for (const col of c.columns)
        for (const l of columnLines(col, c.key)) lines.push(`      ${l}`);
    } else {
      lines.push(`  - ${c.key}${c.how === 'delete' ? '' : ` (${c.how})`}`);
    }
  }
  return lines.join('\n');
}

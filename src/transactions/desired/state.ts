/**
 * Declaring a desired state: {@link DesiredState} collects the rows one
 * owner wants, each named by its natural key, with references to other rows
 * by key ({@link KeyRef}) instead of UUIDs.
 * @module
 */

import type { DatabaseModel, InsertOf, TableMap, TableName } from '../../ovsdb/schema/model.js';
import { defaultValue } from '../../ovsdb/values/datum.js';
import type { Uuid } from '../../ovsdb/values/uuid.js';
import { DesiredStateError } from './errors.js';
import { type KeySpecs, type ResolvedKeys, resolveKeys } from './keys.js';

/**
 * A row named by its natural key: `keyOf('Logical_Switch', { name: 'sw0' })`.
 * A row of a table whose key is scoped to a parent (an ACL, a NAT, a static
 * route) also names its parent.
 * @typeParam T - the table.
 */
export class KeyRef<T extends string = string> {
  /** @internal The row's identity in a plan: table, parent and key. */
  readonly id: string;
  constructor(
    /** The table. */
    readonly table: T,
    /** The key columns and their values. */
    readonly key: Readonly<Record<string, unknown>>,
    /** The parent row, for a key scoped to a parent. */
    readonly parent?: KeyRef | undefined,
  ) {
    this.id = identity(table, key, parent?.id);
  }

  /** `Logical_Switch{name="sw0"}`, `ACL{…} in Port_Group{name="pg1"}`. */
  toString(): string {
    const cols = Object.keys(this.key)
      .map((c) => `${c}=${JSON.stringify(this.key[c], bigintJson)}`)
      .join(', ');
    return `${this.table}{${cols}}${this.parent === undefined ? '' : ` in ${this.parent.toString()}`}`;
  }
}

function bigintJson(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}

/** The identity string of a key. */
export function identity(
  table: string,
  key: Readonly<Record<string, unknown>>,
  parentId: string | undefined,
): string {
  const cols = Object.keys(key);
  if (cols.length > 1) cols.sort();
  // Normalized values are JSON-safe unless a value is an object (a map): only then the replacer.
  let plain = true;
  const parts = cols.map((c) => {
    const v = normalizeKeyValue(key[c]);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) plain = false;
    return [c, v];
  });
  const text = plain ? JSON.stringify(parts) : JSON.stringify(parts, bigintJson);
  return `${table}\u0000${text}${parentId === undefined ? '' : `\u0000${parentId}`}`;
}

/** Key values compare as sets where they are arrays (order does not matter). */
function normalizeKeyValue(v: unknown): unknown {
  if (Array.isArray(v)) return [...v].map(String).sort();
  if (typeof v === 'bigint' || typeof v === 'number') return String(v);
  return v;
}

/**
 * Name an existing row (or a declared one) by its key, to reference it:
 * `{ ports: [keyOf('Logical_Switch_Port', { name: 'p1' })] }`.
 */
export function keyOf<T extends string>(
  table: T,
  key: Readonly<Record<string, unknown>>,
  parent?: KeyRef,
): KeyRef<T> {
  return new KeyRef(table, key, parent);
}

/** A column value in which a UUID reference may also be a {@link KeyRef}. */
export type WithKeyRefs<V> =
  V extends Uuid<infer X>
    ? V | KeyRef<X>
    : V extends readonly (infer E)[]
      ? readonly WithKeyRefs<E>[]
      : V;

/**
 * A desired row of table `T`: the columns of its insert type, each optional
 * (an existing row keeps what is not declared; the children of a parent are
 * declared with `{ in }`, not in its column), with references by key
 * allowed. A new row must still give the columns without a valid default:
 * the plan refuses it otherwise.
 */
export type DesiredRow<DB extends TableMap, T extends TableName<DB>> = {
  readonly [C in keyof InsertOf<DB, T>]?: WithKeyRefs<InsertOf<DB, T>[C]>;
};

/** Options of {@link DesiredState.add}. */
export interface AddOptions {
  /**
   * The parent row that holds this row (a row of a non-root table lives in
   * its parent's reference column): `{ in: keyOf('Logical_Switch', { name: 'sw0' }) }`.
   * The column is the parent table's only strong reference column to this
   * table, unless `column` says which.
   */
  readonly in?: KeyRef | undefined;
  /** The parent's column that holds the row, when the parent table has several. */
  readonly column?: string | undefined;
  /**
   * A row that several owners share (a port group two controllers add
   * ports to): it is created without an owner mark when missing and never
   * deleted; its set and map columns are contributions, added with
   * `mutate`; of a reference set, the elements that point to this owner's
   * rows and are not declared are removed; nothing else is. A row that
   * carries another owner's mark cannot be shared (`owned-by-other`).
   */
  readonly shared?: boolean | undefined;
  /** Take over an existing row that carries no owner mark (default: the state's `adopt`). */
  readonly adopt?: boolean | undefined;
}

/** One declared row. */
export interface Declared {
  readonly ref: KeyRef;
  readonly table: string;
  readonly row: Readonly<Record<string, unknown>>;
  readonly parent: KeyRef | undefined;
  readonly parentColumn: string | undefined;
  readonly shared: boolean;
  readonly adopt: boolean;
}

/** Options of {@link DesiredState}. */
export interface DesiredStateOptions<DB extends TableMap> {
  /** The owner: its name is the value of the owner mark. */
  readonly owner: string;
  /** The `external_ids` key of the owner mark (default `ovnkit-owner`). */
  readonly ownerKey?: string | undefined;
  /** Natural keys of tables without a schema index, and overrides (see {@link KeySpecs}). */
  readonly keys?: KeySpecs<DB> | undefined;
  /** Take over existing unmarked rows with a declared key (default false). */
  readonly adopt?: boolean | undefined;
  /**
   * Extra checks of a declared row (the DSL's validators); throw to refuse.
   * Called with the row as declared.
   */
  readonly validate?: ((table: string, row: Readonly<Record<string, unknown>>) => void) | undefined;
}

/** The default `external_ids` key of the owner mark. */
export const DEFAULT_OWNER_KEY = 'ovnkit-owner';

const OWNER_RE = /^[^\s]+$/;

/**
 * The rows one owner wants: declare them with {@link DesiredState.add},
 * then {@link planDesired} compares them with the replica and
 * {@link applyDesired} makes the database match.
 *
 * ```ts
 * const d = new DesiredState(NB, { owner: 'tenant-a' });
 * const sw = d.add('Logical_Switch', { name: 'sw0' });
 * d.add('Logical_Switch_Port', { name: 'p1', addresses: ['00:00:00:00:00:01 10.0.0.2'] }, { in: sw });
 * ```
 * @typeParam DB - the model's table map.
 */
export class DesiredState<DB extends TableMap> {
  /** The owner. */
  readonly owner: string;
  /** The owner mark's `external_ids` key. */
  readonly ownerKey: string;
  /** @internal */
  readonly keys: ResolvedKeys;
  /** @internal */
  readonly declared = new Map<string, Declared>();
  private readonly adopt: boolean;
  private readonly validate: DesiredStateOptions<DB>['validate'];

  /**
   * @throws DesiredStateError for an empty owner or owner key, or a key spec
   *   naming a table or column the model does not have.
   */
  constructor(
    /** The model. */
    readonly model: DatabaseModel<DB>,
    options: DesiredStateOptions<DB>,
  ) {
    if (typeof options.owner !== 'string' || !OWNER_RE.test(options.owner)) {
      throw new DesiredStateError(
        'bad-owner',
        `owner must be a non-empty string without white space, got ${JSON.stringify(options.owner)}`,
      );
    }
    const ownerKey = options.ownerKey ?? DEFAULT_OWNER_KEY;
    if (typeof ownerKey !== 'string' || ownerKey === '') {
      throw new DesiredStateError('bad-owner', 'ownerKey must be a non-empty string');
    }
    this.owner = options.owner;
    this.ownerKey = ownerKey;
    this.adopt = options.adopt === true;
    this.validate = options.validate;
    this.keys = resolveKeys(model.schema, options.keys as KeySpecs<TableMap> | undefined);
  }

  /** The number of declared rows. */
  get size(): number {
    return this.declared.size;
  }

  /**
   * Declare a desired row. Its key columns (the table's key, see
   * {@link KeySpecs}) must be given; the other columns given are set to the
   * given values, columns left out are left alone on an existing row (and
   * get their default on a new one). Returns the row's {@link KeyRef}, to
   * reference it from other rows or use it as a parent.
   * @throws DesiredStateError for an unknown table or column, a missing key
   *   column, a duplicate key, a parent missing for a non-root table, a
   *   value of the owner mark, or a value the validators refuse.
   */
  add<T extends TableName<DB>>(
    table: T,
    row: DesiredRow<DB, NoInfer<T>>,
    options: AddOptions = {},
  ): KeyRef<T> {
    return this.declare(table, row, options, false);
  }

  /**
   * Declare a desired row, or replace the declaration of a row with the
   * same key: what {@link DesiredState.add} does, without the duplicate-key
   * error. A long-lived state kept up to date with `set` and
   * {@link DesiredState.delete} lets a {@link DesiredReconciler} plan only
   * the rows that changed.
   * @throws DesiredStateError as {@link DesiredState.add}, except for a duplicate key.
   */
  set<T extends TableName<DB>>(
    table: T,
    row: DesiredRow<DB, NoInfer<T>>,
    options: AddOptions = {},
  ): KeyRef<T> {
    return this.declare(table, row, options, true);
  }

  /**
   * Withdraw the declaration of `ref`: the next plan deletes the row (when
   * the owner holds it). Returns false when `ref` was not declared.
   */
  delete(ref: KeyRef): boolean {
    if (!this.declared.delete(ref.id)) return false;
    this.journal(ref.id);
    return true;
  }

  /**
   * @internal The number of changes made to the declarations so far (an
   * `add`, `set` or `delete` each).
   */
  get revision(): number {
    return this.journalStart + this.changes.length;
  }

  /**
   * @internal The ids of the rows declared, replaced or withdrawn since
   * revision `since` (with repeats), or undefined when the journal no
   * longer reaches back that far.
   */
  changesSince(since: number): readonly string[] | undefined {
    if (since < this.journalStart || since > this.revision) return undefined;
    return this.changes.slice(since - this.journalStart);
  }

  private readonly changes: string[] = [];
  private journalStart = 0;

  /** Record a change of `id`; the journal keeps at most about twice the declarations (and 4,096). */
  private journal(id: string): void {
    this.changes.push(id);
    const cap = 4096 + 2 * this.declared.size;
    if (this.changes.length > cap) {
      const drop = this.changes.length >> 1;
      this.changes.splice(0, drop);
      this.journalStart += drop;
    }
  }

  private declare<T extends TableName<DB>>(
    table: T,
    row: DesiredRow<DB, NoInfer<T>>,
    options: AddOptions,
    replace: boolean,
  ): KeyRef<T> {
    const schema = this.model.schema.tables[table];
    if (schema === undefined) {
      throw new DesiredStateError(
        'unknown-table',
        `the model has no table ${JSON.stringify(table)}`,
        {
          table,
        },
      );
    }
    const r = row as Readonly<Record<string, unknown>>;
    if (r === null || typeof r !== 'object' || Array.isArray(r)) {
      throw new DesiredStateError(
        'bad-row',
        `${table}: a desired row is an object of column values`,
        {
          table,
        },
      );
    }
    for (const c of Object.keys(r)) {
      if (c === '_uuid' || c === '_version') {
        throw new DesiredStateError('bad-row', `${table}: ${c} cannot be declared`, {
          table,
          column: c,
        });
      }
      if (schema.columns[c] === undefined) {
        throw new DesiredStateError(
          'unknown-column',
          `${table} has no column ${JSON.stringify(c)} in ${this.model.name} ${this.model.version}`,
          { table, column: c },
        );
      }
    }
    const spec = this.keys.get(table);
    if (spec === undefined) {
      throw new DesiredStateError(
        'no-key',
        `${table} has no schema index and no declared key: give its key columns in the "keys" option`,
        { table },
      );
    }
    // A key column left out takes its default (a route's `policy`, say); at least one must be given.
    const key: Record<string, unknown> = {};
    let given = 0;
    for (const c of spec.columns) {
      const v = r[c];
      if (v instanceof KeyRef || (Array.isArray(v) && v.some((e) => e instanceof KeyRef))) {
        throw new DesiredStateError(
          'bad-row',
          `${table}: the key column ${c} cannot hold a KeyRef`,
          {
            table,
            column: c,
          },
        );
      }
      if (v === undefined) key[c] = defaultValue(schema.columns[c]!);
      else {
        key[c] = v;
        given++;
      }
    }
    if (given === 0) {
      throw new DesiredStateError(
        'missing-key',
        `${table}: the key (${spec.columns.join(', ')}) is missing`,
        { table, column: spec.columns[0] },
      );
    }
    const parent = options.in;
    let parentColumn: string | undefined;
    if (parent !== undefined) {
      if (!(parent instanceof KeyRef)) {
        throw new DesiredStateError('bad-parent', `${table}: "in" must be a KeyRef (keyOf(…))`, {
          table,
        });
      }
      parentColumn = this.keys.parentColumn(parent.table, table, options.column);
    } else if (!schema.isRoot) {
      throw new DesiredStateError(
        'missing-parent',
        `${table} is not a root table: a row of it lives in a parent's reference column; give the parent with { in: keyOf(…) }`,
        { table },
      );
    }
    const shared = options.shared === true;
    const ext = r['external_ids'];
    if (!shared && schema.isRoot && schema.columns['external_ids'] === undefined) {
      throw new DesiredStateError(
        'no-owner-column',
        `${table} has no external_ids column, so its rows cannot carry an owner mark: declare the row { shared: true }`,
        { table },
      );
    }
    if (ext !== undefined && ext !== null && typeof ext === 'object' && this.ownerKey in ext) {
      throw new DesiredStateError(
        'owner-mark',
        `${table}: external_ids:${this.ownerKey} is the owner mark and is set by the desired state itself`,
        { table, column: 'external_ids' },
      );
    }
    const ref = new KeyRef(table, key, spec.scoped ? parent : undefined);
    if (spec.scoped && parent === undefined) {
      throw new DesiredStateError(
        'missing-parent',
        `${table}: its key (${spec.columns.join(', ')}) is scoped to a parent; give it with { in: keyOf(…) }`,
        { table },
      );
    }
    if (!replace && this.declared.has(ref.id)) {
      throw new DesiredStateError('duplicate-key', `${ref.toString()} is declared twice`, {
        table,
        key: ref.toString(),
      });
    }
    this.validate?.(table, r);
    this.declared.set(ref.id, {
      ref,
      table,
      row: r,
      parent,
      parentColumn,
      shared,
      adopt: options.adopt ?? this.adopt,
    });
    this.journal(ref.id);
    return ref as KeyRef<T>;
  }
}

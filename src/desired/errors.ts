/**
 * The errors of desired states: a bad declaration, found before anything
 * is sent, and an apply that kept conflicting.
 * @module
 */

import { OvsdbError } from '../ovsdb/wire/errors.js';

/** Why a desired state was refused. */
export type DesiredStateErrorKind =
  | 'bad-owner'
  | 'bad-row'
  | 'bad-key-spec'
  | 'bad-parent'
  | 'bad-value'
  | 'unknown-table'
  | 'unknown-column'
  | 'no-key'
  | 'missing-key'
  | 'missing-parent'
  | 'no-owner-column'
  | 'owner-mark'
  | 'duplicate-key'
  | 'dangling-reference'
  | 'owned-by-other'
  | 'unowned'
  | 'immutable-column'
  | 'children-column'
  | 'cycle'
  | 'not-monitored';

/** Where a {@link DesiredStateError} points. */
export interface DesiredStateErrorDetails {
  /** The table. */
  readonly table?: string | undefined;
  /** The column. */
  readonly column?: string | undefined;
  /** The row's key, as text (`Logical_Switch{name="sw0"}`). */
  readonly key?: string | undefined;
  /** The other owner, for `owned-by-other`. */
  readonly owner?: string | undefined;
}

/**
 * A desired state that cannot be planned or applied as declared: a
 * duplicate key, a reference to a key that exists neither in the desired
 * set nor in the database, a value the schema or the validators refuse, a
 * row owned by another owner, a cycle the schema cannot hold… Thrown before
 * anything is sent; nothing is written.
 */
export class DesiredStateError extends OvsdbError {
  override name = 'DesiredStateError';
  /** The table, when the error is about one. */
  readonly table: string | undefined;
  /** The column, when the error is about one. */
  readonly column: string | undefined;
  /** The row's key as text, when the error is about one row. */
  readonly key: string | undefined;
  /** The other owner, for `owned-by-other`. */
  readonly owner: string | undefined;
  constructor(
    /** Why. */
    readonly kind: DesiredStateErrorKind,
    message: string,
    details: DesiredStateErrorDetails = {},
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
    this.table = details.table;
    this.column = details.column;
    this.key = details.key;
    this.owner = details.owner;
  }
}

/**
 * `applyDesired` met a conflict (a concurrent writer tripped its guards)
 * on every attempt it was allowed. The last conflict is the `cause`; the
 * batches before the failing one committed.
 */
export class DesiredConflictError extends OvsdbError {
  override name = 'DesiredConflictError';
  constructor(
    /** The attempts made. */
    readonly attempts: number,
    /** The last conflict. */
    override readonly cause: unknown,
  ) {
    super(
      `apply: the database kept changing under the plan (${attempts} attempts): ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/**
 * The server's row changes applied to replica rows: one `update2`/`update3`
 * change ({@link applyRowUpdate2}), one plain `update` change
 * ({@link applyRowUpdate}), one entry of a full dump ({@link decodeDumpRow}),
 * each checked first (a change that is not one is the server breaking the
 * protocol); and the other way, the `update2` `modify` diff from one row to
 * another ({@link columnDiff}, {@link rowDiff}). Rows and their codecs, and
 * the diff semantics, are `codec.ts`'s.
 * @module
 */

import type { Atom, ColumnSchema } from '../ovsdb/schema/schema-types.js';
import { compileColumnCodec } from '../ovsdb/values/datum.js';
import { sortedDistinct } from '../ovsdb/values/order.js';
import { datumDiff } from '../ovsdb/values/sorted-datum.js';
import { isCanonicalUuid } from '../ovsdb/values/uuid.js';
import { DatumError, ProtocolError } from '../ovsdb/wire/errors.js';
import { isObject, preview, setOwn } from '../ovsdb/wire/json.js';
import type { RowUpdate, RowUpdate2, WireRow } from '../ovsdb/wire/wire.js';
import { columnOps, ReplicaInconsistencyError, type Row, type RowCodec } from './codec.js';

// ---- checking what the server sent ----------------------------------------------

/**
 * A row change from the server that is not one (a row key that is not a
 * UUID, a change that is not an object, a row that is not one, a value that
 * does not fit its column), as a {@link ProtocolError} naming the table and
 * the key: the server broke the protocol, so the client drops the
 * connection and resynchronises, and the replica never holds such a row.
 */
function malformedUpdate(
  table: string,
  key: string,
  reason: string,
  cause?: unknown,
): ProtocolError {
  return new ProtocolError(
    `malformed update for table ${table}, row ${preview(key, 60)}: ${reason}`,
    cause === undefined ? undefined : { cause },
  );
}

function checkRowKey(table: string, uuid: string): void {
  // A row UUID as ovsdb-server writes it: 36 characters, lower-case hexadecimal.
  if (!isCanonicalUuid(uuid)) throw malformedUpdate(table, uuid, 'the row key is not a UUID');
}

/** A value that does not fit its column (a DatumError) as a ProtocolError; anything else as is. */
function asMalformed(table: string, uuid: string, e: unknown): unknown {
  return e instanceof DatumError ? malformedUpdate(table, uuid, e.message, e) : e;
}

function notAnObject(table: string, uuid: string, what: string, v: unknown): ProtocolError {
  return malformedUpdate(table, uuid, `${what} must be an object, got ${preview(v, 80)}`);
}

// The kinds of an update2 row change.
const INITIAL = 0;
const INSERT = 1;
const MODIFY = 2;
const DELETE = 3;
const KIND_NAMES = ['initial', 'insert', 'modify', 'delete'] as const;

/**
 * The kind of an `update2` row change, checked: an object with exactly one
 * of `initial`, `insert`, `modify` (each an object) and `delete` (null).
 */
function update2Kind(table: string, uuid: string, change: unknown): number {
  if (typeof change !== 'object' || change === null || Array.isArray(change)) {
    throw notAnObject(table, uuid, 'a row change', change);
  }
  const c = change as Record<string, unknown>;
  let kind = -1;
  let n = 0;
  if (c['initial'] !== undefined) {
    kind = INITIAL;
    n++;
  }
  if (c['insert'] !== undefined) {
    kind = INSERT;
    n++;
  }
  if (c['modify'] !== undefined) {
    kind = MODIFY;
    n++;
  }
  if (c['delete'] !== undefined) {
    kind = DELETE;
    n++;
  }
  if (n !== 1) {
    throw malformedUpdate(
      table,
      uuid,
      `a row change needs ${n === 0 ? 'one' : 'exactly one'} of "initial", "insert", "modify" or "delete", got ${preview(change, 80)}`,
    );
  }
  const v = c[KIND_NAMES[kind] as string];
  if (kind === DELETE) {
    if (v !== null)
      throw malformedUpdate(table, uuid, `"delete" must be null, got ${preview(v, 80)}`);
  } else if (!isObject(v)) {
    throw notAnObject(table, uuid, `"${KIND_NAMES[kind]}"`, v);
  }
  return kind;
}

/** The `new` row of a plain `update` row change (undefined: a delete), checked with its `old`. */
function updateNew(table: string, uuid: string, change: unknown): WireRow | undefined {
  if (typeof change !== 'object' || change === null || Array.isArray(change)) {
    throw notAnObject(table, uuid, 'a row change', change);
  }
  const c = change as Record<string, unknown>;
  const o = c['old'];
  const n = c['new'];
  if (o === undefined && n === undefined) {
    throw malformedUpdate(
      table,
      uuid,
      `a row change needs "old" or "new", got ${preview(change, 80)}`,
    );
  }
  if (o !== undefined && !isObject(o)) throw notAnObject(table, uuid, '"old"', o);
  if (n !== undefined && !isObject(n)) throw notAnObject(table, uuid, '"new"', n);
  return n as WireRow | undefined;
}

// ---- applying one change ----------------------------------------------------

/**
 * Apply one `update2`/`update3` row change to `current` (the row before, or
 * undefined when the replica does not have it). Returns the row after, or
 * undefined when the change deletes it.
 * @throws ProtocolError for a change that is not one: `uuid` is not a
 *   (lower-case) UUID, `change` is not an object with exactly one of
 *   `initial`, `insert`, `modify` (objects) or `delete` (null), or a value
 *   does not fit its column; the message names the table and the key.
 * @throws ReplicaInconsistencyError for a `modify` or `delete` of a missing
 *   row, or an `insert` of a present one (an `initial` always replaces).
 */
export function applyRowUpdate2(
  codec: RowCodec,
  uuid: string,
  current: Row | undefined,
  change: RowUpdate2,
): Row | undefined {
  const table = codec.table.name;
  checkRowKey(table, uuid);
  const kind = update2Kind(table, uuid, change);
  if (kind === DELETE) {
    if (current === undefined) {
      throw new ReplicaInconsistencyError(table, uuid, 'delete of a row not in the replica');
    }
    return undefined;
  }
  if (kind === MODIFY && current === undefined) {
    throw new ReplicaInconsistencyError(table, uuid, 'modify of a row not in the replica');
  }
  if (kind === INSERT && current !== undefined) {
    throw new ReplicaInconsistencyError(table, uuid, 'insert of a row already in the replica');
  }
  try {
    if (kind === MODIFY) return codec.applyModify(current as Row, change.modify as WireRow);
    return codec.decodeRow(uuid, (kind === INITIAL ? change.initial : change.insert) as WireRow);
  } catch (e) {
    throw asMalformed(table, uuid, e);
  }
}

/**
 * Apply one plain `update` row change (`old`/`new`, from `monitor`) to
 * `current`. Returns the row after, or undefined when the change deletes it.
 * @throws ProtocolError for a change that is not one (see
 *   {@link applyRowUpdate2}: `old` and `new` must be objects, one at least).
 * @throws ReplicaInconsistencyError for a deletion of a missing row.
 */
export function applyRowUpdate(
  codec: RowCodec,
  uuid: string,
  current: Row | undefined,
  change: RowUpdate,
): Row | undefined {
  const table = codec.table.name;
  checkRowKey(table, uuid);
  const next = updateNew(table, uuid, change);
  if (next === undefined) {
    if (current === undefined) {
      throw new ReplicaInconsistencyError(table, uuid, 'delete of a row not in the replica');
    }
    return undefined;
  }
  try {
    return codec.applyNew(uuid, current, next);
  } catch (e) {
    throw asMalformed(table, uuid, e);
  }
}

/**
 * The row one entry of a full dump gives (the `initial`, `insert` or
 * `modify` row of an `update2` change, the `new` row of a plain one), or
 * undefined when it carries none (a `delete`, or an `old` alone).
 * @throws ProtocolError for an entry that is not a row change, as
 *   {@link applyRowUpdate2} and {@link applyRowUpdate} do.
 */
export function decodeDumpRow(
  codec: RowCodec,
  uuid: string,
  change: RowUpdate2 | RowUpdate,
  format: 'update2' | 'update',
): Row | undefined {
  const table = codec.table.name;
  checkRowKey(table, uuid);
  let wire: WireRow | undefined;
  if (format === 'update2') {
    const kind = update2Kind(table, uuid, change);
    if (kind === DELETE) return undefined;
    const c = change as RowUpdate2;
    wire = (kind === INITIAL ? c.initial : kind === INSERT ? c.insert : c.modify) as WireRow;
  } else {
    wire = updateNew(table, uuid, change);
    if (wire === undefined) return undefined;
  }
  try {
    return codec.decodeRow(uuid, wire);
  } catch (e) {
    throw asMalformed(table, uuid, e);
  }
}

// ---- computing diffs (for tests and tools) -------------------------------------

/**
 * The `update2` `modify` diff of one column from `before` to `after` (JS
 * values), as wire JSON, or undefined when they are equal. Applying it with
 * {@link RowCodec.applyModify} to `before` gives `after`.
 * @param table - the table name, for error messages.
 * @throws DatumError when a value does not fit the column.
 */
export function columnDiff(
  table: string,
  column: ColumnSchema,
  before: unknown,
  after: unknown,
): unknown {
  const ops = columnOps(table, column);
  if (ops.equal(before, after)) return undefined;
  const codec = compileColumnCodec(table, column);
  const { type } = column;
  if (type.max <= 1) return codec.encode(after);
  if (type.kind === 'set') {
    // The server's set diff (`ovsdb_datum_diff`), on the two sets in canonical order.
    const a = { keys: sortedDistinct(before as readonly Atom[]) };
    const b = { keys: sortedDistinct(after as readonly Atom[]) };
    return codec.encode(datumDiff(a, b, type).keys);
  }
  const a = before as Readonly<Record<string, unknown>>;
  const b = after as Readonly<Record<string, unknown>>;
  const diff: Record<string, unknown> = {};
  for (const k of Object.keys(a)) {
    if (!Object.hasOwn(b, k)) setOwn(diff, k, a[k]);
    else if (a[k] !== b[k]) setOwn(diff, k, b[k]);
  }
  for (const k of Object.keys(b)) if (!Object.hasOwn(a, k)) setOwn(diff, k, b[k]);
  return codec.encode(diff);
}

/**
 * The `modify` row of an `update2` from `before` to `after` over `columns`
 * (default: every column of `codec`): only the changed columns, each as
 * {@link columnDiff}. Undefined when nothing changed.
 */
export function rowDiff(codec: RowCodec, before: Row, after: Row): WireRow | undefined {
  const out: Record<string, unknown> = {};
  let any = false;
  for (const c of codec.columns) {
    const d = columnDiff(codec.table.name, codec.table.columns[c]!, before[c], after[c]);
    if (d !== undefined) {
      out[c] = d;
      any = true;
    }
  }
  return any ? (out as WireRow) : undefined;
}

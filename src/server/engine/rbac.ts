/**
 * Role-based access control, as ovsdb-server enforces it (`ovsdb/rbac.c`,
 * ovsdb-server(7) "Role-Based Access Control", ovn-sb(5) `RBAC_Role`): a
 * session whose remote names a role (a `Connection` row's `role`) may
 * insert, delete, update and mutate only where its role's permissions
 * allow, in a database that has an `RBAC_Role` table.
 *
 * - The role is the `RBAC_Role` row whose `name` is the role; its
 *   `permissions` map a table name to an `RBAC_Permission` row. No row, or
 *   no entry for the table: every write to that table is refused.
 * - A row is the client's when one of the permission's `authorization`
 *   entries holds: `""` (every row), `COLUMN` (that string column equals
 *   the client's identity) or `COLUMN:KEY` (that key of a string map).
 * - Insert and delete also need `insert_delete`; update and mutate change
 *   only columns listed in `update`, on rows that are the client's (every
 *   row the `where` selects).
 * - The client's identity is the common name of its TLS certificate: a
 *   connection without one (tcp, unix) is refused every write under a role,
 *   and named `(null)` in the error, as ovsdb-server names it.
 *
 * A refusal is the error `permission error` with ovsdb-server's details.
 * @module
 */

import type { TableSchema } from '../../ovsdb/schema/schema-types.js';
import type { Datum, DatumType } from '../../ovsdb/values/sorted-datum.js';
import { OpError } from './op-error.js';
import { queryRows } from './query.js';
import type { Txn } from './staging.js';
import { columnType, type Row } from './table-store.js';
import type { DatabaseState } from './types.js';

/** The client of one transaction, for RBAC. */
export interface RbacClient {
  readonly db: DatabaseState;
  readonly txn: Txn;
  readonly role: string;
  readonly id: string | undefined;
}

/** The RBAC client of a transaction, or undefined when RBAC does not apply to it. */
export function rbacClient(
  db: DatabaseState,
  txn: Txn,
  role: string | undefined,
  id: string | undefined,
): RbacClient | undefined {
  if (role === undefined || role === '' || !Object.hasOwn(db.schema.tables, 'RBAC_Role')) {
    return undefined;
  }
  return { db, txn, role, id };
}

/** `ovsdb_util_get_datum`: the column's datum when its type is exactly this, else undefined. */
function datumOf(
  table: TableSchema,
  row: Row,
  column: string,
  key: string,
  value: string | undefined,
  max: number,
): Datum | undefined {
  if (!Object.hasOwn(table.columns, column)) return undefined;
  const t: DatumType = columnType(table, column);
  if (t.key.type !== key || t.value?.type !== value || t.max !== max) return undefined;
  return row.fields[column];
}

/** `ovsdb_util_read_string_column`: a string column's value (none: undefined). */
function readString(table: TableSchema, row: Row, column: string): string | undefined {
  const d = datumOf(table, row, column, 'string', undefined, 1);
  return d === undefined || d.keys.length === 0 ? undefined : (d.keys[0] as string);
}

/** `ovsdb_util_read_map_string_column`: `key`'s value in a string-to-string map. */
function readMapString(
  table: TableSchema,
  row: Row,
  column: string,
  key: string,
): string | undefined {
  const d = datumOf(table, row, column, 'string', 'string', Number.POSITIVE_INFINITY);
  if (d === undefined) return undefined;
  const i = d.keys.indexOf(key);
  return i < 0 ? undefined : (d.values?.[i] as string);
}

function tableSchema(db: DatabaseState, name: string): TableSchema {
  return db.schema.tables[name] as TableSchema;
}

/** `ovsdb_rbac_lookup_perms`: the permission row of the client's role for `table`. */
function permissions(c: RbacClient, table: string): Row | undefined {
  const roles = tableSchema(c.db, 'RBAC_Role');
  const role = queryRows(c.db, c.txn, roles, []).find((r) => {
    if (!Object.hasOwn(roles.columns, 'name')) return false;
    const names = r.fields.name?.keys ?? [];
    return names.some((n) => typeof n === 'string' && n !== '' && n === c.role);
  });
  if (role === undefined) return undefined;
  const perms = datumOf(roles, role, 'permissions', 'string', 'uuid', Number.POSITIVE_INFINITY);
  if (perms === undefined) return undefined;
  const i = perms.keys.indexOf(table);
  if (i < 0) return undefined;
  const ref = columnType(roles, 'permissions').value?.refTable;
  if (ref === undefined || !Object.hasOwn(c.db.schema.tables, ref)) return undefined;
  return c.txn.getRow(ref, perms.values?.[i] as string);
}

/** `ovsdb_rbac_authorized`: whether `row` is the client's under `perms`. */
function authorized(
  c: RbacClient,
  perms: Row,
  permTable: TableSchema,
  table: TableSchema,
  row: Row,
): boolean {
  const auth = datumOf(
    permTable,
    perms,
    'authorization',
    'string',
    undefined,
    Number.POSITIVE_INFINITY,
  );
  if (auth === undefined) return false;
  for (const a of auth.keys as string[]) {
    if (a === '') return true;
    let value: string | undefined;
    if (a.includes(':')) {
      // strtok: empty fields are skipped.
      const [column, key] = a.split(':').filter((t) => t !== '');
      if (column !== undefined && key !== undefined) value = readMapString(table, row, column, key);
    } else {
      value = readString(table, row, a);
    }
    if (value !== undefined && value === c.id) return true;
  }
  return false;
}

function readBool(table: TableSchema, row: Row, column: string): boolean | undefined {
  const d = datumOf(table, row, column, 'boolean', undefined, 1);
  return d === undefined || d.keys.length === 0 ? undefined : (d.keys[0] as boolean);
}

function permTableOf(c: RbacClient): TableSchema {
  const ref = columnType(tableSchema(c.db, 'RBAC_Role'), 'permissions').value?.refTable as string;
  return tableSchema(c.db, ref);
}

function refuse(c: RbacClient, what: string): OpError {
  return new OpError(
    'permission error',
    `RBAC rules for client "${c.id ?? '(null)'}" role "${c.role}" ${what}`,
  );
}

/** Check the insertion of `row` into `table`. @throws OpError when refused. */
export function checkInsert(c: RbacClient, table: TableSchema, row: Row): void {
  const perms = c.id === undefined ? undefined : permissions(c, table.name);
  if (
    perms === undefined ||
    !authorized(c, perms, permTableOf(c), table, row) ||
    readBool(permTableOf(c), perms, 'insert_delete') !== true
  ) {
    throw refuse(c, `prohibit row insertion into table "${table.name}".`);
  }
}

/** Check the deletion of `rows` (those the `where` selects) from `table`. @throws OpError when refused. */
export function checkDelete(c: RbacClient, table: TableSchema, rows: readonly Row[]): void {
  const perms = c.id === undefined ? undefined : permissions(c, table.name);
  const ok =
    perms !== undefined &&
    rows.every(
      (r) =>
        authorized(c, perms, permTableOf(c), table, r) &&
        readBool(permTableOf(c), perms, 'insert_delete') === true,
    );
  if (!ok) throw refuse(c, `prohibit row deletion from table "${table.name}".`);
}

/**
 * Check an update (`mutate` false) or mutation of `columns` of `rows` (those
 * the `where` selects) in `table`. @throws OpError when refused.
 */
export function checkModify(
  c: RbacClient,
  table: TableSchema,
  columns: readonly string[],
  rows: readonly Row[],
  mutate: boolean,
): void {
  const perms = c.id === undefined ? undefined : permissions(c, table.name);
  const permTable = permTableOf(c);
  const update =
    perms === undefined
      ? undefined
      : datumOf(permTable, perms, 'update', 'string', undefined, Number.POSITIVE_INFINITY);
  const ok =
    perms !== undefined &&
    update !== undefined &&
    rows.every(
      (r) =>
        authorized(c, perms, permTable, table, r) &&
        columns.every((col) => update.keys.includes(col)),
    );
  if (!ok) {
    throw refuse(
      c,
      mutate
        ? `prohibit mutate operation on table "${table.name}".`
        : `prohibit modification of table "${table.name}".`,
    );
  }
}

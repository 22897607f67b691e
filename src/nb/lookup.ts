/**
 * Finding Northbound objects by name or UUID, the way `ovn-nbctl` does: a
 * string that is a UUID of an existing row names that row; otherwise it is a
 * name. Names of logical switches, logical routers and load balancers are not
 * unique in the schema: when several rows have the name, the lookup fails
 * with {@link AmbiguousNameError} (use the UUID). A name in a table with a
 * schema index on `name` is looked up in that index (no scan). Lookups read the
 * transaction's view ({@link NbTxn}), so objects created earlier in the same
 * transaction are found.
 * @module
 */

import { isUuid } from '../ovsdb/values/uuid.js';
import {
  AmbiguousNameError,
  InvalidArgumentError,
  type NbObjectKind,
  NotFoundError,
} from './errors.js';
import { type DeleteOptions, existing } from './existence.js';
import type { NbTablesWith, RowIn } from './needs.js';
import type { NbRow, NbTable, NbTxn } from './txn.js';

/** A logical switch: its name or UUID (or the ref `lsAdd` returned). */
export type SwitchRef = string;
/** A logical switch port: its name or UUID. */
export type PortRef = string;
/** A logical router: its name or UUID. */
export type RouterRef = string;
/** A logical router port: its name or UUID. */
export type RouterPortRef = string;
/** A port group: its name or UUID. */
export type PortGroupRef = string;
/** An address set: its name or UUID. */
export type AddressSetRef = string;
/** A load balancer: its name or UUID. */
export type LoadBalancerRef = string;
/** An HA chassis group: its name or UUID. */
export type HaChassisGroupRef = string;

/** A table whose rows are found by name. */
export type NamedTable = Extract<
  NbTable,
  | 'Logical_Switch'
  | 'Logical_Switch_Port'
  | 'Logical_Router'
  | 'Logical_Router_Port'
  | 'Port_Group'
  | 'Address_Set'
  | 'Load_Balancer'
  | 'HA_Chassis_Group'
  | 'Gateway_Chassis'
>;

/** The table maps whose table `T` has a `name` column. */
type Named<T extends string> = NbTablesWith<{ readonly [K in T]: readonly ['name'] }>;

/** The kind of object of each table found by name. */
const KINDS: Readonly<Record<NamedTable, NbObjectKind>> = {
  Logical_Switch: 'logical switch',
  Logical_Switch_Port: 'logical switch port',
  Logical_Router: 'logical router',
  Logical_Router_Port: 'logical router port',
  Port_Group: 'port group',
  Address_Set: 'address set',
  Load_Balancer: 'load balancer',
  HA_Chassis_Group: 'HA chassis group',
  Gateway_Chassis: 'gateway chassis',
};

/**
 * The row `ref` (a UUID or a name) of `table`, or undefined when none exists.
 * @throws AmbiguousNameError when several rows have the name.
 */
export function findNamed<T extends NamedTable, DB extends Named<T>>(
  t: NbTxn<DB>,
  table: T,
  ref: string,
): RowIn<DB, T> | undefined;
export function findNamed<T extends NamedTable>(
  t: NbTxn,
  table: T,
  ref: string,
): NbRow<T> | undefined {
  const kind = KINDS[table];
  if (typeof ref !== 'string' || ref === '') {
    throw new InvalidArgumentError(`${kind} name`, ref, 'a name or UUID is required');
  }
  if (isUuid(ref)) {
    const row = t.get(table, ref);
    if (row !== undefined) return row;
  }
  const rows = rowsNamed(t, table, ref);
  if (rows.length > 1) {
    throw new AmbiguousNameError(kind, ref, rows.map((r) => (r as { _uuid: string })._uuid).sort());
  }
  return rows[0];
}

/**
 * The row `ref` (a UUID or a name) of `table`.
 * @throws NotFoundError when none exists; AmbiguousNameError when several
 *   rows have the name.
 */
export function getNamed<T extends NamedTable, DB extends Named<T>>(
  t: NbTxn<DB>,
  table: T,
  ref: string,
): RowIn<DB, T>;
export function getNamed<T extends NamedTable>(t: NbTxn, table: T, ref: string): NbRow<T> {
  const row = findNamed(t, table, ref);
  if (row === undefined) throw new NotFoundError(KINDS[table], ref);
  return row;
}

/**
 * The row `ref` (a UUID or a name) of `table` that a delete names:
 * undefined when none exists and `ifExists` (the delete does nothing).
 * @throws NotFoundError when none exists without `ifExists`;
 *   AmbiguousNameError when several rows have the name.
 */
export function namedTarget<T extends NamedTable, DB extends Named<T>>(
  t: NbTxn<DB>,
  table: T,
  ref: string,
  options: DeleteOptions,
): RowIn<DB, T> | undefined;
export function namedTarget<T extends NamedTable>(
  t: NbTxn,
  table: T,
  ref: string,
  options: DeleteOptions,
): NbRow<T> | undefined {
  return existing(findNamed(t, table, ref), options, () => new NotFoundError(KINDS[table], ref));
}

/**
 * The rows of `table` named `name` (by name only, never by UUID).
 */
export function rowsNamed<T extends NamedTable, DB extends Named<T>>(
  t: NbTxn<DB>,
  table: T,
  name: string,
): RowIn<DB, T>[];
export function rowsNamed<T extends NamedTable>(t: NbTxn, table: T, name: string): NbRow<T>[] {
  if (indexedByName(t, table)) {
    const row = t.lookup(table, { name } as never) as NbRow<T> | undefined;
    return row === undefined ? [] : [row];
  }
  return t.filter(table, (r) => (r as { name: string }).name === name);
}

/**
 * Whether the model's `table` has a schema index on exactly `name` (ports,
 * router ports, port groups, address sets, HA chassis groups in the NB
 * schemas): then a name is looked up in the replica's index, one hash
 * access, instead of a scan of the table.
 */
function indexedByName(t: NbTxn, table: NamedTable): boolean {
  return t.schema(table).indexes.some((i) => i.length === 1 && i[0] === 'name');
}

/** The kind of object the rows of `table` are. */
export function kindOf(table: NamedTable): NbObjectKind {
  return KINDS[table];
}

/**
 * HA chassis groups: named, prioritized sets of chassis that host a
 * distributed gateway port or an `external` switch port
 * (`ovn-nbctl ha-chassis-group-add`, `-del`, `-add-chassis`,
 * `-remove-chassis`, `-set-chassis-prio`).
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { AlreadyExistsError, NotFoundError } from './errors.js';
import { type CreateOptions, type DeleteOptions, existing } from './existence.js';
import { getNamed, type HaChassisGroupRef, namedTarget, rowsNamed } from './lookup.js';
import type { NeedsOf } from './needs.js';
import { byName } from './order.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkName, checkPriority, checkStringMap } from './validate.js';

/** Options of {@link haChassisGroupAdd}. */
export interface HaChassisGroupAddOptions extends CreateOptions {
  /** Chassis and their priorities (0..32767, highest active). */
  readonly chassis?: Readonly<Record<string, number>> | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

/**
 * Create an HA chassis group, optionally with its chassis.
 *
 * ```ts
 * haChassisGroupAdd(t, 'hagrp', { chassis: { 'gw-1': 20, 'gw-2': 10 } });
 * // {"op":"insert","table":"HA_Chassis","row":{"chassis_name":"gw-1","priority":20},…}
 * // {"op":"insert","table":"HA_Chassis","row":{"chassis_name":"gw-2","priority":10},…}
 * // {"op":"insert","table":"HA_Chassis_Group","row":{"ha_chassis":["set",[["named-uuid","row0"],["named-uuid","row1"]]],"name":"hagrp"},…}
 * ```
 * @throws AlreadyExistsError (unless `mayExist`); OutOfRangeError for a priority.
 */
export function haChassisGroupAdd<DB extends NeedsOf<'haChassisGroupAdd'>>(
  t: NbTxn<DB>,
  name: string,
  options?: HaChassisGroupAddOptions,
): Uuid<'HA_Chassis_Group'>;
export function haChassisGroupAdd(
  t: NbTxn,
  name: string,
  options: HaChassisGroupAddOptions = {},
): Uuid<'HA_Chassis_Group'> {
  checkName('HA_Chassis_Group.name', name);
  const chassis = Object.entries(options.chassis ?? {}).map(([c, p]) => {
    checkName('HA_Chassis.chassis_name', c);
    return [c, checkPriority('HA_Chassis.priority', p)] as const;
  });
  const externalIds =
    options.externalIds === undefined
      ? undefined
      : checkStringMap('HA_Chassis_Group.external_ids', options.externalIds);
  const existing = rowsNamed(t, 'HA_Chassis_Group', name)[0];
  if (existing !== undefined) {
    if (options.mayExist) return existing._uuid;
    throw new AlreadyExistsError(
      'HA chassis group',
      JSON.stringify(name),
      undefined,
      existing._uuid,
    );
  }
  const refs = chassis.map(([c, p]) => t.insert('HA_Chassis', { chassis_name: c, priority: p }));
  return t.insert('HA_Chassis_Group', {
    name,
    ...(refs.length > 0 ? { ha_chassis: refs } : {}),
    ...(externalIds !== undefined ? { external_ids: externalIds } : {}),
  });
}

/**
 * Delete an HA chassis group (ports that use it lose it).
 * @throws NotFoundError (unless `ifExists`).
 */
export function haChassisGroupDel<DB extends NeedsOf<'haChassisGroupDel'>>(
  t: NbTxn<DB>,
  group: HaChassisGroupRef,
  options?: DeleteOptions,
): void;
export function haChassisGroupDel(
  t: NbTxn,
  group: HaChassisGroupRef,
  options: DeleteOptions = {},
): void {
  const row = namedTarget(t, 'HA_Chassis_Group', group, options);
  if (row === undefined) return;
  for (const table of ['Logical_Router_Port', 'Logical_Switch_Port'] as const) {
    for (const r of t.referrers(table, 'ha_chassis_group', row._uuid)) {
      t.update(table, r._uuid, { ha_chassis_group: null });
    }
  }
  t.delete('HA_Chassis_Group', row._uuid);
}

function chassisOf(
  t: NbTxn,
  group: NbRow<'HA_Chassis_Group'>,
  chassis: string,
): NbRow<'HA_Chassis'> | undefined {
  return group.ha_chassis
    .map((u) => t.get('HA_Chassis', u))
    .find((c) => c?.chassis_name === chassis);
}

/**
 * Add a chassis with a priority to a group.
 * @throws AlreadyExistsError when the chassis is in the group (unless
 *   `mayExist`, which leaves its priority as is: use
 *   {@link haChassisGroupSetChassisPriority}); OutOfRangeError.
 */
export function haChassisGroupAddChassis<DB extends NeedsOf<'haChassisGroupAddChassis'>>(
  t: NbTxn<DB>,
  group: HaChassisGroupRef,
  chassis: string,
  priority: number,
  options?: CreateOptions,
): Uuid<'HA_Chassis'>;
export function haChassisGroupAddChassis(
  t: NbTxn,
  group: HaChassisGroupRef,
  chassis: string,
  priority: number,
  options: CreateOptions = {},
): Uuid<'HA_Chassis'> {
  checkName('HA_Chassis.chassis_name', chassis);
  const p = checkPriority('HA_Chassis.priority', priority);
  const grp = getNamed(t, 'HA_Chassis_Group', group);
  const existing = chassisOf(t, grp, chassis);
  if (existing !== undefined) {
    if (options.mayExist) return existing._uuid;
    throw new AlreadyExistsError(
      'HA chassis',
      JSON.stringify(chassis),
      `in HA chassis group ${grp.name}`,
      existing._uuid,
    );
  }
  const hc = t.insert('HA_Chassis', { chassis_name: chassis, priority: p });
  t.addToSet('HA_Chassis_Group', grp._uuid, 'ha_chassis', [hc]);
  return hc;
}

/**
 * Set the priority of a chassis of a group, adding it when missing
 * (`ovn-nbctl ha-chassis-group-add-chassis` semantics).
 */
export function haChassisGroupSetChassisPriority<
  DB extends NeedsOf<'haChassisGroupSetChassisPriority'>,
>(t: NbTxn<DB>, group: HaChassisGroupRef, chassis: string, priority: number): Uuid<'HA_Chassis'>;
export function haChassisGroupSetChassisPriority(
  t: NbTxn,
  group: HaChassisGroupRef,
  chassis: string,
  priority: number,
): Uuid<'HA_Chassis'> {
  const p = checkPriority('HA_Chassis.priority', priority);
  const grp = getNamed(t, 'HA_Chassis_Group', group);
  const existing = chassisOf(t, grp, chassis);
  if (existing === undefined) return haChassisGroupAddChassis(t, group, chassis, p);
  if (existing.priority !== p) t.update('HA_Chassis', existing._uuid, { priority: p });
  return existing._uuid;
}

/**
 * Remove a chassis from a group.
 * @throws NotFoundError (unless `ifExists`).
 */
export function haChassisGroupRemoveChassis<DB extends NeedsOf<'haChassisGroupRemoveChassis'>>(
  t: NbTxn<DB>,
  group: HaChassisGroupRef,
  chassis: string,
  options?: DeleteOptions,
): void;
export function haChassisGroupRemoveChassis(
  t: NbTxn,
  group: HaChassisGroupRef,
  chassis: string,
  options: DeleteOptions = {},
): void {
  const grp = getNamed(t, 'HA_Chassis_Group', group);
  const member = existing(
    chassisOf(t, grp, chassis),
    options,
    () => new NotFoundError('HA chassis', chassis, `in HA chassis group ${grp.name}`),
  );
  if (member === undefined) return;
  t.removeFromSet('HA_Chassis_Group', grp._uuid, 'ha_chassis', [member._uuid]);
}

/** An HA chassis group as `ovn-nbctl ha-chassis-group-list` prints it. */
export interface HaChassisGroupInfo {
  readonly uuid: Uuid<'HA_Chassis_Group'>;
  readonly name: string;
  /** Its chassis, highest priority first, then by chassis name (`ovn-nbctl` lists them in the database's order). */
  readonly chassis: readonly {
    readonly uuid: Uuid<'HA_Chassis'>;
    readonly chassisName: string;
    readonly priority: number;
  }[];
}

/**
 * Every HA chassis group, sorted by name, with its chassis by priority
 * (`ovn-nbctl ha-chassis-group-list`).
 */
export function haChassisGroupList<DB extends NeedsOf<'haChassisGroupList'>>(
  t: NbTxn<DB>,
): HaChassisGroupInfo[];
export function haChassisGroupList(t: NbTxn): HaChassisGroupInfo[] {
  return t
    .rows('HA_Chassis_Group')
    .sort(byName)
    .map((g) => ({
      uuid: g._uuid,
      name: g.name,
      chassis: g.ha_chassis
        .map((u) => t.get('HA_Chassis', u))
        .filter((c): c is NbRow<'HA_Chassis'> => c !== undefined)
        .map((c) => ({ uuid: c._uuid, chassisName: c.chassis_name, priority: c.priority }))
        .sort((a, b) =>
          a.priority !== b.priority
            ? b.priority - a.priority
            : a.chassisName < b.chassisName
              ? -1
              : a.chassisName > b.chassisName
                ? 1
                : 0,
        ),
    }));
}

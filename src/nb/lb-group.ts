/**
 * Load balancer groups: a named set of load balancers attached to switches
 * and routers as one (the `Load_Balancer_Group` table, and the
 * `load_balancer_group` columns of `Logical_Switch` and `Logical_Router`).
 * `ovn-nbctl` 23.03 has no command for them; `ovn-northd` treats a group's
 * load balancers as attached to every switch and router that holds the
 * group.
 *
 * A group's name is unique (a schema index): lookups by name use the index
 * (`t.lookup`), not a scan.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { isUuid } from '../ovsdb/values/uuid.js';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from './errors.js';
import { type CreateOptions, type DeleteOptions, existing } from './existence.js';
import { type Attachable, attachTo, detachFrom } from './lb-attach.js';
import {
  findNamed,
  getNamed,
  type LoadBalancerRef,
  type RouterRef,
  type SwitchRef,
} from './lookup.js';
import type { NeedsOf, RowIn } from './needs.js';
import { byName } from './order.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkName } from './validate.js';

/** A load balancer group: its name or UUID. */
export type LoadBalancerGroupRef = string;

/** Options of {@link lbGroupAdd}. */
export interface LbGroupAddOptions extends CreateOptions {
  /** The group's load balancers (names or UUIDs). */
  readonly loadBalancers?: readonly LoadBalancerRef[] | undefined;
}

type GroupRow = NbRow<'Load_Balancer_Group'>;

/** The group `ref` (a UUID or a name), by the table's name index. */
function findGroup(t: NbTxn, ref: string): GroupRow | undefined {
  checkName('Load_Balancer_Group.name', ref);
  if (isUuid(ref)) {
    const row = t.get('Load_Balancer_Group', ref);
    if (row !== undefined) return row;
  }
  return t.lookup('Load_Balancer_Group', { name: ref });
}

function getGroup(t: NbTxn, ref: string): GroupRow {
  const row = findGroup(t, ref);
  if (row === undefined) throw new NotFoundError('load balancer group', ref);
  return row;
}

/**
 * Create a load balancer group.
 *
 * ```ts
 * lbGroupAdd(t, 'cluster-lbs', { loadBalancers: ['lb-web', 'lb-dns'] });
 * // {"op":"insert","table":"Load_Balancer_Group","row":{"load_balancer":["set",[["uuid","<lb-web>"],…]],"name":"cluster-lbs"},…}
 * ```
 * @throws AlreadyExistsError when a group has the name (unless `mayExist`:
 *   it is then returned as is); NotFoundError for an unknown load balancer.
 */
export function lbGroupAdd<DB extends NeedsOf<'lbGroupAdd'>>(
  t: NbTxn<DB>,
  name: string,
  options?: LbGroupAddOptions,
): Uuid<'Load_Balancer_Group'>;
export function lbGroupAdd(
  t: NbTxn,
  name: string,
  options: LbGroupAddOptions = {},
): Uuid<'Load_Balancer_Group'> {
  checkName('Load_Balancer_Group.name', name);
  if (options.loadBalancers !== undefined && !Array.isArray(options.loadBalancers))
    throw new InvalidArgumentError(
      'Load_Balancer_Group.load_balancer',
      options.loadBalancers,
      'must be a list of load balancers',
    );
  const lbs = [
    ...new Set((options.loadBalancers ?? []).map((lb) => getNamed(t, 'Load_Balancer', lb)._uuid)),
  ];
  const existing = findGroup(t, name);
  if (existing !== undefined && existing.name === name) {
    if (options.mayExist) return existing._uuid;
    throw new AlreadyExistsError(
      'load balancer group',
      JSON.stringify(name),
      undefined,
      existing._uuid,
    );
  }
  return t.insert('Load_Balancer_Group', {
    name,
    ...(lbs.length > 0 ? { load_balancer: lbs } : {}),
  });
}

/**
 * Delete a load balancer group, detaching it from the switches and routers
 * that hold it first (they reference it strongly).
 * @throws NotFoundError (unless `ifExists`).
 */
export function lbGroupDel<DB extends NeedsOf<'lbGroupDel'>>(
  t: NbTxn<DB>,
  group: LoadBalancerGroupRef,
  options?: DeleteOptions,
): void;
export function lbGroupDel(
  t: NbTxn,
  group: LoadBalancerGroupRef,
  options: DeleteOptions = {},
): void {
  const row = existing(
    findGroup(t, group),
    options,
    () => new NotFoundError('load balancer group', group),
  );
  if (row === undefined) return;
  for (const table of ['Logical_Switch', 'Logical_Router'] as const) {
    for (const owner of t.referrers(table, 'load_balancer_group', row._uuid)) {
      t.removeFromSet(table, owner._uuid, 'load_balancer_group', [row._uuid]);
    }
  }
  t.delete('Load_Balancer_Group', row._uuid);
}

/** Every load balancer group, sorted by name. */
export function lbGroupList<DB extends NeedsOf<'lbGroupList'>>(
  t: NbTxn<DB>,
): RowIn<DB, 'Load_Balancer_Group'>[];
export function lbGroupList(t: NbTxn): GroupRow[] {
  return t.rows('Load_Balancer_Group').sort(byName);
}

/**
 * Add a load balancer to a group.
 * @throws NotFoundError for an unknown group or load balancer;
 *   AlreadyExistsError when it is in the group already (unless `mayExist`).
 */
export function lbGroupAddLb<DB extends NeedsOf<'lbGroupAddLb'>>(
  t: NbTxn<DB>,
  group: LoadBalancerGroupRef,
  lb: LoadBalancerRef,
  options?: CreateOptions,
): void;
export function lbGroupAddLb(
  t: NbTxn,
  group: LoadBalancerGroupRef,
  lb: LoadBalancerRef,
  options: CreateOptions = {},
): void {
  const g = getGroup(t, group);
  const row = getNamed(t, 'Load_Balancer', lb);
  if (g.load_balancer.includes(row._uuid)) {
    if (options.mayExist) return;
    throw new AlreadyExistsError(
      'load balancer',
      JSON.stringify(row.name),
      `it is already in load balancer group ${g.name}`,
      row._uuid,
    );
  }
  t.addToSet('Load_Balancer_Group', g._uuid, 'load_balancer', [row._uuid]);
}

/**
 * Remove a load balancer from a group, or every one when `lb` is undefined.
 * @throws NotFoundError for an unknown group, or a load balancer not in it
 *   (unless `ifExists`).
 */
export function lbGroupDelLb<DB extends NeedsOf<'lbGroupDelLb'>>(
  t: NbTxn<DB>,
  group: LoadBalancerGroupRef,
  lb?: LoadBalancerRef,
  options?: DeleteOptions,
): void;
export function lbGroupDelLb(
  t: NbTxn,
  group: LoadBalancerGroupRef,
  lb?: LoadBalancerRef,
  options: DeleteOptions = {},
): void {
  const g = getGroup(t, group);
  if (lb === undefined) {
    if (g.load_balancer.length > 0)
      t.removeFromSet('Load_Balancer_Group', g._uuid, 'load_balancer', g.load_balancer);
    return;
  }
  const found = options.ifExists
    ? findNamed(t, 'Load_Balancer', lb)
    : getNamed(t, 'Load_Balancer', lb);
  const row = existing(
    found !== undefined && g.load_balancer.includes(found._uuid) ? found : undefined,
    options,
    () => new NotFoundError('load balancer', lb, `in load balancer group ${g.name}`),
  );
  if (row === undefined) return;
  t.removeFromSet('Load_Balancer_Group', g._uuid, 'load_balancer', [row._uuid]);
}

const GROUPS: Attachable = {
  column: 'load_balancer_group',
  kind: 'load balancer group',
  find: findGroup,
  get: getGroup,
};

/**
 * Attach a load balancer group to a switch.
 * @throws NotFoundError for an unknown switch or group; AlreadyExistsError
 *   when attached already (unless `mayExist`).
 */
export function lsLbGroupAdd<DB extends NeedsOf<'lsLbGroupAdd'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  group: LoadBalancerGroupRef,
  options?: CreateOptions,
): void;
export function lsLbGroupAdd(
  t: NbTxn,
  sw: SwitchRef,
  group: LoadBalancerGroupRef,
  options: CreateOptions = {},
): void {
  attachTo(t, 'Logical_Switch', getNamed(t, 'Logical_Switch', sw), GROUPS, group, options);
}

/**
 * Detach a load balancer group from a switch, or all of them when `group`
 * is undefined.
 * @throws NotFoundError when that one is not attached (unless `ifExists`).
 */
export function lsLbGroupDel<DB extends NeedsOf<'lsLbGroupDel'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  group?: LoadBalancerGroupRef,
  options?: DeleteOptions,
): void;
export function lsLbGroupDel(
  t: NbTxn,
  sw: SwitchRef,
  group?: LoadBalancerGroupRef,
  options: DeleteOptions = {},
): void {
  detachFrom(t, 'Logical_Switch', getNamed(t, 'Logical_Switch', sw), GROUPS, group, options);
}

/**
 * Attach a load balancer group to a router.
 * @throws NotFoundError for an unknown router or group; AlreadyExistsError
 *   when attached already (unless `mayExist`).
 */
export function lrLbGroupAdd<DB extends NeedsOf<'lrLbGroupAdd'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  group: LoadBalancerGroupRef,
  options?: CreateOptions,
): void;
export function lrLbGroupAdd(
  t: NbTxn,
  router: RouterRef,
  group: LoadBalancerGroupRef,
  options: CreateOptions = {},
): void {
  attachTo(t, 'Logical_Router', getNamed(t, 'Logical_Router', router), GROUPS, group, options);
}

/**
 * Detach a load balancer group from a router, or all of them when `group`
 * is undefined.
 * @throws NotFoundError when that one is not attached (unless `ifExists`).
 */
export function lrLbGroupDel<DB extends NeedsOf<'lrLbGroupDel'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  group?: LoadBalancerGroupRef,
  options?: DeleteOptions,
): void;
export function lrLbGroupDel(
  t: NbTxn,
  router: RouterRef,
  group?: LoadBalancerGroupRef,
  options: DeleteOptions = {},
): void {
  detachFrom(t, 'Logical_Router', getNamed(t, 'Logical_Router', router), GROUPS, group, options);
}

/**
 * Load balancers attached to switches and routers: `ovn-nbctl ls-lb-add`,
 * `ls-lb-del`, `lr-lb-add`, `lr-lb-del`, `ls-lb-list` and `lr-lb-list`
 * (the load balancers themselves are `load-balancer.ts`'s).
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { AlreadyExistsError, NotFoundError } from './errors.js';
import { type CreateOptions, type DeleteOptions, existing } from './existence.js';
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

function attach(
  t: NbTxn,
  table: 'Logical_Switch' | 'Logical_Router',
  owner: NbRow<'Logical_Switch'> | NbRow<'Logical_Router'>,
  lb: LoadBalancerRef,
  options: CreateOptions,
): void {
  const row = getNamed(t, 'Load_Balancer', lb);
  if (owner.load_balancer.includes(row._uuid)) {
    if (options.mayExist) return;
    throw new AlreadyExistsError(
      'load balancer',
      JSON.stringify(row.name),
      `it is already attached to ${table === 'Logical_Switch' ? 'switch' : 'router'} ${owner.name || owner._uuid}`,
      row._uuid,
    );
  }
  t.addToSet(table, owner._uuid, 'load_balancer', [row._uuid]);
}

function detach(
  t: NbTxn,
  table: 'Logical_Switch' | 'Logical_Router',
  owner: NbRow<'Logical_Switch'> | NbRow<'Logical_Router'>,
  lb: LoadBalancerRef | undefined,
  options: DeleteOptions,
): void {
  if (lb === undefined) {
    t.removeFromSet(table, owner._uuid, 'load_balancer', owner.load_balancer);
    return;
  }
  const found = findNamed(t, 'Load_Balancer', lb);
  const row = existing(
    found !== undefined && owner.load_balancer.includes(found._uuid) ? found : undefined,
    options,
    () =>
      new NotFoundError(
        'load balancer',
        lb,
        `on ${table === 'Logical_Switch' ? 'switch' : 'router'} ${owner.name || owner._uuid}`,
      ),
  );
  if (row === undefined) return;
  t.removeFromSet(table, owner._uuid, 'load_balancer', [row._uuid]);
}

/**
 * Attach a load balancer to a switch (`ovn-nbctl ls-lb-add`).
 *
 * ```ts
 * lsLbAdd(t, 'sw0', 'lb-web');
 * // {"op":"mutate","table":"Logical_Switch",…,"mutations":[["load_balancer","insert",["set",[["uuid","<lb>"]]]]]}
 * ```
 * @throws AlreadyExistsError when attached already (unless `mayExist`).
 */
export function lsLbAdd<DB extends NeedsOf<'lsLbAdd'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  lb: LoadBalancerRef,
  options?: CreateOptions,
): void;
export function lsLbAdd(
  t: NbTxn,
  sw: SwitchRef,
  lb: LoadBalancerRef,
  options: CreateOptions = {},
): void {
  attach(t, 'Logical_Switch', getNamed(t, 'Logical_Switch', sw), lb, options);
}

/**
 * Detach a load balancer from a switch, or all of them when `lb` is
 * undefined (`ovn-nbctl ls-lb-del`).
 * @throws NotFoundError when that one is not attached (unless `ifExists`).
 */
export function lsLbDel<DB extends NeedsOf<'lsLbDel'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  lb?: LoadBalancerRef,
  options?: DeleteOptions,
): void;
export function lsLbDel(
  t: NbTxn,
  sw: SwitchRef,
  lb?: LoadBalancerRef,
  options: DeleteOptions = {},
): void {
  detach(t, 'Logical_Switch', getNamed(t, 'Logical_Switch', sw), lb, options);
}

/** Attach a load balancer to a router (`ovn-nbctl lr-lb-add`). */
export function lrLbAdd<DB extends NeedsOf<'lrLbAdd'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  lb: LoadBalancerRef,
  options?: CreateOptions,
): void;
export function lrLbAdd(
  t: NbTxn,
  router: RouterRef,
  lb: LoadBalancerRef,
  options: CreateOptions = {},
): void {
  attach(t, 'Logical_Router', getNamed(t, 'Logical_Router', router), lb, options);
}

/** Detach a load balancer from a router, or all of them (`ovn-nbctl lr-lb-del`). */
export function lrLbDel<DB extends NeedsOf<'lrLbDel'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  lb?: LoadBalancerRef,
  options?: DeleteOptions,
): void;
export function lrLbDel(
  t: NbTxn,
  router: RouterRef,
  lb?: LoadBalancerRef,
  options: DeleteOptions = {},
): void {
  detach(t, 'Logical_Router', getNamed(t, 'Logical_Router', router), lb, options);
}

function attached(
  t: NbTxn,
  owner: { readonly load_balancer: readonly Uuid<'Load_Balancer'>[] },
): NbRow<'Load_Balancer'>[] {
  return owner.load_balancer
    .map((u) => t.get('Load_Balancer', u))
    .filter((r): r is NbRow<'Load_Balancer'> => r !== undefined)
    .sort(byName);
}

/**
 * The load balancers of a switch, sorted by name (`ovn-nbctl ls-lb-list`).
 * @throws NotFoundError for an unknown switch.
 */
export function lsLbList<DB extends NeedsOf<'lsLbList'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
): RowIn<DB, 'Load_Balancer'>[];
export function lsLbList(t: NbTxn, sw: SwitchRef): NbRow<'Load_Balancer'>[] {
  return attached(t, getNamed(t, 'Logical_Switch', sw));
}

/**
 * The load balancers of a router, sorted by name (`ovn-nbctl lr-lb-list`).
 * @throws NotFoundError for an unknown router.
 */
export function lrLbList<DB extends NeedsOf<'lrLbList'>>(
  t: NbTxn<DB>,
  router: RouterRef,
): RowIn<DB, 'Load_Balancer'>[];
export function lrLbList(t: NbTxn, router: RouterRef): NbRow<'Load_Balancer'>[] {
  return attached(t, getNamed(t, 'Logical_Router', router));
}

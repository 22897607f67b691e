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

/** What a set column of switches and routers attaches: load balancers, or their groups. */
export interface Attachable {
  /** The owner's set column. */
  readonly column: 'load_balancer' | 'load_balancer_group';
  /** The kind of object, for errors. */
  readonly kind: 'load balancer' | 'load balancer group';
  /** The row `ref` (a UUID or a name), or undefined. */
  find(t: NbTxn, ref: string): { readonly _uuid: string; readonly name: string } | undefined;
  /** The row `ref`. @throws NotFoundError when there is none. */
  get(t: NbTxn, ref: string): { readonly _uuid: string; readonly name: string };
}

type Owner = 'Logical_Switch' | 'Logical_Router';
type OwnerRow = NbRow<'Logical_Switch'> | NbRow<'Logical_Router'>;

function ownerText(table: Owner, owner: OwnerRow): string {
  return `${table === 'Logical_Switch' ? 'switch' : 'router'} ${owner.name || owner._uuid}`;
}

/** Add `ref` to `owner`'s set column of `what` (`ls-lb-add`, `ls-lb-group-add`, …). */
export function attachTo(
  t: NbTxn,
  table: Owner,
  owner: OwnerRow,
  what: Attachable,
  ref: string,
  options: CreateOptions,
): void {
  const row = what.get(t, ref);
  const attached: readonly string[] = owner[what.column];
  if (attached.includes(row._uuid)) {
    if (options.mayExist) return;
    throw new AlreadyExistsError(
      what.kind,
      JSON.stringify(row.name),
      `it is already attached to ${ownerText(table, owner)}`,
      row._uuid,
    );
  }
  t.addToSet(table, owner._uuid, what.column, [row._uuid]);
}

/** Remove `ref`, or every element when undefined, from `owner`'s set column of `what`. */
export function detachFrom(
  t: NbTxn,
  table: Owner,
  owner: OwnerRow,
  what: Attachable,
  ref: string | undefined,
  options: DeleteOptions,
): void {
  const attached: readonly string[] = owner[what.column];
  if (ref === undefined) {
    t.removeFromSet(table, owner._uuid, what.column, attached);
    return;
  }
  const found = what.find(t, ref);
  const row = existing(
    found !== undefined && attached.includes(found._uuid) ? found : undefined,
    options,
    () => new NotFoundError(what.kind, ref, `on ${ownerText(table, owner)}`),
  );
  if (row === undefined) return;
  t.removeFromSet(table, owner._uuid, what.column, [row._uuid]);
}

const LOAD_BALANCERS: Attachable = {
  column: 'load_balancer',
  kind: 'load balancer',
  find: (t, ref) => findNamed(t, 'Load_Balancer', ref),
  get: (t, ref) => getNamed(t, 'Load_Balancer', ref),
};

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
  attachTo(t, 'Logical_Switch', getNamed(t, 'Logical_Switch', sw), LOAD_BALANCERS, lb, options);
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
  detachFrom(t, 'Logical_Switch', getNamed(t, 'Logical_Switch', sw), LOAD_BALANCERS, lb, options);
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
  attachTo(t, 'Logical_Router', getNamed(t, 'Logical_Router', router), LOAD_BALANCERS, lb, options);
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
  detachFrom(
    t,
    'Logical_Router',
    getNamed(t, 'Logical_Router', router),
    LOAD_BALANCERS,
    lb,
    options,
  );
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

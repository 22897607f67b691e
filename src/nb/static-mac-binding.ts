/**
 * Static MAC bindings: the MAC a logical router port uses for an IP,
 * without ARP or neighbour discovery (`ovn-nbctl static-mac-binding-add`,
 * `static-mac-binding-del`, `static-mac-binding-list`). The table exists
 * from NB schema 6.2.0.
 *
 * A binding's identity is (logical port, IP), a schema index: lookups use
 * the index (`t.lookup`), not a scan. IPs are stored in canonical form, as
 * `ovn-nbctl` stores them.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from './errors.js';
import { type CreateOptions, type DeleteOptions, existing } from './existence.js';
import { normalizeIp } from './ip.js';
import { findNamed, getNamed, type RouterPortRef } from './lookup.js';
import { checkMac } from './mac.js';
import type { NeedsOf, RowIn } from './needs.js';
import type { NbRow, NbTxn } from './txn.js';

/** Options of {@link staticMacBindingAdd}. */
export interface StaticMacBindingOptions extends CreateOptions {
  /** Let the binding override a MAC learnt dynamically (`override_dynamic_mac`). */
  readonly overrideDynamicMac?: boolean | undefined;
}

/**
 * Bind an IP to a MAC on a logical router port (`ovn-nbctl
 * static-mac-binding-add LOGICAL_PORT IP MAC`).
 *
 * ```ts
 * staticMacBindingAdd(t, 'lr0-public', '172.16.0.50', '00:00:00:00:50:01');
 * // {"op":"insert","table":"Static_MAC_Binding","row":{"ip":"172.16.0.50","logical_port":"lr0-public",
 * //   "mac":"00:00:00:00:50:01"},…}
 * ```
 * @throws AlreadyExistsError when the port has a binding for the IP (unless
 *   `mayExist`: it is then returned as is, its MAC unchanged);
 *   InvalidAddressError for a bad IP or MAC; NotFoundError for an unknown
 *   router port.
 */
export function staticMacBindingAdd<DB extends NeedsOf<'staticMacBindingAdd'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
  ip: string,
  mac: string,
  options?: StaticMacBindingOptions,
): Uuid<'Static_MAC_Binding'>;
export function staticMacBindingAdd(
  t: NbTxn,
  port: RouterPortRef,
  ip: string,
  mac: string,
  options: StaticMacBindingOptions = {},
): Uuid<'Static_MAC_Binding'> {
  const address = normalizeIp(ip, 'Static_MAC_Binding.ip');
  checkMac(mac, 'Static_MAC_Binding.mac');
  if (options.overrideDynamicMac !== undefined && typeof options.overrideDynamicMac !== 'boolean') {
    throw new InvalidArgumentError(
      'Static_MAC_Binding.override_dynamic_mac',
      options.overrideDynamicMac,
      'must be a boolean',
    );
  }
  const lrp = getNamed(t, 'Logical_Router_Port', port);
  const existing = t.lookup('Static_MAC_Binding', { logical_port: lrp.name, ip: address });
  if (existing !== undefined) {
    if (options.mayExist) return existing._uuid;
    throw new AlreadyExistsError(
      'static MAC binding',
      `(${lrp.name}, ${address})`,
      `it binds ${existing.mac}`,
      existing._uuid,
    );
  }
  return t.insert('Static_MAC_Binding', {
    logical_port: lrp.name,
    ip: address,
    mac,
    ...(options.overrideDynamicMac ? { override_dynamic_mac: true } : {}),
  });
}

/**
 * Remove the binding of an IP on a logical router port (`ovn-nbctl
 * static-mac-binding-del LOGICAL_PORT IP`). A port that no longer exists
 * is taken as the name its bindings carry, so that they can be removed.
 * @throws NotFoundError when there is no such binding (unless `ifExists`);
 *   InvalidAddressError for a bad IP.
 */
export function staticMacBindingDel<DB extends NeedsOf<'staticMacBindingDel'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
  ip: string,
  options?: DeleteOptions,
): void;
export function staticMacBindingDel(
  t: NbTxn,
  port: RouterPortRef,
  ip: string,
  options: DeleteOptions = {},
): void {
  const address = normalizeIp(ip, 'Static_MAC_Binding.ip');
  const name = findNamed(t, 'Logical_Router_Port', port)?.name ?? port;
  const row = existing(
    t.lookup('Static_MAC_Binding', { logical_port: name, ip: address }),
    options,
    () => new NotFoundError('static MAC binding', `(${name}, ${address})`),
  );
  if (row === undefined) return;
  t.delete('Static_MAC_Binding', row._uuid);
}

/** Every static MAC binding, sorted by logical port and IP (`ovn-nbctl static-mac-binding-list`). */
export function staticMacBindingList<DB extends NeedsOf<'staticMacBindingList'>>(
  t: NbTxn<DB>,
): RowIn<DB, 'Static_MAC_Binding'>[];
export function staticMacBindingList(t: NbTxn): NbRow<'Static_MAC_Binding'>[] {
  const key = (r: NbRow<'Static_MAC_Binding'>) => `${r.logical_port}\u0000${r.ip}`;
  return t
    .rows('Static_MAC_Binding')
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

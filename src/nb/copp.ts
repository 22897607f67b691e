/**
 * Control plane protection (CoPP): policies that map control protocols to
 * meters, attached to logical switches and routers (`ovn-nbctl copp-add`,
 * `copp-del`, `copp-list`, `ls-copp-add`, `lr-copp-add`). `ovn-northd`
 * applies a policy's meter to the logical flows that send the protocol's
 * packets to `ovn-controller`.
 *
 * A policy's name is unique (a schema index): lookups by name use the index
 * (`t.lookup`), not a scan. Meters are named as `ovn-nbctl` names them (the
 * `Meter` row's name); as with `ovn-nbctl`, the meter need not exist yet.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { isUuid } from '../ovsdb/values/uuid.js';
import { NotFoundError } from './errors.js';
import { type DeleteOptions, existing } from './existence.js';
import { getNamed, type RouterRef, type SwitchRef } from './lookup.js';
import type { NeedsOf } from './needs.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkEnum, checkName } from './validate.js';

/**
 * The control protocols a CoPP policy meters, as `ovn-nbctl` 23.03 lists
 * them (the `Copp.meters` keys of NB 7.0.0; NB 7.18.0 documents the same
 * ones, and `dhcpv4-relay` on top, which 23.03 refuses).
 */
export const COPP_PROTOCOLS = [
  'arp',
  'arp-resolve',
  'dhcpv4-opts',
  'dhcpv6-opts',
  'dns',
  'event-elb',
  'icmp4-error',
  'icmp6-error',
  'igmp',
  'nd-na',
  'nd-ns',
  'nd-ns-resolve',
  'nd-ra-opts',
  'tcp-reset',
  'bfd',
  'reject',
  'svc-monitor',
] as const;
/** A control protocol of {@link COPP_PROTOCOLS}. */
export type CoppProtocol = (typeof COPP_PROTOCOLS)[number];

/** A CoPP policy: its name or UUID. */
export type CoppRef = string;

/** The policy `ref` (a UUID or a name), by the table's name index. */
function findCopp(t: NbTxn, ref: string): NbRow<'Copp'> | undefined {
  checkName('Copp.name', ref);
  if (isUuid(ref)) {
    const row = t.get('Copp', ref);
    if (row !== undefined) return row;
  }
  return t.lookup('Copp', { name: ref });
}

function checkProtocol(proto: unknown): CoppProtocol {
  return checkEnum('Copp.meters', proto, COPP_PROTOCOLS);
}

/**
 * Meter the control protocol `proto` of policy `name` with `meter`
 * (`ovn-nbctl copp-add NAME PROTO METER`): creates the policy when it does
 * not exist; a per-key setter otherwise (the protocol's meter is replaced,
 * the other protocols are kept).
 *
 * ```ts
 * coppAdd(t, 'copp0', 'arp', 'meter-arp');
 * // {"op":"insert","table":"Copp","row":{"meters":["map",[["arp","meter-arp"]]],"name":"copp0"},…}
 * ```
 * @returns the policy's UUID.
 * @throws InvalidArgumentError for an empty name or meter, or a protocol
 *   not in {@link COPP_PROTOCOLS}.
 */
export function coppAdd<DB extends NeedsOf<'coppAdd'>>(
  t: NbTxn<DB>,
  name: string,
  proto: CoppProtocol,
  meter: string,
): Uuid<'Copp'>;
export function coppAdd(t: NbTxn, name: string, proto: CoppProtocol, meter: string): Uuid<'Copp'> {
  checkName('Copp.name', name);
  const p = checkProtocol(proto);
  const m = checkName('Copp.meters', meter);
  const existing = findCopp(t, name);
  if (existing === undefined) return t.insert('Copp', { name, meters: { [p]: m } });
  if (existing.meters[p] !== m) t.setMapKeys('Copp', existing._uuid, 'meters', { [p]: m });
  return existing._uuid;
}

/**
 * Delete a CoPP policy (`ovn-nbctl copp-del NAME`), or only its meter for
 * `proto` (`copp-del NAME PROTO`); the policy is deleted with its last
 * protocol, as `ovn-nbctl` does.
 * @throws NotFoundError for an unknown policy, or a protocol it does not
 *   meter (unless `ifExists`); InvalidArgumentError for a protocol not in
 *   {@link COPP_PROTOCOLS}.
 */
export function coppDel<DB extends NeedsOf<'coppDel'>>(
  t: NbTxn<DB>,
  copp: CoppRef,
  proto?: CoppProtocol,
  options?: DeleteOptions,
): void;
export function coppDel(
  t: NbTxn,
  copp: CoppRef,
  proto?: CoppProtocol,
  options: DeleteOptions = {},
): void {
  const p = proto === undefined ? undefined : checkProtocol(proto);
  const row = existing(findCopp(t, copp), options, () => new NotFoundError('CoPP policy', copp));
  if (row === undefined) return;
  if (p === undefined) {
    t.delete('Copp', row._uuid);
    return;
  }
  const meter = existing(
    Object.hasOwn(row.meters, p) ? row.meters[p] : undefined,
    options,
    () => new NotFoundError('CoPP policy', `${row.name}:${p}`, 'no meter for this protocol'),
  );
  if (meter === undefined) return;
  if (Object.keys(row.meters).length === 1) t.delete('Copp', row._uuid);
  else t.setMapKeys('Copp', row._uuid, 'meters', { [p]: null });
}

/**
 * The meters of a CoPP policy, protocol → meter, sorted by protocol
 * (`ovn-nbctl copp-list NAME` prints the same pairs as `proto: meter`).
 * @throws NotFoundError for an unknown policy (unless `ifExists`: then `{}`,
 *   as `ovn-nbctl` prints nothing).
 */
export function coppList<DB extends NeedsOf<'coppList'>>(
  t: NbTxn<DB>,
  copp: CoppRef,
  options?: DeleteOptions,
): Record<string, string>;
export function coppList(
  t: NbTxn,
  copp: CoppRef,
  options: DeleteOptions = {},
): Record<string, string> {
  const row = existing(findCopp(t, copp), options, () => new NotFoundError('CoPP policy', copp));
  if (row === undefined) return {};
  const out: Record<string, string> = {};
  for (const k of Object.keys(row.meters).sort()) {
    Object.defineProperty(out, k, {
      value: row.meters[k],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function existingCopp(t: NbTxn, copp: CoppRef): NbRow<'Copp'> {
  const row = findCopp(t, copp);
  if (row === undefined) throw new NotFoundError('CoPP policy', copp);
  return row;
}

/**
 * Apply CoPP policy `copp` to a logical switch (`ovn-nbctl ls-copp-add
 * NAME SWITCH`), replacing the one it had.
 *
 * ```ts
 * lsCoppAdd(t, 'copp0', 'sw0');
 * // {"op":"update","table":"Logical_Switch","where":[["_uuid","==",["uuid","<sw0>"]]],"row":{"copp":["uuid","<copp0>"]}}
 * ```
 * @throws NotFoundError for an unknown policy or switch.
 */
export function lsCoppAdd<DB extends NeedsOf<'lsCoppAdd'>>(
  t: NbTxn<DB>,
  copp: CoppRef,
  sw: SwitchRef,
): void;
export function lsCoppAdd(t: NbTxn, copp: CoppRef, sw: SwitchRef): void {
  const row = existingCopp(t, copp);
  const ls = getNamed(t, 'Logical_Switch', sw);
  if (ls.copp !== row._uuid) t.update('Logical_Switch', ls._uuid, { copp: row._uuid });
}

/**
 * Apply CoPP policy `copp` to a logical router (`ovn-nbctl lr-copp-add
 * NAME ROUTER`), replacing the one it had.
 * @throws NotFoundError for an unknown policy or router.
 */
export function lrCoppAdd<DB extends NeedsOf<'lrCoppAdd'>>(
  t: NbTxn<DB>,
  copp: CoppRef,
  router: RouterRef,
): void;
export function lrCoppAdd(t: NbTxn, copp: CoppRef, router: RouterRef): void {
  const row = existingCopp(t, copp);
  const lr = getNamed(t, 'Logical_Router', router);
  if (lr.copp !== row._uuid) t.update('Logical_Router', lr._uuid, { copp: row._uuid });
}

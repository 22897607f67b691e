/**
 * Forwarding groups: a virtual IP and MAC on a logical switch that
 * load-balance traffic over some of its ports (`ovn-nbctl fwd-group-add`,
 * `fwd-group-del`, `fwd-group-list`). `ovn-northd` answers ARP for the
 * virtual IP, so it is an IPv4 address.
 *
 * A forwarding group's identity is its name, over every switch (as for
 * `ovn-nbctl`); the group lives in its switch's `forwarding_groups`.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { isUuid } from '../ovsdb/values/uuid.js';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from './errors.js';
import { type CreateOptions, type DeleteOptions, existing } from './existence.js';
import { normalizeIp } from './ip.js';
import { getNamed, type PortRef, type SwitchRef } from './lookup.js';
import { checkMac } from './mac.js';
import type { NeedsOf, RowIn } from './needs.js';
import { byName } from './order.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkName, checkStringMap } from './validate.js';

/** A forwarding group. */
export interface FwdGroupSpec {
  /** The virtual IPv4 address. */
  readonly vip: string;
  /** The virtual MAC address. */
  readonly vmac: string;
  /** The child ports (names or UUIDs): at least one, all on the group's switch. */
  readonly ports: readonly PortRef[];
  /** Pick child ports by the BFD status of the devices behind them (`--liveness`). */
  readonly liveness?: boolean | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

type FwdGroupRow = NbRow<'Forwarding_Group'>;

/** The group `ref` (a UUID or a name). */
function findGroup(t: NbTxn, ref: string): FwdGroupRow | undefined {
  checkName('Forwarding_Group.name', ref);
  if (isUuid(ref)) {
    const row = t.get('Forwarding_Group', ref);
    if (row !== undefined) return row;
  }
  return t.find('Forwarding_Group', (g) => g.name === ref);
}

/** The switch holding a group. */
function switchOf(t: NbTxn, group: FwdGroupRow): NbRow<'Logical_Switch'> | undefined {
  return t.referrers('Logical_Switch', 'forwarding_groups', group._uuid)[0];
}

/**
 * Create a forwarding group on a logical switch (`ovn-nbctl [--liveness]
 * fwd-group-add GROUP SWITCH VIP VMAC PORTS…`).
 *
 * ```ts
 * fwdGroupAdd(t, 'sw0', 'fg0', { vip: '10.0.0.100', vmac: '00:00:00:00:01:00', ports: ['vm1', 'vm2'] });
 * // {"op":"insert","table":"Forwarding_Group","row":{"child_port":["set",["vm1","vm2"]],"name":"fg0",
 * //   "vip":"10.0.0.100","vmac":"00:00:00:00:01:00"},…}
 * // {"op":"mutate","table":"Logical_Switch",…,"mutations":[["forwarding_groups","insert",…]]}
 * ```
 * @throws AlreadyExistsError when a group has the name (unless `mayExist`
 *   and it is on this switch: it is then returned as is);
 *   InvalidAddressError for a VIP that is not an IPv4 address or a VMAC that
 *   is not a MAC; InvalidArgumentError for no ports; NotFoundError for an
 *   unknown switch, or a port that is not on it.
 */
export function fwdGroupAdd<DB extends NeedsOf<'fwdGroupAdd'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  name: string,
  spec: FwdGroupSpec,
  options?: CreateOptions,
): Uuid<'Forwarding_Group'>;
export function fwdGroupAdd(
  t: NbTxn,
  sw: SwitchRef,
  name: string,
  spec: FwdGroupSpec,
  options: CreateOptions = {},
): Uuid<'Forwarding_Group'> {
  checkName('Forwarding_Group.name', name);
  if (spec === null || typeof spec !== 'object')
    throw new InvalidArgumentError('Forwarding_Group', spec, 'must be an object');
  const vip = normalizeIp(spec.vip, 'Forwarding_Group.vip', 4);
  const vmac = checkMac(spec.vmac, 'Forwarding_Group.vmac');
  if (!Array.isArray(spec.ports) || spec.ports.length === 0)
    throw new InvalidArgumentError(
      'Forwarding_Group.child_port',
      spec.ports,
      'must be a non-empty list of ports',
    );
  if (spec.liveness !== undefined && typeof spec.liveness !== 'boolean')
    throw new InvalidArgumentError('Forwarding_Group.liveness', spec.liveness, 'must be a boolean');
  const externalIds =
    spec.externalIds === undefined
      ? undefined
      : checkStringMap('Forwarding_Group.external_ids', spec.externalIds);
  const ls = getNamed(t, 'Logical_Switch', sw);
  const ports: string[] = [];
  for (const ref of spec.ports) {
    const lsp = getNamed(t, 'Logical_Switch_Port', ref);
    if (!ls.ports.includes(lsp._uuid))
      throw new NotFoundError('logical switch port', lsp.name, `on switch ${ls.name}`);
    if (!ports.includes(lsp.name)) ports.push(lsp.name);
  }
  const existing = findGroup(t, name);
  if (existing !== undefined && existing.name === name) {
    const owner = switchOf(t, existing);
    if (options.mayExist && owner?._uuid === ls._uuid) return existing._uuid;
    throw new AlreadyExistsError(
      'forwarding group',
      JSON.stringify(name),
      owner !== undefined && owner._uuid !== ls._uuid ? `it is on switch ${owner.name}` : undefined,
      existing._uuid,
    );
  }
  const group = t.insert('Forwarding_Group', {
    name,
    vip,
    vmac,
    child_port: ports,
    ...(spec.liveness ? { liveness: true } : {}),
    ...(externalIds !== undefined ? { external_ids: externalIds } : {}),
  });
  t.addToSet('Logical_Switch', ls._uuid, 'forwarding_groups', [group]);
  return group;
}

/**
 * Delete a forwarding group by name or UUID (`ovn-nbctl fwd-group-del GROUP`).
 * @throws NotFoundError for a group that does not exist (unless `ifExists`).
 */
export function fwdGroupDel<DB extends NeedsOf<'fwdGroupDel'>>(
  t: NbTxn<DB>,
  group: string,
  options?: DeleteOptions,
): void;
export function fwdGroupDel(t: NbTxn, group: string, options: DeleteOptions = {}): void {
  const row = findGroup(t, group);
  const ls = existing(
    row === undefined ? undefined : switchOf(t, row),
    options,
    () => new NotFoundError('forwarding group', group),
  );
  if (row === undefined || ls === undefined) return;
  t.removeFromSet('Logical_Switch', ls._uuid, 'forwarding_groups', [row._uuid]);
}

/**
 * The forwarding groups of a logical switch, or of every switch
 * (`ovn-nbctl fwd-group-list [SWITCH]`), sorted by name.
 * @throws NotFoundError for an unknown switch.
 */
export function fwdGroupList<DB extends NeedsOf<'fwdGroupList'>>(
  t: NbTxn<DB>,
  sw?: SwitchRef,
): RowIn<DB, 'Forwarding_Group'>[];
export function fwdGroupList(t: NbTxn, sw?: SwitchRef): FwdGroupRow[] {
  const switches =
    sw === undefined ? t.rows('Logical_Switch') : [getNamed(t, 'Logical_Switch', sw)];
  return switches
    .flatMap((ls) => ls.forwarding_groups.map((u) => t.get('Forwarding_Group', u)))
    .filter((g): g is FwdGroupRow => g !== undefined)
    .sort(byName);
}

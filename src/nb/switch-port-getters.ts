/**
 * The `ovn-nbctl lsp-get-*` getters: one column of a logical switch port,
 * as ovn-nbctl prints it (sets and option keys sorted by code unit).
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { getNamed, type PortRef } from './lookup.js';
import { setKeysOf } from './maps.js';
import type { NeedsOf } from './needs.js';
import { byString } from './order.js';
import type { NbTxn } from './txn.js';

/**
 * The parent of a nested port (`ovn-nbctl lsp-get-parent`), or undefined
 * when it has none (it prints nothing).
 * @throws NotFoundError for an unknown port.
 */
export function lspGetParent<DB extends NeedsOf<'lspGetParent'>>(
  t: NbTxn<DB>,
  port: PortRef,
): string | undefined;
export function lspGetParent(t: NbTxn, port: PortRef): string | undefined {
  return getNamed(t, 'Logical_Switch_Port', port).parent_name ?? undefined;
}

/**
 * The VLAN tag of a nested port (`ovn-nbctl lsp-get-tag`: the `tag`
 * column, which `ovn-northd` fills in from `tag_request`), or undefined
 * when there is none.
 * @throws NotFoundError for an unknown port.
 */
export function lspGetTag<DB extends NeedsOf<'lspGetTag'>>(
  t: NbTxn<DB>,
  port: PortRef,
): number | undefined;
export function lspGetTag(t: NbTxn, port: PortRef): number | undefined {
  return getNamed(t, 'Logical_Switch_Port', port).tag ?? undefined;
}

/**
 * A port's addresses, sorted (`ovn-nbctl lsp-get-addresses` prints one a line).
 * @throws NotFoundError for an unknown port.
 */
export function lspGetAddresses<DB extends NeedsOf<'lspGetAddresses'>>(
  t: NbTxn<DB>,
  port: PortRef,
): string[];
export function lspGetAddresses(t: NbTxn, port: PortRef): string[] {
  return [...getNamed(t, 'Logical_Switch_Port', port).addresses].sort(byString);
}

/**
 * A port's port security entries, sorted (`ovn-nbctl lsp-get-port-security`).
 * @throws NotFoundError for an unknown port.
 */
export function lspGetPortSecurity<DB extends NeedsOf<'lspGetPortSecurity'>>(
  t: NbTxn<DB>,
  port: PortRef,
): string[];
export function lspGetPortSecurity(t: NbTxn, port: PortRef): string[] {
  return [...getNamed(t, 'Logical_Switch_Port', port).port_security].sort(byString);
}

/**
 * Whether a port is up (`ovn-nbctl lsp-get-up` prints `up` for true,
 * `down` otherwise): undefined when `ovn-northd` has not set `up` yet.
 * @throws NotFoundError for an unknown port.
 */
export function lspGetUp<DB extends NeedsOf<'lspGetUp'>>(
  t: NbTxn<DB>,
  port: PortRef,
): boolean | undefined;
export function lspGetUp(t: NbTxn, port: PortRef): boolean | undefined {
  return getNamed(t, 'Logical_Switch_Port', port).up ?? undefined;
}

/**
 * A port's administrative state (`ovn-nbctl lsp-get-enabled` prints
 * `enabled` or `disabled`): true unless `enabled` is false.
 * @throws NotFoundError for an unknown port.
 */
export function lspGetEnabled<DB extends NeedsOf<'lspGetEnabled'>>(
  t: NbTxn<DB>,
  port: PortRef,
): boolean;
export function lspGetEnabled(t: NbTxn, port: PortRef): boolean {
  return getNamed(t, 'Logical_Switch_Port', port).enabled !== false;
}

/**
 * A port's type (`ovn-nbctl lsp-get-type`): `''` for a VM or container port.
 * @throws NotFoundError for an unknown port.
 */
export function lspGetType<DB extends NeedsOf<'lspGetType'>>(t: NbTxn<DB>, port: PortRef): string;
export function lspGetType(t: NbTxn, port: PortRef): string {
  return getNamed(t, 'Logical_Switch_Port', port).type;
}

/**
 * A port's options, sorted by key (`ovn-nbctl lsp-get-options` prints
 * them as `key=value` lines).
 * @throws NotFoundError for an unknown port.
 */
export function lspGetOptions<DB extends NeedsOf<'lspGetOptions'>>(
  t: NbTxn<DB>,
  port: PortRef,
): Record<string, string>;
export function lspGetOptions(t: NbTxn, port: PortRef): Record<string, string> {
  const options = getNamed(t, 'Logical_Switch_Port', port).options;
  return setKeysOf(
    Object.fromEntries(
      Object.keys(options)
        .sort(byString)
        .map((k) => [k, options[k]!]),
    ),
  );
}

/** A port's DHCP options row, as `lsp-get-dhcpv4-options` prints it (`UUID (CIDR)`). */
export interface LspDhcpOptionsRef {
  /** The `DHCP_Options` row. */
  readonly uuid: Uuid<'DHCP_Options'>;
  /** Its `cidr`. */
  readonly cidr: string;
}

function dhcpOf(t: NbTxn, uuid: Uuid<'DHCP_Options'> | null): LspDhcpOptionsRef | undefined {
  if (uuid === null) return undefined;
  const row = t.get('DHCP_Options', uuid);
  return row === undefined ? undefined : { uuid: row._uuid, cidr: row.cidr };
}

/**
 * A port's DHCPv4 options (`ovn-nbctl lsp-get-dhcpv4-options`), or
 * undefined when it has none.
 * @throws NotFoundError for an unknown port.
 */
export function lspGetDhcpv4Options<DB extends NeedsOf<'lspGetDhcpv4Options'>>(
  t: NbTxn<DB>,
  port: PortRef,
): LspDhcpOptionsRef | undefined;
export function lspGetDhcpv4Options(t: NbTxn, port: PortRef): LspDhcpOptionsRef | undefined {
  return dhcpOf(t, getNamed(t, 'Logical_Switch_Port', port).dhcpv4_options);
}

/**
 * A port's DHCPv6 options (`ovn-nbctl lsp-get-dhcpv6-options`), or
 * undefined when it has none.
 * @throws NotFoundError for an unknown port.
 */
export function lspGetDhcpv6Options<DB extends NeedsOf<'lspGetDhcpv6Options'>>(
  t: NbTxn<DB>,
  port: PortRef,
): LspDhcpOptionsRef | undefined;
export function lspGetDhcpv6Options(t: NbTxn, port: PortRef): LspDhcpOptionsRef | undefined {
  return dhcpOf(t, getNamed(t, 'Logical_Switch_Port', port).dhcpv6_options);
}

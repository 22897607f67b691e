/**
 * Logical switch ports: create (the port row and its place in the switch's
 * `ports`, in one transaction), configure (addresses, port security, type,
 * options, parent and tag, enabled, DHCP options, HA chassis group,
 * external IDs), move to another switch, delete (from its switch and every
 * port group). (`ovn-nbctl lsp-add`, `lsp-del`, `lsp-set-*`.)
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import {
  formatLspAddress,
  formatPortSecurity,
  type LspAddress,
  lspAddressIps,
  type PortSecurityEntry,
  parseLspAddress,
} from './addresses.js';
import {
  AlreadyExistsError,
  InvalidAddressError,
  InvalidArgumentError,
  NotFoundError,
} from './errors.js';
import type { CreateOptions, DeleteOptions } from './existence.js';
import { parseIp, parsePrefix } from './ip.js';
import {
  findNamed,
  getNamed,
  type HaChassisGroupRef,
  namedTarget,
  type PortRef,
  rowsNamed,
  type SwitchRef,
} from './lookup.js';
import { type MapPatch, type SetOptions, setKeysOf, writeMap } from './maps.js';
import type { NeedsOf, RowIn } from './needs.js';
import { byName } from './order.js';
import type { NbRow, NbTxn, NbUpdate } from './txn.js';
import { checkEnum, checkIntRange, checkMapPatch, checkName } from './validate.js';

/** The logical switch port types OVN knows (`""` is a VM or container interface). */
export const LSP_TYPES = [
  '',
  'router',
  'switch',
  'localnet',
  'localport',
  'l2gateway',
  'vtep',
  'external',
  'virtual',
  'remote',
] as const;

/** A logical switch port type. */
export type LspType = (typeof LSP_TYPES)[number];

/**
 * `Logical_Switch_Port.options`, typed for the keys the DSL checks; other
 * keys pass as strings. In a setter, `null` removes a key (see `SetOptions`).
 */
export interface LspOptions {
  /** `router` ports: the peer logical router port. */
  readonly 'router-port'?: string | null | undefined;
  /** VIF ports: the chassis (or comma-separated chassis) the port should be bound on. */
  readonly 'requested-chassis'?: string | null | undefined;
  /** `virtual` ports: the virtual IP. */
  readonly 'virtual-ip'?: string | null | undefined;
  /** `virtual` ports: the comma-separated ports that may own the virtual IP. */
  readonly 'virtual-parents'?: string | null | undefined;
  /** `localnet` ports: the physical network name. */
  readonly network_name?: string | null | undefined;
  /** `router` ports: NAT addresses to announce (`router` or `MAC IP…`). */
  readonly 'nat-addresses'?: string | null | undefined;
  /** Any other option. */
  readonly [key: string]: string | null | undefined;
}

/**
 * The settable attributes of a logical switch port. In `lspSet`, each
 * attribute given replaces its column, except the maps (`options`,
 * `externalIds`), which are merged (`null` removes a key) unless
 * `{ replace: true }`.
 */
export interface LspSpec {
  /** `addresses`: strings or typed {@link LspAddress} values. */
  readonly addresses?: readonly (string | LspAddress)[] | undefined;
  /** `port_security`: `MAC [IP[/len]…]` entries (include a virtual port's VIPs). */
  readonly portSecurity?: readonly (string | PortSecurityEntry)[] | undefined;
  /** `type`. */
  readonly type?: LspType | undefined;
  /** `options`. */
  readonly options?: LspOptions | undefined;
  /** `parent_name`: the VIF a container port is nested in. */
  readonly parentName?: string | null | undefined;
  /** `tag_request`: the VLAN tag (0..4095) requested for a nested port (0: let northd choose). */
  readonly tagRequest?: number | null | undefined;
  /** `tag`: the VLAN tag (1..4095), normally chosen by northd. */
  readonly tag?: number | null | undefined;
  /** `enabled` (null: unset, which means enabled). */
  readonly enabled?: boolean | null | undefined;
  /** `dhcpv4_options`: a DHCP_Options row with an IPv4 cidr, or null. */
  readonly dhcpv4Options?: Uuid<'DHCP_Options'> | string | null | undefined;
  /** `dhcpv6_options`: a DHCP_Options row with an IPv6 cidr, or null. */
  readonly dhcpv6Options?: Uuid<'DHCP_Options'> | string | null | undefined;
  /** `ha_chassis_group` (for `external` ports), or null. */
  readonly haChassisGroup?: HaChassisGroupRef | null | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string | null>> | undefined;
}

/** Options of {@link lspAdd}: the port's attributes, and `mayExist`. */
export interface LspAddOptions extends LspSpec, CreateOptions {}

type LspRow = NbRow<'Logical_Switch_Port'>;
type LspColumns = {
  -readonly [K in keyof NbUpdate<'Logical_Switch_Port'>]: NbUpdate<'Logical_Switch_Port'>[K];
};

function checkOptions(options: LspOptions): Record<string, string | null> {
  const out = checkMapPatch('Logical_Switch_Port.options', options);
  const vip = out['virtual-ip'];
  if (typeof vip === 'string' && parseIp(vip) === undefined) {
    throw new InvalidAddressError(
      'IP',
      vip,
      'not an IP address',
      'Logical_Switch_Port.options:virtual-ip',
    );
  }
  const parents = out['virtual-parents'];
  if (typeof parents === 'string' && parents.split(',').some((p) => p.trim() === '')) {
    throw new InvalidArgumentError(
      'Logical_Switch_Port.options:virtual-parents',
      parents,
      'must be a comma-separated list of port names',
    );
  }
  return out;
}

function dhcpRef(
  t: NbTxn,
  ref: string | null,
  family: 4 | 6,
  field: string,
): Uuid<'DHCP_Options'> | null {
  if (ref === null) return null;
  const row = t.get('DHCP_Options', ref);
  if (row === undefined) throw new NotFoundError('DHCP options', ref);
  const p = parsePrefix(row.cidr);
  if (p === undefined || p.family !== family) {
    throw new InvalidArgumentError(
      field,
      ref,
      `DHCP options cidr ${JSON.stringify(row.cidr)} is not IPv${family}`,
    );
  }
  return row._uuid;
}

/** The map columns of an {@link LspSpec}: column → keys to set or remove. */
type LspMaps = { options?: MapPatch; external_ids?: MapPatch };

/** Translate an {@link LspSpec} into column values (maps apart), checking everything. */
function encodeSpec(t: NbTxn, spec: LspSpec): { row: LspColumns; maps: LspMaps } {
  const row: LspColumns = {};
  const maps: LspMaps = {};
  if (spec.addresses !== undefined) {
    if (!Array.isArray(spec.addresses)) {
      throw new InvalidArgumentError(
        'Logical_Switch_Port.addresses',
        spec.addresses,
        'must be a list',
      );
    }
    row.addresses = spec.addresses.map((a) => formatLspAddress(a));
  }
  if (spec.portSecurity !== undefined) {
    if (!Array.isArray(spec.portSecurity)) {
      throw new InvalidArgumentError(
        'Logical_Switch_Port.port_security',
        spec.portSecurity,
        'must be a list',
      );
    }
    row.port_security = spec.portSecurity.map((e) => formatPortSecurity(e));
  }
  if (spec.type !== undefined)
    row.type = checkEnum('Logical_Switch_Port.type', spec.type, LSP_TYPES);
  if (spec.options !== undefined) maps.options = checkOptions(spec.options);
  if (spec.parentName !== undefined) {
    row.parent_name =
      spec.parentName === null
        ? null
        : checkName('Logical_Switch_Port.parent_name', spec.parentName);
  }
  if (spec.tagRequest !== undefined) {
    row.tag_request =
      spec.tagRequest === null
        ? null
        : checkIntRange('Logical_Switch_Port.tag_request', spec.tagRequest, 0, 4095);
  }
  if (spec.tag !== undefined) {
    row.tag =
      spec.tag === null ? null : checkIntRange('Logical_Switch_Port.tag', spec.tag, 1, 4095);
  }
  if (spec.enabled !== undefined) {
    if (spec.enabled !== null && typeof spec.enabled !== 'boolean') {
      throw new InvalidArgumentError(
        'Logical_Switch_Port.enabled',
        spec.enabled,
        'must be a boolean or null',
      );
    }
    row.enabled = spec.enabled;
  }
  if (spec.dhcpv4Options !== undefined) {
    row.dhcpv4_options = dhcpRef(t, spec.dhcpv4Options, 4, 'Logical_Switch_Port.dhcpv4_options');
  }
  if (spec.dhcpv6Options !== undefined) {
    row.dhcpv6_options = dhcpRef(t, spec.dhcpv6Options, 6, 'Logical_Switch_Port.dhcpv6_options');
  }
  if (spec.haChassisGroup !== undefined) {
    row.ha_chassis_group =
      spec.haChassisGroup === null
        ? null
        : getNamed(t, 'HA_Chassis_Group', spec.haChassisGroup)._uuid;
  }
  if (spec.externalIds !== undefined) {
    maps.external_ids = checkMapPatch('Logical_Switch_Port.external_ids', spec.externalIds);
  }
  return { row, maps };
}

/** The columns of a new port: its attributes, maps with their string keys. */
function newPortColumns(encoded: { row: LspColumns; maps: LspMaps }): LspColumns {
  const { row, maps } = encoded;
  return {
    ...row,
    ...(maps.options !== undefined ? { options: setKeysOf(maps.options) } : {}),
    ...(maps.external_ids !== undefined ? { external_ids: setKeysOf(maps.external_ids) } : {}),
  };
}

/**
 * Refuse addresses whose IPs another port of the switch already has (as
 * `ovn-nbctl lsp-set-addresses` does).
 */
function checkDuplicateIps(
  t: NbTxn,
  sw: NbRow<'Logical_Switch'>,
  port: string | undefined,
  addresses: readonly string[],
): void {
  const mine = new Map<string, string>();
  for (const a of addresses)
    for (const ip of lspAddressIps(parseLspAddress(a))) mine.set(ip.text, a);
  if (mine.size === 0) return;
  for (const uuid of sw.ports) {
    if (uuid === port) continue;
    const other = t.get('Logical_Switch_Port', uuid);
    if (other === undefined) continue;
    const theirs = other.addresses.map((a) =>
      a.split(' ')[0] === 'dynamic' || a.endsWith(' dynamic') ? (other.dynamic_addresses ?? a) : a,
    );
    for (const a of theirs) {
      let parsed: LspAddress;
      try {
        parsed = parseLspAddress(a);
      } catch {
        continue;
      }
      for (const ip of lspAddressIps(parsed)) {
        if (mine.has(ip.text)) {
          throw new AlreadyExistsError(
            'logical switch port',
            JSON.stringify(other.name),
            `IPv${ip.family} address ${ip.text} is already used by port ${other.name} of switch ${sw.name || sw._uuid}`,
            other._uuid,
          );
        }
      }
    }
  }
}

/** The switches whose `ports` hold `port`. */
function switchesOf(t: NbTxn, port: string): NbRow<'Logical_Switch'>[] {
  return t.referrers('Logical_Switch', 'ports', port);
}

/**
 * Create a logical switch port on a switch (`ovn-nbctl lsp-add`), with any
 * of its attributes, in one insert plus one mutate of the switch's `ports`.
 *
 * ```ts
 * const p = lspAdd(t, 'sw0', 'web-1', { addresses: ['00:00:00:00:00:05 10.0.0.5'], portSecurity: ['00:00:00:00:00:05 10.0.0.5'] });
 * // {"op":"insert","table":"Logical_Switch_Port","row":{"name":"web-1","addresses":["set",["00:00:00:00:00:05 10.0.0.5"]],
 * //   "port_security":["set",["00:00:00:00:00:05 10.0.0.5"]]},"uuid":"<p>","uuid-name":"row0"}
 * // {"op":"mutate","table":"Logical_Switch","where":[["_uuid","==",["uuid","<sw0>"]]],
 * //   "mutations":[["ports","insert",["set",[["named-uuid","row0"]]]]]}
 * ```
 * @throws NotFoundError for an unknown switch; AlreadyExistsError when the
 *   port exists (unless `mayExist` and it is on this switch with the same
 *   parent and tag request) or an address's IP is already used on the
 *   switch; InvalidAddressError, OutOfRangeError, InvalidArgumentError for bad attributes.
 */
export function lspAdd<DB extends NeedsOf<'lspAdd'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  name: string,
  options?: LspAddOptions,
): Uuid<'Logical_Switch_Port'>;
export function lspAdd(
  t: NbTxn,
  sw: SwitchRef,
  name: string,
  options: LspAddOptions = {},
): Uuid<'Logical_Switch_Port'> {
  checkName('Logical_Switch_Port.name', name);
  const ls = getNamed(t, 'Logical_Switch', sw);
  const { mayExist, ...spec } = options;
  const columns = newPortColumns(encodeSpec(t, spec));
  const existing = rowsNamed(t, 'Logical_Switch_Port', name)[0];
  if (existing !== undefined) {
    const key = JSON.stringify(name);
    if (!mayExist)
      throw new AlreadyExistsError('logical switch port', key, undefined, existing._uuid);
    const owners = switchesOf(t, existing._uuid);
    if (!owners.some((o) => o._uuid === ls._uuid)) {
      const where =
        owners[0] === undefined ? 'in no switch' : `in switch ${owners[0].name || owners[0]._uuid}`;
      throw new AlreadyExistsError(
        'logical switch port',
        key,
        `it exists ${where}`,
        existing._uuid,
      );
    }
    if (spec.parentName !== undefined && (spec.parentName ?? null) !== existing.parent_name) {
      throw new AlreadyExistsError(
        'logical switch port',
        key,
        `it exists with parent ${JSON.stringify(existing.parent_name)}`,
        existing._uuid,
      );
    }
    if (spec.tagRequest !== undefined && (spec.tagRequest ?? null) !== existing.tag_request) {
      throw new AlreadyExistsError(
        'logical switch port',
        key,
        `it exists with tag_request ${existing.tag_request}`,
        existing._uuid,
      );
    }
    return existing._uuid;
  }
  if (columns.addresses !== undefined) checkDuplicateIps(t, ls, undefined, columns.addresses);
  const port = t.insert('Logical_Switch_Port', { name, ...columns });
  t.addToSet('Logical_Switch', ls._uuid, 'ports', [port]);
  return port;
}

/**
 * Delete a logical switch port: remove it from its switch and from every
 * port group (`ovn-nbctl lsp-del`; the row itself goes with its last
 * reference). A client that does not monitor `Port_Group` may delete ports
 * all the same: the server drops them from the groups.
 *
 * ```ts
 * lspDel(t, 'web-1');
 * // {"op":"mutate","table":"Logical_Switch",…,"mutations":[["ports","delete",["set",[["uuid","<web-1>"]]]]]}
 * // {"op":"mutate","table":"Port_Group",…,"mutations":[["ports","delete",["set",[["uuid","<web-1>"]]]]]}
 * ```
 * @throws NotFoundError (unless `ifExists`).
 */
export function lspDel<DB extends NeedsOf<'lspDel'>>(
  t: NbTxn<DB>,
  port: PortRef,
  options?: DeleteOptions,
): void;
export function lspDel(t: NbTxn, port: PortRef, options: DeleteOptions = {}): void {
  const row = namedTarget(t, 'Logical_Switch_Port', port, options);
  if (row === undefined) return;
  // Port_Group.ports holds ports weakly: the server drops the port anyway, so
  // the groups are read only when the client monitors them.
  if (t.monitors('Port_Group')) {
    for (const pg of t.referrers('Port_Group', 'ports', row._uuid)) {
      t.removeFromSet('Port_Group', pg._uuid, 'ports', [row._uuid]);
    }
  }
  const owners = switchesOf(t, row._uuid);
  for (const ls of owners) t.removeFromSet('Logical_Switch', ls._uuid, 'ports', [row._uuid]);
  if (owners.length === 0) t.delete('Logical_Switch_Port', row._uuid);
}

/**
 * Read a logical switch port by name or UUID.
 * @throws NotFoundError (unless `ifExists`, which returns undefined).
 */
export function lspGet<DB extends NeedsOf<'lspGet'>>(
  t: NbTxn<DB>,
  port: PortRef,
): RowIn<DB, 'Logical_Switch_Port'>;
export function lspGet<DB extends NeedsOf<'lspGet'>>(
  t: NbTxn<DB>,
  port: PortRef,
  options: DeleteOptions,
): RowIn<DB, 'Logical_Switch_Port'> | undefined;
export function lspGet(t: NbTxn, port: PortRef, options: DeleteOptions = {}): LspRow | undefined {
  return options.ifExists
    ? findNamed(t, 'Logical_Switch_Port', port)
    : getNamed(t, 'Logical_Switch_Port', port);
}

/** The ports of a switch, sorted by name (`ovn-nbctl lsp-list`). */
export function lspList<DB extends NeedsOf<'lspList'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
): RowIn<DB, 'Logical_Switch_Port'>[];
export function lspList(t: NbTxn, sw: SwitchRef): LspRow[] {
  const ls = getNamed(t, 'Logical_Switch', sw);
  return ls.ports
    .map((u) => t.get('Logical_Switch_Port', u))
    .filter((r): r is LspRow => r !== undefined)
    .sort(byName);
}

/**
 * The switch a port is on (`ovn-nbctl lsp-get-ls`).
 * @throws NotFoundError for an unknown port or one on no switch.
 */
export function lspGetSwitch<DB extends NeedsOf<'lspGetSwitch'>>(
  t: NbTxn<DB>,
  port: PortRef,
): RowIn<DB, 'Logical_Switch'>;
export function lspGetSwitch(t: NbTxn, port: PortRef): NbRow<'Logical_Switch'> {
  const row = getNamed(t, 'Logical_Switch_Port', port);
  const ls = switchesOf(t, row._uuid)[0];
  if (ls === undefined) throw new NotFoundError('logical switch', `of port ${row.name}`);
  return ls;
}

/**
 * Set attributes of a port: each one given replaces its column (like the
 * `ovn-nbctl lsp-set-*` commands), except `options` and `externalIds`,
 * whose keys are merged into the map (`null` removes a key) unless
 * `{ replace: true }` (then each map given replaces its column).
 *
 * ```ts
 * lspSet(t, 'web-1', { type: 'virtual', options: { 'virtual-ip': '10.0.0.100', 'virtual-parents': 'web-1,web-2' } });
 * // {"op":"update","table":"Logical_Switch_Port","where":[["_uuid","==",["uuid","<web-1>"]]],"row":{"type":"virtual"}}
 * // {"op":"mutate","table":"Logical_Switch_Port",…,"mutations":[["options","delete",["set",["virtual-ip","virtual-parents"]]],
 * //   ["options","insert",["map",[["virtual-ip","10.0.0.100"],["virtual-parents","web-1,web-2"]]]]]}
 * ```
 */
export function lspSet<DB extends NeedsOf<'lspSet'>>(
  t: NbTxn<DB>,
  port: PortRef,
  spec: LspSpec,
  options?: SetOptions,
): void;
export function lspSet(t: NbTxn, port: PortRef, spec: LspSpec, options: SetOptions = {}): void {
  const row = getNamed(t, 'Logical_Switch_Port', port);
  const { row: columns, maps } = encodeSpec(t, spec);
  if (columns.addresses !== undefined) {
    for (const ls of switchesOf(t, row._uuid))
      checkDuplicateIps(t, ls, row._uuid, columns.addresses);
  }
  if (Object.keys(columns).length > 0) t.update('Logical_Switch_Port', row._uuid, columns);
  for (const [column, patch] of Object.entries(maps)) {
    writeMap(t, 'Logical_Switch_Port', row._uuid, column, patch, options);
  }
}

/** Set `addresses` (`ovn-nbctl lsp-set-addresses`). */
export function lspSetAddresses<DB extends NeedsOf<'lspSetAddresses'>>(
  t: NbTxn<DB>,
  port: PortRef,
  addresses: readonly (string | LspAddress)[],
): void;
export function lspSetAddresses(
  t: NbTxn,
  port: PortRef,
  addresses: readonly (string | LspAddress)[],
): void {
  lspSet(t, port, { addresses });
}

/** Set `port_security` (`ovn-nbctl lsp-set-port-security`). */
export function lspSetPortSecurity<DB extends NeedsOf<'lspSetPortSecurity'>>(
  t: NbTxn<DB>,
  port: PortRef,
  entries: readonly (string | PortSecurityEntry)[],
): void;
export function lspSetPortSecurity(
  t: NbTxn,
  port: PortRef,
  entries: readonly (string | PortSecurityEntry)[],
): void {
  lspSet(t, port, { portSecurity: entries });
}

/** Set `type` (`ovn-nbctl lsp-set-type`). */
export function lspSetType<DB extends NeedsOf<'lspSetType'>>(
  t: NbTxn<DB>,
  port: PortRef,
  type: LspType,
): void;
export function lspSetType(t: NbTxn, port: PortRef, type: LspType): void {
  lspSet(t, port, { type });
}

/**
 * Set keys of `options` (others are kept; `null` removes a key), or with
 * `{ replace: true }` replace the whole map, as `ovn-nbctl lsp-set-options`
 * does.
 *
 * ```ts
 * lspSetOptions(t, 'web-1', { 'requested-chassis': 'ch1' });
 * // {"op":"mutate","table":"Logical_Switch_Port",…,"mutations":[["options","delete",["set",["requested-chassis"]]],
 * //   ["options","insert",["map",[["requested-chassis","ch1"]]]]]}
 * lspSetOptions(t, 'web-1', { 'requested-chassis': 'ch1' }, { replace: true });
 * // {"op":"update","table":"Logical_Switch_Port",…,"row":{"options":["map",[["requested-chassis","ch1"]]]}}
 * ```
 */
export function lspSetOptions<DB extends NeedsOf<'lspSetOptions'>>(
  t: NbTxn<DB>,
  port: PortRef,
  options: LspOptions,
  setOptions?: SetOptions,
): void;
export function lspSetOptions(
  t: NbTxn,
  port: PortRef,
  options: LspOptions,
  setOptions: SetOptions = {},
): void {
  lspSet(t, port, { options }, setOptions);
}

/** Set `enabled` (`ovn-nbctl lsp-set-enabled`). */
export function lspSetEnabled<DB extends NeedsOf<'lspSetEnabled'>>(
  t: NbTxn<DB>,
  port: PortRef,
  enabled: boolean,
): void;
export function lspSetEnabled(t: NbTxn, port: PortRef, enabled: boolean): void {
  lspSet(t, port, { enabled });
}

/**
 * Attach DHCPv4 options to a port, or detach them with null
 * (`ovn-nbctl lsp-set-dhcpv4-options`).
 * @throws InvalidArgumentError when the row's cidr is not IPv4.
 */
export function lspSetDhcpv4Options<DB extends NeedsOf<'lspSetDhcpv4Options'>>(
  t: NbTxn<DB>,
  port: PortRef,
  dhcp: Uuid<'DHCP_Options'> | string | null,
): void;
export function lspSetDhcpv4Options(
  t: NbTxn,
  port: PortRef,
  dhcp: Uuid<'DHCP_Options'> | string | null,
): void {
  lspSet(t, port, { dhcpv4Options: dhcp });
}

/**
 * Attach DHCPv6 options to a port, or detach them with null
 * (`ovn-nbctl lsp-set-dhcpv6-options`).
 * @throws InvalidArgumentError when the row's cidr is not IPv6.
 */
export function lspSetDhcpv6Options<DB extends NeedsOf<'lspSetDhcpv6Options'>>(
  t: NbTxn<DB>,
  port: PortRef,
  dhcp: Uuid<'DHCP_Options'> | string | null,
): void;
export function lspSetDhcpv6Options(
  t: NbTxn,
  port: PortRef,
  dhcp: Uuid<'DHCP_Options'> | string | null,
): void {
  lspSet(t, port, { dhcpv6Options: dhcp });
}

/**
 * Move a port to another switch, keeping the port row (its UUID, addresses
 * and port group memberships): the new switch's `ports` gains it, then the
 * old one's loses it, in the same transaction.
 *
 * ```ts
 * lspMove(t, 'web-1', 'sw1');
 * // {"op":"mutate","table":"Logical_Switch",<sw1>,"mutations":[["ports","insert",["set",[["uuid","<web-1>"]]]]]}
 * // {"op":"mutate","table":"Logical_Switch",<sw0>,"mutations":[["ports","delete",["set",[["uuid","<web-1>"]]]]]}
 * ```
 * @throws NotFoundError for an unknown port or switch; AlreadyExistsError
 *   when an IP of the port is used on the target switch.
 */
export function lspMove<DB extends NeedsOf<'lspMove'>>(
  t: NbTxn<DB>,
  port: PortRef,
  to: SwitchRef,
): void;
export function lspMove(t: NbTxn, port: PortRef, to: SwitchRef): void {
  const row = getNamed(t, 'Logical_Switch_Port', port);
  const target = getNamed(t, 'Logical_Switch', to);
  const owners = switchesOf(t, row._uuid);
  if (owners.length === 1 && owners[0]!._uuid === target._uuid) return;
  checkDuplicateIps(t, target, row._uuid, row.addresses);
  t.addToSet('Logical_Switch', target._uuid, 'ports', [row._uuid]);
  for (const ls of owners) {
    if (ls._uuid !== target._uuid)
      t.removeFromSet('Logical_Switch', ls._uuid, 'ports', [row._uuid]);
  }
}

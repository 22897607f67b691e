/**
 * DHCP options: `DHCP_Options` rows for a CIDR with typed, checked options,
 * attached to ports through `dhcpv4_options`/`dhcpv6_options`
 * (`ovn-nbctl dhcp-options-create`, `dhcp-options-set-options`,
 * `dhcp-options-del`, `lsp-set-dhcpv4-options`), and per-port
 * reconciliation ({@link reconcilePortDhcpOptions}).
 *
 * Option values are given plainly and encoded the way `ovn-northd` reads
 * them: addresses as is, several addresses as `{a, b}`, booleans as `0`/`1`
 * (`dhcpv6_stateless` as `true`/`false`), numbers in decimal, and strings
 * (host names, domain names, URLs, file names) as quoted OVN strings.
 *
 * ```ts
 * encodeDhcpOptions('10.0.0.0/24', {
 *   server_id: '10.0.0.1', server_mac: '00:00:00:00:00:01', lease_time: 3600,
 *   router: '10.0.0.1', dns_server: ['8.8.8.8', '1.1.1.1'], mtu: 1442, domain_name: 'example.org',
 * });
 * // { server_id: '10.0.0.1', server_mac: '00:00:00:00:00:01', lease_time: '3600', router: '10.0.0.1',
 * //   dns_server: '{8.8.8.8, 1.1.1.1}', mtu: '1442', domain_name: '"example.org"' }
 * ```
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import {
  AlreadyExistsError,
  InvalidArgumentError,
  InvalidDhcpOptionError,
  NotFoundError,
  OutOfRangeError,
  UnknownDhcpOptionError,
} from './errors.js';
import { type CreateOptions, type DeleteOptions, existing } from './existence.js';
import { checkCidr, parseIp, parsePrefix } from './ip.js';
import { getNamed, type PortRef } from './lookup.js';
import { isMac } from './mac.js';
import { type MapPatch, patchedMap, type SetOptions, writeMap } from './maps.js';
import { quoteMatchString } from './match/expr.js';
import type { NeedsOf, RowIn } from './needs.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkStringMap } from './validate.js';

/** A classless static route option entry. */
export interface DhcpStaticRoute {
  /** The destination, `addr/len`. */
  readonly prefix: string;
  /** The router. */
  readonly nexthop: string;
}

/** One or more IPv4 addresses: a list, one address, or OVN's `{a, b}` text. */
export type Ipv4List = string | readonly string[];

/** The DHCPv4 options OVN knows (`DHCP_Options.options` of an IPv4 `cidr`). */
export interface DhcpV4Options {
  /** Mandatory: the server's IP. */
  readonly server_id?: string | undefined;
  /** Mandatory: the server's MAC. */
  readonly server_mac?: string | undefined;
  /** Mandatory: the lease time, s (0..4294967295). */
  readonly lease_time?: number | undefined;
  readonly router?: string | undefined;
  readonly netmask?: string | undefined;
  readonly next_server?: string | undefined;
  readonly broadcast_address?: string | undefined;
  readonly dns_server?: Ipv4List | undefined;
  readonly log_server?: Ipv4List | undefined;
  readonly lpr_server?: Ipv4List | undefined;
  readonly swap_server?: Ipv4List | undefined;
  readonly policy_filter?: Ipv4List | undefined;
  readonly router_solicitation?: Ipv4List | undefined;
  readonly nis_server?: Ipv4List | undefined;
  readonly ntp_server?: Ipv4List | undefined;
  readonly netbios_name_server?: Ipv4List | undefined;
  readonly tftp_server_address?: Ipv4List | undefined;
  readonly classless_static_route?: string | readonly DhcpStaticRoute[] | undefined;
  readonly ms_classless_static_route?: string | readonly DhcpStaticRoute[] | undefined;
  readonly ip_forward_enable?: boolean | undefined;
  readonly router_discovery?: boolean | undefined;
  readonly ethernet_encap?: boolean | undefined;
  readonly default_ttl?: number | undefined;
  readonly tcp_ttl?: number | undefined;
  readonly mtu?: number | undefined;
  readonly T1?: number | undefined;
  readonly T2?: number | undefined;
  readonly arp_cache_timeout?: number | undefined;
  readonly tcp_keepalive_interval?: number | undefined;
  readonly netbios_node_type?: number | undefined;
  readonly wpad?: string | undefined;
  readonly bootfile_name?: string | undefined;
  readonly bootfile_name_alt?: string | undefined;
  readonly path_prefix?: string | undefined;
  readonly hostname?: string | undefined;
  readonly domain_name?: string | undefined;
  /** An IPv4 address or a host name. */
  readonly tftp_server?: string | undefined;
  /** Domain names (a list, or comma-separated). */
  readonly domain_search_list?: string | readonly string[] | undefined;
}

/** The DHCPv6 options OVN knows (`DHCP_Options.options` of an IPv6 `cidr`). */
export interface DhcpV6Options {
  /** Mandatory: the server's MAC (its DUID-LL). */
  readonly server_id?: string | undefined;
  readonly dns_server?: string | readonly string[] | undefined;
  readonly domain_search?: string | undefined;
  readonly fqdn?: string | undefined;
  /** Only stateless DHCPv6 (no addresses). */
  readonly dhcpv6_stateless?: boolean | undefined;
}

type Kind =
  | 'ipv4'
  | 'ipv4list'
  | 'ipv6list'
  | 'mac'
  | 'bool01'
  | 'booltf'
  | 'string'
  | 'hostid'
  | 'domains'
  | 'routes'
  | readonly [min: number, max: number];

const V4: Readonly<Record<string, Kind>> = {
  server_id: 'ipv4',
  server_mac: 'mac',
  lease_time: [0, 4294967295],
  router: 'ipv4',
  netmask: 'ipv4',
  next_server: 'ipv4',
  broadcast_address: 'ipv4',
  dns_server: 'ipv4list',
  log_server: 'ipv4list',
  lpr_server: 'ipv4list',
  swap_server: 'ipv4list',
  policy_filter: 'ipv4list',
  router_solicitation: 'ipv4list',
  nis_server: 'ipv4list',
  ntp_server: 'ipv4list',
  netbios_name_server: 'ipv4list',
  tftp_server_address: 'ipv4list',
  classless_static_route: 'routes',
  ms_classless_static_route: 'routes',
  ip_forward_enable: 'bool01',
  router_discovery: 'bool01',
  ethernet_encap: 'bool01',
  default_ttl: [0, 255],
  tcp_ttl: [0, 255],
  mtu: [68, 65535],
  T1: [68, 4294967295],
  T2: [68, 4294967295],
  arp_cache_timeout: [0, 255],
  tcp_keepalive_interval: [0, 255],
  netbios_node_type: [0, 255],
  wpad: 'string',
  bootfile_name: 'string',
  bootfile_name_alt: 'string',
  path_prefix: 'string',
  hostname: 'string',
  domain_name: 'string',
  tftp_server: 'hostid',
  domain_search_list: 'domains',
};

const V6: Readonly<Record<string, Kind>> = {
  server_id: 'mac',
  dns_server: 'ipv6list',
  domain_search: 'string',
  fqdn: 'string',
  dhcpv6_stateless: 'booltf',
};

const MANDATORY = { IPv4: ['server_id', 'server_mac', 'lease_time'], IPv6: ['server_id'] } as const;

function addressList(option: string, value: unknown, family: 4 | 6): string {
  let list: string[];
  if (typeof value === 'string') {
    const text = value.trim();
    list = (text.startsWith('{') && text.endsWith('}') ? text.slice(1, -1) : text)
      .split(/[\s,]+/)
      .filter((w) => w !== '');
  } else if (Array.isArray(value)) {
    list = [...(value as unknown[])] as string[];
  } else {
    throw new InvalidDhcpOptionError(option, value, `must be one or more IPv${family} addresses`);
  }
  if (list.length === 0)
    throw new InvalidDhcpOptionError(option, value, 'needs at least one address');
  for (const ip of list) {
    if (typeof ip !== 'string' || parseIp(ip)?.family !== family) {
      throw new InvalidDhcpOptionError(
        option,
        value,
        `${JSON.stringify(ip)} is not an IPv${family} address`,
      );
    }
  }
  return list.length === 1 ? list[0]! : `{${list.join(', ')}}`;
}

function routes(option: string, value: unknown): string {
  if (typeof value === 'string') {
    const body = value.trim().replace(/^\{/, '').replace(/\}$/, '');
    const items = body.split(',').map((s) => s.trim());
    if (items.length % 2 !== 0 || items.length === 0) {
      throw new InvalidDhcpOptionError(option, value, 'must be pairs "prefix,nexthop"');
    }
    const pairs: DhcpStaticRoute[] = [];
    for (let i = 0; i < items.length; i += 2)
      pairs.push({ prefix: items[i]!, nexthop: items[i + 1]! });
    return routes(option, pairs);
  }
  if (!Array.isArray(value) || value.length === 0) {
    throw new InvalidDhcpOptionError(
      option,
      value,
      'must be a non-empty list of { prefix, nexthop }',
    );
  }
  const parts: string[] = [];
  for (const r of value as DhcpStaticRoute[]) {
    const p = parsePrefix(r?.prefix);
    if (p === undefined || p.family !== 4) {
      throw new InvalidDhcpOptionError(
        option,
        value,
        `${JSON.stringify(r?.prefix)} is not an IPv4 prefix`,
      );
    }
    if (parseIp(r.nexthop)?.family !== 4) {
      throw new InvalidDhcpOptionError(
        option,
        value,
        `${JSON.stringify(r.nexthop)} is not an IPv4 address`,
      );
    }
    parts.push(`${r.prefix},${r.nexthop}`);
  }
  return `{${parts.join(', ')}}`;
}

function encodeOption(option: string, kind: Kind, value: unknown): string {
  if (Array.isArray(kind)) {
    const [min, max] = kind as readonly [number, number];
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      throw new InvalidDhcpOptionError(option, value, `must be an integer in ${min}..${max}`);
    }
    if (value < min || value > max)
      throw new OutOfRangeError(`DHCP option ${option}`, value, min, max);
    return String(value);
  }
  switch (kind) {
    case 'ipv4':
      if (typeof value !== 'string' || parseIp(value)?.family !== 4) {
        throw new InvalidDhcpOptionError(option, value, 'must be an IPv4 address');
      }
      return value;
    case 'ipv4list':
      return addressList(option, value, 4);
    case 'ipv6list':
      return addressList(option, value, 6);
    case 'mac':
      if (!isMac(value)) throw new InvalidDhcpOptionError(option, value, 'must be a MAC address');
      return value;
    case 'bool01':
    case 'booltf':
      if (typeof value !== 'boolean')
        throw new InvalidDhcpOptionError(option, value, 'must be a boolean');
      return kind === 'bool01' ? (value ? '1' : '0') : value ? 'true' : 'false';
    case 'string':
      if (typeof value !== 'string' || value === '') {
        throw new InvalidDhcpOptionError(option, value, 'must be a non-empty string');
      }
      return quoteMatchString(value);
    case 'hostid':
      if (typeof value !== 'string' || value === '') {
        throw new InvalidDhcpOptionError(option, value, 'must be an IPv4 address or a host name');
      }
      return parseIp(value)?.family === 4 ? value : quoteMatchString(value);
    case 'domains': {
      const list = typeof value === 'string' ? value.split(',').map((s) => s.trim()) : value;
      if (
        !Array.isArray(list) ||
        list.length === 0 ||
        list.some((d) => typeof d !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(d))
      ) {
        throw new InvalidDhcpOptionError(option, value, 'must be a list of domain names');
      }
      return quoteMatchString(list.join(','));
    }
    case 'routes':
      return routes(option, value);
    default:
      throw new InvalidDhcpOptionError(option, value, 'unsupported option');
  }
}

/** The address family of a DHCP `cidr`. */
export function dhcpFamily(cidr: string): 'IPv4' | 'IPv6' {
  return checkCidr(cidr, 'DHCP_Options.cidr').family === 4 ? 'IPv4' : 'IPv6';
}

/**
 * Check and encode typed DHCP options for a row with `cidr` (which selects
 * the DHCPv4 or DHCPv6 catalogue).
 * @param requireMandatory - fail when a mandatory option is missing (default true).
 * @throws UnknownDhcpOptionError for an option OVN does not know for the
 *   family; InvalidDhcpOptionError for a bad value or a missing mandatory
 *   option; OutOfRangeError for a number out of range; InvalidAddressError
 *   for a bad cidr.
 */
export function encodeDhcpOptions(
  cidr: string,
  options: DhcpV4Options | DhcpV6Options,
  requireMandatory = true,
): Record<string, string> {
  const family = dhcpFamily(cidr);
  const catalogue = family === 'IPv4' ? V4 : V6;
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError('DHCP_Options.options', options, 'must be an object');
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(catalogue, name)) throw new UnknownDhcpOptionError(name, family);
    out[name] = encodeOption(name, catalogue[name]!, value);
  }
  if (requireMandatory) checkMandatory(family, out);
  return out;
}

/** @throws InvalidDhcpOptionError when `options` lacks a mandatory option of `family`. */
function checkMandatory(family: 'IPv4' | 'IPv6', options: Readonly<Record<string, string>>): void {
  for (const m of MANDATORY[family]) {
    if (options[m] === undefined) {
      throw new InvalidDhcpOptionError(
        m,
        undefined,
        `mandatory DHCP${family === 'IPv4' ? 'v4' : 'v6'} option missing`,
      );
    }
  }
}

/** DHCP options to set (a value) or remove (`null`). */
export type DhcpOptionsPatch<O> = { readonly [K in keyof O]?: O[K] | null };

/** Options of {@link dhcpOptionsCreate}. */
export interface DhcpOptionsCreateOptions extends CreateOptions {
  /** `external_ids`: part of the row's identity for `mayExist`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

function sameMap(
  a: Readonly<Record<string, string>>,
  b: Readonly<Record<string, string>>,
): boolean {
  const ka = Object.keys(a);
  return (
    ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k])
  );
}

/**
 * Create a DHCP_Options row (`ovn-nbctl dhcp-options-create` +
 * `dhcp-options-set-options`). Its identity, for `mayExist`, is its `cidr`
 * and `external_ids`.
 *
 * ```ts
 * const dhcp = dhcpOptionsCreate(t, '10.0.0.0/24',
 *   { server_id: '10.0.0.1', server_mac: '00:00:00:00:00:01', lease_time: 3600, router: '10.0.0.1' },
 *   { externalIds: { subnet: 'sw0' } });
 * // {"op":"insert","table":"DHCP_Options","row":{"cidr":"10.0.0.0/24","external_ids":["map",[["subnet","sw0"]]],
 * //   "options":["map",[["server_id","10.0.0.1"],["server_mac","00:00:00:00:00:01"],["lease_time","3600"],
 * //   ["router","10.0.0.1"]]]},"uuid":"<dhcp>","uuid-name":"row0"}
 * lspSetDhcpv4Options(t, 'web-1', dhcp);
 * ```
 * @throws AlreadyExistsError when a row with this cidr and external_ids
 *   exists (unless `mayExist`); see {@link encodeDhcpOptions}.
 */
export function dhcpOptionsCreate<DB extends NeedsOf<'dhcpOptionsCreate'>>(
  t: NbTxn<DB>,
  cidr: string,
  options: DhcpV4Options | DhcpV6Options,
  createOptions?: DhcpOptionsCreateOptions,
): Uuid<'DHCP_Options'>;
export function dhcpOptionsCreate(
  t: NbTxn,
  cidr: string,
  options: DhcpV4Options | DhcpV6Options,
  createOptions: DhcpOptionsCreateOptions = {},
): Uuid<'DHCP_Options'> {
  const encoded = encodeDhcpOptions(cidr, options);
  const externalIds = checkStringMap('DHCP_Options.external_ids', createOptions.externalIds ?? {});
  const existing = t.find(
    'DHCP_Options',
    (r) => r.cidr === cidr && sameMap(r.external_ids, externalIds),
  );
  if (existing !== undefined) {
    if (createOptions.mayExist) return existing._uuid;
    throw new AlreadyExistsError(
      'DHCP options',
      `(cidr ${cidr}, external_ids ${JSON.stringify(externalIds)})`,
      undefined,
      existing._uuid,
    );
  }
  return t.insert('DHCP_Options', {
    cidr,
    options: encoded,
    ...(Object.keys(externalIds).length > 0 ? { external_ids: externalIds } : {}),
  });
}

function dhcpRow(t: NbTxn, ref: string): NbRow<'DHCP_Options'> | undefined {
  return t.get('DHCP_Options', ref);
}

/**
 * Set options of a DHCP_Options row (others are kept; `null` removes one),
 * or with `{ replace: true }` replace them all, as
 * `ovn-nbctl dhcp-options-set-options` does. The result must still have the
 * mandatory options.
 *
 * ```ts
 * dhcpOptionsSetOptions(t, dhcp, { lease_time: 7200, dns_server: null });
 * // {"op":"mutate","table":"DHCP_Options",…,"mutations":[["options","delete",["set",["lease_time","dns_server"]]],
 * //   ["options","insert",["map",[["lease_time","7200"]]]]]}
 * ```
 * @throws NotFoundError; see {@link encodeDhcpOptions}.
 */
export function dhcpOptionsSetOptions<DB extends NeedsOf<'dhcpOptionsSetOptions'>>(
  t: NbTxn<DB>,
  dhcp: Uuid<'DHCP_Options'> | string,
  options: DhcpOptionsPatch<DhcpV4Options> | DhcpOptionsPatch<DhcpV6Options>,
  setOptions?: SetOptions,
): void;
export function dhcpOptionsSetOptions(
  t: NbTxn,
  dhcp: Uuid<'DHCP_Options'> | string,
  options: DhcpOptionsPatch<DhcpV4Options> | DhcpOptionsPatch<DhcpV6Options>,
  setOptions: SetOptions = {},
): void {
  const row = dhcpRow(t, dhcp);
  if (row === undefined) throw new NotFoundError('DHCP options', dhcp);
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError('DHCP_Options.options', options, 'must be an object');
  }
  const entries = Object.entries(options);
  const given = Object.fromEntries(entries.filter(([, v]) => v !== null));
  const patch: Record<string, string | null> = encodeDhcpOptions(row.cidr, given, false);
  for (const [k, v] of entries) {
    if (v === null)
      Object.defineProperty(patch, k, {
        value: null,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  checkMandatory(dhcpFamily(row.cidr), patchedMap(row.options, patch as MapPatch, setOptions));
  writeMap(t, 'DHCP_Options', row._uuid, 'options', patch, setOptions);
}

/**
 * Delete a DHCP_Options row (`ovn-nbctl dhcp-options-del`); ports using it
 * lose it.
 * @throws NotFoundError (unless `ifExists`).
 */
export function dhcpOptionsDel<DB extends NeedsOf<'dhcpOptionsDel'>>(
  t: NbTxn<DB>,
  dhcp: Uuid<'DHCP_Options'> | string,
  options?: DeleteOptions,
): void;
export function dhcpOptionsDel(
  t: NbTxn,
  dhcp: Uuid<'DHCP_Options'> | string,
  options: DeleteOptions = {},
): void {
  const row = existing(dhcpRow(t, dhcp), options, () => new NotFoundError('DHCP options', dhcp));
  if (row === undefined) return;
  t.delete('DHCP_Options', row._uuid);
}

/** Every DHCP_Options row, sorted by cidr (`ovn-nbctl dhcp-options-list`). */
export function dhcpOptionsList<DB extends NeedsOf<'dhcpOptionsList'>>(
  t: NbTxn<DB>,
): RowIn<DB, 'DHCP_Options'>[];
export function dhcpOptionsList(t: NbTxn): NbRow<'DHCP_Options'>[] {
  return t.rows('DHCP_Options').sort((a, b) => (a.cidr < b.cidr ? -1 : a.cidr > b.cidr ? 1 : 0));
}

/** The desired DHCP options of one family of a port. */
export interface PortDhcpSpec {
  /** The cidr (IPv4 for `v4`, IPv6 for `v6`). */
  readonly cidr: string;
  /** The options. */
  readonly options: DhcpV4Options | DhcpV6Options;
}

/** What {@link reconcilePortDhcpOptions} did. */
export interface PortDhcpReconciliation {
  /** The port's DHCPv4 row afterwards (undefined: none). */
  readonly v4: Uuid<'DHCP_Options'> | undefined;
  /** The port's DHCPv6 row afterwards. */
  readonly v6: Uuid<'DHCP_Options'> | undefined;
  /** Rows created. */
  readonly created: number;
  /** Rows whose cidr or options were changed. */
  readonly updated: number;
  /** Stale rows deleted. */
  readonly deleted: number;
}

/** The `external_ids` keys that mark a DHCP_Options row as a port's own. */
export const PORT_DHCP_KEYS = { port: 'lsp', protocol: 'protocol' } as const;

/**
 * Make a port's own DHCP options match `desired`, per family: create the
 * row (tagged `external_ids:lsp=<port>` and `protocol=IPv4|IPv6`) and attach
 * it; update its cidr and options when they differ; delete duplicates left
 * by earlier runs; and, for a family set to `null`, detach and delete the
 * port's rows. A family left `undefined` is not touched. Only changes are
 * written: reconciling an up-to-date port adds no operation.
 *
 * ```ts
 * reconcilePortDhcpOptions(t, 'web-1', {
 *   v4: { cidr: '10.0.0.0/24', options: { server_id: '10.0.0.1', server_mac: '00:00:00:00:00:01', lease_time: 3600 } },
 *   v6: null,
 * });
 * ```
 * @throws NotFoundError for an unknown port; InvalidArgumentError when a
 *   cidr is of the wrong family; see {@link encodeDhcpOptions}.
 */
export function reconcilePortDhcpOptions<DB extends NeedsOf<'reconcilePortDhcpOptions'>>(
  t: NbTxn<DB>,
  port: PortRef,
  desired: {
    readonly v4?: PortDhcpSpec | null | undefined;
    readonly v6?: PortDhcpSpec | null | undefined;
  },
): PortDhcpReconciliation;
export function reconcilePortDhcpOptions(
  t: NbTxn,
  port: PortRef,
  desired: {
    readonly v4?: PortDhcpSpec | null | undefined;
    readonly v6?: PortDhcpSpec | null | undefined;
  },
): PortDhcpReconciliation {
  const lsp = getNamed(t, 'Logical_Switch_Port', port);
  let created = 0;
  let updated = 0;
  let deleted = 0;
  const result: { v4: Uuid<'DHCP_Options'> | undefined; v6: Uuid<'DHCP_Options'> | undefined } = {
    v4: lsp.dhcpv4_options ?? undefined,
    v6: lsp.dhcpv6_options ?? undefined,
  };
  for (const family of ['v4', 'v6'] as const) {
    const spec = desired[family];
    if (spec === undefined) continue;
    const protocol = family === 'v4' ? 'IPv4' : 'IPv6';
    const column = family === 'v4' ? 'dhcpv4_options' : 'dhcpv6_options';
    const mine = t.filter(
      'DHCP_Options',
      (r) =>
        r.external_ids[PORT_DHCP_KEYS.port] === lsp.name &&
        r.external_ids[PORT_DHCP_KEYS.protocol] === protocol,
    );
    const attached = t.get('Logical_Switch_Port', lsp._uuid)![column];
    if (spec === null) {
      if (attached !== null && mine.some((r) => r._uuid === attached)) {
        t.update('Logical_Switch_Port', lsp._uuid, { [column]: null });
      }
      for (const r of mine) {
        t.delete('DHCP_Options', r._uuid);
        deleted++;
      }
      result[family] = t.get('Logical_Switch_Port', lsp._uuid)![column] ?? undefined;
      continue;
    }
    if (dhcpFamily(spec.cidr) !== protocol) {
      throw new InvalidArgumentError(`${family}.cidr`, spec.cidr, `must be an ${protocol} cidr`);
    }
    const options = encodeDhcpOptions(spec.cidr, spec.options);
    const keep = mine.find((r) => r._uuid === attached) ?? mine[0];
    let uuid: Uuid<'DHCP_Options'>;
    if (keep === undefined) {
      uuid = t.insert('DHCP_Options', {
        cidr: spec.cidr,
        options,
        external_ids: { [PORT_DHCP_KEYS.port]: lsp.name, [PORT_DHCP_KEYS.protocol]: protocol },
      });
      created++;
    } else {
      uuid = keep._uuid;
      if (keep.cidr !== spec.cidr || !sameMap(keep.options, options)) {
        t.update('DHCP_Options', uuid, {
          ...(keep.cidr !== spec.cidr ? { cidr: spec.cidr } : {}),
          ...(!sameMap(keep.options, options) ? { options } : {}),
        });
        updated++;
      }
    }
    if (attached !== uuid) t.update('Logical_Switch_Port', lsp._uuid, { [column]: uuid });
    for (const r of mine) {
      if (r._uuid === uuid) continue;
      t.delete('DHCP_Options', r._uuid);
      deleted++;
    }
    result[family] = uuid;
  }
  return { ...result, created, updated, deleted };
}

/**
 * The options of a DHCP_Options row, sorted by key, as stored
 * (`ovn-nbctl dhcp-options-get-options` prints them as `key=value` lines).
 * @throws NotFoundError for an unknown row (unless `ifExists`: then undefined).
 */
export function dhcpOptionsGetOptions<DB extends NeedsOf<'dhcpOptionsGetOptions'>>(
  t: NbTxn<DB>,
  dhcp: Uuid<'DHCP_Options'> | string,
): Record<string, string>;
export function dhcpOptionsGetOptions<DB extends NeedsOf<'dhcpOptionsGetOptions'>>(
  t: NbTxn<DB>,
  dhcp: Uuid<'DHCP_Options'> | string,
  options: DeleteOptions,
): Record<string, string> | undefined;
export function dhcpOptionsGetOptions(
  t: NbTxn,
  dhcp: Uuid<'DHCP_Options'> | string,
  options: DeleteOptions = {},
): Record<string, string> | undefined {
  const row = existing(dhcpRow(t, dhcp), options, () => new NotFoundError('DHCP options', dhcp));
  if (row === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const k of Object.keys(row.options).sort()) {
    Object.defineProperty(out, k, {
      value: row.options[k],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

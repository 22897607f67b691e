/**
 * NAT rules of logical routers: `snat`, `dnat` and `dnat_and_snat`,
 * distributed (`logical_port` + `external_mac`), stateless, on a chosen
 * gateway port, with allowed or exempted external IPs
 * (`ovn-nbctl lr-nat-add`, `lr-nat-del`, `lr-nat-list`), plus
 * {@link lrNatEnsure}, which creates or updates a rule by its key (kube-ovn's
 * `EnsureSnat` / `UpdateDnatAndSnat`).
 *
 * A rule's key on its router is its type and, for `snat`, its logical IP
 * (network), for `dnat` and `dnat_and_snat` its external IP, as for
 * `ovn-nbctl`. The IPs are stored normalized: the external IP in canonical
 * form, the logical IP with host bits cleared and `/32` (`/128`) dropped.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import {
  AlreadyExistsError,
  InvalidArgumentError,
  NatLogicalIpError,
  NotFoundError,
} from './errors.js';
import type { CreateOptions, DeleteOptions } from './existence.js';
import type { NBTables } from './generated/model.js';
import { normalizePrefix, parseIp, parsePrefix, prefixContains } from './ip.js';
import { type AddressSetRef, getNamed, type RouterPortRef, type RouterRef } from './lookup.js';
import { checkMac } from './mac.js';
import type { IfColumn, NeedsOf, RowIn } from './needs.js';
import type { NbInsert, NbRow, NbTxn } from './txn.js';
import { checkEnum, checkStringMap } from './validate.js';

/** NAT types. */
export const NAT_TYPES = ['snat', 'dnat', 'dnat_and_snat'] as const;
/** A NAT type. */
export type NatTypeName = (typeof NAT_TYPES)[number];

/**
 * A NAT rule. With a model other than the bundled one (`DB`), `gatewayPort`
 * exists only when its NAT table has `gateway_port` (NB 6.3.0 and later).
 */
export interface NatSpec<DB = NBTables> {
  readonly type: NatTypeName;
  /** The external (public) IP. */
  readonly externalIp: string;
  /** The logical (internal) IP; for `snat`, an IP or a network. */
  readonly logicalIp: string;
  /** `dnat_and_snat` only: the port whose traffic is NATed on its own chassis (distributed NAT). Needs `externalMac`. */
  readonly logicalPort?: string | undefined;
  /** `dnat_and_snat` only: the MAC of the external IP on that chassis. Needs `logicalPort`. */
  readonly externalMac?: string | undefined;
  /** External port range, `N` or `N-M` (1..65535). */
  readonly externalPortRange?: string | undefined;
  /** `dnat_and_snat` only: NAT without connection tracking. */
  readonly stateless?: boolean | undefined;
  /** The distributed gateway port the rule applies on (routers with several). */
  readonly gatewayPort?: IfColumn<DB, 'NAT', 'gateway_port', RouterPortRef> | undefined;
  /** Only these external IPs (an address set) are NATed. Excludes `exemptedExtIps`. */
  readonly allowedExtIps?: AddressSetRef | undefined;
  /** These external IPs (an address set) are not NATed. Excludes `allowedExtIps`. */
  readonly exemptedExtIps?: AddressSetRef | undefined;
  /** More `options` (the DSL sets `stateless`). */
  readonly options?: Readonly<Record<string, string>> | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

/** Which rules {@link lrNatDel} removes: all, all of a type, or those of a type with a key IP. */
export interface NatFilter<DB = NBTables> {
  readonly type?: NatTypeName | undefined;
  /** For `snat` the logical IP (network), otherwise the external IP. */
  readonly ip?: string | undefined;
  /** Only rules on this gateway port (models with `NAT.gateway_port`). */
  readonly gatewayPort?: IfColumn<DB, 'NAT', 'gateway_port', RouterPortRef> | undefined;
}

type NatRow = NbRow<'NAT'>;
type NatColumns = { -readonly [K in keyof NbInsert<'NAT'>]: NbInsert<'NAT'>[K] };

function isDgp(lrp: NbRow<'Logical_Router_Port'>): boolean {
  return lrp.gateway_chassis.length > 0 || lrp.ha_chassis_group !== null;
}

function checkPortRange(range: string): string {
  const m = /^([1-9]\d{0,4})(?:-([1-9]\d{0,4}))?$/.exec(range);
  const lo = m ? Number(m[1]) : Number.NaN;
  const hi = m?.[2] === undefined ? lo : Number(m[2]);
  if (!m || lo > 65535 || hi > 65535 || (m[2] !== undefined && lo >= hi)) {
    throw new InvalidArgumentError(
      'NAT.external_port_range',
      range,
      'must be N or N-M with 1 <= N < M <= 65535',
    );
  }
  return range;
}

/** Check a spec, resolve its references, and compute the row and its key. */
function encode(
  t: NbTxn,
  lr: NbRow<'Logical_Router'>,
  spec: NatSpec,
): { row: NatColumns; key: string } {
  if (spec === null || typeof spec !== 'object')
    throw new InvalidArgumentError('NAT', spec, 'must be an object');
  const type = checkEnum('NAT.type', spec.type, NAT_TYPES);
  const ext = parseIp(spec.externalIp);
  if (ext === undefined) {
    throw new InvalidArgumentError(
      'NAT.external_ip',
      spec.externalIp,
      'must be an IPv4 or IPv6 address',
    );
  }
  const logical = typeof spec.logicalIp === 'string' ? parsePrefix(spec.logicalIp) : undefined;
  if (logical === undefined) {
    throw new NatLogicalIpError(type, String(spec.logicalIp), 'is not an IP address or network');
  }
  if (logical.family !== ext.family) {
    throw new NatLogicalIpError(
      type,
      spec.logicalIp,
      `is IPv${logical.family} but the external IP is IPv${ext.family}`,
    );
  }
  const max = logical.family === 4 ? 32 : 128;
  if (type !== 'snat' && logical.hasLength && logical.length !== max) {
    throw new NatLogicalIpError(
      type,
      spec.logicalIp,
      `must be a single IP address for ${type} (a network is only valid for snat)`,
    );
  }
  const logicalIp = normalizePrefix(spec.logicalIp);
  const row: NatColumns = { type, external_ip: ext.text, logical_ip: logicalIp };
  if ((spec.logicalPort === undefined) !== (spec.externalMac === undefined)) {
    throw new InvalidArgumentError(
      'NAT.logical_port',
      spec.logicalPort,
      'logicalPort and externalMac go together',
    );
  }
  if (spec.logicalPort !== undefined) {
    if (type !== 'dnat_and_snat') {
      throw new InvalidArgumentError(
        'NAT.logical_port',
        spec.logicalPort,
        'logicalPort and externalMac are only valid for dnat_and_snat',
      );
    }
    row.logical_port = getNamed(t, 'Logical_Switch_Port', spec.logicalPort).name;
    row.external_mac = checkMac(spec.externalMac!, 'NAT.external_mac');
  }
  if (spec.externalPortRange !== undefined)
    row.external_port_range = checkPortRange(spec.externalPortRange);
  if (spec.stateless !== undefined && typeof spec.stateless !== 'boolean') {
    throw new InvalidArgumentError('NAT.options:stateless', spec.stateless, 'must be a boolean');
  }
  if (spec.stateless && type !== 'dnat_and_snat') {
    throw new InvalidArgumentError(
      'NAT.options:stateless',
      spec.stateless,
      'stateless is only valid for dnat_and_snat',
    );
  }
  const ports = lr.ports
    .map((u) => t.get('Logical_Router_Port', u))
    .filter((p): p is NbRow<'Logical_Router_Port'> => p !== undefined);
  if (spec.gatewayPort !== undefined) {
    const gw = getNamed(t, 'Logical_Router_Port', spec.gatewayPort);
    if (!lr.ports.includes(gw._uuid)) {
      throw new InvalidArgumentError(
        'NAT.gateway_port',
        spec.gatewayPort,
        `is not a port of router ${lr.name || lr._uuid}`,
      );
    }
    if (!isDgp(gw)) {
      throw new InvalidArgumentError(
        'NAT.gateway_port',
        spec.gatewayPort,
        'is not a distributed gateway port (no gateway chassis or HA chassis group)',
      );
    }
    row.gateway_port = gw._uuid;
  } else {
    const dgps = ports.filter(isDgp);
    if (
      dgps.length > 1 &&
      !dgps.some((p) =>
        p.networks.some((n) => {
          const net = parsePrefix(n);
          return net !== undefined && prefixContains(net, ext);
        }),
      )
    ) {
      throw new InvalidArgumentError(
        'NAT.gateway_port',
        undefined,
        `router ${lr.name || lr._uuid} has several distributed gateway ports and none has the external IP in its networks: give gatewayPort`,
      );
    }
  }
  if (spec.allowedExtIps !== undefined && spec.exemptedExtIps !== undefined) {
    throw new InvalidArgumentError(
      'NAT.allowed_ext_ips',
      spec.allowedExtIps,
      'allowedExtIps and exemptedExtIps exclude each other',
    );
  }
  if (spec.allowedExtIps !== undefined)
    row.allowed_ext_ips = getNamed(t, 'Address_Set', spec.allowedExtIps)._uuid;
  if (spec.exemptedExtIps !== undefined)
    row.exempted_ext_ips = getNamed(t, 'Address_Set', spec.exemptedExtIps)._uuid;
  const options = spec.options === undefined ? {} : checkStringMap('NAT.options', spec.options);
  row.options = { ...options, stateless: spec.stateless ? 'true' : 'false' };
  if (spec.externalIds !== undefined)
    row.external_ids = checkStringMap('NAT.external_ids', spec.externalIds);
  return { row, key: type === 'snat' ? logicalIp : ext.text };
}

function natsOf(t: NbTxn, lr: NbRow<'Logical_Router'>): NatRow[] {
  return lr.nat.map((u) => t.get('NAT', u)).filter((n): n is NatRow => n !== undefined);
}

function normalized(s: string): string | undefined {
  try {
    return normalizePrefix(s);
  } catch {
    return undefined;
  }
}

/** The rule's key IP, normalized (undefined for an unparsable stored value). */
function keyOf(n: NatRow): string | undefined {
  return normalized(n.type === 'snat' ? n.logical_ip : n.external_ip);
}

function sameGateway(n: NatRow, gw: string | null | undefined): boolean {
  return gw === undefined || (n.gateway_port ?? null) === (gw ?? null);
}

function describeKey(row: NatColumns): string {
  return `(${row.type}, ${row.type === 'snat' ? 'logical_ip' : 'external_ip'} ${row.type === 'snat' ? row.logical_ip : row.external_ip})`;
}

/**
 * Add a NAT rule to a router (`ovn-nbctl lr-nat-add`).
 *
 * ```ts
 * lrNatAdd(t, 'lr0', { type: 'snat', externalIp: '172.16.0.1', logicalIp: '10.0.0.0/24' });
 * // {"op":"insert","table":"NAT","row":{"external_ip":"172.16.0.1","logical_ip":"10.0.0.0/24",
 * //   "options":["map",[["stateless","false"]]],"type":"snat"},"uuid":"<nat>","uuid-name":"row0"}
 * // {"op":"mutate","table":"Logical_Router",…,"mutations":[["nat","insert",["set",[["named-uuid","row0"]]]]]}
 * lrNatAdd(t, 'lr0', { type: 'dnat_and_snat', externalIp: '172.16.0.5', logicalIp: '10.0.0.5',
 *   logicalPort: 'web-1', externalMac: '00:00:00:00:aa:05' });
 * ```
 * @throws NatLogicalIpError when the logical IP does not fit the type;
 *   InvalidAddressError/InvalidArgumentError for other bad fields;
 *   AlreadyExistsError when a rule with the same key exists (unless
 *   `mayExist` and its other IP is the same too).
 */
export function lrNatAdd<DB extends NeedsOf<'lrNatAdd'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  spec: NoInfer<NatSpec<DB>>,
  options?: CreateOptions,
): Uuid<'NAT'>;
export function lrNatAdd(
  t: NbTxn,
  router: RouterRef,
  spec: NatSpec,
  options: CreateOptions = {},
): Uuid<'NAT'> {
  const lr = getNamed(t, 'Logical_Router', router);
  const { row, key } = encode(t, lr, spec);
  for (const n of natsOf(t, lr)) {
    if (n.type === row.type && keyOf(n) === key && sameGateway(n, row.gateway_port)) {
      const otherNew = row.type === 'snat' ? row.external_ip : row.logical_ip;
      const otherOld = normalized(row.type === 'snat' ? n.external_ip : n.logical_ip);
      if (otherOld === otherNew && options.mayExist) return n._uuid;
      throw new AlreadyExistsError(
        'NAT',
        describeKey(row),
        otherOld === otherNew
          ? undefined
          : `a rule with this key maps it to ${row.type === 'snat' ? n.external_ip : n.logical_ip}`,
        n._uuid,
      );
    }
    if (
      (row.type === 'dnat_and_snat' || n.type === 'dnat_and_snat') &&
      normalized(n.external_ip) === row.external_ip
    ) {
      const stateless = row.options?.['stateless'] === 'true' || n.options['stateless'] === 'true';
      if (stateless) {
        throw new AlreadyExistsError(
          'NAT',
          describeKey(row),
          'an external IP cannot be shared across stateless and stateful NAT rules',
          n._uuid,
        );
      }
    }
  }
  const nat = t.insert('NAT', row);
  t.addToSet('Logical_Router', lr._uuid, 'nat', [nat]);
  return nat;
}

/**
 * Create the rule, or update the existing one with the same key so that it
 * matches `spec` (kube-ovn's `EnsureSnat` / `UpdateDnatAndSnat`): the other
 * IP, logical port, external MAC, port range, gateway port, external IP
 * sets, `stateless`, and the given options and external IDs.
 *
 * ```ts
 * lrNatEnsure(t, 'lr0', { type: 'snat', externalIp: '172.16.0.2', logicalIp: '10.0.0.0/24' });
 * // an existing snat for 10.0.0.0/24: {"op":"update","table":"NAT",…,"row":{"external_ip":"172.16.0.2"}}
 * ```
 */
export function lrNatEnsure<DB extends NeedsOf<'lrNatEnsure'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  spec: NoInfer<NatSpec<DB>>,
): Uuid<'NAT'>;
export function lrNatEnsure(t: NbTxn, router: RouterRef, spec: NatSpec): Uuid<'NAT'> {
  const lr = getNamed(t, 'Logical_Router', router);
  const { row, key } = encode(t, lr, spec);
  const existing = natsOf(t, lr).find(
    (n) => n.type === row.type && keyOf(n) === key && sameGateway(n, row.gateway_port),
  );
  if (existing === undefined) return lrNatAdd(t, lr._uuid, spec);
  const update: Record<string, unknown> = {};
  const want: Record<string, unknown> = {
    external_ip: row.external_ip,
    logical_ip: row.logical_ip,
    logical_port: row.logical_port ?? null,
    external_mac: row.external_mac ?? null,
    external_port_range: row.external_port_range ?? '',
    // Models before NB 6.3.0 have no NAT.gateway_port.
    ...(t.schema('NAT').columns['gateway_port'] !== undefined
      ? { gateway_port: row.gateway_port ?? null }
      : {}),
    allowed_ext_ips: row.allowed_ext_ips ?? null,
    exempted_ext_ips: row.exempted_ext_ips ?? null,
  };
  for (const [k, v] of Object.entries(want)) {
    if (((existing as unknown as Record<string, unknown>)[k] ?? null) !== v) update[k] = v;
  }
  if (Object.keys(update).length > 0) t.update('NAT', existing._uuid, update as never);
  t.setMapKeys(
    'NAT',
    existing._uuid,
    'options',
    Object.fromEntries(
      Object.entries(row.options ?? {}).filter(([k, v]) => existing.options[k] !== v),
    ),
  );
  if (row.external_ids !== undefined) {
    t.setMapKeys(
      'NAT',
      existing._uuid,
      'external_ids',
      Object.fromEntries(
        Object.entries(row.external_ids).filter(([k, v]) => existing.external_ids[k] !== v),
      ),
    );
  }
  return existing._uuid;
}

/**
 * Remove NAT rules from a router (`ovn-nbctl lr-nat-del`): all (no filter),
 * all of a type, or those of a type whose key is `ip` (optionally only on a
 * gateway port). Returns how many were removed.
 *
 * ```ts
 * lrNatDel(t, 'lr0', { type: 'dnat_and_snat', ip: '172.16.0.5' });
 * // {"op":"mutate","table":"Logical_Router",…,"mutations":[["nat","delete",["set",[["uuid","<nat>"]]]]]}
 * ```
 * @throws NotFoundError when a rule named by type and IP does not exist
 *   (unless `ifExists`); InvalidArgumentError for an IP without a type.
 */
export function lrNatDel<DB extends NeedsOf<'lrNatDel'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  filter?: NoInfer<NatFilter<DB>>,
  options?: DeleteOptions,
): number;
export function lrNatDel(
  t: NbTxn,
  router: RouterRef,
  filter: NatFilter = {},
  options: DeleteOptions = {},
): number {
  const lr = getNamed(t, 'Logical_Router', router);
  if (filter.type === undefined && (filter.ip !== undefined || filter.gatewayPort !== undefined)) {
    throw new InvalidArgumentError('lrNatDel', filter, 'an IP or gateway port needs a type');
  }
  const type =
    filter.type === undefined ? undefined : checkEnum('NAT.type', filter.type, NAT_TYPES);
  const ip = filter.ip === undefined ? undefined : normalizePrefix(filter.ip, 'lrNatDel ip');
  const gw =
    filter.gatewayPort === undefined
      ? undefined
      : getNamed(t, 'Logical_Router_Port', filter.gatewayPort)._uuid;
  const victims = natsOf(t, lr).filter(
    (n) =>
      (type === undefined || n.type === type) &&
      (ip === undefined || keyOf(n) === ip) &&
      (gw === undefined || n.gateway_port === gw),
  );
  if (victims.length === 0 && ip !== undefined && !options.ifExists) {
    throw new NotFoundError('NAT', `(${type}, ${ip})`, `on router ${lr.name || lr._uuid}`);
  }
  t.removeFromSet(
    'Logical_Router',
    lr._uuid,
    'nat',
    victims.map((n) => n._uuid),
  );
  return victims.length;
}

/** The NAT rules of a router, sorted by type, then external IP (`ovn-nbctl lr-nat-list`). */
export function lrNatList<DB extends NeedsOf<'lrNatList'>>(
  t: NbTxn<DB>,
  router: RouterRef,
): RowIn<DB, 'NAT'>[];
export function lrNatList(t: NbTxn, router: RouterRef): NatRow[] {
  const lr = getNamed(t, 'Logical_Router', router);
  return natsOf(t, lr).sort((a, b) =>
    a.type !== b.type
      ? a.type < b.type
        ? -1
        : 1
      : a.external_ip < b.external_ip
        ? -1
        : a.external_ip > b.external_ip
          ? 1
          : 0,
  );
}

/**
 * Logical switches: create, delete, read; `other_config` (IPAM subnet,
 * excluded IPs, IPv6 prefix, multicast snooping) and DNS records.
 * (`ovn-nbctl ls-add`, `ls-del`, `ls-list`; `set Logical_Switch … other_config`.)
 *
 * Switch names are not unique in the schema: {@link lsAdd} refuses to create
 * a second switch with the same name (and checks it again on the server, so
 * that two clients cannot both create it), and a lookup by a name that
 * several switches share fails with `AmbiguousNameError`.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import {
  AlreadyExistsError,
  AmbiguousNameError,
  DuplicateNameError,
  InvalidArgumentError,
} from './errors.js';
import type { CreateOptions, DeleteOptions } from './existence.js';
import { normalizeIp, parseIp, parsePrefix } from './ip.js';
import { findNamed, getNamed, namedTarget, rowsNamed, type SwitchRef } from './lookup.js';
import { checkMac } from './mac.js';
import { type SetOptions, setKeysOf, writeMap } from './maps.js';
import type { NeedsOf, RowIn } from './needs.js';
import { byName } from './order.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkMapPatch, checkName, checkStringMap } from './validate.js';

/**
 * `Logical_Switch.other_config`, typed for the keys the DSL checks; other
 * keys pass as strings. Booleans are written `true`/`false`, numbers in
 * decimal, lists joined by spaces.
 */
export interface LsOtherConfig {
  /** IPv4 subnet for IPAM, e.g. `10.0.0.0/24`. */
  readonly subnet?: string | null | undefined;
  /** Addresses or `a..b` ranges IPAM must not assign. */
  readonly exclude_ips?: string | readonly string[] | null | undefined;
  /** IPv6 prefix for IPAM: an address ending with `::`, e.g. `fd00::`. */
  readonly ipv6_prefix?: string | null | undefined;
  /** Only MACs are assigned (no IPs). */
  readonly mac_only?: boolean | null | undefined;
  /** IGMP/MLD snooping. */
  readonly mcast_snoop?: boolean | null | undefined;
  /** IGMP/MLD querier (needs `mcast_eth_src` and `mcast_ip4_src`). */
  readonly mcast_querier?: boolean | null | undefined;
  /** Flood unregistered multicast. */
  readonly mcast_flood_unregistered?: boolean | null | undefined;
  /** The querier's source MAC. */
  readonly mcast_eth_src?: string | null | undefined;
  /** The querier's source IPv4. */
  readonly mcast_ip4_src?: string | null | undefined;
  /** The querier's source IPv6. */
  readonly mcast_ip6_src?: string | null | undefined;
  /** Multicast group table size. */
  readonly mcast_table_size?: number | null | undefined;
  /** Multicast group idle timeout, s. */
  readonly mcast_idle_timeout?: number | null | undefined;
  /** Querier interval, s. */
  readonly mcast_query_interval?: number | null | undefined;
  /** Querier max response, s. */
  readonly mcast_query_max_response?: number | null | undefined;
  /** Any other key (written as is); `null` removes the key in {@link lsSetOtherConfig}. */
  readonly [key: string]: string | number | boolean | readonly string[] | null | undefined;
}

/** Options of {@link lsAdd}. */
export interface LsAddOptions extends CreateOptions {
  /** `other_config`. */
  readonly otherConfig?: LsOtherConfig | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

const BOOLEAN_KEYS = new Set([
  'mac_only',
  'mcast_snoop',
  'mcast_querier',
  'mcast_flood_unregistered',
]);

function encodeOtherConfigValue(key: string, value: unknown): string | null {
  const field = `Logical_Switch.other_config:${key}`;
  if (value === null) return null;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new InvalidArgumentError(field, value, 'must be a non-negative integer');
    }
    return String(value);
  }
  let text: string;
  if (Array.isArray(value)) {
    if (value.some((v) => typeof v !== 'string')) {
      throw new InvalidArgumentError(field, value, 'must be a list of strings');
    }
    text = value.join(' ');
  } else if (typeof value === 'string') {
    text = value;
  } else {
    throw new InvalidArgumentError(
      field,
      value,
      'must be a string, number, boolean or list of strings',
    );
  }
  switch (key) {
    case 'subnet': {
      const p = parsePrefix(text);
      if (p === undefined || p.family !== 4 || !p.hasLength) {
        throw new InvalidArgumentError(field, text, 'must be an IPv4 subnet such as 10.0.0.0/24');
      }
      break;
    }
    case 'exclude_ips':
      for (const item of text.split(' ').filter((w) => w !== '')) {
        const [a, b, ...rest] = item.split('..');
        if (
          rest.length > 0 ||
          parseIp(a ?? '')?.family !== 4 ||
          (b !== undefined && parseIp(b)?.family !== 4)
        ) {
          throw new InvalidArgumentError(
            field,
            text,
            `bad address or range ${JSON.stringify(item)}`,
          );
        }
      }
      break;
    case 'ipv6_prefix': {
      const ip = parseIp(text);
      if (ip === undefined || ip.family !== 6 || !text.endsWith('::')) {
        throw new InvalidArgumentError(
          field,
          text,
          'must be an IPv6 address ending with "::", such as fd00::',
        );
      }
      break;
    }
    case 'mcast_eth_src':
      checkMac(text, field);
      break;
    case 'mcast_ip4_src':
      normalizeIp(text, field, 4);
      break;
    case 'mcast_ip6_src':
      normalizeIp(text, field, 6);
      break;
    default:
      if (BOOLEAN_KEYS.has(key) && text !== 'true' && text !== 'false') {
        throw new InvalidArgumentError(field, text, 'must be a boolean');
      }
  }
  return text;
}

/**
 * Check and encode an {@link LsOtherConfig} (values `null` kept, meaning
 * "remove the key").
 * @throws InvalidArgumentError (or InvalidAddressError) for a bad value.
 */
export function encodeLsOtherConfig(config: LsOtherConfig): Record<string, string | null> {
  if (config === null || typeof config !== 'object') {
    throw new InvalidArgumentError('Logical_Switch.other_config', config, 'must be an object');
  }
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(config)) {
    if (v === undefined) continue;
    Object.defineProperty(out, k, {
      value: encodeOtherConfigValue(k, v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function withoutNulls(map: Record<string, string | null>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) {
    if (v !== null)
      Object.defineProperty(out, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}

/**
 * Create a logical switch (`ovn-nbctl ls-add`). Returns its UUID (a ref
 * usable in the same transaction). Without a name, a new unnamed switch is
 * always created.
 *
 * ```ts
 * const sw = lsAdd(t, 'sw0', { otherConfig: { subnet: '10.0.0.0/24', exclude_ips: ['10.0.0.1'] } });
 * // {"op":"wait","table":"Logical_Switch","where":[["name","==","sw0"]],"columns":["name"],"until":"==","rows":[],"timeout":0}
 * // {"op":"insert","table":"Logical_Switch","row":{"name":"sw0",
 * //   "other_config":["map",[["subnet","10.0.0.0/24"],["exclude_ips","10.0.0.1"]]]},"uuid":"<sw>","uuid-name":"row0"}
 * ```
 * @throws AlreadyExistsError when a switch with this name exists (unless
 *   `mayExist`); AmbiguousNameError when several do; InvalidArgumentError for
 *   a bad `other_config` value.
 */
export function lsAdd<DB extends NeedsOf<'lsAdd'>>(
  t: NbTxn<DB>,
  name?: string,
  options?: LsAddOptions,
): Uuid<'Logical_Switch'>;
export function lsAdd(t: NbTxn, name?: string, options: LsAddOptions = {}): Uuid<'Logical_Switch'> {
  const otherConfig =
    options.otherConfig === undefined
      ? undefined
      : withoutNulls(encodeLsOtherConfig(options.otherConfig));
  const externalIds =
    options.externalIds === undefined
      ? undefined
      : checkStringMap('Logical_Switch.external_ids', options.externalIds);
  if (name !== undefined) {
    checkName('Logical_Switch.name', name);
    const existing = rowsNamed(t, 'Logical_Switch', name);
    if (existing.length > 1) {
      throw new AmbiguousNameError('logical switch', name, existing.map((r) => r._uuid).sort());
    }
    const found = existing[0];
    if (found !== undefined) {
      if (options.mayExist) return found._uuid;
      throw new AlreadyExistsError('logical switch', JSON.stringify(name), undefined, found._uuid);
    }
    t.guardAbsent(
      'Logical_Switch',
      'name',
      name,
      () => new DuplicateNameError('logical switch', name),
    );
  } else if (options.mayExist) {
    throw new InvalidArgumentError('lsAdd', undefined, 'mayExist needs a name');
  }
  return t.insert('Logical_Switch', {
    ...(name !== undefined ? { name } : {}),
    ...(otherConfig !== undefined ? { other_config: otherConfig } : {}),
    ...(externalIds !== undefined ? { external_ids: externalIds } : {}),
  });
}

/**
 * Delete a logical switch and its ports, ACLs and QoS rules
 * (`ovn-nbctl ls-del`). Port groups and everything else that referenced the
 * ports lose them.
 *
 * ```ts
 * lsDel(t, 'sw0');
 * // {"op":"delete","table":"Logical_Switch","where":[["_uuid","==",["uuid","<sw0>"]]]}
 * ```
 * @throws NotFoundError (unless `ifExists`); AmbiguousNameError.
 */
export function lsDel<DB extends NeedsOf<'lsDel'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  options?: DeleteOptions,
): void;
export function lsDel(t: NbTxn, sw: SwitchRef, options: DeleteOptions = {}): void {
  const row = namedTarget(t, 'Logical_Switch', sw, options);
  if (row === undefined) return;
  t.delete('Logical_Switch', row._uuid);
}

/**
 * Read a logical switch by name or UUID (as changed by the transaction so far).
 * @throws NotFoundError (unless `ifExists`, which returns undefined); AmbiguousNameError.
 */
export function lsGet<DB extends NeedsOf<'lsGet'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
): RowIn<DB, 'Logical_Switch'>;
export function lsGet<DB extends NeedsOf<'lsGet'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  options: DeleteOptions,
): RowIn<DB, 'Logical_Switch'> | undefined;
export function lsGet(
  t: NbTxn,
  sw: SwitchRef,
  options: DeleteOptions = {},
): NbRow<'Logical_Switch'> | undefined {
  return options.ifExists ? findNamed(t, 'Logical_Switch', sw) : getNamed(t, 'Logical_Switch', sw);
}

/** Every logical switch, sorted by name (`ovn-nbctl ls-list`). */
export function lsList<DB extends NeedsOf<'lsList'>>(t: NbTxn<DB>): RowIn<DB, 'Logical_Switch'>[];
export function lsList(t: NbTxn): NbRow<'Logical_Switch'>[] {
  return t.rows('Logical_Switch').sort(byName);
}

/**
 * Set keys of `other_config` (others are kept; `null` removes a key), or
 * with `{ replace: true }` replace the whole map.
 *
 * ```ts
 * lsSetOtherConfig(t, 'sw0', { subnet: '10.0.0.0/24', mcast_snoop: true, exclude_ips: null });
 * // {"op":"mutate","table":"Logical_Switch","where":[["_uuid","==",["uuid","<sw0>"]]],"mutations":[
 * //   ["other_config","delete",["set",["subnet","mcast_snoop","exclude_ips"]]],
 * //   ["other_config","insert",["map",[["subnet","10.0.0.0/24"],["mcast_snoop","true"]]]]]}
 * ```
 */
export function lsSetOtherConfig<DB extends NeedsOf<'lsSetOtherConfig'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  config: LsOtherConfig,
  options?: SetOptions,
): void;
export function lsSetOtherConfig(
  t: NbTxn,
  sw: SwitchRef,
  config: LsOtherConfig,
  options: SetOptions = {},
): void {
  const row = getNamed(t, 'Logical_Switch', sw);
  writeMap(t, 'Logical_Switch', row._uuid, 'other_config', encodeLsOtherConfig(config), options);
}

/**
 * Set keys of `external_ids` (others are kept; `null` removes a key), or
 * with `{ replace: true }` replace the whole map.
 */
export function lsSetExternalIds<DB extends NeedsOf<'lsSetExternalIds'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  ids: Readonly<Record<string, string | null>>,
  options?: SetOptions,
): void;
export function lsSetExternalIds(
  t: NbTxn,
  sw: SwitchRef,
  ids: Readonly<Record<string, string | null>>,
  options: SetOptions = {},
): void {
  const row = getNamed(t, 'Logical_Switch', sw);
  writeMap(
    t,
    'Logical_Switch',
    row._uuid,
    'external_ids',
    checkMapPatch('Logical_Switch.external_ids', ids),
    options,
  );
}

/**
 * Set the switch's DNS records (hostname → one or more IPs), served by
 * `ovn-controller` to the switch's ports: creates the `DNS` row and attaches
 * it when the switch has none; sets the hosts given in the records of the
 * one it has (others are kept; a host given as `null` is removed), or with
 * `{ replace: true }` replaces them all; and with `records` `null` detaches
 * and deletes it (when no other switch uses it).
 *
 * ```ts
 * lsSetDnsRecords(t, 'sw0', { 'web.example': ['10.0.0.5', 'fd00::5'] });
 * // {"op":"insert","table":"DNS","row":{"records":["map",[["web.example","10.0.0.5 fd00::5"]]]},"uuid":"<dns>","uuid-name":"row0"}
 * // {"op":"mutate","table":"Logical_Switch",…,"mutations":[["dns_records","insert",["set",[["named-uuid","row0"]]]]]}
 * lsSetDnsRecords(t, 'sw0', { 'db.example': '10.0.0.6', 'old.example': null });
 * // {"op":"mutate","table":"DNS",…,"mutations":[["records","delete",["set",["db.example","old.example"]]],
 * //   ["records","insert",["map",[["db.example","10.0.0.6"]]]]]}
 * ```
 * @throws InvalidAddressError for a bad IP; InvalidArgumentError when the
 *   switch has several DNS rows.
 */
export function lsSetDnsRecords<DB extends NeedsOf<'lsSetDnsRecords'>>(
  t: NbTxn<DB>,
  sw: SwitchRef,
  records: Readonly<Record<string, string | readonly string[] | null>> | null,
  options?: SetOptions,
): Uuid<'DNS'> | undefined;
export function lsSetDnsRecords(
  t: NbTxn,
  sw: SwitchRef,
  records: Readonly<Record<string, string | readonly string[] | null>> | null,
  options: SetOptions = {},
): Uuid<'DNS'> | undefined {
  const row = getNamed(t, 'Logical_Switch', sw);
  if (row.dns_records.length > 1) {
    throw new InvalidArgumentError(
      'Logical_Switch.dns_records',
      row.dns_records,
      'the switch has several DNS rows; edit them with t.update',
    );
  }
  const current = row.dns_records[0];
  if (records === null) {
    if (current === undefined) return undefined;
    t.removeFromSet('Logical_Switch', row._uuid, 'dns_records', [current]);
    if (t.referrers('Logical_Switch', 'dns_records', current).length === 0)
      t.delete('DNS', current);
    return undefined;
  }
  if (typeof records !== 'object')
    throw new InvalidArgumentError('DNS.records', records, 'must be an object');
  const encoded: Record<string, string | null> = {};
  for (const [host, ips] of Object.entries(records)) {
    if (ips === undefined) continue;
    if (ips === null) {
      Object.defineProperty(encoded, host, {
        value: null,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      continue;
    }
    const list = typeof ips === 'string' ? ips.split(' ').filter((w) => w !== '') : ips;
    if (!Array.isArray(list) || list.length === 0) {
      throw new InvalidArgumentError(
        `DNS.records:${host}`,
        ips,
        'must be one or more IP addresses',
      );
    }
    for (const ip of list) normalizeIp(ip, `DNS.records:${host}`);
    Object.defineProperty(encoded, host, {
      value: list.join(' '),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (current !== undefined) {
    writeMap(t, 'DNS', current, 'records', encoded, options);
    return current;
  }
  const dns = t.insert('DNS', { records: setKeysOf(encoded) });
  t.addToSet('Logical_Switch', row._uuid, 'dns_records', [dns]);
  return dns;
}

/**
 * Pool entries in NB. An idle entry is a real Logical_Switch_Port on its
 * node's subnet switch, made before any pod asks for it:
 *
 * - `name` `ovnkit-pool-<12 hex>`, `enabled` false;
 * - `addresses` `"MAC IP…"` from the shared IPAM (held there by the owner
 *   `pool:<name>`, see {@link entryOwner});
 * - `external_ids` `vendor=ovnkit`, `pool=<node>`, `ls=<subnet>`,
 *   `pool-since=<ms>` (when it became idle: its TTL survives a restart);
 * - `options:requested-chassis=<node>`.
 *
 * A claim turns it into the pod's port in one small update guarded by
 * {@link guardIdle} (a `verify` of its `external_ids`); a release inserts
 * it again with the pod's addresses. NB is the source of truth: a restart
 * reads the entries back ({@link readEntry}, {@link entryRestorePort}).
 * @module
 */

import { randomBytes } from 'node:crypto';
import { formatLspAddress, lspDel, type NbRow, type NbTxn } from 'ovnkit/nb';
import type { Uuid } from 'ovnkit/ovsdb';
import { parseAddress } from '../ipam/address.js';
import { OWNER_KEYS, type RestorePort } from '../ipam/ipam.js';
import { parseUnicastMac } from '../ipam/mac.js';
import { PoolEntryTakenError } from './failure.js';

/** The name of the client index in {@link POOL_INDEXES}. */
export const POOL_NODE_INDEX = 'poolNode';

/** The `external_ids` and `options` keys of pool entries. */
export const POOL_KEYS = {
  /** `external_ids:pool`: the node whose pool holds the entry. */
  pool: 'pool',
  /** `external_ids:pool-since`: when the entry became idle, ms since the epoch. */
  since: 'pool-since',
  /** `options:requested-chassis`: the node (kept when a pod claims the entry). */
  chassis: 'requested-chassis',
} as const;

/**
 * The client index the pools read a node's ports through (pass it to
 * `connectDatabase({ indexes: POOL_INDEXES })`): every port by its
 * `external_ids:pool` and its `options:requested-chassis`, so that a node's
 * reconcile reads that node's entries and pod ports instead of every port
 * in NB. Without it the reconciler scans the table.
 */
export const POOL_INDEXES = {
  Logical_Switch_Port: {
    [POOL_NODE_INDEX]: {
      compute: (p: NbRow<'Logical_Switch_Port'>): string[] => {
        const pool = p.external_ids[POOL_KEYS.pool];
        const chassis = p.options[POOL_KEYS.chassis];
        const out: string[] = [];
        if (pool !== undefined) out.push(pool);
        if (chassis !== undefined && chassis !== pool) out.push(chassis);
        return out;
      },
    },
  },
} as const;

/** An idle entry as read from NB. */
export interface PoolEntry {
  readonly uuid: string;
  readonly name: string;
  readonly node: string;
  readonly subnet: string;
  readonly mac: string;
  /** IPv4 first. */
  readonly ips: readonly string[];
  /** When it became idle, ms since the epoch. */
  readonly since: number;
}

/** The IPAM owner of an idle entry's addresses. */
export function entryOwner(name: string): string {
  return `pool:${name}`;
}

/** A fresh entry name. */
export function newEntryName(): string {
  return `ovnkit-pool-${randomBytes(6).toString('hex')}`;
}

/** Whether `external_ids` mark an idle pool entry. */
export function isPoolEntry(ids: Readonly<Record<string, string>>): boolean {
  return ids[OWNER_KEYS.vendor] === OWNER_KEYS.vendorName && ids[POOL_KEYS.pool] !== undefined;
}

/** Split a `"MAC IP…"` address entry. */
export function splitAddresses(
  addresses: readonly string[],
): { mac: string; ips: string[] } | undefined {
  const words = (addresses[0] ?? '').split(/\s+/).filter((w) => w !== '');
  const mac = parseUnicastMac(words[0] ?? '');
  if (mac === undefined) return undefined;
  const ips = words.slice(1).filter((w) => parseAddress(w) !== undefined);
  ips.sort((a, b) => (parseAddress(a)?.family ?? 0) - (parseAddress(b)?.family ?? 0));
  return { mac, ips };
}

/** The idle entry a port row is, if it is one. */
export function readEntry(row: NbRow<'Logical_Switch_Port'>): PoolEntry | undefined {
  const ids = row.external_ids;
  if (!isPoolEntry(ids)) return undefined;
  const a = splitAddresses(row.addresses);
  const subnet = ids[OWNER_KEYS.subnet];
  if (a === undefined || a.ips.length === 0 || subnet === undefined) return undefined;
  const since = Number(ids[POOL_KEYS.since] ?? 0);
  return {
    uuid: row._uuid,
    name: row.name,
    node: ids[POOL_KEYS.pool]!,
    subnet,
    mac: a.mac,
    ips: a.ips,
    since: Number.isFinite(since) ? since : 0,
  };
}

/**
 * How `Ipam.restore` should see a port: an idle entry's addresses belong to
 * the owner {@link entryOwner} (so that they can be released or handed to
 * a pod); other ports are unchanged.
 */
export function entryRestorePort(port: RestorePort): RestorePort {
  if (!isPoolEntry(port.externalIds)) return port;
  const subnet = port.externalIds[OWNER_KEYS.subnet];
  return {
    ...port,
    externalIds: {
      [OWNER_KEYS.vendor]: OWNER_KEYS.vendorName,
      [OWNER_KEYS.pod]: entryOwner(port.name),
      ...(subnet !== undefined ? { [OWNER_KEYS.subnet]: subnet } : {}),
    },
  };
}

/** What {@link insertEntry} writes. */
export interface NewEntry {
  readonly name: string;
  readonly node: string;
  readonly subnet: string;
  readonly mac: string;
  readonly ips: readonly string[];
  readonly since: number;
}

/** Insert an idle entry on switch `sw` (a UUID or a ref). Returns its ref. */
export function insertEntry(t: NbTxn, sw: string, entry: NewEntry): string {
  const port = t.insert('Logical_Switch_Port', {
    name: entry.name,
    addresses: [formatLspAddress(`${entry.mac} ${entry.ips.join(' ')}`)],
    enabled: false,
    external_ids: {
      [OWNER_KEYS.vendor]: OWNER_KEYS.vendorName,
      [POOL_KEYS.pool]: entry.node,
      [OWNER_KEYS.subnet]: entry.subnet,
      [POOL_KEYS.since]: String(entry.since),
    },
    options: { [POOL_KEYS.chassis]: entry.node },
  });
  t.addToSet('Logical_Switch', sw as Uuid<'Logical_Switch'>, 'ports', [port]);
  return port;
}

/** Delete entries (their switches' references go with them). */
export function deleteEntries(t: NbTxn, uuids: Iterable<string>): void {
  for (const u of uuids) if (t.get('Logical_Switch_Port', u) !== undefined) lspDel(t, u);
}

/**
 * The claim guard: check that the entry is still an idle entry of `node`
 * and add a `verify` of its `external_ids`, so that a claim committed by
 * another client meanwhile fails this transaction (and its replay then
 * throws here).
 * @throws PoolEntryTakenError when it is not idle any more.
 */
export function guardIdle(
  t: NbTxn,
  uuid: string,
  node: string,
  name: string,
): NbRow<'Logical_Switch_Port'> {
  const row = t.get('Logical_Switch_Port', uuid);
  if (
    row === undefined ||
    !isPoolEntry(row.external_ids) ||
    row.external_ids[POOL_KEYS.pool] !== node
  )
    throw new PoolEntryTakenError(name, node, row?.external_ids[OWNER_KEYS.pod]);
  t.tx.verify(row, ['external_ids']);
  return row;
}

/**
 * Claims and releases of pool entries, the two hooks the pod controller
 * calls ({@link takeEntry}, {@link giveBackEntry}), and the IPAM restore of
 * a reconciler that runs without a controller ({@link restoreIpam}).
 *
 * A claim is synchronous up to the pod's transaction: the newest idle entry
 * of the pod's node (on the pod's subnet) leaves the idle set, its
 * addresses pass from the entry's IPAM owner to the pod's lease, and the
 * pod's transaction updates the entry's port (name, `external_ids`,
 * `enabled`, port security, …) behind {@link guardIdle}. When that
 * transaction fails the pod's lease is rolled back and the addresses go
 * back to the entry, which is idle again if NB still says so.
 * @module
 */

import { findNamed, type Nb, type NbRow, type NbTxn } from 'ovnkit/nb';
import type { PoolGiveBack, PoolTake } from '../controller/controller.js';
import { type Pod, type PodKey, portName } from '../controller/pod.js';
import { type AddressRequest, type Ipam, OWNER_KEYS, type RestoreResult } from '../ipam/ipam.js';
import {
  entryOwner,
  entryRestorePort,
  guardIdle,
  insertEntry,
  isPoolEntry,
  newEntryName,
  POOL_KEYS,
  type PoolEntry,
  splitAddresses,
} from './entry.js';
import type { ClaimingPools } from './reconciler-options.js';

function plain(request: AddressRequest): boolean {
  return (
    request.ips === undefined &&
    request.pool === undefined &&
    request.mac === undefined &&
    request.ordinal === undefined
  );
}

/** Give an entry's addresses back to the entry's IPAM owner. */
function reown(ipam: Ipam, entry: Pick<PoolEntry, 'name' | 'subnet' | 'mac' | 'ips'>): boolean {
  try {
    ipam.lease(entryOwner(entry.name), entry.subnet, { ips: entry.ips, mac: entry.mac }).commit();
    return true;
  } catch {
    return false;
  }
}

/**
 * Take an idle entry of `pod`'s node for the pod (see the module
 * documentation); undefined when the reconciler is not running, the pod
 * asks for particular addresses, or its node's pool has no idle entry on
 * `subnet`.
 */
export function takeEntry(
  pools: ClaimingPools,
  pod: Pod,
  key: PodKey,
  subnet: string,
  request: AddressRequest,
): PoolTake | undefined {
  if (!pools.started || !plain(request)) return undefined;
  const plan = pools.planOf(pod.node);
  if (plan === undefined || plan.subnet.name !== subnet) return undefined;
  const idle = pools.idleEntries.get(pod.node);
  if (idle === undefined || idle.size === 0) return undefined;
  let entry: PoolEntry | undefined;
  for (const e of idle.values()) {
    if (e.subnet === subnet && (entry === undefined || e.since >= entry.since)) entry = e;
  }
  if (entry === undefined) return undefined;
  const ipam = pools.ipam;
  const taken = entry;
  idle.delete(taken.uuid);
  pools.claiming.add(taken.uuid);
  ipam.release(entryOwner(taken.name));
  let lease: PoolTake['lease'];
  try {
    lease = ipam.lease(key, subnet, { ips: taken.ips, mac: taken.mac });
  } catch (e) {
    reown(ipam, taken);
    pools.claiming.delete(taken.uuid);
    idle.set(taken.uuid, taken);
    pools.log('warn', 'pool entry not leasable', { entry: taken.name, error: String(e) });
    return undefined;
  }
  return {
    uuid: taken.uuid,
    lease,
    guard: (t: NbTxn) => {
      guardIdle(t, taken.uuid, taken.node, taken.name);
    },
    settle: (committed: boolean) => {
      pools.claiming.delete(taken.uuid);
      if (committed) {
        pools.stats.claimed++;
      } else {
        const reowned = reown(ipam, taken);
        const row = pools.nb.client.get('Logical_Switch_Port', taken.uuid);
        if (reowned && row !== undefined && isPoolEntry(row.external_ids))
          pools.idleEntries.get(taken.node)?.set(taken.uuid, taken);
      }
      pools.touch(taken.node);
    },
  };
}

/** Port `name` through the schema index on its name (a scan only for a client without `lookup`). */
function findPortByName(
  client: Nb['client'],
  name: string,
): NbRow<'Logical_Switch_Port'> | undefined {
  const { lookup } = client as {
    lookup?: (
      table: 'Logical_Switch_Port',
      key: { name: string },
    ) => NbRow<'Logical_Switch_Port'> | undefined;
  };
  if (lookup !== undefined) return lookup.call(client, 'Logical_Switch_Port', { name });
  for (const p of client.rows('Logical_Switch_Port')) if (p.name === name) return p;
  return undefined;
}

/**
 * How a deleted pod's port goes back to its pool: when the port was
 * claimed from a pool (`options:requested-chassis` names a node whose pool
 * draws from the port's subnet), an idle entry with the same addresses is
 * inserted in the delete transaction; undefined otherwise (the port is
 * just deleted).
 */
export function giveBackEntry(
  pools: ClaimingPools,
  key: PodKey,
  portUuid: string | undefined,
): PoolGiveBack | undefined {
  if (!pools.started) return undefined;
  const client = pools.nb.client;
  const known = portUuid === undefined ? undefined : client.get('Logical_Switch_Port', portUuid);
  const name = portName(key);
  const row = known?.name === name ? known : findPortByName(client, name);
  if (row === undefined || row.external_ids[OWNER_KEYS.pod] !== key) return undefined;
  const node = row.options[POOL_KEYS.chassis];
  const plan = node === undefined ? undefined : pools.planOf(node);
  const subnet = row.external_ids[OWNER_KEYS.subnet];
  if (node === undefined || plan === undefined || plan.subnet.name !== subnet) return undefined;
  const addresses = splitAddresses(row.addresses);
  if (addresses === undefined || addresses.ips.length === 0) return undefined;
  const entry = {
    name: newEntryName(),
    node,
    subnet,
    mac: addresses.mac,
    ips: addresses.ips,
    since: pools.now,
  };
  let inserted = false;
  return {
    build: (t: NbTxn) => {
      const sw = findNamed(t, 'Logical_Switch', subnet);
      inserted = sw !== undefined;
      if (sw !== undefined) insertEntry(t, sw._uuid, entry);
    },
    settle: (released) => {
      if (released === undefined || !inserted) return;
      if (reown(pools.ipam, { ...entry, mac: released.mac, ips: released.ips })) {
        pools.stats.returned++;
      }
      pools.touch(node);
    },
  };
}

/**
 * Rebuild `ipam` from NB's ports as the pod controller's start does, pool
 * entries' addresses owned by their entries.
 */
export function restoreIpam(nb: Nb, ipam: Ipam): RestoreResult {
  const client = nb.client;
  const ports = [];
  for (const ls of client.rows('Logical_Switch')) {
    for (const u of ls.ports) {
      const p = client.get('Logical_Switch_Port', u);
      if (p === undefined) continue;
      ports.push(
        entryRestorePort({
          name: p.name,
          switch: ls.name,
          addresses: p.addresses,
          externalIds: p.external_ids,
        }),
      );
    }
  }
  return ipam.restore(ports);
}

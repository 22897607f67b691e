/**
 * {@link Ipam}: the pod address allocator. It holds the subnets, which owner
 * (a pod key `ns/name`, or `port:<lsp>` for ports the controller does not
 * own) holds which IPs and MACs, and hands out addresses through
 * {@link Lease}s, so that an allocation made for a transaction that then
 * fails is undone:
 *
 * ```ts
 * const lease = ipam.lease('default/web-0', 'sw-a', { ips: ['10.16.0.5'] });
 * try {
 *   await nb.transact((t) => … lease.allocation …);
 *   lease.commit();   // the pod's previous addresses, if any, are freed
 * } catch (e) {
 *   lease.rollback(); // the new addresses are freed, the previous ones kept
 *   throw e;
 * }
 * ```
 *
 * NB is the source of truth: {@link Ipam.restore} rebuilds the state from the
 * logical switch ports, so a restarted controller never hands out an address
 * that is in use.
 * @module
 */

import { type Address, type Family, formatAddress, parseAddress } from './address.js';
import type { AddressRange } from './address-range.js';
import {
  AddressConflictError,
  ExhaustedError,
  InvalidAddressError,
  OutsideCidrError,
  UnknownSubnetError,
} from './errors.js';
import { parseUnicastMac, stableMac } from './mac.js';
import { parseSubnet, type Subnet, type SubnetSpec } from './subnet.js';

/** How free addresses are picked. */
export type AllocationStrategy = 'next-free' | 'random';

/** What a pod asks for. Everything is optional: by default any free address of each family. */
export interface AddressRequest {
  /** Static IPs: at most one per family (a family not given is allocated). */
  readonly ips?: readonly string[] | undefined;
  /** An IP pool: the pod takes a free entry of each family listed. */
  readonly pool?: readonly string[] | undefined;
  /** With `pool`: take exactly the N-th entry of each family (a StatefulSet's ordinal). */
  readonly ordinal?: number | undefined;
  /** A MAC (default: the owner's stable MAC). */
  readonly mac?: string | undefined;
}

/** The addresses of one owner in one subnet. */
export interface Allocation {
  readonly owner: string;
  readonly subnet: string;
  /** One IP per family of the subnet, IPv4 first. */
  readonly ips: readonly string[];
  readonly mac: string;
  /** The subnet's CIDRs, same order as `ips`. */
  readonly cidrs: readonly string[];
  /** The subnet's gateways, same order as `ips`. */
  readonly gateways: readonly string[];
}

/** A tentative allocation (see the module documentation). */
export interface Lease {
  /** The addresses the owner will have. */
  readonly allocation: Allocation;
  /** False when the owner already had exactly what it asked for. */
  readonly changed: boolean;
  /** Keep the new addresses; free the previous ones not reused. */
  commit(): void;
  /** Free the new addresses not held before; keep the previous allocation. */
  rollback(): void;
}

/** A logical switch port as {@link Ipam.restore} reads it. */
export interface RestorePort {
  /** The port's name. */
  readonly name: string;
  /** The name of the switch it is on. */
  readonly switch: string;
  /** `Logical_Switch_Port.addresses`. */
  readonly addresses: readonly string[];
  /** `Logical_Switch_Port.external_ids`. */
  readonly externalIds: Readonly<Record<string, string>>;
}

/** What {@link Ipam.restore} found. */
export interface RestoreResult {
  /** Pod allocations rebuilt. */
  readonly pods: number;
  /** Addresses of other ports marked used. */
  readonly foreign: number;
  /** Addresses NB shows on two ports (the second holder is not recorded). */
  readonly conflicts: readonly string[];
}

/** Who owns a port: its `external_ids` keys. */
export const OWNER_KEYS = {
  pod: 'pod',
  vendor: 'vendor',
  vendorName: 'ovnkit',
  subnet: 'ls',
} as const;

interface Taken {
  readonly range: AddressRange;
  readonly value: bigint;
}

function parseFor(subnet: Subnet, text: string): { range: AddressRange; address: Address } {
  const address = parseAddress(String(text).trim());
  if (address === undefined)
    throw new InvalidAddressError(subnet.name, String(text), 'is not an IP address');
  const range = subnet.range(address.family);
  if (range === undefined) {
    throw new OutsideCidrError(subnet.name, formatAddress(address), subnet.spec.cidr);
  }
  return { range, address };
}

/** The pod address allocator (see the module documentation). */
export class Ipam {
  private readonly subnets = new Map<string, Subnet>();
  private readonly owners = new Map<string, Allocation>();
  private readonly macs = new Map<string, string>();

  /**
   * @param subnets - the subnets to serve.
   * @param strategy - how free addresses are picked (default `next-free`).
   */
  constructor(
    subnets: readonly SubnetSpec[] = [],
    readonly strategy: AllocationStrategy = 'next-free',
  ) {
    for (const s of subnets) this.addSubnet(s);
  }

  /**
   * Add (or replace the definition of) a subnet.
   * @throws InvalidSubnetError.
   */
  addSubnet(spec: SubnetSpec): Subnet {
    const subnet = parseSubnet(spec);
    this.subnets.set(subnet.name, subnet);
    return subnet;
  }

  /** A subnet by name. @throws UnknownSubnetError. */
  subnet(name: string): Subnet {
    const s = this.subnets.get(name);
    if (s === undefined) throw new UnknownSubnetError(name);
    return s;
  }

  /** Every subnet. */
  listSubnets(): Subnet[] {
    return [...this.subnets.values()];
  }

  /** The owner's current allocation, if any. */
  allocationOf(owner: string): Allocation | undefined {
    return this.owners.get(owner);
  }

  /** Every owner with an allocation. */
  owned(): string[] {
    return [...this.owners.keys()];
  }

  /** Who holds an IP (text) in a subnet, if anyone. */
  holderOf(subnet: string, ip: string): string | undefined {
    const a = parseAddress(ip);
    if (a === undefined) return undefined;
    return this.subnets.get(subnet)?.range(a.family)?.holder(a.value);
  }

  /**
   * Reserve addresses for `owner` in `subnetName` (see {@link Lease}). When
   * the owner already holds addresses in that subnet that satisfy the
   * request, they are kept (and `changed` is false).
   * @throws InvalidAddressError, OutsideCidrError, ExcludedAddressError,
   *   ReservedAddressError, AddressConflictError, ExhaustedError,
   *   UnknownSubnetError. Nothing is reserved when it throws.
   */
  lease(owner: string, subnetName: string, request: AddressRequest = {}): Lease {
    const subnet = this.subnet(subnetName);
    const previous = this.owners.get(owner);
    const same = previous?.subnet === subnet.name ? previous : undefined;
    const staticIps = new Map<Family, { range: AddressRange; address: Address }>();
    for (const ip of request.ips ?? []) {
      const p = parseFor(subnet, ip);
      if (staticIps.has(p.range.family)) {
        throw new InvalidAddressError(
          subnet.name,
          String(ip),
          `is a second IPv${p.range.family} address`,
        );
      }
      p.range.check(p.address, owner);
      staticIps.set(p.range.family, p);
    }
    const pool = new Map<Family, Address[]>();
    for (const ip of request.pool ?? []) {
      const p = parseFor(subnet, ip);
      const list = pool.get(p.range.family) ?? [];
      list.push(p.address);
      pool.set(p.range.family, list);
    }
    const ordinal = request.ordinal;
    let mac: string | undefined;
    if (request.mac !== undefined) {
      mac = parseUnicastMac(request.mac);
      if (mac === undefined)
        throw new InvalidAddressError(subnet.name, request.mac, 'is not a unicast MAC address');
      const holder = this.macs.get(mac);
      if (holder !== undefined && holder !== owner)
        throw new AddressConflictError(subnet.name, mac, holder);
    }

    const taken: Taken[] = [];
    const ips: string[] = [];
    try {
      for (const range of subnet.ranges) {
        const value = this.pick(
          subnet,
          range,
          owner,
          same,
          staticIps.get(range.family),
          pool.get(range.family),
          ordinal,
        );
        if (range.holder(value) !== owner) {
          range.take(value, owner);
          taken.push({ range, value });
        }
        ips.push(formatAddress({ family: range.family, value }));
      }
    } catch (e) {
      for (const t of taken) t.range.release(t.value, owner);
      throw e;
    }
    if (mac === undefined) mac = previous?.mac ?? this.freshMac(owner);
    const macTaken = this.macs.get(mac) === undefined;
    if (macTaken) this.macs.set(mac, owner);

    const allocation: Allocation = {
      owner,
      subnet: subnet.name,
      ips,
      mac,
      cidrs: subnet.ranges.map((r) => r.cidr.text),
      gateways: subnet.ranges.map((r) => r.gatewayText),
    };
    const changed =
      previous === undefined ||
      previous.subnet !== allocation.subnet ||
      previous.mac !== allocation.mac ||
      previous.ips.join(',') !== allocation.ips.join(',');
    let settled = false;
    return {
      allocation: changed ? allocation : previous,
      changed,
      commit: () => {
        if (settled) return;
        settled = true;
        if (!changed) return;
        if (previous !== undefined) this.releaseAllocation(previous, allocation);
        this.owners.set(owner, allocation);
      },
      rollback: () => {
        if (settled) return;
        settled = true;
        for (const t of taken) t.range.release(t.value, owner);
        if (macTaken) this.macs.delete(mac);
      },
    };
  }

  private pick(
    subnet: Subnet,
    range: AddressRange,
    owner: string,
    same: Allocation | undefined,
    wanted: { address: Address } | undefined,
    pool: readonly Address[] | undefined,
    ordinal: number | undefined,
  ): bigint {
    if (wanted !== undefined) return wanted.address.value;
    if (pool !== undefined && pool.length > 0) {
      const poolText = `IPv${range.family} pool [${pool.map(formatAddress).join(', ')}]`;
      if (ordinal !== undefined) {
        const entry = pool[ordinal];
        if (entry === undefined)
          throw new ExhaustedError(subnet.name, `${poolText}: it has no entry ${ordinal}`);
        range.check(entry, owner);
        return entry.value;
      }
      for (const entry of pool) range.validate(entry);
      const mine = pool.find((a) => range.holder(a.value) === owner);
      if (mine !== undefined) return mine.value;
      const free = pool.find((a) => range.holder(a.value) === undefined);
      if (free === undefined) throw new ExhaustedError(subnet.name, poolText);
      return free.value;
    }
    if (same !== undefined) {
      const kept = same.ips.map((ip) => parseAddress(ip)).find((a) => a?.family === range.family);
      if (kept !== undefined && range.holder(kept.value) === owner) return kept.value;
    }
    const v = this.strategy === 'random' ? range.randomFree() : range.nextFree();
    if (v === undefined)
      throw new ExhaustedError(subnet.name, `IPv${range.family} range ${range.cidr.text}`);
    return v;
  }

  private freshMac(owner: string): string {
    for (let salt = 0; ; salt++) {
      const mac = stableMac(owner, salt);
      const holder = this.macs.get(mac);
      if (holder === undefined || holder === owner) return mac;
    }
  }

  private releaseAllocation(a: Allocation, keep?: Allocation): void {
    const subnet = this.subnets.get(a.subnet);
    for (const ip of a.ips) {
      if (keep?.subnet === a.subnet && keep.ips.includes(ip)) continue;
      const addr = parseAddress(ip);
      if (addr !== undefined) subnet?.range(addr.family)?.release(addr.value, a.owner);
    }
    if (keep?.mac !== a.mac && this.macs.get(a.mac) === a.owner) this.macs.delete(a.mac);
  }

  /** Free everything `owner` holds. Returns the allocation freed, if any. */
  release(owner: string): Allocation | undefined {
    const a = this.owners.get(owner);
    if (a === undefined) return undefined;
    this.owners.delete(owner);
    this.releaseAllocation(a);
    return a;
  }

  /**
   * Rebuild the state from NB's logical switch ports: a port with
   * `external_ids` `vendor=ovnkit` and `pod=<ns/name>` becomes that pod's
   * allocation (in the subnet named by `external_ids:ls`, else its switch);
   * the addresses of every other port on a subnet's switch are marked used
   * by `port:<name>`. Entries without IPs (`router`, `unknown`, `dynamic`)
   * and addresses outside the subnet are ignored.
   */
  restore(ports: Iterable<RestorePort>): RestoreResult {
    let pods = 0;
    let foreign = 0;
    const conflicts: string[] = [];
    for (const port of ports) {
      const ours = port.externalIds[OWNER_KEYS.vendor] === OWNER_KEYS.vendorName;
      const pod = ours ? port.externalIds[OWNER_KEYS.pod] : undefined;
      const subnet = this.subnets.get(
        (ours ? port.externalIds[OWNER_KEYS.subnet] : undefined) ?? port.switch,
      );
      if (subnet === undefined) continue;
      const owner = pod ?? `port:${port.name}`;
      for (const entry of port.addresses) {
        const words = entry.split(/\s+/).filter((w) => w !== '');
        const mac = parseUnicastMac(words[0] ?? '');
        if (mac === undefined) continue;
        const ips: string[] = [];
        for (const w of words.slice(1)) {
          const addr = parseAddress(w.split('/')[0] ?? '');
          const range = addr === undefined ? undefined : subnet.range(addr.family);
          if (addr === undefined || range === undefined) continue;
          if (addr.value < range.cidr.network || addr.value >= range.cidr.network + range.cidr.size)
            continue;
          const holder = range.holder(addr.value);
          const text = formatAddress(addr);
          if (holder !== undefined && holder !== owner) {
            conflicts.push(`${text} (${holder} and ${owner})`);
            continue;
          }
          range.take(addr.value, owner);
          ips.push(text);
          if (pod === undefined) foreign++;
        }
        if (this.macs.get(mac) === undefined) this.macs.set(mac, owner);
        if (pod !== undefined && ips.length > 0) {
          const byFamily = subnet.ranges.map((r) =>
            ips.find((ip) => parseAddress(ip)?.family === r.family),
          );
          this.owners.set(pod, {
            owner: pod,
            subnet: subnet.name,
            ips: byFamily.filter((ip): ip is string => ip !== undefined),
            mac,
            cidrs: subnet.ranges.map((r) => r.cidr.text),
            gateways: subnet.ranges.map((r) => r.gatewayText),
          });
          pods++;
        }
      }
    }
    return { pods, foreign, conflicts };
  }
}

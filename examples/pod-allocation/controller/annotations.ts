/**
 * The pod annotations the controller reads and writes, named like
 * kube-ovn's (`ovn.kubernetes.io/…`), and the parsing of the inputs into a
 * {@link PodIntent}.
 *
 * Inputs: `logical_switch`, `ip_address` (one IP, or `v4,v6`), `ip_pool`
 * (comma-separated IPs of either family), `mac_address`, `eip`, `snat`,
 * `north_gateway`, `port_security` (`false` turns it off) and `vips`
 * (comma-separated IPs added to port security). Outputs: `ip_address`,
 * `mac_address`, `cidr`, `gateway`, `logical_switch`, `allocated`, `routed`.
 * @module
 */

import { parseAddress } from '../ipam/address.js';
import type { AddressRequest } from '../ipam/ipam.js';
import { type Pod, podKey, statefulSetOrdinal } from './pod.js';

const PREFIX = 'ovn.kubernetes.io/';

/** Annotation names. */
export const ANNOTATIONS = {
  logicalSwitch: `${PREFIX}logical_switch`,
  ipAddress: `${PREFIX}ip_address`,
  ipPool: `${PREFIX}ip_pool`,
  macAddress: `${PREFIX}mac_address`,
  eip: `${PREFIX}eip`,
  snat: `${PREFIX}snat`,
  northGateway: `${PREFIX}north_gateway`,
  portSecurity: `${PREFIX}port_security`,
  vips: `${PREFIX}vips`,
  cidr: `${PREFIX}cidr`,
  gateway: `${PREFIX}gateway`,
  allocated: `${PREFIX}allocated`,
  routed: `${PREFIX}routed`,
} as const;

/** What a pod's annotations ask for. */
export interface PodIntent {
  /** The subnet (logical switch). */
  readonly subnet: string;
  /** The address request for the IPAM. */
  readonly request: AddressRequest;
  /** EIP: a `dnat_and_snat` rule external IP → pod IPv4. */
  readonly eip: string | undefined;
  /** SNAT: a `snat` rule pod IPv4 → this external IP. */
  readonly snat: string | undefined;
  /** North gateway: a `reroute` policy for the pod's IPv4 to this nexthop. */
  readonly northGateway: string | undefined;
  /** Whether port security is set (default yes; `port_security: "false"` turns it off). */
  readonly portSecurity: boolean;
  /** VIPs added to port security. */
  readonly vips: readonly string[];
}

/** An annotation the controller cannot use. */
export class BadAnnotationError extends Error {
  /**
   * @param pod - the pod key.
   * @param annotation - the annotation name.
   * @param value - its value.
   * @param why - what is wrong.
   */
  constructor(
    readonly pod: string,
    readonly annotation: string,
    readonly value: string,
    why: string,
  ) {
    super(`pod ${pod}: annotation ${annotation}=${JSON.stringify(value)} ${why}`);
    this.name = 'BadAnnotationError';
  }
}

function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(/[,;]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Read a pod's annotations.
 * @param defaultSubnet - the subnet of pods without `logical_switch`.
 * @throws BadAnnotationError for a value that cannot be used (syntax only:
 *   whether an IP fits the subnet is the IPAM's to say).
 */
export function parsePodIntent(pod: Pod, defaultSubnet: string): PodIntent {
  const a = pod.annotations ?? {};
  const key = podKey(pod);
  const bad = (name: string, why: string) => new BadAnnotationError(key, name, a[name] ?? '', why);
  const singleIp = (name: string, family?: 4): string | undefined => {
    const v = a[name];
    if (v === undefined) return undefined;
    const p = parseAddress(v.trim());
    if (p === undefined) throw bad(name, 'is not an IP address');
    if (family !== undefined && p.family !== family) throw bad(name, 'must be an IPv4 address');
    return v.trim();
  };
  const subnet = a[ANNOTATIONS.logicalSwitch]?.trim() || defaultSubnet;
  const ips = list(a[ANNOTATIONS.ipAddress]);
  if (ips !== undefined) {
    if (ips.length === 0 || ips.length > 2)
      throw bad(ANNOTATIONS.ipAddress, 'must be one IP, or an IPv4 and an IPv6');
    for (const ip of ips)
      if (parseAddress(ip) === undefined)
        throw bad(ANNOTATIONS.ipAddress, `has ${JSON.stringify(ip)}, not an IP address`);
  }
  const pool = list(a[ANNOTATIONS.ipPool]);
  if (pool !== undefined) {
    if (pool.length === 0) throw bad(ANNOTATIONS.ipPool, 'is empty');
    for (const ip of pool)
      if (parseAddress(ip) === undefined)
        throw bad(ANNOTATIONS.ipPool, `has ${JSON.stringify(ip)}, not an IP address`);
  }
  const portSecurity = a[ANNOTATIONS.portSecurity];
  if (portSecurity !== undefined && portSecurity !== 'true' && portSecurity !== 'false') {
    throw bad(ANNOTATIONS.portSecurity, 'must be "true" or "false"');
  }
  const vips = list(a[ANNOTATIONS.vips]) ?? [];
  for (const ip of vips)
    if (parseAddress(ip) === undefined)
      throw bad(ANNOTATIONS.vips, `has ${JSON.stringify(ip)}, not an IP address`);
  const mac = a[ANNOTATIONS.macAddress]?.trim();
  const ordinal = pool === undefined ? undefined : statefulSetOrdinal(pod);
  return {
    subnet,
    request: {
      ...(ips !== undefined ? { ips } : {}),
      ...(pool !== undefined ? { pool } : {}),
      ...(ordinal !== undefined ? { ordinal } : {}),
      ...(mac !== undefined ? { mac } : {}),
    },
    eip: singleIp(ANNOTATIONS.eip, 4),
    snat: singleIp(ANNOTATIONS.snat, 4),
    northGateway: singleIp(ANNOTATIONS.northGateway, 4),
    portSecurity: portSecurity !== 'false',
    vips,
  };
}

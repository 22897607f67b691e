/**
 * The cluster topology the controller maintains: one cluster router, and per
 * subnet a logical switch connected to it (router port `<router>-<switch>`
 * with the subnet's gateways) and a DHCPv4/DHCPv6 options row per family.
 * {@link ensureSubnet} composes the DSL calls that create whatever is
 * missing, inside the caller's transaction; when everything exists it adds
 * no operation.
 * @module
 */

import {
  connectSwitchToRouter,
  dhcpOptionsCreate,
  lrAdd,
  lsAdd,
  type NbRow,
  type NbTxn,
  rowsNamed,
} from '../../../src/nb/index.js';
import type { Uuid } from '../../../src/ovsdb/index.js';
import { OWNER_KEYS } from '../ipam/ipam.js';
import { stableMac } from '../ipam/mac.js';
import type { Subnet, SubnetSpec } from '../ipam/subnet.js';

/** What the controller builds in NB. */
export interface ClusterTopology {
  /** The cluster router's name (default `ovnkit-cluster`). */
  readonly router?: string | undefined;
  /** The subnets; each one becomes a logical switch of the same name. */
  readonly subnets: readonly SubnetSpec[];
  /** The subnet of pods without a `logical_switch` annotation (default: the first). */
  readonly defaultSubnet?: string | undefined;
  /** DHCP lease time, s (default 3600). */
  readonly dhcpLeaseTime?: number | undefined;
}

/** The default cluster router name. */
export const DEFAULT_ROUTER = 'ovnkit-cluster';

/** The `external_ids` every ovnkit-created row carries. */
export const VENDOR_IDS = { [OWNER_KEYS.vendor]: OWNER_KEYS.vendorName } as const;

/** The MAC of the router port of a subnet (stable). */
export function routerPortMac(router: string, subnet: string): string {
  return stableMac(`router/${router}/${subnet}`);
}

/** The name of the router port of a subnet. */
export function routerPortName(router: string, subnet: string): string {
  return `${router}-${subnet}`;
}

/** The DHCP rows of a subnet, per family. */
export interface SubnetDhcp {
  readonly v4: Uuid<'DHCP_Options'> | undefined;
  readonly v6: Uuid<'DHCP_Options'> | undefined;
}

/** The DHCP_Options rows ovnkit made for `subnet`. */
export function findSubnetDhcp(t: NbTxn, subnet: string): SubnetDhcp {
  const rows = t.filter(
    'DHCP_Options',
    (r) =>
      r.external_ids[OWNER_KEYS.vendor] === OWNER_KEYS.vendorName &&
      r.external_ids['subnet'] === subnet,
  );
  const of = (p: string) =>
    rows.find((r: NbRow<'DHCP_Options'>) => r.external_ids['protocol'] === p)?._uuid;
  return { v4: of('IPv4'), v6: of('IPv6') };
}

/**
 * Make sure the cluster router exists, and for `subnet` its switch, the
 * switch's connection to the router and its DHCP options. Returns the
 * switch and DHCP rows (refs when created in this transaction).
 */
export function ensureSubnet(
  t: NbTxn,
  router: string,
  subnet: Subnet,
  leaseTime = 3600,
): { readonly switch: Uuid<'Logical_Switch'>; readonly dhcp: SubnetDhcp } {
  if (rowsNamed(t, 'Logical_Router', router).length === 0) {
    lrAdd(t, router, { externalIds: { ...VENDOR_IDS } });
  }
  const sw = lsAdd(t, subnet.name, {
    mayExist: true,
    externalIds: { ...VENDOR_IDS, cidr: subnet.spec.cidr },
  });
  const lrpName = routerPortName(router, subnet.name);
  const mac = routerPortMac(router, subnet.name);
  if (rowsNamed(t, 'Logical_Router_Port', lrpName).length === 0) {
    connectSwitchToRouter(t, {
      switch: sw,
      router,
      mac,
      networks: subnet.ranges.map((r) => `${r.gatewayText}/${r.cidr.prefix}`),
      routerPort: lrpName,
      switchPort: `${subnet.name}-${router}`,
    });
  }
  const have = findSubnetDhcp(t, subnet.name);
  const ids = (protocol: string) => ({ ...VENDOR_IDS, subnet: subnet.name, protocol });
  let { v4, v6 } = have;
  for (const range of subnet.ranges) {
    if (range.family === 4 && v4 === undefined) {
      v4 = dhcpOptionsCreate(
        t,
        range.cidr.text,
        {
          server_id: range.gatewayText,
          server_mac: mac,
          lease_time: leaseTime,
          router: range.gatewayText,
        },
        { externalIds: ids('IPv4') },
      );
    }
    if (range.family === 6 && v6 === undefined) {
      v6 = dhcpOptionsCreate(t, range.cidr.text, { server_id: mac }, { externalIds: ids('IPv6') });
    }
  }
  return { switch: sw, dhcp: { v4, v6 } };
}

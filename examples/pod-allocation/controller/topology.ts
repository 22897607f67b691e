/**
 * The cluster topology the controller maintains: one cluster router, and per
 * subnet a logical switch connected to it (router port `<router>-<switch>`
 * with the subnet's gateways, and the switch's `router`-type port) and a
 * DHCPv4/DHCPv6 options row per family.
 *
 * It is desired state: {@link declareTopology} declares those rows by name
 * (and the DHCP rows by CIDR) under the owner {@link topologyOwner}, and
 * {@link applyTopology} makes NB match, creating what is missing, correcting
 * what differs (a router port's networks, a lease time) and deleting the
 * owner's rows that are no longer declared (a subnet taken out of the
 * topology). The controller applies it at start and at each GC pass; a pod's
 * transaction only looks its subnet's rows up ({@link subnetRows}).
 * @module
 */

import {
  encodeDhcpOptions,
  type NBTables,
  type Nb,
  type NbRow,
  type NbTxn,
  nbDesiredState,
  rowsNamed,
} from 'ovnkit/nb';
import type { DatabaseModel, Uuid } from 'ovnkit/ovsdb';
import {
  type ApplyResult,
  applyDesired,
  type DesiredClient,
  type DesiredState,
} from 'ovnkit/transactions';
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

/** The name of the switch's `router`-type port of a subnet. */
export function switchRouterPortName(router: string, subnet: string): string {
  return `${subnet}-${router}`;
}

/**
 * The owner of the topology of cluster router `router` (the value of the
 * rows' `external_ids:ovnkit-owner`): one per router, so that controllers
 * of two clusters sharing an NB database leave each other's rows alone.
 */
export function topologyOwner(router: string): string {
  return `pod-allocation.${router}`;
}

/**
 * The topology as desired state over `model`: the router, and per subnet its
 * switch, the router port and the switch's router-type port, and a DHCP
 * options row per family. Rows of the same names that carry no owner mark
 * (an NB written by an earlier version of the controller, or by hand) are
 * adopted.
 * @throws DesiredStateError (from `add`) for a row NB would refuse, e.g. a
 *   bad DHCP option; RangeError and friends from `encodeDhcpOptions`.
 */
export function declareTopology(
  model: DatabaseModel<NBTables>,
  router: string,
  subnets: readonly Subnet[],
  leaseTime = 3600,
): DesiredState<NBTables> {
  const d = nbDesiredState(model, { owner: topologyOwner(router), adopt: true });
  const lr = d.add('Logical_Router', { name: router, external_ids: { ...VENDOR_IDS } });
  for (const subnet of subnets) {
    const mac = routerPortMac(router, subnet.name);
    const lrp = routerPortName(router, subnet.name);
    const ls = d.add('Logical_Switch', {
      name: subnet.name,
      external_ids: { ...VENDOR_IDS, cidr: subnet.spec.cidr },
    });
    d.add(
      'Logical_Router_Port',
      { name: lrp, mac, networks: subnet.ranges.map((r) => `${r.gatewayText}/${r.cidr.prefix}`) },
      { in: lr },
    );
    d.add(
      'Logical_Switch_Port',
      {
        name: switchRouterPortName(router, subnet.name),
        type: 'router',
        addresses: ['router'],
        options: { 'router-port': lrp },
      },
      { in: ls },
    );
    for (const r of subnet.ranges) {
      const gw = r.gatewayText;
      const v4 = { server_id: gw, server_mac: mac, lease_time: leaseTime, router: gw };
      d.add('DHCP_Options', {
        cidr: r.cidr.text,
        options: encodeDhcpOptions(r.cidr.text, r.family === 4 ? v4 : { server_id: mac }),
        external_ids: { ...VENDOR_IDS, subnet: subnet.name, protocol: `IPv${r.family}` },
      });
    }
  }
  return d;
}

/** The client of `nb`, as `applyDesired` needs it (a database client from `connectDatabase`). */
function desiredClient(nb: Nb): DesiredClient<NBTables> {
  const client = nb.client as Partial<DesiredClient<NBTables>>;
  if (typeof client.isMonitored !== 'function') {
    throw new TypeError(
      'the topology is applied with applyDesired: nb must be created over a database client (connectDatabase)',
    );
  }
  return client as DesiredClient<NBTables>;
}

/**
 * Make NB hold the topology of `router` and `subnets` (see
 * {@link declareTopology}); nothing is sent when it already does.
 * @throws DesiredStateError when a row of the topology belongs to another
 *   owner; DesiredConflictError after repeated conflicts with other writers.
 */
export async function applyTopology(
  nb: Nb,
  router: string,
  subnets: readonly Subnet[],
  leaseTime?: number,
): Promise<ApplyResult> {
  const client = desiredClient(nb);
  const d = declareTopology(nb.model, router, subnets, leaseTime);
  return applyDesired(client, d, { comment: `topology of ${router}` });
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

/** A subnet's switch or the cluster router is not in NB (the topology is not applied). */
export class TopologyMissingError extends Error {
  override readonly name = 'TopologyMissingError';
  constructor(
    /** The missing row's table. */
    readonly table: 'Logical_Switch' | 'Logical_Router',
    /** Its name. */
    readonly rowName: string,
  ) {
    super(
      `${table} ${JSON.stringify(rowName)} is not in NB: the topology is applied at controller start and at each GC pass`,
    );
  }
}

/**
 * The rows of `subnet` a pod's transaction uses: its switch and its DHCP
 * options (the topology applied by {@link applyTopology}).
 * @throws TopologyMissingError when the switch or the router is missing.
 */
export function subnetRows(
  t: NbTxn,
  router: string,
  subnet: Subnet,
): { readonly switch: Uuid<'Logical_Switch'>; readonly dhcp: SubnetDhcp } {
  if (rowsNamed(t, 'Logical_Router', router).length === 0) {
    throw new TopologyMissingError('Logical_Router', router);
  }
  const sw = rowsNamed(t, 'Logical_Switch', subnet.name)[0];
  if (sw === undefined) throw new TopologyMissingError('Logical_Switch', subnet.name);
  return { switch: sw._uuid, dhcp: findSubnetDhcp(t, subnet.name) };
}

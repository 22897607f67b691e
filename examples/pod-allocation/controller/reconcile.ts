/**
 * What one pod means in NB, as DSL calls inside one transaction:
 * {@link applyPod} creates or updates everything for a pod (the port, on
 * its subnet's switch, with addresses, port security, `external_ids` and the
 * subnet's DHCP options; namespace and node port groups, EIP and
 * SNAT rules, the north-gateway policy) and removes what the pod no longer
 * asks for; {@link removePod} undoes all of it. Both only build operations:
 * the caller runs them with `nb.transact`, so a pod's change commits whole or
 * not at all.
 * @module
 */

import {
  findNamed,
  formatLspAddress,
  formatPortSecurity,
  lrNatAdd,
  lrPolicyAdd,
  lspDel,
  type NatTypeName,
  type NbRow,
  type NbTxn,
  pgAdd,
  pgAddPorts,
  pgRemovePorts,
  rowsNamed,
} from 'ovnkit/nb';
import { canonicalAddress, parseAddress } from '../ipam/address.js';
import { type Allocation, OWNER_KEYS } from '../ipam/ipam.js';
import type { Subnet } from '../ipam/subnet.js';
import { ANNOTATIONS, BadAnnotationError, type PodIntent } from './annotations.js';
import { type Pod, type PodKey, portName } from './pod.js';
import { subnetRows, VENDOR_IDS } from './topology.js';

/** Priority of north-gateway reroute policies. */
export const NORTH_GATEWAY_PRIORITY = 29250;

/** The port group of a namespace (a name usable as `@pg` in matches). */
export function namespacePortGroup(namespace: string): string {
  return `ovnkit_ns_${namespace.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** The port group of a node. */
export function nodePortGroup(node: string): string {
  return `ovnkit_node_${node.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** The `external_ids` of the rows owned by a pod. */
export function podIds(key: PodKey, subnet?: string): Record<string, string> {
  return {
    [OWNER_KEYS.pod]: key,
    ...VENDOR_IDS,
    ...(subnet !== undefined ? { [OWNER_KEYS.subnet]: subnet } : {}),
  };
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x) => b.includes(x));
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const rb = b as Record<string, unknown>;
    return (
      ka.length === Object.keys(rb).length &&
      ka.every((k) => (a as Record<string, unknown>)[k] === rb[k])
    );
  }
  return a === b;
}

function ownedBy(ids: Readonly<Record<string, string>>, key: PodKey): boolean {
  return ids[OWNER_KEYS.vendor] === OWNER_KEYS.vendorName && ids[OWNER_KEYS.pod] === key;
}

/** What {@link applyPod} needs. */
export interface ApplyPodInput {
  readonly router: string;
  readonly subnet: Subnet;
  readonly pod: Pod;
  readonly key: PodKey;
  readonly intent: PodIntent;
  readonly allocation: Allocation;
  readonly dhcpLeaseTime?: number | undefined;
  /**
   * The UUID of the pod's port when the caller knows it (it is then read
   * directly instead of looking the name up among all ports); `null` when
   * the caller knows there is none (a port of that name made by someone
   * else then fails the insert on the unique index); undefined: look it up.
   */
  readonly portUuid?: string | null | undefined;
  /**
   * `portUuid` is an idle pool entry to take over (renamed to the pod's
   * port and enabled) rather than a port of the pod.
   */
  readonly adopt?: boolean | undefined;
}

interface WantedNat {
  readonly type: NatTypeName;
  readonly externalIp: string;
  readonly logicalIp: string;
}

function ipv4Of(input: ApplyPodInput, annotation: string): string {
  const v4 = input.allocation.ips.find((ip) => parseAddress(ip)?.family === 4);
  if (v4 === undefined) {
    throw new BadAnnotationError(
      input.key,
      annotation,
      input.pod.annotations?.[annotation] ?? '',
      `needs an IPv4 address but subnet ${input.subnet.name} has none`,
    );
  }
  return v4;
}

function syncPortGroups(t: NbTxn, port: string, input: ApplyPodInput, isNew: boolean): void {
  const wanted: { readonly name: string; readonly ids: Readonly<Record<string, string>> }[] = [
    {
      name: namespacePortGroup(input.pod.namespace),
      ids: { kind: 'namespace', namespace: input.pod.namespace },
    },
    { name: nodePortGroup(input.pod.node), ids: { kind: 'node', node: input.pod.node } },
  ];
  for (const w of wanted) {
    const pg = findNamed(t, 'Port_Group', w.name);
    if (pg === undefined)
      pgAdd(t, w.name, { ports: [port], externalIds: { ...VENDOR_IDS, ...w.ids } });
    else if (isNew || !pg.ports.includes(port as never)) pgAddPorts(t, pg._uuid, [port]);
  }
  if (isNew) return; // a new port is in no other group
  for (const pg of t.referrers('Port_Group', 'ports', port)) {
    if (pg.external_ids[OWNER_KEYS.vendor] !== OWNER_KEYS.vendorName) continue;
    if (!wanted.some((w) => w.name === pg.name)) pgRemovePorts(t, pg._uuid, [port]);
  }
}

function syncNat(t: NbTxn, router: NbRow<'Logical_Router'>, input: ApplyPodInput): void {
  const wanted: WantedNat[] = [];
  if (input.intent.eip !== undefined) {
    wanted.push({
      type: 'dnat_and_snat',
      externalIp: canonicalAddress(input.intent.eip)!,
      logicalIp: ipv4Of(input, ANNOTATIONS.eip),
    });
  }
  if (input.intent.snat !== undefined) {
    wanted.push({
      type: 'snat',
      externalIp: canonicalAddress(input.intent.snat)!,
      logicalIp: ipv4Of(input, ANNOTATIONS.snat),
    });
  }
  const mine = router.nat
    .map((u) => t.get('NAT', u))
    .filter((n): n is NbRow<'NAT'> => n !== undefined && ownedBy(n.external_ids, input.key));
  const same = (n: NbRow<'NAT'>, w: WantedNat) =>
    n.type === w.type &&
    canonicalAddress(n.external_ip) === w.externalIp &&
    canonicalAddress(n.logical_ip) === w.logicalIp;
  const stale = mine.filter((n) => !wanted.some((w) => same(n, w)));
  t.removeFromSet(
    'Logical_Router',
    router._uuid,
    'nat',
    stale.map((n) => n._uuid),
  );
  for (const w of wanted) {
    if (mine.some((n) => same(n, w))) continue;
    lrNatAdd(t, router._uuid, { ...w, externalIds: podIds(input.key) });
  }
}

function syncPolicy(t: NbTxn, router: NbRow<'Logical_Router'>, input: ApplyPodInput): void {
  const gw = input.intent.northGateway;
  const wanted =
    gw === undefined
      ? undefined
      : {
          match: `ip4.src == ${ipv4Of(input, ANNOTATIONS.northGateway)}`,
          nexthop: canonicalAddress(gw)!,
        };
  const mine = router.policies
    .map((u) => t.get('Logical_Router_Policy', u))
    .filter(
      (p): p is NbRow<'Logical_Router_Policy'> =>
        p !== undefined && ownedBy(p.external_ids, input.key),
    );
  const same = (p: NbRow<'Logical_Router_Policy'>) =>
    wanted !== undefined &&
    p.priority === NORTH_GATEWAY_PRIORITY &&
    p.match === wanted.match &&
    p.nexthops.length === 1 &&
    p.nexthops[0] === wanted.nexthop;
  const stale = mine.filter((p) => !same(p));
  t.removeFromSet(
    'Logical_Router',
    router._uuid,
    'policies',
    stale.map((p) => p._uuid),
  );
  if (wanted !== undefined && !mine.some(same)) {
    lrPolicyAdd(t, router._uuid, {
      priority: NORTH_GATEWAY_PRIORITY,
      match: wanted.match,
      action: 'reroute',
      nexthops: [wanted.nexthop],
      externalIds: podIds(input.key),
    });
  }
}

/**
 * Build the operations that make NB match one pod (see the module
 * documentation). Returns the port's UUID (a ref when created).
 * @throws the DSL's errors (e.g. `AlreadyExistsError` for an EIP another
 *   rule uses, or an IP another port of the switch has) and
 *   BadAnnotationError (EIP, SNAT or north gateway on a subnet without IPv4).
 */
export function applyPod(t: NbTxn, input: ApplyPodInput): string {
  const { allocation, intent, key } = input;
  const { switch: sw, dhcp } = subnetRows(t, input.router, input.subnet);
  const name = portName(key);
  const vips = intent.vips.map((v) => canonicalAddress(v) ?? v);
  const columns = {
    addresses: [formatLspAddress(`${allocation.mac} ${allocation.ips.join(' ')}`)],
    port_security: intent.portSecurity
      ? [formatPortSecurity(`${allocation.mac} ${[...allocation.ips, ...vips].join(' ')}`)]
      : [],
    external_ids: podIds(key, input.subnet.name),
    dhcpv4_options: dhcp.v4 ?? null,
    dhcpv6_options: dhcp.v6 ?? null,
    ...(input.adopt === true ? { name, enabled: true } : {}),
  };
  const known =
    typeof input.portUuid === 'string' ? t.get('Logical_Switch_Port', input.portUuid) : undefined;
  const existing =
    known !== undefined && (known.name === name || input.adopt === true)
      ? known
      : input.portUuid === null
        ? undefined
        : rowsNamed(t, 'Logical_Switch_Port', name)[0];
  let port: string;
  if (existing === undefined) {
    // Not lspAdd: it checks every port of the switch for a duplicate IP (as
    // ovn-nbctl does), O(ports) address parses per pod; the IPAM already
    // guarantees unique addresses, and the port name is unique in the schema.
    port = t.insert('Logical_Switch_Port', { name, ...columns });
    t.addToSet('Logical_Switch', sw, 'ports', [port]);
  } else {
    port = existing._uuid;
    const owners = t.referrers('Logical_Switch', 'ports', port);
    if (owners.length !== 1 || owners[0]!._uuid !== sw) {
      t.addToSet('Logical_Switch', sw, 'ports', [port]);
      for (const o of owners)
        if (o._uuid !== sw) t.removeFromSet('Logical_Switch', o._uuid, 'ports', [port]);
    }
    const changed: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(columns)) {
      if (!sameValue((existing as unknown as Record<string, unknown>)[k], v)) changed[k] = v;
    }
    if (Object.keys(changed).length > 0) t.update('Logical_Switch_Port', port, changed as never);
  }
  syncPortGroups(t, port, input, existing === undefined || input.adopt === true);
  const router = findNamed(t, 'Logical_Router', input.router)!;
  syncNat(t, router, input);
  syncPolicy(t, t.get('Logical_Router', router._uuid)!, input);
  return port;
}

/**
 * Build the operations that remove everything of pod `key`: its port (and
 * with it its port-group memberships), and its NAT rules and policies on the
 * cluster router. Returns whether there was anything to remove. `portUuid`,
 * when known, saves looking the port up by name.
 */
export function removePod(t: NbTxn, router: string, key: PodKey, portUuid?: string): boolean {
  let removed = false;
  const known = portUuid === undefined ? undefined : t.get('Logical_Switch_Port', portUuid);
  const port =
    known !== undefined && known.name === portName(key)
      ? known
      : rowsNamed(t, 'Logical_Switch_Port', portName(key))[0];
  if (port !== undefined && ownedBy(port.external_ids, key)) {
    lspDel(t, port._uuid);
    removed = true;
  }
  const lr = findNamed(t, 'Logical_Router', router);
  if (lr !== undefined) {
    const nats = lr.nat.filter((u) => {
      const n = t.get('NAT', u);
      return n !== undefined && ownedBy(n.external_ids, key);
    });
    const policies = lr.policies.filter((u) => {
      const p = t.get('Logical_Router_Policy', u);
      return p !== undefined && ownedBy(p.external_ids, key);
    });
    t.removeFromSet('Logical_Router', lr._uuid, 'nat', nats);
    t.removeFromSet('Logical_Router', lr._uuid, 'policies', policies);
    removed ||= nats.length > 0 || policies.length > 0;
  }
  return removed;
}

/** The result annotations of an allocated pod, shaped like kube-ovn's. */
export function resultAnnotations(allocation: Allocation): Record<string, string> {
  return {
    [ANNOTATIONS.ipAddress]: allocation.ips.join(','),
    [ANNOTATIONS.macAddress]: allocation.mac,
    [ANNOTATIONS.cidr]: allocation.cidrs.join(','),
    [ANNOTATIONS.gateway]: allocation.gateways.join(','),
    [ANNOTATIONS.logicalSwitch]: allocation.subnet,
    [ANNOTATIONS.allocated]: 'true',
    [ANNOTATIONS.routed]: 'true',
  };
}

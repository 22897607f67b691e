/**
 * Helpers of the pod controller tests: a controller on a server, and a
 * snapshot of NB read with a separate client, compared with what the pod
 * list says NB should hold.
 */

import { expect } from 'vitest';
import {
  type ClusterTopology,
  NORTH_GATEWAY_PRIORITY,
  namespacePortGroup,
  nodePortGroup,
  type Pod,
  PodController,
  type PodControllerOptions,
  ProgrammaticPodSource,
  podKey,
  portName,
} from '../../../examples/pod-allocation/controller/index.js';
import { connectDatabase, type DatabaseClient } from '../../../src/client/index.js';
import { createNb, NB, type NBTables } from '../../../src/nb/index.js';
import type { Dialer } from '../../../src/ovsdb/index.js';

/** The NB schema the tests serve. */
export const NB_SCHEMA = 'schema/ovn-nb-7.18.0.ovsschema';

/** A controller, its source and its client. */
export interface Rig {
  readonly controller: PodController;
  readonly source: ProgrammaticPodSource;
  readonly client: DatabaseClient<NBTables>;
  close(): Promise<void>;
}

/**
 * Connect a client and a controller (not started), to `remote` or with
 * client options (a test database's `{ remotes, dial }`).
 */
export async function rig(
  remote: string | { readonly remotes: string; readonly dial: Dialer },
  topology: ClusterTopology,
  options: Partial<Omit<PodControllerOptions, 'nb' | 'source' | 'topology'>> = {},
  source = new ProgrammaticPodSource(),
): Promise<Rig> {
  const target = typeof remote === 'string' ? { remotes: remote } : remote;
  const client = connectDatabase({ ...target, model: NB });
  await client.ready;
  const controller = new PodController({
    nb: createNb(client),
    source,
    topology,
    gcIntervalMs: 0,
    maxRetries: 2,
    ...options,
  });
  return {
    controller,
    source,
    client,
    close: async () => {
      await controller.stop();
      await client.close();
    },
  };
}

type Row = Record<string, unknown>;

/** NB as read by a fresh client. */
export interface NbSnapshot {
  readonly tables: Readonly<Record<string, Row[]>>;
  /** Pod ports by name. */
  readonly ports: Map<string, Row & { addresses: string[]; external_ids: Record<string, string> }>;
  byUuid(table: string, uuid: string): Row | undefined;
}

const TABLES = [
  'Logical_Switch',
  'Logical_Switch_Port',
  'Logical_Router',
  'Logical_Router_Port',
  'Port_Group',
  'DHCP_Options',
  'NAT',
  'Logical_Router_Policy',
  'ACL',
] as const;

/** Read NB with a separate client (connected now, so it sees every commit so far). */
export async function snapshot(remote: string): Promise<NbSnapshot> {
  const client = connectDatabase({ remotes: remote, model: NB });
  try {
    await client.ready;
    const tables: Record<string, Row[]> = {};
    for (const t of TABLES)
      tables[t] = [...client.rows(t)].map((r) => JSON.parse(JSON.stringify(r)) as Row);
    const ports = new Map(
      tables['Logical_Switch_Port']!.filter(
        (p) => (p['external_ids'] as Record<string, string>)['vendor'] === 'ovnkit',
      ).map((p) => [
        p['name'] as string,
        p as Row & { addresses: string[]; external_ids: Record<string, string> },
      ]),
    );
    return {
      tables,
      ports,
      byUuid: (table, uuid) => tables[table]?.find((r) => r['_uuid'] === uuid),
    };
  } finally {
    await client.close();
  }
}

/** A canonical text of the whole snapshot (rows sorted), for before/after comparisons. */
export function dumpText(s: NbSnapshot): string {
  const out: Record<string, string[]> = {};
  for (const [t, rows] of Object.entries(s.tables)) {
    out[t] = rows
      .map((r) => {
        const copy = { ...r };
        delete copy['_version'];
        return JSON.stringify(copy, Object.keys(copy).sort());
      })
      .sort();
  }
  return JSON.stringify(out);
}

const A = 'ovn.kubernetes.io/';

/**
 * Check that NB holds exactly what `pods` (all ready) call for: one port per
 * pod on its switch with the annotated addresses, port security and
 * external_ids, DHCP options of its subnet, namespace and node port-group
 * memberships, and the NAT rules and policies of the annotations, and no
 * other pod rows.
 */
export function expectNbMatches(
  s: NbSnapshot,
  pods: readonly Pod[],
  controller: PodController,
  router: string,
): void {
  const expectedPorts = new Set(pods.map((p) => portName(podKey(p))));
  expect(new Set(s.ports.keys())).toEqual(expectedPorts);
  const switchOf = new Map<string, string>();
  for (const ls of s.tables['Logical_Switch']!) {
    for (const u of ls['ports'] as string[]) switchOf.set(u, ls['name'] as string);
  }
  const wantPg = new Map<string, Set<string>>();
  const wantNat = new Set<string>();
  const wantPolicy = new Set<string>();
  const ips = new Set<string>();
  const macs = new Set<string>();
  for (const pod of pods) {
    const key = podKey(pod);
    const status = controller.status.get(key);
    expect(status?.state, key).toBe('ready');
    const a = status!.annotations!;
    const port = s.ports.get(portName(key))!;
    const podIps = a[`${A}ip_address`]!.split(',');
    const mac = a[`${A}mac_address`]!;
    expect(port.addresses, key).toEqual([`${mac} ${podIps.join(' ')}`]);
    expect(port.external_ids, key).toEqual({
      pod: key,
      vendor: 'ovnkit',
      ls: a[`${A}logical_switch`],
    });
    expect(switchOf.get(port['_uuid'] as string), key).toBe(a[`${A}logical_switch`]);
    const vips = (pod.annotations?.[`${A}vips`] ?? '').split(',').filter((v) => v !== '');
    expect(port['port_security'], key).toEqual([`${mac} ${[...podIps, ...vips].join(' ')}`]);
    for (const ip of podIps) {
      expect(ips.has(ip), `${ip} twice`).toBe(false);
      ips.add(ip);
    }
    expect(macs.has(mac), `${mac} twice`).toBe(false);
    macs.add(mac);
    const v4 = podIps.find((ip) => ip.includes('.'));
    const v6 = podIps.find((ip) => ip.includes(':'));
    const dhcp4 = port['dhcpv4_options'] as string | null;
    const dhcp6 = port['dhcpv6_options'] as string | null;
    expect(dhcp4 === null ? undefined : s.byUuid('DHCP_Options', dhcp4)?.['cidr'], key).toBe(
      v4 === undefined ? undefined : a[`${A}cidr`]!.split(',').find((c) => c.includes('.')),
    );
    expect(dhcp6 === null ? undefined : s.byUuid('DHCP_Options', dhcp6)?.['cidr'], key).toBe(
      v6 === undefined ? undefined : a[`${A}cidr`]!.split(',').find((c) => c.includes(':')),
    );
    for (const pg of [namespacePortGroup(pod.namespace), nodePortGroup(pod.node)]) {
      const set = wantPg.get(pg) ?? new Set();
      set.add(port['_uuid'] as string);
      wantPg.set(pg, set);
    }
    const ann = pod.annotations ?? {};
    if (ann[`${A}eip`]) wantNat.add(`dnat_and_snat ${ann[`${A}eip`]} ${v4} ${key}`);
    if (ann[`${A}snat`]) wantNat.add(`snat ${ann[`${A}snat`]} ${v4} ${key}`);
    if (ann[`${A}north_gateway`])
      wantPolicy.add(
        `${NORTH_GATEWAY_PRIORITY} ip4.src == ${v4} ${ann[`${A}north_gateway`]} ${key}`,
      );
  }
  const gotPg = new Map<string, Set<string>>();
  for (const pg of s.tables['Port_Group']!) {
    const ports = pg['ports'] as string[];
    if ((pg['external_ids'] as Record<string, string>)['vendor'] === 'ovnkit' && ports.length > 0) {
      gotPg.set(pg['name'] as string, new Set(ports));
    }
  }
  expect(gotPg).toEqual(wantPg);
  const lr = s.tables['Logical_Router']!.find((r) => r['name'] === router)!;
  const nats = (lr['nat'] as string[]).map((u) => s.byUuid('NAT', u)!);
  const gotNat = new Set(
    nats
      .filter((n) => (n['external_ids'] as Record<string, string>)['vendor'] === 'ovnkit')
      .map(
        (n) =>
          `${n['type']} ${n['external_ip']} ${n['logical_ip']} ${(n['external_ids'] as Record<string, string>)['pod']}`,
      ),
  );
  expect(gotNat).toEqual(wantNat);
  expect(s.tables['NAT']!.length).toBe(nats.length);
  const policies = (lr['policies'] as string[]).map((u) => s.byUuid('Logical_Router_Policy', u)!);
  const gotPolicy = new Set(
    policies.map(
      (p) =>
        `${p['priority']} ${p['match']} ${(p['nexthops'] as string[]).join(',')} ${(p['external_ids'] as Record<string, string>)['pod']}`,
    ),
  );
  expect(gotPolicy).toEqual(wantPolicy);
  expect(s.tables['Logical_Router_Policy']!.length).toBe(policies.length);
}

/** Poll until `f` is true (or fail after `ms`). */
export async function until(f: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

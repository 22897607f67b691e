/**
 * Helpers of the pool tests: a pod controller with a pool reconciler on a
 * server (a manual clock, fast retries), and a reading of NB's pools,
 * ports and addresses with a separate client.
 */

import { expect } from 'vitest';
import {
  type ClusterTopology,
  ExponentialFailureRateLimiter,
  PodController,
  type PodControllerOptions,
  ProgrammaticPodSource,
} from '../../../examples/pod-allocation/controller/index.js';
import {
  ManualClock,
  POOL_INDEXES,
  type PoolNode,
  PoolReconciler,
  type PoolReconcilerOptions,
  ProgrammaticNodeSource,
} from '../../../examples/pod-allocation/pools/index.js';
import { connectDatabase, type DatabaseClient } from '../../../src/client/index.js';
import { createNb, NB, type NBTables } from '../../../src/nb/index.js';
import { snapshot } from './helpers.js';

/** A controller with pools, its sources, clock and client. */
export interface PoolRig {
  readonly controller: PodController;
  readonly pools: PoolReconciler;
  readonly pods: ProgrammaticPodSource;
  readonly nodes: ProgrammaticNodeSource;
  readonly clock: ManualClock;
  readonly client: DatabaseClient<NBTables>;
  start(): Promise<void>;
  /** Wait until neither queue has work. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link poolRig}. */
export interface PoolRigOptions {
  readonly nodes?: ProgrammaticNodeSource | undefined;
  readonly pods?: ProgrammaticPodSource | undefined;
  readonly clock?: ManualClock | undefined;
  /** Connect the client with the pools' index (default true; false: the reconciler scans NB's ports). */
  readonly poolIndex?: boolean | undefined;
  readonly controller?: Partial<Omit<PodControllerOptions, 'nb' | 'source' | 'topology'>>;
  readonly pools?: Partial<Omit<PoolReconcilerOptions, 'nb' | 'nodes'>>;
}

/** Connect a client, a controller and its pools (not started). */
export async function poolRig(
  remote: string,
  topology: ClusterTopology,
  options: PoolRigOptions = {},
): Promise<PoolRig> {
  const client: DatabaseClient<NBTables> =
    options.poolIndex === false
      ? connectDatabase({ remotes: remote, model: NB })
      : (connectDatabase({
          remotes: remote,
          model: NB,
          indexes: POOL_INDEXES,
        }) as unknown as DatabaseClient<NBTables>);
  await client.ready;
  const nb = createNb(client);
  const nodes = options.nodes ?? new ProgrammaticNodeSource();
  const pods = options.pods ?? new ProgrammaticPodSource();
  const clock = options.clock ?? new ManualClock(1_000_000);
  const pools = new PoolReconciler({
    nb,
    nodes,
    clock,
    resyncIntervalMs: 0,
    maxRetries: 2,
    rateLimiter: new ExponentialFailureRateLimiter(1, 10),
    ...options.pools,
  });
  const controller = new PodController({
    nb,
    source: pods,
    topology,
    pools,
    gcIntervalMs: 0,
    maxRetries: 2,
    rateLimiter: new ExponentialFailureRateLimiter(1, 10),
    ...options.controller,
  });
  const settle = async () => {
    for (;;) {
      await controller.idle();
      await pools.idle();
      if (controller.queue.size === 0 && pools.queue.size === 0) return;
    }
  };
  return {
    controller,
    pools,
    pods,
    nodes,
    clock,
    client,
    start: async () => {
      await controller.start();
      await pools.start();
      await settle();
    },
    settle,
    close: async () => {
      await pools.stop();
      await controller.stop();
      await client.close();
    },
  };
}

/** A port as NB has it. */
export interface PortView {
  readonly uuid: string;
  readonly name: string;
  readonly switch: string | undefined;
  readonly mac: string;
  readonly ips: readonly string[];
  readonly enabled: boolean | null;
  readonly externalIds: Readonly<Record<string, string>>;
  readonly options: Readonly<Record<string, string>>;
}

/** NB's pools and pod ports, read with a fresh client. */
export interface PoolsView {
  /** Idle entries per node. */
  readonly entries: Map<string, PortView[]>;
  /** Pod ports by pod key. */
  readonly pods: Map<string, PortView>;
  /** Every ovnkit port (entries and pods). */
  readonly all: PortView[];
  /** The canonical text of the whole snapshot. */
  readonly snapshot: Awaited<ReturnType<typeof snapshot>>;
}

/** Read NB's pools (see {@link PoolsView}). */
export async function readPools(remote: string): Promise<PoolsView> {
  const s = await snapshot(remote);
  const switchOf = new Map<string, string>();
  for (const ls of s.tables['Logical_Switch']!)
    for (const u of ls['ports'] as string[]) switchOf.set(u, ls['name'] as string);
  const entries = new Map<string, PortView[]>();
  const pods = new Map<string, PortView>();
  const all: PortView[] = [];
  for (const p of s.tables['Logical_Switch_Port']!) {
    const ids = p['external_ids'] as Record<string, string>;
    if (ids['vendor'] !== 'ovnkit') continue;
    const words = (p['addresses'] as string[])[0]?.split(' ') ?? [];
    const view: PortView = {
      uuid: p['_uuid'] as string,
      name: p['name'] as string,
      switch: switchOf.get(p['_uuid'] as string),
      mac: words[0] ?? '',
      ips: words.slice(1),
      enabled: (p['enabled'] as boolean | null) ?? null,
      externalIds: ids,
      options: p['options'] as Record<string, string>,
    };
    all.push(view);
    if (ids['pool'] !== undefined) {
      const list = entries.get(ids['pool']) ?? [];
      list.push(view);
      entries.set(ids['pool'], list);
    } else if (ids['pod'] !== undefined) pods.set(ids['pod'], view);
  }
  return { entries, pods, all, snapshot: s };
}

/**
 * Check the idle entries as NB has them: disabled, on the switch of their
 * subnet, requested on their node, and no address (IP or MAC) on two ports.
 */
export function expectWellFormed(view: PoolsView, subnetOf: (node: string) => string): void {
  for (const [node, list] of view.entries) {
    for (const e of list) {
      expect(e.enabled, e.name).toBe(false);
      expect(e.options, e.name).toEqual({ 'requested-chassis': node });
      expect(e.externalIds['ls'], e.name).toBe(subnetOf(node));
      expect(e.switch, e.name).toBe(subnetOf(node));
      expect(e.name).toMatch(/^ovnkit-pool-[0-9a-f]{12}$/);
      expect(e.ips.length, e.name).toBeGreaterThan(0);
    }
  }
  expectDistinctAddresses(view);
}

/** No IP and no MAC on two ovnkit ports. */
export function expectDistinctAddresses(view: PoolsView): void {
  const ips = new Map<string, string>();
  const macs = new Map<string, string>();
  for (const p of view.all) {
    for (const ip of p.ips) {
      expect(ips.get(ip), `${ip} on ${p.name} and ${ips.get(ip)}`).toBeUndefined();
      ips.set(ip, p.name);
    }
    expect(macs.get(p.mac), `${p.mac} on ${p.name} and ${macs.get(p.mac)}`).toBeUndefined();
    macs.set(p.mac, p.name);
  }
}

/** `n` nodes named `node-<i>`. */
export function makeNodes(n: number, f: (i: number) => Omit<PoolNode, 'name'>): PoolNode[] {
  return Array.from({ length: n }, (_, i) => ({ name: `node-${i}`, ...f(i) }));
}

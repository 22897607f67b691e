/**
 * Pod starts served from warm pools, against the real ovsdb-server and the
 * in-memory server: 500 pods claimed concurrently from 20 pools (no entry
 * claimed twice: every pod's port and address distinct, counts add up);
 * two clients claiming one entry at once (the verify lets one win);
 * deleted pods' ports back in their pool; a restart mid-run leaks nothing
 * and hands nothing out twice.
 */

import { describe, expect, it } from 'vitest';
import {
  ANNOTATIONS,
  type ClusterTopology,
  type Pod,
  ProgrammaticPodSource,
  podIds,
  podKey,
  portName,
} from '../../../examples/pod-allocation/controller/index.js';
import {
  guardIdle,
  PoolEntryTakenError,
  ProgrammaticNodeSource,
} from '../../../examples/pod-allocation/pools/index.js';
import { connectDatabase } from '../../../src/client/index.js';
import { createNb, NB } from '../../../src/nb/index.js';
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';
import { NB_SCHEMA } from './helpers.js';
import {
  expectDistinctAddresses,
  expectWellFormed,
  makeNodes,
  type PoolRig,
  type PoolsView,
  poolRig,
  readPools,
} from './pools-rig.js';

const TOPOLOGY: ClusterTopology = {
  router: 'lr-claims',
  subnets: [
    { name: 'warm', cidr: '10.60.0.0/16' },
    { name: 'warm6', cidr: '10.61.0.0/20,fd00:61::/64' },
  ],
};

const podOn = (i: number, nodes: number): Pod => ({
  namespace: `ns${i % 3}`,
  name: `p-${i}`,
  node: `node-${i % nodes}`,
  annotations: i % nodes >= nodes / 2 ? { [ANNOTATIONS.logicalSwitch]: 'warm6' } : {},
});

/** Every pod port has the addresses the pod was told, and the counts add up with the IPAM. */
function expectPodsMatch(view: PoolsView, r: PoolRig, pods: readonly Pod[]): void {
  expect(new Set(view.pods.keys())).toEqual(new Set(pods.map(podKey)));
  expect(new Set([...view.pods.values()].map((p) => p.uuid)).size).toBe(pods.length);
  for (const pod of pods) {
    const key = podKey(pod);
    const port = view.pods.get(key)!;
    const a = r.controller.status.get(key)?.annotations;
    expect(port.name, key).toBe(portName(key));
    expect(a?.[ANNOTATIONS.ipAddress], key).toBe(port.ips.join(','));
    expect(a?.[ANNOTATIONS.macAddress], key).toBe(port.mac);
  }
  expectDistinctAddresses(view);
  // The IPAM holds exactly NB's addresses: one owner per pod, one per idle entry.
  const owners = new Set(r.controller.ipam.owned());
  const want = new Set([
    ...pods.map(podKey),
    ...[...view.entries.values()].flat().map((e) => `pool:${e.name}`),
  ]);
  expect(owners).toEqual(want);
  for (const s of r.controller.ipam.listSubnets()) {
    const onSubnet = view.all.filter((p) => p.externalIds['ls'] === s.name);
    for (const range of s.ranges) {
      const want = onSubnet.filter((p) =>
        p.ips.some((ip) => (range.family === 4 ? ip.includes('.') : ip.includes(':'))),
      ).length;
      expect(range.usedCount, `${s.name} IPv${range.family}`).toBe(want);
    }
  }
}

describe.each(SERVER_KINDS)('pod starts from warm pools against %s', (kind) => {
  it('500 pods claimed concurrently from 20 pools: no entry twice, counts add up', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    const nodes = new ProgrammaticNodeSource(
      makeNodes(20, (i) => ({
        subnet: i >= 10 ? 'warm6' : 'warm',
        minIdle: 25,
        maxIdle: 60,
        batchSize: 10,
      })),
    );
    const r = await poolRig(remote, TOPOLOGY, { nodes, controller: { concurrency: 32 } });
    try {
      await r.start();
      const created0 = r.pools.stats.created;
      expect(created0).toBe(500);
      const pods = Array.from({ length: 500 }, (_, i) => podOn(i, 20));
      for (const p of pods) r.pods.add(p);
      await r.settle();
      expect(r.controller.events).toEqual([]);
      expect(r.controller.stats.poolStarts).toBe(500);
      expect(r.pools.stats.claimed).toBe(500);
      const view = await readPools(remote);
      expectWellFormed(view, (n) => (Number(n.split('-')[1]) >= 10 ? 'warm6' : 'warm'));
      expectPodsMatch(view, r, pods);
      for (const pod of pods) {
        const port = view.pods.get(podKey(pod))!;
        // A claimed entry: enabled, still requested on the pod's node, the pod's external_ids.
        expect(port.enabled, port.name).toBe(true);
        expect(port.options['requested-chassis'], port.name).toBe(pod.node);
        expect(port.externalIds).toEqual(podIds(podKey(pod), port.switch));
      }
      // Refilled to minIdle; every entry ever created is a pod port or idle.
      const idle = [...view.entries.values()].flat().length;
      for (const n of await nodes.list()) {
        expect(view.entries.get(n.name)?.length, n.name).toBe(25);
        expect(r.pools.status.get(n.name)).toMatchObject({ idle: 25, inUse: 25 });
      }
      expect(r.pools.stats.created).toBe(500 + idle);
      expect(r.pools.stats.released).toBe(0);
    } finally {
      await r.close();
      await server.stop();
    }
  }, 120_000);

  it('two clients claiming one entry at once: the verify lets exactly one win', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    const r = await poolRig(remote, TOPOLOGY);
    const clients = [0, 1].map(() => connectDatabase({ remotes: remote, model: NB }));
    try {
      r.nodes.add({ name: 'node-0', subnet: 'warm', minIdle: 10, maxIdle: 10 });
      await r.start();
      await r.pools.stop(); // no refill meanwhile
      for (const c of clients) await c.ready;
      const nbs = clients.map((c) => createNb(c));
      const entries = (await readPools(remote)).entries.get('node-0')!;
      expect(entries).toHaveLength(10);
      for (const e of entries) {
        for (const c of clients) await c.waitFor('Logical_Switch_Port', (p) => p._uuid === e.uuid);
        const claim = (i: number) =>
          nbs[i]!.transact((t) => {
            guardIdle(t, e.uuid, 'node-0', e.name);
            const key = `c${i}/${e.name}`;
            t.update('Logical_Switch_Port', e.uuid, {
              name: portName(key),
              enabled: true,
              external_ids: podIds(key, 'warm'),
            });
            return key;
          });
        const results = await Promise.allSettled([claim(0), claim(1)]);
        const won = results.filter((x) => x.status === 'fulfilled');
        const lost = results.filter((x) => x.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        const reason = (lost[0] as PromiseRejectedResult).reason;
        expect(reason).toBeInstanceOf(PoolEntryTakenError);
        const winner = (won[0] as PromiseFulfilledResult<{ value: string }>).value.value;
        expect((reason as PoolEntryTakenError).by).toBe(winner);
        const row = (await readPools(remote)).pods.get(winner);
        expect(row?.uuid).toBe(e.uuid);
      }
      const after = await readPools(remote);
      expect(after.entries.has('node-0')).toBe(false);
      expect(after.pods.size).toBe(10);
    } finally {
      for (const c of clients) await c.close();
      await r.close();
      await server.stop();
    }
  });

  it('a deleted pod goes back to its pool; beyond maxIdle it is released after the TTL', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    const r = await poolRig(remote, TOPOLOGY);
    try {
      r.nodes.add({ name: 'node-0', subnet: 'warm', minIdle: 3, maxIdle: 4, idleTtlMs: 1000 });
      await r.start();
      const pods = Array.from({ length: 6 }, (_, i) => podOn(i, 1));
      for (const p of pods) r.pods.add(p);
      await r.settle();
      expect(r.controller.stats.poolStarts).toBeGreaterThanOrEqual(3);
      const served = pods.filter(
        (p) =>
          [...r.client.rows('Logical_Switch_Port')].find((x) => x.name === portName(podKey(p)))
            ?.options['requested-chassis'] === 'node-0',
      );
      expect(served.length).toBe(r.controller.stats.poolStarts);
      const before = await readPools(remote);
      const ips = served.map((p) => before.pods.get(podKey(p))!.ips[0]!);
      for (const p of pods) r.pods.delete(p);
      await r.settle();
      let view = await readPools(remote);
      expect(view.pods.size).toBe(0);
      // Served pods' addresses are idle entries again; the others are freed.
      const idleIps = new Set(view.entries.get('node-0')!.map((e) => e.ips[0]!));
      for (const ip of ips) expect(idleIps.has(ip), ip).toBe(true);
      expect(r.pools.stats.returned).toBe(served.length);
      expect(view.entries.get('node-0')!.length).toBe(3 + served.length);
      expectWellFormed(view, () => 'warm');
      expectPodsMatch(view, r, []);
      r.clock.advance(1000);
      await r.settle();
      view = await readPools(remote);
      expect(view.entries.get('node-0')).toHaveLength(4);
      expectPodsMatch(view, r, []);
    } finally {
      await r.close();
      await server.stop();
    }
  });

  it('a restart mid-run leaks nothing and hands nothing out twice', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    const pods = new ProgrammaticPodSource();
    const nodes = new ProgrammaticNodeSource(
      makeNodes(10, (i) => ({
        subnet: i >= 5 ? 'warm6' : 'warm',
        minIdle: 8,
        maxIdle: 100,
        batchSize: 1,
      })),
    );
    const first = await poolRig(remote, TOPOLOGY, { nodes, pods, controller: { concurrency: 8 } });
    let second: PoolRig | undefined;
    try {
      await first.start();
      for (let i = 0; i < 200; i++) pods.add(podOn(i, 10));
      const until = async (f: () => boolean) => {
        while (!f()) await new Promise((res) => setTimeout(res, 5));
      };
      await until(() => first.controller.stats.reconciled >= 60);
      await first.close(); // mid-run: both queues are dropped
      const ready = [...first.controller.status.values()].filter((s) => s.state === 'ready');
      expect(ready.length).toBeLessThan(200);

      // While down: 20 ready pods deleted, 2 nodes leave, one joins.
      for (const s of ready.slice(0, 20)) pods.delete(s.key);
      nodes.delete('node-3');
      nodes.delete('node-8');
      nodes.add({ name: 'node-10', subnet: 'warm', minIdle: 5, maxIdle: 100 });

      second = await poolRig(remote, TOPOLOGY, { nodes, pods, controller: { concurrency: 8 } });
      await second.start();
      await second.settle();
      const live = (await pods.list()) as Pod[];
      const view = await readPools(remote);
      // Pods on nodes that left keep their ports (they are the pod controller's).
      expectPodsMatch(view, second, live);
      for (const p of live) expect(second.controller.status.get(podKey(p))?.state).toBe('ready');
      // NB's entries are the pools: none of the nodes that left, at least minIdle for the others.
      expect(view.entries.has('node-3')).toBe(false);
      expect(view.entries.has('node-8')).toBe(false);
      for (const n of await nodes.list()) {
        const inNb = view.entries.get(n.name) ?? [];
        expect(inNb.length, n.name).toBeGreaterThanOrEqual(n.minIdle ?? 0);
        expect(second.pools.status.get(n.name)?.idle, n.name).toBe(inNb.length);
        expect(new Set(second.pools.idleEntries.get(n.name)?.keys())).toEqual(
          new Set(inNb.map((e) => e.uuid)),
        );
      }
      expectWellFormed(view, (n) =>
        n === 'node-10' || Number(n.split('-')[1]) < 5 ? 'warm' : 'warm6',
      );
      // Pods reconciled before the restart kept their addresses.
      for (const s of ready.slice(20)) {
        expect(second.controller.status.get(s.key)?.annotations, s.key).toEqual(s.annotations);
      }
    } finally {
      await second?.close();
      await server.stop();
    }
  }, 120_000);
});

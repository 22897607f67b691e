/**
 * Per-node warm pools against the real ovsdb-server and the in-memory
 * server: 20 nodes converge (refill to minIdle in batches, trim beyond
 * maxIdle only after the TTL on a manual clock, a node that leaves has its
 * entries deleted); the status is written back only when it changed; bad
 * input fails per node with a reason and writes nothing.
 */

import { describe, expect, it } from 'vitest';
import type { ClusterTopology } from '../../../examples/pod-allocation/controller/index.js';
import type { PoolFailureReason } from '../../../examples/pod-allocation/pools/index.js';
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';
import { dumpText, NB_SCHEMA, snapshot } from './helpers.js';
import { expectWellFormed, makeNodes, poolRig, readPools } from './pools-rig.js';

const TOPOLOGY: ClusterTopology = {
  router: 'lr-pools',
  subnets: [
    { name: 'pool-a', cidr: '10.40.0.0/16' },
    { name: 'pool-b', cidr: '10.41.0.0/16,fd00:41::/64' },
    { name: 'tiny', cidr: '10.42.0.0/28' },
  ],
};

const subnetOfIndex = (i: number) => (i % 2 === 0 ? 'pool-a' : 'pool-b');
const minOf = (i: number) => 3 + (i % 4);

describe.each(SERVER_KINDS)('node pools against %s', (kind) => {
  it('20 nodes: refill to minIdle, trim beyond maxIdle after the TTL, GC of nodes that leave', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    const r = await poolRig(remote, TOPOLOGY);
    const nodes = makeNodes(20, (i) => ({
      subnet: subnetOfIndex(i),
      minIdle: minOf(i),
      maxIdle: minOf(i) + 2,
      batchSize: 2,
      idleTtlMs: 60_000,
    }));
    const subnetOf = (node: string) => subnetOfIndex(Number(node.split('-')[1]));
    try {
      for (const n of nodes) r.nodes.add(n);
      await r.start();
      let view = await readPools(remote);
      expectWellFormed(view, subnetOf);
      expect(view.entries.size).toBe(20);
      for (const [i, n] of nodes.entries()) {
        expect(view.entries.get(n.name)?.length, n.name).toBe(minOf(i));
        expect(r.pools.status.get(n.name)).toMatchObject({ idle: minOf(i), inUse: 0 });
        // Dual-stack entries on pool-b.
        for (const e of view.entries.get(n.name)!) expect(e.ips.length).toBe(i % 2 === 0 ? 1 : 2);
        // The IPAM holds each entry's addresses for the entry.
        for (const e of view.entries.get(n.name)!)
          expect(r.controller.ipam.holderOf(subnetOf(n.name), e.ips[0]!)).toBe(`pool:${e.name}`);
      }
      const total = nodes.reduce((s, _, i) => s + minOf(i), 0);
      expect(r.pools.stats.created).toBe(total);
      // batches of 2: ceil(min/2) transactions per node
      expect(r.pools.stats.transactions).toBe(
        nodes.reduce((s, _, i) => s + Math.ceil(minOf(i) / 2), 0),
      );

      // Lower the bounds: nothing goes before the TTL.
      for (const n of nodes) r.nodes.update({ ...n, minIdle: 1, maxIdle: 2 });
      await r.settle();
      r.clock.advance(59_999);
      await r.settle();
      view = await readPools(remote);
      for (const [i, n] of nodes.entries())
        expect(view.entries.get(n.name)?.length, n.name).toBe(minOf(i));
      const before = new Map([...view.entries].map(([k, v]) => [k, v.map((e) => e.ips[0]!)]));
      expect(r.clock.pendingTimers).toBe(20);
      r.clock.advance(1); // the TTL timers fire
      await r.settle();
      expect(r.clock.pendingTimers).toBe(0);
      view = await readPools(remote);
      expectWellFormed(view, subnetOf);
      for (const n of nodes) {
        expect(view.entries.get(n.name)?.length, n.name).toBe(2);
        expect(r.pools.status.get(n.name)).toMatchObject({ idle: 2, minIdle: 1, maxIdle: 2 });
        const kept = new Set(view.entries.get(n.name)!.map((e) => e.ips[0]!));
        for (const ip of before.get(n.name)!) {
          // Released addresses are free again; kept ones still held.
          expect(r.controller.ipam.holderOf(subnetOf(n.name), ip) !== undefined).toBe(kept.has(ip));
        }
      }
      expect(r.pools.stats.released).toBe(total - 40);

      // Five nodes leave: their entries go, their addresses are free.
      const gone = nodes.slice(0, 5).map((n) => n.name);
      const goneIps = gone.flatMap((g) => view.entries.get(g)!.map((e) => [g, e.ips[0]!] as const));
      for (const g of gone) r.nodes.delete(g);
      await r.settle();
      view = await readPools(remote);
      for (const g of gone) expect(view.entries.has(g), g).toBe(false);
      for (const [g, ip] of goneIps)
        expect(r.controller.ipam.holderOf(subnetOf(g), ip)).toBeUndefined();
      expect(view.entries.size).toBe(15);
      expect(r.pools.stats.collected).toBe(10);
      for (const g of gone) expect(r.pools.status.has(g)).toBe(false);
    } finally {
      await r.close();
      await server.stop();
    }
  });

  it('status is written back only when it changed', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const r = await poolRig(server.unixRemote, TOPOLOGY);
    try {
      for (const n of makeNodes(3, () => ({
        subnet: 'pool-a',
        minIdle: 4,
        maxIdle: 6,
        batchSize: 3,
      })))
        r.nodes.add(n);
      await r.start();
      expect([...r.nodes.statusWrites.values()]).toEqual([1, 1, 1]);
      for (let i = 0; i < 3; i++) {
        await r.pools.resync();
        await r.settle();
      }
      // Three resyncs, nothing changed: no write.
      expect([...r.nodes.statusWrites.values()]).toEqual([1, 1, 1]);
      expect(r.pools.stats.resyncs).toBe(4);
      expect(r.pools.stats.reconciles).toBeGreaterThanOrEqual(12);

      // A pod on node-0 takes an entry: node-0's status changes (inUse 1, refilled).
      r.pods.add({ namespace: 'default', name: 'web', node: 'node-0' });
      await r.settle();
      expect(r.controller.stats.poolStarts).toBe(1);
      expect(r.nodes.statuses.get('node-0')).toMatchObject({ idle: 4, inUse: 1 });
      const afterClaim = r.nodes.statusWrites.get('node-0')!;
      expect(afterClaim).toBeGreaterThan(1);
      expect(r.nodes.statusWrites.get('node-1')).toBe(1);
      await r.pools.resync();
      await r.settle();
      expect(r.nodes.statusWrites.get('node-0')).toBe(afterClaim);

      // Bounds changed: exactly one more write for that node.
      r.nodes.update({ name: 'node-1', subnet: 'pool-a', minIdle: 4, maxIdle: 8, batchSize: 3 });
      await r.settle();
      expect(r.nodes.statusWrites.get('node-1')).toBe(2);
      expect(r.nodes.statuses.get('node-1')).toMatchObject({ idle: 4, maxIdle: 8 });
      expect(r.nodes.totalStatusWrites).toBe(r.pools.stats.statusWrites);
    } finally {
      await r.close();
      await server.stop();
    }
  });

  it('bad input: a per-node failure with its reason, nothing in NB', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    const r = await poolRig(remote, TOPOLOGY);
    try {
      r.nodes.add({ name: 'ok', subnet: 'tiny', minIdle: 2, maxIdle: 2 });
      await r.start();
      const before = dumpText(await snapshot(remote));
      const tinyUsed = () => r.controller.ipam.subnet('tiny').ranges[0]!.usedCount;
      expect(tinyUsed()).toBe(2);
      const bad: [Parameters<typeof r.nodes.add>[0], PoolFailureReason, RegExp][] = [
        [
          { name: 'order', subnet: 'pool-a', minIdle: 5, maxIdle: 2 },
          'BadBounds',
          /minIdle=5 is above maxIdle 2/,
        ],
        [
          { name: 'negative', subnet: 'pool-a', minIdle: -1, maxIdle: 2 },
          'BadBounds',
          /minIdle=-1 must be an integer >= 0/,
        ],
        [
          { name: 'fraction', subnet: 'pool-a', minIdle: 1.5, maxIdle: 2 },
          'BadBounds',
          /minIdle=1.5/,
        ],
        [
          { name: 'batch0', subnet: 'pool-a', minIdle: 1, maxIdle: 2, batchSize: 0 },
          'BadBounds',
          /batchSize=0 must be an integer >= 1/,
        ],
        [{ name: 'ttl', subnet: 'pool-a', minIdle: 1, idleTtlMs: -5 }, 'BadBounds', /idleTtlMs=-5/],
        [
          { name: 'unknown-subnet', subnet: 'nope', minIdle: 1 },
          'NoSubnet',
          /subnet "nope" is not one of/,
        ],
        [{ name: 'no-subnet', minIdle: 1 }, 'NoSubnet', /no subnet/],
        // 13 assignable addresses in the /28, 2 taken: a batch of 12 cannot be had.
        [
          { name: 'exhausted', subnet: 'tiny', minIdle: 12, maxIdle: 12, batchSize: 12 },
          'SubnetExhausted',
          /no free address left in IPv4 range 10\.42\.0\.0\/28/,
        ],
      ];
      for (const [n] of bad) r.nodes.add(n);
      await r.settle();
      for (const [n, reason, message] of bad) {
        const s = r.pools.status.get(n.name);
        expect(s?.failure?.reason, n.name).toBe(reason);
        expect(s?.failure?.message, n.name).toMatch(message);
        expect(s?.failure?.message, n.name).toContain(
          `node ${n.name}`.replace('node exhausted', 'tiny'),
        );
        expect(s?.idle, n.name).toBe(0);
        expect(r.nodes.statuses.get(n.name)?.failure?.reason, n.name).toBe(reason);
        expect(r.pools.events.some((e) => e.node === n.name && e.reason === reason)).toBe(true);
      }
      // Bad input is not retried; an exhausted subnet is (maxRetries 2).
      expect(r.pools.events.filter((e) => e.node === 'order')).toHaveLength(1);
      expect(r.pools.events.filter((e) => e.node === 'exhausted')).toHaveLength(3);
      // Nothing written, and the failed batch's leases were rolled back.
      expect(dumpText(await snapshot(remote))).toBe(before);
      expect(tinyUsed()).toBe(2);

      // Fixing a node makes it work, and clears its failure.
      r.nodes.update({ name: 'order', subnet: 'pool-a', minIdle: 2, maxIdle: 5 });
      r.nodes.update({
        name: 'exhausted',
        subnet: 'tiny',
        minIdle: 11,
        maxIdle: 11,
        batchSize: 11,
      });
      await r.settle();
      expect(r.pools.status.get('order')).toMatchObject({ idle: 2 });
      expect(r.pools.status.get('order')?.failure).toBeUndefined();
      expect(r.pools.status.get('exhausted')).toMatchObject({ idle: 11 });
      expect(r.pools.status.get('exhausted')?.failure).toBeUndefined();
      expect(tinyUsed()).toBe(13);
      const view = await readPools(remote);
      expect(view.entries.get('order')).toHaveLength(2);
      expect(view.entries.get('exhausted')).toHaveLength(11);
    } finally {
      await r.close();
      await server.stop();
    }
  });

  it("a node's reconcile reads its ports through POOL_INDEXES, not a scan of NB's ports; without the index, a scan gives the same pools", async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    try {
      const results: { scans: number; idle: number[] }[] = [];
      for (const poolIndex of [true, false]) {
        const r = await poolRig(remote, TOPOLOGY, { poolIndex });
        try {
          const nodes = makeNodes(4, (i) => ({
            subnet: subnetOfIndex(i),
            minIdle: 2,
            maxIdle: 4,
            idleTtlMs: 60_000,
          }));
          for (const n of nodes) r.nodes.add(n);
          await r.start();
          // Every read of Logical_Switch_Port's rows from now on (the reconciler's and the DSL's).
          let scans = 0;
          const rows = r.client.rows.bind(r.client);
          r.client.rows = ((table: Parameters<typeof rows>[0]) => {
            if (table === 'Logical_Switch_Port') scans++;
            return rows(table);
          }) as typeof r.client.rows;
          for (const n of nodes) r.nodes.update({ ...n, minIdle: 3, maxIdle: 5 });
          await r.settle();
          results.push({ scans, idle: nodes.map((n) => r.pools.status.get(n.name)?.idle ?? -1) });
        } finally {
          await r.close();
        }
      }
      // The first rig refilled every node to 3 without reading the table; the
      // second (same NB, no index) scanned it and found the same pools.
      expect(results[0]).toEqual({ scans: 0, idle: [3, 3, 3, 3] });
      expect(results[1]!.scans).toBeGreaterThanOrEqual(4);
      expect(results[1]!.idle).toEqual([3, 3, 3, 3]);
    } finally {
      await server.stop();
    }
  });
});

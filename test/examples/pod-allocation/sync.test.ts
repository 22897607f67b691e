/**
 * Sources say when they have listed everything, and garbage collection
 * waits for it, against the real ovsdb-server and the in-memory server: a
 * controller restarted on a pod source and a node source that list slowly
 * (in pieces, as an informer's initial list arrives) deletes no pod, moves
 * no pod to another address and collects no pool, though it reconciles the
 * pods that arrive meanwhile; pods and nodes that are really gone are
 * collected once the sources are synced.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  type ClusterTopology,
  type Pod,
  ProgrammaticPodSource,
  podKey,
} from '../../../examples/pod-allocation/controller/index.js';
import { ProgrammaticNodeSource } from '../../../examples/pod-allocation/pools/index.js';
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';
import { NB_SCHEMA } from './helpers.js';
import { expectDistinctAddresses, makeNodes, poolRig, readPools } from './pools-rig.js';

const TOPOLOGY: ClusterTopology = {
  router: 'lr-sync',
  subnets: [{ name: 'sync-a', cidr: '10.60.0.0/24' }],
};

const NODES = makeNodes(4, () => ({ subnet: 'sync-a', minIdle: 2, maxIdle: 4 }));

/** 40 pods over the 4 nodes; every other one asks for any address (served from a pool). */
const PODS: Pod[] = Array.from({ length: 40 }, (_, i) => ({
  namespace: `ns${i % 3}`,
  name: `pod-${i}`,
  node: `node-${i % 4}`,
  annotations: i % 2 === 0 ? {} : { 'ovn.kubernetes.io/logical_switch': 'sync-a' },
}));

describe.each(SERVER_KINDS)('sources that list slowly, against %s', (kind) => {
  it('a restart on sources that list in pieces deletes no pod, moves no address and collects no pool', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    try {
      // The first run: every pod and every pool in NB.
      const first = await poolRig(remote, TOPOLOGY, { nodes: new ProgrammaticNodeSource(NODES) });
      try {
        await first.start();
        for (const p of PODS) first.pods.add(p);
        await first.settle();
        expect(first.controller.stats.poolStarts).toBeGreaterThan(0);
      } finally {
        await first.close();
      }
      const before = await readPools(remote);
      expect(before.pods.size).toBe(40);
      expect([...before.entries.values()].flat()).toHaveLength(8);

      // The restart: both sources start empty and unsynced, and list in pieces.
      const pods = new ProgrammaticPodSource([], { synced: false });
      const nodes = new ProgrammaticNodeSource([], { synced: false });
      const second = await poolRig(remote, TOPOLOGY, { pods, nodes });
      const deleted: string[] = [];
      second.client.on('Logical_Switch_Port', 'delete', (row) => {
        deleted.push(row.name);
      });
      try {
        const started = (async () => {
          await second.controller.start();
          await second.pools.start();
        })();
        let startedYet = false;
        void started.then(() => {
          startedYet = true;
        });
        for (let piece = 0; piece < 4; piece++) {
          for (const p of PODS.slice(piece * 10, piece * 10 + 10)) pods.add(p);
          nodes.add(NODES[piece]!);
          await sleep(50);
          await second.controller.idle();
        }
        // Reconciled as they came, but not started: GC waits for the sources.
        const startedBeforeSync = startedYet;
        expect(second.controller.stats.reconciled).toBeGreaterThanOrEqual(40);
        pods.markSynced();
        nodes.markSynced();
        await started;
        await second.settle();

        const after = await readPools(remote);
        const changed = (what: (v: NonNullable<ReturnType<typeof after.pods.get>>) => string) =>
          PODS.map(podKey).filter((k) => {
            const now = after.pods.get(k);
            return now === undefined || what(now) !== what(before.pods.get(k)!);
          });
        expect({
          deleted,
          podsDeleted: second.controller.stats.deleted,
          poolEntriesCollected: second.pools.stats.collected,
          newPort: changed((v) => v.uuid),
          newIp: changed((v) => v.ips.join(',')),
          newMac: changed((v) => v.mac),
        }).toEqual({
          deleted: [],
          podsDeleted: 0,
          poolEntriesCollected: 0,
          newPort: [],
          newIp: [],
          newMac: [],
        });
        const entries = (v: typeof before) =>
          [...v.entries.values()]
            .flat()
            .map((e) => e.uuid)
            .sort();
        expect(entries(after)).toEqual(entries(before));
        expectDistinctAddresses(after);
        expect(startedBeforeSync).toBe(false);

        // Gone for real, once synced: a pod and a node are collected.
        pods.delete(PODS[0]!);
        nodes.delete('node-3');
        await second.settle();
        await second.controller.gc();
        await second.pools.resync();
        await second.settle();
        const last = await readPools(remote);
        expect(last.pods.has(podKey(PODS[0]!))).toBe(false);
        expect(last.entries.has('node-3')).toBe(false);
        expect(last.pods.size).toBe(39);
      } finally {
        await second.close();
      }
    } finally {
      await server.stop();
    }
  });
});

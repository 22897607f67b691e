/**
 * The pod controller under load and across a restart, against the real
 * ovsdb-server and the in-memory server: 500 pods with concurrency 16 get
 * unique IPs and MACs and none is lost; a controller stopped mid-run and
 * replaced by a new one on the same NB never hands an IP out twice, and its
 * GC removes the ports of pods deleted while no controller ran.
 */

import { describe, expect, it } from 'vitest';
import {
  type ClusterTopology,
  type Pod,
  ProgrammaticPodSource,
  podKey,
} from '../../../examples/pod-allocation/controller/index.js';
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';
import { expectNbMatches, NB_SCHEMA, rig, snapshot, until } from './helpers.js';

const TOPOLOGY: ClusterTopology = {
  router: 'lr-scale',
  subnets: [
    { name: 'v4', cidr: '10.30.0.0/22' },
    { name: 'dual', cidr: '10.31.0.0/22,fd00:31::/64' },
  ],
};

const pod = (i: number): Pod => ({
  namespace: `ns${i % 7}`,
  name: `p-${i}`,
  node: `node${i % 5}`,
  annotations: i % 2 === 0 ? { 'ovn.kubernetes.io/logical_switch': 'dual' } : {},
});

describe.each(SERVER_KINDS)('pod controller at scale against %s', (kind) => {
  it('500 pods with concurrency 16: unique IPs and MACs, none lost', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const r = await rig(server.unixRemote, TOPOLOGY, { concurrency: 16 });
    try {
      await r.controller.start();
      const pods = Array.from({ length: 500 }, (_, i) => pod(i));
      for (const p of pods) r.source.add(p);
      await r.controller.idle();
      const s = await snapshot(server.unixRemote);
      expect(s.ports.size).toBe(500);
      expectNbMatches(s, pods, r.controller, 'lr-scale');
      expect(r.controller.stats.reconciled).toBe(500);
    } finally {
      await r.close();
      await server.stop();
    }
  });

  it('restart: no IP handed out twice; GC removes ports of pods deleted while down', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const source = new ProgrammaticPodSource();
    const first = await rig(server.unixRemote, TOPOLOGY, { concurrency: 8 }, source);
    let second: Awaited<ReturnType<typeof rig>> | undefined;
    try {
      await first.controller.start();
      for (let i = 0; i < 300; i++) source.add(pod(i));
      await until(() => first.controller.stats.reconciled >= 100);
      await first.close(); // mid-run: the rest of the queue is dropped
      const done = [...first.controller.status.values()]
        .filter((s) => s.state === 'ready')
        .map((s) => s.key);
      expect(done.length).toBeGreaterThanOrEqual(100);
      expect(done.length).toBeLessThan(300);
      const before = await snapshot(server.unixRemote);
      expect(before.ports.size).toBe(done.length);

      // While no controller runs: 30 created pods are deleted, 20 new ones come.
      const gone = done.slice(0, 30);
      for (const key of gone) source.delete(key);
      for (let i = 300; i < 320; i++) source.add(pod(i));

      second = await rig(server.unixRemote, TOPOLOGY, { concurrency: 8 }, source);
      await second.controller.start();
      await second.controller.idle();
      const live = (await source.list()) as Pod[];
      expect(live).toHaveLength(290);
      const after = await snapshot(server.unixRemote);
      expectNbMatches(after, live, second.controller, 'lr-scale');
      for (const key of gone) expect(second.controller.status.get(key)?.state, key).toBe('deleted');
      // Pods reconciled by the first controller kept their addresses.
      for (const key of done.filter((k) => !gone.includes(k))) {
        expect(second.controller.status.get(key)?.annotations, key).toEqual(
          first.controller.status.get(key)?.annotations,
        );
      }
      expect(second.controller.stats.gcQueued).toBe(30);
      expect(second.controller.ipam.owned().sort()).toEqual(live.map(podKey).sort());
    } finally {
      await second?.close();
      await server.stop();
    }
  });
});

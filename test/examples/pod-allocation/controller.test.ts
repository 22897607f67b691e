/**
 * The pod controller end to end, against the real ovsdb-server and the
 * in-memory server: 200 pods across two subnets (one dual-stack) with static
 * IPs, pools, EIPs, SNAT and north gateways; annotation updates; half
 * deleted; NB (read with a separate client) then holds exactly what the pod
 * list calls for. And bad input: each bad pod gets its own failure and NB
 * does not change.
 */

import { describe, expect, it } from 'vitest';
import {
  type ClusterTopology,
  type LogRecord,
  ANNOTATIONS as N,
  type Pod,
  podKey,
} from '../../../examples/pod-allocation/controller/index.js';
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';
import { dumpText, expectNbMatches, NB_SCHEMA, rig, snapshot } from './helpers.js';

const TOPOLOGY: ClusterTopology = {
  router: 'lr-e2e',
  subnets: [
    { name: 'sub-a', cidr: '10.20.0.0/16', excludeIps: ['10.20.0.2..10.20.0.20'] },
    { name: 'sub-b', cidr: '10.21.0.0/22,fd00:21::/64' },
  ],
};

function makePod(i: number, round = 0): Pod {
  const annotations: Record<string, string> = {};
  const dual = i % 3 === 0;
  if (dual) annotations[N.logicalSwitch] = 'sub-b';
  switch (i % 10) {
    case 1:
      if (round === 0) annotations[N.eip] = `172.16.${i >> 8}.${i & 255}`;
      break;
    case 2:
      annotations[N.snat] = '172.16.100.1';
      break;
    case 3:
      annotations[N.northGateway] = round === 0 ? '192.168.0.254' : '192.168.0.253';
      break;
    case 4:
      if (!dual) annotations[N.ipAddress] = `10.20.${5 + round}.${i}`;
      break;
    case 5:
      if (round > 0) annotations[N.snat] = '172.16.100.2';
      annotations[N.vips] = dual ? `10.21.3.${i}` : `10.20.9.${i}`;
      break;
    case 6:
      if (!dual) annotations[N.ipPool] = `10.20.7.${i},10.20.7.${i + 1}`;
      break;
  }
  return {
    namespace: `ns${i % 5}`,
    name: `pod-${i}`,
    node: round === 0 ? `node${i % 4}` : `node${(i + 1) % 4}`,
    annotations,
  };
}

describe.each(SERVER_KINDS)('pod controller against %s', (kind) => {
  it('200 pods, updates, half deleted: NB holds exactly what the pods call for', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    const r = await rig(remote, TOPOLOGY, { concurrency: 8 });
    try {
      await r.controller.start();
      let pods = Array.from({ length: 200 }, (_, i) => makePod(i));
      for (const p of pods) r.source.add(p);
      await r.controller.idle();
      expectNbMatches(await snapshot(remote), pods, r.controller, 'lr-e2e');
      expect(r.controller.events).toEqual([]);

      // Update the first 100: another node, EIPs dropped, other north gateways,
      // moved static IPs, SNAT added.
      pods = pods.map((p, i) => (i < 100 ? makePod(i, 1) : p));
      for (const p of pods.slice(0, 100)) r.source.update(p);
      await r.controller.idle();
      const s1 = await snapshot(remote);
      expectNbMatches(s1, pods, r.controller, 'lr-e2e');
      expect(r.controller.status.get('ns4/pod-4')?.annotations?.[N.ipAddress]).toBe('10.20.6.4');
      // The static IP given up is free again (released after the commit).
      expect(r.controller.ipam.holderOf('sub-a', '10.20.5.4')).toBeUndefined();

      // Delete every even pod.
      for (const p of pods.filter((_, i) => i % 2 === 0)) r.source.delete(p);
      pods = pods.filter((_, i) => i % 2 === 1);
      await r.controller.idle();
      expectNbMatches(await snapshot(remote), pods, r.controller, 'lr-e2e');
      expect(r.controller.ipam.owned().sort()).toEqual(pods.map(podKey).sort());
      expect(r.controller.events).toEqual([]);

      // A GC pass with nothing to collect changes nothing.
      expect(await r.controller.gc()).toBe(0);
    } finally {
      await r.close();
      await server.stop();
    }
  });

  it('bad input: a per-pod failure and no NB change for that pod', async () => {
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const remote = server.unixRemote;
    const logs: LogRecord[] = [];
    const r = await rig(remote, TOPOLOGY, {
      maxRetries: 1,
      concurrency: 4,
      log: (l) => logs.push(l),
    });
    try {
      await r.controller.start();
      const good: Pod[] = [
        {
          namespace: 'ok',
          name: 'static',
          node: 'n1',
          annotations: { [N.ipAddress]: '10.20.1.1' },
        },
        { namespace: 'ok', name: 'pooled', node: 'n1', annotations: { [N.ipPool]: '10.20.2.1' } },
        { namespace: 'ok', name: 'public', node: 'n1', annotations: { [N.eip]: '172.16.9.9' } },
      ];
      for (const p of good) r.source.add(p);
      await r.controller.idle();
      const before = dumpText(await snapshot(remote));
      const bad: [Pod, string][] = [
        [
          {
            namespace: 'bad',
            name: 'malformed',
            node: 'n1',
            annotations: { [N.ipAddress]: '10.20.1.300' },
          },
          'BadAnnotation',
        ],
        [
          {
            namespace: 'bad',
            name: 'outside',
            node: 'n1',
            annotations: { [N.ipAddress]: '10.99.0.5' },
          },
          'OutsideCidr',
        ],
        [
          {
            namespace: 'bad',
            name: 'excluded',
            node: 'n1',
            annotations: { [N.ipAddress]: '10.20.0.7' },
          },
          'ExcludedIp',
        ],
        [
          {
            namespace: 'bad',
            name: 'exhausted',
            node: 'n1',
            annotations: { [N.ipPool]: '10.20.2.1' },
          },
          'PoolExhausted',
        ],
        [
          {
            namespace: 'bad',
            name: 'duplicate',
            node: 'n1',
            annotations: { [N.ipAddress]: '10.20.1.1' },
          },
          'IpConflict',
        ],
        [
          {
            namespace: 'bad',
            name: 'eip-taken',
            node: 'n2',
            annotations: { [N.eip]: '172.16.9.9' },
          },
          'EipConflict',
        ],
        [
          { namespace: 'bad', name: 'v6-eip', node: 'n1', annotations: { [N.eip]: 'fd00::9' } },
          'BadAnnotation',
        ],
        [
          {
            namespace: 'bad',
            name: 'no-subnet',
            node: 'n1',
            annotations: { [N.logicalSwitch]: 'nope' },
          },
          'BadAnnotation',
        ],
      ];
      for (const [p] of bad) r.source.add(p);
      await r.controller.idle();
      for (const [p, reason] of bad) {
        const s = r.controller.status.get(podKey(p));
        expect(s?.state, podKey(p)).toBe('failed');
        expect(s?.failure?.reason, podKey(p)).toBe(reason);
        expect(s?.failure?.message, podKey(p)).toMatch(/\S/);
        expect(r.controller.events.some((e) => e.pod === podKey(p) && e.reason === reason)).toBe(
          true,
        );
        // The failed attempt's lease was rolled back.
        expect(r.controller.ipam.allocationOf(podKey(p)), podKey(p)).toBeUndefined();
      }
      expect(dumpText(await snapshot(remote))).toBe(before);
      // Structured logs: one per reconcile (with timings) and per failure (with the reason).
      const reconciled = logs.find((l) => l.msg === 'reconciled' && l.pod === 'ok/static');
      expect(reconciled).toMatchObject({ level: 'info', subnet: 'sub-a', ips: ['10.20.1.1'] });
      expect(typeof reconciled?.['nbMs']).toBe('number');
      expect(logs.find((l) => l.msg === 'failed' && l.pod === 'bad/outside')).toMatchObject({
        level: 'error',
        reason: 'OutsideCidr',
        retrying: false,
      });
      // Retryable failures were retried (maxRetries 1), bad input was not.
      const attempts = (name: string) =>
        r.controller.events.filter((e) => e.pod === `bad/${name}`).length;
      expect(attempts('duplicate')).toBe(2);
      expect(attempts('malformed')).toBe(1);

      // Fixing a pod's annotation makes it work; the addresses the EIP-conflict
      // attempt had reserved were freed, so the next pod gets the next one.
      const fixed: Pod = {
        namespace: 'bad',
        name: 'eip-taken',
        node: 'n2',
        annotations: { [N.eip]: '172.16.9.10' },
      };
      r.source.update(fixed);
      await r.controller.idle();
      expect(r.controller.status.get('bad/eip-taken')?.state).toBe('ready');
      expectNbMatches(await snapshot(remote), [...good, fixed], r.controller, 'lr-e2e');
    } finally {
      await r.close();
      await server.stop();
    }
  });
});

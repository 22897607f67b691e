/**
 * The pod controller with a real ovn-northd (OVN 23.03) on an NB of schema
 * 7.0.0 (older than the 7.18.0 model the controller is built on), on real
 * ovsdb-servers and on the in-memory server (the test kit's OVN fixture):
 * every pod port gets an SB Port_Binding with its addresses, the reroute
 * policy becomes a logical flow, and northd answers ARP for the EIP.
 */

import { afterEach, describe, expect, it } from 'vitest';
import {
  ANNOTATIONS as N,
  podKey,
  portName,
} from '../../../examples/pod-allocation/controller/index.js';
import { connect } from '../../../src/ovsdb/connection/connect.js';
import { type OvnFixture, startOvnOrSkip } from '../../../src/testing/index.js';
import { type Rig, rig } from './helpers.js';

describe.each(['ovsdb-server', 'memory'] as const)(
  'pod controller with ovn-northd and NB schema 7.0.0 on %s',
  (server) => {
    let ovn: OvnFixture | undefined;
    let r: Rig | undefined;

    afterEach(async () => {
      await r?.close();
      await ovn?.stop();
    });

    it('every pod port gets a Port_Binding; the policy becomes a flow; ARP for the EIP', async (ctx) => {
      ovn = await startOvnOrSkip(ctx, { server });
      r = await rig(ovn.nb.remote, {
        router: 'lr-northd',
        subnets: [
          { name: 'pods', cidr: '10.40.0.0/24' },
          { name: 'pods-dual', cidr: '10.41.0.0/24,fd00:41::/64' },
        ],
      });
      await r.controller.start();
      const pods = Array.from({ length: 30 }, (_, i) => ({
        namespace: `ns${i % 3}`,
        name: `p${i}`,
        node: `node${i % 2}`,
        annotations: {
          ...(i % 2 === 1 ? { [N.logicalSwitch]: 'pods-dual' } : {}),
          ...(i === 4 ? { [N.eip]: '172.16.40.4' } : {}),
          ...(i === 6 ? { [N.snat]: '172.16.40.100' } : {}),
          ...(i === 8 ? { [N.northGateway]: '10.40.0.254' } : {}),
        },
      }));
      for (const p of pods) r.source.add(p);
      await r.controller.idle();
      for (const p of pods)
        expect(r.controller.status.get(podKey(p))?.state, podKey(p)).toBe('ready');
      await ovn.waitForSb();

      const sb = await connect(ovn.sb.remote);
      const [bindings, flows] = (await sb.transact('OVN_Southbound', [
        { op: 'select', table: 'Port_Binding', where: [], columns: ['logical_port', 'mac'] },
        { op: 'select', table: 'Logical_Flow', where: [], columns: ['match', 'actions'] },
      ])) as [
        { rows: { logical_port: string; mac: unknown }[] },
        { rows: { match: string; actions: string }[] },
      ];
      sb.close();
      const bound = new Map(bindings.rows.map((b) => [b.logical_port, JSON.stringify(b.mac)]));
      for (const p of pods) {
        const key = podKey(p);
        const port = portName(key);
        expect(bound.has(port), port).toBe(true);
        const a = r.controller.status.get(key)!.annotations!;
        expect(bound.get(port)).toContain(a[N.ipAddress]!.split(',')[0]);
      }
      const ip8 = r.controller.status.get('ns2/p8')!.annotations![N.ipAddress];
      expect(
        flows.rows.some(
          (f) => f.match.includes(`ip4.src == ${ip8}`) && f.actions.includes('10.40.0.254'),
        ),
      ).toBe(true);
      // The router has no gateway port, so northd answers ARP for the EIP (no DNAT flows).
      expect(
        flows.rows.some(
          (f) => f.match.includes('arp.tpa == 172.16.40.4') && f.actions.includes('arp.op = 2'),
        ),
      ).toBe(true);
    });
  },
);

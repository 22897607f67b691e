/**
 * CoPP through ovn-northd (OVN 23.03): NB (schema 7.0.0) and SB
 * ovsdb-servers, ovn-northd between them. A policy made with `coppAdd`
 * and applied with `lsCoppAdd` / `lrCoppAdd` puts its meters on the
 * logical flows that send the protocol's packets to ovn-controller
 * (`Logical_Flow.controller_meter`), and only once it is applied.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coppAdd, coppDel, lrCoppAdd, lsCoppAdd } from '../../src/nb/copp.js';
import { aclAdd, lrAdd, lrpAdd, lsAdd, lspAdd, match, type Nb } from '../../src/nb/index.js';
import { meterAdd } from '../../src/nb/meter.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { type NorthdRig, startNorthdRig } from './helpers/northd.js';

interface Flow {
  readonly match: string;
  readonly actions: string;
  readonly controller_meter: string | unknown[];
  readonly external_ids: unknown;
}

describe('CoPP with ovn-northd', () => {
  let rig: NorthdRig | undefined;
  let nb: Nb;
  let sb: OvsdbConnection;

  /** The SB logical flows metered by `meter`. */
  const meteredBy = async (meter: string): Promise<Flow[]> => {
    const [res] = await sb.transact('OVN_Southbound', [
      {
        op: 'select',
        table: 'Logical_Flow',
        where: [['controller_meter', '==', meter]],
        columns: ['match', 'actions', 'controller_meter', 'external_ids'],
      },
    ]);
    return (res as unknown as { rows: Flow[] }).rows;
  };

  beforeAll(async () => {
    rig = await startNorthdRig('northd-copp');
    nb = rig.nb;
    sb = rig.sb;
  });

  afterAll(async () => {
    await rig?.stop();
  });

  it('a switch: the reject meter reaches the flows of a reject ACL once the policy is applied, and leaves with it', async () => {
    await nb.transact(
      (t) => {
        lsAdd(t, 'sw0');
        lspAdd(t, 'sw0', 'vm1', { addresses: ['00:00:00:00:00:01 10.0.0.11'] });
        lspAdd(t, 'sw0', 'vm2', { addresses: ['00:00:00:00:00:02 10.0.0.12'] });
        meterAdd(t, 'm-reject', { unit: 'pktps', rate: 10 });
        aclAdd(
          t,
          { switch: 'sw0' },
          { direction: 'to-lport', priority: 1000, action: 'reject', match: match.outport('vm2') },
        );
        coppAdd(t, 'copp0', 'reject', 'm-reject');
      },
      { wait: 'sb', waitTimeoutMs: 20_000 },
    );
    // Not applied yet: no flow is metered.
    expect(await meteredBy('m-reject')).toEqual([]);

    await nb.transact((t) => lsCoppAdd(t, 'copp0', 'sw0'), { wait: 'sb', waitTimeoutMs: 20_000 });
    const flows = await meteredBy('m-reject');
    expect(flows.length).toBeGreaterThan(0);
    for (const f of flows) {
      expect(f.actions).toMatch(/reject|tcp_reset|icmp/);
      expect(f.match).toContain('outport == "vm2"');
    }

    // The protocol's meter removed: the flows lose it.
    await nb.transact((t) => coppAdd(t, 'copp0', 'arp', 'm-none'), { wait: 'sb' });
    await nb.transact((t) => coppDel(t, 'copp0', 'reject'), { wait: 'sb', waitTimeoutMs: 20_000 });
    expect(await meteredBy('m-reject')).toEqual([]);
  });

  it('a router: the arp-resolve meter reaches its ARP request flows', async () => {
    await nb.transact(
      (t) => {
        lrAdd(t, 'lr0');
        lrpAdd(t, 'lr0', 'lr0-sw1', '00:00:00:00:ff:01', ['10.1.0.1/24']);
        meterAdd(t, 'm-arp-resolve', { unit: 'pktps', rate: 100 });
        coppAdd(t, 'copp-lr', 'arp-resolve', 'm-arp-resolve');
      },
      { wait: 'sb', waitTimeoutMs: 20_000 },
    );
    expect(await meteredBy('m-arp-resolve')).toEqual([]);
    await nb.transact((t) => lrCoppAdd(t, 'copp-lr', 'lr0'), {
      wait: 'sb',
      waitTimeoutMs: 20_000,
    });
    const flows = await meteredBy('m-arp-resolve');
    expect(flows.length).toBeGreaterThan(0);
    expect(flows.some((f) => /\barp\s*\{/.test(f.actions))).toBe(true);
    expect(flows.every((f) => JSON.stringify(f.external_ids).includes('lr_in_arp_request'))).toBe(
      true,
    );
  });
});

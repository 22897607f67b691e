/**
 * QoS rules, meters, forwarding groups and static MAC bindings through a
 * real ovn-northd (OVN 23.03): NB (schema 7.0.0) and SB ovsdb-servers,
 * ovn-northd between them. The rows the DSL writes are turned into SB
 * logical flows (DSCP marking and metering for the QoS rule, an ACL log
 * action limited by the meter, the ARP responder and `fwd_group` action of
 * the forwarding group, the VIP of a load balancer attached to the switch
 * through a load balancer group) and SB rows (the meter, the static MAC
 * binding).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import { fwdGroupAdd } from '../../src/nb/fwd-group.js';
import {
  aclAdd,
  lbAdd,
  lrAdd,
  lrpAdd,
  lsAdd,
  lspAdd,
  lspAttachMirror,
  match,
  mirrorAdd,
  type NBTables,
  type Nb,
} from '../../src/nb/index.js';
import { lbGroupAdd, lsLbGroupAdd } from '../../src/nb/lb-group.js';
import { meterAdd } from '../../src/nb/meter.js';
import { qosAdd } from '../../src/nb/qos.js';
import { staticMacBindingAdd } from '../../src/nb/static-mac-binding.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { type NorthdRig, startNorthdRig } from './helpers/northd.js';

interface Flow {
  match: string;
  priority: number;
  actions: string;
  external_ids: unknown;
}

describe('QoS, meters, forwarding groups and static MAC bindings with ovn-northd', () => {
  let rig: NorthdRig | undefined;
  let client: DatabaseClient<NBTables>;
  let nb: Nb;
  let sb: OvsdbConnection;

  beforeAll(async () => {
    rig = await startNorthdRig('northd-breadth');
    client = rig.client;
    nb = rig.nb;
    sb = rig.sb;
  });

  afterAll(async () => {
    await rig?.stop();
  });

  it('turns them into SB logical flows, meters and static MAC bindings', async () => {
    const qosMatch = match.and(match.inport('sw0-vm1'), match.eq('ip4.dst', '10.0.0.0/24'));
    const result = await nb.transact(
      (t) => {
        lsAdd(t, 'sw0');
        for (const n of [1, 2, 3]) {
          lspAdd(t, 'sw0', `sw0-vm${n}`, { addresses: [`00:00:00:00:00:0${n} 10.0.0.1${n}`] });
        }
        qosAdd(t, 'sw0', {
          direction: 'from-lport',
          priority: 1234,
          match: qosMatch,
          dscp: 46,
          rate: 10000,
          burst: 1000,
        });
        qosAdd(t, 'sw0', { direction: 'to-lport', priority: 321, match: 'ip6', rate: 500 });
        meterAdd(t, 'acl-log-meter', { action: 'drop', rate: 10, unit: 'pktps', burst: 5 });
        aclAdd(
          t,
          { switch: 'sw0' },
          {
            direction: 'to-lport',
            priority: 1001,
            match: match.outport('sw0-vm3'),
            action: 'drop',
            name: 'drop-vm3',
            meter: 'acl-log-meter',
          },
        );
        fwdGroupAdd(t, 'sw0', 'fg0', {
          vip: '10.0.0.100',
          vmac: '00:00:00:00:01:00',
          ports: ['sw0-vm1', 'sw0-vm2'],
          liveness: true,
        });
        lrAdd(t, 'lr0');
        lrpAdd(t, 'lr0', 'lr0-public', '00:00:00:00:ff:01', ['172.16.0.1/24']);
        staticMacBindingAdd(t, 'lr0-public', '172.16.0.50', '00:00:00:00:50:01');
        lbAdd(t, 'lb-web', { vips: { '10.0.0.10:80': ['10.0.0.11:8080', '10.0.0.12:8080'] } });
        lbGroupAdd(t, 'lbg0', { loadBalancers: ['lb-web'] });
        lsLbGroupAdd(t, 'sw0', 'lbg0');
      },
      { wait: 'sb', waitTimeoutMs: 20_000 },
    );
    expect(result.nbCfg).toBeGreaterThan(0);

    const [flowsReply, metersReply, bindingsReply] = await sb.transact('OVN_Southbound', [
      {
        op: 'select',
        table: 'Logical_Flow',
        where: [],
        columns: ['match', 'priority', 'actions', 'external_ids'],
      },
      { op: 'select', table: 'Meter', where: [], columns: ['name', 'unit'] },
      {
        op: 'select',
        table: 'Static_MAC_Binding',
        where: [],
        columns: ['logical_port', 'ip', 'mac'],
      },
    ]);
    const flows = (flowsReply as unknown as { rows: Flow[] }).rows;
    const stage = (f: Flow) => JSON.stringify(f.external_ids);
    const find = (pred: (f: Flow) => boolean) => flows.filter(pred);

    // QoS: DSCP marking and metering at the rule's priority, on its match.
    const text = 'inport == "sw0-vm1" && ip4.dst == 10.0.0.0/24';
    expect(
      find((f) => f.match === text && f.priority === 1234 && f.actions === 'ip.dscp = 46; next;'),
      'QoS mark flow',
    ).toHaveLength(1);
    expect(
      find(
        (f) =>
          f.match === text &&
          f.priority === 1234 &&
          f.actions === 'set_meter(10000, 1000); next;' &&
          stage(f).includes('ls_in_qos_meter'),
      ),
      'QoS meter flow',
    ).toHaveLength(1);
    expect(
      find(
        (f) =>
          f.match === 'ip6' &&
          f.priority === 321 &&
          f.actions === 'set_meter(500); next;' &&
          stage(f).includes('ls_out_qos_meter'),
      ),
      'egress QoS meter flow',
    ).toHaveLength(1);

    // The ACL logs through the meter.
    const aclFlows = find(
      (f) => f.actions.includes('meter="acl-log-meter"') && f.actions.includes('name="drop-vm3"'),
    );
    expect(aclFlows.length, 'ACL log flow with the meter').toBeGreaterThan(0);

    // The forwarding group: an ARP responder for the VIP, and fwd_group() on the VMAC.
    expect(
      find(
        (f) =>
          f.match === 'arp.tpa == 10.0.0.100 && arp.op == 1' &&
          f.actions.includes('eth.src = 00:00:00:00:01:00;'),
      ),
      'forwarding group ARP responder',
    ).toHaveLength(1);
    expect(
      find(
        (f) =>
          f.match === 'eth.dst == 00:00:00:00:01:00' &&
          f.actions === 'fwd_group(liveness="true",childports="sw0-vm1","sw0-vm2");',
      ),
      'forwarding group flow',
    ).toHaveLength(1);

    // The load balancer of the group attached to the switch.
    const lbFlows = find(
      (f) =>
        f.match.includes('ip4.dst == 10.0.0.10') &&
        f.match.includes('tcp.dst == 80') &&
        f.actions.includes('backends=10.0.0.11:8080,10.0.0.12:8080'),
    );
    expect(lbFlows.length, 'load balancer flow through the group').toBeGreaterThan(0);

    // The meter and the static MAC binding reach the SB.
    const meters = (metersReply as { rows: { name: string; unit: string }[] }).rows;
    expect(meters).toContainEqual({ name: 'acl-log-meter', unit: 'pktps' });
    const bindings = (
      bindingsReply as { rows: { logical_port: string; ip: string; mac: string }[] }
    ).rows;
    expect(bindings).toEqual([
      { logical_port: 'lr0-public', ip: '172.16.0.50', mac: '00:00:00:00:50:01' },
    ]);
  });

  it('copies a mirror attached to a port into the SB Mirror table and the port binding', async () => {
    await nb.transact(
      (t) => {
        lsAdd(t, 'sw-mirror');
        lspAdd(t, 'sw-mirror', 'sw-mirror-vm1', { addresses: ['00:00:00:00:0a:01 10.1.0.11'] });
        mirrorAdd(t, 'mirror-gre', {
          type: 'gre',
          index: 42,
          filter: 'from-lport',
          sink: '192.0.2.7',
        });
        lspAttachMirror(t, 'sw-mirror-vm1', 'mirror-gre');
      },
      { wait: 'sb', waitTimeoutMs: 20_000 },
    );
    const [mirrorsReply, bindingsReply] = await sb.transact('OVN_Southbound', [
      {
        op: 'select',
        table: 'Mirror',
        where: [['name', '==', 'mirror-gre']],
        columns: ['_uuid', 'name', 'type', 'index', 'filter', 'sink'],
      },
      {
        op: 'select',
        table: 'Port_Binding',
        where: [['logical_port', '==', 'sw-mirror-vm1']],
        columns: ['mirror_rules'],
      },
    ]);
    const mirrors = (
      mirrorsReply as {
        rows: {
          _uuid: [string, string];
          name: string;
          type: string;
          index: number;
          filter: string;
          sink: string;
        }[];
      }
    ).rows;
    expect(mirrors).toHaveLength(1);
    const { _uuid, ...fields } = mirrors[0]!;
    expect(fields).toEqual({
      name: 'mirror-gre',
      type: 'gre',
      index: 42,
      filter: 'from-lport',
      sink: '192.0.2.7',
    });
    const bindings = (bindingsReply as { rows: { mirror_rules: unknown }[] }).rows;
    expect(bindings).toHaveLength(1);
    // Here (no ovn-controller, the port bound to no chassis) ovn-northd 23.03 leaves
    // Port_Binding.mirror_rules empty: what it writes for the mirror is the SB Mirror row.
    // The NB side holds the attachment the DSL wrote.
    const lsp = client.find('Logical_Switch_Port', (r) => r.name === 'sw-mirror-vm1');
    const nbMirror = client.find('Mirror', (r) => r.name === 'mirror-gre');
    expect(nbMirror).toBeDefined();
    expect([...(lsp?.mirror_rules ?? [])]).toEqual([nbMirror!._uuid]);
    expect(_uuid[0]).toBe('uuid');
  });
});

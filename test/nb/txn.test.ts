/**
 * The transaction view of the DSL (no server): the operations each DSL call
 * adds, refs usable by later calls of the same transaction, and reads that
 * see earlier writes, the server's garbage collection and weak references.
 */

import { describe, expect, it } from 'vitest';
import {
  aclAdd,
  connectSwitchToRouter,
  lrAdd,
  lrNatAdd,
  lrpAdd,
  lsAdd,
  lsDel,
  lspAdd,
  lspDel,
  lspGet,
  lspMove,
  lsSetOtherConfig,
  match,
  type NbReader,
  pgAdd,
  pgSetPorts,
  reconcilePortDhcpOptions,
} from '../../src/nb/index.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { dryOps, dryTxn } from './helpers/dry.js';

type Op = Operation & Record<string, unknown>;

function opsOf(ops: readonly Operation[]): Op[] {
  return ops as Op[];
}

describe('operations produced', () => {
  it('lsAdd: a server-side name check, then the insert', () => {
    const ops = opsOf(
      dryOps((t) => lsAdd(t, 'sw0', { otherConfig: { subnet: '10.0.0.0/24', mcast_snoop: true } })),
    );
    expect(ops).toEqual([
      {
        op: 'wait',
        table: 'Logical_Switch',
        where: [['name', '==', 'sw0']],
        columns: ['name'],
        until: '==',
        rows: [],
        timeout: 0,
      },
      {
        op: 'insert',
        table: 'Logical_Switch',
        row: {
          name: 'sw0',
          other_config: [
            'map',
            [
              ['subnet', '10.0.0.0/24'],
              ['mcast_snoop', 'true'],
            ],
          ],
        },
        uuid: expect.any(String),
        'uuid-name': 'row0',
      },
    ]);
  });

  it('lspAdd: one insert and one mutate of the switch, referring to the new row by name', () => {
    const ops = opsOf(
      dryOps((t) => {
        const sw = lsAdd(t, 'sw0');
        lspAdd(t, sw, 'web-1', { addresses: ['00:00:00:00:00:05 10.0.0.5'], enabled: false });
      }),
    );
    expect(ops.slice(2)).toEqual([
      {
        op: 'insert',
        table: 'Logical_Switch_Port',
        row: { name: 'web-1', addresses: ['set', ['00:00:00:00:00:05 10.0.0.5']], enabled: false },
        uuid: expect.any(String),
        'uuid-name': 'row1',
      },
      {
        op: 'mutate',
        table: 'Logical_Switch',
        where: [['_uuid', '==', ['named-uuid', 'row0']]],
        mutations: [['ports', 'insert', ['set', [['named-uuid', 'row1']]]]],
      },
    ]);
  });

  it('lsSetOtherConfig: a mutate that deletes the keys and inserts the new pairs', () => {
    const t = dryTxn();
    lsAdd(t, 'sw0');
    const before = t.tx.size;
    lsSetOtherConfig(t, 'sw0', { subnet: '10.0.1.0/24', exclude_ips: null });
    const ops = opsOf(t.tx.build().ops);
    expect(ops.slice(before)).toEqual([
      {
        op: 'mutate',
        table: 'Logical_Switch',
        where: [['_uuid', '==', ['named-uuid', 'row0']]],
        mutations: [
          ['other_config', 'delete', ['set', ['subnet', 'exclude_ips']]],
          ['other_config', 'insert', ['map', [['subnet', '10.0.1.0/24']]]],
        ],
      },
    ]);
  });

  it('aclAdd with a built match, and an NAT rule', () => {
    const ops = opsOf(
      dryOps((t) => {
        lsAdd(t, 'sw0');
        aclAdd(
          t,
          { switch: 'sw0' },
          {
            direction: 'to-lport',
            priority: 1001,
            action: 'drop',
            match: match.outport('a"b'),
            severity: 'info',
          },
        );
        lrAdd(t, 'lr0');
        lrNatAdd(t, 'lr0', { type: 'snat', externalIp: '172.16.0.1', logicalIp: '10.0.0.7/24' });
      }),
    );
    expect(ops.find((o) => o.table === 'ACL')).toMatchObject({
      op: 'insert',
      row: {
        direction: 'to-lport',
        priority: 1001,
        action: 'drop',
        match: 'outport == "a\\"b"',
        severity: 'info',
        log: true,
      },
    });
    expect(ops.find((o) => o.table === 'NAT')).toMatchObject({
      op: 'insert',
      row: {
        type: 'snat',
        external_ip: '172.16.0.1',
        logical_ip: '10.0.0.0/24',
        options: ['map', [['stateless', 'false']]],
      },
    });
  });

  it('connectSwitchToRouter: router port and router-type switch port in one go', () => {
    const ops = opsOf(
      dryOps((t) => {
        lsAdd(t, 'sw0');
        lrAdd(t, 'lr0');
        connectSwitchToRouter(t, {
          switch: 'sw0',
          router: 'lr0',
          mac: '00:00:00:00:ff:01',
          networks: ['10.0.0.1/24'],
        });
      }),
    );
    const tables = ops.map((o) => `${o.op} ${o.table}`);
    expect(tables).toEqual([
      'wait Logical_Switch',
      'insert Logical_Switch',
      'wait Logical_Router',
      'insert Logical_Router',
      'insert Logical_Router_Port',
      'mutate Logical_Router',
      'insert Logical_Switch_Port',
      'mutate Logical_Switch',
    ]);
    expect(ops[6]).toMatchObject({
      row: {
        name: 'sw0-lr0',
        type: 'router',
        addresses: ['set', ['router']],
        options: ['map', [['router-port', 'lr0-sw0']]],
      },
    });
    expect(ops[4]).toMatchObject({
      row: { name: 'lr0-sw0', mac: '00:00:00:00:ff:01', networks: ['set', ['10.0.0.1/24']] },
    });
  });

  it('pgSetPorts: a minimal mutate (insert the new members, delete the gone ones)', () => {
    const t = dryTxn();
    lsAdd(t, 'sw0');
    const [p1, p2, p3] = ['p1', 'p2', 'p3'].map((p) => lspAdd(t, 'sw0', p));
    pgAdd(t, 'pg1', { ports: ['p1', 'p2'] });
    const before = t.tx.size;
    pgSetPorts(t, 'pg1', ['p2', 'p3']);
    expect(opsOf(t.tx.build().ops).slice(before)).toEqual([
      {
        op: 'mutate',
        table: 'Port_Group',
        where: [['_uuid', '==', ['named-uuid', 'row4']]],
        mutations: [
          ['ports', 'insert', ['set', [['named-uuid', 'row3']]]],
          ['ports', 'delete', ['set', [['named-uuid', 'row1']]]],
        ],
      },
    ]);
    expect([p1, p2, p3].every((p) => typeof p === 'string')).toBe(true);
  });
});

describe('reads inside the transaction', () => {
  it('see rows created earlier, by name', () => {
    const t = dryTxn();
    const sw = lsAdd(t, 'sw0');
    const p = lspAdd(t, 'sw0', 'p1');
    expect(t.get('Logical_Switch', sw)?.ports).toEqual([p]);
    expect(lspGet(t, 'p1')._uuid).toBe(p);
    expect(t.isNew('Logical_Switch_Port', p)).toBe(true);
  });

  it('follow garbage collection: a removed port disappears, and with it its port group membership', () => {
    const t = dryTxn();
    lsAdd(t, 'sw0');
    const p1 = lspAdd(t, 'sw0', 'p1');
    const p2 = lspAdd(t, 'sw0', 'p2');
    const pg = pgAdd(t, 'pg1', { ports: ['p1', 'p2'] });
    lspDel(t, 'p1');
    expect(t.get('Logical_Switch_Port', p1)).toBeUndefined();
    expect(t.get('Port_Group', pg)?.ports).toEqual([p2]);
    expect(lspGet(t, 'p1', { ifExists: true })).toBeUndefined();
    // The name is free again in the same transaction.
    const again = lspAdd(t, 'sw0', 'p1');
    expect(again).not.toBe(p1);
  });

  it('follow a switch deletion: its ports and ACLs go, weak references to them vanish', () => {
    const t = dryTxn();
    lsAdd(t, 'sw0');
    const p = lspAdd(t, 'sw0', 'p1');
    const acl = aclAdd(
      t,
      { switch: 'sw0' },
      { direction: 'to-lport', priority: 1, match: 'ip4', action: 'drop' },
    );
    const pg = pgAdd(t, 'pg1', { ports: ['p1'] });
    lsDel(t, 'sw0');
    expect(t.get('Logical_Switch_Port', p)).toBeUndefined();
    expect(t.get('ACL', acl)).toBeUndefined();
    expect(t.get('Port_Group', pg)?.ports).toEqual([]);
    expect(t.rows('Logical_Switch')).toEqual([]);
  });

  it('a moved port stays (added to the new switch before leaving the old one)', () => {
    const t = dryTxn();
    const a = lsAdd(t, 'a');
    const b = lsAdd(t, 'b');
    const p = lspAdd(t, 'a', 'p1');
    lspMove(t, 'p1', 'b');
    expect(t.get('Logical_Switch_Port', p)).toBeDefined();
    expect(t.get('Logical_Switch', a)?.ports).toEqual([]);
    expect(t.get('Logical_Switch', b)?.ports).toEqual([p]);
  });

  it('merge the replica with the changes: replica rows can be changed and deleted', () => {
    const t0 = dryTxn();
    const sw = lsAdd(t0, 'sw0');
    const p = lspAdd(t0, 'sw0', 'p1');
    // A replica holding what t0 built.
    const snapshot = new Map<string, Map<string, unknown>>();
    for (const table of ['Logical_Switch', 'Logical_Switch_Port'] as const) {
      snapshot.set(table, new Map(t0.rows(table).map((r) => [r._uuid, r])));
    }
    const reader: NbReader = {
      get: (table, uuid) => snapshot.get(table)?.get(uuid) as never,
      rows: (table) => [...(snapshot.get(table)?.values() ?? [])] as never,
    };
    const t = dryTxn(reader);
    expect(lspGet(t, 'p1')._uuid).toBe(p);
    lspAdd(t, 'sw0', 'p2');
    expect(
      t
        .rows('Logical_Switch_Port')
        .map((r) => r.name)
        .sort(),
    ).toEqual(['p1', 'p2']);
    lspDel(t, 'p1');
    expect(t.rows('Logical_Switch_Port').map((r) => r.name)).toEqual(['p2']);
    expect(t.get('Logical_Switch', sw)?.ports).toHaveLength(1);
    // The replica itself is untouched.
    expect(reader.get('Logical_Switch_Port', p)).toBeDefined();
    const ops = opsOf(t.tx.build().ops);
    expect(ops.map((o) => `${o.op} ${o.table}`)).toEqual([
      'insert Logical_Switch_Port',
      'mutate Logical_Switch',
      'mutate Logical_Switch',
    ]);
    expect(ops[2]).toMatchObject({
      where: [['_uuid', '==', ['uuid', sw]]],
      mutations: [['ports', 'delete', ['set', [['uuid', p]]]]],
    });
  });

  it('a reconciliation that changes nothing adds no operation', () => {
    const t0 = dryTxn();
    lsAdd(t0, 'sw0');
    lspAdd(t0, 'sw0', 'p1');
    const spec = {
      v4: {
        cidr: '10.0.0.0/24',
        options: { server_id: '10.0.0.1', server_mac: '00:00:00:00:00:01', lease_time: 60 },
      },
    };
    const first = reconcilePortDhcpOptions(t0, 'p1', spec);
    expect(first).toMatchObject({ created: 1, updated: 0, deleted: 0 });
    const before = t0.tx.size;
    const second = reconcilePortDhcpOptions(t0, 'p1', spec);
    expect(second).toMatchObject({ created: 0, updated: 0, deleted: 0, v4: first.v4 });
    expect(t0.tx.size).toBe(before);
  });

  it('router port ops keep reading what was written (gateway chassis on a new port)', () => {
    const t = dryTxn();
    lrAdd(t, 'lr0');
    const lrp = lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['172.16.0.1/24'], {
      gatewayChassis: { ch1: 5 },
    });
    const gc = t.get('Logical_Router_Port', lrp)!.gateway_chassis;
    expect(gc).toHaveLength(1);
    expect(t.get('Gateway_Chassis', gc[0]!)).toMatchObject({
      name: 'lrp0-ch1',
      chassis_name: 'ch1',
      priority: 5,
    });
  });
});

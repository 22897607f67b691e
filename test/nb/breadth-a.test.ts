/**
 * QoS rules, meters, forwarding groups and static MAC bindings without a
 * server: the rows and operations they produce, `mayExist`/`ifExists`, and
 * every bad input failing with a typed error that names the argument,
 * before any operation is added.
 */

import { describe, expect, it } from 'vitest';
import { fwdGroupAdd, fwdGroupDel, fwdGroupList } from '../../src/nb/fwd-group.js';
import {
  AlreadyExistsError,
  InvalidAddressError,
  InvalidArgumentError,
  InvalidMatchError,
  lrAdd,
  lrpAdd,
  lsAdd,
  lspAdd,
  match,
  type NbTxn,
  NbTxn as NbTxnClass,
  NotFoundError,
  OutOfRangeError,
} from '../../src/nb/index.js';
import { meterAdd, meterDel, meterList } from '../../src/nb/meter.js';
import { qosAdd, qosDel, qosList } from '../../src/nb/qos.js';
import {
  staticMacBindingAdd,
  staticMacBindingDel,
  staticMacBindingList,
} from '../../src/nb/static-mac-binding.js';
import { TransactionBuilder } from '../../src/transactions/builder.js';
import { NB as NB70 } from './fixtures/models/nb-7.0.0/index.js';
import { dryTxn, EMPTY } from './helpers/dry.js';

/** Run `f` on `t` and return what it throws (failing when it does not), checking that it added no operation. */
function thrown(t: NbTxn, f: (t: NbTxn) => unknown): Error {
  const before = t.tx.size;
  try {
    f(t);
  } catch (e) {
    expect(t.tx.size, 'no operation added by the failing call').toBe(before);
    return e as Error;
  }
  throw new Error('expected an error');
}

function topology(): NbTxn {
  const t = dryTxn();
  lsAdd(t, 'sw0');
  lspAdd(t, 'sw0', 'p1');
  lspAdd(t, 'sw0', 'p2');
  lsAdd(t, 'sw1');
  lspAdd(t, 'sw1', 'q1');
  lrAdd(t, 'lr0');
  lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['172.16.0.1/24']);
  return t;
}

const Q = { direction: 'from-lport', priority: 100, match: 'ip4' } as const;

describe('qosAdd / qosDel / qosList', () => {
  it('writes the rule and adds it to the switch; the match builder is accepted', () => {
    const t = topology();
    const before = t.tx.size;
    const q = qosAdd(t, 'sw0', {
      ...Q,
      match: match.and(match.inport('p1'), match.eq('ip4.dst', '10.0.0.0/24')),
      rate: 1000,
      burst: 100,
      dscp: 46,
      externalIds: { owner: 'x' },
    });
    const ops = t.tx.build().ops.slice(before);
    expect(ops.map((o) => `${o.op} ${(o as { table?: string }).table}`)).toEqual([
      'insert QoS',
      'mutate Logical_Switch',
    ]);
    const row = t.get('QoS', q)!;
    expect(row.match).toBe('inport == "p1" && ip4.dst == 10.0.0.0/24');
    expect(row.bandwidth).toEqual({ rate: 1000, burst: 100 });
    expect(row.action).toEqual({ dscp: 46 });
    expect(row.external_ids).toEqual({ owner: 'x' });
    expect(qosList(t, 'sw0').map((r) => r._uuid)).toEqual([q]);
  });

  it('identity is (direction, priority, match): duplicate refused, mayExist returns it unchanged', () => {
    const t = topology();
    const q = qosAdd(t, 'sw0', { ...Q, dscp: 1 });
    const e = thrown(t, (t) => qosAdd(t, 'sw0', { ...Q, dscp: 2 }));
    expect(e).toBeInstanceOf(AlreadyExistsError);
    expect((e as AlreadyExistsError).uuid).toBe(q);
    const before = t.tx.size;
    expect(qosAdd(t, 'sw0', { ...Q, dscp: 2 }, { mayExist: true })).toBe(q);
    expect(t.tx.size).toBe(before);
    expect(t.get('QoS', q)!.action).toEqual({ dscp: 1 });
    // Another switch, direction or priority is another rule.
    qosAdd(t, 'sw1', { ...Q, dscp: 2 });
    qosAdd(t, 'sw0', { ...Q, direction: 'to-lport', dscp: 2 });
    qosAdd(t, 'sw0', { ...Q, priority: 101, dscp: 2 });
    expect(qosList(t, 'sw0').map((r) => `${r.direction} ${r.priority}`)).toEqual([
      'from-lport 101',
      'from-lport 100',
      'to-lport 100',
    ]);
  });

  it('bad inputs are typed errors naming the argument', () => {
    const t = topology();
    const cases: [Record<string, unknown>, new (...a: never[]) => Error, string][] = [
      [{ direction: 'to' as never }, InvalidArgumentError, 'QoS.direction'],
      [{ priority: 32768 }, OutOfRangeError, 'QoS.priority'],
      [{ priority: -1 }, OutOfRangeError, 'QoS.priority'],
      [{ priority: 1.5 }, OutOfRangeError, 'QoS.priority'],
      [{ dscp: 64 }, OutOfRangeError, 'QoS.dscp'],
      [{ dscp: -1 }, OutOfRangeError, 'QoS.dscp'],
      [{ rate: 0 }, OutOfRangeError, 'QoS.rate'],
      [{ rate: 4294967296 }, OutOfRangeError, 'QoS.rate'],
      [{ rate: 10, burst: 0 }, OutOfRangeError, 'QoS.burst'],
      [{ burst: 10, dscp: 1 }, InvalidArgumentError, 'QoS.burst'],
      [{ mark: 0 }, OutOfRangeError, 'QoS.mark'],
      [{ mark: 4294967296 }, OutOfRangeError, 'QoS.mark'],
      [{}, InvalidArgumentError, 'QoS'],
      [{ externalIds: { a: 1 } as never, dscp: 1 }, InvalidArgumentError, 'QoS.external_ids:a'],
    ];
    for (const [extra, cls, field] of cases) {
      const e = thrown(t, (t) => qosAdd(t, 'sw0', { ...Q, ...extra } as never));
      expect(e, JSON.stringify(extra)).toBeInstanceOf(cls);
      expect((e as { field?: string }).field, JSON.stringify(extra)).toBe(field);
    }
    expect(
      thrown(t, (t) => qosAdd(t, 'sw0', { ...Q, match: 'ip4\u0000', dscp: 1 })),
    ).toBeInstanceOf(InvalidMatchError);
    expect(
      thrown(t, (t) =>
        qosAdd(t, 'sw0', { ...Q, match: match.eq('ip.dscp', 64 as number), dscp: 1 }),
      ),
    ).toBeInstanceOf(InvalidMatchError);
    expect(thrown(t, (t) => qosAdd(t, 'nope', { ...Q, dscp: 1 }))).toBeInstanceOf(NotFoundError);
    expect(thrown(t, (t) => qosAdd(t, 'sw0', null as never))).toBeInstanceOf(InvalidArgumentError);
  });

  it('mark is written with a model that has it, refused with one that does not', () => {
    const t = topology();
    const q = qosAdd(t, 'sw0', { ...Q, mark: 7, dscp: 0 });
    expect(t.get('QoS', q)!.action).toEqual({ mark: 7, dscp: 0 });
    const t70 = new NbTxnClass(
      new TransactionBuilder(NB70, undefined),
      EMPTY as never,
    ) as unknown as NbTxn;
    lsAdd(t70, 'sw0');
    const e = thrown(t70, (t) => qosAdd(t, 'sw0', { ...Q, mark: 7 }));
    expect(e).toBeInstanceOf(InvalidArgumentError);
    expect((e as InvalidArgumentError).field).toBe('QoS.mark');
    qosAdd(t70, 'sw0', { ...Q, dscp: 7 });
  });

  it('qosDel: all, by direction, by direction+priority+match, by UUID; missing ones', () => {
    const t = topology();
    const a = qosAdd(t, 'sw0', { ...Q, dscp: 1 });
    qosAdd(t, 'sw0', { ...Q, priority: 200, dscp: 1 });
    const c = qosAdd(t, 'sw0', { ...Q, direction: 'to-lport', dscp: 1 });
    expect(qosDel(t, 'sw0', { direction: 'from-lport', priority: 100, match: 'ip4' })).toBe(1);
    expect(t.get('QoS', a)).toBeUndefined();
    expect(
      thrown(t, (t) => qosDel(t, 'sw0', { direction: 'from-lport', priority: 100, match: 'ip4' })),
    ).toBeInstanceOf(NotFoundError);
    expect(
      qosDel(
        t,
        'sw0',
        { direction: 'from-lport', priority: 100, match: 'ip4' },
        { ifExists: true },
      ),
    ).toBe(0);
    expect(qosDel(t, 'sw0', { direction: 'from-lport' })).toBe(1);
    expect(qosDel(t, 'sw0', { direction: 'from-lport' })).toBe(0);
    expect(thrown(t, (t) => qosDel(t, 'sw1', { uuid: c }))).toBeInstanceOf(NotFoundError);
    expect(qosDel(t, 'sw1', { uuid: c }, { ifExists: true })).toBe(0);
    expect(qosDel(t, 'sw0', { uuid: c.toUpperCase() })).toBe(1);
    qosAdd(t, 'sw0', { ...Q, dscp: 1 });
    qosAdd(t, 'sw0', { ...Q, direction: 'to-lport', dscp: 1 });
    expect(qosDel(t, 'sw0')).toBe(2);
    expect(qosList(t, 'sw0')).toEqual([]);
    for (const bad of [
      { priority: 1 },
      { direction: 'from-lport', priority: 1 },
      { direction: 'from-lport', match: 'ip4' },
      { uuid: 'not-a-uuid' },
      { uuid: a, direction: 'from-lport' },
      { direction: 'x' },
    ]) {
      expect(
        thrown(t, (t) => qosDel(t, 'sw0', bad as never)),
        JSON.stringify(bad),
      ).toBeInstanceOf(InvalidArgumentError);
    }
    expect(
      thrown(t, (t) => qosDel(t, 'sw0', { direction: 'from-lport', priority: 40000, match: 'x' })),
    ).toBeInstanceOf(OutOfRangeError);
    expect(thrown(t, (t) => qosDel(t, 'nope'))).toBeInstanceOf(NotFoundError);
  });
});

describe('meterAdd / meterDel / meterList', () => {
  it('one band (as ovn-nbctl) or several; fair; sorted list', () => {
    const t = dryTxn();
    const before = t.tx.size;
    const m = meterAdd(t, 'm1', {
      action: 'drop',
      rate: 100,
      unit: 'pktps',
      burst: 10,
      fair: true,
    });
    const row = t.get('Meter', m)!;
    expect(row).toMatchObject({ name: 'm1', unit: 'pktps', fair: true });
    expect(t.get('Meter_Band', row.bands[0]!)).toMatchObject({
      action: 'drop',
      rate: 100,
      burst_size: 10,
    });
    const m0 = meterAdd(t, 'm0', {
      unit: 'kbps',
      bands: [{ rate: 1000 }, { rate: 2000, burst: 0 }],
    });
    expect(t.get('Meter', m0)!.bands).toHaveLength(2);
    expect(meterList(t).map((r) => r.name)).toEqual(['m0', 'm1']);
    const ops = t.tx.build().ops.slice(before);
    expect(ops.map((o) => `${o.op} ${(o as { table?: string }).table}`)).toEqual([
      'insert Meter_Band',
      'insert Meter',
      'insert Meter_Band',
      'insert Meter_Band',
      'insert Meter',
    ]);
  });

  it('identity is the name: duplicate refused, mayExist returns it unchanged', () => {
    const t = dryTxn();
    const m = meterAdd(t, 'm1', { rate: 100, unit: 'kbps' });
    expect(thrown(t, (t) => meterAdd(t, 'm1', { rate: 200, unit: 'kbps' }))).toBeInstanceOf(
      AlreadyExistsError,
    );
    const before = t.tx.size;
    expect(meterAdd(t, 'm1', { rate: 200, unit: 'pktps' }, { mayExist: true })).toBe(m);
    expect(t.tx.size).toBe(before);
    expect(t.get('Meter', m)!.unit).toBe('kbps');
  });

  it('bad inputs are typed errors naming the argument', () => {
    const t = dryTxn();
    const cases: [string, Record<string, unknown>, new (...a: never[]) => Error, string][] = [
      ['__reserved', { rate: 1, unit: 'kbps' }, InvalidArgumentError, 'Meter.name'],
      ['', { rate: 1, unit: 'kbps' }, InvalidArgumentError, 'Meter.name'],
      ['m', { rate: 1, unit: 'bps' }, InvalidArgumentError, 'Meter.unit'],
      ['m', { rate: 1, unit: 'kbps', action: 'reject' }, InvalidArgumentError, 'Meter.action'],
      ['m', { rate: 0, unit: 'kbps' }, OutOfRangeError, 'Meter.rate'],
      ['m', { rate: 4294967296, unit: 'kbps' }, OutOfRangeError, 'Meter.rate'],
      ['m', { rate: 1, unit: 'kbps', burst: -1 }, OutOfRangeError, 'Meter.burst'],
      ['m', { rate: 1, unit: 'kbps', burst: 4294967296 }, OutOfRangeError, 'Meter.burst'],
      ['m', { unit: 'kbps', bands: [] }, InvalidArgumentError, 'Meter.bands'],
      [
        'm',
        { unit: 'kbps', bands: [{ rate: 1 }, { rate: 0 }] },
        OutOfRangeError,
        'Meter.bands[1].rate',
      ],
      ['m', { unit: 'kbps', bands: [{ rate: 1 }], rate: 1 }, InvalidArgumentError, 'Meter'],
      ['m', { rate: 1, unit: 'kbps', fair: 'yes' }, InvalidArgumentError, 'Meter.fair'],
    ];
    for (const [name, spec, cls, field] of cases) {
      const e = thrown(t, (t) => meterAdd(t, name, spec as never));
      expect(e, JSON.stringify(spec)).toBeInstanceOf(cls);
      expect((e as { field?: string }).field, JSON.stringify(spec)).toBe(field);
    }
  });

  it('meterDel: one (its bands go too), all; missing ones', () => {
    const t = dryTxn();
    const m = meterAdd(t, 'm1', { rate: 100, unit: 'kbps' });
    const band = t.get('Meter', m)!.bands[0]!;
    meterAdd(t, 'm2', { rate: 100, unit: 'kbps' });
    meterAdd(t, 'm3', { rate: 100, unit: 'kbps' });
    expect(meterDel(t, 'm1')).toBe(1);
    expect(t.get('Meter', m)).toBeUndefined();
    expect(t.get('Meter_Band', band)).toBeUndefined();
    expect(thrown(t, (t) => meterDel(t, 'm1'))).toBeInstanceOf(NotFoundError);
    expect(meterDel(t, 'm1', { ifExists: true })).toBe(0);
    expect(meterDel(t)).toBe(2);
    expect(meterList(t)).toEqual([]);
  });
});

describe('fwdGroupAdd / fwdGroupDel / fwdGroupList', () => {
  const G = { vip: '10.0.0.100', vmac: '00:00:00:00:01:00', ports: ['p1', 'p2'] };

  it('writes the group with its child ports and adds it to the switch', () => {
    const t = topology();
    const before = t.tx.size;
    const g = fwdGroupAdd(t, 'sw0', 'fg0', { ...G, liveness: true });
    expect(t.get('Forwarding_Group', g)).toMatchObject({
      name: 'fg0',
      vip: '10.0.0.100',
      vmac: '00:00:00:00:01:00',
      child_port: ['p1', 'p2'],
      liveness: true,
    });
    const h = fwdGroupAdd(t, 'sw1', 'fg1', { ...G, ports: ['q1'] });
    expect(fwdGroupList(t).map((r) => r._uuid)).toEqual([g, h]);
    expect(fwdGroupList(t, 'sw1').map((r) => r._uuid)).toEqual([h]);
    const ops = t.tx.build().ops.slice(before);
    expect(ops.map((o) => `${o.op} ${(o as { table?: string }).table}`)).toEqual([
      'insert Forwarding_Group',
      'mutate Logical_Switch',
      'insert Forwarding_Group',
      'mutate Logical_Switch',
    ]);
  });

  it('identity is the name over every switch; mayExist only on the same switch', () => {
    const t = topology();
    const g = fwdGroupAdd(t, 'sw0', 'fg0', G);
    expect(thrown(t, (t) => fwdGroupAdd(t, 'sw0', 'fg0', G))).toBeInstanceOf(AlreadyExistsError);
    expect(fwdGroupAdd(t, 'sw0', 'fg0', { ...G, ports: ['p1'] }, { mayExist: true })).toBe(g);
    expect(t.get('Forwarding_Group', g)!.child_port).toEqual(['p1', 'p2']);
    expect(
      thrown(t, (t) => fwdGroupAdd(t, 'sw1', 'fg0', { ...G, ports: ['q1'] }, { mayExist: true })),
    ).toBeInstanceOf(AlreadyExistsError);
  });

  it('bad inputs are typed errors', () => {
    const t = topology();
    const e1 = thrown(t, (t) => fwdGroupAdd(t, 'sw0', 'fg', { ...G, vip: 'fd00::1' }));
    expect(e1).toBeInstanceOf(InvalidAddressError);
    expect((e1 as InvalidAddressError).field).toBe('Forwarding_Group.vip');
    expect(thrown(t, (t) => fwdGroupAdd(t, 'sw0', 'fg', { ...G, vip: '10.0.0' }))).toBeInstanceOf(
      InvalidAddressError,
    );
    const e2 = thrown(t, (t) => fwdGroupAdd(t, 'sw0', 'fg', { ...G, vmac: '00:00:00:00:01' }));
    expect(e2).toBeInstanceOf(InvalidAddressError);
    expect((e2 as InvalidAddressError).field).toBe('Forwarding_Group.vmac');
    expect(thrown(t, (t) => fwdGroupAdd(t, 'sw0', 'fg', { ...G, ports: [] }))).toBeInstanceOf(
      InvalidArgumentError,
    );
    const e3 = thrown(t, (t) => fwdGroupAdd(t, 'sw0', 'fg', { ...G, ports: ['p1', 'q1'] }));
    expect(e3).toBeInstanceOf(NotFoundError);
    expect((e3 as NotFoundError).where).toBe('on switch sw0');
    expect(thrown(t, (t) => fwdGroupAdd(t, 'sw0', 'fg', { ...G, ports: ['nope'] }))).toBeInstanceOf(
      NotFoundError,
    );
    expect(thrown(t, (t) => fwdGroupAdd(t, 'nope', 'fg', G))).toBeInstanceOf(NotFoundError);
    expect(thrown(t, (t) => fwdGroupAdd(t, 'sw0', '', G))).toBeInstanceOf(InvalidArgumentError);
    expect(
      thrown(t, (t) => fwdGroupAdd(t, 'sw0', 'fg', { ...G, liveness: 1 as never })),
    ).toBeInstanceOf(InvalidArgumentError);
  });

  it('fwdGroupDel removes it from its switch; missing ones', () => {
    const t = topology();
    const g = fwdGroupAdd(t, 'sw0', 'fg0', G);
    fwdGroupDel(t, 'fg0');
    expect(t.get('Forwarding_Group', g)).toBeUndefined();
    expect(fwdGroupList(t)).toEqual([]);
    expect(thrown(t, (t) => fwdGroupDel(t, 'fg0'))).toBeInstanceOf(NotFoundError);
    fwdGroupDel(t, 'fg0', { ifExists: true });
    const h = fwdGroupAdd(t, 'sw0', 'fg1', G);
    fwdGroupDel(t, h);
    expect(t.get('Forwarding_Group', h)).toBeUndefined();
  });
});

describe('staticMacBindingAdd / staticMacBindingDel / staticMacBindingList', () => {
  it('writes the binding with the canonical IP and the port name', () => {
    const t = topology();
    const lrp = t.find('Logical_Router_Port', (p) => p.name === 'lrp0')!._uuid;
    const b = staticMacBindingAdd(t, lrp, 'FD00:0::50', '00:00:00:00:50:01', {
      overrideDynamicMac: true,
    });
    expect(t.get('Static_MAC_Binding', b)).toMatchObject({
      logical_port: 'lrp0',
      ip: 'fd00::50',
      mac: '00:00:00:00:50:01',
      override_dynamic_mac: true,
    });
    staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:02');
    expect(staticMacBindingList(t).map((r) => r.ip)).toEqual(['172.16.0.50', 'fd00::50']);
  });

  it('identity is (port, IP): duplicate refused, mayExist returns it unchanged', () => {
    const t = topology();
    const b = staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:01');
    expect(
      thrown(t, (t) => staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:02')),
    ).toBeInstanceOf(AlreadyExistsError);
    expect(
      staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:02', { mayExist: true }),
    ).toBe(b);
    expect(t.get('Static_MAC_Binding', b)!.mac).toBe('00:00:00:00:50:01');
  });

  it('bad inputs are typed errors', () => {
    const t = topology();
    const e1 = thrown(t, (t) =>
      staticMacBindingAdd(t, 'lrp0', '172.16.0.256', '00:00:00:00:50:01'),
    );
    expect(e1).toBeInstanceOf(InvalidAddressError);
    expect((e1 as InvalidAddressError).field).toBe('Static_MAC_Binding.ip');
    expect(
      thrown(t, (t) => staticMacBindingAdd(t, 'lrp0', '172.16.0.0/24', '00:00:00:00:50:01')),
    ).toBeInstanceOf(InvalidAddressError);
    const e2 = thrown(t, (t) => staticMacBindingAdd(t, 'lrp0', '172.16.0.50', 'zz:00:00:00:50:01'));
    expect(e2).toBeInstanceOf(InvalidAddressError);
    expect((e2 as InvalidAddressError).field).toBe('Static_MAC_Binding.mac');
    expect(
      thrown(t, (t) => staticMacBindingAdd(t, 'nope', '172.16.0.50', '00:00:00:00:50:01')),
    ).toBeInstanceOf(NotFoundError);
    expect(
      thrown(t, (t) =>
        staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:01', {
          overrideDynamicMac: 'yes' as never,
        }),
      ),
    ).toBeInstanceOf(InvalidArgumentError);
    expect(thrown(t, (t) => staticMacBindingDel(t, 'lrp0', 'bad'))).toBeInstanceOf(
      InvalidAddressError,
    );
  });

  it('staticMacBindingDel matches the canonical IP; missing ones', () => {
    const t = topology();
    const b = staticMacBindingAdd(t, 'lrp0', 'fd00::50', '00:00:00:00:50:01');
    staticMacBindingDel(t, 'lrp0', 'FD00:0:0::50');
    expect(t.get('Static_MAC_Binding', b)).toBeUndefined();
    expect(thrown(t, (t) => staticMacBindingDel(t, 'lrp0', 'fd00::50'))).toBeInstanceOf(
      NotFoundError,
    );
    staticMacBindingDel(t, 'lrp0', 'fd00::50', { ifExists: true });
  });
});

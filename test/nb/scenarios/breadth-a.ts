/**
 * Differential scenarios of QoS rules, meters, forwarding groups and static
 * MAC bindings: every `qos-*`, `meter-*`, `fwd-group-*` and
 * `static-mac-binding-*` command of ovn-nbctl 23.03 against the DSL, with
 * `--may-exist`, `--if-exists`, `--fair`, `--liveness` and the inputs both
 * refuse.
 */

import { fwdGroupAdd, fwdGroupDel, fwdGroupList } from '../../../src/nb/fwd-group.js';
import {
  AlreadyExistsError,
  aclAdd,
  InvalidAddressError,
  InvalidArgumentError,
  lrAdd,
  lrpAdd,
  lsAdd,
  lsDel,
  lspAdd,
  match,
  type NbTxn,
  NotFoundError,
  OutOfRangeError,
} from '../../../src/nb/index.js';
import { meterAdd, meterDel, meterList } from '../../../src/nb/meter.js';
import { qosAdd, qosDel, qosList } from '../../../src/nb/qos.js';
import {
  staticMacBindingAdd,
  staticMacBindingDel,
  staticMacBindingList,
} from '../../../src/nb/static-mac-binding.js';
import { type RawDump, rowsOf, type Scenario } from '../helpers/differential.js';
import type { GetterScenario } from './breadth-b.js';

const QOS_MATCH = 'inport == "p1" && ip4.dst == 10.0.0.0/24';

function twoSwitches(t: NbTxn): void {
  lsAdd(t, 'sw0');
  lspAdd(t, 'sw0', 'p1');
  lspAdd(t, 'sw0', 'p2');
  lsAdd(t, 'sw1');
  lspAdd(t, 'sw1', 'q1');
}
const TWO_SWITCHES = [
  'ls-add',
  'sw0',
  '--',
  'lsp-add',
  'sw0',
  'p1',
  '--',
  'lsp-add',
  'sw0',
  'p2',
  '--',
  'ls-add',
  'sw1',
  '--',
  'lsp-add',
  'sw1',
  'q1',
];

function router(t: NbTxn): void {
  lrAdd(t, 'lr0');
  lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['172.16.0.1/24', 'fd00::1/64']);
  lrpAdd(t, 'lr0', 'lrp1', '00:00:00:00:ff:02', ['10.0.0.1/24']);
}
const ROUTER = [
  'lr-add',
  'lr0',
  '--',
  'lrp-add',
  'lr0',
  'lrp0',
  '00:00:00:00:ff:01',
  '172.16.0.1/24',
  'fd00::1/64',
  '--',
  'lrp-add',
  'lr0',
  'lrp1',
  '00:00:00:00:ff:02',
  '10.0.0.1/24',
];

/** Set the `column` of the rows of `table` whose `column` is `from` to `to` (for documented differences). */
function rewrite(d: RawDump, table: string, column: string, from: unknown, to: unknown): void {
  for (const row of rowsOf(d, table)) if (row[column] === from) row[column] = to;
}

export const breadthAScenarios: readonly Scenario[] = [
  {
    name: 'qos-add: dscp, rate, rate+burst, everything; both directions, two switches; match builder',
    group: 'QoS',
    dsl: [
      twoSwitches,
      (t) => {
        qosAdd(t, 'sw0', { direction: 'from-lport', priority: 100, match: 'ip4', dscp: 46 });
        qosAdd(t, 'sw0', { direction: 'to-lport', priority: 100, match: 'ip4', rate: 10000 });
        qosAdd(t, 'sw0', {
          direction: 'from-lport',
          priority: 200,
          match: match.and(match.inport('p1'), match.eq('ip4.dst', '10.0.0.0/24')),
          rate: 5000,
          burst: 500,
        });
        qosAdd(t, 'sw1', {
          direction: 'to-lport',
          priority: 0,
          match: 'ip6',
          rate: 4294967295,
          burst: 1,
          dscp: 0,
        });
        if (qosList(t, 'sw0').length !== 3) throw new Error('qosList');
      },
    ],
    nbctl: [
      TWO_SWITCHES,
      ['qos-add', 'sw0', 'from-lport', '100', 'ip4', 'dscp=46'],
      ['qos-add', 'sw0', 'to-lport', '100', 'ip4', 'rate=10000'],
      ['qos-add', 'sw0', 'from-lport', '200', QOS_MATCH, 'rate=5000', 'burst=500'],
      ['qos-add', 'sw1', 'to-lport', '0', 'ip6', 'rate=4294967295', 'burst=1', 'dscp=0'],
    ],
  },
  {
    name: 'qos-add of a duplicate (direction, priority, match) fails; --may-exist changes nothing',
    group: 'QoS',
    dsl: [
      (t) => {
        twoSwitches(t);
        qosAdd(t, 'sw0', { direction: 'from-lport', priority: 100, match: 'ip4', dscp: 10 });
      },
      {
        run: (t) =>
          qosAdd(t, 'sw0', { direction: 'from-lport', priority: 100, match: 'ip4', dscp: 20 }),
        throws: AlreadyExistsError,
      },
      (t) =>
        qosAdd(
          t,
          'sw0',
          { direction: 'from-lport', priority: 100, match: 'ip4', dscp: 20 },
          { mayExist: true },
        ),
      // The same rule on another switch is another rule.
      (t) => qosAdd(t, 'sw1', { direction: 'from-lport', priority: 100, match: 'ip4', dscp: 20 }),
    ],
    nbctl: [
      [...TWO_SWITCHES, '--', 'qos-add', 'sw0', 'from-lport', '100', 'ip4', 'dscp=10'],
      { args: ['qos-add', 'sw0', 'from-lport', '100', 'ip4', 'dscp=20'], fails: true },
      ['--may-exist', 'qos-add', 'sw0', 'from-lport', '100', 'ip4', 'dscp=20'],
      ['qos-add', 'sw1', 'from-lport', '100', 'ip4', 'dscp=20'],
    ],
  },
  {
    name: 'qos-add refuses a DSCP, rate, burst or priority out of range, no action, a bad direction, an unknown switch',
    group: 'QoS',
    dsl: [
      twoSwitches,
      ...(
        [
          [{ dscp: 64 }, OutOfRangeError],
          [{ rate: 0 }, OutOfRangeError],
          [{ rate: 4294967296 }, OutOfRangeError],
          [{ rate: 10, burst: 4294967296 }, OutOfRangeError],
          [{ priority: 32768, dscp: 1 }, OutOfRangeError],
          [{}, InvalidArgumentError],
        ] as const
      ).map(([extra, cls]) => ({
        run: (t: NbTxn) =>
          qosAdd(t, 'sw0', { direction: 'from-lport', priority: 1, match: 'ip4', ...extra }),
        throws: cls,
      })),
      {
        run: (t) =>
          qosAdd(t, 'sw0', { direction: 'up' as never, priority: 1, match: 'ip4', dscp: 1 }),
        throws: InvalidArgumentError,
      },
      {
        run: (t) =>
          qosAdd(t, 'nope', { direction: 'to-lport', priority: 1, match: 'ip4', dscp: 1 }),
        throws: NotFoundError,
      },
    ],
    nbctl: [
      TWO_SWITCHES,
      ...[['dscp=64'], ['rate=0'], ['rate=4294967296'], ['rate=10', 'burst=4294967296']].map(
        (extra) => ({
          args: ['qos-add', 'sw0', 'from-lport', '1', 'ip4', ...extra],
          fails: true as const,
        }),
      ),
      { args: ['qos-add', 'sw0', 'from-lport', '32768', 'ip4', 'dscp=1'], fails: true },
      { args: ['qos-add', 'sw0', 'from-lport', '1', 'ip4'], fails: true },
      { args: ['qos-add', 'sw0', 'up', '1', 'ip4', 'dscp=1'], fails: true },
      { args: ['qos-add', 'nope', 'to-lport', '1', 'ip4', 'dscp=1'], fails: true },
    ],
  },
  {
    name: 'qos-del: one by direction, priority and match; all of a direction; one by UUID; then all',
    group: 'QoS',
    dsl: [
      (t) => {
        twoSwitches(t);
        for (const [direction, priority] of [
          ['from-lport', 100],
          ['from-lport', 200],
          ['from-lport', 300],
          ['to-lport', 100],
          ['to-lport', 200],
        ] as const) {
          qosAdd(t, 'sw0', { direction, priority, match: 'ip4', dscp: priority / 100 });
        }
        qosAdd(t, 'sw1', { direction: 'to-lport', priority: 100, match: 'ip4', dscp: 1 });
      },
      (t) => qosDel(t, 'sw0', { direction: 'from-lport', priority: 100, match: 'ip4' }),
      (t) => qosDel(t, 'sw0', { direction: 'from-lport' }),
      (t) => {
        const rule = qosList(t, 'sw0').find((q) => q.priority === 200)!;
        qosDel(t, 'sw0', { uuid: rule._uuid });
      },
      (t) => {
        if (qosList(t, 'sw0').length !== 1) throw new Error('one rule left on sw0');
      },
      (t) => qosDel(t, 'sw1'),
    ],
    nbctl: [
      [
        ...TWO_SWITCHES,
        ...[
          ['from-lport', '100', 'dscp=1'],
          ['from-lport', '200', 'dscp=2'],
          ['from-lport', '300', 'dscp=3'],
          ['to-lport', '100', 'dscp=1'],
          ['to-lport', '200', 'dscp=2'],
        ].flatMap(([dir, prio, dscp]) => ['--', 'qos-add', 'sw0', dir!, prio!, 'ip4', dscp!]),
        '--',
        'qos-add',
        'sw1',
        'to-lport',
        '100',
        'ip4',
        'dscp=1',
      ],
      ['qos-del', 'sw0', 'from-lport', '100', 'ip4'],
      ['qos-del', 'sw0', 'from-lport'],
      async (nbctl, uuid) => {
        await nbctl('qos-del', 'sw0', await uuid('QoS', 'priority=200', 'direction=to-lport'));
      },
      ['qos-del', 'sw1'],
    ],
  },
  {
    name: 'qos-del of a missing rule: by UUID both refuse; by priority and match silent (ifExists)',
    group: 'QoS',
    dsl: [
      (t) => {
        twoSwitches(t);
        qosAdd(t, 'sw0', { direction: 'to-lport', priority: 100, match: 'ip4', dscp: 1 });
      },
      {
        run: (t) => qosDel(t, 'sw0', { uuid: '00000000-0000-0000-0000-000000000001' }),
        throws: NotFoundError,
      },
      (t) =>
        qosDel(
          t,
          'sw0',
          { direction: 'to-lport', priority: 101, match: 'ip4' },
          { ifExists: true },
        ),
      { run: (t) => qosDel(t, 'nope'), throws: NotFoundError },
      { run: (t) => qosDel(t, 'sw0', { direction: 'up' as never }), throws: InvalidArgumentError },
    ],
    nbctl: [
      [...TWO_SWITCHES, '--', 'qos-add', 'sw0', 'to-lport', '100', 'ip4', 'dscp=1'],
      { args: ['qos-del', 'sw0', '00000000-0000-0000-0000-000000000001'], fails: true },
      ['qos-del', 'sw0', 'to-lport', '101', 'ip4'],
      { args: ['qos-del', 'nope'], fails: true },
      { args: ['qos-del', 'sw0', 'up'], fails: true },
    ],
  },
  {
    name: 'meter-add: kbps with a burst, pktps without, --fair; a meter used by an ACL to limit its logging',
    group: 'meter',
    dsl: [
      (t) => {
        meterAdd(t, 'm-kbps', { action: 'drop', rate: 1000, unit: 'kbps', burst: 100 });
        meterAdd(t, 'm-pktps', { action: 'drop', rate: 10, unit: 'pktps' });
        meterAdd(t, 'm-fair', { action: 'drop', rate: 4294967295, unit: 'pktps', fair: true });
      },
      (t) => {
        lsAdd(t, 'sw0');
        aclAdd(
          t,
          { switch: 'sw0' },
          { direction: 'to-lport', priority: 1000, match: 'ip4', action: 'drop', meter: 'm-pktps' },
        );
        if (
          meterList(t)
            .map((m) => m.name)
            .join() !== 'm-fair,m-kbps,m-pktps'
        )
          throw new Error('meterList');
      },
    ],
    nbctl: [
      ['meter-add', 'm-kbps', 'drop', '1000', 'kbps', '100'],
      ['meter-add', 'm-pktps', 'drop', '10', 'pktps'],
      ['--fair', 'meter-add', 'm-fair', 'drop', '4294967295', 'pktps'],
      [
        'ls-add',
        'sw0',
        '--',
        '--log',
        '--meter=m-pktps',
        'acl-add',
        'sw0',
        'to-lport',
        '1000',
        'ip4',
        'drop',
      ],
    ],
  },
  {
    name: 'meter-add refuses a duplicate name, a reserved name, a bad action, unit, rate or burst',
    group: 'meter',
    dsl: [
      (t) => meterAdd(t, 'm1', { rate: 1000, unit: 'kbps' }),
      { run: (t) => meterAdd(t, 'm1', { rate: 1000, unit: 'kbps' }), throws: AlreadyExistsError },
      {
        run: (t) => meterAdd(t, '__m', { rate: 1000, unit: 'kbps' }),
        throws: InvalidArgumentError,
      },
      {
        run: (t) => meterAdd(t, 'm2', { action: 'allow' as never, rate: 1000, unit: 'kbps' }),
        throws: InvalidArgumentError,
      },
      {
        run: (t) => meterAdd(t, 'm2', { rate: 1000, unit: 'bps' as never }),
        throws: InvalidArgumentError,
      },
      { run: (t) => meterAdd(t, 'm2', { rate: 0, unit: 'kbps' }), throws: OutOfRangeError },
      {
        run: (t) => meterAdd(t, 'm2', { rate: 4294967296, unit: 'kbps' }),
        throws: OutOfRangeError,
      },
      {
        run: (t) => meterAdd(t, 'm2', { rate: 10, unit: 'kbps', burst: -1 }),
        throws: OutOfRangeError,
      },
    ],
    nbctl: [
      ['meter-add', 'm1', 'drop', '1000', 'kbps'],
      { args: ['meter-add', 'm1', 'drop', '1000', 'kbps'], fails: true },
      { args: ['meter-add', '__m', 'drop', '1000', 'kbps'], fails: true },
      { args: ['meter-add', 'm2', 'allow', '1000', 'kbps'], fails: true },
      { args: ['meter-add', 'm2', 'drop', '1000', 'bps'], fails: true },
      { args: ['meter-add', 'm2', 'drop', '0', 'kbps'], fails: true },
      { args: ['meter-add', 'm2', 'drop', '4294967296', 'kbps'], fails: true },
      { args: ['meter-add', 'm2', 'drop', '10', 'kbps', '-1'], fails: true },
    ],
  },
  {
    name: 'meter-add --may-exist with the same band changes nothing',
    group: 'meter',
    dsl: [
      (t) => meterAdd(t, 'm1', { rate: 1000, unit: 'kbps', burst: 10 }),
      (t) => meterAdd(t, 'm1', { rate: 1000, unit: 'kbps', burst: 10 }, { mayExist: true }),
    ],
    nbctl: [
      ['meter-add', 'm1', 'drop', '1000', 'kbps', '10'],
      ['--may-exist', 'meter-add', 'm1', 'drop', '1000', 'kbps', '10'],
    ],
  },
  {
    name: 'meter-add --may-exist with another rate (deliberate: mayExist never modifies)',
    group: 'meter',
    dsl: [
      (t) => meterAdd(t, 'm1', { rate: 1000, unit: 'kbps' }),
      (t) => meterAdd(t, 'm1', { rate: 2000, unit: 'kbps' }, { mayExist: true }),
    ],
    nbctl: [
      ['meter-add', 'm1', 'drop', '1000', 'kbps'],
      ['--may-exist', 'meter-add', 'm1', 'drop', '2000', 'kbps'],
    ],
    difference: {
      explain: 'ovn-nbctl --may-exist meter-add rewrites the band; the DSL leaves the meter alone',
      nbctl: (d) => rewrite(d, 'Meter_Band', 'rate', 2000, 1000),
    },
  },
  {
    name: 'meter-del: one (its band goes too), a missing one (ifExists), then all',
    group: 'meter',
    dsl: [
      (t) => {
        meterAdd(t, 'm1', { rate: 1000, unit: 'kbps' });
        meterAdd(t, 'm2', { rate: 2000, unit: 'kbps' });
        meterAdd(t, 'm3', { rate: 3000, unit: 'pktps' });
      },
      (t) => meterDel(t, 'm1'),
      (t) => meterDel(t, 'nope', { ifExists: true }),
      (t) => {
        if (meterList(t).length !== 2) throw new Error('two meters left');
        meterDel(t);
      },
      (t) => meterAdd(t, 'm4', { rate: 4000, unit: 'kbps' }),
    ],
    nbctl: [
      [
        'meter-add',
        'm1',
        'drop',
        '1000',
        'kbps',
        '--',
        'meter-add',
        'm2',
        'drop',
        '2000',
        'kbps',
        '--',
        'meter-add',
        'm3',
        'drop',
        '3000',
        'pktps',
      ],
      ['meter-del', 'm1'],
      ['meter-del', 'nope'],
      ['meter-del'],
      ['meter-add', 'm4', 'drop', '4000', 'kbps'],
    ],
  },
  {
    name: 'fwd-group-add with and without --liveness, on two switches; fwd-group-del; --if-exists',
    group: 'forwarding group',
    dsl: [
      twoSwitches,
      (t) =>
        fwdGroupAdd(t, 'sw0', 'fg0', {
          vip: '10.0.0.100',
          vmac: '00:00:00:00:01:00',
          ports: ['p1', 'p2'],
        }),
      (t) =>
        fwdGroupAdd(t, 'sw1', 'fg1', {
          vip: '10.1.0.100',
          vmac: '00:00:00:00:01:01',
          ports: ['q1'],
          liveness: true,
        }),
      (t) =>
        fwdGroupAdd(t, 'sw0', 'fg2', {
          vip: '10.0.0.101',
          vmac: '00:00:00:00:01:02',
          ports: ['p2'],
        }),
      (t) => {
        if (fwdGroupList(t, 'sw0').length !== 2 || fwdGroupList(t).length !== 3)
          throw new Error('fwdGroupList');
        fwdGroupDel(t, 'fg2');
      },
      (t) => fwdGroupDel(t, 'fg2', { ifExists: true }),
    ],
    nbctl: [
      TWO_SWITCHES,
      ['fwd-group-add', 'fg0', 'sw0', '10.0.0.100', '00:00:00:00:01:00', 'p1', 'p2'],
      ['--liveness', 'fwd-group-add', 'fg1', 'sw1', '10.1.0.100', '00:00:00:00:01:01', 'q1'],
      ['fwd-group-add', 'fg2', 'sw0', '10.0.0.101', '00:00:00:00:01:02', 'p2'],
      ['fwd-group-del', 'fg2'],
      ['--if-exists', 'fwd-group-del', 'fg2'],
    ],
  },
  {
    name: 'fwd-group-add refuses a duplicate name, an IPv6 or bad VIP, a bad VMAC, a port of another switch or none',
    group: 'forwarding group',
    dsl: [
      (t) => {
        twoSwitches(t);
        fwdGroupAdd(t, 'sw0', 'fg0', {
          vip: '10.0.0.100',
          vmac: '00:00:00:00:01:00',
          ports: ['p1'],
        });
      },
      {
        run: (t) =>
          fwdGroupAdd(t, 'sw0', 'fg0', {
            vip: '10.0.0.9',
            vmac: '00:00:00:00:01:09',
            ports: ['p2'],
          }),
        throws: AlreadyExistsError,
      },
      ...(
        [
          [{ vip: 'fd00::100' }, InvalidAddressError],
          [{ vip: '10.0.0.300' }, InvalidAddressError],
          [{ vmac: '00:00:00:00:01' }, InvalidAddressError],
          [{ ports: ['q1'] }, NotFoundError],
          [{ ports: ['p2', 'nope'] }, NotFoundError],
        ] as const
      ).map(([extra, cls]) => ({
        run: (t: NbTxn) =>
          fwdGroupAdd(t, 'sw0', 'fg1', {
            vip: '10.0.0.101',
            vmac: '00:00:00:00:01:01',
            ports: ['p2'],
            ...extra,
          }),
        throws: cls,
      })),
      {
        run: (t) =>
          fwdGroupAdd(t, 'sw0', 'fg1', { vip: '10.0.0.101', vmac: '00:00:00:00:01:01', ports: [] }),
        throws: InvalidArgumentError,
      },
      {
        run: (t) =>
          fwdGroupAdd(t, 'nope', 'fg1', {
            vip: '10.0.0.101',
            vmac: '00:00:00:00:01:01',
            ports: ['p2'],
          }),
        throws: NotFoundError,
      },
    ],
    nbctl: [
      [
        ...TWO_SWITCHES,
        '--',
        'fwd-group-add',
        'fg0',
        'sw0',
        '10.0.0.100',
        '00:00:00:00:01:00',
        'p1',
      ],
      {
        args: ['fwd-group-add', 'fg0', 'sw0', '10.0.0.9', '00:00:00:00:01:09', 'p2'],
        fails: true,
      },
      ...[
        ['fd00::100', '00:00:00:00:01:01', 'p2'],
        ['10.0.0.300', '00:00:00:00:01:01', 'p2'],
        ['10.0.0.101', '00:00:00:00:01', 'p2'],
        ['10.0.0.101', '00:00:00:00:01:01', 'q1'],
        ['10.0.0.101', '00:00:00:00:01:01', 'p2', 'nope'],
      ].map((rest) => ({ args: ['fwd-group-add', 'fg1', 'sw0', ...rest], fails: true as const })),
      {
        args: ['fwd-group-add', 'fg1', 'nope', '10.0.0.101', '00:00:00:00:01:01', 'p2'],
        fails: true,
      },
      { args: ['fwd-group-add', 'fg1', 'sw0', '10.0.0.101', '00:00:00:00:01:01'], fails: true },
    ],
  },
  {
    name: 'static-mac-binding-add: IPv4 and IPv6 (stored canonical), on two ports; --may-exist with the same MAC',
    group: 'static MAC binding',
    dsl: [
      router,
      (t) => {
        staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:01');
        staticMacBindingAdd(t, 'lrp0', 'FD00:0:0::50', '00:00:00:00:50:02');
        staticMacBindingAdd(t, 'lrp1', '172.16.0.50', '00:00:00:00:50:03');
      },
      (t) => staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:01', { mayExist: true }),
      (t) => {
        if (staticMacBindingList(t).length !== 3) throw new Error('staticMacBindingList');
      },
    ],
    nbctl: [
      ROUTER,
      ['static-mac-binding-add', 'lrp0', '172.16.0.50', '00:00:00:00:50:01'],
      ['static-mac-binding-add', 'lrp0', 'FD00:0:0::50', '00:00:00:00:50:02'],
      ['static-mac-binding-add', 'lrp1', '172.16.0.50', '00:00:00:00:50:03'],
      ['--may-exist', 'static-mac-binding-add', 'lrp0', '172.16.0.50', '00:00:00:00:50:01'],
    ],
  },
  {
    name: 'static-mac-binding-add --may-exist with another MAC (deliberate: mayExist never modifies)',
    group: 'static MAC binding',
    dsl: [
      (t) => {
        router(t);
        staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:01');
      },
      (t) => staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:09', { mayExist: true }),
    ],
    nbctl: [
      [...ROUTER, '--', 'static-mac-binding-add', 'lrp0', '172.16.0.50', '00:00:00:00:50:01'],
      ['--may-exist', 'static-mac-binding-add', 'lrp0', '172.16.0.50', '00:00:00:00:50:09'],
    ],
    difference: {
      explain:
        'ovn-nbctl --may-exist static-mac-binding-add rewrites the MAC; the DSL leaves the binding alone',
      nbctl: (d) =>
        rewrite(d, 'Static_MAC_Binding', 'mac', '00:00:00:00:50:09', '00:00:00:00:50:01'),
    },
  },
  {
    name: 'static-mac-binding-add refuses a duplicate, a bad IP or MAC, an unknown router port',
    group: 'static MAC binding',
    dsl: [
      (t) => {
        router(t);
        staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:01');
      },
      {
        run: (t) => staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:02'),
        throws: AlreadyExistsError,
      },
      {
        run: (t) => staticMacBindingAdd(t, 'lrp0', '172.16.0.256', '00:00:00:00:50:02'),
        throws: InvalidAddressError,
      },
      {
        run: (t) => staticMacBindingAdd(t, 'lrp0', '172.16.0.51', '00:00:00:00:50'),
        throws: InvalidAddressError,
      },
      {
        run: (t) => staticMacBindingAdd(t, 'nope', '172.16.0.51', '00:00:00:00:50:02'),
        throws: NotFoundError,
      },
    ],
    nbctl: [
      [...ROUTER, '--', 'static-mac-binding-add', 'lrp0', '172.16.0.50', '00:00:00:00:50:01'],
      { args: ['static-mac-binding-add', 'lrp0', '172.16.0.50', '00:00:00:00:50:02'], fails: true },
      {
        args: ['static-mac-binding-add', 'lrp0', '172.16.0.256', '00:00:00:00:50:02'],
        fails: true,
      },
      { args: ['static-mac-binding-add', 'lrp0', '172.16.0.51', '00:00:00:00:50'], fails: true },
      { args: ['static-mac-binding-add', 'nope', '172.16.0.51', '00:00:00:00:50:02'], fails: true },
    ],
  },
  {
    name: 'static-mac-binding-del: by canonical IP; a missing one fails, --if-exists does not; a bad IP',
    group: 'static MAC binding',
    dsl: [
      (t) => {
        router(t);
        staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:01');
        staticMacBindingAdd(t, 'lrp0', 'fd00::50', '00:00:00:00:50:02');
        staticMacBindingAdd(t, 'lrp1', '10.0.0.50', '00:00:00:00:50:03');
      },
      (t) => staticMacBindingDel(t, 'lrp0', 'FD00:0::50'),
      { run: (t) => staticMacBindingDel(t, 'lrp0', 'fd00::50'), throws: NotFoundError },
      (t) => staticMacBindingDel(t, 'lrp0', 'fd00::50', { ifExists: true }),
      { run: (t) => staticMacBindingDel(t, 'lrp0', 'fd00::zz'), throws: InvalidAddressError },
      (t) => staticMacBindingDel(t, 'lrp1', '10.0.0.50'),
    ],
    nbctl: [
      [
        ...ROUTER,
        '--',
        'static-mac-binding-add',
        'lrp0',
        '172.16.0.50',
        '00:00:00:00:50:01',
        '--',
        'static-mac-binding-add',
        'lrp0',
        'fd00::50',
        '00:00:00:00:50:02',
        '--',
        'static-mac-binding-add',
        'lrp1',
        '10.0.0.50',
        '00:00:00:00:50:03',
      ],
      ['static-mac-binding-del', 'lrp0', 'FD00:0::50'],
      { args: ['static-mac-binding-del', 'lrp0', 'fd00::50'], fails: true },
      ['--if-exists', 'static-mac-binding-del', 'lrp0', 'fd00::50'],
      { args: ['static-mac-binding-del', 'lrp0', 'fd00::zz'], fails: true },
      ['static-mac-binding-del', 'lrp1', '10.0.0.50'],
    ],
  },
  {
    name: 'all four together in one transaction, then ls-del takes the QoS rules and forwarding groups along',
    group: 'QoS',
    dsl: [
      (t) => {
        twoSwitches(t);
        router(t);
        qosAdd(t, 'sw0', { direction: 'to-lport', priority: 10, match: 'ip4', rate: 100 });
        meterAdd(t, 'm1', { rate: 100, unit: 'pktps' });
        fwdGroupAdd(t, 'sw0', 'fg0', {
          vip: '10.0.0.100',
          vmac: '00:00:00:00:01:00',
          ports: ['p1'],
        });
        staticMacBindingAdd(t, 'lrp0', '172.16.0.50', '00:00:00:00:50:01');
      },
      (t) => lsDel(t, 'sw0'),
    ],
    nbctl: [
      [
        ...TWO_SWITCHES,
        '--',
        ...ROUTER,
        '--',
        'qos-add',
        'sw0',
        'to-lport',
        '10',
        'ip4',
        'rate=100',
        '--',
        'meter-add',
        'm1',
        'drop',
        '100',
        'pktps',
        '--',
        'fwd-group-add',
        'fg0',
        'sw0',
        '10.0.0.100',
        '00:00:00:00:01:00',
        'p1',
        '--',
        'static-mac-binding-add',
        'lrp0',
        '172.16.0.50',
        '00:00:00:00:50:01',
      ],
      ['ls-del', 'sw0'],
    ],
  },
];

const lines = (out: string): string[] => out.split('\n').filter((l) => l !== '');

/**
 * The list operations against what `ovn-nbctl qos-list`, `meter-list`,
 * `fwd-group-list` and `static-mac-binding-list` print for a database that
 * ovn-nbctl built: the DSL's rows, written in ovn-nbctl's format, must be
 * its lines in its order (`fwd-group-list` follows the database's order:
 * compared as a set).
 */
export const breadthAListScenarios: readonly GetterScenario[] = [
  {
    name: 'qosList, meterList, fwdGroupList and staticMacBindingList print as ovn-nbctl lists them',
    setup: [
      [...TWO_SWITCHES, '--', ...ROUTER],
      ['qos-add', 'sw0', 'to-lport', '100', 'ip4', 'dscp=10'],
      ['qos-add', 'sw0', 'from-lport', '100', 'ip6', 'rate=100', 'burst=10'],
      ['qos-add', 'sw0', 'from-lport', '200', QOS_MATCH, 'rate=100', 'dscp=1'],
      ['qos-add', 'sw0', 'from-lport', '200', 'arp', 'dscp=2'],
      ['meter-add', 'm-b', 'drop', '10', 'pktps', '5'],
      ['--fair', 'meter-add', 'm-a', 'drop', '1000', 'kbps'],
      ['fwd-group-add', 'fg1', 'sw0', '10.0.0.101', '00:00:00:00:01:01', 'p2', 'p1'],
      ['--liveness', 'fwd-group-add', 'fg0', 'sw1', '10.1.0.100', '00:00:00:00:01:00', 'q1'],
      ['static-mac-binding-add', 'lrp1', '10.0.0.50', '00:00:00:00:50:01'],
      ['static-mac-binding-add', 'lrp0', 'fd00::50', '00:00:00:00:50:02'],
      ['static-mac-binding-add', 'lrp0', '172.16.0.50', '00:00:00:00:50:03'],
    ],
    reads: [
      {
        dsl: (t) =>
          qosList(t, 'sw0').map((q) =>
            [
              `${q.direction.padStart(10)} ${String(q.priority).padStart(5)} (${q.match})`,
              q.bandwidth.rate !== undefined ? ` rate=${q.bandwidth.rate}` : '',
              q.bandwidth.burst !== undefined ? ` burst=${q.bandwidth.burst}` : '',
              q.action.dscp !== undefined ? ` dscp=${q.action.dscp}` : '',
            ].join(''),
          ),
        nbctl: ['qos-list', 'sw0'],
        parse: lines,
      },
      {
        dsl: (t) =>
          meterList(t).flatMap((m) => [
            `${m.name}:${m.fair === null ? '' : m.fair ? ' (fair)' : ' (shared)'} bands:`,
            ...m.bands.map((u) => {
              const b = t.get('Meter_Band', u)!;
              const burst = b.burst_size
                ? `, ${b.burst_size} ${m.unit === 'kbps' ? 'kb' : 'packet'} burst`
                : '';
              return `  ${b.action}: ${b.rate} ${m.unit}${burst}`;
            }),
          ]),
        nbctl: ['meter-list'],
        parse: lines,
      },
      {
        dsl: (t) =>
          fwdGroupList(t)
            .map((g) => `${g.name} ${g.vip} ${g.vmac} ${g.child_port.join(' ')}`)
            .sort(),
        nbctl: ['fwd-group-list'],
        parse: (out) =>
          lines(out)
            .slice(1)
            .map((l) => {
              const [name, , vip, vmac, ...ports] = l.trim().split(/\s+/);
              return `${name} ${vip} ${vmac} ${ports.sort().join(' ')}`;
            })
            .sort(),
      },
      {
        dsl: (t) => fwdGroupList(t, 'sw1').map((g) => g.name),
        nbctl: ['fwd-group-list', 'sw1'],
        parse: (out) =>
          lines(out)
            .slice(1)
            .map((l) => l.trim().split(/\s+/)[0]),
      },
      {
        dsl: (t) => staticMacBindingList(t).map((b) => [b.logical_port, b.ip, b.mac]),
        nbctl: ['static-mac-binding-list'],
        parse: (out) =>
          lines(out)
            .slice(1)
            .map((l) => l.trim().split(/\s+/)),
      },
    ],
  },
];

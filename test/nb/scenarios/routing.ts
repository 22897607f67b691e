/**
 * Differential scenarios of the routing side: logical routers and their
 * ports, gateway chassis, HA chassis groups, NAT, policies, static routes,
 * load balancers.
 */

import {
  AlreadyExistsError,
  addressSetAdd,
  connectSwitchToRouter,
  haChassisGroupAdd,
  haChassisGroupRemoveChassis,
  haChassisGroupSetChassisPriority,
  lbAdd,
  lbAddVip,
  lbDel,
  lbDelVip,
  lbHealthCheckAdd,
  lbSetIpPortMapping,
  lrAdd,
  lrDel,
  lrLbAdd,
  lrNatAdd,
  lrNatDel,
  lrNatEnsure,
  lrPolicyAdd,
  lrPolicyDel,
  lrpAdd,
  lrpDel,
  lrpDelGatewayChassis,
  lrpSet,
  lrpSetGatewayChassis,
  lrRouteAdd,
  lrRouteDel,
  lrRouteEnsure,
  lsAdd,
  lsLbAdd,
  lsLbDel,
  lspAdd,
  MissingNexthopError,
  match,
  type NbTxn,
} from '../../../src/nb/index.js';
import { type RawDump, rowsOf, type Scenario } from '../helpers/differential.js';

/** lr0 with a port lrp0 (10.0.0.1/24) and a switch sw0 with ports web1, web2. */
function base(t: NbTxn): void {
  lrAdd(t, 'lr0');
  lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['10.0.0.1/24']);
  lsAdd(t, 'sw0');
  lspAdd(t, 'sw0', 'web1', { addresses: ['00:00:00:00:00:11 10.0.0.11'] });
  lspAdd(t, 'sw0', 'web2', { addresses: ['00:00:00:00:00:12 10.0.0.12'] });
}
const BASE = [
  'lr-add',
  'lr0',
  '--',
  'lrp-add',
  'lr0',
  'lrp0',
  '00:00:00:00:ff:01',
  '10.0.0.1/24',
  '--',
  'ls-add',
  'sw0',
  '--',
  'lsp-add',
  'sw0',
  'web1',
  '--',
  'lsp-set-addresses',
  'web1',
  '00:00:00:00:00:11 10.0.0.11',
  '--',
  'lsp-add',
  'sw0',
  'web2',
  '--',
  'lsp-set-addresses',
  'web2',
  '00:00:00:00:00:12 10.0.0.12',
];

function setColumn(
  d: RawDump,
  table: string,
  where: (row: Record<string, unknown>) => boolean,
  column: string,
  value: unknown,
): void {
  const rows = rowsOf(d, table).filter(where);
  if (rows.length !== 1)
    throw new Error(`expected one ${table} row to adjust, found ${rows.length}`);
  rows[0]![column] = value;
}

export const routingScenarios: readonly Scenario[] = [
  {
    name: 'routers and router ports: networks, peers, options, --may-exist, delete',
    group: 'logical router',
    dsl: [
      (t) => {
        lrAdd(t, 'lr0', { options: { chassis: 'gw1' } });
        lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['10.0.0.1/24', 'fd00::1/64']);
        lrpAdd(t, 'lr0', 'lrp1', '00:00:00:00:ff:02', ['192.168.0.1/30'], { peer: 'lrp-x' });
        lrAdd(t, 'lr1');
        lrpAdd(t, 'lr1', 'lrp-x', '00:00:00:00:ff:03', ['192.168.0.2/30'], { peer: 'lrp1' });
        lrAdd(t, 'lr2');
      },
      (t) =>
        lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:FF:01', ['fd00::1/64', '10.0.0.1/24'], {
          mayExist: true,
        }),
      {
        run: (t) =>
          lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:09', ['10.0.0.1/24'], { mayExist: true }),
        throws: AlreadyExistsError,
      },
      (t) => {
        lrpDel(t, 'lrp1');
        lrDel(t, 'lr2');
        lrDel(t, 'nope', { ifExists: true });
      },
    ],
    nbctl: [
      [
        'lr-add',
        'lr0',
        '--',
        'set',
        'Logical_Router',
        'lr0',
        'options:chassis=gw1',
        '--',
        'lrp-add',
        'lr0',
        'lrp0',
        '00:00:00:00:ff:01',
        '10.0.0.1/24',
        'fd00::1/64',
        '--',
        'lrp-add',
        'lr0',
        'lrp1',
        '00:00:00:00:ff:02',
        '192.168.0.1/30',
        'peer=lrp-x',
        '--',
        'lr-add',
        'lr1',
        '--',
        'lrp-add',
        'lr1',
        'lrp-x',
        '00:00:00:00:ff:03',
        '192.168.0.2/30',
        'peer=lrp1',
        '--',
        'lr-add',
        'lr2',
      ],
      ['--may-exist', 'lrp-add', 'lr0', 'lrp0', '00:00:00:00:FF:01', 'fd00::1/64', '10.0.0.1/24'],
      {
        args: ['--may-exist', 'lrp-add', 'lr0', 'lrp0', '00:00:00:00:ff:09', '10.0.0.1/24'],
        fails: true,
      },
      ['lrp-del', 'lrp1', '--', 'lr-del', 'lr2', '--', '--if-exists', 'lr-del', 'nope'],
    ],
  },
  {
    name: 'lrpSet merges options: a redirect-type change keeps the gateway MTU',
    group: 'router port',
    dsl: [
      (t) => {
        lrAdd(t, 'lr0');
        lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['172.16.0.1/24'], {
          options: { gateway_mtu: '1400', 'redirect-type': 'overlay' },
        });
      },
      (t) => lrpSet(t, 'lrp0', { options: { 'redirect-type': 'bridged' } }),
      (t) => lrpSet(t, 'lrp0', { externalIds: { a: '1' }, options: { gateway_mtu: null } }),
    ],
    nbctl: [
      [
        'lr-add',
        'lr0',
        '--',
        'lrp-add',
        'lr0',
        'lrp0',
        '00:00:00:00:ff:01',
        '172.16.0.1/24',
        '--',
        'set',
        'Logical_Router_Port',
        'lrp0',
        'options:gateway_mtu=1400',
        'options:redirect-type=overlay',
      ],
      ['set', 'Logical_Router_Port', 'lrp0', 'options:redirect-type=bridged'],
      [
        'set',
        'Logical_Router_Port',
        'lrp0',
        'external_ids:a=1',
        '--',
        'remove',
        'Logical_Router_Port',
        'lrp0',
        'options',
        'gateway_mtu',
      ],
    ],
  },
  {
    name: 'gateway chassis: set two, update a priority, delete one',
    group: 'logical router port',
    dsl: [
      (t) => {
        lrAdd(t, 'lr0');
        lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['172.16.0.1/24']);
        lrpSetGatewayChassis(t, 'lrp0', 'ch1', 10);
        lrpSetGatewayChassis(t, 'lrp0', 'ch2', 20);
      },
      (t) => {
        lrpSetGatewayChassis(t, 'lrp0', 'ch1', 30);
        lrpDelGatewayChassis(t, 'lrp0', 'ch2');
      },
    ],
    nbctl: [
      [
        'lr-add',
        'lr0',
        '--',
        'lrp-add',
        'lr0',
        'lrp0',
        '00:00:00:00:ff:01',
        '172.16.0.1/24',
        '--',
        'lrp-set-gateway-chassis',
        'lrp0',
        'ch1',
        '10',
        '--',
        'lrp-set-gateway-chassis',
        'lrp0',
        'ch2',
        '20',
      ],
      ['lrp-set-gateway-chassis', 'lrp0', 'ch1', '30'],
      ['lrp-del-gateway-chassis', 'lrp0', 'ch2'],
    ],
  },
  {
    name: 'an HA chassis group on a router port; change a priority, remove a chassis',
    group: 'logical router port',
    dsl: [
      (t) => {
        lrAdd(t, 'lr0');
        haChassisGroupAdd(t, 'hag', { chassis: { c1: 30, c2: 20 } });
        lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['172.16.0.1/24'], { haChassisGroup: 'hag' });
      },
      (t) => {
        haChassisGroupSetChassisPriority(t, 'hag', 'c2', 40);
        haChassisGroupRemoveChassis(t, 'hag', 'c1');
      },
    ],
    nbctl: [
      [
        'lr-add',
        'lr0',
        '--',
        'ha-chassis-group-add',
        'hag',
        '--',
        'ha-chassis-group-add-chassis',
        'hag',
        'c1',
        '30',
        '--',
        'ha-chassis-group-add-chassis',
        'hag',
        'c2',
        '20',
        '--',
        'lrp-add',
        'lr0',
        'lrp0',
        '00:00:00:00:ff:01',
        '172.16.0.1/24',
      ],
      async (nbctl, uuid) => {
        await nbctl(
          'set',
          'Logical_Router_Port',
          'lrp0',
          `ha_chassis_group=${await uuid('HA_Chassis_Group', 'name=hag')}`,
        );
      },
      [
        'ha-chassis-group-add-chassis',
        'hag',
        'c2',
        '40',
        '--',
        'ha-chassis-group-remove-chassis',
        'hag',
        'c1',
      ],
    ],
  },
  {
    name: 'connecting a switch to a router (router port + router-type switch port)',
    group: 'logical router port',
    dsl: [
      (t) => {
        lsAdd(t, 'sw0');
        lrAdd(t, 'lr0');
        connectSwitchToRouter(t, {
          switch: 'sw0',
          router: 'lr0',
          mac: '00:00:00:00:ff:01',
          networks: ['10.0.0.1/24', 'fd00::1/64'],
        });
      },
    ],
    nbctl: [
      [
        'ls-add',
        'sw0',
        '--',
        'lr-add',
        'lr0',
        '--',
        'lrp-add',
        'lr0',
        'lr0-sw0',
        '00:00:00:00:ff:01',
        '10.0.0.1/24',
        'fd00::1/64',
        '--',
        'lsp-add',
        'sw0',
        'sw0-lr0',
        '--',
        'lsp-set-type',
        'sw0-lr0',
        'router',
        '--',
        'lsp-set-addresses',
        'sw0-lr0',
        'router',
        '--',
        'lsp-set-options',
        'sw0-lr0',
        'router-port=lr0-sw0',
      ],
    ],
  },
  {
    name: 'NAT: snat of a network, dnat, distributed dnat_and_snat, a port range',
    group: 'NAT',
    dsl: [
      (t) => {
        base(t);
        lrNatAdd(t, 'lr0', { type: 'snat', externalIp: '172.16.0.1', logicalIp: '10.0.0.5/24' });
        lrNatAdd(t, 'lr0', { type: 'dnat', externalIp: '172.16.0.10', logicalIp: '10.0.0.10' });
        lrNatAdd(t, 'lr0', {
          type: 'dnat_and_snat',
          externalIp: '172.16.0.11',
          logicalIp: '10.0.0.11',
          logicalPort: 'web1',
          externalMac: '00:00:00:00:aa:11',
        });
        lrNatAdd(t, 'lr0', {
          type: 'dnat',
          externalIp: '172.16.0.12',
          logicalIp: '10.0.0.12',
          externalPortRange: '8080-8090',
        });
      },
    ],
    nbctl: [
      [
        ...BASE,
        '--',
        'lr-nat-add',
        'lr0',
        'snat',
        '172.16.0.1',
        '10.0.0.5/24',
        '--',
        'lr-nat-add',
        'lr0',
        'dnat',
        '172.16.0.10',
        '10.0.0.10',
        '--',
        'lr-nat-add',
        'lr0',
        'dnat_and_snat',
        '172.16.0.11',
        '10.0.0.11',
        'web1',
        '00:00:00:00:aa:11',
        '--',
        '--portrange',
        'lr-nat-add',
        'lr0',
        'dnat',
        '172.16.0.12',
        '10.0.0.12',
        '8080-8090',
      ],
    ],
  },
  {
    name: 'NAT: stateless dnat_and_snat; delete by type and IP, then by type',
    group: 'NAT',
    dsl: [
      (t) => {
        base(t);
        lrNatAdd(t, 'lr0', {
          type: 'dnat_and_snat',
          externalIp: '172.16.0.20',
          logicalIp: '10.0.0.20',
          stateless: true,
        });
        lrNatAdd(t, 'lr0', { type: 'snat', externalIp: '172.16.0.1', logicalIp: '10.0.0.0/24' });
        lrNatAdd(t, 'lr0', { type: 'snat', externalIp: '172.16.0.2', logicalIp: '10.1.0.0/16' });
        lrNatAdd(t, 'lr0', { type: 'dnat', externalIp: '172.16.0.30', logicalIp: '10.0.0.30' });
        lrNatAdd(t, 'lr0', { type: 'dnat', externalIp: '172.16.0.31', logicalIp: '10.0.0.31' });
      },
      (t) => {
        lrNatDel(t, 'lr0', { type: 'snat', ip: '10.1.0.0/16' });
        lrNatDel(t, 'lr0', { type: 'dnat' });
      },
    ],
    nbctl: [
      [
        ...BASE,
        '--',
        '--stateless',
        'lr-nat-add',
        'lr0',
        'dnat_and_snat',
        '172.16.0.20',
        '10.0.0.20',
        '--',
        'lr-nat-add',
        'lr0',
        'snat',
        '172.16.0.1',
        '10.0.0.0/24',
        '--',
        'lr-nat-add',
        'lr0',
        'snat',
        '172.16.0.2',
        '10.1.0.0/16',
        '--',
        'lr-nat-add',
        'lr0',
        'dnat',
        '172.16.0.30',
        '10.0.0.30',
        '--',
        'lr-nat-add',
        'lr0',
        'dnat',
        '172.16.0.31',
        '10.0.0.31',
      ],
      ['lr-nat-del', 'lr0', 'snat', '10.1.0.0/16', '--', 'lr-nat-del', 'lr0', 'dnat'],
    ],
  },
  {
    name: 'NAT: gateway port on a router with two distributed gateway ports; allowed external IPs',
    group: 'NAT',
    dsl: [
      (t) => {
        lrAdd(t, 'lr0');
        lrpAdd(t, 'lr0', 'lrp1', '00:00:00:00:ff:01', ['172.16.0.1/24'], {
          gatewayChassis: { ch1: 10 },
        });
        lrpAdd(t, 'lr0', 'lrp2', '00:00:00:00:ff:02', ['172.17.0.1/24'], {
          gatewayChassis: { ch2: 10 },
        });
        addressSetAdd(t, 'allowed', ['192.0.2.0/24']);
        lrNatAdd(t, 'lr0', {
          type: 'snat',
          externalIp: '172.17.0.1',
          logicalIp: '10.0.0.0/24',
          gatewayPort: 'lrp2',
        });
        lrNatAdd(t, 'lr0', {
          type: 'dnat_and_snat',
          externalIp: '172.16.0.50',
          logicalIp: '10.0.0.50',
          allowedExtIps: 'allowed',
        });
      },
    ],
    nbctl: [
      [
        'lr-add',
        'lr0',
        '--',
        'lrp-add',
        'lr0',
        'lrp1',
        '00:00:00:00:ff:01',
        '172.16.0.1/24',
        '--',
        'lrp-add',
        'lr0',
        'lrp2',
        '00:00:00:00:ff:02',
        '172.17.0.1/24',
        '--',
        'lrp-set-gateway-chassis',
        'lrp1',
        'ch1',
        '10',
        '--',
        'lrp-set-gateway-chassis',
        'lrp2',
        'ch2',
        '10',
        '--',
        'create',
        'Address_Set',
        'name=allowed',
        'addresses=["192.0.2.0/24"]',
      ],
      [
        '--gateway-port=lrp2',
        'lr-nat-add',
        'lr0',
        'snat',
        '172.17.0.1',
        '10.0.0.0/24',
        '--',
        'lr-nat-add',
        'lr0',
        'dnat_and_snat',
        '172.16.0.50',
        '10.0.0.50',
      ],
      ['lr-nat-update-ext-ip', 'lr0', 'dnat_and_snat', '172.16.0.50', 'allowed'],
    ],
  },
  {
    name: 'NAT ensure (kube-ovn style): update the external IP of an snat, the logical side of a dnat_and_snat, create a missing one',
    group: 'NAT',
    dsl: [
      (t) => {
        base(t);
        lrNatAdd(t, 'lr0', { type: 'snat', externalIp: '172.16.0.1', logicalIp: '10.0.0.0/24' });
        lrNatAdd(t, 'lr0', {
          type: 'dnat_and_snat',
          externalIp: '172.16.0.11',
          logicalIp: '10.0.0.11',
        });
      },
      (t) => {
        lrNatEnsure(t, 'lr0', { type: 'snat', externalIp: '172.16.0.2', logicalIp: '10.0.0.0/24' });
        lrNatEnsure(t, 'lr0', {
          type: 'dnat_and_snat',
          externalIp: '172.16.0.11',
          logicalIp: '10.0.0.12',
          logicalPort: 'web2',
          externalMac: '00:00:00:00:aa:12',
        });
        lrNatEnsure(t, 'lr0', { type: 'snat', externalIp: '172.16.0.3', logicalIp: '10.1.0.0/16' });
      },
    ],
    nbctl: [
      [
        ...BASE,
        '--',
        'lr-nat-add',
        'lr0',
        'snat',
        '172.16.0.1',
        '10.0.0.0/24',
        '--',
        'lr-nat-add',
        'lr0',
        'dnat_and_snat',
        '172.16.0.11',
        '10.0.0.11',
      ],
      [
        'lr-nat-del',
        'lr0',
        'snat',
        '10.0.0.0/24',
        '--',
        'lr-nat-del',
        'lr0',
        'dnat_and_snat',
        '172.16.0.11',
      ],
      [
        'lr-nat-add',
        'lr0',
        'snat',
        '172.16.0.2',
        '10.0.0.0/24',
        '--',
        'lr-nat-add',
        'lr0',
        'dnat_and_snat',
        '172.16.0.11',
        '10.0.0.12',
        'web2',
        '00:00:00:00:aa:12',
        '--',
        'lr-nat-add',
        'lr0',
        'snat',
        '172.16.0.3',
        '10.1.0.0/16',
      ],
    ],
  },
  {
    name: 'deliberate: --may-exist lr-nat-add updates logical_port and external_mac, mayExist leaves the rule alone',
    group: 'NAT',
    dsl: [
      (t) => {
        base(t);
        lrNatAdd(t, 'lr0', {
          type: 'dnat_and_snat',
          externalIp: '172.16.0.11',
          logicalIp: '10.0.0.11',
        });
      },
      (t) =>
        lrNatAdd(
          t,
          'lr0',
          {
            type: 'dnat_and_snat',
            externalIp: '172.16.0.11',
            logicalIp: '10.0.0.11',
            logicalPort: 'web1',
            externalMac: '00:00:00:00:aa:11',
          },
          { mayExist: true },
        ),
    ],
    nbctl: [
      [...BASE, '--', 'lr-nat-add', 'lr0', 'dnat_and_snat', '172.16.0.11', '10.0.0.11'],
      [
        '--may-exist',
        'lr-nat-add',
        'lr0',
        'dnat_and_snat',
        '172.16.0.11',
        '10.0.0.11',
        'web1',
        '00:00:00:00:aa:11',
      ],
    ],
    difference: {
      explain: 'ovn-nbctl updated logical_port/external_mac; the DSL (mayExist = no-op) did not',
      nbctl: (d) => {
        setColumn(d, 'NAT', () => true, 'logical_port', ['set', []]);
        setColumn(d, 'NAT', () => true, 'external_mac', ['set', []]);
      },
    },
  },
  {
    name: 'deliberate: the NAT external IP is stored in canonical form (ovn-nbctl stores it as typed)',
    group: 'NAT',
    dsl: [
      (t) => {
        lrAdd(t, 'lr0');
        lrNatAdd(t, 'lr0', {
          type: 'dnat_and_snat',
          externalIp: 'FD00:0:0::10',
          logicalIp: 'fd01::0010',
        });
      },
    ],
    nbctl: [
      ['lr-add', 'lr0', '--', 'lr-nat-add', 'lr0', 'dnat_and_snat', 'FD00:0:0::10', 'fd01::0010'],
    ],
    difference: {
      explain: 'the DSL writes fd00::10 where ovn-nbctl keeps FD00:0:0::10',
      nbctl: (d) => setColumn(d, 'NAT', () => true, 'external_ip', 'fd00::10'),
    },
  },
  {
    name: 'router policies: reroute with nexthops and options, drop, allow; --may-exist',
    group: 'router policy',
    dsl: [
      (t) => {
        base(t);
        lrPolicyAdd(t, 'lr0', {
          priority: 100,
          match: 'ip4.src == 10.0.0.0/24',
          action: 'reroute',
          nexthops: ['10.0.0.254', '10.0.0.253'],
          options: { pkt_mark: '5' },
        });
        lrPolicyAdd(t, 'lr0', { priority: 200, match: match.ip4Dst('1.1.1.1'), action: 'drop' });
        lrPolicyAdd(t, 'lr0', {
          priority: 300,
          match: match.and(match.inport('lrp0'), match.field('ip6')),
          action: 'allow',
        });
      },
      (t) =>
        lrPolicyAdd(
          t,
          'lr0',
          { priority: 200, match: 'ip4.dst == 1.1.1.1', action: 'drop' },
          { mayExist: true },
        ),
    ],
    nbctl: [
      [
        ...BASE,
        '--',
        'lr-policy-add',
        'lr0',
        '100',
        'ip4.src == 10.0.0.0/24',
        'reroute',
        '10.0.0.254,10.0.0.253',
        'pkt_mark=5',
        '--',
        'lr-policy-add',
        'lr0',
        '200',
        'ip4.dst == 1.1.1.1',
        'drop',
        '--',
        'lr-policy-add',
        'lr0',
        '300',
        'inport == "lrp0" && ip6',
        'allow',
      ],
      ['--may-exist', 'lr-policy-add', 'lr0', '200', 'ip4.dst == 1.1.1.1', 'drop'],
    ],
  },
  {
    name: 'router policies: delete by priority and match, by external_ids (UUID for ovn-nbctl), by priority, all',
    group: 'router policy',
    dsl: [
      (t) => {
        base(t);
        lrPolicyAdd(t, 'lr0', { priority: 100, match: 'ip4.src == 10.0.0.1', action: 'drop' });
        lrPolicyAdd(t, 'lr0', { priority: 100, match: 'ip4.src == 10.0.0.2', action: 'drop' });
        lrPolicyAdd(t, 'lr0', {
          priority: 150,
          match: 'ip4.src == 10.0.0.3',
          action: 'allow',
          externalIds: { owner: 'egress' },
        });
        lrPolicyAdd(t, 'lr0', { priority: 200, match: 'ip4.src == 10.0.0.4', action: 'drop' });
        lrPolicyAdd(t, 'lr0', { priority: 300, match: 'ip4.src == 10.0.0.5', action: 'drop' });
      },
      (t) => {
        lrPolicyDel(t, 'lr0', { priority: 100, match: 'ip4.src == 10.0.0.1' });
        lrPolicyDel(t, 'lr0', { externalIds: { owner: 'egress' } });
      },
      (t) => lrPolicyDel(t, 'lr0', { priority: 200 }),
    ],
    nbctl: [
      [
        ...BASE,
        '--',
        'lr-policy-add',
        'lr0',
        '100',
        'ip4.src == 10.0.0.1',
        'drop',
        '--',
        'lr-policy-add',
        'lr0',
        '100',
        'ip4.src == 10.0.0.2',
        'drop',
        '--',
        'lr-policy-add',
        'lr0',
        '150',
        'ip4.src == 10.0.0.3',
        'allow',
        '--',
        'lr-policy-add',
        'lr0',
        '200',
        'ip4.src == 10.0.0.4',
        'drop',
        '--',
        'lr-policy-add',
        'lr0',
        '300',
        'ip4.src == 10.0.0.5',
        'drop',
      ],
      async (nbctl, uuid) => {
        await nbctl(
          'set',
          'Logical_Router_Policy',
          await uuid('Logical_Router_Policy', 'priority=150'),
          'external_ids:owner=egress',
        );
        const owned = await uuid('Logical_Router_Policy', 'external_ids:owner=egress');
        await nbctl(
          'lr-policy-del',
          'lr0',
          '100',
          'ip4.src == 10.0.0.1',
          '--',
          'lr-policy-del',
          'lr0',
          owned,
        );
      },
      ['lr-policy-del', 'lr0', '200'],
    ],
  },
  {
    name: 'a reroute policy without nexthop fails on both sides',
    group: 'router policy',
    dsl: [
      base,
      {
        run: (t) => lrPolicyAdd(t, 'lr0', { priority: 10, match: 'ip4', action: 'reroute' }),
        throws: MissingNexthopError,
      },
    ],
    nbctl: [BASE, { args: ['lr-policy-add', 'lr0', '10', 'ip4', 'reroute'], fails: true }],
  },
  {
    name: 'static routes: default, src-ip policy, route table, output port, IPv6, prefix normalization, discard',
    group: 'static route',
    dsl: [
      (t) => {
        base(t);
        lrRouteAdd(t, 'lr0', { prefix: '0.0.0.0/0', nexthop: '10.0.0.254' });
        lrRouteAdd(t, 'lr0', { prefix: '10.0.0.0/24', nexthop: '10.0.0.253', policy: 'src-ip' });
        lrRouteAdd(t, 'lr0', { prefix: '10.2.0.0/16', nexthop: '10.0.0.2', routeTable: 'rtb1' });
        lrRouteAdd(t, 'lr0', { prefix: '10.4.0.0/16', nexthop: '10.0.0.9', outputPort: 'lrp0' });
        lrRouteAdd(t, 'lr0', { prefix: 'fd00::/64', nexthop: 'fd01:0::1' });
        lrRouteAdd(t, 'lr0', { prefix: '10.3.0.7/16', nexthop: '10.0.0.8', policy: 'dst-ip' });
        lrRouteAdd(t, 'lr0', { prefix: '192.168.0.0/16', nexthop: 'discard' });
      },
    ],
    nbctl: [
      [
        ...BASE,
        '--',
        'lr-route-add',
        'lr0',
        '0.0.0.0/0',
        '10.0.0.254',
        '--',
        '--policy=src-ip',
        'lr-route-add',
        'lr0',
        '10.0.0.0/24',
        '10.0.0.253',
        '--',
        '--route-table=rtb1',
        'lr-route-add',
        'lr0',
        '10.2.0.0/16',
        '10.0.0.2',
        '--',
        'lr-route-add',
        'lr0',
        '10.4.0.0/16',
        '10.0.0.9',
        'lrp0',
        '--',
        'lr-route-add',
        'lr0',
        'fd00::/64',
        'fd01:0::1',
        '--',
        '--policy=dst-ip',
        'lr-route-add',
        'lr0',
        '10.3.0.7/16',
        '10.0.0.8',
        '--',
        'lr-route-add',
        'lr0',
        '192.168.0.0/16',
        'discard',
      ],
    ],
  },
  {
    name: 'ECMP routes and ecmp-symmetric-reply; delete one nexthop; --if-exists',
    group: 'static route',
    dsl: [
      (t) => {
        base(t);
        lrRouteAdd(t, 'lr0', { prefix: '10.1.0.0/16', nexthop: '10.0.0.2', ecmp: true });
        lrRouteAdd(t, 'lr0', { prefix: '10.1.0.0/16', nexthop: '10.0.0.3', ecmp: true });
        lrRouteAdd(t, 'lr0', {
          prefix: '10.9.0.0/16',
          nexthop: '10.0.0.4',
          ecmpSymmetricReply: true,
        });
      },
      {
        run: (t) => lrRouteAdd(t, 'lr0', { prefix: '10.1.0.0/16', nexthop: '10.0.0.5' }),
        throws: AlreadyExistsError,
      },
      (t) => {
        lrRouteDel(t, 'lr0', { prefix: '10.1.0.0/16', nexthop: '10.0.0.3' });
        lrRouteDel(t, 'lr0', { prefix: '10.7.0.0/16' }, { ifExists: true });
      },
    ],
    nbctl: [
      [
        ...BASE,
        '--',
        '--ecmp',
        'lr-route-add',
        'lr0',
        '10.1.0.0/16',
        '10.0.0.2',
        '--',
        '--ecmp',
        'lr-route-add',
        'lr0',
        '10.1.0.0/16',
        '10.0.0.3',
        '--',
        '--ecmp-symmetric-reply',
        'lr-route-add',
        'lr0',
        '10.9.0.0/16',
        '10.0.0.4',
      ],
      { args: ['lr-route-add', 'lr0', '10.1.0.0/16', '10.0.0.5'], fails: true },
      [
        'lr-route-del',
        'lr0',
        '10.1.0.0/16',
        '10.0.0.3',
        '--',
        '--if-exists',
        'lr-route-del',
        'lr0',
        '10.7.0.0/16',
      ],
    ],
  },
  {
    name: 'a route with BFD (the BFD row is created), then deleted with it',
    group: 'static route',
    dsl: [
      (t) => {
        base(t);
        lrRouteAdd(t, 'lr0', {
          prefix: '10.5.0.0/16',
          nexthop: '10.0.0.5',
          outputPort: 'lrp0',
          bfd: true,
        });
        lrRouteAdd(t, 'lr0', {
          prefix: '10.6.0.0/16',
          nexthop: '10.0.0.6',
          outputPort: 'lrp0',
          bfd: true,
        });
      },
      (t) => lrRouteDel(t, 'lr0', { prefix: '10.6.0.0/16' }),
    ],
    nbctl: [
      [
        ...BASE,
        '--',
        '--bfd',
        'lr-route-add',
        'lr0',
        '10.5.0.0/16',
        '10.0.0.5',
        'lrp0',
        '--',
        '--bfd',
        'lr-route-add',
        'lr0',
        '10.6.0.0/16',
        '10.0.0.6',
        'lrp0',
      ],
      ['lr-route-del', 'lr0', '10.6.0.0/16'],
    ],
  },
  {
    name: 'lrRouteEnsure updates a route in place like --may-exist lr-route-add',
    group: 'static route',
    dsl: [
      (t) => {
        base(t);
        lrRouteAdd(t, 'lr0', { prefix: '0.0.0.0/0', nexthop: '10.0.0.254' });
      },
      (t) =>
        lrRouteEnsure(t, 'lr0', { prefix: '0.0.0.0/0', nexthop: '10.0.0.253', outputPort: 'lrp0' }),
    ],
    nbctl: [
      [...BASE, '--', 'lr-route-add', 'lr0', '0.0.0.0/0', '10.0.0.254'],
      ['--may-exist', 'lr-route-add', 'lr0', '0.0.0.0/0', '10.0.0.253', 'lrp0'],
    ],
  },
  {
    name: 'deliberate: --may-exist lr-route-add updates the nexthop, mayExist leaves the route alone',
    group: 'static route',
    dsl: [
      (t) => {
        base(t);
        lrRouteAdd(t, 'lr0', { prefix: '0.0.0.0/0', nexthop: '10.0.0.254' });
      },
      (t) =>
        lrRouteAdd(t, 'lr0', { prefix: '0.0.0.0/0', nexthop: '10.0.0.253' }, { mayExist: true }),
    ],
    nbctl: [
      [...BASE, '--', 'lr-route-add', 'lr0', '0.0.0.0/0', '10.0.0.254'],
      ['--may-exist', 'lr-route-add', 'lr0', '0.0.0.0/0', '10.0.0.253'],
    ],
    difference: {
      explain: 'ovn-nbctl changed the nexthop to 10.0.0.253; the DSL kept 10.0.0.254',
      nbctl: (d) =>
        setColumn(d, 'Logical_Router_Static_Route', () => true, 'nexthop', '10.0.0.254'),
    },
  },
  {
    name: 'load balancers: VIPs with and without ports, protocol, attach to a switch and a router, detach',
    group: 'load balancer',
    dsl: [
      (t) => {
        base(t);
        lbAdd(t, 'lb0', { vips: { '10.0.0.10:80': ['10.0.0.5:8080', '10.0.0.6:8080'] } });
        lbAdd(t, 'lb1', { vips: { '10.0.0.11': ['10.0.0.7'] } });
        lsLbAdd(t, 'sw0', 'lb0');
        lsLbAdd(t, 'sw0', 'lb1');
        lrLbAdd(t, 'lr0', 'lb0');
      },
      (t) => {
        lsLbDel(t, 'sw0', 'lb1');
        lsLbAdd(t, 'sw0', 'lb0', { mayExist: true });
      },
    ],
    nbctl: [
      [
        ...BASE,
        '--',
        'lb-add',
        'lb0',
        '10.0.0.10:80',
        '10.0.0.5:8080,10.0.0.6:8080',
        '--',
        'lb-add',
        'lb1',
        '10.0.0.11',
        '10.0.0.7',
        '--',
        'ls-lb-add',
        'sw0',
        'lb0',
        '--',
        'ls-lb-add',
        'sw0',
        'lb1',
        '--',
        'lr-lb-add',
        'lr0',
        'lb0',
      ],
      ['ls-lb-del', 'sw0', 'lb1', '--', '--may-exist', 'ls-lb-add', 'sw0', 'lb0'],
    ],
  },
  {
    name: 'load balancer: udp, an IPv6 VIP added, a health check, ip_port_mappings; remove a VIP; delete another',
    group: 'load balancer',
    dsl: [
      (t) => {
        base(t);
        lbAdd(t, 'lb0', {
          vips: { '10.0.0.10:80': ['10.0.0.11:8080', '10.0.0.12:8080'] },
          protocol: 'udp',
        });
        lbAddVip(t, 'lb0', '[fd00:0::10]:80', ['[fd00::5]:8080']);
        lbAddVip(t, 'lb0', '10.0.0.20:53', '10.0.0.11:53');
        lbHealthCheckAdd(t, 'lb0', '10.0.0.10:80', {
          interval: 5,
          timeout: 20,
          success_count: 3,
          failure_count: 3,
        });
        lbSetIpPortMapping(t, 'lb0', '10.0.0.11', { port: 'web1', sourceIp: '10.0.0.2' });
        lbAdd(t, 'lb1', { vips: { '10.0.0.30': '10.0.0.12' } });
      },
      (t) => {
        lbDelVip(t, 'lb0', '10.0.0.20:53');
        lbDel(t, 'lb1');
      },
    ],
    nbctl: [
      [
        ...BASE,
        '--',
        'lb-add',
        'lb0',
        '10.0.0.10:80',
        '10.0.0.11:8080,10.0.0.12:8080',
        'udp',
        '--',
        'lb-add',
        'lb0',
        '[fd00:0::10]:80',
        '[fd00::5]:8080',
        '--',
        'lb-add',
        'lb0',
        '10.0.0.20:53',
        '10.0.0.11:53',
        '--',
        '--id=@hc',
        'create',
        'Load_Balancer_Health_Check',
        'vip="10.0.0.10:80"',
        'options:interval=5',
        'options:timeout=20',
        'options:success_count=3',
        'options:failure_count=3',
        '--',
        'add',
        'Load_Balancer',
        'lb0',
        'health_check',
        '@hc',
        '--',
        'set',
        'Load_Balancer',
        'lb0',
        'ip_port_mappings:"10.0.0.11"="web1:10.0.0.2"',
        '--',
        'lb-add',
        'lb1',
        '10.0.0.30',
        '10.0.0.12',
      ],
      ['lb-del', 'lb0', '10.0.0.20:53', '--', 'lb-del', 'lb1'],
    ],
  },
  {
    name: 'deliberate: removing the last VIP keeps the load balancer (ovn-nbctl deletes it)',
    group: 'load balancer',
    dsl: [
      (t) => lbAdd(t, 'lb0', { vips: { '10.0.0.10:80': ['10.0.0.5:8080'] } }),
      (t) => lbDelVip(t, 'lb0', '10.0.0.10:80'),
    ],
    nbctl: [
      ['lb-add', 'lb0', '10.0.0.10:80', '10.0.0.5:8080'],
      ['lb-del', 'lb0', '10.0.0.10:80'],
    ],
    difference: {
      explain: 'the DSL keeps lb0 without VIPs; ovn-nbctl deleted it',
      dsl: (d) => {
        d['Load_Balancer'] = [];
      },
    },
  },
];

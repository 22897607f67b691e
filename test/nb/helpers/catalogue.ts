/**
 * One call of every DSL operation, on a fixture topology: what
 * `needs.test.ts` runs over clients that monitor only what `NB_NEEDS` lists,
 * and `setters.test.ts` inspects for map writes.
 */

import * as connectionConfig from '../../../src/nb/connection-config.js';
import * as copp from '../../../src/nb/copp.js';
import * as dhcp from '../../../src/nb/dhcp.js';
import { fwdGroupAdd, fwdGroupDel, fwdGroupList } from '../../../src/nb/fwd-group.js';
import * as haGroup from '../../../src/nb/ha-chassis-group.js';
import * as dsl from '../../../src/nb/index.js';
import {
  aclAdd,
  addressSetAdd,
  dhcpOptionsCreate,
  haChassisGroupAdd,
  lbAdd,
  lbHealthCheckAdd,
  lbSetIpPortMapping,
  lrAdd,
  lrLbAdd,
  lrNatAdd,
  lrPolicyAdd,
  lrpAdd,
  lrRouteAdd,
  lsAdd,
  lsLbAdd,
  lspAdd,
  lspAttachMirror,
  lsSetDnsRecords,
  mirrorAdd,
  type NbOperation,
  type NbTxn,
  pgAdd,
} from '../../../src/nb/index.js';
import * as lbAttach from '../../../src/nb/lb-attach.js';
import * as lbGroup from '../../../src/nb/lb-group.js';
import * as lb from '../../../src/nb/load-balancer.js';
import { meterAdd, meterDel, meterList } from '../../../src/nb/meter.js';
import { qosAdd, qosDel, qosList } from '../../../src/nb/qos.js';
import * as lrp from '../../../src/nb/router-port.js';
import {
  staticMacBindingAdd,
  staticMacBindingDel,
  staticMacBindingList,
} from '../../../src/nb/static-mac-binding.js';
import * as lsp from '../../../src/nb/switch-port-getters.js';

const V4 = { server_id: '10.0.0.1', server_mac: '00:00:00:00:00:01', lease_time: 3600 } as const;

/** The fixture's refs the operations use. */
export interface Fixture {
  readonly d4: string;
  readonly d6: string;
}

/** One call of every operation, on the fixture topology (see `setup`). */
export const CALLS: { readonly [Op in NbOperation]: (t: NbTxn, f: Fixture) => unknown } = {
  lsAdd: (t) =>
    lsAdd(t, 'new-sw', { otherConfig: { subnet: '10.1.0.0/24' }, externalIds: { a: 'b' } }),
  lsDel: (t) => dsl.lsDel(t, 'sw1'),
  lsGet: (t) => dsl.lsGet(t, 'sw0'),
  lsList: (t) => dsl.lsList(t),
  lsSetOtherConfig: (t) => dsl.lsSetOtherConfig(t, 'sw0', { mcast_snoop: true, subnet: null }),
  lsSetExternalIds: (t) => dsl.lsSetExternalIds(t, 'sw0', { k: null, k2: 'v2' }),
  lsSetDnsRecords: (t) => dsl.lsSetDnsRecords(t, 'sw0', { 'db.example': '10.0.0.12' }),
  lspAdd: (t, f) =>
    lspAdd(t, 'sw0', 'p9', {
      addresses: ['00:00:00:00:00:09 10.0.0.19'],
      dhcpv4Options: f.d4,
      haChassisGroup: 'hcg0',
      options: { x: '1' },
    }),
  lspDel: (t) => dsl.lspDel(t, 'p1'),
  lspGet: (t) => dsl.lspGet(t, 'p1'),
  lspList: (t) => dsl.lspList(t, 'sw0'),
  lspGetSwitch: (t) => dsl.lspGetSwitch(t, 'p1'),
  lspSet: (t) =>
    dsl.lspSet(t, 'p1', { addresses: ['00:00:00:00:00:01 10.0.0.21'], options: { b: '2' } }),
  lspSetAddresses: (t) => dsl.lspSetAddresses(t, 'p1', ['00:00:00:00:00:01 10.0.0.22']),
  lspSetPortSecurity: (t) => dsl.lspSetPortSecurity(t, 'p1', ['00:00:00:00:00:01 10.0.0.11']),
  lspSetType: (t) => dsl.lspSetType(t, 'p2', 'localport'),
  lspSetOptions: (t) => dsl.lspSetOptions(t, 'p1', { 'requested-chassis': 'ch1', a: null }),
  lspSetEnabled: (t) => dsl.lspSetEnabled(t, 'p1', false),
  lspSetDhcpv4Options: (t, f) => dsl.lspSetDhcpv4Options(t, 'p2', f.d4),
  lspSetDhcpv6Options: (t, f) => dsl.lspSetDhcpv6Options(t, 'p2', f.d6),
  lspMove: (t) => dsl.lspMove(t, 'p1', 'sw1'),
  lrAdd: (t) => lrAdd(t, 'lr9', { options: { a: 'b' }, enabled: true, externalIds: { c: 'd' } }),
  lrDel: (t) => dsl.lrDel(t, 'lr0'),
  lrGet: (t) => dsl.lrGet(t, 'lr0'),
  lrList: (t) => dsl.lrList(t),
  lrSetOptions: (t) => dsl.lrSetOptions(t, 'lr0', { x: '1' }),
  lrSetExternalIds: (t) => dsl.lrSetExternalIds(t, 'lr0', { x: '1' }),
  lrpAdd: (t) =>
    lrpAdd(t, 'lr0', 'lrp9', '00:00:00:00:ff:09', ['10.9.0.1/24'], {
      gatewayChassis: { ch2: 5 },
      options: { a: '1' },
    }),
  lrpDel: (t) => dsl.lrpDel(t, 'lrp0'),
  lrpGet: (t) => dsl.lrpGet(t, 'lrp0'),
  lrpList: (t) => dsl.lrpList(t, 'lr0'),
  lrpGetRouter: (t) => dsl.lrpGetRouter(t, 'lrp0'),
  lrpSet: (t) =>
    dsl.lrpSet(t, 'lrp1', {
      options: { 'redirect-type': 'bridged' },
      enabled: false,
      haChassisGroup: 'hcg0',
    }),
  lrpSetGatewayChassis: (t) => dsl.lrpSetGatewayChassis(t, 'lrp1', 'ch2', 20),
  lrpDelGatewayChassis: (t) => dsl.lrpDelGatewayChassis(t, 'lrp1', 'ch1'),
  connectSwitchToRouter: (t) =>
    dsl.connectSwitchToRouter(t, {
      switch: 'sw1',
      router: 'lr0',
      mac: '00:00:00:00:ff:03',
      networks: ['10.1.0.1/24'],
    }),
  aclAdd: (t) =>
    aclAdd(
      t,
      { switch: 'sw0' },
      { direction: 'from-lport', priority: 200, match: 'ip6', action: 'drop', severity: 'info' },
    ),
  aclDel: (t) => dsl.aclDel(t, { switch: 'sw0' }, { direction: 'to-lport' }),
  aclList: (t) => dsl.aclList(t, { portGroup: 'pg0' }),
  lrNatAdd: (t) =>
    lrNatAdd(t, 'lr0', {
      type: 'dnat_and_snat',
      externalIp: '172.16.0.11',
      logicalIp: '10.0.0.11',
      logicalPort: 'p1',
      externalMac: '00:00:00:00:aa:01',
      allowedExtIps: 'as0',
    }),
  lrNatEnsure: (t) =>
    dsl.lrNatEnsure(t, 'lr0', {
      type: 'snat',
      externalIp: '172.16.0.12',
      logicalIp: '10.0.0.0/24',
    }),
  lrNatDel: (t) => dsl.lrNatDel(t, 'lr0', { type: 'snat' }),
  lrNatList: (t) => dsl.lrNatList(t, 'lr0'),
  lrPolicyAdd: (t) =>
    lrPolicyAdd(t, 'lr0', {
      priority: 200,
      match: 'ip4',
      action: 'reroute',
      nexthops: ['10.0.0.254'],
    }),
  lrPolicyDel: (t) => dsl.lrPolicyDel(t, 'lr0', { externalIds: { owner: 'x' } }),
  lrPolicyList: (t) => dsl.lrPolicyList(t, 'lr0'),
  lrRouteAdd: (t) =>
    lrRouteAdd(t, 'lr0', {
      prefix: '10.8.0.0/16',
      nexthop: '172.16.0.254',
      outputPort: 'lrp1',
      bfd: true,
    }),
  lrRouteEnsure: (t) =>
    dsl.lrRouteEnsure(t, 'lr0', { prefix: '192.168.0.0/16', nexthop: '172.16.0.253' }),
  lrRouteDel: (t) => dsl.lrRouteDel(t, 'lr0', { prefix: '192.168.0.0/16' }),
  lrRouteList: (t) => dsl.lrRouteList(t, 'lr0'),
  lbAdd: (t) =>
    lbAdd(t, 'lb9', {
      vips: { '10.0.0.20:80': ['10.0.0.11:80'] },
      protocol: 'udp',
      options: { a: 'b' },
      selectionFields: ['ip_src'],
      externalIds: { c: 'd' },
    }),
  lbDel: (t) => dsl.lbDel(t, 'lb0'),
  lbGet: (t) => dsl.lbGet(t, 'lb0'),
  lbAddVip: (t) => dsl.lbAddVip(t, 'lb0', '10.0.0.10:8443', ['10.0.0.11:443']),
  lbSetVip: (t) => dsl.lbSetVip(t, 'lb0', '10.0.0.10:80', ['10.0.0.12:8080']),
  lbDelVip: (t) => dsl.lbDelVip(t, 'lb0', '10.0.0.10:80'),
  lbHealthCheckAdd: (t) => dsl.lbHealthCheckAdd(t, 'lb0', '10.0.0.10:443', { interval: 3 }),
  lbHealthCheckDel: (t) => dsl.lbHealthCheckDel(t, 'lb0', '10.0.0.10:80'),
  lbSetIpPortMapping: (t) =>
    dsl.lbSetIpPortMapping(t, 'lb0', '10.0.0.12', { port: 'p1', sourceIp: '10.0.0.1' }),
  lsLbAdd: (t) => dsl.lsLbAdd(t, 'sw1', 'lb0'),
  lsLbDel: (t) => dsl.lsLbDel(t, 'sw0', 'lb0'),
  lrLbAdd: (t) => dsl.lrLbAdd(t, 'lr0', 'lb1'),
  lrLbDel: (t) => dsl.lrLbDel(t, 'lr0', 'lb0'),
  dhcpOptionsCreate: (t) => dhcpOptionsCreate(t, '10.5.0.0/24', V4),
  dhcpOptionsSetOptions: (t, f) => dsl.dhcpOptionsSetOptions(t, f.d4, { ...V4, lease_time: 7200 }),
  dhcpOptionsDel: (t, f) => dsl.dhcpOptionsDel(t, f.d6),
  dhcpOptionsList: (t) => dsl.dhcpOptionsList(t),
  reconcilePortDhcpOptions: (t) =>
    dsl.reconcilePortDhcpOptions(t, 'p2', { v4: { cidr: '10.0.0.0/24', options: V4 }, v6: null }),
  pgAdd: (t) =>
    pgAdd(t, 'pg9', {
      ports: ['p1', 'p2'],
      acls: [{ direction: 'to-lport', priority: 1, match: 'ip4', action: 'allow' }],
    }),
  pgDel: (t) => dsl.pgDel(t, 'pg0'),
  pgGet: (t) => dsl.pgGet(t, 'pg0'),
  pgAddPorts: (t) => dsl.pgAddPorts(t, 'pg0', ['p2']),
  pgRemovePorts: (t) => dsl.pgRemovePorts(t, 'pg0', ['p1']),
  pgSetPorts: (t) => dsl.pgSetPorts(t, 'pg0', ['p2']),
  addressSetAdd: (t) => addressSetAdd(t, 'as9', ['10.0.0.1'], { externalIds: { a: 'b' } }),
  addressSetDel: (t) => dsl.addressSetDel(t, 'as0'),
  addressSetGet: (t) => dsl.addressSetGet(t, 'as0'),
  addressSetAddAddresses: (t) => dsl.addressSetAddAddresses(t, 'as0', ['10.0.0.12']),
  addressSetRemoveAddresses: (t) => dsl.addressSetRemoveAddresses(t, 'as0', ['10.0.0.11']),
  addressSetSetAddresses: (t) => dsl.addressSetSetAddresses(t, 'as0', ['10.0.0.13']),
  haChassisGroupAdd: (t) => haChassisGroupAdd(t, 'hcg9', { chassis: { ch3: 1 } }),
  haChassisGroupDel: (t) => dsl.haChassisGroupDel(t, 'hcg0'),
  haChassisGroupAddChassis: (t) => dsl.haChassisGroupAddChassis(t, 'hcg0', 'ch3', 5),
  haChassisGroupSetChassisPriority: (t) =>
    dsl.haChassisGroupSetChassisPriority(t, 'hcg0', 'ch1', 30),
  haChassisGroupRemoveChassis: (t) => dsl.haChassisGroupRemoveChassis(t, 'hcg0', 'ch2'),
  mirrorAdd: (t) =>
    mirrorAdd(t, 'm9', { type: 'erspan', index: 2, filter: 'from-lport', sink: '10.0.0.101' }),
  mirrorDel: (t) => dsl.mirrorDel(t, 'm0'),
  mirrorGet: (t) => dsl.mirrorGet(t, 'm0'),
  mirrorList: (t) => dsl.mirrorList(t),
  lspAttachMirror: (t) => lspAttachMirror(t, 'p1', 'm1'),
  lspDetachMirror: (t) => dsl.lspDetachMirror(t, 'p1', 'm0'),
  lspGetParent: (t) => lsp.lspGetParent(t, 'c1'),
  lspGetTag: (t) => lsp.lspGetTag(t, 'c1'),
  lspGetAddresses: (t) => lsp.lspGetAddresses(t, 'p1'),
  lspGetPortSecurity: (t) => lsp.lspGetPortSecurity(t, 'p1'),
  lspGetUp: (t) => lsp.lspGetUp(t, 'p1'),
  lspGetEnabled: (t) => lsp.lspGetEnabled(t, 'p1'),
  lspGetType: (t) => lsp.lspGetType(t, 'p2'),
  lspGetOptions: (t) => lsp.lspGetOptions(t, 'p1'),
  lspGetDhcpv4Options: (t) => lsp.lspGetDhcpv4Options(t, 'p1'),
  lspGetDhcpv6Options: (t) => lsp.lspGetDhcpv6Options(t, 'p1'),
  lrpGetGatewayChassis: (t) => lrp.lrpGetGatewayChassis(t, 'lrp1'),
  lrpGetEnabled: (t) => lrp.lrpGetEnabled(t, 'lrp1'),
  lrpGetRedirectType: (t) => lrp.lrpGetRedirectType(t, 'lrp1'),
  lrpSetRedirectType: (t) => lrp.lrpSetRedirectType(t, 'lrp1', 'bridged'),
  lbList: (t) => lb.lbList(t),
  lsLbList: (t) => lbAttach.lsLbList(t, 'sw0'),
  lrLbList: (t) => lbAttach.lrLbList(t, 'lr0'),
  dhcpOptionsGetOptions: (t, f) => dhcp.dhcpOptionsGetOptions(t, f.d4),
  haChassisGroupList: (t) => haGroup.haChassisGroupList(t),
  coppAdd: (t) => copp.coppAdd(t, 'copp0', 'igmp', 'm-igmp'),
  coppDel: (t) => copp.coppDel(t, 'copp0', 'dns'),
  coppList: (t) => copp.coppList(t, 'copp0'),
  lsCoppAdd: (t) => copp.lsCoppAdd(t, 'copp0', 'sw0'),
  lrCoppAdd: (t) => copp.lrCoppAdd(t, 'copp0', 'lr0'),
  getConnection: (t) => connectionConfig.getConnection(t),
  setConnection: (t) =>
    connectionConfig.setConnection(t, ['pssl:6641', 'punix:/tmp/nb.sock'], {
      inactivityProbe: 5000,
    }),
  delConnection: (t) => connectionConfig.delConnection(t),
  getSsl: (t) => connectionConfig.getSsl(t),
  setSsl: (t) =>
    connectionConfig.setSsl(t, {
      privateKey: '/k2',
      certificate: '/c2',
      caCert: '/ca2',
      sslProtocols: 'TLSv1.3',
    }),
  delSsl: (t) => connectionConfig.delSsl(t),
  qosAdd: (t) =>
    qosAdd(t, 'sw0', {
      direction: 'to-lport',
      priority: 20,
      match: 'ip4',
      rate: 1000,
      burst: 100,
      dscp: 10,
    }),
  qosDel: (t) => qosDel(t, 'sw0', { direction: 'from-lport' }),
  qosList: (t) => qosList(t, 'sw0'),
  meterAdd: (t) => meterAdd(t, 'meter9', { unit: 'kbps', bands: [{ rate: 10 }, { rate: 20 }] }),
  meterDel: (t) => meterDel(t, 'meter0'),
  meterList: (t) => meterList(t),
  fwdGroupAdd: (t) =>
    fwdGroupAdd(t, 'sw0', 'fg9', {
      vip: '10.0.0.201',
      vmac: '00:00:00:00:02:01',
      ports: ['p2'],
      liveness: true,
    }),
  fwdGroupDel: (t) => fwdGroupDel(t, 'fg0'),
  fwdGroupList: (t) => fwdGroupList(t, 'sw0'),
  staticMacBindingAdd: (t) =>
    staticMacBindingAdd(t, 'lrp1', '172.16.0.51', '00:00:00:00:50:02', {
      overrideDynamicMac: true,
    }),
  staticMacBindingDel: (t) => staticMacBindingDel(t, 'lrp1', '172.16.0.50'),
  staticMacBindingList: (t) => staticMacBindingList(t),
  lbGroupAdd: (t) => lbGroup.lbGroupAdd(t, 'lbg9', { loadBalancers: ['lb0', 'lb1'] }),
  lbGroupDel: (t) => lbGroup.lbGroupDel(t, 'lbg0'),
  lbGroupList: (t) => lbGroup.lbGroupList(t),
  lbGroupAddLb: (t) => lbGroup.lbGroupAddLb(t, 'lbg0', 'lb1'),
  lbGroupDelLb: (t) => lbGroup.lbGroupDelLb(t, 'lbg0', 'lb0'),
  lsLbGroupAdd: (t) => lbGroup.lsLbGroupAdd(t, 'sw1', 'lbg0'),
  lsLbGroupDel: (t) => lbGroup.lsLbGroupDel(t, 'sw0', 'lbg0'),
  lrLbGroupAdd: (t) => lbGroup.lrLbGroupAdd(t, 'lr0', 'lbg1'),
  lrLbGroupDel: (t) => lbGroup.lrLbGroupDel(t, 'lr0'),
};

/** The topology every call runs on (committed once). */
export function setup(t: NbTxn): Fixture {
  haChassisGroupAdd(t, 'hcg0', { chassis: { ch1: 10, ch2: 20 } });
  lsAdd(t, 'sw0', { otherConfig: { subnet: '10.0.0.0/24' }, externalIds: { k: 'v' } });
  lsAdd(t, 'sw1');
  const d4 = dhcpOptionsCreate(t, '10.0.0.0/24', V4, {
    externalIds: { lsp: 'p2', protocol: 'IPv4' },
  });
  const d6 = dhcpOptionsCreate(t, 'fd00::/64', { server_id: '00:00:00:00:00:02' });
  lspAdd(t, 'sw0', 'p1', {
    addresses: ['00:00:00:00:00:01 10.0.0.11'],
    options: { a: '1' },
    externalIds: { pod: 'ns/p1' },
    dhcpv4Options: d4,
  });
  lspAdd(t, 'sw0', 'p2', { type: 'external', haChassisGroup: 'hcg0' });
  lsSetDnsRecords(t, 'sw0', { 'web.example': '10.0.0.11' });
  addressSetAdd(t, 'as0', ['10.0.0.11']);
  pgAdd(t, 'pg0', {
    ports: ['p1'],
    acls: [{ direction: 'to-lport', priority: 10, match: 'ip4', action: 'allow' }],
  });
  aclAdd(
    t,
    { switch: 'sw0' },
    { direction: 'to-lport', priority: 100, match: 'ip4', action: 'allow' },
  );
  lrAdd(t, 'lr0');
  lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['10.0.0.1/24']);
  lrpAdd(t, 'lr0', 'lrp1', '00:00:00:00:ff:02', ['172.16.0.1/24'], {
    gatewayChassis: { ch1: 10 },
    options: { gateway_mtu: '1400' },
  });
  lrNatAdd(t, 'lr0', { type: 'snat', externalIp: '172.16.0.10', logicalIp: '10.0.0.0/24' });
  lrPolicyAdd(t, 'lr0', {
    priority: 100,
    match: 'ip4.src == 10.0.0.11',
    action: 'drop',
    externalIds: { owner: 'x' },
  });
  lrRouteAdd(t, 'lr0', {
    prefix: '192.168.0.0/16',
    nexthop: '172.16.0.254',
    outputPort: 'lrp1',
    bfd: true,
  });
  lbAdd(t, 'lb0', {
    vips: { '10.0.0.10:80': ['10.0.0.11:8080'], '10.0.0.10:443': ['10.0.0.11:8443'] },
  });
  lbAdd(t, 'lb1');
  lbHealthCheckAdd(t, 'lb0', '10.0.0.10:80', { interval: 5 });
  lbSetIpPortMapping(t, 'lb0', '10.0.0.11', { port: 'p1', sourceIp: '10.0.0.1' });
  lsLbAdd(t, 'sw0', 'lb0');
  lrLbAdd(t, 'lr0', 'lb0');
  mirrorAdd(t, 'm0', { type: 'gre', index: 1, filter: 'to-lport', sink: '10.0.0.100' });
  mirrorAdd(t, 'm1', { type: 'gre', index: 2, filter: 'both', sink: '10.0.0.100' });
  lspAttachMirror(t, 'p1', 'm0');
  lspAdd(t, 'sw0', 'c1', { parentName: 'p1', tagRequest: 7, tag: 7 });
  copp.coppAdd(t, 'copp0', 'arp', 'm-arp');
  copp.coppAdd(t, 'copp0', 'dns', 'm-dns');
  connectionConfig.setConnection(t, ['ptcp:6641']);
  connectionConfig.setSsl(t, { privateKey: '/k', certificate: '/c', caCert: '/ca' });
  qosAdd(t, 'sw0', { direction: 'from-lport', priority: 10, match: 'ip4', dscp: 8 });
  meterAdd(t, 'meter0', { action: 'drop', rate: 100, unit: 'pktps', fair: true });
  fwdGroupAdd(t, 'sw0', 'fg0', { vip: '10.0.0.200', vmac: '00:00:00:00:02:00', ports: ['p1'] });
  staticMacBindingAdd(t, 'lrp1', '172.16.0.50', '00:00:00:00:50:01');
  lbGroup.lbGroupAdd(t, 'lbg0', { loadBalancers: ['lb0'] });
  lbGroup.lbGroupAdd(t, 'lbg1');
  lbGroup.lsLbGroupAdd(t, 'sw0', 'lbg0');
  lbGroup.lrLbGroupAdd(t, 'lr0', 'lbg0');
  return { d4, d6 };
}

/**
 * Every bad input fails with a typed error that says what and why, before
 * any operation for it is added: bad MACs and IPs, priorities out of range,
 * unknown DHCP options, reroute without nexthop, NAT logical IPs that do not
 * fit the type, and the rest.
 */

import { describe, expect, it } from 'vitest';
import {
  AmbiguousNameError,
  aclAdd,
  aclDel,
  addressSetAdd,
  connectSwitchToRouter,
  dhcpOptionsCreate,
  encodeDhcpOptions,
  haChassisGroupAdd,
  InvalidAddressError,
  InvalidArgumentError,
  InvalidDhcpOptionError,
  InvalidMatchError,
  lbAdd,
  lbAddVip,
  lbHealthCheckAdd,
  lrAdd,
  lrNatAdd,
  lrNatDel,
  lrPolicyAdd,
  lrPolicyDel,
  lrpAdd,
  lrpSetGatewayChassis,
  lrRouteAdd,
  lrRouteDel,
  lsAdd,
  lsDel,
  lspAdd,
  lspDel,
  lspSetAddresses,
  lspSetDhcpv4Options,
  lspSetPortSecurity,
  lspSetType,
  lsSetDnsRecords,
  lsSetOtherConfig,
  MatchSyntaxError,
  MissingNexthopError,
  match,
  NatLogicalIpError,
  type NbTxn,
  NotFoundError,
  OutOfRangeError,
  parseMatch,
  pgAdd,
  pgAddPorts,
  UnknownDhcpOptionError,
} from '../../src/nb/index.js';
import { dryTxn } from './helpers/dry.js';

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

function withRouter(): NbTxn {
  const t = dryTxn();
  lrAdd(t, 'lr0');
  lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['10.0.0.1/24']);
  lsAdd(t, 'sw0');
  lspAdd(t, 'sw0', 'p1', { addresses: ['00:00:00:00:00:01 10.0.0.5'] });
  return t;
}

describe('bad MAC or IP: InvalidAddressError', () => {
  it('a bad MAC in an address, port security, a router port, a NAT external MAC', () => {
    const t = withRouter();
    let e = thrown(t, (t) => lspSetAddresses(t, 'p1', ['00:00:00:00:00:zz 10.0.0.6']));
    expect(e).toBeInstanceOf(InvalidAddressError);
    expect(e).toMatchObject({
      kind: 'logical switch port address',
      value: '00:00:00:00:00:zz 10.0.0.6',
      field: 'Logical_Switch_Port.addresses',
    });
    expect(e.message).toContain('bad MAC "00:00:00:00:00:zz"');
    e = thrown(t, (t) => lspSetPortSecurity(t, 'p1', ['00:00:00:00:01 10.0.0.5']));
    expect(e).toMatchObject({ name: 'InvalidAddressError', kind: 'port security entry' });
    e = thrown(t, (t) => lrpAdd(t, 'lr0', 'lrp1', '00:00:00:00:ff', ['10.1.0.1/24']));
    expect(e).toMatchObject({
      name: 'InvalidAddressError',
      kind: 'MAC',
      value: '00:00:00:00:ff',
      field: 'Logical_Router_Port.mac',
    });
    e = thrown(t, (t) =>
      lrNatAdd(t, 'lr0', {
        type: 'dnat_and_snat',
        externalIp: '172.16.0.5',
        logicalIp: '10.0.0.5',
        logicalPort: 'p1',
        externalMac: 'zz',
      }),
    );
    expect(e).toMatchObject({
      name: 'InvalidAddressError',
      kind: 'MAC',
      field: 'NAT.external_mac',
    });
  });

  it('an IP written before the MAC gets a hint', () => {
    const e = thrown(withRouter(), (t) => lspSetAddresses(t, 'p1', ['10.0.0.6 00:00:00:00:00:06']));
    expect(e).toBeInstanceOf(InvalidAddressError);
    expect(e.message).toContain('the Ethernet address must come before the IP addresses');
  });

  it('a bad IP in an address, a network, a nexthop, a route prefix, a DNS record, a VIP', () => {
    const t = withRouter();
    expect(
      thrown(t, (t) => lspSetAddresses(t, 'p1', ['00:00:00:00:00:01 10.0.0.256'])),
    ).toMatchObject({
      name: 'InvalidAddressError',
      message: expect.stringContaining('bad IP address "10.0.0.256"'),
    });
    expect(
      thrown(t, (t) => lspSetAddresses(t, 'p1', ['00:00:00:00:00:01 10.0.0.05'])),
    ).toBeInstanceOf(InvalidAddressError);
    expect(
      thrown(t, (t) => lrpAdd(t, 'lr0', 'lrp1', '00:00:00:00:ff:02', ['10.1.0.1'])),
    ).toMatchObject({
      name: 'InvalidAddressError',
      kind: 'CIDR',
      message: expect.stringContaining('the /length is missing'),
    });
    expect(
      thrown(t, (t) => lrpAdd(t, 'lr0', 'lrp1', '00:00:00:00:ff:02', ['10.1.0.1/33'])),
    ).toBeInstanceOf(InvalidAddressError);
    expect(
      thrown(t, (t) =>
        lrPolicyAdd(t, 'lr0', {
          priority: 1,
          match: 'ip4',
          action: 'reroute',
          nexthops: ['10.0.0.x'],
        }),
      ),
    ).toMatchObject({
      name: 'InvalidAddressError',
      field: 'Logical_Router_Policy.nexthops',
    });
    expect(
      thrown(t, (t) => lrRouteAdd(t, 'lr0', { prefix: '10.0.0/8', nexthop: '10.0.0.1' })),
    ).toBeInstanceOf(InvalidAddressError);
    expect(
      thrown(t, (t) => lrRouteAdd(t, 'lr0', { prefix: '10.9.0.0/16', nexthop: 'fd00::1' })),
    ).toMatchObject({
      name: 'InvalidAddressError',
      message: expect.stringContaining('an IPv6 address, IPv4 expected'),
    });
    expect(
      thrown(t, (t) => lsSetDnsRecords(t, 'sw0', { 'a.example': '10.0.0.1 fe80::1%eth0' })),
    ).toBeInstanceOf(InvalidAddressError);
    expect(
      thrown(t, (t) => lbAdd(t, 'lb0', { vips: { '10.0.0.10:99999': ['10.0.0.5:80'] } })),
    ).toMatchObject({
      name: 'InvalidAddressError',
      kind: 'load balancer VIP',
    });
    expect(
      thrown(t, (t) => lbAdd(t, 'lb0', { vips: { '10.0.0.10:80': ['10.0.0.5'] } })),
    ).toMatchObject({
      name: 'InvalidAddressError',
      kind: 'load balancer backend',
      message: expect.stringContaining('the VIP has a port'),
    });
    expect(thrown(t, (t) => lbAdd(t, 'lb0', { vips: { '10.0.0.10': ['fd00::5'] } }))).toMatchObject(
      {
        name: 'InvalidAddressError',
        message: expect.stringContaining('IPv6, but the VIP is IPv4'),
      },
    );
    expect(thrown(t, (t) => addressSetAdd(t, 'as1', ['10.0.0.1', 'not-an-ip']))).toBeInstanceOf(
      InvalidAddressError,
    );
  });
});

describe('priority out of range: OutOfRangeError', () => {
  it('ACLs, policies, gateway chassis, HA chassis: 0..32767', () => {
    const t = withRouter();
    for (const priority of [-1, 32768, 1.5, Number.NaN]) {
      const e = thrown(t, (t) =>
        aclAdd(
          t,
          { switch: 'sw0' },
          { direction: 'to-lport', priority, match: 'ip4', action: 'drop' },
        ),
      );
      expect(e).toBeInstanceOf(OutOfRangeError);
      expect(e).toMatchObject({ field: 'ACL.priority', min: 0, max: 32767 });
    }
    expect(
      thrown(t, (t) => lrPolicyAdd(t, 'lr0', { priority: 40000, match: 'ip4', action: 'drop' })),
    ).toMatchObject({
      name: 'OutOfRangeError',
      field: 'Logical_Router_Policy.priority',
      value: 40000,
    });
    expect(thrown(t, (t) => lrpSetGatewayChassis(t, 'lrp0', 'ch1', 99999))).toMatchObject({
      name: 'OutOfRangeError',
      field: 'Gateway_Chassis.priority',
    });
    expect(thrown(t, (t) => haChassisGroupAdd(t, 'g', { chassis: { c1: -5 } }))).toMatchObject({
      name: 'OutOfRangeError',
      field: 'HA_Chassis.priority',
    });
    expect(
      thrown(t, (t) =>
        aclDel(t, { switch: 'sw0' }, { direction: 'to-lport', priority: 32768, match: 'ip4' }),
      ),
    ).toBeInstanceOf(OutOfRangeError);
    expect(thrown(t, (t) => lrPolicyDel(t, 'lr0', { priority: -3 }))).toBeInstanceOf(
      OutOfRangeError,
    );
  });

  it('other ranges: VLAN tags, ACL labels, DHCP numbers', () => {
    const t = withRouter();
    expect(
      thrown(t, (t) => lspAdd(t, 'sw0', 'c1', { parentName: 'p1', tagRequest: 4096 })),
    ).toMatchObject({
      name: 'OutOfRangeError',
      field: 'Logical_Switch_Port.tag_request',
      min: 0,
      max: 4095,
    });
    expect(thrown(t, (t) => lspAdd(t, 'sw0', 'c1', { tag: 0 }))).toMatchObject({
      name: 'OutOfRangeError',
      field: 'Logical_Switch_Port.tag',
      min: 1,
    });
    expect(
      thrown(t, (t) =>
        aclAdd(
          t,
          { switch: 'sw0' },
          { direction: 'to-lport', priority: 1, match: 'ip4', action: 'allow', label: 2 ** 32 },
        ),
      ),
    ).toMatchObject({ name: 'OutOfRangeError', field: 'ACL.label' });
    expect(() =>
      encodeDhcpOptions('10.0.0.0/24', {
        server_id: '10.0.0.1',
        server_mac: '00:00:00:00:00:01',
        lease_time: 3600,
        mtu: 67,
      }),
    ).toThrow(OutOfRangeError);
  });
});

describe('unknown DHCP option: UnknownDhcpOptionError', () => {
  const base = { server_id: '10.0.0.1', server_mac: '00:00:00:00:00:01', lease_time: 3600 };

  it('an option OVN does not know, or one of the other family', () => {
    const t = withRouter();
    let e = thrown(t, (t) =>
      dhcpOptionsCreate(t, '10.0.0.0/24', { ...base, not_an_option: 'x' } as never),
    );
    expect(e).toBeInstanceOf(UnknownDhcpOptionError);
    expect(e).toMatchObject({
      option: 'not_an_option',
      family: 'IPv4',
      message: 'unknown DHCPv4 option "not_an_option"',
    });
    e = thrown(t, (t) =>
      dhcpOptionsCreate(t, 'fd00::/64', { server_id: '00:00:00:00:00:01', lease_time: 5 } as never),
    );
    expect(e).toMatchObject({
      name: 'UnknownDhcpOptionError',
      option: 'lease_time',
      family: 'IPv6',
    });
    e = thrown(t, (t) =>
      dhcpOptionsCreate(t, '10.0.0.0/24', { ...base, dhcpv6_stateless: true } as never),
    );
    expect(e).toMatchObject({ name: 'UnknownDhcpOptionError', option: 'dhcpv6_stateless' });
  });

  it('a known option with a bad value, or a mandatory one missing: InvalidDhcpOptionError', () => {
    const t = withRouter();
    expect(
      thrown(t, (t) => dhcpOptionsCreate(t, '10.0.0.0/24', { ...base, router: 'fd00::1' })),
    ).toMatchObject({
      name: 'InvalidDhcpOptionError',
      option: 'router',
      value: 'fd00::1',
    });
    expect(
      thrown(t, (t) =>
        dhcpOptionsCreate(t, '10.0.0.0/24', { ...base, dns_server: ['8.8.8.8', 'x'] }),
      ),
    ).toBeInstanceOf(InvalidDhcpOptionError);
    expect(
      thrown(t, (t) =>
        dhcpOptionsCreate(t, '10.0.0.0/24', { ...base, ip_forward_enable: 1 as never }),
      ),
    ).toBeInstanceOf(InvalidDhcpOptionError);
    expect(
      thrown(t, (t) => dhcpOptionsCreate(t, '10.0.0.0/24', { ...base, server_mac: '1:2:3' })),
    ).toMatchObject({ option: 'server_mac' });
    expect(
      thrown(t, (t) =>
        dhcpOptionsCreate(t, '10.0.0.0/24', { server_id: '10.0.0.1', lease_time: 1 }),
      ),
    ).toMatchObject({
      name: 'InvalidDhcpOptionError',
      option: 'server_mac',
      message: expect.stringContaining('mandatory DHCPv4 option missing'),
    });
    expect(
      thrown(t, (t) =>
        dhcpOptionsCreate(t, '10.0.0.0/24', {
          ...base,
          classless_static_route: [{ prefix: '10.1.0.0/16', nexthop: 'x' }],
        }),
      ),
    ).toBeInstanceOf(InvalidDhcpOptionError);
  });

  it('options for a cidr of the wrong family cannot be attached', () => {
    const t = withRouter();
    const d = dhcpOptionsCreate(t, 'fd00::/64', { server_id: '00:00:00:00:00:01' });
    expect(thrown(t, (t) => lspSetDhcpv4Options(t, 'p1', d))).toMatchObject({
      name: 'InvalidArgumentError',
      message: expect.stringContaining('is not IPv4'),
    });
  });
});

describe('nexthop missing for reroute: MissingNexthopError', () => {
  it('no nexthops, or an empty list', () => {
    const t = withRouter();
    for (const nexthops of [undefined, []]) {
      const e = thrown(t, (t) =>
        lrPolicyAdd(t, 'lr0', {
          priority: 100,
          match: 'ip4.src == 10.0.0.0/24',
          action: 'reroute',
          nexthops,
        }),
      );
      expect(e).toBeInstanceOf(MissingNexthopError);
      expect(e).toMatchObject({ priority: 100, match: 'ip4.src == 10.0.0.0/24' });
    }
  });

  it('nexthops of mixed families, or nexthops for another action, are InvalidArgumentError', () => {
    const t = withRouter();
    expect(
      thrown(t, (t) =>
        lrPolicyAdd(t, 'lr0', {
          priority: 1,
          match: 'ip',
          action: 'reroute',
          nexthops: ['10.0.0.1', 'fd00::1'],
        }),
      ),
    ).toBeInstanceOf(InvalidArgumentError);
    expect(
      thrown(t, (t) =>
        lrPolicyAdd(t, 'lr0', { priority: 1, match: 'ip', action: 'drop', nexthops: ['10.0.0.1'] }),
      ),
    ).toBeInstanceOf(InvalidArgumentError);
  });
});

describe('NAT logical IP not matching its type: NatLogicalIpError', () => {
  it('a network for dnat or dnat_and_snat', () => {
    const t = withRouter();
    for (const type of ['dnat', 'dnat_and_snat'] as const) {
      const e = thrown(t, (t) =>
        lrNatAdd(t, 'lr0', { type, externalIp: '172.16.0.5', logicalIp: '10.0.0.0/24' }),
      );
      expect(e).toBeInstanceOf(NatLogicalIpError);
      expect(e).toMatchObject({
        type,
        logicalIp: '10.0.0.0/24',
        message: expect.stringContaining('a network is only valid for snat'),
      });
    }
  });

  it('a family other than the external IP, or no address at all', () => {
    const t = withRouter();
    expect(
      thrown(t, (t) =>
        lrNatAdd(t, 'lr0', { type: 'snat', externalIp: '172.16.0.5', logicalIp: 'fd00::/64' }),
      ),
    ).toMatchObject({
      name: 'NatLogicalIpError',
      type: 'snat',
      message: expect.stringContaining('is IPv6 but the external IP is IPv4'),
    });
    expect(
      thrown(t, (t) =>
        lrNatAdd(t, 'lr0', { type: 'snat', externalIp: '172.16.0.5', logicalIp: 'ten' }),
      ),
    ).toBeInstanceOf(NatLogicalIpError);
  });

  it('other NAT mistakes are InvalidArgumentError: port and MAC apart, stateless snat, a port range, a non-gateway port', () => {
    const t = withRouter();
    expect(
      thrown(t, (t) =>
        lrNatAdd(t, 'lr0', {
          type: 'dnat_and_snat',
          externalIp: '172.16.0.5',
          logicalIp: '10.0.0.5',
          logicalPort: 'p1',
        }),
      ),
    ).toBeInstanceOf(InvalidArgumentError);
    expect(
      thrown(t, (t) =>
        lrNatAdd(t, 'lr0', {
          type: 'snat',
          externalIp: '172.16.0.5',
          logicalIp: '10.0.0.5',
          logicalPort: 'p1',
          externalMac: '00:00:00:00:00:05',
        }),
      ),
    ).toBeInstanceOf(InvalidArgumentError);
    expect(
      thrown(t, (t) =>
        lrNatAdd(t, 'lr0', {
          type: 'snat',
          externalIp: '172.16.0.5',
          logicalIp: '10.0.0.5',
          stateless: true,
        }),
      ),
    ).toBeInstanceOf(InvalidArgumentError);
    expect(
      thrown(t, (t) =>
        lrNatAdd(t, 'lr0', {
          type: 'dnat',
          externalIp: '172.16.0.5',
          logicalIp: '10.0.0.5',
          externalPortRange: '90-80',
        }),
      ),
    ).toBeInstanceOf(InvalidArgumentError);
    expect(
      thrown(t, (t) =>
        lrNatAdd(t, 'lr0', {
          type: 'snat',
          externalIp: '172.16.0.5',
          logicalIp: '10.0.0.0/24',
          gatewayPort: 'lrp0',
        }),
      ),
    ).toMatchObject({
      name: 'InvalidArgumentError',
      message: expect.stringContaining('not a distributed gateway port'),
    });
    expect(
      thrown(t, (t) =>
        lrNatAdd(t, 'lr0', { type: 'snat', externalIp: 'x', logicalIp: '10.0.0.0/24' }),
      ),
    ).toBeInstanceOf(InvalidArgumentError);
    expect(
      thrown(t, (t) =>
        lrNatAdd(t, 'lr0', {
          type: 'masquerade' as never,
          externalIp: '1.2.3.4',
          logicalIp: '10.0.0.0/24',
        }),
      ),
    ).toMatchObject({
      name: 'InvalidArgumentError',
      field: 'NAT.type',
    });
  });
});

describe('other bad inputs', () => {
  it('unknown enum values: port type, ACL direction and action, route policy', () => {
    const t = withRouter();
    expect(thrown(t, (t) => lspSetType(t, 'p1', 'tunnel' as never))).toMatchObject({
      name: 'InvalidArgumentError',
      field: 'Logical_Switch_Port.type',
    });
    expect(
      thrown(t, (t) =>
        aclAdd(
          t,
          { switch: 'sw0' },
          { direction: 'to' as never, priority: 1, match: 'ip4', action: 'drop' },
        ),
      ),
    ).toMatchObject({
      field: 'ACL.direction',
    });
    expect(
      thrown(t, (t) =>
        aclAdd(
          t,
          { switch: 'sw0' },
          { direction: 'to-lport', priority: 1, match: 'ip4', action: 'permit' as never },
        ),
      ),
    ).toMatchObject({
      field: 'ACL.action',
    });
    expect(
      thrown(t, (t) =>
        lrRouteAdd(t, 'lr0', {
          prefix: '10.9.0.0/16',
          nexthop: '10.0.0.1',
          policy: 'src' as never,
        }),
      ),
    ).toBeInstanceOf(InvalidArgumentError);
    expect(thrown(t, (t) => lsSetOtherConfig(t, 'sw0', { subnet: '10.0.0.0' }))).toMatchObject({
      field: 'Logical_Switch.other_config:subnet',
    });
    expect(thrown(t, (t) => lsSetOtherConfig(t, 'sw0', { ipv6_prefix: 'fd00::1' }))).toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(
      thrown(t, (t) => lsSetOtherConfig(t, 'sw0', { mcast_snoop: 'yes' as never })),
    ).toBeInstanceOf(InvalidArgumentError);
  });

  it('missing objects: NotFoundError naming the kind and key', () => {
    const t = withRouter();
    expect(thrown(t, (t) => lspAdd(t, 'nope', 'p9'))).toMatchObject({
      name: 'NotFoundError',
      kind: 'logical switch',
      key: 'nope',
    });
    expect(thrown(t, (t) => lspDel(t, 'p9'))).toMatchObject({
      kind: 'logical switch port',
      key: 'p9',
    });
    expect(thrown(t, (t) => lsDel(t, 'sw9'))).toBeInstanceOf(NotFoundError);
    expect(thrown(t, (t) => pgAdd(t, 'pg1', { ports: ['p1', 'p9'] }))).toMatchObject({
      kind: 'logical switch port',
      key: 'p9',
    });
    expect(thrown(t, (t) => lrNatDel(t, 'lr0', { type: 'snat', ip: '10.0.0.0/24' }))).toMatchObject(
      { name: 'NotFoundError', kind: 'NAT' },
    );
    expect(thrown(t, (t) => lrRouteDel(t, 'lr0', { prefix: '10.0.0.0/24' }))).toMatchObject({
      kind: 'static route',
    });
    expect(thrown(t, (t) => lrPolicyDel(t, 'lr0', { priority: 5, match: 'ip4' }))).toMatchObject({
      kind: 'router policy',
    });
    expect(
      thrown(t, (t) =>
        aclDel(t, { switch: 'sw0' }, { direction: 'to-lport', priority: 5, match: 'ip4' }),
      ),
    ).toMatchObject({ kind: 'ACL' });
    lbAdd(t, 'lb0', { vips: { '10.0.0.10:80': ['10.0.0.5:80'] } });
    expect(thrown(t, (t) => lbHealthCheckAdd(t, 'lb0', '10.0.0.11:80'))).toMatchObject({
      kind: 'load balancer VIP',
    });
    expect(thrown(t, (t) => pgAddPorts(t, 'pg9', ['p1']))).toMatchObject({ kind: 'port group' });
  });

  it('duplicates: AlreadyExistsError; ambiguous names: AmbiguousNameError', () => {
    const t = withRouter();
    expect(thrown(t, (t) => lsAdd(t, 'sw0'))).toMatchObject({
      name: 'AlreadyExistsError',
      kind: 'logical switch',
      key: '"sw0"',
    });
    expect(thrown(t, (t) => lspAdd(t, 'sw0', 'p1'))).toMatchObject({ kind: 'logical switch port' });
    lbAdd(t, 'lb0', { vips: { '10.0.0.10:80': ['10.0.0.5:80'] } });
    expect(thrown(t, (t) => lbAddVip(t, 'lb0', '10.0.0.10:80', ['10.0.0.6:80']))).toMatchObject({
      kind: 'load balancer VIP',
    });
    expect(
      thrown(t, (t) =>
        connectSwitchToRouter(t, {
          switch: 'sw0',
          router: 'lr0',
          mac: 'bad',
          networks: ['10.9.0.1/24'],
        }),
      ),
    ).toBeInstanceOf(InvalidAddressError);
    t.insert('Logical_Switch', { name: 'twin' });
    t.insert('Logical_Switch', { name: 'twin' });
    const e = thrown(t, (t) => lspAdd(t, 'twin', 'p9'));
    expect(e).toBeInstanceOf(AmbiguousNameError);
    expect((e as AmbiguousNameError).uuids).toHaveLength(2);
    expect(thrown(t, (t) => lsAdd(t, 'twin', { mayExist: true }))).toBeInstanceOf(
      AmbiguousNameError,
    );
    expect(thrown(t, (t) => lsDel(t, 'twin', { ifExists: true }))).toBeInstanceOf(
      AmbiguousNameError,
    );
  });

  it('match builder and parser errors', () => {
    // @ts-expect-error: a port group (strings) for an IPv4 field
    expect(() => match.eq('ip4.src', match.portGroup('pg-with-dash'))).toThrow(InvalidMatchError);
    expect(() => match.eq('ip4.src', [])).toThrow(InvalidMatchError);
    expect(() => match.compare('tcp.dst', '<', [1, 2])).toThrow(InvalidMatchError);
    // @ts-expect-error: inport (a string field) takes == and != only
    expect(() => match.compare('inport', '<', 'x')).toThrow(InvalidMatchError);
    expect(() => match.eq('ip4.src', '10.0.0.300')).toThrow(InvalidMatchError);
    // @ts-expect-error: not a field OVN knows
    expect(() => match.eq('bad field', 1)).toThrow(InvalidMatchError);
    expect(() => match.int(-1)).toThrow(InvalidMatchError);
    expect(() =>
      aclAdd(
        withRouter(),
        { switch: 'sw0' },
        { direction: 'to-lport', priority: 1, action: 'drop', match: 'ip4\u0000' },
      ),
    ).toThrow(InvalidMatchError);
    for (const [input, reason] of [
      ['a && b || c', 'must be parenthesized'],
      ['inport == "abc', 'input ends inside quoted string'],
      ['inport == "a\\q"', 'bad escape'],
      ['inport == "\\u0000"', 'null bytes not supported'],
      ['inport == "\\ud800"', 'malformed escaped surrogate pair'],
      ['tcp.dst == 022', 'leading zeros'],
      ['ip4.src == 10.0.0.0/33', 'incompatible formats'],
      ['ip4.src == 10.0.0.1 &', '`&` is only valid'],
      ['(ip4', 'expecting `)`'],
      ['ip4 ip6', 'expecting end of input'],
      ['5', 'not a boolean'],
      ['inport < "x"', 'compares numbers only'],
      ['tcp.dst < {1, 2}', 'only == and !='],
    ] as const) {
      let err: unknown;
      try {
        parseMatch(input);
      } catch (e) {
        err = e;
      }
      expect(err, input).toBeInstanceOf(MatchSyntaxError);
      expect((err as MatchSyntaxError).message, input).toContain(reason);
      expect((err as MatchSyntaxError).input).toBe(input);
    }
  });
});

/**
 * `ovnkit-server` as a drop-in for ovsdb-server under `ovn-northd` (OVN
 * 23.03, NB 7.0.0 and SB 20.27.0 from the installed OVN): the same
 * `ovn-nbctl` script, covering every NB object the DSL has (switches,
 * ports with addresses and port security, router, localnet, localport and
 * external ports, a router with a gateway chassis and one with an HA
 * chassis group, ACLs on a port group and on a switch, address sets, load
 * balancers on a switch and a router and through a load balancer group,
 * SNAT and distributed dnat_and_snat, static routes, policies, DHCPv4
 * options, QoS, meters, CoPP, a forwarding group, a static MAC binding,
 * DNS, a mirror, IPv6 router advertisements), runs against NB+SB on
 * ovsdb-server and on ovnkit-server, each with its own ovn-northd;
 * `ovn-nbctl --wait=sb sync` returns on both, and the SB Logical_Flow,
 * Port_Binding and Datapath_Binding rows northd wrote are the same sets
 * (datapath UUIDs replaced by names), and so are the rows of every other
 * SB table (chassis, HA chassis groups, multicast groups, load balancers,
 * address sets, port groups, meters, DHCP and DNS, static MAC bindings,
 * SB_Global…). Then updates and deletions, compared
 * again. Then two northd instances on ovnkit-server: one active, one
 * standby; the active one killed, the other takes over and carries a new
 * NB change to SB.
 *
 * The members of an ECMP group are numbered by northd in the order of the
 * router's `static_routes` set, which is the order of the routes' UUIDs, so
 * two runs on ovsdb-server alone differ there: the member number in a
 * route flow's match (`reg8[16..31] == N`) is compared as `<member>`.
 *
 * Tunnel keys are requested (`requested-tnl-key`) for every datapath and
 * port so that they do not depend on the order of UUIDs in northd's
 * hash maps; the MAC prefix and service monitor MAC are fixed for the same
 * reason.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import type { Kind } from './file-servers.js';
import {
  difference,
  dumpSb,
  dumpSbTables,
  logTail,
  type OvnPair,
  type SbDump,
  startOvnPair,
  until,
} from './northd-pair.js';

const KINDS: readonly Kind[] = ['ovsdb-server', 'ovnkit-server'];

/** ovn-nbctl commands, joined by `--` into one transaction. */
function script(commands: readonly (readonly string[])[]): string[] {
  return commands.flatMap((c, i) => (i === 0 ? [...c] : ['--', ...c]));
}

const ACL_PG_MATCH = 'outport == @pg_web && ip4 && tcp.dst == 80';

/** The topology: every NB object the DSL has. */
const TOPOLOGY = script([
  [
    'set',
    'NB_Global',
    '.',
    'options:mac_prefix=0a:00:00',
    'options:svc_monitor_mac=0a:00:00:00:00:fe',
  ],
  // Switches, with requested tunnel keys.
  ['ls-add', 'sw0'],
  [
    'set',
    'Logical_Switch',
    'sw0',
    'other_config:requested-tnl-key=11',
    'other_config:subnet=10.0.0.0/24',
  ],
  ['ls-add', 'sw1'],
  ['set', 'Logical_Switch', 'sw1', 'other_config:requested-tnl-key=12'],
  ['ls-add', 'public'],
  ['set', 'Logical_Switch', 'public', 'other_config:requested-tnl-key=13'],
  ['ls-add', 'ext'],
  ['set', 'Logical_Switch', 'ext', 'other_config:requested-tnl-key=14'],
  // VM ports with addresses and port security.
  ...[
    ['sw0', 'sw0-p1', '50:54:00:00:00:01', '10.0.0.11', 1],
    ['sw0', 'sw0-p2', '50:54:00:00:00:02', '10.0.0.12', 2],
    ['sw1', 'sw1-p1', '50:54:00:00:01:01', '10.0.1.11', 1],
    ['sw1', 'sw1-p2', '50:54:00:00:01:02', '10.0.1.12', 2],
    ['ext', 'ext-p1', '50:54:00:00:02:01', '10.0.2.11', 1],
  ].flatMap(([sw, port, mac, ip, key]) => [
    ['lsp-add', String(sw), String(port)],
    ['lsp-set-addresses', String(port), `${mac} ${ip}`],
    ['lsp-set-port-security', String(port), `${mac} ${ip}`],
    ['set', 'Logical_Switch_Port', String(port), `options:requested-tnl-key=${key}`],
  ]),
  ['lsp-add', 'sw0', 'sw0-local'],
  ['lsp-set-type', 'sw0-local', 'localport'],
  ['lsp-set-addresses', 'sw0-local', '50:54:00:00:00:99 10.0.0.99'],
  ['set', 'Logical_Switch_Port', 'sw0-local', 'options:requested-tnl-key=9'],
  // Routers: lr0 with a gateway chassis, lr1 with an HA chassis group.
  ['lr-add', 'lr0'],
  ['set', 'Logical_Router', 'lr0', 'options:requested-tnl-key=21'],
  ['lrp-add', 'lr0', 'lr0-sw0', '00:00:00:00:ff:01', '10.0.0.1/24', 'fd00::1/64'],
  [
    'set',
    'Logical_Router_Port',
    'lr0-sw0',
    'ipv6_ra_configs:address_mode=slaac',
    'ipv6_ra_configs:send_periodic=true',
    'options:requested-tnl-key=1',
  ],
  ['lrp-add', 'lr0', 'lr0-sw1', '00:00:00:00:ff:02', '10.0.1.1/24'],
  ['set', 'Logical_Router_Port', 'lr0-sw1', 'options:requested-tnl-key=2'],
  ['lrp-add', 'lr0', 'lr0-public', '00:00:20:20:12:13', '172.16.1.1/24'],
  ['set', 'Logical_Router_Port', 'lr0-public', 'options:requested-tnl-key=3'],
  ['lrp-set-gateway-chassis', 'lr0-public', 'hv1', '20'],
  ['lrp-set-gateway-chassis', 'lr0-public', 'hv2', '10'],
  ['lr-add', 'lr1'],
  ['set', 'Logical_Router', 'lr1', 'options:requested-tnl-key=22'],
  ['lrp-add', 'lr1', 'lr1-ext', '00:00:00:00:ff:11', '10.0.2.1/24'],
  ['set', 'Logical_Router_Port', 'lr1-ext', 'options:requested-tnl-key=1'],
  ['lrp-add', 'lr1', 'lr1-public', '00:00:20:20:12:14', '172.16.1.2/24'],
  ['set', 'Logical_Router_Port', 'lr1-public', 'options:requested-tnl-key=2'],
  ['ha-chassis-group-add', 'hag1'],
  ['ha-chassis-group-add-chassis', 'hag1', 'hv1', '30'],
  ['ha-chassis-group-add-chassis', 'hag1', 'hv2', '20'],
  ['--id=@hag', 'get', 'HA_Chassis_Group', 'hag1', '_uuid'],
  ['set', 'Logical_Router_Port', 'lr1-public', 'ha_chassis_group=@hag'],
  // Router ports on the switches.
  ...[
    ['sw0', 'sw0-lr0', 'lr0-sw0', 10],
    ['sw1', 'sw1-lr0', 'lr0-sw1', 10],
    ['public', 'public-lr0', 'lr0-public', 10],
    ['public', 'public-lr1', 'lr1-public', 11],
    ['ext', 'ext-lr1', 'lr1-ext', 10],
  ].flatMap(([sw, port, peer, key]) => [
    ['lsp-add', String(sw), String(port)],
    ['lsp-set-type', String(port), 'router'],
    ['lsp-set-addresses', String(port), 'router'],
    ['lsp-set-options', String(port), `router-port=${peer}`, `requested-tnl-key=${key}`],
  ]),
  // A localnet port and an external port (on the HA chassis group).
  ['lsp-add', 'public', 'ln-public'],
  ['lsp-set-type', 'ln-public', 'localnet'],
  ['lsp-set-addresses', 'ln-public', 'unknown'],
  ['lsp-set-options', 'ln-public', 'network_name=physnet1', 'requested-tnl-key=1'],
  ['lsp-add', 'ext', 'ext-ext1'],
  ['lsp-set-type', 'ext-ext1', 'external'],
  ['lsp-set-addresses', 'ext-ext1', '50:54:00:00:02:99 10.0.2.99'],
  [
    'set',
    'Logical_Switch_Port',
    'ext-ext1',
    'ha_chassis_group=@hag',
    'options:requested-tnl-key=2',
  ],
  ['lsp-add', 'ext', 'ln-ext'],
  ['lsp-set-type', 'ln-ext', 'localnet'],
  ['lsp-set-addresses', 'ln-ext', 'unknown'],
  ['lsp-set-options', 'ln-ext', 'network_name=physnet1', 'requested-tnl-key=3'],
  // Address sets, port groups and ACLs, a meter on ACL logging.
  ['create', 'Address_Set', 'name=as_web', 'addresses="10.0.0.11","10.0.1.11"'],
  ['create', 'Address_Set', 'name=as_mgmt', 'addresses="192.168.0.0/16"'],
  ['pg-add', 'pg_web', 'sw0-p1', 'sw1-p1'],
  ['meter-add', 'meter_acl', 'drop', '100', 'pktps', '10'],
  ['meter-add', 'meter_copp', 'drop', '200', 'pktps'],
  ['--type=port-group', 'acl-add', 'pg_web', 'to-lport', '1002', ACL_PG_MATCH, 'allow-related'],
  [
    '--type=port-group',
    'acl-add',
    'pg_web',
    'to-lport',
    '1001',
    'outport == @pg_web && ip4',
    'drop',
  ],
  [
    '--type=port-group',
    '--log',
    '--meter=meter_acl',
    '--name=web_in',
    'acl-add',
    'pg_web',
    'from-lport',
    '1000',
    'inport == @pg_web && ip4.dst == $as_mgmt',
    'reject',
  ],
  ['acl-add', 'sw1', 'from-lport', '900', 'ip4.src == $as_web && udp', 'allow'],
  ['--apply-after-lb', 'acl-add', 'sw1', 'from-lport', '800', 'ip4 && icmp4', 'allow-stateless'],
  // Load balancers on a switch and a router, and through a group.
  ['lb-add', 'lb0', '172.16.1.100:80', '10.0.0.11:80,10.0.1.11:80', 'tcp'],
  ['ls-lb-add', 'sw0', 'lb0'],
  ['lr-lb-add', 'lr0', 'lb0'],
  ['lb-add', 'lb1', '10.0.0.200', '10.0.0.12,10.0.1.12'],
  ['lb-add', 'lb2', '172.16.1.101:53', '10.0.1.12:53', 'udp'],
  ['--id=@lb2', 'get', 'Load_Balancer', 'lb2', '_uuid'],
  ['--id=@lbg', 'create', 'Load_Balancer_Group', 'name=lbg0', 'load_balancer=@lb2'],
  ['set', 'Logical_Switch', 'sw1', 'load_balancer_group=@lbg'],
  ['set', 'Logical_Router', 'lr0', 'load_balancer_group=@lbg'],
  ['ls-lb-add', 'sw1', 'lb1'],
  // NAT.
  ['lr-nat-add', 'lr0', 'snat', '172.16.1.1', '10.0.0.0/24'],
  ['lr-nat-add', 'lr0', 'dnat_and_snat', '172.16.1.50', '10.0.0.12'],
  ['lr-nat-add', 'lr0', 'dnat_and_snat', '172.16.1.51', '10.0.1.11', 'sw1-p1', '00:00:00:00:01:51'],
  ['lr-nat-add', 'lr1', 'snat', '172.16.1.2', '10.0.2.0/24'],
  // Static routes and policies.
  ['lr-route-add', 'lr0', '0.0.0.0/0', '172.16.1.254'],
  ['lr-route-add', 'lr0', '192.168.10.0/24', '10.0.1.12'],
  ['--policy=src-ip', '--ecmp', 'lr-route-add', 'lr0', '10.0.1.0/24', '172.16.1.253'],
  ['--policy=src-ip', '--ecmp', 'lr-route-add', 'lr0', '10.0.1.0/24', '172.16.1.252'],
  ['lr-route-add', 'lr1', '0.0.0.0/0', '172.16.1.254'],
  ['lr-policy-add', 'lr0', '1000', 'ip4.src == 10.0.0.0/24 && ip4.dst == 8.8.8.8', 'drop'],
  [
    'lr-policy-add',
    'lr0',
    '900',
    'ip4.src == 10.0.1.0/24 && ip4.dst == 9.9.9.9',
    'reroute',
    '10.0.0.12',
  ],
  ['lr-policy-add', 'lr0', '800', 'ip4.dst == 10.0.0.0/24', 'allow', 'pkt_mark=5'],
  // DHCPv4 options on a port.
  [
    '--id=@dhcp',
    'create',
    'DHCP_Options',
    'cidr=10.0.0.0/24',
    'options:server_id=10.0.0.1',
    'options:server_mac="00:00:00:00:ff:01"',
    'options:lease_time=3600',
    'options:router=10.0.0.1',
  ],
  ['set', 'Logical_Switch_Port', 'sw0-p1', 'dhcpv4_options=@dhcp'],
  // QoS.
  ['qos-add', 'sw0', 'from-lport', '100', 'ip4.src == 10.0.0.11', 'rate=10000', 'burst=1000'],
  ['qos-add', 'sw0', 'to-lport', '200', 'ip4.dst == 10.0.0.12', 'dscp=12'],
  // CoPP.
  ['copp-add', 'copp0', 'arp', 'meter_copp'],
  ['copp-add', 'copp0', 'reject', 'meter_copp'],
  ['ls-copp-add', 'copp0', 'sw1'],
  ['lr-copp-add', 'copp0', 'lr0'],
  // A forwarding group, a static MAC binding, DNS, a mirror.
  ['fwd-group-add', 'fg0', 'sw1', '10.0.1.100', '00:00:00:00:01:64', 'sw1-p1', 'sw1-p2'],
  ['static-mac-binding-add', 'lr0-public', '172.16.1.77', '00:00:00:00:77:77'],
  [
    '--id=@dns',
    'create',
    'DNS',
    'records:vm1.ovn.test=10.0.0.11',
    'records:vm2.ovn.test=10.0.0.12',
  ],
  ['set', 'Logical_Switch', 'sw0', 'dns_records=@dns'],
  ['mirror-add', 'mirror0', 'gre', '5', 'to-lport', '172.16.1.200'],
  ['lsp-attach-mirror', 'sw0-p2', 'mirror0'],
]);

/** Updates and deletions, in two transactions (an ACL changed: deleted in the first, added back in the second). */
const UPDATES = [
  script([
    ['lsp-del', 'sw1-p2'],
    ['--type=port-group', 'acl-del', 'pg_web', 'to-lport', '1002', ACL_PG_MATCH],
  ]),
  script([
    ['--type=port-group', 'acl-add', 'pg_web', 'to-lport', '1002', ACL_PG_MATCH, 'allow'],
    ['lb-del', 'lb0'],
    ['lr-route-add', 'lr0', '192.168.20.0/24', '10.0.0.12'],
    ['lr-nat-del', 'lr0', 'snat', '10.0.0.0/24'],
    ['qos-del', 'sw0', 'to-lport'],
    ['lsp-add', 'sw0', 'sw0-p3'],
    ['lsp-set-addresses', 'sw0-p3', '50:54:00:00:00:03 10.0.0.13'],
    ['set', 'Logical_Switch_Port', 'sw0-p3', 'options:requested-tnl-key=3'],
    ['pg-set-ports', 'pg_web', 'sw0-p1', 'sw0-p3'],
    ['lr-policy-del', 'lr0', '800'],
    ['fwd-group-del', 'fg0'],
    ['ls-del', 'sw1'],
  ]),
];

/** Both servers' SB contents must be the same sets. */
function expectSame(real: SbDump, ours: SbDump, what: string): void {
  for (const key of ['flows', 'portBindings', 'datapaths'] as const) {
    const d = difference(real[key], ours[key]);
    expect(
      { onlyOnOvsdbServer: d.onlyA.slice(0, 40), onlyOnOvnkitServer: d.onlyB.slice(0, 40) },
      `${what}: ${key}`,
    ).toEqual({ onlyOnOvsdbServer: [], onlyOnOvnkitServer: [] });
  }
}

describe('ovn-northd on NB+SB served by ovnkit-server, against ovsdb-server', () => {
  const pairs = new Map<Kind, OvnPair>();
  const dumps = new Map<Kind, SbDump>();

  beforeAll(async () => {
    requireOvsdbServer();
    for (const kind of KINDS) pairs.set(kind, await startOvnPair(kind));
    await Promise.all(
      [...pairs.values()].map(async (p) => {
        await p.nbctl('init');
        await p.sbctl(
          '--',
          'chassis-add',
          'hv1',
          'geneve',
          '127.0.0.1',
          '--',
          'chassis-add',
          'hv2',
          'geneve',
          '127.0.0.2',
        );
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...pairs.values()].map((p) => p.stop()));
  }, 60_000);

  /** Every SB table (not only those northd computes flows into) is the same too. */
  const expectSameTables = async (what: string): Promise<number> => {
    const [real, ours] = await Promise.all([
      dumpSbTables(pairs.get('ovsdb-server')!),
      dumpSbTables(pairs.get('ovnkit-server')!),
    ]);
    expect(real.length).toBeGreaterThan(100);
    const d = difference(real, ours);
    expect(
      { onlyOnOvsdbServer: d.onlyA.slice(0, 40), onlyOnOvnkitServer: d.onlyB.slice(0, 40) },
      `${what}: every SB table`,
    ).toEqual({ onlyOnOvsdbServer: [], onlyOnOvnkitServer: [] });
    return real.length;
  };

  const syncAll = async (transactions: readonly (readonly string[])[]) => {
    await Promise.all(
      [...pairs.values()].map(async (p) => {
        for (const args of transactions) await p.nbctl(...args);
        try {
          await p.nbctl('--wait=sb', 'sync');
        } catch (e) {
          throw new Error(
            `${p.kind}: ovn-nbctl --wait=sb sync failed: ${(e as Error).message}\n${logTail(p.northds[0]!.log)}`,
          );
        }
      }),
    );
    for (const [kind, p] of pairs) dumps.set(kind, await dumpSb(p));
  };

  it('builds the topology with one ovn-nbctl transaction; --wait=sb sync returns and SB is the same', async () => {
    await syncAll([TOPOLOGY]);
    const real = dumps.get('ovsdb-server')!;
    const ours = dumps.get('ovnkit-server')!;
    expect(real.flows.length).toBeGreaterThan(300);
    expect(real.datapaths).toHaveLength(6);
    expect(real.portBindings.length).toBe(21);
    // The objects reached SB as flows (a sample of each).
    const all = real.flows.join('\n');
    const missing = [
      'ct_lb(backends=10.0.0.11:80,10.0.1.11:80)',
      'ip4.dst == 8.8.8.8',
      'set_meter(10000, 1000)',
      'ip.dscp = 12',
      'put_dhcp_opts',
      'dns_lookup',
      'log(name="web_in"',
      'fwd_group(',
      'ct_snat(172.16.1.1)',
      'put_nd_ra_opts',
      'reg8[16..31] = select(1, 2)',
      'ip4.src == $as_web && udp',
    ].filter((needle) => !all.includes(needle));
    expect(missing, 'flows of the NB objects').toEqual([]);
    expectSame(real, ours, 'after the topology');
    const rows = await expectSameTables('after the topology');
    console.log(
      `northd-dropin: ${real.flows.length} logical flows, ${real.portBindings.length} port bindings, ` +
        `${real.datapaths.length} datapaths, ${rows} rows of the other SB tables, the same on both servers`,
    );
  }, 180_000);

  it('after updates and deletions (two transactions), SB is again the same', async () => {
    const before = dumps.get('ovsdb-server')!;
    await syncAll(UPDATES);
    const real = dumps.get('ovsdb-server')!;
    const ours = dumps.get('ovnkit-server')!;
    expect(real.flows.length).toBeGreaterThan(300);
    expect(real.flows).not.toEqual(before.flows);
    expect(real.datapaths).toHaveLength(5);
    expect(real.portBindings.some((p) => p.startsWith('sw0-p3|'))).toBe(true);
    expect(real.portBindings.some((p) => p.startsWith('sw1-p2|'))).toBe(false);
    expect(real.flows.join('\n').includes('ct_lb(backends=10.0.0.11:80,10.0.1.11:80)')).toBe(false);
    expectSame(real, ours, 'after the updates');
    const rows = await expectSameTables('after the updates');
    console.log(
      `northd-dropin: after the updates ${real.flows.length} logical flows, ` +
        `${real.portBindings.length} port bindings, ${rows} rows of the other SB tables, the same on both servers`,
    );
  }, 180_000);

  it('two northd instances on ovnkit-server: one active, the other takes over when it is killed', async () => {
    const p = pairs.get('ovnkit-server')!;
    const first = p.northds[0]!;
    const second = p.startNorthd(2);
    const statuses = async () => [await first.status(), await second.status()];
    const both = await until(statuses, (s) => s.includes('active') && s.includes('standby'));
    expect(both.sort()).toEqual(['active', 'standby']);
    // Stays that way: the standby one does not take the lock while the active one holds it.
    const again = await statuses();
    expect(again.sort()).toEqual(['active', 'standby']);
    const [active, standby] = again[0] === 'active' ? [first, second] : [second, first];
    await active.kill('SIGKILL');
    const took = await until(
      () => standby.status(),
      (s) => s === 'active',
    );
    expect(took, logTail(standby.log)).toBe('active');
    await p.nbctl(
      'ls-add',
      'after-failover',
      '--',
      'set',
      'Logical_Switch',
      'after-failover',
      'other_config:requested-tnl-key=31',
    );
    await p.nbctl('--wait=sb', 'sync');
    const dump = await dumpSb(p);
    expect([...dump.names.values()]).toContain('dp:after-failover');
    expect(dump.datapaths.some((d) => d.endsWith('|31'))).toBe(true);
  }, 120_000);
});

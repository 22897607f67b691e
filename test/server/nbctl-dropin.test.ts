/**
 * The in-memory server as a drop-in for ovsdb-server under OVN's own
 * `ovn-nbctl` (23.03, on the installed NB schema 7.0.0): one scripted
 * sequence of ovn-nbctl invocations (the NB commands with `--may-exist` /
 * `--if-exists`, deliberate errors, the generic database commands and `show`)
 * runs against `ovsdb-server` and against the `ovnkit-server` program, both
 * started as processes with ovsdb-server's command line, and each
 * invocation's stdout, stderr and exit status must be equal once UUIDs are
 * masked. The sequence (but for the invocations meant to time out) then runs
 * again, on fresh servers, through an `ovn-nbctl --detach` daemon per server
 * (ovn-nbctl(8) "DAEMON MODE").
 */

import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import { accepts, type FileServer, type Kind, startFileServer } from './file-servers.js';

const NB_SCHEMA = '/usr/share/ovn/ovn-nb.ovsschema';
const KINDS: readonly Kind[] = ['ovsdb-server', 'ovnkit-server'];
const tools = requireOvsdbServer(false);

/**
 * How an output is put in a canonical order before masking. Both servers
 * (and two runs of the same one) pick random UUIDs, and ovn-nbctl prints the
 * rows of `list`, `find` and `show` in the order of its hash table of UUIDs,
 * and a set's elements sorted by UUID, so that order is noise: `records`
 * sorts the blank-line separated records of `list`/`find`, `tree` the
 * indented blocks of `show` at every level, `lines` the lines of
 * `--bare`/csv output, `json` the rows and sets of `--format=json`.
 */
type Order = 'records' | 'tree' | 'lines' | 'json';

interface Step {
  /** ovn-nbctl's arguments; `{name}` is the UUID a previous step captured under `name`. */
  readonly args: readonly string[];
  readonly order?: Order;
  /**
   * The output has sets of UUIDs (or rows) in UUID order: the elements of
   * each `[a, b]` are sorted, and a UUID seen here first gets no label (it
   * would be a random one of the set's) but `<U>`.
   */
  readonly unordered?: boolean;
  /** Names for the UUIDs of this step's stdout, in order of appearance. */
  readonly capture?: readonly string[];
}

const s = (...args: string[]): Step => ({ args });
const sorted = (order: Order, ...args: string[]): Step => ({ args, order });
const unordered = (order: Order | undefined, ...args: string[]): Step =>
  order === undefined ? { args, unordered: true } : { args, order, unordered: true };
const capture = (names: string[], ...args: string[]): Step => ({ args, capture: names });

/** The sequence; DAEMON_STEPS of it also run in daemon mode. */
const STEPS: readonly Step[] = [
  s('init'),
  s('ls-add', 'sw0'),
  s('ls-add', 'sw1'),
  s('ls-add', 'sw0'),
  s('--may-exist', 'ls-add', 'sw0'),
  s('ls-list'),
  s('ls-del', 'nosuch'),
  s('--if-exists', 'ls-del', 'nosuch'),
  s('lsp-add', 'sw0', 'sw0-p1'),
  s('lsp-add', 'sw0', 'sw0-p2'),
  s('lsp-add', 'sw0', 'sw0-p1'),
  s('--may-exist', 'lsp-add', 'sw0', 'sw0-p1'),
  s('--may-exist', 'lsp-add', 'sw1', 'sw0-p1'),
  s('lsp-add', 'nosuch', 'p'),
  s('lsp-set-addresses', 'sw0-p1', '00:00:00:00:00:01 10.0.0.1'),
  s('lsp-set-addresses', 'sw0-p2', 'bogus'),
  s('lsp-set-addresses', 'sw0-p2', 'dynamic'),
  s('lsp-get-addresses', 'sw0-p1'),
  s('lsp-set-port-security', 'sw0-p1', '00:00:00:00:00:01 10.0.0.1'),
  s('lsp-get-port-security', 'sw0-p1'),
  s('lsp-set-type', 'sw0-p2', 'localnet'),
  s('lsp-set-type', 'sw0-p2', 'no-such-type'),
  s('lsp-get-type', 'sw0-p2'),
  s('lsp-set-options', 'sw0-p2', 'network_name=phys'),
  s('lsp-get-options', 'sw0-p2'),
  s('lsp-set-enabled', 'sw0-p1', 'disabled'),
  s('lsp-get-enabled', 'sw0-p1'),
  s('lsp-set-enabled', 'sw0-p1', 'maybe'),
  s('lsp-get-up', 'sw0-p1'),
  s('lsp-list', 'sw0'),
  s('lsp-del', 'sw0-p2'),
  s('lsp-del', 'sw0-p2'),
  s('--if-exists', 'lsp-del', 'sw0-p2'),
  s('lsp-add', 'sw0', 'sw0-p2'),
  s('lsp-add', 'sw0', 'child1', 'sw0-p2', '10'),
  s('lsp-get-parent', 'child1'),
  s('lsp-get-tag', 'child1'),
  s('lsp-add', 'sw0', 'child2', 'sw0-p2', '5000'),
  s(
    'ls-add',
    'sw5',
    '--',
    'lsp-add',
    'sw5',
    'sw5-p1',
    '--',
    'lsp-set-addresses',
    'sw5-p1',
    'unknown',
  ),
  s('show', 'sw5'),
  s('--add-duplicate', 'ls-add', 'sw5'),
  s('lsp-add', 'sw5', 'x'),
  // Routers and their ports.
  s('lr-add', 'lr0'),
  s('lr-add', 'lr0'),
  s('--may-exist', 'lr-add', 'lr0'),
  s('lr-list'),
  s('lrp-add', 'lr0', 'lrp0', '00:00:00:00:ff:01', '10.0.0.254/24'),
  s('lrp-add', 'lr0', 'lrp1', '00:00:00:00:ff:02', '172.16.0.1/24', '2001:db8::1/64'),
  s('lrp-add', 'lr0', 'lrp2', 'zz:00', '1.1.1.1/24'),
  s('lrp-add', 'lr0', 'lrp2', '00:00:00:00:ff:03', '1.1.1.1'),
  s('lrp-add', 'lr0', 'lrp0', '00:00:00:00:ff:01', '10.0.0.254/24'),
  s('--may-exist', 'lrp-add', 'lr0', 'lrp0', '00:00:00:00:ff:01', '10.0.0.254/24'),
  s('--may-exist', 'lrp-add', 'lr0', 'lrp0', '00:00:00:00:ff:09', '10.0.0.254/24'),
  s('lrp-list', 'lr0'),
  s('lrp-set-enabled', 'lrp1', 'disabled'),
  s('lrp-get-enabled', 'lrp1'),
  s('lrp-set-gateway-chassis', 'lrp1', 'chassis1', '20'),
  s('lrp-set-gateway-chassis', 'lrp1', 'chassis2', '10'),
  s('lrp-get-gateway-chassis', 'lrp1'),
  s('lrp-del-gateway-chassis', 'lrp1', 'chassis1'),
  s('lrp-del-gateway-chassis', 'lrp1', 'chassis9'),
  s('lsp-add', 'sw0', 'sw0-lr0'),
  s('lsp-set-type', 'sw0-lr0', 'router'),
  s('lsp-set-addresses', 'sw0-lr0', 'router'),
  s('lsp-set-options', 'sw0-lr0', 'router-port=lrp0'),
  unordered('tree', 'show', 'lr0'),
  // Static routes.
  s('lr-route-add', 'lr0', '0.0.0.0/0', '172.16.0.254'),
  s('lr-route-add', 'lr0', '192.168.0.0/16', '10.0.0.100'),
  s('lr-route-add', 'lr0', '192.168.0.0/16', '10.0.0.100'),
  s('--may-exist', 'lr-route-add', 'lr0', '192.168.0.0/16', '10.0.0.101'),
  s('--ecmp', 'lr-route-add', 'lr0', '192.168.0.0/16', '10.0.0.102'),
  s('lr-route-add', 'lr0', 'bad', '10.0.0.1'),
  s('lr-route-add', 'lr0', '10.1.0.0/16', '10.0.0.1', 'nosuchport'),
  s('--policy=src-ip', 'lr-route-add', 'lr0', '10.0.0.0/24', '172.16.0.254'),
  s('lr-route-list', 'lr0'),
  s('lr-route-del', 'lr0', '192.168.0.0/16', '10.0.0.102'),
  s('lr-route-del', 'lr0', '9.9.9.0/24'),
  s('--if-exists', 'lr-route-del', 'lr0', '9.9.9.0/24'),
  s('lr-route-list', 'lr0'),
  // Policies.
  s('lr-policy-add', 'lr0', '100', 'ip4.src == 10.0.0.0/24', 'allow'),
  s('lr-policy-add', 'lr0', '200', 'ip4.dst == 1.1.1.1', 'drop'),
  s('lr-policy-add', 'lr0', '300', 'ip4.src == 10.0.0.5', 'reroute', '172.16.0.100'),
  s('lr-policy-add', 'lr0', '100', 'ip4.src == 10.0.0.0/24', 'allow'),
  s('lr-policy-add', 'lr0', '70000', 'ip4', 'allow'),
  s('lr-policy-add', 'lr0', '400', 'ip4', 'reroute', 'not-an-ip'),
  s('lr-policy-list', 'lr0'),
  s('lr-policy-del', 'lr0', '200'),
  s('lr-policy-del', 'lr0', '201'),
  s('--if-exists', 'lr-policy-del', 'lr0', '201'),
  s('lr-policy-list', 'lr0'),
  // NAT.
  s('lr-nat-add', 'lr0', 'snat', '172.16.0.1', '10.0.0.0/24'),
  s('lr-nat-add', 'lr0', 'dnat_and_snat', '172.16.0.10', '10.0.0.1'),
  s('lr-nat-add', 'lr0', 'snat', '172.16.0.1', '10.0.0.0/24'),
  s('--may-exist', 'lr-nat-add', 'lr0', 'snat', '172.16.0.1', '10.0.0.0/24'),
  s('lr-nat-add', 'lr0', 'bogus', '1.1.1.1', '2.2.2.2'),
  s('lr-nat-add', 'lr0', 'dnat', '300.1.1.1', '10.0.0.2'),
  s('lr-nat-list', 'lr0'),
  s('lr-nat-del', 'lr0', 'dnat_and_snat', '172.16.0.10'),
  s('lr-nat-del', 'lr0', 'dnat_and_snat', '172.16.0.10'),
  s('--if-exists', 'lr-nat-del', 'lr0', 'dnat_and_snat', '172.16.0.10'),
  s('lr-nat-list', 'lr0'),
  // ACLs.
  s('acl-add', 'sw0', 'from-lport', '1000', 'ip4.src == 10.0.0.1', 'drop'),
  s('acl-add', 'sw0', 'to-lport', '1001', 'tcp.dst == 80', 'allow-related'),
  s('--log', '--name=web', '--severity=info', 'acl-add', 'sw0', 'to-lport', '900', 'udp', 'allow'),
  s('acl-add', 'sw0', 'from-lport', '1000', 'ip4.src == 10.0.0.1', 'drop'),
  s('--may-exist', 'acl-add', 'sw0', 'from-lport', '1000', 'ip4.src == 10.0.0.1', 'drop'),
  s('acl-add', 'sw0', 'sideways', '1', 'ip4', 'drop'),
  s('acl-add', 'sw0', 'from-lport', '99999', 'ip4', 'drop'),
  s('acl-add', 'sw0', 'from-lport', '1', 'ip4', 'explode'),
  s('acl-list', 'sw0'),
  s('acl-del', 'sw0', 'to-lport', '1001', 'tcp.dst == 80'),
  s('acl-list', 'sw0'),
  // Port groups.
  s('pg-add', 'pg0', 'sw0-p1', 'sw0-p2'),
  s('pg-set-ports', 'pg0', 'sw0-p1'),
  s('pg-set-ports', 'pg0', 'nosuch'),
  s('--type=port-group', 'acl-add', 'pg0', 'from-lport', '500', 'inport == @pg0', 'drop'),
  s('--type=port-group', 'acl-list', 'pg0'),
  unordered('lines', '--bare', '--columns=name,ports', 'find', 'Port_Group', 'name=pg0'),
  s('pg-del', 'pg0'),
  s('pg-del', 'pg0'),
  // Address sets, through the generic commands.
  capture(['as0'], 'create', 'Address_Set', 'name=as0', 'addresses="10.0.0.1","10.0.0.2"'),
  s('list', 'Address_Set', '{as0}'),
  s('add', 'Address_Set', 'as0', 'addresses', '"10.0.0.3"'),
  s('remove', 'Address_Set', 'as0', 'addresses', '"10.0.0.1"'),
  s('get', 'Address_Set', 'as0', 'addresses'),
  s('create', 'Address_Set', 'name=as0'),
  s('clear', 'Address_Set', 'as0', 'addresses'),
  s('--bare', '--columns=name,addresses', 'list', 'Address_Set'),
  s('destroy', 'Address_Set', 'as0'),
  s('destroy', 'Address_Set', 'as0'),
  s('--if-exists', 'destroy', 'Address_Set', 'as0'),
  // Load balancers.
  s('lb-add', 'lb0', '10.0.0.100:80', '10.0.0.1:8080,10.0.0.2:8080'),
  s('lb-add', 'lb0', '10.0.0.100:80', '10.0.0.3:8080'),
  s('--may-exist', 'lb-add', 'lb0', '10.0.0.100:80', '10.0.0.3:8080'),
  s('lb-add', 'lb0', '10.0.0.101:80', '10.0.0.1:80', 'udp'),
  s('lb-add', 'lb1', 'bad:vip', '10.0.0.1'),
  s('lb-add', 'lb1', '10.0.0.102:80', '10.0.0.1:80', 'sctp-ish'),
  s('lb-list'),
  s('ls-lb-add', 'sw0', 'lb0'),
  s('ls-lb-add', 'sw0', 'nosuch'),
  s('lr-lb-add', 'lr0', 'lb0'),
  s('ls-lb-list', 'sw0'),
  s('lr-lb-list', 'lr0'),
  s('ls-lb-del', 'sw0', 'lb0'),
  s('lb-del', 'lb0', '10.0.0.101:80'),
  s('lb-del', 'nosuch'),
  s('--if-exists', 'lb-del', 'nosuch'),
  s('lb-list'),
  // DHCP options.
  s('dhcp-options-create', '10.0.0.0/24', 'k=v'),
  s('dhcp-options-create', 'bad-cidr'),
  capture(['dhcp'], 'dhcp-options-list'),
  s(
    'dhcp-options-set-options',
    '{dhcp}',
    'lease_time=3600',
    'router=10.0.0.254',
    'server_id=10.0.0.254',
    'server_mac=00:00:00:00:ff:01',
  ),
  s('dhcp-options-get-options', '{dhcp}'),
  s('lsp-set-dhcpv4-options', 'sw0-p1', '{dhcp}'),
  s('lsp-get-dhcpv4-options', 'sw0-p1'),
  s('dhcp-options-get-options', '00000000-0000-0000-0000-000000000001'),
  // HA chassis groups.
  s('ha-chassis-group-add', 'hagrp0'),
  s('ha-chassis-group-add', 'hagrp0'),
  s('ha-chassis-group-add-chassis', 'hagrp0', 'ch1', '10'),
  s('ha-chassis-group-add-chassis', 'hagrp0', 'ch2', '20'),
  s('ha-chassis-group-add-chassis', 'hagrp0', 'ch3', 'high'),
  unordered('lines', 'ha-chassis-group-list'),
  s('ha-chassis-group-remove-chassis', 'hagrp0', 'ch1'),
  s('ha-chassis-group-list'),
  s('ha-chassis-group-remove-chassis', 'hagrp0', 'ch1'),
  s('ha-chassis-group-del', 'hagrp0'),
  s('ha-chassis-group-del', 'hagrp0'),
  // QoS.
  s('qos-add', 'sw0', 'from-lport', '100', 'ip4', 'dscp=10'),
  s('qos-add', 'sw0', 'to-lport', '200', 'tcp', 'rate=1000', 'burst=100'),
  s('qos-add', 'sw0', 'from-lport', '100', 'ip4', 'dscp=70'),
  s('qos-add', 'sw0', 'from-lport', '100', 'ip4', 'dscp=10'),
  s('--may-exist', 'qos-add', 'sw0', 'from-lport', '100', 'ip4', 'dscp=10'),
  s('qos-list', 'sw0'),
  s('qos-del', 'sw0', 'from-lport', '100', 'ip4'),
  s('qos-list', 'sw0'),
  // Meters.
  s('meter-add', 'm0', 'drop', '100', 'kbps'),
  s('meter-add', 'm1', 'drop', '10', 'pktps', '5'),
  s('meter-add', 'm0', 'drop', '100', 'kbps'),
  s('meter-add', 'm2', 'bogus', '1', 'kbps'),
  s('meter-add', 'm2', 'drop', '1', 'furlongs'),
  s('meter-list'),
  s('meter-del', 'm1'),
  s('meter-list'),
  // The generic database commands.
  unordered(undefined, 'list', 'Logical_Switch', 'sw0'),
  unordered('records', '--columns=name,ports', 'list', 'Logical_Switch'),
  s('find', 'Logical_Switch_Port', 'type=router'),
  sorted('lines', '--bare', '--columns=name', 'find', 'Logical_Switch_Port', 'enabled=false'),
  unordered('json', '--format=json', 'list', 'Logical_Router', 'lr0'),
  sorted('lines', '--format=csv', '--columns=name,enabled', 'list', 'Logical_Router_Port'),
  s('--format=table', '--columns=name,mac,networks', 'list', 'Logical_Router_Port', 'lrp0'),
  s('--format=json', '--columns=name,addresses', 'find', 'Logical_Switch_Port', 'name=sw0-p1'),
  s('get', 'Logical_Switch', 'sw0', 'name'),
  s('get', 'Logical_Switch', 'sw0', 'other_config:foo'),
  s('--if-exists', 'get', 'Logical_Switch', 'sw0', 'other_config:foo'),
  s('set', 'Logical_Switch', 'sw0', 'other_config:subnet=10.0.0.0/24', 'external_ids:owner=test'),
  s('get', 'Logical_Switch', 'sw0', 'other_config:subnet', 'external_ids'),
  s('set', 'Logical_Switch', 'sw0', 'nosuchcol=1'),
  s('set', 'Logical_Switch', 'nosuch', 'name=x'),
  s('set', 'Logical_Router_Port', 'lrp0', 'mac=12'),
  s('add', 'Logical_Switch', 'sw0', 'external_ids', 'a=b'),
  s('remove', 'Logical_Switch', 'sw0', 'external_ids', 'owner'),
  s('get', 'Logical_Switch', 'sw0', 'external_ids'),
  s('clear', 'Logical_Switch', 'sw0', 'external_ids'),
  s('get', 'Logical_Switch', 'sw0', 'external_ids'),
  s('add', 'Logical_Switch', 'sw0', 'ports', '00000000-0000-0000-0000-000000000001'),
  s('set', 'NB_Global', '.', 'options:foo=bar'),
  s('get', 'NB_Global', '.', 'options'),
  // `sync` increments nb_cfg (a mutate the server answers) and waits for a northd
  // that is not there; ovn-nbctl wraps nb_cfg at the top of the int64 range.
  s('--timeout=2', '--wait=sb', 'sync'),
  s('get', 'NB_Global', '.', 'nb_cfg'),
  s('set', 'NB_Global', '.', 'nb_cfg=-9223372036854775808'),
  s('get', 'NB_Global', '.', 'nb_cfg'),
  s('set', 'NB_Global', '.', 'nb_cfg=9223372036854775806'),
  s('get', 'NB_Global', '.', 'nb_cfg'),
  s('--timeout=2', '--wait=sb', 'sync'),
  s('get', 'NB_Global', '.', 'nb_cfg'),
  capture(['sw9'], 'create', 'Logical_Switch', 'name=sw9'),
  s(
    '--id=@p',
    'create',
    'Logical_Switch_Port',
    'name=sw9-p',
    '--',
    'add',
    'Logical_Switch',
    'sw9',
    'ports',
    '@p',
  ),
  s('lsp-list', 'sw9'),
  s('get', 'Logical_Switch', '{sw9}', 'name'),
  s('create', 'Logical_Switch', 'nosuchcol=1'),
  s('destroy', 'Logical_Switch', '{sw9}'),
  s('destroy', 'Logical_Switch', 'sw9'),
  // Checks the server makes (references, indexes, garbage collection) and the client's own.
  s('create', 'Meter', 'name=mx', 'unit=kbps'),
  s(
    '--id=@b',
    'create',
    'Meter_Band',
    'action=drop',
    'rate=1',
    '--',
    'create',
    'Meter',
    'name=m0',
    'unit=kbps',
    'bands=@b',
  ),
  s('get', 'Meter', 'm0', 'bands'),
  unordered('records', '--columns=action,rate,burst_size', 'list', 'Meter_Band'),
  s('set', 'Logical_Router_Port', 'lrp1', 'networks=[]'),
  s('remove', 'Logical_Router_Port', 'lrp2', 'networks', '"1.1.1.1"'),
  s('create', 'Logical_Router_Static_Route', 'ip_prefix=1.0.0.0/8', 'nexthop=1.1.1.1'),
  s('--bare', '--columns=nexthop', 'find', 'Logical_Router_Static_Route', 'ip_prefix="1.0.0.0/8"'),
  s(
    '--id=@r',
    'create',
    'Logical_Router_Static_Route',
    'ip_prefix=1.0.0.0/8',
    'nexthop=1.1.1.1',
    '--',
    'add',
    'Logical_Router',
    'lr0',
    'static_routes',
    '@r',
  ),
  s('lr-route-list', 'lr0'),
  s('set', 'Logical_Switch_Port', 'sw0-p1', 'tag_request=5000'),
  s('set', 'Logical_Router', 'lr0', 'enabled=maybe'),
  s(
    '--id=@p',
    'create',
    'Logical_Switch_Port',
    'name=sw0-p1',
    '--',
    'add',
    'Logical_Switch',
    'sw1',
    'ports',
    '@p',
  ),
  s('destroy', 'Logical_Router_Port', 'lrp2'),
  s('lrp-list', 'lr0'),
  s('wait-until', 'Logical_Router_Port', 'lrp1', 'enabled=false'),
  s('--oneline', 'lsp-list', 'sw0', '--', 'lr-list', '--', 'lsp-get-addresses', 'sw0-p1'),
  s('--data=json', '--columns=name,other_config', 'find', 'Logical_Switch', 'name=sw0'),
  s(
    '--no-headings',
    '--format=table',
    '--columns=name,type',
    'find',
    'Logical_Switch_Port',
    'name=sw0-lr0',
  ),
  s('wait-until', 'Logical_Switch', 'sw0', 'name=sw0'),
  s('wait-until', 'Logical_Switch', 'sw0'),
  s('--timeout=1', 'wait-until', 'Logical_Switch', 'sw0', 'name=other'),
  unordered('tree', 'show'),
  s('lr-del', 'lr0'),
  s('lr-del', 'lr0'),
  s('ls-del', 'sw1'),
  sorted('lines', '--bare', '--columns=name', 'list', 'Logical_Switch'),
  unordered('tree', 'show'),
];

/**
 * The steps that also run in daemon mode: all but those meant to time out (a
 * `wait-until` that never holds, `--wait=sb sync` with no northd): the
 * client's alarm ends them, but the daemon would go on waiting and delay
 * every later command.
 */
const DAEMON_STEPS = STEPS.filter((step) => !step.args.some((a) => a.startsWith('--timeout=')));

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** One server's run: UUIDs seen, in order of appearance, and captured names. */
class Masker {
  private readonly labels = new Map<string, string>();
  readonly captured = new Map<string, string>();

  /** UUIDs become their labels; a new one gets the next label, or `<U>` unless `assign`. */
  mask(text: string, assign = true): string {
    return text.replace(UUID, (u) => {
      let label = this.labels.get(u);
      if (label === undefined) {
        if (!assign) return '<U>';
        label = `<U${this.labels.size + 1}>`;
        this.labels.set(u, label);
      }
      return label;
    });
  }
}

const key = (t: string) => t.replace(UUID, '<U>');
const byKey = (a: string, b: string) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/** Indented lines as a tree, each node's children sorted, back to text. */
function sortTree(lines: readonly string[]): string {
  const indent = (l: string) => l.length - l.trimStart().length;
  const nodes: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const head = lines[i] as string;
    let j = i + 1;
    while (j < lines.length && indent(lines[j] as string) > indent(head)) j++;
    nodes.push(`${head}\n${sortTree(lines.slice(i + 1, j))}`);
    i = j;
  }
  return nodes.sort(byKey).join('');
}

function sortSets(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  if (value[0] === 'set' && Array.isArray(value[1]))
    return [
      'set',
      value[1]
        .map((v) => JSON.stringify(v))
        .sort()
        .map((v) => JSON.parse(v)),
    ];
  return value.map(sortSets);
}

function canonical(text: string, order: Order | undefined): string {
  if (order === undefined) return text;
  if (order === 'lines') {
    const lines = text.split('\n');
    const last = lines.pop() ?? '';
    return [...lines.sort(byKey), last].join('\n');
  }
  if (order === 'records') {
    const records = text.replace(/\n$/, '').split('\n\n');
    return `${records.sort(byKey).join('\n\n')}\n`;
  }
  if (order === 'json') {
    const j = JSON.parse(text) as { data: unknown[][]; headings: string[] };
    const rows = j.data.map((r) => JSON.stringify(r)).sort(byKey);
    return `{"data":[${rows.join(',')}],"headings":${JSON.stringify(j.headings)}}\n`;
  }
  return sortTree(text.split('\n').filter((l) => l !== ''));
}

/** Each `[a, b, c]` on a line (or JSON `["set", …]`) with its elements sorted (after masking). */
function sortBrackets(text: string, order: Order | undefined): string {
  if (order === 'json') {
    const j = JSON.parse(text) as { data: unknown[]; headings: string[] };
    return `${JSON.stringify({ data: sortSets(j.data), headings: j.headings })}\n`;
  }
  return text.replace(
    /\[([^[\]]*)\]/g,
    (_m, inner: string) => `[${inner.split(', ').sort().join(', ')}]`,
  );
}

/** Log lines that ovn-nbctl copies to stderr start with the time. */
function untimed(text: string): string {
  return text.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\|/gm, '<TIME>|');
}

const INDEX_ROWS =
  /First row, with UUID ([0-9a-f-]{36}), ([^.]*\.) {2}Second row, with UUID ([0-9a-f-]{36}), ([^.]*\.)/g;

/**
 * A duplicate-index error names its two rows in the order of their column
 * values, `_uuid` included, so which one is "First" depends on the random
 * UUIDs (the same on one server from run to run): put the two descriptions
 * in the order of their text.
 */
function indexRowsInOrder(text: string): string {
  return text.replace(INDEX_ROWS, (_m, u1: string, d1: string, u2: string, d2: string) => {
    const rows = [
      [u1, d1],
      [u2, d2],
    ].sort((a, b) => ((a[1] as string) < (b[1] as string) ? -1 : 1));
    const [[ua, da], [ub, db]] = rows as [[string, string], [string, string]];
    return `First row, with UUID ${ua}, ${da}  Second row, with UUID ${ub}, ${db}`;
  });
}

interface Outcome {
  readonly code: number | string;
  readonly stdout: string;
  readonly stderr: string;
}

function nbctl(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      'ovn-nbctl',
      args,
      { env, encoding: 'utf8', timeout: 60_000 },
      (error, stdout, stderr) => {
        const e = error as (Error & { code?: number | string; signal?: string }) | null;
        resolve({ code: e === null ? 0 : (e.signal ?? e.code ?? -1), stdout, stderr });
      },
    );
  });
}

/** The environment of a client invocation: no daemon, or `OVN_NB_DAEMON=ctl`. */
function clientEnv(daemon?: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['OVN_NB_DAEMON'];
  delete env['OVN_NB_DB'];
  if (daemon !== undefined) env['OVN_NB_DAEMON'] = daemon;
  return env;
}

interface Row {
  readonly i: number;
  readonly command: string;
  readonly outcomes: Record<Kind, Outcome>;
}

/** Run `steps` on each server in turn: per step, both masked outcomes. */
async function runSteps(
  steps: readonly Step[],
  invoke: (kind: Kind, args: readonly string[]) => Promise<Outcome>,
): Promise<Row[]> {
  const results = new Map<Kind, Outcome[]>();
  for (const kind of KINDS) {
    const masker = new Masker();
    const outs: Outcome[] = [];
    for (const step of steps) {
      const args = step.args.map((a) =>
        a.replace(/\{(\w+)\}/g, (_, name: string) => {
          const u = masker.captured.get(name);
          if (u === undefined) throw new Error(`${kind}: nothing captured as ${name}`);
          return u;
        }),
      );
      const raw = await invoke(kind, args);
      if (step.capture !== undefined) {
        const found = raw.stdout.match(UUID) ?? [];
        step.capture.forEach((name, n) => {
          const u = found[n];
          if (u !== undefined) masker.captured.set(name, u);
        });
      }
      const stdout = masker.mask(canonical(raw.stdout, step.order), step.unordered !== true);
      outs.push({
        code: raw.code,
        stdout: step.unordered === true ? sortBrackets(stdout, step.order) : stdout,
        stderr: masker.mask(untimed(indexRowsInOrder(raw.stderr))),
      });
    }
    results.set(kind, outs);
  }
  return steps.map((step, i) => ({
    i,
    command: step.args.join(' '),
    outcomes: Object.fromEntries(
      KINDS.map((k) => [k, (results.get(k) as Outcome[])[i] as Outcome]),
    ) as Record<Kind, Outcome>,
  }));
}

const same = (a: Outcome, b: Outcome) =>
  a.code === b.code && a.stdout === b.stdout && a.stderr === b.stderr;

/** The differing steps as a table: step, command, and each server's exit/stdout/stderr. */
function report(rows: readonly Row[]): string {
  const diffs = rows.filter((r) => !same(r.outcomes['ovsdb-server'], r.outcomes['ovnkit-server']));
  const cell = (o: Outcome) =>
    `exit ${o.code} | stdout ${JSON.stringify(o.stdout)} | stderr ${JSON.stringify(o.stderr)}`;
  const lines = [
    `${diffs.length} of ${rows.length} ovn-nbctl invocations differ`,
    '| # | command | server | outcome |',
    '|---|---------|--------|---------|',
  ];
  for (const r of diffs) {
    for (const k of KINDS) {
      lines.push(`| ${r.i} | ${k === KINDS[0] ? r.command : ''} | ${k} | ${cell(r.outcomes[k])} |`);
    }
  }
  return lines.join('\n');
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-nbctl-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A server of each kind on a fresh NB database in its own directory under `name`. */
async function startServers(name: string): Promise<Record<Kind, FileServer>> {
  const servers = {} as Record<Kind, FileServer>;
  for (const kind of KINDS) {
    const d = await mkdtemp(join(dir, `${name}-${kind}-`));
    const db = join(d, 'nb.db');
    await runTool(tools.ovsdbTool, ['create', db, NB_SCHEMA]);
    servers[kind] = await startFileServer(kind, d, db);
  }
  return servers;
}

async function stopServers(servers: Record<Kind, FileServer> | undefined): Promise<void> {
  await Promise.all(Object.values(servers ?? {}).map((srv) => srv.kill()));
}

describe('ovn-nbctl on ovsdb-server and on ovnkit-server', () => {
  it('has a sequence of at least 100 invocations, at least 20 of them for daemon mode', () => {
    expect(STEPS.length).toBeGreaterThanOrEqual(100);
    expect(DAEMON_STEPS.length).toBeGreaterThanOrEqual(20);
  });

  it(`${STEPS.length} invocations: equal stdout, stderr and exit status`, async () => {
    const servers = await startServers('direct');
    try {
      const rows = await runSteps(STEPS, (kind, args) =>
        nbctl([`--db=unix:${servers[kind].sock}`, '--timeout=30', ...args], clientEnv()),
      );
      const differing = rows.filter(
        (r) => !same(r.outcomes['ovsdb-server'], r.outcomes['ovnkit-server']),
      );
      expect(differing.length, report(rows)).toBe(0);
      // The sequence does what it means to: some invocations fail, the rest succeed.
      const failed = rows.filter((r) => r.outcomes['ovsdb-server'].code !== 0).length;
      expect(failed).toBeGreaterThan(30);
      expect(rows.length - failed).toBeGreaterThan(100);
    } finally {
      await stopServers(servers);
    }
  }, 240_000);

  it(`daemon mode (ovn-nbctl --detach, OVN_NB_DAEMON): ${DAEMON_STEPS.length} invocations`, async () => {
    const servers = await startServers('daemon');
    const daemons: { ctl: string; pidfile: string }[] = [];
    const ctls = {} as Record<Kind, string>;
    try {
      for (const kind of KINDS) {
        const d = join(servers[kind].sock, '..');
        const ctl = join(d, 'nbctl.ctl');
        const pidfile = join(d, 'nbctl.pid');
        const started = await nbctl(
          [
            `--db=unix:${servers[kind].sock}`,
            '--detach',
            `--pidfile=${pidfile}`,
            `--log-file=${join(d, 'nbctl.log')}`,
            `--unixctl=${ctl}`,
          ],
          clientEnv(),
        );
        expect(started.code, started.stderr).toBe(0);
        daemons.push({ ctl, pidfile });
        for (let i = 0; i < 600 && !(await accepts(ctl)); i++) await sleep(50);
        ctls[kind] = ctl;
      }
      const rows = await runSteps(DAEMON_STEPS, (kind, args) =>
        nbctl(['--timeout=30', ...args], clientEnv(ctls[kind])),
      );
      const differing = rows.filter(
        (r) => !same(r.outcomes['ovsdb-server'], r.outcomes['ovnkit-server']),
      );
      expect(differing.length, report(rows)).toBe(0);
      expect(rows.filter((r) => r.outcomes['ovsdb-server'].code !== 0).length).toBeGreaterThan(5);
      // The clients went through the daemons: its log, and what they printed.
      expect(rows[5]?.outcomes['ovnkit-server'].stdout).toMatch(/\(sw0\)\n.*\(sw1\)\n$/);
      expect(rows[3]?.outcomes['ovnkit-server'].stderr).toBe(
        'ovn-nbctl: sw0: a switch with this name already exists\n',
      );
    } finally {
      for (const d of daemons) {
        await runTool(tools.ovsAppctl, ['-t', d.ctl, 'exit']).catch(() => undefined);
      }
      await stopServers(servers);
    }
  }, 180_000);
});

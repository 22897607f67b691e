/**
 * Differential scenarios of control plane protection (CoPP), the
 * database's connections and TLS configuration, router port redirect
 * types, and the named getters (`lsp-get-*`, `lrp-get-*`, `lb-list`,
 * `ls-lb-list`, `lr-lb-list`, `dhcp-options-get-options`,
 * `ha-chassis-group-list`, `copp-list`, `get-connection`, `get-ssl`).
 *
 * The scenarios that change the database compare the dumps of the two
 * sides ({@link breadthBScenarios}); the getter scenarios
 * ({@link getterScenarios}) build a database with `ovn-nbctl`, then read it
 * through the DSL and through `ovn-nbctl`, and compare the DSL's value with
 * what `ovn-nbctl` printed, parsed.
 */

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { connectDatabase } from '../../../src/client/open.js';
import {
  delConnection,
  delSsl,
  getConnection,
  getSsl,
  setConnection,
  setSsl,
} from '../../../src/nb/connection-config.js';
import { coppAdd, coppDel, coppList, lrCoppAdd, lsCoppAdd } from '../../../src/nb/copp.js';
import { dhcpOptionsGetOptions } from '../../../src/nb/dhcp.js';
import { InvalidArgumentError, NotFoundError } from '../../../src/nb/errors.js';
import { haChassisGroupList } from '../../../src/nb/ha-chassis-group.js';
import { NB, type NbTxn, NbTxn as NbTxnClass } from '../../../src/nb/index.js';
import { lrLbList, lsLbList } from '../../../src/nb/lb-attach.js';
import { lbList } from '../../../src/nb/load-balancer.js';
import { lrAdd } from '../../../src/nb/router.js';
import {
  lrpAdd,
  lrpGetEnabled,
  lrpGetGatewayChassis,
  lrpGetRedirectType,
  lrpSetRedirectType,
} from '../../../src/nb/router-port.js';
import { lsAdd } from '../../../src/nb/switch.js';
import {
  lspGetAddresses,
  lspGetDhcpv4Options,
  lspGetDhcpv6Options,
  lspGetEnabled,
  lspGetOptions,
  lspGetParent,
  lspGetPortSecurity,
  lspGetTag,
  lspGetType,
  lspGetUp,
} from '../../../src/nb/switch-port-getters.js';
import { startOvsdbServer } from '../../../src/testing/index.js';
import { TransactionBuilder } from '../../../src/transactions/builder.js';
import { type RawDump, rowsOf, type Scenario } from '../helpers/differential.js';

const run = promisify(execFile);

/** Drop the `Connection` rows of `target` from a raw dump, and their references from `NB_Global`. */
function dropConnection(d: RawDump, target: string): void {
  const gone = new Set<string>();
  d['Connection'] = rowsOf(d, 'Connection').filter((r) => {
    if (r['target'] !== target) return true;
    gone.add((r['_uuid'] as [string, string])[1]);
    return false;
  });
  for (const g of rowsOf(d, 'NB_Global')) {
    const c = g['connections'] as unknown;
    const refs: [string, string][] = Array.isArray(c) && c[0] === 'set' ? c[1] : [c as never];
    const kept = refs.filter((r) => !gone.has(r[1]));
    g['connections'] = kept.length === 1 ? kept[0] : ['set', kept];
  }
}

export const breadthBScenarios: readonly Scenario[] = [
  {
    name: 'copp-add: several protocols, a meter replaced, a second policy',
    group: 'copp',
    dsl: [
      (t) => {
        coppAdd(t, 'copp0', 'arp', 'm-arp');
        coppAdd(t, 'copp0', 'icmp4-error', 'm-icmp');
        coppAdd(t, 'copp0', 'svc-monitor', 'm-svc');
      },
      (t) => {
        coppAdd(t, 'copp0', 'arp', 'm-arp2');
        coppAdd(t, 'copp1', 'nd-ns-resolve', 'm-nd');
      },
    ],
    nbctl: [
      ['copp-add', 'copp0', 'arp', 'm-arp'],
      ['copp-add', 'copp0', 'icmp4-error', 'm-icmp'],
      ['copp-add', 'copp0', 'svc-monitor', 'm-svc'],
      ['copp-add', 'copp0', 'arp', 'm-arp2'],
      ['copp-add', 'copp1', 'nd-ns-resolve', 'm-nd'],
    ],
  },
  {
    name: 'copp-del: one protocol, the last protocol (the policy goes), a whole policy',
    group: 'copp',
    dsl: [
      (t) => {
        coppAdd(t, 'copp0', 'arp', 'm1');
        coppAdd(t, 'copp0', 'dns', 'm2');
        coppAdd(t, 'copp1', 'igmp', 'm3');
        coppAdd(t, 'copp2', 'bfd', 'm4');
        coppAdd(t, 'copp2', 'reject', 'm5');
      },
      (t) => coppDel(t, 'copp0', 'arp'),
      (t) => coppDel(t, 'copp1', 'igmp'),
      (t) => coppDel(t, 'copp2'),
    ],
    nbctl: [
      ['copp-add', 'copp0', 'arp', 'm1'],
      ['copp-add', 'copp0', 'dns', 'm2'],
      ['copp-add', 'copp1', 'igmp', 'm3'],
      ['copp-add', 'copp2', 'bfd', 'm4'],
      ['copp-add', 'copp2', 'reject', 'm5'],
      ['copp-del', 'copp0', 'arp'],
      ['copp-del', 'copp1', 'igmp'],
      ['copp-del', 'copp2'],
    ],
  },
  {
    name: 'ls-copp-add, lr-copp-add: a policy on a switch and a router, then replaced',
    group: 'copp',
    dsl: [
      (t) => {
        lsAdd(t, 'sw0');
        lrAdd(t, 'lr0');
        coppAdd(t, 'copp0', 'arp', 'm1');
        coppAdd(t, 'copp1', 'tcp-reset', 'm2');
      },
      (t) => {
        lsCoppAdd(t, 'copp0', 'sw0');
        lrCoppAdd(t, 'copp0', 'lr0');
      },
      (t) => lrCoppAdd(t, 'copp1', 'lr0'),
    ],
    nbctl: [
      ['ls-add', 'sw0'],
      ['lr-add', 'lr0'],
      ['copp-add', 'copp0', 'arp', 'm1'],
      ['copp-add', 'copp1', 'tcp-reset', 'm2'],
      ['ls-copp-add', 'copp0', 'sw0'],
      ['lr-copp-add', 'copp0', 'lr0'],
      ['lr-copp-add', 'copp1', 'lr0'],
    ],
  },
  {
    name: 'copp errors: unknown protocol, unknown policy on a switch, unknown switch (nothing written)',
    group: 'copp',
    dsl: [
      (t) => {
        lsAdd(t, 'sw0');
        coppAdd(t, 'copp0', 'arp', 'm1');
      },
      {
        run: (t) => coppAdd(t, 'copp0', 'dhcpv4-relay' as 'arp', 'm2'),
        throws: InvalidArgumentError,
      },
      { run: (t) => coppDel(t, 'copp0', 'bogus' as 'arp'), throws: InvalidArgumentError },
      { run: (t) => lsCoppAdd(t, 'nocopp', 'sw0'), throws: NotFoundError },
      { run: (t) => lsCoppAdd(t, 'copp0', 'nosw'), throws: NotFoundError },
    ],
    nbctl: [
      ['ls-add', 'sw0'],
      ['copp-add', 'copp0', 'arp', 'm1'],
      { args: ['copp-add', 'copp0', 'dhcpv4-relay', 'm2'], fails: true },
      { args: ['copp-del', 'copp0', 'bogus'], fails: true },
      { args: ['ls-copp-add', 'nocopp', 'sw0'], fails: true },
      { args: ['ls-copp-add', 'copp0', 'nosw'], fails: true },
    ],
  },
  {
    name: 'copp-del of what does not exist: NotFoundError, ifExists is the silent ovn-nbctl behaviour',
    group: 'copp',
    dsl: [
      (t) => coppAdd(t, 'copp0', 'arp', 'm1'),
      { run: (t) => coppDel(t, 'nocopp'), throws: NotFoundError },
      { run: (t) => coppDel(t, 'copp0', 'dns'), throws: NotFoundError },
      (t) => {
        coppDel(t, 'nocopp', undefined, { ifExists: true });
        coppDel(t, 'copp0', 'dns', { ifExists: true });
      },
    ],
    nbctl: [
      ['copp-add', 'copp0', 'arp', 'm1'],
      ['copp-del', 'nocopp'],
      ['copp-del', 'copp0', 'dns'],
    ],
  },
  {
    name: 'set-connection: passive and active targets with --inactivity-probe, then replaced',
    group: 'connection',
    dsl: [
      (t) =>
        setConnection(
          t,
          ['ptcp:6641:127.0.0.1', 'pssl:6642', 'punix:/var/run/ovn/nb.sock', 'ptcp:6643:[::1]'],
          { inactivityProbe: 5000 },
        ),
      (t) =>
        setConnection(t, ['tcp:192.0.2.1:6641', 'ssl:[2001:db8::1]:6641', 'unix:/tmp/nb.sock']),
    ],
    nbctl: [
      [
        '--inactivity-probe=5000',
        'set-connection',
        'ptcp:6641:127.0.0.1',
        'pssl:6642',
        'punix:/var/run/ovn/nb.sock',
        'ptcp:6643:[::1]',
      ],
      ['set-connection', 'tcp:192.0.2.1:6641', 'ssl:[2001:db8::1]:6641', 'unix:/tmp/nb.sock'],
    ],
  },
  {
    name: 'del-connection: every connection goes; again is not an error',
    group: 'connection',
    dsl: [
      (t) => setConnection(t, ['ptcp:6641', 'ssl:ovn-central.example:6641']),
      (t) => delConnection(t),
      (t) => delConnection(t),
      (t) => setConnection(t, ['pssl:6641'], { inactivityProbe: 0 }),
    ],
    nbctl: [
      ['set-connection', 'ptcp:6641', 'ssl:ovn-central.example:6641'],
      ['del-connection'],
      ['del-connection'],
      ['--inactivity-probe=0', 'set-connection', 'pssl:6641'],
    ],
  },
  {
    name: 'set-connection with a role (deliberate): NB has no role column; ovn-nbctl stores "read-only" as a target',
    group: 'connection',
    dsl: [
      {
        run: (t) => setConnection(t, ['read-only', 'ptcp:6641']),
        throws: InvalidArgumentError,
      },
      (t) => setConnection(t, ['ptcp:6641']),
    ],
    nbctl: [['set-connection', 'read-only', 'ptcp:6641']],
    difference: {
      explain: 'without the "read-only" target ovn-nbctl stored, the databases agree',
      nbctl: (d) => dropConnection(d, 'read-only'),
    },
  },
  {
    name: 'set-ssl: files, protocols and ciphers, then replaced with --bootstrap',
    group: 'ssl',
    dsl: [
      (t) =>
        setSsl(t, {
          privateKey: '/etc/ovn/key.pem',
          certificate: '/etc/ovn/cert.pem',
          caCert: '/etc/ovn/ca.pem',
          sslProtocols: 'TLSv1.2,TLSv1.3',
          sslCiphers: 'HIGH:!aNULL',
        }),
      (t) =>
        setSsl(t, {
          privateKey: '/k',
          certificate: '/c',
          caCert: '/ca',
          bootstrap: true,
        }),
    ],
    nbctl: [
      [
        'set-ssl',
        '/etc/ovn/key.pem',
        '/etc/ovn/cert.pem',
        '/etc/ovn/ca.pem',
        'TLSv1.2,TLSv1.3',
        'HIGH:!aNULL',
      ],
      ['--bootstrap', 'set-ssl', '/k', '/c', '/ca'],
    ],
  },
  {
    name: 'del-ssl: the configuration goes; again is not an error; bad input writes nothing',
    group: 'ssl',
    dsl: [
      (t) => setSsl(t, { privateKey: '/k', certificate: '/c', caCert: '/ca' }),
      {
        run: (t) => setSsl(t, { privateKey: '/k', certificate: '', caCert: '/ca' }),
        throws: InvalidArgumentError,
      },
      (t) => delSsl(t),
      (t) => delSsl(t),
    ],
    nbctl: [['set-ssl', '/k', '/c', '/ca'], ['del-ssl'], ['del-ssl']],
  },
  {
    name: 'lrp-set-redirect-type: bridged then overlay, the other options kept',
    group: 'router port',
    dsl: [
      (t) => {
        lrAdd(t, 'lr0');
        lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['172.16.0.1/24'], {
          options: { gateway_mtu: '1400' },
        });
      },
      (t) => lrpSetRedirectType(t, 'lrp0', 'bridged'),
      (t) => lrpSetRedirectType(t, 'lrp0', 'overlay'),
      (t) => {
        lrpAdd(t, 'lr0', 'lrp1', '00:00:00:00:ff:02', ['10.0.0.1/24']);
        lrpSetRedirectType(t, 'lrp1', 'bridged');
      },
    ],
    nbctl: [
      ['lr-add', 'lr0'],
      ['lrp-add', 'lr0', 'lrp0', '00:00:00:00:ff:01', '172.16.0.1/24'],
      ['set', 'Logical_Router_Port', 'lrp0', 'options:gateway_mtu=1400'],
      ['lrp-set-redirect-type', 'lrp0', 'bridged'],
      ['lrp-set-redirect-type', 'lrp0', 'overlay'],
      ['lrp-add', 'lr0', 'lrp1', '00:00:00:00:ff:02', '10.0.0.1/24'],
      ['lrp-set-redirect-type', 'lrp1', 'bridged'],
    ],
  },
  {
    name: 'lrp-set-redirect-type errors: an unknown type, an unknown port',
    group: 'router port',
    dsl: [
      (t) => {
        lrAdd(t, 'lr0');
        lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['172.16.0.1/24']);
      },
      {
        run: (t) => lrpSetRedirectType(t, 'lrp0', 'vlan' as 'bridged'),
        throws: InvalidArgumentError,
      },
      { run: (t) => lrpSetRedirectType(t, 'nolrp', 'bridged'), throws: NotFoundError },
    ],
    nbctl: [
      ['lr-add', 'lr0'],
      ['lrp-add', 'lr0', 'lrp0', '00:00:00:00:ff:01', '172.16.0.1/24'],
      { args: ['lrp-set-redirect-type', 'lrp0', 'vlan'], fails: true },
      { args: ['lrp-set-redirect-type', 'nolrp', 'bridged'], fails: true },
    ],
  },
  {
    name: 'lrp-set-redirect-type in upper case (deliberate): refused; ovn-nbctl stores "BRIDGED" as typed',
    group: 'router port',
    dsl: [
      (t) => {
        lrAdd(t, 'lr0');
        lrpAdd(t, 'lr0', 'lrp0', '00:00:00:00:ff:01', ['172.16.0.1/24']);
      },
      {
        run: (t) => lrpSetRedirectType(t, 'lrp0', 'BRIDGED' as 'bridged'),
        throws: InvalidArgumentError,
      },
      (t) => lrpSetRedirectType(t, 'lrp0', 'bridged'),
    ],
    nbctl: [
      ['lr-add', 'lr0'],
      ['lrp-add', 'lr0', 'lrp0', '00:00:00:00:ff:01', '172.16.0.1/24'],
      ['lrp-set-redirect-type', 'lrp0', 'BRIDGED'],
    ],
    difference: {
      explain: 'with the value in lower case, the databases agree',
      nbctl: (d) => {
        for (const r of rowsOf(d, 'Logical_Router_Port')) {
          r['options'] = JSON.parse(JSON.stringify(r['options']).replace('"BRIDGED"', '"bridged"'));
        }
      },
    },
  },
  {
    name: 'copp and connections in one transaction with a switch (NB_Global created once)',
    group: 'copp',
    dsl: [
      (t) => {
        lsAdd(t, 'sw0');
        coppAdd(t, 'copp0', 'dhcpv4-opts', 'm1');
        coppAdd(t, 'copp0', 'dhcpv6-opts', 'm1');
        lsCoppAdd(t, 'copp0', 'sw0');
        setConnection(t, ['ptcp:6641']);
        setSsl(t, { privateKey: '/k', certificate: '/c', caCert: '/ca', sslProtocols: 'TLSv1.2' });
      },
    ],
    nbctl: [
      [
        'ls-add',
        'sw0',
        '--',
        'copp-add',
        'copp0',
        'dhcpv4-opts',
        'm1',
        '--',
        'copp-add',
        'copp0',
        'dhcpv6-opts',
        'm1',
      ],
      ['ls-copp-add', 'copp0', 'sw0'],
      ['set-connection', 'ptcp:6641'],
      ['set-ssl', '/k', '/c', '/ca', 'TLSv1.2'],
    ],
  },
];

/** One read: the DSL's value, and the `ovn-nbctl` command whose output, parsed, must equal it. */
export interface GetterRead {
  readonly dsl: (t: NbTxn) => unknown;
  /** The command (a function of the DSL's view when it needs a UUID). */
  readonly nbctl: readonly string[] | ((t: NbTxn) => readonly string[]);
  readonly parse: (stdout: string) => unknown;
}

/** A database built with `ovn-nbctl`, and reads of it. */
export interface GetterScenario {
  readonly name: string;
  /** ovn-nbctl invocations, or functions for steps that look UUIDs up. */
  readonly setup: readonly (
    | readonly string[]
    | ((nbctl: (...args: string[]) => Promise<string>) => Promise<void>)
  )[];
  readonly reads: readonly GetterRead[];
}

const lines = (s: string): string[] => s.split('\n').filter((l) => l !== '');
const keyValues = (s: string): Record<string, string> =>
  Object.fromEntries(
    lines(s).map((l) => {
      const i = l.indexOf('=');
      return [l.slice(0, i), l.slice(i + 1)];
    }),
  );
const single = (s: string): string | undefined => lines(s)[0];
/** `lb-list` and friends: the load balancers' UUIDs and names (the first two columns of the rows that start with a UUID). */
const lbNames = (s: string): string[] =>
  lines(s)
    .slice(1)
    .filter((l) => /^[0-9a-f]{8}-/.test(l))
    .map((l) => l.split(/\s+/)[1]!);
/** The VIPs of `lb-list` (after the UUID and name, or at the start of a continuation line, and the protocol when there is one). */
const lbVips = (s: string): string[] =>
  lines(s)
    .slice(1)
    .map((l) => {
      const f = l.trim().split(/\s+/);
      const rest = /^[0-9a-f]{8}-/.test(l) ? f.slice(2) : f;
      return ['tcp', 'udp', 'sctp'].includes(rest[0]!) ? rest[1]! : rest[0]!;
    })
    .sort();

export const getterScenarios: readonly GetterScenario[] = [
  {
    name: 'lsp-get-parent, -tag, -addresses, -port-security, -up, -enabled, -type, -options',
    setup: [
      ['ls-add', 'sw0'],
      ['lsp-add', 'sw0', 'p0'],
      ['lsp-add', 'sw0', 'c0', 'p0', '7'],
      ['set', 'Logical_Switch_Port', 'c0', 'tag=7'],
      [
        'lsp-set-addresses',
        'p0',
        '00:00:00:00:00:02 10.0.0.2',
        '00:00:00:00:00:01 10.0.0.1 fd00::1',
        'unknown',
      ],
      ['lsp-set-port-security', 'p0', '00:00:00:00:00:02 10.0.0.2', '00:00:00:00:00:01'],
      ['set', 'Logical_Switch_Port', 'p0', 'up=true'],
      ['lsp-set-enabled', 'c0', 'disabled'],
      ['lsp-add', 'sw0', 'loc'],
      ['lsp-set-type', 'loc', 'localnet'],
      ['lsp-set-options', 'loc', 'network_name=physnet1', 'ethtype=802.1ad', 'a=b=c'],
      ['set', 'Logical_Switch_Port', 'loc', 'up=false'],
    ],
    reads: [
      { dsl: (t) => lspGetParent(t, 'c0'), nbctl: ['lsp-get-parent', 'c0'], parse: single },
      { dsl: (t) => lspGetParent(t, 'p0'), nbctl: ['lsp-get-parent', 'p0'], parse: single },
      {
        dsl: (t) => lspGetTag(t, 'c0'),
        nbctl: ['lsp-get-tag', 'c0'],
        parse: (s) => (single(s) === undefined ? undefined : Number(single(s))),
      },
      { dsl: (t) => lspGetTag(t, 'p0'), nbctl: ['lsp-get-tag', 'p0'], parse: single },
      { dsl: (t) => lspGetAddresses(t, 'p0'), nbctl: ['lsp-get-addresses', 'p0'], parse: lines },
      { dsl: (t) => lspGetAddresses(t, 'c0'), nbctl: ['lsp-get-addresses', 'c0'], parse: lines },
      {
        dsl: (t) => lspGetPortSecurity(t, 'p0'),
        nbctl: ['lsp-get-port-security', 'p0'],
        parse: lines,
      },
      {
        dsl: (t) => lspGetUp(t, 'p0') ?? false,
        nbctl: ['lsp-get-up', 'p0'],
        parse: (s) => single(s) === 'up',
      },
      {
        dsl: (t) => lspGetUp(t, 'loc'),
        nbctl: ['lsp-get-up', 'loc'],
        parse: (s) => single(s) === 'up',
      },
      {
        dsl: (t) => [lspGetUp(t, 'c0'), lspGetUp(t, 'c0') ?? false],
        nbctl: ['lsp-get-up', 'c0'],
        parse: (s) => [undefined, single(s) === 'up'],
      },
      {
        dsl: (t) => [lspGetEnabled(t, 'p0'), lspGetEnabled(t, 'c0')],
        nbctl: ['lsp-get-enabled', 'p0', '--', 'lsp-get-enabled', 'c0'],
        parse: (s) => lines(s).map((l) => l === 'enabled'),
      },
      {
        dsl: (t) => [lspGetType(t, 'loc'), lspGetType(t, 'p0')],
        nbctl: ['lsp-get-type', 'loc', '--', 'lsp-get-type', 'p0'],
        parse: (s) => s.split('\n').slice(0, 2),
      },
      { dsl: (t) => lspGetOptions(t, 'loc'), nbctl: ['lsp-get-options', 'loc'], parse: keyValues },
      { dsl: (t) => lspGetOptions(t, 'p0'), nbctl: ['lsp-get-options', 'p0'], parse: keyValues },
    ],
  },
  {
    name: 'lsp-get-dhcpv4-options, lsp-get-dhcpv6-options, dhcp-options-get-options',
    setup: [
      ['ls-add', 'sw0'],
      ['lsp-add', 'sw0', 'p0'],
      ['lsp-add', 'sw0', 'p1'],
      ['dhcp-options-create', '10.0.0.0/24', 'k=v'],
      ['dhcp-options-create', 'fd00::/64'],
      async (nbctl) => {
        const uuid = async (cidr: string) =>
          (
            await nbctl('--bare', '--columns=_uuid', 'find', 'DHCP_Options', `cidr="${cidr}"`)
          ).trim();
        const d4 = await uuid('10.0.0.0/24');
        const d6 = await uuid('fd00::/64');
        await nbctl(
          'dhcp-options-set-options',
          d4,
          'lease_time=3600',
          'router=10.0.0.1',
          'server_id=10.0.0.1',
          'server_mac=00:00:00:00:00:01',
          'dns_server={8.8.8.8,1.1.1.1}',
        );
        await nbctl('dhcp-options-set-options', d6, 'server_id=00:00:00:00:00:02');
        await nbctl('lsp-set-dhcpv4-options', 'p0', d4);
        await nbctl('lsp-set-dhcpv6-options', 'p0', d6);
        await nbctl('lsp-set-dhcpv6-options', 'p1', d6);
      },
    ],
    reads: [
      {
        dsl: (t) =>
          [lspGetDhcpv4Options(t, 'p0'), lspGetDhcpv6Options(t, 'p0')].map(
            (d) => d && `${d.uuid} (${d.cidr})`,
          ),
        nbctl: ['lsp-get-dhcpv4-options', 'p0', '--', 'lsp-get-dhcpv6-options', 'p0'],
        parse: lines,
      },
      {
        dsl: (t) => [lspGetDhcpv4Options(t, 'p1'), lspGetDhcpv6Options(t, 'p1')?.cidr],
        nbctl: ['lsp-get-dhcpv4-options', 'p1', '--', 'lsp-get-dhcpv6-options', 'p1'],
        parse: (s) => [undefined, single(s)?.replace(/^.* \((.*)\)$/, '$1')],
      },
      {
        dsl: (t) => dhcpOptionsGetOptions(t, lspGetDhcpv4Options(t, 'p0')!.uuid),
        nbctl: (t) => ['dhcp-options-get-options', lspGetDhcpv4Options(t, 'p0')!.uuid],
        parse: (s) =>
          Object.fromEntries(Object.entries(keyValues(s)).sort((a, b) => (a[0] < b[0] ? -1 : 1))),
      },
      {
        dsl: (t) => Object.keys(dhcpOptionsGetOptions(t, lspGetDhcpv6Options(t, 'p1')!.uuid)),
        nbctl: (t) => ['dhcp-options-get-options', lspGetDhcpv6Options(t, 'p1')!.uuid],
        parse: (s) => Object.keys(keyValues(s)),
      },
    ],
  },
  {
    name: 'lrp-get-gateway-chassis (priority ties), lrp-get-enabled, lrp-get-redirect-type',
    setup: [
      ['lr-add', 'lr0'],
      ['lrp-add', 'lr0', 'lrp0', '00:00:00:00:ff:01', '172.16.0.1/24'],
      ['lrp-set-gateway-chassis', 'lrp0', 'chb', '10'],
      ['lrp-set-gateway-chassis', 'lrp0', 'cha', '10'],
      ['lrp-set-gateway-chassis', 'lrp0', 'chd', '10'],
      ['lrp-set-gateway-chassis', 'lrp0', 'chc', '20'],
      ['lrp-set-gateway-chassis', 'lrp0', 'che', '0'],
      ['lrp-add', 'lr0', 'lrp1', '00:00:00:00:ff:02', '10.0.0.1/24'],
      ['lrp-set-enabled', 'lrp1', 'disabled'],
      ['lrp-set-redirect-type', 'lrp0', 'bridged'],
      ['lrp-add', 'lr0', 'lrp2', '00:00:00:00:ff:03', '10.0.1.1/24'],
      ['lrp-set-redirect-type', 'lrp2', 'BRIDGED'],
    ],
    reads: [
      {
        dsl: (t) => lrpGetGatewayChassis(t, 'lrp0').map((g) => [g.name, g.priority]),
        nbctl: ['lrp-get-gateway-chassis', 'lrp0'],
        parse: (s) =>
          lines(s).map((l) => {
            const [name, prio] = l.trim().split(/\s+/);
            return [name, Number(prio)];
          }),
      },
      {
        dsl: (t) => lrpGetGatewayChassis(t, 'lrp1'),
        nbctl: ['lrp-get-gateway-chassis', 'lrp1'],
        parse: lines,
      },
      {
        dsl: (t) => [lrpGetEnabled(t, 'lrp0'), lrpGetEnabled(t, 'lrp1')],
        nbctl: ['lrp-get-enabled', 'lrp0', '--', 'lrp-get-enabled', 'lrp1'],
        parse: (s) => lines(s).map((l) => l === 'enabled'),
      },
      {
        dsl: (t) => ['lrp0', 'lrp1', 'lrp2'].map((p) => lrpGetRedirectType(t, p)),
        nbctl: [
          'lrp-get-redirect-type',
          'lrp0',
          '--',
          'lrp-get-redirect-type',
          'lrp1',
          '--',
          'lrp-get-redirect-type',
          'lrp2',
        ],
        parse: lines,
      },
    ],
  },
  {
    name: 'lb-list, lb-list LB, ls-lb-list, lr-lb-list',
    setup: [
      ['lb-add', 'lb1', '10.0.0.10:80', '10.0.0.11:8080,10.0.0.12:8080'],
      ['lb-add', 'lb1', '10.0.0.10:443', '10.0.0.11:8443'],
      ['lb-add', 'lb0', '10.0.0.20', '10.0.0.21'],
      ['lb-add', 'lbz', '[fd00::1]:80', '[fd00::2]:80', 'udp'],
      ['ls-add', 'sw0'],
      ['ls-lb-add', 'sw0', 'lbz'],
      ['ls-lb-add', 'sw0', 'lb1'],
      ['lr-add', 'lr0'],
      ['lr-lb-add', 'lr0', 'lb0'],
      ['ls-add', 'sw1'],
    ],
    reads: [
      { dsl: (t) => lbList(t).map((r) => r.name), nbctl: ['lb-list'], parse: lbNames },
      {
        dsl: (t) =>
          lbList(t)
            .flatMap((r) => Object.keys(r.vips))
            .sort(),
        nbctl: ['lb-list'],
        parse: lbVips,
      },
      {
        dsl: (t) => lbList(t, 'lb1').map((r) => r.name),
        nbctl: ['lb-list', 'lb1'],
        parse: lbNames,
      },
      {
        dsl: (t) => lsLbList(t, 'sw0').map((r) => r.name),
        nbctl: ['ls-lb-list', 'sw0'],
        parse: lbNames,
      },
      {
        dsl: (t) => lsLbList(t, 'sw1').map((r) => r.name),
        nbctl: ['ls-lb-list', 'sw1'],
        parse: lbNames,
      },
      {
        dsl: (t) => lrLbList(t, 'lr0').map((r) => r.name),
        nbctl: ['lr-lb-list', 'lr0'],
        parse: lbNames,
      },
    ],
  },
  {
    name: 'ha-chassis-group-list',
    setup: [
      ['ha-chassis-group-add', 'g1'],
      ['ha-chassis-group-add', 'g0'],
      ['ha-chassis-group-add-chassis', 'g1', 'ch1', '10'],
      ['ha-chassis-group-add-chassis', 'g1', 'ch2', '30'],
      ['ha-chassis-group-add-chassis', 'g1', 'ch3', '20'],
    ],
    reads: [
      {
        dsl: (t) =>
          haChassisGroupList(t)
            .map((g) => ({
              group: `${g.uuid} (${g.name})`,
              chassis: g.chassis.map((c) => [`${c.uuid} (${c.chassisName})`, c.priority]),
            }))
            .sort((a, b) => (a.group < b.group ? -1 : 1)),
        nbctl: ['ha-chassis-group-list'],
        parse: (s) => {
          const out: { group: string; chassis: [string, number][] }[] = [];
          const ls = lines(s);
          for (let i = 0; i < ls.length; i++) {
            const l = ls[i]!;
            if (!l.startsWith(' ')) out.push({ group: l, chassis: [] });
            else if (!l.trim().startsWith('priority')) {
              const prio = Number(ls[i + 1]!.trim().split(/\s+/)[1]);
              out[out.length - 1]!.chassis.push([l.trim(), prio]);
              i++;
            }
          }
          // ovn-nbctl lists a group's chassis in the database's order; the DSL by priority.
          for (const g of out) g.chassis.sort((a, b) => b[1] - a[1]);
          return out.sort((a, b) => (a.group < b.group ? -1 : 1));
        },
      },
    ],
  },
  {
    name: 'copp-list, get-connection, get-ssl',
    setup: [
      ['copp-add', 'copp0', 'arp', 'm-arp'],
      ['copp-add', 'copp0', 'reject', 'm-reject'],
      ['copp-add', 'copp0', 'event-elb', 'm-elb'],
      ['copp-add', 'copp0', 'nd-ra-opts', ''],
      ['set-connection', 'ptcp:6641:127.0.0.1', 'pssl:6642', 'punix:/tmp/a.sock'],
      ['set-ssl', '/k', '/c', '/ca', 'TLSv1.2', 'HIGH'],
    ],
    reads: [
      {
        dsl: (t) => coppList(t, 'copp0'),
        nbctl: ['copp-list', 'copp0'],
        parse: (s) =>
          Object.fromEntries(
            lines(s)
              .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)])
              .sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
          ),
      },
      {
        dsl: (t) => coppList(t, 'nocopp', { ifExists: true }),
        nbctl: ['copp-list', 'nocopp'],
        parse: keyValues,
      },
      { dsl: (t) => getConnection(t), nbctl: ['get-connection'], parse: lines },
      {
        dsl: (t) => {
          const s = getSsl(t)!;
          return [
            `Private key: ${s.privateKey}`,
            `Certificate: ${s.certificate}`,
            `CA Certificate: ${s.caCert}`,
            `Bootstrap: ${s.bootstrap}`,
          ];
        },
        nbctl: ['get-ssl'],
        parse: lines,
      },
      {
        dsl: (t) => [getSsl(t)?.sslProtocols, getSsl(t)?.sslCiphers],
        nbctl: ['--bare', '--columns=ssl_protocols,ssl_ciphers', 'list', 'SSL'],
        parse: lines,
      },
    ],
  },
];

/** Build the database of `s` with ovn-nbctl on a fresh server, read it both ways, compare. */
export async function checkGetters(s: GetterScenario, schemaPath: string): Promise<void> {
  const server = await startOvsdbServer({ schemaPath });
  const nbctl = async (...args: string[]) =>
    (
      await run('ovn-nbctl', [`--db=${server.unixRemote}`, '--no-leader-only', ...args], {
        timeout: 20_000,
      })
    ).stdout;
  try {
    for (const step of s.setup) {
      if (typeof step === 'function') await step(nbctl);
      else await nbctl(...step);
    }
    const client = connectDatabase({ remotes: [server.unixRemote], model: NB });
    try {
      await client.ready;
      for (const [i, read] of s.reads.entries()) {
        const t = new NbTxnClass(new TransactionBuilder(NB, client), client);
        const value = read.dsl(t);
        expect(t.tx.build().ops, `${s.name}, read ${i}: a getter writes nothing`).toEqual([]);
        const args = typeof read.nbctl === 'function' ? read.nbctl(t) : read.nbctl;
        const printed = read.parse(await nbctl(...args));
        expect(value, `${s.name}, read ${i} (${args.join(' ')})`).toEqual(printed);
      }
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
}

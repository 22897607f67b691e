/**
 * A desired state through a real ovn-northd, on ovsdb-server and on the
 * in-memory server: a 500-port topology (a gateway router with a port per
 * switch, ten switches of fifty ports, a port group, two ACLs and an
 * address set per switch, SNAT and dnat_and_snat rules, static routes)
 * declared with `nbDesiredState`, applied, then changed by 5 % (five ports
 * readdressed, ten removed, ten added, one ACL and one NAT rule changed).
 * The plan names exactly the rows that change, with the operation count
 * the rules fix; after the apply and `ovn-nbctl --wait=sb sync`, the
 * Southbound database shows it: port bindings of the added ports and none
 * of the removed ones, the ARP responder and L2 lookup flows of the new
 * addresses and none of the old ones, the changed ACL's and NAT's flows,
 * the port group's and address set's new members.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type DatabaseClient } from '../../src/client/index.js';
import {
  applyDesired,
  type DesiredState,
  type KeyRef,
  keyOf,
  planDesired,
} from '../../src/desired/index.js';
import { NB, type NBTables } from '../../src/nb/generated/index.js';
import { nbDesiredState } from '../../src/nb/index.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { type OvnRig, SERVER_KINDS, startOvnRig } from '../examples/ovn-rig.js';

const SWITCHES = 10;
/** The root tables the owner has rows of (router, switches, address sets, port groups): each set of its rows is guarded. */
const ROOT_TABLES = 4;
const PORTS = 50;
const OWNER = 'cluster-ctl';

const hex = (n: number): string => n.toString(16).padStart(2, '0');
const portName = (s: number, p: number): string => `sw${s}-p${p}`;
const portMac = (s: number, p: number): string => `0a:00:00:00:${hex(s)}:${hex(p)}`;
const portIp = (s: number, p: number): string => `10.${s}.0.${p + 10}`;

/** The changed ports: sw3's first five readdressed, sw1's last ten removed, ten new ones in sw2. */
const READDRESSED = [0, 1, 2, 3, 4].map((p) => ({
  name: portName(3, p),
  oldMac: portMac(3, p),
  oldIp: portIp(3, p),
  mac: `0a:00:00:aa:03:${hex(p)}`,
  ip: `10.3.0.${200 + p}`,
}));
const REMOVED = Array.from({ length: 10 }, (_, k) => portName(1, PORTS - 10 + k));
const ADDED = Array.from({ length: 10 }, (_, k) => ({
  name: `sw2-new${k}`,
  mac: `0a:00:00:bb:02:${hex(k)}`,
  ip: `10.2.0.${150 + k}`,
}));
/** The changed ACL (sw4's to-lport rule gets another port) and NAT rule (another external IP). */
const ACL_SWITCH = 4;
const NEW_ACL_PORT = 9004;
const NAT_INDEX = 3;
const NEW_NAT_IP = '172.16.1.203';
const dnatLogical = (k: number): string => portIp(0, k);
const dnatExternal = (k: number): string => `172.16.1.${k}`;

interface Port {
  readonly name: string;
  readonly mac: string;
  readonly ip: string;
}

/** The ports of switch `s`, before (`changed` false) or after the change. */
function portsOf(s: number, changed: boolean): Port[] {
  const out: Port[] = [];
  for (let p = 0; p < PORTS; p++) {
    const name = portName(s, p);
    if (changed && REMOVED.includes(name)) continue;
    const re = changed ? READDRESSED.find((r) => r.name === name) : undefined;
    out.push(re ?? { name, mac: portMac(s, p), ip: portIp(s, p) });
  }
  if (changed && s === 2) out.push(...ADDED);
  return out;
}

const aclMatch = (s: number, port: number): string => `outport == @pg_sw${s} && tcp.dst == ${port}`;

/** The whole topology, as one owner declares it. */
function topology(changed: boolean): DesiredState<NBTables> {
  const d = nbDesiredState(NB, { owner: OWNER });
  const lr = d.add('Logical_Router', { name: 'cluster-rtr', options: { chassis: 'gw-chassis-1' } });
  d.add(
    'Logical_Router_Port',
    { name: 'rtr-ext', mac: '00:00:00:ff:ff:01', networks: ['172.16.0.1/16'] },
    { in: lr },
  );
  for (let s = 0; s < SWITCHES; s++) {
    const sw = d.add('Logical_Switch', {
      name: `sw${s}`,
      other_config: { subnet: `10.${s}.0.0/24` },
    });
    d.add(
      'Logical_Router_Port',
      { name: `rtr-sw${s}`, mac: `00:00:00:ff:${hex(s)}:01`, networks: [`10.${s}.0.1/24`] },
      { in: lr },
    );
    d.add(
      'Logical_Switch_Port',
      {
        name: `sw${s}-rtr`,
        type: 'router',
        addresses: ['router'],
        options: { 'router-port': `rtr-sw${s}` },
      },
      { in: sw },
    );
    const ports = portsOf(s, changed);
    const refs: KeyRef<'Logical_Switch_Port'>[] = [];
    for (const p of ports) {
      refs.push(
        d.add('Logical_Switch_Port', { name: p.name, addresses: [`${p.mac} ${p.ip}`] }, { in: sw }),
      );
    }
    d.add('Address_Set', { name: `as_sw${s}`, addresses: ports.map((p) => p.ip) });
    const pg = d.add('Port_Group', { name: `pg_sw${s}`, ports: refs });
    const port = changed && s === ACL_SWITCH ? NEW_ACL_PORT : 8000 + s;
    d.add(
      'ACL',
      { direction: 'to-lport', priority: 1000, match: aclMatch(s, port), action: 'allow-related' },
      { in: pg },
    );
    d.add(
      'ACL',
      {
        direction: 'from-lport',
        priority: 1001,
        match: `inport == @pg_sw${s} && ip4.dst == $as_sw${s}`,
        action: 'allow',
      },
      { in: pg },
    );
    d.add(
      'NAT',
      { type: 'snat', logical_ip: `10.${s}.0.0/24`, external_ip: '172.16.0.100' },
      { in: lr },
    );
  }
  for (let k = 0; k < 5; k++) {
    d.add(
      'NAT',
      {
        type: 'dnat_and_snat',
        logical_ip: dnatLogical(k),
        external_ip: changed && k === NAT_INDEX ? NEW_NAT_IP : dnatExternal(k),
      },
      { in: lr },
    );
  }
  d.add(
    'Logical_Router_Static_Route',
    { ip_prefix: '0.0.0.0/0', nexthop: '172.16.0.254' },
    { in: lr },
  );
  d.add(
    'Logical_Router_Static_Route',
    { ip_prefix: '192.168.1.0/24', nexthop: '172.16.0.253' },
    { in: lr },
  );
  d.add(
    'Logical_Router_Static_Route',
    { ip_prefix: '192.168.2.0/24', nexthop: '172.16.0.252' },
    { in: lr },
  );
  return d;
}

interface Flow {
  readonly match: string;
  readonly actions: string;
  readonly stage: string;
}

describe.each(SERVER_KINDS)('desired state with ovn-northd on %s', (kind) => {
  let rig: OvnRig;
  let client: DatabaseClient<NBTables>;
  let sb: OvsdbConnection;

  beforeAll(async () => {
    rig = await startOvnRig(kind);
    client = connectDatabase({ remotes: [rig.nb.unixRemote], model: NB });
    await client.whenSynced();
    sb = await connect(rig.sb.unixRemote);
  }, 60_000);

  afterAll(async () => {
    sb?.close();
    await client?.close();
    await rig?.stop();
  });

  const select = async <R>(table: string, columns: string[]): Promise<R[]> => {
    const [reply] = await sb.transact('OVN_Southbound', [
      { op: 'select', table, where: [], columns },
    ]);
    return (reply as unknown as { rows: R[] }).rows;
  };
  const flows = async (): Promise<Flow[]> =>
    (
      await select<{ match: string; actions: string; external_ids: [string, [string, string][]] }>(
        'Logical_Flow',
        ['match', 'actions', 'external_ids'],
      )
    ).map((f) => ({
      match: f.match,
      actions: f.actions,
      stage: new Map(f.external_ids[1]).get('stage-name') ?? '',
    }));
  const bindings = async (): Promise<Set<string>> =>
    new Set(
      (await select<{ logical_port: string }>('Port_Binding', ['logical_port'])).map(
        (b) => b.logical_port,
      ),
    );
  /** The elements of an OVSDB set value on the wire. */
  const atoms = (v: unknown): unknown[] =>
    Array.isArray(v) && v[0] === 'set' ? (v[1] as unknown[]) : [v];
  const sbSet = async (table: string, name: string, column: string): Promise<string[]> => {
    const rows = await select<Record<string, unknown>>(table, ['name', column]);
    const row = rows.find((r) => String(r['name']).endsWith(name));
    return row === undefined ? [] : (atoms(row[column]) as string[]).sort();
  };

  it('applies a 500-port topology, then a 5% change that the plan names exactly and SB reflects', async () => {
    const first = await applyDesired(client, topology(false));
    expect(first.outcome).toBe('applied');
    expect(first.transactions).toBe(1);
    // One insert per row (a child is linked inside its new parent's insert): 1 router, 11 router
    // ports, 10 switches, 510 switch ports, 10 address sets, 10 port groups, 20 ACLs, 15 NATs, 3 routes.
    expect(first.operations).toBe(590);
    // A new root row keyed by name without a schema index is guarded by a wait that it is absent.
    expect(first.guards).toBe(1 + SWITCHES + ROOT_TABLES);
    expect(client.count('Logical_Switch_Port')).toBe(SWITCHES * (PORTS + 1));
    await rig.nbctl('--wait=sb', 'sync');
    const before = await bindings();
    for (let s = 0; s < SWITCHES; s++)
      for (let p = 0; p < PORTS; p++) expect(before.has(portName(s, p))).toBe(true);
    expect(planDesired(client, topology(false)).empty).toBe(true);

    const d = topology(true);
    const plan = planDesired(client, d);
    const lsp = (n: string) => keyOf('Logical_Switch_Port', { name: n }).toString();
    const named = (t: string, n: string) => keyOf(t, { name: n }).toString();
    const acl = (m: string) =>
      keyOf(
        'ACL',
        { direction: 'to-lport', priority: 1000, match: m },
        keyOf('Port_Group', { name: `pg_sw${ACL_SWITCH}` }),
      ).toString();
    const nat = (ext: string) =>
      keyOf(
        'NAT',
        { type: 'dnat_and_snat', external_ip: ext, logical_ip: dnatLogical(NAT_INDEX) },
        keyOf('Logical_Router', { name: 'cluster-rtr' }),
      ).toString();
    const want = {
      create: [
        ...ADDED.map((a) => lsp(a.name)),
        acl(aclMatch(ACL_SWITCH, NEW_ACL_PORT)),
        nat(NEW_NAT_IP),
      ],
      update: [
        ...READDRESSED.map((r) => lsp(r.name)),
        named('Logical_Switch', 'sw1'), // unlinks the removed ports
        named('Logical_Switch', 'sw2'), // links the added ones
        named('Address_Set', 'as_sw1'),
        named('Address_Set', 'as_sw2'),
        named('Address_Set', 'as_sw3'),
        named('Port_Group', 'pg_sw2'), // the added ports (the removed ones leave pg_sw1 by the server)
        named('Port_Group', `pg_sw${ACL_SWITCH}`), // the ACL swap
        named('Logical_Router', 'cluster-rtr'), // the NAT swap
      ],
      delete: [
        ...REMOVED.map(lsp),
        acl(aclMatch(ACL_SWITCH, 8000 + ACL_SWITCH)),
        nat(dnatExternal(NAT_INDEX)),
      ],
    };
    const got = (action: string) =>
      plan.changes
        .filter((c) => c.action === action)
        .map((c) => c.key)
        .sort();
    expect(got('create')).toEqual([...want.create].sort());
    expect(got('update')).toEqual([...want.update].sort());
    expect(got('delete')).toEqual([...want.delete].sort());
    expect(plan.counts).toEqual({ creates: 12, updates: 13, deletes: 12 });
    // 12 inserts; one mutate per updated row; deleted children cost nothing of their own.
    expect(plan.operations).toBe(25);
    expect(plan.guards).toBe(13 + ROOT_TABLES);
    const re = plan.changes.find((c) => c.key === lsp(READDRESSED[0]!.name));
    expect(re?.action === 'update' && re.columns).toEqual([
      {
        column: 'addresses',
        how: 'mutate',
        remove: [`${READDRESSED[0]!.oldMac} ${READDRESSED[0]!.oldIp}`],
        insert: [`${READDRESSED[0]!.mac} ${READDRESSED[0]!.ip}`],
      },
    ]);

    const r = await applyDesired(client, d);
    expect(r.outcome).toBe('applied');
    expect(r.conflicts).toBe(0);
    expect(r.operations).toBe(25);
    expect(r.guards).toBe(13 + ROOT_TABLES);
    await rig.nbctl('--wait=sb', 'sync');
    expect(planDesired(client, topology(true)).empty).toBe(true);

    const after = await bindings();
    for (const a of ADDED) expect(after.has(a.name), a.name).toBe(true);
    for (const n of REMOVED) expect(after.has(n), n).toBe(false);
    expect(after.has(portName(1, 0))).toBe(true);

    const all = await flows();
    const has = (pred: (f: Flow) => boolean): number => all.filter(pred).length;
    for (const p of [...READDRESSED, ...ADDED]) {
      expect(
        has(
          (f) =>
            f.stage === 'ls_in_arp_rsp' &&
            f.match.includes(`arp.tpa == ${p.ip}`) &&
            f.actions.includes(p.mac),
        ),
        `ARP responder for ${p.name}`,
      ).toBeGreaterThan(0);
      expect(
        has((f) => f.stage === 'ls_in_l2_lkup' && f.match.includes(`eth.dst == ${p.mac}`)),
        `L2 lookup for ${p.name}`,
      ).toBeGreaterThan(0);
    }
    for (const r0 of READDRESSED) {
      expect(
        has((f) => f.match.includes(`arp.tpa == ${r0.oldIp}`)),
        r0.oldIp,
      ).toBe(0);
      expect(
        has((f) => f.match.includes(r0.oldMac) || f.actions.includes(r0.oldMac)),
        r0.oldMac,
      ).toBe(0);
    }
    for (let k = PORTS - 10; k < PORTS; k++) {
      expect(
        has((f) => f.match.includes(`arp.tpa == ${portIp(1, k)}`)),
        portIp(1, k),
      ).toBe(0);
    }
    // The changed ACL: its new match is in the egress ACL stage, its old one nowhere.
    expect(
      has((f) => f.stage === 'ls_out_acl' && f.match.includes(`tcp.dst == ${NEW_ACL_PORT}`)),
    ).toBeGreaterThan(0);
    const oldAcl = new RegExp(`tcp\\.dst == ${8000 + ACL_SWITCH}(?!\\d)`);
    expect(has((f) => oldAcl.test(f.match))).toBe(0);
    expect(
      has(
        (f) => f.stage === 'ls_out_acl' && f.match.includes(`tcp.dst == ${8000 + ACL_SWITCH + 1}`),
      ),
    ).toBeGreaterThan(0);
    // The changed NAT: DNAT on the new external IP, none on the old.
    expect(
      has((f) => f.stage === 'lr_in_dnat' && f.match.includes(`ip4.dst == ${NEW_NAT_IP}`)),
    ).toBeGreaterThan(0);
    const oldNat = new RegExp(
      `ip4\\.dst == ${dnatExternal(NAT_INDEX).replaceAll('.', '\\.')}(?![\\d.])`,
    );
    expect(has((f) => oldNat.test(f.match))).toBe(0);
    expect(
      has(
        (f) =>
          f.stage === 'lr_in_dnat' && f.match.includes(`ip4.dst == ${dnatExternal(NAT_INDEX + 1)}`),
      ),
    ).toBeGreaterThan(0);
    // The port group and the address sets in SB have the new members.
    const pg2 = await sbSet('Port_Group', 'pg_sw2', 'ports');
    for (const a of ADDED) expect(pg2).toContain(a.name);
    expect(await sbSet('Port_Group', 'pg_sw1', 'ports')).not.toContain(REMOVED[0]);
    const as3 = await sbSet('Address_Set', 'as_sw3', 'addresses');
    for (const r0 of READDRESSED) {
      expect(as3).toContain(r0.ip);
      expect(as3).not.toContain(r0.oldIp);
    }
  }, 120_000);
});

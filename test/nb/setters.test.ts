/**
 * One rule for every map column the DSL writes (see `src/nb/maps.ts`),
 * against both servers, over every DSL function that writes a map column of
 * an existing row: setting a key keeps the others, `null` removes a key,
 * `{ replace: true }` replaces the whole map (per-key setters change their
 * key only; `lrNatEnsure` and `lrRouteEnsure` merge; `reconcilePortDhcpOptions`
 * makes the port's own row equal to the desired one). And no function that
 * writes a map is left out of the table.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import { coppAdd, coppDel } from '../../src/nb/copp.js';
import {
  createNb,
  dhcpOptionsCreate,
  dhcpOptionsSetOptions,
  lbAdd,
  lbAddVip,
  lbDelVip,
  lbSetIpPortMapping,
  lbSetVip,
  lrAdd,
  lrNatAdd,
  lrNatEnsure,
  lrpAdd,
  lrpSet,
  lrRouteAdd,
  lrRouteEnsure,
  lrSetExternalIds,
  lrSetOptions,
  lsAdd,
  lspAdd,
  lspSet,
  lspSetOptions,
  lsSetDnsRecords,
  lsSetExternalIds,
  lsSetOtherConfig,
  NB,
  type NBTables,
  type Nb,
  type NbOperation,
  NbTxn,
  reconcilePortDhcpOptions,
  type SetOptions,
} from '../../src/nb/index.js';
import { lrpSetRedirectType } from '../../src/nb/router-port.js';
import { TransactionBuilder } from '../../src/transactions/builder.js';
import { TARGETS, useTarget } from '../helpers/targets.js';
import { CALLS, type Fixture, setup } from './helpers/catalogue.js';
import { NB_SCHEMA_7_18 } from './helpers/differential.js';

type Map = Record<string, string>;
type Patch = Record<string, string | null>;
type Client = DatabaseClient<NBTables>;

/** A map column a DSL function writes, and how to drive it. */
interface MapSetter {
  /** The DSL function (an `NbOperation`). */
  readonly fn: NbOperation;
  /** `Table.column` (for titles). */
  readonly column: string;
  /** How it treats the keys it is not given. */
  readonly rule: 'merge' | 'merge, or replace' | 'per key' | 'reconcile';
  /** Create the object with {@link MapSetter.base} in the column; returns what `set` and `read` take. */
  readonly init: (t: NbTxn, id: string) => string;
  /** The column's value after `init`. */
  readonly base: Map;
  /** Write `patch` (keys in the stored form; `set` translates when the DSL takes typed values). */
  readonly set: (t: NbTxn, ref: string, patch: Patch, options?: SetOptions) => void;
  /** The column's value. */
  readonly read: (c: Client, ref: string) => Map;
  /** A key to set and its value (absent from `base`). */
  readonly add: readonly [string, string];
  /** A key of `base` to remove (`null`). */
  readonly remove?: string | undefined;
  /** A map to replace the column with (`{ replace: true }`). */
  readonly replaceWith?: Patch | undefined;
}

const V4 = { server_id: '10.0.0.1', server_mac: '00:00:00:00:00:01', lease_time: '3600' };
/** DHCP options in the DSL's typed form (numbers and lists where it takes them). */
function typedDhcp(patch: Patch): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(patch).map(([k, v]) => [
      k,
      v === null ? null : k === 'lease_time' || k === 'mtu' ? Number(v) : v,
    ]),
  );
}

const SETTERS: readonly MapSetter[] = [
  {
    fn: 'lsSetOtherConfig',
    column: 'Logical_Switch.other_config',
    rule: 'merge, or replace',
    init: (t, id) => lsAdd(t, id, { otherConfig: { a: '1', subnet: '10.0.0.0/24' } }),
    base: { a: '1', subnet: '10.0.0.0/24' },
    set: (t, ref, patch, o) => lsSetOtherConfig(t, ref, patch, o),
    read: (c, ref) => c.get('Logical_Switch', ref)!.other_config,
    add: ['mcast_snoop', 'true'],
    remove: 'a',
    replaceWith: { b: '2' },
  },
  {
    fn: 'lsSetExternalIds',
    column: 'Logical_Switch.external_ids',
    rule: 'merge, or replace',
    init: (t, id) => lsAdd(t, id, { externalIds: { a: '1', b: '2' } }),
    base: { a: '1', b: '2' },
    set: (t, ref, patch, o) => lsSetExternalIds(t, ref, patch, o),
    read: (c, ref) => c.get('Logical_Switch', ref)!.external_ids,
    add: ['c', '3'],
    remove: 'a',
    replaceWith: { d: '4', gone: null },
  },
  {
    fn: 'lsSetDnsRecords',
    column: 'DNS.records',
    rule: 'merge, or replace',
    init: (t, id) => {
      const sw = lsAdd(t, id);
      lsSetDnsRecords(t, sw, { 'a.example': '10.0.0.1', 'b.example': '10.0.0.2' });
      return sw;
    },
    base: { 'a.example': '10.0.0.1', 'b.example': '10.0.0.2' },
    set: (t, ref, patch, o) => lsSetDnsRecords(t, ref, patch, o),
    read: (c, ref) => c.get('DNS', c.get('Logical_Switch', ref)!.dns_records[0]!)!.records,
    add: ['c.example', '10.0.0.3'],
    remove: 'a.example',
    replaceWith: { 'd.example': 'fd00::4' },
  },
  {
    fn: 'lspSetOptions',
    column: 'Logical_Switch_Port.options',
    rule: 'merge, or replace',
    init: (t, id) => {
      lsAdd(t, `${id}-sw`);
      return lspAdd(t, `${id}-sw`, id, { options: { a: '1', b: '2' } });
    },
    base: { a: '1', b: '2' },
    set: (t, ref, patch, o) => lspSetOptions(t, ref, patch, o),
    read: (c, ref) => c.get('Logical_Switch_Port', ref)!.options,
    add: ['requested-chassis', 'ch1'],
    remove: 'b',
    replaceWith: { network_name: 'physnet1' },
  },
  {
    fn: 'lspSet',
    column: 'Logical_Switch_Port.options',
    rule: 'merge, or replace',
    init: (t, id) => {
      lsAdd(t, `${id}-sw`);
      return lspAdd(t, `${id}-sw`, id, { type: 'router', options: { 'router-port': 'x', a: '1' } });
    },
    base: { 'router-port': 'x', a: '1' },
    set: (t, ref, patch, o) => lspSet(t, ref, { options: patch }, o),
    read: (c, ref) => c.get('Logical_Switch_Port', ref)!.options,
    add: ['nat-addresses', 'router'],
    remove: 'a',
    replaceWith: { 'router-port': 'y' },
  },
  {
    fn: 'lspSet',
    column: 'Logical_Switch_Port.external_ids',
    rule: 'merge, or replace',
    init: (t, id) => {
      lsAdd(t, `${id}-sw`);
      return lspAdd(t, `${id}-sw`, id, { externalIds: { pod: 'ns/p', owner: 'me' } });
    },
    base: { pod: 'ns/p', owner: 'me' },
    set: (t, ref, patch, o) => lspSet(t, ref, { externalIds: patch }, o),
    read: (c, ref) => c.get('Logical_Switch_Port', ref)!.external_ids,
    add: ['zone', 'z1'],
    remove: 'owner',
    replaceWith: { pod: 'ns/q' },
  },
  {
    fn: 'lrSetOptions',
    column: 'Logical_Router.options',
    rule: 'merge, or replace',
    init: (t, id) => lrAdd(t, id, { options: { chassis: 'gw1', a: '1' } }),
    base: { chassis: 'gw1', a: '1' },
    set: (t, ref, patch, o) => lrSetOptions(t, ref, patch, o),
    read: (c, ref) => c.get('Logical_Router', ref)!.options,
    add: ['always_learn_from_arp_request', 'false'],
    remove: 'a',
    replaceWith: { chassis: 'gw2' },
  },
  {
    fn: 'lrSetExternalIds',
    column: 'Logical_Router.external_ids',
    rule: 'merge, or replace',
    init: (t, id) => lrAdd(t, id, { externalIds: { a: '1', b: '2' } }),
    base: { a: '1', b: '2' },
    set: (t, ref, patch, o) => lrSetExternalIds(t, ref, patch, o),
    read: (c, ref) => c.get('Logical_Router', ref)!.external_ids,
    add: ['c', '3'],
    remove: 'b',
    replaceWith: {},
  },
  ...(['options', 'ipv6_ra_configs', 'external_ids'] as const).map(
    (column): MapSetter => ({
      fn: 'lrpSet',
      column: `Logical_Router_Port.${column}`,
      rule: 'merge, or replace',
      init: (t, id) => {
        lrAdd(t, `${id}-lr`);
        const base = { a: '1', b: '2' };
        return lrpAdd(t, `${id}-lr`, id, '00:00:00:00:ff:01', ['10.0.0.1/24'], {
          ...(column === 'options' ? { options: { gateway_mtu: '1400', a: '1' } } : {}),
          ...(column === 'ipv6_ra_configs' ? { ipv6RaConfigs: base } : {}),
          ...(column === 'external_ids' ? { externalIds: base } : {}),
        });
      },
      base: column === 'options' ? { gateway_mtu: '1400', a: '1' } : { a: '1', b: '2' },
      set: (t, ref, patch, o) =>
        lrpSet(
          t,
          ref,
          column === 'options'
            ? { options: patch }
            : column === 'ipv6_ra_configs'
              ? { ipv6RaConfigs: patch }
              : { externalIds: patch },
          o,
        ),
      read: (c, ref) => c.get('Logical_Router_Port', ref)![column],
      add: column === 'options' ? ['redirect-type', 'bridged'] : ['c', '3'],
      remove: 'a',
      replaceWith: { only: 'this' },
    }),
  ),
  {
    fn: 'dhcpOptionsSetOptions',
    column: 'DHCP_Options.options',
    rule: 'merge, or replace',
    init: (t, id) =>
      dhcpOptionsCreate(
        t,
        '10.0.0.0/24',
        { ...typedDhcp(V4), router: '10.0.0.1', mtu: 1400 },
        { externalIds: { id } },
      ),
    base: { ...V4, router: '10.0.0.1', mtu: '1400' },
    set: (t, ref, patch, o) => dhcpOptionsSetOptions(t, ref, typedDhcp(patch), o),
    read: (c, ref) => c.get('DHCP_Options', ref)!.options,
    add: ['dns_server', '8.8.8.8'],
    remove: 'router',
    replaceWith: { ...V4, lease_time: '60' },
  },
  {
    fn: 'lbSetVip',
    column: 'Load_Balancer.vips',
    rule: 'per key',
    init: (t, id) =>
      lbAdd(t, id, { vips: { '10.0.0.10:80': ['10.0.0.5:80'], '10.0.0.10:81': ['10.0.0.5:81'] } }),
    base: { '10.0.0.10:80': '10.0.0.5:80', '10.0.0.10:81': '10.0.0.5:81' },
    set: (t, ref, patch) => {
      for (const [vip, backends] of Object.entries(patch)) lbSetVip(t, ref, vip, backends!);
    },
    read: (c, ref) => c.get('Load_Balancer', ref)!.vips,
    add: ['10.0.0.10:82', '10.0.0.5:82'],
  },
  {
    fn: 'coppAdd',
    column: 'Copp.meters',
    rule: 'per key',
    init: (t, id) => {
      coppAdd(t, id, 'arp', 'm-arp');
      return coppAdd(t, id, 'dns', 'm-dns');
    },
    base: { arp: 'm-arp', dns: 'm-dns' },
    set: (t, ref, patch) => {
      for (const [proto, meter] of Object.entries(patch)) coppAdd(t, ref, proto as 'igmp', meter!);
    },
    read: (c, ref) => c.get('Copp', ref)!.meters,
    add: ['igmp', 'm-igmp'],
  },
  {
    fn: 'coppDel',
    column: 'Copp.meters',
    rule: 'per key',
    init: (t, id) => {
      coppAdd(t, id, 'arp', 'm-arp');
      return coppAdd(t, id, 'dns', 'm-dns');
    },
    base: { arp: 'm-arp', dns: 'm-dns' },
    set: (t, ref, patch) => {
      for (const [proto, meter] of Object.entries(patch)) {
        if (meter === null) coppDel(t, ref, proto as 'arp');
        else coppAdd(t, ref, proto as 'igmp', meter);
      }
    },
    read: (c, ref) => c.get('Copp', ref)!.meters,
    add: ['igmp', 'm-igmp'],
    remove: 'arp',
  },
  {
    fn: 'lrpSetRedirectType',
    column: 'Logical_Router_Port.options',
    rule: 'per key',
    init: (t, id) => {
      lrAdd(t, `${id}-lr`);
      return lrpAdd(t, `${id}-lr`, id, '00:00:00:00:ff:0a', ['172.16.1.1/24'], {
        options: { gateway_mtu: '1400' },
      });
    },
    base: { gateway_mtu: '1400' },
    set: (t, ref, patch) => {
      for (const [, v] of Object.entries(patch)) lrpSetRedirectType(t, ref, v as 'bridged');
    },
    read: (c, ref) => c.get('Logical_Router_Port', ref)!.options,
    add: ['redirect-type', 'bridged'],
  },
  {
    fn: 'lbAddVip',
    column: 'Load_Balancer.vips',
    rule: 'per key',
    init: (t, id) => lbAdd(t, id, { vips: { '10.0.0.10:80': ['10.0.0.5:80'] } }),
    base: { '10.0.0.10:80': '10.0.0.5:80' },
    set: (t, ref, patch) => {
      for (const [vip, backends] of Object.entries(patch)) lbAddVip(t, ref, vip, backends!);
    },
    read: (c, ref) => c.get('Load_Balancer', ref)!.vips,
    add: ['10.0.0.10:82', '10.0.0.5:82'],
  },
  {
    fn: 'lbDelVip',
    column: 'Load_Balancer.vips',
    rule: 'per key',
    init: (t, id) =>
      lbAdd(t, id, { vips: { '10.0.0.10:80': ['10.0.0.5:80'], '10.0.0.10:81': ['10.0.0.5:81'] } }),
    base: { '10.0.0.10:80': '10.0.0.5:80', '10.0.0.10:81': '10.0.0.5:81' },
    set: (t, ref, patch) => {
      for (const [vip, backends] of Object.entries(patch)) {
        if (backends === null) lbDelVip(t, ref, vip);
        else lbAddVip(t, ref, vip, backends);
      }
    },
    read: (c, ref) => c.get('Load_Balancer', ref)!.vips,
    add: ['10.0.0.10:82', '10.0.0.5:82'],
    remove: '10.0.0.10:80',
  },
  {
    fn: 'lbSetIpPortMapping',
    column: 'Load_Balancer.ip_port_mappings',
    rule: 'per key',
    init: (t, id) => {
      lsAdd(t, `${id}-sw`);
      lspAdd(t, `${id}-sw`, `${id}-p`);
      const lb = lbAdd(t, id);
      lbSetIpPortMapping(t, lb, '10.0.0.5', { port: `${id}-p`, sourceIp: '10.0.0.1' });
      lbSetIpPortMapping(t, lb, '10.0.0.6', { port: `${id}-p`, sourceIp: '10.0.0.1' });
      return lb;
    },
    base: { '10.0.0.5': 'P:10.0.0.1', '10.0.0.6': 'P:10.0.0.1' },
    set: (t, ref, patch) => {
      const port = t.get('Load_Balancer', ref)!.name;
      for (const [ip, value] of Object.entries(patch)) {
        lbSetIpPortMapping(
          t,
          ref,
          ip,
          value === null ? null : { port: `${port}-p`, sourceIp: value.split(':')[1]! },
        );
      }
    },
    read: (c, ref) => {
      const lb = c.get('Load_Balancer', ref)!;
      return Object.fromEntries(
        Object.entries(lb.ip_port_mappings).map(([k, v]) => [k, v.replace(`${lb.name}-p`, 'P')]),
      );
    },
    add: ['10.0.0.7', 'P:10.0.0.1'],
    remove: '10.0.0.5',
  },
  ...(['options', 'external_ids'] as const).map(
    (column): MapSetter => ({
      fn: 'lrNatEnsure',
      column: `NAT.${column}`,
      rule: 'merge',
      init: (t, id) => {
        lrAdd(t, id);
        return lrNatAdd(t, id, {
          type: 'snat',
          externalIp: '172.16.0.1',
          logicalIp: '10.0.0.0/24',
          options: { a: '1' },
          externalIds: { a: '1', b: '2' },
        });
      },
      base: column === 'options' ? { a: '1', stateless: 'false' } : { a: '1', b: '2' },
      set: (t, ref, patch) => {
        const lr = t.referrers('Logical_Router', 'nat', ref)[0]!;
        const given = Object.fromEntries(
          Object.entries(patch).filter((e): e is [string, string] => e[1] !== null),
        );
        lrNatEnsure(t, lr._uuid, {
          type: 'snat',
          externalIp: '172.16.0.2',
          logicalIp: '10.0.0.0/24',
          ...(column === 'options' ? { options: given } : { externalIds: given }),
        });
      },
      read: (c, ref) => c.get('NAT', ref)![column],
      add: ['c', '3'],
    }),
  ),
  ...(['options', 'external_ids'] as const).map(
    (column): MapSetter => ({
      fn: 'lrRouteEnsure',
      column: `Logical_Router_Static_Route.${column}`,
      rule: 'merge',
      init: (t, id) => {
        lrAdd(t, id);
        return lrRouteAdd(t, id, {
          prefix: '10.1.0.0/16',
          nexthop: '10.0.0.254',
          options: { a: '1' },
          externalIds: { a: '1', b: '2' },
        });
      },
      base: column === 'options' ? { a: '1' } : { a: '1', b: '2' },
      set: (t, ref, patch) => {
        const lr = t.referrers('Logical_Router', 'static_routes', ref)[0]!;
        const given = Object.fromEntries(
          Object.entries(patch).filter((e): e is [string, string] => e[1] !== null),
        );
        lrRouteEnsure(t, lr._uuid, {
          prefix: '10.1.0.0/16',
          nexthop: '10.0.0.253',
          ...(column === 'options' ? { options: given } : { externalIds: given }),
        });
      },
      read: (c, ref) => c.get('Logical_Router_Static_Route', ref)![column],
      add: ['c', '3'],
    }),
  ),
  {
    fn: 'reconcilePortDhcpOptions',
    column: 'DHCP_Options.options',
    rule: 'reconcile',
    init: (t, id) => {
      lsAdd(t, `${id}-sw`);
      const p = lspAdd(t, `${id}-sw`, id);
      reconcilePortDhcpOptions(t, p, {
        v4: { cidr: '10.0.0.0/24', options: { ...typedDhcp(V4), router: '10.0.0.1' } },
      });
      return p;
    },
    base: { ...V4, router: '10.0.0.1' },
    set: (t, ref, patch) => {
      const row = t.get('DHCP_Options', t.get('Logical_Switch_Port', ref)!.dhcpv4_options!)!;
      const next = Object.fromEntries(
        Object.entries({ ...row.options, ...patch }).filter(([, v]) => v !== null),
      );
      reconcilePortDhcpOptions(t, ref, {
        v4: { cidr: '10.0.0.0/24', options: typedDhcp(next as Patch) },
      });
    },
    read: (c, ref) =>
      c.get('DHCP_Options', c.get('Logical_Switch_Port', ref)!.dhcpv4_options!)!.options,
    add: ['mtu', '1400'],
    remove: 'router',
  },
];

let seq = 0;

describe.each(TARGETS.filter((t) => t.via === 'direct'))('map setters against %s', (target) => {
  const fx = useTarget(target, { schemaPath: NB_SCHEMA_7_18 });
  let client: Client;
  let nb: Nb;
  beforeAll(async () => {
    client = connectDatabase({ remotes: [fx.remote], model: NB });
    fx.onClose(() => client.close());
    await client.ready;
    nb = createNb(client);
  });

  it.each(SETTERS.map((s) => [`${s.fn} (${s.column}, ${s.rule})`, s] as const))(
    '%s',
    async (_title, s) => {
      const id = `set-${++seq}`;
      const { value: ref } = await nb.transact((t) => s.init(t, id));
      expect(s.read(client, ref)).toEqual(s.base);

      // Set one key: the others stay.
      const [key, value] = s.add;
      await nb.transact((t) => s.set(t, ref, { [key]: value }));
      const added = { ...s.base, [key]: value };
      expect(s.read(client, ref)).toEqual(added);

      // Remove one: the others stay.
      if (s.remove !== undefined) {
        await nb.transact((t) => s.set(t, ref, { [s.remove!]: null }));
        const { [s.remove]: _removed, ...rest } = added;
        expect(s.read(client, ref)).toEqual(rest);
      }

      // Replace: exactly the keys given.
      if (s.replaceWith !== undefined) {
        await nb.transact((t) => s.set(t, ref, s.replaceWith!, { replace: true }));
        expect(s.read(client, ref)).toEqual(
          Object.fromEntries(Object.entries(s.replaceWith).filter(([, v]) => v !== null)),
        );
      }
    },
  );

  it('lrpSet changing the redirect type keeps the other options', async () => {
    const { value: lrp } = await nb.transact((t) => {
      lrAdd(t, 'redirect-lr');
      return lrpAdd(t, 'redirect-lr', 'redirect-lrp', '00:00:00:00:ff:09', ['172.16.0.1/24'], {
        gatewayChassis: { gw1: 10 },
        options: { gateway_mtu: '1400', 'redirect-type': 'overlay' },
      });
    });
    await nb.transact((t) => lrpSet(t, lrp, { options: { 'redirect-type': 'bridged' } }));
    expect(client.get('Logical_Router_Port', lrp)?.options).toEqual({
      gateway_mtu: '1400',
      'redirect-type': 'bridged',
    });
  });

  it('every DSL function that changes a map column of an existing row is in the table', async () => {
    const { value: fixture } = await nb.transact((t) => setup(t));
    const known = new Set(Object.keys(NB.schema.tables));
    const mapColumns = (table: string) =>
      Object.values(NB.schema.tables[table]!.columns)
        .filter((c) => c.type.kind === 'map')
        .map((c) => c.name);
    const writers = new Set<string>();
    for (const op of Object.keys(CALLS) as NbOperation[]) {
      const t = new NbTxn(new TransactionBuilder(NB, client), client);
      CALLS[op](t, fixture as Fixture);
      for (const o of t.tx.build().ops) {
        if (!('table' in o) || !known.has(o.table)) continue;
        const maps = mapColumns(o.table);
        const written =
          o.op === 'update'
            ? Object.keys(o.row)
            : o.op === 'mutate'
              ? o.mutations.map((m) => m[0])
              : [];
        if (written.some((c) => maps.includes(c))) writers.add(op);
      }
    }
    const listed = new Set(SETTERS.map((s) => s.fn));
    expect([...writers].filter((w) => !listed.has(w as NbOperation))).toEqual([]);
  });
});

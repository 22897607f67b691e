/**
 * The program of the NB version matrix (`test/nb/version-matrix.test.ts`):
 * switches and ports, a port group with ACLs, a router with its ports, NAT
 * and routes, a load balancer and DHCP, written with the DSL over any NB
 * model that has what it uses (every schema from 6.1.0). `STEPS` are writes
 * that only some schemas take (a column or an enum value added later), and
 * `summarize` reads a server's database back into the shape of
 * `expectedSummary`: what the program asked for. The program itself is
 * `matrix-topology.ts`, typed by the bundled model; {@link topologyFor}
 * makes a copy of it typed by another model.
 */

import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  aclAdd,
  lbAdd,
  lrNatAdd,
  lrpSetGatewayChassis,
  mirrorAdd,
  type NbTxn,
} from '../../../src/nb/index.js';
import type { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';

/** What the program writes. */
export const TOPOLOGY = {
  switches: {
    sw0: { p1: '0a:00:00:00:00:01 10.0.0.11', p2: '0a:00:00:00:00:02 10.0.0.12' },
    sw1: { p3: '0a:00:00:00:01:03 10.0.1.13' },
  },
  portGroup: {
    name: 'pg_web',
    ports: ['p1', 'p3'],
    acls: [
      {
        direction: 'to-lport',
        priority: 1001,
        match: 'outport == @pg_web && ip4.src == 10.0.0.0/16',
        action: 'allow-related',
      },
      { direction: 'to-lport', priority: 1000, match: 'outport == @pg_web', action: 'drop' },
    ],
  },
  router: {
    name: 'lr0',
    links: [
      { switch: 'sw0', mac: '00:00:00:00:ff:00', networks: ['10.0.0.1/24'] },
      { switch: 'sw1', mac: '00:00:00:00:ff:01', networks: ['10.0.1.1/24'] },
    ],
    nat: [
      { type: 'snat', externalIp: '172.16.0.1', logicalIp: '10.0.0.0/24' },
      { type: 'dnat_and_snat', externalIp: '172.16.0.11', logicalIp: '10.0.0.11' },
    ],
    routes: [
      { prefix: '0.0.0.0/0', nexthop: '10.0.1.254' },
      { prefix: '192.168.0.0/16', nexthop: '10.0.0.254' },
    ],
  },
  lb: {
    name: 'lb0',
    vip: '10.0.0.100:80',
    backends: ['10.0.0.11:8080', '10.0.0.12:8080'],
    switch: 'sw0',
  },
  dhcp: {
    cidr: '10.0.0.0/24',
    options: {
      server_id: '10.0.0.1',
      server_mac: '00:00:00:00:ff:00',
      lease_time: 3600,
      router: '10.0.0.1',
    },
    ports: ['p1', 'p2'],
  },
} as const;

const HERE = import.meta.dirname;

/**
 * The source of `matrix-topology.ts` for a file in `dir` whose model is the
 * `NBTables` of module `model` (a specifier relative to `dir`): the same
 * program, typed by that model.
 */
export function topologyFor(dir: string, model: string): string {
  const rel = (path: string) => {
    const r = relative(dir, join(HERE, path)).split('\\').join('/');
    return r.startsWith('.') ? r : `./${r}`;
  };
  return readFileSync(join(HERE, 'matrix-topology.ts'), 'utf8')
    .replace(
      "import type { NBTables as Model } from '../../../src/nb/index.js';",
      `import type { NBTables as Model } from '${model}';`,
    )
    .replaceAll(
      /'\.\.\/\.\.\/\.\.\/src\/([^']+)'/g,
      (_m, path: string) => `'${rel(`../../../src/${path}`)}'`,
    )
    .replaceAll("'./matrix-program.js'", `'${rel('matrix-program.js')}'`);
}

/** What one step needs of the server's schema: a table, a column of it, a value of its enum. */
export interface StepNeed {
  readonly table: string;
  readonly column?: string;
  readonly value?: string;
}

/** A write only some schemas take, with the bundled model. */
export interface Step {
  readonly name: string;
  readonly needs: StepNeed;
  readonly run: (t: NbTxn) => void;
  /** What it adds to the summary when it commits. */
  readonly adds: (s: Summary) => void;
}

export const STEPS: readonly Step[] = [
  {
    name: 'an ACL in tier 1',
    needs: { table: 'ACL', column: 'tier' },
    run: (t) =>
      aclAdd(
        t,
        { portGroup: 'pg_web' },
        {
          direction: 'from-lport',
          priority: 900,
          match: 'inport == @pg_web',
          action: 'drop',
          tier: 1,
        },
      ),
    adds: (s) => {
      s.acls.push('from-lport 900 inport == @pg_web drop tier 1');
      s.portGroups['pg_web']!.acls++;
    },
  },
  {
    name: 'an ACL with action pass',
    needs: { table: 'ACL', column: 'action', value: 'pass' },
    run: (t) =>
      aclAdd(
        t,
        { portGroup: 'pg_web' },
        { direction: 'from-lport', priority: 800, match: 'ip4', action: 'pass' },
      ),
    adds: (s) => {
      s.acls.push('from-lport 800 ip4 pass');
      s.portGroups['pg_web']!.acls++;
    },
  },
  {
    name: 'a NAT rule on a gateway port',
    needs: { table: 'NAT', column: 'gateway_port' },
    run: (t) => {
      // A distributed gateway port: one with a gateway chassis.
      lrpSetGatewayChassis(t, 'lr0-sw1', 'ch1', 10);
      lrNatAdd(t, 'lr0', {
        type: 'snat',
        externalIp: '172.16.0.2',
        logicalIp: '10.0.1.0/24',
        gatewayPort: 'lr0-sw1',
      });
    },
    adds: (s) => {
      s.nat.push('snat 172.16.0.2 10.0.1.0/24 via lr0-sw1');
      s.routers['lr0']!.nat++;
    },
  },
  {
    name: 'a load balancer hashing on ipv6_src',
    needs: { table: 'Load_Balancer', column: 'selection_fields', value: 'ipv6_src' },
    run: (t) => {
      lbAdd(t, 'lb6', {
        vips: { '[fd00::100]:80': ['[fd00::11]:8080'] },
        selectionFields: ['ipv6_src'],
      });
    },
    adds: (s) => {
      s.lbs['lb6'] = { vips: { '[fd00::100]:80': '[fd00::11]:8080' }, selection: ['ipv6_src'] };
    },
  },
  {
    name: 'a mirror to a logical port',
    needs: { table: 'Mirror', column: 'type', value: 'lport' },
    run: (t) => {
      mirrorAdd(t, 'm0', { type: 'lport', index: 1, filter: 'from-lport', sink: 'p2' });
    },
    adds: (s) => {
      s.mirrors.push('m0 lport from-lport p2');
    },
  },
];

/** A database as the program sees it: names, not UUIDs; lists sorted. */
export interface Summary {
  switches: Record<string, { ports: string[]; lbs: string[] }>;
  ports: Record<string, { addresses: string[]; type: string; dhcpv4: string | null }>;
  portGroups: Record<string, { ports: string[]; acls: number }>;
  acls: string[];
  routers: Record<string, { ports: string[]; nat: number; routes: number }>;
  routerPorts: Record<string, { mac: string; networks: string[] }>;
  nat: string[];
  routes: string[];
  lbs: Record<string, { vips: Record<string, string>; selection: string[] }>;
  dhcp: Record<string, Record<string, string>>;
  mirrors: string[];
}

function emptySummary(): Summary {
  return {
    switches: {},
    ports: {},
    portGroups: {},
    acls: [],
    routers: {},
    routerPorts: {},
    nat: [],
    routes: [],
    lbs: {},
    dhcp: {},
    mirrors: [],
  };
}

/** The summary of {@link TOPOLOGY}. */
export function expectedSummary(): Summary {
  const T = TOPOLOGY;
  const s = emptySummary();
  const dhcpPorts = new Set<string>(T.dhcp.ports);
  for (const [sw, ports] of Object.entries(T.switches)) {
    s.switches[sw] = { ports: Object.keys(ports), lbs: T.lb.switch === sw ? [T.lb.name] : [] };
    for (const [port, address] of Object.entries(ports)) {
      s.ports[port] = {
        addresses: [address],
        type: '',
        dhcpv4: dhcpPorts.has(port) ? T.dhcp.cidr : null,
      };
    }
  }
  s.portGroups[T.portGroup.name] = { ports: [...T.portGroup.ports], acls: T.portGroup.acls.length };
  for (const a of T.portGroup.acls)
    s.acls.push(`${a.direction} ${a.priority} ${a.match} ${a.action}`);
  s.routers[T.router.name] = {
    ports: [],
    nat: T.router.nat.length,
    routes: T.router.routes.length,
  };
  for (const link of T.router.links) {
    const lrp = `${T.router.name}-${link.switch}`;
    const lsp = `${link.switch}-${T.router.name}`;
    s.routers[T.router.name]!.ports.push(lrp);
    s.routerPorts[lrp] = { mac: link.mac, networks: [...link.networks] };
    s.switches[link.switch]!.ports.push(lsp);
    s.ports[lsp] = { addresses: ['router'], type: 'router', dhcpv4: null };
  }
  for (const n of T.router.nat) s.nat.push(`${n.type} ${n.externalIp} ${n.logicalIp}`);
  for (const r of T.router.routes) s.routes.push(`${r.prefix} ${r.nexthop}`);
  s.lbs[T.lb.name] = { vips: { [T.lb.vip]: T.lb.backends.join(',') }, selection: [] };
  s.dhcp[T.dhcp.cidr] = Object.fromEntries(
    Object.entries(T.dhcp.options).map(([k, v]) => [k, String(v)]),
  );
  return s;
}

/** Sort every list of a summary, so that two compare by content. */
export function sorted(s: Summary): Summary {
  const lists = (o: Record<string, Record<string, unknown>>) => {
    for (const v of Object.values(o)) {
      for (const [k, x] of Object.entries(v)) if (Array.isArray(x)) v[k] = [...x].sort();
    }
  };
  lists(s.switches);
  lists(s.ports);
  lists(s.portGroups);
  lists(s.routers);
  lists(s.routerPorts);
  lists(s.lbs);
  s.acls.sort();
  s.nat.sort();
  s.routes.sort();
  s.mirrors.sort();
  return s;
}

// ---- reading a server's database (raw wire rows, no model in between) ----------------

type Wire = unknown;
type WireRow = Record<string, Wire>;

function atoms(v: Wire): Wire[] {
  return Array.isArray(v) && v[0] === 'set' ? (v[1] as Wire[]) : [v];
}
function uuid(v: Wire): string {
  return (v as [string, string])[1];
}
function map(v: Wire): Record<string, string> {
  return Object.fromEntries(
    ((v as [string, [Wire, Wire][]])[1] ?? []).map(([k, x]) => [String(k), String(x)]),
  );
}
function optional(v: Wire): Wire | null {
  const a = atoms(v);
  return a.length === 0 ? null : a[0]!;
}

/** Read `db` on `conn` into a {@link Summary} (tables the server lacks read as empty). */
export async function summarize(
  conn: OvsdbConnection,
  db: string,
  tables: ReadonlySet<string>,
): Promise<Summary> {
  const names = [
    'Logical_Switch',
    'Logical_Switch_Port',
    'Port_Group',
    'ACL',
    'Logical_Router',
    'Logical_Router_Port',
    'NAT',
    'Logical_Router_Static_Route',
    'Load_Balancer',
    'DHCP_Options',
    'Mirror',
  ].filter((t) => tables.has(t));
  const results = (await conn.transact(
    db,
    names.map((table) => ({ op: 'select' as const, table, where: [] })),
  )) as { rows: WireRow[] }[];
  const rows: Record<string, WireRow[]> = {};
  names.forEach((t, i) => {
    rows[t] = results[i]!.rows;
  });
  const byUuid = new Map<string, WireRow>();
  for (const list of Object.values(rows)) for (const r of list) byUuid.set(uuid(r['_uuid']), r);
  const nameOf = (v: Wire) => String(byUuid.get(uuid(v))?.['name'] ?? uuid(v));
  const s = emptySummary();
  for (const r of rows['Logical_Switch'] ?? []) {
    s.switches[String(r['name'])] = {
      ports: atoms(r['ports']).map(nameOf),
      lbs: atoms(r['load_balancer']).map(nameOf),
    };
  }
  for (const r of rows['Logical_Switch_Port'] ?? []) {
    const d = optional(r['dhcpv4_options']);
    s.ports[String(r['name'])] = {
      addresses: atoms(r['addresses']).map(String),
      type: String(r['type']),
      dhcpv4: d === null ? null : String(byUuid.get(uuid(d))?.['cidr']),
    };
  }
  for (const r of rows['Port_Group'] ?? []) {
    s.portGroups[String(r['name'])] = {
      ports: atoms(r['ports']).map(nameOf),
      acls: atoms(r['acls']).length,
    };
  }
  for (const r of rows['ACL'] ?? []) {
    const tier = r['tier'] === undefined || r['tier'] === 0 ? '' : ` tier ${String(r['tier'])}`;
    s.acls.push(`${r['direction']} ${r['priority']} ${r['match']} ${r['action']}${tier}`);
  }
  for (const r of rows['Logical_Router'] ?? []) {
    s.routers[String(r['name'])] = {
      ports: atoms(r['ports']).map(nameOf),
      nat: atoms(r['nat']).length,
      routes: atoms(r['static_routes']).length,
    };
  }
  for (const r of rows['Logical_Router_Port'] ?? []) {
    s.routerPorts[String(r['name'])] = {
      mac: String(r['mac']),
      networks: atoms(r['networks']).map(String),
    };
  }
  for (const r of rows['NAT'] ?? []) {
    const gw = r['gateway_port'] === undefined ? null : optional(r['gateway_port']);
    const via = gw === null ? '' : ` via ${nameOf(gw)}`;
    s.nat.push(`${r['type']} ${r['external_ip']} ${r['logical_ip']}${via}`);
  }
  for (const r of rows['Logical_Router_Static_Route'] ?? []) {
    s.routes.push(`${r['ip_prefix']} ${r['nexthop']}`);
  }
  for (const r of rows['Load_Balancer'] ?? []) {
    s.lbs[String(r['name'])] = {
      vips: map(r['vips']),
      selection: atoms(r['selection_fields']).map(String),
    };
  }
  for (const r of rows['DHCP_Options'] ?? []) s.dhcp[String(r['cidr'])] = map(r['options']);
  for (const r of rows['Mirror'] ?? []) {
    s.mirrors.push(`${r['name']} ${r['type']} ${r['filter']} ${r['sink']}`);
  }
  return s;
}

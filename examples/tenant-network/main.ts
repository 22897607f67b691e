/**
 * A tenant network through the Northbound DSL, on a model generated from the
 * server's own NB schema (`model/`, from OVN 23.03's 7.0.0):
 *
 * - a distributed router `tn-router` with a gateway port on the external
 *   switch `tn-ext` (a localnet port to `physnet1`, gateway chassis `gw-1`);
 * - two tenant switches, `tn-web` (10.10.1.0/24) and `tn-db` (10.10.2.0/24),
 *   each with a router port, and three VM ports;
 * - DHCP options for the web subnet, used by the web ports;
 * - a port group `pg_web` of the web ports, with ACLs: HTTP/HTTPS from
 *   anywhere, SSH from the address set `as_admins` only, the rest dropped;
 * - SNAT of the tenant networks and a dnat_and_snat floating IP for `web-1`;
 * - a default static route to the uplink, a router policy dropping the
 *   database subnet's traffic to the admin network;
 * - a load balancer for the web tier on the web switch and the router.
 *
 * Everything is created in one transaction that waits for `ovn-northd`
 * (`wait: 'sb'`); every operation is `mayExist`, and a dry run first tells
 * whether anything is missing, so a second run sends nothing and changes
 * nothing. Then it prints `ovn-nbctl show`'s view and what northd made of it
 * in the Southbound database.
 *
 * ```sh
 * node --conditions=ovnkit-source --import tsx examples/tenant-network/main.ts \
 *   --nb unix:/var/run/ovn/ovnnb_db.sock --sb unix:/var/run/ovn/ovnsb_db.sock
 * ```
 * @module
 */

import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { connect } from 'ovnkit';
import { openDatabase } from 'ovnkit/client';
import {
  aclAdd,
  addressSetAdd,
  connectSwitchToRouter,
  createNb,
  dhcpOptionsCreate,
  lbAdd,
  lrAdd,
  lrLbAdd,
  lrNatAdd,
  lrPolicyAdd,
  lrpAdd,
  lrRouteAdd,
  lsAdd,
  lsLbAdd,
  lspAdd,
  match,
  type NbTxn,
  pgAdd,
} from 'ovnkit/nb';
import { NB, type NBTables } from './model/index.js';

/** Where the databases are, unless `--nb` / `--sb` say otherwise. */
export const DEFAULT_NB = process.env['OVN_NB_DB'] ?? 'unix:/var/run/ovn/ovnnb_db.sock';
export const DEFAULT_SB = process.env['OVN_SB_DB'] ?? 'unix:/var/run/ovn/ovnsb_db.sock';

/** The names the example creates. */
export const TENANT = {
  router: 'tn-router',
  switches: ['tn-ext', 'tn-web', 'tn-db'],
  vms: ['web-1', 'web-2', 'db-1'],
  portGroup: 'pg_web',
  addressSet: 'as_admins',
  loadBalancer: 'lb-web',
} as const;

const MAY_EXIST = { mayExist: true } as const;

/** Every object of the tenant network; safe to run again (everything is `mayExist`). */
export function buildTenantNetwork(t: NbTxn<NBTables>): void {
  const may = MAY_EXIST;
  lrAdd(t, TENANT.router, may);

  // The uplink: an external switch with a localnet port and the router's
  // gateway port, scheduled on chassis gw-1.
  lsAdd(t, 'tn-ext', may);
  lspAdd(t, 'tn-ext', 'tn-ext-localnet', {
    ...may,
    type: 'localnet',
    addresses: ['unknown'],
    options: { network_name: 'physnet1' },
  });
  lrpAdd(t, TENANT.router, 'tn-router-ext', '00:00:0a:00:00:01', ['172.16.0.1/24'], {
    ...may,
    gatewayChassis: { 'gw-1': 10 },
  });
  lspAdd(t, 'tn-ext', 'tn-ext-router', {
    ...may,
    type: 'router',
    addresses: ['router'],
    options: { 'router-port': 'tn-router-ext' },
  });

  // The tenant switches, each with its router port.
  lsAdd(t, 'tn-web', { ...may, otherConfig: { subnet: '10.10.1.0/24' } });
  lsAdd(t, 'tn-db', { ...may, otherConfig: { subnet: '10.10.2.0/24' } });
  connectSwitchToRouter(t, {
    ...may,
    switch: 'tn-web',
    router: TENANT.router,
    mac: '00:00:0a:0a:01:01',
    networks: ['10.10.1.1/24'],
  });
  connectSwitchToRouter(t, {
    ...may,
    switch: 'tn-db',
    router: TENANT.router,
    mac: '00:00:0a:0a:02:01',
    networks: ['10.10.2.1/24'],
  });

  // DHCP for the web subnet, and the VMs.
  const dhcpWeb = dhcpOptionsCreate(
    t,
    '10.10.1.0/24',
    {
      server_id: '10.10.1.1',
      server_mac: '00:00:0a:0a:01:01',
      lease_time: 3600,
      router: '10.10.1.1',
      dns_server: ['10.10.1.1'],
    },
    { ...may, externalIds: { tenant: 'tn' } },
  );
  const web1 = lspAdd(t, 'tn-web', 'web-1', {
    ...may,
    addresses: ['00:00:0a:0a:01:0b 10.10.1.11'],
    portSecurity: ['00:00:0a:0a:01:0b 10.10.1.11'],
    dhcpv4Options: dhcpWeb,
  });
  const web2 = lspAdd(t, 'tn-web', 'web-2', {
    ...may,
    addresses: ['00:00:0a:0a:01:0c 10.10.1.12'],
    portSecurity: ['00:00:0a:0a:01:0c 10.10.1.12'],
    dhcpv4Options: dhcpWeb,
  });
  lspAdd(t, 'tn-db', 'db-1', { ...may, addresses: ['00:00:0a:0a:02:0b 10.10.2.11'] });

  // Who may reach the web tier.
  addressSetAdd(t, TENANT.addressSet, ['192.168.100.0/24', '192.168.101.7'], may);
  pgAdd(t, TENANT.portGroup, { ...may, ports: [web1, web2] });
  const toWeb = match.outport(match.portGroup(TENANT.portGroup));
  const target = { portGroup: TENANT.portGroup } as const;
  aclAdd(
    t,
    target,
    {
      direction: 'to-lport',
      priority: 1002,
      action: 'allow-related',
      match: match.and(toWeb, match.field('ip4'), match.eq('tcp.dst', [80, 443])),
    },
    may,
  );
  aclAdd(
    t,
    target,
    {
      direction: 'to-lport',
      priority: 1001,
      action: 'allow-related',
      match: match.and(
        toWeb,
        match.ip4Src(match.addressSet(TENANT.addressSet)),
        match.eq('tcp.dst', 22),
      ),
    },
    may,
  );
  aclAdd(
    t,
    target,
    {
      direction: 'to-lport',
      priority: 1000,
      action: 'drop',
      match: match.and(toWeb, match.field('ip4')),
    },
    may,
  );
  aclAdd(
    t,
    target,
    {
      direction: 'from-lport',
      priority: 1000,
      action: 'allow-related',
      match: match.and(match.inport(match.portGroup(TENANT.portGroup)), match.field('ip4')),
    },
    may,
  );

  // North-south: SNAT for the tenant, a floating IP for web-1.
  lrNatAdd(
    t,
    TENANT.router,
    { type: 'snat', externalIp: '172.16.0.10', logicalIp: '10.10.0.0/16' },
    may,
  );
  lrNatAdd(
    t,
    TENANT.router,
    { type: 'dnat_and_snat', externalIp: '172.16.0.11', logicalIp: '10.10.1.11' },
    may,
  );
  lrRouteAdd(t, TENANT.router, { prefix: '0.0.0.0/0', nexthop: '172.16.0.254' }, may);
  lrPolicyAdd(
    t,
    TENANT.router,
    {
      priority: 1000,
      match: match.and(match.ip4Src('10.10.2.0/24'), match.ip4Dst('192.168.100.0/24')),
      action: 'drop',
    },
    may,
  );

  // The web tier behind one VIP, on the web switch and on the router.
  lbAdd(t, TENANT.loadBalancer, {
    ...may,
    protocol: 'tcp',
    vips: { '172.16.0.100:80': ['10.10.1.11:8080', '10.10.1.12:8080'] },
  });
  lsLbAdd(t, 'tn-web', TENANT.loadBalancer, may);
  lrLbAdd(t, TENANT.router, TENANT.loadBalancer, may);
}

/** What {@link runTenantNetwork} did and found. */
export interface TenantNetworkSummary {
  /** Whether a transaction was sent (false: everything existed already). */
  readonly changed: boolean;
  /** The operations sent (0 when nothing changed). */
  readonly operations: number;
  /** `ovn-nbctl show` of the tenant network. */
  readonly show: string;
  /** Counts of the NB rows of the tenant network. */
  readonly nb: {
    readonly switches: number;
    readonly switchPorts: number;
    readonly routerPorts: number;
    readonly acls: number;
    readonly nat: number;
    readonly routes: number;
    readonly policies: number;
    readonly loadBalancers: number;
  };
  /** What ovn-northd made of it: the datapaths and port bindings of the tenant's objects. */
  readonly sb: {
    readonly datapaths: readonly string[];
    readonly portBindings: readonly string[];
  };
}

/** Options of {@link runTenantNetwork}. */
export interface TenantNetworkOptions {
  readonly nb?: string | undefined;
  readonly sb?: string | undefined;
  /** How long to wait for ovn-northd, ms (default 30 000). */
  readonly waitTimeoutMs?: number | undefined;
}

/** Build the tenant network (when anything is missing), wait for northd, and summarise. */
export async function runTenantNetwork(
  options: TenantNetworkOptions = {},
): Promise<TenantNetworkSummary> {
  const client = await openDatabase({ remotes: options.nb ?? DEFAULT_NB, model: NB });
  try {
    const nb = createNb(client);
    // A dry run says whether the real one would write anything: with every
    // object there already, it holds nothing but reads and guards.
    const dry = nb.dryRun(buildTenantNetwork);
    const writes = dry.ops.filter((op) => op.op !== 'wait' && op.op !== 'select');
    let operations = 0;
    if (writes.length > 0) {
      const result = await nb.transact(buildTenantNetwork, {
        wait: 'sb',
        waitTimeoutMs: options.waitTimeoutMs,
      });
      operations = result.ops.length;
    }

    const ours = new Set<string>([TENANT.router, ...TENANT.switches]);
    const switches = [...client.rows('Logical_Switch')].filter((s) => ours.has(s.name));
    const router = [...client.rows('Logical_Router')].find((r) => r.name === TENANT.router);
    const pg = [...client.rows('Port_Group')].find((p) => p.name === TENANT.portGroup);
    const show = [
      ...switches.map((s) => nb.show({ only: s.name })),
      nb.show({ only: TENANT.router }),
    ].join('');
    const summary = {
      switches: switches.length,
      switchPorts: switches.reduce((n, s) => n + s.ports.length, 0),
      routerPorts: router?.ports.length ?? 0,
      acls: pg?.acls.length ?? 0,
      nat: router?.nat.length ?? 0,
      routes: router?.static_routes.length ?? 0,
      policies: router?.policies.length ?? 0,
      loadBalancers: router?.load_balancer.length ?? 0,
    };
    const portNames = new Set(
      switches.flatMap((s) => [...s.ports].map((p) => client.get('Logical_Switch_Port', p)?.name)),
    );
    const sb = await readSouthbound(options.sb ?? DEFAULT_SB, ours, portNames);
    return { changed: writes.length > 0, operations, show, nb: summary, sb };
  } finally {
    await client.close();
  }
}

/** The SB datapaths (by NB name) and port bindings northd made for our objects. */
async function readSouthbound(
  remote: string,
  names: ReadonlySet<string>,
  ports: ReadonlySet<string | undefined>,
): Promise<TenantNetworkSummary['sb']> {
  const conn = await connect(remote);
  try {
    const [dps, pbs] = (await conn.transact('OVN_Southbound', [
      { op: 'select', table: 'Datapath_Binding', where: [], columns: ['external_ids'] },
      { op: 'select', table: 'Port_Binding', where: [], columns: ['logical_port'] },
    ])) as [
      { rows: { external_ids: ['map', [string, string][]] }[] },
      { rows: { logical_port: string }[] },
    ];
    const datapaths = dps.rows
      .map((r) => new Map(r.external_ids[1]).get('name'))
      .filter((n): n is string => n !== undefined && names.has(n))
      .sort();
    const portBindings = pbs.rows
      .map((r) => r.logical_port)
      .filter((p) => ports.has(p) || p.startsWith('tn-router-'))
      .sort();
    return { datapaths, portBindings };
  } finally {
    conn.close();
  }
}

/** The report `main` prints. */
export function formatSummary(s: TenantNetworkSummary): string {
  const n = s.nb;
  return [
    s.changed
      ? `tenant network created (${s.operations} operations, ovn-northd done)`
      : 'tenant network up to date (nothing sent)',
    s.show.trimEnd(),
    `NB: ${n.switches} switches, ${n.switchPorts} switch ports, ${n.routerPorts} router ports, ` +
      `${n.acls} ACLs, ${n.nat} NAT rules, ${n.routes} routes, ${n.policies} policies, ` +
      `${n.loadBalancers} load balancers`,
    `SB: datapaths ${s.sb.datapaths.join(' ')}`,
    `SB: ${s.sb.portBindings.length} port bindings: ${s.sb.portBindings.join(' ')}`,
  ].join('\n');
}

const USAGE = `Usage: main.ts [--nb REMOTE] [--sb REMOTE]

Builds the tenant network in the Northbound database, waits for ovn-northd,
and prints a summary. Running it again changes nothing.

  --nb REMOTE   the Northbound database (default $OVN_NB_DB, else
                unix:/var/run/ovn/ovnnb_db.sock)
  --sb REMOTE   the Southbound database (default $OVN_SB_DB, else
                unix:/var/run/ovn/ovnsb_db.sock)`;

/** The command line: resolves to the exit status. */
export async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      nb: { type: 'string' },
      sb: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const summary = await runTenantNetwork({ nb: values.nb, sb: values.sb });
  process.stdout.write(`${formatSummary(summary)}\n`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`tenant-network: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

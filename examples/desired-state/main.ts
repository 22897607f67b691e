/**
 * A tenant network as desired state: declare the rows by natural key,
 * print the plan, apply it; change a little, print the plan of the change,
 * apply it; print the plan once more (it is empty: nothing is left to do).
 *
 * The tenant (owner `tenant-ds`):
 * - a switch `ds-web` (10.50.1.0/24) with two VM ports, `ds-web-1` and
 *   `ds-web-2`, and the router-type port `ds-web-router`;
 * - an address set `ds_admins`, a port group `ds_web` of the VM ports
 *   (referenced by key) with three ACLs: HTTP from anywhere, SSH from
 *   `$ds_admins` only, the rest dropped;
 * - a router `ds-router` with the port `ds-router-web` (10.50.1.1/24), an
 *   SNAT of the subnet and a default route.
 *
 * The change: a third VM port `ds-web-3` (in the port group too), a second
 * admin network, the SSH ACL logged, and the SNAT gone.
 *
 * ```sh
 * OVN_NB_DB=unix:/var/run/ovn/ovnnb_db.sock \
 *   node --conditions=ovnkit-source --import tsx examples/desired-state/main.ts
 * ```
 *
 * Without `OVN_NB_DB` it starts ovnkit's in-memory server for the run.
 * @module
 */

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type DatabaseClient, openDatabase } from 'ovnkit/client';
import {
  type ApplyResult,
  applyDesired,
  type DesiredState,
  keyOf,
  type Plan,
  planDesired,
} from 'ovnkit/desired';
import { NB, type NBTables, nbDesiredState } from 'ovnkit/nb';
import { startMemoryServer } from 'ovnkit/testing';

/** The owner of the tenant's rows (`external_ids:ovnkit-owner`). */
export const OWNER = 'tenant-ds';

const NB_SCHEMA = join(import.meta.dirname, '..', '..', 'schema', 'ovn-nb-7.18.0.ovsschema');

/** The VM ports of each version of the tenant. */
const VMS = {
  1: ['ds-web-1', 'ds-web-2'],
  2: ['ds-web-1', 'ds-web-2', 'ds-web-3'],
} as const;

/** The MAC and IP of VM port `ds-web-<n>`. */
function vmAddress(name: string): string {
  const n = Number(name.slice('ds-web-'.length));
  return `0a:00:00:00:01:${n.toString(16).padStart(2, '0')} 10.50.1.${10 + n}`;
}

/**
 * The tenant as desired state: version 1, or version 2 (the change: one VM
 * more, a second admin network, the SSH ACL logged, no SNAT).
 */
export function declareTenant(version: 1 | 2): DesiredState<NBTables> {
  const d = nbDesiredState(NB, { owner: OWNER });
  const sw = d.add('Logical_Switch', {
    name: 'ds-web',
    other_config: { subnet: '10.50.1.0/24' },
  });
  for (const name of VMS[version]) {
    d.add('Logical_Switch_Port', { name, addresses: [vmAddress(name)] }, { in: sw });
  }
  d.add(
    'Logical_Switch_Port',
    {
      name: 'ds-web-router',
      type: 'router',
      addresses: ['router'],
      options: { 'router-port': 'ds-router-web' },
    },
    { in: sw },
  );

  d.add('Address_Set', {
    name: 'ds_admins',
    addresses: version === 1 ? ['192.168.100.0/24'] : ['192.168.100.0/24', '192.168.101.0/24'],
  });
  // References by key: the VM ports, declared above (they could also be rows that exist).
  const pg = d.add('Port_Group', {
    name: 'ds_web',
    ports: VMS[version].map((name) => keyOf('Logical_Switch_Port', { name })),
  });
  const acl = (priority: number, match: string, action: 'allow-related' | 'drop', log = false) =>
    d.add('ACL', { direction: 'to-lport', priority, match, action, log }, { in: pg });
  acl(1000, 'outport == @ds_web && tcp.dst == 80', 'allow-related');
  acl(
    1000,
    'outport == @ds_web && ip4.src == $ds_admins && tcp.dst == 22',
    'allow-related',
    version === 2,
  );
  acl(900, 'outport == @ds_web && ip', 'drop');

  const lr = d.add('Logical_Router', { name: 'ds-router' });
  d.add(
    'Logical_Router_Port',
    { name: 'ds-router-web', mac: '0a:00:00:00:01:01', networks: ['10.50.1.1/24'] },
    { in: lr },
  );
  if (version === 1) {
    d.add(
      'NAT',
      { type: 'snat', external_ip: '172.16.50.10', logical_ip: '10.50.1.0/24' },
      { in: lr },
    );
  }
  d.add(
    'Logical_Router_Static_Route',
    { ip_prefix: '0.0.0.0/0', nexthop: '172.16.50.254' },
    { in: lr },
  );
  return d;
}

/** One step of the run: the plan printed, then applied. */
async function step(
  client: DatabaseClient<NBTables>,
  title: string,
  d: DesiredState<NBTables>,
  print: (s: string) => void,
): Promise<ApplyResult> {
  const plan: Plan = planDesired(client, d);
  print(`== ${title} ==`);
  print(plan.render());
  const r = await applyDesired(client, d, { comment: `desired-state example: ${title}` });
  print(
    r.outcome === 'unchanged'
      ? 'nothing sent'
      : `applied: ${r.transactions} transaction, ${r.operations} operations, ${r.guards} guards`,
  );
  print('');
  return r;
}

/** Options of {@link runExample}. */
export interface RunOptions {
  /** The NB remote (default `OVN_NB_DB`; when unset, an in-memory server is started). */
  readonly remote?: string | undefined;
  /** Where the output goes (default stdout). */
  readonly print?: ((text: string) => void) | undefined;
}

/** Declare, plan and apply the tenant, change it, and plan once more. Resolves with the three results. */
export async function runExample(options: RunOptions = {}): Promise<ApplyResult[]> {
  const print = options.print ?? ((s: string) => process.stdout.write(`${s}\n`));
  const remote = options.remote ?? process.env['OVN_NB_DB'];
  const server =
    remote === undefined ? await startMemoryServer({ schemaPath: NB_SCHEMA }) : undefined;
  try {
    const client = await openDatabase({ remotes: remote ?? server!.unixRemote, model: NB });
    try {
      print(`NB: ${remote ?? 'in-memory server'}`);
      print('');
      const results = [
        await step(client, 'plan 1: the tenant', declareTenant(1), print),
        await step(client, 'plan 2: the change', declareTenant(2), print),
        await step(client, 'plan 3: again', declareTenant(2), print),
      ];
      const count = (t: keyof NBTables) => [...client.rows(t)].length;
      print(
        `NB: ${count('Logical_Switch_Port')} switch ports, ${count('ACL')} ACLs, ${count('NAT')} NAT rules, ${count('Logical_Router_Static_Route')} routes`,
      );
      return results;
    } finally {
      await client.close();
    }
  } finally {
    await server?.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runExample().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  });
}

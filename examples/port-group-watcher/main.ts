/**
 * An index-driven watcher: keeps the port group `pg_<tenant>` equal to the
 * set of logical switch ports labelled `external_ids:tenant=<tenant>`,
 * whoever adds, removes or re-labels ports (ovn-nbctl, a CMS, another
 * controller), and puts the group back when someone edits it by hand.
 *
 * - A client index on `Logical_Switch_Port.external_ids:tenant`
 *   (`connectNb({ indexes })`) answers "which ports belong to the tenant"
 *   without scanning the table, in the replica and inside transactions
 *   (`t.byIndex`); the group is found by its schema index (`t.lookup`).
 * - Row events (`client.on`) of ports whose label is or was the tenant, and of
 *   the group itself, schedule a reconciliation; events that come while one
 *   runs are folded into the next one.
 * - A reconciliation is one transaction: it reads the desired ports by index
 *   inside the transaction (so a replay after a conflict sees the new
 *   state), creates the group or sets its ports, and sends nothing when the
 *   group is already right.
 *
 * ```sh
 * node --conditions=ovnkit-source --import tsx examples/port-group-watcher/main.ts \
 *   --nb unix:/var/run/ovn/ovnnb_db.sock --tenant blue
 * ```
 * @module
 */

import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { connectNb, type Nb, pgAdd, pgSetPorts } from 'ovnkit/nb';
import { type LogicalSwitchPort, NB, type NBTables, type PortGroup } from './model/index.js';

/** Where the Northbound database is, unless `--nb` says otherwise. */
export const DEFAULT_NB = process.env['OVN_NB_DB'] ?? 'unix:/var/run/ovn/ovnnb_db.sock';

/** The `external_ids` key that names a port's tenant. */
export const TENANT_KEY = 'tenant';

/** The client indexes the watcher needs. */
const INDEXES = {
  Logical_Switch_Port: { tenant: { column: 'external_ids', key: TENANT_KEY } },
} as const;

type WatcherNb = Nb<NBTables, typeof INDEXES>;

/** The two index reads a reconciliation makes: the replica and a transaction both answer them. */
interface IndexReader {
  byIndex(
    table: 'Logical_Switch_Port',
    index: 'tenant',
    value: string,
  ): readonly LogicalSwitchPort[];
  lookup(table: 'Port_Group', key: { readonly name: string }): PortGroup | undefined;
}

/** What one reconciliation did. */
export interface Reconciliation {
  /** Whether the group was created. */
  readonly created: boolean;
  /** Port names added to and removed from the group. */
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** The group's ports afterwards, by name. */
  readonly ports: readonly string[];
}

/** Options of {@link PortGroupWatcher}. */
export interface WatcherOptions {
  readonly tenant: string;
  /** The port group (default `pg_<tenant>`, with `-` written `_` as port group names require). */
  readonly portGroup?: string | undefined;
  /** Where reports go (default stdout). */
  readonly log?: ((line: string) => void) | undefined;
}

/** The names of ports (UUIDs) as the replica knows them, sorted. */
function names(nb: WatcherNb, uuids: Iterable<string>): string[] {
  return [...uuids].map((u) => nb.client.get('Logical_Switch_Port', u as never)?.name ?? u).sort();
}

/** Keeps one tenant's port group in line with the ports labelled for it. */
export class PortGroupWatcher {
  readonly tenant: string;
  readonly portGroup: string;
  /** Reconciliations run, and how many of them sent a transaction. */
  reconciliations = 0;
  transactions = 0;
  private readonly log: (line: string) => void;
  private readonly off: (() => void)[] = [];
  private running: Promise<void> | undefined;
  private dirty = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    readonly nb: WatcherNb,
    options: WatcherOptions,
  ) {
    this.tenant = options.tenant;
    this.portGroup = options.portGroup ?? `pg_${options.tenant.replaceAll('-', '_')}`;
    this.log = options.log ?? ((line) => process.stdout.write(`${line}\n`));
  }

  /** Subscribe to the row events, and reconcile once. */
  async start(): Promise<void> {
    const client = this.nb.client;
    const mine = (row: LogicalSwitchPort) => row.external_ids[TENANT_KEY] === this.tenant;
    this.off.push(
      client.on('Logical_Switch_Port', 'insert', (row) => {
        if (mine(row)) this.kick();
      }),
      client.on('Logical_Switch_Port', 'delete', (row) => {
        if (mine(row)) this.kick();
      }),
      client.on('Logical_Switch_Port', 'update', (row, old) => {
        if (mine(row) !== mine(old)) this.kick();
      }),
      client.on('Port_Group', 'insert', (row) => {
        if (row.name === this.portGroup) this.kick();
      }),
      client.on('Port_Group', 'update', (row) => {
        if (row.name === this.portGroup) this.kick();
      }),
      client.on('Port_Group', 'delete', (row) => {
        if (row.name === this.portGroup) this.kick();
      }),
    );
    this.kick();
    await this.idle();
  }

  /** Resolves when no reconciliation is running or due. */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** Stop reacting to events; a running reconciliation finishes. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    for (const off of this.off.splice(0)) off();
    await this.idle();
  }

  private kick(): void {
    if (this.stopped) return;
    this.dirty = true;
    if (this.running !== undefined) return;
    this.running = (async () => {
      while (this.dirty && !this.stopped) {
        this.dirty = false;
        try {
          const r = await this.reconcile();
          if (r !== undefined) this.report(r);
        } catch (err) {
          this.log(`error: ${err instanceof Error ? err.message : String(err)}; retrying in 1 s`);
          clearTimeout(this.retry);
          this.retry = setTimeout(() => this.kick(), 1000);
        }
      }
      this.running = undefined;
    })();
  }

  /** The ports the group should have (by the client index) and has, by UUID. */
  private diff(t: IndexReader) {
    const want = new Set<string>(
      t.byIndex('Logical_Switch_Port', 'tenant', this.tenant).map((p) => p._uuid),
    );
    const group = t.lookup('Port_Group', { name: this.portGroup });
    const have = new Set<string>(group?.ports ?? []);
    const added = [...want].filter((u) => !have.has(u));
    const removed = [...have].filter((u) => !want.has(u));
    return { want, group, added, removed };
  }

  /**
   * One reconciliation: undefined when the group is already right (nothing
   * is sent), else what the transaction changed.
   */
  async reconcile(): Promise<Reconciliation | undefined> {
    this.reconciliations++;
    const client = this.nb.client;
    // The replica answers first: no transaction at all when nothing is to do.
    const now = this.diff(client);
    if (now.group !== undefined && now.added.length === 0 && now.removed.length === 0) {
      return undefined;
    }
    // The transaction reads again through `t`: if it is replayed after a
    // conflict, it sees the state it is replayed on.
    const { value } = await this.nb.transact((t) => {
      const d = this.diff(t);
      const ports = [...d.want] as never[];
      if (d.group === undefined) {
        pgAdd(t, this.portGroup, { ports, externalIds: { [TENANT_KEY]: this.tenant } });
      } else if (d.added.length > 0 || d.removed.length > 0) {
        pgSetPorts(t, d.group._uuid, ports);
      }
      return { created: d.group === undefined, added: d.added, removed: d.removed, want: d.want };
    });
    this.transactions++;
    return {
      created: value.created,
      added: names(this.nb, value.added),
      removed: names(this.nb, value.removed),
      ports: names(this.nb, value.want),
    };
  }

  private report(r: Reconciliation): void {
    const changes = [...r.added.map((n) => `+${n}`), ...r.removed.map((n) => `-${n}`)];
    this.log(
      `${this.portGroup}: ${r.created ? 'created' : 'updated'}` +
        `${changes.length > 0 ? ` ${changes.join(' ')}` : ''} (ports: ${r.ports.join(' ') || 'none'})`,
    );
  }
}

/** Connect, reconcile once, and keep watching (until `stop`). */
export async function startWatcher(options: {
  readonly nb?: string | undefined;
  readonly tenant: string;
  readonly portGroup?: string | undefined;
  readonly log?: ((line: string) => void) | undefined;
}): Promise<PortGroupWatcher> {
  const nb = await connectNb({ remotes: options.nb ?? DEFAULT_NB, model: NB, indexes: INDEXES });
  const watcher = new PortGroupWatcher(nb, options);
  try {
    await watcher.start();
  } catch (e) {
    await nb.close();
    throw e;
  }
  return watcher;
}

const USAGE = `Usage: main.ts --tenant NAME [--nb REMOTE] [--port-group NAME] [--once]

Keeps the port group of a tenant equal to the logical switch ports with
external_ids:${TENANT_KEY}=NAME, until SIGINT or SIGTERM.

  --tenant NAME       the tenant (required)
  --port-group NAME   the port group (default pg_NAME)
  --nb REMOTE         the Northbound database (default $OVN_NB_DB, else
                      unix:/var/run/ovn/ovnnb_db.sock)
  --once              reconcile once and exit`;

/** The command line: resolves to the exit status. */
export async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      nb: { type: 'string' },
      tenant: { type: 'string' },
      'port-group': { type: 'string' },
      once: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || values.tenant === undefined) {
    (values.help ? process.stdout : process.stderr).write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const remote = values.nb ?? DEFAULT_NB;
  const watcher = await startWatcher({
    nb: remote,
    tenant: values.tenant,
    portGroup: values['port-group'],
  });
  const done = () =>
    `stopped: ${watcher.reconciliations} reconciliations, ${watcher.transactions} transactions`;
  if (values.once) {
    await watcher.stop();
    await watcher.nb.close();
    process.stdout.write(`${done()}\n`);
    return 0;
  }
  process.stdout.write(
    `watching ${TENANT_KEY}=${watcher.tenant} for ${watcher.portGroup} on ${remote}\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await watcher.stop();
  await watcher.nb.close();
  process.stdout.write(`${done()}\n`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(
        `port-group-watcher: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      process.exit(1);
    },
  );
}

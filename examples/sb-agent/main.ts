/**
 * A tiny hypervisor agent on the OVN Southbound database: the binding step
 * of `ovn-controller`, on a model generated from the SB schema (`model/`).
 *
 * - It registers its chassis: a `Chassis` row with one `Encap` (the tunnel
 *   endpoint other chassis reach it by), and its `Chassis_Private` row.
 *   Registering again finds them and writes nothing.
 * - It watches `Port_Binding` through two client indexes, on
 *   `requested_chassis` (which `ovn-northd` fills from the NB port's
 *   `options:requested-chassis`) and on `chassis`: a port requested here is
 *   claimed (`chassis` = this chassis, `up` = true, as `ovn-controller` does
 *   once the VIF is plugged), a port claimed here but requested elsewhere is
 *   released. `ovn-northd` then reports the claim back to NB
 *   (`Logical_Switch_Port.up`).
 * - It copies `SB_Global.nb_cfg` to its `Chassis_Private.nb_cfg` once it has
 *   applied everything, so that `ovn-nbctl --wait=hv` (and the DSL's
 *   `wait: 'hv'`) completes.
 *
 * Each pass is one transaction that verifies the rows it read
 * (`tx.verify`), so a change that lands meanwhile replays it on the new state.
 *
 * ```sh
 * node --conditions=ovnkit-source --import tsx examples/sb-agent/main.ts \
 *   --sb unix:/var/run/ovn/ovnsb_db.sock --chassis hv1 --encap-ip 192.0.2.1
 * ```
 * @module
 */

import { hostname } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type DatabaseClient, openDatabase } from 'ovnkit';
import {
  type Chassis,
  type EncapType,
  type PortBinding,
  SB,
  type SBTables,
} from './model/index.js';

/** Where the Southbound database is, unless `--sb` says otherwise. */
export const DEFAULT_SB = process.env['OVN_SB_DB'] ?? 'unix:/var/run/ovn/ovnsb_db.sock';

const INDEXES = {
  Port_Binding: {
    requestedChassis: { column: 'requested_chassis' },
    chassis: { column: 'chassis' },
  },
} as const;

type SbDb = DatabaseClient<SBTables, typeof INDEXES>;

/** Who the agent is. */
export interface ChassisSpec {
  /** `Chassis.name` (what NB's `options:requested-chassis` names). */
  readonly name: string;
  /** `Chassis.hostname` (default: the name). */
  readonly hostname?: string | undefined;
  /** The tunnel endpoint. */
  readonly encapType?: EncapType | undefined;
  readonly encapIp: string;
}

/** Claims and releases one pass made. */
interface Pass {
  readonly claimed: readonly string[];
  readonly released: readonly string[];
  readonly nbCfg: boolean;
}

/** The binding step of a chassis, over an SB database handle. */
export class SbAgent {
  readonly name: string;
  claimed = 0;
  released = 0;
  private readonly spec: {
    readonly name: string;
    readonly hostname: string;
    readonly encapType: EncapType;
    readonly encapIp: string;
  };
  private readonly log: (line: string) => void;
  private readonly off: (() => void)[] = [];
  private running: Promise<void> | undefined;
  private dirty = false;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    readonly db: SbDb,
    spec: ChassisSpec,
    log?: (line: string) => void,
  ) {
    this.spec = {
      name: spec.name,
      hostname: spec.hostname ?? spec.name,
      encapType: spec.encapType ?? 'geneve',
      encapIp: spec.encapIp,
    };
    this.name = spec.name;
    this.log = log ?? ((line) => process.stdout.write(`${line}\n`));
  }

  /** This chassis' row, once registered. */
  get chassis(): Chassis | undefined {
    return this.db.lookup('Chassis', { name: this.name });
  }

  /** Create the Chassis (with its Encap) and Chassis_Private rows, or find them. */
  async register(): Promise<void> {
    const { name, hostname: host, encapType, encapIp } = this.spec;
    const client = this.db;
    const { value } = await this.db.transact((tx) => {
      const ch = client.lookup('Chassis', { name });
      const encaps = (ch?.encaps ?? []).map((u) => client.get('Encap', u));
      const encapOk = encaps.some(
        (e) => e !== undefined && e.type === encapType && e.ip === encapIp,
      );
      let chassis = ch?._uuid;
      let changed = false;
      if (ch === undefined || !encapOk || ch.hostname !== host) {
        const encap = tx.insert('Encap', { type: encapType, ip: encapIp, chassis_name: name });
        if (ch === undefined) {
          chassis = tx.insert('Chassis', { name, hostname: host, encaps: [encap] });
        } else {
          // The old Encap rows are not referenced any more: the server deletes them.
          tx.update('Chassis', ch._uuid, { hostname: host, encaps: [encap] });
        }
        changed = true;
      }
      const priv = client.lookup('Chassis_Private', { name });
      if (priv === undefined) {
        tx.insert('Chassis_Private', { name, chassis: chassis ?? null });
        changed = true;
      } else if (priv.chassis !== chassis) {
        tx.update('Chassis_Private', priv._uuid, { chassis: chassis ?? null });
        changed = true;
      }
      if (ch !== undefined) tx.verify(ch, ['encaps', 'hostname']);
      return changed ? (ch === undefined ? 'registered' : 'updated') : 'unchanged';
    });
    this.log(
      value === 'unchanged'
        ? `chassis ${name} already registered (${encapType} ${encapIp})`
        : `chassis ${name} ${value} (${encapType} ${encapIp})`,
    );
  }

  /** Subscribe to Port_Binding and SB_Global changes, and run a first pass. */
  async start(): Promise<void> {
    const client = this.db;
    const me = () => this.chassis?._uuid;
    const concerns = (pb: PortBinding) =>
      (pb.requested_chassis !== null && pb.requested_chassis === me()) ||
      (pb.chassis !== null && pb.chassis === me());
    this.off.push(
      client.on('Port_Binding', 'insert', (pb) => {
        if (concerns(pb)) this.kick();
      }),
      client.on('Port_Binding', 'update', (pb, old) => {
        if (concerns(pb) || concerns(old)) this.kick();
      }),
      client.on('SB_Global', 'update', (g, old) => {
        if (g.nb_cfg !== old.nb_cfg) this.kick();
      }),
      client.on('SB_Global', 'insert', () => this.kick()),
    );
    this.kick();
    await this.idle();
  }

  /** Resolves when no pass is running or due. */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

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
          const pass = await this.pass();
          for (const p of pass.claimed) this.log(`claimed ${p}`);
          for (const p of pass.released) this.log(`released ${p}`);
          this.claimed += pass.claimed.length;
          this.released += pass.released.length;
        } catch (err) {
          this.log(`error: ${err instanceof Error ? err.message : String(err)}; retrying in 1 s`);
          clearTimeout(this.retry);
          this.retry = setTimeout(() => this.kick(), 1000);
        }
      }
      this.running = undefined;
    })();
  }

  /** What a pass would do, from the replica. */
  private plan(): { claim: PortBinding[]; release: PortBinding[]; nbCfg: boolean } {
    const client = this.db;
    const me = this.chassis?._uuid;
    if (me === undefined) return { claim: [], release: [], nbCfg: false };
    const claim = client
      .byIndex('Port_Binding', 'requestedChassis', me)
      .filter((pb) => pb.chassis !== me || pb.up !== true);
    const release = client
      .byIndex('Port_Binding', 'chassis', me)
      .filter((pb) => pb.requested_chassis !== me);
    const global = [...client.rows('SB_Global')][0];
    const priv = client.lookup('Chassis_Private', { name: this.name });
    const nbCfg = global !== undefined && priv !== undefined && priv.nb_cfg !== global.nb_cfg;
    return { claim, release, nbCfg };
  }

  /** One pass: claims, releases and nb_cfg in one transaction; nothing sent when there is nothing to do. */
  private async pass(): Promise<Pass> {
    const client = this.db;
    const first = this.plan();
    if (first.claim.length + first.release.length === 0 && !first.nbCfg) {
      return { claimed: [], released: [], nbCfg: false };
    }
    const { value } = await this.db.transact((tx) => {
      // Read again: a replay (after a failed verify) runs on the new replica.
      const { claim, release } = this.plan();
      const me = this.chassis!._uuid;
      for (const pb of claim) {
        tx.verify(pb, ['requested_chassis', 'chassis']);
        tx.update('Port_Binding', pb._uuid, { chassis: me, up: true });
      }
      for (const pb of release) {
        tx.verify(pb, ['requested_chassis', 'chassis']);
        tx.update('Port_Binding', pb._uuid, { chassis: null, up: false });
      }
      // Everything this chassis saw is applied once this commits: report nb_cfg.
      const global = [...client.rows('SB_Global')][0];
      const priv = client.lookup('Chassis_Private', { name: this.name });
      const nbCfg = global !== undefined && priv !== undefined && priv.nb_cfg !== global.nb_cfg;
      if (nbCfg) {
        tx.update('Chassis_Private', priv!._uuid, {
          nb_cfg: global!.nb_cfg,
          nb_cfg_timestamp: Date.now(),
        });
      }
      return {
        claimed: claim.map((pb) => pb.logical_port).sort(),
        released: release.map((pb) => pb.logical_port).sort(),
        nbCfg,
      };
    });
    return value;
  }
}

/** Open SB, register the chassis, and start the agent. */
export async function startAgent(options: {
  readonly sb?: string | undefined;
  readonly chassis: ChassisSpec;
  readonly log?: ((line: string) => void) | undefined;
}): Promise<SbAgent> {
  const db = await openDatabase({
    remotes: options.sb ?? DEFAULT_SB,
    model: SB,
    indexes: INDEXES,
  });
  const agent = new SbAgent(db, options.chassis, options.log);
  try {
    await agent.register();
    await agent.start();
  } catch (e) {
    await db.close();
    throw e;
  }
  return agent;
}

const USAGE = `Usage: main.ts [--sb REMOTE] [--chassis NAME] [--encap-ip IP] [--encap-type TYPE] [--once]

Registers a chassis in the Southbound database and claims the port bindings
requested for it (options:requested-chassis in NB), until SIGINT or SIGTERM.

  --sb REMOTE        the Southbound database (default $OVN_SB_DB, else
                     unix:/var/run/ovn/ovnsb_db.sock)
  --chassis NAME     the chassis name (default: the host name)
  --encap-ip IP      the tunnel endpoint (default 127.0.0.1)
  --encap-type TYPE  geneve (default), vxlan or stt
  --once             register, make one pass, and exit`;

/** The command line: resolves to the exit status. */
export async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      sb: { type: 'string' },
      chassis: { type: 'string' },
      'encap-ip': { type: 'string' },
      'encap-type': { type: 'string' },
      once: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const encapType = values['encap-type'] ?? 'geneve';
  if (encapType !== 'geneve' && encapType !== 'vxlan' && encapType !== 'stt') {
    process.stderr.write(`sb-agent: --encap-type must be geneve, vxlan or stt\n${USAGE}\n`);
    return 2;
  }
  const remote = values.sb ?? DEFAULT_SB;
  const agent = await startAgent({
    sb: remote,
    chassis: {
      name: values.chassis ?? hostname(),
      hostname: hostname(),
      encapType,
      encapIp: values['encap-ip'] ?? '127.0.0.1',
    },
  });
  if (!values.once) {
    process.stdout.write(`watching Port_Binding for chassis ${agent.name} on ${remote}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
  }
  await agent.stop();
  await agent.db.close();
  process.stdout.write(`stopped: ${agent.claimed} claimed, ${agent.released} released\n`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`sb-agent: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

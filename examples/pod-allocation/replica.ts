/**
 * One replica of the pod controller, as a process: the `PodController` and
 * its `PoolReconciler` over a pods file and a nodes file, run active/standby
 * on an OVSDB lock ({@link ActiveStandby}). Start two or three on the same NB
 * and the same files: one is active, the others keep their replica of NB in
 * sync and take over when it goes.
 *
 * ```sh
 * node --conditions=ovnkit-source --import tsx examples/pod-allocation/replica.ts \
 *   --nb unix:/var/run/ovn/ovnnb_db.sock --pods pods.json --nodes nodes.json
 * ```
 *
 * Options: `--nb REMOTE[,REMOTE…]` (default `OVN_NB_DB`), `--pods FILE`,
 * `--nodes FILE` (default the demo's `pods.json` and `nodes.json`), `--lock
 * NAME` (default `ovnkit_pod_allocation`), `--status FILE` (the active
 * replica writes its pods' and pools' status there, as JSON, every 200 ms),
 * `--gc-interval MS` (default 60,000). Logs are JSON lines on stdout; a
 * `role` line marks every change of role (`standby`, `active`).
 * SIGTERM and SIGINT stop the replica and release the lock (a standby
 * takes over at once).
 * @module
 */

import { renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connectDatabase } from 'ovnkit/client';
import { createNb, NB } from 'ovnkit/nb';
import { ActiveStandby } from './controller/active-standby.js';
import {
  type ClusterTopology,
  FilePodSource,
  jsonLogSink,
  type LogSink,
  PodController,
} from './controller/index.js';
import { DEMO_TOPOLOGY } from './demo.js';
import { FileNodeSource, POOL_INDEXES, PoolReconciler } from './pools/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The lock the replicas of the example controller compete for. */
export const DEFAULT_LOCK = 'ovnkit_pod_allocation';

/** Options of {@link runReplica}. */
export interface ReplicaOptions {
  /** NB remotes. */
  readonly remotes: string | readonly string[];
  readonly podsFile: string;
  readonly nodesFile: string;
  /** Default {@link DEFAULT_LOCK}. */
  readonly lock?: string | undefined;
  readonly topology?: ClusterTopology | undefined;
  /** Where the active replica writes its status (default: nowhere). */
  readonly statusFile?: string | undefined;
  /** Interval of the controller's GC passes (default 60,000 ms). */
  readonly gcIntervalMs?: number | undefined;
  readonly log?: LogSink | undefined;
}

/** A running replica. */
export interface Replica {
  readonly role: ActiveStandby;
  /** Stop: release the lock, close the client and the sources. */
  close(): Promise<void>;
}

/** Start one replica (see the module documentation). */
export async function runReplica(options: ReplicaOptions): Promise<Replica> {
  const lock = options.lock ?? DEFAULT_LOCK;
  const log = options.log;
  const client = connectDatabase({
    remotes: options.remotes,
    model: NB,
    indexes: POOL_INDEXES,
    // Every write asserts the lock: a replica that lost it cannot commit.
    fence: lock,
  });
  await client.ready;
  const onError = (e: Error) =>
    log?.({ time: new Date().toISOString(), level: 'error', msg: e.message });
  const pods = new FilePodSource(options.podsFile, { onError });
  const nodes = new FileNodeSource(options.nodesFile, { onError });
  let status: ReturnType<typeof setInterval> | undefined;
  const role = new ActiveStandby({
    client,
    lock,
    log,
    activate: async () => {
      // Fresh controllers at each takeover: their IPAM is rebuilt from NB.
      const nb = createNb(client);
      const pools = new PoolReconciler({ nb, nodes, log });
      const controller = new PodController({
        nb,
        source: pods,
        topology: options.topology ?? DEMO_TOPOLOGY,
        pools,
        gcIntervalMs: options.gcIntervalMs,
        log,
      });
      const stop = async () => {
        if (status !== undefined) clearInterval(status);
        status = undefined;
        await pools.stop();
        await controller.stop();
      };
      try {
        await controller.start();
        await pools.start();
      } catch (e) {
        // Nothing of a half-started replica may keep running (e.g. the lock was lost meanwhile).
        await stop();
        throw e;
      }
      const file = options.statusFile;
      if (file !== undefined) status = setInterval(() => writeStatus(file, controller, pools), 200);
      return { stop };
    },
  });
  role.start();
  return {
    role,
    close: async () => {
      await role.stop();
      pods.close();
      nodes.close();
      await client.close();
    },
  };
}

/** What the active replica writes to `--status`. */
export interface ReplicaStatus {
  readonly pid: number;
  /** Pods and pool nodes queued or being processed. */
  readonly queued: number;
  readonly pods: Readonly<Record<string, { readonly state: string; readonly reason?: string }>>;
  readonly pools: readonly {
    readonly node: string;
    readonly idle: number;
    readonly inUse: number;
    readonly minIdle: number;
    readonly maxIdle: number;
    readonly failure?: string | undefined;
  }[];
}

function writeStatus(file: string, controller: PodController, pools: PoolReconciler): void {
  const pods: Record<string, { state: string; reason?: string }> = {};
  for (const [key, s] of controller.status) {
    pods[key] =
      s.failure === undefined ? { state: s.state } : { state: s.state, reason: s.failure.reason };
  }
  const out: ReplicaStatus = {
    pid: process.pid,
    queued: controller.queue.size + pools.queue.size,
    pods,
    pools: [...pools.status.values()].map((s) => ({
      node: s.node,
      idle: s.idle,
      inUse: s.inUse,
      minIdle: s.minIdle,
      maxIdle: s.maxIdle,
      ...(s.failure !== undefined ? { failure: s.failure.reason } : {}),
    })),
  };
  // Written whole, then renamed: a reader never sees half a file.
  writeFileSync(`${file}.tmp`, JSON.stringify(out));
  renameSync(`${file}.tmp`, file);
}

function argument(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const value = argv[i + 1];
  if (value === undefined || value.startsWith('--')) throw new TypeError(`${name} needs a value`);
  return value;
}

async function main(argv: readonly string[]): Promise<void> {
  const remotes = argument(argv, '--nb') ?? process.env['OVN_NB_DB'];
  if (remotes === undefined) throw new TypeError('--nb REMOTE (or OVN_NB_DB) is needed');
  const gc = argument(argv, '--gc-interval');
  const replica = await runReplica({
    remotes,
    podsFile: argument(argv, '--pods') ?? join(HERE, 'pods.json'),
    nodesFile: argument(argv, '--nodes') ?? join(HERE, 'nodes.json'),
    lock: argument(argv, '--lock'),
    statusFile: argument(argv, '--status'),
    gcIntervalMs: gc === undefined ? undefined : Number(gc),
    log: jsonLogSink((line) => process.stdout.write(line)),
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await replica.close();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}

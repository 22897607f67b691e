/**
 * The pod controller as a long-running process: pods and nodes from watched
 * files (`FilePodSource`, `FileNodeSource`), NB from a remote, the cluster
 * of the demo (`cluster.ts`), warm pools when a nodes file is given.
 *
 * ```sh
 * node --import tsx examples/pod-allocation/main.ts --nb unix:/var/run/ovn/ovnnb_db.sock \
 *   --pods pods.yaml [--nodes nodes.yaml] [--poll-ms 250] [--lock NAME] [--status FILE] \
 *   [--probes HOST:PORT]
 * ```
 * (inside the ovnkit repository, add `--conditions=ovnkit-source`).
 *
 * Run it as several replicas over one NB and the same files: they run
 * active/standby on the OVSDB lock `--lock` (default
 * `ovnkit_pod_allocation`, see {@link ActiveStandby}). Only the holder runs
 * the controllers; a standby keeps its replica of NB in sync, sends no
 * write, and takes over when the lock comes to it.
 *
 * It logs JSON lines on stderr (reconciles, failures, the files it could
 * not read or accept, and a `role` line at each change of role: `standby`,
 * `active`), prints `ready` on stdout each time it has become active and
 * both controllers have started (their sources synced and a first GC pass
 * run), and stops on SIGTERM or SIGINT, releasing the lock (a standby takes
 * over at once). With `--status FILE` the active replica writes its pods'
 * and pools' status there as JSON every 200 ms. With `--probes HOST:PORT` it
 * serves Kubernetes probes from the database client's health (`probes.ts`:
 * `/healthz`, and `/readyz`, which fails while the client is not in sync),
 * and prints `probes <url>` on stdout. Replace the files
 * atomically (write another file, then rename it over): see README.md,
 * "Node and pod files".
 * @module
 */

import { renameSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { openDatabase } from 'ovnkit/client';
import { createNb, NB } from 'ovnkit/nb';
import { DEMO_TOPOLOGY } from './cluster.js';
import { ActiveStandby, FilePodSource, jsonLogSink, PodController } from './controller/index.js';
import { FileNodeSource, POOL_INDEXES, PoolReconciler } from './pools/index.js';
import { serveProbes } from './probes.js';

/** The lock the replicas of the controller compete for, by default. */
export const DEFAULT_LOCK = 'ovnkit_pod_allocation';

/** Run the controller until SIGTERM or SIGINT. */
export async function main(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      nb: { type: 'string' },
      pods: { type: 'string' },
      nodes: { type: 'string' },
      'poll-ms': { type: 'string', default: '250' },
      lock: { type: 'string', default: DEFAULT_LOCK },
      status: { type: 'string' },
      probes: { type: 'string' },
    },
    strict: true,
  });
  if (values.nb === undefined || values.pods === undefined) {
    throw new TypeError(
      'usage: main.ts --nb REMOTE --pods FILE [--nodes FILE] [--poll-ms MS] [--lock NAME] [--status FILE] [--probes HOST:PORT]',
    );
  }
  const intervalMs = Number(values['poll-ms']);
  if (!Number.isInteger(intervalMs) || intervalMs < 1) {
    throw new TypeError(`--poll-ms: expected a positive number of ms, got ${values['poll-ms']}`);
  }
  const log = jsonLogSink();
  const onError = (e: Error) =>
    log({ time: new Date().toISOString(), level: 'error', msg: 'source', error: e.message });
  // Every write asserts the lock: a replica that lost it cannot commit.
  const client = await openDatabase({
    remotes: values.nb,
    model: NB,
    indexes: POOL_INDEXES,
    fence: values.lock,
  });
  const pods = new FilePodSource(values.pods, { intervalMs, onError });
  const nodes =
    values.nodes === undefined
      ? undefined
      : new FileNodeSource(values.nodes, { intervalMs, onError });
  const statusFile = values.status;
  const replica = new ActiveStandby({
    client,
    lock: values.lock,
    log,
    activate: async () => {
      // New controllers at each takeover: their IPAM is rebuilt from NB.
      const nb = createNb(client);
      const pools = nodes === undefined ? undefined : new PoolReconciler({ nb, nodes, log });
      const controller = new PodController({
        nb,
        source: pods,
        topology: DEMO_TOPOLOGY,
        pools,
        log,
      });
      let timer: ReturnType<typeof setInterval> | undefined;
      const stop = async () => {
        if (timer !== undefined) clearInterval(timer);
        await pools?.stop();
        await controller.stop();
      };
      try {
        await controller.start();
        await pools?.start();
      } catch (e) {
        // Nothing of a half-started replica may keep running (e.g. the lock was lost meanwhile).
        await stop();
        throw e;
      }
      if (statusFile !== undefined) {
        timer = setInterval(() => writeStatus(statusFile, controller, pools), 200);
      }
      process.stdout.write('ready\n');
      return { stop };
    },
  });
  // Served from the start: not ready until the first sync.
  const probes = values.probes === undefined ? undefined : await serveProbes(client, values.probes);
  if (probes !== undefined) process.stdout.write(`probes ${probes.url}\n`);
  try {
    replica.start();
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
  } finally {
    await replica.stop();
    pods.close();
    nodes?.close();
    await client.close();
    await probes?.close();
  }
}

/** What the active replica writes to `--status`. */
export interface ControllerStatus {
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
    readonly failure?: string;
  }[];
}

function writeStatus(
  file: string,
  controller: PodController,
  pools: PoolReconciler | undefined,
): void {
  const pods: Record<string, { state: string; reason?: string }> = {};
  for (const [key, s] of controller.status) {
    pods[key] =
      s.failure === undefined ? { state: s.state } : { state: s.state, reason: s.failure.reason };
  }
  const out: ControllerStatus = {
    pid: process.pid,
    queued: controller.queue.size + (pools?.queue.size ?? 0),
    pods,
    pools: [...(pools?.status.values() ?? [])].map((s) => ({
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

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}

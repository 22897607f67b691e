/**
 * Pod controller throughput: N pods added through the controller's queue
 * on a fresh cluster router and subnets, timed until every pod is
 * reconciled.
 *
 * ```sh
 * node --conditions=ovnkit-source --import tsx examples/pod-allocation/bench.ts --pods 5000          # a real ovsdb-server (NB 7.18.0)
 * node --conditions=ovnkit-source --import tsx examples/pod-allocation/bench.ts --pods 5000 --remote tcp:127.0.0.1:6641
 * ```
 * `benchPodController` is what the benchmark harness calls.
 * @module
 */

import { pathToFileURL } from 'node:url';
import { connectDatabase } from 'ovnkit/client';
import { createNb, NB } from 'ovnkit/nb';
import { startOvsdbServer } from 'ovnkit/testing';
import { PodController, ProgrammaticPodSource } from './controller/index.js';

/** Options of {@link benchPodController}. */
export interface BenchPodControllerOptions {
  /** The NB remote (a fresh database is best: the bench adds its router and subnets). */
  readonly remote: string;
  /** How many pods. */
  readonly pods: number;
  /** Pods reconciled at once (default 16). */
  readonly concurrency?: number | undefined;
}

/** The result of {@link benchPodController}. */
export interface BenchPodControllerResult {
  readonly pods: number;
  readonly seconds: number;
  readonly podsPerSecond: number;
}

/**
 * Add `pods` pods (spread over 4 namespaces, 8 nodes and two subnets, one of
 * them dual-stack) and time until all are reconciled.
 * @throws Error when a pod fails.
 */
export async function benchPodController(
  options: BenchPodControllerOptions,
): Promise<BenchPodControllerResult> {
  const run = `b${Date.now().toString(36)}`;
  const client = connectDatabase({ remotes: options.remote, model: NB });
  const source = new ProgrammaticPodSource();
  let controller: PodController | undefined;
  try {
    await client.ready;
    const nb = createNb(client);
    controller = new PodController({
      nb,
      source,
      concurrency: options.concurrency ?? 16,
      gcIntervalMs: 0,
      topology: {
        router: `${run}-router`,
        subnets: [
          { name: `${run}-v4`, cidr: '10.64.0.0/16' },
          { name: `${run}-dual`, cidr: '10.65.0.0/16,fd00:65::/64' },
        ],
      },
    });
    await controller.start();
    const t0 = performance.now();
    for (let i = 0; i < options.pods; i++) {
      source.add({
        namespace: `ns${i % 4}`,
        name: `pod-${i}`,
        node: `node-${i % 8}`,
        annotations: i % 2 === 1 ? { 'ovn.kubernetes.io/logical_switch': `${run}-dual` } : {},
      });
    }
    await controller.idle();
    const seconds = (performance.now() - t0) / 1000;
    const failed = [...controller.status.values()].filter((s) => s.state !== 'ready');
    if (failed.length > 0) {
      throw new Error(
        `${failed.length} pods not ready, e.g. ${failed[0]!.key}: ${failed[0]!.failure?.message}`,
      );
    }
    return { pods: options.pods, seconds, podsPerSecond: options.pods / seconds };
  } finally {
    await controller?.stop();
    await client.close();
  }
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

async function main(): Promise<void> {
  const pods = Number(arg('--pods') ?? 5000);
  const concurrency = Number(arg('--concurrency') ?? 16);
  let remote = arg('--remote');
  const server = remote === undefined ? await startOvsdbServer({ schema: NB.schema }) : undefined;
  remote ??= server!.unixRemote;
  try {
    const r = await benchPodController({ remote, pods, concurrency });
    console.log(
      `${r.pods} pods in ${r.seconds.toFixed(2)} s: ${r.podsPerSecond.toFixed(0)} pods/s ` +
        `(concurrency ${concurrency}, ${server !== undefined ? 'ovsdb-server' : remote})`,
    );
  } finally {
    await server?.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}

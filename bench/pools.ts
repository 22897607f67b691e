/**
 * Pod start latency from a warm pool against allocation on demand, paired
 * per repetition in one run.
 *
 * One pod controller with a pool reconciler on a fresh NB (a real
 * `ovsdb-server` by default): node `warm` keeps a pool (`minIdle` = pods
 * per repetition), node `cold` has none. Each repetition starts `--pods`
 * pods on each node, one at a time and alternating (warm, cold, cold, warm,
 * …), and times each from `source.add(pod)` to the controller writing the
 * pod's result annotations (its port committed in NB). A warm start claims
 * an idle entry (an update of a pre-created port behind a verify, while the
 * pool refills in the background); a cold one allocates and inserts the
 * port. Every warm pod is checked to come from the pool and every cold one
 * not. Between repetitions the pods are deleted (warm ones' ports go back
 * to the pool) and both queues settle.
 *
 * `--existing N` first starts N more pods on the same subnet (a third node,
 * no pool), so that the subnet's switch already has N ports.
 *
 * Reported per repetition: the median latency of each kind and their ratio
 * (warm / cold); then the ratio's median and min–max over the repetitions.
 *
 * Run: `npm run bench:pools -- [--reps 10] [--pods 20] [--existing 0] [--memory | --remote R]`.
 * @module
 */

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ExponentialFailureRateLimiter,
  PodController,
  type PodKey,
  ProgrammaticPodSource,
  podKey,
} from '../examples/pod-allocation/controller/index.js';
import { PoolReconciler, ProgrammaticNodeSource } from '../examples/pod-allocation/pools/index.js';
import { connectDatabase } from '../src/client/index.js';
import { createNb, NB } from '../src/nb/index.js';
import { startMemoryServer, startOvsdbServer } from '../src/testing/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const NB_SCHEMA = join(HERE, '..', 'schema', 'ovn-nb-7.18.0.ovsschema');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** A pod source that resolves a waiter when the controller annotates a pod. */
class TimedPodSource extends ProgrammaticPodSource {
  private readonly waiters = new Map<PodKey, () => void>();

  override annotate(key: PodKey, annotations: Readonly<Record<string, string>>): void {
    super.annotate(key, annotations);
    this.waiters.get(key)?.();
    this.waiters.delete(key);
  }

  ready(key: PodKey): Promise<void> {
    return new Promise((resolve) => this.waiters.set(key, resolve));
  }
}

async function main(): Promise<void> {
  const reps = Number(arg('--reps') ?? 10);
  const perRep = Number(arg('--pods') ?? 20);
  const existing = Number(arg('--existing') ?? 0);
  const remoteArg = arg('--remote');
  const memory = process.argv.includes('--memory');
  const server =
    remoteArg !== undefined
      ? undefined
      : memory
        ? await startMemoryServer({ schemaPath: NB_SCHEMA })
        : await startOvsdbServer({ schemaPath: NB_SCHEMA });
  const remote = remoteArg ?? server!.unixRemote;
  const run = `bp${Date.now().toString(36)}`;
  const client = connectDatabase({ remotes: remote, model: NB });
  await client.ready;
  const nb = createNb(client);
  const source = new TimedPodSource();
  const subnet = `${run}-pods`;
  const nodes = new ProgrammaticNodeSource([
    { name: 'warm', subnet, minIdle: perRep, maxIdle: 4 * perRep, batchSize: 10 },
  ]);
  const limiter = () => new ExponentialFailureRateLimiter(1, 100);
  const pools = new PoolReconciler({ nb, nodes, resyncIntervalMs: 0, rateLimiter: limiter() });
  const controller = new PodController({
    nb,
    source,
    pools,
    gcIntervalMs: 0,
    rateLimiter: limiter(),
    topology: { router: `${run}-router`, subnets: [{ name: subnet, cidr: '10.90.0.0/16' }] },
  });
  const settle = async () => {
    do {
      await controller.idle();
      await pools.idle();
    } while (controller.queue.size > 0 || pools.queue.size > 0);
  };
  const rows: { warm: number; cold: number; ratio: number }[] = [];
  try {
    await controller.start();
    await pools.start();
    await settle();
    for (let i = 0; i < existing; i++) source.add({ namespace: 'bg', name: `bg-${i}`, node: 'bg' });
    await settle();
    // One warm-up round of each kind (JIT, port groups of both nodes).
    for (const node of ['warm', 'cold']) {
      const pod = { namespace: 'bench', name: `warmup-${node}`, node };
      const ready = source.ready(podKey(pod));
      source.add(pod);
      await ready;
      source.delete(pod);
    }
    await settle();
    for (let r = 0; r < reps; r++) {
      const lat = { warm: [] as number[], cold: [] as number[] };
      const keys: PodKey[] = [];
      for (let i = 0; i < perRep; i++) {
        const order = i % 2 === 0 ? (['warm', 'cold'] as const) : (['cold', 'warm'] as const);
        for (const node of order) {
          const pod = { namespace: 'bench', name: `r${r}-${node}-${i}`, node };
          const key = podKey(pod);
          const before = controller.stats.poolStarts;
          const ready = source.ready(key);
          const t0 = performance.now();
          source.add(pod);
          await ready;
          lat[node].push(performance.now() - t0);
          const fromPool = controller.stats.poolStarts > before;
          if (fromPool !== (node === 'warm')) {
            throw new Error(`${key}: expected a ${node} start, got ${fromPool ? 'warm' : 'cold'}`);
          }
          keys.push(key);
        }
      }
      const warm = median(lat.warm);
      const cold = median(lat.cold);
      rows.push({ warm, cold, ratio: warm / cold });
      for (const k of keys) source.delete(k);
      await settle();
    }
  } finally {
    await pools.stop();
    await controller.stop();
    await client.close();
    await server?.stop();
  }
  const f = (x: number) => x.toFixed(2);
  console.log(
    `pod start latency, ${perRep} warm + ${perRep} cold pods per repetition, one at a time, ` +
      `${existing} other ports on the switch ` +
      `(${remoteArg ?? (memory ? 'in-memory server' : 'ovsdb-server')})`,
  );
  console.log('rep  warm median ms  cold median ms  warm/cold');
  rows.forEach((row, i) => {
    console.log(
      `${String(i + 1).padStart(3)}  ${f(row.warm).padStart(14)}  ${f(row.cold).padStart(14)}  ${f(row.ratio).padStart(9)}`,
    );
  });
  const ratios = rows.map((row) => row.ratio);
  console.log(
    `warm/cold ratio: median ${f(median(ratios))}, min–max ${f(Math.min(...ratios))}–${f(Math.max(...ratios))} ` +
      `(warm median ${f(median(rows.map((x) => x.warm)))} ms, cold median ${f(median(rows.map((x) => x.cold)))} ms)`,
  );
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);

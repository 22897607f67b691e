/**
 * `npm run demo`: the pod controller end to end, with no Open vSwitch needed.
 *
 * Starts ovnkit's in-memory OVSDB server (or uses `OVN_NB_DB=tcp:…` /
 * `unix:…` when set), builds a cluster router and two subnets (one
 * dual-stack), feeds the pods of `pods.json` (static IPs, pools, a
 * StatefulSet, EIPs, SNAT, a north gateway, and some bad annotations),
 * deletes a few pods and runs GC, then prints the topology (`show`), a table
 * of the pods and a summary.
 *
 * The nodes of `nodes.json` keep warm address pools (a `PoolReconciler`):
 * pods that ask for any address start from their node's pool; the demo
 * prints each pool (idle, in use, bounds, failure) and how many pod starts
 * the pools served. `--metrics HOST:PORT` serves the controllers' metrics
 * (prom-client) and the database client's (`prometheusMetrics`) at
 * `/metrics`, and keeps serving after the demo until interrupted.
 * @module
 */

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type ClientMetrics, connectDatabase } from 'ovnkit/client';
import { createNb, NB } from 'ovnkit/nb';
import { startMemoryServer } from 'ovnkit/testing';
import { DEMO_TOPOLOGY } from './cluster.js';
import {
  type ControllerMetrics,
  type FailureReason,
  PodController,
  ProgrammaticPodSource,
  parsePodsFile,
  podKey,
} from './controller/index.js';
import {
  controllerMetrics,
  type MetricsServer,
  type NodePoolStatus,
  POOL_INDEXES,
  PoolReconciler,
  ProgrammaticNodeSource,
  parseNodesFile,
  serveMetrics,
} from './pools/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The pods the demo deletes after the first round. */
export const DEMO_DELETED = [
  'default/web-a0x',
  'shop/web-b1x',
  'dual/app-0k',
  'shop/front-0w',
  'default/egress-0w',
];

/** What the demo reports. */
export interface DemoSummary {
  readonly pods: number;
  readonly ready: number;
  readonly failed: number;
  readonly deleted: number;
  readonly failuresByReason: Readonly<Partial<Record<FailureReason, number>>>;
  readonly nb: {
    readonly podPorts: number;
    readonly nat: number;
    readonly policies: number;
    readonly portGroups: number;
    readonly dhcpOptions: number;
  };
  /** Each node's pool, as last reported. */
  readonly pools: readonly NodePoolStatus[];
  /** Pod starts served from a warm pool. */
  readonly poolStarts: number;
  readonly ms: {
    readonly start: number;
    readonly pods: number;
    readonly deleteAndGc: number;
    readonly total: number;
  };
}

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** An NB remote; default `OVN_NB_DB`, else an in-memory server is started. */
  readonly remote?: string | undefined;
  /** The pods file (default `pods.json` next to this file). */
  readonly podsFile?: string | undefined;
  /** The nodes file (default `nodes.json` next to this file). */
  readonly nodesFile?: string | undefined;
  /** Metrics hooks for both controllers (`--metrics`). */
  readonly metrics?: ControllerMetrics | undefined;
  /** Metrics hooks for the database client (`--metrics`: `prometheusMetrics`). */
  readonly clientMetrics?: ClientMetrics | undefined;
  /** Where the report goes (default stdout). */
  readonly print?: ((text: string) => void) | undefined;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Run the demo; resolves with its summary. */
export async function runDemo(options: DemoOptions = {}): Promise<DemoSummary> {
  const print = options.print ?? ((s: string) => process.stdout.write(`${s}\n`));
  const t0 = performance.now();
  const remote = options.remote ?? process.env['OVN_NB_DB'];
  const server = remote === undefined ? await startMemoryServer({ schema: NB.schema }) : undefined;
  const client = connectDatabase({
    remotes: remote ?? server!.unixRemote,
    model: NB,
    // A node's pool reconcile reads that node's ports through it (no scan of NB's ports).
    indexes: POOL_INDEXES,
    ...(options.clientMetrics !== undefined ? { metrics: options.clientMetrics } : {}),
  });
  const source = new ProgrammaticPodSource();
  const nodes = new ProgrammaticNodeSource();
  let controller: PodController | undefined;
  let pools: PoolReconciler | undefined;
  try {
    await client.ready;
    const nb = createNb(client);
    const podsFile = options.podsFile ?? join(HERE, 'pods.json');
    const pods = parsePodsFile(podsFile, readFileSync(podsFile, 'utf8'));
    const nodesFile = options.nodesFile ?? join(HERE, 'nodes.json');
    for (const n of parseNodesFile(nodesFile, readFileSync(nodesFile, 'utf8'))) nodes.add(n);
    pools = new PoolReconciler({
      nb,
      nodes,
      maxRetries: 1,
      resyncIntervalMs: 0,
      metrics: options.metrics,
    });
    controller = new PodController({
      nb,
      source,
      topology: DEMO_TOPOLOGY,
      concurrency: 8,
      maxRetries: 2,
      gcIntervalMs: 0,
      pools,
      metrics: options.metrics,
    });
    const c = controller;
    const p = pools;
    const settle = async () => {
      do {
        await c.idle();
        await p.idle();
      } while (c.queue.size > 0 || p.queue.size > 0);
    };
    await controller.start();
    await pools.start();
    await settle();
    const tStarted = performance.now();
    for (const pod of pods) source.add(pod);
    await settle();
    const tPods = performance.now();
    for (const key of DEMO_DELETED) source.delete(key);
    await settle();
    await controller.gc();
    await settle();
    const tEnd = performance.now();

    print(`# ovn-nbctl show\n${nb.show()}`);
    const rows: string[][] = [['POD', 'SWITCH', 'IP', 'MAC', 'STATUS']];
    const failuresByReason: Partial<Record<FailureReason, number>> = {};
    let ready = 0;
    let failed = 0;
    let deleted = 0;
    for (const p of pods) {
      const key = podKey(p);
      const s = controller.status.get(key);
      const a = s?.annotations ?? {};
      let status: string = s?.state ?? 'unknown';
      if (s?.state === 'ready') ready++;
      else if (s?.state === 'deleted') deleted++;
      else if (s?.state === 'failed' && s.failure !== undefined) {
        failed++;
        failuresByReason[s.failure.reason] = (failuresByReason[s.failure.reason] ?? 0) + 1;
        status = `failed: ${s.failure.reason}`;
      }
      rows.push([
        key,
        a['ovn.kubernetes.io/logical_switch'] ?? '-',
        a['ovn.kubernetes.io/ip_address'] ?? '-',
        a['ovn.kubernetes.io/mac_address'] ?? '-',
        status,
      ]);
    }
    print(`\n# pods\n${table(rows)}`);
    print('\n# failures');
    for (const key of pods.map(podKey)) {
      const f = controller.status.get(key)?.failure;
      if (controller.status.get(key)?.state === 'failed' && f !== undefined)
        print(`${key}: ${f.reason}: ${f.message}`);
    }
    const poolRows: string[][] = [
      ['NODE', 'SUBNET', 'IDLE', 'IN USE', 'MIN', 'MAX', 'BATCH', 'TTL', 'STATUS'],
    ];
    const poolStatus = [...nodes.statuses.values()].sort((a, b) => (a.node < b.node ? -1 : 1));
    for (const st of poolStatus) {
      poolRows.push([
        st.node,
        st.subnet ?? '-',
        String(st.idle),
        String(st.inUse),
        String(st.minIdle),
        String(st.maxIdle),
        String(st.batchSize),
        `${Math.round(st.idleTtlMs / 1000)}s`,
        st.failure === undefined ? 'ready' : `failed: ${st.failure.reason}: ${st.failure.message}`,
      ]);
    }
    print(`\n# pools\n${table(poolRows)}`);
    const isOurs = (ids: Readonly<Record<string, string>>) =>
      ids['vendor'] === 'ovnkit' && ids['pod'] !== undefined;
    const count = <T>(rows: Iterable<T>, f: (r: T) => boolean) => [...rows].filter(f).length;
    const summary: DemoSummary = {
      pods: pods.length,
      ready,
      failed,
      deleted,
      failuresByReason,
      nb: {
        podPorts: count(client.rows('Logical_Switch_Port'), (r) => isOurs(r.external_ids)),
        nat: count(client.rows('NAT'), (r) => isOurs(r.external_ids)),
        policies: count(client.rows('Logical_Router_Policy'), (r) => isOurs(r.external_ids)),
        portGroups: count(client.rows('Port_Group'), (r) => r.external_ids['vendor'] === 'ovnkit'),
        dhcpOptions: count(
          client.rows('DHCP_Options'),
          (r) => r.external_ids['vendor'] === 'ovnkit',
        ),
      },
      pools: poolStatus,
      poolStarts: controller.stats.poolStarts,
      ms: {
        start: Math.round(tStarted - t0),
        pods: Math.round(tPods - tStarted),
        deleteAndGc: Math.round(tEnd - tPods),
        total: Math.round(tEnd - t0),
      },
    };
    const reasons = Object.entries(failuresByReason)
      .map(([r, n]) => `${r}=${n}`)
      .join(', ');
    print(
      [
        '\n# summary',
        `pods: ${summary.pods} (ready ${ready}, failed ${failed}, deleted ${deleted})`,
        `failures: ${reasons || 'none'}`,
        `NB: ${summary.nb.podPorts} pod ports, ${summary.nb.nat} NAT rules, ${summary.nb.policies} policies, ` +
          `${summary.nb.portGroups} port groups, ${summary.nb.dhcpOptions} DHCP options rows`,
        `pools: ${poolStatus.filter((st) => st.failure === undefined).length} ready, ` +
          `${poolStatus.filter((st) => st.failure !== undefined).length} failed; ` +
          `${summary.poolStarts} pod starts from a warm pool, ${pools.stats.returned} ports returned to one; ` +
          `NB: ${count(client.rows('Logical_Switch_Port'), (r) => r.external_ids['pool'] !== undefined)} idle entries`,
        `controller: ${controller.stats.reconciled} reconciles, ${controller.stats.deleted} deletes, ` +
          `${controller.stats.failures} failed attempts, ${controller.stats.transactions} transactions, ` +
          `${controller.stats.gcPasses} GC passes`,
        `time: start ${summary.ms.start} ms, pods ${summary.ms.pods} ms ` +
          `(${(controller.stats.reconcileMs / Math.max(1, controller.stats.reconciled)).toFixed(1)} ms per reconcile), ` +
          `delete+GC ${summary.ms.deleteAndGc} ms, total ${summary.ms.total} ms` +
          (server !== undefined ? ' (in-memory server)' : ` (${remote})`),
      ].join('\n'),
    );
    return summary;
  } finally {
    await pools?.stop();
    await controller?.stop();
    await client.close();
    await server?.stop();
  }
}

/** `npm run demo [-- --metrics HOST:PORT]`. */
async function main(argv: readonly string[]): Promise<void> {
  const i = argv.indexOf('--metrics');
  if (i < 0) {
    await runDemo();
    return;
  }
  const address = argv[i + 1];
  if (address === undefined) throw new TypeError('--metrics needs HOST:PORT, e.g. 127.0.0.1:9464');
  const prom = await import('prom-client');
  const registry = new prom.Registry();
  const metrics = controllerMetrics(prom, { registry });
  const { prometheusMetrics } = await import('ovnkit/ovsdb');
  const clientMetrics = prometheusMetrics(prom, { registry });
  const server: MetricsServer = await serveMetrics(registry, address);
  process.stdout.write(`metrics: ${server.url}\n`);
  await runDemo({ metrics, clientMetrics });
  process.stdout.write(`serving ${server.url} until interrupted\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
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

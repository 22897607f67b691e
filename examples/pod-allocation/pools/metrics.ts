/**
 * {@link controllerMetrics}: the controllers' metrics hooks
 * (`ControllerMetrics`) over prom-client. Pass your own `prom-client` module
 * (nothing here loads it):
 *
 * ```ts
 * import * as promClient from 'prom-client';
 * const metrics = controllerMetrics(promClient, { registry: new promClient.Registry() });
 * new PodController({ …, metrics });
 * new PoolReconciler({ …, metrics });
 * ```
 *
 * | metric | type | labels |
 * | --- | --- | --- |
 * | `ovnkit_controller_reconciles_total` | counter | `kind` (`pod`, `pool`), `result` (`success`, `failure`) |
 * | `ovnkit_controller_reconcile_duration_seconds` | histogram | `kind` |
 * | `ovnkit_controller_failures_total` | counter | `kind`, `reason` |
 * | `ovnkit_controller_queue_depth` | gauge | `kind` |
 * | `ovnkit_pool_total` | gauge | `node`, `state` (`idle`, `in_use`) |
 * | `ovnkit_ipam_used_addresses` | gauge | `subnet`, `family` |
 * | `ovnkit_ipam_capacity_addresses` | gauge | `subnet`, `family` (assignable: network, broadcast, gateway and excluded addresses left out) |
 *
 * The gauges are read at scrape time. The prefix `ovnkit_` can be changed.
 * @module
 */

import type * as PromClient from 'prom-client';
import type {
  ControllerMetrics,
  PoolSize,
  ReconcileKind,
  ReconcileResult,
} from '../controller/log.js';
import type { Ipam } from '../ipam/ipam.js';

/** The parts of the prom-client module used (pass `import * as promClient from 'prom-client'`). */
export type PromClientModule = Pick<typeof PromClient, 'Counter' | 'Gauge' | 'Histogram'>;

/** Options of {@link controllerMetrics}. */
export interface ControllerMetricsOptions {
  /** Where the metrics are registered (default: prom-client's global registry). */
  readonly registry?: PromClient.Registry | undefined;
  /** The metric name prefix (default `ovnkit_`). */
  readonly prefix?: string | undefined;
}

/** The controllers' metrics over prom-client (see the module documentation). */
export function controllerMetrics(
  prom: PromClientModule,
  options: ControllerMetricsOptions = {},
): ControllerMetrics {
  const p = options.prefix ?? 'ovnkit_';
  const registers = options.registry === undefined ? undefined : [options.registry];
  const queues = new Map<ReconcileKind, () => number>();
  const pools: (() => Iterable<PoolSize>)[] = [];
  const ipams = new Set<Ipam>();
  const reconciles = new prom.Counter({
    name: `${p}controller_reconciles_total`,
    help: 'Reconciles, by kind (pod or pool) and result',
    labelNames: ['kind', 'result'] as const,
    ...(registers !== undefined ? { registers } : {}),
  });
  const duration = new prom.Histogram({
    name: `${p}controller_reconcile_duration_seconds`,
    help: 'Reconcile duration, by kind',
    labelNames: ['kind'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    ...(registers !== undefined ? { registers } : {}),
  });
  const failures = new prom.Counter({
    name: `${p}controller_failures_total`,
    help: 'Failed reconciles, by kind and reason',
    labelNames: ['kind', 'reason'] as const,
    ...(registers !== undefined ? { registers } : {}),
  });
  new prom.Gauge({
    name: `${p}controller_queue_depth`,
    help: 'Keys queued, delayed or being processed, by kind',
    labelNames: ['kind'] as const,
    ...(registers !== undefined ? { registers } : {}),
    collect() {
      this.reset();
      for (const [kind, depth] of queues) this.set({ kind }, depth());
    },
  });
  new prom.Gauge({
    name: `${p}pool_total`,
    help: 'Warm pool entries per node, by state (idle, in_use)',
    labelNames: ['node', 'state'] as const,
    ...(registers !== undefined ? { registers } : {}),
    collect() {
      this.reset();
      for (const read of pools) {
        for (const s of read()) {
          this.set({ node: s.node, state: 'idle' }, s.idle);
          this.set({ node: s.node, state: 'in_use' }, s.inUse);
        }
      }
    },
  });
  const eachRange = (f: (subnet: string, family: string, used: number, size: number) => void) => {
    for (const ipam of ipams) {
      for (const s of ipam.listSubnets()) {
        for (const r of s.ranges) {
          f(s.name, `ipv${r.family}`, r.usedCount, Number(r.assignableCount));
        }
      }
    }
  };
  new prom.Gauge({
    name: `${p}ipam_used_addresses`,
    help: 'Addresses held in the IPAM, per subnet and family',
    labelNames: ['subnet', 'family'] as const,
    ...(registers !== undefined ? { registers } : {}),
    collect() {
      this.reset();
      eachRange((subnet, family, used) => this.set({ subnet, family }, used));
    },
  });
  new prom.Gauge({
    name: `${p}ipam_capacity_addresses`,
    help: 'Assignable addresses per subnet and family (network, broadcast, gateway and excluded addresses left out)',
    labelNames: ['subnet', 'family'] as const,
    ...(registers !== undefined ? { registers } : {}),
    collect() {
      this.reset();
      eachRange((subnet, family, _used, size) => this.set({ subnet, family }, size));
    },
  });
  return {
    reconciled(kind: ReconcileKind, result: ReconcileResult, seconds: number): void {
      reconciles.inc({ kind, result });
      duration.observe({ kind }, seconds);
    },
    failed(kind: ReconcileKind, reason: string): void {
      failures.inc({ kind, reason });
    },
    watchQueue(kind: ReconcileKind, depth: () => number): void {
      queues.set(kind, depth);
    },
    watchIpam(ipam: Ipam): void {
      ipams.add(ipam);
    },
    watchPools(sizes: () => Iterable<PoolSize>): void {
      pools.push(sizes);
    },
  };
}

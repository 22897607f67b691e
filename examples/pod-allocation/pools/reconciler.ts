/**
 * {@link PoolReconciler}: per-node warm address pools, in the style of
 * Terway's multi-IP node controller. Each node of a `NodeSource` keeps
 * idle, pre-created ports (see `entry.ts`) so that a pod starts without
 * waiting for an allocation; the reconciler keeps each pool between its
 * bounds:
 *
 * - below `minIdle` it refills in transactions of `batchSize` entries (each
 *   batch commits whole or not at all; its IPAM leases are rolled back when
 *   it fails);
 * - beyond `maxIdle` it releases the oldest idle entries once they have
 *   been idle for `idleTtlMs` (read from an injectable {@link Clock});
 * - the entries of a node that is gone are deleted (on its `delete` event,
 *   and at each resync for nodes NB still has entries of), but never before
 *   the node source has listed every node (`NodeSource.whenSynced`): a node
 *   it has not listed yet keeps its pool.
 *
 * ```ts
 * const nodes = new ProgrammaticNodeSource([{ name: 'node-1', subnet: 'pods', minIdle: 5, maxIdle: 10 }]);
 * const pools = new PoolReconciler({ nb, nodes });
 * const controller = new PodController({ nb, source, topology, pools });
 * await controller.start(); // restores the IPAM, pool entries included
 * await pools.start();
 * ```
 *
 * Node keys go through the same rate-limited {@link WorkQueue} as pods:
 * a failed reconcile is classified ({@link classifyPoolFailure}), bad input
 * (bounds, subnet) is reported and left until the node changes, other
 * failures are retried with backoff and again at each periodic resync. The
 * node's status ({@link NodePoolStatus}) is written through
 * `NodeSource.reportStatus` only when it changed.
 *
 * As the controller's `pools`, it serves pod starts ({@link PoolReconciler.take})
 * and takes deleted pods' ports back ({@link PoolReconciler.giveBack}); see
 * `claims.ts`.
 * @module
 */

import { IndexError } from 'ovnkit/client';
import { findNamed, type Nb, type NbRow } from 'ovnkit/nb';
import type {
  PodPools,
  PodPoolsContext,
  PoolGiveBack,
  PoolTake,
} from '../controller/controller.js';
import { type LogRecord, traced, tracedSync } from '../controller/log.js';
import type { Pod, PodKey } from '../controller/pod.js';
import { defaultControllerRateLimiter } from '../controller/rate-limiter.js';
import { WorkQueue } from '../controller/work-queue.js';
import type { AddressRequest, Ipam, Lease, RestorePort } from '../ipam/ipam.js';
import type { Subnet } from '../ipam/subnet.js';
import { giveBackEntry, restoreIpam, takeEntry } from './claims.js';
import { type Clock, systemClock } from './clock.js';
import {
  deleteEntries,
  entryOwner,
  entryRestorePort,
  insertEntry,
  newEntryName,
  POOL_KEYS,
  POOL_NODE_INDEX,
  type PoolEntry,
  readEntry,
} from './entry.js';
import { classifyPoolFailure, NoSubnetError, type PoolFailure } from './failure.js';
import {
  DEFAULT_BATCH_SIZE,
  DEFAULT_IDLE_TTL_MS,
  type PoolBounds,
  type PoolNode,
  poolBounds,
} from './node.js';
import type { NodeEvent, NodePoolStatus } from './node-source.js';
import type {
  ClaimingPools,
  NodePlan,
  PoolFailureEvent,
  PoolReconcilerOptions,
  PoolStats,
} from './reconciler-options.js';

/** The pool reconciler (see the module documentation). */
export class PoolReconciler implements PodPools, ClaimingPools {
  /** The work queue of node names. */
  readonly queue: WorkQueue<string>;
  /** Per-node status, as last computed. */
  readonly status = new Map<string, NodePoolStatus>();
  /** Failure events, oldest first. */
  readonly events: PoolFailureEvent[] = [];
  /** Counters. */
  readonly stats: PoolStats = {
    reconciles: 0,
    failures: 0,
    created: 0,
    released: 0,
    collected: 0,
    claimed: 0,
    returned: 0,
    statusWrites: 0,
    transactions: 0,
    resyncs: 0,
  };
  /** @internal Idle entries per node, claims in flight taken out. */
  readonly idleEntries = new Map<string, Map<string, PoolEntry>>();
  /** @internal Entries being claimed. */
  readonly claiming = new Set<string>();
  private readonly nodes = new Map<string, PoolNode>();
  private readonly reported = new Map<string, string>();
  /** The TTL timer of each node with idle entries beyond maxIdle. */
  private readonly trimTimers = new Map<string, () => void>();
  private readonly clock: Clock;
  private readonly maxRetries: number;
  private ipamRef: Ipam | undefined;
  private attached = false;
  /** Whether the client has {@link POOL_INDEXES} (undefined: not tried yet). */
  private indexed: boolean | undefined;
  private ipamRestored = false;
  /** Whether the node source has listed every node: only then are pools of unknown nodes collected. */
  private nodesSynced = false;
  private running = false;
  private unsubscribe: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** @param options - see {@link PoolReconcilerOptions}. */
  constructor(private readonly options: PoolReconcilerOptions) {
    this.ipamRef = options.ipam;
    this.clock = options.clock ?? systemClock;
    this.maxRetries = options.maxRetries ?? 5;
    this.queue = new WorkQueue<string>({
      concurrency: options.concurrency ?? 4,
      rateLimiter: options.rateLimiter ?? defaultControllerRateLimiter(),
      worker: (node) => this.process(node),
      onError: (node, e) => this.log('error', 'worker crashed', { node, error: String(e) }),
    });
    options.metrics?.watchQueue('pool', () => this.queue.size);
    options.metrics?.watchPools(() =>
      [...this.status.values()].map((s) => ({ node: s.node, idle: s.idle, inUse: s.inUse })),
    );
  }

  /** The IPAM in use. @throws Error before one is given or attached. */
  get ipam(): Ipam {
    if (this.ipamRef === undefined)
      throw new Error('PoolReconciler: no IPAM (pass `ipam`, or give it to a PodController)');
    return this.ipamRef;
  }

  /** The Northbound DSL in use. */
  get nb(): Nb {
    return this.options.nb;
  }

  /** The clock entry ages are read from. */
  get now(): number {
    return this.clock.now();
  }

  /** Whether `start` ran (and `stop` did not). */
  get started(): boolean {
    return this.running;
  }

  /** The nodes the reconciler believes exist. */
  knownNodes(): PoolNode[] {
    return [...this.nodes.values()];
  }

  /** @internal */
  log(level: LogRecord['level'], msg: string, fields: Record<string, unknown> = {}): void {
    this.options.log?.({ time: new Date().toISOString(), level, msg, ...fields });
  }

  // ---- PodPools --------------------------------------------------------------------

  /** {@inheritDoc PodPools.attach} */
  attach(context: PodPoolsContext): void {
    this.attached = true;
    this.ipamRef ??= context.ipam;
  }

  /** {@inheritDoc PodPools.restorePort} */
  restorePort(port: RestorePort): RestorePort {
    return entryRestorePort(port);
  }

  /** {@inheritDoc PodPools.restored} */
  restored(): void {
    this.ipamRestored = true;
  }

  /** {@inheritDoc PodPools.take} */
  take(pod: Pod, key: PodKey, subnet: string, request: AddressRequest): PoolTake | undefined {
    return takeEntry(this, pod, key, subnet, request);
  }

  /** {@inheritDoc PodPools.giveBack} */
  giveBack(key: PodKey, portUuid: string | undefined): PoolGiveBack | undefined {
    return giveBackEntry(this, key, portUuid);
  }

  // ---- lifecycle -------------------------------------------------------------------

  /**
   * Restore the IPAM from NB when no controller did, start watching, and
   * once the node source has listed every node (`whenSynced`; nodes
   * arriving meanwhile are reconciled as they come), queue them all and
   * collect the entries of nodes that are gone. Resolves after that resync.
   * @throws Error when attached to a `PodController` that has not started
   *   (its start restores the IPAM, pool entries included).
   */
  async start(): Promise<void> {
    if (this.running) return;
    await this.nb.client.whenSynced?.();
    if (this.attached && !this.ipamRestored) {
      throw new Error('PoolReconciler.start: start the PodController it is the pools of first');
    }
    if (!this.ipamRestored) {
      const r = restoreIpam(this.nb, this.ipam);
      this.ipamRestored = true;
      if (r.conflicts.length > 0)
        this.log('warn', 'NB has addresses on two ports', { conflicts: r.conflicts });
    }
    this.running = true;
    this.unsubscribe = this.options.nodes.subscribe((e) => this.onNodeEvent(e));
    await this.resync();
    const every = this.options.resyncIntervalMs ?? 30_000;
    if (every > 0) {
      this.timer = setInterval(() => {
        void this.resync().catch((e) => this.log('error', 'resync failed', { error: String(e) }));
      }, every);
      this.timer.unref();
    }
    this.log('info', 'pools started', { nodes: this.nodes.size });
  }

  /** Stop watching and wait for the nodes being processed (queued ones are dropped). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    for (const cancel of this.trimTimers.values()) cancel();
    this.trimTimers.clear();
    await this.queue.shutdown();
    this.log('info', 'pools stopped', { ...this.stats });
  }

  /** Resolve when no node is queued or being processed. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * One full resync: refresh the node list, queue every node, and every
   * node NB has entries of that is gone. Returns how many nodes were queued.
   * Waits first for the node source to have listed every node.
   */
  async resync(): Promise<number> {
    await this.options.nodes.whenSynced();
    this.nodesSynced = true;
    const listed = await this.options.nodes.list();
    const names = new Set(listed.map((n) => n.name));
    for (const n of listed) this.nodes.set(n.name, n);
    for (const name of [...this.nodes.keys()]) if (!names.has(name)) this.nodes.delete(name);
    const queued = new Set(this.nodes.keys());
    for (const p of this.nb.client.rows('Logical_Switch_Port')) {
      const node = readEntry(p)?.node;
      if (node !== undefined) queued.add(node);
    }
    for (const name of queued) this.queue.add(name);
    this.stats.resyncs++;
    return queued.size;
  }

  /**
   * Queue a node (after a claim or a release changed its pool), on a timer
   * of 1 ms, so that its reconcile (a scan of NB's ports) does not run
   * inside the pod's reconcile that claimed or released.
   */
  touch(node: string): void {
    if (this.running) this.queue.addAfter(node, 1);
  }

  private onNodeEvent(event: NodeEvent): void {
    const name = event.node.name;
    if (event.type === 'delete') this.nodes.delete(name);
    else this.nodes.set(name, event.node);
    this.queue.forget(name);
    this.queue.add(name);
  }

  // ---- reconcile -------------------------------------------------------------------

  /** @internal The node's valid plan, or undefined when it is unknown or invalid. */
  planOf(name: string): NodePlan | undefined {
    const node = this.nodes.get(name);
    if (node === undefined) return undefined;
    try {
      return this.plan(node);
    } catch {
      return undefined;
    }
  }

  private plan(node: PoolNode): NodePlan {
    const bounds = poolBounds(node);
    const name = node.subnet ?? this.options.defaultSubnet;
    const subnet =
      name === undefined ? undefined : this.ipam.listSubnets().find((s) => s.name === name);
    if (subnet === undefined) throw new NoSubnetError(node.name, name);
    return { bounds, subnet };
  }

  private async process(name: string): Promise<void> {
    const tracer = this.options.tracer;
    if (tracer === undefined) return this.processOnce(name, false);
    // A failure is handled in processOnce, and thrown again only for the span to record it.
    await traced(tracer, 'pool.reconcile', { root: true, attributes: { node: name } }, () =>
      this.processOnce(name, true),
    ).catch(() => {});
  }

  private async processOnce(name: string, rethrow: boolean): Promise<void> {
    const t0 = performance.now();
    try {
      const node = this.nodes.get(name);
      // An unknown node is gone only once the source has listed every node (the resync after
      // that queues it again).
      if (node === undefined) {
        if (this.nodesSynced) await this.collect(name);
      } else await this.reconcileNode(node);
      this.queue.forget(name);
      this.stats.reconciles++;
      this.options.metrics?.reconciled('pool', 'success', (performance.now() - t0) / 1000);
    } catch (e) {
      const failure = classifyPoolFailure(e);
      const retrying = failure.retryable && this.queue.retries(name) < this.maxRetries;
      this.stats.failures++;
      const event: PoolFailureEvent = {
        time: new Date().toISOString(),
        node: name,
        ...failure,
        retrying,
      };
      this.events.push(event);
      this.options.onEvent?.(event);
      this.log(retrying ? 'warn' : 'error', 'pool failed', {
        node: name,
        reason: failure.reason,
        error: failure.message,
        retrying,
      });
      const node = this.nodes.get(name);
      if (node !== undefined) await this.report(this.statusOf(node, undefined, failure));
      if (retrying) this.queue.addRateLimited(name);
      this.options.metrics?.reconciled('pool', 'failure', (performance.now() - t0) / 1000);
      this.options.metrics?.failed('pool', failure.reason);
      if (rethrow) throw e;
    }
  }

  /**
   * The ports {@link POOL_INDEXES} gives node `name` (its entries and the
   * ports requested on it), or undefined when the client was connected
   * without that index.
   */
  private portsOf(name: string): Iterable<NbRow<'Logical_Switch_Port'>> | undefined {
    if (this.indexed === false) return undefined;
    const client = this.nb.client as {
      byIndex?: (table: string, index: string, value: string) => NbRow<'Logical_Switch_Port'>[];
    };
    if (typeof client.byIndex !== 'function') {
      this.indexed = false;
      return undefined;
    }
    try {
      const rows = client.byIndex('Logical_Switch_Port', POOL_NODE_INDEX, name);
      this.indexed = true;
      return rows;
    } catch (e) {
      if (!(e instanceof IndexError)) throw e;
      this.indexed = false;
      return undefined;
    }
  }

  /**
   * Idle entries of `name` in NB (claims in flight included), and its
   * entries held by pods: through {@link POOL_INDEXES} when the client has
   * it, else by a scan of every port.
   */
  private scan(name: string): { idle: PoolEntry[]; inUse: number } {
    const idle: PoolEntry[] = [];
    let inUse = 0;
    for (const p of this.portsOf(name) ?? this.nb.client.rows('Logical_Switch_Port')) {
      const entry = readEntry(p);
      if (entry !== undefined) {
        if (entry.node === name) idle.push(entry);
      } else if (
        p.options[POOL_KEYS.chassis] === name &&
        p.external_ids['pod'] !== undefined &&
        p.external_ids['vendor'] === 'ovnkit'
      ) {
        inUse++;
      }
    }
    return { idle, inUse };
  }

  private async reconcileNode(node: PoolNode): Promise<void> {
    const name = node.name;
    const plan = this.plan(node);
    const { bounds, subnet } = plan;
    const scan = this.scan(name);
    const mine = scan.idle.filter((e) => !this.claiming.has(e.uuid));
    const strays = mine.filter((e) => e.subnet !== subnet.name);
    const idle = new Map(mine.filter((e) => e.subnet === subnet.name).map((e) => [e.uuid, e]));
    this.idleEntries.set(name, idle);
    if (strays.length > 0) {
      await this.release(name, strays);
      this.stats.released += strays.length;
    }
    while (idle.size < bounds.minIdle) {
      await this.refill(name, subnet, Math.min(bounds.batchSize, bounds.minIdle - idle.size), idle);
    }
    await this.trim(name, bounds, idle);
    await this.report(this.statusOf(node, plan, undefined, idle.size, this.scan(name).inUse));
  }

  private async refill(
    node: string,
    subnet: Subnet,
    count: number,
    idle: Map<string, PoolEntry>,
  ): Promise<void> {
    const leases = tracedSync(
      this.options.tracer,
      'ipam.lease',
      { attributes: { node, count } },
      () => {
        const out: { name: string; lease: Lease }[] = [];
        try {
          for (let i = 0; i < count; i++) {
            const name = newEntryName();
            out.push({ name, lease: this.ipam.lease(entryOwner(name), subnet.name) });
          }
        } catch (e) {
          for (const l of out) l.lease.rollback();
          throw e;
        }
        return out;
      },
    );
    const since = this.clock.now();
    const entries = leases.map(({ name, lease }) => ({
      name,
      node,
      subnet: subnet.name,
      mac: lease.allocation.mac,
      ips: lease.allocation.ips,
      since,
    }));
    let uuids: readonly string[];
    try {
      const result = await traced(
        this.options.tracer,
        'nb.transact',
        { attributes: { node, count } },
        () =>
          this.nb.transact((t) => {
            const sw = findNamed(t, 'Logical_Switch', subnet.name);
            if (sw === undefined) {
              throw new Error(
                `node ${node}: logical switch ${subnet.name} is not in NB (the topology is not applied)`,
              );
            }
            return entries.map((e) => insertEntry(t, sw._uuid, e));
          }),
      );
      uuids = result.value;
    } catch (e) {
      for (const l of leases) l.lease.rollback();
      throw e;
    }
    for (const l of leases) l.lease.commit();
    entries.forEach((e, i) => {
      idle.set(uuids[i]!, { ...e, uuid: uuids[i]! });
    });
    this.stats.transactions++;
    this.stats.created += count;
    this.log('info', 'pool refilled', {
      node,
      subnet: subnet.name,
      created: count,
      idle: idle.size,
    });
  }

  private async trim(
    name: string,
    bounds: PoolBounds,
    idle: Map<string, PoolEntry>,
  ): Promise<void> {
    const now = this.clock.now();
    if (idle.size <= bounds.maxIdle) {
      this.trimTimers.get(name)?.();
      this.trimTimers.delete(name);
      return;
    }
    const oldest = [...idle.values()].sort(
      (a, b) => a.since - b.since || (a.name < b.name ? -1 : 1),
    );
    const expired = oldest
      .filter((e) => now - e.since >= bounds.idleTtlMs)
      .slice(0, idle.size - bounds.maxIdle);
    if (expired.length > 0) {
      await this.release(name, expired);
      this.stats.released += expired.length;
      this.log('info', 'pool trimmed', { node: name, released: expired.length, idle: idle.size });
    }
    this.trimTimers.get(name)?.();
    this.trimTimers.delete(name);
    if (idle.size > bounds.maxIdle) {
      const next = Math.min(...[...idle.values()].map((e) => e.since + bounds.idleTtlMs - now));
      const cancel = this.clock.setTimer(Math.max(1, next), () => {
        this.trimTimers.delete(name);
        this.touch(name);
      });
      this.trimTimers.set(name, cancel);
    }
  }

  /** Delete idle entries of `node` from NB and free their addresses. */
  private async release(node: string, entries: readonly PoolEntry[]): Promise<void> {
    const idle = this.idleEntries.get(node);
    for (const e of entries) idle?.delete(e.uuid);
    try {
      await traced(
        this.options.tracer,
        'nb.transact',
        { attributes: { node, count: entries.length } },
        () =>
          this.nb.transact((t) =>
            deleteEntries(
              t,
              entries.map((e) => e.uuid),
            ),
          ),
      );
    } catch (e) {
      for (const entry of entries) idle?.set(entry.uuid, entry);
      throw e;
    }
    this.stats.transactions++;
    for (const e of entries) this.ipam.release(entryOwner(e.name));
  }

  /** A node that is gone: delete its idle entries (claims in flight are left to finish). */
  private async collect(name: string): Promise<void> {
    const entries = this.scan(name).idle.filter((e) => !this.claiming.has(e.uuid));
    if (entries.length > 0) {
      await this.release(name, entries);
      this.stats.collected += entries.length;
      this.log('info', 'pool collected', { node: name, deleted: entries.length });
    }
    this.idleEntries.delete(name);
    this.trimTimers.get(name)?.();
    this.trimTimers.delete(name);
    this.status.delete(name);
    this.reported.delete(name);
  }

  private statusOf(
    node: PoolNode,
    plan: NodePlan | undefined,
    failure?: PoolFailure,
    idle?: number,
    inUse?: number,
  ): NodePoolStatus {
    let counts = idle !== undefined && inUse !== undefined ? { idle, inUse } : undefined;
    if (counts === undefined) {
      const scan = this.scan(node.name);
      counts = {
        idle: scan.idle.filter((e) => !this.claiming.has(e.uuid)).length,
        inUse: scan.inUse,
      };
    }
    return {
      node: node.name,
      subnet: plan?.subnet.name ?? node.subnet ?? this.options.defaultSubnet,
      ...counts,
      minIdle: plan?.bounds.minIdle ?? node.minIdle ?? 0,
      maxIdle: plan?.bounds.maxIdle ?? node.maxIdle ?? node.minIdle ?? 0,
      batchSize: plan?.bounds.batchSize ?? node.batchSize ?? DEFAULT_BATCH_SIZE,
      idleTtlMs: plan?.bounds.idleTtlMs ?? node.idleTtlMs ?? DEFAULT_IDLE_TTL_MS,
      ...(failure !== undefined
        ? { failure: { reason: failure.reason, message: failure.message } }
        : {}),
    };
  }

  /** Keep the status; write it back only when it changed. */
  private async report(status: NodePoolStatus): Promise<void> {
    this.status.set(status.node, status);
    const text = JSON.stringify(status);
    if (this.reported.get(status.node) === text) return;
    this.reported.set(status.node, text);
    this.stats.statusWrites++;
    await this.options.nodes.reportStatus?.(status.node, status);
  }
}

/**
 * {@link PodController}: pods in, OVN Northbound state out.
 *
 * ```ts
 * const source = new ProgrammaticPodSource();
 * const controller = new PodController({ nb, source, topology: {
 *   subnets: [{ name: 'pods', cidr: '10.16.0.0/16,fd00:10:16::/64' }],
 * } });
 * await controller.start();
 * source.add({ namespace: 'default', name: 'web-0', node: 'node-1' });
 * await controller.idle();
 * controller.status.get('default/web-0'); // { state: 'ready', annotations: { 'ovn.kubernetes.io/ip_address': '10.16.0.2,fd00:10:16::2', … } }
 * ```
 *
 * On `start` the controller applies the topology (the cluster router and
 * the subnets, as desired state: see `topology.ts`; again at each GC pass),
 * rebuilds its IPAM from NB's ports (NB is the source of truth),
 * lists the pods and queues them all, waits for the source to have listed
 * every pod (`PodSource.whenSynced`: pods arriving meanwhile are reconciled
 * as they come) and runs a GC pass. GC never runs before the source is
 * synced: a pod it has not listed yet is not taken for deleted, and its
 * addresses stay its own. Each pod key is then
 * processed by the work queue (one worker per key at a time): a pod that
 * exists is reconciled ({@link applyPod}, one transaction), one that does
 * not is removed ({@link removePod}, one transaction). A failed transaction
 * rolls its IPAM lease back. A reconcile that creates a shared row (a
 * namespace's or node's port group) holds its name meanwhile, so that
 * concurrent pods do not both create it. Failures are classified (see
 * {@link classifyFailure}): bad input is reported and left until the pod
 * changes; other failures are retried with the rate limiter's backoff, up
 * to `maxRetries` times, and then again at each periodic GC/resync pass.
 *
 * With `pools` (a `PoolReconciler`, see `pools/`), a new pod that asks for
 * any address is served from its node's warm pool when it has an idle
 * entry: the entry's port is claimed in the pod's transaction instead of a
 * port being created; a deleted pod's claimed port goes back to its pool.
 * @module
 */

import type { Tracer } from '@opentelemetry/api';
import type { Nb, NbTxn } from 'ovnkit/nb';
import {
  type AddressRequest,
  type Allocation,
  type AllocationStrategy,
  Ipam,
  type Lease,
  OWNER_KEYS,
  type RestorePort,
} from '../ipam/ipam.js';
import { parsePodIntent } from './annotations.js';
import { classifyFailure, type Failure } from './failure.js';
import { KeyedLock } from './keyed-lock.js';
import {
  type ControllerMetrics,
  type FailureEvent,
  type LogRecord,
  type LogSink,
  traced,
  tracedSync,
} from './log.js';
import { type Pod, type PodKey, podKey } from './pod.js';
import type { PodEvent, PodSource } from './pod-source.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';
import {
  applyPod,
  namespacePortGroup,
  nodePortGroup,
  removePod,
  resultAnnotations,
} from './reconcile.js';
import { applyTopology, type ClusterTopology, DEFAULT_ROUTER } from './topology.js';
import { WorkQueue } from './work-queue.js';

/** Options of {@link PodController}. */
export interface PodControllerOptions {
  /** The Northbound DSL over a connected client. */
  readonly nb: Nb;
  /** Where pods come from. */
  readonly source: PodSource;
  /** The router and subnets. */
  readonly topology: ClusterTopology;
  /** Pods reconciled at once (default 8). */
  readonly concurrency?: number | undefined;
  /** How free IPs are picked (default `next-free`). */
  readonly strategy?: AllocationStrategy | undefined;
  /** Retry delays (default {@link defaultControllerRateLimiter}). */
  readonly rateLimiter?: RateLimiter | undefined;
  /** Retries of a retryable failure before waiting for the next resync (default 5). */
  readonly maxRetries?: number | undefined;
  /** Interval of GC and resync passes, ms (default 60 000; 0: only at start). */
  readonly gcIntervalMs?: number | undefined;
  /** Structured logs (default: none). */
  readonly log?: LogSink | undefined;
  /** Failure events (they are also kept in {@link PodController.events}). */
  readonly onEvent?: ((event: FailureEvent) => void) | undefined;
  /** Warm address pools to serve pod starts from (a `PoolReconciler`). */
  readonly pools?: PodPools | undefined;
  /** Metrics hooks (e.g. `controllerMetrics(promClient)`; default: none). */
  readonly metrics?: ControllerMetrics | undefined;
  /** Spans per reconcile, with IPAM and NB transaction children (default: none). */
  readonly tracer?: Tracer | undefined;
}

/** What {@link PodPools.attach} hands over. */
export interface PodPoolsContext {
  /** The controller's IPAM (the pools allocate from it too). */
  readonly ipam: Ipam;
}

/** An idle pool entry taken for a new pod (see {@link PodPools.take}). */
export interface PoolTake {
  /** The entry's port: the pod's transaction claims it. */
  readonly uuid: string;
  /** The entry's addresses, leased to the pod. */
  readonly lease: Lease;
  /** Add the claim guard to the pod's transaction (throws when the entry is gone). */
  guard(t: NbTxn): void;
  /** After the pod's transaction: committed, or failed (the lease is rolled back first). */
  settle(committed: boolean): void;
}

/** A claimed port going back to its pool (see {@link PodPools.giveBack}). */
export interface PoolGiveBack {
  /** Add the idle entry's insert to the pod's delete transaction. */
  build(t: NbTxn): void;
  /** After the delete: the pod's released addresses, or undefined when it failed. */
  settle(released: Allocation | undefined): void;
}

/** The hooks the controller calls on warm pools (`PoolReconciler` implements them). */
export interface PodPools {
  /** Called by the controller's constructor. */
  attach(context: PodPoolsContext): void;
  /** How `start` hands a port to `Ipam.restore`. */
  restorePort(port: RestorePort): RestorePort;
  /** Called by `start` once the IPAM is restored. */
  restored(): void;
  /** An idle entry for a new pod, leased to it; undefined: allocate on demand. */
  take(pod: Pod, key: PodKey, subnet: string, request: AddressRequest): PoolTake | undefined;
  /** How to return a deleted pod's port to its pool; undefined: delete it. */
  giveBack(key: PodKey, portUuid: string | undefined): PoolGiveBack | undefined;
}

/** Where a pod stands. */
export type PodState = 'pending' | 'ready' | 'failed' | 'deleted';

/** The controller's view of one pod. */
export interface PodStatus {
  readonly key: PodKey;
  readonly state: PodState;
  /** The result annotations (when ready). */
  readonly annotations?: Readonly<Record<string, string>> | undefined;
  /** The last failure (when failed). */
  readonly failure?: Failure | undefined;
  /** Reconcile attempts since the last success. */
  readonly attempts: number;
  /** Duration of the last reconcile, ms. */
  readonly ms?: number | undefined;
}

/** Counters since start. */
export interface ControllerStats {
  reconciled: number;
  deleted: number;
  failures: number;
  transactions: number;
  gcPasses: number;
  gcQueued: number;
  /** Pod starts served from a warm pool. */
  poolStarts: number;
  /** Sum of reconcile durations, ms. */
  reconcileMs: number;
}

/** The pod controller (see the module documentation). */
export class PodController {
  /** The address allocator. */
  readonly ipam: Ipam;
  /** The work queue of pod keys. */
  readonly queue: WorkQueue<PodKey>;
  /** Per-pod status. */
  readonly status = new Map<PodKey, PodStatus>();
  /** Failure events, oldest first. */
  readonly events: FailureEvent[] = [];
  /** Counters. */
  readonly stats: ControllerStats = {
    reconciled: 0,
    deleted: 0,
    failures: 0,
    transactions: 0,
    gcPasses: 0,
    gcQueued: 0,
    poolStarts: 0,
    reconcileMs: 0,
  };
  private readonly pods = new Map<PodKey, Pod>();
  /** Names of shared rows being created (see {@link KeyedLock}). */
  private readonly creating = new KeyedLock();
  /** The UUID of each pod's port, as far as known. */
  private readonly ports = new Map<PodKey, string>();
  /** Pods whose last attempt failed: their port is looked up by name. */
  private readonly unsure = new Set<PodKey>();
  private readonly router: string;
  private readonly defaultSubnet: string;
  private readonly maxRetries: number;
  private unsubscribe: (() => void) | undefined;
  private gcTimer: NodeJS.Timeout | undefined;
  private running = false;

  /** @param options - see {@link PodControllerOptions}. */
  constructor(private readonly options: PodControllerOptions) {
    const { topology } = options;
    if (topology.subnets.length === 0)
      throw new TypeError('the topology needs at least one subnet');
    this.ipam = new Ipam(topology.subnets, options.strategy ?? 'next-free');
    this.router = topology.router ?? DEFAULT_ROUTER;
    this.defaultSubnet = topology.defaultSubnet ?? topology.subnets[0]!.name;
    this.ipam.subnet(this.defaultSubnet);
    this.maxRetries = options.maxRetries ?? 5;
    this.queue = new WorkQueue<PodKey>({
      concurrency: options.concurrency ?? 8,
      rateLimiter: options.rateLimiter ?? defaultControllerRateLimiter(),
      worker: (key) => this.process(key),
      onError: (key, e) => this.log('error', 'worker crashed', { pod: key, error: String(e) }),
    });
    options.pools?.attach({ ipam: this.ipam });
    options.metrics?.watchQueue('pod', () => this.queue.size);
    options.metrics?.watchIpam(this.ipam);
  }

  private log(level: LogRecord['level'], msg: string, fields: Record<string, unknown> = {}): void {
    this.options.log?.({ time: new Date().toISOString(), level, msg, ...fields });
  }

  /** The Northbound DSL in use. */
  get nb(): Nb {
    return this.options.nb;
  }

  /** The pods the controller believes exist. */
  knownPods(): Pod[] {
    return [...this.pods.values()];
  }

  /**
   * Ensure the topology, rebuild the IPAM from NB, start watching, queue the
   * pods listed so far, and once the source has listed every pod
   * (`whenSynced`), run a GC pass. Resolves after that pass.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const t0 = performance.now();
    const client = this.nb.client;
    await client.whenSynced?.();
    await this.applyTopology();
    const restored = this.ipam.restore(this.portsInNb());
    this.options.pools?.restored();
    if (restored.conflicts.length > 0) {
      this.log('warn', 'NB has addresses on two ports', { conflicts: restored.conflicts });
    }
    this.unsubscribe = this.options.source.subscribe((e) => this.onPodEvent(e));
    for (const pod of await this.options.source.list()) {
      const key = podKey(pod);
      this.pods.set(key, pod);
      this.setStatus(key, { state: 'pending' });
      this.queue.add(key);
    }
    await this.gc();
    const every = this.options.gcIntervalMs ?? 60_000;
    if (every > 0) {
      this.gcTimer = setInterval(() => {
        void this.gc().catch((e) => this.log('error', 'gc failed', { error: String(e) }));
      }, every);
      this.gcTimer.unref();
    }
    this.log('info', 'started', {
      ms: Math.round(performance.now() - t0),
      restoredPods: restored.pods,
      restoredForeign: restored.foreign,
      pods: this.pods.size,
    });
  }

  /** Stop watching and wait for the pods being processed (queued ones are dropped). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.gcTimer !== undefined) clearInterval(this.gcTimer);
    this.gcTimer = undefined;
    await this.queue.shutdown();
    this.log('info', 'stopped', { ...this.stats });
  }

  /** Resolve when no pod is queued or being processed. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private onPodEvent(event: PodEvent): void {
    const key = podKey(event.pod);
    if (event.type === 'delete') this.pods.delete(key);
    else {
      this.pods.set(key, event.pod);
      this.setStatus(key, { state: 'pending', attempts: 0 });
    }
    this.queue.forget(key);
    this.queue.add(key);
  }

  private portsInNb(): RestorePort[] {
    const client = this.nb.client;
    const out: RestorePort[] = [];
    for (const ls of client.rows('Logical_Switch')) {
      for (const u of ls.ports) {
        const p = client.get('Logical_Switch_Port', u);
        if (p === undefined) continue;
        const port = {
          name: p.name,
          switch: ls.name,
          addresses: p.addresses,
          externalIds: p.external_ids,
        };
        out.push(this.options.pools?.restorePort(port) ?? port);
        const pod = p.external_ids[OWNER_KEYS.pod];
        if (pod !== undefined && p.external_ids[OWNER_KEYS.vendor] === OWNER_KEYS.vendorName) {
          this.ports.set(pod, p._uuid);
        }
      }
    }
    return out;
  }

  /**
   * One GC and resync pass: queue every pod key that NB has rows for
   * (ovnkit-owned ports, NAT rules, policies) but that no longer exists,
   * and every pod whose retryable failure ran out of retries. Returns how
   * many keys were queued for deletion. Waits first for the source to have
   * listed every pod (`PodSource.whenSynced`).
   */
  async gc(): Promise<number> {
    await this.options.source.whenSynced();
    const t0 = performance.now();
    await this.applyTopology();
    const alive = new Set(this.pods.keys());
    for (const pod of await this.options.source.list()) alive.add(podKey(pod));
    const owned = new Set<PodKey>();
    const client = this.nb.client;
    const note = (ids: Readonly<Record<string, string>>) => {
      const key = ids[OWNER_KEYS.pod];
      if (key !== undefined && ids[OWNER_KEYS.vendor] === OWNER_KEYS.vendorName) owned.add(key);
    };
    for (const p of client.rows('Logical_Switch_Port')) note(p.external_ids);
    for (const n of client.rows('NAT')) note(n.external_ids);
    for (const p of client.rows('Logical_Router_Policy')) note(p.external_ids);
    for (const key of this.ipam.owned()) if (key.includes('/')) owned.add(key);
    let queued = 0;
    for (const key of owned) {
      if (alive.has(key)) continue;
      this.queue.add(key);
      queued++;
    }
    let resynced = 0;
    for (const s of this.status.values()) {
      if (s.state === 'failed' && s.failure?.retryable && this.pods.has(s.key)) {
        this.queue.add(s.key);
        resynced++;
      }
    }
    this.stats.gcPasses++;
    this.stats.gcQueued += queued;
    this.log('info', 'gc', { ms: Math.round(performance.now() - t0), orphans: queued, resynced });
    return queued;
  }

  /** Make NB hold the router and the subnets (desired state: nothing is sent when it does). */
  private async applyTopology(): Promise<void> {
    const { dhcpLeaseTime } = this.options.topology;
    const r = await applyTopology(this.nb, this.router, this.ipam.listSubnets(), dhcpLeaseTime);
    this.stats.transactions += r.transactions;
    if (r.outcome === 'applied') this.log('info', 'topology applied', { ...r.plan.counts });
  }

  private setStatus(key: PodKey, patch: Partial<Omit<PodStatus, 'key'>>): void {
    const prev = this.status.get(key);
    const next: PodStatus = {
      key,
      state: patch.state ?? prev?.state ?? 'pending',
      attempts: patch.attempts ?? prev?.attempts ?? 0,
      ...(patch.annotations !== undefined ? { annotations: patch.annotations } : {}),
      ...(patch.failure !== undefined ? { failure: patch.failure } : {}),
      ...(patch.ms !== undefined ? { ms: patch.ms } : {}),
    };
    this.status.set(key, next);
  }

  private async process(key: PodKey): Promise<void> {
    const pod = this.pods.get(key);
    const tracer = this.options.tracer;
    if (tracer === undefined) return this.processOnce(key, pod, false);
    const name = pod === undefined ? 'pod.delete' : 'pod.reconcile';
    // A failure is handled in processOnce, and thrown again only for the span to record it.
    await traced(tracer, name, { root: true, attributes: { pod: key } }, () =>
      this.processOnce(key, pod, true),
    ).catch(() => {});
  }

  private async processOnce(key: PodKey, pod: Pod | undefined, rethrow: boolean): Promise<void> {
    const t0 = performance.now();
    try {
      if (pod === undefined) await this.deletePod(key, t0);
      else await this.reconcilePod(key, pod, t0);
      this.queue.forget(key);
      this.options.metrics?.reconciled('pod', 'success', (performance.now() - t0) / 1000);
    } catch (e) {
      this.unsure.add(key);
      const failure = classifyFailure(e);
      const attempts = (this.status.get(key)?.attempts ?? 0) + 1;
      const retrying = failure.retryable && this.queue.retries(key) < this.maxRetries;
      const ms = performance.now() - t0;
      this.stats.failures++;
      this.setStatus(key, { state: 'failed', failure, attempts, ms });
      const event: FailureEvent = {
        time: new Date().toISOString(),
        pod: key,
        reason: failure.reason,
        message: failure.message,
        retrying,
      };
      this.events.push(event);
      this.options.onEvent?.(event);
      this.log(retrying ? 'warn' : 'error', 'failed', {
        pod: key,
        reason: failure.reason,
        error: failure.message,
        attempts,
        retrying,
        ms: Math.round(ms * 10) / 10,
      });
      if (retrying) this.queue.addRateLimited(key);
      this.options.metrics?.reconciled('pod', 'failure', ms / 1000);
      this.options.metrics?.failed('pod', failure.reason);
      if (rethrow) throw e;
    }
  }

  private async reconcilePod(key: PodKey, pod: Pod, t0: number): Promise<void> {
    const intent = parsePodIntent(pod, this.defaultSubnet);
    const subnet = this.ipam.subnet(intent.subnet);
    const { take, lease } = tracedSync(
      this.options.tracer,
      'ipam.lease',
      { attributes: { pod: key } },
      (span) => {
        const take =
          this.ipam.allocationOf(key) === undefined
            ? this.options.pools?.take(pod, key, subnet.name, intent.request)
            : undefined;
        span?.setAttribute('pool', take !== undefined);
        return { take, lease: take?.lease ?? this.ipam.lease(key, subnet.name, intent.request) };
      },
    );
    const ipamMs = performance.now() - t0;
    let nbMs: number;
    const groups = new Set([namespacePortGroup(pod.namespace), nodePortGroup(pod.node)]);
    for (const pg of this.nb.client.rows('Port_Group')) groups.delete(pg.name);
    const unlock = groups.size > 0 ? await this.creating.acquire([...groups]) : undefined;
    try {
      const t1 = performance.now();
      const { value: port } = await traced(
        this.options.tracer,
        'nb.transact',
        { attributes: { pod: key } },
        () =>
          this.nb.transact((t) => {
            take?.guard(t);
            return applyPod(t, {
              portUuid:
                take?.uuid ?? (this.unsure.has(key) ? undefined : (this.ports.get(key) ?? null)),
              adopt: take !== undefined,
              router: this.router,
              subnet,
              pod,
              key,
              intent,
              allocation: lease.allocation,
              dhcpLeaseTime: this.options.topology.dhcpLeaseTime,
            });
          }),
      );
      nbMs = performance.now() - t1;
      this.ports.set(key, port);
      this.unsure.delete(key);
      this.stats.transactions++;
      lease.commit();
      take?.settle(true);
      if (take !== undefined) this.stats.poolStarts++;
    } catch (e) {
      lease.rollback();
      take?.settle(false);
      throw e;
    } finally {
      unlock?.();
    }
    const annotations = resultAnnotations(lease.allocation);
    await this.options.source.annotate?.(key, annotations);
    const ms = performance.now() - t0;
    this.stats.reconciled++;
    this.stats.reconcileMs += ms;
    this.status.set(key, { key, state: 'ready', annotations, attempts: 0, ms });
    this.log('info', 'reconciled', {
      pod: key,
      subnet: subnet.name,
      ips: lease.allocation.ips,
      mac: lease.allocation.mac,
      changed: lease.changed,
      pool: take !== undefined,
      ms: Math.round(ms * 10) / 10,
      ipamMs: Math.round(ipamMs * 10) / 10,
      nbMs: Math.round(nbMs * 10) / 10,
    });
  }

  private async deletePod(key: PodKey, t0: number): Promise<void> {
    const router = this.router;
    const portUuid = this.ports.get(key);
    const dry = this.nb.dryRun((t) => removePod(t, router, key, portUuid));
    const back = dry.value ? this.options.pools?.giveBack(key, portUuid) : undefined;
    if (dry.value) {
      try {
        await traced(this.options.tracer, 'nb.transact', { attributes: { pod: key } }, () =>
          this.nb.transact((t) => {
            const removed = removePod(t, router, key, portUuid);
            back?.build(t);
            return removed;
          }),
        );
      } catch (e) {
        back?.settle(undefined);
        throw e;
      }
      this.stats.transactions++;
    }
    this.ports.delete(key);
    this.unsure.delete(key);
    const released = this.ipam.release(key);
    back?.settle(released);
    this.stats.deleted++;
    const ms = performance.now() - t0;
    this.status.set(key, { key, state: 'deleted', attempts: 0, ms });
    this.log('info', 'deleted', {
      pod: key,
      released: released?.ips ?? [],
      nb: dry.value,
      pool: back !== undefined,
      ms: Math.round(ms * 10) / 10,
    });
  }
}

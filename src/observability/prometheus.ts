/**
 * {@link prometheusMetrics}: the metrics hooks of the database client and
 * of the in-memory server over prom-client. The caller passes prom-client's
 * module (`import * as promClient from 'prom-client'`): ovnkit never imports
 * it, so programs that do not use metrics need not install it.
 *
 * ```ts
 * import * as promClient from 'prom-client';
 * import { prometheusMetrics } from 'ovnkit/client';
 *
 * const metrics = prometheusMetrics(promClient, { client: 'pod-controller' });
 * const db = await openDatabase({ remotes, model: NB, metrics });
 * // later: await promClient.register.metrics()
 * ```
 *
 * One adapter may serve any number of clients and servers (the database
 * name labels each client's series); several adapters over one registry
 * share its metrics (each with its own `client` label). Every metric is
 * listed in `docs/observability.md`.
 * @module
 */

import type {
  ClientMetrics,
  ClientMetricsRecorder,
  ClientMetricsTarget,
  ReconnectReason,
  RpcErrorKind,
  ServerMetrics,
  ServerMetricsRecorder,
  ServerMetricsTarget,
  ServerTransactionOutcome,
  TransactionOutcomeLabel,
} from './metrics.js';

/** Label values, by label name. */
export type PromLabels = Readonly<Record<string, string>>;

/** What the adapter uses of a prom-client `Counter`. */
export interface PromCounterLike {
  inc(labels: PromLabels, value?: number): void;
}

/** What the adapter uses of a prom-client `Gauge`. */
export interface PromGaugeLike {
  set(labels: PromLabels, value: number): void;
  reset(): void;
}

/** What the adapter uses of a prom-client `Histogram`. */
export interface PromHistogramLike {
  observe(labels: PromLabels, value: number): void;
}

/** What the adapter uses of a prom-client `Registry`. */
export interface PromRegistryLike {
  getSingleMetric(name: string): unknown;
}

/** The configuration the adapter gives prom-client's metric constructors. */
export interface PromMetricConfig<R> {
  name: string;
  help: string;
  labelNames: string[];
  registers: R[];
}

/**
 * The part of prom-client's module the adapter uses (pass the module
 * itself: `import * as promClient from 'prom-client'`).
 * @typeParam R - prom-client's `Registry` type.
 */
export interface PromClientLike<R extends PromRegistryLike> {
  /** prom-client's `Counter` class. */
  readonly Counter: new (
    config: PromMetricConfig<R>,
  ) => PromCounterLike;
  /** prom-client's `Gauge` class. */
  readonly Gauge: new (
    config: PromMetricConfig<R> & { collect?: (this: PromGaugeLike) => void },
  ) => PromGaugeLike;
  /** prom-client's `Histogram` class. */
  readonly Histogram: new (
    config: PromMetricConfig<R> & { buckets?: number[] },
  ) => PromHistogramLike;
  /** prom-client's default registry. */
  readonly register: R;
}

/** Options of {@link prometheusMetrics}. */
export interface PrometheusMetricsOptions<R> {
  /** Where the metrics are registered. Default: prom-client's default registry. */
  readonly registry?: R | undefined;
  /** Prefix of every metric name. Default `ovnkit_`. */
  readonly prefix?: string | undefined;
  /** The `client` label of every client series (e.g. the program's name). Default: none. */
  readonly client?: string | undefined;
  /**
   * The buckets of the transaction latency histogram, in seconds. Default
   * {@link DEFAULT_TRANSACTION_BUCKETS}.
   */
  readonly buckets?: readonly number[] | undefined;
}

/** The default buckets of the transaction latency histogram, in seconds (0.5 ms to 10 s). */
export const DEFAULT_TRANSACTION_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * The metrics hooks over prom-client: pass it as the `metrics` option of
 * `connectDatabase` / `openDatabase` (it is a {@link ClientMetrics}) and of
 * `createServer` (it is a {@link ServerMetrics}).
 */
export interface PrometheusMetrics<R> extends ClientMetrics, ServerMetrics {
  /** The registry the metrics are registered in. */
  readonly registry: R;
}

/**
 * Metrics hooks that count into prom-client metrics registered in
 * `options.registry` (created on first use: the client metrics when a
 * client first uses the adapter, the server metrics when a server does).
 * See `docs/observability.md` for the list.
 *
 * ```ts
 * import * as promClient from 'prom-client';
 * const registry = new promClient.Registry();
 * const metrics = prometheusMetrics(promClient, { registry });
 * const client = connectDatabase({ remotes, model: NB, metrics });
 * console.log(await registry.metrics());
 * ```
 * @param promClient - prom-client's module.
 * @throws TypeError when `promClient` does not look like prom-client's
 *   module, or a metric of the same name but another type is already
 *   registered.
 */
export function prometheusMetrics<R extends PromRegistryLike>(
  promClient: PromClientLike<R>,
  options: PrometheusMetricsOptions<R> = {},
): PrometheusMetrics<R> {
  if (
    promClient === null ||
    typeof promClient !== 'object' ||
    typeof promClient.Counter !== 'function' ||
    typeof promClient.Gauge !== 'function' ||
    typeof promClient.Histogram !== 'function'
  ) {
    throw new TypeError(
      'prometheusMetrics: the first argument must be the module of prom-client (import * as promClient from "prom-client")',
    );
  }
  const registry = options.registry ?? promClient.register;
  const factory = new MetricFactory(promClient, registry, options.prefix ?? 'ovnkit_');
  const clientLabel = options.client;
  const buckets = [...(options.buckets ?? DEFAULT_TRANSACTION_BUCKETS)];
  let clientSet: ClientMetricSet | undefined;
  let serverSet: ServerMetricSet | undefined;
  return {
    registry,
    forClient(target: ClientMetricsTarget): ClientMetricsRecorder {
      clientSet ??= clientMetricSet(factory, buckets);
      return new PromClientRecorder(clientSet, target, clientLabel);
    },
    forServer(target: ServerMetricsTarget): ServerMetricsRecorder {
      serverSet ??= serverMetricSet(factory);
      return new PromServerRecorder(serverSet, target);
    },
  };
}

// ---- metric creation ------------------------------------------------------------------

/** What a gauge samples at each scrape. */
type Sampler = (set: (labels: PromLabels, value: number) => void) => void;

/** The samplers of each gauge (shared by every adapter over the gauge's registry). */
const samplers = new WeakMap<object, Set<Sampler>>();

/** A gauge's samplers, summed per label set at each scrape. */
function gaugeSamplers(gauge: PromGaugeLike): Set<Sampler> {
  let set = samplers.get(gauge);
  if (set === undefined) {
    set = new Set();
    samplers.set(gauge, set);
  }
  return set;
}

function sampleGauge(gauge: PromGaugeLike): void {
  const set = samplers.get(gauge);
  gauge.reset();
  if (set === undefined) return;
  const sums = new Map<string, { labels: PromLabels; value: number }>();
  for (const sample of set) {
    sample((labels, value) => {
      const key = JSON.stringify(labels);
      const entry = sums.get(key);
      if (entry === undefined) sums.set(key, { labels, value });
      else entry.value += value;
    });
  }
  for (const { labels, value } of sums.values()) gauge.set(labels, value);
}

class MetricFactory<R extends PromRegistryLike> {
  constructor(
    private readonly prom: PromClientLike<R>,
    private readonly registry: R,
    private readonly prefix: string,
  ) {}

  counter(name: string, help: string, labelNames: string[]): PromCounterLike {
    return this.reuse(name, 'counter', (config) => new this.prom.Counter(config), help, labelNames);
  }

  gauge(name: string, help: string, labelNames: string[]): PromGaugeLike {
    return this.reuse(
      name,
      'gauge',
      (config) =>
        new this.prom.Gauge({
          ...config,
          collect(this: PromGaugeLike) {
            sampleGauge(this);
          },
        }),
      help,
      labelNames,
    );
  }

  histogram(
    name: string,
    help: string,
    labelNames: string[],
    buckets: number[],
  ): PromHistogramLike {
    return this.reuse(
      name,
      'histogram',
      (config) => new this.prom.Histogram({ ...config, buckets }),
      help,
      labelNames,
    );
  }

  /** The metric `name` of the registry when there is one (of the same type), else a new one. */
  private reuse<M>(
    name: string,
    type: string,
    make: (config: PromMetricConfig<R>) => M,
    help: string,
    labelNames: string[],
  ): M {
    const full = this.prefix + name;
    const existing = this.registry.getSingleMetric(full) as { type?: unknown } | undefined;
    if (existing !== undefined) {
      if (existing.type !== undefined && existing.type !== type) {
        throw new TypeError(
          `prometheusMetrics: the registry already has a metric ${full} of type ${String(existing.type)}, not ${type}`,
        );
      }
      return existing as M;
    }
    return make({ name: full, help, labelNames, registers: [this.registry] });
  }
}

// ---- client -----------------------------------------------------------------------------

interface ClientMetricSet {
  readonly transactions: PromCounterLike;
  readonly duration: PromHistogramLike;
  readonly rpcErrors: PromCounterLike;
  readonly reconnects: PromCounterLike;
  readonly updates: PromCounterLike;
  readonly rows: PromCounterLike;
  readonly syncs: PromCounterLike;
  readonly resumes: PromCounterLike;
  readonly pauses: PromCounterLike;
  readonly queue: PromGaugeLike;
  readonly locks: PromGaugeLike;
  readonly connected: PromGaugeLike;
  readonly inSync: PromGaugeLike;
  readonly server: PromGaugeLike;
  readonly messageAge: PromGaugeLike;
  readonly updateAge: PromGaugeLike;
}

const CLIENT = ['db', 'client'];

function clientMetricSet<R extends PromRegistryLike>(
  f: MetricFactory<R>,
  buckets: number[],
): ClientMetricSet {
  return {
    transactions: f.counter(
      'client_transactions_total',
      'Typed transactions (transact), by outcome.',
      [...CLIENT, 'outcome'],
    ),
    duration: f.histogram(
      'client_transaction_duration_seconds',
      'Time from a typed transact call to its settling (replays and outcome resolution included), by outcome.',
      [...CLIENT, 'outcome'],
      buckets,
    ),
    rpcErrors: f.counter('client_rpc_errors_total', 'Failed requests, by method and kind.', [
      ...CLIENT,
      'method',
      'kind',
    ]),
    reconnects: f.counter(
      'client_reconnects_total',
      'Connections in sync that were lost (each starts a reconnection), by reason.',
      [...CLIENT, 'reason'],
    ),
    updates: f.counter(
      'client_monitor_updates_total',
      'Monitor update notifications applied to the replica.',
      CLIENT,
    ),
    rows: f.counter(
      'client_monitor_rows_total',
      'Row changes applied to the replica from monitor update notifications.',
      CLIENT,
    ),
    syncs: f.counter(
      'client_monitor_syncs_total',
      'Monitors brought in sync (on each connection and monitor restart), by kind: full (a full dump) or resumed (monitor_cond_since found the last transaction id).',
      [...CLIENT, 'kind'],
    ),
    resumes: f.counter(
      'client_resumes_total',
      'monitor_cond_since requests that asked to resume from a transaction id, by the answer (found: true or false).',
      [...CLIENT, 'found'],
    ),
    pauses: f.counter(
      'client_backpressure_pauses_total',
      'Times the event queue reached its high-water mark and the client stopped reading the socket.',
      CLIENT,
    ),
    queue: f.gauge(
      'client_event_queue_length',
      'Row and status events queued and not yet delivered to the handlers.',
      CLIENT,
    ),
    locks: f.gauge(
      'client_lock_held',
      'OVSDB locks the client asked for: 1 while it holds the lock, 0 while it does not.',
      [...CLIENT, 'lock'],
    ),
    connected: f.gauge(
      'client_connected',
      '1 while a connection to a server is open, 0 while the client is (re)connecting.',
      CLIENT,
    ),
    inSync: f.gauge(
      'client_in_sync',
      '1 while every monitor is in sync on the current connection (the replica is current), else 0.',
      CLIENT,
    ),
    server: f.gauge(
      'client_server_role',
      'The server the client is connected to, and its role (leader, follower, relay, standalone): 1 for the current one.',
      [...CLIENT, 'remote', 'role'],
    ),
    messageAge: f.gauge(
      'client_last_message_age_seconds',
      'Seconds since the last bytes arrived from a server.',
      CLIENT,
    ),
    updateAge: f.gauge(
      'client_last_update_age_seconds',
      'Seconds since the replica last applied a monitor update or a sync.',
      CLIENT,
    ),
  };
}

class PromClientRecorder implements ClientMetricsRecorder {
  private readonly base: PromLabels;
  private readonly byValue = new Map<string, PromLabels>();
  /** The gauges this client is sampled into, and how. */
  private readonly sampled: (readonly [PromGaugeLike, Sampler])[] = [];

  constructor(
    private readonly set: ClientMetricSet,
    target: ClientMetricsTarget,
    client: string | undefined,
  ) {
    this.base = client === undefined ? { db: target.db } : { db: target.db, client };
    const base = this.base;
    this.sample(set.queue, (emit) => emit(base, target.queueLength()));
    const locks = target.locks?.bind(target);
    if (locks !== undefined) {
      this.sample(set.locks, (emit) => {
        for (const l of locks()) emit({ ...base, lock: l.name }, l.held ? 1 : 0);
      });
    }
    const health = target.health?.bind(target);
    if (health !== undefined) {
      const seconds = (ms: number | undefined, emit: (l: PromLabels, v: number) => void) => {
        if (ms !== undefined) emit(base, ms / 1000);
      };
      this.sample(set.connected, (emit) => emit(base, health().connected ? 1 : 0));
      this.sample(set.inSync, (emit) => emit(base, health().inSync ? 1 : 0));
      this.sample(set.server, (emit) => {
        const h = health();
        if (h.connected && h.remote !== undefined) {
          emit({ ...base, remote: h.remote, role: h.role ?? 'unknown' }, 1);
        }
      });
      this.sample(set.messageAge, (emit) => seconds(health().lastMessageAgeMs, emit));
      this.sample(set.updateAge, (emit) => seconds(health().lastUpdateAgeMs, emit));
    }
  }

  private sample(gauge: PromGaugeLike, sampler: Sampler): void {
    gaugeSamplers(gauge).add(sampler);
    this.sampled.push([gauge, sampler]);
  }

  /** The base labels plus `name`=`value` (cached). */
  private with(name: string, value: string): PromLabels {
    const key = `${name}\u0000${value}`;
    let labels = this.byValue.get(key);
    if (labels === undefined) {
      labels = { ...this.base, [name]: value };
      this.byValue.set(key, labels);
    }
    return labels;
  }

  transaction(outcome: TransactionOutcomeLabel, seconds: number): void {
    const labels = this.with('outcome', outcome);
    this.set.transactions.inc(labels);
    this.set.duration.observe(labels, seconds);
  }

  rpcError(method: string, kind: RpcErrorKind): void {
    this.set.rpcErrors.inc({ ...this.base, method, kind });
  }

  reconnect(reason: ReconnectReason): void {
    this.set.reconnects.inc(this.with('reason', reason));
  }

  monitorUpdate(rows: number): void {
    this.set.updates.inc(this.base);
    if (rows > 0) this.set.rows.inc(this.base, rows);
  }

  backpressurePause(): void {
    this.set.pauses.inc(this.base);
  }

  resume(found: boolean): void {
    this.set.resumes.inc(this.with('found', found ? 'true' : 'false'));
  }

  monitorSync(full: boolean): void {
    this.set.syncs.inc(this.with('kind', full ? 'full' : 'resumed'));
  }

  close(): void {
    for (const [gauge, sampler] of this.sampled) samplers.get(gauge)?.delete(sampler);
  }
}

// ---- server -----------------------------------------------------------------------------

interface ServerMetricSet {
  readonly sessions: PromGaugeLike;
  readonly monitors: PromGaugeLike;
  readonly transactions: PromCounterLike;
}

function serverMetricSet<R extends PromRegistryLike>(f: MetricFactory<R>): ServerMetricSet {
  return {
    sessions: f.gauge('server_sessions', 'Client sessions connected to the server.', []),
    monitors: f.gauge('server_monitors', 'Monitors of the connected sessions.', []),
    transactions: f.counter(
      'server_transactions_total',
      'transact requests answered, by database and outcome (committed: changed the database; unchanged: succeeded without a change; failed: an operation or the commit failed).',
      ['db', 'outcome'],
    ),
  };
}

const NO_LABELS: PromLabels = {};

class PromServerRecorder implements ServerMetricsRecorder {
  private readonly sessionSampler: Sampler;
  private readonly monitorSampler: Sampler;
  private readonly labels = new Map<string, PromLabels>();

  constructor(
    private readonly set: ServerMetricSet,
    target: ServerMetricsTarget,
  ) {
    this.sessionSampler = (emit) => emit(NO_LABELS, target.sessions());
    this.monitorSampler = (emit) => emit(NO_LABELS, target.monitors());
    gaugeSamplers(set.sessions).add(this.sessionSampler);
    gaugeSamplers(set.monitors).add(this.monitorSampler);
  }

  transaction(db: string, outcome: ServerTransactionOutcome): void {
    const key = `${db}\u0000${outcome}`;
    let labels = this.labels.get(key);
    if (labels === undefined) {
      labels = { db, outcome };
      this.labels.set(key, labels);
    }
    this.set.transactions.inc(labels);
  }

  close(): void {
    samplers.get(this.set.sessions)?.delete(this.sessionSampler);
    samplers.get(this.set.monitors)?.delete(this.monitorSampler);
  }
}

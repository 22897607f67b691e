/**
 * `ovnkit-server --metrics [IP]:PORT`: the server's metrics, with
 * prom-client's default process metrics, served over HTTP at `GET /metrics`
 * in Prometheus' text format. prom-client is loaded (a dynamic import) only
 * when the option is given.
 * @module
 */

import {
  type MetricsAddress,
  parseMetricsAddress,
  serveMetricsRegistry,
} from '../../net/metrics-endpoint.js';
import type { ServerMetrics } from '../../observability/metrics.js';
import { type PromClientLike, prometheusMetrics } from '../../observability/prometheus.js';

export { type MetricsAddress, parseMetricsAddress };

/** The part of prom-client the endpoint uses beyond the adapter's. */
interface PromModule extends PromClientLike<PromRegistry> {
  readonly Registry: new () => PromRegistry;
  readonly collectDefaultMetrics: (config: { register: PromRegistry }) => void;
}

interface PromRegistry {
  getSingleMetric(name: string): unknown;
  metrics(): Promise<string>;
  readonly contentType: string;
}

/**
 * Load prom-client (by `specifier`).
 * @throws Error saying that `--metrics` needs it, when it is not installed.
 */
export async function loadPromClient(specifier = 'prom-client'): Promise<PromModule> {
  let mod: unknown;
  try {
    mod = await import(specifier);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new Error(
        `--metrics needs the prom-client package, which is not installed (npm install prom-client): ${(e as Error).message}`,
      );
    }
    throw e;
  }
  const m = mod as Partial<PromModule> & { default?: Partial<PromModule> };
  // prom-client is CommonJS: its exports may only be under `default`.
  const prom = typeof m.Registry === 'function' ? m : m.default;
  if (prom === undefined || typeof prom.Registry !== 'function') {
    throw new Error(`--metrics: ${specifier} does not look like prom-client (no Registry)`);
  }
  return prom as PromModule;
}

/** A metrics endpoint, ready for the server's metrics. */
export interface MetricsEndpoint {
  /** The metrics hooks to give the server. */
  readonly metrics: ServerMetrics;
  /** The address bound: `IP:PORT`. */
  readonly address: string;
  /** The URL of the metrics. */
  readonly url: string;
  /** Stop listening. */
  close(): Promise<void>;
}

/**
 * Load prom-client, make a registry with its default metrics and ovnkit's
 * server metrics, and serve it at `GET /metrics` on `address`.
 * @throws Error when prom-client is missing or the address cannot be bound.
 */
export async function startMetricsEndpoint(address: MetricsAddress): Promise<MetricsEndpoint> {
  const prom = await loadPromClient();
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });
  const metrics = prometheusMetrics(prom, { registry });
  const http = await serveMetricsRegistry(registry, address);
  return { metrics, address: http.address, url: http.url, close: () => http.close() };
}

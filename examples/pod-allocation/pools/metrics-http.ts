/**
 * {@link serveMetrics}: a `/metrics` endpoint over HTTP for a prom-client
 * registry (what `npm run demo -- --metrics 127.0.0.1:9464` starts), on
 * the endpoint `ovnkit-server --metrics` serves (`serveMetricsRegistry` of
 * `ovnkit/server`).
 * @module
 */

import {
  type MetricsHttpServer,
  type MetricsRegistryLike,
  parseMetricsAddress,
  serveMetricsRegistry,
} from 'ovnkit/server';

/** What {@link serveMetrics} needs of a prom-client `Registry`. */
export type MetricsRegistry = MetricsRegistryLike;

/** A running `/metrics` endpoint. */
export type MetricsServer = MetricsHttpServer;

/**
 * Serve `registry` at `/metrics` on `address` (`host:port`, `[v6]:port`;
 * port 0 picks a free one; no host: 127.0.0.1).
 * @throws Error naming what is wrong with the address, or why it cannot be bound.
 */
export function serveMetrics(registry: MetricsRegistry, address: string): Promise<MetricsServer> {
  const { host, port } = parseMetricsAddress(address);
  return serveMetricsRegistry(registry, { host: host ?? '127.0.0.1', port });
}

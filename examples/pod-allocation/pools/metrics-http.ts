/**
 * {@link serveMetrics}: a `/metrics` endpoint over HTTP for a prom-client
 * registry (what `npm run demo -- --metrics 127.0.0.1:9464` starts).
 * @module
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What {@link serveMetrics} needs of a prom-client `Registry`. */
export interface MetricsRegistry {
  metrics(): Promise<string>;
  readonly contentType: string;
}

/** A running `/metrics` endpoint. */
export interface MetricsServer {
  /** `http://host:port/metrics`, with the port actually bound. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Parse `host:port` (`[v6]:port` for IPv6; port 0 picks a free one).
 * @throws TypeError naming what is wrong.
 */
export function parseListenAddress(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(text);
  const port = m === null ? Number.NaN : Number(m[3]);
  if (m === null || !(port >= 0 && port <= 65535)) {
    throw new TypeError(
      `--metrics ${JSON.stringify(text)}: expected HOST:PORT, e.g. 127.0.0.1:9464`,
    );
  }
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

/** Serve `registry` at `/metrics` on `address` (`host:port`). */
export async function serveMetrics(
  registry: MetricsRegistry,
  address: string,
): Promise<MetricsServer> {
  const { host, port } = parseListenAddress(address);
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(e)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const h = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${h}:${bound.port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

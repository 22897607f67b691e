/**
 * `ovnkit-server --metrics [IP]:PORT`: the server's metrics, with
 * prom-client's default process metrics, served over HTTP at `GET /metrics`
 * in Prometheus' text format. prom-client is loaded (a dynamic import) only
 * when the option is given.
 * @module
 */

import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerMetrics } from '../ovsdb/metrics.js';
import { type PromClientLike, prometheusMetrics } from '../ovsdb/metrics-prometheus.js';

/** Where `--metrics` listens. */
export interface MetricsAddress {
  /** The IP address (undefined: every interface). */
  readonly host: string | undefined;
  readonly port: number;
}

/**
 * Read a `--metrics` value: `IP:PORT`, `[IPv6]:PORT` or `:PORT` (every
 * interface); port 0 picks a free one.
 * @throws Error saying what is wrong with it.
 */
export function parseMetricsAddress(text: string): MetricsAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d+)$/.exec(text);
  if (m === null) {
    throw new Error(`--metrics=${text}: expected [IP]:PORT (e.g. 127.0.0.1:9464 or :9464)`);
  }
  const port = Number(m[3]);
  if (!Number.isInteger(port) || port > 65535) {
    throw new Error(`--metrics=${text}: port must be 0 to 65535, got ${m[3]}`);
  }
  const host = m[1] ?? m[2];
  return { host: host === '' ? undefined : host, port };
}

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
  const http = createHttpServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end();
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (e: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`${(e as Error).message}\n`);
      },
    );
  });
  await listen(http, address);
  const bound = http.address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  const text = `${host}:${bound.port}`;
  return {
    metrics,
    address: text,
    url: `http://${text}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

function listen(http: Server, address: MetricsAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => {
      reject(
        new Error(
          `--metrics: cannot listen on ${address.host ?? ''}:${address.port}: ${e.message}`,
        ),
      );
    };
    http.once('error', onError);
    const done = () => {
      http.off('error', onError);
      resolve();
    };
    if (address.host === undefined) http.listen(address.port, done);
    else http.listen(address.port, address.host, done);
  });
}

/**
 * A `GET /metrics` endpoint over HTTP for a Prometheus registry (the
 * text exposition format), and the `[IP]:PORT` address it listens on: what
 * `ovnkit-server --metrics` and the demo's `--metrics` serve.
 * @module
 */

import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** What the endpoint needs of a prom-client `Registry`. */
export interface MetricsRegistryLike {
  metrics(): Promise<string>;
  readonly contentType: string;
}

/** A running `/metrics` endpoint. */
export interface MetricsHttpServer {
  /** The address bound: `IP:PORT`. */
  readonly address: string;
  /** The URL of the metrics, with the port actually bound. */
  readonly url: string;
  /** Stop listening (open connections are closed). */
  close(): Promise<void>;
}

/**
 * Serve `registry` at `GET /metrics` (and `HEAD`) on `address`: 404
 * elsewhere, 405 to other methods, 500 with the error when the registry
 * fails.
 * @throws Error naming the address when it cannot be bound.
 */
export async function serveMetricsRegistry(
  registry: MetricsRegistryLike,
  address: MetricsAddress,
): Promise<MetricsHttpServer> {
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

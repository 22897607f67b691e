/**
 * A `GET /metrics` endpoint over HTTP for a Prometheus registry (the
 * text exposition format), and the `[IP]:PORT` address it listens on: what
 * `ovnkit-server --metrics` and the demo's `--metrics` serve.
 *
 * The endpoint has bounds of its own, apart from the program's other
 * connections: at most {@link MetricsServeOptions.maxConnections} at once
 * (more are closed as they come), and a connection idle for
 * {@link MetricsServeOptions.idleTimeoutMs} is closed. It answers only
 * requests addressed to it: the `Host` header must name the port bound and
 * the address bound (any IP address when bound to every interface, with
 * the machine's host name), or `localhost` when that address is a loopback
 * or wildcard one; other requests get 421. A web page of a name that
 * resolves to the endpoint's address (DNS rebinding) is thereby refused.
 * @module
 */

import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { hostname } from 'node:os';
import { isLoopbackHost } from './auth.js';

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

/** Bounds of a `/metrics` endpoint. */
export interface MetricsServeOptions {
  /** Most connections at once (default {@link DEFAULT_METRICS_MAX_CONNECTIONS}); more are closed as they come. */
  readonly maxConnections?: number | undefined;
  /**
   * Close a connection that sends nothing for this many ms, and one whose
   * request is not whole within it (default {@link DEFAULT_METRICS_IDLE_TIMEOUT_MS}).
   */
  readonly idleTimeoutMs?: number | undefined;
}

/** Default {@link MetricsServeOptions.maxConnections}: 16. */
export const DEFAULT_METRICS_MAX_CONNECTIONS = 16;
/** Default {@link MetricsServeOptions.idleTimeoutMs}: 10 s. */
export const DEFAULT_METRICS_IDLE_TIMEOUT_MS = 10_000;

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
 * elsewhere, 405 to other methods, 421 to a request for another host
 * (see the module documentation), 500 with the error when the registry
 * fails.
 * @throws Error naming the address when it cannot be bound.
 */
export async function serveMetricsRegistry(
  registry: MetricsRegistryLike,
  address: MetricsAddress,
  options: MetricsServeOptions = {},
): Promise<MetricsHttpServer> {
  const idle = options.idleTimeoutMs ?? DEFAULT_METRICS_IDLE_TIMEOUT_MS;
  let bound: AddressInfo | undefined;
  const http = createHttpServer((req, res) => {
    if (bound === undefined || !addressedTo(req, bound)) {
      res
        .writeHead(421, { 'content-type': 'text/plain', connection: 'close' })
        .end(`not this endpoint's host: ${JSON.stringify(req.headers.host ?? '')}\n`);
      return;
    }
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
  http.maxConnections = options.maxConnections ?? DEFAULT_METRICS_MAX_CONNECTIONS;
  http.setTimeout(idle);
  http.headersTimeout = idle;
  http.requestTimeout = idle;
  http.keepAliveTimeout = Math.min(http.keepAliveTimeout, idle);
  await listen(http, address);
  bound = http.address() as AddressInfo;
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

/** Whether `req`'s `Host` names the endpoint bound at `bound` (see the module documentation). */
function addressedTo(req: IncomingMessage, bound: AddressInfo): boolean {
  const header = req.headers.host;
  // Only HTTP/1.0 may leave it out, which no browser does.
  if (header === undefined) return true;
  let url: URL;
  try {
    url = new URL(`http://${header}`);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '') {
    return false;
  }
  if (Number(url.port === '' ? 80 : url.port) !== bound.port) return false;
  const name = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const wildcard = bound.address === '0.0.0.0' || bound.address === '::';
  if (isIP(name) !== 0) return wildcard || name === bound.address.toLowerCase();
  if (name === 'localhost') return wildcard || isLoopbackHost(bound.address);
  return wildcard && name === hostname().toLowerCase();
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

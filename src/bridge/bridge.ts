/**
 * The OVSDB ↔ WebSocket bridge: browsers (and any WebSocket client) talk
 * JSON-RPC to an `ovsdb-server`, which speaks only unix, tcp and ssl.
 *
 * ```ts
 * const bridge = await startBridge({
 *   listen: 'ws://127.0.0.1:8080/ovsdb',
 *   remote: 'unix:/var/run/ovn/ovnnb_db.sock',
 *   tokens: [token],
 *   policy: { allowDbs: ['OVN_Northbound'], readOnly: true },
 * });
 * // browsers: new WebSocket('ws://127.0.0.1:8080/ovsdb?token=…')
 * await bridge.close();
 * ```
 *
 * Each WebSocket client gets its own connection to the server. Every text
 * frame from the client must hold one JSON-RPC 1.0 message; the bridge parses
 * and checks it (members, {@link BridgePolicy}) and forwards it re-serialized,
 * so the server never sees what the bridge did not check. The server's byte
 * stream is cut back into messages with the `JsonStreamFramer` and each
 * one's text is sent, as received, in its own text frame. 64-bit integers
 * pass through exactly in both directions.
 *
 * ## Closing
 * The bridge closes a client's WebSocket with a code and a reason:
 * - 1008 policy violation: no or a wrong token (`unauthorized: …`), or a
 *   malformed JSON-RPC message (which would make ovsdb-server drop the
 *   connection);
 * - 1009 message too big: a frame over `maxFrameBytes`, or a server message
 *   over `maxMessageBytes` (`maxUnsolicitedBytes` for one that begins while
 *   none of the client's requests is pending);
 * - 1007 invalid payload: a frame that is not JSON (or not UTF-8);
 * - 1003 unsupported data: a binary frame;
 * - 1011 internal error: the server cannot be reached, closed the
 *   connection, or sent invalid data;
 * - 1013 try again later: a buffer bound would be passed (see Bounds), or
 *   the client missed a ping while the bridge was not reading it (flow
 *   control: see Backpressure);
 * - 1001 going away: the bridge is shutting down.
 * Refused requests do not close anything: they get a JSON-RPC error reply
 * `{"id":…,"result":null,"error":{"error":"permission error","details":"…","refused_by":"bridge"}}`
 * (with `"operation": <index>` when one operation of a `transact` was
 * refused), which the client raises as a `TransactionRefusedError`.
 *
 * ## Backpressure
 * Each direction is bounded. Bytes queued for a client (sent but not yet
 * written to its socket) are counted; above `highWaterMark` the bridge stops
 * reading that client's server socket (and the client's own frames) until
 * the queue falls to a quarter of it. When the server socket's write buffer
 * is full, or `maxPendingRequests` of the client's requests wait for their
 * replies, the bridge stops reading the client until that changes. A client
 * that stops reading therefore holds at most about `highWaterMark` plus one
 * server message in the bridge; the rest waits in the server and the kernel.
 * A client the bridge does not read cannot answer pings either: at the next
 * ping it is closed with 1013.
 *
 * ## Bounds
 * What the bridge holds for a client in both directions (see `buffers.ts`)
 * is bounded per client (`maxSessionBufferedBytes`) and for all clients
 * together (`maxBufferedBytes`, default 1 GiB); a client whose growth would
 * pass either is closed with 1013 (try again later). At most
 * `maxConnections` clients are served at once (default 1,000); more are
 * refused with HTTP 503 before the upgrade.
 * @module
 */

import { realpath } from 'node:fs/promises';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { isLoopbackHost, TokenAuthenticator } from '../net/auth.js';
import { type ListenAddress, listenUrl, parseListenAddress } from '../net/listen-address.js';
import { OriginPolicy } from '../net/origin.js';
import { serveStatic } from '../net/static-files.js';
import { formatRemote, type SocketRemote } from '../ovsdb/transport/remote.js';
import { DEFAULT_MAX_REPLY_BYTES, DEFAULT_MAX_UNSOLICITED_BYTES } from '../ovsdb/wire/limits.js';
import { BufferBudget } from './buffers.js';
import {
  type BridgeLogger,
  type BridgeOptions,
  type BridgeStats,
  DEFAULT_BRIDGE_HIGH_WATER_MARK,
  DEFAULT_BRIDGE_MAX_BUFFERED_BYTES,
  DEFAULT_BRIDGE_MAX_PENDING_REQUESTS,
  DEFAULT_MAX_FRAME_BYTES,
} from './options.js';
import { BridgePolicy } from './policy.js';
import { type BridgeCounters, BridgeSession, type BridgeSessionHost } from './session.js';
import { parseUpstreamRemote } from './upstream.js';

/** A running bridge. */
export interface Bridge {
  /** The URL clients open, e.g. `ws://127.0.0.1:41234/ovsdb` (with the bound port). */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** The server remote the bridge forwards to. */
  readonly remote: string;
  /** A snapshot of the counters. */
  stats(): BridgeStats;
  /** Stop listening and close every client with 1001 (going away); resolves when all are closed. */
  close(): Promise<void>;
}

/** The bridge options are inconsistent (e.g. no token and no `noAuth`). */
export class BridgeConfigError extends Error {
  override name = 'BridgeConfigError';
}

/**
 * Start a bridge. Resolves once it listens.
 * @throws {@link BridgeConfigError} for inconsistent options (no token, `noAuth`
 *   on a non-loopback address, `wss:` without `tls`, …); RemoteSyntaxError for
 *   an invalid `listen` or `remote`; the socket error when listening fails.
 */
export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const address = parseListenAddress(options.listen);
  const upstream = parseUpstreamRemote(options.remote);
  const hasTokens = options.tokens !== undefined && options.tokens.length > 0;
  if (options.noAuth && hasTokens) {
    throw new BridgeConfigError('give tokens or noAuth, not both');
  }
  if (!options.noAuth && !hasTokens) {
    throw new BridgeConfigError(
      'a token is required (--token-file); --no-auth is only allowed on a loopback address',
    );
  }
  if (options.noAuth && !isLoopbackHost(address.host)) {
    throw new BridgeConfigError(
      `--no-auth is only allowed when listening on a loopback address, not ${address.host}`,
    );
  }
  if (address.kind === 'wss' && options.tls === undefined) {
    throw new BridgeConfigError('wss: needs a certificate and key (--tls-cert, --tls-key)');
  }
  if (address.kind === 'ws' && options.tls !== undefined) {
    throw new BridgeConfigError('a certificate was given but the address is ws:, not wss:');
  }
  const auth = new TokenAuthenticator(options.noAuth ? undefined : options.tokens);
  const policy = new BridgePolicy(options.policy);
  const staticRoot =
    options.staticDir === undefined ? undefined : await realpath(options.staticDir);
  const core = new BridgeCore(options, address, upstream, auth, policy, staticRoot);
  await core.listen();
  return core;
}

/** The listening side: HTTP(S) server, upgrades, and the set of sessions. */
class BridgeCore implements Bridge, BridgeSessionHost {
  url = '';
  port = 0;
  readonly remote: string;
  readonly counters: BridgeCounters = {
    connectionsOpen: 0,
    connectionsTotal: 0,
    upstreamConnects: 0,
    authFailures: 0,
    originRefusals: 0,
    refusedRequests: 0,
    messagesToServer: 0,
    messagesToClients: 0,
    upstreamPauses: 0,
    clientPauses: 0,
    maxQueuedBytes: 0,
    queuedBytes: 0,
    bufferedBytes: 0,
    peakBufferedBytes: 0,
    peakSessionBufferedBytes: 0,
    bufferDrops: 0,
    pingTimeouts: 0,
  };
  readonly buffers: BufferBudget;
  readonly sessions = new Set<BridgeSession>();
  readonly maxFrameBytes: number;
  readonly maxMessageBytes: number;
  readonly maxUnsolicitedBytes: number;
  readonly highWaterMark: number;
  readonly lowWaterMark: number;
  readonly maxPendingRequests: number;
  readonly connectTimeoutMs: number;
  private readonly server: Server;
  private readonly wss: WebSocketServer;
  private readonly maxConnections: number;
  private readonly origins: OriginPolicy;
  private closing: Promise<void> | undefined;
  private nextId = 1;
  private pingTimer: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly options: BridgeOptions,
    private readonly address: ListenAddress,
    readonly upstream: SocketRemote,
    private readonly auth: TokenAuthenticator,
    readonly policy: BridgePolicy,
    private readonly staticRoot: string | undefined,
  ) {
    this.remote = formatRemote(upstream);
    this.maxFrameBytes = positive('maxFrameBytes', options.maxFrameBytes, DEFAULT_MAX_FRAME_BYTES);
    this.maxMessageBytes = positive(
      'maxMessageBytes',
      options.maxMessageBytes,
      DEFAULT_MAX_REPLY_BYTES,
    );
    this.maxUnsolicitedBytes = Math.min(
      this.maxMessageBytes,
      positive('maxUnsolicitedBytes', options.maxUnsolicitedBytes, DEFAULT_MAX_UNSOLICITED_BYTES),
    );
    this.highWaterMark = positive(
      'highWaterMark',
      options.highWaterMark,
      DEFAULT_BRIDGE_HIGH_WATER_MARK,
    );
    this.lowWaterMark = Math.floor(this.highWaterMark / 4);
    this.maxPendingRequests = positive(
      'maxPendingRequests',
      options.maxPendingRequests,
      DEFAULT_BRIDGE_MAX_PENDING_REQUESTS,
    );
    const maxSession = positive(
      'maxSessionBufferedBytes',
      options.maxSessionBufferedBytes,
      this.maxMessageBytes + this.maxFrameBytes + 2 * this.highWaterMark,
    );
    this.buffers = new BufferBudget(
      positive(
        'maxBufferedBytes',
        options.maxBufferedBytes,
        Math.max(DEFAULT_BRIDGE_MAX_BUFFERED_BYTES, maxSession),
      ),
      maxSession,
    );
    this.connectTimeoutMs = positive('connectTimeoutMs', options.connectTimeoutMs, 10_000);
    try {
      this.origins = new OriginPolicy(address.kind, address.host, options.allowOrigins);
    } catch (e) {
      throw new BridgeConfigError(`allowOrigins: ${(e as Error).message}`);
    }
    this.maxConnections = positive('maxConnections', options.maxConnections, 1000);
    const ping = options.pingIntervalMs ?? 30_000;
    if (!(ping >= 0))
      throw new BridgeConfigError(`pingIntervalMs must not be negative, got ${ping}`);
    if (ping > 0) {
      this.pingTimer = setInterval(() => {
        for (const s of this.sessions) s.ping();
      }, ping);
      this.pingTimer.unref();
    }
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: this.maxFrameBytes,
      perMessageDeflate: false,
      clientTracking: false,
    });
    const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
      if (this.staticRoot !== undefined) {
        serveStatic(this.staticRoot, req, res).catch(() => res.destroy());
        return;
      }
      res.writeHead(426, { 'Content-Type': 'text/plain; charset=utf-8', Upgrade: 'websocket' });
      res.end('this is an OVSDB WebSocket bridge: open a WebSocket\n');
    };
    this.server =
      address.kind === 'wss' && options.tls
        ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, onRequest)
        : createHttpServer(onRequest);
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.onUpgrade(req, socket, head),
    );
    this.server.on('clientError', (_err, socket: Duplex) => socket.destroy());
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error): void => reject(e);
      this.server.once('error', onError);
      this.server.listen({ host: this.address.host, port: this.address.port }, () => {
        this.server.off('error', onError);
        const bound = this.server.address();
        this.port = typeof bound === 'object' && bound !== null ? bound.port : this.address.port;
        this.url = listenUrl(this.address, this.port);
        this.server.on('error', (e) => this.log('error', `listener: ${e.message}`));
        this.log('info', `listening on ${this.url}, forwarding to ${this.remote}`);
        if (this.origins.any) {
          this.log(
            'warn',
            'allowOrigins "*": a page from any web site the user opens can connect through this bridge',
          );
        }
        resolve();
      });
    });
  }

  stats(): BridgeStats {
    let queued = 0;
    for (const s of this.sessions) queued += s.queuedBytes;
    const b = this.buffers;
    return {
      ...this.counters,
      queuedBytes: queued,
      bufferedBytes: b.total,
      peakBufferedBytes: b.peakTotal,
      peakSessionBufferedBytes: b.peakSession,
      bufferDrops: b.drops,
    };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.pingTimer !== undefined) clearInterval(this.pingTimer);
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      const sessions = [...this.sessions];
      for (const s of sessions) s.close(1001, 'the bridge is shutting down');
      await Promise.all(sessions.map((s) => s.finished));
      this.server.closeAllConnections?.();
      await closed;
      this.wss.close();
      this.log('info', 'closed');
    })();
    return this.closing;
  }

  log(level: keyof BridgeLogger, message: string): void {
    const fn = this.options.logger?.[level];
    if (!fn) return;
    try {
      fn.call(this.options.logger, message);
    } catch {
      // A failing logger must not break the bridge.
    }
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const peer = describePeer(req);
    if (this.closing) {
      refuseHttp(socket, 503, 'shutting down');
      return;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (this.address.path !== '/' && path !== this.address.path) {
      this.log('warn', `${peer}: refused: no WebSocket endpoint at ${path}`);
      refuseHttp(socket, 404, 'not found');
      return;
    }
    const origin = this.origins.check(req);
    if (!origin.ok) {
      this.counters.originRefusals++;
      this.log('warn', `${peer}: refused: ${origin.reason}`);
      refuseHttp(socket, 403, 'origin not allowed');
      return;
    }
    if (this.sessions.size >= this.maxConnections) {
      this.log('warn', `${peer}: refused: ${this.maxConnections} clients already connected`);
      refuseHttp(socket, 503, 'too many connections');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const verdict = this.auth.authenticate(req);
      if (!verdict.ok) {
        this.counters.authFailures++;
        this.log('warn', `${peer}: refused: ${verdict.reason}`);
        ws.on('error', () => undefined);
        ws.close(1008, `unauthorized: ${verdict.reason}`);
        const timer = setTimeout(() => ws.terminate(), 2000);
        ws.once('close', () => clearTimeout(timer));
        return;
      }
      if (this.closing) {
        ws.close(1001, 'the bridge is shutting down');
        return;
      }
      const session = new BridgeSession(this, ws, `#${this.nextId++} ${peer}`, socket);
      this.sessions.add(session);
      this.counters.connectionsTotal++;
      this.counters.connectionsOpen++;
      session.finished.then(() => {
        this.sessions.delete(session);
        this.counters.connectionsOpen--;
      });
      session.start();
    });
  }
}

function refuseHttp(socket: Duplex, status: number, text: string): void {
  const reason =
    { 403: 'Forbidden', 404: 'Not Found', 503: 'Service Unavailable' }[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${text.length + 1}\r\n\r\n${text}\n`,
  );
}

function describePeer(req: IncomingMessage): string {
  const s = req.socket;
  const host = s.remoteAddress ?? '?';
  return `${host.includes(':') ? `[${host}]` : host}:${s.remotePort ?? '?'}`;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(value > 0)) throw new BridgeConfigError(`${name} must be positive, got ${value}`);
  return value;
}

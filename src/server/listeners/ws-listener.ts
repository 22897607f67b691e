/**
 * WebSocket listeners for the in-memory server: `ws:127.0.0.1:0`,
 * `ws://127.0.0.1:8080/ovsdb` or `wss://…`, one JSON-RPC message per text
 * frame, so browsers can talk to it without a bridge.
 *
 * ```ts
 * const server = await createServer({ databases: [schema] });
 * const ws = await attachWebSocketListener(server, 'ws:127.0.0.1:0');
 * const conn = await connect(ws.url); // from Node, or `connect` of ovnkit/browser
 * ```
 *
 * {@link listenWebSocket} is the building block: it hands every accepted
 * client to a callback as a {@link SessionChannel} (kind `message`), the
 * server side of a connection. {@link attachWebSocketListener} plugs it into
 * any server with `connectInProcess()`.
 *
 * Unlike `ovnkit bridge`, these listeners apply no policy: they are meant
 * for tests and development servers, on loopback unless tokens are set.
 * Browser pages of other origins are refused (HTTP 403) unless listed in
 * `allowOrigins` (see `net/origin.ts`). A client with more than 1 MiB
 * queued for it is not read until it catches up. Node only.
 * @module
 */

import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { isLoopbackHost, TokenAuthenticator } from '../../net/auth.js';
import { listenUrl, parseListenAddress } from '../../net/listen-address.js';
import { OriginPolicy } from '../../net/origin.js';
import type { TextInPieces } from '../../ovsdb/wire/json-stringify.js';
import type { Transport } from '../../ovsdb/wire/transport.js';
import {
  type ChannelBounds,
  type ChannelHandlers,
  logBacklogDrop,
  logInputDrop,
  type SessionChannel,
} from '../rpc/channel.js';
import type { BacklogMeter } from './limits.js';

/** Options of {@link listenWebSocket} and {@link attachWebSocketListener}. */
export interface WebSocketListenOptions {
  /** Largest frame a client may send (default 64 MiB); larger ones close with 1009. */
  readonly maxFrameBytes?: number | undefined;
  /** Certificate and key (PEM) for `wss:`. */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer } | undefined;
  /** Bearer tokens clients must present (header or `?token=`). Default: none needed (loopback only). */
  readonly tokens?: readonly string[] | undefined;
  /**
   * Browser origins allowed to connect (`*`: any), as `ovnkit bridge
   * --allow-origin`. By default a browser page may connect only from the
   * listener's own origin (it serves no pages, so in effect none); clients
   * that send no `Origin` (not browsers) are not affected. Others get HTTP 403.
   */
  readonly allowOrigins?: readonly string[] | undefined;
  /** @internal The server's connection bounds (its own listeners). */
  readonly bounds?: ChannelBounds | undefined;
  /** @internal Whether one more connection may be accepted (else HTTP 503). */
  readonly admit?: (() => boolean) | undefined;
}

/** A WebSocket listener. */
export interface WebSocketListener {
  /** The address as given, e.g. `ws:127.0.0.1:0`. */
  readonly remote: string;
  /** Where clients connect, with the bound port, e.g. `ws://127.0.0.1:41234/`. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** Stop listening and close every client (1001). */
  close(): Promise<void>;
}

const DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;
/** Bytes queued for a client above which it counts as backlogged (reading stops). */
const HIGH_WATER_MARK = 1024 * 1024;

/**
 * The server side of one WebSocket client: a {@link SessionChannel} of kind
 * `message`.
 */
export class WebSocketChannel implements SessionChannel {
  readonly kind = 'message';
  readonly probes = true;
  readonly backlog: BacklogMeter | undefined;
  private handlers: ChannelHandlers | undefined;
  private closedReported = false;
  private readonly early: string[] = [];
  /** Bytes sent and not yet written to the socket. */
  private queued = 0;
  private held = false;
  /** Bytes received since the last whole message (an incomplete one, roughly). */
  private partial = 0;

  /**
   * @param ws An open server-side socket of the `ws` package.
   * @param name The connection's name in logs, e.g. `ws:127.0.0.1:40512`.
   * @param socket The upgraded socket, to count incomplete messages against `bounds`.
   * @param bounds The server's connection bounds, when a server's listener accepted it.
   */
  constructor(
    private readonly ws: WebSocket,
    readonly name: string,
    socket?: Duplex | undefined,
    bounds?: ChannelBounds | undefined,
  ) {
    ws.on('error', () => {
      // 'close' follows.
    });
    this.backlog = bounds?.limits.meter((bytes) => {
      if (this.closedReported) return;
      logBacklogDrop(bounds, name, bytes);
      this.abort();
    });
    if (bounds !== undefined && socket !== undefined) {
      // Registered after the ws receiver's own listener: each chunk is counted
      // after the messages it completed were delivered.
      socket.on('data', (chunk: Buffer) => {
        this.partial += chunk.length;
        if (bounds.limits.holdInput(this, this.partial)) return;
        logInputDrop(bounds, name, this.partial);
        bounds.limits.release(this);
        this.abort();
      });
    }
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (this.partial > 0) {
        this.partial = 0;
        bounds?.limits.holdInput(this, 0);
      }
      if (isBinary) {
        ws.close(1003, 'binary frames are not supported: send each JSON-RPC message as text');
        return;
      }
      const text = rawText(data);
      if (this.handlers) this.handlers.message(text);
      else this.early.push(text);
    });
    ws.on('close', () => {
      bounds?.limits.release(this);
      this.reportClose();
    });
  }

  /** Call `cb` once the WebSocket has closed. */
  onClose(cb: () => void): void {
    if (this.ws.readyState === this.ws.CLOSED) cb();
    else this.ws.once('close', cb);
  }

  /** True while more than 1 MiB waits to be written to the client: reading stops meanwhile. */
  get backlogged(): boolean {
    return this.held;
  }

  attach(handlers: ChannelHandlers): void {
    this.handlers = handlers;
    for (const text of this.early.splice(0)) handlers.message(text);
    if (this.closedReported) handlers.close();
  }

  /** Send one message: a text frame, or (a message in pieces) a fragmented one, a piece a frame. */
  write(text: TextInPieces): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    const pieces = typeof text === 'string' ? [text] : text;
    let bytes = 0;
    for (const p of pieces) bytes += Buffer.byteLength(p);
    if (this.held) this.backlog?.wrote(bytes);
    this.queued += bytes;
    const sent = (): void => {
      this.queued -= bytes;
      if (this.held && this.queued <= HIGH_WATER_MARK / 4) {
        this.held = false;
        this.backlog?.drained();
        this.ws.resume();
        this.handlers?.drain?.();
      }
    };
    for (let i = 0; i < pieces.length; i++) {
      const last = i === pieces.length - 1;
      this.ws.send(pieces[i] as string, { binary: false, fin: last }, last ? sent : undefined);
    }
    if (!this.held && this.queued > HIGH_WATER_MARK) {
      this.held = true;
      this.ws.pause();
    }
  }

  close(): void {
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) {
      this.ws.close(1000);
    }
  }

  abort(): void {
    this.ws.terminate();
  }

  private reportClose(): void {
    if (this.closedReported) return;
    this.closedReported = true;
    this.handlers?.close();
  }
}

/**
 * Listen for WebSocket clients at `address` and hand each one to
 * `onChannel`. Without `tokens`, only loopback addresses may be used.
 * @throws RemoteSyntaxError for an invalid address; Error for `wss:`
 *   without `tls`, or no tokens on a non-loopback address; the socket error
 *   when listening fails.
 */
export async function listenWebSocket(
  address: string,
  onChannel: (channel: WebSocketChannel) => void,
  options: WebSocketListenOptions = {},
): Promise<WebSocketListener> {
  const parsed = parseListenAddress(address);
  if (parsed.kind === 'wss' && options.tls === undefined) {
    throw new Error(`${address}: a wss: listener needs the tls option`);
  }
  if (options.tokens === undefined && !isLoopbackHost(parsed.host)) {
    throw new Error(
      `${address}: a WebSocket listener without tokens may only listen on a loopback address`,
    );
  }
  const auth = new TokenAuthenticator(options.tokens);
  const origins = new OriginPolicy(parsed.kind, parsed.host, options.allowOrigins);
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    perMessageDeflate: false,
  });
  const onRequest = (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(426, { 'Content-Type': 'text/plain; charset=utf-8', Upgrade: 'websocket' });
    res.end('this is an OVSDB WebSocket endpoint: open a WebSocket\n');
  };
  const http: Server =
    parsed.kind === 'wss' && options.tls
      ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, onRequest)
      : createHttpServer(onRequest);
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (options.admit !== undefined && !options.admit()) {
      socket.end(
        'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    if (parsed.path !== '/' && path !== parsed.path) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (!origins.check(req).ok) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const verdict = auth.authenticate(req);
      if (!verdict.ok) {
        ws.on('error', () => undefined);
        ws.close(1008, `unauthorized: ${verdict.reason}`);
        return;
      }
      const host = req.socket.remoteAddress ?? '?';
      const name = `ws:${host.includes(':') ? `[${host}]` : host}:${req.socket.remotePort ?? '?'}`;
      onChannel(new WebSocketChannel(ws, name, socket, options.bounds));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen({ host: parsed.host, port: parsed.port }, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const bound = http.address();
  const port = typeof bound === 'object' && bound !== null ? bound.port : parsed.port;
  let closing: Promise<void> | undefined;
  return {
    remote: address,
    url: listenUrl(parsed, port),
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.close(1001, 'the server is shutting down');
        const timer = setTimeout(() => {
          for (const ws of wss.clients) ws.terminate();
        }, 2000);
        http.close(() => {
          clearTimeout(timer);
          wss.close();
          resolve();
        });
        http.closeAllConnections?.();
      });
      return closing;
    },
  };
}

/** What {@link attachWebSocketListener} needs of a server. */
export interface InProcessConnectable {
  /** Open a connection with no socket: a client transport of kind `message`. */
  connectInProcess(): Transport;
}

/**
 * Make `server` reachable over WebSocket at `address` (e.g.
 * `ws:127.0.0.1:0`): every client is joined to a new in-process session of
 * the server, message for message.
 */
export function attachWebSocketListener(
  server: InProcessConnectable,
  address: string,
  options: WebSocketListenOptions = {},
): Promise<WebSocketListener> {
  return listenWebSocket(
    address,
    (channel) => {
      const session = server.connectInProcess();
      let open = true;
      session.attach({
        data: () => channel.abort(),
        message: (text) => channel.write(text),
        drain: () => undefined,
        close: () => {
          open = false;
          channel.close();
        },
      });
      channel.attach({
        data: () => channel.abort(),
        message: (text) => {
          if (open) session.write(text);
        },
        close: () => {
          if (open) {
            open = false;
            session.close();
          }
        },
      });
    },
    options,
  );
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

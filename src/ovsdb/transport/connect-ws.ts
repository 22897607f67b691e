/**
 * Opening WebSocket remotes (`ws://…`, `wss://…`) from Node, with the `ws`
 * package. Browsers use {@link openWebSocketTransport} with the global
 * `WebSocket` instead (see the `ovnkit/browser` entry).
 *
 * ```ts
 * const transport = await openNodeWebSocketTransport('ws://127.0.0.1:8080/ovsdb', { token });
 * const conn = new OvsdbConnection(transport);
 * ```
 * Node only.
 * @module
 */

import type { ConnectionOptions as TlsConnectionOptions } from 'node:tls';
import WebSocket from 'ws';
import { OvsdbError } from '../wire/errors.js';
import { DEFAULT_MAX_REPLY_BYTES } from '../wire/limits.js';
import { parseRemote, type Remote, type WebSocketRemote } from './remote.js';
import type { SocketTransportOptions, TlsOptions } from './socket-transport.js';
import { loadTlsFiles } from './tls-files.js';
import { checkTlsOptions, hasTlsFiles } from './tls-options.js';
import {
  openWebSocketTransport,
  type WebSocketLike,
  type WebSocketTransport,
  type WebSocketTransportOptions,
} from './ws-transport.js';

/** Options of {@link openNodeWebSocketTransport}. */
export interface NodeWebSocketOptions extends WebSocketTransportOptions {
  /** A bearer token, sent as `Authorization: Bearer <token>` (what `ovnkit bridge` checks). */
  readonly token?: string | undefined;
  /** More HTTP headers for the opening handshake. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** TLS settings for `wss:` (CA, client certificate, name check); see {@link TlsOptions}. */
  readonly tls?: TlsOptions | undefined;
  /**
   * Largest incoming message in bytes (the socket's frame limit); a larger
   * one closes the socket with 1009. Default `DEFAULT_MAX_REPLY_BYTES` (1 GiB),
   * as for socket remotes (the JSON-RPC peer applies its smaller limit to
   * unsolicited messages itself).
   */
  readonly maxMessageBytes?: number | undefined;
  /**
   * TCP keepalive idle time in ms for the socket under the WebSocket
   * (see {@link SocketTransportOptions.keepAliveMs}); 0 or absent: off.
   */
  readonly keepAliveMs?: number | undefined;
  /** Give up when the socket is not open after this many milliseconds. */
  readonly timeoutMs?: number | undefined;
  /** Abort opening. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Open a `ws:` or `wss:` remote with the `ws` package and wrap it in a
 * message transport. Compression is not offered; the socket's
 * `maxPayload` is `maxMessageBytes`.
 *
 * @throws {@link RemoteSyntaxError} for an invalid remote; {@link OvsdbError}
 *   for a remote that is not a WebSocket one; {@link ConnectionClosedError}
 *   when the socket does not open (refused, HTTP error, TLS failure, closed by
 *   the bridge; see {@link openWebSocketTransport}).
 */
export function openNodeWebSocketTransport(
  remote: string | Remote,
  options: NodeWebSocketOptions = {},
): Promise<WebSocketTransport> {
  let target: WebSocketRemote;
  try {
    target = toWebSocketRemote(remote);
  } catch (e) {
    return Promise.reject(e);
  }
  if (target.kind === 'wss' && options.tls !== undefined) {
    try {
      checkTlsOptions(options.tls);
    } catch (e) {
      return Promise.reject(e);
    }
    if (hasTlsFiles(options.tls)) {
      // Read the files now, at each attempt: a reconnection picks up rotated certificates.
      return loadTlsFiles(options.tls).then((tls) =>
        openNodeWebSocketTransport(target, { ...options, tls }),
      );
    }
  }
  const { token, headers, tls, maxMessageBytes, keepAliveMs, ...rest } = options;
  const allHeaders: Record<string, string> = { ...headers };
  if (token !== undefined) allHeaders['Authorization'] = `Bearer ${token}`;
  const wsOptions: WebSocket.ClientOptions = {
    headers: allHeaders,
    perMessageDeflate: false,
    maxPayload: maxMessageBytes ?? DEFAULT_MAX_REPLY_BYTES,
    followRedirects: false,
  };
  if (rest.timeoutMs !== undefined) wsOptions.handshakeTimeout = rest.timeoutMs;
  if (target.kind === 'wss' && tls) {
    // ws hands these to tls.connect.
    const t: TlsConnectionOptions = { rejectUnauthorized: tls.rejectUnauthorized ?? true };
    if (tls.key !== undefined) t.key = tls.key;
    if (tls.cert !== undefined) t.cert = tls.cert;
    if (tls.ca !== undefined) t.ca = tls.ca as string | Buffer | (string | Buffer)[];
    if (tls.servername !== undefined) t.servername = tls.servername;
    if (tls.checkServerIdentity !== undefined) t.checkServerIdentity = tls.checkServerIdentity;
    Object.assign(wsOptions, t);
  }
  return openWebSocketTransport(() => {
    const ws = new WebSocket(target.url, wsOptions);
    if (keepAliveMs !== undefined && keepAliveMs > 0) {
      // The kernel counts whole seconds.
      ws.once('upgrade', (res) => res.socket.setKeepAlive(true, Math.max(1000, keepAliveMs)));
    }
    return ws as unknown as WebSocketLike;
  }, rest);
}

/** Options a {@link dialWebSocket} gets: those of the database client's dialer. */
export interface DialWebSocketOptions {
  /** TLS settings for `wss:` remotes. */
  readonly tls?: TlsOptions | undefined;
  /** Give up after this many ms. */
  readonly timeoutMs: number;
  /** Aborted when the client closes. */
  readonly signal: AbortSignal;
  /** TCP keepalive idle time in ms; 0 or absent: off. */
  readonly keepAliveMs?: number | undefined;
  /** The largest message accepted (the frame limit). */
  readonly maxMessageBytes?: number | undefined;
}

/** A transport with the read flow control the database client uses for backpressure. */
export interface DialedWebSocket {
  readonly transport: WebSocketTransport;
  /** Stop reading from the socket. */
  pause(): void;
  /** Read again. */
  resume(): void;
}

/**
 * A dialer for the database client (`connectDatabase({ dial })`): opens a
 * `ws:`/`wss:` remote with {@link openNodeWebSocketTransport}. A token may
 * travel in the URL (`?token=`).
 */
export async function dialWebSocket(
  remote: string,
  options: DialWebSocketOptions,
): Promise<DialedWebSocket> {
  const transport = await openNodeWebSocketTransport(remote, {
    tls: options.tls,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    keepAliveMs: options.keepAliveMs,
    maxMessageBytes: options.maxMessageBytes,
  });
  return { transport, pause: () => transport.pause(), resume: () => transport.resume() };
}

function toWebSocketRemote(remote: string | Remote): WebSocketRemote {
  const target = typeof remote === 'string' ? parseRemote(remote) : remote;
  if (target.kind !== 'ws' && target.kind !== 'wss') {
    throw new OvsdbError(
      `${target.kind}: is not a WebSocket remote; open it with connect() or openSocketTransport()`,
    );
  }
  return target;
}

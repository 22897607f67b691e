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
import { parseRemote, type Remote, type WebSocketRemote } from './remote.js';
import type { TlsOptions } from './socket-transport.js';
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
  /** Largest incoming message in bytes; a larger one closes the socket with 1009. Default 64 MiB. */
  readonly maxMessageBytes?: number | undefined;
  /** Give up when the socket is not open after this many milliseconds. */
  readonly timeoutMs?: number | undefined;
  /** Abort opening. */
  readonly signal?: AbortSignal | undefined;
}

/** Default {@link NodeWebSocketOptions.maxMessageBytes}: 64 MiB, as for socket remotes. */
const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

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
  const { token, headers, tls, maxMessageBytes, ...rest } = options;
  const allHeaders: Record<string, string> = { ...headers };
  if (token !== undefined) allHeaders['Authorization'] = `Bearer ${token}`;
  const wsOptions: WebSocket.ClientOptions = {
    headers: allHeaders,
    perMessageDeflate: false,
    maxPayload: maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
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
  return openWebSocketTransport(
    () => new WebSocket(target.url, wsOptions) as unknown as WebSocketLike,
    rest,
  );
}

/** Options a {@link dialWebSocket} gets: those of the database client's dialer. */
export interface DialWebSocketOptions {
  /** TLS settings for `wss:` remotes. */
  readonly tls?: TlsOptions | undefined;
  /** Give up after this many ms. */
  readonly timeoutMs: number;
  /** Aborted when the client closes. */
  readonly signal: AbortSignal;
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

/**
 * Opening WebSocket remotes with the browser's `WebSocket` (or one given):
 * what the browser's `connect` and `openDatabase` dial with. Only `ws:` and
 * `wss:` remotes: a browser cannot open a socket. This module imports
 * nothing from Node.
 * @module
 */

import { OvsdbError } from '../wire/errors.js';
import type { Dialer } from './dial.js';
import { parseRemote, type Remote } from './remote.js';
import {
  openWebSocketTransport,
  type WebSocketLike,
  type WebSocketTransport,
  type WebSocketTransportOptions,
  withToken,
} from './ws-transport.js';

/** A WebSocket constructor: the global `WebSocket` or a compatible one. */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
) => WebSocketLike;

/** How a browser opens its WebSockets. */
export interface BrowserSocketOptions extends WebSocketTransportOptions {
  /**
   * A bearer token, added to the URL as the `token` query parameter
   * (browsers cannot set headers on a WebSocket; `ovnkit bridge` accepts
   * both). Prefer `wss:` so that it is encrypted.
   */
  readonly token?: string | undefined;
  /** WebSocket subprotocols to offer. */
  readonly protocols?: string | string[] | undefined;
  /** The WebSocket implementation. Default: the global `WebSocket`. */
  readonly WebSocket?: WebSocketConstructor | undefined;
}

/**
 * Open the WebSocket remote `remote` (`ws://…`, `wss://…`).
 * @throws {@link RemoteSyntaxError} for an invalid remote; OvsdbError for
 *   a `tcp:`, `ssl:` or `unix:` remote, or when there is no `WebSocket`;
 *   ConnectionClosedError when the socket does not open (its `cause`
 *   carries the close code).
 */
export async function openBrowserWebSocket(
  remote: string | Remote,
  options: BrowserSocketOptions & {
    readonly timeoutMs?: number | undefined;
    readonly signal?: AbortSignal | undefined;
  } = {},
): Promise<WebSocketTransport> {
  const target = typeof remote === 'string' ? parseRemote(remote) : remote;
  if (target.kind !== 'ws' && target.kind !== 'wss') {
    throw new OvsdbError(
      `${target.kind}: remotes cannot be opened in a browser; connect to a WebSocket bridge (ws:// or wss://)`,
    );
  }
  const { token, protocols, WebSocket: Ctor, ...transportOptions } = options;
  const WebSocketImpl =
    Ctor ?? (globalThis as { WebSocket?: WebSocketConstructor | undefined }).WebSocket;
  if (WebSocketImpl === undefined) {
    throw new OvsdbError('there is no global WebSocket; pass one in options.WebSocket');
  }
  const url = token === undefined ? target.url : withToken(target.url, token);
  return openWebSocketTransport(
    () => (protocols === undefined ? new WebSocketImpl(url) : new WebSocketImpl(url, protocols)),
    transportOptions,
  );
}

/** The database client's {@link Dialer} in a browser: {@link openBrowserWebSocket}. */
export function browserDialer(options: BrowserSocketOptions = {}): Dialer {
  const { token, protocols, WebSocket, highWaterMark, lowWaterMark, drainPollMs, closeTimeoutMs } =
    options;
  const socket = {
    token,
    protocols,
    WebSocket,
    highWaterMark,
    lowWaterMark,
    drainPollMs,
    closeTimeoutMs,
  };
  return async (remote, dial) => ({
    transport: await openBrowserWebSocket(remote, {
      ...socket,
      timeoutMs: dial.timeoutMs,
      signal: dial.signal,
    }),
  });
}

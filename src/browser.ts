/**
 * ovnkit for browsers: the OVSDB layers that need no Node module, and a
 * `connect` that opens `ws://` and `wss://` remotes with the global
 * `WebSocket` (an `ovnkit bridge` in front of ovsdb-server, or the in-memory
 * server listening on WebSocket).
 *
 * ```ts
 * import { connect, parseSchema, compileRowCodec } from 'ovnkit/browser';
 *
 * const conn = await connect('wss://ovn.example.com/ovsdb', { token });
 * const schema = parseSchema(await conn.getSchema('OVN_Northbound'));
 * conn.on('update2', (id, updates) => render(updates));
 * await conn.monitorCond('OVN_Northbound', 'ui', { Logical_Switch: { columns: ['name', 'ports'] } });
 * ```
 *
 * Browsers cannot set headers on a WebSocket, so the token travels in the
 * URL's `token` query parameter (`ovnkit bridge` accepts both). Prefer `wss:`
 * so that it is encrypted.
 * @module
 */

import { type ConnectionOptions, OvsdbConnection } from './ovsdb/connection/connection.js';
import { parseRemote, type Remote } from './ovsdb/transport/remote.js';
import {
  openWebSocketTransport,
  type WebSocketLike,
  type WebSocketTransportOptions,
  withToken,
} from './ovsdb/transport/ws-transport.js';
import { OvsdbError } from './ovsdb/wire/errors.js';

export * from './client/replica/indexes.js';
export * from './client/replica/replica.js';
export * from './client/replica/row-codec.js';
export * from './ovsdb/connection/connection.js';
export * from './ovsdb/connection/emitter.js';
export * from './ovsdb/schema/model.js';
export * from './ovsdb/schema/schema.js';
export * from './ovsdb/schema/schema-types.js';
export * from './ovsdb/transport/remote.js';
export * from './ovsdb/transport/transport.js';
export * from './ovsdb/transport/ws-transport.js';
export * from './ovsdb/values/datum.js';
export { compareAtoms } from './ovsdb/values/order.js';
export { applyMapDiff, applySetDiff, EMPTY_MAP, EMPTY_SET } from './ovsdb/values/set-map.js';
export * from './ovsdb/values/uuid.js';
export * from './ovsdb/values/validators.js';
export * from './ovsdb/wire/errors.js';
export * from './ovsdb/wire/framer.js';
export * from './ovsdb/wire/rpc.js';
export * from './ovsdb/wire/wire.js';

/** A WebSocket constructor: the global `WebSocket` or a compatible one. */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
) => WebSocketLike;

/** Options of the browser {@link connect}. */
export interface BrowserConnectOptions extends ConnectionOptions, WebSocketTransportOptions {
  /** A bearer token, added to the URL as the `token` query parameter. */
  readonly token?: string | undefined;
  /** WebSocket subprotocols to offer. */
  readonly protocols?: string | string[] | undefined;
  /** Give up when the socket is not open after this many milliseconds. */
  readonly timeoutMs?: number | undefined;
  /** Abort opening. */
  readonly signal?: AbortSignal | undefined;
  /** The WebSocket implementation. Default: the global `WebSocket`. */
  readonly WebSocket?: WebSocketConstructor | undefined;
}

/**
 * Open a `ws://` or `wss://` remote with the browser's `WebSocket` and start
 * an {@link OvsdbConnection} on it.
 *
 * ```ts
 * const conn = await connect(`wss://${location.host}/ovsdb`, { token, timeoutMs: 5000 });
 * await conn.listDbs(); // ['OVN_Northbound']
 * ```
 * @throws {@link RemoteSyntaxError} for an invalid remote; {@link OvsdbError}
 *   for a `tcp:`, `ssl:` or `unix:` remote (browsers cannot open those) or
 *   when there is no `WebSocket`; {@link ConnectionClosedError} when the
 *   socket does not open (its `cause` carries the close code).
 */
export async function connect(
  remote: string | Remote,
  options: BrowserConnectOptions = {},
): Promise<OvsdbConnection> {
  const target = typeof remote === 'string' ? parseRemote(remote) : remote;
  if (target.kind !== 'ws' && target.kind !== 'wss') {
    throw new OvsdbError(
      `${target.kind}: remotes cannot be opened in a browser; connect to a WebSocket bridge (ws:// or wss://)`,
    );
  }
  const {
    token,
    protocols,
    timeoutMs,
    signal,
    WebSocket: Ctor,
    highWaterMark,
    lowWaterMark,
    drainPollMs,
    closeTimeoutMs,
    description,
    ...connectionOptions
  } = options;
  const WebSocketImpl =
    Ctor ?? (globalThis as { WebSocket?: WebSocketConstructor | undefined }).WebSocket;
  if (WebSocketImpl === undefined) {
    throw new OvsdbError('there is no global WebSocket; pass one in options.WebSocket');
  }
  const url = token === undefined ? target.url : withToken(target.url, token);
  const transport = await openWebSocketTransport(
    () => (protocols === undefined ? new WebSocketImpl(url) : new WebSocketImpl(url, protocols)),
    { timeoutMs, signal, highWaterMark, lowWaterMark, drainPollMs, closeTimeoutMs, description },
  );
  return new OvsdbConnection(transport, connectionOptions);
}

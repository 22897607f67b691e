/**
 * `connect(remote)`: open a socket (or a WebSocket) to an OVSDB server and
 * start an {@link OvsdbConnection} on it. Node only (it uses `node:net`,
 * `node:tls` and the `ws` package); browsers use `connect` from
 * `ovnkit/browser`, which opens WebSocket remotes only.
 * @module
 */

import { openNodeWebSocketTransport } from '../transport/connect-ws.js';
import { DEFAULT_KEEPALIVE_MS } from '../transport/dial.js';
import { parseRemote, type Remote } from '../transport/remote.js';
import {
  openSocketTransport,
  type SocketTransportOptions,
  type TlsOptions,
} from '../transport/socket-transport.js';
import type { Transport } from '../wire/transport.js';
import { type ConnectionOptions, OvsdbConnection } from './connection.js';

/** Options of {@link connect}: the connection's own, plus how to open the socket. */
export interface ConnectOptions extends ConnectionOptions {
  /** TLS settings for `ssl:` and `wss:` remotes (client key and certificate, CA); see {@link TlsOptions}. */
  tls?: TlsOptions | undefined;
  /**
   * For `ws:`/`wss:` remotes: a bearer token, sent as `Authorization: Bearer
   * <token>` in the opening handshake (what `ovnkit bridge` checks).
   */
  token?: string | undefined;
  /** For `ws:`/`wss:` remotes: more HTTP headers for the opening handshake. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Give up connecting (including the TLS handshake) after this many milliseconds. */
  timeoutMs?: number | undefined;
  /** Abort the connection attempt. */
  signal?: AbortSignal | undefined;
  /**
   * TCP keepalive idle time in ms for remotes over TCP (`tcp:`, `ssl:`,
   * `ws:`, `wss:`): the kernel then finds a lost host or path (10 probes a
   * second apart) even while no request is answered. Default
   * `DEFAULT_KEEPALIVE_MS` (5,000); 0 disables. See
   * {@link SocketTransportOptions.keepAliveMs}.
   */
  keepAliveMs?: number | undefined;
}

/**
 * Connect to an OVSDB server at an active remote: `unix:<file>`,
 * `tcp:<host>[:<port>]` or `ssl:<host>[:<port>]` (port 6640 by default), or a
 * WebSocket endpoint `ws://<host>[:<port>]/<path>` / `wss://…` (an
 * `ovnkit bridge` in front of ovsdb-server, or the in-memory server), where
 * each JSON-RPC message travels in one text frame.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { connect } from 'ovnkit';
 *
 * const conn = await connect('unix:/var/run/ovn/ovnnb_db.sock');
 * await conn.listDbs(); // ['OVN_Northbound', '_Server']
 * const results = await conn.transact('OVN_Northbound', [
 *   { op: 'select', table: 'Logical_Switch', where: [], columns: ['name'] },
 * ]);
 * console.log(results[0]); // { rows: [ { name: 'sw0' } ] }
 * conn.close();
 *
 * const [key, cert, ca] = ['key.pem', 'cert.pem', 'cacert.pem'].map((f) => readFileSync(f));
 * const secure = await connect('ssl:10.0.0.5:6641', {
 *   tls: { key, cert, ca, servername: 'ovn-central' },
 *   timeoutMs: 5000,
 * });
 * ```
 *
 * @throws {@link RemoteSyntaxError} for an invalid remote;
 *   {@link ConnectionClosedError} when the socket cannot be opened (refused,
 *   timed out, TLS verification failed), with the socket error as `cause`;
 *   the signal's reason when `signal` aborts.
 */
export async function connect(
  remote: string | Remote,
  options: ConnectOptions = {},
): Promise<OvsdbConnection> {
  const { tls, timeoutMs, signal, token, headers, keepAliveMs, ...connectionOptions } = options;
  const keepAlive = keepAliveMs ?? DEFAULT_KEEPALIVE_MS;
  const target = typeof remote === 'string' ? parseRemote(remote) : remote;
  let transport: Transport;
  if (target.kind === 'ws' || target.kind === 'wss') {
    transport = await openNodeWebSocketTransport(target, {
      tls,
      timeoutMs,
      signal,
      token,
      headers,
      maxMessageBytes: connectionOptions.maxMessageBytes,
      keepAliveMs: keepAlive,
    });
  } else {
    transport = await openSocketTransport(target, {
      tls,
      timeoutMs,
      signal,
      keepAliveMs: keepAlive,
    });
  }
  return new OvsdbConnection(transport, connectionOptions);
}

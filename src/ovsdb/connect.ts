/**
 * `connect(remote)`: open a socket to an OVSDB server and start an
 * {@link OvsdbConnection} on it. Node only (it uses `node:net` and `node:tls`).
 * @module
 */

import { type ConnectionOptions, OvsdbConnection } from './connection.js';
import type { Remote } from './remote.js';
import { openSocketTransport, type TlsOptions } from './socket-transport.js';

/** Options of {@link connect}: the connection's own, plus how to open the socket. */
export interface ConnectOptions extends ConnectionOptions {
  /** TLS settings for `ssl:` remotes (client key and certificate, CA); see {@link TlsOptions}. */
  tls?: TlsOptions | undefined;
  /** Give up connecting (including the TLS handshake) after this many milliseconds. */
  timeoutMs?: number | undefined;
  /** Abort the connection attempt. */
  signal?: AbortSignal | undefined;
}

/**
 * Connect to an OVSDB server at an active remote: `unix:<file>`,
 * `tcp:<host>[:<port>]` or `ssl:<host>[:<port>]` (port 6640 by default).
 *
 * ```ts
 * const conn = await connect('unix:/var/run/ovn/ovnnb_db.sock');
 * await conn.listDbs(); // ['OVN_Northbound', '_Server']
 *
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
  const { tls, timeoutMs, signal, ...connectionOptions } = options;
  const transport = await openSocketTransport(remote, { tls, timeoutMs, signal });
  return new OvsdbConnection(transport, connectionOptions);
}

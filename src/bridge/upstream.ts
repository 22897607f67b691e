/**
 * The bridge's connection to the OVSDB server: a raw Node socket (`unix:`,
 * `tcp:` or `ssl:`), kept raw so that the bridge can pause reading it when a
 * WebSocket client falls behind.
 * @module
 */

import * as net from 'node:net';
import * as tls from 'node:tls';
import { formatRemote, parseRemote, type SocketRemote } from '../ovsdb/transport/remote.js';
import type { TlsOptions } from '../ovsdb/transport/socket-transport.js';
import { loadTlsFiles } from '../ovsdb/transport/tls-files.js';
import { checkTlsOptions, hasTlsFiles } from '../ovsdb/transport/tls-options.js';
import { connectUnixSocket } from '../ovsdb/transport/unix-path.js';
import { ConnectionClosedError, OvsdbError } from '../ovsdb/wire/errors.js';

/** Options of {@link connectUpstream}. */
export interface UpstreamOptions {
  /** TLS settings for an `ssl:` server. */
  readonly tls?: TlsOptions | undefined;
  /** Give up after this many milliseconds. */
  readonly timeoutMs: number;
}

/**
 * Parse the server remote a bridge forwards to.
 * @throws RemoteSyntaxError for an invalid remote; OvsdbError for a WebSocket remote.
 */
export function parseUpstreamRemote(remote: string): SocketRemote {
  const r = parseRemote(remote);
  if (r.kind === 'unix' || r.kind === 'tcp' || r.kind === 'ssl') return r;
  throw new OvsdbError(
    `${remote}: the bridge forwards to an OVSDB server's unix:, tcp: or ssl: remote, not to a WebSocket`,
  );
}

/**
 * Open a socket to the server. Resolves once connected (after the TLS
 * handshake for `ssl:`); the socket is paused, with no listeners but an
 * error guard. TLS files (`keyFile`, `certFile`, `caFile`) are read at each
 * connection, so a rotated client certificate is used from then on.
 * @throws ConnectionClosedError when the connection fails or times out;
 *   OvsdbError for TLS settings given twice or a TLS file that cannot be read.
 */
export function connectUpstream(
  remote: SocketRemote,
  options: UpstreamOptions,
): Promise<net.Socket> {
  if (remote.kind === 'ssl') {
    try {
      checkTlsOptions(options.tls);
    } catch (e) {
      return Promise.reject(e);
    }
    if (hasTlsFiles(options.tls)) {
      return loadTlsFiles(options.tls).then((tls) => connectUpstream(remote, { ...options, tls }));
    }
  }
  const description = formatRemote(remote);
  return new Promise<net.Socket>((resolve, reject) => {
    let socket: net.Socket;
    const ready = remote.kind === 'ssl' ? 'secureConnect' : 'connect';
    if (remote.kind === 'unix') {
      socket = connectUnixSocket(remote.path);
    } else if (remote.kind === 'tcp')
      socket = net.connect({ host: remote.host, port: remote.port });
    else {
      const t = options.tls ?? {};
      const o: tls.ConnectionOptions = {
        host: remote.host,
        port: remote.port,
        rejectUnauthorized: t.rejectUnauthorized ?? true,
      };
      if (t.key !== undefined) o.key = t.key;
      if (t.cert !== undefined) o.cert = t.cert;
      if (t.ca !== undefined) o.ca = t.ca as string | Buffer | (string | Buffer)[];
      if (t.checkServerIdentity !== undefined) o.checkServerIdentity = t.checkServerIdentity;
      const servername = t.servername ?? (net.isIP(remote.host) ? undefined : remote.host);
      if (servername !== undefined) o.servername = servername;
      socket = tls.connect(o);
    }
    socket.pause();
    const fail = (err: Error): void => {
      cleanup();
      socket.destroy();
      reject(err);
    };
    const onError = (err: Error): void =>
      fail(
        new ConnectionClosedError(`connect to ${description} failed: ${err.message}`, {
          cause: err,
        }),
      );
    const onClose = (): void =>
      fail(new ConnectionClosedError(`connect to ${description} failed: closed by peer`));
    const timer = setTimeout(
      () =>
        fail(
          new ConnectionClosedError(
            `connect to ${description} failed: no connection within ${options.timeoutMs} ms`,
          ),
        ),
      options.timeoutMs,
    );
    const onReady = (): void => {
      cleanup();
      if (remote.kind !== 'unix') socket.setNoDelay(true);
      socket.on('error', () => {
        // 'close' follows; the bridge reports it.
      });
      resolve(socket);
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      socket.off('error', onError);
      socket.off('close', onClose);
      socket.off(ready, onReady);
    };
    socket.once('error', onError);
    socket.once('close', onClose);
    socket.once(ready, onReady);
  });
}

/**
 * The database client's default {@link Dialer}: Node sockets for `tcp:`,
 * `unix:` and `ssl:` remotes, and the `ws` package for `ws:`/`wss:`
 * remotes. Node only; in a browser, pass a dialer of your own built on
 * `openWebSocketTransport`.
 * @module
 */

import * as net from 'node:net';
import * as tls from 'node:tls';
import type { DialedTransport, Dialer, DialOptions } from './client.js';
import { dialWebSocket } from './connect-ws.js';
import { ConnectionClosedError } from './errors.js';
import { formatRemote, parseRemote, type Remote } from './remote.js';
import { SocketTransport } from './socket-transport.js';

/**
 * The default {@link Dialer}: {@link dialWebSocket} for `ws:`/`wss:`
 * remotes, {@link dialSocket} for the others.
 */
export const dialRemote: Dialer = (remote, options) =>
  /^wss?:/i.test(remote) ? dialWebSocket(remote, options) : dialSocket(remote, options);

/**
 * A {@link Dialer} for socket remotes: a Node socket for `tcp:`, `unix:` or `ssl:`,
 * with pause/resume for backpressure.
 */
export function dialSocket(remote: string, options: DialOptions): Promise<DialedTransport> {
  let target: Remote;
  try {
    target = parseRemote(remote);
  } catch (e) {
    return Promise.reject(e);
  }
  const description = formatRemote(target);
  const { signal, timeoutMs } = options;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<DialedTransport>((resolve, reject) => {
    let socket: net.Socket;
    const readyEvent = target.kind === 'ssl' ? 'secureConnect' : 'connect';
    if (target.kind === 'unix') socket = net.connect({ path: target.path });
    else if (target.kind === 'tcp') socket = net.connect({ host: target.host, port: target.port });
    else {
      const t = options.tls ?? {};
      const o: tls.ConnectionOptions = {
        host: target.host,
        port: target.port,
        rejectUnauthorized: t.rejectUnauthorized ?? true,
      };
      if (t.key !== undefined) o.key = t.key;
      if (t.cert !== undefined) o.cert = t.cert;
      if (t.ca !== undefined) o.ca = t.ca as string | Buffer | (string | Buffer)[];
      if (t.checkServerIdentity !== undefined) o.checkServerIdentity = t.checkServerIdentity;
      const servername = t.servername ?? (net.isIP(target.host) ? undefined : target.host);
      if (servername !== undefined) o.servername = servername;
      socket = tls.connect(o);
    }
    const fail = (err: unknown) => {
      cleanup();
      socket.destroy();
      reject(err);
    };
    const onError = (err: Error) =>
      fail(
        new ConnectionClosedError(`connect to ${description} failed: ${err.message}`, {
          cause: err,
        }),
      );
    const onClose = () =>
      fail(new ConnectionClosedError(`connect to ${description} failed: closed by peer`));
    const onAbort = () => fail(signal.reason);
    const timer = setTimeout(
      () =>
        fail(
          new ConnectionClosedError(
            `connect to ${description} failed: no connection within ${timeoutMs} ms`,
          ),
        ),
      timeoutMs,
    );
    const cleanup = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.off('error', onError);
      socket.off('close', onClose);
      socket.off(readyEvent, onReady);
    };
    const onReady = () => {
      cleanup();
      if (target.kind !== 'unix') socket.setNoDelay(true);
      resolve({
        transport: new SocketTransport(socket, description),
        pause: () => socket.pause(),
        resume: () => socket.resume(),
      });
    };
    socket.once('error', onError);
    socket.once('close', onClose);
    socket.once(readyEvent, onReady);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Stream transports over Node sockets: `tcp:`, `unix:` and `ssl:` (TLS).
 * Node only; browsers use a message transport instead.
 * @module
 */

import * as net from 'node:net';
import * as tls from 'node:tls';
import { ConnectionClosedError, OvsdbError } from '../wire/errors.js';
import type { Transport, TransportHandlers } from '../wire/transport.js';
import { formatRemote, parseRemote, type Remote, type SocketRemote } from './remote.js';
import { type TcpStateReader, tcpStateReader } from './tcp-state.js';
import { loadTlsFiles } from './tls-files.js';
import { checkTlsOptions, hasTlsFiles, type TlsOptions } from './tls-options.js';

export type { TlsOptions } from './tls-options.js';

import { connectUnixSocket } from './unix-path.js';

/** Options of {@link openSocketTransport}. */
export interface SocketTransportOptions {
  /** TLS settings; used (and needed in practice) for `ssl:` remotes only. */
  readonly tls?: TlsOptions | undefined;
  /** Give up connecting (including the TLS handshake) after this many milliseconds. */
  readonly timeoutMs?: number | undefined;
  /** Abort the connection attempt; the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
  /**
   * TCP keepalive for `tcp:` and `ssl:` remotes: after this many ms without
   * traffic the kernel sends a keepalive probe every second and reports the
   * connection lost (`ETIMEDOUT`) after 10 unanswered ones (Node's settings
   * on Linux). The peer's kernel answers them even while the server process
   * is too busy to write, so this finds a lost host or network path, not a
   * stuck process. Default: off (0). Ignored for `unix:`.
   */
  readonly keepAliveMs?: number | undefined;
}

/**
 * How many unanswered keepalive probes, one a second, end a connection once
 * {@link SocketTransportOptions.keepAliveMs} passed in silence (Node sets
 * `TCP_KEEPINTVL` 1 s and `TCP_KEEPCNT` 10 on Linux).
 */
export const KEEPALIVE_PROBES = 10;

/**
 * A {@link Transport} of kind `stream` over a connected `net.Socket` or
 * `tls.TLSSocket`. Bytes that arrive before {@link SocketTransport.attach} are
 * held by the paused socket; a close before `attach` is reported on `attach`.
 */
export class SocketTransport implements Transport {
  readonly kind = 'stream';
  /**
   * Reads what the kernel knows of the TCP connection (whether the peer's
   * host acknowledges our bytes and probes); undefined for `unix:` sockets
   * and where the kernel's table cannot be read (other systems than Linux).
   */
  readonly tcpState: TcpStateReader | undefined;
  private handlers: TransportHandlers | undefined;
  private closeReported = false;
  private pendingClose: { error: Error | undefined } | undefined;
  private firstError: Error | undefined;
  private closing = false;
  /** Messages written this turn, not yet handed to the socket. */
  private pending: string[] = [];
  /** Their total length in UTF-16 units. */
  private pendingChars = 0;

  /**
   * @param socket A connected socket (for TLS: after `secureConnect`).
   * @param description What {@link Transport.description} reports, e.g. `tcp:127.0.0.1:6640`.
   */
  constructor(
    private readonly socket: net.Socket,
    readonly description: string,
  ) {
    this.tcpState = tcpStateReader(socket);
    socket.pause();
    socket.on('error', (err: Error) => {
      this.firstError ??= err;
    });
    socket.on('close', () => this.reportClose());
  }

  /** Attach the consumer and start reading. */
  attach(handlers: TransportHandlers): void {
    if (this.handlers) throw new Error(`${this.description}: transport already attached`);
    this.handlers = handlers;
    if (this.pendingClose) {
      const { error } = this.pendingClose;
      this.pendingClose = undefined;
      handlers.close(error);
      return;
    }
    this.socket.on('data', (chunk: Buffer) => handlers.data(chunk));
    this.socket.on('drain', () => handlers.drain());
    this.socket.resume();
  }

  /**
   * Write one message; false means wait for `drain`. Writing after close does
   * nothing.
   *
   * Messages written in one turn of the event loop go to the socket
   * together, at the end of the turn's microtasks, or as soon as they add up
   * to the socket's high-water mark (pipelined requests would otherwise cost
   * a system call each). False is returned once the socket's buffer is over
   * its high-water mark; `drain` follows when it empties.
   */
  write(text: string): boolean {
    if (this.closing || this.socket.destroyed || !this.socket.writable) return false;
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= this.socket.writableHighWaterMark) return this.flush();
    if (this.pending.length === 1) queueMicrotask(this.flushLater);
    return !this.socket.writableNeedDrain;
  }

  /** Hand the messages written so far to the socket; false when its buffer is full. */
  private flush(): boolean {
    const pending = this.pending;
    if (pending.length === 0) return !this.socket.writableNeedDrain;
    this.pending = [];
    this.pendingChars = 0;
    if (this.socket.destroyed || !this.socket.writable) return false;
    return this.socket.write(pending.length === 1 ? pending[0]! : pending.join(''), 'utf8');
  }

  private readonly flushLater = (): void => {
    this.flush();
  };

  /**
   * Close: pending writes are flushed, then the socket is shut down. If the
   * peer does not finish the close within a second, the socket is destroyed.
   */
  close(): void {
    if (this.closing) return;
    this.flush();
    this.closing = true;
    if (this.socket.destroyed) return;
    this.socket.end();
    const timer = setTimeout(() => this.socket.destroy(), 1000);
    timer.unref();
    this.socket.once('close', () => clearTimeout(timer));
  }

  /** Stop reading from the socket (flow control; bytes wait in the kernel). */
  pauseReading(): void {
    this.socket.pause();
  }

  /** Read again after {@link SocketTransport.pauseReading}; call only once attached. */
  resumeReading(): void {
    this.socket.resume();
  }

  /** The number of bytes queued for writing (for back-pressure diagnostics). */
  get bufferedBytes(): number {
    let n = this.socket.writableLength;
    for (const text of this.pending) n += Buffer.byteLength(text, 'utf8');
    return n;
  }

  private reportClose(): void {
    if (this.closeReported) return;
    this.closeReported = true;
    // An error after our own close() (e.g. a reset while shutting down) is not news.
    // The socket error (with its `code`) stays reachable as the `cause`.
    const error = this.closing
      ? undefined
      : this.firstError
        ? new OvsdbError(`${this.description}: ${this.firstError.message}`, {
            cause: this.firstError,
          })
        : undefined;
    if (this.handlers) this.handlers.close(error);
    else this.pendingClose = { error };
  }
}

/**
 * Connect to an active remote (`tcp:`, `ssl:` or `unix:`) and wrap the socket
 * in a {@link SocketTransport}. For `ssl:` the promise resolves after the TLS
 * handshake, with the server's certificate verified (see {@link TlsOptions}).
 *
 * ```ts
 * const transport = await openSocketTransport('unix:/var/run/ovn/ovnnb_db.sock');
 * const conn = new OvsdbConnection(transport);
 * ```
 * @throws {@link ConnectionClosedError} when the connection or handshake fails or
 * times out (the socket error is its `cause`); the signal's reason when aborted;
 * {@link RemoteSyntaxError} for an invalid remote; `OvsdbError` for TLS
 * settings given twice, or a TLS file that cannot be read or holds no PEM of
 * its kind (naming the option and the path).
 */
export function openSocketTransport(
  remote: string | Remote,
  options: SocketTransportOptions = {},
): Promise<SocketTransport> {
  let target: Remote;
  try {
    target = typeof remote === 'string' ? parseRemote(remote) : remote;
  } catch (e) {
    return Promise.reject(e);
  }
  if (target.kind === 'ws' || target.kind === 'wss') {
    return Promise.reject(
      new OvsdbError(
        `${target.kind}: is a WebSocket remote, not a socket; open it with connect() or openWebSocketTransport()`,
      ),
    );
  }
  const description = formatRemote(target);
  const { signal, timeoutMs, keepAliveMs } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (timeoutMs !== undefined && !(timeoutMs > 0)) {
    return Promise.reject(new OvsdbError(`${description}: timeoutMs must be positive`));
  }
  if (keepAliveMs !== undefined && !(keepAliveMs >= 0)) {
    return Promise.reject(new OvsdbError(`${description}: keepAliveMs must not be negative`));
  }
  const socketTarget = target as SocketRemote;
  if (socketTarget.kind === 'ssl') {
    try {
      checkTlsOptions(options.tls);
    } catch (e) {
      return Promise.reject(e);
    }
    if (hasTlsFiles(options.tls)) {
      // Read the files now, at each attempt: a reconnection picks up rotated certificates.
      return loadTlsFiles(options.tls).then((tls) => {
        if (signal?.aborted) throw signal.reason;
        return connectSocket(socketTarget, description, { ...options, tls });
      });
    }
  }
  return connectSocket(socketTarget, description, options);
}

function connectSocket(
  target: SocketRemote,
  description: string,
  options: SocketTransportOptions,
): Promise<SocketTransport> {
  const { signal, timeoutMs, keepAliveMs } = options;
  return new Promise<SocketTransport>((resolve, reject) => {
    let socket: net.Socket;
    const readyEvent = target.kind === 'ssl' ? 'secureConnect' : 'connect';
    if (target.kind === 'unix') {
      socket = connectUnixSocket(target.path);
    } else if (target.kind === 'tcp') {
      socket = net.connect({ host: target.host, port: target.port });
    } else {
      const t = options.tls ?? {};
      const tlsOptions: tls.ConnectionOptions = {
        host: target.host,
        port: target.port,
        rejectUnauthorized: t.rejectUnauthorized ?? true,
      };
      if (t.key !== undefined) tlsOptions.key = t.key;
      if (t.cert !== undefined) tlsOptions.cert = t.cert;
      if (t.ca !== undefined) tlsOptions.ca = t.ca as string | Buffer | (string | Buffer)[];
      if (t.checkServerIdentity !== undefined)
        tlsOptions.checkServerIdentity = t.checkServerIdentity;
      // SNI must not be an IP address; Node then checks the identity against the host.
      const servername = t.servername ?? (net.isIP(target.host) ? undefined : target.host);
      if (servername !== undefined) tlsOptions.servername = servername;
      socket = tls.connect(tlsOptions);
    }

    let timer: NodeJS.Timeout | undefined;
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.off('error', onError);
      socket.off('close', onClose);
      socket.off(readyEvent, onReady);
    };
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
    const onAbort = () => fail(signal?.reason);
    const onReady = () => {
      cleanup();
      if (target.kind !== 'unix') {
        socket.setNoDelay(true);
        if (keepAliveMs !== undefined && keepAliveMs > 0) {
          // The kernel counts whole seconds.
          socket.setKeepAlive(true, Math.max(1000, keepAliveMs));
        }
      }
      resolve(new SocketTransport(socket, description));
    };
    socket.once('error', onError);
    socket.once('close', onClose);
    socket.once(readyEvent, onReady);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(
        () =>
          fail(
            new ConnectionClosedError(
              `connect to ${description} failed: no connection within ${timeoutMs} ms`,
            ),
          ),
        timeoutMs,
      );
    }
  });
}

/**
 * The database client's default {@link Dialer}: Node sockets for `tcp:`,
 * `unix:` and `ssl:` remotes, and the `ws` package for `ws:`/`wss:`
 * remotes. Node only; in a browser, pass a dialer of your own built on
 * `openWebSocketTransport`.
 * @module
 */

import type { Transport } from '../wire/transport.js';
import { dialWebSocket } from './connect-ws.js';
import {
  openSocketTransport,
  type SocketTransportOptions,
  type TlsOptions,
} from './socket-transport.js';
import type { TcpStateReader } from './tcp-state.js';

/** Options a {@link Dialer} gets. */
export interface DialOptions {
  /** TLS settings for `ssl:` remotes. */
  readonly tls?: TlsOptions | undefined;
  /** Give up after this many ms. */
  readonly timeoutMs: number;
  /** Aborted when the client closes. */
  readonly signal: AbortSignal;
  /**
   * TCP keepalive idle time in ms for sockets over TCP (`tcp:`, `ssl:`,
   * `ws:`, `wss:`); 0 or absent: off. See
   * {@link SocketTransportOptions.keepAliveMs}.
   */
  readonly keepAliveMs?: number | undefined;
  /**
   * The largest message the client accepts; a message transport (WebSocket)
   * should not refuse less (its frame limit).
   */
  readonly maxMessageBytes?: number | undefined;
}

/**
 * An open transport, with the flow control the client uses for backpressure
 * (a transport without `pause`/`resume` is read without pause).
 */
export interface DialedTransport {
  readonly transport: Transport;
  /** Stop reading from the server. */
  pause?(): void;
  /** Read again. */
  resume?(): void;
  /**
   * Reads the kernel's state of the TCP connection under the transport:
   * whether the server's host acknowledges what the client sends. The
   * client uses it to find a lost host or path while it waits for a reply
   * (see `docs/liveness.md`); without it, only TCP keepalive and
   * `replySilenceTimeoutMs` do.
   */
  readonly tcpState?: TcpStateReader | undefined;
}

/**
 * Opens a transport to a remote; the default ({@link dialRemote}) opens a Node
 * socket (`tcp:`, `ssl:`, `unix:`) or a WebSocket (`ws:`, `wss:`).
 */
export type Dialer = (remote: string, options: DialOptions) => Promise<DialedTransport>;

/**
 * The default {@link Dialer}: a WebSocket for `ws:`/`wss:` remotes, a
 * socket for the others.
 */
export const dialRemote: Dialer = (remote, options) =>
  /^wss?:/i.test(remote) ? dialWebSocket(remote, options) : dialSocket(remote, options);

/**
 * A {@link Dialer} for socket remotes (`tcp:`, `unix:`, `ssl:`):
 * {@link openSocketTransport}, with pause/resume for backpressure.
 */
export async function dialSocket(remote: string, options: DialOptions): Promise<DialedTransport> {
  const transport = await openSocketTransport(remote, options);
  return {
    transport,
    pause: () => transport.pauseReading(),
    resume: () => transport.resumeReading(),
    tcpState: transport.tcpState,
  };
}

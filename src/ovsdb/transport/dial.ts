/**
 * How the database client opens its transports: the {@link Dialer}
 * contract and what it is given. Node's dialer (sockets, and the `ws`
 * package) is `dial-node.ts`; the browser's (the global `WebSocket`) is
 * `dial-browser.ts`. This module imports nothing from Node.
 * @module
 */

import type { Transport } from '../wire/transport.js';
import type { SocketTransportOptions } from './socket-transport.js';
import type { TcpStateReader } from './tcp-state.js';
import type { TlsOptions } from './tls-options.js';

/** The keepalive idle time `connect` and the database client ask for by default: 5,000 ms. */
export const DEFAULT_KEEPALIVE_MS = 5000;

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
 * Opens a transport to a remote; the default in Node (`dialRemote`) opens a
 * socket (`tcp:`, `ssl:`, `unix:`) or a WebSocket (`ws:`, `wss:`), in a
 * browser (`dialBrowser`) a WebSocket.
 */
export type Dialer = (remote: string, options: DialOptions) => Promise<DialedTransport>;

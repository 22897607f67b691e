/**
 * The options, logger and counters of the bridge, and the defaults of its
 * bounds: what the listener (`bridge.ts`) and each client's session
 * (`session.ts`) share.
 * @module
 */

import type { TlsOptions } from '../ovsdb/transport/tls-options.js';
import type { BridgePolicyOptions } from './policy.js';

/** Where the bridge writes what happens. Every method is optional. */
export interface BridgeLogger {
  info?(message: string): void;
  warn?(message: string): void;
  error?(message: string): void;
}

/** Options of {@link startBridge}. */
export interface BridgeOptions {
  /** Where to listen: `ws://<ip>:<port>[/<path>]` or `wss://…` (port 0: any free port). */
  readonly listen: string;
  /** The OVSDB server: `unix:<file>`, `tcp:<host>:<port>` or `ssl:<host>:<port>`. */
  readonly remote: string;
  /** TLS settings for an `ssl:` server (client certificate, CA). */
  readonly remoteTls?: TlsOptions | undefined;
  /** Accepted bearer tokens. Required unless {@link BridgeOptions.noAuth}. */
  readonly tokens?: readonly string[] | undefined;
  /** Accept clients without a token. Only allowed when listening on a loopback address. */
  readonly noAuth?: boolean | undefined;
  /** Databases, methods and read-only mode; see {@link BridgePolicy}. */
  readonly policy?: BridgePolicyOptions | undefined;
  /** Largest frame a client may send, in bytes (default 4 MiB); larger ones close with 1009. */
  readonly maxFrameBytes?: number | undefined;
  /**
   * Largest message the server may send, in bytes (default 1 GiB, as the
   * database client's: an initial monitor reply is about 350 bytes per
   * logical switch port); a larger one closes the client with 1009.
   */
  readonly maxMessageBytes?: number | undefined;
  /**
   * Largest server message that begins while none of the client's requests
   * is waiting for its reply (so that it is no reply: a notification), in
   * bytes (default 64 MiB, at most `maxMessageBytes`); a larger one closes
   * the client with 1009. See `ovsdb/wire/limits.ts`.
   */
  readonly maxUnsolicitedBytes?: number | undefined;
  /** Bytes queued for one client above which the bridge stops reading its server socket (default 1 MiB). */
  readonly highWaterMark?: number | undefined;
  /**
   * Requests of one client waiting for their replies at which the bridge
   * stops reading that client until replies come (default
   * {@link DEFAULT_BRIDGE_MAX_PENDING_REQUESTS}): a client cannot park
   * requests that never complete (`wait` without a timeout) in the server
   * without end. Each pending request also counts what it costs the bridge
   * (400 bytes, plus its id and method) against the buffer bounds.
   */
  readonly maxPendingRequests?: number | undefined;
  /** Certificate and key (PEM contents) for `wss:`. */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer } | undefined;
  /**
   * Browser origins allowed to connect besides the bridge's own (see
   * `net/origin.ts`), e.g. `https://ui.example.com`; `*` allows any (and
   * logs a warning). By default a browser page may connect only when it was
   * loaded from the bridge itself (`staticDir`). Clients that send no
   * `Origin` (not browsers) are not affected. Refused upgrades get HTTP 403.
   */
  readonly allowOrigins?: readonly string[] | undefined;
  /** Serve the files of this directory to plain HTTP GET requests (e.g. a browser page). */
  readonly staticDir?: string | undefined;
  /** Most simultaneous clients (default 1,000); more are refused with HTTP 503. */
  readonly maxConnections?: number | undefined;
  /**
   * Most bytes the bridge holds for all its clients together, both
   * directions (see `buffers.ts`); the client whose growth would pass it is
   * closed with 1013. Default {@link DEFAULT_BRIDGE_MAX_BUFFERED_BYTES} (1 GiB),
   * or one session's bound when that is larger.
   */
  readonly maxBufferedBytes?: number | undefined;
  /**
   * Most bytes the bridge holds for one client, both directions; past it the
   * client is closed with 1013. Default: what the other limits allow a
   * session, `maxMessageBytes + maxFrameBytes + 2 × highWaterMark`.
   */
  readonly maxSessionBufferedBytes?: number | undefined;
  /** Timeout of connecting to the server, in ms (default 10,000). */
  readonly connectTimeoutMs?: number | undefined;
  /**
   * Send a WebSocket ping to each client this often, in ms, and drop a client
   * (and its server connection) that has not answered the previous one
   * (default 30,000; 0 disables). Browsers answer pings by themselves.
   */
  readonly pingIntervalMs?: number | undefined;
  /** Where to log. Default: nothing. */
  readonly logger?: BridgeLogger | undefined;
}

/** Counters of a running bridge. */
export interface BridgeStats {
  /** Clients connected now. */
  readonly connectionsOpen: number;
  /** Clients accepted (authenticated) since start. */
  readonly connectionsTotal: number;
  /** Connections opened to the server since start. */
  readonly upstreamConnects: number;
  /** Clients refused for a missing or wrong token. */
  readonly authFailures: number;
  /** Upgrades refused (HTTP 403) because of their `Origin`. */
  readonly originRefusals: number;
  /** Requests refused by the policy. */
  readonly refusedRequests: number;
  /** Messages forwarded to the server. */
  readonly messagesToServer: number;
  /** Messages sent to clients (forwarded and refusals). */
  readonly messagesToClients: number;
  /** Times the bridge stopped reading a server socket because its client fell behind. */
  readonly upstreamPauses: number;
  /** Times the bridge stopped reading a client because the server fell behind. */
  readonly clientPauses: number;
  /** The most bytes ever queued for one client. */
  readonly maxQueuedBytes: number;
  /** Bytes queued for all clients now. */
  readonly queuedBytes: number;
  /** Bytes held for all clients now, both directions (see {@link BridgeOptions.maxBufferedBytes}). */
  readonly bufferedBytes: number;
  /** The most bytes ever held for all clients at once. */
  readonly peakBufferedBytes: number;
  /** The most bytes ever held for one client. */
  readonly peakSessionBufferedBytes: number;
  /** Clients closed (1013) because a buffer bound would have been passed. */
  readonly bufferDrops: number;
  /** Clients dropped because they did not answer a ping. */
  readonly pingTimeouts: number;
}

/** Default {@link BridgeOptions.maxFrameBytes}: 4 MiB. */
export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Default {@link BridgeOptions.highWaterMark}: 1 MiB. */
export const DEFAULT_BRIDGE_HIGH_WATER_MARK = 1024 * 1024;

/** Default {@link BridgeOptions.maxPendingRequests}: 1,000. */
export const DEFAULT_BRIDGE_MAX_PENDING_REQUESTS = 1000;

/** Default {@link BridgeOptions.maxBufferedBytes}: 1 GiB. */
export const DEFAULT_BRIDGE_MAX_BUFFERED_BYTES = 1024 * 1024 * 1024;

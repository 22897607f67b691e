/**
 * A message {@link Transport} over a WebSocket: one JSON-RPC message per text
 * frame. It runs on any object shaped like the WHATWG `WebSocket`: the global
 * `WebSocket` of browsers (and of Node 22+), or a `WebSocket` of the `ws`
 * package in Node. This module imports nothing from Node, so bundlers can
 * build it for browsers.
 *
 * ```ts
 * // Browser
 * const transport = await openWebSocketTransport(
 *   () => new WebSocket(withToken('wss://ovn.example.com/ovsdb', token)),
 * );
 * const conn = new OvsdbConnection(transport);
 * ```
 *
 * Write backpressure follows the socket's `bufferedAmount`: {@link
 * WebSocketTransport.write} returns false once it passes the high-water mark,
 * and `drain` is reported when it falls back to the low-water mark (browsers
 * have no drain event, so the transport looks again every few milliseconds
 * while it waits).
 * @module
 */

import { ConnectionClosedError, OvsdbError } from '../wire/errors.js';
import type { Transport, TransportHandlers } from '../wire/transport.js';
import { redactUrlSecrets } from './remote.js';

/** `readyState` values of a WebSocket. */
const CONNECTING = 0;
const OPEN = 1;

/** The `message` event members the transport reads. */
export interface WebSocketMessageEventLike {
  /** A string for text frames; an `ArrayBuffer` or byte array for binary ones. */
  readonly data: unknown;
}

/** The `close` event members the transport reads. */
export interface WebSocketCloseEventLike {
  /** The close code (1000 normal, 1006 abnormal, 1008 policy, 1009 too big, …). */
  readonly code: number;
  /** The reason the other side gave (may be empty). */
  readonly reason: string;
}

/** The `error` event members the transport reads (browsers give no details). */
export interface WebSocketErrorEventLike {
  readonly message?: string | undefined;
}

/**
 * What the transport needs of a WebSocket. Both the browser `WebSocket` and
 * the `ws` package's `WebSocket` have it.
 */
export interface WebSocketLike {
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  /** Bytes queued by `send` and not yet handed to the network. */
  readonly bufferedAmount: number;
  /** The URL the socket was opened with. */
  readonly url: string;
  /** How binary frames are delivered; the transport asks for `arraybuffer`. */
  binaryType: string;
  /** Queue one text frame. */
  send(data: string): void;
  /** Start the closing handshake. */
  close(code?: number, reason?: string): void;
  /** Listen for an event. */
  addEventListener(type: 'message', listener: (event: WebSocketMessageEventLike) => void): void;
  addEventListener(type: 'close', listener: (event: WebSocketCloseEventLike) => void): void;
  addEventListener(
    type: 'open' | 'error',
    listener: (event: WebSocketErrorEventLike) => void,
  ): void;
  /** Stop listening. */
  removeEventListener(type: 'message', listener: (event: WebSocketMessageEventLike) => void): void;
  removeEventListener(type: 'close', listener: (event: WebSocketCloseEventLike) => void): void;
  removeEventListener(
    type: 'open' | 'error',
    listener: (event: WebSocketErrorEventLike) => void,
  ): void;
}

/** Optional flow control some WebSocket implementations (the `ws` package) have. */
interface PausableWebSocket {
  pause(): void;
  resume(): void;
  terminate?(): void;
}

/** Options of {@link WebSocketTransport}. */
export interface WebSocketTransportOptions {
  /** `write` returns false while `bufferedAmount` is above this many bytes. Default 1 MiB. */
  readonly highWaterMark?: number | undefined;
  /** `drain` is reported once `bufferedAmount` is at or below this. Default a quarter of the high-water mark. */
  readonly lowWaterMark?: number | undefined;
  /** How often to look at `bufferedAmount` while waiting for it to drain, in ms. Default 5. */
  readonly drainPollMs?: number | undefined;
  /** How long to wait for the closing handshake after {@link WebSocketTransport.close}, in ms. Default 2,000. */
  readonly closeTimeoutMs?: number | undefined;
  /** What {@link Transport.description} reports. Default: the socket's URL with any token hidden. */
  readonly description?: string | undefined;
}

/** Default {@link WebSocketTransportOptions.highWaterMark}: 1 MiB. */
export const DEFAULT_WS_HIGH_WATER_MARK = 1024 * 1024;

/** The names RFC 6455 (and the IANA registry) give to close codes. */
const CLOSE_CODE_NAMES: Readonly<Record<number, string>> = {
  1000: 'normal closure',
  1001: 'going away',
  1002: 'protocol error',
  1003: 'unsupported data',
  1005: 'no status',
  1006: 'abnormal closure',
  1007: 'invalid payload data',
  1008: 'policy violation',
  1009: 'message too big',
  1010: 'mandatory extension',
  1011: 'internal error',
  1012: 'service restart',
  1013: 'try again later',
  1014: 'bad gateway',
  1015: 'TLS handshake failure',
};

/** The RFC 6455 name of a close code, e.g. `policy violation` for 1008. */
export function closeCodeName(code: number): string {
  return CLOSE_CODE_NAMES[code] ?? (code >= 4000 && code <= 4999 ? 'application' : 'unknown');
}

/**
 * The other side closed the WebSocket with a code other than a normal
 * closure, or the connection broke (1006). `code` and `reason` are as
 * received, e.g. 1008 `unauthorized: invalid token` from `ovnkit bridge`.
 */
export class WebSocketClosedError extends OvsdbError {
  override name = 'WebSocketClosedError';
  constructor(
    /** Where the socket was connected, with any token hidden. */
    readonly description: string,
    /** The close code. */
    readonly code: number,
    /** The close reason (may be empty). */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${description}: WebSocket closed with code ${code} (${closeCodeName(code)})${reason === '' ? '' : `: ${reason}`}`,
      options,
    );
  }
}

/**
 * A {@link Transport} of kind `message` over a WebSocket. Messages that arrive
 * before {@link WebSocketTransport.attach} are kept and delivered on attach;
 * so is a close.
 */
export class WebSocketTransport implements Transport {
  readonly kind = 'message';
  readonly description: string;

  private handlers: TransportHandlers | undefined;
  private readonly early: string[] = [];
  private pendingClose: { error: Error | undefined } | undefined;
  private closeReported = false;
  private closing = false;
  private waitingForDrain = false;
  private drainTimer: ReturnType<typeof setTimeout> | undefined;
  private closeTimer: ReturnType<typeof setTimeout> | undefined;
  private lastErrorText: string | undefined;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private readonly highWaterMark: number;
  private readonly lowWaterMark: number;
  private readonly drainPollMs: number;
  private readonly closeTimeoutMs: number;

  /**
   * @param socket An open (or opening) WebSocket; see {@link openWebSocketTransport} to wait for it to open.
   * @param options See {@link WebSocketTransportOptions}.
   */
  constructor(
    private readonly socket: WebSocketLike,
    options: WebSocketTransportOptions = {},
  ) {
    this.description = options.description ?? redactUrlSecrets(socket.url);
    this.highWaterMark = options.highWaterMark ?? DEFAULT_WS_HIGH_WATER_MARK;
    this.lowWaterMark = Math.min(
      options.lowWaterMark ?? Math.floor(this.highWaterMark / 4),
      this.highWaterMark,
    );
    this.drainPollMs = options.drainPollMs ?? 5;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 2000;
    if (!(this.highWaterMark >= 0)) {
      throw new RangeError(
        `highWaterMark must be a non-negative number, got ${this.highWaterMark}`,
      );
    }
    try {
      socket.binaryType = 'arraybuffer';
    } catch {
      // Some implementations fix the binary type; binary frames are decoded either way.
    }
    socket.addEventListener('message', this.onMessage);
    socket.addEventListener('close', this.onClose);
    socket.addEventListener('error', this.onError);
  }

  /** Attach the consumer; messages and a close that arrived before are delivered now. */
  attach(handlers: TransportHandlers): void {
    if (this.handlers) throw new Error(`${this.description}: transport already attached`);
    this.handlers = handlers;
    for (const text of this.early.splice(0)) handlers.message(text);
    if (this.pendingClose) {
      const { error } = this.pendingClose;
      this.pendingClose = undefined;
      handlers.close(error);
    }
  }

  /**
   * Send one message as a text frame. Returns false when `bufferedAmount` is
   * above the high-water mark (or the socket is not open); `drain` follows
   * once it falls to the low-water mark.
   */
  write(text: string): boolean {
    if (this.closing || this.socket.readyState !== OPEN) return false;
    this.socket.send(text);
    if (this.socket.bufferedAmount > this.highWaterMark) {
      this.startDrainWatch();
      return false;
    }
    return true;
  }

  /**
   * Close with code 1000. `close` is reported when the closing handshake
   * ends, or after `closeTimeoutMs` if it does not.
   */
  close(): void {
    if (this.closing) return;
    this.closing = true;
    this.stopDrainWatch();
    if (this.closeReported) return;
    const state = this.socket.readyState;
    if (state === CONNECTING || state === OPEN) {
      try {
        this.socket.close(1000);
      } catch {
        // Already closing.
      }
    }
    this.closeTimer = setTimeout(() => {
      const s = this.socket as Partial<PausableWebSocket>;
      try {
        s.terminate?.();
      } catch {
        // Nothing more to do.
      }
      this.reportClose(undefined);
    }, this.closeTimeoutMs);
  }

  /** Bytes queued in the socket and not yet sent. */
  get bufferedBytes(): number {
    return this.socket.bufferedAmount;
  }

  /** True when the socket can stop reading ({@link WebSocketTransport.pause}); browsers' cannot. */
  get canPause(): boolean {
    const s = this.socket as Partial<PausableWebSocket>;
    return typeof s.pause === 'function' && typeof s.resume === 'function';
  }

  /** Stop reading from the socket, when the implementation can (the `ws` package); otherwise nothing. */
  pause(): void {
    if (this.canPause) (this.socket as unknown as PausableWebSocket).pause();
  }

  /** Read again after {@link WebSocketTransport.pause}. */
  resume(): void {
    if (this.canPause) (this.socket as unknown as PausableWebSocket).resume();
  }

  private readonly onMessage = (event: WebSocketMessageEventLike): void => {
    if (this.closeReported) return;
    let text: string;
    const data = event.data;
    if (typeof data === 'string') text = data;
    else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
      try {
        const bytes =
          data instanceof ArrayBuffer
            ? new Uint8Array(data)
            : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        text = this.decoder.decode(bytes);
      } catch {
        this.failAndClose(1007, 'invalid UTF-8 in a binary frame');
        return;
      }
    } else {
      this.failAndClose(1003, 'unsupported frame data');
      return;
    }
    if (this.handlers) this.handlers.message(text);
    else this.early.push(text);
  };

  private readonly onError = (event: WebSocketErrorEventLike): void => {
    const message = event?.message;
    if (typeof message === 'string' && message !== '') this.lastErrorText = message;
  };

  private readonly onClose = (event: WebSocketCloseEventLike): void => {
    if (this.closing) {
      this.reportClose(undefined);
      return;
    }
    const code = event.code;
    const reason = event.reason ?? '';
    if ((code === 1000 || code === 1005) && reason === '') {
      this.reportClose(undefined);
      return;
    }
    const cause = this.lastErrorText === undefined ? undefined : new Error(this.lastErrorText);
    this.reportClose(
      new WebSocketClosedError(
        this.description,
        code,
        reason === '' && code === 1006 && this.lastErrorText ? this.lastErrorText : reason,
        cause ? { cause } : undefined,
      ),
    );
  };

  private failAndClose(code: number, reason: string): void {
    const error = new WebSocketClosedError(this.description, code, reason);
    this.closing = true;
    try {
      this.socket.close(code, reason);
    } catch {
      // Already closing.
    }
    this.reportClose(error);
  }

  private reportClose(error: Error | undefined): void {
    if (this.closeReported) return;
    this.closeReported = true;
    this.stopDrainWatch();
    if (this.closeTimer !== undefined) clearTimeout(this.closeTimer);
    this.closeTimer = undefined;
    this.socket.removeEventListener('message', this.onMessage);
    this.socket.removeEventListener('error', this.onError);
    this.socket.removeEventListener('close', this.onClose);
    if (this.handlers) this.handlers.close(error);
    else this.pendingClose = { error };
  }

  private startDrainWatch(): void {
    if (this.waitingForDrain) return;
    this.waitingForDrain = true;
    const poll = (): void => {
      this.drainTimer = undefined;
      if (!this.waitingForDrain || this.closeReported) return;
      if (this.socket.bufferedAmount <= this.lowWaterMark) {
        this.waitingForDrain = false;
        this.handlers?.drain();
        return;
      }
      this.drainTimer = setTimeout(poll, this.drainPollMs);
    };
    this.drainTimer = setTimeout(poll, this.drainPollMs);
  }

  private stopDrainWatch(): void {
    this.waitingForDrain = false;
    if (this.drainTimer !== undefined) clearTimeout(this.drainTimer);
    this.drainTimer = undefined;
  }
}

/** Options of {@link openWebSocketTransport}. */
export interface OpenWebSocketOptions extends WebSocketTransportOptions {
  /** Give up when the socket is not open after this many milliseconds. */
  readonly timeoutMs?: number | undefined;
  /** Abort opening; the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Create a WebSocket with `create`, wait for it to open, and wrap it in a
 * {@link WebSocketTransport}.
 *
 * ```ts
 * const transport = await openWebSocketTransport(() => new WebSocket(url), { timeoutMs: 5000 });
 * ```
 * @throws {@link ConnectionClosedError} when the socket closes or fails before
 *   it opens (its `cause` is a {@link WebSocketClosedError} with the close code
 *   when there is one) or does not open in time; the signal's reason when
 *   aborted; whatever `create` throws (e.g. a `SyntaxError` for a bad URL).
 */
export function openWebSocketTransport(
  create: () => WebSocketLike,
  options: OpenWebSocketOptions = {},
): Promise<WebSocketTransport> {
  const { signal, timeoutMs, ...transportOptions } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (timeoutMs !== undefined && !(timeoutMs > 0)) {
    return Promise.reject(new OvsdbError(`timeoutMs must be positive, got ${timeoutMs}`));
  }
  let socket: WebSocketLike;
  try {
    socket = create();
  } catch (e) {
    return Promise.reject(e);
  }
  const description = transportOptions.description ?? redactUrlSecrets(socket.url);
  return new Promise<WebSocketTransport>((resolve, reject) => {
    let errorText: string | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const cleanup = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.removeEventListener('open', onOpen);
      socket.removeEventListener('error', onError);
      socket.removeEventListener('close', onClose);
    };
    const abandon = (): void => {
      // Closing a socket that is still connecting makes `ws` emit an error
      // ("closed before the connection was established") a tick later: the
      // attempt is over, so that error is expected and ignored.
      socket.addEventListener('error', () => {});
      try {
        const s = socket as Partial<PausableWebSocket>;
        if (typeof s.terminate === 'function') s.terminate();
        else socket.close();
      } catch {
        // Nothing more to do.
      }
    };
    const onOpen = (): void => {
      cleanup();
      resolve(new WebSocketTransport(socket, { ...transportOptions, description }));
    };
    const onError = (event: WebSocketErrorEventLike): void => {
      if (typeof event?.message === 'string' && event.message !== '') errorText = event.message;
    };
    const onClose = (event: WebSocketCloseEventLike): void => {
      cleanup();
      const closed = new WebSocketClosedError(
        description,
        event.code,
        event.reason === '' && errorText !== undefined ? errorText : event.reason,
      );
      reject(
        new ConnectionClosedError(`connect to ${description} failed: ${closed.message}`, {
          cause: closed,
        }),
      );
    };
    const onAbort = (): void => {
      cleanup();
      abandon();
      reject(signal?.reason);
    };
    socket.addEventListener('open', onOpen);
    socket.addEventListener('error', onError);
    socket.addEventListener('close', onClose);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        cleanup();
        abandon();
        reject(
          new ConnectionClosedError(
            `connect to ${description} failed: not open within ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
    }
  });
}

/**
 * `url` with a `token` query parameter set (replacing any), the way
 * `ovnkit bridge` accepts a bearer token from browsers, which cannot set
 * headers on a WebSocket.
 *
 * ```ts
 * withToken('wss://ovn.example.com/ovsdb', 's3cret'); // 'wss://ovn.example.com/ovsdb?token=s3cret'
 * ```
 */
export function withToken(url: string, token: string): string {
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  const q = base.indexOf('?');
  const path = q < 0 ? base : base.slice(0, q);
  const kept =
    q < 0
      ? []
      : base
          .slice(q + 1)
          .split('&')
          .filter((p) => p !== '' && !/^token(=|$)/i.test(p));
  kept.push(`token=${encodeURIComponent(token)}`);
  return `${path}?${kept.join('&')}`;
}

/**
 * The server side of one client connection: a byte stream (a unix, tcp or
 * ssl socket) or a message pipe (an in-process connection). A
 * {@link Session} reads and writes through it.
 * @module
 */

import type * as net from 'node:net';
import type { TextInPieces } from '../../ovsdb/wire/json-stringify.js';
import type { BacklogMeter, ConnectionLimits } from '../listeners/limits.js';

/** What a channel reports to its session. */
export interface ChannelHandlers {
  /** Bytes from a stream channel (the session frames them). */
  data(chunk: Uint8Array): void;
  /** One whole message from a message channel. */
  message(text: string): void;
  /** The connection is gone (closed by either side). Reported once. */
  close(): void;
  /** The backlog cleared (channels that report {@link SessionChannel.backlogged}). */
  drain?(): void;
  /** A batch of received data was handled; what it wrote is sent next (channels that report {@link SessionChannel.batching}). */
  batchEnd?(): void;
  /** Bytes of an incomplete message the session holds (stream channels), for the server's input bound. */
  bufferedInput?(): number;
}

/** One client connection as the server sees it. */
export interface SessionChannel {
  /** `stream` channels deliver bytes to frame; `message` channels whole messages. */
  readonly kind: 'stream' | 'message';
  /** The connection's name in logs, e.g. `unix#3` or `tcp:127.0.0.1:40512`. */
  readonly name: string;
  /** Whether the server probes this connection when it is idle (tcp and ssl). */
  readonly probes: boolean;
  /** Start delivering events. */
  attach(handlers: ChannelHandlers): void;
  /** Send one serialized message: a string, or its pieces in order (a message longer than one string can be). */
  write(text: TextInPieces): void;
  /**
   * True while written messages wait because the client reads too slowly.
   * The server does not flush such a session's monitors (their changes merge
   * meanwhile) until {@link ChannelHandlers.drain}. Channels without it never
   * count as backlogged.
   */
  readonly backlogged?: boolean;
  /**
   * True while what is written is gathered, to be sent together once the
   * received data at hand is handled ({@link ChannelHandlers.batchEnd}).
   */
  readonly batching?: boolean;
  /** Close after sending what is queued. */
  close(): void;
  /** Drop the connection at once (a reset for tcp), as a killed server does. */
  abort(): void;
  /**
   * The connection's backlog (see `listeners/limits.ts`), for channels of a
   * listener: the merged monitor updates waiting for it are added to it.
   */
  readonly backlog?: BacklogMeter | undefined;
}

/** What a listener's channel needs to keep the server's bounds. */
export interface ChannelBounds {
  readonly limits: ConnectionLimits;
  /** Write a log line (module, level, text). */
  log(module: string, level: 'INFO' | 'WARN', text: string): void;
}

/** Log that connection `name` is dropped because its backlog passed the bound. */
export function logBacklogDrop(bounds: ChannelBounds, name: string, bytes: number): void {
  bounds.log(
    'jsonrpc',
    'WARN',
    `${name}: excessive sending backlog (${bytes} bytes waiting, over the ${bounds.limits.maxBacklogBytes}-byte bound), disconnecting`,
  );
  bounds.log('reconnect', 'WARN', `${name}: connection dropped (excessive sending backlog)`);
}

/** Log that connection `name` is dropped because the input of all connections passed the bound. */
export function logInputDrop(bounds: ChannelBounds, name: string, bytes: number): void {
  bounds.log(
    'jsonrpc',
    'WARN',
    `${name}: incomplete messages of all connections would exceed ${bounds.limits.maxInputBytes} bytes (${bounds.limits.totalInput} held, ${bytes} by this connection), disconnecting`,
  );
  bounds.log('reconnect', 'WARN', `${name}: connection dropped (input buffers full)`);
}

/** A {@link SessionChannel} over a connected Node socket. */
export class SocketChannel implements SessionChannel {
  readonly kind = 'stream';
  private closedReported = false;
  private readPaused = false;
  /** The socket filled up in this turn of the event loop (see {@link SocketChannel.write}). */
  private filledThisTurn = false;
  /** True while a received chunk is handled (writes are gathered). */
  private corked = false;
  private handlers: ChannelHandlers | undefined;
  readonly backlog: BacklogMeter | undefined;

  /** @param bounds The server's bounds (a listener's connections); none for others. */
  constructor(
    private readonly socket: net.Socket,
    readonly name: string,
    readonly probes: boolean,
    private readonly bounds?: ChannelBounds | undefined,
  ) {
    socket.on('error', () => {
      // 'close' follows.
    });
    socket.on('close', () => {
      bounds?.limits.release(this);
      this.reportClose();
    });
    this.backlog = bounds?.limits.meter((bytes) => {
      if (this.socket.destroyed) return;
      logBacklogDrop(bounds, name, bytes);
      this.abort();
    });
  }

  /** After a chunk was handled: count what the session holds of an incomplete message. */
  private holdInput(handlers: ChannelHandlers): void {
    const bounds = this.bounds;
    if (bounds === undefined || this.socket.destroyed) return;
    const held = handlers.bufferedInput?.() ?? 0;
    if (bounds.limits.holdInput(this, held)) return;
    logInputDrop(bounds, this.name, held);
    bounds.limits.release(this);
    this.abort();
  }

  attach(handlers: ChannelHandlers): void {
    this.handlers = handlers;
    this.socket.on('data', (chunk: Buffer) => {
      // Everything sent while handling one chunk (the replies to a pipelined
      // batch of requests) goes out in one write; whether the client keeps
      // up is judged once that write was tried.
      this.corked = true;
      this.socket.cork();
      try {
        handlers.data(chunk);
        this.holdInput(handlers);
      } finally {
        try {
          handlers.batchEnd?.();
        } finally {
          this.corked = false;
          this.socket.uncork();
          if (this.socket.writableNeedDrain && this.socket.writableLength > 0) this.holdBack();
        }
      }
    });
    if (this.socket.destroyed) this.reportClose();
  }

  /** True while a received chunk is handled: writes go out together when it is done. */
  get batching(): boolean {
    return this.corked;
  }

  /** True from a write the socket could not take until it drained. */
  get backlogged(): boolean {
    return this.readPaused;
  }

  /**
   * Queue `text` (a string, or its pieces' bytes in order).
   * While the socket cannot take more (the client reads too slowly), the
   * server stops reading from it, as ovsdb-server stops serving a session
   * that has a backlog; the drain is reported to the session. What is
   * written in the same turn as the write that filled the socket (the rest
   * of one batch of replies, or of one round of monitor updates) is not
   * counted in the backlog: one large reply or update never trips its bound.
   */
  write(text: TextInPieces): void {
    if (this.socket.destroyed || !this.socket.writable) return;
    if (typeof text === 'string') {
      if (this.counting) this.backlog?.wrote(Buffer.byteLength(text));
      if (!this.socket.write(text) && !this.corked) this.holdBack();
      return;
    }
    let bytes = 0;
    let more = true;
    for (const piece of text) {
      bytes += piece.byteLength;
      more = this.socket.write(piece);
    }
    if (this.counting) this.backlog?.wrote(bytes);
    if (!more && !this.corked) this.holdBack();
  }

  /** Whether what is written now counts in the backlog (see {@link SocketChannel.write}). */
  private get counting(): boolean {
    return this.readPaused && !this.filledThisTurn;
  }

  /** Stop reading until the socket drained, then report the drain. */
  private holdBack(): void {
    if (this.readPaused) return;
    this.readPaused = true;
    this.filledThisTurn = true;
    queueMicrotask(() => {
      this.filledThisTurn = false;
    });
    this.socket.pause();
    this.socket.once('drain', () => {
      this.readPaused = false;
      this.backlog?.drained();
      this.socket.resume();
      this.handlers?.drain?.();
    });
  }

  close(): void {
    if (this.socket.destroyed) return;
    this.socket.end();
    const timer = setTimeout(() => this.socket.destroy(), 1000);
    timer.unref();
    this.socket.once('close', () => clearTimeout(timer));
  }

  abort(): void {
    if (this.socket.destroyed) return;
    const s = this.socket as net.Socket & { resetAndDestroy?: () => void };
    if (typeof s.resetAndDestroy === 'function' && s.remoteAddress !== undefined) {
      s.resetAndDestroy();
    } else {
      s.destroy();
    }
  }

  private reportClose(): void {
    if (this.closedReported || this.handlers === undefined) return;
    this.closedReported = true;
    this.handlers.close();
  }
}

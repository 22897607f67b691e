/**
 * An in-memory {@link Transport} pair for unit tests: what one end writes, the
 * other end receives, as byte chunks (`stream`) or whole messages (`message`).
 * Tests control delivery (automatic on a microtask, or manual with `flush`),
 * chunking, the write high-water mark (backpressure) and failures, and can
 * inject raw bytes.
 * @module
 */

import type { Transport, TransportHandlers } from '../../src/ovsdb/wire/transport.js';

/** Options of one end of a {@link createMemoryPair} pair. */
export interface MemoryTransportOptions {
  /** `stream` (default) delivers bytes that need framing; `message` delivers whole messages. */
  kind?: 'stream' | 'message';
  /** `write` returns false once this many bytes are written but not delivered (default: never). */
  highWaterMark?: number;
  /** Deliver writes on a microtask (default true); when false, call `flush()`. */
  autoDeliver?: boolean;
  /** Stream kind: split each delivery into chunks of at most this many bytes (default: one chunk). */
  chunkSize?: number;
  /** The transport's description (default `memory:a` / `memory:b`). */
  description?: string;
}

type Inbound =
  | { type: 'data'; chunk: Uint8Array }
  | { type: 'message'; text: string }
  | { type: 'close'; error: Error | undefined };

const encoder = new TextEncoder();

/** One end of an in-memory transport pair. */
export class MemoryTransport implements Transport {
  readonly kind: 'stream' | 'message';
  readonly description: string;
  /** Every message written on this end, in order (including undelivered ones). */
  readonly sent: string[] = [];
  /** The other end. */
  remote!: MemoryTransport;
  /** How many times `drain` was reported on this end. */
  drainCount = 0;

  private handlers: TransportHandlers | undefined;
  private readonly early: Inbound[] = [];
  private outbox: string[] = [];
  private outboxBytes = 0;
  private needDrain = false;
  private scheduled = false;
  private closedFlag = false;
  private readonly highWaterMark: number;
  private readonly autoDeliver: boolean;
  private readonly chunkSize: number;

  constructor(options: MemoryTransportOptions = {}, defaultDescription = 'memory') {
    this.kind = options.kind ?? 'stream';
    this.description = options.description ?? defaultDescription;
    this.highWaterMark = options.highWaterMark ?? Number.POSITIVE_INFINITY;
    this.autoDeliver = options.autoDeliver ?? true;
    this.chunkSize = options.chunkSize ?? Number.POSITIVE_INFINITY;
  }

  /** True once this end closed (locally or because the other end did). */
  get isClosed(): boolean {
    return this.closedFlag;
  }

  /** Bytes written on this end and not yet delivered. */
  get pendingBytes(): number {
    return this.outboxBytes;
  }

  attach(handlers: TransportHandlers): void {
    if (this.handlers) throw new Error(`${this.description}: already attached`);
    this.handlers = handlers;
    for (const ev of this.early.splice(0)) this.dispatch(ev);
  }

  write(text: string): boolean {
    if (this.closedFlag) throw new Error(`${this.description}: write after close`);
    this.sent.push(text);
    this.outbox.push(text);
    this.outboxBytes += encoder.encode(text).length;
    if (this.autoDeliver && !this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => {
        this.scheduled = false;
        this.flush();
      });
    }
    const ok = this.outboxBytes < this.highWaterMark;
    if (!ok) this.needDrain = true;
    return ok;
  }

  /** Deliver everything written so far to the other end, then report `drain` if a write returned false. */
  flush(): void {
    const texts = this.outbox;
    this.outbox = [];
    this.outboxBytes = 0;
    if (texts.length > 0 && !this.remote.closedFlag) {
      if (this.remote.kind === 'message') {
        for (const text of texts) this.remote.inbound({ type: 'message', text });
      } else {
        this.remote.injectBytes(texts.join(''));
      }
    }
    if (this.needDrain && !this.closedFlag) {
      this.needDrain = false;
      this.drainCount++;
      this.handlers?.drain();
    }
  }

  /** Deliver raw bytes (or the UTF-8 of a string) to this end's consumer, split into `chunkSize` chunks. */
  injectBytes(bytes: Uint8Array | string, chunkSize = this.chunkSize): void {
    const all = typeof bytes === 'string' ? encoder.encode(bytes) : bytes;
    if (all.length === 0) return;
    for (let i = 0; i < all.length; i += chunkSize) {
      this.inbound({ type: 'data', chunk: all.slice(i, Math.min(all.length, i + chunkSize)) });
    }
  }

  /** Deliver one whole message to this end's consumer (as a message transport would). */
  injectMessage(text: string): void {
    this.inbound({ type: 'message', text });
  }

  /** Close this end: pending writes are delivered, then both ends report `close` (cleanly). */
  close(): void {
    this.shutdown(undefined, undefined);
  }

  /** Simulate a failure: this end reports `close(error)`, the other end `close(remoteError)`. */
  fail(error: Error, remoteError?: Error): void {
    this.shutdown(error, remoteError);
  }

  private shutdown(error: Error | undefined, remoteError: Error | undefined): void {
    if (this.closedFlag) return;
    this.flush();
    this.closedFlag = true;
    queueMicrotask(() => {
      this.inbound({ type: 'close', error }, true);
      if (!this.remote.closedFlag) {
        this.remote.closedFlag = true;
        this.remote.inbound({ type: 'close', error: remoteError }, true);
      }
    });
  }

  private inbound(ev: Inbound, force = false): void {
    if (this.closedFlag && !force) return;
    if (!this.handlers) {
      this.early.push(ev);
      return;
    }
    this.dispatch(ev);
  }

  private dispatch(ev: Inbound): void {
    const h = this.handlers!;
    if (ev.type === 'data') h.data(ev.chunk);
    else if (ev.type === 'message') h.message(ev.text);
    else h.close(ev.error);
  }
}

/**
 * Two connected in-memory transports.
 *
 * ```ts
 * const [client, server] = createMemoryPair({ kind: 'stream', chunkSize: 7 });
 * ```
 */
export function createMemoryPair(
  options: MemoryTransportOptions = {},
  remoteOptions: MemoryTransportOptions = options,
): [MemoryTransport, MemoryTransport] {
  const a = new MemoryTransport(options, 'memory:a');
  const b = new MemoryTransport(
    remoteOptions === options ? { ...options, description: 'memory:b' } : remoteOptions,
    'memory:b',
  );
  a.remote = b;
  b.remote = a;
  return [a, b];
}

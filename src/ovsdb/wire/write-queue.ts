/**
 * The outgoing side of a JSON-RPC peer: messages go to the transport at
 * once while it accepts them, and wait in a bounded queue while it asks to
 * wait for `drain` (the other side is not reading fast enough).
 *
 * This module imports nothing from Node, so it also runs in browsers.
 * @module
 */

import { WriteQueueFullError } from './errors.js';
import type { Transport } from './transport.js';
import { utf8Length } from './utf8.js';

/** Default bound of the bytes waiting to be written: 64 MiB. */
export const DEFAULT_MAX_WRITE_QUEUE_BYTES = 64 * 1024 * 1024;

/** What the queue reports to its owner. */
export interface WriteQueueOwner {
  /** The queue would pass its bound: the owner drops the connection. */
  full(error: WriteQueueFullError): void;
  /** The transport threw on write: the owner drops the connection. */
  failed(error: unknown): void;
}

/** Messages on their way to a transport, with backpressure and a bound. */
export class WriteQueue {
  private readonly texts: string[] = [];
  /** The UTF-8 size of each queued message, in step with `texts`. */
  private readonly sizes: number[] = [];
  private head = 0;
  private waiting = false;
  private closed = false;
  private queuedBytes = 0;
  private peak = 0;
  private drainWaiters: (() => void)[] = [];

  /** @throws RangeError for a bound that is not positive. */
  constructor(
    private readonly transport: Transport,
    private readonly maxBytes: number,
    private readonly owner: WriteQueueOwner,
  ) {
    if (!(maxBytes > 0))
      throw new RangeError(`maxWriteQueueBytes must be positive, got ${maxBytes}`);
  }

  /** Messages waiting for the transport to drain. */
  get length(): number {
    return this.texts.length - this.head;
  }

  /** Bytes (UTF-8) of the messages waiting. */
  get bytes(): number {
    return this.queuedBytes;
  }

  /** The most bytes that ever waited at once. */
  get peakBytes(): number {
    return this.peak;
  }

  /**
   * Write `text` now, or queue it while the transport asks to wait. A
   * message that would take the queue past its bound (unless the queue is
   * empty: one message of any size may always wait) is refused with
   * {@link WriteQueueOwner.full}.
   */
  write(text: string): void {
    if (this.closed) return;
    if (!this.waiting) {
      this.writeNow(text);
      return;
    }
    const size = utf8Length(text);
    const total = this.queuedBytes + size;
    if (total > this.maxBytes && this.length > 0) {
      this.owner.full(new WriteQueueFullError(this.transport.description, total, this.maxBytes));
      return;
    }
    this.texts.push(text);
    this.sizes.push(size);
    this.queuedBytes = total;
    if (total > this.peak) this.peak = total;
  }

  /** The transport drained: write what waits, until it asks to wait again. */
  onDrain(): void {
    if (this.closed) return;
    this.waiting = false;
    while (!this.waiting && this.head < this.texts.length && !this.closed) {
      const text = this.texts[this.head]!;
      this.texts[this.head] = '';
      this.queuedBytes -= this.sizes[this.head]!;
      this.head++;
      this.writeNow(text);
    }
    if (this.head === this.texts.length) {
      this.texts.length = 0;
      this.sizes.length = 0;
      this.head = 0;
      this.queuedBytes = 0;
    } else if (this.head > 1024 && this.head * 2 > this.texts.length) {
      this.texts.splice(0, this.head);
      this.sizes.splice(0, this.head);
      this.head = 0;
    }
    if (!this.waiting && this.length === 0) this.wakeDrainWaiters();
  }

  /** Resolves when nothing waits and the transport accepted every message, or once closed. */
  drained(): Promise<void> {
    if (this.closed || (!this.waiting && this.length === 0)) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Drop what waits and write nothing more. */
  close(): void {
    this.closed = true;
    this.texts.length = 0;
    this.sizes.length = 0;
    this.head = 0;
    this.queuedBytes = 0;
    this.waiting = false;
    this.wakeDrainWaiters();
  }

  private writeNow(text: string): void {
    let ok: boolean;
    try {
      ok = this.transport.write(text);
    } catch (e) {
      this.owner.failed(e);
      return;
    }
    if (!ok) this.waiting = true;
  }

  private wakeDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }
}

/**
 * {@link WorkQueue}: a keyed work queue in the style of client-go's:
 *
 * - a key queued twice is processed once (dedupe);
 * - a key is never processed by two workers at once: added while being
 *   processed, it is processed again afterwards (per-key serialization);
 * - at most `concurrency` keys are processed at a time;
 * - `addRateLimited` delays a key by the rate limiter (failure backoff).
 *
 * ```ts
 * const q = new WorkQueue<string>({ concurrency: 4, rateLimiter, worker: async (key) => { … } });
 * q.add('default/web-0');
 * await q.idle();
 * ```
 * The worker decides about retries: call `addRateLimited(key)` on failure and
 * `forget(key)` on success.
 * @module
 */

import type { RateLimiter } from './rate-limiter.js';

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions<K extends string> {
  /** At most this many keys processed at once (default 1). */
  readonly concurrency?: number | undefined;
  /** Delays of `addRateLimited`. */
  readonly rateLimiter: RateLimiter;
  /** Processes one key. A rejection is reported to `onError` (the worker should handle its errors). */
  readonly worker: (key: K) => Promise<void>;
  /** Called with an error the worker let through. */
  readonly onError?: ((key: K, error: unknown) => void) | undefined;
}

/** A keyed, deduplicating, rate-limited work queue (see the module documentation). */
export class WorkQueue<K extends string> {
  private readonly queue: K[] = [];
  private readonly queued = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly dirty = new Set<K>();
  private readonly timers = new Map<K, NodeJS.Timeout>();
  private readonly concurrency: number;
  private idleWaiters: (() => void)[] = [];
  private stopped = false;

  /** @param options - see {@link WorkQueueOptions}. */
  constructor(private readonly options: WorkQueueOptions<K>) {
    this.concurrency = Math.max(1, options.concurrency ?? 1);
  }

  /** Keys waiting (queued or delayed) plus keys being processed. */
  get size(): number {
    return this.queued.size + this.processing.size + this.timers.size;
  }

  /** Keys being processed now. */
  get active(): number {
    return this.processing.size;
  }

  /** Queue `key` now (no-op when it is queued already). */
  add(key: K): void {
    if (this.stopped) return;
    const timer = this.timers.get(key);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.timers.delete(key);
    }
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  /** Queue `key` after `ms` (a later `add` makes it sooner; an earlier timer wins). */
  addAfter(key: K, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    if (this.timers.has(key) || this.queued.has(key)) return;
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    this.timers.set(key, timer);
  }

  /** Queue `key` after the rate limiter's delay. Returns the delay, ms. */
  addRateLimited(key: K): number {
    const ms = this.options.rateLimiter.when(key);
    this.addAfter(key, ms);
    return ms;
  }

  /** Forget `key`'s failures. */
  forget(key: K): void {
    this.options.rateLimiter.forget(key);
  }

  /** How many times `key` failed since it was last forgotten. */
  retries(key: K): number {
    return this.options.rateLimiter.retries(key);
  }

  /** Resolve when nothing is queued, delayed or processed. */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stop: drop queued and delayed keys, and wait for the keys being
   * processed.
   */
  async shutdown(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
    this.dirty.clear();
    // Waiters for idle that only queued or delayed keys kept waiting: wake them now.
    this.checkIdle();
    await this.idle();
  }

  private pump(): void {
    while (this.processing.size < this.concurrency && this.queue.length > 0) {
      const key = this.queue.shift()!;
      this.queued.delete(key);
      this.processing.add(key);
      void this.run(key);
    }
    this.checkIdle();
  }

  private async run(key: K): Promise<void> {
    try {
      await this.options.worker(key);
    } catch (e) {
      this.options.onError?.(key, e);
    }
    this.processing.delete(key);
    if (this.dirty.delete(key)) this.add(key);
    this.pump();
  }

  private checkIdle(): void {
    if (this.size > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

/**
 * Rate limiters for the work queue, as in client-go's workqueue: a per-item
 * exponential failure backoff, a token bucket over all items, and the
 * maximum of several limiters (the default: `max(exponential(5 ms..1000 s),
 * bucket(10 qps, burst 100))`, with numbers of your choosing).
 * @module
 */

/** Says how long to wait before an item is processed again. */
export interface RateLimiter {
  /** The delay, ms, before `key` may be retried (counts one more failure). */
  when(key: string): number;
  /** Forget `key`'s failures (after a success). */
  forget(key: string): void;
  /** How many times `key` failed since it was last forgotten. */
  retries(key: string): number;
}

/** `min · 2^failures`, capped at `max`, per item. */
export class ExponentialFailureRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();

  /**
   * @param minMs - the first delay.
   * @param maxMs - the largest delay.
   */
  constructor(
    readonly minMs: number,
    readonly maxMs: number,
  ) {
    if (!(minMs >= 0 && maxMs >= minMs))
      throw new RangeError(`need 0 <= minMs <= maxMs, got ${minMs}..${maxMs}`);
  }

  /** {@inheritDoc RateLimiter.when} */
  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.maxMs, this.minMs * 2 ** n);
  }

  /** {@inheritDoc RateLimiter.forget} */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** {@inheritDoc RateLimiter.retries} */
  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * A token bucket of `burst` tokens refilled at `qps` per second, shared by
 * all items: each `when` takes a token, and returns how long until that
 * token exists.
 */
export class TokenBucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;

  /**
   * @param qps - tokens per second (> 0).
   * @param burst - bucket size (≥ 1).
   * @param now - the clock, ms (for tests).
   */
  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(qps > 0 && burst >= 1))
      throw new RangeError(`need qps > 0 and burst >= 1, got ${qps}, ${burst}`);
    this.tokens = burst;
    this.last = now();
  }

  /** {@inheritDoc RateLimiter.when} */
  when(_key: string): number {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) * this.qps) / 1000);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  /** Nothing to forget: the bucket is shared. */
  forget(_key: string): void {}

  /** The bucket does not count failures. */
  retries(_key: string): number {
    return 0;
  }
}

/** The largest delay of several limiters (each one is consulted every time). */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: readonly RateLimiter[];

  /** @param limiters - at least one. */
  constructor(...limiters: RateLimiter[]) {
    if (limiters.length === 0) throw new RangeError('MaxOfRateLimiter needs at least one limiter');
    this.limiters = limiters;
  }

  /** {@inheritDoc RateLimiter.when} */
  when(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(key));
    return max;
  }

  /** {@inheritDoc RateLimiter.forget} */
  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }

  /** {@inheritDoc RateLimiter.retries} */
  retries(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.retries(key));
    return max;
  }
}

/** Options of {@link defaultControllerRateLimiter}. */
export interface ControllerRateLimiterOptions {
  /** First failure backoff, ms (default 5). */
  readonly minBackoffMs?: number | undefined;
  /** Largest failure backoff, ms (default 30 000). */
  readonly maxBackoffMs?: number | undefined;
  /** Overall retry rate (default 50 per second). */
  readonly qps?: number | undefined;
  /** Overall retry burst (default 200). */
  readonly burst?: number | undefined;
}

/** `max(exponential failure backoff, token bucket)`. */
export function defaultControllerRateLimiter(
  options: ControllerRateLimiterOptions = {},
): RateLimiter {
  return new MaxOfRateLimiter(
    new ExponentialFailureRateLimiter(options.minBackoffMs ?? 5, options.maxBackoffMs ?? 30_000),
    new TokenBucketRateLimiter(options.qps ?? 50, options.burst ?? 200),
  );
}

/**
 * Reconnection backoff: exponential delays with jitter and a cap, and a
 * give-up rule.
 *
 * The delay before retry `n` (1-based) is
 * `min(maxDelayMs, initialDelayMs × multiplier^(n−1))`, reduced by a random
 * fraction of at most `jitter` of itself, so it always lies in
 * `[base × (1 − jitter), base]` and never above `maxDelayMs`.
 * @module
 */

/** Reconnection delays and the give-up rule (the database client's `backoff` option). */
export interface BackoffOptions {
  /** The delay before the first retry. Default 100 ms. */
  readonly initialDelayMs?: number | undefined;
  /** The cap on any delay. Default 5,000 ms. */
  readonly maxDelayMs?: number | undefined;
  /** The growth factor per retry. Default 2. */
  readonly multiplier?: number | undefined;
  /** The largest fraction taken off a delay at random, 0 to 1. Default 0.5. */
  readonly jitter?: number | undefined;
  /** Give up after this many consecutive failed retries. Default: never. */
  readonly maxRetries?: number | undefined;
  /** Give up when this long has passed since the first failure of the streak. Default: never. */
  readonly giveUpAfterMs?: number | undefined;
}

/** The defaults of {@link BackoffOptions}. */
export const DEFAULT_BACKOFF = {
  initialDelayMs: 100,
  maxDelayMs: 5000,
  multiplier: 2,
  jitter: 0.5,
  maxRetries: Number.POSITIVE_INFINITY,
  giveUpAfterMs: Number.POSITIVE_INFINITY,
} as const;

/** Resolved {@link BackoffOptions}: every member set. */
export type ResolvedBackoffOptions = { readonly [K in keyof BackoffOptions]-?: number };

/**
 * Fill in the defaults and check the values.
 * @throws RangeError for a negative delay, a multiplier below 1, or a jitter outside 0..1.
 */
export function resolveBackoff(options: BackoffOptions = {}): ResolvedBackoffOptions {
  const r = {
    initialDelayMs: options.initialDelayMs ?? DEFAULT_BACKOFF.initialDelayMs,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs,
    multiplier: options.multiplier ?? DEFAULT_BACKOFF.multiplier,
    jitter: options.jitter ?? DEFAULT_BACKOFF.jitter,
    maxRetries: options.maxRetries ?? DEFAULT_BACKOFF.maxRetries,
    giveUpAfterMs: options.giveUpAfterMs ?? DEFAULT_BACKOFF.giveUpAfterMs,
  };
  if (!(r.initialDelayMs >= 0))
    throw new RangeError(`backoff.initialDelayMs must be ≥ 0, got ${r.initialDelayMs}`);
  if (!(r.maxDelayMs >= r.initialDelayMs)) {
    throw new RangeError(
      `backoff.maxDelayMs (${r.maxDelayMs}) must be ≥ initialDelayMs (${r.initialDelayMs})`,
    );
  }
  if (!(r.multiplier >= 1))
    throw new RangeError(`backoff.multiplier must be ≥ 1, got ${r.multiplier}`);
  if (!(r.jitter >= 0 && r.jitter <= 1))
    throw new RangeError(`backoff.jitter must be within 0..1, got ${r.jitter}`);
  if (!(r.maxRetries >= 0))
    throw new RangeError(`backoff.maxRetries must be ≥ 0, got ${r.maxRetries}`);
  if (!(r.giveUpAfterMs >= 0))
    throw new RangeError(`backoff.giveUpAfterMs must be ≥ 0, got ${r.giveUpAfterMs}`);
  return r;
}

/**
 * The delay before retry `retry` (1-based).
 * @param random - a number in [0, 1): `Math.random()` by default.
 */
export function backoffDelay(
  options: ResolvedBackoffOptions,
  retry: number,
  random: number = Math.random(),
): number {
  const exp = Math.max(0, retry - 1);
  const base = Math.min(options.maxDelayMs, options.initialDelayMs * options.multiplier ** exp);
  return Math.round(base * (1 - options.jitter * random));
}

/**
 * The state of one backoff streak: consecutive failures since the last
 * success.
 *
 * ```ts
 * const b = new Backoff({ initialDelayMs: 100, maxDelayMs: 2000, maxRetries: 10 });
 * const delay = b.next(); // 50..100 ms, or undefined once it gives up
 * b.reset();              // after a success
 * ```
 */
export class Backoff {
  /** The resolved options. */
  readonly options: ResolvedBackoffOptions;
  private failures = 0;
  private streakStart: number | undefined;

  /** @param options - see {@link BackoffOptions}. */
  constructor(
    options: BackoffOptions = {},
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {
    this.options = resolveBackoff(options);
  }

  /** Consecutive failures so far. */
  get retries(): number {
    return this.failures;
  }

  /**
   * Record a failure and get the delay before the next retry, or undefined
   * when the give-up rule says to stop.
   */
  next(): number | undefined {
    const now = this.now();
    this.streakStart ??= now;
    this.failures++;
    if (this.failures > this.options.maxRetries) return undefined;
    const delay = backoffDelay(this.options, this.failures, this.random());
    if (now + delay - this.streakStart > this.options.giveUpAfterMs) return undefined;
    return delay;
  }

  /** Start a new streak (after a success). */
  reset(): void {
    this.failures = 0;
    this.streakStart = undefined;
  }
}

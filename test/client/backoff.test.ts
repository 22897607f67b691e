/**
 * Reconnection backoff: growth, cap, jitter bounds and give-up rules.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Backoff, backoffDelay, resolveBackoff } from '../../src/client/backoff.js';

describe('backoff', () => {
  it('grows exponentially up to the cap, without jitter', () => {
    const o = resolveBackoff({ initialDelayMs: 100, maxDelayMs: 1000, multiplier: 2, jitter: 0 });
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(o, n))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('keeps every jittered delay within [base × (1 − jitter), base] and under the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 0.9999, noNaN: true }),
        (initial, extra, jitter, retry, random) => {
          const o = resolveBackoff({
            initialDelayMs: initial,
            maxDelayMs: initial + extra,
            jitter,
          });
          const base = Math.min(o.maxDelayMs, initial * 2 ** (retry - 1));
          const d = backoffDelay(o, retry, random);
          expect(d).toBeLessThanOrEqual(o.maxDelayMs);
          expect(d).toBeLessThanOrEqual(Math.round(base));
          expect(d).toBeGreaterThanOrEqual(Math.floor(base * (1 - jitter)) - 1);
        },
      ),
    );
  });

  it('gives up after maxRetries and starts again after reset', () => {
    const b = new Backoff({ initialDelayMs: 10, maxRetries: 2, jitter: 0 });
    expect(b.next()).toBe(10);
    expect(b.next()).toBe(20);
    expect(b.next()).toBeUndefined();
    b.reset();
    expect(b.next()).toBe(10);
  });

  it('gives up when the streak would last longer than giveUpAfterMs', () => {
    let now = 0;
    const b = new Backoff({ initialDelayMs: 100, jitter: 0, giveUpAfterMs: 250 }, () => now);
    expect(b.next()).toBe(100);
    now = 100;
    expect(b.next()).toBeUndefined(); // 100 + 200 > 250
  });

  it('rejects nonsense options', () => {
    expect(() => resolveBackoff({ jitter: 2 })).toThrow(RangeError);
    expect(() => resolveBackoff({ initialDelayMs: 10, maxDelayMs: 5 })).toThrow(/maxDelayMs/);
    expect(() => resolveBackoff({ multiplier: 0.5 })).toThrow(/multiplier/);
  });
});

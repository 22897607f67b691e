/**
 * {@link Clock}: where the pool reconciler reads the time (entry ages and
 * their idle time-to-live) and sets its TTL timers. {@link systemClock} is
 * `Date.now` and `setTimeout`; {@link ManualClock} only moves when told to
 * (and fires the timers that came due), so that a test of the TTL does not
 * wait on wall time.
 * @module
 */

/** A source of the current time, ms since the epoch, and of timers on it. */
export interface Clock {
  now(): number;
  /** Call `fn` once `ms` have passed on this clock; returns the cancel function. */
  setTimer(ms: number, fn: () => void): () => void;
}

/** The system clock (`Date.now`; timers do not keep the process alive). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return () => clearTimeout(t);
  },
};

/** A clock that moves only by {@link ManualClock.advance} or {@link ManualClock.set}. */
export class ManualClock implements Clock {
  private timers: { at: number; fn: () => void }[] = [];

  /** @param time - the start time, ms (default 0). */
  constructor(private time = 0) {}

  /** {@inheritDoc Clock.setTimer} */
  setTimer(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + Math.max(0, ms), fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Timers not fired yet. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** {@inheritDoc Clock.now} */
  now(): number {
    return this.time;
  }

  /** Move the clock forward by `ms`. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`a clock only moves forward, got ${ms} ms`);
    this.time += ms;
    const due = this.timers.filter((t) => t.at <= this.time).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((t) => t.at > this.time);
    for (const t of due) t.fn();
  }

  /** Set the time, ms (not before the current one). */
  set(ms: number): void {
    this.advance(ms - this.time);
  }
}

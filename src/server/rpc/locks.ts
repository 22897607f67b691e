/**
 * OVSDB locks (`lock`, `steal`, `unlock`) as ovsdb-server keeps them.
 *
 * Each lock has a queue of waiters, one per session that asked for it; the
 * waiter at the head owns the lock. `lock` joins the back of the queue;
 * `steal` goes to the front, and the previous owner (notified `stolen`) stays
 * in the queue, so it gets the lock back (notified `locked`) when the thief
 * releases it. A session must `unlock` before asking for the same lock again.
 * When an owner unlocks or disconnects, the next waiter is notified `locked`.
 * @module
 */

/** How a waiter asked for the lock. */
export type LockMode = 'lock' | 'steal';

interface Waiter<S> {
  readonly session: S;
  readonly mode: LockMode;
}

/** What a `lock`/`steal` did: whether the caller owns the lock now, and whom it was stolen from. */
export interface LockOutcome<S> {
  readonly locked: boolean;
  readonly victim: S | undefined;
}

/** The locks of one server. `S` identifies a session. */
export class LockTable<S> {
  private readonly locks = new Map<string, Waiter<S>[]>();

  /** True when `session` has a waiter (owner or not) for lock `name`. */
  has(session: S, name: string): boolean {
    return this.locks.get(name)?.some((w) => w.session === session) ?? false;
  }

  /** True when `session` owns lock `name`. */
  owns(session: S, name: string): boolean {
    return this.locks.get(name)?.[0]?.session === session;
  }

  /**
   * Queue `session` for lock `name` (the caller has checked it has no waiter
   * yet). With `steal`, it becomes the owner at once.
   */
  acquire(session: S, name: string, mode: LockMode): LockOutcome<S> {
    let waiters = this.locks.get(name);
    if (waiters === undefined) {
      waiters = [];
      this.locks.set(name, waiters);
    }
    const victim = mode === 'steal' && waiters.length > 0 ? waiters[0]?.session : undefined;
    const waiter: Waiter<S> = { session, mode };
    if (mode === 'steal') waiters.unshift(waiter);
    else waiters.push(waiter);
    return { locked: waiters[0] === waiter, victim };
  }

  /**
   * Remove `session`'s waiter for lock `name`. Returns the session that owns
   * the lock now if ownership passed to it, else undefined.
   */
  release(session: S, name: string): S | undefined {
    const waiters = this.locks.get(name);
    if (waiters === undefined) return undefined;
    const i = waiters.findIndex((w) => w.session === session);
    if (i < 0) return undefined;
    waiters.splice(i, 1);
    if (waiters.length === 0) {
      this.locks.delete(name);
      return undefined;
    }
    return i === 0 ? waiters[0]?.session : undefined;
  }

  /** The names of the locks `session` has a waiter for. */
  namesOf(session: S): string[] {
    const out: string[] = [];
    for (const [name, waiters] of this.locks) {
      if (waiters.some((w) => w.session === session)) out.push(name);
    }
    return out;
  }
}

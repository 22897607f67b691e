/**
 * OVSDB locks (`lock`, `steal`, `unlock`) as ovsdb-server keeps them.
 *
 * Each lock has a queue of waiters, one per session that asked for it; the
 * waiter at the head owns the lock. `lock` joins the back of the queue;
 * `steal` goes to the front, and the previous owner (notified `stolen`) stays
 * in the queue, so it gets the lock back (notified `locked`) when the thief
 * releases it. A session must `unlock` before asking for the same lock again.
 * When a waiter unlocks or disconnects and others remain, the owner is
 * notified `locked`, as by ovsdb-server (`ovsdb_lock_waiter_remove` returns
 * the owner whether or not it changed). A thief whose lock is stolen in turn
 * leaves the queue (it never gets the lock back) but keeps its waiter until
 * it unlocks.
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
  /** Waiters out of their lock's queue (stolen thieves), by lock name, until they unlock. */
  private readonly detached = new Map<string, Set<S>>();

  /** True when `session` has a waiter (owner or not) for lock `name`. */
  has(session: S, name: string): boolean {
    return (
      (this.locks.get(name)?.some((w) => w.session === session) ?? false) ||
      (this.detached.get(name)?.has(session) ?? false)
    );
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
    const owner = mode === 'steal' ? waiters[0] : undefined;
    const waiter: Waiter<S> = { session, mode };
    if (mode === 'steal') waiters.unshift(waiter);
    else waiters.push(waiter);
    if (owner?.mode === 'steal') {
      // ovsdb-server drops a robbed thief from the queue.
      waiters.splice(waiters.indexOf(owner), 1);
      let set = this.detached.get(name);
      if (set === undefined) {
        set = new Set();
        this.detached.set(name, set);
      }
      set.add(owner.session);
    }
    return { locked: waiters[0] === waiter, victim: owner?.session };
  }

  /**
   * Remove `session`'s waiter for lock `name`. Returns the session that owns
   * the lock afterwards, to be notified `locked` (whether or not ownership
   * changed, as ovsdb-server does), or undefined when no one waits for it or
   * `session`'s waiter was out of the queue.
   */
  release(session: S, name: string): S | undefined {
    const detached = this.detached.get(name);
    if (detached?.delete(session)) {
      if (detached.size === 0) this.detached.delete(name);
      return undefined;
    }
    const waiters = this.locks.get(name);
    if (waiters === undefined) return undefined;
    const i = waiters.findIndex((w) => w.session === session);
    if (i < 0) return undefined;
    waiters.splice(i, 1);
    if (waiters.length === 0) {
      this.locks.delete(name);
      return undefined;
    }
    return waiters[0]?.session;
  }

  /** The names of the locks `session` has a waiter for. */
  namesOf(session: S): string[] {
    const out: string[] = [];
    for (const [name, waiters] of this.locks) {
      if (waiters.some((w) => w.session === session)) out.push(name);
    }
    for (const [name, set] of this.detached) {
      if (set.has(session) && !out.includes(name)) out.push(name);
    }
    return out;
  }
}

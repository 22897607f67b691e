/**
 * OVSDB locks in the database client: `client.lock(name)` asks the server
 * for a named lock and keeps asking for it on every new connection until the
 * program releases it or the client closes.
 *
 * ## What a lock is
 *
 * An OVSDB lock (`lock`, `steal`, `unlock`; RFC 7047 §4.1.8–4.1.10) is kept
 * by one server process for the sessions connected to it: it is granted to
 * one session at a time, queued for the others, and released when its
 * holder unlocks or its connection closes. Nothing of it is written to the
 * database or replicated: on a RAFT cluster each member has its own locks.
 * A client that uses only the leader (`leaderOnly`, the default) therefore
 * competes with the other leader-only clients on the leader, which is how
 * `ovn-northd` runs active/standby on `ovn_northd`; after a failover every
 * client reconnects to the new leader, which grants the lock to whichever
 * asks first. See `docs/locks.md`.
 *
 * ## States
 *
 * - `waiting`: wanted, not held: asked for on the current connection (the
 *   server queued it behind the holder), or to be asked for on the next one;
 * - `held`: the server granted it on the current connection;
 * - `lost`: it was held and is not any more: stolen by another client (the
 *   client stays in the server's queue, and gets it back when the thief lets
 *   go), or the connection that held it was lost (asked again once the client
 *   is in sync on a new one). It turns `held` when granted again;
 * - `released`: released by the program, or the client closed. Final.
 *
 * Each change is a `lock` status event (`onStatus`), in order with the
 * client's other status events and its row events. A lock is asked for only
 * once the connection is in sync, so that its holder, when told `held`, has
 * a replica that shows every change committed before the grant.
 *
 * ## Fencing
 *
 * A transaction fenced by a lock (the `fence` option of the client or of
 * the transaction) carries `{"op": "assert", "lock": name}` as its first
 * operation: the server refuses it (`not owner`) unless this session holds
 * the lock when it runs the transaction, and the client refuses it before
 * sending when it knows the lock is not held. Both end in a
 * {@link LockNotHeldError}, never as an unknown outcome.
 * @module
 */

import type { OvsdbConnection } from '../ovsdb/connection/connection.js';
import { ConnectionClosedError, OvsdbError } from '../ovsdb/wire/errors.js';
import { LockNotHeldError } from '../transactions/errors.js';
import { errorText, type Log } from './log.js';

/** Where a lock stands (see the module documentation). */
export type LockState = 'waiting' | 'held' | 'lost' | 'released';

/** A lock's name and state, as status events and `client.status.locks` give it. */
export interface LockStatus {
  /** The lock's name. */
  readonly name: string;
  /** Its state. */
  readonly state: LockState;
}

/** Options of `client.lock`. */
export interface LockOptions {
  /**
   * Take the lock from its holder (`steal`) when first asking for it,
   * instead of queueing behind it (`lock`). Asked for again after a
   * reconnection, it is queued (`lock`): two stealing replicas would
   * otherwise take it from each other forever. Default false.
   */
  readonly steal?: boolean | undefined;
}

/** What a lock needs of a session of the client (its `Session`). */
export interface LockSession {
  readonly remote: string;
  readonly conn: Pick<OvsdbConnection, 'lock' | 'steal' | 'unlock'>;
  /** Why the session ended (set once). */
  readonly endReason: string | undefined;
  end(reason: string, error?: unknown): void;
}

/** A change of a lock's state, as a status event (`type: 'lock'`). */
export interface LockEvent {
  readonly type: 'lock';
  readonly reason: string;
  readonly remote?: string | undefined;
  readonly lock: LockStatus;
}

/** What the locks need of the client. */
export interface LockHost {
  /** The current session when it is in sync and open, else undefined. */
  syncedSession(): LockSession | undefined;
  /** Queue a status event. */
  emit(event: LockEvent): void;
  readonly log: Log;
}

/** OVSDB's rule for lock names (`ovsdb_parser_is_id`): a letter or `_`, then letters, digits and `_`. */
const LOCK_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Check a lock name.
 * @throws TypeError for a name OVSDB does not accept.
 */
export function checkLockName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !LOCK_NAME.test(name)) {
    throw new TypeError(
      `invalid lock name ${JSON.stringify(name)} (a letter or _, then letters, digits or _)`,
    );
  }
}

interface HeldWaiter {
  resolve(): void;
  reject(e: unknown): void;
}

/**
 * One named lock of a database client, from `client.lock(name)`: its state,
 * a promise for holding it, `steal` and `release`.
 *
 * ```ts
 * const lock = nb.lock('pod_allocation');
 * await lock.whenHeld();           // standby until the server grants it
 * lock.held;                       // true: act (fence the writes with it)
 * await lock.release();            // unlock; another client may take it
 * ```
 */
export class DatabaseLock {
  /** The lock's name. */
  readonly name: string;
  private current: LockState = 'waiting';
  private why: string;
  /** The session the server has (or is asked for) a waiter of this lock on. */
  private session: LockSession | undefined;
  /** How the lock was asked for on `session`. */
  private mode: 'lock' | 'steal' = 'lock';
  private stealNext: boolean;
  /** Bumped on every request and session change: a stale reply is ignored. */
  private seq = 0;
  private waiters: HeldWaiter[] = [];

  /** @internal Use `client.lock(name)`. */
  constructor(
    name: string,
    private readonly host: LockHost,
    private readonly forget: (lock: DatabaseLock) => void,
    options: LockOptions,
  ) {
    this.name = name;
    this.stealNext = options.steal === true;
    this.why = 'asked for';
  }

  /** Where the lock stands now (see {@link LockState}). */
  get state(): LockState {
    return this.current;
  }

  /** True while the server has granted the lock to this client's current connection. */
  get held(): boolean {
    return this.current === 'held';
  }

  /** Why the lock is in its state, in words. */
  get reason(): string {
    return this.why;
  }

  /** The lock's name and state. */
  get status(): LockStatus {
    return { name: this.name, state: this.current };
  }

  /**
   * Resolves once the lock is held (at once when it is).
   * @throws the client's `ClientClosedError` when the client closes first;
   *   OvsdbError when the lock is released first; the signal's reason when
   *   it aborts.
   */
  whenHeld(options: { readonly signal?: AbortSignal | undefined } = {}): Promise<void> {
    if (this.current === 'held') return Promise.resolve();
    if (this.current === 'released') return Promise.reject(this.releasedError());
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(signal?.reason);
      };
      const waiter: HeldWaiter = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Take the lock from its holder now (`steal`): the holder is told
   * `stolen`, and this client holds it. While disconnected, the next
   * connection steals it. Resolves once held (at once when it is).
   * @throws as {@link DatabaseLock.whenHeld}.
   */
  steal(): Promise<void> {
    if (this.current === 'held') return Promise.resolve();
    if (this.current === 'released') return Promise.reject(this.releasedError());
    this.stealNext = true;
    const s = this.liveSession();
    if (s !== undefined) {
      // The server wants `unlock` before a new request of the same session.
      this.unlockOn(s);
      this.ask(s);
    }
    return this.whenHeld();
  }

  /**
   * Release the lock: stop asking for it, and `unlock` it on the server
   * (another client may take it at once). The state becomes `released`;
   * `client.lock(name)` asks for it anew. Resolves once the server has
   * answered (or the connection is gone).
   */
  async release(): Promise<void> {
    if (this.current === 'released') return;
    const s = this.liveSession();
    this.session = undefined;
    this.seq++;
    this.set('released', 'released by the program', s);
    this.rejectWaiters(this.releasedError());
    this.forget(this);
    if (s !== undefined) await this.unlockOn(s);
  }

  // ---- driven by the client --------------------------------------------------------

  /** @internal Ask for the lock on `s` (a session in sync), unless it already is. */
  askOn(s: LockSession): void {
    if (this.current === 'released' || this.session === s) return;
    this.ask(s);
  }

  /** @internal The server granted the lock on `s`. */
  onLocked(s: LockSession): void {
    if (this.session !== s || this.current === 'released') return;
    this.set('held', 'granted by the server', s);
  }

  /** @internal Another session stole the lock on `s`. */
  onStolen(s: LockSession): void {
    if (this.session !== s || this.current === 'released') return;
    if (this.mode === 'steal') {
      // ovsdb-server drops a robbed thief from the lock's queue: join it again.
      this.unlockOn(s);
      this.ask(s);
    }
    if (this.current === 'held') this.set('lost', 'stolen by another client', s);
  }

  /** @internal Session `s` ended: a lock held or asked for on it is not any more. */
  onSessionEnded(s: LockSession): void {
    if (this.session !== s) return;
    this.session = undefined;
    this.seq++;
    if (this.current === 'held') {
      this.set('lost', `the connection that held it was lost (${s.endReason ?? 'closed'})`, s);
    }
  }

  /** @internal The client closed with `error`. */
  onClosed(error: OvsdbError & { readonly reason: string }): void {
    if (this.current === 'released') return;
    const s = this.session;
    this.session = undefined;
    this.seq++;
    this.set('released', `the client closed: ${error.reason}`, s);
    this.rejectWaiters(error);
  }

  /**
   * @internal The refusal of a transaction fenced by this lock about to be
   * sent on `s`, or undefined when the lock is held there.
   */
  refusalOn(s: LockSession): LockNotHeldError | undefined {
    if (this.current === 'held' && this.session === s && s.endReason === undefined)
      return undefined;
    const why =
      this.current === 'held'
        ? 'not granted on this connection yet'
        : `${this.current}: ${this.why}`;
    return new LockNotHeldError(this.name, 'client', why);
  }

  // ---- internals -------------------------------------------------------------------

  private liveSession(): LockSession | undefined {
    const s = this.session;
    return s !== undefined && s.endReason === undefined ? s : undefined;
  }

  private ask(s: LockSession): void {
    const mode = this.stealNext ? 'steal' : 'lock';
    this.stealNext = false;
    this.session = s;
    this.mode = mode;
    const seq = ++this.seq;
    const request = mode === 'steal' ? s.conn.steal(this.name) : s.conn.lock(this.name);
    request.then(
      (locked) => {
        if (seq !== this.seq || this.current === 'released') return;
        if (locked) {
          this.set(
            'held',
            mode === 'steal' ? 'stolen from its holder' : 'granted by the server',
            s,
          );
        } else {
          this.why = 'another client holds it';
        }
      },
      (e: unknown) => {
        if (seq !== this.seq || s.endReason !== undefined || e instanceof ConnectionClosedError) {
          return; // the next session asks again
        }
        // Refused (e.g. a read-only server): not queued. Asked again on the next connection.
        this.session = undefined;
        this.why = `the server refused to queue it: ${errorText(e)}`;
        this.host.log(
          'error',
          `lock "${this.name}": ${mode} failed on ${s.remote}: ${errorText(e)}`,
          {
            error: e,
            remote: s.remote,
          },
        );
      },
    );
  }

  /**
   * `unlock` on `s`. A failure other than the connection closing leaves the
   * server's view unknown: the session is ended, which releases every lock
   * of it.
   */
  private async unlockOn(s: LockSession): Promise<void> {
    try {
      await s.conn.unlock(this.name);
    } catch (e) {
      if (s.endReason !== undefined || e instanceof ConnectionClosedError) return;
      this.host.log('error', `lock "${this.name}": unlock failed on ${s.remote}: ${errorText(e)}`, {
        error: e,
        remote: s.remote,
      });
      s.end(`unlock of lock "${this.name}" failed: ${errorText(e)}`, e);
    }
  }

  private set(state: LockState, reason: string, s: LockSession | undefined): void {
    if (state === this.current) return;
    this.current = state;
    this.why = reason;
    this.host.emit({
      type: 'lock',
      reason: `lock "${this.name}" ${state}: ${reason}`,
      remote: s?.remote,
      lock: { name: this.name, state },
    });
    if (state === 'held') {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w.resolve();
    }
  }

  private rejectWaiters(e: unknown): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(e);
  }

  private releasedError(): OvsdbError {
    return new OvsdbError(`lock "${this.name}" was released (${this.why})`);
  }
}

/** The locks of one client. */
export class ClientLocks {
  private readonly locks = new Map<string, DatabaseLock>();
  private closed: (OvsdbError & { readonly reason: string }) | undefined;

  constructor(private readonly host: LockHost) {}

  /**
   * The lock `name`, asked for now (once the client is in sync) unless it
   * already is.
   * @throws TypeError for a name OVSDB does not accept; the client's
   *   `ClientClosedError` once it closed.
   */
  lock(name: string, options: LockOptions = {}): DatabaseLock {
    checkLockName(name);
    if (this.closed !== undefined) throw this.closed;
    let lock = this.locks.get(name);
    if (lock !== undefined) {
      if (options.steal === true) void lock.steal().catch(() => {});
      return lock;
    }
    lock = new DatabaseLock(name, this.host, (l) => this.forget(l), options);
    this.locks.set(name, lock);
    this.host.emit({
      type: 'lock',
      reason: `lock "${name}" waiting: asked for`,
      lock: lock.status,
    });
    const s = this.host.syncedSession();
    if (s !== undefined) lock.askOn(s);
    return lock;
  }

  /** The lock `name`, when the client asked for it and has not released it. */
  get(name: string): DatabaseLock | undefined {
    return this.locks.get(name);
  }

  /** Every lock asked for and not released, with its state. */
  statuses(): LockStatus[] {
    return [...this.locks.values()].map((l) => l.status);
  }

  /** The refusal of a transaction fenced by `name` about to be sent on `s` (undefined: send it). */
  refusal(name: string, s: LockSession): LockNotHeldError | undefined {
    const lock = this.locks.get(name);
    if (lock === undefined) {
      return new LockNotHeldError(name, 'client', 'this client has not asked for it');
    }
    return lock.refusalOn(s);
  }

  /** `s` is in sync: ask for every lock on it. */
  onSynced(s: LockSession): void {
    for (const lock of this.locks.values()) lock.askOn(s);
  }

  /** The server sent `locked` on `s`. */
  onLocked(s: LockSession, name: string): void {
    this.locks.get(name)?.onLocked(s);
  }

  /** The server sent `stolen` on `s`. */
  onStolen(s: LockSession, name: string): void {
    this.locks.get(name)?.onStolen(s);
  }

  /** `s` ended. */
  onSessionEnded(s: LockSession): void {
    for (const lock of this.locks.values()) lock.onSessionEnded(s);
  }

  /** The client closed with `error`: every lock is released. */
  close(error: OvsdbError & { readonly reason: string }): void {
    this.closed = error;
    for (const lock of this.locks.values()) lock.onClosed(error);
    this.locks.clear();
  }

  private forget(lock: DatabaseLock): void {
    if (this.locks.get(lock.name) === lock) this.locks.delete(lock.name);
  }
}

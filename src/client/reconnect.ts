/**
 * The client's connection loop: rounds through the remotes (starting after
 * the server just lost), one session at a time, with an exponential,
 * jittered, capped delay after a round where no server could be used, until
 * the backoff gives up or the client closes. It owns the client's life:
 * the current session, `ready`, the callers waiting for a synced session,
 * backpressure on the socket, and closing.
 * @module
 */

import type { CompatReport } from '../ovsdb/schema/compat.js';
import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import { OvsdbError, RequestTimeoutError } from '../ovsdb/wire/errors.js';
import { Backoff } from './backoff.js';
import type { ServerDatabaseRow } from './cluster.js';
import { ClientClosedError, ServerSkippedError } from './errors.js';
import { ClientLocks } from './locks.js';
import { errorText, type Log } from './log.js';
import type { MonitorGroups } from './monitor-groups.js';
import type { ConnectionConfig } from './options.js';
import type { ReplicaFeed } from './replica/feed.js';
import { ServerSelector } from './server-choice.js';
import { openSession, type Session, type SessionHost } from './session.js';
import type {
  ClientHealth,
  ClientStats,
  MonitorSyncInfo,
  ServerAttempt,
  ServerRole,
  StatusReporter,
} from './status.js';

/** The parts of the client the loop works with. */
export interface ReconnectorParts<DB extends TableMap> {
  readonly config: ConnectionConfig;
  readonly model: DatabaseModel<DB>;
  readonly feed: ReplicaFeed<DB>;
  readonly groups: MonitorGroups<DB>;
  readonly status: StatusReporter;
  readonly stats: ClientStats;
  readonly log: Log;
}

interface ConnectedWaiter {
  resolve: (s: Session) => void;
  reject: (e: unknown) => void;
}

/** The connection loop and life cycle of one client. */
export class Reconnector<DB extends TableMap> implements SessionHost<DB> {
  /** Resolves once every monitor is first in sync; rejects if the client closes first. */
  readonly ready: Promise<void>;
  readonly config: ConnectionConfig;
  readonly model: DatabaseModel<DB>;
  readonly groups: MonitorGroups<DB>;
  readonly status: StatusReporter;
  readonly log: Log;
  readonly servers: ServerSelector;
  readonly locks: ClientLocks;

  session: Session | undefined;
  compat: CompatReport | undefined;
  everSynced = false;
  readsPaused = false;

  private readonly feed: ReplicaFeed<DB>;
  private readonly stats: ClientStats;
  private readonly abort = new AbortController();
  private closed: ClientClosedError | undefined;
  private resolveReady!: () => void;
  private rejectReady!: (e: unknown) => void;
  private connectedWaiters: ConnectedWaiter[] = [];
  private loop: Promise<void> = Promise.resolve();
  /** The servers of the current round that could not be used, so far. */
  private roundAttempts: readonly ServerAttempt[] = [];
  /** When bytes last came from a server (0: never). */
  readonly received = { at: 0 };

  constructor(parts: ReconnectorParts<DB>) {
    this.config = parts.config;
    this.model = parts.model;
    this.feed = parts.feed;
    this.groups = parts.groups;
    this.status = parts.status;
    this.stats = parts.stats;
    this.log = parts.log;
    this.servers = new ServerSelector(parts.config);
    this.locks = new ClientLocks({
      syncedSession: () => {
        const s = this.session;
        return s?.synced === true && s.endReason === undefined ? s : undefined;
      },
      emit: (event) => this.status.emit(event),
      log: this.log,
    });
    this.ready = new Promise<void>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => {}); // the caller may never await it
    this.status.health = () => this.health();
  }

  /** The client's health now. */
  health(): ClientHealth {
    const now = Date.now();
    const s = this.session;
    const open = s !== undefined && s.endReason === undefined && this.closed === undefined;
    const lastRx = this.received.at;
    const applied = this.groups.lastAppliedAt;
    return {
      connected: open,
      inSync: open && s.synced,
      remote: open ? s.remote : undefined,
      role: open ? roleOf(s.serverRow) : undefined,
      lastMessageAgeMs: lastRx === 0 ? undefined : now - lastRx,
      lastUpdateAgeMs: applied === 0 ? undefined : now - applied,
      lockHeld: this.locks.statuses().some((l) => l.state === 'held'),
    };
  }

  /** Aborts when the client closes. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Why the client closed (undefined while it is open). */
  get closedError(): ClientClosedError | undefined {
    return this.closed;
  }

  /** Resolves once the loop has stopped (after closing). */
  get stopped(): Promise<void> {
    return this.loop;
  }

  /** Start the loop on the next microtask. */
  start(): void {
    this.loop = Promise.resolve()
      .then(() => this.run())
      .catch((e: unknown) => {
        this.log('error', `connection loop failed: ${errorText(e)}`, { error: e });
        this.finish(new ClientClosedError(`internal error: ${errorText(e)}`, { cause: e }));
      });
  }

  private async run(): Promise<void> {
    const backoff = new Backoff(this.config.backoff);
    let after: string | undefined;
    let lastError: unknown;
    while (!this.closed) {
      const order = this.servers.order(after);
      let stable = false;
      let ran = false;
      let stale = 0;
      // The servers of this round that could not be used, and why.
      const tried: ServerAttempt[] = [];
      this.roundAttempts = tried;
      for (const remote of order) {
        if (this.closed) return;
        let session: Session;
        try {
          session = await openSession(this, remote);
        } catch (e) {
          lastError = e;
          after = remote;
          tried.push(attemptOf(remote, e));
          if (e instanceof ServerSkippedError && e.code === 'stale') stale++;
          const level = e instanceof ServerSkippedError ? 'info' : 'warn';
          this.log(level, `${remote}: ${errorText(e)}`, { remote });
          continue;
        }
        backoff.reset();
        await session.ended;
        ran = true;
        after = remote;
        const lasted = Date.now() - session.syncedAt;
        stable = lasted >= 1000;
        lastError = session.endError ?? new OvsdbError(session.endReason ?? 'connection lost');
        if (!stable) {
          tried.push({
            remote,
            reason: `lost ${lasted} ms after syncing: ${session.endReason ?? 'connection lost'}`,
            skipped: false,
            error: lastError,
          });
        }
        this.afterSession(session);
        break;
      }
      if (this.closed) return;
      if (ran && stable) continue;
      if (!ran && stale === order.length) {
        // Every server is behind what this client saw (e.g. restored from a
        // backup): take the most up-to-date one rather than none.
        this.log(
          'warn',
          `every server is behind Raft index ${this.servers.highestIndex}; accepting lower indexes`,
        );
        this.servers.acceptLowerIndexes();
      }
      // Every server failed or was skipped (or the one that worked did not
      // stay a second): say why for each.
      const why = attemptsText(tried);
      const delay = backoff.next();
      if (delay === undefined) {
        const retries = backoff.retries - 1;
        this.finish(
          new ClientClosedError(
            `gave up reconnecting after ${retries} retr${retries === 1 ? 'y' : 'ies'}: ${why}`,
            { cause: lastError },
          ),
        );
        return;
      }
      const reason = `no usable server: ${why}`;
      this.status.setState('reconnecting', undefined, reason);
      this.status.emit({
        type: 'reconnecting',
        reason,
        error: lastError,
        servers: [...tried],
        retry: backoff.retries,
        delayMs: delay,
      });
      await this.sleep(delay);
    }
  }

  private afterSession(session: Session): void {
    if (this.session === session) this.session = undefined;
    if (session.probe) clearInterval(session.probe);
    if (this.closed) return;
    const reason = session.endReason ?? 'connection lost';
    this.stats.disconnects++;
    this.status.setState('reconnecting', session.remote, reason);
    this.status.emit({
      type: 'disconnected',
      reason,
      remote: session.remote,
      error: session.endError,
    });
    this.log('warn', `disconnected from ${session.remote}: ${reason}`, { remote: session.remote });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.abort.signal;
      if (signal.aborted) {
        resolve();
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Every monitor of `s` is in sync: count it, report it, release `ready` and the waiters. */
  onSynced(s: Session, infos: MonitorSyncInfo[]): void {
    this.stats.connects++;
    this.stats.lastSync = infos;
    const first = !this.everSynced;
    this.everSynced = true;
    // The servers of this round tried before `s` that could not be used.
    const skipped = [...this.roundAttempts];
    const base = first ? 'initial sync complete' : 'resynchronised after reconnecting';
    const reason = skipped.length === 0 ? base : `${base} (after ${attemptsText(skipped)})`;
    this.status.setState('connected', s.remote, reason);
    // (The servers skipped were logged one by one.)
    this.log('info', `connected to ${s.remote}: ${base}`, { remote: s.remote });
    // One event per transition: the first sync is `connected`, every later one `resynced`.
    this.status.emit({
      type: first ? 'connected' : 'resynced',
      reason,
      remote: s.remote,
      monitors: infos,
      servers: skipped,
    });
    if (first) this.resolveReady();
    // After the (re)sync event: a lock's holder learns it holds the lock with a replica in sync.
    this.locks.onSynced(s);
    const waiters = this.connectedWaiters;
    this.connectedWaiters = [];
    for (const w of waiters) w.resolve(s);
  }

  /** The event queue asks to pause (true) or resume (false) reading the socket. */
  onPressure(pause: boolean): void {
    this.readsPaused = pause;
    const s = this.session;
    if (!s) return;
    if (pause) {
      this.log('debug', 'event queue above its high-water mark: pausing reads');
      s.flow.pause?.();
    } else {
      s.metered.lastRx = Date.now();
      s.flow.resume?.();
    }
  }

  /**
   * The current session once it is in sync (at once when it already is).
   * @throws ClientClosedError when the client closes first; the signal's
   *   reason when it aborts; RequestTimeoutError at `deadline`.
   */
  whenConnected(signal: AbortSignal | undefined, deadline: number | undefined): Promise<Session> {
    if (this.closed) return Promise.reject(this.closed);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const s = this.session;
    // (A closed connection whose session has not heard of it yet is not in sync.)
    if (s?.synced && s.endReason === undefined && !s.conn.isClosed) return Promise.resolve(s);
    return new Promise<Session>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const entry: ConnectedWaiter = {
        resolve: (x: Session) => {
          cleanup();
          resolve(x);
        },
        reject: (e: unknown) => {
          cleanup();
          reject(e);
        },
      };
      const onAbort = () => entry.reject(signal?.reason);
      const cleanup = () => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const i = this.connectedWaiters.indexOf(entry);
        if (i >= 0) this.connectedWaiters.splice(i, 1);
      };
      this.connectedWaiters.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (deadline !== undefined) {
        timer = setTimeout(
          () =>
            entry.reject(
              new RequestTimeoutError(
                'transact (waiting for a connection)',
                Math.max(0, deadline - Date.now()),
              ),
            ),
          Math.max(0, deadline - Date.now()),
        );
      }
    });
  }

  /** Close for good with `error` (close() or give-up). */
  finish(error: ClientClosedError): void {
    if (this.closed) return;
    this.closed = error;
    this.status.seal();
    this.abort.abort(error);
    this.session?.end(error.reason);
    this.status.setState('closed', this.session?.remote, error.reason);
    this.rejectReady(error);
    const waiters = this.connectedWaiters;
    this.connectedWaiters = [];
    for (const w of waiters) w.reject(error);
    this.feed.close(error);
    this.locks.close(error);
    this.log(error.reason === 'closed by the program' ? 'info' : 'error', error.message);
    this.status.emit({ type: 'closed', reason: error.reason, error: error.cause });
  }
}

/** What `openSession(remote)` failing with `e` says about the server. */
function attemptOf(remote: string, e: unknown): ServerAttempt {
  let reason = errorText(e);
  // openSession prefixes the errors of a session that ended during setup.
  if (reason.startsWith(`${remote}: `)) reason = reason.slice(remote.length + 2);
  return e instanceof ServerSkippedError
    ? { remote, reason, skipped: true, ...(e.code === undefined ? {} : { code: e.code }), error: e }
    : { remote, reason, skipped: false, error: e };
}

/** `unix:a: connection refused; unix:b: the server is not the leader`. */
function attemptsText(attempts: readonly ServerAttempt[]): string {
  if (attempts.length === 0) return 'no server was tried';
  return attempts.map((a) => `${a.remote}: ${a.reason}`).join('; ');
}

/** The role of a server from its `_Server.Database` row (undefined: no row read). */
function roleOf(row: ServerDatabaseRow | undefined): ServerRole | undefined {
  if (row === undefined) return undefined;
  if (row.model === 'clustered') return row.leader ? 'leader' : 'follower';
  return row.model;
}

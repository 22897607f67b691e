/**
 * The client sessions of one server, and the {@link SessionHost} they
 * report to: each request and notification is dispatched to its method
 * (`methods.ts`), a session's monitors are flushed when it is serviced, and
 * what a closed session held (monitors, locks, waiting transactions) is
 * released. Sessions are kept in connection order, as ovsdb-server services
 * them.
 * @module
 */

import type { SessionStart } from '../listeners/listen.js';
import type { MonitorHub } from '../monitor/monitor-hub.js';
import type { Served, Trigger } from '../registry.js';
import type { SessionChannel } from './channel.js';
import type { LockTable } from './locks.js';
import { dispatchNotification, dispatchRequest, type MethodContext } from './methods.js';
import type { ServerLog } from './server-log.js';
import { Session, type SessionHost } from './session.js';
import type { Transactions } from './transact.js';

/** What {@link ServerSessions} needs of the server. */
export interface ServerSessionsDeps {
  readonly log: ServerLog;
  /** The inactivity probe interval of sessions whose listener sets none. */
  readonly probeIntervalMs: number;
  readonly monitors: MonitorHub;
  readonly locks: LockTable<Session>;
  /** The server's transactions (made after its sessions). */
  transactions(): Transactions;
  /** The context the methods run in (made after the sessions). */
  methods(): MethodContext;
  /** Write the records of every commit so far to the database files. */
  persist(): void;
}

/** The sessions of one server, and their host. */
export class ServerSessions implements SessionHost {
  readonly log: ServerLog;
  /** The open sessions, in connection order. */
  readonly all = new Set<Session>();
  /** The `_Server` database of the view of each session that has one. */
  private readonly views = new WeakMap<Session, Served>();

  constructor(private readonly deps: ServerSessionsDeps) {
    this.log = deps.log;
  }

  /** The `_Server` view session `s` reads, if it has one. */
  viewOf(s: Session): Served | undefined {
    return this.views.get(s);
  }

  /**
   * Send session `s` the updates its monitors have queued, one notification
   * per monitor with the changes of every transaction since the last flush
   * merged, as ovsdb-server does. ovsdb-server flushes a session each time
   * it services it (before reading its next message) and before sending it
   * anything else; sessions are serviced in connection order, and
   * transactions that were waiting run after all sessions were serviced.
   * So the updates a transaction causes reach its own session before the
   * reply, and a session serviced between two commits gets them separately.
   */
  flush(s: Session): void {
    this.deps.monitors.flush(s);
  }

  /** A request: answered by its method's handler (see `methods.ts`). */
  request(s: Session, method: string, params: unknown[], id: unknown): void {
    dispatchRequest(this.deps.methods(), s, method, params, id);
  }

  notification(s: Session, method: string, params: unknown[]): void {
    dispatchNotification(this.deps.methods(), s, method, params);
  }

  closed(s: Session): void {
    this.all.delete(s);
    for (const m of s.monitors()) this.deps.monitors.destroy(m, false);
    for (const name of this.deps.locks.namesOf(s)) {
      const owner = this.deps.locks.release(s, name);
      owner?.notify('locked', [name]);
    }
    for (const t of [...s.pending.values()]) this.deps.transactions().cancel(t as Trigger, false);
  }

  persist(): void {
    this.deps.persist();
  }

  /**
   * Service session `s` in the main loop: flush its monitors unless it has a
   * backlog. As in ovsdb-server, a session whose client reads too slowly is
   * left alone: its monitors' changes merge, and go out as one update per
   * monitor when it drains (or before anything else is sent to it).
   */
  service(s: Session): void {
    if (!s.backlogged) this.flush(s);
  }

  /** Service every session. */
  serviceAll(): void {
    for (const s of [...this.all]) this.service(s);
  }

  /** Start a session on `channel`; with `view`, it reads that view's `_Server` database. */
  start(channel: SessionChannel, start?: SessionStart, view?: Served): void {
    const s = new Session(channel, this, start?.probeIntervalMs ?? this.deps.probeIntervalMs, {
      role: start?.role,
      readOnly: start?.readOnly,
      peerId: start?.peerId,
    });
    if (view !== undefined) this.views.set(s, view);
    if (!s.closed) this.all.add(s);
  }

  /** Disconnect every session that is not db-change-aware, logging `reason`. */
  reconnectUnaware(reason: string): void {
    for (const s of [...this.all]) {
      if (s.dbChangeAware) continue;
      this.log.write('ovsdb_jsonrpc_server', 'INFO', `${s.name}: disconnecting (${reason})`);
      s.close();
    }
  }

  /** The monitors of every session. */
  monitorCount(): number {
    let monitors = 0;
    for (const s of this.all) monitors += s.monitors().length;
    return monitors;
  }
}

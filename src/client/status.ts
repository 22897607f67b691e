/**
 * The client's status: its state, the status events and their emission
 * (through the replica's event queue, in order with the row events), and
 * its counters.
 * @module
 */

import type { LockStatus } from './locks.js';
import { errorText, type Log } from './log.js';
import type { ReplaceResult, ReplicaEventStats } from './replica/replica.js';

/** The client's connection state. */
export type ClientState = 'connecting' | 'connected' | 'reconnecting' | 'closed';

/** The kinds of status event. */
export type StatusEventType =
  | 'connecting'
  | 'connected'
  | 'disconnected'
  | 'reconnecting'
  | 'leader-changed'
  | 'resynced'
  | 'lock'
  | 'closed';

/** How one monitor got in sync on a (re)connection. */
export interface MonitorSyncInfo {
  /** The monitor's name. */
  readonly monitor: string;
  /** The method used. */
  readonly method: 'monitor_cond_since' | 'monitor_cond' | 'monitor';
  /** True when the server resumed from the client's last transaction id. */
  readonly found: boolean;
  /** The transaction id the client asked to resume from (all zeros for none). */
  readonly fromTxnId: string;
  /** The monitor's last transaction id after the sync. */
  readonly lastTxnId: string;
  /** `initial` rows received (0 on a found=true resume). */
  readonly initialRows: number;
  /** Row changes received in the reply (for found=true: the missed changes). */
  readonly changes: number;
  /** For a full dump: how the replica changed. */
  readonly replaced?: ReplaceResult | undefined;
}

/**
 * A server of a connection round that could not be used: it failed
 * (refused the connection, closed it, timed out, …) or was skipped after
 * its `_Server.Database` row was judged (not the leader, another cluster,
 * stale, not joined).
 */
export interface ServerAttempt {
  /** The remote tried. */
  readonly remote: string;
  /** Why it could not be used, in words. */
  readonly reason: string;
  /** True when the server answered but was skipped; false when the attempt failed. */
  readonly skipped: boolean;
  /**
   * For a skipped server: why, as code (`not-leader`, `wrong-cluster`,
   * `stale`, `not-joined`, `disconnected`, `no-database`).
   */
  readonly code?: string | undefined;
  /** The error behind it. */
  readonly error?: unknown;
}

/**
 * A status event: what happened, and why. Each transition of the client
 * gives exactly one event, in this order over its life:
 *
 * - `connecting`: a connection to `remote` is being tried (one per server
 *   tried);
 * - `connected`: the first time every monitor is in sync (`ready` resolves);
 * - `disconnected`: the connection in sync was lost (`reason`), and a new
 *   round through the remotes starts; `leader-changed` comes just before it
 *   when the cause is the server losing its cluster's leadership (or its
 *   cluster);
 * - `resynced`: in sync again after a reconnection (never together with
 *   `connected`), with how each monitor resumed;
 * - `reconnecting`: a whole round failed (every server failed or was
 *   skipped, or the one that worked dropped within a second); the next
 *   round starts after `delayMs`;
 * - `lock`: a lock asked for with `client.lock(name)` changed state
 *   (`lock` says which and to what: `waiting` when asked for, `held`, `lost`,
 *   `released`). A lock held on a connection that is lost turns `lost` just
 *   before `disconnected`; it is asked for again after `resynced`, so `held`
 *   always comes after the `connected` or `resynced` of the connection it is
 *   held on; every lock turns `released` just before `closed`;
 * - `closed`: closed by the program, or the client gave up reconnecting.
 *
 * `connected`, `resynced` and `reconnecting` list in `servers` every server
 * of the round that could not be used, each with its reason (the `reason`
 * text names them too): on a failover, the servers skipped before the one
 * now used; on a failed round, all of them.
 */
export interface StatusEvent {
  readonly type: StatusEventType;
  /** Why, in words. */
  readonly reason: string;
  /** The server concerned. */
  readonly remote?: string | undefined;
  /** The error behind it, if any (for `reconnecting`: the last server's). */
  readonly error?: unknown;
  /** For `reconnecting`: the retry number (1-based). */
  readonly retry?: number | undefined;
  /** For `reconnecting`: the delay before the retry, in ms. */
  readonly delayMs?: number | undefined;
  /** For `connected` and `resynced`: how each monitor got in sync. */
  readonly monitors?: readonly MonitorSyncInfo[] | undefined;
  /**
   * For `connected`, `resynced` and `reconnecting`: the servers of this
   * round that could not be used, in the order tried, each with its reason
   * (empty when the first server tried was used).
   */
  readonly servers?: readonly ServerAttempt[] | undefined;
  /** For `lock`: the lock and its new state. */
  readonly lock?: LockStatus | undefined;
  /** The client's health just after what the event reports. */
  readonly health?: ClientHealth | undefined;
}

/**
 * The role of a server for the client's database, from its
 * `_Server.Database` row: a cluster's `leader` or a `follower`, a `relay`,
 * or a `standalone` server.
 */
export type ServerRole = 'leader' | 'follower' | 'relay' | 'standalone';

/**
 * Whether the client is healthy, in the terms an operator and a Kubernetes
 * probe need ({@link DatabaseClient.health}; the `health` of each status
 * event; the `ovnkit_client_connected`, `…_in_sync`, `…_server_role`,
 * `…_last_message_age_seconds`, `…_last_update_age_seconds` and
 * `…_lock_held` gauges). A readiness probe fails while `inSync` is false.
 */
export interface ClientHealth {
  /** A connection to a server is open (from dialing until it is lost). */
  readonly connected: boolean;
  /**
   * Every monitor is in sync on the current connection: its initial
   * contents (a dump or a resume) applied, the connection not lost. False
   * while connecting, reconnecting and resynchronising.
   */
  readonly inSync: boolean;
  /** The server connected to (or being tried). */
  readonly remote: string | undefined;
  /** Its role (undefined while unknown: before its `_Server` row is read, or a server without `_Server`). */
  readonly role: ServerRole | undefined;
  /**
   * Ms since the last bytes arrived from a server (a message or part of
   * one; undefined before any). It grows while a server is silent: a
   * server building a large reply, one whose host or path is lost, and
   * every server while the client cannot connect.
   */
  readonly lastMessageAgeMs: number | undefined;
  /**
   * Ms since the replica last applied a monitor update or a sync
   * (undefined before the first sync). It grows while nothing changes in
   * the database, too.
   */
  readonly lastUpdateAgeMs: number | undefined;
  /** A lock asked for with `client.lock` is held. */
  readonly lockHeld: boolean;
}

/** The client's current status. */
export interface ClientStatus {
  readonly state: ClientState;
  /** The server connected to (or being tried). */
  readonly remote: string | undefined;
  /** Why the client is in this state. */
  readonly reason: string;
  /** The locks asked for with `client.lock` and not released, with their state. */
  readonly locks: readonly LockStatus[];
}

/** Counters of a client. */
export interface ClientStats {
  /** Successful (re)connections, each with every monitor in sync. */
  connects: number;
  /** Connections lost after being in sync. */
  disconnects: number;
  /** `initial` rows received over the client's life. */
  initialRows: number;
  /** Monitor syncs that resumed with found=true. */
  resumedFound: number;
  /** Monitor syncs that asked to resume but got a full dump (found=false). */
  resumedNotFound: number;
  /** Monitor syncs that were full dumps by design (first sync, changed columns, no `since` support). */
  fullSyncs: number;
  /** Update notifications applied. */
  updates: number;
  /** Event queue counters. */
  readonly events: ReplicaEventStats;
  /** How the monitors got in sync the last time. */
  lastSync: readonly MonitorSyncInfo[];
}

/** Fresh counters, sharing the replica's event counters. */
export function createStats(events: ReplicaEventStats): ClientStats {
  return {
    connects: 0,
    disconnects: 0,
    initialRows: 0,
    resumedFound: 0,
    resumedNotFound: 0,
    fullSyncs: 0,
    updates: 0,
    events,
    lastSync: [],
  };
}

/** The state of a client and its status handlers. */
export class StatusReporter {
  private state: ClientState = 'connecting';
  private remote: string | undefined;
  private reason = 'starting';
  private sealed = false;
  private readonly handlers: ((event: StatusEvent) => void | Promise<void>)[] = [];
  /** What each event's `health` is read from. */
  health: (() => ClientHealth) | undefined;

  /**
   * @param enqueue - queues a delivery behind the row events (the replica's queue).
   * @param log - where a throwing handler is reported.
   */
  constructor(
    private readonly enqueue: (deliver: () => unknown) => void,
    private readonly log: Log,
  ) {}

  /** The current state, server and reason (without the locks). */
  get status(): Omit<ClientStatus, 'locks'> {
    return { state: this.state, remote: this.remote, reason: this.reason };
  }

  /** Add a status handler; returns a function that removes it. */
  onStatus(handler: (event: StatusEvent) => void | Promise<void>): () => void {
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    this.handlers.push(handler);
    return () => {
      const i = this.handlers.indexOf(handler);
      if (i >= 0) this.handlers.splice(i, 1);
    };
  }

  /** The client is closing: from now on, only the `closed` state can be set. */
  seal(): void {
    this.sealed = true;
  }

  /** Enter `state` (ignored once sealed, except for `closed`). */
  setState(state: ClientState, remote: string | undefined, reason: string): void {
    if (this.sealed && state !== 'closed') return;
    this.state = state;
    this.remote = remote;
    this.reason = reason;
  }

  /**
   * Queue `event`, with the health now, for the status handlers, called in
   * turn at delivery (none now: nothing is queued).
   */
  emit(event: StatusEvent): void {
    if (this.handlers.length === 0) return;
    if (this.health !== undefined) event = { ...event, health: this.health() };
    this.enqueue(async () => {
      for (const h of this.handlers.slice()) {
        try {
          await h(event);
        } catch (e) {
          this.log('error', `status handler threw: ${errorText(e)}`, { error: e });
        }
      }
    });
  }
}

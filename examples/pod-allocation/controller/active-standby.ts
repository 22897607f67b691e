/**
 * {@link ActiveStandby}: run the controllers of one replica only while it
 * holds an OVSDB lock, the way `ovn-northd` runs active/standby on
 * `ovn_northd`. Every replica connects to NB with `fence: <lock>` and asks
 * for the lock; the server grants it to one of them:
 *
 * - the **active** replica (the holder) runs `activate()`: it builds fresh
 *   controllers, whose `start` rebuilds the IPAM from NB (NB is the source
 *   of truth), lists the pods and nodes, and collects garbage;
 * - a **standby** replica keeps its replica of NB in sync and sends no
 *   write; when the lock comes to it (the holder died, closed, or lost its
 *   connection), it becomes active. The lock is asked for only once the
 *   client is in sync, and its `held` event comes after the updates of
 *   every transaction the old holder committed, so the new holder starts
 *   from an NB that shows them;
 * - a replica that **loses** the lock (stolen, or its connection lost)
 *   stops writing at once: every transaction is fenced by the lock, so
 *   those not sent yet are refused by the client and those in flight by
 *   the server (`LockNotHeldError`, "not committed"); then its controllers
 *   are stopped and dropped, and it waits in line as a standby.
 *
 * ```ts
 * const client = connectDatabase({ remotes, model: NB, indexes: POOL_INDEXES, fence: 'pod_allocation' });
 * const replica = new ActiveStandby({
 *   client,
 *   lock: 'pod_allocation',
 *   activate: async () => {
 *     const pools = new PoolReconciler({ nb: createNb(client), nodes });
 *     const controller = new PodController({ nb: createNb(client), source, topology, pools });
 *     await controller.start();
 *     await pools.start();
 *     return { stop: async () => { await pools.stop(); await controller.stop(); } };
 *   },
 * });
 * replica.start();
 * ```
 * @module
 */

import type { DatabaseLock, StatusEvent } from 'ovnkit/client';
import type { LogRecord, LogSink } from './log.js';

/** What {@link ActiveStandbyOptions.activate} returns: how to stop the active controllers. */
export interface ActiveRole {
  /** Stop the controllers (their in-flight transactions end, fenced). */
  stop(): Promise<void>;
}

/** A replica's role. */
export type ReplicaRole = 'standby' | 'active' | 'stopped';

/** The client an {@link ActiveStandby} needs: its locks and status events. */
export interface LockingClient {
  lock(name: string): DatabaseLock;
  onStatus(handler: (event: StatusEvent) => void): () => void;
}

/** Options of {@link ActiveStandby}. */
export interface ActiveStandbyOptions {
  /** The NB client, connected with `fence: lock` so that every write asserts the lock. */
  readonly client: LockingClient;
  /** The OVSDB lock the replicas compete for. */
  readonly lock: string;
  /** Start the controllers; called each time the lock is granted. */
  readonly activate: () => Promise<ActiveRole>;
  /** Called on every change of role. */
  readonly onRole?: ((role: ReplicaRole, reason: string) => void) | undefined;
  /** Structured logs (default: none). */
  readonly log?: LogSink | undefined;
  /** Wait before activating again after `activate` failed while the lock is held (default 1,000 ms). */
  readonly retryMs?: number | undefined;
}

/** One replica of an active/standby pair (see the module documentation). */
export class ActiveStandby {
  private current: ReplicaRole = 'stopped';
  private lock: DatabaseLock | undefined;
  private active: ActiveRole | undefined;
  private off: (() => void) | undefined;
  /** Role changes, one after the other. */
  private chain: Promise<void> = Promise.resolve();
  private retry: ReturnType<typeof setTimeout> | undefined;

  /** @param options - see {@link ActiveStandbyOptions}. */
  constructor(private readonly options: ActiveStandbyOptions) {}

  /** The replica's role now. */
  get role(): ReplicaRole {
    return this.current;
  }

  /** Ask for the lock; become active when it is granted. */
  start(): void {
    if (this.lock !== undefined) return;
    const name = this.options.lock;
    this.off = this.options.client.onStatus((e) => {
      // Never wait here: this handler runs in the client's event queue, which
      // the controllers' own transactions wait on.
      if (e.type === 'lock' && e.lock?.name === name) this.follow(e.reason);
    });
    this.lock = this.options.client.lock(name);
    this.setRole('standby', 'asked for the lock');
    this.follow('started');
  }

  /** Stop the controllers (if active) and release the lock: another replica takes over. */
  async stop(): Promise<void> {
    const lock = this.lock;
    if (lock === undefined) return;
    this.off?.();
    this.off = undefined;
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.chain = this.chain.then(() => this.deactivate('stopping'));
    await this.chain;
    await lock.release();
    this.lock = undefined;
    this.setRole('stopped', 'stopped');
  }

  /** Bring the role in line with the lock: active while held, standby otherwise. */
  private follow(reason: string): void {
    this.chain = this.chain.then(() => {
      const lock = this.lock;
      if (lock === undefined) return;
      if (lock.held && this.active === undefined) return this.activate(reason);
      if (!lock.held && this.active !== undefined) return this.deactivate(reason);
    });
  }

  private async activate(reason: string): Promise<void> {
    const t0 = performance.now();
    this.setRole('active', reason);
    try {
      this.active = await this.options.activate();
      this.log('info', 'active', { ms: Math.round(performance.now() - t0) });
    } catch (e) {
      this.log('error', 'activation failed', { error: String(e) });
      this.setRole('standby', `activation failed: ${String(e)}`);
      // Lost meanwhile: the next `held` event brings it back; still held: try again.
      if (this.lock?.held) {
        this.retry = setTimeout(() => this.follow('retry'), this.options.retryMs ?? 1000);
      }
      return;
    }
    // The lock may have gone while the controllers started.
    if (this.lock?.held !== true) await this.deactivate('lost while activating');
  }

  private async deactivate(reason: string): Promise<void> {
    const active = this.active;
    this.active = undefined;
    if (active === undefined) return;
    this.setRole('standby', reason);
    try {
      await active.stop();
    } catch (e) {
      this.log('error', 'stopping the controllers failed', { error: String(e) });
    }
  }

  private setRole(role: ReplicaRole, reason: string): void {
    if (role === this.current) return;
    this.current = role;
    this.log('info', 'role', { role, reason });
    this.options.onRole?.(role, reason);
  }

  private log(level: LogRecord['level'], msg: string, fields: Record<string, unknown> = {}): void {
    this.options.log?.({ time: new Date().toISOString(), level, msg, ...fields });
  }
}

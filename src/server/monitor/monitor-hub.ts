/**
 * The monitors of one server: the `monitor`, `monitor_cond`,
 * `monitor_cond_since`, `monitor_cond_change` and `monitor_cancel` requests,
 * which session owns which monitor, and the committed changes each monitor
 * has not sent yet (sent by {@link MonitorHub.flush}).
 * @module
 */

import { isUuid, ZERO_UUID } from '../../ovsdb/values/uuid.js';
import { errorText, isObject } from '../../ovsdb/wire/json.js';
import { framePieces, type TextInPieces } from '../../ovsdb/wire/json-stringify.js';
import type { TxnChanges } from '../engine/executor.js';
import { OpError, syntaxError } from '../engine/op-error.js';
import type { DatabaseRegistry, Served } from '../registry.js';
import { jsonKey, type Session } from '../rpc/session.js';
import { MergedBacklog } from './backlog.js';
import type { HistoryEntry, TxnHistory } from './history.js';
import { Monitor, type MonitorVersion } from './monitor.js';

const NOTIFY_METHOD: Record<MonitorVersion, string> = {
  1: 'update',
  2: 'update2',
  3: 'update3',
};

/** Every monitor of one server, with its owner and its queued changes. */
export class MonitorHub {
  private readonly monitorOwner = new Map<Monitor, Session>();
  /** Committed changes each monitor has not sent yet. */
  private readonly pendingUpdates = new Map<Monitor, HistoryEntry[]>();
  /**
   * The changes held back for monitors of sessions whose client does not
   * read, merged per row and counted against the session's backlog bound
   * (see `backlog.ts`), instead of in `pendingUpdates`.
   */
  private readonly backlogs = new Map<Monitor, MergedBacklog>();

  constructor(private readonly databases: DatabaseRegistry) {}

  /** Queue transaction `id` of `served` (just committed) for every monitor of the database. */
  queue(served: Served, id: string, changes: TxnChanges): void {
    for (const m of served.monitors) {
      if (this.holdBack(m, { id, changes })) continue;
      const pending = this.pendingUpdates.get(m);
      if (pending === undefined) this.pendingUpdates.set(m, [{ id, changes }]);
      else pending.push({ id, changes });
    }
  }

  /**
   * Send session `s` the updates its monitors have queued, one notification
   * per monitor with the changes of every transaction since the last flush
   * merged, as ovsdb-server does (see `OvsdbServer.flush` for when).
   */
  flush(s: Session): void {
    if (this.pendingUpdates.size === 0 && this.backlogs.size === 0) return;
    for (const m of s.monitors()) {
      const merged = this.backlogs.get(m);
      if (merged !== undefined) this.backlogs.delete(m);
      const pending = merged === undefined ? this.pendingUpdates.get(m) : [merged.take()];
      if (pending === undefined) continue;
      this.pendingUpdates.delete(m);
      try {
        const updates =
          pending.length === 1 ? m.update((pending[0] as HistoryEntry).changes) : m.since(pending);
        if (updates === undefined) continue;
        this.notify(s, m, updates, false);
      } catch (e) {
        // Never left behind silently: the client reconnects and resumes.
        s.fail(`cannot send monitor ${jsonKey(m.id)} its update: ${errorText(e)}`);
        return;
      }
    }
  }

  /** `monitor` (version 1), `monitor_cond` (2) or `monitor_cond_since` (3) on `served`. */
  create(
    s: Session,
    served: Served,
    version: MonitorVersion,
    params: unknown[],
    id: unknown,
  ): void {
    const fail = (e: OpError): void => s.replyError(id, e.toJson());
    const wanted = version === 3 ? 4 : 3;
    if (version === 1 ? params.length < 3 : params.length !== wanted) {
      fail(syntaxError(params, undefined, 'invalid parameters'));
      return;
    }
    const monitorId = params[1];
    const requests = params[2];
    if (!isObject(requests)) {
      fail(syntaxError(requests, undefined, 'monitor-requests must be object'));
      return;
    }
    if (s.monitor(monitorId) !== undefined) {
      fail(syntaxError(monitorId, undefined, 'duplicate monitor ID'));
      return;
    }
    let m: Monitor;
    try {
      m = Monitor.create(served.db, version, monitorId, requests);
    } catch (e) {
      if (e instanceof OpError) {
        fail(e);
        return;
      }
      throw e;
    }
    let since: ReturnType<TxnHistory['since']>;
    if (version === 3) {
      const lastId = params[3];
      if (typeof lastId !== 'string') {
        fail(syntaxError(lastId, undefined, 'last-txn-id must be string'));
        return;
      }
      if (!isUuid(lastId)) {
        fail(syntaxError(lastId, undefined, 'last-txn-id must be UUID format.'));
        return;
      }
      if (lastId !== ZERO_UUID) since = served.history.since(lastId);
    }
    s.addMonitor(m);
    served.monitors.add(m);
    this.monitorOwner.set(m, s);
    let reply: TextInPieces;
    try {
      const updates = (since !== undefined ? m.since(since) : m.initial()) ?? '{}';
      reply =
        version === 3
          ? framePieces(
              `[${since !== undefined},${JSON.stringify(served.history.lastId)},`,
              updates,
              ']',
            )
          : updates;
    } catch (e) {
      this.destroy(m, false);
      fail(
        new OpError(
          'resources exhausted',
          `the reply to this monitor request cannot be made: ${errorText(e)}`,
        ),
      );
      return;
    }
    s.replyWithText(id, reply);
  }

  /** `monitor_cond_change`. */
  changeConditions(s: Session, params: unknown[], id: unknown): void {
    const fail = (e: OpError): void => s.replyError(id, e.toJson());
    if (params.length !== 3) {
      fail(syntaxError(params, undefined, 'invalid parameters'));
      return;
    }
    const m = s.monitor(params[0]);
    if (m === undefined) {
      fail(syntaxError(params[0], undefined, 'unknown monitor session'));
      return;
    }
    const newId = params[1];
    const changing = jsonKey(newId) !== jsonKey(m.id);
    if (changing && s.monitor(newId) !== undefined) {
      fail(syntaxError(newId, undefined, 'duplicate monitor ID'));
      return;
    }
    const requests = params[2];
    if (!isObject(requests)) {
      fail(syntaxError(undefined, undefined, 'monitor-cond-change-requests must be object'));
      return;
    }
    try {
      m.changeConditions(requests);
    } catch (e) {
      if (e instanceof OpError) {
        fail(e);
        return;
      }
      throw e;
    }
    if (changing) {
      s.removeMonitor(m);
      m.id = newId;
      s.addMonitor(m);
    }
    const updates = m.conditionChangeUpdate();
    if (updates !== undefined) this.notify(s, m, updates, true);
    s.reply(id, {});
  }

  /** `monitor_cancel`. */
  cancel(s: Session, params: unknown[], id: unknown): void {
    if (params.length !== 1) {
      s.replyError(id, 'invalid parameters');
      return;
    }
    const m = s.monitor(params[0]);
    if (m === undefined) {
      s.replyError(id, 'unknown monitor');
      return;
    }
    this.destroy(m, false);
    s.reply(id, {});
  }

  /**
   * Drop monitor `m` and its queued changes; with `notify`, a db-change-aware
   * owner gets `monitor_canceled`.
   */
  destroy(m: Monitor, notify: boolean): void {
    const s = this.monitorOwner.get(m);
    this.monitorOwner.delete(m);
    this.pendingUpdates.delete(m);
    this.backlogs.get(m)?.release();
    this.backlogs.delete(m);
    this.databases.of(m.db)?.monitors.delete(m);
    if (s === undefined) return;
    s.removeMonitor(m);
    if (notify && s.dbChangeAware && !s.closed) s.notify('monitor_canceled', [m.id]);
  }

  /**
   * Merge `entry` into what monitor `m` holds back when its session is
   * backlogged and its connection has a backlog bound; false otherwise.
   */
  /**
   * Send `updates` of monitor `m` to its session `s` (`update3` names the
   * database's last transaction); `flushFirst`: after what `s` holds.
   */
  private notify(s: Session, m: Monitor, updates: TextInPieces, flushFirst: boolean): void {
    const lastId = this.databases.of(m.db)?.history.lastId ?? ZERO_UUID;
    s.notifyUpdate(
      NOTIFY_METHOD[m.version],
      m.id,
      m.version === 3 ? lastId : undefined,
      updates,
      flushFirst,
    );
  }

  private holdBack(m: Monitor, entry: HistoryEntry): boolean {
    let merged = this.backlogs.get(m);
    if (merged === undefined) {
      const s = this.monitorOwner.get(m);
      const meter = s?.backlogMeter;
      if (s === undefined || meter === undefined || !s.backlogged) return false;
      merged = new MergedBacklog(m, meter);
      this.backlogs.set(m, merged);
      for (const earlier of this.pendingUpdates.get(m) ?? []) merged.add(earlier);
      this.pendingUpdates.delete(m);
    }
    merged.add(entry);
    return true;
  }
}

/**
 * The client's monitors: tables grouped into monitor requests (one monitor
 * per group name, `default` unless a table names another), each started
 * with `monitor_cond_since`, falling back to `monitor_cond` and then
 * `monitor` when the server does not know the method, and each resuming
 * from its own last transaction id.
 *
 * ## Resume points
 *
 * ovsdb-server keeps about the last 100 transactions, and a monitor whose
 * tables rarely change receives no `update3` to learn newer ids. An
 * `update3`'s id is the database's latest transaction, and ovsdb-server
 * writes every monitor's update of one flush back to back (and flushes all
 * of them before any reply), so once an update of a later flush (or a
 * reply) arrives, every monitor in sync is known to be current up to the
 * earlier id: its resume point advances to it.
 * @module
 */

import { inSpan, SPAN_KIND_CLIENT } from '../observability/tracing.js';
import {
  absentColumns,
  type CompatReport,
  serverReadColumns,
  usableColumns,
} from '../ovsdb/schema/compat.js';
import { type AbsentConditionPolicy, serverConditions } from '../ovsdb/schema/compat-checks.js';
import type { ColumnOf, DatabaseModel, RowOf, TableMap, TableName } from '../ovsdb/schema/model.js';
import { compileMonitorWhere, type MonitorCondition } from '../ovsdb/values/conditions.js';
import { OvsdbError, ProtocolError } from '../ovsdb/wire/errors.js';
import type { ReplyReviver } from '../ovsdb/wire/rpc-options.js';
import type {
  Condition,
  MonitorRequest,
  MonitorRequests,
  TableUpdates,
  TableUpdates2,
} from '../ovsdb/wire/wire.js';
import { isUnknownMethod } from './errors.js';
import { errorText, type Log } from './log.js';
import { type ClientObservability, countRows } from './metrics.js';
import {
  type Buffered,
  type MonitorChange,
  type MonitorGroup,
  type MonitorSession,
  type TableConfig,
  ZERO_TXN_ID,
} from './monitor-state.js';
import type { TableMonitorOptions } from './options.js';
import type { PredecodedRows, ReplaceResult, ReplicaFeed } from './replica/feed.js';
import type { ClientStats, MonitorSyncInfo } from './status.js';

const DEFAULT_GROUP = 'default';

function sameConditions(a: readonly Condition[], b: readonly Condition[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.every((x, i) => x === b[i]);
}

/** The monitor groups of one client, feeding its replica. */
export class MonitorGroups<DB extends TableMap> {
  private readonly db: string;
  private readonly groups: MonitorGroup[] = [];
  private readonly groupsById = new Map<string, MonitorGroup>();
  private readonly tableConfig = new Map<string, TableConfig>();
  /** When the replica last applied an update or a sync (0: never). */
  lastAppliedAt = 0;

  /**
   * @param tables - the `tables` option (undefined: every table of the model).
   * @throws OvsdbError for a table or column the model does not have.
   */
  constructor(
    private readonly model: DatabaseModel<DB>,
    tables: { readonly [table: string]: TableMonitorOptions | boolean | undefined } | undefined,
    private readonly feed: ReplicaFeed<DB>,
    private readonly stats: ClientStats,
    private readonly log: Log,
    private readonly observe?: ClientObservability,
    private readonly absentConditions: AbsentConditionPolicy = 'refuse',
  ) {
    this.db = model.name;
    this.configureTables(tables);
  }

  private configureTables(
    tables: { readonly [table: string]: TableMonitorOptions | boolean | undefined } | undefined,
  ): void {
    const schemaTables = this.model.schema.tables;
    const entries: [string, TableMonitorOptions | boolean][] = tables
      ? Object.entries(tables).filter(
          (e): e is [string, TableMonitorOptions | boolean] => e[1] !== undefined && e[1] !== false,
        )
      : Object.keys(schemaTables).map((t) => [t, true]);
    for (const [table, opt] of entries) {
      const schema = schemaTables[table];
      if (schema === undefined) {
        throw new OvsdbError(`tables: database ${this.db} has no table ${table}`);
      }
      const o: TableMonitorOptions = typeof opt === 'boolean' ? {} : opt;
      for (const c of o.columns ?? []) {
        if (schema.columns[c] === undefined) {
          throw new OvsdbError(`tables.${table}.columns: the table has no column ${c}`);
        }
      }
      const groupName = o.monitor ?? DEFAULT_GROUP;
      let group = this.groups.find((g) => g.name === groupName);
      if (group === undefined) {
        group = {
          name: groupName,
          id: `ovnkit:${groupName}`,
          tables: [],
          lastTxnId: ZERO_TXN_ID,
          needFull: true,
          conditions: 0,
          syncedConditions: 0,
          pending: undefined,
          active: [],
          idFlush: -1,
        };
        this.groups.push(group);
        this.groupsById.set(group.id, group);
      }
      group.tables.push(table);
      this.tableConfig.set(table, {
        columns: o.columns ? [...o.columns] : undefined,
        where: o.where === undefined ? undefined : compileMonitorWhere(schema, o.where),
        dropped: [],
        group,
      });
    }
  }

  // ---- syncing ---------------------------------------------------------------------

  /** Bring every monitor in sync on `s`, one after the other. */
  async syncAll(s: MonitorSession): Promise<MonitorSyncInfo[]> {
    const infos: MonitorSyncInfo[] = [];
    for (const g of this.groups) infos.push(await this.syncTraced(s, g));
    this.lastAppliedAt = Date.now();
    return infos;
  }

  /** {@link MonitorGroups.syncGroup} in a span, when the client has a tracer. */
  private syncTraced(s: MonitorSession, g: MonitorGroup): Promise<MonitorSyncInfo> {
    const tracer = this.observe?.tracer;
    if (tracer === undefined) return this.syncGroup(s, g);
    return inSpan(
      tracer,
      'ovsdb.monitor.sync',
      {
        kind: SPAN_KIND_CLIENT,
        attributes: {
          'db.system.name': 'ovsdb',
          'db.namespace': this.db,
          'ovsdb.monitor': g.name,
          'ovsdb.tables': g.tables,
          'server.address': s.remote,
        },
      },
      async (span) => {
        const info = await this.syncGroup(s, g);
        span.setAttributes({
          'ovsdb.method': info.method,
          'ovsdb.found': info.found,
          'ovsdb.from_txn_id': info.fromTxnId,
          'ovsdb.last_txn_id': info.lastTxnId,
          'ovsdb.initial_rows': info.initialRows,
          'ovsdb.changes': info.changes,
        });
        return info;
      },
    );
  }

  /** Start (or restart) the monitor of `g` on `s` and apply its reply. */
  private async syncGroup(s: MonitorSession, g: MonitorGroup): Promise<MonitorSyncInfo> {
    const compat = s.compat!;
    const requests: Record<string, MonitorRequest> = {};
    const active: string[] = [];
    let shapeChanged = false;
    for (const table of g.tables) {
      const cfg = this.tableConfig.get(table)!;
      const cols = usableColumns(compat, this.model.schema, table, cfg.columns);
      const before = this.feed.monitoredColumns(table as TableName<DB>);
      if (cols === undefined) {
        this.feed.configure(table, undefined);
        continue;
      }
      // A condition on a column the server lacks is a SchemaDriftError, or dropped.
      const where =
        cfg.where !== undefined && s.method !== 'plain'
          ? this.serverWhere(s, table, cfg)
          : undefined;
      const wireColumns = cols.filter((c) => c !== '_uuid');
      if (!sameList(before, this.sortedLike(table, wireColumns))) shapeChanged = true;
      // Columns the server lacks are absent from the rows (never filled with defaults);
      // those whose type differs are read by the server's type.
      this.feed.configure(
        table,
        wireColumns,
        absentColumns(compat, this.model.schema, table),
        serverReadColumns(compat, table),
      );
      active.push(table);
      const req: { columns: string[]; where?: readonly Condition[] } = { columns: wireColumns };
      if (where !== undefined) req.where = where;
      requests[table] = req;
    }
    g.active = active;
    const conditionsVersion = g.conditions;
    const full = g.needFull || shapeChanged || g.syncedConditions !== conditionsVersion;
    const fromTxnId = full ? ZERO_TXN_ID : g.lastTxnId;
    if (active.length === 0) {
      g.syncedConditions = conditionsVersion;
      return {
        monitor: g.name,
        method: 'monitor_cond_since',
        found: false,
        fromTxnId,
        lastTxnId: g.lastTxnId,
        initialRows: 0,
        changes: 0,
      };
    }
    g.pending = [];
    try {
      for (;;) {
        try {
          const info = await this.monitorOnce(s, g, requests as MonitorRequests, fromTxnId);
          const m = this.observe?.metrics;
          if (m !== undefined) {
            if (fromTxnId !== ZERO_TXN_ID && info.method === 'monitor_cond_since') {
              m.resume(info.found);
            }
            m.monitorSync(!info.found);
          }
          g.needFull = false;
          g.syncedConditions = conditionsVersion;
          // Notifications that arrived after the reply, in order.
          const held = g.pending ?? [];
          g.pending = undefined;
          if (s.endReason === undefined) for (const b of held) this.applyNotification(s, g, b);
          return info;
        } catch (e) {
          if (!isUnknownMethod(e) || s.method === 'plain') throw e;
          this.observe?.metrics?.rpcError(
            s.method === 'since' ? 'monitor_cond_since' : 'monitor_cond',
            'unknown_method',
          );
          s.method = s.method === 'since' ? 'cond' : 'plain';
          if (s.method === 'plain')
            for (const t of active) delete (requests[t] as { where?: unknown }).where;
          this.log(
            'info',
            `${s.remote}: falling back to ${s.method === 'cond' ? 'monitor_cond' : 'monitor'}`,
          );
        }
      }
    } finally {
      // On failure the session ends: what was held is dropped with it.
      g.pending = undefined;
    }
  }

  /**
   * The reviver of a full dump of `g` (see `RequestOptions.reviveLargeReply`):
   * the rows of each of its tables, found at `tablesAt` + table name below
   * the reply's `result`, are decoded into `into` as they arrive.
   */
  private dumpReviver(
    g: MonitorGroup,
    tablesAt: readonly number[],
    format: 'update2' | 'update',
    into: PredecodedRows,
  ): ReplyReviver {
    return (path, target) => {
      const table = path[tablesAt.length];
      if (path.length !== tablesAt.length + 1 || typeof table !== 'string') return undefined;
      for (let i = 0; i < tablesAt.length; i++) if (path[i] !== tablesAt[i]) return undefined;
      return g.active.includes(table)
        ? this.feed.dumpReviver(table, target, format, into)
        : undefined;
    };
  }

  /**
   * The condition of `table` as sent to the server of `s`: clauses on
   * columns it lacks refused (a SchemaDriftError) or dropped (and reported),
   * as the `absentColumnConditions` option says.
   */
  private serverWhere(s: MonitorSession, table: string, cfg: TableConfig): readonly Condition[] {
    const { where, dropped } = serverConditions(
      s.compat!,
      this.model.schema,
      table,
      cfg.where ?? [true],
      this.absentConditions,
    );
    if (dropped.length > 0 && !sameConditions(dropped, cfg.dropped)) {
      this.log(
        'warn',
        `${s.remote}: the monitor condition of table ${table}: ${dropped.length} clause(s) not sent, on columns the server's schema (version ${s.compat!.serverVersion}) lacks: ${JSON.stringify(dropped)}`,
        { table, dropped, serverVersion: s.compat!.serverVersion },
      );
    }
    cfg.dropped = dropped;
    return where;
  }

  /** The clauses of the monitor condition of `table` the current server was not sent (see `absentColumnConditions`). */
  droppedConditions(table: string): readonly Condition[] {
    return this.tableConfig.get(table)?.dropped ?? [];
  }

  /** The columns in the replica's row order, to compare with what it monitors. */
  private sortedLike(table: string, columns: readonly string[]): string[] {
    const schema = this.model.schema.tables[table]!;
    const set = new Set(columns);
    const out: string[] = [];
    if (set.has('_version')) out.push('_version');
    for (const c of schema.columnNames) if (set.has(c)) out.push(c);
    return out;
  }

  private async monitorOnce(
    s: MonitorSession,
    g: MonitorGroup,
    requests: MonitorRequests,
    fromTxnId: string,
  ): Promise<MonitorSyncInfo> {
    const asked = fromTxnId !== ZERO_TXN_ID;
    // A full dump's rows are decoded as the reply arrives (when it is large).
    const predecoded: PredecodedRows = new Map();
    const format = s.method === 'plain' ? 'update' : 'update2';
    const options = asked
      ? undefined
      : {
          reviveLargeReply: this.dumpReviver(
            g,
            s.method === 'since' ? [2] : [],
            format,
            predecoded,
          ),
        };
    if (s.method === 'since') {
      const r = await s.conn.monitorCondSince(this.db, g.id, requests, fromTxnId, options);
      this.checkTables(r.updates);
      this.feed.beginBatch(r.lastTxnId);
      let initialRows = 0;
      let changes = 0;
      let replaced: ReplaceResult | undefined;
      if (r.found) {
        for (const t of g.active) changes += Object.keys(r.updates[t] ?? {}).length;
        for (const table of g.active)
          initialRows += this.feed.applyUpdate2(table, r.updates[table] ?? {});
        this.stats.resumedFound++;
      } else {
        // A full dump: every entry is a row of it (counted as they are decoded).
        const all = this.replaceAll(g, r.updates, 'update2', predecoded);
        replaced = all.replaced;
        initialRows = all.entries;
        changes = all.entries;
        if (asked) this.stats.resumedNotFound++;
        else this.stats.fullSyncs++;
      }
      this.stats.initialRows += initialRows;
      g.lastTxnId = r.lastTxnId;
      g.idFlush = s.flushSeq;
      return {
        monitor: g.name,
        method: 'monitor_cond_since',
        found: r.found,
        fromTxnId,
        lastTxnId: r.lastTxnId,
        initialRows,
        changes,
        replaced,
      };
    }
    const updates =
      s.method === 'cond'
        ? await s.conn.monitorCond(this.db, g.id, requests, options)
        : await s.conn.monitor(this.db, g.id, requests, options);
    this.checkTables(updates);
    this.feed.beginBatch();
    const { replaced, entries: initialRows } = this.replaceAll(g, updates, format, predecoded);
    this.stats.initialRows += initialRows;
    this.stats.fullSyncs++;
    g.lastTxnId = ZERO_TXN_ID;
    return {
      monitor: g.name,
      method: s.method === 'cond' ? 'monitor_cond' : 'monitor',
      found: false,
      fromTxnId,
      lastTxnId: ZERO_TXN_ID,
      initialRows,
      changes: initialRows,
      replaced,
    };
  }

  /**
   * Updates name only tables the client asked for, so only tables of the
   * model: another is a malformed update, a {@link ProtocolError}.
   */
  private checkTables(updates: object): void {
    const tables = this.model.schema.tables;
    for (const table in updates) {
      if (!Object.hasOwn(tables, table)) {
        throw new ProtocolError(
          `malformed update for table ${JSON.stringify(table).slice(0, 80)}: database ${this.db} has no such table`,
        );
      }
    }
  }

  private replaceAll(
    g: MonitorGroup,
    updates: TableUpdates2 | TableUpdates,
    format: 'update2' | 'update',
    predecoded: PredecodedRows,
  ): { replaced: ReplaceResult; entries: number } {
    // Every table decoded before any is applied: a malformed dump leaves nothing of itself.
    const decoded = g.active.map((table) =>
      this.feed.decodeDump(table, updates[table] ?? {}, format, predecoded),
    );
    const total = { inserted: 0, updated: 0, deleted: 0, unchanged: 0 };
    let entries = 0;
    for (const d of decoded) {
      const r = this.feed.applyDump(d);
      total.inserted += r.inserted;
      total.updated += r.updated;
      total.deleted += r.deleted;
      total.unchanged += r.unchanged;
      entries += r.entries;
    }
    return { replaced: total, entries };
  }

  // ---- run-time changes ------------------------------------------------------------

  /**
   * Record a change of the columns or conditions of `table`; the next sync
   * (or {@link MonitorGroups.apply}) sends it.
   * @param compat - the comparison with the current server's schema, if known.
   * @throws OvsdbError when the client does not monitor `table`; DatumError
   *   for a condition that does not fit its column; SchemaDriftError when
   *   `where` names a column the server lacks (unless such clauses are
   *   dropped), or a value its type does not admit.
   */
  change<T extends TableName<DB>>(
    table: T,
    change: {
      readonly columns?: readonly ColumnOf<DB, T>[];
      readonly where?: readonly MonitorCondition<RowOf<DB, T>>[];
    },
    compat?: CompatReport,
  ): MonitorChange {
    const cfg = this.tableConfig.get(table);
    if (cfg === undefined)
      throw new OvsdbError(`setMonitor: table ${table} is not monitored by this client`);
    const where =
      change.where === undefined
        ? undefined
        : compileMonitorWhere(this.model.schema.tables[table]!, change.where);
    if (compat !== undefined && where !== undefined) {
      serverConditions(compat, this.model.schema, table, where, this.absentConditions);
    }
    const group = cfg.group;
    const columnsChanged = 'columns' in change && !sameList(change.columns, cfg.columns);
    if ('columns' in change) cfg.columns = change.columns;
    if ('where' in change) cfg.where = where;
    group.conditions++;
    if (columnsChanged) group.needFull = true;
    return { table, config: cfg, group, columnsChanged };
  }

  /** True when the server's monitor matches the settings of `change` (a sync applied them). */
  applied(change: MonitorChange): boolean {
    return change.group.syncedConditions === change.group.conditions;
  }

  /**
   * Send `change` on the synced session `s`: new conditions with
   * `monitor_cond_change`; new columns (or a server without conditions) by
   * restarting the monitor with a full dump.
   */
  async apply(s: MonitorSession, change: MonitorChange): Promise<void> {
    const { group, config, table } = change;
    if (change.columnsChanged || s.method === 'plain' || group.needFull) {
      await s.conn.monitorCancel(group.id);
      group.needFull = true;
      this.stats.lastSync = [await this.syncTraced(s, group)];
    } else {
      const version = group.conditions;
      await s.conn.monitorCondChange(group.id, group.id, {
        [table]: [{ where: this.serverWhere(s, table, config) }],
      });
      if (group.conditions === version) group.syncedConditions = version;
    }
  }

  // ---- notifications -----------------------------------------------------------------

  /** A notification for monitor `id` arrived on `s` (the current session). */
  onUpdate(s: MonitorSession, id: unknown, message: Buffered): void {
    if (s.endReason !== undefined) return;
    if (message.kind === 'update3') this.noteFlush(s, message.txnId);
    const g = typeof id === 'string' ? this.groupsById.get(id) : undefined;
    if (g === undefined) return;
    if (g.pending !== undefined) {
      g.pending.push(message);
      return;
    }
    this.applyNotification(s, g, message);
  }

  private applyNotification(s: MonitorSession, g: MonitorGroup, message: Buffered): void {
    this.feed.beginBatch(message.kind === 'update3' ? message.txnId : undefined);
    try {
      this.checkTables(message.updates);
      for (const table in message.updates) {
        if (!g.active.includes(table)) continue;
        if (message.kind === 'update')
          this.feed.applyUpdate(table, (message.updates as TableUpdates)[table]!);
        else this.feed.applyUpdate2(table, (message.updates as TableUpdates2)[table]!);
      }
      if (message.kind === 'update3') {
        g.lastTxnId = message.txnId;
        g.idFlush = s.flushSeq;
      }
      this.stats.updates++;
      this.lastAppliedAt = Date.now();
      const m = this.observe?.metrics;
      if (m !== undefined) m.monitorUpdate(countRows(message.updates, g.active));
    } catch (e) {
      g.needFull = true;
      this.log(
        'error',
        `${s.remote}: could not apply an update of monitor ${g.name}: ${errorText(e)}; resynchronising`,
        { error: e },
      );
      s.end(`replica out of sync: ${errorText(e)}`, e, 'out_of_sync');
    }
  }

  /**
   * An `update3` carrying `txnId` arrived. Its id is the database's latest
   * transaction (not the monitor's), ovsdb-server writes every monitor's
   * update of one flush back to back, and flushes every monitor before any
   * reply. So a new id means the previous flush is complete: every monitor
   * in sync is current up to the previous id, even one whose tables did not
   * change. Advancing idle monitors keeps their resume point inside the
   * server's history (about 100 transactions), so they resume with found=true.
   */
  private noteFlush(s: MonitorSession, txnId: string): void {
    if (txnId === s.flushTxn) return;
    if (s.flushTxn !== undefined) this.settle(s, s.flushTxn, s.flushSeq);
    s.flushTxn = txnId;
    s.flushSeq++;
    if (s.settleTimer === undefined && this.groups.length > 1) {
      // Settle the last flush too once updates pause: a reply (here to an
      // echo) comes after a flush of every monitor.
      s.settleTimer = setTimeout(() => {
        s.settleTimer = undefined;
        const seq = s.flushSeq;
        const txn = s.flushTxn;
        s.conn
          .echo('ovnkit-settle')
          .then(() => {
            // Only when no later flush began meanwhile (its monitors may be mid-way).
            if (s.flushSeq === seq && txn !== undefined && s.endReason === undefined) {
              this.settle(s, txn, seq);
            }
          })
          .catch(() => {});
      }, 500);
      s.settleTimer.unref?.();
    }
  }

  /** Advance the resume point of the monitors in sync whose id predates flush `seq` to `txnId`. */
  private settle(s: MonitorSession, txnId: string, seq: number): void {
    if (s.method !== 'since') return;
    for (const g of this.groups) {
      if (g.pending !== undefined || g.active.length === 0 || g.idFlush >= seq) continue;
      g.lastTxnId = txnId;
      g.idFlush = seq;
    }
  }
}

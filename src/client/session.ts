/**
 * One session of the client: a connection to one server, from dialing
 * through the handshake (`list_dbs`, the `_Server.Database` verdict,
 * `set_db_change_aware`, `get_schema` and its comparison with the model) to
 * every monitor in sync (the transactions sent over it: `executor.ts`).
 * @module
 */

import type { ClientMetricsRecorder, ReconnectReason } from '../observability/metrics.js';
import { OvsdbConnection } from '../ovsdb/connection/connection.js';
import { type CompatReport, compareSchemas } from '../ovsdb/schema/compat.js';
import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import { parseSchema } from '../ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import type { DialedTransport } from '../ovsdb/transport/dial.js';
import { OvsdbError } from '../ovsdb/wire/errors.js';
import { stringifyJson } from '../ovsdb/wire/json-stringify.js';
import type { TableUpdates2 } from '../ovsdb/wire/wire.js';
import {
  decodeServerDatabaseRow,
  type ServerDatabaseRow,
  serverMonitorRequest,
} from './cluster.js';
import { isUnknownMethod, ServerSkippedError } from './errors.js';
import type { ClientLocks } from './locks.js';
import { errorText, type Log } from './log.js';
import { reconnectReason, rpcErrorKind, rpcErrorMethod } from './metrics.js';
import type { MonitorGroups } from './monitor-groups.js';
import type { MonitorSession } from './monitor-state.js';
import { type ConnectionConfig, probeIntervalFor } from './options.js';
import { MeteredTransport, type ProbedSession, startProbe } from './probe.js';
import type { ServerSelector } from './server-choice.js';
import type { MonitorSyncInfo, StatusReporter } from './status.js';

const SERVER_MONITOR_ID = 'ovnkit:_Server';

/** One connection to one server, and what the client knows of it. */
export interface Session extends MonitorSession, ProbedSession {
  readonly remote: string;
  readonly conn: OvsdbConnection;
  readonly flow: DialedTransport;
  readonly metered: MeteredTransport;
  schema: DatabaseSchema | undefined;
  compat: CompatReport | undefined;
  serverRow: ServerDatabaseRow | undefined;
  /** Every monitor is in sync. */
  synced: boolean;
  syncedAt: number;
  /** Why the session ended (set once). */
  endReason: string | undefined;
  endError: unknown;
  /** Why the session ended, as a metric label, when the code that ended it said. */
  endCode: ReconnectReason | undefined;
  /** The client's metrics recorder, if any. */
  readonly metrics: ClientMetricsRecorder | undefined;
  /** Resolves once the connection is closed. */
  readonly ended: Promise<void>;
  /** End the session (the first reason given is kept). */
  end(reason: string, error?: unknown, code?: ReconnectReason): void;
  probe: ReturnType<typeof setInterval> | undefined;
}

/** What a session needs of the client that opens it. */
export interface SessionHost<DB extends TableMap> {
  readonly config: ConnectionConfig;
  readonly model: DatabaseModel<DB>;
  readonly groups: MonitorGroups<DB>;
  readonly servers: ServerSelector;
  readonly status: StatusReporter;
  readonly log: Log;
  /** The client's locks (told of `locked`, `stolen` and the end of every session). */
  readonly locks: ClientLocks;
  /** Aborts when the client closes. */
  readonly signal: AbortSignal;
  /** True once a session was in sync. */
  readonly everSynced: boolean;
  /** True while the event queue asks not to read the socket. */
  readonly readsPaused: boolean;
  /** When bytes last came from a server, over any connection (0: never). */
  readonly received: { at: number };
  /** The current session: notifications of any other are ignored. */
  session: Session | undefined;
  /** The last schema comparison. */
  compat: CompatReport | undefined;
  /** Every monitor of `s` is in sync (`s.synced` is set). */
  onSynced(s: Session, infos: MonitorSyncInfo[]): void;
}

/**
 * Open a connection to `remote`, make it the host's current session and
 * bring every monitor in sync; rejects when the server is unusable.
 */
export async function openSession<DB extends TableMap>(
  host: SessionHost<DB>,
  remote: string,
): Promise<Session> {
  const { config, status, log } = host;
  status.setState(host.everSynced ? 'reconnecting' : 'connecting', remote, 'connecting');
  status.emit({ type: 'connecting', reason: `trying ${remote}`, remote });
  const flow = await config.dial(remote, {
    tls: config.tls,
    timeoutMs: config.connectTimeoutMs,
    signal: host.signal,
    keepAliveMs: config.keepAliveMs,
    maxMessageBytes: config.maxMessageBytes,
  });
  const metered = new MeteredTransport(flow.transport, host.received);
  const conn = new OvsdbConnection(metered, {
    maxMessageBytes: config.maxMessageBytes,
    maxUnsolicitedBytes: config.maxUnsolicitedBytes,
    ...(config.maxWriteQueueBytes === undefined
      ? {}
      : { maxWriteQueueBytes: config.maxWriteQueueBytes }),
    onListenerError: (error, event) =>
      log('error', `${remote}: "${event}" handling failed: ${errorText(error)}`, { error }),
  });
  let endResolve!: () => void;
  const ended = new Promise<void>((r) => {
    endResolve = r;
  });
  const session: Session = {
    remote,
    conn,
    flow,
    metered,
    method: 'since',
    schema: undefined,
    compat: undefined,
    serverRow: undefined,
    synced: false,
    syncedAt: 0,
    endReason: undefined,
    endError: undefined,
    endCode: undefined,
    metrics: config.observe?.metrics,
    ended,
    end: (reason, error, code) => {
      if (session.endReason === undefined) {
        session.endReason = reason;
        session.endError = error;
        session.endCode = code;
      }
      conn.close();
    },
    probe: undefined,
    flushTxn: undefined,
    flushSeq: 0,
    settleTimer: undefined,
  };
  void conn.closed.then((error) => {
    if (session.endReason === undefined) {
      session.endReason = error ? errorText(error) : 'closed by the server';
      session.endError = error;
    }
    host.locks.onSessionEnded(session);
    if (session.probe) clearInterval(session.probe);
    if (session.settleTimer) clearTimeout(session.settleTimer);
    const m = session.metrics;
    if (m !== undefined && session.synced && !host.signal.aborted) {
      m.reconnect(reconnectReason(session.endCode, session.endReason, session.endError));
    }
    endResolve();
  });
  host.session = session;
  const groups = host.groups;
  conn.on('update', (id, updates) => {
    if (session === host.session) groups.onUpdate(session, id, { kind: 'update', updates });
  });
  conn.on('update2', (id, updates) => {
    if (id === SERVER_MONITOR_ID) onServerUpdate(host, session, updates);
    else if (session === host.session) groups.onUpdate(session, id, { kind: 'update2', updates });
  });
  conn.on('update3', (id, txnId, updates) => {
    if (session === host.session) groups.onUpdate(session, id, { kind: 'update3', txnId, updates });
  });
  conn.on('locked', (name) => host.locks.onLocked(session, name));
  conn.on('stolen', (name) => host.locks.onStolen(session, name));
  conn.on('monitorCanceled', (id) =>
    session.end(
      `the server canceled monitor ${JSON.stringify(id)} (database removed or converted)`,
      undefined,
      'monitor_canceled',
    ),
  );
  session.probe = startProbe(
    session,
    {
      intervalMs: probeIntervalFor(config, remote),
      replySilenceTimeoutMs: config.replySilenceTimeoutMs,
    },
    () => host.readsPaused,
  );
  if (host.readsPaused) flow.pause?.();
  try {
    await setUp(host, session);
  } catch (e) {
    const reason = session.endReason;
    if (session.metrics !== undefined && !(e instanceof ServerSkippedError)) {
      session.metrics.rpcError(rpcErrorMethod(e, 'setup'), rpcErrorKind(e));
    }
    session.end(errorText(e), e);
    if (host.session === session) host.session = undefined;
    if (reason !== undefined && !(e instanceof ServerSkippedError)) {
      throw new OvsdbError(`${remote}: ${reason}`, { cause: e });
    }
    throw e;
  }
  return session;
}

/** The handshake, then every monitor. */
async function setUp<DB extends TableMap>(host: SessionHost<DB>, s: Session): Promise<void> {
  const db = host.config.db;
  const setup = { timeoutMs: host.config.connectTimeoutMs };
  const dbs = await s.conn.listDbs(setup);
  if (!dbs.includes(db)) {
    throw new ServerSkippedError(`the server has no database ${db} (it has ${dbs.join(', ')})`);
  }
  if (dbs.includes('_Server')) {
    let reply: TableUpdates2 | undefined;
    try {
      reply = await s.conn.monitorCond(
        '_Server',
        SERVER_MONITOR_ID,
        serverMonitorRequest(db),
        setup,
      );
    } catch (e) {
      // A server without monitor_cond predates clustering: nothing to check.
      if (!isUnknownMethod(e)) throw e;
      s.method = 'plain';
    }
    if (reply !== undefined) {
      for (const change of Object.values(reply['Database'] ?? {})) {
        const wire = change.initial ?? change.insert;
        if (wire) s.serverRow = decodeServerDatabaseRow(wire);
      }
      const verdict = host.servers.judge(s.serverRow);
      if (!verdict.ok) throw new ServerSkippedError(verdict.reason, verdict.code);
    }
  }
  try {
    await s.conn.setDbChangeAware(true, setup);
  } catch (e) {
    if (!isUnknownMethod(e)) throw e;
  }
  const schemaJson = await s.conn.getSchema(db, setup);
  s.schema = parseSchema(schemaJson);
  s.compat = compareSchemas(host.model.schema, s.schema);
  noteCompat(host, s.compat);
  const infos = await host.groups.syncAll(s);
  if (s.endReason !== undefined) throw new OvsdbError(s.endReason);
  s.synced = true;
  s.syncedAt = Date.now();
  host.onSynced(s, infos);
}

/** Keep the schema comparison, and log drift when it is new. */
function noteCompat<DB extends TableMap>(host: SessionHost<DB>, report: CompatReport): void {
  const before = host.compat;
  host.compat = report;
  if (
    report.identical ||
    (before !== undefined && stringifyJson(before) === stringifyJson(report))
  ) {
    return;
  }
  const missingColumns = Object.entries(report.missingColumns)
    .map(([t, cs]) => `${t}.{${cs.join(',')}}`)
    .join(' ');
  host.log(
    'warn',
    `schema drift: model ${report.modelVersion}, server ${report.serverVersion}; missing tables: ${report.missingTables.join(', ') || 'none'}; missing columns: ${missingColumns || 'none'}`,
    { compat: report },
  );
}

/** A change of the server's `_Server.Database` row: leave the server once it is no longer usable. */
function onServerUpdate<DB extends TableMap>(
  host: SessionHost<DB>,
  s: Session,
  updates: TableUpdates2,
): void {
  if (s !== host.session || s.endReason !== undefined) return;
  const rows = updates['Database'] ?? {};
  for (const change of Object.values(rows)) {
    if ('delete' in change && change.delete === null && change.modify === undefined)
      s.serverRow = undefined;
    else {
      const wire = change.initial ?? change.insert ?? change.modify;
      if (wire)
        s.serverRow = decodeServerDatabaseRow(wire, change.modify ? s.serverRow : undefined);
    }
  }
  const verdict = host.servers.judge(s.serverRow);
  if (verdict.ok) return;
  const leader =
    s.serverRow?.model === 'clustered' &&
    (verdict.code === 'not-leader' || verdict.code === 'disconnected');
  if (leader) {
    host.status.emit({ type: 'leader-changed', reason: verdict.reason, remote: s.remote });
  }
  s.end(verdict.reason, undefined, leader ? 'leader_changed' : 'server_unusable');
}

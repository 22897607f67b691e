/**
 * ovnkit's in-memory OVSDB server: the {@link Database} engine served over
 * JSON-RPC on unix, tcp, ssl and WebSocket listeners (and in-process
 * connections), with
 * everything a client can observe made to match ovsdb-server 3.1.
 *
 * ```ts
 * const server = await createServer({
 *   databases: [parseSchema(nbSchemaJson)],
 *   listen: ['punix:/tmp/nb.sock', 'ptcp:0:127.0.0.1'],
 * });
 * server.remotes; // ['unix:/tmp/nb.sock', 'tcp:127.0.0.1:41234']
 * const conn = await connect(server.remotes[1]);
 * // …
 * await server.close();
 * ```
 *
 * ## Methods
 * See `rpc/methods.ts`.
 *
 * The updates a transaction causes are sent to every monitoring session
 * before the reply to that transaction.
 *
 * ## Differences from ovsdb-server
 * - `monitor_cond_since` resumes from a bounded transaction history
 *   (`historyLength`, 100 by default) on every database, so a client that
 *   reconnects with its last transaction id gets `found: true` and only the
 *   changes it missed. A standalone ovsdb-server keeps no history: it always
 *   answers `found: false` with an all-zero id. The `update3` notifications
 *   here carry real transaction ids for the same reason.
 * - Where ovsdb-server 3.1 crashes (a `monitor` request with fewer than three
 *   params, a `monitor_cond_change` request without `where`, two
 *   `monitor_cond` monitors with the same columns when one `where` reads an
 *   unmonitored column), this server answers "invalid parameters", treats the
 *   missing `where` as empty, and keeps each monitor's state to itself.
 * - Databases can be added and removed at run time ({@link OvsdbServer.addDatabase},
 *   {@link OvsdbServer.removeDatabase}) as with `ovsdb-server/add-db` and
 *   `ovsdb-server/remove-db`, with the same effect on sessions.
 * - A commit is made only once its file record and its reply are made:
 *   when one cannot be, the transaction is refused with "resources
 *   exhausted" before anything changes. Records, replies and monitor
 *   updates longer than the longest string (about 512 MiB, as the 6 KB
 *   written to each of 100,000 rows makes) are made and written in pieces,
 *   as ovsdb-server writes them whole; a session that cannot be sent an
 *   update is disconnected with a log line (its client resumes), never left
 *   behind. An in-process connection carries each message as one string:
 *   one that needs a longer message is closed with an error.
 * - When a database file cannot be written (a full disk, an I/O error), the
 *   server stops at once, as if killed: no reply is sent for a transaction
 *   whose record is not in the file, so nothing acknowledged is lost.
 *   ovsdb-server instead fails that transaction and goes on.
 *
 * ## Database files
 * See `storage/files.ts`.
 * @module
 */

import type { ServerMetricsRecorder } from '../observability/metrics.js';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import { newUuid } from '../ovsdb/values/uuid.js';
import type { Transport } from '../ovsdb/wire/transport.js';
import type { Database } from './engine/database.js';
import type { TxnChanges } from './engine/executor.js';
import { OpError } from './engine/op-error.js';
import { createInProcessPair, type InProcessTransport } from './listeners/in-process-transport.js';
import { type ConnectionLimitStats, ConnectionLimits } from './listeners/limits.js';
import {
  type ListenAddress,
  Listeners,
  type RemoteOptions,
  type ServerTlsOptions,
} from './listeners/listen.js';
import { serverMetrics } from './metrics.js';
import { MonitorHub } from './monitor/monitor-hub.js';
import { asDatabase, DatabaseRegistry, type Served } from './registry.js';
import type { SessionChannel } from './rpc/channel.js';
import { LockTable } from './rpc/locks.js';
import type { MethodContext } from './rpc/methods.js';
import { ServerLog } from './rpc/server-log.js';
import type { Session } from './rpc/session.js';
import { ServerSessions } from './rpc/sessions.js';
import { Transactions } from './rpc/transact.js';
import type { CreateServerOptions, ServerView } from './server-options.js';
import type { DbStorage } from './storage/db-file.js';
import { DatabaseFiles } from './storage/files.js';
import { DbFileError } from './storage/log.js';
import { conversionError, convertDatabase, ovsReserialized } from './storage/records.js';

export type { ConnectionLimitStats } from './listeners/limits.js';
export type { ListenAddress, RemoteOptions, ServerTlsOptions } from './listeners/listen.js';
export type { ChannelHandlers, SessionChannel } from './rpc/channel.js';
export type { ServerRowChange } from './server-db.js';
export type { CreateServerOptions, ServerView } from './server-options.js';

/**
 * A running in-memory OVSDB server. Create one with {@link createServer}.
 */
export class OvsdbServer {
  /** The server's UUID (`get_server_id`); new for every server. */
  readonly serverId: string = newUuid();
  /** @internal The server's log (ovsdb-server's line format); see {@link OvsdbServer.readLog}. */
  readonly log: ServerLog;

  private readonly databases: DatabaseRegistry;
  private readonly sessions: ServerSessions;
  private readonly locks = new LockTable<Session>();
  private readonly monitors: MonitorHub;
  private readonly transactions: Transactions;
  private readonly methods: MethodContext;
  private readonly listeners: Listeners;
  private readonly files: DatabaseFiles;
  /** The files of the databases kept in one, by database name. */
  private readonly storages: Map<string, DbStorage>;
  private closing = false;
  private fatal: Error | undefined;
  private readonly metrics: ServerMetricsRecorder | undefined;
  /** The `_Server` database of each view. */
  private readonly views = new WeakMap<ServerView, Served>();
  private readonly commitWatchers: ((database: string) => void)[] = [];

  /** @internal Use {@link createServer}. */
  constructor(private readonly options: CreateServerOptions) {
    this.log = new ServerLog({ file: options.logFile, sink: options.onLog });
    this.databases = new DatabaseRegistry(options.historyLength ?? 100);
    this.files = new DatabaseFiles({
      storage: options.storage,
      historyLength: options.historyLength ?? 100,
      log: (module, level, text) => this.log.write(module, level, text),
      closing: () => this.closing,
      fail: (e) => this.fail(e),
    });
    this.storages = this.files.storages;
    this.monitors = new MonitorHub(this.databases);
    this.sessions = new ServerSessions({
      log: this.log,
      probeIntervalMs: options.probeIntervalMs ?? 5000,
      monitors: this.monitors,
      locks: this.locks,
      transactions: () => this.transactions,
      methods: () => this.methods,
      persist: () => this.persist(),
    });
    const metered = serverMetrics(options.metrics, {
      sessionCount: () => this.sessions.all.size,
      monitorCount: () => this.sessions.monitorCount(),
    });
    this.metrics = metered?.recorder;
    this.transactions = new Transactions({
      locks: this.locks,
      sessions: () => [...this.sessions.all],
      record: (served, changes, durable) => this.record(served, changes, durable),
      committed: (served, changes, fileId) => this.committed(served, changes, fileId),
      service: (s) => this.sessions.service(s),
      transacted: metered?.transacted,
    });
    this.methods = {
      serverId: this.serverId,
      databases: this.databases,
      transactions: this.transactions,
      monitors: this.monitors,
      locks: this.locks,
      convert: (served, schema, json) => this.convert(served, schema, json),
      serverViewOf: (s) => this.sessions.viewOf(s),
    };
    this.listeners = new Listeners({
      tls: options.tls,
      log: this.log,
      limits: new ConnectionLimits(options),
      allowOrigins: options.allowOrigins,
      closing: () => this.closing,
      startSession: (channel, start) => this.sessions.start(channel, start),
    });
    const databases = (options.databases ?? []).map(asDatabase);
    try {
      if (options.dbFile !== undefined) {
        const [only, ...more] = databases;
        if (only === undefined || more.length > 0) {
          throw new DbFileError(
            options.dbFile,
            `dbFile keeps one database, and ${databases.length} are given: give database files in dbFiles instead`,
          );
        }
        databases.shift();
        this.addStorage(this.files.open(options.dbFile, only.schema));
      }
      for (const file of options.dbFiles ?? []) this.addStorage(this.files.open(file, undefined));
      for (const db of databases) this.addServed(db);
    } catch (e) {
      for (const st of this.storages.values()) st.close();
      throw e;
    }
    this.databases.addServerDatabase();
  }

  /** Where clients connect, one per listener (`unix:…`, `tcp:host:port`, `ssl:host:port`). */
  get remotes(): string[] {
    return this.listeners.addresses.map((a) => a.client);
  }

  /** The listeners, with their bound ports. */
  get addresses(): ListenAddress[] {
    return this.listeners.addresses;
  }

  /** The database names, in the order `list_dbs` returns them. */
  get databaseNames(): string[] {
    return this.databases.names();
  }

  /** How many client sessions are connected. */
  get sessionCount(): number {
    return this.sessions.all.size;
  }

  /** The connection bounds' counters (input held, refusals, drops; see `listeners/limits.ts`). */
  connectionStats(): ConnectionLimitStats {
    return this.listeners.limits.stats();
  }

  /** The engine of database `name` (`_Server` included), for direct inspection. */
  database(name: string): Database | undefined {
    return this.databases.get(name)?.db;
  }

  /** The log so far, as text. */
  readLog(): string {
    return this.log.text();
  }

  /**
   * Listen on one more passive remote (`punix:`, `ptcp:`, `pssl:`, `ws:`, `wss:`).
   * @throws RemoteSyntaxError for an invalid remote; Error for `pssl:` or
   *   `wss:` without the tls option and for a WebSocket listener on a
   *   non-loopback address; the socket error when listening fails.
   */
  listen(remote: string, options?: RemoteOptions): Promise<ListenAddress> {
    return this.listeners.listen(remote, options);
  }

  /**
   * Use `tls` (key, certificate, CA, versions, ciphers) for `pssl:`
   * listeners from now on: those opened later, and the new connections of
   * those open.
   */
  setTls(tls: ServerTlsOptions | undefined): void {
    this.listeners.setTls(tls);
  }

  /** The sessions open on the listener of `remote` (undefined: no such listener). */
  sessionsOn(remote: string): number | undefined {
    return this.listeners.sessionsOf(remote);
  }

  /**
   * Call `watch` with a database's name after each commit to it (clients'
   * transactions and {@link OvsdbServer.transactInternal} alike), once the
   * commit is recorded.
   */
  onCommit(watch: (database: string) => void): void {
    this.commitWatchers.push(watch);
  }

  /**
   * Run `ops` on database `name` as the server itself (no session, no
   * RBAC), as ovsdb-server writes a `Connection` row's status: committed,
   * recorded, written to the file and sent to monitors like any other.
   * Returns the results, or undefined when there is no such database.
   */
  transactInternal(name: string, ops: readonly unknown[]): unknown[] | undefined {
    const served = this.databases.get(name);
    if (served === undefined || served.reserved || this.closing) return undefined;
    let fileId: string | undefined;
    const out = served.db.transact(ops, {
      canBlock: false,
      beforeCommit: (changes, durable) => {
        fileId = this.record(served, changes, durable);
      },
    });
    if (out.blocked === true) return undefined;
    if (out.changes !== null) {
      this.committed(served, out.changes, fileId);
      this.sessions.serviceAll();
    }
    return out.results;
  }

  /**
   * Drop every client connection, as `ovsdb-server/reconnect` does: clients
   * reconnect.
   */
  reconnectAll(reason: string): void {
    for (const s of [...this.sessions.all]) {
      this.log.write('ovsdb_jsonrpc_server', 'INFO', `${s.name}: disconnecting (${reason})`);
      s.close();
    }
  }

  /**
   * Stop listening on `remote` (as given to {@link OvsdbServer.listen}), as
   * `ovsdb-server/remove-remote` does; with `closeSessions`, the sessions
   * it accepted are dropped too (as when a remote is deconfigured).
   * Resolves false when no listener has it.
   */
  unlisten(remote: string, closeSessions = false): Promise<boolean> {
    return this.listeners.unlisten(remote, closeSessions);
  }

  /**
   * Open a connection that needs no socket: the returned client
   * {@link Transport} (kind `message`) talks to this server directly. It
   * can also `pause()` and `resume()` delivery, as a socket can.
   *
   * ```ts
   * const conn = new OvsdbConnection(server.connectInProcess());
   * await conn.listDbs();
   * ```
   */
  connectInProcess(): InProcessTransport {
    const { client, server } = createInProcessPair();
    this.sessions.start(server);
    return client;
  }

  /**
   * Serve a connection made by the caller: `channel` is its server end (an
   * in-process pair's, see `createInProcessPair`), which the caller may wrap
   * to watch or alter what passes (tests: recording, fault injection). With
   * `view` (from {@link OvsdbServer.serverView}), the session reads that
   * view's `_Server` database instead of the server's.
   */
  accept(channel: SessionChannel, view?: ServerView): void {
    this.sessions.start(channel, undefined, view === undefined ? undefined : this.views.get(view));
  }

  /**
   * A view of this server as one member of a cluster, for tests that
   * simulate a cluster without starting processes: sessions accepted with
   * it ({@link OvsdbServer.accept}) read a `_Server` database of their own,
   * whose row of each database starts as the server's (`standalone`,
   * leader) and changes with {@link ServerView.set}. Every other database
   * is this server's, so all members share one state and one transaction
   * history, as a cluster's members share one log. Databases added or
   * removed later do not show in the view.
   */
  serverView(): ServerView {
    const { served, rows } = this.databases.addView();
    const view: ServerView = {
      set: (name, change) => {
        const c = rows.set(name, change);
        if (c === undefined) return;
        this.committed(served, c);
        this.sessions.serviceAll();
      },
      close: () => this.databases.removeView(served),
    };
    this.views.set(view, served);
    return view;
  }

  /**
   * Forget the transaction history of database `name`, as a server that
   * restarted (or a cluster member that loaded a snapshot) has none: the
   * next `monitor_cond_since` from an earlier transaction answers
   * `found: false` with the whole contents. For tests of a client's resume.
   */
  forgetHistory(name: string): void {
    this.databases.get(name)?.history.seed([]);
  }

  /**
   * Serve one more database (as `ovsdb-server/add-db` does). Sessions that
   * are not db-change-aware are disconnected; `_Server` monitors see the new row.
   * @throws Error when a database of that name is already served.
   */
  addDatabase(database: DatabaseSchema | Database | object): Database {
    const db = asDatabase(database);
    if (this.databases.has(db.schema.name)) {
      throw new Error(`database ${db.schema.name} is already served`);
    }
    this.sessions.reconnectUnaware(`adding ${db.schema.name} database`);
    this.addServed(db);
    this.sessions.serviceAll();
    return db;
  }

  /**
   * Stop serving database `name` (as `ovsdb-server/remove-db` does): its
   * monitors are canceled (`monitor_canceled` to db-change-aware sessions),
   * its pending transactions canceled, sessions that are not
   * db-change-aware disconnected, and `_Server` monitors see the row go.
   * Returns the removed database (with its contents), or undefined.
   */
  removeDatabase(name: string): Database | undefined {
    const served = this.databases.get(name);
    if (served === undefined || served.reserved) return undefined;
    for (const m of [...served.monitors]) this.monitors.destroy(m, true);
    for (const t of [...served.triggers]) this.transactions.cancel(t, true);
    this.sessions.reconnectUnaware(`removing ${name} database by user request`);
    const storage = this.storages.get(name);
    if (storage !== undefined) {
      this.storages.delete(name);
      try {
        storage.close();
      } catch (e) {
        this.fail(e as Error);
      }
    }
    const change = this.databases.remove(name);
    if (change !== undefined) {
      this.committed(this.databases.get('_Server') as Served, change);
    }
    this.sessions.serviceAll();
    return served.db;
  }

  /**
   * Open the database file `path` and serve it (as `ovsdb-server/add-db`).
   * Sessions that are not db-change-aware are disconnected.
   * @throws DbFileError when the file cannot be opened or does not replay;
   *   Error when a database of that name is already served.
   */
  openDatabase(path: string): Database {
    const storage = this.files.open(path, undefined);
    if (this.databases.has(storage.db.schema.name)) {
      storage.close();
      throw new Error(`${storage.db.schema.name}: duplicate database name`);
    }
    this.sessions.reconnectUnaware(`adding ${storage.db.schema.name} database`);
    this.addStorage(storage);
    this.sessions.serviceAll();
    return storage.db;
  }

  /** The database file of database `name`, when it is kept in one. */
  databaseFile(name: string): string | undefined {
    return this.storages.get(name)?.path;
  }

  /**
   * Write the records of every commit so far to the database files (at once;
   * the server does so before it sends anything). When a file cannot be
   * written the server stops (see the module documentation).
   */
  persist(): void {
    this.files.persist();
  }

  /**
   * Compact the file of database `name` (every file when omitted), as
   * `ovs-appctl ovsdb-server/compact` does: it is rewritten as its schema and
   * its rows, replacing the old file atomically.
   * @throws Error when `name` is not kept in a file; DbFileError when the
   *   new file cannot be written (the old one is kept).
   */
  compact(name?: string): void {
    const targets =
      name === undefined ? [...this.storages.values()] : [this.storages.get(name)].filter((s) => s);
    if (name !== undefined && targets.length === 0) {
      throw new Error(
        name.startsWith('_')
          ? 'cannot compact built-in databases'
          : this.databases.has(name)
            ? `${name} is not kept in a file`
            : 'no database by that name',
      );
    }
    this.persist();
    if (this.fatal !== undefined) throw this.fatal;
    for (const st of targets as DbStorage[]) {
      this.log.write(
        'ovsdb_server',
        'INFO',
        `compacting ${st.db.schema.name} database by user request`,
      );
      st.compact();
    }
  }

  /**
   * Figures that track memory use, as `ovs-appctl memory/show` reports
   * them: `atoms`, `cells` (rows × columns), `monitors`, `n-weak-refs`
   * (weak references held) and `sessions`.
   */
  memoryUsage(): Record<string, number> {
    const { atoms, cells, weakRefs } = this.databases.contentCounts();
    return {
      atoms,
      cells,
      monitors: this.sessions.monitorCount(),
      'n-weak-refs': weakRefs,
      sessions: this.sessions.all.size,
    };
  }

  /** The error that stopped the server, if a database file could not be written. */
  get failure(): Error | undefined {
    return this.fatal;
  }

  /** Stop listening, close every session, and write and close the database files. */
  async close(): Promise<void> {
    await this.shutdown(false);
  }

  /**
   * Stop at once, as a killed server does: every connection is dropped
   * (reset) and nothing more is sent. Records not yet written (no reply has
   * shown their commits) are dropped, unless `save` is true.
   */
  async abort(save = false): Promise<void> {
    await this.shutdown(true, save);
  }

  // ---- internals ----------------------------------------------------------

  private addStorage(storage: DbStorage): void {
    const name = storage.db.schema.name;
    if (this.databases.has(name) || this.storages.has(name)) {
      storage.close();
      throw new Error(`${storage.path}: database ${name} is already served`);
    }
    this.storages.set(name, storage);
    this.addServed(storage.db);
    // The history the file's last records rebuild, with the ids they had.
    this.databases.get(name)?.history.seed(storage.replayed);
    storage.replayed = [];
  }

  /**
   * A database file could not be written: stop as a killed server would, so
   * that nothing unwritten is acknowledged.
   */
  private fail(e: Error): void {
    if (this.fatal !== undefined) return;
    this.fatal = e;
    this.log.write(
      'ovsdb_server',
      'ERR',
      `${e.message}; stopping: connections are dropped without a reply to the transactions not written`,
    );
    void this.shutdown(true, false).then(() => this.options.onFatal?.(e));
  }

  /**
   * `convert`, as ovsdb-server converts a standalone database: the data is
   * converted (`ovsdb-tool convert`'s rules), the file rewritten as the new
   * schema and data, the monitors and pending transactions of the database
   * canceled (`monitor_canceled` to db-change-aware sessions), and sessions
   * that are not db-change-aware disconnected once the reply is sent.
   * `_Server`'s row keeps the schema it had, as in ovsdb-server 3.1.
   */
  private convert(served: Served, schema: DatabaseSchema, json: unknown): OpError | undefined {
    let db: Database;
    try {
      db = convertDatabase(served.db, schema);
    } catch (e) {
      return conversionError(e as Error);
    }
    const storage = this.storages.get(served.name);
    if (storage !== undefined) {
      // The file becomes the new schema and one record of the converted
      // rows, as ovsdb-server writes a standalone database's schema change:
      // the schema record is the request's schema as it re-serializes it.
      const old = storage.db;
      try {
        storage.flush();
        storage.db = db;
        storage.compact('converted by ovsdb-server', ovsReserialized(json));
      } catch (e) {
        storage.db = old;
        return new OpError('I/O error', (e as Error).message);
      }
    }
    for (const m of [...served.monitors]) this.monitors.destroy(m, true);
    for (const t of [...served.triggers]) this.transactions.cancel(t, true);
    this.databases.replace(db);
    this.sessions.serviceAll();
    setImmediate(() => {
      if (!this.closing) {
        this.sessions.reconnectUnaware(`committed ${served.name} database schema conversion`);
      }
    });
    return undefined;
  }

  private addServed(db: Database): void {
    const change = this.databases.add(db);
    const serverServed = this.databases.get('_Server');
    if (serverServed !== undefined) this.committed(serverServed, change);
  }

  /** Before a commit to `served` changes anything: queue its record (see `storage/files.ts`). */
  private record(served: Served, changes: TxnChanges, durable: boolean): string | undefined {
    return this.files.record(served, changes, durable);
  }

  /**
   * After a commit: record it in the history and queue it for every monitor
   * of the database. The updates go out when the monitor's session is next
   * flushed (see `rpc/sessions.ts`). `fileId`: the transaction id
   * its record gave it ({@link OvsdbServer.record}), if any.
   */
  private committed(served: Served, changes: TxnChanges, fileId?: string): void {
    const id = served.history.add(changes, fileId);
    this.monitors.queue(served, id, changes);
    for (const watch of this.commitWatchers) watch(served.name);
  }

  private async shutdown(abrupt: boolean, save = !abrupt): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.metrics?.close();
    const closing = this.listeners.close();
    for (const s of [...this.sessions.all]) {
      if (abrupt) s.abort();
      else s.close();
    }
    for (const served of this.databases.all()) {
      for (const t of served.triggers) if (t.timer !== undefined) clearTimeout(t.timer);
    }
    this.files.close(save);
    await closing;
  }
}

/**
 * Start an in-memory OVSDB server serving `options.databases` on
 * `options.listen`. Resolves once every listener accepts connections.
 *
 * @example
 * ```ts
 * import { connect } from 'ovnkit';
 * import { NB } from 'ovnkit/nb';
 * import { createServer } from 'ovnkit/server';
 *
 * const server = await createServer({ databases: [NB.schema], listen: ['ptcp:0:127.0.0.1'] });
 * const conn = await connect(server.remotes[0]!);
 * console.log(await conn.listDbs()); // [ 'OVN_Northbound', '_Server' ]
 * conn.close();
 * await server.close();
 * ```
 * @throws SchemaError for an invalid schema; DbFileError for a database file
 *   that cannot be opened, is corrupt or does not replay, or an ovnkit JSON
 *   snapshot that does not (SnapshotError for a file that starts as JSON
 *   but is no such snapshot);
 *   RemoteSyntaxError or the socket error when a listener cannot be opened.
 */
export async function createServer(options: CreateServerOptions): Promise<OvsdbServer> {
  const server = new OvsdbServer(options);
  try {
    for (const remote of options.listen ?? []) await server.listen(remote);
  } catch (e) {
    await server.close();
    throw e;
  }
  return server;
}

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
 * `list_dbs`, `get_schema`, `get_server_id`, `echo`, `transact` (atomic; a
 * `wait` that is not yet satisfied keeps the request pending, re-run after
 * every later commit to the database and failed with "timed out" when its
 * `timeout` passes), `cancel` (a notification: the pending request is dropped,
 * and answered with the error "canceled" only when the session is
 * db-change-aware), `monitor` / `monitor_cond` / `monitor_cond_since` (see
 * `monitor.ts`), `monitor_cond_change`, `monitor_cancel`, `lock` / `steal` /
 * `unlock` (see `locks.ts`; `assert` checks lock ownership) and
 * `set_db_change_aware`. A `_Server` database describes the databases
 * (model `standalone`, `leader` true).
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
 * - `convert` (online schema conversion) is not supported.
 * - Databases can be added and removed at run time ({@link OvsdbServer.addDatabase},
 *   {@link OvsdbServer.removeDatabase}) as with `ovsdb-server/add-db` and
 *   `ovsdb-server/remove-db`, with the same effect on sessions.
 * @module
 */

import { existsSync, lstatSync, unlinkSync } from 'node:fs';
import * as net from 'node:net';
import { performance } from 'node:perf_hooks';
import * as tls from 'node:tls';
import { parseSchema } from '../ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import {
  formatRemote,
  isWebSocketRemote,
  type PassiveRemote,
  parsePassiveRemote,
} from '../ovsdb/transport/remote.js';
import type { Transport } from '../ovsdb/transport/transport.js';
import { isUuid, newUuid, ZERO_UUID } from '../ovsdb/values/uuid.js';
import { Database } from './engine/database.js';
import type { TxnChanges } from './engine/executor.js';
import { OpError, syntaxError } from './engine/op-error.js';
import { shashOrder } from './engine/ovs-hash.js';
import { schemaToJson } from './engine/schema-json.js';
import { isId } from './engine/values.js';
import { createInProcessPair, type InProcessTransport } from './listeners/in-process-transport.js';
import { listenWebSocket } from './listeners/ws-listener.js';
import { type HistoryEntry, TxnHistory } from './monitor/history.js';
import { Monitor, type MonitorUpdates, type MonitorVersion } from './monitor/monitor.js';
import { readSnapshot, restoreRows, writeSnapshot } from './persistence.js';
import { type SessionChannel, SocketChannel } from './rpc/channel.js';
import { LockTable } from './rpc/locks.js';
import { ServerLog } from './rpc/server-log.js';
import { jsonKey, type PendingTransaction, Session, type SessionHost } from './rpc/session.js';
import { ServerDatabase } from './server-db.js';

/**
 * TLS material for `pssl:` and `wss:` listeners (PEM contents). `pssl:` clients
 * must present a certificate signed by `ca`; `wss:` uses only `key` and `cert`.
 */
export interface ServerTlsOptions {
  /** The server's private key. */
  readonly key: string | Buffer;
  /** The server's certificate. */
  readonly cert: string | Buffer;
  /** The CA certificate(s) client certificates must chain to. */
  readonly ca: string | Buffer | readonly (string | Buffer)[];
}

/** Options of {@link createServer}. */
export interface CreateServerOptions {
  /** The databases to serve: parsed schemas, `.ovsschema` JSON objects, or engine {@link Database}s (served with their contents). */
  readonly databases: readonly (DatabaseSchema | Database | object)[];
  /**
   * Passive remotes to listen on: `punix:<path>`, `ptcp:<port>[:<ip>]`,
   * `pssl:<port>[:<ip>]`, and WebSocket endpoints `ws:<ip>:<port>[/<path>]`
   * or `ws://<ip>:<port>[/<path>]` (`wss:` with {@link CreateServerOptions.tls};
   * loopback addresses only) — port 0 picks a free port. More can be added
   * later with {@link OvsdbServer.listen}. Default: none (in-process only).
   */
  readonly listen?: readonly string[] | undefined;
  /**
   * Inactivity probe interval for tcp and ssl sessions, in ms (ovsdb-server's
   * default is 5000); 0 disables it. Unix and in-process sessions are never probed.
   */
  readonly probeIntervalMs?: number | undefined;
  /** Persist the databases to this JSON snapshot file (loaded at start when it exists). */
  readonly dbFile?: string | undefined;
  /** How long to gather commits before writing the snapshot, in ms (default 100). A durable commit writes at once. */
  readonly saveDelayMs?: number | undefined;
  /** How many transactions each database keeps for `monitor_cond_since` (default 100; 0 disables resuming). */
  readonly historyLength?: number | undefined;
  /** Certificates for `pssl:` and `wss:` listeners. */
  readonly tls?: ServerTlsOptions | undefined;
  /** Also append log lines to this file. */
  readonly logFile?: string | undefined;
  /** Also pass log lines to this function. */
  readonly onLog?: ((line: string) => void) | undefined;
}

/** One listener of a server. */
export interface ListenAddress {
  /** The passive remote as given, e.g. `ptcp:0:127.0.0.1`. */
  readonly remote: string;
  /** `punix`, `ptcp`, `pssl`, `ws` or `wss`. */
  readonly kind: PassiveRemote['kind'] | 'ws' | 'wss';
  /**
   * Where a client connects, e.g. `tcp:127.0.0.1:41234` (the bound port),
   * `unix:/tmp/db.sock` or `ws://127.0.0.1:41234/` (a URL `connect` dials).
   */
  readonly client: string;
  /** The bound port (tcp, ssl, ws and wss). */
  readonly port?: number | undefined;
  /** The bound address (tcp and ssl when the remote names one; ws and wss always). */
  readonly host?: string | undefined;
  /** The socket file (unix). */
  readonly path?: string | undefined;
}

interface Served {
  readonly name: string;
  readonly db: Database;
  readonly history: TxnHistory;
  readonly reserved: boolean;
  readonly schemaJson: Record<string, unknown>;
  /** Pending transactions, in arrival order. */
  readonly triggers: Trigger[];
  readonly monitors: Set<Monitor>;
}

interface Trigger extends PendingTransaction {
  readonly session: Session;
  readonly served: Served;
  readonly idKey: string;
  readonly ops: readonly unknown[];
  readonly created: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

interface Listener {
  readonly address: ListenAddress;
  /** Stop listening (WebSocket listeners also close their clients). */
  close(): Promise<void>;
}

const NOTIFY_METHOD: Record<MonitorVersion, string> = {
  1: 'update',
  2: 'update2',
  3: 'update3',
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asDatabase(d: DatabaseSchema | Database | object): Database {
  if (d instanceof Database) return d;
  const maybe = d as Partial<DatabaseSchema>;
  const schema =
    typeof maybe.name === 'string' && maybe.tables !== undefined && 'json' in maybe
      ? (d as DatabaseSchema)
      : parseSchema(d);
  return new Database(schema);
}

function clientRemote(r: PassiveRemote, port: number | undefined): string {
  switch (r.kind) {
    case 'punix':
      return `unix:${r.path}`;
    case 'ptcp':
    case 'pssl': {
      const host =
        r.host === undefined || r.host === '0.0.0.0'
          ? '127.0.0.1'
          : r.host === '::'
            ? '::1'
            : r.host;
      return formatRemote({ kind: r.kind === 'ptcp' ? 'tcp' : 'ssl', host, port: port ?? r.port });
    }
  }
}

/**
 * A running in-memory OVSDB server. Create one with {@link createServer}.
 */
export class OvsdbServer implements SessionHost {
  /** The server's UUID (`get_server_id`); new for every server. */
  readonly serverId: string = newUuid();
  /** The server's log (ovsdb-server's line format). */
  readonly log: ServerLog;

  private readonly served = new Map<string, Served>();
  private readonly serverDb = new ServerDatabase();
  private readonly sessions = new Set<Session>();
  private readonly locks = new LockTable<Session>();
  private readonly monitorOwner = new Map<Monitor, Session>();
  /** Committed changes each monitor has not sent yet. */
  private readonly pendingUpdates = new Map<Monitor, HistoryEntry[]>();
  private readonly listeners: Listener[] = [];
  private readonly probeIntervalMs: number;
  private readonly historyLength: number;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private unixCount = 0;
  private closing = false;

  /** @internal Use {@link createServer}. */
  constructor(private readonly options: CreateServerOptions) {
    this.log = new ServerLog({ file: options.logFile, sink: options.onLog });
    this.probeIntervalMs = options.probeIntervalMs ?? 5000;
    this.historyLength = options.historyLength ?? 100;
    const databases = options.databases.map(asDatabase);
    const snapshot = options.dbFile === undefined ? undefined : readSnapshot(options.dbFile);
    for (const db of databases) {
      const saved = snapshot?.databases[db.schema.name];
      if (saved !== undefined) restoreRows(db, saved.rows, options.dbFile as string);
      this.addServed(db);
    }
    this.served.set('_Server', this.makeServed(this.serverDb.db, true));
  }

  /** Where clients connect, one per listener (`unix:…`, `tcp:host:port`, `ssl:host:port`). */
  get remotes(): string[] {
    return this.listeners.map((l) => l.address.client);
  }

  /** The listeners, with their bound ports. */
  get addresses(): ListenAddress[] {
    return this.listeners.map((l) => l.address);
  }

  /** The database names, in the order `list_dbs` returns them. */
  get databaseNames(): string[] {
    return shashOrder([...this.served.keys()]);
  }

  /** How many client sessions are connected. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** The engine of database `name` (`_Server` included), for direct inspection. */
  database(name: string): Database | undefined {
    return this.served.get(name)?.db;
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
  async listen(remote: string): Promise<ListenAddress> {
    if (isWebSocketRemote(remote)) return this.listenWebSocket(remote);
    const r = parsePassiveRemote(remote);
    let server: net.Server;
    const kind = r.kind;
    if (kind === 'pssl') {
      const t = this.options.tls;
      if (t === undefined) throw new Error(`${remote}: a pssl: listener needs the tls option`);
      const tlsServer = tls.createServer({
        key: t.key,
        cert: t.cert,
        ca: t.ca as string | Buffer | (string | Buffer)[],
        requestCert: true,
        rejectUnauthorized: true,
      });
      tlsServer.on('secureConnection', (socket) => this.accept(socket, 'ssl'));
      tlsServer.on('tlsClientError', (err, socket) => {
        // A client certificate that does not chain to the CA fails after the
        // handshake: Node then closes the connection (no TLS alert) and says
        // why in `authorizationError`.
        const why = socket.authorizationError;
        const text =
          why !== undefined && why !== null
            ? `certificate verify failed (${String(why)})`
            : err.message;
        const peer =
          socket.remoteAddress === undefined
            ? ''
            : `ssl:${socket.remoteAddress}:${socket.remotePort}: `;
        this.log.write('stream_ssl', 'WARN', `${peer}SSL_accept: ${text}`);
      });
      server = tlsServer;
    } else {
      server = net.createServer((socket) => this.accept(socket, kind === 'punix' ? 'unix' : 'tcp'));
    }
    if (r.kind === 'punix') {
      try {
        if (existsSync(r.path) && lstatSync(r.path).isSocket()) unlinkSync(r.path);
      } catch {
        // listen reports the problem
      }
    }
    await new Promise<void>((resolve, reject) => {
      const onError = (e: Error) => reject(e);
      server.once('error', onError);
      const done = () => {
        server.off('error', onError);
        resolve();
      };
      if (r.kind === 'punix') server.listen(r.path, done);
      else server.listen({ port: r.port, host: r.host ?? '0.0.0.0' }, done);
    });
    server.on('error', (e) => this.log.write('reconnect', 'ERR', `${remote}: ${e.message}`));
    const bound = server.address();
    const port = typeof bound === 'object' && bound !== null ? bound.port : undefined;
    const address: ListenAddress =
      r.kind === 'punix'
        ? { remote, kind: r.kind, client: clientRemote(r, undefined), path: r.path }
        : { remote, kind: r.kind, client: clientRemote(r, port), port, host: r.host };
    this.listeners.push({
      address,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    });
    this.log.write(
      'socket_util',
      'INFO',
      port === undefined ? `${remote}: listening` : `${remote}: listening on port ${port}`,
    );
    return address;
  }

  /** A WebSocket listener: one session per client, one JSON-RPC message per text frame. */
  private async listenWebSocket(remote: string): Promise<ListenAddress> {
    const t = this.options.tls;
    const ws = await listenWebSocket(
      remote,
      (channel) => {
        if (this.closing) channel.abort();
        else this.startSession(channel);
      },
      { tls: t === undefined ? undefined : { key: t.key, cert: t.cert } },
    );
    const url = new URL(ws.url);
    const address: ListenAddress = {
      remote,
      kind: url.protocol === 'wss:' ? 'wss' : 'ws',
      client: ws.url,
      port: ws.port,
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    };
    this.listeners.push({ address, close: () => ws.close() });
    this.log.write('socket_util', 'INFO', `${remote}: listening on port ${ws.port}`);
    return address;
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
    this.startSession(server);
    return client;
  }

  /**
   * Serve one more database (as `ovsdb-server/add-db` does). Sessions that
   * are not db-change-aware are disconnected; `_Server` monitors see the new row.
   * @throws Error when a database of that name is already served.
   */
  addDatabase(database: DatabaseSchema | Database | object): Database {
    const db = asDatabase(database);
    if (this.served.has(db.schema.name)) {
      throw new Error(`database ${db.schema.name} is already served`);
    }
    this.reconnectUnaware(`adding ${db.schema.name} database`);
    this.addServed(db);
    this.flushAll();
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
    const served = this.served.get(name);
    if (served === undefined || served.reserved) return undefined;
    for (const m of [...served.monitors]) this.destroyMonitor(m, true);
    for (const t of [...served.triggers]) this.cancelTrigger(t, true);
    this.reconnectUnaware(`removing ${name} database by user request`);
    this.served.delete(name);
    const change = this.serverDb.remove(name);
    if (change !== undefined) this.committed(this.served.get('_Server') as Served, change, false);
    this.flushAll();
    return served.db;
  }

  /** Write the snapshot now (when `dbFile` is set). */
  save(): void {
    if (this.saveTimer !== undefined) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const file = this.options.dbFile;
    if (file === undefined) return;
    try {
      writeSnapshot(
        file,
        [...this.served.values()].filter((s) => !s.reserved).map((s) => s.db),
      );
    } catch (e) {
      this.log.write(
        'ovsdb_server',
        'ERR',
        `${file}: cannot save snapshot: ${(e as Error).message}`,
      );
    }
  }

  /** Stop listening, close every session and write the snapshot. */
  async close(): Promise<void> {
    await this.shutdown(false);
  }

  /**
   * Stop at once, as a killed server does: every connection is dropped
   * (reset), nothing more is sent, and the snapshot is written only if
   * `save` is true.
   */
  async abort(save = false): Promise<void> {
    await this.shutdown(true, save);
  }

  // ---- SessionHost --------------------------------------------------------

  /** @internal */
  request(s: Session, method: string, params: unknown[], id: unknown): void {
    switch (method) {
      case 'transact': {
        const served = this.lookupDb(s, method, params, id);
        if (served !== undefined) this.transact(s, served, params, id);
        return;
      }
      case 'monitor':
      case 'monitor_cond':
      case 'monitor_cond_since': {
        const served = this.lookupDb(s, method, params, id);
        if (served === undefined) return;
        const version: MonitorVersion =
          method === 'monitor' ? 1 : method === 'monitor_cond' ? 2 : 3;
        this.createMonitor(s, served, version, params, id);
        return;
      }
      case 'monitor_cond_change':
        this.monitorCondChange(s, params, id);
        return;
      case 'monitor_cancel':
        this.monitorCancel(s, params, id);
        return;
      case 'get_schema': {
        const served = this.lookupDb(s, method, params, id);
        if (served !== undefined) s.reply(id, served.schemaJson);
        return;
      }
      case 'list_dbs':
        s.reply(id, this.databaseNames);
        return;
      case 'get_server_id':
        s.reply(id, this.serverId);
        return;
      case 'lock':
      case 'steal':
        this.lock(s, method, params, id);
        return;
      case 'unlock':
        this.unlock(s, params, id);
        return;
      case 'set_db_change_aware':
        if (params.length !== 1 || typeof params[0] !== 'boolean') {
          s.replyError(
            id,
            syntaxError(params, undefined, `${method}: true or false parameter expected`).toJson(),
          );
          return;
        }
        s.dbChangeAware = params[0];
        s.reply(id, {});
        return;
      case 'convert': {
        const served = this.lookupDb(s, method, params, id);
        if (served === undefined) return;
        s.replyError(
          id,
          new OpError(
            'not supported',
            'database conversion is not supported by the in-memory server',
          ).toJson(),
        );
        return;
      }
      default:
        s.replyError(id, 'unknown method');
    }
  }

  /** @internal */
  notification(s: Session, method: string, params: unknown[]): void {
    if (method !== 'cancel' || params.length !== 1) return;
    const t = s.pending.get(jsonKey(params[0])) as Trigger | undefined;
    if (t !== undefined) this.cancelTrigger(t, true);
  }

  /** @internal */
  closed(s: Session): void {
    this.sessions.delete(s);
    for (const m of s.monitors()) this.destroyMonitor(m, false);
    for (const name of this.locks.namesOf(s)) {
      const owner = this.locks.release(s, name);
      owner?.notify('locked', [name]);
    }
    for (const t of [...s.pending.values()]) this.cancelTrigger(t as Trigger, false);
  }

  private flushAll(): void {
    for (const s of [...this.sessions]) this.service(s);
  }

  // ---- sessions -----------------------------------------------------------

  private accept(socket: net.Socket, kind: 'unix' | 'tcp' | 'ssl'): void {
    if (this.closing) {
      socket.destroy();
      return;
    }
    let name: string;
    if (kind === 'unix') {
      this.unixCount++;
      name = `unix#${this.unixCount}`;
    } else {
      const host = socket.remoteAddress ?? '?';
      name = `${kind}:${host.includes(':') ? `[${host}]` : host}:${socket.remotePort}`;
      socket.setNoDelay(true);
    }
    this.startSession(new SocketChannel(socket, name, kind !== 'unix'));
  }

  private startSession(channel: SessionChannel): void {
    const s = new Session(channel, this, this.probeIntervalMs);
    if (!s.closed) this.sessions.add(s);
  }

  private reconnectUnaware(reason: string): void {
    for (const s of [...this.sessions]) {
      if (s.dbChangeAware) continue;
      this.log.write('ovsdb_jsonrpc_server', 'INFO', `${s.name}: disconnecting (${reason})`);
      s.close();
    }
  }

  private async shutdown(abrupt: boolean, save = !abrupt): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const closing = this.listeners.map((l) => l.close());
    for (const s of [...this.sessions]) {
      if (abrupt) s.abort();
      else s.close();
    }
    for (const served of this.served.values()) {
      for (const t of served.triggers) if (t.timer !== undefined) clearTimeout(t.timer);
    }
    if (save) this.save();
    else if (this.saveTimer !== undefined) clearTimeout(this.saveTimer);
    await Promise.all(closing);
    for (const l of this.listeners) {
      if (l.address.path !== undefined) {
        try {
          if (existsSync(l.address.path) && lstatSync(l.address.path).isSocket()) {
            unlinkSync(l.address.path);
          }
        } catch {
          // already gone
        }
      }
    }
  }

  // ---- databases ----------------------------------------------------------

  private makeServed(db: Database, reserved: boolean): Served {
    return {
      name: db.schema.name,
      db,
      history: new TxnHistory(reserved ? 0 : this.historyLength),
      reserved,
      schemaJson: schemaToJson(db.schema),
      triggers: [],
      monitors: new Set(),
    };
  }

  private addServed(db: Database): void {
    if (db.schema.name === '_Server' || this.served.has(db.schema.name)) {
      throw new Error(`database ${db.schema.name} is already served`);
    }
    this.served.set(db.schema.name, this.makeServed(db, false));
    const change = this.serverDb.add(db.schema);
    const serverServed = this.served.get('_Server');
    if (serverServed !== undefined) this.committed(serverServed, change, false);
  }

  private lookupDb(s: Session, method: string, params: unknown[], id: unknown): Served | undefined {
    const name = params[0];
    if (typeof name !== 'string') {
      s.replyError(
        id,
        syntaxError(
          params,
          undefined,
          `${method} request params must begin with <db-name>`,
        ).toJson(),
      );
      return undefined;
    }
    const served = this.served.get(name);
    if (served === undefined) {
      s.replyError(
        id,
        syntaxError(
          params,
          'unknown database',
          `${method} request specifies unknown database ${name}`,
        ).toJson(),
      );
    }
    return served;
  }

  /**
   * After a commit: record it in the history and queue it for every monitor
   * of the database. The updates go out when the monitor's session is next
   * flushed (see {@link OvsdbServer.flush}).
   */
  private committed(served: Served, changes: TxnChanges, durable: boolean): void {
    const id = served.history.add(changes);
    for (const m of served.monitors) {
      const pending = this.pendingUpdates.get(m);
      if (pending === undefined) this.pendingUpdates.set(m, [{ id, changes }]);
      else pending.push({ id, changes });
    }
    if (this.options.dbFile !== undefined && !served.reserved) {
      if (durable) this.save();
      else if (this.saveTimer === undefined && !this.closing) {
        this.saveTimer = setTimeout(() => this.save(), this.options.saveDelayMs ?? 100);
        this.saveTimer.unref?.();
      }
    }
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
   * @internal
   */
  flush(s: Session): void {
    if (this.pendingUpdates.size === 0) return;
    for (const m of s.monitors()) {
      const pending = this.pendingUpdates.get(m);
      if (pending === undefined) continue;
      this.pendingUpdates.delete(m);
      const updates =
        pending.length === 1 ? m.update((pending[0] as HistoryEntry).changes) : m.since(pending);
      if (updates === undefined) continue;
      const served = this.servedOf(m);
      const txnId = served?.history.lastId ?? ZERO_UUID;
      s.notifyUpdate(
        NOTIFY_METHOD[m.version],
        m.version === 3 ? [m.id, txnId, updates] : [m.id, updates],
      );
    }
  }

  /**
   * Service session `s` in the main loop: flush its monitors unless it has a
   * backlog. As in ovsdb-server, a session whose client reads too slowly is
   * left alone: its monitors' changes merge, and go out as one update per
   * monitor when it drains (or before anything else is sent to it).
   */
  private service(s: Session): void {
    if (!s.backlogged) this.flush(s);
  }

  // ---- transact -----------------------------------------------------------

  private transact(s: Session, served: Served, params: unknown[], id: unknown): void {
    const idKey = jsonKey(id);
    if (s.pending.has(idKey)) {
      s.replyError(id, syntaxError(params, undefined, 'transact: duplicate request ID').toJson());
      return;
    }
    const t: Trigger = {
      session: s,
      served,
      id,
      idKey,
      ops: params.slice(1),
      created: performance.now(),
      timer: undefined,
    };
    const r = this.execute(t, undefined);
    if (r === undefined) return;
    s.reply(id, r.results);
    if (r.committed) this.afterCommit(s, served);
  }

  /**
   * Run a transaction. Returns its result array and whether it committed
   * changes, or undefined when it must wait (it is then pending, with a
   * timer for its timeout).
   */
  private execute(
    t: Trigger,
    elapsedOverride: number | undefined,
  ): { results: unknown[]; committed: boolean } | undefined {
    const elapsed = elapsedOverride ?? Math.floor(performance.now() - t.created);
    const out = t.served.db.transact(t.ops, {
      ownsLock: (name) => this.locks.owns(t.session, name),
      elapsedMs: elapsed,
    });
    if (out.blocked === true) {
      if (!t.session.pending.has(t.idKey)) {
        t.session.pending.set(t.idKey, t);
        t.served.triggers.push(t);
      }
      if (t.timer !== undefined) clearTimeout(t.timer);
      t.timer = undefined;
      if (Number.isFinite(out.timeoutMs)) {
        const due = t.created + out.timeoutMs;
        const delay = Math.max(1, Math.ceil(due - performance.now()));
        t.timer = setTimeout(() => this.onTriggerTimeout(t, out.timeoutMs), delay);
      }
      return undefined;
    }
    this.forgetTrigger(t);
    if (out.changes !== null) this.committed(t.served, out.changes, out.durable);
    return { results: out.results, committed: out.changes !== null };
  }

  private onTriggerTimeout(t: Trigger, timeoutMs: number): void {
    t.timer = undefined;
    if (t.session.pending.get(t.idKey) !== t) return;
    const elapsed = Math.max(timeoutMs, Math.floor(performance.now() - t.created));
    this.runTriggers(t.served, [t], elapsed);
  }

  /**
   * After session `s` committed a transaction, finish the round as
   * ovsdb-server does: the sessions after `s` are serviced (flushed), the
   * waiting transactions run, then every session is serviced again.
   */
  private afterCommit(s: Session, served: Served): void {
    let after = false;
    for (const other of [...this.sessions]) {
      if (after) this.service(other);
      else if (other === s) after = true;
    }
    this.runTriggers(served, undefined, undefined);
  }

  /**
   * Re-run waiting transactions of `served` (all, or `only` in the first
   * pass), as ovsdb-server's trigger pass does; after each pass every
   * session is serviced in connection order: the replies of the
   * transactions that completed, then its pending updates. While a pass
   * commits something, another pass follows.
   */
  private runTriggers(
    served: Served,
    only: Trigger[] | undefined,
    elapsed: number | undefined,
  ): void {
    let candidates = only ?? [...served.triggers];
    let first = true;
    for (;;) {
      const done: { t: Trigger; results: unknown[] }[] = [];
      let committed = false;
      for (const t of candidates) {
        if (t.session.pending.get(t.idKey) !== t) continue;
        const r = this.execute(t, first && only !== undefined ? elapsed : undefined);
        if (r === undefined) continue;
        done.push({ t, results: r.results });
        if (r.committed) committed = true;
      }
      first = false;
      for (const s of [...this.sessions]) {
        for (const d of done) if (d.t.session === s) s.reply(d.t.id, d.results);
        this.service(s);
      }
      if (!committed) return;
      candidates = [...served.triggers];
    }
  }

  private forgetTrigger(t: Trigger): void {
    if (t.timer !== undefined) clearTimeout(t.timer);
    t.timer = undefined;
    if (t.session.pending.get(t.idKey) === t) t.session.pending.delete(t.idKey);
    const i = t.served.triggers.indexOf(t);
    if (i >= 0) t.served.triggers.splice(i, 1);
  }

  /** Drop a pending transaction; a db-change-aware session gets the error "canceled". */
  private cancelTrigger(t: Trigger, answer: boolean): void {
    this.forgetTrigger(t);
    if (answer && t.session.dbChangeAware && !t.session.closed) {
      t.session.replyError(t.id, 'canceled');
    }
  }

  // ---- monitors -----------------------------------------------------------

  private createMonitor(
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
    const updates: MonitorUpdates = (since !== undefined ? m.since(since) : m.initial()) ?? {};
    if (version === 3) s.reply(id, [since !== undefined, served.history.lastId, updates]);
    else s.reply(id, updates);
  }

  private monitorCondChange(s: Session, params: unknown[], id: unknown): void {
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
    if (updates !== undefined) {
      const served = this.servedOf(m);
      const lastId = served?.history.lastId ?? ZERO_UUID;
      s.notify(
        NOTIFY_METHOD[m.version],
        m.version === 3 ? [m.id, lastId, updates] : [m.id, updates],
      );
    }
    s.reply(id, {});
  }

  private monitorCancel(s: Session, params: unknown[], id: unknown): void {
    if (params.length !== 1) {
      s.replyError(id, 'invalid parameters');
      return;
    }
    const m = s.monitor(params[0]);
    if (m === undefined) {
      s.replyError(id, 'unknown monitor');
      return;
    }
    this.destroyMonitor(m, false);
    s.reply(id, {});
  }

  private servedOf(m: Monitor): Served | undefined {
    for (const served of this.served.values()) if (served.db === m.db) return served;
    return undefined;
  }

  private destroyMonitor(m: Monitor, notify: boolean): void {
    const s = this.monitorOwner.get(m);
    this.monitorOwner.delete(m);
    this.pendingUpdates.delete(m);
    this.servedOf(m)?.monitors.delete(m);
    if (s === undefined) return;
    s.removeMonitor(m);
    if (notify && s.dbChangeAware && !s.closed) s.notify('monitor_canceled', [m.id]);
  }

  // ---- locks --------------------------------------------------------------

  private lockName(s: Session, method: string, params: unknown[], id: unknown): string | undefined {
    if (params.length !== 1 || !isId(params[0])) {
      s.replyError(
        id,
        syntaxError(params, undefined, `${method} request params must be <id>`).toJson(),
      );
      return undefined;
    }
    return params[0];
  }

  private lock(s: Session, method: 'lock' | 'steal', params: unknown[], id: unknown): void {
    const name = this.lockName(s, method, params, id);
    if (name === undefined) return;
    if (this.locks.has(s, name)) {
      s.replyError(
        id,
        syntaxError(params, undefined, `must issue "unlock" before new "${method}"`).toJson(),
      );
      return;
    }
    const { locked, victim } = this.locks.acquire(s, name, method);
    victim?.notify('stolen', [name]);
    s.reply(id, { locked });
  }

  private unlock(s: Session, params: unknown[], id: unknown): void {
    const name = this.lockName(s, 'unlock', params, id);
    if (name === undefined) return;
    if (!this.locks.has(s, name)) {
      s.replyError(
        id,
        syntaxError(params, undefined, 'unlock: "unlock" without "lock" or "steal"').toJson(),
      );
      return;
    }
    this.locks.release(s, name)?.notify('locked', [name]);
    s.reply(id, {});
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
 * @throws SchemaError for an invalid schema; SnapshotError for a bad `dbFile`;
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

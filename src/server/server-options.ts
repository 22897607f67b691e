/**
 * The options of {@link createServer} ({@link CreateServerOptions}) and the
 * {@link ServerView} a simulated cluster member reads its `_Server`
 * database through.
 * @module
 */

import type { ServerMetrics } from '../observability/metrics.js';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import type { Database } from './engine/database.js';
import type { ServerTlsOptions } from './listeners/listen.js';
import type { ServerRowChange } from './server-db.js';
import type { CompactionOptions } from './storage/db-file.js';

/**
 * The server as one member of a simulated cluster sees it (see
 * {@link OvsdbServer.serverView}): its own `_Server` database.
 */
export interface ServerView {
  /**
   * Change this member's `_Server` row of database `name` (model, leader,
   * connected, Raft index, cluster and server ids); the `_Server` monitors
   * of its sessions get the change at once.
   * @throws Error when the view has no row for `name`.
   */
  set(name: string, change: ServerRowChange): void;
  /** Forget the view (its sessions keep reading it until they close). */
  close(): void;
}

/** Options of {@link createServer}. */
export interface CreateServerOptions {
  /**
   * The databases to serve from memory: parsed schemas, `.ovsschema` JSON
   * objects, or engine {@link Database}s (served with their contents).
   * With {@link CreateServerOptions.dbFile}, the one database kept in that file.
   */
  readonly databases?: readonly (DatabaseSchema | Database | object)[] | undefined;
  /**
   * Database files to open and serve, as ovsdb-server's positional
   * arguments: standalone OVSDB files (made by `ovsdb-tool create`, written
   * by ovsdb-server or by this server), each served with its own schema and
   * kept up to date.
   */
  readonly dbFiles?: readonly string[] | undefined;
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
  /**
   * Keep the one database of `databases` in this OVSDB database file: it is
   * created from the schema when missing, its data is converted when the
   * file holds another version of the schema (as `ovsdb-tool convert`), and
   * an ovnkit JSON snapshot of earlier versions is converted into a
   * database file once.
   */
  readonly dbFile?: string | undefined;
  /**
   * Database files: write changed set and map columns as diffs (default
   * true, as ovsdb-server; false as its `--disable-file-column-diff`), and
   * when to compact (default ovsdb-server's rule; `false`: only on demand).
   */
  readonly storage?:
    | { readonly columnDiff?: boolean | undefined; readonly compaction?: CompactionOptions | false }
    | undefined;
  /**
   * Called when the server stopped because a database file could not be
   * written (after the error is logged and every connection dropped).
   */
  readonly onFatal?: ((error: Error) => void) | undefined;
  /**
   * How many transactions each database keeps for `monitor_cond_since`
   * (default 100). 0 disables resuming and answers exactly as a standalone
   * ovsdb-server: `found: false` and all-zero transaction ids in replies and
   * `update3` notifications.
   */
  readonly historyLength?: number | undefined;
  /** Certificates for `pssl:` and `wss:` listeners. */
  readonly tls?: ServerTlsOptions | undefined;
  /** Most connections at once over the listeners (default: no limit, as ovsdb-server); see `listeners/limits.ts`. */
  readonly maxConnections?: number | undefined;
  /** Most bytes of incomplete messages held for all connections together (default 256 MiB). */
  readonly maxInputBytes?: number | undefined;
  /** Most bytes waiting for one client that does not read, merged monitor updates included (default 256 MiB). */
  readonly maxBacklogBytes?: number | undefined;
  /** Browser origins the WebSocket listeners accept (`*`: any); by default none but their own. */
  readonly allowOrigins?: readonly string[] | undefined;
  /** Also append log lines to this file. */
  readonly logFile?: string | undefined;
  /** Also pass log lines to this function. */
  readonly onLog?: ((line: string) => void) | undefined;
  /**
   * Where to count the server's sessions, monitors and transactions:
   * `prometheusMetrics(promClient)`, or any {@link ServerMetrics}. Default:
   * none.
   */
  readonly metrics?: ServerMetrics | undefined;
}

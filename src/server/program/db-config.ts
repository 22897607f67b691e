/**
 * Remotes and TLS settings of `ovnkit-server` that come from its databases
 * or a config file, as ovsdb-server reads them (`ovsdb/ovsdb-server.c`):
 *
 * - `--remote=db:DB,TABLE,COLUMN`: every row of TABLE names remotes in
 *   COLUMN. A string column holds the remotes themselves; a column of
 *   references to a table with a `target` column (OVN's `Connection`)
 *   gives each remote with its options: `inactivity_probe`, `read_only`
 *   and `role` (`max_backoff` and `other_config:dscp` are read and have no
 *   effect on passive remotes). The remotes follow the rows: a remote that
 *   appears is opened, one that goes away is closed with its sessions
 *   ("remote deconfigured"); a remote keeps the `role` and `read_only` it
 *   was opened with, as in ovsdb-server. Every 2.5 s, and after each change,
 *   each referenced row's `is_connected` and `status` (`bound_port`,
 *   `n_connections`, `sec_since_connect`, `sec_since_disconnect`) are
 *   written back as ovsdb-server writes them.
 * - `--private-key`, `--certificate`, `--ca-cert`, `--ssl-protocols` and
 *   `--ssl-ciphers` with a `db:DB,TABLE,COLUMN` value: the first non-empty
 *   string of that column is the file name (or the setting), re-read on the
 *   same occasions; `pssl:` listeners use the new key and certificate for
 *   their next connections.
 * - `--config-file=FILE` (OVS 3.3's): a JSON object whose `remotes` map
 *   each remote to its options (`inactivity-probe`, `read-only`, `role`,
 *   `max-backoff`, `dscp`) and whose `databases` map each database file to
 *   its options (`service-model`: only `standalone` is served here; a
 *   `clustered`, `relay` or `active-backup` database is refused by name).
 *   `ovsdb-server/reload` reads it again.
 *
 * Active remotes (`tcp:`, `ssl:`, `unix:` without the `p`) are not
 * supported: they are logged and left out.
 * @module
 */

import { readFileSync } from 'node:fs';
import type { SecureVersion } from 'node:tls';
import type { TableSchema } from '../../ovsdb/schema/schema-types.js';
import type { Datum } from '../../ovsdb/values/sorted-datum.js';
import { columnType, type Row } from '../engine/table-store.js';
import type { RemoteOptions, ServerTlsOptions } from '../listeners/listen.js';
import type { OvsdbServer } from '../server.js';
import { absFileName, runDir } from './cli-options.js';

/** How often remote status is written back, and unopened remotes retried (ms), as ovsdb-server. */
export const STATUS_INTERVAL_MS = 2500;

/** A remote as named on the command line, with `ovsdb-server/add-remote`, or in a config file. */
export type ConfiguredRemotes = Map<string, RemoteOptions>;

/** The TLS settings as given (file names, or `db:` references). */
export interface TlsSettings {
  readonly privateKey?: string | undefined;
  readonly certificate?: string | undefined;
  readonly caCert?: string | undefined;
  readonly sslProtocols?: string | undefined;
  readonly sslCiphers?: string | undefined;
}

/** A `punix:` remote's relative path made absolute against the run directory, as Open vSwitch does. */
export function absRemote(remote: string): string {
  const m = /^punix:(.+)$/.exec(remote);
  return m === null ? remote : `punix:${absFileName(runDir(), m[1] as string)}`;
}

interface DbColumn {
  readonly db: string;
  readonly table: TableSchema;
  readonly column: string;
}

/**
 * `parse_db_column`: the database, table and column of `db:DB,TABLE,COLUMN`.
 * @throws Error with ovsdb-server's message.
 */
function parseDbColumn(server: OvsdbServer, name: string): DbColumn {
  const tokens = name
    .slice(3)
    .split(',')
    .filter((t) => t !== '');
  const [db, table, column] = tokens;
  if (db === undefined || table === undefined || column === undefined) {
    throw new Error(`"${name}": invalid syntax`);
  }
  const database = server.database(db);
  if (database === undefined) throw new Error(`"${name}": no database named ${db}`);
  if (!Object.hasOwn(database.schema.tables, table)) {
    throw new Error(`"${name}": no table named ${table}`);
  }
  const t = database.schema.tables[table] as TableSchema;
  if (!Object.hasOwn(t.columns, column)) {
    throw new Error(`"${name}": table "${table}" has no column "${column}"`);
  }
  return { db, table: t, column };
}

function rowsOf(server: OvsdbServer, db: string, table: string): Iterable<Row> {
  return server.database(db)?.tables.get(table)?.rows.values() ?? [];
}

/** `ovsdb_util_read_*_column`: one value of a scalar column of exactly `type`. */
function scalar(table: TableSchema, row: Row, column: string, type: string): unknown {
  if (!Object.hasOwn(table.columns, column)) return undefined;
  const t = columnType(table, column);
  if (t.key.type !== type || t.value !== undefined || t.max !== 1) return undefined;
  const d = row.fields[column] as Datum | undefined;
  return d === undefined || d.keys.length === 0 ? undefined : d.keys[0];
}

/** The `ovsdb-server` remotes and TLS settings that are read from databases and config files. */
export class RemoteConfig {
  /** Remotes as configured (`db:` references included), by name. */
  configured: ConfiguredRemotes;
  /** The remotes opened from {@link RemoteConfig.configured}, with the options they were opened with. */
  private readonly open = new Map<string, RemoteOptions>();
  /** The last error logged about each remote or setting (logged once until it changes). */
  private readonly lastErrors = new Map<string, string>();
  private tlsKey = '';
  private timer: ReturnType<typeof setInterval> | undefined;
  private scheduled = false;
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly server: OvsdbServer,
    configured: ConfiguredRemotes,
    private readonly tls: TlsSettings,
    /** TLS material given directly (not through `db:`), used as is. */
    private readonly fixedTls: ServerTlsOptions | undefined,
    /** Remotes the server already listens on, as configured. */
    opened: readonly string[] = [],
  ) {
    this.configured = configured;
    for (const r of opened) this.open.set(absRemote(r), {});
  }

  /** Whether any setting is read from a database (then it is followed as rows change). */
  get followsDatabases(): boolean {
    return (
      [...this.configured.keys()].some((r) => r.startsWith('db:')) ||
      Object.values(this.tls).some((v) => typeof v === 'string' && v.startsWith('db:'))
    );
  }

  /**
   * Apply the configuration now, then follow it: after every commit and
   * every {@link STATUS_INTERVAL_MS}.
   */
  async start(): Promise<void> {
    await this.reconfigure();
    // Only a configuration read from a database changes with it (add-remote of a db: reference starts following).
    this.server.onCommit(() => {
      if (this.followsDatabases) this.schedule();
    });
    this.timer = setInterval(() => {
      if (this.followsDatabases) this.schedule(true);
    }, STATUS_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stop following. */
  stop(): void {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  /** Reconfigure once the current turn is over (at most one pending), then write status. */
  schedule(status = false): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.running = this.running.then(async () => {
        if (this.closed) return;
        await this.reconfigure();
        if (status) this.writeStatus();
      });
    });
  }

  /** Open and close remotes to match the configuration, and re-read TLS settings. */
  async reconfigure(): Promise<void> {
    this.reconfigureTls();
    const wanted = new Map<string, RemoteOptions>();
    for (const [name, options] of this.configured) {
      if (name.startsWith('db:')) this.queryRemotes(name, wanted);
      else wanted.set(absRemote(name), options);
    }
    for (const [remote] of this.open) {
      if (wanted.has(remote)) continue;
      this.open.delete(remote);
      this.server.log.write('ovsdb_jsonrpc_server', 'INFO', `${remote}: remote deconfigured`);
      await this.server.unlisten(remote, true);
    }
    for (const [remote, options] of wanted) {
      if (this.open.has(remote)) continue;
      if (!/^(punix|ptcp|pssl|ws|wss):/.test(remote)) {
        this.report(remote, `${remote}: active remotes are not supported by ovnkit-server`);
        continue;
      }
      try {
        await this.server.listen(remote, options);
        this.open.set(remote, options);
        this.lastErrors.delete(remote);
      } catch (e) {
        this.report(remote, `${remote}: listen failed: ${(e as Error).message}`);
      }
    }
  }

  /**
   * `ovsdb-server/add-remote`: a `db:` reference is followed from now on; a
   * remote is opened at once.
   * @throws Error when the remote cannot be opened (it is then not added).
   */
  async addRemote(name: string): Promise<void> {
    if (this.configured.has(name)) return;
    if (!name.startsWith('db:')) {
      const remote = absRemote(name);
      if (!this.open.has(remote)) {
        await this.server.listen(remote, {});
        this.open.set(remote, {});
      }
    }
    this.configured.set(name, {});
    await this.reconfigure();
  }

  /** Log an error about `remote` once (until it changes or is resolved), as ovsdb-server rate-limits it. */
  private report(remote: string, text: string): void {
    if (this.lastErrors.get(remote) === text) return;
    this.lastErrors.set(remote, text);
    this.server.log.write('ovsdb_jsonrpc_server', 'ERR', text);
  }

  /** `query_db_remotes`: the remotes the rows of a `db:` reference name. */
  private queryRemotes(name: string, out: Map<string, RemoteOptions>): void {
    let ref: DbColumn;
    try {
      ref = parseDbColumn(this.server, name);
    } catch (e) {
      this.report(name, (e as Error).message);
      return;
    }
    const type = columnType(ref.table, ref.column);
    if (type.value !== undefined) return;
    for (const row of rowsOf(this.server, ref.db, ref.table.name)) {
      const d = row.fields[ref.column] as Datum;
      if (type.key.type === 'string') {
        for (const k of d.keys) {
          const remote = absRemote(k as string);
          if (!out.has(remote)) out.set(remote, {});
        }
      } else if (type.key.type === 'uuid' && type.key.refTable !== undefined) {
        const refTable = this.server.database(ref.db)?.schema.tables[type.key.refTable];
        const store = this.server.database(ref.db)?.tables.get(type.key.refTable);
        if (refTable === undefined || store === undefined) continue;
        for (const k of d.keys) {
          const target = store.rows.get(k as string);
          if (target !== undefined) this.managerOptions(refTable, target, out);
        }
      }
    }
  }

  /** `add_manager_options`: one remote from a `Connection`-like row. */
  private managerOptions(table: TableSchema, row: Row, out: Map<string, RemoteOptions>): void {
    const target = scalar(table, row, 'target', 'string') as string | undefined;
    if (target === undefined) return;
    const probe = scalar(table, row, 'inactivity_probe', 'integer');
    const readOnly = scalar(table, row, 'read_only', 'boolean') as boolean | undefined;
    const role = scalar(table, row, 'role', 'string') as string | undefined;
    out.set(absRemote(target), {
      ...(probe === undefined ? {} : { probeIntervalMs: Number(probe) }),
      ...(readOnly === undefined ? {} : { readOnly }),
      ...(role === undefined || role === '' ? {} : { role }),
    });
  }

  /** `query_db_string`: a setting, or the first non-empty string of its `db:` column. */
  private resolve(value: string | undefined): string | undefined {
    if (value === undefined || !value.startsWith('db:')) return value;
    let ref: DbColumn;
    try {
      ref = parseDbColumn(this.server, value);
    } catch (e) {
      this.report(value, (e as Error).message);
      return undefined;
    }
    const type = columnType(ref.table, ref.column);
    if (type.key.type !== 'string' || type.value !== undefined) {
      this.report(
        value,
        `"${value}": table "${ref.table.name}" column "${ref.column}" is not string or set of strings`,
      );
      return undefined;
    }
    for (const row of rowsOf(this.server, ref.db, ref.table.name)) {
      for (const k of (row.fields[ref.column] as Datum).keys) if (k !== '') return k as string;
    }
    return undefined;
  }

  /** `reconfigure_ssl`: the key, certificate, CA, protocols and ciphers in force. */
  private reconfigureTls(): void {
    const key = this.resolve(this.tls.privateKey);
    const cert = this.resolve(this.tls.certificate);
    const ca = this.resolve(this.tls.caCert);
    const protocols = this.resolve(this.tls.sslProtocols);
    const ciphers = this.resolve(this.tls.sslCiphers);
    const id = JSON.stringify([key, cert, ca, protocols, ciphers]);
    if (id === this.tlsKey) return;
    let t: ServerTlsOptions | undefined = this.fixedTls;
    if (t === undefined && key !== undefined && cert !== undefined && ca !== undefined) {
      try {
        t = {
          key: readFileSync(key, 'utf8'),
          cert: readFileSync(cert, 'utf8'),
          ca: readFileSync(ca, 'utf8'),
        };
      } catch (e) {
        this.report('ssl', `SSL configuration: ${(e as Error).message}`);
        return;
      }
    }
    if (t !== undefined) {
      const versions = parseProtocols(protocols);
      if (versions === undefined) {
        this.report('ssl', `${protocols}: SSL protocol not recognized`);
      } else {
        t = { ...t, ...versions, ...(ciphers === undefined ? {} : { ciphers }) };
      }
    }
    this.tlsKey = id;
    this.server.setTls(t);
  }

  /** `update_remote_status`: `is_connected` and `status` of every referenced row, written back. */
  writeStatus(): void {
    for (const name of this.configured.keys()) {
      if (!name.startsWith('db:')) continue;
      let ref: DbColumn;
      try {
        ref = parseDbColumn(this.server, name);
      } catch {
        continue;
      }
      const type = columnType(ref.table, ref.column);
      const refName = type.key.refTable;
      if (type.key.type !== 'uuid' || refName === undefined || type.value !== undefined) continue;
      const refTable = this.server.database(ref.db)?.schema.tables[refName];
      const store = this.server.database(ref.db)?.tables.get(refName);
      if (refTable === undefined || store === undefined) continue;
      const ops: unknown[] = [];
      for (const row of rowsOf(this.server, ref.db, ref.table.name)) {
        for (const k of (row.fields[ref.column] as Datum).keys) {
          const target = store.rows.get(k as string);
          if (target === undefined) continue;
          const t = scalar(refTable, target, 'target', 'string') as string | undefined;
          if (t === undefined) continue;
          const op = this.statusUpdate(refTable, k as string, absRemote(t));
          if (op !== undefined) ops.push(op);
        }
      }
      if (ops.length > 0) this.server.transactInternal(ref.db, ops);
    }
  }

  /** The update of one row's `is_connected` and `status` (the columns it has). */
  private statusUpdate(table: TableSchema, uuid: string, remote: string): unknown {
    const sessions = this.open.has(remote) ? this.server.sessionsOn(remote) : undefined;
    const status: [string, string][] = [
      ['sec_since_connect', '0'],
      ['sec_since_disconnect', '0'],
    ];
    if (sessions !== undefined) {
      if (sessions > 1) status.push(['n_connections', String(sessions)]);
      const port = this.server.addresses.find((a) => a.remote === remote)?.port;
      if (port !== undefined && port !== 0) status.push(['bound_port', String(port)]);
    }
    const row: Record<string, unknown> = {};
    if (Object.hasOwn(table.columns, 'is_connected')) row.is_connected = (sessions ?? 0) > 0;
    if (Object.hasOwn(table.columns, 'status')) row.status = ['map', status.sort()];
    if (Object.keys(row).length === 0) return undefined;
    return { op: 'update', table: table.name, where: [['_uuid', '==', ['uuid', uuid]]], row };
  }
}

const TLS_VERSIONS: readonly SecureVersion[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

/**
 * `stream_ssl_set_protocols`: a list such as `TLSv1.2,TLSv1.3` as the
 * oldest and newest version allowed ({} when none is given; undefined when a
 * name is not one).
 */
export function parseProtocols(
  text: string | undefined,
): { minVersion?: SecureVersion; maxVersion?: SecureVersion } | undefined {
  if (text === undefined || text.trim() === '') return {};
  const named = text.split(/[\s,]+/).filter((w) => w !== '');
  const indexes = named.map((n) => TLS_VERSIONS.indexOf(n as SecureVersion));
  if (indexes.some((i) => i < 0)) return undefined;
  return {
    minVersion: TLS_VERSIONS[Math.min(...indexes)] as SecureVersion,
    maxVersion: TLS_VERSIONS[Math.max(...indexes)] as SecureVersion,
  };
}

/** What a `--config-file` holds. */
export interface ConfigFile {
  readonly remotes: ConfiguredRemotes;
  /** Database files (absolute), in the file's order. */
  readonly databases: string[];
}

/** Largest config file read, bytes. */
const MAX_CONFIG_BYTES = 1024 * 1024;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One remote's options in a config file (`ovsdb_jsonrpc_options_update_from_json`). */
function remoteOptions(remote: string, json: unknown): RemoteOptions {
  if (json === null) return {};
  if (!isObject(json)) {
    throw new Error(`${remote}: JSON-RPC options are not a JSON object or null`);
  }
  const out: { -readonly [K in keyof RemoteOptions]: RemoteOptions[K] } = {};
  for (const [k, v] of Object.entries(json)) {
    if (k === 'inactivity-probe' && Number.isSafeInteger(v)) out.probeIntervalMs = v as number;
    else if (k === 'read-only' && typeof v === 'boolean') out.readOnly = v;
    else if (k === 'role' && typeof v === 'string') out.role = v;
    else if ((k === 'max-backoff' || k === 'dscp') && Number.isSafeInteger(v)) {
      // accepted; no effect on passive remotes
    } else {
      throw new Error(`${remote}: option "${k}" must be ${optionType(k)}`);
    }
  }
  return out;
}

function optionType(k: string): string {
  switch (k) {
    case 'inactivity-probe':
    case 'max-backoff':
    case 'dscp':
      return 'an integer';
    case 'read-only':
      return 'a boolean';
    case 'role':
      return 'a string';
    default:
      return 'one of inactivity-probe, max-backoff, read-only, role, dscp';
  }
}

/**
 * Read a `--config-file` (OVS 3.3's format; see the module documentation),
 * its database file names resolved against `cwd`.
 * @throws Error naming the file and what is wrong in it.
 */
export function readConfigFile(path: string, cwd: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`failed to open configuration file '${path}': ${(e as Error).message}`);
  }
  if (text.length > MAX_CONFIG_BYTES) {
    throw new Error(`${path}: configuration file larger than ${MAX_CONFIG_BYTES} bytes`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path}: reading JSON failed (${(e as Error).message})`);
  }
  if (!isObject(json)) throw new Error(`${path}: configuration in a file must be a JSON object`);
  for (const key of ['sync_from', 'sync_exclude', 'is_backup']) {
    if (Object.hasOwn(json, key)) {
      throw new Error(
        `${path}: "${key}": active-backup replication is not supported by ovnkit-server`,
      );
    }
  }
  const remotes: ConfiguredRemotes = new Map();
  const r = json.remotes;
  if (r !== undefined && r !== null) {
    if (!isObject(r)) throw new Error(`${path}: 'remotes' is not a JSON object`);
    for (const [remote, options] of Object.entries(r)) {
      remotes.set(remote, remoteOptions(remote, options));
    }
  }
  const databases: string[] = [];
  const d = json.databases;
  if (d !== undefined && d !== null) {
    if (!isObject(d)) throw new Error(`${path}: 'databases' is not a JSON object or null`);
    for (const [file, options] of Object.entries(d)) {
      if (options !== null && !isObject(options)) {
        throw new Error(`${path}: database ${file}: options must be a JSON object or null`);
      }
      const model = options?.['service-model'];
      if (model !== undefined && model !== 'standalone') {
        throw new Error(
          typeof model === 'string' && ['clustered', 'relay', 'active-backup'].includes(model)
            ? `${path}: database ${file}: service model '${model}' is not supported by ovnkit-server (standalone databases only)`
            : `${path}: database ${file}: '${String(model)}' is not a valid service model`,
        );
      }
      databases.push(absFileName(cwd, file));
    }
  }
  return { remotes, databases };
}

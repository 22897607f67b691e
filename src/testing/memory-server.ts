/**
 * Start ovnkit's in-memory OVSDB server for tests, behind the same handle as
 * {@link startOvsdbServer} returns for a real `ovsdb-server`, so that a suite
 * can run against either:
 *
 * ```ts
 * const server = await startMemoryServer({ schemaPath: 'schema/ovn-nb-7.18.0.ovsschema', remotes: ['unix', 'tcp'] });
 * try {
 *   const conn = await connect(server.remotes.tcp!);
 *   // ...
 * } finally {
 *   await server.stop();
 * }
 * ```
 *
 * The server runs inside the test process: it needs no Open vSwitch (except
 * `ovsdbClient`, which runs the real `ovsdb-client`, and `ssl`, whose
 * certificates `ovs-pki` makes). Data survives {@link OvsdbServerHandle.restart}
 * and {@link OvsdbServerHandle.kill} through an OVSDB database file (`dbPath`), as a
 * real server's survives through its database file; `restart` gives the
 * server a new server id, as a new process would.
 *
 * `appctl` emulates the `ovs-appctl` commands tests use:
 * `ovsdb-server/list-dbs`, `ovsdb-server/remove-db <name>`,
 * `ovsdb-server/add-db <dbPath>` (serves the removed database again),
 * `ovsdb-server/list-remotes` and `ovsdb-server/add-remote <remote>`.
 * @module
 */

import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseSchema, parseSchemaText } from '../ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import type { Database } from '../server/engine/database.js';
import { createServer, type OvsdbServer } from '../server/server.js';
import { findOvsdbServer, OvsdbServerMissingError } from './ovs-tools.js';
import type { OvsdbServerHandle, ServerRemoteKind, ServerRemotes } from './ovsdb-server.js';
import { createPki, type Pki } from './pki.js';

const run = promisify(execFile);

/** Options of {@link startMemoryServer}; the common ones mean what they mean for {@link startOvsdbServer}. */
export interface StartMemoryServerOptions {
  /** The schema: a parsed {@link DatabaseSchema} or the `.ovsschema` JSON object. */
  readonly schema?: DatabaseSchema | object | undefined;
  /** Path of an `.ovsschema` file (used when `schema` is not given). */
  readonly schemaPath?: string | undefined;
  /** Listeners to open; defaults to `['unix']`. The unix socket is always opened. */
  readonly remotes?: readonly ServerRemoteKind[] | undefined;
  /** Certificates for `ssl`; made with `ovs-pki` in the server's directory when absent. */
  readonly pki?: Pki | undefined;
  /** Inactivity probe interval of tcp and ssl sessions, in ms (default 5000; 0: never). */
  readonly probeIntervalMs?: number | undefined;
  /** Transactions kept for `monitor_cond_since` (default 100). */
  readonly historyLength?: number | undefined;
  /**
   * Not supported: the in-memory server serves standalone databases only.
   * `true` is an error.
   */
  readonly clustered?: boolean | undefined;
}

/** A running (or stopped) in-memory server; the shape of a real-server handle plus the server itself. */
export interface MemoryServerHandle extends OvsdbServerHandle {
  /** The server currently running (a new one after each restart). */
  readonly server: OvsdbServer;
}

const liveDirs = new Set<string>();
let hookInstalled = false;

function installHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  process.on('exit', () => {
    for (const dir of liveDirs) {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // best effort
      }
    }
  });
}

function schemaFrom(schema: DatabaseSchema | object): DatabaseSchema {
  const s = schema as Partial<DatabaseSchema>;
  return typeof s.name === 'string' && s.tables !== undefined && 'json' in s
    ? (schema as DatabaseSchema)
    : parseSchema(schema);
}

/**
 * Start an in-memory server on a fresh database made from a schema. Resolves
 * when every requested listener accepts connections.
 * @example
 * ```ts
 * import { connect } from 'ovnkit';
 * import { NB } from 'ovnkit/nb';
 * import { startMemoryServer } from 'ovnkit/testing';
 *
 * const server = await startMemoryServer({ schema: NB.schema, remotes: ['tcp'] });
 * const conn = await connect(server.remotes.tcp!);
 * await conn.transact('OVN_Northbound', [
 *   { op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' } },
 * ]);
 * conn.close();
 * await server.stop();
 * ```
 */
export async function startMemoryServer(
  options: StartMemoryServerOptions,
): Promise<MemoryServerHandle> {
  if (options.clustered === true) {
    throw new Error('startMemoryServer: the in-memory server serves standalone databases only');
  }
  installHook();
  let schema: DatabaseSchema;
  if (options.schema !== undefined) schema = schemaFrom(options.schema);
  else if (options.schemaPath !== undefined) {
    schema = parseSchemaText(await readFile(resolve(options.schemaPath), 'utf8'));
  } else {
    throw new Error('startMemoryServer: give `schema` or `schemaPath`');
  }
  const kinds = new Set<ServerRemoteKind>(options.remotes ?? ['unix']);
  const dir = await mkdtemp(join(tmpdir(), 'ovnkit-mem-'));
  liveDirs.add(dir);
  try {
    let pki = options.pki;
    if (kinds.has('ssl') && pki === undefined) {
      pki = await createPki(join(dir, 'pki'), { unrelatedCa: false });
    }
    const runner = new MemoryRunner(dir, schema, kinds, pki, options);
    await runner.start();
    return runner.handle();
  } catch (e) {
    liveDirs.delete(dir);
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}

class MemoryRunner {
  readonly sockPath: string;
  readonly dbPath: string;
  readonly logPath: string;
  readonly ctlPath: string;
  current: OvsdbServer | undefined;
  private isRunning = false;
  private stopped = false;
  private readonly ports: { tcp?: number | undefined; ssl?: number | undefined } = {};
  private readonly extraRemotes: string[] = [];
  private readonly removed = new Map<string, Database>();
  private tlsMaterial: { key: string; cert: string; ca: string } | undefined;

  constructor(
    readonly dir: string,
    readonly schema: DatabaseSchema,
    private readonly kinds: ReadonlySet<ServerRemoteKind>,
    readonly pki: Pki | undefined,
    private readonly options: StartMemoryServerOptions,
  ) {
    this.sockPath = join(dir, 'db.sock');
    this.dbPath = join(dir, 'db.db');
    this.logPath = join(dir, 'x.log');
    this.ctlPath = join(dir, 'x.ctl');
  }

  get unixRemote(): string {
    return `unix:${this.sockPath}`;
  }

  async start(): Promise<void> {
    if (this.isRunning) throw new Error('the in-memory server is already running');
    if (this.pki !== undefined && this.tlsMaterial === undefined) {
      const [key, cert, ca] = await Promise.all([
        readFile(this.pki.server.privateKey, 'utf8'),
        readFile(this.pki.server.certificate, 'utf8'),
        readFile(this.pki.caCert, 'utf8'),
      ]);
      this.tlsMaterial = { key, cert, ca };
    }
    const listen = [`punix:${this.sockPath}`];
    if (this.kinds.has('tcp')) listen.push(`ptcp:${this.ports.tcp ?? 0}:127.0.0.1`);
    if (this.kinds.has('ssl')) listen.push(`pssl:${this.ports.ssl ?? 0}:127.0.0.1`);
    listen.push(...this.extraRemotes);
    const server = await createServer({
      databases: [this.schema],
      listen,
      dbFile: this.dbPath,
      logFile: this.logPath,
      probeIntervalMs: this.options.probeIntervalMs,
      historyLength: this.options.historyLength,
      tls: this.tlsMaterial,
    });
    for (const a of server.addresses) {
      if (a.kind === 'ptcp' && this.ports.tcp === undefined) this.ports.tcp = a.port;
      if (a.kind === 'pssl' && this.ports.ssl === undefined) this.ports.ssl = a.port;
    }
    this.current = server;
    this.isRunning = true;
  }

  async terminate(abrupt: boolean): Promise<void> {
    const server = this.current;
    if (!this.isRunning || server === undefined) return;
    this.isRunning = false;
    // Committed data is on "disk" either way, as with a real server's database file.
    if (abrupt) await server.abort(true);
    else await server.close();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.terminate(false);
    liveDirs.delete(this.dir);
    await rm(this.dir, { recursive: true, force: true });
  }

  async restart(): Promise<void> {
    if (this.stopped) throw new Error('the in-memory server was stopped; start a new one');
    await this.terminate(false);
    await this.start();
  }

  async appctl(args: string[]): Promise<string> {
    const server = this.current;
    if (server === undefined || !this.isRunning) {
      throw new Error('ovs-appctl: the in-memory server is not running');
    }
    const [command, ...rest] = args;
    switch (command) {
      case 'ovsdb-server/list-dbs':
        return server.databaseNames.map((n) => `${n}\n`).join('');
      case 'ovsdb-server/remove-db': {
        const name = rest[0] ?? '';
        const db = server.removeDatabase(name);
        if (db === undefined) throw new Error(`ovs-appctl: ${name}: no database by that name`);
        this.removed.set(name, db);
        return '';
      }
      case 'ovsdb-server/add-db': {
        const path = rest[0] ?? '';
        const db = resolve(path) === this.dbPath ? this.removed.get(this.schema.name) : undefined;
        if (db === undefined) {
          throw new Error(
            `ovs-appctl: ${path}: only this server's own removed database can be added back`,
          );
        }
        this.removed.delete(this.schema.name);
        server.addDatabase(db);
        return '';
      }
      case 'ovsdb-server/list-remotes':
        return server.addresses
          .map((a) => a.remote)
          .sort()
          .map((r) => `${r}\n`)
          .join('');
      case 'ovsdb-server/add-remote': {
        const remote = rest[0] ?? '';
        await server.listen(remote);
        this.extraRemotes.push(remote);
        return '';
      }
      default:
        throw new Error(
          `ovs-appctl: "${command}" is not one of the commands the in-memory server emulates`,
        );
    }
  }

  async ovsdbClient(args: string[]): Promise<string> {
    const tools = findOvsdbServer();
    if (tools === undefined) {
      throw new OvsdbServerMissingError(
        'ovsdbClient needs the ovsdb-client program, which is not installed',
      );
    }
    const firstCommand = args.findIndex((a) => !a.startsWith('-'));
    const at = firstCommand < 0 ? args.length : firstCommand + 1;
    const full = ['--timeout=20', ...args.slice(0, at), this.unixRemote, ...args.slice(at)];
    try {
      const { stdout } = await run(tools.ovsdbClient, full, {
        timeout: 30_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch (e) {
      const err = e as Error & { stderr?: string };
      throw new Error(
        `ovsdb-client ${full.join(' ')} failed: ${err.stderr?.trim() || err.message}`,
        {
          cause: e,
        },
      );
    }
  }

  handle(): MemoryServerHandle {
    const self = this;
    const remotes: { unix?: string; tcp?: string; ssl?: string } = {};
    if (this.kinds.has('unix')) remotes.unix = this.unixRemote;
    if (this.ports.tcp !== undefined) remotes.tcp = `tcp:127.0.0.1:${this.ports.tcp}`;
    if (this.ports.ssl !== undefined) remotes.ssl = `ssl:127.0.0.1:${this.ports.ssl}`;
    return {
      remotes: remotes as ServerRemotes,
      unixRemote: this.unixRemote,
      dbName: this.schema.name,
      clustered: false,
      dir: this.dir,
      dbPath: this.dbPath,
      logPath: this.logPath,
      ctlPath: this.ctlPath,
      pki: this.pki,
      get pid() {
        return self.isRunning ? process.pid : -1;
      },
      get running() {
        return self.isRunning;
      },
      get server() {
        return self.current as OvsdbServer;
      },
      stop: () => this.stop(),
      restart: () => this.restart(),
      kill: async () => {
        if (this.stopped) return;
        await this.terminate(true);
      },
      ovsdbClient: (...args: string[]) => this.ovsdbClient(args),
      appctl: (...args: string[]) => this.appctl(args),
      readLog: async () => {
        try {
          return await readFile(this.logPath, 'utf8');
        } catch {
          return '';
        }
      },
    };
  }
}

/**
 * Start a real `ovsdb-server` for tests: a temporary directory, a database
 * created from a schema, and the server listening on a Unix socket and,
 * on request, on TCP and SSL/TLS ports of 127.0.0.1.
 *
 * ```ts
 * const server = await startOvsdbServer({ schemaPath: 'test/fixtures/schemas/ovn-nb-7.0.0.ovsschema', remotes: ['unix', 'tcp'] });
 * try {
 *   const conn = await connect(server.remotes.tcp!);
 *   // ...
 * } finally {
 *   await server.stop();
 * }
 * ```
 *
 * Every server this module starts is killed (SIGKILL) and its directory
 * removed when the Node process exits or receives SIGINT, SIGTERM or SIGHUP.
 * @module
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import { type OvsTools, requireOvsdbServer } from './ovs-tools.js';
import { createPki, type Pki } from './pki.js';
import { installHooks, liveChildren, liveDirs, runTool, socketAccepts } from './processes.js';

/** The kinds of listener {@link startOvsdbServer} can open. */
export type ServerRemoteKind = 'unix' | 'tcp' | 'ssl';

/** Options of {@link startOvsdbServer}. Give `schema` or `schemaPath`. */
export interface StartOvsdbServerOptions {
  /** The schema: a parsed {@link DatabaseSchema} or the `.ovsschema` JSON object. */
  readonly schema?: DatabaseSchema | object | undefined;
  /** Path of an `.ovsschema` file (used when `schema` is not given). */
  readonly schemaPath?: string | undefined;
  /**
   * Listeners to open; defaults to `['unix']`. The Unix socket is always
   * opened (the harness uses it), but reported only when requested. TCP and
   * SSL listen on free ports of 127.0.0.1.
   */
  readonly remotes?: readonly ServerRemoteKind[] | undefined;
  /** More `ovsdb-server` arguments, e.g. `['-vjsonrpc:file:dbg']` or `--remote=db:…`. */
  readonly extraArgs?: readonly string[] | undefined;
  /** Certificates for `ssl`; when absent and `ssl` is requested, a fresh {@link Pki} (without the unrelated CA) is made in the server's directory. */
  readonly pki?: Pki | undefined;
  /**
   * Make a one-server clustered (Raft) database instead of a standalone one.
   * Only clustered databases keep the transaction history that lets
   * `monitor_cond_since` resume (`found` true); standalone ones always answer
   * with a full dump.
   */
  readonly clustered?: boolean | undefined;
  /**
   * Serve the schema's database as a relay of the server at this remote
   * (`ovsdb-server relay:<db>:<remote>`) instead of from a file of its own:
   * it takes its data from there and forwards transactions there. Its
   * `_Server.Database` row says `model` `relay`, and `connected` false
   * from 30 s after the source was lost.
   */
  readonly relay?: string | undefined;
  /** How long to wait for the server to listen. Defaults to 15 000 ms. */
  readonly startTimeoutMs?: number | undefined;
}

/** Client connection strings of a running server. */
export interface ServerRemotes {
  /** `unix:<dir>/db.sock`, when `unix` was requested. */
  readonly unix?: string;
  /** `tcp:127.0.0.1:<port>`, when `tcp` was requested. */
  readonly tcp?: string;
  /** `ssl:127.0.0.1:<port>`, when `ssl` was requested. */
  readonly ssl?: string;
}

/** A running (or stopped) `ovsdb-server` started by {@link startOvsdbServer}. */
export interface OvsdbServerHandle {
  /** Where clients connect; ports stay the same across {@link OvsdbServerHandle.restart}. */
  readonly remotes: ServerRemotes;
  /** `unix:<dir>/db.sock`: always open, whatever `remotes` requested. */
  readonly unixRemote: string;
  /** The name of the database (the schema's `name`). */
  readonly dbName: string;
  /** Whether the database is clustered (see {@link StartOvsdbServerOptions.clustered}). */
  readonly clustered: boolean;
  /** The temporary directory holding the database, sockets and log. */
  readonly dir: string;
  /** The database file (for a relay: its `relay:<db>:<remote>` argument). */
  readonly dbPath: string;
  /** The server's log file. */
  readonly logPath: string;
  /** The unixctl socket, for `ovs-appctl -t`. */
  readonly ctlPath: string;
  /** The certificates in use, when the server listens on SSL. */
  readonly pki: Pki | undefined;
  /** The process ID of the current server process (changes on restart). */
  readonly pid: number;
  /** Whether the server process is running. */
  readonly running: boolean;
  /** SIGTERM the server, wait for it to exit, and remove the directory. Idempotent. */
  stop(): Promise<void>;
  /** Stop the server if it runs (SIGTERM) and start it again on the same database file and ports. */
  restart(): Promise<void>;
  /** SIGKILL the server and wait for it to die; the directory stays (call `restart` or `stop`). */
  kill(): Promise<void>;
  /**
   * Run `ovsdb-client` against the server's Unix socket and return its stdout.
   * Leading arguments that start with `-` are options; the next is the command;
   * the server is inserted after it: `ovsdbClient('--format=json', 'dump', 'Test')`
   * runs `ovsdb-client --format=json dump unix:<sock> Test`.
   */
  ovsdbClient(...args: string[]): Promise<string>;
  /** Run `ovs-appctl -t <ctl> ...args` and return its stdout. */
  appctl(...args: string[]): Promise<string>;
  /** The server's log so far. */
  readLog(): Promise<string>;
}

function schemaJson(schema: DatabaseSchema | object): unknown {
  const s = schema as Partial<DatabaseSchema> & { tables?: unknown };
  // A parsed DatabaseSchema keeps the JSON it came from.
  if ('json' in s && s.json !== undefined && typeof s.name === 'string') return s.json;
  return schema;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const LISTENING_RE = /\|socket_util\|INFO\|[^|\n]*: listening on port (\d+)/g;

/**
 * Start `ovsdb-server` on a fresh database made from a schema. Resolves when
 * every requested listener accepts connections.
 *
 * Fails (does not skip) when Open vSwitch is not installed; see
 * {@link requireOvsdbServer}.
 * @example
 * ```ts
 * import { NB } from 'ovnkit/nb';
 * import { connectDatabase } from 'ovnkit/client';
 * import { startOvsdbServer } from 'ovnkit/testing';
 *
 * const server = await startOvsdbServer({ schema: NB.schema, remotes: ['unix', 'tcp'] });
 * try {
 *   const client = connectDatabase({ remotes: server.remotes.tcp!, model: NB });
 *   await client.ready;
 *   await client.close();
 *   await server.ovsdbClient('dump', 'OVN_Northbound'); // the real ovsdb-client's view
 * } finally {
 *   await server.stop();
 * }
 * ```
 */
export async function startOvsdbServer(
  options: StartOvsdbServerOptions,
): Promise<OvsdbServerHandle> {
  const tools = requireOvsdbServer(false);
  installHooks();
  const kinds = new Set<ServerRemoteKind>(options.remotes ?? ['unix']);
  const startTimeoutMs = options.startTimeoutMs ?? 15_000;

  const dir = await mkdtemp(join(tmpdir(), 'ovnkit-'));
  liveDirs.add(dir);
  try {
    let schemaText: string;
    if (options.schema !== undefined) {
      schemaText = JSON.stringify(schemaJson(options.schema), null, 1);
    } else if (options.schemaPath !== undefined) {
      schemaText = await readFile(resolve(options.schemaPath), 'utf8');
    } else {
      throw new Error('startOvsdbServer: give `schema` or `schemaPath`');
    }
    const dbName = (JSON.parse(schemaText) as { name?: unknown }).name;
    if (typeof dbName !== 'string') throw new Error('startOvsdbServer: the schema has no name');
    const schemaFile = join(dir, 'schema.ovsschema');
    await writeFile(schemaFile, schemaText);
    const clustered = options.clustered ?? false;
    const relay = options.relay;
    let dbPath = join(dir, 'db.db');
    if (relay === undefined) {
      await runTool(
        tools.ovsdbTool,
        clustered
          ? ['create-cluster', dbPath, schemaFile, `unix:${join(dir, 'raft.sock')}`]
          : ['create', dbPath, schemaFile],
      );
    } else {
      if (clustered) throw new Error('startOvsdbServer: a relay is not clustered');
      dbPath = `relay:${dbName}:${relay}`;
    }

    let pki = options.pki;
    if (kinds.has('ssl') && !pki) pki = await createPki(join(dir, 'pki'), { unrelatedCa: false });

    const server = new ServerProcess(
      tools,
      dir,
      dbPath,
      dbName,
      clustered,
      pki,
      options.extraArgs ?? [],
    );
    await server.start(startTimeoutMs);
    try {
      if (kinds.has('tcp')) server.tcpPort = await server.addPortZeroRemote('ptcp', startTimeoutMs);
      if (kinds.has('ssl')) server.sslPort = await server.addPortZeroRemote('pssl', startTimeoutMs);
    } catch (e) {
      await server.stop();
      throw e;
    }
    const remotes: { unix?: string; tcp?: string; ssl?: string } = {};
    if (kinds.has('unix')) remotes.unix = server.unixRemote;
    if (server.tcpPort !== undefined) remotes.tcp = `tcp:127.0.0.1:${server.tcpPort}`;
    if (server.sslPort !== undefined) remotes.ssl = `ssl:127.0.0.1:${server.sslPort}`;
    return server.handle(remotes);
  } catch (e) {
    liveDirs.delete(dir);
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
}

class ServerProcess {
  readonly sockPath: string;
  readonly ctlPath: string;
  readonly logPath: string;
  readonly unixRemote: string;
  tcpPort: number | undefined;
  sslPort: number | undefined;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private stderrTail = '';
  private stopped = false;

  constructor(
    private readonly tools: OvsTools,
    readonly dir: string,
    readonly dbPath: string,
    readonly dbName: string,
    readonly clustered: boolean,
    readonly pki: Pki | undefined,
    private readonly extraArgs: readonly string[],
  ) {
    this.sockPath = join(dir, 'db.sock');
    this.ctlPath = join(dir, 'x.ctl');
    this.logPath = join(dir, 'x.log');
    this.unixRemote = `unix:${this.sockPath}`;
  }

  get pid(): number {
    return this.child?.pid ?? -1;
  }

  get running(): boolean {
    return (
      this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
    );
  }

  private args(): string[] {
    const args = [
      this.dbPath,
      `--remote=punix:${this.sockPath}`,
      `--unixctl=${this.ctlPath}`,
      `--pidfile=${join(this.dir, 'x.pid')}`,
      `--log-file=${this.logPath}`,
      '-vconsole:off',
    ];
    if (this.pki) {
      args.push(
        `--private-key=${this.pki.server.privateKey}`,
        `--certificate=${this.pki.server.certificate}`,
        `--ca-cert=${this.pki.caCert}`,
      );
    }
    if (this.tcpPort !== undefined) args.push(`--remote=ptcp:${this.tcpPort}:127.0.0.1`);
    if (this.sslPort !== undefined) args.push(`--remote=pssl:${this.sslPort}:127.0.0.1`);
    args.push(...this.extraArgs);
    return args;
  }

  async start(timeoutMs: number): Promise<void> {
    if (this.running) throw new Error('ovsdb-server is already running');
    this.stderrTail = '';
    const child = spawn(this.tools.ovsdbServer, this.args(), {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.child = child;
    liveChildren.add(child);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4000);
    });
    this.exited = new Promise<void>((done) => {
      child.once('exit', () => {
        liveChildren.delete(child);
        done();
      });
      child.once('error', (err) => {
        this.stderrTail += `\nspawn error: ${err.message}`;
        liveChildren.delete(child);
        done();
      });
    });
    // A forgotten server must not keep the test process alive; the exit hook kills it.
    child.unref();
    (child.stderr as net.Socket | null)?.unref?.();

    const deadline = Date.now() + timeoutMs;
    const waitFor = async (what: string, ready: () => Promise<boolean>) => {
      for (;;) {
        if (!this.running) {
          await this.exited;
          throw new Error(
            `ovsdb-server exited during startup (${child.exitCode ?? child.signalCode}) while waiting for ${what}: ${await this.diagnostics()}`,
          );
        }
        if (await ready()) return;
        if (Date.now() > deadline) {
          await this.terminate('SIGKILL');
          throw new Error(
            `ovsdb-server did not get ready (${what}) within ${timeoutMs} ms: ${await this.diagnostics()}`,
          );
        }
        await sleep(20);
      }
    };
    await waitFor(this.unixRemote, () => socketAccepts({ path: this.sockPath }));
    // ovsdb-server may listen on its remotes before its control socket exists:
    // ovs-appctl (add-remote, exit, …) needs that socket too.
    await waitFor(this.ctlPath, () => socketAccepts({ path: this.ctlPath }));
    if (this.clustered) {
      // The Raft election of a one-server cluster takes a moment.
      const seconds = Math.max(1, Math.ceil((deadline - Date.now()) / 1000));
      await runTool(this.tools.ovsdbClient, [
        `--timeout=${seconds}`,
        'wait',
        this.unixRemote,
        this.dbName,
        'connected',
      ]);
    }
    for (const port of [this.tcpPort, this.sslPort]) {
      if (port !== undefined) {
        await waitFor(`127.0.0.1:${port}`, () => socketAccepts({ host: '127.0.0.1', port }));
      }
    }
  }

  /** Add a `ptcp:0`/`pssl:0` listener and learn its port from the log. */
  async addPortZeroRemote(kind: 'ptcp' | 'pssl', timeoutMs: number): Promise<number> {
    const before = (await this.readLog()).match(LISTENING_RE)?.length ?? 0;
    await runTool(this.tools.ovsAppctl, [
      '-t',
      this.ctlPath,
      'ovsdb-server/add-remote',
      `${kind}:0:127.0.0.1`,
    ]);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const matches = [...(await this.readLog()).matchAll(LISTENING_RE)];
      const match = matches[before];
      if (match?.[1] !== undefined) {
        const port = Number(match[1]);
        await this.waitForPort(port, deadline);
        return port;
      }
      if (!this.running) throw new Error(`ovsdb-server exited: ${await this.diagnostics()}`);
      if (Date.now() > deadline) {
        throw new Error(
          `ovsdb-server did not report the ${kind} port: ${await this.diagnostics()}`,
        );
      }
      await sleep(20);
    }
  }

  private async waitForPort(port: number, deadline: number): Promise<void> {
    while (!(await socketAccepts({ host: '127.0.0.1', port }))) {
      if (Date.now() > deadline) throw new Error(`127.0.0.1:${port} does not accept connections`);
      await sleep(20);
    }
  }

  async readLog(): Promise<string> {
    try {
      return await readFile(this.logPath, 'utf8');
    } catch {
      return '';
    }
  }

  private async diagnostics(): Promise<string> {
    const log = (await this.readLog()).slice(-3000);
    return `stderr: ${this.stderrTail.trim() || '(empty)'}; log: ${log.trim() || '(empty)'}`;
  }

  async terminate(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    // Keep the event loop alive until the exit is seen.
    child.ref();
    child.kill(signal);
    if (signal === 'SIGTERM') {
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await this.exited;
      clearTimeout(timer);
    } else {
      await this.exited;
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.terminate('SIGTERM');
    liveDirs.delete(this.dir);
    await rm(this.dir, { recursive: true, force: true });
  }

  async restart(): Promise<void> {
    if (this.stopped) throw new Error('ovsdb-server was stopped; start a new one');
    await this.terminate('SIGTERM');
    await this.start(15_000);
  }

  handle(remotes: ServerRemotes): OvsdbServerHandle {
    const self = this;
    return {
      remotes,
      unixRemote: this.unixRemote,
      dbName: this.dbName,
      clustered: this.clustered,
      dir: this.dir,
      dbPath: this.dbPath,
      logPath: this.logPath,
      ctlPath: this.ctlPath,
      pki: this.pki,
      get pid() {
        return self.pid;
      },
      get running() {
        return self.running;
      },
      stop: () => this.stop(),
      restart: () => this.restart(),
      kill: async () => {
        if (this.stopped) return;
        await this.terminate('SIGKILL');
      },
      ovsdbClient: (...args: string[]) => {
        const firstCommand = args.findIndex((a) => !a.startsWith('-'));
        const at = firstCommand < 0 ? args.length : firstCommand + 1;
        const full = [...args.slice(0, at), this.unixRemote, ...args.slice(at)];
        return runTool(this.tools.ovsdbClient, ['--timeout=20', ...full]);
      },
      appctl: (...args: string[]) => runTool(this.tools.ovsAppctl, ['-t', this.ctlPath, ...args]),
      readLog: () => this.readLog(),
    };
  }
}

#!/usr/bin/env node
/**
 * `ovnkit-server`: ovnkit's in-memory OVSDB server as a program, started as
 * ovsdb-server is, so that a script written for ovsdb-server needs only the
 * program's name changed:
 *
 * ```sh
 * ovsdb-tool create nb.db schema/ovn-nb-7.18.0.ovsschema
 * ovnkit-server --detach --no-chdir --pidfile=$PWD/nb.pid --unixctl=$PWD/nb.ctl \
 *   --log-file=$PWD/nb.log --remote=punix:$PWD/nb.sock nb.db
 * ovs-appctl -t $PWD/nb.ctl exit
 * ```
 *
 * Positional arguments are database files in ovsdb-server's standalone
 * format (see `storage/db-file.ts`), written before every reply. Databases
 * can also be served from memory (`--schema FILE`), optionally kept in one
 * file (`--db FILE`), and `--listen` is `--remote` with punix paths relative
 * to the working directory:
 *
 * ```sh
 * ovnkit-server --schema schema/ovn-nb-7.18.0.ovsschema --listen ptcp:6641:127.0.0.1
 * ovnkit-server --schema nb.ovsschema --listen ws:127.0.0.1:8080   # browsers connect to ws://127.0.0.1:8080/
 * ```
 *
 * In the foreground it prints one `listening on <remote>` line per listener
 * on stdout once every listener accepts connections, and runs until SIGINT,
 * SIGTERM, SIGHUP or `ovs-appctl exit`; it then writes what is left of its
 * database files, removes its pidfile and sockets, and exits 0.
 * @module
 */

import { readFileSync, realpathSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { parseSchemaText } from '../../ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../../ovsdb/schema/schema-types.js';
import { SchemaError } from '../../ovsdb/wire/errors.js';
import { ServerLog } from '../rpc/server-log.js';
import { createServer, type OvsdbServer } from '../server.js';
import { LogRouter } from './cli-log.js';
import { type CliOptions, PROGRAM, parseCommandLine, UsageError } from './cli-options.js';
import {
  detach,
  isDetachedChild,
  isMonitoredChild,
  notifyStarted,
  Pidfile,
  runMonitor,
} from './daemon.js';
import {
  type ConfiguredRemotes,
  parseProtocols,
  RemoteConfig,
  readConfigFile,
} from './db-config.js';
import { type MetricsEndpoint, parseMetricsAddress, startMetricsEndpoint } from './metrics-http.js';
import { UnixctlServer } from './unixctl.js';

const USAGE = `Usage:
  ${PROGRAM} --schema FILE [--db FILE] --listen REMOTE [OPTIONS]
  ${PROGRAM} [OPTIONS] DATABASE...

Serve OVSDB databases from memory, answering clients as ovsdb-server does,
started as ovsdb-server is. DATABASE is a standalone OVSDB database file
(ovsdb-tool create DATABASE SCHEMA); every commit is written to it before it
is acknowledged.

Database and remote options:
  --remote=REMOTE         listen on REMOTE: punix:FILE (relative to the run
                          directory), ptcp:PORT[:IP], pssl:PORT[:IP], or
                          ws:IP:PORT[/PATH], wss:IP:PORT[/PATH] on a loopback IP
  --listen=REMOTE         as --remote, punix:FILE relative to the working directory
  --schema FILE           serve an .ovsschema's database from memory
  --db FILE               keep the one --schema database in FILE (created when
                          missing, converted when its schema differs)
  --unixctl=SOCKET        control socket for ovs-appctl -t SOCKET
  --disable-file-column-diff
                          write changed columns whole, not as diffs
  --probe-interval=MS     inactivity probe of tcp/ssl clients (default 5000, 0: off)
  --max-connections=N     refuse connections beyond N at once (default 0: no limit)
  --history=N             transactions kept for monitor_cond_since (default 100;
                          0: found false and all-zero ids, as a standalone
                          ovsdb-server)
  --metrics=[IP]:PORT     serve Prometheus metrics at http://IP:PORT/metrics
                          (sessions, transactions, monitors and process
                          metrics; needs the prom-client package; :PORT: every
                          interface, port 0: a free one, printed on stdout)
  -p, --private-key=FILE  TLS key for pssl: and wss: (PEM)
  -c, --certificate=FILE  TLS certificate for pssl: and wss: (PEM)
  -C, --ca-cert=FILE      CA that client certificates must chain to (PEM)

Daemon options:
  --detach                run in background as daemon
  --no-chdir              do not chdir to '/'
  --pidfile[=FILE]        create pidfile (default: RUNDIR/${PROGRAM}.pid)
  --overwrite-pidfile     with --pidfile, start even if already running

Logging options:
  -vSPEC, --verbose=SPEC   set logging levels ([module][:console|file|syslog][:level])
  -v, --verbose            set maximum verbosity level
  --log-file[=FILE]        enable logging to FILE (default: LOGDIR/${PROGRAM}.log)

Other options:
  -h, --help              display this help message
  -V, --version           display version information

RUNDIR is $OVS_RUNDIR or /var/run/openvswitch, LOGDIR $OVS_LOGDIR or
/var/log/openvswitch. The console log is off unless -v asks for it.
`;

/** Where the CLI writes. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** A running `ovnkit-server`. */
export interface CliServer {
  /** The server. */
  readonly server: OvsdbServer;
  /** The control socket (`--unixctl`). */
  readonly unixctl: UnixctlServer | undefined;
  /** Where the log goes (console and `--log-file`). */
  readonly log: LogRouter;
  /** Resolves with the exit status once the program is done (`ovs-appctl exit`, {@link CliServer.stop}, a fatal error). */
  readonly exited: Promise<number>;
  /** Stop: close the server (its files written), the control socket and the pidfile; then {@link CliServer.exited} resolves with `code`. */
  stop(code?: number): Promise<void>;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot read ${what} ${path}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
    );
  }
}

function nonNegative(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new UsageError(`${option} must be a non-negative integer, got "${value}"`);
  }
  return n;
}

/** The package's version, from its package.json (in the sources or in dist). */
function packageVersion(): string {
  for (const up of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'ovnkit' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // try the next
    }
  }
  return 'unknown';
}

function readSchemas(files: readonly string[]): DatabaseSchema[] {
  return files.map((file) => {
    const text = readText(file, 'schema file');
    try {
      return parseSchemaText(text);
    } catch (e) {
      if (e instanceof SchemaError || e instanceof SyntaxError) {
        throw new UsageError(`invalid schema ${file}: ${e.message}`);
      }
      throw e;
    }
  });
}

/** The `ovs-appctl` commands of ovsdb-server that ovnkit-server answers. */
function registerCommands(
  ctl: UnixctlServer,
  running: CliServer,
  router: LogRouter,
  config: RemoteConfig,
  configFile: string | undefined,
): void {
  const server = running.server;
  // With --config-file, what changes remotes and databases is refused, as ovsdb-server refuses it.
  const fixed = () => {
    if (configFile !== undefined) {
      throw new Error(`Update the ${configFile} and use ovsdb-server/reload instead`);
    }
  };
  ctl.register('exit', '', 0, 0, () => {
    setImmediate(() => void running.stop(0));
    return '';
  });
  ctl.register('ovsdb-server/compact', '', 0, 1, (args) => {
    server.compact(args[0]);
    return '';
  });
  ctl.register('ovsdb-server/reconnect', '', 0, 0, () => {
    server.reconnectAll('user ran ovsdb-server/reconnect');
    return '';
  });
  ctl.register('ovsdb-server/add-remote', 'REMOTE', 1, 1, async (args) => {
    fixed();
    const remote = args[0] as string;
    if (remote.startsWith('db:')) {
      const [db, table, column] = remote.slice(3).split(',');
      const schema = db === undefined ? undefined : server.database(db)?.schema;
      if (schema === undefined) throw new Error(`"${remote}": no database named ${db}`);
      const t = table === undefined ? undefined : schema.tables[table];
      if (t === undefined) throw new Error(`"${remote}": no table named ${table}`);
      if (column === undefined || !Object.hasOwn(t.columns, column)) {
        throw new Error(`"${remote}": table "${table}" has no column "${column}"`);
      }
    }
    await config.addRemote(remote);
    return '';
  });
  ctl.register('ovsdb-server/remove-remote', 'REMOTE', 1, 1, async (args) => {
    fixed();
    if (!config.configured.delete(args[0] as string)) throw new Error('no such remote');
    await config.reconfigure();
    return '';
  });
  ctl.register('ovsdb-server/list-remotes', '', 0, 0, () =>
    [...config.configured.keys()]
      .sort()
      .map((r) => `${r}\n`)
      .join(''),
  );
  ctl.register('ovsdb-server/list-dbs', '', 0, 0, () =>
    [...server.databaseNames]
      .sort()
      .map((n) => `${n}\n`)
      .join(''),
  );
  ctl.register('ovsdb-server/add-db', 'DB', 1, 1, (args) => {
    fixed();
    server.openDatabase(resolve(args[0] as string));
    return '';
  });
  ctl.register('ovsdb-server/remove-db', 'DB', 1, 1, (args) => {
    fixed();
    const name = args[0] as string;
    if (name.startsWith('_')) throw new Error('Cannot remove reserved database.');
    if (server.removeDatabase(name) === undefined) throw new Error('Failed to find the database.');
    return '';
  });
  ctl.register('ovsdb-server/reload', '', 0, 0, async () => {
    if (configFile === undefined) {
      throw new Error('Configuration file was not specified on command line');
    }
    try {
      server.log.write('ovsdb_server', 'INFO', `loading configuration from '${configFile}'`);
      const file = readConfigFile(configFile, process.cwd());
      const served = new Set(
        server.databaseNames.map((n) => server.databaseFile(n)).filter((f) => f !== undefined),
      );
      for (const name of server.databaseNames) {
        const f = server.databaseFile(name);
        if (f !== undefined && !file.databases.includes(f)) server.removeDatabase(name);
      }
      for (const f of file.databases) if (!served.has(f)) server.openDatabase(f);
      config.configured = file.remotes;
      await config.reconfigure();
    } catch (e) {
      server.log.write('ovsdb_server', 'WARN', (e as Error).message);
      throw new Error('Configuration failed.  See the log file for details.');
    }
    return '';
  });
  ctl.register('ovsdb-server/sync-status', '', 0, 0, () => 'state: active\n');
  ctl.register('ovsdb-server/get-db-storage-status', 'DB', 1, 1, (args) => {
    if (!server.databaseNames.includes(args[0] as string)) {
      throw new Error('Failed to find the database.');
    }
    return 'status: ok';
  });
  // What ovsdb-server 3.1 answers where it has no performance counters (Linux without perf events).
  ctl.register(
    'ovsdb-server/perf-counters-show',
    '',
    0,
    0,
    () => 'performance counter is not supported on this platform\n',
  );
  ctl.register('ovsdb-server/perf-counters-clear', '', 0, 0, () => '');
  ctl.register('memory/show', '', 0, 0, () => {
    // As ovsdb-server: figures that are 0 left out, but for monitors and n-weak-refs.
    const usage = server.memoryUsage();
    return Object.keys(usage)
      .sort()
      .filter((k) => usage[k] !== 0 || k === 'monitors' || k === 'n-weak-refs')
      .map((k) => `${k}:${usage[k]}`)
      .join(' ');
  });
  ctl.register('vlog/set', '{spec | PATTERN:destination:pattern}', 0, 100, (args) => {
    for (const spec of args.length === 0 ? [undefined] : args) {
      const error = router.levels.apply(spec);
      if (error !== undefined) throw new Error(error);
    }
    return '';
  });
  ctl.register('vlog/list', '', 0, 0, () => router.levels.list());
  ctl.register('vlog/reopen', '', 0, 0, () => {
    if (router.file === undefined) throw new Error('Logging to file not configured');
    server.log.write('vlog', 'INFO', `opened log file ${router.file}`);
    return '';
  });
}

/**
 * Start the server from command-line `args` (everything but `--detach`,
 * which the program itself handles). Resolves with the running server, or
 * with an exit status when there is nothing to run (help, errors).
 */
export async function startCli(args: readonly string[], io: CliIo): Promise<CliServer | number> {
  let options: ReturnType<typeof parseCommandLine>;
  try {
    options = parseCommandLine(args);
  } catch (e) {
    io.stderr(`${PROGRAM}: ${(e as Error).message}\n(use --help for help)\n`);
    return 2;
  }
  if (options.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (options.version) {
    io.stdout(`${PROGRAM} (ovnkit) ${packageVersion()}\n`);
    return 0;
  }
  let server: OvsdbServer | undefined;
  let ctl: UnixctlServer | undefined;
  let endpoint: MetricsEndpoint | undefined;
  let pidfile: Pidfile | undefined;
  try {
    let configFile: ReturnType<typeof readConfigFile> | undefined;
    if (options.configFile !== undefined) {
      try {
        configFile = readConfigFile(options.configFile, process.cwd());
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
    }
    const dbFiles = configFile?.databases ?? options.dbFiles;
    if (dbFiles.length === 0 && options.schemas.length === 0 && configFile === undefined) {
      throw new UsageError('give a database file (or --schema FILE)');
    }
    const configured: ConfiguredRemotes =
      configFile?.remotes ?? new Map(options.remotes.map((r) => [r, {}]));
    if (configured.size === 0 && options.unixctl === undefined) {
      throw new UsageError('give at least one --remote REMOTE (or --listen REMOTE, or --unixctl)');
    }
    if (options.db !== undefined && options.schemas.length !== 1) {
      throw new UsageError('--db keeps the database of exactly one --schema');
    }
    const schemas = readSchemas(options.schemas);
    const tlsFiles = [options.privateKey, options.certificate, options.caCert];
    const tlsGiven = tlsFiles.filter((f) => f !== undefined).length;
    // Settings read from a database are followed (see db-config.ts); files given are read now.
    const dbTls = [...tlsFiles, options.sslProtocols, options.sslCiphers].some((f) =>
      f?.startsWith('db:'),
    );
    if (!dbTls && tlsGiven !== 0 && tlsGiven !== 3) {
      throw new UsageError('--private-key, --certificate and --ca-cert go together');
    }
    if (options.sslProtocols !== undefined && !options.sslProtocols.startsWith('db:')) {
      if (parseProtocols(options.sslProtocols) === undefined) {
        throw new UsageError(
          `--ssl-protocols=${options.sslProtocols}: SSL protocol not recognized`,
        );
      }
    }
    const tls =
      !dbTls && tlsGiven === 3
        ? {
            key: readText(options.privateKey as string, 'private key'),
            cert: readText(options.certificate as string, 'certificate'),
            ca: readText(options.caCert as string, 'CA certificate'),
          }
        : undefined;
    const probeIntervalMs = nonNegative(options.probeInterval, '--probe-interval');
    const historyLength = nonNegative(options.history, '--history');
    const maxConnections = nonNegative(options.maxConnections, '--max-connections');
    let metricsAddress: ReturnType<typeof parseMetricsAddress> | undefined;
    if (options.metrics !== undefined) {
      try {
        metricsAddress = parseMetricsAddress(options.metrics);
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
    }
    // Before anything is opened, as ovsdb-server does: a second server must
    // not touch the files and sockets of the one running.
    if (options.pidfile !== undefined) {
      pidfile = Pidfile.create(options.pidfile, options.overwritePidfile);
    }
    if (metricsAddress !== undefined) endpoint = await startMetricsEndpoint(metricsAddress);
    const router = new LogRouter(options.vlog, options.logFile, (t) => io.stderr(t));
    let running: CliServer | undefined;
    let fatal: Error | undefined;
    // Remotes named directly are opened now (an error stops the start); the
    // others, and all when TLS comes from a database, follow the configuration.
    const direct = dbTls
      ? []
      : [...configured]
          .filter(([r, o]) => !r.startsWith('db:') && Object.keys(o).length === 0)
          .map(([r]) => r);
    server = await createServer({
      databases: schemas,
      dbFile: options.db,
      dbFiles,
      listen: direct,
      probeIntervalMs,
      historyLength,
      maxConnections,
      tls,
      storage: { columnDiff: options.columnDiff },
      onLog: (line) => router.line(line),
      metrics: endpoint?.metrics,
      onFatal: (e) => {
        fatal = e;
        void running?.stop(1);
      },
    });
    if (options.logFile !== undefined) {
      server.log.write('vlog', 'INFO', `opened log file ${options.logFile}`);
    }
    const remoteConfig = new RemoteConfig(
      server,
      configured,
      {
        privateKey: options.privateKey,
        certificate: options.certificate,
        caCert: options.caCert,
        sslProtocols: options.sslProtocols,
        sslCiphers: options.sslCiphers,
      },
      tls,
      direct,
    );
    await remoteConfig.start();
    const version = packageVersion();
    if (options.unixctl !== undefined) {
      ctl = await UnixctlServer.listen(
        options.unixctl,
        server.log,
        `${PROGRAM} (ovnkit) ${version}`,
      );
    }
    const s = server;
    const p = pidfile;
    if (p?.replacedPid !== undefined) {
      s.log.write(
        'daemon_unix',
        'INFO',
        `${p.path}: replaced a stale pidfile (pid ${p.replacedPid} is not an ${PROGRAM} holding it)`,
      );
    }
    const c = ctl;
    const metricsEndpoint = endpoint;
    if (metricsEndpoint !== undefined) {
      s.log.write('metrics', 'INFO', `serving metrics on ${metricsEndpoint.url}`);
    }
    let resolveExit: (code: number) => void = () => {};
    const exited = new Promise<number>((r) => {
      resolveExit = r;
    });
    let stopping: Promise<void> | undefined;
    running = {
      server: s,
      unixctl: c,
      log: router,
      exited,
      stop(code = 0) {
        stopping ??= (async () => {
          try {
            remoteConfig.stop();
            await s.close();
          } finally {
            await metricsEndpoint?.close();
            await c?.close();
            p?.remove();
            resolveExit(code);
          }
        })();
        return stopping;
      },
    };
    if (c !== undefined) registerCommands(c, running, router, remoteConfig, options.configFile);
    s.log.write('ovsdb_server', 'INFO', `${PROGRAM} (ovnkit) ${version}`);
    if (fatal !== undefined) void running.stop(1);
    if (!isDetachedChild()) {
      for (const remote of s.remotes) io.stdout(`listening on ${remote}\n`);
      if (metricsEndpoint !== undefined) io.stdout(`metrics on ${metricsEndpoint.url}\n`);
    }
    return running;
  } catch (e) {
    await ctl?.close();
    await server?.close();
    await endpoint?.close();
    pidfile?.remove();
    io.stderr(`${PROGRAM}: ${(e as Error).message}\n`);
    return e instanceof UsageError ? 2 : 1;
  }
}

/**
 * Name the process as it was started (`ovsdb-server` when run through a
 * link of that name, or by `exec -a ovsdb-server node …`, as `ovn-ctl`
 * looks for it in `/proc/<pid>/comm`), or `ovnkit-server`.
 */
function setProcessTitle(): void {
  const script = basename(process.argv[1] ?? '').replace(/\.[cm]?[jt]s$/, '');
  const argv0 = basename(process.argv0);
  process.title =
    script !== '' && script !== 'cli'
      ? script
      : argv0 !== '' && !/^node(js)?$/.test(argv0) && argv0 !== basename(process.execPath)
        ? argv0
        : PROGRAM;
}

function isMain(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;

/**
 * V8 settings for the program, each kept when the same flag is given on
 * the command line (`node --interrupt-budget=N …`). A server's start and
 * its first large transactions (`ovn-northd`'s first full Southbound write)
 * otherwise spend more CPU in TurboFan, compiling functions that are about
 * to go cold, than running them:
 *
 * - the tier-up budget, about three times the default (200,000 bytecode
 *   units instead of 67,584), so that a function is compiled only once it
 *   has run a while longer. A larger budget saves more at the start
 *   (1,000,000: a third less CPU on W8a's Southbound transaction) but
 *   leaves functions that run a few times per transaction interpreted for
 *   tens of thousands of transactions: sequential inserts cost twice the CPU
 *   after 12,000 of them;
 * - inlining up to 200 bytecode bytes per optimized function (default 920):
 *   each compile is smaller, and W8a's Southbound transaction runs about a
 *   fifth fewer instructions in all (TurboFan's share halved), with steady
 *   throughput (W9) unchanged.
 */
const V8_FLAGS: readonly (readonly [string, number])[] = [
  ['interrupt-budget', 200_000],
  ['max-inlined-bytecode-size-cumulative', 200],
];

/** Set {@link V8_FLAGS}, except those given on the command line. */
function setV8Flags(): void {
  const given = new Set(
    process.execArgv.map((a) => a.replace(/^--/, '').split('=')[0]?.replaceAll('_', '-')),
  );
  for (const [name, value] of V8_FLAGS) {
    if (!given.has(name)) setFlagsFromString(`--${name}=${value}`);
  }
}

async function main(): Promise<void> {
  setV8Flags();
  const io: CliIo = {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
  };
  const args = process.argv.slice(2);
  setProcessTitle();
  let options: CliOptions | undefined;
  try {
    options = parseCommandLine(args);
  } catch {
    // startCli reports it
  }
  if (options?.detach === true && !isDetachedChild()) {
    process.exitCode = await detach(args, io);
    return;
  }
  if (options?.monitor === true && !options.help && !options.version && !isMonitoredChild()) {
    const log = new ServerLog({ file: options.logFile });
    const code = await runMonitor(args, (level, text) =>
      log.write('daemon_unix(monitor)', level, text),
    );
    process.exit(code);
  }
  const started = await startCli(args, io);
  if (typeof started === 'number') {
    process.exitCode = started;
    return;
  }
  if (isDetachedChild()) {
    notifyStarted();
    const noChdir = args.some((a) => a === '--no-chdir');
    if (!noChdir) process.chdir('/');
    started.log.closeConsole();
    // The parent is gone: its end of stdout and stderr closes.
    process.stdout.on('error', () => {});
    process.stderr.on('error', () => {});
  }
  for (const [signal, n] of Object.entries(SIGNALS)) {
    process.once(signal, () => {
      started.server.log.write('fatal_signal', 'WARN', `terminating with signal ${n} (${signal})`);
      void started.stop(0);
    });
  }
  const code = await started.exited;
  process.exit(code);
}

if (isMain()) await main();

/**
 * The command line of `ovnkit-server`, read as ovsdb-server reads its own
 * (getopt_long): `--name=value`, `--name value` for options that need a
 * value, optional values only with `=` (`--pidfile[=FILE]`,
 * `--log-file[=FILE]`, `--verbose[=SPEC]`), short options (`-vSPEC`,
 * `-p FILE`), positional database files, and `--` to end the options.
 *
 * Relative file names are resolved as Open vSwitch resolves them: a pidfile
 * or control socket against the run directory (`$OVS_RUNDIR`, default
 * `/var/run/openvswitch`), a log file against the log directory
 * (`$OVS_LOGDIR`, default `/var/log/openvswitch`), the socket of a
 * `--remote=punix:` against the run directory; database files and
 * `--listen=punix:` sockets against the working directory.
 * @module
 */

import { isAbsolute, resolve } from 'node:path';
import { VlogLevels } from './cli-log.js';

/** A command-line mistake: printed with the usage hint, exit status 2. */
export class UsageError extends Error {}

/** The program's name in messages and default file names. */
export const PROGRAM = 'ovnkit-server';

/** The run directory: `$OVS_RUNDIR`, or `/var/run/openvswitch`. */
export function runDir(): string {
  return process.env.OVS_RUNDIR || '/var/run/openvswitch';
}

/** The log directory: `$OVS_LOGDIR`, or `/var/log/openvswitch`. */
export function logDir(): string {
  return process.env.OVS_LOGDIR || '/var/log/openvswitch';
}

/** Open vSwitch's `abs_file_name`: `name` if absolute, else under `dir`. */
export function absFileName(dir: string, name: string): string {
  return isAbsolute(name) ? name : resolve(dir, name);
}

/** What the command line asks for. */
export interface CliOptions {
  /** Database files (absolute), as ovsdb-server's positional arguments. */
  readonly dbFiles: string[];
  /** `--schema` files: databases served from memory (or kept in `--db`). */
  readonly schemas: string[];
  /** `--db FILE`: the file that keeps the one `--schema` database. */
  readonly db: string | undefined;
  /** Passive remotes to listen on (punix paths absolute), without duplicates. */
  readonly remotes: string[];
  readonly unixctl: string | undefined;
  readonly pidfile: string | undefined;
  readonly overwritePidfile: boolean;
  readonly detach: boolean;
  readonly noChdir: boolean;
  readonly logFile: string | undefined;
  readonly vlog: VlogLevels;
  readonly probeInterval: string | undefined;
  /** `--max-connections=N`: most connections at once (0: no limit). */
  readonly maxConnections: string | undefined;
  readonly history: string | undefined;
  /** `--metrics=[IP]:PORT`: serve Prometheus metrics over HTTP there. */
  readonly metrics: string | undefined;
  /** `--private-key`: a PEM file, or `db:DB,TABLE,COLUMN` naming where to read its name. */
  readonly privateKey: string | undefined;
  readonly certificate: string | undefined;
  readonly caCert: string | undefined;
  /** `--ssl-protocols`: e.g. `TLSv1.2,TLSv1.3`, or a `db:` reference. */
  readonly sslProtocols: string | undefined;
  /** `--ssl-ciphers`: an OpenSSL cipher list, or a `db:` reference. */
  readonly sslCiphers: string | undefined;
  /** `--config-file`: remotes and databases from a JSON file (absolute). */
  readonly configFile: string | undefined;
  /** `--monitor`: a monitoring parent restarts the server when it crashes. */
  readonly monitor: boolean;
  readonly columnDiff: boolean;
  readonly help: boolean;
  readonly version: boolean;
}

type Arity = 'none' | 'required' | 'optional';

interface Spec {
  readonly arity: Arity;
  readonly short?: string;
}

const OPTIONS: Readonly<Record<string, Spec>> = {
  remote: { arity: 'required' },
  listen: { arity: 'required' },
  schema: { arity: 'required' },
  db: { arity: 'required' },
  unixctl: { arity: 'required' },
  pidfile: { arity: 'optional' },
  'overwrite-pidfile': { arity: 'none' },
  detach: { arity: 'none' },
  'no-chdir': { arity: 'none' },
  'log-file': { arity: 'optional' },
  verbose: { arity: 'optional', short: 'v' },
  'private-key': { arity: 'required', short: 'p' },
  certificate: { arity: 'required', short: 'c' },
  'ca-cert': { arity: 'required', short: 'C' },
  'ssl-protocols': { arity: 'required' },
  'ssl-ciphers': { arity: 'required' },
  'config-file': { arity: 'required' },
  monitor: { arity: 'none' },
  'no-monitor': { arity: 'none' },
  'probe-interval': { arity: 'required' },
  'max-connections': { arity: 'required' },
  history: { arity: 'required' },
  metrics: { arity: 'required' },
  'disable-file-column-diff': { arity: 'none' },
  'no-self-confinement': { arity: 'none' },
  help: { arity: 'none', short: 'h' },
  version: { arity: 'none', short: 'V' },
};

/** ovsdb-server options that ovnkit-server does not honour. */
const UNSUPPORTED = new Set([
  'user',
  'run',
  'sync-from',
  'sync-exclude-tables',
  'active',
  'bootstrap-ca-cert',
  'peer-ca-cert',
  'syslog-target',
  'syslog-method',
  'unixctl-path',
]);

const SHORT = new Map(
  Object.entries(OPTIONS)
    .filter(([, s]) => s.short !== undefined)
    .map(([name, s]) => [s.short as string, name]),
);

/** The database directory: `$OVS_DBDIR`, or `/etc/openvswitch` (where `--config-file` is relative to). */
export function dbDir(): string {
  return process.env.OVS_DBDIR || '/etc/openvswitch';
}

/** Where `--name` last appears in `args` (-1: nowhere). */
function lastIndex(args: readonly string[], name: string): number {
  for (let i = args.length - 1; i >= 0; i--) if (args[i] === `--${name}`) return i;
  return -1;
}

/** A remote with a relative `punix:` path made absolute against `dir`. */
function absRemote(remote: string, dir: string): string {
  const m = /^punix:(.*)$/.exec(remote);
  return m === null || (m[1] as string) === ''
    ? remote
    : `punix:${absFileName(dir, m[1] as string)}`;
}

/**
 * Read `args` (without the program name).
 * @throws UsageError naming the option at fault.
 */
export function parseCommandLine(args: readonly string[]): CliOptions {
  const values = new Map<string, (string | undefined)[]>();
  const positional: string[] = [];
  const add = (name: string, value: string | undefined) => {
    const list = values.get(name) ?? [];
    list.push(value);
    values.set(name, list);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const inline = eq < 0 ? undefined : arg.slice(eq + 1);
      const spec = Object.hasOwn(OPTIONS, name) ? OPTIONS[name] : undefined;
      if (spec === undefined) {
        throw new UsageError(
          UNSUPPORTED.has(name)
            ? `option '--${name}' is not supported by ${PROGRAM}`
            : `unrecognized option '--${name}'`,
        );
      }
      if (spec.arity === 'none') {
        if (inline !== undefined)
          throw new UsageError(`option '--${name}' doesn't allow an argument`);
        add(name, undefined);
      } else if (spec.arity === 'optional') {
        add(name, inline);
      } else if (inline !== undefined) {
        add(name, inline);
      } else {
        const next = args[i + 1];
        if (next === undefined) throw new UsageError(`option '--${name}' requires an argument`);
        add(name, next);
        i++;
      }
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      const letter = arg[1] as string;
      const name = SHORT.get(letter);
      if (name === undefined) throw new UsageError(`invalid option -- '${letter}'`);
      const spec = OPTIONS[name] as Spec;
      const rest = arg.slice(2);
      if (spec.arity === 'none') {
        if (rest !== '') throw new UsageError(`invalid option -- '${rest[0]}' (after -${letter})`);
        add(name, undefined);
      } else if (spec.arity === 'optional') {
        add(name, rest === '' ? undefined : rest);
      } else if (rest !== '') {
        add(name, rest);
      } else {
        const next = args[i + 1];
        if (next === undefined) throw new UsageError(`option requires an argument -- '${letter}'`);
        add(name, next);
        i++;
      }
      continue;
    }
    positional.push(arg);
  }

  const one = (name: string): string | undefined => {
    const list = values.get(name);
    return list === undefined ? undefined : list[list.length - 1];
  };
  const flag = (name: string) => values.has(name);
  const run = runDir();

  const remotes: string[] = [];
  for (const r of values.get('remote') ?? []) remotes.push(absRemote(r as string, run));
  for (const r of values.get('listen') ?? []) remotes.push(absRemote(r as string, process.cwd()));

  const vlog = new VlogLevels();
  for (const spec of values.get('verbose') ?? []) {
    const error = vlog.apply(spec);
    if (error !== undefined) throw new UsageError(`processing "${spec}": ${error}`);
  }

  const unixctl = one('unixctl');
  const configFile = one('config-file');
  if (configFile !== undefined) {
    if (remotes.length > 0)
      throw new UsageError('--config-file is mutually exclusive with --remote');
    if (positional.length > 0)
      throw new UsageError('Databases should be specified in a config file');
  }
  return {
    dbFiles: positional.map((f) => resolve(f)),
    schemas: (values.get('schema') ?? []) as string[],
    db: one('db'),
    remotes: [...new Set(remotes)],
    unixctl: unixctl === undefined || unixctl === 'none' ? undefined : absFileName(run, unixctl),
    pidfile: flag('pidfile') ? absFileName(run, one('pidfile') ?? `${PROGRAM}.pid`) : undefined,
    overwritePidfile: flag('overwrite-pidfile'),
    detach: flag('detach'),
    noChdir: flag('no-chdir'),
    logFile: flag('log-file')
      ? absFileName(logDir(), one('log-file') ?? `${PROGRAM}.log`)
      : undefined,
    vlog,
    probeInterval: one('probe-interval'),
    maxConnections: one('max-connections'),
    history: one('history'),
    metrics: one('metrics'),
    privateKey: one('private-key'),
    certificate: one('certificate'),
    caCert: one('ca-cert'),
    sslProtocols: one('ssl-protocols'),
    sslCiphers: one('ssl-ciphers'),
    configFile: configFile === undefined ? undefined : absFileName(dbDir(), configFile),
    monitor:
      flag('monitor') &&
      !(
        values.get('no-monitor') !== undefined &&
        lastIndex(args, 'no-monitor') > lastIndex(args, 'monitor')
      ),
    columnDiff: !flag('disable-file-column-diff'),
    help: flag('help'),
    version: flag('version'),
  };
}

/**
 * The Northbound database's own configuration: the remotes `ovsdb-server`
 * listens on or connects to (`NB_Global.connections`, `ovn-nbctl
 * get-connection`, `set-connection`, `del-connection`) and its TLS files
 * (`NB_Global.ssl`, `ovn-nbctl get-ssl`, `set-ssl`, `del-ssl`). They take
 * effect on a server started with `--remote=db:OVN_Northbound,NB_Global,connections`
 * (and `--private-key=db:OVN_Northbound,SSL,private_key`, …).
 *
 * Unlike `ovn-nbctl`, which stores any target with a warning, targets are
 * checked: `ptcp:PORT[:IP]`, `pssl:PORT[:IP]`, `punix:FILE` (passive),
 * `tcp:HOST:PORT`, `ssl:HOST:PORT`, `unix:FILE` (active), an IPv6 address
 * in brackets. The NB `Connection` table has no `role` column (the SB one
 * has): `read-only` and `read-write` are refused (`ovn-nbctl set-connection
 * read-only …` stores the word itself as a target).
 * @module
 */

import { InvalidArgumentError, OutOfRangeError } from './errors.js';
import { parseIp } from './ip.js';
import type { NeedsOf } from './needs.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkName } from './validate.js';
import { ensureNbGlobal } from './wait.js';

/** The connection methods of a target (`ovn-nbctl --help`). */
export const CONNECTION_METHODS = ['ptcp', 'pssl', 'punix', 'tcp', 'ssl', 'unix'] as const;
/** A connection method. */
export type ConnectionMethod = (typeof CONNECTION_METHODS)[number];

/** Options of {@link setConnection}. */
export interface SetConnectionOptions {
  /** `inactivity_probe` of every connection, ms (`--inactivity-probe=MSECS`; 0 disables it). */
  readonly inactivityProbe?: number | undefined;
}

/** The largest inactivity probe (ms) `ovsdb-server` takes (an `int`). */
const PROBE_MAX = 2 ** 31 - 1;

function checkPort(target: string, text: string | undefined, min: number): void {
  if (
    text === undefined ||
    !/^[0-9]{1,5}$/.test(text) ||
    Number(text) < min ||
    Number(text) > 65535
  ) {
    throw new InvalidArgumentError(
      'Connection.target',
      target,
      `the port must be an integer in ${min}..65535`,
    );
  }
}

/** Split `HOST:PORT` or `[IPv6]:PORT` (the port may be missing). */
function splitHostPort(rest: string): { host: string; port: string | undefined } {
  if (rest.startsWith('[')) {
    const end = rest.indexOf(']');
    if (end < 0) return { host: rest, port: undefined };
    const after = rest.slice(end + 1);
    return {
      host: rest.slice(1, end),
      port: after.startsWith(':') ? after.slice(1) : after === '' ? undefined : after,
    };
  }
  const i = rest.lastIndexOf(':');
  return i < 0
    ? { host: rest, port: undefined }
    : { host: rest.slice(0, i), port: rest.slice(i + 1) };
}

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * Check a connection target and return it.
 * @throws InvalidArgumentError naming `Connection.target` and the value.
 */
export function checkConnectionTarget(target: unknown): string {
  checkName('Connection.target', target);
  const value = target as string;
  if (value === 'read-only' || value === 'read-write') {
    throw new InvalidArgumentError(
      'Connection.target',
      value,
      'the Northbound Connection table has no role column: a role cannot be set',
    );
  }
  const colon = value.indexOf(':');
  const method = colon < 0 ? value : value.slice(0, colon);
  if (colon < 0 || !(CONNECTION_METHODS as readonly string[]).includes(method)) {
    throw new InvalidArgumentError(
      'Connection.target',
      value,
      `must start with one of ${CONNECTION_METHODS.map((m) => `${m}:`).join(', ')}`,
    );
  }
  const rest = value.slice(colon + 1);
  if (method === 'unix' || method === 'punix') {
    if (rest === '' || rest.includes('\0')) {
      throw new InvalidArgumentError('Connection.target', value, `${method}: needs a file name`);
    }
    return value;
  }
  if (method === 'ptcp' || method === 'pssl') {
    // PORT[:IP]
    const i = rest.indexOf(':');
    const port = i < 0 ? rest : rest.slice(0, i);
    checkPort(value, port, 0);
    if (i >= 0) {
      let ip = rest.slice(i + 1);
      if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
      if (parseIp(ip) === undefined) {
        throw new InvalidArgumentError(
          'Connection.target',
          value,
          `${method}: IP must be an IP address`,
        );
      }
    }
    return value;
  }
  // tcp:HOST:PORT, ssl:HOST:PORT
  const { host, port } = splitHostPort(rest);
  const bracketed = rest.startsWith('[');
  if (
    bracketed ? parseIp(host) === undefined : parseIp(host) === undefined && !HOSTNAME.test(host)
  ) {
    throw new InvalidArgumentError(
      'Connection.target',
      value,
      `${method}: HOST must be an IP address (IPv6 in brackets) or a host name`,
    );
  }
  checkPort(value, port, 1);
  return value;
}

function nbGlobal(t: NbTxn): NbRow<'NB_Global'> {
  return ensureNbGlobal(t) ?? (t.rows('NB_Global')[0] as NbRow<'NB_Global'>);
}

/**
 * The connection targets, sorted (`ovn-nbctl get-connection`).
 */
export function getConnection<DB extends NeedsOf<'getConnection'>>(t: NbTxn<DB>): string[];
export function getConnection(t: NbTxn): string[] {
  const g = t.rows('NB_Global')[0];
  if (g === undefined) return [];
  return g.connections
    .map((u) => t.get('Connection', u)?.target)
    .filter((s): s is string => s !== undefined)
    .sort();
}

/**
 * Replace the connections with one per target (`ovn-nbctl [--inactivity-probe=MSECS]
 * set-connection TARGET...`); the old `Connection` rows go with them.
 *
 * ```ts
 * setConnection(t, ['ptcp:6641:0.0.0.0', 'punix:/var/run/ovn/ovnnb_db.sock'], { inactivityProbe: 60000 });
 * // {"op":"insert","table":"Connection","row":{"inactivity_probe":60000,"target":"ptcp:6641:0.0.0.0"},…}
 * // {"op":"insert","table":"Connection","row":{"inactivity_probe":60000,"target":"punix:/var/run/ovn/ovnnb_db.sock"},…}
 * // {"op":"update","table":"NB_Global",…,"row":{"connections":["set",[["named-uuid","row0"],["named-uuid","row1"]]]}}
 * ```
 * @throws InvalidArgumentError for no target, a malformed or repeated
 *   target, or a role; OutOfRangeError for an inactivity probe outside
 *   0..2147483647.
 */
export function setConnection<DB extends NeedsOf<'setConnection'>>(
  t: NbTxn<DB>,
  targets: readonly string[],
  options?: SetConnectionOptions,
): void;
export function setConnection(
  t: NbTxn,
  targets: readonly string[],
  options: SetConnectionOptions = {},
): void {
  if (!Array.isArray(targets) || targets.length === 0) {
    throw new InvalidArgumentError('Connection.target', targets, 'at least one target is required');
  }
  const checked = targets.map(checkConnectionTarget);
  const seen = new Set<string>();
  for (const target of checked) {
    if (seen.has(target)) {
      throw new InvalidArgumentError('Connection.target', target, 'is given twice');
    }
    seen.add(target);
  }
  const probe = options.inactivityProbe;
  if (probe !== undefined) {
    if (typeof probe !== 'number' || !Number.isInteger(probe) || probe < 0 || probe > PROBE_MAX) {
      throw new OutOfRangeError('Connection.inactivity_probe', probe, 0, PROBE_MAX);
    }
  }
  const g = nbGlobal(t);
  const uuids = checked.map((target) =>
    t.insert('Connection', {
      target,
      ...(probe !== undefined ? { inactivity_probe: probe } : {}),
    }),
  );
  t.update('NB_Global', g._uuid, { connections: uuids });
}

/** Remove every connection (`ovn-nbctl del-connection`); none is not an error. */
export function delConnection<DB extends NeedsOf<'delConnection'>>(t: NbTxn<DB>): void;
export function delConnection(t: NbTxn): void {
  const g = t.rows('NB_Global')[0];
  if (g === undefined || g.connections.length === 0) return;
  t.update('NB_Global', g._uuid, { connections: [] });
}

/** The TLS configuration (`NB_Global.ssl`). */
export interface SslConfig {
  /** The private key file. */
  readonly privateKey: string;
  /** The certificate file (of the private key). */
  readonly certificate: string;
  /** The CA certificate file, to check peers. */
  readonly caCert: string;
  /** Whether `caCert` is read, or created from the peer's CA on first connection (`--bootstrap`). */
  readonly bootstrap?: boolean | undefined;
  /** The TLS protocols, e.g. `TLSv1.2,TLSv1.3` (the server's default when empty). */
  readonly sslProtocols?: string | undefined;
  /** The OpenSSL cipher list (the server's default when empty). */
  readonly sslCiphers?: string | undefined;
}

/** The TLS protocol names `ovsdb-server` takes (with `+`: that one and the newer ones). */
const TLS_PROTOCOL = /^TLSv1(?:\.[1-3])?\+?$/;

function checkFile(field: string, value: unknown): string {
  checkName(field, value);
  if ((value as string).includes('\0')) {
    throw new InvalidArgumentError(field, value, 'must not contain NUL');
  }
  return value as string;
}

/**
 * Set the TLS configuration (`ovn-nbctl [--bootstrap] set-ssl PRIV-KEY CERT
 * CA-CERT [SSL-PROTOS [SSL-CIPHERS]]`), replacing the previous one.
 *
 * ```ts
 * setSsl(t, { privateKey: '/etc/ovn/key.pem', certificate: '/etc/ovn/cert.pem', caCert: '/etc/ovn/ca.pem' });
 * // {"op":"insert","table":"SSL","row":{"ca_cert":"/etc/ovn/ca.pem","certificate":"/etc/ovn/cert.pem","private_key":"/etc/ovn/key.pem"},…}
 * // {"op":"update","table":"NB_Global",…,"row":{"ssl":["named-uuid","row0"]}}
 * ```
 * @throws InvalidArgumentError for an empty file name, a protocol list
 *   with a name other than `TLSv1`, `TLSv1.1`, `TLSv1.2`, `TLSv1.3` (each
 *   optionally followed by `+`), or values of the wrong type.
 */
export function setSsl<DB extends NeedsOf<'setSsl'>>(t: NbTxn<DB>, config: SslConfig): void;
export function setSsl(t: NbTxn, config: SslConfig): void {
  if (config === null || typeof config !== 'object') {
    throw new InvalidArgumentError('SSL', config, 'must be an object');
  }
  const privateKey = checkFile('SSL.private_key', config.privateKey);
  const certificate = checkFile('SSL.certificate', config.certificate);
  const caCert = checkFile('SSL.ca_cert', config.caCert);
  const bootstrap = config.bootstrap ?? false;
  if (typeof bootstrap !== 'boolean') {
    throw new InvalidArgumentError('SSL.bootstrap_ca_cert', bootstrap, 'must be a boolean');
  }
  const protocols = config.sslProtocols ?? '';
  if (typeof protocols !== 'string') {
    throw new InvalidArgumentError('SSL.ssl_protocols', protocols, 'must be a string');
  }
  for (const p of protocols.split(/[\s,]+/).filter(Boolean)) {
    if (!TLS_PROTOCOL.test(p)) {
      throw new InvalidArgumentError(
        'SSL.ssl_protocols',
        protocols,
        `unknown protocol ${JSON.stringify(p)} (TLSv1, TLSv1.1, TLSv1.2, TLSv1.3, optionally with +)`,
      );
    }
  }
  const ciphers = config.sslCiphers ?? '';
  if (typeof ciphers !== 'string' || ciphers.includes('\0')) {
    throw new InvalidArgumentError('SSL.ssl_ciphers', ciphers, 'must be a string without NUL');
  }
  const g = nbGlobal(t);
  const ssl = t.insert('SSL', {
    private_key: privateKey,
    certificate,
    ca_cert: caCert,
    bootstrap_ca_cert: bootstrap,
    ssl_protocols: protocols,
    ssl_ciphers: ciphers,
  });
  t.update('NB_Global', g._uuid, { ssl });
}

/** The TLS configuration as {@link getSsl} returns it (every field present). */
export interface SslSettings {
  readonly privateKey: string;
  readonly certificate: string;
  readonly caCert: string;
  readonly bootstrap: boolean;
  readonly sslProtocols: string;
  readonly sslCiphers: string;
}

/**
 * The TLS configuration (`ovn-nbctl get-ssl` prints its files and
 * bootstrap flag), or undefined when there is none (it prints nothing).
 */
export function getSsl<DB extends NeedsOf<'getSsl'>>(t: NbTxn<DB>): SslSettings | undefined;
export function getSsl(t: NbTxn): SslSettings | undefined {
  const g = t.rows('NB_Global')[0];
  const row = g?.ssl == null ? undefined : t.get('SSL', g.ssl);
  if (row === undefined) return undefined;
  return {
    privateKey: row.private_key,
    certificate: row.certificate,
    caCert: row.ca_cert,
    bootstrap: row.bootstrap_ca_cert,
    sslProtocols: row.ssl_protocols,
    sslCiphers: row.ssl_ciphers,
  };
}

/** Remove the TLS configuration (`ovn-nbctl del-ssl`); none is not an error. */
export function delSsl<DB extends NeedsOf<'delSsl'>>(t: NbTxn<DB>): void;
export function delSsl(t: NbTxn): void {
  const g = t.rows('NB_Global')[0];
  if (g === undefined || g.ssl == null) return;
  t.update('NB_Global', g._uuid, { ssl: null });
}

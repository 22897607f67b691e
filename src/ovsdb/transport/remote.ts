/**
 * OVSDB connection methods ("remotes"), as ovsdb(7) "Connection Methods"
 * defines them: active ones a client connects to (`tcp:`, `ssl:`, `unix:`) and
 * passive ones a server listens on (`ptcp:`, `pssl:`, `punix:`). Clients may
 * also name a WebSocket endpoint (`ws://…`, `wss://…`): OVSDB has no WebSocket
 * transport of its own, so such an endpoint is a bridge (`ovnkit bridge`) or
 * a server that speaks WebSocket itself (the in-memory server).
 *
 * ```ts
 * parseRemote('tcp:127.0.0.1:6641'); // { kind: 'tcp', host: '127.0.0.1', port: 6641 }
 * parseRemote('ssl:[::1]');          // { kind: 'ssl', host: '::1', port: 6640 }
 * parseRemote('unix:/run/ovn/ovnnb_db.sock'); // { kind: 'unix', path: '/run/ovn/ovnnb_db.sock' }
 * parseRemote('ws://127.0.0.1:8080/ovsdb');
 * // { kind: 'ws', url: 'ws://127.0.0.1:8080/ovsdb', host: '127.0.0.1', port: 8080, path: '/ovsdb' }
 * parsePassiveRemote('ptcp:6641:127.0.0.1'); // { kind: 'ptcp', port: 6641, host: '127.0.0.1' }
 * ```
 * @module
 */

import { OvsdbError } from '../wire/errors.js';

/** The port a TCP-based connection method uses when it names none (ovsdb(7)). */
export const DEFAULT_OVSDB_PORT = 6640;

/** An active TCP or SSL/TLS connection method: `tcp:<host>[:<port>]`, `ssl:<host>[:<port>]`. */
export interface InetRemote {
  readonly kind: 'tcp' | 'ssl';
  /** Host name or IP address; an IPv6 address is stored without its brackets. */
  readonly host: string;
  /** 1–65535; {@link DEFAULT_OVSDB_PORT} when the string names none. */
  readonly port: number;
}

/** An active Unix domain socket connection method: `unix:<file>`. */
export interface UnixRemote {
  readonly kind: 'unix';
  /** The socket file, as written (a relative path is relative to the working directory). */
  readonly path: string;
}

/**
 * A WebSocket endpoint: `ws://<host>[:<port>][/<path>][?<query>]` or `wss://…`
 * (also written `ws:<host>[:<port>]`). One JSON-RPC message travels per text
 * frame. This module only parses it; opening one needs a WebSocket
 * implementation (`ws` in Node, the global `WebSocket` in browsers).
 */
export interface WebSocketRemote {
  readonly kind: 'ws' | 'wss';
  /** The URL to open, normalized (`ws://host:port/path?query`); it may carry a `token` query parameter. */
  readonly url: string;
  /** Host name or IP address; an IPv6 address is stored without its brackets. */
  readonly host: string;
  /** 1–65535; 80 for `ws` and 443 for `wss` when the URL names none. */
  readonly port: number;
  /** The path with its query string, e.g. `/ovsdb?token=…`; at least `/`. */
  readonly path: string;
}

/** A socket connection method: `tcp:`, `ssl:` or `unix:` (what `ovsdb-server` itself accepts). */
export type SocketRemote = InetRemote | UnixRemote;

/** An active connection method: where a client connects to. */
export type Remote = InetRemote | UnixRemote | WebSocketRemote;

/** A passive TCP or SSL/TLS connection method: `ptcp:[<port>][:<ip>]`, `pssl:[<port>][:<ip>]`. */
export interface PassiveInetRemote {
  readonly kind: 'ptcp' | 'pssl';
  /** 0–65535 (0 asks the system for a free port); {@link DEFAULT_OVSDB_PORT} when omitted. */
  readonly port: number;
  /** The local address to bind, without brackets; absent means every IPv4 address. */
  readonly host?: string | undefined;
}

/** A passive Unix domain socket connection method: `punix:<file>`. */
export interface PassiveUnixRemote {
  readonly kind: 'punix';
  /** The socket file to create. */
  readonly path: string;
}

/** A passive connection method: where a server listens. */
export type PassiveRemote = PassiveInetRemote | PassiveUnixRemote;

/** A connection method string could not be parsed; `remote` is the string as given. */
export class RemoteSyntaxError extends OvsdbError {
  override name = 'RemoteSyntaxError';
  constructor(
    /** The connection method as given. */
    readonly remote: string,
    /** Why it was rejected. */
    readonly reason: string,
  ) {
    super(`invalid OVSDB remote ${JSON.stringify(remote)}: ${reason}`);
  }
}

const ACTIVE_HINT =
  'expected tcp:<host>[:<port>], ssl:<host>[:<port>], unix:<file> or ws[s]://<host>[:<port>][/<path>]';
const PASSIVE_HINT = 'expected ptcp:[<port>][:<ip>], pssl:[<port>][:<ip>] or punix:<file>';

/**
 * Parse an active connection method (`tcp:`, `ssl:`, `unix:`, `ws:`, `wss:`).
 * For `tcp:` and `ssl:` the port may be omitted and defaults to 6640; IPv6
 * addresses go in brackets (`tcp:[::1]:6641`). WebSocket remotes are URLs
 * (`ws://127.0.0.1:8080/ovsdb`, `wss://[::1]/ovsdb?token=…`) or the OVSDB-style
 * `ws:<host>[:<port>]`; their port defaults to 80 (`ws`) or 443 (`wss`).
 *
 * @throws {@link RemoteSyntaxError} for anything else, including passive
 * methods and comma-separated lists (use {@link parseRemoteList}).
 */
export function parseRemote(text: string): Remote {
  const s = text.trim();
  const colon = s.indexOf(':');
  if (colon < 0) throw new RemoteSyntaxError(text, `no method prefix; ${ACTIVE_HINT}`);
  const method = s.slice(0, colon).toLowerCase();
  const rest = s.slice(colon + 1);
  if (s.includes(',') && method !== 'ws' && method !== 'wss') {
    throw new RemoteSyntaxError(
      text,
      'a comma-separated list names several servers; parse it with parseRemoteList',
    );
  }
  switch (method) {
    case 'tcp':
    case 'ssl': {
      const { host, port } = parseHostPort(text, rest, false);
      if (host === undefined) throw new RemoteSyntaxError(text, `${method}: needs a host`);
      return { kind: method, host, port: port ?? DEFAULT_OVSDB_PORT };
    }
    case 'unix':
      if (rest === '') throw new RemoteSyntaxError(text, 'unix: needs a socket file path');
      return { kind: 'unix', path: rest };
    case 'ws':
    case 'wss':
      return parseWebSocketRemote(text, method, rest);
    case 'ptcp':
    case 'pssl':
    case 'punix':
    case 'pfd':
      throw new RemoteSyntaxError(
        text,
        `${method}: is a passive (listening) method; a client needs an active one: ${ACTIVE_HINT}`,
      );
    default:
      throw new RemoteSyntaxError(text, `unknown method "${method}:"; ${ACTIVE_HINT}`);
  }
}

/**
 * Parse a passive connection method (`ptcp:`, `pssl:`, `punix:`), as a server
 * listens on. `ptcp:` alone means port 6640 on every IPv4 address.
 *
 * @throws {@link RemoteSyntaxError} for anything else, including active methods and `pfd:`.
 */
export function parsePassiveRemote(text: string): PassiveRemote {
  const s = text.trim();
  const colon = s.indexOf(':');
  if (colon < 0) throw new RemoteSyntaxError(text, `no method prefix; ${PASSIVE_HINT}`);
  const method = s.slice(0, colon).toLowerCase();
  const rest = s.slice(colon + 1);
  switch (method) {
    case 'ptcp':
    case 'pssl': {
      const { host, port } = parseHostPort(text, rest, true);
      return host === undefined
        ? { kind: method, port: port ?? DEFAULT_OVSDB_PORT }
        : { kind: method, port: port ?? DEFAULT_OVSDB_PORT, host };
    }
    case 'punix':
      if (rest === '') throw new RemoteSyntaxError(text, 'punix: needs a socket file path');
      return { kind: 'punix', path: rest };
    case 'pfd':
      throw new RemoteSyntaxError(text, 'pfd: (a pre-opened descriptor) is not supported');
    case 'tcp':
    case 'ssl':
    case 'unix':
      throw new RemoteSyntaxError(
        text,
        `${method}: is an active method; a server listens on a passive one: ${PASSIVE_HINT}`,
      );
    default:
      throw new RemoteSyntaxError(text, `unknown method "${method}:"; ${PASSIVE_HINT}`);
  }
}

/** The servers of a comma-separated remote list, plus the cluster ID when one is given. */
export interface RemoteList {
  readonly remotes: readonly Remote[];
  /** The `cid:<uuid>` member, lower-cased, when present. */
  readonly cid?: string | undefined;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Parse `<method1>,<method2>,…` (commas with optional spaces), as used to name
 * every server of a cluster. A `cid:<uuid>` member names the cluster ID.
 *
 * ```ts
 * parseRemoteList('tcp:10.0.0.1:6641, tcp:10.0.0.2:6641');
 * // { remotes: [{ kind: 'tcp', host: '10.0.0.1', port: 6641 }, { kind: 'tcp', host: '10.0.0.2', port: 6641 }] }
 * ```
 * @throws {@link RemoteSyntaxError} when a member is invalid, the list has no server, or two `cid:` members.
 */
export function parseRemoteList(text: string): RemoteList {
  const remotes: Remote[] = [];
  let cid: string | undefined;
  for (const part of text.split(',')) {
    const member = part.trim();
    if (member === '') throw new RemoteSyntaxError(text, 'empty member in the list');
    if (member.toLowerCase().startsWith('cid:')) {
      const id = member.slice(4).trim();
      if (!UUID_RE.test(id)) throw new RemoteSyntaxError(text, `cid: needs a UUID, got "${id}"`);
      if (cid !== undefined) throw new RemoteSyntaxError(text, 'more than one cid: member');
      cid = id.toLowerCase();
      continue;
    }
    remotes.push(parseRemote(member));
  }
  if (remotes.length === 0) throw new RemoteSyntaxError(text, 'the list names no server');
  return cid === undefined ? { remotes } : { remotes, cid };
}

/**
 * The canonical string of an active or passive remote: the form the parsers
 * accept, with the port always written and IPv6 addresses in brackets.
 *
 * ```ts
 * formatRemote({ kind: 'tcp', host: '::1', port: 6641 }); // 'tcp:[::1]:6641'
 * ```
 */
export function formatRemote(remote: Remote | PassiveRemote): string {
  switch (remote.kind) {
    case 'ws':
    case 'wss':
      return remote.url;
    case 'unix':
    case 'punix':
      return `${remote.kind}:${remote.path}`;
    case 'tcp':
    case 'ssl':
      return `${remote.kind}:${bracket(remote.host)}:${remote.port}`;
    case 'ptcp':
    case 'pssl':
      return remote.host === undefined
        ? `${remote.kind}:${remote.port}`
        : `${remote.kind}:${remote.port}:${bracket(remote.host)}`;
  }
}

/**
 * A remote's text for logs and error messages: like {@link formatRemote}, but a
 * WebSocket URL's `token` (and `access_token`) query parameter is replaced by
 * `***` so that secrets do not end up in logs.
 *
 * ```ts
 * describeRemote(parseRemote('ws://h:8080/ovsdb?token=s3cret')); // 'ws://h:8080/ovsdb?token=***'
 * ```
 */
export function describeRemote(remote: Remote | PassiveRemote): string {
  const text = formatRemote(remote);
  if (remote.kind !== 'ws' && remote.kind !== 'wss') return text;
  return redactUrlSecrets(text);
}

/** Replace the values of `token` and `access_token` query parameters of `url` by `***`. */
export function redactUrlSecrets(url: string): string {
  return url.replace(/([?&](?:access_)?token=)[^&#]*/gi, '$1***');
}

/** True for a remote string that names a WebSocket endpoint (`ws:` or `wss:`). */
export function isWebSocketRemote(remote: string | Remote): boolean {
  if (typeof remote !== 'string') return remote.kind === 'ws' || remote.kind === 'wss';
  return /^\s*wss?:/i.test(remote);
}

function parseWebSocketRemote(text: string, method: 'ws' | 'wss', rest: string): WebSocketRemote {
  const defaultPort = method === 'ws' ? 80 : 443;
  let host: string;
  let port: number;
  let path: string;
  if (rest.startsWith('//')) {
    // URL form: ws://host[:port][/path][?query]
    const afterSlashes = rest.slice(2);
    const end = afterSlashes.search(/[/?#]/);
    const authority = end < 0 ? afterSlashes : afterSlashes.slice(0, end);
    let tail = end < 0 ? '' : afterSlashes.slice(end);
    if (authority.includes('@')) {
      throw new RemoteSyntaxError(
        text,
        `${method}: user names and passwords in the URL are not supported; pass a token instead`,
      );
    }
    if (tail.includes('#'))
      throw new RemoteSyntaxError(text, `${method}: a URL fragment is not allowed`);
    if (/\s/.test(tail))
      throw new RemoteSyntaxError(text, `${method}: the path contains white space`);
    const hp = parseHostPort(text, authority, false);
    if (hp.host === undefined) throw new RemoteSyntaxError(text, `${method}: needs a host`);
    host = hp.host;
    port = hp.port ?? defaultPort;
    if (tail === '') tail = '/';
    else if (tail.startsWith('?')) tail = `/${tail}`;
    path = tail;
  } else {
    // OVSDB style: ws:host[:port]
    if (rest.includes('/')) {
      throw new RemoteSyntaxError(
        text,
        `${method}: a path needs the URL form, e.g. ${method}://127.0.0.1:8080/ovsdb`,
      );
    }
    const hp = parseHostPort(text, rest, false);
    if (hp.host === undefined) throw new RemoteSyntaxError(text, `${method}: needs a host`);
    host = hp.host;
    port = hp.port ?? defaultPort;
    path = '/';
  }
  const portPart = port === defaultPort ? '' : `:${port}`;
  const url = `${method}://${bracket(host)}${portPart}${path}`;
  return { kind: method, url, host, port, path };
}

function bracket(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Split `host[:port]` (active, `passive` false) or `[port][:host]` (passive).
 * IPv6 addresses must be bracketed. Returns undefined members for omitted parts.
 */
function parseHostPort(
  text: string,
  rest: string,
  passive: boolean,
): { host: string | undefined; port: number | undefined } {
  if (passive) {
    // ptcp:[<port>][:<ip>]
    const colon = rest.indexOf(':');
    const portText = colon < 0 ? rest : rest.slice(0, colon);
    const hostText = colon < 0 ? undefined : rest.slice(colon + 1);
    const port = portText === '' ? undefined : parsePort(text, portText, true);
    if (hostText === undefined) return { host: undefined, port };
    return { host: parseHost(text, hostText, true), port };
  }
  // tcp:<host>[:<port>]
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) throw new RemoteSyntaxError(text, 'unterminated "[" in the IPv6 address');
    const host = parseHost(text, rest.slice(0, close + 1), false);
    const after = rest.slice(close + 1);
    if (after === '') return { host, port: undefined };
    if (!after.startsWith(':')) {
      throw new RemoteSyntaxError(text, `unexpected "${after}" after the IPv6 address`);
    }
    return { host, port: parsePort(text, after.slice(1), false) };
  }
  const colons = rest.split(':').length - 1;
  if (colons > 1) {
    throw new RemoteSyntaxError(
      text,
      'an IPv6 address must be written in brackets, e.g. tcp:[::1]:6640',
    );
  }
  const colon = rest.indexOf(':');
  const hostText = colon < 0 ? rest : rest.slice(0, colon);
  if (hostText === '') return { host: undefined, port: undefined };
  const host = parseHost(text, hostText, false);
  return { host, port: colon < 0 ? undefined : parsePort(text, rest.slice(colon + 1), false) };
}

function parseHost(text: string, raw: string, passive: boolean): string {
  let host = raw;
  if (raw.startsWith('[')) {
    if (!raw.endsWith(']'))
      throw new RemoteSyntaxError(text, 'unterminated "[" in the IPv6 address');
    host = raw.slice(1, -1);
    if (!/^[0-9a-fA-F:.]+(%[\w.-]+)?$/.test(host) || !host.includes(':')) {
      throw new RemoteSyntaxError(text, `"${host}" is not an IPv6 address`);
    }
    return host;
  }
  if (host === '') throw new RemoteSyntaxError(text, 'empty host');
  if (host.includes(':')) {
    throw new RemoteSyntaxError(
      text,
      `an IPv6 address must be written in brackets, e.g. ${passive ? 'ptcp:6640:[::1]' : 'tcp:[::1]:6640'}`,
    );
  }
  if (!/^[A-Za-z0-9._-]+$/.test(host)) {
    throw new RemoteSyntaxError(text, `"${host}" is not a host name or IP address`);
  }
  return host;
}

function parsePort(text: string, raw: string, passive: boolean): number {
  if (!/^\d{1,5}$/.test(raw)) throw new RemoteSyntaxError(text, `"${raw}" is not a port number`);
  const port = Number(raw);
  const min = passive ? 0 : 1;
  if (port < min || port > 65535) {
    throw new RemoteSyntaxError(text, `port ${port} is out of range ${min}-65535`);
  }
  return port;
}

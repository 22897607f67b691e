/**
 * The options of the database client, and their defaults.
 * @module
 */

import type { ClientMetrics } from '../observability/metrics.js';
import type { Tracer } from '../observability/tracing.js';
import type { CompatOption, CompatTables } from '../ovsdb/schema/compat.js';
import type { AbsentConditionPolicy } from '../ovsdb/schema/compat-checks.js';
import type { DatabaseModel, RowOf, TableMap, TableName } from '../ovsdb/schema/model.js';
import { DEFAULT_KEEPALIVE_MS, type Dialer } from '../ovsdb/transport/dial.js';
import {
  formatRemote,
  parseRemote,
  parseRemoteList,
  type Remote,
} from '../ovsdb/transport/remote.js';
import type { TlsOptions } from '../ovsdb/transport/tls-options.js';
import { checkTlsOptions } from '../ovsdb/transport/tls-options.js';
import type { MonitorCondition } from '../ovsdb/values/conditions.js';
import { OvsdbError } from '../ovsdb/wire/errors.js';
import { DEFAULT_MAX_REPLY_BYTES, DEFAULT_MAX_UNSOLICITED_BYTES } from '../ovsdb/wire/limits.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { shuffle } from './cluster.js';
import type { Logger } from './log.js';
import type { ClientObservability } from './metrics.js';
import type { IndexesOption } from './replica/replica.js';

/** What to monitor of one table. */
export interface TableMonitorOptions<R = Record<string, unknown>> {
  /** The columns to monitor (default: every column the server has). */
  readonly columns?: readonly Extract<keyof R, string>[] | undefined;
  /**
   * The `monitor_cond` condition: a list of clauses typed by the model, as a
   * transaction's conditions are (`['name', '==', 'sw0']`, `['external_ids',
   * 'includes', { owner: 'me' }]`, `true`, `false`), and checked the same
   * way when the client is created; a row is monitored when **any** clause
   * holds (ovsdb-server ORs them). Default: every row. A server that only
   * knows plain `monitor` cannot filter: there, every row is monitored.
   */
  readonly where?: readonly MonitorCondition<R>[] | undefined;
  /** The monitor (by name) this table belongs to; tables sharing a name share one monitor. */
  readonly monitor?: string | undefined;
}

/**
 * Options of {@link connectDatabase}.
 * @typeParam C - the `compat` option's type (see {@link DatabaseClientOptions.compat}).
 */
export interface DatabaseClientOptions<
  DB extends TableMap,
  IX extends IndexesOption<CompatTables<DB, C>>,
  C extends CompatOption<DB> = false,
> {
  /**
   * The servers: a list, or one string of comma-separated remotes
   * (`tcp:10.0.0.1:6641,tcp:10.0.0.2:6641`).
   */
  readonly remotes: string | readonly string[];
  /** The database model, e.g. `NB`. */
  readonly model: DatabaseModel<DB>;
  /** Only use a cluster's leader. Default true. */
  readonly leaderOnly?: boolean | undefined;
  /** Try the remotes in a random order (chosen once). Default false. */
  readonly shuffleRemotes?: boolean | undefined;
  /** Only accept servers of the cluster with this ID. */
  readonly clusterId?: string | undefined;
  /**
   * The tables to monitor, with their columns, conditions and monitor group.
   * `true` monitors a table whole. Default: every table of the model.
   */
  readonly tables?:
    | { readonly [T in TableName<DB>]?: TableMonitorOptions<RowOf<DB, T>> | boolean }
    | undefined;
  /** Client indexes per table (see `indexes.ts`). */
  readonly indexes?: (IX & IndexesOption<CompatTables<DB, C>>) | undefined;
  /**
   * Which columns of the model the servers may lack, for the row types
   * (the client's `DB` becomes `CompatTables<DB, C>`): `true` types every
   * column but `_uuid` and `_version` `T | undefined`; a spec (per table,
   * column names: `{ ACL: ['tier'] }`, or `NB_COMPAT` for the bundled NB
   * model) types those columns so. Default `false`: the row types are the
   * model's, exactly.
   *
   * Whatever this says, a column the server's schema lacks (a model newer
   * than the server) is absent from the rows at run time: not a property of
   * the row (`'tier' in acl` is false, `acl.tier` reads `undefined`), never
   * a default the server does not hold. `client.absentColumns(table)` lists
   * them. A write to one fails with `SchemaDriftError` before anything is
   * sent. The option only makes the types say so; its table and column
   * names are checked against the model.
   */
  readonly compat?: C | undefined;
  /**
   * What a monitor condition (`where` of `tables`, or of `setMonitor`) on a
   * column the server's schema lacks does:
   * - `'refuse'` (the default): it is a `SchemaDriftError` naming the table
   *   and column; at connection the server cannot be used (the status
   *   reason and the give-up carry the error), and `setMonitor` rejects.
   * - `'drop'`: the clauses on such columns are not sent (a condition left
   *   with none becomes `[false]`: no row), as Open vSwitch's C IDL does;
   *   each is reported with a `warn` log line and
   *   `client.droppedConditions(table)`.
   *
   * Refusing is the default because a dropped clause changes which rows the
   * replica holds, and a program acting on the replica (a controller
   * reconciling what it sees) must not act on a different set of rows than
   * it asked for without knowing; `'drop'` suits conditions that only limit
   * what is received, as OVN's controllers use them.
   */
  readonly absentColumnConditions?: AbsentConditionPolicy | undefined;
  /**
   * TLS settings for `ssl:` remotes: the client's key and certificate and the
   * CA, as PEM text (`key`, `cert`, `ca`) or as file paths (`keyFile`,
   * `certFile`, `caFile`, read at each connection attempt, so that a
   * reconnection uses rotated certificates). See {@link TlsOptions}.
   */
  readonly tls?: TlsOptions | undefined;
  /** Where to log. Default: nothing. */
  readonly logger?: Logger | undefined;
  /** Reconnection delays and give-up rule. */
  readonly backoff?: BackoffOptions | undefined;
  /**
   * The inactivity probe's interval P, in ms; 0 disables the probe.
   *
   * Default: `DEFAULT_PROBE_INTERVAL_MS` (5,000) for remotes over TCP
   * (`tcp:`, `ssl:`, `ws:`, `wss:`), and no probe for `unix:` remotes, as
   * Open vSwitch's own clients do (its unix streams need no probes: the
   * kernel reports a server that died or closed at once). A value given
   * here applies to every remote.
   *
   * The rule: every byte from the server counts as a sign of life. When no
   * request of the client's is outstanding, the client sends `echo` after P
   * ms without a byte, and drops the connection after 2P. While the server
   * owes the client a reply (the initial monitor reply, a transaction), it
   * may be busy building it (ovsdb-server writes nothing for some 20 s while
   * it builds the initial reply of a 500k-port Northbound database): silence
   * is then no verdict and no `echo` is sent. After P ms of silence the
   * client asks its kernel (Linux) whether the server's host still
   * acknowledges its bytes and answers TCP probes, which a busy server's
   * host does, and drops the connection when 5 retransmissions or probes in
   * a row went unanswered (a lost host or path); otherwise when TCP
   * keepalive fails (see {@link DatabaseClientOptions.keepAliveMs}) or the
   * silence reaches {@link DatabaseClientOptions.replySilenceTimeoutMs}.
   * While reads are paused (backpressure) the probe never drops the
   * connection.
   *
   * So, with the defaults, over TCP: a killed server is noticed at once (its
   * kernel closes the connection); a lost host or network path within 10 s
   * (2P) when nothing is owed, and while a reply is owed about 6 s after a
   * request its host never acknowledged, or 10 s after the last
   * acknowledgement (keepalive's 5 s, then 5 unanswered probes); a stuck
   * server process (alive kernel) within 10 s when nothing is owed, and
   * within `replySilenceTimeoutMs` (300 s) while a reply is. Where the
   * kernel cannot be asked (not Linux; `ws:`, `wss:`), a host lost while a
   * reply is owed is found by keepalive (15 s) once the request was
   * acknowledged, else after `replySilenceTimeoutMs`. See `docs/liveness.md`.
   */
  readonly probeIntervalMs?: number | undefined;
  /**
   * While a request of the client's is outstanding, the longest silence from
   * the server before the client gives up on it (a server process that is
   * stuck rather than busy, whose host still answers), in ms; 0: no limit. At least twice the probe
   * interval; only applies when the probe is on. Default
   * `DEFAULT_REPLY_SILENCE_TIMEOUT_MS` (300,000: five minutes, room for
   * the initial reply of a database several times 1M ports on a loaded
   * server).
   */
  readonly replySilenceTimeoutMs?: number | undefined;
  /**
   * TCP keepalive for remotes over TCP (`tcp:`, `ssl:`, `ws:`, `wss:`):
   * after this many ms without traffic the kernel sends a keepalive probe
   * every second and closes the connection after 10 unanswered ones. The
   * server's kernel answers them however busy the server process is, so
   * they find a lost host or path without mistaking a busy server for a
   * dead one. (A request written after the path was lost stays
   * unacknowledged, and the kernel sends no keepalive while data is in
   * flight: it retransmits the data, which the probe's rules above watch.) Default
   * `DEFAULT_KEEPALIVE_MS` (5,000); 0 disables. Not used for `unix:`.
   */
  readonly keepAliveMs?: number | undefined;
  /**
   * The largest message accepted from the server, in bytes: it must admit
   * the initial monitor reply, which for an OVN Northbound database is
   * about 350 bytes per logical switch port. Default
   * `DEFAULT_MAX_REPLY_BYTES` (1 GiB; about 3M ports). A larger
   * message closes the connection with a `ProtocolError`.
   */
  readonly maxMessageBytes?: number | undefined;
  /**
   * The largest message accepted while no request of the client's is
   * outstanding (so that it is not a reply: a notification, or a request
   * from the server), in bytes; at most `maxMessageBytes`. Default
   * `DEFAULT_MAX_UNSOLICITED_BYTES` (64 MiB), a bound against a peer
   * that floods the client unasked. A larger `update` (one transaction
   * changing a large part of the database) closes the connection: the
   * client reconnects, and the changes arrive in the reply to
   * `monitor_cond_since`, under `maxMessageBytes`.
   */
  readonly maxUnsolicitedBytes?: number | undefined;
  /**
   * Most bytes waiting to be written on a connection while the server does
   * not read them (requests, and replies to the server's `echo`). Default
   * `DEFAULT_MAX_WRITE_QUEUE_BYTES` (64 MiB); `Infinity`: no bound. Past it
   * the connection is dropped (status `disconnected`, its reason a
   * `WriteQueueFullError`'s message) and the client reconnects as usual.
   */
  readonly maxWriteQueueBytes?: number | undefined;
  /** Timeout of opening a connection and of each setup request. Default 10,000 ms. */
  readonly connectTimeoutMs?: number | undefined;
  /** Freeze rows (see `ReplicaOptions.freeze`). Default true. */
  readonly freezeRows?: boolean | undefined;
  /** The event queue's high- and low-water marks. Defaults 10,000 and 5,000. */
  readonly eventQueue?:
    | { readonly highWaterMark?: number | undefined; readonly lowWaterMark?: number | undefined }
    | undefined;
  /** Called when an event or status handler throws. Default: the logger's `error`, else `console.error`. */
  readonly onHandlerError?: ((error: unknown, context: string) => void) | undefined;
  /** Opens transports (default: Node sockets). */
  readonly dial?: Dialer | undefined;
  /** Aborting closes the client. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Where to count the client's events (transactions, errors, reconnects,
   * monitor updates, backpressure): `prometheusMetrics(promClient)`, or any
   * {@link ClientMetrics}. Default: no metrics (nothing is counted).
   */
  readonly metrics?: ClientMetrics | undefined;
  /**
   * An OpenTelemetry tracer (`trace.getTracer('my-app')` of
   * `@opentelemetry/api`): a span per typed `transact` and per monitor
   * (re)sync, children of the caller's active span. Default: no spans.
   */
  readonly tracer?: Tracer | undefined;
  /**
   * Fence every transaction with the OVSDB lock of this name: the client
   * asks for the lock at once (as `client.lock(name)` does, and after every
   * reconnection), and every transaction carries `{"op": "assert", "lock":
   * name}` first, so that it commits only while this client holds the lock.
   * One sent while the lock is not held is refused before sending, one the
   * server runs after the lock was stolen or lost is refused by the server:
   * both with `LockNotHeldError`, which means "not committed". A
   * transaction's own `fence` option overrides it (`false`: not fenced).
   * See `docs/locks.md`. Default: no fence.
   */
  readonly fence?: string | undefined;
}

/** The default {@link DatabaseClientOptions.probeIntervalMs} of remotes over TCP (`unix:` ones have none). */
export const DEFAULT_PROBE_INTERVAL_MS = 5000;

/** The default {@link DatabaseClientOptions.replySilenceTimeoutMs}. */
export const DEFAULT_REPLY_SILENCE_TIMEOUT_MS = 300_000;

/** The default {@link DatabaseClientOptions.keepAliveMs}. */
export { DEFAULT_KEEPALIVE_MS };

/** The default {@link DatabaseClientOptions.connectTimeoutMs}. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** How the client connects: the connection options, checked and with their defaults. */
export interface ConnectionConfig {
  /** The database's name. */
  readonly db: string;
  /** The remotes, normalised, in the given order. */
  readonly remotes: readonly string[];
  /** The remotes in the order chosen once with `shuffleRemotes`. */
  readonly shuffled: readonly string[] | undefined;
  readonly leaderOnly: boolean;
  /** Lower-cased. */
  readonly clusterId: string | undefined;
  readonly tls: TlsOptions | undefined;
  readonly backoff: BackoffOptions;
  /** The probe interval given, or undefined for the default of each remote's kind. */
  readonly probeIntervalMs: number | undefined;
  readonly replySilenceTimeoutMs: number;
  readonly keepAliveMs: number;
  readonly maxMessageBytes: number;
  readonly maxUnsolicitedBytes: number;
  readonly connectTimeoutMs: number;
  /** Undefined: the connection's default. */
  readonly maxWriteQueueBytes?: number | undefined;
  readonly dial: Dialer;
  /** The client's metrics and tracer (undefined: neither). */
  readonly observe?: ClientObservability | undefined;
}

/**
 * The probe interval for `remote` (normalised): the one given, else
 * `DEFAULT_PROBE_INTERVAL_MS` over TCP and 0 (none) for `unix:`.
 */
export function probeIntervalFor(config: ConnectionConfig, remote: string): number {
  if (config.probeIntervalMs !== undefined) return config.probeIntervalMs;
  return remote.startsWith('unix:') ? 0 : DEFAULT_PROBE_INTERVAL_MS;
}

/**
 * Check the connection options of `options` and fill in their defaults
 * (`dial`: the platform's dialer, when the options give none).
 * @throws RemoteSyntaxError for an invalid remote; OvsdbError for no
 *   remote, or a TLS setting given both as PEM and as a file; RangeError for
 *   invalid backoff options, or a negative (or non-numeric) interval,
 *   timeout or limit.
 */
export function connectionConfig<
  DB extends TableMap,
  IX extends IndexesOption<CompatTables<DB, C>>,
  C extends CompatOption<DB> = false,
>(
  options: DatabaseClientOptions<DB, IX, C>,
  dial: Dialer,
  observe?: ClientObservability,
): ConnectionConfig {
  const remotes = normalizeRemotes(options.remotes);
  const shuffled = options.shuffleRemotes ? shuffle(remotes) : undefined;
  const backoff = options.backoff ?? {};
  new Backoff(backoff); // validates
  const maxMessageBytes =
    positive('maxMessageBytes', options.maxMessageBytes) ?? DEFAULT_MAX_REPLY_BYTES;
  return {
    db: options.model.name,
    remotes,
    shuffled,
    leaderOnly: options.leaderOnly ?? true,
    clusterId: options.clusterId?.toLowerCase(),
    tls: checkedTls(options.tls),
    backoff,
    probeIntervalMs: nonNegative('probeIntervalMs', options.probeIntervalMs),
    replySilenceTimeoutMs:
      nonNegative('replySilenceTimeoutMs', options.replySilenceTimeoutMs) ??
      DEFAULT_REPLY_SILENCE_TIMEOUT_MS,
    keepAliveMs: nonNegative('keepAliveMs', options.keepAliveMs) ?? DEFAULT_KEEPALIVE_MS,
    maxMessageBytes,
    maxUnsolicitedBytes: Math.min(
      maxMessageBytes,
      positive('maxUnsolicitedBytes', options.maxUnsolicitedBytes) ?? DEFAULT_MAX_UNSOLICITED_BYTES,
    ),
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    maxWriteQueueBytes: positive('maxWriteQueueBytes', options.maxWriteQueueBytes),
    dial: options.dial ?? dial,
    observe,
  };
}

function nonNegative(name: string, value: number | undefined): number | undefined {
  if (value !== undefined && !(value >= 0)) {
    throw new RangeError(`${name} must be a non-negative number, got ${value}`);
  }
  return value;
}

function positive(name: string, value: number | undefined): number | undefined {
  if (value !== undefined && !(value >= 2)) {
    throw new RangeError(`${name} must be at least 2, got ${value}`);
  }
  return value;
}

function normalizeRemotes(remotes: string | readonly string[]): string[] {
  const list: Remote[] =
    typeof remotes === 'string'
      ? [...parseRemoteList(remotes).remotes]
      : remotes.map((r) => parseRemote(r));
  if (list.length === 0) throw new OvsdbError('remotes: at least one server is needed');
  return list.map((r) => formatRemote(r));
}

/** `tls`, once {@link checkTlsOptions} found nothing given twice. */
function checkedTls(tls: TlsOptions | undefined): TlsOptions | undefined {
  checkTlsOptions(tls);
  return tls;
}

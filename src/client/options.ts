/**
 * The options of the database client, and their defaults.
 * @module
 */

import type { DatabaseModel, RowOf, TableMap, TableName } from '../ovsdb/schema/model.js';
import { type Dialer, dialRemote } from '../ovsdb/transport/dial.js';
import {
  formatRemote,
  parseRemote,
  parseRemoteList,
  type Remote,
} from '../ovsdb/transport/remote.js';
import type { TlsOptions } from '../ovsdb/transport/socket-transport.js';
import { OvsdbError } from '../ovsdb/wire/errors.js';
import type { Condition } from '../ovsdb/wire/wire.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { shuffle } from './cluster.js';
import type { Logger } from './log.js';
import type { IndexesOption } from './replica/replica.js';

/** What to monitor of one table. */
export interface TableMonitorOptions<R = Record<string, unknown>> {
  /** The columns to monitor (default: every column the server has). */
  readonly columns?: readonly Extract<keyof R, string>[] | undefined;
  /**
   * `monitor_cond` conditions in wire form; a row is monitored when **any**
   * condition holds (ovsdb-server ORs them). Default: every row. A server
   * that only knows plain `monitor` cannot filter: there, every row is
   * monitored.
   */
  readonly where?: readonly Condition[] | undefined;
  /** The monitor (by name) this table belongs to; tables sharing a name share one monitor. */
  readonly monitor?: string | undefined;
}

/** Options of {@link connectDatabase}. */
export interface DatabaseClientOptions<DB extends TableMap, IX extends IndexesOption<DB>> {
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
  readonly indexes?: (IX & IndexesOption<DB>) | undefined;
  /** TLS settings for `ssl:` remotes. */
  readonly tls?: TlsOptions | undefined;
  /** Where to log. Default: nothing. */
  readonly logger?: Logger | undefined;
  /** Reconnection delays and give-up rule. */
  readonly backoff?: BackoffOptions | undefined;
  /**
   * Send `echo` after this many ms without a message from the server, and
   * drop the connection after twice as long. Default 5,000; 0 disables.
   */
  readonly probeIntervalMs?: number | undefined;
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
}

/** Options of {@link DatabaseClient.transact}. */
export interface RawTransactOptions {
  /** Timeout in ms, counting the wait for a connection. */
  readonly timeoutMs?: number | undefined;
  /** Abort waiting (the transaction may still commit if it was sent). */
  readonly signal?: AbortSignal | undefined;
  /**
   * When `signal` aborts after the request was sent, also send `cancel`:
   * ovsdb-server then drops the transaction if it has not committed yet
   * (a `wait` still blocking, a clustered commit not yet replicated).
   */
  readonly cancelOnAbort?: boolean | undefined;
  /** Called just before the request is written: from then on, it may commit. */
  readonly onSent?: (() => void) | undefined;
}

/** The default {@link DatabaseClientOptions.probeIntervalMs}. */
export const DEFAULT_PROBE_INTERVAL_MS = 5000;

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
  readonly probeIntervalMs: number;
  readonly connectTimeoutMs: number;
  readonly dial: Dialer;
}

/**
 * Check the connection options of `options` and fill in their defaults.
 * @throws RemoteSyntaxError for an invalid remote; OvsdbError for no
 *   remote; RangeError for invalid backoff options.
 */
export function connectionConfig<DB extends TableMap, IX extends IndexesOption<DB>>(
  options: DatabaseClientOptions<DB, IX>,
): ConnectionConfig {
  const remotes = normalizeRemotes(options.remotes);
  const shuffled = options.shuffleRemotes ? shuffle(remotes) : undefined;
  const backoff = options.backoff ?? {};
  new Backoff(backoff); // validates
  return {
    db: options.model.name,
    remotes,
    shuffled,
    leaderOnly: options.leaderOnly ?? true,
    clusterId: options.clusterId?.toLowerCase(),
    tls: options.tls,
    backoff,
    probeIntervalMs: options.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    dial: options.dial ?? dialRemote,
  };
}

function normalizeRemotes(remotes: string | readonly string[]): string[] {
  const list: Remote[] =
    typeof remotes === 'string'
      ? [...parseRemoteList(remotes).remotes]
      : remotes.map((r) => parseRemote(r));
  if (list.length === 0) throw new OvsdbError('remotes: at least one server is needed');
  return list.map((r) => formatRemote(r));
}

/**
 * The metrics hooks of the database client and of the in-memory server:
 * the events they report, as plain interfaces. A client or server given no
 * `metrics` option calls nothing (the hooks cost one `undefined` check);
 * `prometheusMetrics` (`prometheus.ts`) implements both over
 * prom-client, and any other metrics library can implement them too.
 *
 * See `docs/observability.md` for the metrics the Prometheus adapter
 * exports.
 * @module
 */

import type { Tracer } from './tracing.js';

/**
 * The metrics recorder and tracer of one database client (present only when
 * the client was given a `metrics` or `tracer` option); the transaction
 * layer reads it to count and trace typed transactions.
 */
export interface ClientObservability {
  /** The database's name. */
  readonly db: string;
  /** The recorder of the client's metrics, if any. */
  readonly metrics: ClientMetricsRecorder | undefined;
  /** The tracer of the client's spans, if any. */
  readonly tracer: Tracer | undefined;
}

/**
 * How a typed `transact` ended, as a metric label:
 * - `committed`: it committed (also when the reply was lost and the commit
 *   was found out afterwards);
 * - `failed`: the server answered that an operation or the commit failed
 *   (a constraint violation, a duplicate index value, …);
 * - `conflict`: a `verify` still failed after every replay;
 * - `refused`: the server or a bridge refused the request as a whole;
 * - `invalid`: the transaction was rejected before anything was sent (an
 *   invalid value, a column the server lacks);
 * - `not_committed`: it did not commit for another reason (nothing was
 *   sent: timeout, abort, closed client; or the reply was lost and the
 *   check showed no commit);
 * - `unknown`: the reply was lost and whether it committed cannot be known.
 */
export type TransactionOutcomeLabel =
  | 'committed'
  | 'failed'
  | 'conflict'
  | 'refused'
  | 'invalid'
  | 'not_committed'
  | 'unknown';

/**
 * The kind of a failed request of the client, as a metric label:
 * `timeout` (no reply in time), `connection_closed` (the connection closed
 * before the reply), `refused` (refused by the server or a bridge),
 * `operation_failed` (a transaction's operation or commit failed),
 * `rpc_error` (any other JSON-RPC error reply), `unknown_method` (the
 * server does not know the method: the client falls back to an older one),
 * `protocol_error` (a malformed message), `schema_drift` (the request names
 * what the server's schema lacks: not sent), `other`.
 */
export type RpcErrorKind =
  | 'timeout'
  | 'connection_closed'
  | 'refused'
  | 'operation_failed'
  | 'rpc_error'
  | 'unknown_method'
  | 'protocol_error'
  | 'schema_drift'
  | 'other';

/**
 * Why a connection in sync was lost (the client then reconnects), as a
 * metric label: `requested` (`client.reconnect()`), `closed_by_server`,
 * `probe` (the inactivity probe gave up), `path_lost` (the server's host
 * left the client's bytes or TCP probes unanswered while a reply was owed:
 * a lost host or network path), `leader_changed` (the server lost
 * its cluster's leadership or its cluster), `server_unusable` (the server's
 * `_Server.Database` row no longer allows using it), `monitor_canceled` (the
 * database was removed or converted), `out_of_sync` (an update could not be
 * applied to the replica), `write_queue_full`, `protocol_error`,
 * `connection_error` (a socket error), `other`.
 */
export type ReconnectReason =
  | 'requested'
  | 'closed_by_server'
  | 'probe'
  | 'path_lost'
  | 'leader_changed'
  | 'server_unusable'
  | 'monitor_canceled'
  | 'out_of_sync'
  | 'write_queue_full'
  | 'protocol_error'
  | 'connection_error'
  | 'other';

/** The client a {@link ClientMetricsRecorder} reports for, and what can be sampled of it. */
export interface ClientMetricsTarget {
  /** The database's name (the model's). */
  readonly db: string;
  /** Events queued by the client's replica and not yet delivered to the handlers, now. */
  queueLength(): number;
  /** The OVSDB locks the client asked for, now, and whether it holds each. */
  locks?(): readonly { readonly name: string; readonly held: boolean }[];
  /** The client's health, now (see the client's `ClientHealth`). */
  health?(): ClientHealthSample;
}

/** What the metrics read of a client's health at each scrape (the client's `ClientHealth`). */
export interface ClientHealthSample {
  /** A connection to a server is open. */
  readonly connected: boolean;
  /** Every monitor is in sync on it. */
  readonly inSync: boolean;
  /** The server connected to. */
  readonly remote: string | undefined;
  /** Its role: `leader`, `follower`, `relay` or `standalone` (undefined: unknown). */
  readonly role: string | undefined;
  /** Ms since the last bytes from a server (undefined: none yet). */
  readonly lastMessageAgeMs: number | undefined;
  /** Ms since the replica last applied an update or a sync (undefined: none yet). */
  readonly lastUpdateAgeMs: number | undefined;
}

/**
 * What one database client reports. Each method is called at the event;
 * none may throw (an implementation that does is a bug of its own, and the
 * client does not guard against it).
 */
export interface ClientMetricsRecorder {
  /** A typed `transact` ended after `seconds` (from the call to its settling). */
  transaction(outcome: TransactionOutcomeLabel, seconds: number): void;
  /** A request of the client (`method`: `transact`, `monitor_cond_since`, `setup`, …) failed. */
  rpcError(method: string, kind: RpcErrorKind): void;
  /** A connection in sync was lost, and the client reconnects. */
  reconnect(reason: ReconnectReason): void;
  /** A monitor update notification was applied to the replica, with `rows` row changes. */
  monitorUpdate(rows: number): void;
  /** The event queue reached its high-water mark: the client stopped reading the socket. */
  backpressurePause(): void;
  /** A monitor asked to resume from its last transaction id (`monitor_cond_since`): `found` is the server's answer. */
  resume(found: boolean): void;
  /** A monitor got in sync (`full`: a full dump, rather than a resume with found: true). */
  monitorSync(full: boolean): void;
  /** The client closed: stop sampling it. */
  close(): void;
}

/**
 * The `metrics` option of the database client: called once per client, at
 * its creation, for the recorder of its events.
 */
export interface ClientMetrics {
  /** The recorder of the client `target`. */
  forClient(target: ClientMetricsTarget): ClientMetricsRecorder;
}

/**
 * How a transaction of the in-memory server ended, as a metric label:
 * `committed` (it changed the database), `unchanged` (it succeeded and
 * changed nothing: reads, waits, no-op updates), `failed` (an operation or
 * the commit failed, a `wait` timed out).
 */
export type ServerTransactionOutcome = 'committed' | 'unchanged' | 'failed';

/** The server a {@link ServerMetricsRecorder} reports for, and what can be sampled of it. */
export interface ServerMetricsTarget {
  /** The client sessions connected now. */
  sessions(): number;
  /** The monitors of every session, now. */
  monitors(): number;
}

/** What one in-memory server reports. */
export interface ServerMetricsRecorder {
  /** A `transact` request on database `db` was answered with `outcome`. */
  transaction(db: string, outcome: ServerTransactionOutcome): void;
  /** The server closed: stop sampling it. */
  close(): void;
}

/**
 * The `metrics` option of the in-memory server: called once per server, at
 * its creation, for the recorder of its events.
 */
export interface ServerMetrics {
  /** The recorder of the server `target`. */
  forServer(target: ServerMetricsTarget): ServerMetricsRecorder;
}

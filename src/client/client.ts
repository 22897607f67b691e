/**
 * The database client: a typed replica of an OVSDB database kept in sync over
 * a connection that survives server restarts, leader changes and network
 * failures.
 *
 * ```ts
 * import { connectDatabase } from 'ovnkit/client';
 * import { NB } from 'ovnkit';
 *
 * const nb = connectDatabase({
 *   remotes: ['tcp:10.0.0.1:6641', 'tcp:10.0.0.2:6641', 'tcp:10.0.0.3:6641'],
 *   model: NB,
 *   indexes: { Logical_Switch_Port: { pod: { column: 'external_ids', key: 'pod' } } },
 * });
 * await nb.ready;
 * nb.lookup('Logical_Switch_Port', { name: 'web-1' });
 * nb.byIndex('Logical_Switch_Port', 'pod', 'default/web-1');
 * nb.on('Logical_Switch_Port', 'update', (row, old) => { ... });
 * nb.onStatus((e) => console.log(e.type, e.reason));
 * ```
 *
 * ## Connecting
 *
 * The client tries its remotes in order (optionally shuffled once). On each
 * server it first monitors `_Server.Database` and skips the server when its
 * database is not usable (see `cluster.ts`: not joined, disconnected, stale,
 * or, with `leaderOnly` (the default), not the leader). It then reads the
 * server's schema, compares it with the model (`compat`), and starts its
 * monitors. `ready` resolves once every monitor's initial contents are in the
 * replica.
 *
 * ## Monitors and resuming
 *
 * Tables are grouped into monitors (`tables: { T: { monitor: 'name' } }`;
 * one monitor by default). Each monitor uses `monitor_cond_since`, falling
 * back to `monitor_cond` and then `monitor` when the server does not know
 * the method. After a reconnection every monitor resumes from its own last
 * transaction id: when the server still has it (`found`), only the missed
 * changes are applied, with their events; when it does not, the monitor's
 * tables are replaced by the new dump, and events are emitted only for rows
 * that really differ from what the replica had (no insert storm).
 *
 * ovsdb-server keeps about the last 100 transactions, and a monitor whose
 * tables rarely change receives no `update3` to learn newer ids. The client
 * still keeps every monitor's resume point recent: an `update3`'s id is the
 * database's latest transaction, and ovsdb-server writes every monitor's
 * update of one flush back to back (and flushes all of them before any
 * reply), so once an update of a later flush (or a reply) arrives, every
 * monitor in sync is known to be current up to the earlier id.
 *
 * Standalone databases keep no transaction ids: there, every reconnection is
 * a full dump, applied as above.
 *
 * ## Reconnecting
 *
 * A lost connection (closed, failed inactivity probe, server left the
 * cluster or lost leadership) starts a new round through the remotes at
 * once, beginning after the server just lost. When a whole round fails, the
 * client waits an exponential, jittered, capped delay (`backoff`) before the
 * next one, and gives up once the backoff's limits are reached: `ready`,
 * pending transactions and `waitFor`s then reject with a
 * {@link ClientClosedError}, and the status becomes `closed`. The client
 * never throws asynchronously: every failure is a rejected promise the
 * caller holds, a status event, or a log line.
 *
 * ## Backpressure
 *
 * Event handlers run from an ordered queue, never inside the socket reader;
 * when the queue reaches its high-water mark, the client pauses reading the
 * socket until handlers catch up (see `replica.ts` for the full model).
 * While paused, replies (including those of `transact`) wait too, and the
 * inactivity probe only keeps the server's probe satisfied.
 * @module
 */

import { OvsdbConnection, type RequestOptions } from '../ovsdb/connection/connection.js';
import {
  type CompatReport,
  checkOperations,
  compareSchemas,
  usableColumns,
} from '../ovsdb/schema/compat.js';
import type { ColumnOf, DatabaseModel, RowOf, TableMap, TableName } from '../ovsdb/schema/model.js';
import { parseSchema } from '../ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import { type DialedTransport, type Dialer, dialRemote } from '../ovsdb/transport/dial.js';
import {
  formatRemote,
  parseRemote,
  parseRemoteList,
  type Remote,
} from '../ovsdb/transport/remote.js';
import type { TlsOptions } from '../ovsdb/transport/socket-transport.js';
import type { Transport, TransportHandlers } from '../ovsdb/transport/transport.js';
import {
  ConnectionClosedError,
  OvsdbError,
  RequestTimeoutError,
  RpcError,
} from '../ovsdb/wire/errors.js';
import type {
  Condition,
  MonitorRequest,
  MonitorRequests,
  Operation,
  OperationResult,
  TableUpdates,
  TableUpdates2,
} from '../ovsdb/wire/wire.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import {
  decodeServerDatabaseRow,
  judgeServer,
  remoteOrder,
  type ServerDatabaseRow,
  serverMonitorRequest,
  shuffle,
} from './cluster.js';
import type { IndexValue } from './replica/indexes.js';
import {
  type IndexesOption,
  type ReplaceResult,
  Replica,
  type ReplicaEventStats,
  type RowEventHandler,
  type RowEventKind,
  type WaitForOptions,
} from './replica/replica.js';

const ZERO_TXN_ID = '00000000-0000-0000-0000-000000000000';
const SERVER_MONITOR_ID = 'ovnkit:_Server';
const DEFAULT_GROUP = 'default';

// ---- public types --------------------------------------------------------------

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

/** Where the client writes what it does. Every method is optional. */
export interface Logger {
  debug?(message: string, data?: Record<string, unknown>): void;
  info?(message: string, data?: Record<string, unknown>): void;
  warn?(message: string, data?: Record<string, unknown>): void;
  error?(message: string, data?: Record<string, unknown>): void;
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

/** The client's connection state. */
export type ClientState = 'connecting' | 'connected' | 'reconnecting' | 'closed';

/** The kinds of status event. */
export type StatusEventType =
  | 'connecting'
  | 'connected'
  | 'disconnected'
  | 'reconnecting'
  | 'leader-changed'
  | 'resynced'
  | 'closed';

/** How one monitor got in sync on a (re)connection. */
export interface MonitorSyncInfo {
  /** The monitor's name. */
  readonly monitor: string;
  /** The method used. */
  readonly method: 'monitor_cond_since' | 'monitor_cond' | 'monitor';
  /** True when the server resumed from the client's last transaction id. */
  readonly found: boolean;
  /** The transaction id the client asked to resume from (all zeros for none). */
  readonly fromTxnId: string;
  /** The monitor's last transaction id after the sync. */
  readonly lastTxnId: string;
  /** `initial` rows received (0 on a found=true resume). */
  readonly initialRows: number;
  /** Row changes received in the reply (for found=true: the missed changes). */
  readonly changes: number;
  /** For a full dump: how the replica changed. */
  readonly replaced?: ReplaceResult | undefined;
}

/** A status event: what happened, and why. */
export interface StatusEvent {
  readonly type: StatusEventType;
  /** Why, in words. */
  readonly reason: string;
  /** The server concerned. */
  readonly remote?: string | undefined;
  /** The error behind it, if any. */
  readonly error?: unknown;
  /** For `reconnecting`: the retry number (1-based) and the delay before it. */
  readonly retry?: number | undefined;
  /** For `reconnecting`: the delay before the retry. */
  readonly delayMs?: number | undefined;
  /** For `connected` and `resynced`: how each monitor got in sync. */
  readonly monitors?: readonly MonitorSyncInfo[] | undefined;
}

/** The client's current status. */
export interface ClientStatus {
  readonly state: ClientState;
  /** The server connected to (or being tried). */
  readonly remote: string | undefined;
  /** Why the client is in this state. */
  readonly reason: string;
}

/** Counters of a client. */
export interface ClientStats {
  /** Successful (re)connections, each with every monitor in sync. */
  connects: number;
  /** Connections lost after being in sync. */
  disconnects: number;
  /** `initial` rows received over the client's life. */
  initialRows: number;
  /** Monitor syncs that resumed with found=true. */
  resumedFound: number;
  /** Monitor syncs that asked to resume but got a full dump (found=false). */
  resumedNotFound: number;
  /** Monitor syncs that were full dumps by design (first sync, changed columns, no `since` support). */
  fullSyncs: number;
  /** Update notifications applied. */
  updates: number;
  /** Event queue counters. */
  readonly events: ReplicaEventStats;
  /** How the monitors got in sync the last time. */
  lastSync: readonly MonitorSyncInfo[];
}

/** Options of {@link DatabaseClient.transact}. */
export interface TransactOptions {
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

/** The client was closed, or gave up reconnecting; pending work is rejected with it. */
export class ClientClosedError extends OvsdbError {
  override name = 'ClientClosedError';
  constructor(
    /** Why. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`database client closed: ${reason}`, options);
  }
}

/**
 * A transaction was sent but its reply never came (the connection dropped or
 * the request timed out): it may or may not have committed. The replica
 * shows the truth once the client is in sync again.
 */
export class TransactionOutcomeUnknownError extends OvsdbError {
  override name = 'TransactionOutcomeUnknownError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A server that cannot be used now (not the leader, not joined...). */
class ServerSkippedError extends OvsdbError {
  override name = 'ServerSkippedError';
  constructor(
    message: string,
    /** Why, as `judgeServer` codes it. */
    readonly code?: string,
  ) {
    super(message);
  }
}

type IndexedTable<DB extends TableMap, IX> = Extract<keyof IX, TableName<DB>>;
type IndexName<IX, T extends keyof IX> = Extract<keyof NonNullable<IX[T]>, string>;

// ---- internal state --------------------------------------------------------------

interface TableConfig {
  columns: readonly string[] | undefined;
  where: readonly Condition[] | undefined;
  readonly group: MonitorGroup;
}

type Buffered =
  | { readonly kind: 'update'; readonly updates: TableUpdates }
  | { readonly kind: 'update2'; readonly updates: TableUpdates2 }
  | { readonly kind: 'update3'; readonly txnId: string; readonly updates: TableUpdates2 };

interface MonitorGroup {
  readonly name: string;
  readonly id: string;
  readonly tables: string[];
  lastTxnId: string;
  /** The next sync must be a full dump. */
  needFull: boolean;
  /** Bumped by every condition change; the replica matches the server's conditions when equal to `syncedConditions`. */
  conditions: number;
  syncedConditions: number;
  /** Notifications held while the monitor's reply is awaited. */
  pending: Buffered[] | undefined;
  /** Tables of the group monitored in the current session. */
  active: string[];
  /** The session flush number when `lastTxnId` was last set (see `settle`). */
  idFlush: number;
}

type Method = 'since' | 'cond' | 'plain';

interface Session {
  readonly remote: string;
  readonly conn: OvsdbConnection;
  readonly flow: DialedTransport;
  readonly metered: MeteredTransport;
  method: Method;
  schema: DatabaseSchema | undefined;
  compat: CompatReport | undefined;
  serverRow: ServerDatabaseRow | undefined;
  synced: boolean;
  syncedAt: number;
  endReason: string | undefined;
  endError: unknown;
  readonly ended: Promise<void>;
  end(reason: string, error?: unknown): void;
  probe: ReturnType<typeof setInterval> | undefined;
  lastEchoAt: number;
  /** The txn id of the latest `update3` flush seen, and that flush's number. */
  flushTxn: string | undefined;
  flushSeq: number;
  settleTimer: ReturnType<typeof setTimeout> | undefined;
}

/** Records when bytes last arrived. */
class MeteredTransport implements Transport {
  lastRx = Date.now();
  constructor(private readonly inner: Transport) {}
  get kind(): 'stream' | 'message' {
    return this.inner.kind;
  }
  get description(): string {
    return this.inner.description;
  }
  attach(handlers: TransportHandlers): void {
    this.inner.attach({
      data: (chunk) => {
        this.lastRx = Date.now();
        handlers.data(chunk);
      },
      message: (text) => {
        this.lastRx = Date.now();
        handlers.message(text);
      },
      drain: () => handlers.drain(),
      close: (error) => handlers.close(error),
    });
  }
  write(text: string): boolean {
    return this.inner.write(text);
  }
  close(): void {
    this.inner.close();
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function isUnknownMethod(e: unknown): boolean {
  return e instanceof RpcError && /unknown method/i.test(e.code);
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.every((x, i) => x === b[i]);
}

// ---- the client -------------------------------------------------------------------

/**
 * A connected, self-healing replica of one database. Create it with
 * {@link connectDatabase}.
 */
export class DatabaseClient<
  DB extends TableMap,
  IX extends IndexesOption<DB> = Record<never, never>,
> {
  /** Resolves once the replica holds the initial contents of every monitor; rejects if the client closes or gives up first. */
  readonly ready: Promise<void>;
  /** Counters. */
  readonly stats: ClientStats;
  /** The model. */
  readonly model: DatabaseModel<DB>;
  /** {@link DatabaseClient.transact} honours `cancelOnAbort` (sends `cancel`). */
  readonly cancels = true;

  private readonly replica: Replica<DB>;
  private readonly db: string;
  private readonly remotes: readonly string[];
  private readonly shuffled: readonly string[] | undefined;
  private readonly leaderOnly: boolean;
  private readonly clusterId: string | undefined;
  private readonly tls: TlsOptions | undefined;
  private readonly logger: Logger;
  private readonly backoffOptions: BackoffOptions;
  private readonly probeIntervalMs: number;
  private readonly connectTimeoutMs: number;
  private readonly dial: Dialer;
  private readonly groups: MonitorGroup[] = [];
  private readonly groupsById = new Map<string, MonitorGroup>();
  private readonly tableConfig = new Map<string, TableConfig>();
  private readonly statusHandlers: ((event: StatusEvent) => void | Promise<void>)[] = [];
  private readonly abort = new AbortController();

  private session: Session | undefined;
  private state: ClientState = 'connecting';
  private stateRemote: string | undefined;
  private stateReason = 'starting';
  private closedError: ClientClosedError | undefined;
  private compatReport: CompatReport | undefined;
  /** The highest Raft index seen, and the cluster it belongs to. */
  private maxIndex = 0;
  private indexCid: string | null = null;
  private flowPaused = false;
  private everSynced = false;
  private resolveReady!: () => void;
  private rejectReady!: (e: unknown) => void;
  private connectedWaiters: { resolve: (s: Session) => void; reject: (e: unknown) => void }[] = [];
  private readonly loop: Promise<void>;

  /** Use {@link connectDatabase}. */
  constructor(options: DatabaseClientOptions<DB, IX>) {
    this.model = options.model;
    this.db = options.model.name;
    this.remotes = normalizeRemotes(options.remotes);
    this.shuffled = options.shuffleRemotes ? shuffle(this.remotes) : undefined;
    this.leaderOnly = options.leaderOnly ?? true;
    this.clusterId = options.clusterId?.toLowerCase();
    this.tls = options.tls;
    this.logger = options.logger ?? {};
    this.backoffOptions = options.backoff ?? {};
    new Backoff(this.backoffOptions); // validates
    this.probeIntervalMs = options.probeIntervalMs ?? 5000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.dial = options.dial ?? dialRemote;
    const onHandlerError =
      options.onHandlerError ??
      ((error: unknown, context: string) => {
        if (this.logger.error)
          this.logger.error(`${context} threw: ${errorText(error)}`, { error });
        else console.error(`ovnkit: ${context} threw:`, error);
      });
    this.replica = new Replica<DB>(options.model, {
      indexes: options.indexes,
      freeze: options.freezeRows,
      highWaterMark: options.eventQueue?.highWaterMark,
      lowWaterMark: options.eventQueue?.lowWaterMark,
      onPressure: (pause) => this.onPressure(pause),
      onHandlerError,
    });
    this.stats = {
      connects: 0,
      disconnects: 0,
      initialRows: 0,
      resumedFound: 0,
      resumedNotFound: 0,
      fullSyncs: 0,
      updates: 0,
      events: this.replica.eventStats,
      lastSync: [],
    };
    this.configureTables(options.tables);
    this.ready = new Promise<void>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => {}); // the caller may never await it
    const signal = options.signal;
    if (signal) {
      if (signal.aborted) queueMicrotask(() => void this.close());
      else signal.addEventListener('abort', () => void this.close(), { once: true });
    }
    // Start on the next microtask, so that handlers added right after
    // construction see the first status events.
    this.loop = Promise.resolve()
      .then(() => this.run())
      .catch((e: unknown) => {
        this.log('error', `connection loop failed: ${errorText(e)}`, { error: e });
        this.finish(new ClientClosedError(`internal error: ${errorText(e)}`, { cause: e }));
      });
  }

  // ---- status ----------------------------------------------------------------------

  /** The current state, server and reason. */
  get status(): ClientStatus {
    return { state: this.state, remote: this.stateRemote, reason: this.stateReason };
  }

  /** How the model differs from the server's schema (undefined until a schema was read). */
  get compat(): CompatReport | undefined {
    return this.compatReport;
  }

  /**
   * Call `handler` for every status event, in order with the row events.
   * Returns a function that removes it.
   */
  onStatus(handler: (event: StatusEvent) => void | Promise<void>): () => void {
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    this.statusHandlers.push(handler);
    return () => {
      const i = this.statusHandlers.indexOf(handler);
      if (i >= 0) this.statusHandlers.splice(i, 1);
    };
  }

  // ---- reads -------------------------------------------------------------------------

  /** The row of `table` with UUID `uuid`. */
  get<T extends TableName<DB>>(table: T, uuid: string): RowOf<DB, T> | undefined {
    return this.replica.get(table, uuid);
  }

  /** Look a row up by a schema index, e.g. `lookup('Logical_Switch_Port', { name: 'p1' })`. */
  lookup<T extends TableName<DB>>(table: T, key: Partial<RowOf<DB, T>>): RowOf<DB, T> | undefined {
    return this.replica.lookup(table, key);
  }

  /** The rows a client index maps `value` to, e.g. `byIndex('Logical_Switch_Port', 'pod', 'ns/web-1')`. */
  byIndex<T extends IndexedTable<DB, IX>>(
    table: T,
    index: IndexName<IX, T>,
    value: IndexValue,
  ): RowOf<DB, T>[] {
    return this.replica.byIndex(table, index, value);
  }

  /** The rows of `table` (a live iterator). */
  rows<T extends TableName<DB>>(table: T): IterableIterator<RowOf<DB, T>> {
    return this.replica.rows(table);
  }

  /** The rows of `table` for which `predicate` is true. */
  filter<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
  ): RowOf<DB, T>[] {
    return this.replica.filter(table, predicate);
  }

  /** A row of `table` for which `predicate` is true. */
  find<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
  ): RowOf<DB, T> | undefined {
    return this.replica.find(table, predicate);
  }

  /** The number of rows of `table`. */
  count(table: TableName<DB>): number {
    return this.replica.count(table);
  }

  /** True when `table` is monitored on the current server (it may be missing there). */
  isMonitored(table: TableName<DB>): boolean {
    return this.replica.isMonitored(table);
  }

  // ---- events --------------------------------------------------------------------------

  /**
   * Call `handler` for each `kind` change of `table` from now on: `insert`
   * and `delete` get (row, context), `update` gets (new, old, context), where
   * context says which server update carried the change. Returns a function
   * that removes the handler.
   */
  on<T extends TableName<DB>, K extends RowEventKind>(
    table: T,
    kind: K,
    handler: RowEventHandler<RowOf<DB, T>, K>,
  ): () => void {
    return this.replica.on(table, kind, handler);
  }

  /**
   * Resolve with the first row of `table` matching `predicate`, now or when
   * a change makes one match.
   * @throws WaitTimeoutError on timeout; ClientClosedError when the client closes.
   */
  waitFor<T extends TableName<DB>>(
    table: T,
    predicate: (row: RowOf<DB, T>) => boolean,
    options?: WaitForOptions,
  ): Promise<RowOf<DB, T>> {
    if (this.closedError) return Promise.reject(this.closedError);
    return this.replica.waitFor(table, predicate, options);
  }

  /** Resolves when every event queued so far has been delivered to the handlers. */
  drained(): Promise<void> {
    return this.replica.drained();
  }

  // ---- writes ------------------------------------------------------------------------------

  /**
   * Run `ops` as one transaction (raw wire operations) and resolve with the
   * results once the replica shows the transaction's changes
   * (read-your-writes: the server sends the updates before the reply).
   *
   * While the client is not in sync, the transaction waits for it.
   * @throws SchemaDriftError before sending when an op names a table or
   *   column the server lacks; TransactionError when an operation fails;
   *   TransactionOutcomeUnknownError when the reply was lost;
   *   ClientClosedError when the client closes or gives up first.
   */
  transact(ops: readonly Operation[], options: TransactOptions = {}): Promise<OperationResult[]> {
    const deadline =
      options.timeoutMs === undefined ? undefined : Date.now() + Math.max(0, options.timeoutMs);
    // In sync (the usual case): send at once, without a promise step.
    const s = this.session;
    if (
      this.closedError === undefined &&
      !options.signal?.aborted &&
      s?.synced === true &&
      s.endReason === undefined
    ) {
      return this.transactOn(s, ops, options, deadline);
    }
    return this.whenConnected(options.signal, deadline).then((session) =>
      this.transactOn(session, ops, options, deadline),
    );
  }

  private transactOn(
    session: Session,
    ops: readonly Operation[],
    options: TransactOptions,
    deadline: number | undefined,
  ): Promise<OperationResult[]> {
    try {
      if (session.compat && session.schema) checkOperations(session.compat, session.schema, ops);
    } catch (e) {
      return Promise.reject(e);
    }
    const request: RequestOptions = {};
    if (deadline !== undefined) request.timeoutMs = Math.max(1, deadline - Date.now());
    if (options.signal) request.signal = options.signal;
    if (options.cancelOnAbort) request.cancelOnAbort = true;
    const onSent = options.onSent;
    if (onSent) request.onId = () => onSent();
    return session.conn.transact(this.db, ops, request).then(undefined, (e: unknown) => {
      if (e instanceof ConnectionClosedError || e instanceof RequestTimeoutError) {
        throw new TransactionOutcomeUnknownError(
          `transaction sent to ${session.remote} but no reply came (${errorText(e)}): it may or may not have committed`,
          { cause: e },
        );
      }
      throw e;
    });
  }

  /**
   * Change what is monitored of `table` at run time. A new `where` is sent
   * with `monitor_cond_change` (the server sends the rows that start or stop
   * matching, applied with events, before its reply); new `columns` restart
   * the table's monitor with a full dump (applied as a replace: events only
   * for rows that differ). Resolves once the replica reflects the change;
   * while disconnected, once the next sync is done.
   */
  async setMonitor<T extends TableName<DB>>(
    table: T,
    change: {
      readonly columns?: readonly ColumnOf<DB, T>[];
      readonly where?: readonly Condition[];
    },
  ): Promise<void> {
    const cfg = this.tableConfig.get(table);
    if (cfg === undefined)
      throw new OvsdbError(`setMonitor: table ${table} is not monitored by this client`);
    const group = cfg.group;
    const columnsChanged = 'columns' in change && !sameList(change.columns, cfg.columns);
    if ('columns' in change) cfg.columns = change.columns;
    if ('where' in change) cfg.where = change.where;
    group.conditions++;
    if (columnsChanged) group.needFull = true;
    for (;;) {
      if (this.closedError) throw this.closedError;
      const s = this.session;
      if (s === undefined || !s.synced) {
        await this.whenConnected(undefined, undefined);
        // The sync applied the new settings.
        if (group.syncedConditions === group.conditions) return;
        continue;
      }
      try {
        if (columnsChanged || s.method === 'plain' || group.needFull) {
          await s.conn.monitorCancel(group.id);
          group.needFull = true;
          this.stats.lastSync = [await this.syncGroup(s, group)];
        } else {
          const version = group.conditions;
          await s.conn.monitorCondChange(group.id, group.id, {
            [table]: [{ where: cfg.where ?? [true] }],
          });
          if (group.conditions === version) group.syncedConditions = version;
        }
        return;
      } catch (e) {
        if (s.endReason === undefined && !(e instanceof ConnectionClosedError)) throw e;
        // The connection dropped: the next sync applies the change.
      }
    }
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  /**
   * Resolves once the client is connected and every monitor is in sync (at
   * once when it already is).
   * @throws ClientClosedError when the client closes or gives up first; the
   *   signal's reason when it aborts.
   */
  async whenSynced(options: { readonly signal?: AbortSignal | undefined } = {}): Promise<void> {
    await this.whenConnected(options.signal, undefined);
  }

  /** Drop the current connection (if any) and reconnect, e.g. after an external change. */
  reconnect(reason = 'reconnect requested'): void {
    this.session?.end(reason);
  }

  /**
   * Close the client: the connection closes, pending transactions, `ready`
   * and `waitFor`s reject with {@link ClientClosedError}. The replica stays
   * readable. Resolves once the connection is closed.
   */
  async close(): Promise<void> {
    if (!this.closedError) {
      this.finish(new ClientClosedError('closed by the program'));
    }
    await this.loop;
  }

  // ---- configuration --------------------------------------------------------------------------

  private configureTables(tables: DatabaseClientOptions<DB, IX>['tables']): void {
    const schemaTables = this.model.schema.tables;
    const entries: [string, TableMonitorOptions | boolean][] = tables
      ? Object.entries(tables as Record<string, TableMonitorOptions | boolean | undefined>).filter(
          (e): e is [string, TableMonitorOptions | boolean] => e[1] !== undefined && e[1] !== false,
        )
      : Object.keys(schemaTables).map((t) => [t, true]);
    for (const [table, opt] of entries) {
      const schema = schemaTables[table];
      if (schema === undefined) {
        throw new OvsdbError(`tables: database ${this.db} has no table ${table}`);
      }
      const o: TableMonitorOptions = typeof opt === 'boolean' ? {} : opt;
      for (const c of o.columns ?? []) {
        if (schema.columns[c] === undefined) {
          throw new OvsdbError(`tables.${table}.columns: the table has no column ${c}`);
        }
      }
      const groupName = o.monitor ?? DEFAULT_GROUP;
      let group = this.groups.find((g) => g.name === groupName);
      if (group === undefined) {
        group = {
          name: groupName,
          id: `ovnkit:${groupName}`,
          tables: [],
          lastTxnId: ZERO_TXN_ID,
          needFull: true,
          conditions: 0,
          syncedConditions: 0,
          pending: undefined,
          active: [],
          idFlush: -1,
        };
        this.groups.push(group);
        this.groupsById.set(group.id, group);
      }
      group.tables.push(table);
      this.tableConfig.set(table, {
        columns: o.columns ? [...o.columns] : undefined,
        where: o.where,
        group,
      });
    }
  }

  // ---- the connection loop -------------------------------------------------------------------

  private async run(): Promise<void> {
    const backoff = new Backoff(this.backoffOptions);
    let after: string | undefined;
    let lastError: unknown;
    while (!this.closedError) {
      const order = remoteOrder(this.remotes, after, this.shuffled);
      let stable = false;
      let ran = false;
      let stale = 0;
      for (const remote of order) {
        if (this.closedError) return;
        let session: Session;
        try {
          session = await this.openSession(remote);
        } catch (e) {
          lastError = e;
          after = remote;
          if (e instanceof ServerSkippedError && e.code === 'stale') stale++;
          const level = e instanceof ServerSkippedError ? 'info' : 'warn';
          this.log(level, `${remote}: ${errorText(e)}`, { remote });
          continue;
        }
        backoff.reset();
        await session.ended;
        ran = true;
        after = remote;
        stable = Date.now() - session.syncedAt >= 1000;
        lastError = session.endError ?? new OvsdbError(session.endReason ?? 'connection lost');
        this.afterSession(session);
        break;
      }
      if (this.closedError) return;
      if (ran && stable) continue;
      if (!ran && stale === order.length) {
        // Every server is behind what this client saw (e.g. restored from a
        // backup): take the most up-to-date one rather than none.
        this.log(
          'warn',
          `every server is behind Raft index ${this.maxIndex}; accepting lower indexes`,
        );
        this.maxIndex = 0;
      }
      const delay = backoff.next();
      if (delay === undefined) {
        const retries = backoff.retries - 1;
        this.finish(
          new ClientClosedError(
            `gave up reconnecting after ${retries} retr${retries === 1 ? 'y' : 'ies'}: ${errorText(lastError)}`,
            { cause: lastError },
          ),
        );
        return;
      }
      const reason = `no usable server (${errorText(lastError)})`;
      this.setState('reconnecting', undefined, reason);
      this.emitStatus({
        type: 'reconnecting',
        reason,
        error: lastError,
        retry: backoff.retries,
        delayMs: delay,
      });
      await this.sleep(delay);
    }
  }

  private afterSession(session: Session): void {
    if (this.session === session) this.session = undefined;
    if (session.probe) clearInterval(session.probe);
    if (this.closedError) return;
    const reason = session.endReason ?? 'connection lost';
    this.stats.disconnects++;
    this.setState('reconnecting', session.remote, reason);
    this.emitStatus({
      type: 'disconnected',
      reason,
      remote: session.remote,
      error: session.endError,
    });
    this.log('warn', `disconnected from ${session.remote}: ${reason}`, { remote: session.remote });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.abort.signal;
      if (signal.aborted) {
        resolve();
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Open a connection to `remote` and bring every monitor in sync; rejects when the server is unusable. */
  private async openSession(remote: string): Promise<Session> {
    this.setState(this.everSynced ? 'reconnecting' : 'connecting', remote, 'connecting');
    this.emitStatus({ type: 'connecting', reason: `trying ${remote}`, remote });
    const flow = await this.dial(remote, {
      tls: this.tls,
      timeoutMs: this.connectTimeoutMs,
      signal: this.abort.signal,
    });
    const metered = new MeteredTransport(flow.transport);
    const conn = new OvsdbConnection(metered, {
      onListenerError: (error, event) =>
        this.log('error', `${remote}: "${event}" handling failed: ${errorText(error)}`, { error }),
    });
    let endResolve!: () => void;
    const ended = new Promise<void>((r) => {
      endResolve = r;
    });
    const session: Session = {
      remote,
      conn,
      flow,
      metered,
      method: 'since',
      schema: undefined,
      compat: undefined,
      serverRow: undefined,
      synced: false,
      syncedAt: 0,
      endReason: undefined,
      endError: undefined,
      ended,
      end: (reason, error) => {
        if (session.endReason === undefined) {
          session.endReason = reason;
          session.endError = error;
        }
        conn.close();
      },
      probe: undefined,
      lastEchoAt: 0,
      flushTxn: undefined,
      flushSeq: 0,
      settleTimer: undefined,
    };
    void conn.closed.then((error) => {
      if (session.endReason === undefined) {
        session.endReason = error ? errorText(error) : 'closed by the server';
        session.endError = error;
      }
      if (session.probe) clearInterval(session.probe);
      if (session.settleTimer) clearTimeout(session.settleTimer);
      endResolve();
    });
    this.session = session;
    conn.on('update', (id, updates) => this.onUpdate(session, id, { kind: 'update', updates }));
    conn.on('update2', (id, updates) => {
      if (id === SERVER_MONITOR_ID) this.onServerUpdate(session, updates);
      else this.onUpdate(session, id, { kind: 'update2', updates });
    });
    conn.on('update3', (id, txnId, updates) =>
      this.onUpdate(session, id, { kind: 'update3', txnId, updates }),
    );
    conn.on('monitorCanceled', (id) =>
      session.end(
        `the server canceled monitor ${JSON.stringify(id)} (database removed or converted)`,
      ),
    );
    this.startProbe(session);
    if (this.flowPaused) flow.pause?.();
    try {
      await this.setUp(session);
    } catch (e) {
      const reason = session.endReason;
      session.end(errorText(e), e);
      if (this.session === session) this.session = undefined;
      if (reason !== undefined && !(e instanceof ServerSkippedError)) {
        throw new OvsdbError(`${remote}: ${reason}`, { cause: e });
      }
      throw e;
    }
    return session;
  }

  private async setUp(s: Session): Promise<void> {
    const setup = { timeoutMs: this.connectTimeoutMs };
    const dbs = await s.conn.listDbs(setup);
    if (!dbs.includes(this.db)) {
      throw new ServerSkippedError(
        `the server has no database ${this.db} (it has ${dbs.join(', ')})`,
      );
    }
    if (dbs.includes('_Server')) {
      let reply: TableUpdates2 | undefined;
      try {
        reply = await s.conn.monitorCond(
          '_Server',
          SERVER_MONITOR_ID,
          serverMonitorRequest(this.db),
          setup,
        );
      } catch (e) {
        // A server without monitor_cond predates clustering: nothing to check.
        if (!isUnknownMethod(e)) throw e;
        s.method = 'plain';
      }
      if (reply !== undefined) {
        for (const change of Object.values(reply['Database'] ?? {})) {
          const wire = change.initial ?? change.insert;
          if (wire) s.serverRow = decodeServerDatabaseRow(wire);
        }
        const verdict = this.judge(s.serverRow);
        if (!verdict.ok) throw new ServerSkippedError(verdict.reason, verdict.code);
      }
    }
    try {
      await s.conn.setDbChangeAware(true, setup);
    } catch (e) {
      if (!isUnknownMethod(e)) throw e;
    }
    const schemaJson = await s.conn.getSchema(this.db, setup);
    s.schema = parseSchema(schemaJson);
    s.compat = compareSchemas(this.model.schema, s.schema);
    this.noteCompat(s.compat);
    const infos: MonitorSyncInfo[] = [];
    for (const g of this.groups) infos.push(await this.syncGroup(s, g));
    if (s.endReason !== undefined) throw new OvsdbError(s.endReason);
    s.synced = true;
    s.syncedAt = Date.now();
    this.stats.connects++;
    this.stats.lastSync = infos;
    const first = !this.everSynced;
    this.everSynced = true;
    const reason = first ? 'initial sync complete' : 'resynchronised after reconnecting';
    this.setState('connected', s.remote, reason);
    this.log('info', `connected to ${s.remote}: ${reason}`, { remote: s.remote });
    this.emitStatus({ type: 'connected', reason, remote: s.remote, monitors: infos });
    if (!first) this.emitStatus({ type: 'resynced', reason, remote: s.remote, monitors: infos });
    if (first) this.resolveReady();
    const waiters = this.connectedWaiters;
    this.connectedWaiters = [];
    for (const w of waiters) w.resolve(s);
  }

  private judge(row: ServerDatabaseRow | undefined) {
    if (row?.index !== null && row?.index !== undefined && row.model === 'clustered') {
      // Indexes of another (e.g. re-created) cluster are not comparable.
      if (row.cid !== this.indexCid) {
        this.indexCid = row.cid;
        this.maxIndex = 0;
      }
      const verdict = judgeServer(
        row,
        { leaderOnly: this.leaderOnly, minIndex: this.maxIndex, cid: this.clusterId },
        this.db,
      );
      if (verdict.ok) this.maxIndex = Math.max(this.maxIndex, row.index);
      return verdict;
    }
    return judgeServer(
      row,
      { leaderOnly: this.leaderOnly, minIndex: 0, cid: this.clusterId },
      this.db,
    );
  }

  private noteCompat(report: CompatReport): void {
    const before = this.compatReport;
    this.compatReport = report;
    if (report.identical || JSON.stringify(before) === JSON.stringify(report)) return;
    const missingColumns = Object.entries(report.missingColumns)
      .map(([t, cs]) => `${t}.{${cs.join(',')}}`)
      .join(' ');
    this.log(
      'warn',
      `schema drift: model ${report.modelVersion}, server ${report.serverVersion}; missing tables: ${report.missingTables.join(', ') || 'none'}; missing columns: ${missingColumns || 'none'}`,
      { compat: report },
    );
  }

  /** Start (or restart) the monitor of `g` on `s` and apply its reply. */
  private async syncGroup(s: Session, g: MonitorGroup): Promise<MonitorSyncInfo> {
    const compat = s.compat!;
    const requests: Record<string, MonitorRequest> = {};
    const active: string[] = [];
    let shapeChanged = false;
    for (const table of g.tables) {
      const cfg = this.tableConfig.get(table)!;
      const cols = usableColumns(compat, this.model.schema, table, cfg.columns);
      const before = this.replica.monitoredColumns(table as TableName<DB>);
      if (cols === undefined) {
        this.replica.configure(table, undefined);
        continue;
      }
      const wireColumns = cols.filter((c) => c !== '_uuid');
      const wanted = cfg.columns ?? this.model.schema.tables[table]!.columnNames;
      const filled = wanted.filter((c) => c !== '_uuid' && !wireColumns.includes(c));
      if (!sameList(before, this.sortedLike(table, wireColumns))) shapeChanged = true;
      this.replica.configure(table, wireColumns, filled);
      active.push(table);
      const req: { columns: string[]; where?: readonly Condition[] } = { columns: wireColumns };
      if (cfg.where !== undefined && s.method !== 'plain') req.where = cfg.where;
      requests[table] = req;
    }
    g.active = active;
    const conditionsVersion = g.conditions;
    const full = g.needFull || shapeChanged || g.syncedConditions !== conditionsVersion;
    const fromTxnId = full ? ZERO_TXN_ID : g.lastTxnId;
    if (active.length === 0) {
      g.syncedConditions = conditionsVersion;
      return {
        monitor: g.name,
        method: 'monitor_cond_since',
        found: false,
        fromTxnId,
        lastTxnId: g.lastTxnId,
        initialRows: 0,
        changes: 0,
      };
    }
    g.pending = [];
    try {
      for (;;) {
        try {
          const info = await this.monitorOnce(s, g, requests as MonitorRequests, fromTxnId);
          g.needFull = false;
          g.syncedConditions = conditionsVersion;
          // Notifications that arrived after the reply, in order.
          const held = g.pending ?? [];
          g.pending = undefined;
          if (s.endReason === undefined) for (const b of held) this.applyNotification(s, g, b);
          return info;
        } catch (e) {
          if (!isUnknownMethod(e) || s.method === 'plain') throw e;
          s.method = s.method === 'since' ? 'cond' : 'plain';
          if (s.method === 'plain')
            for (const t of active) delete (requests[t] as { where?: unknown }).where;
          this.log(
            'info',
            `${s.remote}: falling back to ${s.method === 'cond' ? 'monitor_cond' : 'monitor'}`,
          );
        }
      }
    } finally {
      // On failure the session ends: what was held is dropped with it.
      g.pending = undefined;
    }
  }

  /** The columns in the replica's row order, to compare with what it monitors. */
  private sortedLike(table: string, columns: readonly string[]): string[] {
    const schema = this.model.schema.tables[table]!;
    const set = new Set(columns);
    const out: string[] = [];
    if (set.has('_version')) out.push('_version');
    for (const c of schema.columnNames) if (set.has(c)) out.push(c);
    return out;
  }

  private async monitorOnce(
    s: Session,
    g: MonitorGroup,
    requests: MonitorRequests,
    fromTxnId: string,
  ): Promise<MonitorSyncInfo> {
    const asked = fromTxnId !== ZERO_TXN_ID;
    if (s.method === 'since') {
      const r = await s.conn.monitorCondSince(this.db, g.id, requests, fromTxnId);
      this.replica.beginBatch(r.lastTxnId);
      let initialRows = 0;
      let changes = 0;
      for (const t of g.active) changes += Object.keys(r.updates[t] ?? {}).length;
      let replaced: ReplaceResult | undefined;
      if (r.found) {
        for (const table of g.active)
          initialRows += this.replica.applyUpdate2(table, r.updates[table] ?? {});
        this.stats.resumedFound++;
      } else {
        for (const t of g.active) initialRows += Object.keys(r.updates[t] ?? {}).length;
        replaced = this.replaceAll(g, r.updates, 'update2');
        if (asked) this.stats.resumedNotFound++;
        else this.stats.fullSyncs++;
      }
      this.stats.initialRows += initialRows;
      g.lastTxnId = r.lastTxnId;
      g.idFlush = s.flushSeq;
      return {
        monitor: g.name,
        method: 'monitor_cond_since',
        found: r.found,
        fromTxnId,
        lastTxnId: r.lastTxnId,
        initialRows,
        changes,
        replaced,
      };
    }
    const updates =
      s.method === 'cond'
        ? await s.conn.monitorCond(this.db, g.id, requests)
        : await s.conn.monitor(this.db, g.id, requests);
    this.replica.beginBatch();
    let initialRows = 0;
    for (const t of g.active) initialRows += Object.keys(updates[t] ?? {}).length;
    this.stats.initialRows += initialRows;
    this.stats.fullSyncs++;
    const replaced = this.replaceAll(g, updates, s.method === 'cond' ? 'update2' : 'update');
    g.lastTxnId = ZERO_TXN_ID;
    return {
      monitor: g.name,
      method: s.method === 'cond' ? 'monitor_cond' : 'monitor',
      found: false,
      fromTxnId,
      lastTxnId: ZERO_TXN_ID,
      initialRows,
      changes: initialRows,
      replaced,
    };
  }

  private replaceAll(
    g: MonitorGroup,
    updates: TableUpdates2 | TableUpdates,
    format: 'update2' | 'update',
  ): ReplaceResult {
    const total = { inserted: 0, updated: 0, deleted: 0, unchanged: 0 };
    for (const table of g.active) {
      const r = this.replica.replace(table, updates[table] ?? {}, format);
      total.inserted += r.inserted;
      total.updated += r.updated;
      total.deleted += r.deleted;
      total.unchanged += r.unchanged;
    }
    return total;
  }

  private onUpdate(s: Session, id: unknown, message: Buffered): void {
    if (s !== this.session || s.endReason !== undefined) return;
    if (message.kind === 'update3') this.noteFlush(s, message.txnId);
    const g = typeof id === 'string' ? this.groupsById.get(id) : undefined;
    if (g === undefined) return;
    if (g.pending !== undefined) {
      g.pending.push(message);
      return;
    }
    this.applyNotification(s, g, message);
  }

  private applyNotification(s: Session, g: MonitorGroup, message: Buffered): void {
    this.replica.beginBatch(message.kind === 'update3' ? message.txnId : undefined);
    try {
      for (const table in message.updates) {
        if (!g.active.includes(table)) continue;
        if (message.kind === 'update')
          this.replica.applyUpdate(table, (message.updates as TableUpdates)[table]!);
        else this.replica.applyUpdate2(table, (message.updates as TableUpdates2)[table]!);
      }
      if (message.kind === 'update3') {
        g.lastTxnId = message.txnId;
        g.idFlush = s.flushSeq;
      }
      this.stats.updates++;
    } catch (e) {
      g.needFull = true;
      this.log(
        'error',
        `${s.remote}: could not apply an update of monitor ${g.name}: ${errorText(e)}; resynchronising`,
        { error: e },
      );
      s.end(`replica out of sync: ${errorText(e)}`, e);
    }
  }

  private onServerUpdate(s: Session, updates: TableUpdates2): void {
    if (s !== this.session || s.endReason !== undefined) return;
    const rows = updates['Database'] ?? {};
    for (const change of Object.values(rows)) {
      if ('delete' in change && change.delete === null && change.modify === undefined)
        s.serverRow = undefined;
      else {
        const wire = change.initial ?? change.insert ?? change.modify;
        if (wire)
          s.serverRow = decodeServerDatabaseRow(wire, change.modify ? s.serverRow : undefined);
      }
    }
    const verdict = this.judge(s.serverRow);
    if (verdict.ok) return;
    if (verdict.code === 'not-leader' || verdict.code === 'disconnected') {
      this.emitStatus({ type: 'leader-changed', reason: verdict.reason, remote: s.remote });
    }
    s.end(verdict.reason);
  }

  /**
   * An `update3` carrying `txnId` arrived. Its id is the database's latest
   * transaction (not the monitor's), ovsdb-server writes every monitor's
   * update of one flush back to back, and flushes every monitor before any
   * reply. So a new id means the previous flush is complete: every monitor
   * in sync is current up to the previous id, even one whose tables did not
   * change. Advancing idle monitors keeps their resume point inside the
   * server's history (about 100 transactions), so they resume with found=true.
   */
  private noteFlush(s: Session, txnId: string): void {
    if (txnId === s.flushTxn) return;
    if (s.flushTxn !== undefined) this.settle(s, s.flushTxn, s.flushSeq);
    s.flushTxn = txnId;
    s.flushSeq++;
    if (s.settleTimer === undefined && this.groups.length > 1) {
      // Settle the last flush too once updates pause: a reply (here to an
      // echo) comes after a flush of every monitor.
      s.settleTimer = setTimeout(() => {
        s.settleTimer = undefined;
        const seq = s.flushSeq;
        const txn = s.flushTxn;
        s.conn
          .echo('ovnkit-settle')
          .then(() => {
            // Only when no later flush began meanwhile (its monitors may be mid-way).
            if (s.flushSeq === seq && txn !== undefined && s.endReason === undefined) {
              this.settle(s, txn, seq);
            }
          })
          .catch(() => {});
      }, 500);
      s.settleTimer.unref?.();
    }
  }

  /** Advance the resume point of the monitors in sync whose id predates flush `seq` to `txnId`. */
  private settle(s: Session, txnId: string, seq: number): void {
    if (s.method !== 'since') return;
    for (const g of this.groups) {
      if (g.pending !== undefined || g.active.length === 0 || g.idFlush >= seq) continue;
      g.lastTxnId = txnId;
      g.idFlush = seq;
    }
  }

  private startProbe(s: Session): void {
    const interval = this.probeIntervalMs;
    if (!(interval > 0)) return;
    const tick = () => {
      if (s.endReason !== undefined) return;
      const now = Date.now();
      const idle = now - s.metered.lastRx;
      if (idle < interval) return;
      if (!this.flowPaused && idle >= 2 * interval) {
        s.end(`inactivity probe: nothing received from the server for ${idle} ms`);
        return;
      }
      if (s.lastEchoAt <= s.metered.lastRx || now - s.lastEchoAt >= interval) {
        s.lastEchoAt = now;
        s.conn.echo('ovnkit-probe').catch(() => {});
      }
    };
    s.probe = setInterval(tick, Math.max(10, Math.floor(interval / 4)));
    s.probe.unref?.();
  }

  private onPressure(pause: boolean): void {
    this.flowPaused = pause;
    const s = this.session;
    if (!s) return;
    if (pause) {
      this.log('debug', 'event queue above its high-water mark: pausing reads');
      s.flow.pause?.();
    } else {
      s.metered.lastRx = Date.now();
      s.flow.resume?.();
    }
  }

  private whenConnected(
    signal: AbortSignal | undefined,
    deadline: number | undefined,
  ): Promise<Session> {
    if (this.closedError) return Promise.reject(this.closedError);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const s = this.session;
    if (s?.synced && s.endReason === undefined) return Promise.resolve(s);
    return new Promise<Session>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const entry = {
        resolve: (x: Session) => {
          cleanup();
          resolve(x);
        },
        reject: (e: unknown) => {
          cleanup();
          reject(e);
        },
      };
      const onAbort = () => entry.reject(signal?.reason);
      const cleanup = () => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const i = this.connectedWaiters.indexOf(entry);
        if (i >= 0) this.connectedWaiters.splice(i, 1);
      };
      this.connectedWaiters.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (deadline !== undefined) {
        timer = setTimeout(
          () =>
            entry.reject(
              new RequestTimeoutError(
                'transact (waiting for a connection)',
                Math.max(0, deadline - Date.now()),
              ),
            ),
          Math.max(0, deadline - Date.now()),
        );
      }
    });
  }

  /** Close for good with `error` (close() or give-up). */
  private finish(error: ClientClosedError): void {
    if (this.closedError) return;
    this.closedError = error;
    this.abort.abort(error);
    this.session?.end(error.reason);
    this.setState('closed', this.session?.remote, error.reason);
    this.rejectReady(error);
    const waiters = this.connectedWaiters;
    this.connectedWaiters = [];
    for (const w of waiters) w.reject(error);
    this.replica.rejectWaiters(error);
    this.log(error.reason === 'closed by the program' ? 'info' : 'error', error.message);
    this.emitStatus({ type: 'closed', reason: error.reason, error: error.cause });
  }

  private setState(state: ClientState, remote: string | undefined, reason: string): void {
    if (this.closedError && state !== 'closed') return;
    this.state = state;
    this.stateRemote = remote;
    this.stateReason = reason;
  }

  private emitStatus(event: StatusEvent): void {
    if (this.statusHandlers.length === 0) return;
    this.replica.enqueueCallback(async () => {
      for (const h of this.statusHandlers.slice()) {
        try {
          await h(event);
        } catch (e) {
          this.log('error', `status handler threw: ${errorText(e)}`, { error: e });
        }
      }
    });
  }

  private log(level: keyof Logger, message: string, data?: Record<string, unknown>): void {
    const fn = this.logger[level];
    if (!fn) return;
    try {
      fn.call(this.logger, message, data);
    } catch {
      // A failing logger must not break the client.
    }
  }
}

/**
 * Connect to a database and keep a typed replica of it. Returns at once; the
 * client connects in the background (`await client.ready`).
 *
 * @example
 * ```ts
 * import { NB } from 'ovnkit/nb';
 * import { connectDatabase } from 'ovnkit/client';
 *
 * const nb = connectDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * await nb.ready;
 * for (const ls of nb.rows('Logical_Switch')) console.log(ls.name, ls.ports.length);
 * await nb.close();
 * ```
 * @throws RemoteSyntaxError for an invalid remote; OvsdbError for a table,
 *   column or index the model does not have; RangeError for invalid backoff
 *   options.
 */
export function connectDatabase<
  DB extends TableMap,
  const IX extends IndexesOption<DB> = Record<never, never>,
>(options: DatabaseClientOptions<DB, IX>): DatabaseClient<DB, IX> {
  return new DatabaseClient<DB, IX>(options);
}

function normalizeRemotes(remotes: string | readonly string[]): string[] {
  const list: Remote[] =
    typeof remotes === 'string'
      ? [...parseRemoteList(remotes).remotes]
      : remotes.map((r) => parseRemote(r));
  if (list.length === 0) throw new OvsdbError('remotes: at least one server is needed');
  return list.map((r) => formatRemote(r));
}

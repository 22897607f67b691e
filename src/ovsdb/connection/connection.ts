/**
 * The low-level OVSDB connection: one method per OVSDB RPC (RFC 7047 §4 and the
 * Open vSwitch extensions of ovsdb-server(7)), taking and returning raw wire
 * values, plus typed events for the server's notifications. Higher layers add
 * the schema-aware codec, the replica and reconnection.
 *
 * This module imports nothing from Node, so it also runs in browsers.
 * @module
 */

import { ZERO_UUID } from '../values/uuid.js';
import { ProtocolError } from '../wire/errors.js';
import { isObject, preview } from '../wire/json.js';
import { readTransactReply, transactFailure } from '../wire/results.js';
import { JsonRpcPeer } from '../wire/rpc.js';
import type {
  LargeReplyOptions,
  PeerOptions,
  ReplyHandler,
  SendOptions,
} from '../wire/rpc-options.js';
import type { Transport } from '../wire/transport.js';
import type {
  Condition,
  MonitorRequests,
  Operation,
  OperationResult,
  TableUpdates,
  TableUpdates2,
} from '../wire/wire.js';
import { TypedEmitter } from './emitter.js';

/** The all-zero transaction id: "I have no last transaction id" for `monitor_cond_since`. */
const ZERO_TXN_ID: string = ZERO_UUID;

/** Options of {@link OvsdbConnection}. */
export interface ConnectionOptions {
  /** Default per-request timeout in ms; undefined = none. */
  requestTimeoutMs?: number;
  /**
   * Most bytes waiting to be written while the server does not read
   * (default 64 MiB, `DEFAULT_MAX_WRITE_QUEUE_BYTES`; `Infinity`: no bound).
   * Past it the connection closes with a `WriteQueueFullError` (the `close`
   * event's error, and the `cause` of the pending requests' errors).
   */
  maxWriteQueueBytes?: number;
  /**
   * Largest incoming message, in bytes: it must admit the largest reply
   * asked for (an initial monitor reply). Default
   * `DEFAULT_MAX_REPLY_BYTES` (1 GiB).
   */
  maxMessageBytes?: number;
  /**
   * Largest message that begins while no request is outstanding (a
   * notification, a request from the server), in bytes; at most
   * `maxMessageBytes`. Default `DEFAULT_MAX_UNSOLICITED_BYTES` (64 MiB).
   * See `ovsdb/wire/limits.ts`.
   */
  maxUnsolicitedBytes?: number;
  /**
   * Called when an event listener (or another hook) throws. The connection
   * keeps running. Default: `console.error`.
   */
  onListenerError?: (error: unknown, event: string) => void;
}

/** Events of {@link OvsdbConnection}: event name → listener arguments. */
export interface ConnectionEvents {
  /** An `update` notification (from `monitor`). */
  update: [monitorId: unknown, updates: TableUpdates];
  /** An `update2` notification (from `monitor_cond`). */
  update2: [monitorId: unknown, updates: TableUpdates2];
  /** An `update3` notification (from `monitor_cond_since`). */
  update3: [monitorId: unknown, lastTxnId: string, updates: TableUpdates2];
  /** The server granted lock `lockName` to this session (e.g. after `lock` returned false and the owner let go). */
  locked: [lockName: string];
  /** Another session stole lock `lockName`. */
  stolen: [lockName: string];
  /** The server dropped a monitor (e.g. its database was removed); needs `set_db_change_aware`. */
  monitorCanceled: [monitorId: unknown];
  /** Any other notification, as sent. */
  notification: [method: string, params: readonly unknown[]];
  /** The connection closed; `error` is undefined for a local {@link OvsdbConnection.close}. */
  close: [error: Error | undefined];
}

/** A table's monitor condition change for `monitor_cond_change`. */
export interface MonitorCondChangeRequest {
  readonly columns?: readonly string[];
  readonly where?: readonly Condition[];
}

/** The reply of `monitor_cond_since`. */
export interface MonitorCondSinceResult {
  /** True when the server had `lastTxnId` in its history: `updates` are the changes since then. */
  readonly found: boolean;
  /** The id of the last transaction the updates include. */
  readonly lastTxnId: string;
  /** The changes since `lastTxnId` (found) or a full dump (not found). */
  readonly updates: TableUpdates2;
}

/** A listener of connection event `K`. */
export type ConnectionListener<K extends keyof ConnectionEvents> = (
  ...args: ConnectionEvents[K]
) => void;

/**
 * A connection to an OVSDB server over a {@link Transport}.
 *
 * ```ts
 * const conn = new OvsdbConnection(transport);
 * conn.on('update2', (id, updates) => console.log(id, updates));
 * await conn.monitorCond('OVN_Northbound', 'm1', { Logical_Switch: { columns: ['name'] } });
 * // sends {"method":"monitor_cond","params":["OVN_Northbound","m1",{"Logical_Switch":{"columns":["name"]}}],"id":0}
 * ```
 *
 * Notifications are dispatched synchronously in arrival order, before any later
 * reply's promise settles: the updates a transaction causes (which the server
 * sends before its reply) are seen before `transact` resolves. A notification
 * with a malformed payload closes the connection with a {@link ProtocolError}.
 */
export class OvsdbConnection {
  /** Resolves when the connection closes, with the reason (undefined for a local close). */
  readonly closed: Promise<Error | undefined>;

  private readonly peer: JsonRpcPeer;
  private readonly events: TypedEmitter<ConnectionEvents>;

  /**
   * Start talking over `transport` (which must not have a consumer yet).
   * @param options - see {@link ConnectionOptions}.
   */
  constructor(transport: Transport, options: ConnectionOptions = {}) {
    const onListenerError =
      options.onListenerError ??
      ((error: unknown, event: string) => {
        console.error(`${transport.description}: "${event}" listener threw:`, error);
      });
    this.events = new TypedEmitter<ConnectionEvents>({ onListenerError });
    const peerOptions: PeerOptions = {
      onNotification: (method, params) => this.onNotification(method, params),
      onClose: (error) => this.events.emit('close', error),
      onHookError: (error) => onListenerError(error, 'hook'),
    };
    if (options.requestTimeoutMs !== undefined) {
      peerOptions.requestTimeoutMs = options.requestTimeoutMs;
    }
    if (options.maxWriteQueueBytes !== undefined) {
      peerOptions.maxWriteQueueBytes = options.maxWriteQueueBytes;
    }
    if (options.maxMessageBytes !== undefined)
      peerOptions.maxMessageBytes = options.maxMessageBytes;
    if (options.maxUnsolicitedBytes !== undefined)
      peerOptions.maxUnsolicitedBytes = options.maxUnsolicitedBytes;
    this.peer = new JsonRpcPeer(transport, peerOptions);
    this.closed = this.peer.closed;
  }

  /** The transport's description, e.g. `unix:/run/ovn/ovnnb_db.sock`. */
  get description(): string {
    return this.peer.description;
  }

  /** True once the connection is closed. */
  get isClosed(): boolean {
    return this.peer.isClosed;
  }

  /** Bytes waiting to be written now, and the most that ever waited (see `maxWriteQueueBytes`). */
  get writeQueue(): { readonly bytes: number; readonly peakBytes: number } {
    return { bytes: this.peer.queuedWriteBytes, peakBytes: this.peer.peakQueuedWriteBytes };
  }

  /** The JSON-RPC peer underneath, for requests this class has no method for. */
  get rpc(): JsonRpcPeer {
    return this.peer;
  }

  /** Listen to `event`. */
  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionListener<E>): this {
    this.events.on(event, listener);
    return this;
  }

  /** Stop listening to `event` with `listener`. */
  off<E extends keyof ConnectionEvents>(event: E, listener: ConnectionListener<E>): this {
    this.events.off(event, listener);
    return this;
  }

  /** Listen to the next `event` only. */
  once<E extends keyof ConnectionEvents>(event: E, listener: ConnectionListener<E>): this {
    this.events.once(event, listener);
    return this;
  }

  /**
   * `list_dbs`: the names of the server's databases.
   *
   * ```ts
   * await conn.listDbs(); // {"method":"list_dbs","params":[],"id":0} → ['OVN_Northbound', '_Server']
   * ```
   */
  async listDbs(options?: SendOptions): Promise<string[]> {
    const result = await this.peer.request('list_dbs', [], options);
    if (!Array.isArray(result) || !result.every((x) => typeof x === 'string')) {
      throw this.badReply('list_dbs', 'an array of strings', result);
    }
    return result as string[];
  }

  /**
   * `get_schema`: database `db`'s schema JSON, as sent (parse it with
   * `parseSchema`).
   */
  async getSchema(db: string, options?: SendOptions): Promise<unknown> {
    const result = await this.peer.request('get_schema', [db], options);
    if (!isObject(result)) throw this.badReply('get_schema', 'a schema object', result);
    return result;
  }

  /**
   * `transact`: run `ops` atomically in `db`.
   *
   * ```ts
   * await conn.transact('OVN_Northbound', [
   *   { op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' }, 'uuid-name': 'sw' },
   * ]);
   * // sends {"method":"transact","params":["OVN_Northbound",{"op":"insert",…}],"id":1}
   * // → [{ uuid: ['uuid', '…'] }]
   * ```
   *
   * @throws TransactionError when an operation or the commit failed (the
   *   result array carries an `{"error", "details"}` entry); its `opIndex`,
   *   `op`, `table` and `results` say which and show everything the server
   *   sent.
   * @throws TransactionRefusedError (a `TransactionError`) when the server
   *   or a bridge refused the transaction (`permission error`, `not allowed`,
   *   `not owner`), for one operation or the whole request: it did not commit.
   * @throws RpcError when the server rejected the request as a whole (e.g.
   *   an unknown database).
   */
  transact(
    db: string,
    ops: readonly Operation[],
    options?: SendOptions,
  ): Promise<OperationResult[]> {
    let params: unknown[];
    try {
      params = [db, ...ops];
    } catch (e) {
      return Promise.reject(e);
    }
    return this.peer.request('transact', params, options).then(
      (result) => {
        const error = readTransactReply(ops, result, this.description);
        if (error !== undefined) throw error;
        const results = result as OperationResult[];
        return results.length === ops.length ? results : results.slice(0, ops.length);
      },
      (e: unknown) => {
        throw transactFailure(e, ops);
      },
    );
  }

  /**
   * `transact`, reporting to `handler` (see {@link ReplyHandler}) rather
   * than returning a promise: the reply's result as the server sent it
   * (read it with `readTransactReply`; an error reply with
   * `transactFailure`). For callers that keep their own state per
   * transaction, as the database client's transactions do.
   */
  sendTransact(
    db: string,
    ops: readonly Operation[],
    handler: ReplyHandler,
    options?: SendOptions,
  ): void {
    let params: unknown[];
    try {
      params = [db, ...ops];
    } catch (e) {
      handler.onError(e);
      return;
    }
    this.peer.send('transact', params, handler, options);
  }

  /**
   * Cancel request `requestId` (a `cancel` notification). Get the id of a
   * request from {@link SendOptions.onSent}; the cancelled request rejects
   * with the `RpcError` `canceled`.
   */
  cancel(requestId: number): void {
    this.peer.cancel(requestId);
  }

  /**
   * `monitor`: the initial contents of the monitored tables; later changes
   * arrive as `update` events carrying `monitorId`.
   */
  async monitor(
    db: string,
    monitorId: unknown,
    requests: MonitorRequests,
    options?: LargeReplyOptions,
  ): Promise<TableUpdates> {
    const result = await this.peer.request('monitor', [db, monitorId, requests], options);
    if (!isTableUpdates(result)) {
      throw this.badReply('monitor', 'table updates', result, tableUpdatesProblem(result));
    }
    return result;
  }

  /**
   * `monitor_cond`: like {@link OvsdbConnection.monitor} with `where`
   * conditions and `update2` diffs; changes arrive as `update2` events.
   */
  async monitorCond(
    db: string,
    monitorId: unknown,
    requests: MonitorRequests,
    options?: LargeReplyOptions,
  ): Promise<TableUpdates2> {
    const result = await this.peer.request('monitor_cond', [db, monitorId, requests], options);
    if (!isTableUpdates(result)) {
      throw this.badReply('monitor_cond', 'table updates', result, tableUpdatesProblem(result));
    }
    return result as TableUpdates2;
  }

  /**
   * `monitor_cond_since`: resume a monitor from `lastTxnId` (default the
   * all-zero UUID: no history). When `found` is false, `updates` is a full
   * dump and the caller must clear what it had for this monitor. Changes
   * arrive as `update3` events.
   *
   * ```ts
   * await conn.monitorCondSince('OVN_Northbound', 'm', { NB_Global: {} });
   * // params ["OVN_Northbound","m",{"NB_Global":{}},"00000000-0000-0000-0000-000000000000"]
   * ```
   */
  async monitorCondSince(
    db: string,
    monitorId: unknown,
    requests: MonitorRequests,
    lastTxnId: string = ZERO_TXN_ID,
    options?: LargeReplyOptions,
  ): Promise<MonitorCondSinceResult> {
    const result = await this.peer.request(
      'monitor_cond_since',
      [db, monitorId, requests, lastTxnId],
      options,
    );
    if (
      !Array.isArray(result) ||
      result.length !== 3 ||
      typeof result[0] !== 'boolean' ||
      typeof result[1] !== 'string' ||
      !isTableUpdates(result[2])
    ) {
      throw this.badReply(
        'monitor_cond_since',
        '[found, last-txn-id, updates]',
        result,
        Array.isArray(result) && result.length === 3 ? tableUpdatesProblem(result[2]) : undefined,
      );
    }
    return { found: result[0], lastTxnId: result[1], updates: result[2] as TableUpdates2 };
  }

  /**
   * `monitor_cond_change`: change the columns/conditions of monitor
   * `monitorId` and rename it `newMonitorId` (pass the same id to keep it).
   */
  async monitorCondChange(
    monitorId: unknown,
    newMonitorId: unknown,
    requests: Readonly<Record<string, readonly MonitorCondChangeRequest[]>>,
    options?: SendOptions,
  ): Promise<void> {
    await this.peer.request('monitor_cond_change', [monitorId, newMonitorId, requests], options);
  }

  /** `monitor_cancel`: stop monitor `monitorId`. */
  async monitorCancel(monitorId: unknown, options?: SendOptions): Promise<void> {
    await this.peer.request('monitor_cancel', [monitorId], options);
  }

  /**
   * `lock`: ask for lock `name`. True when acquired now; when false, a
   * `locked` event follows once it is.
   */
  lock(name: string, options?: SendOptions): Promise<boolean> {
    return this.lockRequest('lock', name, options);
  }

  /** `steal`: take lock `name` from whoever holds it (they get `stolen`). */
  steal(name: string, options?: SendOptions): Promise<boolean> {
    return this.lockRequest('steal', name, options);
  }

  /** `unlock`: release (or stop waiting for) lock `name`. */
  async unlock(name: string, options?: SendOptions): Promise<void> {
    await this.peer.request('unlock', [name], options);
  }

  /** `echo`: the server returns `params` unchanged. */
  async echo(...params: unknown[]): Promise<unknown[]> {
    const result = await this.peer.request('echo', params);
    if (!Array.isArray(result)) throw this.badReply('echo', 'an array', result);
    return result;
  }

  /**
   * `set_db_change_aware` (default true): stay connected when a database is
   * removed or converted and get `monitor_canceled` instead.
   */
  async setDbChangeAware(aware = true, options?: SendOptions): Promise<void> {
    await this.peer.request('set_db_change_aware', [aware], options);
  }

  /** `get_server_id`: the server's UUID (one per ovsdb-server process). */
  async getServerId(options?: SendOptions): Promise<string> {
    const result = await this.peer.request('get_server_id', [], options);
    if (typeof result !== 'string') throw this.badReply('get_server_id', 'a string', result);
    return result;
  }

  /** Close the connection; pending requests reject with `ConnectionClosedError`. */
  close(): void {
    this.peer.close();
  }

  private async lockRequest(
    method: 'lock' | 'steal',
    name: string,
    options: SendOptions | undefined,
  ): Promise<boolean> {
    const result = await this.peer.request(method, [name], options);
    if (!isObject(result) || typeof result['locked'] !== 'boolean') {
      throw this.badReply(method, '{"locked": boolean}', result);
    }
    return result['locked'];
  }

  private onNotification(method: string, params: readonly unknown[]): void {
    const p = params;
    switch (method) {
      case 'update':
        if (
          this.check(
            method,
            p.length === 2 && isTableUpdates(p[1]),
            '[monitor-id, table-updates]',
            p,
          )
        ) {
          this.events.emit('update', p[0], p[1] as TableUpdates);
        }
        break;
      case 'update2':
        if (
          this.check(
            method,
            p.length === 2 && isTableUpdates(p[1]),
            '[monitor-id, table-updates2]',
            p,
          )
        ) {
          this.events.emit('update2', p[0], p[1] as TableUpdates2);
        }
        break;
      case 'update3':
        if (
          this.check(
            method,
            p.length === 3 && typeof p[1] === 'string' && isTableUpdates(p[2]),
            '[monitor-id, last-txn-id, table-updates2]',
            p,
          )
        ) {
          this.events.emit('update3', p[0], p[1] as string, p[2] as TableUpdates2);
        }
        break;
      case 'locked':
      case 'stolen':
        if (this.check(method, p.length === 1 && typeof p[0] === 'string', '[lock-name]', p)) {
          this.events.emit(method, p[0] as string);
        }
        break;
      case 'monitor_canceled':
        if (this.check(method, p.length === 1, '[monitor-id]', p)) {
          this.events.emit('monitorCanceled', p[0]);
        }
        break;
      default:
        this.events.emit('notification', method, p);
    }
  }

  /** True when `ok`; otherwise close the connection with a ProtocolError naming the notification. */
  private check(
    method: string,
    ok: boolean,
    expected: string,
    params: readonly unknown[],
  ): boolean {
    if (ok) return true;
    // Of updates, say which table and row (their table updates are the last param).
    const problem = method.startsWith('update') ? tableUpdatesProblem(params.at(-1)) : undefined;
    this.peer.close(
      new ProtocolError(
        `${this.description}: malformed "${method}" notification: expected params ${expected}${problem ? ` (${problem})` : ''}, got ${preview(params, 200)}`,
      ),
    );
    return false;
  }

  private badReply(method: string, expected: string, got: unknown, extra?: string): ProtocolError {
    return new ProtocolError(
      `${this.description}: unexpected "${method}" reply: expected ${expected}${extra ? ` (${extra})` : ''}, got ${preview(got, 200)}`,
    );
  }
}

/** `{table: {uuid: object}}`: the outer two levels of (table-)updates and updates2. */
function isTableUpdates(v: unknown): v is TableUpdates {
  return tableUpdatesProblem(v) === undefined;
}

/** Why `v` is not `{table: {uuid: object}}` (naming the table and row), or undefined. */
function tableUpdatesProblem(v: unknown): string | undefined {
  if (!isObject(v)) return 'the table updates are not an object';
  for (const table in v) {
    const rows = v[table];
    if (!isObject(rows)) return `table ${preview(table, 60)}: the row changes are not an object`;
    for (const uuid in rows) {
      if (!isObject(rows[uuid])) {
        return `table ${preview(table, 60)}, row ${preview(uuid, 60)}: a row change must be an object`;
      }
    }
  }
  return undefined;
}

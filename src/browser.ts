/**
 * ovnkit for browsers: the OVSDB layers that need no Node module, and a
 * `connect` that opens `ws://` and `wss://` remotes with the global
 * `WebSocket` (an `ovnkit bridge` in front of ovsdb-server, or the in-memory
 * server listening on WebSocket).
 *
 * ```ts
 * import { connect, parseSchema, compileRowCodec } from 'ovnkit/browser';
 *
 * const conn = await connect('wss://ovn.example.com/ovsdb', { token });
 * const schema = parseSchema(await conn.getSchema('OVN_Northbound'));
 * conn.on('update2', (id, updates) => render(updates));
 * await conn.monitorCond('OVN_Northbound', 'ui', { Logical_Switch: { columns: ['name', 'ports'] } });
 * ```
 *
 * Browsers cannot set headers on a WebSocket, so the token travels in the
 * URL's `token` query parameter (`ovnkit bridge` accepts both). Prefer `wss:`
 * so that it is encrypted.
 * @module
 */

import { type ConnectionOptions, OvsdbConnection } from './ovsdb/connection/connection.js';
import { parseRemote, type Remote } from './ovsdb/transport/remote.js';
import {
  openWebSocketTransport,
  type WebSocketLike,
  type WebSocketTransportOptions,
  withToken,
} from './ovsdb/transport/ws-transport.js';
import { OvsdbError } from './ovsdb/wire/errors.js';

export type {
  EventContext,
  ReplicaEventStats,
  RowEventHandler,
  RowEventKind,
} from './client/replica/event-queue.js';
export {
  Replica,
  type ReplicaOptions,
  type WaitForOptions,
  WaitTimeoutError,
} from './client/replica/replica.js';
export type {
  DecodedDump,
  IndexesOption,
  PredecodedRows,
  PredecodedTable,
  ReplaceCounts,
  ReplaceResult,
} from './client/replica/store.js';
export {
  type ConnectionEvents,
  type ConnectionListener,
  type ConnectionOptions,
  type MonitorCondChangeRequest,
  type MonitorCondSinceResult,
  OvsdbConnection,
} from './ovsdb/connection/connection.js';
export {
  type ColumnOf,
  type DatabaseModel,
  defineModel,
  type InsertOf,
  type RowOf,
  type TableMap,
  type TableName,
  type TableTypes,
  type UpdateOf,
} from './ovsdb/schema/model.js';
export { parseSchema, parseSchemaText } from './ovsdb/schema/schema.js';
export type {
  Atom,
  AtomicType,
  BaseType,
  ColumnKind,
  ColumnSchema,
  ColumnType,
  DatabaseSchema,
  TableSchema,
} from './ovsdb/schema/schema-types.js';
export {
  DEFAULT_OVSDB_PORT,
  formatRemote,
  type InetRemote,
  type PassiveInetRemote,
  type PassiveRemote,
  type PassiveUnixRemote,
  parsePassiveRemote,
  parseRemote,
  parseRemoteList,
  type Remote,
  type RemoteList,
  RemoteSyntaxError,
  type SocketRemote,
  type UnixRemote,
  type WebSocketRemote,
} from './ovsdb/transport/remote.js';
export {
  type OpenWebSocketOptions,
  openWebSocketTransport,
  WebSocketClosedError,
  type WebSocketCloseEventLike,
  type WebSocketErrorEventLike,
  type WebSocketLike,
  type WebSocketMessageEventLike,
  WebSocketTransport,
  type WebSocketTransportOptions,
  withToken,
} from './ovsdb/transport/ws-transport.js';
export {
  type ColumnCodec,
  compileColumnCodec,
  compileTableCodec,
  type DecodeContext,
  defaultValue,
  type EncodeContext,
  type TableCodec,
} from './ovsdb/values/datum.js';
export { asUuid, isUuid, newUuid, type Uuid, ZERO_UUID } from './ovsdb/values/uuid.js';
export {
  columnValidator,
  columnValueProblem,
  describeColumnType,
  type RowMode,
  rowValidator,
  type StandardIssue,
  type StandardValidationResult,
  type StandardValidatorProps,
  type ValidationError,
  type ValidationIssue,
  type ValidationResult,
  type Validator,
  validateColumnValue,
  validateRow,
} from './ovsdb/values/validators.js';
export {
  ConnectionClosedError,
  DatumError,
  OvsdbError,
  ProtocolError,
  RequestTimeoutError,
  RpcError,
  SchemaError,
  TransactionError,
  TransactionRefusedError,
  WriteQueueFullError,
} from './ovsdb/wire/errors.js';
export {
  DEFAULT_MAX_DEPTH,
  JsonStreamFramer,
  type JsonStreamFramerOptions,
} from './ovsdb/wire/framer.js';
export {
  JsonRpcPeer,
  type LargeReplyOptions,
  type PeerOptions,
  type ReplyHandler,
  type ReplyReviver,
  type SendOptions,
} from './ovsdb/wire/rpc.js';
export {
  type MemberReviver,
  type MemberReviverFor,
  REVIVE_DEPTH,
} from './ovsdb/wire/split-decoder.js';
export type { Transport, TransportHandlers } from './ovsdb/wire/transport.js';
export type {
  AbortOperation,
  AssertOperation,
  CommentOperation,
  CommitOperation,
  Condition,
  ConditionFunction,
  DeleteOperation,
  InsertOperation,
  MonitorRequest,
  MonitorRequests,
  MonitorSelect,
  MutateOperation,
  Mutation,
  Mutator,
  Operation,
  OperationError,
  OperationResult,
  RowUpdate,
  RowUpdate2,
  SelectOperation,
  TableUpdate,
  TableUpdate2,
  TableUpdates,
  TableUpdates2,
  UpdateOperation,
  WaitOperation,
  WireAtom,
  WireMap,
  WireNamedUuid,
  WireRow,
  WireSet,
  WireUuid,
  WireValue,
} from './ovsdb/wire/wire.js';
export {
  applyRowUpdate,
  applyRowUpdate2,
  compileRowCodec,
  ReplicaInconsistencyError,
  type Row,
  type RowCodec,
} from './rows/codec.js';
export { type ClientIndexSpec, IndexError, type IndexValue } from './rows/indexes.js';

/** A WebSocket constructor: the global `WebSocket` or a compatible one. */
export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
) => WebSocketLike;

/** Options of the browser {@link connect}. */
export interface BrowserConnectOptions extends ConnectionOptions, WebSocketTransportOptions {
  /** A bearer token, added to the URL as the `token` query parameter. */
  readonly token?: string | undefined;
  /** WebSocket subprotocols to offer. */
  readonly protocols?: string | string[] | undefined;
  /** Give up when the socket is not open after this many milliseconds. */
  readonly timeoutMs?: number | undefined;
  /** Abort opening. */
  readonly signal?: AbortSignal | undefined;
  /** The WebSocket implementation. Default: the global `WebSocket`. */
  readonly WebSocket?: WebSocketConstructor | undefined;
}

/**
 * Open a `ws://` or `wss://` remote with the browser's `WebSocket` and start
 * an {@link OvsdbConnection} on it.
 *
 * ```ts
 * const conn = await connect(`wss://${location.host}/ovsdb`, { token, timeoutMs: 5000 });
 * await conn.listDbs(); // ['OVN_Northbound']
 * ```
 * @throws {@link RemoteSyntaxError} for an invalid remote; {@link OvsdbError}
 *   for a `tcp:`, `ssl:` or `unix:` remote (browsers cannot open those) or
 *   when there is no `WebSocket`; {@link ConnectionClosedError} when the
 *   socket does not open (its `cause` carries the close code).
 */
export async function connect(
  remote: string | Remote,
  options: BrowserConnectOptions = {},
): Promise<OvsdbConnection> {
  const target = typeof remote === 'string' ? parseRemote(remote) : remote;
  if (target.kind !== 'ws' && target.kind !== 'wss') {
    throw new OvsdbError(
      `${target.kind}: remotes cannot be opened in a browser; connect to a WebSocket bridge (ws:// or wss://)`,
    );
  }
  const {
    token,
    protocols,
    timeoutMs,
    signal,
    WebSocket: Ctor,
    highWaterMark,
    lowWaterMark,
    drainPollMs,
    closeTimeoutMs,
    description,
    ...connectionOptions
  } = options;
  const WebSocketImpl =
    Ctor ?? (globalThis as { WebSocket?: WebSocketConstructor | undefined }).WebSocket;
  if (WebSocketImpl === undefined) {
    throw new OvsdbError('there is no global WebSocket; pass one in options.WebSocket');
  }
  const url = token === undefined ? target.url : withToken(target.url, token);
  const transport = await openWebSocketTransport(
    () => (protocols === undefined ? new WebSocketImpl(url) : new WebSocketImpl(url, protocols)),
    { timeoutMs, signal, highWaterMark, lowWaterMark, drainPollMs, closeTimeoutMs, description },
  );
  return new OvsdbConnection(transport, connectionOptions);
}

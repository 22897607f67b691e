/**
 * The protocol core's names that need no Node module, which the Node entry
 * (`ovnkit/ovsdb`) and the browser entry (`ovnkit/browser`) both export.
 * @module
 */

export {
  type ConnectionEvents,
  type ConnectionListener,
  type ConnectionOptions,
  type MonitorCondChangeRequest,
  type MonitorCondSinceResult,
  OvsdbConnection,
} from './connection/connection.js';
export {
  absentColumns,
  type ColumnTypeDifference,
  type CompatOption,
  type CompatReport,
  type CompatSpec,
  type CompatTables,
  compareSchemas,
  type DriftedValue,
  SchemaDriftError,
} from './schema/compat.js';
export type { AbsentConditionPolicy } from './schema/compat-checks.js';
export {
  type ColumnOf,
  type DatabaseModel,
  defineModel,
  type InsertOf,
  type ModelSchemaName,
  type NotInModel,
  type RowOf,
  type TableMap,
  type TableName,
  type TableTypes,
  type UpdateOf,
} from './schema/model.js';
export { parseSchema, parseSchemaText } from './schema/schema.js';
export type {
  Atom,
  AtomicType,
  BaseType,
  ColumnKind,
  ColumnSchema,
  ColumnType,
  DatabaseSchema,
  TableSchema,
} from './schema/schema-types.js';
export type { DialedTransport, Dialer, DialOptions } from './transport/dial.js';
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
} from './transport/remote.js';
export type { TlsOptions } from './transport/tls-options.js';
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
} from './transport/ws-transport.js';
export {
  type ColumnCodec,
  compileColumnCodec,
  compileTableCodec,
  type DecodeContext,
  defaultValue,
  type EncodeContext,
  type TableCodec,
} from './values/datum.js';
export { INT64_MAX, INT64_MIN, type Int64, isInt64, toInt64 } from './values/int64.js';
export { asUuid, isUuid, newUuid, type Uuid, ZERO_UUID } from './values/uuid.js';
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
} from './values/validators.js';
export {
  ConnectionClosedError,
  DatumError,
  isRefusal,
  OvsdbError,
  ProtocolError,
  REFUSAL_ERRORS,
  type RefusedBy,
  RequestTimeoutError,
  RpcError,
  SchemaError,
  TransactionError,
  TransactionRefusedError,
  WriteQueueFullError,
} from './wire/errors.js';
export {
  DEFAULT_MAX_DEPTH,
  JsonStreamFramer,
  type JsonStreamFramerOptions,
} from './wire/framer.js';
export { readTransactReply, transactFailure } from './wire/results.js';
export { DEFAULT_MAX_WRITE_QUEUE_BYTES, JsonRpcPeer } from './wire/rpc.js';
export type {
  LargeReplyOptions,
  PeerOptions,
  ReplyHandler,
  ReplyReviver,
  SendOptions,
} from './wire/rpc-options.js';
export {
  type MemberReviver,
  type MemberReviverFor,
  REVIVE_DEPTH,
} from './wire/split-decoder.js';
export type { Transport, TransportHandlers } from './wire/transport.js';
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
} from './wire/wire.js';

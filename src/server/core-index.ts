/**
 * The whole in-memory server engine in one module, for the package's own
 * tests: a pure, synchronous `transact` executor that behaves as
 * ovsdb-server 3.1 does for everything a client can observe in a reply and
 * in the resulting database state, and the server around it: sessions,
 * monitors, locks, waiting transactions, the `_Server` database, history and
 * persistence.
 *
 * Not a package entry point: `ovnkit/server` is `index.ts`, the curated
 * front (`createServer`, `OvsdbServer`, `Database`, options and errors).
 * @internal
 * @module
 */

export { SERVER_SCHEMA_JSON } from '../ovsdb/schema/server-schema.js';
export { isDefaultDatum } from '../ovsdb/values/defaults.js';
export { formatG15, ovsJsonText, roundReal } from '../ovsdb/values/ovs-text.js';
export type { Datum, DatumType } from '../ovsdb/values/sorted-datum.js';
export { datumDiff } from '../ovsdb/values/sorted-datum.js';
export type { TextInPieces } from '../ovsdb/wire/json-stringify.js';
export type { Clause, Condition, ConditionFunction } from './engine/conditions.js';
export { evaluateCondition, parseCondition } from './engine/conditions.js';
export {
  columnType,
  Database,
  type Row,
  rowToJs,
  rowToWire,
  TableStore,
} from './engine/database.js';
export type {
  EngineTransactOptions,
  RowChange,
  TransactBlocked,
  TransactOutcome,
  TransactResult,
  TxnChanges,
} from './engine/executor.js';
export { executeTransaction } from './engine/executor.js';
export type { Mutation, Mutator } from './engine/mutations.js';
export { applyMutations, parseMutations } from './engine/mutations.js';
export { OpError, type OpErrorJson } from './engine/op-error.js';
export { schemaText, schemaToJson } from './engine/schema-json.js';
export type { SymbolTable, UuidSymbol } from './engine/values.js';
export { datumToWire, parseDatum } from './engine/values.js';
export { createInProcessPair, type InProcessTransport } from './listeners/in-process-transport.js';
export { type HistoryEntry, TxnHistory } from './monitor/history.js';
export { Monitor, type MonitorVersion } from './monitor/monitor.js';
export { MonitorCondition } from './monitor/monitor-condition.js';
export {
  readSnapshot,
  SNAPSHOT_FORMAT,
  type Snapshot,
  SnapshotError,
  type SnapshotRows,
} from './persistence.js';
export type { ChannelHandlers, SessionChannel } from './rpc/channel.js';
export { type LockMode, type LockOutcome, LockTable } from './rpc/locks.js';
export { type LogLevel, ServerLog, type ServerLogOptions } from './rpc/server-log.js';
export {
  jsonKey,
  type PendingTransaction,
  Session,
  type SessionAccess,
  type SessionHost,
} from './rpc/session.js';
export {
  type CreateServerOptions,
  createServer,
  type ListenAddress,
  OvsdbServer,
  type RemoteOptions,
  type ServerTlsOptions,
} from './server.js';
export { ServerDatabase } from './server-db.js';
export {
  type CompactionOptions,
  type DbFileOptions,
  DbStorage,
  type OpenDbFileOptions,
} from './storage/db-file.js';
export { composeRecord, DbFileError, scanLog } from './storage/log.js';
export {
  applyTxnRecord,
  convertDatabase,
  snapshotRecord,
  txnRecord,
} from './storage/records.js';

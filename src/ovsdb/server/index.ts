/**
 * ovnkit's in-memory OVSDB server engine: a pure, synchronous `transact`
 * executor that behaves as ovsdb-server 3.1 does for everything a client can
 * observe in a reply and in the resulting database state; and the server
 * around it ({@link createServer}): sessions, monitors, locks, waiting
 * transactions, the `_Server` database, history and persistence.
 * @module
 */

export { SERVER_SCHEMA_JSON } from '../cluster.js';
export type { ChannelHandlers, SessionChannel } from './channel.js';
export type { Clause, Condition, ConditionFunction } from './conditions.js';
export { evaluateCondition, parseCondition } from './conditions.js';
export { columnType, Database, type Row, rowToJs, rowToWire, TableStore } from './database.js';
export { datumDiff, isDefaultDatum } from './datum-diff.js';
export type {
  RowChange,
  TransactBlocked,
  TransactOptions,
  TransactOutcome,
  TransactResult,
  TxnChanges,
} from './executor.js';
export { executeTransaction } from './executor.js';
export { type HistoryEntry, TxnHistory } from './history.js';
export { createInProcessPair, type InProcessTransport } from './in-process-transport.js';
export { type LockMode, type LockOutcome, LockTable } from './locks.js';
export { Monitor, type MonitorUpdates, type MonitorVersion } from './monitor.js';
export { MonitorCondition } from './monitor-condition.js';
export type { Mutation, Mutator } from './mutations.js';
export { applyMutations, parseMutations } from './mutations.js';
export { OpError, type OpErrorJson } from './op-error.js';
export { formatG15, ovsJsonText, roundReal } from './ovs-json.js';
export {
  makeSnapshot,
  readSnapshot,
  restoreRows,
  SNAPSHOT_FORMAT,
  type Snapshot,
  SnapshotError,
  type SnapshotRows,
  writeSnapshot,
} from './persistence.js';
export { schemaText, schemaToJson } from './schema-json.js';
export {
  type CreateServerOptions,
  createServer,
  type ListenAddress,
  OvsdbServer,
  type ServerTlsOptions,
} from './server.js';
export { ServerDatabase } from './server-db.js';
export { type LogLevel, ServerLog, type ServerLogOptions } from './server-log.js';
export { jsonKey, type PendingTransaction, Session, type SessionHost } from './session.js';
export type { Datum, DatumType, SymbolTable, UuidSymbol } from './values.js';
export { datumToWire, parseDatum } from './values.js';

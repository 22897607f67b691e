/**
 * The database client's names that need no Node module, which the Node
 * entry (`ovnkit/client`) and the browser entry (`ovnkit/browser`) both
 * export: all of it but Node's `openDatabase`.
 * @module
 */

export * from '../observability/index.js';
export type {
  ColumnTypeDifference,
  CompatOption,
  CompatReport,
  CompatSpec,
  CompatTables,
} from '../ovsdb/schema/compat.js';
export type { AbsentConditionPolicy } from '../ovsdb/schema/compat-checks.js';
export type { MonitorCondition, RowCondition } from '../ovsdb/values/conditions.js';
export { type RefusedBy, TransactionRefusedError } from '../ovsdb/wire/errors.js';
export {
  compileRowCodec,
  ReplicaInconsistencyError,
  type Row,
  type RowCodec,
} from '../rows/codec.js';
export { type ClientIndexSpec, IndexError, type IndexValue } from '../rows/indexes.js';
export { applyRowUpdate, applyRowUpdate2 } from '../rows/row-changes.js';
export { LockNotHeldError, TransactionOutcomeUnknownError } from '../transactions/errors.js';
export type { RawTransactOptions } from '../transactions/raw.js';
export type { BackoffOptions } from './backoff.js';
export {
  ClientClosedError,
  type ClientHealth,
  type ClientState,
  type ClientStats,
  type ClientStatus,
  DatabaseClient,
  type DatabaseClientOptions,
  type DatabaseLock,
  type LockOptions,
  type LockState,
  type LockStatus,
  type Logger,
  type MonitorSyncInfo,
  type ServerRole,
  type StatusEvent,
  type StatusEventType,
  type TableMonitorOptions,
} from './client.js';
export type {
  EventContext,
  ReplicaEventStats,
  RowEventHandler,
  RowEventKind,
} from './replica/event-queue.js';
export {
  type DecodedDump,
  type PredecodedRows,
  type PredecodedTable,
  type ReplaceCounts,
  type ReplaceResult,
  ReplicaFeed,
} from './replica/feed.js';
export {
  type IndexesOption,
  Replica,
  type ReplicaOptions,
  type WaitForOptions,
  WaitTimeoutError,
} from './replica/replica.js';
export type { ServerAttempt } from './status.js';

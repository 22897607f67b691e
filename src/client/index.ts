/**
 * The database client: {@link openDatabase} opens the one handle of a
 * database, typed by its model: typed transactions, raw ones, and a replica
 * kept in sync over reconnects and cluster failover, with indexes, ordered
 * events, OVSDB locks and status.
 *
 * ```ts
 * import { openDatabase } from 'ovnkit/client';
 * import { NB } from 'ovnkit/nb';
 *
 * const db = await openDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * db.on('Logical_Switch', 'insert', (ls) => console.log('new switch', ls.name));
 * await db.transact((tx) => tx.insert('Logical_Switch', { name: 'sw0' }));
 * ```
 * @module
 */

export * from '../observability/index.js';
export type {
  AbsentConditionPolicy,
  ColumnTypeDifference,
  CompatOption,
  CompatReport,
  CompatSpec,
  CompatTables,
} from '../ovsdb/schema/compat.js';
export type { MonitorCondition, RowCondition } from '../ovsdb/values/conditions.js';
export { type RefusedBy, TransactionRefusedError } from '../ovsdb/wire/errors.js';
export {
  applyRowUpdate,
  applyRowUpdate2,
  compileRowCodec,
  ReplicaInconsistencyError,
  type Row,
  type RowCodec,
} from '../rows/codec.js';
export { type ClientIndexSpec, IndexError, type IndexValue } from '../rows/indexes.js';
export { LockNotHeldError, TransactionOutcomeUnknownError } from '../transactions/errors.js';
export type { RawTransactOptions } from '../transactions/raw.js';
export type { BackoffOptions } from './backoff.js';
export {
  ClientClosedError,
  type ClientHealth,
  type ClientState,
  type ClientStats,
  type ClientStatus,
  connectDatabase,
  DatabaseClient,
  type DatabaseClientOptions,
  type DatabaseLock,
  type LockOptions,
  type LockState,
  type LockStatus,
  type Logger,
  type MonitorSyncInfo,
  openDatabase,
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
  Replica,
  type ReplicaOptions,
  type WaitForOptions,
  WaitTimeoutError,
} from './replica/replica.js';
export type {
  DecodedDump,
  IndexesOption,
  PredecodedRows,
  PredecodedTable,
  ReplaceCounts,
  ReplaceResult,
} from './replica/store.js';
export type { ServerAttempt } from './status.js';

/**
 * The database client: {@link connectDatabase} keeps a typed replica of a
 * database in sync over reconnects and cluster failover, with indexes and
 * ordered events. Its `transact` sends raw operations; for typed
 * transactions over it, see `openDatabase` in `ovnkit/transactions`.
 *
 * ```ts
 * import { connectDatabase } from 'ovnkit/client';
 * import { NB } from 'ovnkit/nb';
 *
 * const client = connectDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * await client.ready;
 * client.on('Logical_Switch', 'insert', (ls) => console.log('new switch', ls.name));
 * ```
 * @module
 */

export * from '../ovsdb/observability.js';
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
  LockNotHeldError,
  type LockOptions,
  type LockState,
  type LockStatus,
  type Logger,
  type MonitorSyncInfo,
  type RawTransactOptions,
  type ServerRole,
  type StatusEvent,
  type StatusEventType,
  type TableMonitorOptions,
  TransactionOutcomeUnknownError,
} from './client.js';
export type { ClientObservability } from './metrics.js';
export type {
  EventContext,
  ReplicaEventStats,
  RowEventHandler,
  RowEventKind,
} from './replica/event-queue.js';
export { type ClientIndexSpec, IndexError, type IndexValue } from './replica/indexes.js';
export {
  Replica,
  type ReplicaOptions,
  type WaitForOptions,
  WaitTimeoutError,
} from './replica/replica.js';
export {
  applyRowUpdate,
  applyRowUpdate2,
  compileRowCodec,
  ReplicaInconsistencyError,
  type Row,
  type RowCodec,
} from './replica/row-codec.js';
export type {
  DecodedDump,
  IndexesOption,
  PredecodedRows,
  PredecodedTable,
  ReplaceCounts,
  ReplaceResult,
} from './replica/store.js';
export type { ServerAttempt } from './status.js';

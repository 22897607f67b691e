/**
 * ovnkit: a TypeScript SDK for OVSDB and the OVN Northbound database.
 *
 * The root entry holds the ways in, with the types and errors that go with
 * them:
 * - {@link openDatabase}: a database client and typed transactions over it,
 *   in one handle (the usual way in);
 * - {@link connectDatabase}: the database client alone (a typed replica kept
 *   in sync, events, raw `transact`);
 * - {@link connect}: one raw OVSDB connection with every RFC 7047 method.
 *
 * Each layer has its own entry point with the rest: `ovnkit/ovsdb` (the
 * protocol core), `ovnkit/client`, `ovnkit/transactions`, `ovnkit/nb` (the
 * Northbound models and DSL, `connectNb`), `ovnkit/server`,
 * `ovnkit/testing`, `ovnkit/browser` and `ovnkit/bridge`.
 *
 * ```ts
 * import { openDatabase } from 'ovnkit';
 * import { NB } from 'ovnkit/nb';
 *
 * const db = await openDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * await db.transact((tx) => tx.insert('Logical_Switch', { name: 'sw0' }));
 * await db.close();
 * ```
 * @module
 */

export {
  ClientClosedError,
  connectDatabase,
  DatabaseClient,
  type DatabaseClientOptions,
  type DatabaseLock,
  LockNotHeldError,
  type LockState,
  TransactionOutcomeUnknownError,
} from './client/index.js';
export {
  asUuid,
  type CompatOption,
  type CompatReport,
  type CompatSpec,
  type CompatTables,
  ConnectionClosedError,
  type ConnectionOptions,
  type ConnectOptions,
  connect,
  type DatabaseModel,
  type DatabaseSchema,
  DatumError,
  defineModel,
  type InsertOf,
  isUuid,
  newUuid,
  type Operation,
  type OperationResult,
  OvsdbConnection,
  OvsdbError,
  parseSchema,
  parseSchemaText,
  RemoteSyntaxError,
  RequestTimeoutError,
  type RowOf,
  RpcError,
  SchemaDriftError,
  type TableMap,
  type TableName,
  TransactionError,
  type UpdateOf,
  type Uuid,
  WriteQueueFullError,
} from './ovsdb/index.js';
export { type RefusedBy, TransactionRefusedError } from './ovsdb/wire/errors.js';
export {
  DatabaseHandle,
  DuplicateIndexError,
  openDatabase,
  TransactionOutcomeError,
  type TransactionResult,
  type TransactOptions,
  VerifyConflictError,
} from './transactions/index.js';

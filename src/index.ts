/**
 * ovnkit: a TypeScript SDK for OVSDB and the OVN Northbound database.
 *
 * The root entry holds the ways in, with the types and errors that go with
 * them:
 * - {@link openDatabase}: the one handle of a database, typed by its model:
 *   typed transactions (`transact`), raw ones (`transactRaw`), and a
 *   replica kept in sync (reads, events, `waitFor`), locks and status;
 * - {@link connect}: one bare OVSDB connection with every RFC 7047 method.
 *
 * The Northbound DSL over that handle is `connectNb`/`createNb` in
 * `ovnkit/nb`. Each layer has its own entry point with the rest:
 * `ovnkit/ovsdb` (the protocol core), `ovnkit/client`,
 * `ovnkit/transactions`, `ovnkit/desired`, `ovnkit/nb`, `ovnkit/server`,
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
  type LockState,
  openDatabase,
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
  DuplicateIndexError,
  LockNotHeldError,
  type RawTransactOptions,
  TransactionOutcomeError,
  TransactionOutcomeUnknownError,
  type TransactionResult,
  type TransactOptions,
  VerifyConflictError,
} from './transactions/index.js';

/**
 * Where the matchers read a database's state: the tables of a test
 * database's server (always current), or a client's replica, read once it
 * has caught up with the server, so that no assertion races an update on
 * its way.
 * @module
 */

import type { DatabaseModel, RowOf, TableMap, TableName } from '../../ovsdb/schema/model.js';
import type { DatabaseSchema, TableSchema } from '../../ovsdb/schema/schema-types.js';
import type { Datum } from '../../ovsdb/values/sorted-datum.js';
import { isUuid } from '../../ovsdb/values/uuid.js';
import type { Database } from '../../server/engine/database.js';
import { datumOf } from './datums.js';

/**
 * What the matchers need of a client to read its replica: the model, the
 * rows of a table, and ways to wait until the replica is in sync and its
 * events delivered. `DatabaseClient` (and the typed database handle over
 * it) has this shape; so may any object that holds a replica.
 */
export interface ReplicaLike<DB extends TableMap = TableMap> {
  /** The model the replica is typed by. */
  readonly model: DatabaseModel<DB>;
  /** The replica's rows of `table`. */
  rows<T extends TableName<DB>>(table: T): Iterable<RowOf<DB, T>>;
  /** Resolves once connected and in sync (`DatabaseClient.whenSynced`). */
  whenSynced?(): Promise<void>;
  /** Resolves once the events queued so far are delivered (`DatabaseClient.drained`). */
  drained?(): Promise<void>;
}

/** The marker of a test database (or a state read from elsewhere) the matchers read directly. */
export const SERVER_STATE: unique symbol = Symbol('ovnkit.testing.serverState');

/** A source whose tables are read directly: a test database's server. */
export interface ServerStateSource<DB extends TableMap = TableMap> {
  /** The model (for the matchers' types). */
  readonly model: DatabaseModel<DB>;
  /** @internal The engine database holding the state now. */
  readonly [SERVER_STATE]: () => Database;
}

/**
 * Anything the state matchers compare: a test database (its server's
 * tables) or a client's replica ({@link ReplicaLike}).
 */
export type StateSource<DB extends TableMap = TableMap> = ServerStateSource<DB> | ReplicaLike<DB>;

/** One row as read: its UUID and its columns (those the source has). */
export interface StateRow {
  readonly uuid: string;
  readonly fields: Readonly<Record<string, Datum>>;
}

/** A database's state as read: rows per table. */
export interface State {
  readonly schema: DatabaseSchema;
  readonly tables: ReadonlyMap<string, readonly StateRow[]>;
  /** Every row by UUID (any table). */
  readonly byUuid: ReadonlyMap<string, { readonly table: string; readonly row: StateRow }>;
}

/** Open test databases: their sessions are waited for before a replica is read. */
const settlers = new Set<() => Promise<void>>();

/** @internal Register (or, with the returned function, forget) a test database's `caughtUp`. */
export function addSettler(caughtUp: () => Promise<void>): () => void {
  settlers.add(caughtUp);
  return () => settlers.delete(caughtUp);
}

/** Resolves once every client of every open test database has received what the server sent. */
export async function settleAll(): Promise<void> {
  await Promise.all([...settlers].map((s) => s()));
}

function isServerSource(s: object): s is ServerStateSource {
  return SERVER_STATE in s;
}

function fromEngine(db: Database): State {
  const tables = new Map<string, StateRow[]>();
  const byUuid = new Map<string, { table: string; row: StateRow }>();
  for (const [name, store] of db.tables) {
    const rows = [...store.rows.values()];
    tables.set(name, rows);
    for (const row of rows) byUuid.set(row.uuid, { table: name, row });
  }
  return { schema: db.schema, tables, byUuid };
}

const keepUuid = (v: string): string => (isUuid(v) ? v.toLowerCase() : v);

/** A replica row (JS values) as datums. */
function rowFromReplica(table: TableSchema, row: Record<string, unknown>): StateRow {
  const uuid = String(row['_uuid']);
  const fields: Record<string, Datum> = {};
  for (const column of Object.keys(table.columns)) {
    if (!Object.hasOwn(row, column)) continue; // a column the server lacks
    fields[column] = datumOf(table, column, row[column], keepUuid, `${table.name} ${uuid}`);
  }
  return { uuid, fields };
}

function fromReplica(replica: ReplicaLike): State {
  const schema = replica.model.schema;
  const tables = new Map<string, StateRow[]>();
  const byUuid = new Map<string, { table: string; row: StateRow }>();
  for (const [name, table] of Object.entries(schema.tables)) {
    let rows: StateRow[];
    try {
      rows = [...replica.rows(name)].map((r) =>
        rowFromReplica(table, r as unknown as Record<string, unknown>),
      );
    } catch {
      rows = []; // a table the replica does not hold
    }
    tables.set(name, rows);
    for (const row of rows) byUuid.set(row.uuid, { table: name, row });
  }
  return { schema, tables, byUuid };
}

/**
 * Read `source`'s state. A test database's tables are read as they are; a
 * replica is read once its client is in sync, every test database's
 * clients have received what their server sent, and the replica's events
 * are delivered. (A client of a server that is not a test database is
 * read once in sync and drained.)
 */
export async function readState(source: StateSource): Promise<State> {
  if (isServerSource(source)) return fromEngine(source[SERVER_STATE]());
  await source.whenSynced?.();
  await settleAll();
  await source.drained?.();
  return fromReplica(source);
}

/** {@link readState} for a test database, without waiting (its server is the state). */
export function readServerState(source: ServerStateSource): State {
  return fromEngine(source[SERVER_STATE]());
}

/** Whether `x` can be read by {@link readState}. */
export function isStateSource(x: unknown): x is StateSource {
  if (typeof x !== 'object' || x === null) return false;
  if (isServerSource(x)) return true;
  const r = x as Partial<ReplicaLike>;
  return typeof r.rows === 'function' && typeof r.model === 'object' && r.model !== null;
}

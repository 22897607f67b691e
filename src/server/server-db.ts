/**
 * The `_Server` database every ovsdb-server serves: one `Database` row per
 * database (itself included) saying how it is served. Clients read it to
 * tell a standalone database from a clustered one and, for clusters, to find
 * the leader; a db-change-aware client monitors it to learn of databases
 * being added and removed.
 *
 * The databases served here are standalone, so each row holds `model`
 * `standalone`, `connected` and `leader` true, `schema` the database's schema
 * (compact JSON, members sorted) and no `cid`, `sid` or `index`, exactly as
 * ovsdb-server 3.1 reports a standalone database. Clients cannot write to
 * `_Server` ("not allowed"): only the server changes it.
 * @module
 */

import type { DatabaseModelEnum } from '../ovsdb/schema/generated/server/index.js';
import type { DatabaseSchema } from '../ovsdb/schema/schema-types.js';
import { SERVER_SCHEMA } from '../ovsdb/schema/server-schema.js';
import type { Int64 } from '../ovsdb/values/int64.js';
import { type Datum, datumsEqual, uuidDatum } from '../ovsdb/values/sorted-datum.js';
import { newUuid } from '../ovsdb/values/uuid.js';
import { Database, type Row } from './engine/database.js';
import type { RowChange, TxnChanges } from './engine/executor.js';
import { markStoredSchema } from './engine/ovs-hash.js';
import { schemaText } from './engine/schema-json.js';

const EMPTY: Datum = { keys: [] };

/**
 * What `ServerView.set` may change in a database's row: how a
 * member of a cluster describes the database (`schema: null` for a member
 * that has not joined yet).
 */
export interface ServerRowChange {
  readonly model?: DatabaseModelEnum | undefined;
  readonly connected?: boolean | undefined;
  readonly leader?: boolean | undefined;
  readonly schema?: null | undefined;
  readonly cid?: string | null | undefined;
  readonly sid?: string | null | undefined;
  readonly index?: Int64 | null | undefined;
}

/** The `_Server` database of one server. */
export class ServerDatabase {
  /** The `_Server` database itself (its engine refuses client writes). */
  readonly db: Database;
  private readonly rowOf = new Map<string, string>();

  constructor() {
    // ovsdb-server parses its built-in `_Server` schema document directly, as
    // it parses a database file's schema record (no `ovsdb-tool create` step).
    const schema = markStoredSchema(SERVER_SCHEMA);
    this.db = new Database(schema);
    this.add(schema);
  }

  /** The schema of `_Server`. */
  get schema(): DatabaseSchema {
    return this.db.schema;
  }

  /** Add the row describing database `schema.name`; returns the change to announce to monitors. */
  add(schema: DatabaseSchema): TxnChanges {
    const store = this.store();
    const uuid = newUuid();
    const fields: Record<string, Datum> = {
      _uuid: { keys: [uuid] },
      _version: { keys: [newUuid()] },
      name: { keys: [schema.name] },
      model: { keys: ['standalone'] },
      connected: { keys: [true] },
      leader: { keys: [true] },
      schema: { keys: [schemaText(schema)] },
      cid: EMPTY,
      sid: EMPTY,
      index: EMPTY,
    };
    const row: Row = { uuid, fields };
    store.rows.set(uuid, row);
    this.rowOf.set(schema.name, uuid);
    const change: RowChange = {
      table: 'Database',
      uuid,
      old: null,
      new: row,
      changed: store.columnOrder,
    };
    return { rows: [change] };
  }

  /**
   * Change the row of database `name` (a simulated cluster member's view;
   * see `OvsdbServer.serverView`). Returns the change to announce to
   * monitors, or undefined when the row did not change.
   * @throws Error when there is no row for `name`.
   */
  set(name: string, change: ServerRowChange): TxnChanges | undefined {
    const uuid = this.rowOf.get(name);
    if (uuid === undefined) throw new Error(`_Server has no row for database ${name}`);
    const store = this.store();
    const old = store.rows.get(uuid) as Row;
    const fields: Record<string, Datum> = { ...old.fields };
    const one = (v: string | boolean | Int64 | null): Datum => (v === null ? EMPTY : { keys: [v] });
    const changed: string[] = [];
    const put = (column: string, d: Datum): void => {
      if (datumsEqual(fields[column] as Datum, d)) return;
      fields[column] = d;
      changed.push(column);
    };
    if (change.model !== undefined) put('model', one(change.model));
    if (change.connected !== undefined) put('connected', one(change.connected));
    if (change.leader !== undefined) put('leader', one(change.leader));
    if (change.schema === null) put('schema', EMPTY);
    if (change.cid !== undefined) put('cid', change.cid === null ? EMPTY : uuidDatum(change.cid));
    if (change.sid !== undefined) put('sid', change.sid === null ? EMPTY : uuidDatum(change.sid));
    if (change.index !== undefined) put('index', one(change.index));
    if (changed.length === 0) return undefined;
    fields._version = uuidDatum(newUuid());
    const row: Row = { uuid, fields };
    store.rows.set(uuid, row);
    return {
      rows: [
        {
          table: 'Database',
          uuid,
          old,
          new: row,
          changed: store.columnOrder.filter((c) => c === '_version' || changed.includes(c)),
        },
      ],
    };
  }

  /** Remove the row of database `name`; returns the change, or undefined when there is none. */
  remove(name: string): TxnChanges | undefined {
    const uuid = this.rowOf.get(name);
    if (uuid === undefined) return undefined;
    const store = this.store();
    const row = store.rows.get(uuid) as Row;
    store.rows.delete(uuid);
    this.rowOf.delete(name);
    return {
      rows: [{ table: 'Database', uuid, old: row, new: null, changed: store.columnOrder }],
    };
  }

  private store() {
    const store = this.db.tables.get('Database');
    if (store === undefined) throw new Error('_Server schema has no Database table');
    return store;
  }
}

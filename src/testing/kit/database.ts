/**
 * {@link seedDatabase}: an in-memory OVSDB server holding one database,
 * seeded with named rows, for one test. Clients reach it in-process through
 * its dialer; on their connections the test can record transactions and
 * inject faults; the matchers read its tables directly.
 * @module
 */

import { OvsdbConnection } from '../../ovsdb/connection/connection.js';
import type { DatabaseModel, TableMap, TableName } from '../../ovsdb/schema/model.js';
import type { Dialer } from '../../ovsdb/transport/dial.js';
import type { Uuid } from '../../ovsdb/values/uuid.js';
import { Database } from '../../server/engine/database.js';
import { createInProcessPair } from '../../server/listeners/in-process-transport.js';
import {
  type CreateServerOptions,
  createServer,
  type OvsdbServer,
  type ServerView,
} from '../../server/server.js';
import { plainState } from './compare.js';
import { forgetNames, type NameBook, registerNames } from './names.js';
import { TransactionRecorder } from './recorder.js';
import {
  type CheckedSeed,
  loadSeed,
  type NamesOf,
  type SeedShape,
  type SeedUuids,
} from './seed.js';
import { TestSession } from './session.js';
import { addSettler, readServerState, SERVER_STATE, type ServerStateSource } from './state.js';

/** Options of {@link seedDatabase}. */
export interface SeedDatabaseOptions {
  /**
   * How seeded rows get their UUIDs: `random` (the default, as the server
   * gives them), or `deterministic` (made from the database, table and row
   * name: the same in every run, for snapshots of raw dumps).
   */
  readonly uuids?: SeedUuids | undefined;
  /**
   * Also listen on these passive remotes (`punix:<path>`, `ptcp:0:127.0.0.1`)
   * for programs in other processes (`ovn-northd`, `ovn-nbctl`);
   * `server.remotes` lists where. Their sessions are neither recorded nor
   * faulted. Default: none.
   */
  readonly listen?: readonly string[] | undefined;
  /** Transactions the server keeps for `monitor_cond_since` (default 100). */
  readonly historyLength?: number | undefined;
  /** More server options (log, metrics, limits). */
  readonly server?:
    | Omit<CreateServerOptions, 'databases' | 'dbFile' | 'dbFiles' | 'listen' | 'historyLength'>
    | undefined;
}

/** A lock held by the test database on behalf of a test (see {@link SeededDatabase.holdLock}). */
export interface HeldLock {
  /** Let the lock go: the client waiting for it gets `locked`. */
  release(): Promise<void>;
}

/**
 * A seeded in-memory database for one test. Connect clients with
 * {@link SeededDatabase.dial} (`remotes: db.remote('controller'), dial: db.dial`).
 * @typeParam DB - the model's table map.
 * @typeParam N - the seed's row names per table.
 */
export interface SeededDatabase<DB extends TableMap, N = Record<never, never>>
  extends ServerStateSource<DB>,
    AsyncDisposable {
  /** The model served. */
  readonly model: DatabaseModel<DB>;
  /** The in-memory server (add listeners, read its log, compact, …). */
  readonly server: OvsdbServer;
  /** The dialer of in-process connections: give it to a client as its `dial` option. */
  readonly dial: Dialer;
  /**
   * The remote a client dials to reach this database with
   * {@link SeededDatabase.dial}: `unix:<label>`. The label names the
   * connection in {@link SeededDatabase.session} and in recordings.
   */
  remote(label?: string): string;
  /** The UUID of the row the seed named `name` in `table`. */
  uuid<T extends Extract<keyof N, TableName<DB>>>(table: T, name: N[T]): Uuid<T>;
  /** The connections open now, oldest first. */
  readonly sessions: readonly TestSession[];
  /**
   * The newest open connection dialed with label `label` (default
   * `client`): drop it, hold it half-open, delay its replies, fail its next
   * transaction.
   * @throws Error when no open connection has that label.
   */
  session(label?: string): TestSession;
  /**
   * Record the transactions sent from now on (by connections of label
   * `options.session` only, when given).
   */
  record(options?: { readonly session?: string | undefined }): TransactionRecorder;
  /** Resolves once every client has received everything the server sent it so far. */
  caughtUp(): Promise<void>;
  /** Open a raw connection (one method per OVSDB RPC) labelled `label` (default `kit`). */
  connection(label?: string): OvsdbConnection;
  /**
   * Take lock `name` on a connection of the test's own, so that a client
   * asking for it is refused (`locked: false`) until
   * {@link HeldLock.release}, when the server grants it to the client
   * (`locked`). Resolves once held.
   */
  holdLock(name: string): Promise<HeldLock>;
  /**
   * The database as plain data: tables with rows, each row by its seed
   * name or natural key, columns that do not hold their defaults,
   * references as row labels. Stable across runs: for `toMatchSnapshot`.
   */
  dump(): Record<string, Record<string, Record<string, unknown>>>;
  /** Close every connection and the server. */
  close(): Promise<void>;
}

/** @internal What {@link seedDatabase} and simulated clusters share: a seeded server and its connections. */
export class TestServer<DB extends TableMap, N> implements SeededDatabase<DB, N> {
  readonly [SERVER_STATE]: () => Database;
  private readonly open = new Set<TestSession>();
  private readonly recorders = new Set<TransactionRecorder>();
  private readonly forgetSettler: () => void;
  private closed = false;

  constructor(
    readonly model: DatabaseModel<DB>,
    readonly server: OvsdbServer,
    private readonly book: NameBook,
  ) {
    this[SERVER_STATE] = () => {
      const db = server.database(model.name);
      if (db === undefined) throw new Error(`the test server no longer serves ${model.name}`);
      return db;
    };
    registerNames(book);
    this.forgetSettler = addSettler(() => this.caughtUp());
  }

  readonly dial: Dialer = async (remote) => this.openSession(remote).dialed;

  /** @internal Open a session for `remote`, seeing the server through `view` when given. */
  openSession(remote: string, view?: ServerView): TestSession {
    if (this.closed) throw new Error(`${remote}: the test database is closed`);
    const label = remote.startsWith('unix:') ? remote.slice(5) : remote;
    const { client, server } = createInProcessPair();
    const s = new TestSession(label, server, client, {
      recording: () => this.recorders.size > 0,
      record: (t) => {
        for (const r of this.recorders) r.add(t);
      },
      ended: (ended) => this.open.delete(ended),
    });
    this.open.add(s);
    this.server.accept(s.channel, view);
    return s;
  }

  remote(label = 'client'): string {
    return `unix:${label}`;
  }

  uuid<T extends Extract<keyof N, TableName<DB>>>(table: T, name: N[T]): Uuid<T> {
    const uuid = this.book.uuid(table, String(name));
    if (uuid === undefined) throw new Error(`the seed has no ${table} row named ${String(name)}`);
    return uuid as Uuid<T>;
  }

  get sessions(): readonly TestSession[] {
    return [...this.open];
  }

  session(label = 'client'): TestSession {
    const found = [...this.open].reverse().find((s) => s.label === label);
    if (found === undefined) {
      const labels = [...new Set([...this.open].map((s) => s.label))];
      throw new Error(
        `no open connection labelled "${label}"${labels.length > 0 ? ` (open: ${labels.join(', ')})` : ' (none is open)'}`,
      );
    }
    return found;
  }

  record(options: { readonly session?: string | undefined } = {}): TransactionRecorder {
    const r: TransactionRecorder = new TransactionRecorder(options.session, () =>
      this.recorders.delete(r),
    );
    this.recorders.add(r);
    return r;
  }

  async caughtUp(): Promise<void> {
    await Promise.all([...this.open].map((s) => s.caughtUp()));
  }

  connection(label = 'kit'): OvsdbConnection {
    return new OvsdbConnection(this.openSession(label).dialed.transport);
  }

  async holdLock(name: string): Promise<HeldLock> {
    const conn = this.connection(`lock ${name}`);
    const granted = new Promise<void>((resolve) => {
      conn.on('locked', (n) => {
        if (n === name) resolve();
      });
    });
    if (!(await conn.lock(name))) await granted;
    return {
      release: async () => {
        await conn.unlock(name);
        conn.close();
      },
    };
  }

  dump(): Record<string, Record<string, Record<string, unknown>>> {
    return plainState(readServerState(this));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.forgetSettler();
    for (const r of [...this.recorders]) r.stop();
    await this.server.close();
    forgetNames(this.book);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** @internal Make a seeded engine database and a server serving it. */
export async function startSeededServer(
  model: DatabaseModel,
  seed: object | undefined,
  options: SeedDatabaseOptions,
): Promise<{ server: OvsdbServer; book: NameBook }> {
  const db = new Database(model.schema);
  const book = loadSeed(db, (seed ?? {}) as Parameters<typeof loadSeed>[1], options.uuids);
  const server = await createServer({
    ...options.server,
    databases: [db],
    listen: options.listen,
    historyLength: options.historyLength,
  });
  return { server, book };
}

/**
 * Start an in-memory server for `model` holding the rows of `seed`, for one
 * test. The seed is typed by the model: an unknown table or column, a value
 * of the wrong type or a reference to an undeclared name does not compile.
 * Resolves once the server is ready (in a few milliseconds: one per test is
 * cheap).
 * @example
 * ```ts
 * import { openDatabase } from 'ovnkit/client';
 * import { NB } from 'ovnkit/nb';
 * import { assertData, seedDatabase } from 'ovnkit/testing';
 *
 * await using db = await seedDatabase(NB, {
 *   Logical_Switch: { sw0: { name: 'sw0', ports: ['p1'] } },
 *   Logical_Switch_Port: { p1: { name: 'p1', addresses: ['00:00:00:00:00:01 10.0.0.1'] } },
 * });
 * const client = await openDatabase({ remotes: db.remote('controller'), dial: db.dial, model: NB });
 * await client.transact((tx) => tx.insert('Logical_Switch', { name: 'sw1' }));
 * await assertData(db, { Logical_Switch: [{ name: 'sw0', ports: ['p1'] }, { name: 'sw1' }] });
 * await client.close();
 * ```
 * @throws Error naming the table, row and column when the seed breaks the
 *   schema (see `invalidRow` to do that on purpose).
 */
export async function seedDatabase<
  DB extends TableMap,
  const S extends SeedShape<DB> = Record<never, never>,
>(
  model: DatabaseModel<DB>,
  seed?: S & CheckedSeed<DB, S>,
  options: SeedDatabaseOptions = {},
): Promise<SeededDatabase<DB, NamesOf<S>>> {
  const { server, book } = await startSeededServer(model, seed, options);
  return new TestServer<DB, NamesOf<S>>(model, server, book);
}

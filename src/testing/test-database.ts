/**
 * A database for unit tests in one call: an in-memory OVSDB server serving
 * the model's schema and a connected {@link DatabaseClient}, with no socket
 * and no Open vSwitch needed.
 *
 * ```ts
 * import { createTestDatabase } from 'ovnkit/testing';
 * import { NB } from 'ovnkit';
 *
 * const db = await createTestDatabase(NB);
 * try {
 *   await db.client.transact(...);          // the client's usual API
 *   db.client.lookup('Logical_Switch', ...); // its replica is in sync
 * } finally {
 *   await db.close();
 * }
 * ```
 *
 * The server behaves as ovsdb-server does (see `ovnkit/ovsdb`'s server
 * engine), so what passes here passes against a real server. It is a
 * {@link SeededDatabase}: give it a `seed`, record transactions, inject
 * faults, match its state.
 * @module
 */

import type { DatabaseClient, DatabaseClientOptions } from '../client/client.js';
import { connectDatabase } from '../client/open.js';
import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import type { OvsdbServer } from '../server/server.js';
import {
  type SeedDatabaseOptions,
  type SeededDatabase,
  startSeededServer,
  TestServer,
} from './kit/database.js';
import type { NameBook } from './kit/names.js';
import type { CheckedSeed, NamesOf, SeedShape, SeedUuids } from './kit/seed.js';

type ClientOptions<DB extends TableMap> = Omit<
  DatabaseClientOptions<DB, Record<never, never>>,
  'remotes' | 'model' | 'dial'
>;

/** Options of {@link createTestDatabase}. */
export interface TestDatabaseOptions<DB extends TableMap> {
  /**
   * Also listen on these passive remotes (e.g. `['ptcp:0:127.0.0.1']`) so that
   * other programs can connect; `server.remotes` lists where. Default: none.
   */
  readonly listen?: readonly string[] | undefined;
  /** More options for the client (everything but `remotes`, `model` and `dial`). */
  readonly client?: ClientOptions<DB> | undefined;
  /** Transactions the server keeps for `monitor_cond_since` (default 100). */
  readonly historyLength?: number | undefined;
  /** How seeded rows get their UUIDs (see {@link SeedDatabaseOptions.uuids}). */
  readonly uuids?: SeedUuids | undefined;
}

/** An in-memory server and a client connected to it. */
export interface TestDatabase<DB extends TableMap, N = Record<never, never>>
  extends SeededDatabase<DB, N> {
  /** A client of the model, connected (labelled `client`) and in sync (`ready` has resolved). */
  readonly client: DatabaseClient<DB, Record<never, never>>;
  /** Open one more client (e.g. a second writer), connected in-process and in sync. */
  connect(options?: ClientOptions<DB>): Promise<DatabaseClient<DB, Record<never, never>>>;
  /** Close every client and connection opened here, then the server. */
  close(): Promise<void>;
}

class ClientTestDatabase<DB extends TableMap, N> extends TestServer<DB, N> {
  private readonly clients: DatabaseClient<DB, Record<never, never>>[] = [];
  client!: DatabaseClient<DB, Record<never, never>>;

  constructor(
    model: DatabaseModel<DB>,
    server: OvsdbServer,
    book: NameBook,
    private readonly clientOptions: ClientOptions<DB> | undefined,
  ) {
    super(model, server, book);
  }

  async connect(
    more: ClientOptions<DB> | undefined = this.clientOptions,
  ): Promise<DatabaseClient<DB, Record<never, never>>> {
    const label = this.clients.length === 0 ? 'client' : `client-${this.clients.length + 1}`;
    const client = connectDatabase<DB>({
      ...more,
      remotes: this.remote(label),
      model: this.model,
      dial: this.dial,
    });
    this.clients.push(client);
    await client.ready;
    return client;
  }

  override async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close()));
    await super.close();
  }
}

/**
 * Start an in-memory server for `model`'s schema, holding `options.seed`
 * (see {@link seedDatabase}), and connect a client to it. Resolves once the
 * client's replica holds the database.
 * @example
 * ```ts
 * import { NB } from 'ovnkit/nb';
 * import { createTestDatabase } from 'ovnkit/testing';
 *
 * const db = await createTestDatabase(NB, { seed: { Logical_Switch: { sw0: { name: 'sw0' } } } });
 * try {
 *   await db.client.transact((tx) => tx.insert('Logical_Switch', { name: 'sw1' }));
 *   db.client.lookup('Logical_Switch', { name: 'sw1' }); // the row, from the replica
 * } finally {
 *   await db.close();
 * }
 * ```
 */
export async function createTestDatabase<
  DB extends TableMap,
  const S extends SeedShape<DB> = Record<never, never>,
>(
  model: DatabaseModel<DB>,
  options: TestDatabaseOptions<DB> & { readonly seed?: S & CheckedSeed<DB, S> } = {},
): Promise<TestDatabase<DB, NamesOf<S>>> {
  const { server, book } = await startSeededServer(model, options.seed, {
    listen: options.listen,
    historyLength: options.historyLength,
    uuids: options.uuids,
  });
  const db = new ClientTestDatabase<DB, NamesOf<S>>(model, server, book, options.client);
  try {
    db.client = await db.connect();
  } catch (e) {
    await db.close();
    throw e;
  }
  return db;
}

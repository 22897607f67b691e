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
 * engine), so what passes here passes against a real server.
 * @module
 */

import {
  connectDatabase,
  type DatabaseClient,
  type DatabaseClientOptions,
} from '../client/client.js';
import { OvsdbConnection } from '../ovsdb/connection/connection.js';
import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import type { Dialer } from '../ovsdb/transport/dial.js';
import { createServer, type OvsdbServer } from '../server/server.js';

/** Options of {@link createTestDatabase}. */
export interface TestDatabaseOptions<DB extends TableMap> {
  /**
   * Also listen on these passive remotes (e.g. `['ptcp:0:127.0.0.1']`) so that
   * other programs can connect; `server.remotes` lists where. Default: none.
   */
  readonly listen?: readonly string[] | undefined;
  /** More options for the client (everything but `remotes`, `model` and `dial`). */
  readonly client?:
    | Omit<DatabaseClientOptions<DB, Record<never, never>>, 'remotes' | 'model' | 'dial'>
    | undefined;
  /** Transactions the server keeps for `monitor_cond_since` (default 100). */
  readonly historyLength?: number | undefined;
}

/** An in-memory server and a client connected to it. */
export interface TestDatabase<DB extends TableMap> extends AsyncDisposable {
  /** The in-memory server (inspect it with `server.database(name)`, add listeners, …). */
  readonly server: OvsdbServer;
  /** A client of the model, connected and in sync (`ready` has resolved). */
  readonly client: DatabaseClient<DB, Record<never, never>>;
  /** Open one more client (e.g. a second writer), connected in-process and in sync. */
  connect(
    options?: Omit<DatabaseClientOptions<DB, Record<never, never>>, 'remotes' | 'model' | 'dial'>,
  ): Promise<DatabaseClient<DB, Record<never, never>>>;
  /** Open a raw {@link OvsdbConnection} (one method per OVSDB RPC) to the server. */
  connection(): OvsdbConnection;
  /** Close every client and connection opened here, then the server. */
  close(): Promise<void>;
}

/**
 * Start an in-memory server for `model`'s schema and connect a client to it.
 * Resolves once the client's replica holds the (empty) database.
 * @example
 * ```ts
 * import { NB } from 'ovnkit/nb';
 * import { createTestDatabase } from 'ovnkit/testing';
 *
 * const db = await createTestDatabase(NB);
 * try {
 *   await db.client.transact((tx) => tx.insert('Logical_Switch', { name: 'sw0' }));
 *   db.client.lookup('Logical_Switch', { name: 'sw0' }); // the row, from the replica
 * } finally {
 *   await db.close();
 * }
 * ```
 */
export async function createTestDatabase<DB extends TableMap>(
  model: DatabaseModel<DB>,
  options: TestDatabaseOptions<DB> = {},
): Promise<TestDatabase<DB>> {
  const server = await createServer({
    databases: [model.schema],
    listen: options.listen,
    historyLength: options.historyLength,
  });
  const clients: DatabaseClient<DB, Record<never, never>>[] = [];
  const connections: OvsdbConnection[] = [];
  const dial: Dialer = async () => {
    const transport = server.connectInProcess();
    return { transport, pause: () => transport.pause(), resume: () => transport.resume() };
  };
  const connect = async (
    more: TestDatabaseOptions<DB>['client'] = options.client,
  ): Promise<DatabaseClient<DB, Record<never, never>>> => {
    const client = connectDatabase<DB>({
      ...more,
      remotes: 'unix:in-process',
      model,
      dial,
    });
    clients.push(client);
    await client.ready;
    return client;
  };
  let client: DatabaseClient<DB, Record<never, never>>;
  try {
    client = await connect();
  } catch (e) {
    await server.close();
    throw e;
  }
  const close = async (): Promise<void> => {
    await Promise.all(clients.map((c) => c.close()));
    for (const c of connections) c.close();
    await server.close();
  };
  return {
    server,
    client,
    connect: (more) => connect(more),
    connection: () => {
      const conn = new OvsdbConnection(server.connectInProcess());
      connections.push(conn);
      return conn;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Shared helpers of the transaction tests: a real ovsdb-server per test file
 * and database clients over it.
 */

import { afterAll, beforeAll } from 'vitest';
import { connectDatabase, type DatabaseClient } from '../../src/ovsdb/client.js';
import { connect } from '../../src/ovsdb/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection.js';
import type { DatabaseModel, TableMap } from '../../src/ovsdb/model.js';
import {
  type OvsdbServerHandle,
  type StartOvsdbServerOptions,
  startOvsdbServer,
} from '../../src/testing/index.js';
import {
  clientExecutor,
  connectionExecutor,
  createTransactor,
  type Transactor,
} from '../../src/transactions/index.js';

/** The fixture schema with every column kind (and an immutable column). */
export const TEST_SCHEMA_PATH = 'test/fixtures/test.ovsschema';
/** The OVN Northbound schema the NB model was generated from. */
export const NB_SCHEMA_PATH = 'schema/ovn-nb-7.18.0.ovsschema';

/** A server for the whole test file, plus clients closed after it. */
export interface ServerFixture {
  readonly server: OvsdbServerHandle;
  /** A database client (connected and in sync) and a transactor over it. */
  client<DB extends TableMap>(
    model: DatabaseModel<DB>,
  ): Promise<{ client: DatabaseClient<DB>; db: Transactor<DB> }>;
  /** A bare connection and a transactor over it (no replica). */
  connection<DB extends TableMap>(
    model: DatabaseModel<DB>,
  ): Promise<{ conn: OvsdbConnection; db: Transactor<DB> }>;
}

/** Start a server before the file's tests, stop it (and close every client) after. */
export function useServer(options: StartOvsdbServerOptions): ServerFixture {
  let server: OvsdbServerHandle | undefined;
  const closers: (() => Promise<void> | void)[] = [];
  beforeAll(async () => {
    server = await startOvsdbServer(options);
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await server?.stop();
  });
  return {
    get server() {
      if (server === undefined) throw new Error('the server is not started yet');
      return server;
    },
    async client<DB extends TableMap>(model: DatabaseModel<DB>) {
      const client = connectDatabase({
        remotes: [this.server.unixRemote],
        model,
        backoff: { initialDelayMs: 20, maxDelayMs: 200 },
      });
      closers.push(() => client.close());
      await client.ready;
      return { client, db: createTransactor(clientExecutor(client)) };
    },
    async connection<DB extends TableMap>(model: DatabaseModel<DB>) {
      const conn = await connect(this.server.unixRemote);
      closers.push(() => conn.close());
      return { conn, db: createTransactor(connectionExecutor(conn, model)) };
    },
  };
}

/** Catch what `p` rejects with (fails when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

let seq = 0;
/** A name unique within the test process. */
export function unique(prefix: string): string {
  seq++;
  return `${prefix}-${process.pid}-${seq}`;
}

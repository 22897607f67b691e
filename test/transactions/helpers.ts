/**
 * Shared helpers of the transaction tests: a server per target (see
 * `test/helpers/targets.ts`) and database clients over it.
 */

import type { DatabaseClient } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import type { DatabaseModel, TableMap } from '../../src/ovsdb/schema/model.js';
import { connectionExecutor } from '../../src/transactions/index.js';
import type { TestServerHandle } from '../helpers/servers.js';
import { type Target, type TargetServerOptions, useTarget } from '../helpers/targets.js';
import { type Transacting, typedOver } from '../helpers/typed.js';

/** The fixture schema with every column kind (and an immutable column). */
export const TEST_SCHEMA_PATH = 'test/fixtures/test.ovsschema';
/** The OVN Northbound schema the NB model was generated from. */
export const NB_SCHEMA_PATH = 'schema/ovn-nb-7.18.0.ovsschema';

/** A target's server for the tests of one `describe`, plus clients closed before it stops. */
export interface ServerFixture {
  readonly target: Target;
  /** The running server (for raw writers, `ovsdbClient`, `restart`, `kill`). */
  readonly server: TestServerHandle;
  /** What clients of the target dial: the server's unix remote, or a bridge's `ws://` URL. */
  readonly remote: string;
  /** A database client (connected and in sync, the target's way) and a transactor over it. */
  client<DB extends TableMap>(
    model: DatabaseModel<DB>,
  ): Promise<{ client: DatabaseClient<DB>; db: Transacting<DB> }>;
  /** A bare connection (the target's way) and a transactor over it (no replica). */
  connection<DB extends TableMap>(
    model: DatabaseModel<DB>,
  ): Promise<{ conn: OvsdbConnection; db: Transacting<DB> }>;
}

/**
 * Start the server of `target` before the tests of the enclosing `describe`
 * (see {@link useTarget}); stop it, after closing every client, after them.
 * Use inside `describe.each(TARGETS)`.
 */
export function useServer(target: Target, options: TargetServerOptions): ServerFixture {
  const fx = useTarget(target, options);
  return {
    target,
    get server() {
      return fx.server;
    },
    get remote() {
      return fx.remote;
    },
    async client<DB extends TableMap>(model: DatabaseModel<DB>) {
      const client = connectDatabase({
        remotes: [fx.remote],
        model,
        backoff: { initialDelayMs: 20, maxDelayMs: 200 },
      });
      fx.onClose(() => client.close());
      await client.ready;
      return { client, db: client };
    },
    async connection<DB extends TableMap>(model: DatabaseModel<DB>) {
      const conn = await connect(fx.remote);
      fx.onClose(() => conn.close());
      return { conn, db: typedOver(connectionExecutor(conn, model)) };
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

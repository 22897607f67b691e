/**
 * {@link connectNb}: the way into the OVN Northbound database. It connects a
 * database client of the `NB` model, waits until it is in sync, and returns
 * the DSL bound to it ({@link ConnectedNb}), which owns the client and closes
 * it with `close()`.
 *
 * It is `connectDatabase({ model: NB, … })` plus `createNb(client)`; those
 * stay available for programs that share one client between several users.
 * @module
 */

import {
  connectDatabase,
  type DatabaseClient,
  type DatabaseClientOptions,
} from '../client/client.js';
import type { IndexesOption } from '../client/replica/store.js';
import { NB, type NBTables } from './generated/model.js';
import { Nb } from './nb.js';

/** Options of {@link connectNb}: those of `connectDatabase`, without `model` (it is `NB`). */
export type ConnectNbOptions<IX extends IndexesOption<NBTables> = Record<never, never>> = Omit<
  DatabaseClientOptions<NBTables, IX>,
  'model'
>;

/**
 * The Northbound DSL over a database client it owns: everything {@link Nb}
 * has (`transact`, `dryRun`, `waitFor`, `show`, the typed transactor `db`),
 * the client itself (replica reads, events, status) and `close()`.
 */
export class ConnectedNb<IX extends IndexesOption<NBTables> = Record<never, never>> extends Nb {
  /** The database client: the replica (`get`, `rows`, `lookup`, `byIndex`, `on`, …) and its status. */
  declare readonly client: DatabaseClient<NBTables, IX>;

  /** Use {@link connectNb}. */
  constructor(client: DatabaseClient<NBTables, IX>) {
    super(client);
  }

  /** Close the client: pending work is rejected with `ClientClosedError`. */
  close(): Promise<void> {
    return this.client.close();
  }
}

/**
 * Connect to the Northbound database, wait until the replica is in sync, and
 * return the DSL bound to it.
 *
 * @example
 * ```ts
 * import { connectNb, lsAdd, lspAdd } from 'ovnkit/nb';
 *
 * const nb = await connectNb({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock' });
 * const { value: port } = await nb.transact((t) => lspAdd(t, lsAdd(t, 'sw0'), 'sw0-p1'), {
 *   wait: 'sb',
 * });
 * console.log(nb.client.get('Logical_Switch_Port', port)?.name); // 'sw0-p1'
 * console.log(nb.show());
 * await nb.close();
 * ```
 * @throws RemoteSyntaxError for an invalid remote; OvsdbError for
 *   a table, column or index the model does not have; ClientClosedError when
 *   the client gives up (see `backoff`) or `signal` aborts before it is in
 *   sync; the client is closed then.
 */
export async function connectNb<const IX extends IndexesOption<NBTables> = Record<never, never>>(
  options: ConnectNbOptions<IX>,
): Promise<ConnectedNb<IX>> {
  const client = connectDatabase<NBTables, IX>({ ...options, model: NB });
  try {
    await client.ready;
  } catch (e) {
    await client.close();
    throw e;
  }
  return new ConnectedNb(client);
}

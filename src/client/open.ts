/**
 * The way into a database in Node: {@link openDatabase} opens its handle
 * (a `DatabaseClient`) with Node's dialer (sockets, and the `ws` package
 * for WebSocket remotes). Browsers have their own `openDatabase`
 * (`ovnkit/browser`), the same door over the global `WebSocket`.
 * @module
 */

import type { CompatOption, CompatTables } from '../ovsdb/schema/compat.js';
import type { TableMap } from '../ovsdb/schema/model.js';
import { dialRemote } from '../ovsdb/transport/dial-node.js';
import { connectWith, type DatabaseClient, openWith } from './client.js';
import type { DatabaseClientOptions } from './options.js';
import type { IndexesOption } from './replica/replica.js';

/**
 * Open a database: connect a client with `options` (remotes, model, tables,
 * indexes, TLS, backoff, `fence`, …), wait until its replica is in sync, and
 * return it: the one handle of the database, typed by its model, with
 * typed transactions (`transact`, `transactBatches`), raw ones
 * (`transactRaw`), the replica's reads and events, locks and status. It
 * keeps itself in sync over reconnects and cluster failover until `close()`.
 *
 * @example
 * ```ts
 * import { openDatabase } from 'ovnkit';
 * import { NB } from 'ovnkit/nb';
 *
 * const db = await openDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * const { value: sw } = await db.transact((tx) => {
 *   const port = tx.insert('Logical_Switch_Port', { name: 'web-1', addresses: ['00:00:00:00:00:05'] });
 *   return tx.insert('Logical_Switch', { name: 'sw0', ports: [port] });
 * });
 * console.log(db.get('Logical_Switch', sw)?.ports.length); // 1
 * db.on('Logical_Switch_Port', 'insert', (lsp) => console.log('new port', lsp.name));
 * await db.close();
 * ```
 * @throws RemoteSyntaxError for an invalid remote; OvsdbError for a table,
 *   column or index the model does not have; RangeError for invalid backoff
 *   options; ClientClosedError when the client gives up (see `backoff`) or
 *   `signal` aborts before it is in sync (the client is closed then).
 */
export function openDatabase<
  DB extends TableMap,
  const IX extends IndexesOption<CompatTables<DB, C>> = Record<never, never>,
  const C extends CompatOption<DB> = false,
>(options: DatabaseClientOptions<DB, IX, C>): Promise<DatabaseClient<CompatTables<DB, C>, IX>> {
  return openWith(options, dialRemote);
}

/**
 * The handle of {@link openDatabase}, returned at once, before its first
 * sync (`await client.ready`, or `client.whenSynced()`).
 *
 * @deprecated Use `openDatabase`, which returns the same handle once it is
 *   in sync; this form stays for one release.
 * @example
 * ```ts
 * import { NB } from 'ovnkit/nb';
 * import { connectDatabase } from 'ovnkit/client';
 *
 * const nb = connectDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * await nb.ready;
 * for (const ls of nb.rows('Logical_Switch')) console.log(ls.name, ls.ports.length);
 * await nb.close();
 * ```
 * @throws as `openDatabase`, but for giving up, which rejects `ready`.
 */
export function connectDatabase<
  DB extends TableMap,
  const IX extends IndexesOption<CompatTables<DB, C>> = Record<never, never>,
  const C extends CompatOption<DB> = false,
>(options: DatabaseClientOptions<DB, IX, C>): DatabaseClient<CompatTables<DB, C>, IX> {
  return connectWith(options, dialRemote);
}

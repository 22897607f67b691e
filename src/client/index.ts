/**
 * The database client: {@link openDatabase} opens the one handle of a
 * database, typed by its model: typed transactions, raw ones, and a replica
 * kept in sync over reconnects and cluster failover, with indexes, ordered
 * events, OVSDB locks and status.
 *
 * ```ts
 * import { openDatabase } from 'ovnkit/client';
 * import { NB } from 'ovnkit/nb';
 *
 * const db = await openDatabase({ remotes: 'unix:/var/run/ovn/ovnnb_db.sock', model: NB });
 * db.on('Logical_Switch', 'insert', (ls) => console.log('new switch', ls.name));
 * await db.transact((tx) => tx.insert('Logical_Switch', { name: 'sw0' }));
 * ```
 * @module
 */

export { connectDatabase, openDatabase } from './open.js';
export * from './portable.js';

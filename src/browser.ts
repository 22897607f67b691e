/**
 * ovnkit for browsers: the same doors as in Node, over `ws://` and `wss://`
 * remotes opened with the global `WebSocket` (an `ovnkit bridge` in front of
 * ovsdb-server, or the in-memory server listening on WebSocket):
 * {@link openDatabase} (the database's handle: a typed replica, typed and
 * raw transactions) and {@link connect} (a bare connection), with the
 * layers that need no Node module.
 *
 * ```ts
 * import { connect, openDatabase, parseSchema } from 'ovnkit/browser';
 *
 * const db = await openDatabase({ remotes: 'wss://ovn.example.com/ovsdb', model: NB, token });
 * db.on('Logical_Switch', 'insert', (ls) => render(ls));
 *
 * const conn = await connect('wss://ovn.example.com/ovsdb', { token });
 * const schema = parseSchema(await conn.getSchema('OVN_Northbound'));
 * conn.on('update2', (id, updates) => render(updates));
 * await conn.monitorCond('OVN_Northbound', 'ui', { Logical_Switch: { columns: ['name', 'ports'] } });
 * ```
 *
 * Browsers cannot set headers on a WebSocket, so the token travels in the
 * URL's `token` query parameter (`ovnkit bridge` accepts both). Prefer `wss:`
 * so that it is encrypted.
 * @module
 */

import { connectWith, type DatabaseClient, openWith } from './client/client.js';
import type { DatabaseClientOptions } from './client/options.js';
import type { IndexesOption } from './client/replica/replica.js';
import { type ConnectionOptions, OvsdbConnection } from './ovsdb/connection/connection.js';
import type { CompatOption, CompatTables } from './ovsdb/schema/compat.js';
import type { TableMap } from './ovsdb/schema/model.js';
import {
  type BrowserSocketOptions,
  browserDialer,
  openBrowserWebSocket,
} from './ovsdb/transport/dial-browser.js';
import type { Remote } from './ovsdb/transport/remote.js';

export * from './client/portable.js';
export * from './ovsdb/portable.js';
export {
  type BrowserSocketOptions,
  browserDialer,
  openBrowserWebSocket,
  type WebSocketConstructor,
} from './ovsdb/transport/dial-browser.js';

/** Options of the browser {@link connect}. */
export interface BrowserConnectOptions extends ConnectionOptions, BrowserSocketOptions {
  /** Give up when the socket is not open after this many milliseconds. */
  readonly timeoutMs?: number | undefined;
  /** Abort opening. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Open a `ws://` or `wss://` remote with the browser's `WebSocket` and start
 * an {@link OvsdbConnection} on it.
 *
 * ```ts
 * const conn = await connect(`wss://${location.host}/ovsdb`, { token, timeoutMs: 5000 });
 * await conn.listDbs(); // ['OVN_Northbound']
 * ```
 * @throws {@link RemoteSyntaxError} for an invalid remote; {@link OvsdbError}
 *   for a `tcp:`, `ssl:` or `unix:` remote (browsers cannot open those) or
 *   when there is no `WebSocket`; {@link ConnectionClosedError} when the
 *   socket does not open (its `cause` carries the close code).
 */
export async function connect(
  remote: string | Remote,
  options: BrowserConnectOptions = {},
): Promise<OvsdbConnection> {
  const {
    token,
    protocols,
    WebSocket,
    timeoutMs,
    signal,
    highWaterMark,
    lowWaterMark,
    drainPollMs,
    closeTimeoutMs,
    description,
    ...connectionOptions
  } = options;
  const transport = await openBrowserWebSocket(remote, {
    token,
    protocols,
    WebSocket,
    timeoutMs,
    signal,
    highWaterMark,
    lowWaterMark,
    drainPollMs,
    closeTimeoutMs,
    description,
  });
  return new OvsdbConnection(transport, connectionOptions);
}

/** Options of the browser {@link openDatabase}: those of the database client, and how to open its WebSockets. */
export type BrowserDatabaseOptions<
  DB extends TableMap,
  IX extends IndexesOption<CompatTables<DB, C>>,
  C extends CompatOption<DB> = false,
> = DatabaseClientOptions<DB, IX, C> & BrowserSocketOptions;

/**
 * Open a database over WebSocket remotes: the browser's door to the same
 * handle as `openDatabase` in Node (see `ovnkit/client`), resolving once
 * its replica is in sync.
 *
 * ```ts
 * const db = await openDatabase({ remotes: `wss://${location.host}/ovsdb`, model: NB, token });
 * await db.transact((tx) => tx.insert('Logical_Switch', { name: 'sw0' }));
 * ```
 * @throws as `openDatabase` in Node; OvsdbError for a remote a browser cannot open.
 */
export function openDatabase<
  DB extends TableMap,
  const IX extends IndexesOption<CompatTables<DB, C>> = Record<never, never>,
  const C extends CompatOption<DB> = false,
>(options: BrowserDatabaseOptions<DB, IX, C>): Promise<DatabaseClient<CompatTables<DB, C>, IX>> {
  return openWith(options, browserDialer(options));
}

/**
 * The handle of {@link openDatabase}, returned at once, before its first sync.
 * @deprecated Use `openDatabase`; this form stays for one release.
 */
export function connectDatabase<
  DB extends TableMap,
  const IX extends IndexesOption<CompatTables<DB, C>> = Record<never, never>,
  const C extends CompatOption<DB> = false,
>(options: BrowserDatabaseOptions<DB, IX, C>): DatabaseClient<CompatTables<DB, C>, IX> {
  return connectWith(options, browserDialer(options));
}

/**
 * ovnkit's in-memory OVSDB server: serve OVSDB databases from memory over
 * unix, tcp and ssl listeners (and in-process connections), answering
 * clients exactly as ovsdb-server 3.1 does (see `docs/conformance.md` for
 * how that is checked and for the few documented differences).
 *
 * ```ts
 * import { createServer } from 'ovnkit/server';
 *
 * const server = await createServer({
 *   databases: [nbSchemaJson],
 *   listen: ['ptcp:6641:127.0.0.1'],
 *   dbFile: '/var/lib/demo/nb.json', // optional persistence
 * });
 * console.log(server.remotes); // ['tcp:127.0.0.1:6641']
 * ```
 *
 * The same server runs as a program: `ovnkit-server --schema FILE --listen REMOTE`.
 * For tests, `ovnkit/testing` wraps it in `startMemoryServer` and
 * `createTestDatabase`.
 * @module
 */

export {
  type CreateServerOptions,
  createServer,
  Database,
  type InProcessTransport,
  type ListenAddress,
  OvsdbServer,
  type ServerTlsOptions,
  SNAPSHOT_FORMAT,
  SnapshotError,
} from './core-index.js';

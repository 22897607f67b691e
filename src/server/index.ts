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
 *   dbFile: '/var/lib/demo/nb.db', // optional: an OVSDB database file, as ovsdb-server keeps
 * });
 * console.log(server.remotes); // ['tcp:127.0.0.1:6641']
 * ```
 *
 * The same server runs as a program, started as ovsdb-server is:
 * `ovnkit-server --remote=punix:/tmp/nb.sock nb.db` (a file made by
 * `ovsdb-tool create`), or `ovnkit-server --schema FILE --listen REMOTE`.
 * For tests, `ovnkit/testing` wraps it in `startMemoryServer` and
 * `createTestDatabase`. {@link serveMetricsRegistry} is the `GET /metrics`
 * endpoint of `ovnkit-server --metrics`, for any prom-client registry.
 * @module
 */

export {
  DEFAULT_METRICS_IDLE_TIMEOUT_MS,
  DEFAULT_METRICS_MAX_CONNECTIONS,
  type MetricsAddress,
  type MetricsHttpServer,
  type MetricsRegistryLike,
  type MetricsServeOptions,
  parseMetricsAddress,
  serveMetricsRegistry,
} from '../net/metrics-endpoint.js';
export * from '../observability/index.js';
export { Database } from './engine/database.js';
export type {
  EngineTransactOptions,
  TransactBlocked,
  TransactOutcome,
  TransactResult,
} from './engine/executor.js';
export type { InProcessTransport } from './listeners/in-process-transport.js';
export {
  type ConnectionLimitOptions,
  type ConnectionLimitStats,
  DEFAULT_MAX_BACKLOG_BYTES,
  DEFAULT_MAX_INPUT_BYTES,
} from './listeners/limits.js';
export {
  SNAPSHOT_FORMAT,
  type Snapshot,
  SnapshotError,
  type SnapshotRows,
} from './persistence.js';
export {
  type ChannelHandlers,
  type CreateServerOptions,
  createServer,
  type ListenAddress,
  OvsdbServer,
  type RemoteOptions,
  type ServerRowChange,
  type ServerTlsOptions,
  type ServerView,
  type SessionChannel,
} from './server.js';
export type { CompactionOptions } from './storage/db-file.js';
export { DbFileError } from './storage/log.js';

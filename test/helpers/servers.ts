/**
 * Run a suite against both OVSDB servers: the real `ovsdb-server` (Open
 * vSwitch 3.1) and ovnkit's in-memory server. Both are started through
 * handles of the same shape ({@link OvsdbServerHandle}: `remotes.unix`,
 * `remotes.tcp`, `remotes.ssl`, `stop()`, `restart()`, `kill()`,
 * `ovsdbClient(...)`, `appctl(...)`, `readLog()`), so a test body does not
 * care which one it talks to.
 *
 * Parametrize a whole file:
 * ```ts
 * import { SERVER_KINDS, useTestServer } from './servers.js';
 *
 * describe.each(SERVER_KINDS)('replica against %s', (kind) => {
 *   const fixture = useTestServer(kind, { schemaPath: NB_SCHEMA, remotes: ['unix', 'tcp'] });
 *   it('syncs', async () => {
 *     const client = await connect({ remotes: [fixture.server.remotes.tcp!], model: NB });
 *     // …
 *   });
 * });
 * ```
 * or start one server by hand with {@link startTestServer}. Inside the
 * block, `kind` tells which server runs: adjust an expectation where the
 * servers differ on purpose (e.g. `monitor_cond_since` ids, see
 * `docs/conformance.md`), and keep tests that only make sense for one kind
 * (clustering, `--remote=db:` listeners) outside the `describe.each`. No test
 * is skipped.
 *
 * Set `OVNKIT_SERVER_KINDS=memory` (or `ovsdb-server`) to run one kind only,
 * e.g. where Open vSwitch is not installed.
 * @module
 */

import { afterAll, beforeAll } from 'vitest';
import {
  type MemoryServerHandle,
  type OvsdbServerHandle,
  requireOvsdbServer,
  type StartMemoryServerOptions,
  type StartOvsdbServerOptions,
  startMemoryServer,
  startOvsdbServer,
} from '../../src/testing/index.js';

/** The two server implementations every parametrized suite runs against. */
export const ALL_SERVER_KINDS = ['ovsdb-server', 'memory'] as const;

/** One of {@link ALL_SERVER_KINDS}. */
export type ServerKind = (typeof ALL_SERVER_KINDS)[number];

function selectedKinds(): readonly ServerKind[] {
  const env = process.env['OVNKIT_SERVER_KINDS'];
  if (env === undefined || env.trim() === '') return ALL_SERVER_KINDS;
  const wanted = env.split(',').map((s) => s.trim());
  const kinds = ALL_SERVER_KINDS.filter((k) => wanted.includes(k));
  if (kinds.length === 0) {
    throw new Error(
      `OVNKIT_SERVER_KINDS=${env}: expected a list of ${ALL_SERVER_KINDS.join(', ')}`,
    );
  }
  return kinds;
}

/**
 * The kinds to run: both by default, or those named in `OVNKIT_SERVER_KINDS`.
 * Use with `describe.each(SERVER_KINDS)`.
 */
export const SERVER_KINDS: readonly ServerKind[] = selectedKinds();

/**
 * Options understood by both servers. Options of one kind only
 * (`extraArgs`, `clustered` for the real server; `probeIntervalMs`,
 * `historyLength` for the in-memory one) are passed to that kind and ignored
 * by the other.
 */
export type TestServerOptions = StartOvsdbServerOptions & StartMemoryServerOptions;

/** A handle of either kind; `kind` says which. */
export type TestServerHandle = (OvsdbServerHandle | MemoryServerHandle) & {
  readonly kind: ServerKind;
};

/**
 * Start a server of `kind`. The real server needs Open vSwitch installed
 * (a missing one is a failure, not a skip); the in-memory one runs in this
 * process.
 */
export async function startTestServer(
  kind: ServerKind,
  options: TestServerOptions,
): Promise<TestServerHandle> {
  if (kind === 'ovsdb-server') {
    requireOvsdbServer(options.remotes?.includes('ssl') === true && options.pki === undefined);
    const { probeIntervalMs: _p, historyLength: _h, ...rest } = options;
    return Object.assign(await startOvsdbServer(rest), { kind });
  }
  const { extraArgs: _e, startTimeoutMs: _s, ...rest } = options;
  return Object.assign(await startMemoryServer(rest), { kind });
}

/** A server shared by the tests of one `describe` block. */
export interface TestServerFixture {
  /** The running server (valid inside tests and hooks). */
  readonly server: TestServerHandle;
  readonly kind: ServerKind;
}

/**
 * Start a server of `kind` in `beforeAll` and stop it in `afterAll` of the
 * enclosing `describe` (or file).
 */
export function useTestServer(kind: ServerKind, options: TestServerOptions): TestServerFixture {
  let server: TestServerHandle | undefined;
  beforeAll(async () => {
    server = await startTestServer(kind, options);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return {
    kind,
    get server() {
      if (server === undefined) throw new Error('the server is not started (use it inside tests)');
      return server;
    },
  };
}

/**
 * The targets every server-backed integration suite runs against: a server
 * kind (the real `ovsdb-server` or the in-memory server, see `servers.ts`)
 * and the way clients reach it (straight to its unix socket, or over `ws:`
 * through an in-process `ovnkit bridge` in front of that socket).
 *
 * ```ts
 * import { TARGETS, useTarget } from './targets.js';
 *
 * describe.each(TARGETS)('replica against %s', (target) => {
 *   const fx = useTarget(target, { schema: TEST_SCHEMA });
 *   it('syncs', async () => {
 *     const writer = await connect(fx.unixRemote); // a raw second writer: never through the bridge
 *     const client = connectDatabase({ remotes: fx.remote, model }); // the target's way
 *     // …
 *   });
 * });
 * ```
 *
 * One fixture per target per file: the server (and bridge) start in
 * `beforeAll` and stop in `afterAll` of the enclosing `describe`. Tests that
 * only make sense for one target stay outside the `describe.each`; where the
 * servers differ on purpose (`docs/conformance.md`), adjust the expectation
 * by `target.server` rather than skipping.
 *
 * `OVNKIT_SERVER_KINDS` (see `servers.ts`) limits the server kinds, and with
 * them the targets.
 * @module
 */

import { afterAll, beforeAll } from 'vitest';
import { type Bridge, startBridge } from '../../src/bridge/bridge.js';
import type { Via } from './server.js';
import {
  SERVER_KINDS,
  type ServerKind,
  startTestServer,
  type TestServerHandle,
  type TestServerOptions,
} from './servers.js';

/** A server kind and the way clients reach it. */
export interface Target {
  /** Which server runs. */
  readonly server: ServerKind;
  /** How clients reach it: its unix socket (`direct`) or a WebSocket bridge in front of it (`ws-bridge`). */
  readonly via: Via;
  /** `ovsdb-server`, `memory`, `ovsdb-server via ws-bridge`, …: what `%s` prints in a title. */
  readonly name: string;
  /** {@link Target.name}, so that `describe.each(TARGETS)('… against %s', …)` names the target. */
  toString(): string;
}

function target(server: ServerKind, via: Via): Target {
  const name = via === 'direct' ? server : `${server} via ${via}`;
  return Object.freeze({ server, via, name, toString: () => name });
}

/**
 * Every target: both servers directly, and the real server over `ws:`
 * through the bridge.
 */
export const ALL_TARGETS: readonly Target[] = Object.freeze([
  target('ovsdb-server', 'direct'),
  target('memory', 'direct'),
  target('ovsdb-server', 'ws-bridge'),
]);

/**
 * The targets to run: {@link ALL_TARGETS} whose server kind is selected
 * (all by default, or those named in `OVNKIT_SERVER_KINDS`). Use with
 * `describe.each(TARGETS)`.
 */
export const TARGETS: readonly Target[] = ALL_TARGETS.filter((t) =>
  SERVER_KINDS.includes(t.server),
);

/** Server options, or a function of the target giving them (for options that differ by server). */
export type TargetServerOptions = TestServerOptions | ((target: Target) => TestServerOptions);

/** A target's server (and bridge) shared by the tests of one `describe`; valid inside tests and hooks. */
export interface TargetFixture {
  readonly target: Target;
  /** The running server: for raw writers, `ovsdbClient`, `restart`, `kill`. */
  readonly server: TestServerHandle;
  /** What a client of this target dials: the server's unix remote, or the bridge's `ws://` URL. */
  readonly remote: string;
  /** The server's own unix remote, for raw second writers (never through the bridge). */
  readonly unixRemote: string;
  /** The bridge in front of the server (`ws-bridge` targets only). */
  readonly bridge: Bridge | undefined;
  /**
   * The remote a client of this target dials to reach `upstream`, a `unix:`
   * remote standing in front of the server (a fault-injecting proxy, say):
   * `upstream` itself for `direct`, or the URL of a new bridge forwarding to
   * it for `ws-bridge` (closed in `afterAll`).
   */
  via(upstream: string): Promise<string>;
  /** Run `close` in `afterAll`, before the bridge and the server stop (last registered, first run). */
  onClose(close: () => Promise<void> | void): void;
}

/**
 * Start the server of `target` (with `options`) in `beforeAll`, and for a
 * `ws-bridge` target an in-process bridge in front of its unix socket; in
 * `afterAll`, run the registered closers, close the bridges, then stop the
 * server.
 */
export function useTarget(target: Target, options: TargetServerOptions): TargetFixture {
  let server: TestServerHandle | undefined;
  let bridge: Bridge | undefined;
  const bridges: Bridge[] = [];
  const closers: (() => Promise<void> | void)[] = [];
  const startBridgeTo = async (upstream: string): Promise<Bridge> => {
    const b = await startBridge({
      listen: 'ws://127.0.0.1:0/ovsdb',
      remote: upstream,
      noAuth: true,
    });
    bridges.push(b);
    return b;
  };
  beforeAll(async () => {
    server = await startTestServer(
      target.server,
      typeof options === 'function' ? options(target) : options,
    );
    if (target.via === 'ws-bridge') bridge = await startBridgeTo(server.unixRemote);
  });
  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    for (const b of bridges.splice(0)) await b.close();
    await server?.stop();
  });
  const get = (): TestServerHandle => {
    if (server === undefined) {
      throw new Error(`the ${target.name} server is not started (use the fixture inside tests)`);
    }
    return server;
  };
  return {
    target,
    get server() {
      return get();
    },
    get remote() {
      const s = get();
      return bridge === undefined ? s.unixRemote : bridge.url;
    },
    get unixRemote() {
      return get().unixRemote;
    },
    get bridge() {
      return bridge;
    },
    async via(upstream) {
      if (target.via === 'direct') return upstream;
      return (await startBridgeTo(upstream)).url;
    },
    onClose(close) {
      closers.push(close);
    },
  };
}

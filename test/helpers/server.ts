/**
 * Shared helpers for the real-server integration tests: a small test schema,
 * a per-file server fixture, connecting by each connection method (and over
 * `ws:` through an `ovnkit bridge` in front of the server), a wire tap that
 * records what crosses a transport, and event waiting.
 */

import { afterAll, beforeAll } from 'vitest';
import { type Bridge, startBridge } from '../../src/bridge/bridge.js';
import { type ConnectOptions, connect } from '../../src/ovsdb/connection/connect.js';
import { type ConnectionEvents, OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { openNodeWebSocketTransport } from '../../src/ovsdb/transport/connect-ws.js';
import { openSocketTransport } from '../../src/ovsdb/transport/socket-transport.js';
import type { Transport, TransportHandlers } from '../../src/ovsdb/wire/transport.js';
import {
  type OvsdbServerHandle,
  readClientTls,
  requireOvsdbServer,
} from '../../src/testing/index.js';
import { type ServerKind, startTestServer, type TestServerOptions } from './servers.js';

/**
 * The test database, written the way ovsdb-server writes schemas back (no
 * default members), so that `get_schema` returns it unchanged.
 * - `Item`: scalar, set and map columns; the table tests mostly use.
 * - `Root` → `Connection`: what `--remote=db:Test,Root,connections` reads
 *   (`target`, `inactivity_probe`), with the status columns the server fills.
 */
export const TEST_SCHEMA = {
  name: 'Test',
  version: '1.2.3',
  tables: {
    Item: {
      columns: {
        name: { type: 'string' },
        n: { type: 'integer' },
        tags: { type: { key: 'string', min: 0, max: 'unlimited' } },
        opts: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
      },
      isRoot: true,
      indexes: [['name']],
    },
    Root: {
      columns: {
        connections: {
          type: { key: { type: 'uuid', refTable: 'Connection' }, min: 0, max: 'unlimited' },
        },
      },
      isRoot: true,
      maxRows: 1,
    },
    Connection: {
      columns: {
        target: { type: 'string' },
        inactivity_probe: { type: { key: 'integer', min: 0 } },
        is_connected: { type: 'boolean', ephemeral: true },
        status: {
          type: { key: 'string', value: 'string', min: 0, max: 'unlimited' },
          ephemeral: true,
        },
      },
      indexes: [['target']],
    },
  },
} as const;

/** The database name of {@link TEST_SCHEMA}. */
export const DB = TEST_SCHEMA.name;

/** The connection methods every connection test runs over. */
export const METHODS = ['unix', 'tcp', 'ssl'] as const;
/** One of {@link METHODS}. */
export type Method = (typeof METHODS)[number];

/**
 * {@link METHODS} plus `ws`: a WebSocket through an `ovnkit bridge` that
 * forwards to the server's unix socket. Suites that run over every client
 * transport use `describe.each(CLIENT_METHODS)`.
 */
export const CLIENT_METHODS = [...METHODS, 'ws'] as const;
/** One of {@link CLIENT_METHODS}. */
export type ClientMethod = (typeof CLIENT_METHODS)[number];

/** A server shared by the tests of one file; valid inside tests and hooks. */
export interface ServerFixture {
  readonly server: OvsdbServerHandle;
  /** Connect by `method`, with the client certificate for `ssl`. */
  connect(method: ClientMethod, options?: ConnectOptions): Promise<OvsdbConnection>;
  /** Like {@link ServerFixture.connect}, with a {@link WireTap} between the socket and the connection. */
  connectTapped(
    method: ClientMethod,
    options?: ConnectOptions,
  ): Promise<{ conn: OvsdbConnection; tap: WireTap }>;
  /** The remote string of `method` (`ws://127.0.0.1:<port>/ovsdb` for `ws`). */
  remote(method: ClientMethod): string;
}

/**
 * Start one server (unix, tcp and ssl listeners) for the calling test file in
 * `beforeAll` and stop it in `afterAll`: a real `ovsdb-server`, or with
 * `kind` `'memory'` the in-memory server (see `servers.ts`), with a WebSocket bridge in front of
 * its unix socket for the `ws` method. Connections opened through the
 * fixture are closed in `afterAll` too.
 */
export function useServer(
  options: Partial<TestServerOptions> = {},
  kind: ServerKind = 'ovsdb-server',
): ServerFixture {
  let server: OvsdbServerHandle | undefined;
  const open: OvsdbConnection[] = [];
  beforeAll(async () => {
    if (kind === 'ovsdb-server') requireOvsdbServer(true);
    server = await startTestServer(kind, {
      schema: TEST_SCHEMA,
      remotes: ['unix', 'tcp', 'ssl'],
      ...options,
    });
  });
  afterAll(async () => {
    for (const c of open) c.close();
    await server?.stop();
  });
  // Registered after the server's hooks: started after it, closed before it.
  const bridge = useWsBridge(() => get().unixRemote);
  const get = (): OvsdbServerHandle => {
    if (!server) throw new Error('the server is not started (use the fixture inside tests)');
    return server;
  };
  const remote = (method: ClientMethod): string => {
    if (method === 'ws') return bridge.remote();
    const r = get().remotes[method];
    if (!r) throw new Error(`the server has no ${method} listener`);
    return r;
  };
  const tlsFor = async (method: ClientMethod, options: ConnectOptions) => {
    const s = get();
    if (method !== 'ssl' || options.tls || !s.pki) return options;
    return { ...options, tls: await readClientTls(s.pki) };
  };
  return {
    get server() {
      return get();
    },
    remote,
    async connect(method, options = {}) {
      const conn = await connect(remote(method), await tlsFor(method, options));
      open.push(conn);
      return conn;
    },
    async connectTapped(method, options = {}) {
      const full = await tlsFor(method, options);
      const transport =
        method === 'ws'
          ? await openNodeWebSocketTransport(remote(method), { timeoutMs: full.timeoutMs })
          : await openSocketTransport(remote(method), {
              tls: full.tls,
              timeoutMs: full.timeoutMs,
            });
      const tap = new WireTap(transport);
      const { tls: _t, timeoutMs: _m, signal: _s, ...connOptions } = full;
      const conn = new OvsdbConnection(tap, connOptions);
      open.push(conn);
      return { conn, tap };
    },
  };
}

/**
 * How a suite's clients reach the server: straight to its socket, or over
 * WebSocket through an `ovnkit bridge` (see {@link useWsBridge}).
 */
export const VIAS = ['direct', 'ws-bridge'] as const;
/** One of {@link VIAS}. */
export type Via = (typeof VIAS)[number];

/** A WebSocket bridge started for the tests of one file; valid inside tests and hooks. */
export interface WsBridgeFixture {
  /** The bridge's `ws://127.0.0.1:<port>/ovsdb` URL. */
  remote(): string;
  /** The remote a client uses for `via`: the upstream itself (`direct`) or the bridge URL (`ws-bridge`). */
  remoteFor(via: Via): string;
  /** The running bridge (for its counters). */
  readonly bridge: Bridge;
}

/**
 * Start an `ovnkit bridge` in `beforeAll` (after the caller's own `beforeAll`
 * hooks registered earlier, so `upstream` may name a server they started) and
 * close it in `afterAll`. It listens on 127.0.0.1 without authentication
 * (allowed on loopback only) and forwards to `upstream()`, a `unix:`, `tcp:`
 * or `ssl:` remote. Any suite can run over `ws:` with it:
 *
 * ```ts
 * const bridge = useWsBridge(() => server.unixRemote);
 * describe.each(VIAS)('over %s', (via) => {
 *   // connectDatabase({ remotes: bridge.remoteFor(via), ... })
 * });
 * ```
 */
export function useWsBridge(upstream: () => string): WsBridgeFixture {
  let bridge: Bridge | undefined;
  beforeAll(async () => {
    bridge = await startBridge({
      listen: 'ws://127.0.0.1:0/ovsdb',
      remote: upstream(),
      noAuth: true,
    });
  });
  afterAll(async () => {
    await bridge?.close();
  });
  const get = (): Bridge => {
    if (!bridge) throw new Error('the bridge is not started (use the fixture inside tests)');
    return bridge;
  };
  return {
    remote: () => get().url,
    remoteFor: (via) => (via === 'ws-bridge' ? get().url : upstream()),
    get bridge() {
      return get();
    },
  };
}

/**
 * A transport wrapper that records every message written and every message
 * received (parsed with its own small scanner, independent of the library's
 * framer), so tests can check what went over the wire.
 */
export class WireTap implements Transport {
  get kind(): Transport['kind'] {
    return this.inner.kind;
  }
  /** Messages written, parsed. */
  readonly sent: unknown[] = [];
  /** Messages received, parsed, in arrival order. */
  readonly received: unknown[] = [];
  private buffer = '';
  private readonly decoder = new TextDecoder();
  private waiters: { match: (m: unknown) => boolean; resolve: (m: unknown) => void }[] = [];

  constructor(private readonly inner: Transport) {}

  get description(): string {
    return this.inner.description;
  }

  attach(handlers: TransportHandlers): void {
    this.inner.attach({
      data: (chunk) => {
        this.buffer += this.decoder.decode(chunk, { stream: true });
        this.scan();
        handlers.data(chunk);
      },
      message: (text) => {
        this.record(JSON.parse(text));
        handlers.message(text);
      },
      drain: () => handlers.drain(),
      close: (error) => handlers.close(error),
    });
  }

  write(text: string): boolean {
    this.sent.push(JSON.parse(text));
    return this.inner.write(text);
  }

  close(): void {
    this.inner.close();
  }

  /** Resolve with the first received message (already seen or future) that `match` accepts. */
  waitForReceived(match: (m: unknown) => boolean, timeoutMs = 5000): Promise<unknown> {
    const seen = this.received.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no matching message within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        match,
        resolve: (m: unknown) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      this.waiters.push(waiter);
    });
  }

  private record(message: unknown): void {
    this.received.push(message);
    for (const w of this.waiters) {
      if (w.match(message)) {
        this.waiters = this.waiters.filter((x) => x !== w);
        w.resolve(message);
      }
    }
  }

  /** Split the buffer into complete top-level JSON values. */
  private scan(): void {
    const [texts, rest] = cutJsonTexts(this.buffer);
    for (const t of texts) this.record(JSON.parse(t));
    this.buffer = rest;
  }
}

/**
 * The complete top-level JSON texts at the start of `buffer` (a small
 * scanner of its own, independent of the library's framer, respecting
 * strings and escapes), and what is left after them.
 */
export function cutJsonTexts(buffer: string): [string[], string] {
  const texts: string[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = 0;
  for (let i = 0; i < buffer.length; i++) {
    const c = buffer[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) {
        texts.push(buffer.slice(start, i + 1));
        start = i + 1;
      }
    } else if (depth === 0 && /\s/.test(c ?? '')) start = i + 1;
  }
  return [texts, buffer.slice(start)];
}

/** A message `{ id, ... }` with this id. */
export const withId =
  (id: unknown) =>
  (m: unknown): boolean =>
    typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id;

type EventArgs<E extends keyof ConnectionEvents> = ConnectionEvents[E];

/** Wait for the next `event` of `conn` (rejects after `timeoutMs`). */
export function nextEvent<E extends keyof ConnectionEvents>(
  conn: OvsdbConnection,
  event: E,
  timeoutMs = 5000,
): Promise<EventArgs<E>> {
  return new Promise((resolve, reject) => {
    const listener = (...args: EventArgs<E>) => {
      clearTimeout(timer);
      resolve(args);
    };
    const timer = setTimeout(() => {
      conn.off(event, listener as never);
      reject(new Error(`no "${String(event)}" event within ${timeoutMs} ms`));
    }, timeoutMs);
    conn.once(event, listener as never);
  });
}

/** Collect every `event` of `conn` into an array (for asserting what did not arrive). */
export function collectEvents<E extends keyof ConnectionEvents>(
  conn: OvsdbConnection,
  event: E,
): EventArgs<E>[] {
  const seen: EventArgs<E>[] = [];
  conn.on(event, ((...args: EventArgs<E>) => {
    seen.push(args);
  }) as never);
  return seen;
}

/** Resolve after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A unique name per call, so tests sharing a server do not collide. */
let counter = 0;
export function unique(prefix: string): string {
  counter++;
  return `${prefix}-${process.pid}-${counter}`;
}

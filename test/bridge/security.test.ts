/**
 * The bridge's security controls against a real ovsdb-server: bearer tokens,
 * the database and method allowlists, read-only mode, frame limits and close
 * codes. The server logs every JSON-RPC message it receives
 * (`-vjsonrpc:file:dbg`), so the tests can check that refused requests never
 * reached it.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Bridge, BridgeConfigError, startBridge } from '../../src/bridge/bridge.js';
import type { BridgePolicyOptions } from '../../src/bridge/policy.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { WebSocketClosedError } from '../../src/ovsdb/transport/ws-transport.js';
import { ConnectionClosedError } from '../../src/ovsdb/wire/errors.js';
import type { Condition, Operation } from '../../src/ovsdb/wire/wire.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { DB, TEST_SCHEMA, unique } from '../helpers/server.js';
import { HttpRefusal, permissionError, RawClient } from './helpers.js';

const TOKEN = 'tkn-9f2c1e7a4b';
let server: OvsdbServerHandle;
const bridges: Bridge[] = [];

beforeAll(async () => {
  requireOvsdbServer(true);
  server = await startOvsdbServer({
    schema: TEST_SCHEMA,
    remotes: ['unix'],
    extraArgs: ['-vjsonrpc:file:dbg'],
  });
});

afterAll(async () => {
  for (const b of bridges) await b.close();
  await server?.stop();
});

async function bridgeWith(
  policy: BridgePolicyOptions = {},
  extra: Partial<Parameters<typeof startBridge>[0]> = {},
): Promise<Bridge> {
  const b = await startBridge({
    listen: 'ws://127.0.0.1:0/ovsdb',
    remote: server.unixRemote,
    tokens: [TOKEN],
    policy,
    ...extra,
  });
  bridges.push(b);
  return b;
}

/** Whether the server's log shows a received message containing `marker`. */
async function serverSaw(marker: string): Promise<boolean> {
  // The server logs asynchronously to its file; a later echo round trip flushes ordering.
  return (await server.readLog()).includes(marker);
}

const insert = (name: string): Operation => ({ op: 'insert', table: 'Item', row: { name, n: 1 } });

describe('authentication', () => {
  let bridge: Bridge;
  beforeAll(async () => {
    bridge = await bridgeWith();
  });

  it.each([
    ['no token', {}, 'unauthorized: missing token'],
    ['a wrong header token', { token: 'wrong' }, 'unauthorized: invalid token'],
    ['a token that is a prefix', { token: TOKEN.slice(0, -1) }, 'unauthorized: invalid token'],
    ['a longer token', { token: `${TOKEN}x` }, 'unauthorized: invalid token'],
    [
      'a non-Bearer Authorization header',
      { headers: { Authorization: `Basic ${TOKEN}` } },
      'unauthorized: invalid token',
    ],
  ])('%s is refused with 1008 before any server connection', async (_, options, reason) => {
    const before = bridge.stats();
    const client = await RawClient.open(bridge.url, options);
    expect(await client.closed).toEqual({ code: 1008, reason });
    const after = bridge.stats();
    expect(after.authFailures).toBe(before.authFailures + 1);
    expect(after.upstreamConnects).toBe(before.upstreamConnects);
    expect(after.connectionsTotal).toBe(before.connectionsTotal);
  });

  it('a wrong query token is refused; a request sent at once never reaches the server', async () => {
    const marker = unique('never-forwarded');
    const client = await RawClient.open(`${bridge.url}?token=nope`);
    client.sendRaw(JSON.stringify({ method: 'echo', params: [marker], id: 1 }));
    expect(await client.closed).toEqual({ code: 1008, reason: 'unauthorized: invalid token' });
    expect(client.received).toEqual([]);
    const ok = await RawClient.open(bridge.url, { token: TOKEN });
    await ok.request('echo', ['flush']);
    ok.close();
    expect(await serverSaw(marker)).toBe(false);
  });

  it('the right token works in the header and in the query', async () => {
    const byHeader = await connect(bridge.url, { token: TOKEN });
    expect([...(await byHeader.listDbs())].sort()).toEqual([DB, '_Server']);
    byHeader.close();
    const byQuery = await connect(`${bridge.url}?token=${TOKEN}`);
    expect(byQuery.description).toBe(`${bridge.url}?token=***`);
    expect([...(await byQuery.listDbs())].sort()).toEqual([DB, '_Server']);
    byQuery.close();
  });

  it('connect() reports the refusal as a WebSocketClosedError with code 1008', async () => {
    const conn = await connect(bridge.url, { token: 'wrong' });
    const err = await conn.listDbs().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionClosedError);
    const cause = (err as Error).cause;
    expect(cause).toBeInstanceOf(WebSocketClosedError);
    expect((cause as WebSocketClosedError).code).toBe(1008);
    expect((cause as WebSocketClosedError).reason).toBe('unauthorized: invalid token');
  });

  it('a bridge needs tokens unless --no-auth, which only loopback addresses allow', async () => {
    const remote = server.unixRemote;
    await expect(startBridge({ listen: 'ws://127.0.0.1:0', remote })).rejects.toThrow(
      BridgeConfigError,
    );
    await expect(startBridge({ listen: 'ws://0.0.0.0:0', remote, noAuth: true })).rejects.toThrow(
      /only allowed when listening on a loopback address/,
    );
    await expect(
      startBridge({ listen: 'ws://127.0.0.1:0', remote, noAuth: true, tokens: ['a'] }),
    ).rejects.toThrow(/not both/);
    const open = await startBridge({ listen: 'ws://127.0.0.1:0', remote, noAuth: true });
    bridges.push(open);
    const conn = await connect(open.url);
    expect(await conn.echo('no auth')).toEqual(['no auth']);
    conn.close();
  });

  it('refuses other paths (404) and disallowed origins (403)', async () => {
    const b = await bridgeWith({}, { allowOrigins: ['https://ui.example.com'] });
    const other = b.url.replace('/ovsdb', '/other');
    await expect(RawClient.open(other, { token: TOKEN })).rejects.toEqual(new HttpRefusal(404));
    await expect(
      RawClient.open(b.url, { token: TOKEN, headers: { Origin: 'https://evil.example.com' } }),
    ).rejects.toEqual(new HttpRefusal(403));
    const ok = await RawClient.open(b.url, {
      token: TOKEN,
      headers: { Origin: 'https://ui.example.com' },
    });
    expect((await ok.request('echo', ['o']))['result']).toEqual(['o']);
    ok.close();
  });
});

describe('origins (with token auth too)', () => {
  it('a browser origin other than the bridge’s own is refused with 403 even with the right token', async () => {
    const b = await bridgeWith();
    const port = new URL(b.url).port;
    const before = b.stats().originRefusals;
    for (const origin of [
      'https://evil.example.com',
      `http://127.0.0.1:${Number(port) + 1}`,
      `https://127.0.0.1:${port}`,
      'null',
      'not an origin',
    ]) {
      await expect(
        RawClient.open(b.url, { token: TOKEN, headers: { Origin: origin } }),
      ).rejects.toEqual(new HttpRefusal(403));
    }
    expect(b.stats().originRefusals - before).toBe(5);
    // Its own origin (as the Host header names it), and no Origin at all, are accepted.
    const own = await RawClient.open(b.url, {
      token: TOKEN,
      headers: { Origin: `http://127.0.0.1:${port}` },
    });
    expect((await own.request('echo', ['own']))['result']).toEqual(['own']);
    own.close();
    const plain = await RawClient.open(b.url, { token: TOKEN });
    expect((await plain.request('echo', ['plain']))['result']).toEqual(['plain']);
    plain.close();
    // The origin check comes first: a foreign origin with a wrong token is a 403, not a 1008.
    await expect(
      RawClient.open(b.url, { token: 'wrong', headers: { Origin: 'https://evil.example.com' } }),
    ).rejects.toEqual(new HttpRefusal(403));
    // A listed origin still needs the token.
    const listed = await bridgeWith({}, { allowOrigins: ['https://UI.example.com/'] });
    const noToken = await RawClient.open(listed.url, {
      headers: { Origin: 'https://ui.example.com' },
    });
    expect(await noToken.closed).toEqual({ code: 1008, reason: 'unauthorized: missing token' });
  });

  it('a Host header naming another host does not make a foreign origin the bridge’s own', async () => {
    const b = await bridgeWith();
    await expect(
      RawClient.open(b.url, {
        token: TOKEN,
        headers: { Origin: 'http://evil.example.com', Host: 'evil.example.com' },
      }),
    ).rejects.toEqual(new HttpRefusal(403));
    // An IP address or localhost as Host is the bridge under that name.
    const ok = await RawClient.open(b.url, {
      token: TOKEN,
      headers: { Origin: 'http://localhost:1234', Host: 'localhost:1234' },
    });
    ok.close();
  });

  it('"*" accepts any origin and logs a warning; a malformed entry is a configuration error', async () => {
    const warnings: string[] = [];
    const b = await bridgeWith(
      {},
      { allowOrigins: ['*'], logger: { warn: (m: string) => warnings.push(m) } },
    );
    expect(warnings).toEqual([
      'allowOrigins "*": a page from any web site the user opens can connect through this bridge',
    ]);
    const any = await RawClient.open(b.url, {
      token: TOKEN,
      headers: { Origin: 'https://anything.example' },
    });
    expect((await any.request('echo', ['any']))['result']).toEqual(['any']);
    any.close();
    for (const bad of [
      'https://ui.example.com/path',
      'ui.example.com',
      'https://u@ui.example.com',
    ]) {
      await expect(
        startBridge({
          listen: 'ws://127.0.0.1:0',
          remote: server.unixRemote,
          tokens: [TOKEN],
          allowOrigins: [bad],
        }),
      ).rejects.toThrow(BridgeConfigError);
    }
  });
});

describe('database allowlist', () => {
  let client: RawClient;
  beforeAll(async () => {
    const bridge = await bridgeWith({ allowDbs: [DB] });
    client = await RawClient.open(bridge.url, { token: TOKEN });
  });
  afterAll(() => client.close());

  it('list_dbs shows only the allowed databases', async () => {
    expect(await client.request('list_dbs', [])).toEqual({ id: 'r0', result: [DB], error: null });
  });

  it.each([
    ['get_schema', ['_Server']],
    ['transact', ['_Server', { op: 'select', table: 'Database', where: [] }]],
    ['monitor', ['_Server', 'm', { Database: { columns: ['name'] } }]],
    ['monitor_cond', ['_Server', 'm', { Database: { columns: ['name'] } }]],
    [
      'monitor_cond_since',
      ['_Server', 'm', { Database: {} }, '00000000-0000-0000-0000-000000000000'],
    ],
    ['convert', ['_Server', {}]],
  ])('%s on a database not in the list is refused', async (method, params) => {
    const reply = await client.request(method, params);
    expect(reply).toEqual(
      permissionError(reply['id'], `${method}: database "_Server" is not allowed by this bridge`),
    );
  });

  it('a database name that is not a string is refused', async () => {
    const reply = await client.request('get_schema', [['_Server']]);
    expect(reply).toEqual(
      permissionError(reply['id'], 'get_schema: params[0] must name a database'),
    );
  });

  it('the refused request never reaches the server; an allowed one does', async () => {
    const refused = unique('refused-marker');
    const allowed = unique('allowed-marker');
    const r1 = await client.request('transact', ['_Server', { op: 'comment', comment: refused }]);
    expect(r1['error']).toEqual({
      error: 'permission error',
      details: 'transact: database "_Server" is not allowed by this bridge',
      refused_by: 'bridge',
    });
    const r2 = await client.request('transact', [DB, { op: 'comment', comment: allowed }]);
    expect(r2).toEqual({ id: r2['id'], result: [{}], error: null });
    expect(await serverSaw(allowed)).toBe(true);
    expect(await serverSaw(refused)).toBe(false);
  });

  it('the allowed database works: get_schema, transact, monitor_cond', async () => {
    expect((await client.request('get_schema', [DB]))['result']).toEqual(TEST_SCHEMA);
    const name = unique('allowed');
    const mon = await client.request('monitor_cond', [
      DB,
      'allowed',
      { Item: { columns: ['name'], where: [['name', '==', name]] } },
    ]);
    expect(mon['result']).toEqual({});
    const tx = await client.request('transact', [DB, insert(name)]);
    expect(tx['error']).toBeNull();
    const update = client.received.find(
      (m) => m['method'] === 'update2' && JSON.stringify(m['params']).includes(name),
    );
    expect(update).toBeDefined();
  });
});

describe('method allowlist', () => {
  let client: RawClient;
  beforeAll(async () => {
    const bridge = await bridgeWith({ allowMethods: ['list_dbs', 'get_schema'] });
    client = await RawClient.open(bridge.url, { token: TOKEN });
  });
  afterAll(() => client.close());

  it('allows the listed methods, and echo', async () => {
    expect((await client.request('list_dbs', []))['error']).toBeNull();
    expect((await client.request('get_schema', [DB]))['error']).toBeNull();
    expect((await client.request('echo', ['x']))['result']).toEqual(['x']);
  });

  it.each([
    ['transact', [DB, { op: 'select', table: 'Item', where: [] }]],
    ['monitor_cond', [DB, 'm', { Item: {} }]],
    ['lock', ['L']],
    ['get_server_id', []],
  ])('refuses %s', async (method, params) => {
    const reply = await client.request(method, params);
    expect(reply).toEqual(
      permissionError(reply['id'], `method "${method}" is not allowed by this bridge`),
    );
  });

  it('refuses methods the bridge does not know', async () => {
    const reply = await client.request('frobnicate', []);
    expect(reply).toEqual(
      permissionError(reply['id'], 'method "frobnicate" is not forwarded by this bridge'),
    );
  });

  it('an allowlist naming an unknown method is a configuration error', async () => {
    await expect(bridgeWith({ allowMethods: ['list_dbs', 'drop_everything'] })).rejects.toThrow(
      /unknown method "drop_everything"/,
    );
  });
});

describe('read-only', () => {
  let client: RawClient;
  let writer: Awaited<ReturnType<typeof connect>>;
  const name = unique('ro');
  beforeAll(async () => {
    writer = await connect(server.unixRemote);
    await writer.transact(DB, [insert(name)]);
    const bridge = await bridgeWith({ readOnly: true });
    client = await RawClient.open(bridge.url, { token: TOKEN });
  });
  afterAll(() => {
    client.close();
    writer.close();
  });

  const where = (): Condition[] => [['name', '==', name]];
  it.each([
    ['insert', () => ({ op: 'insert', table: 'Item', row: { name: unique('ro-new') } })],
    ['update', () => ({ op: 'update', table: 'Item', where: where(), row: { n: 2 } })],
    [
      'mutate',
      () => ({ op: 'mutate', table: 'Item', where: where(), mutations: [['n', '+=', 1]] }),
    ],
    ['delete', () => ({ op: 'delete', table: 'Item', where: where() })],
  ])('rejects %s, alone and after a select', async (op, make) => {
    const alone = await client.request('transact', [DB, make()]);
    expect(alone).toEqual(
      permissionError(
        alone['id'],
        `read-only bridge: transact operation 0 is "${op}"; only select, wait and comment are allowed`,
        0,
      ),
    );
    const mixed = await client.request('transact', [
      DB,
      { op: 'select', table: 'Item', where: where() },
      make(),
    ]);
    expect(mixed).toEqual(
      permissionError(mixed['id'], new RegExp(`transact operation 1 is "${op}"`), 1),
    );
    // Nothing changed.
    const [rows] = await writer.transact(DB, [
      { op: 'select', table: 'Item', where: where(), columns: ['n'] },
    ]);
    expect(rows).toEqual({ rows: [{ n: 1 }] });
  });

  it('lets select, wait and comment through', async () => {
    const reply = await client.request('transact', [
      DB,
      { op: 'comment', comment: 'read-only check' },
      {
        op: 'wait',
        table: 'Item',
        where: where(),
        columns: ['n'],
        until: '==',
        rows: [{ n: 1 }],
        timeout: 0,
      },
      { op: 'select', table: 'Item', where: where(), columns: ['name', 'n'] },
    ]);
    expect(reply).toEqual({
      id: reply['id'],
      result: [{}, {}, { rows: [{ name, n: 1 }] }],
      error: null,
    });
  });

  it('allows the monitors, get_schema, get_server_id and set_db_change_aware', async () => {
    expect((await client.request('set_db_change_aware', [true]))['error']).toBeNull();
    expect((await client.request('get_server_id', []))['result']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await client.request('get_schema', [DB]))['error']).toBeNull();
    const mon = await client.request('monitor_cond', [
      DB,
      'ro-mon',
      { Item: { columns: ['n'], where: [['name', '==', name]] } },
    ]);
    expect(Object.values((mon['result'] as { Item: object }).Item)).toEqual([
      { initial: { n: 1 } },
    ]);
    expect((await client.request('monitor_cancel', ['ro-mon']))['error']).toBeNull();
  });

  it.each([
    ['lock', ['ro_lock']],
    ['steal', ['ro_lock']],
    ['unlock', ['ro_lock']],
    ['convert', [DB, TEST_SCHEMA]],
  ])('refuses %s', async (method, params) => {
    const reply = await client.request(method, params);
    expect(reply).toEqual(
      permissionError(reply['id'], `read-only bridge: method "${method}" is not allowed`),
    );
  });
});

describe('frames and close codes', () => {
  it('a frame over maxFrameBytes closes with 1009 and a reason', async () => {
    const bridge = await bridgeWith({}, { maxFrameBytes: 64 * 1024 });
    const client = await RawClient.open(bridge.url, { token: TOKEN });
    expect((await client.request('echo', ['x'.repeat(60 * 1024)]))['error']).toBeNull();
    client.sendRaw(JSON.stringify({ method: 'echo', params: ['x'.repeat(70 * 1024)], id: 'big' }));
    expect(await client.closed).toEqual({
      code: 1009,
      reason: 'message too big: frames are limited to 65536 bytes',
    });
    expect(client.received.some((m) => m['id'] === 'big')).toBe(false);
  });

  it('a server message over maxMessageBytes closes with 1009', async () => {
    const bridge = await bridgeWith({}, { maxMessageBytes: 4096 });
    const client = await RawClient.open(bridge.url, { token: TOKEN });
    client.sendRaw(JSON.stringify({ method: 'echo', params: ['y'.repeat(8000)], id: 1 }));
    expect(await client.closed).toEqual({
      code: 1009,
      reason: 'a message from the OVSDB server exceeds the 4096-byte limit',
    });
  });

  it('a reply over maxUnsolicitedBytes passes while its request is pending', async () => {
    const bridge = await bridgeWith({}, { maxMessageBytes: 1 << 20, maxUnsolicitedBytes: 4096 });
    const client = await RawClient.open(bridge.url, { token: TOKEN });
    const reply = await client.request('echo', ['y'.repeat(8000)]);
    expect((reply['result'] as string[])[0]).toHaveLength(8000);
    client.close();
  });

  it('an unsolicited server message over maxUnsolicitedBytes closes with 1009', async () => {
    const bridge = await bridgeWith({}, { maxMessageBytes: 1 << 20, maxUnsolicitedBytes: 4096 });
    const client = await RawClient.open(bridge.url, { token: TOKEN });
    await client.request('monitor_cond', [DB, 'm', { Item: { columns: ['name'] } }]);
    // Another client's insert reaches this one as an update2 notification, unasked.
    const writer = await connect(server.unixRemote);
    await writer.transact(DB, [insert(`${unique('big')}-${'z'.repeat(8000)}`)]);
    writer.close();
    expect(await client.closed).toEqual({
      code: 1009,
      reason: 'a message from the OVSDB server exceeds the 4096-byte limit',
    });
  });

  it.each([
    ['text that is not JSON', 'not json', false, 1007, /^invalid JSON/],
    ['a binary frame', '{"method":"echo","params":[],"id":1}', true, 1003, /^binary frames/],
    [
      'a message with "jsonrpc"',
      '{"jsonrpc":"2.0","method":"list_dbs","params":[],"id":1}',
      false,
      1008,
      /^malformed JSON-RPC message: unexpected member "jsonrpc"$/,
    ],
    ['an array', '[1,2]', false, 1008, /must be a JSON object/],
    ['params that are not an array', '{"method":"echo","params":{},"id":1}', false, 1008, /array/],
  ])('%s closes with %#', async (_, text, binary, code, reason) => {
    const bridge = bridges[0]!;
    const client = await RawClient.open(bridge.url, { token: TOKEN });
    client.sendRaw(binary ? Buffer.from(text) : text, binary);
    const closed = await client.closed;
    expect(closed.code).toBe(code);
    expect(closed.reason).toMatch(reason);
  });

  it('closing the bridge closes clients with 1001', async () => {
    const bridge = await bridgeWith();
    const a = await RawClient.open(bridge.url, { token: TOKEN });
    const b = await RawClient.open(bridge.url, { token: TOKEN });
    await a.request('echo', []);
    await bridge.close();
    expect(await a.closed).toEqual({ code: 1001, reason: 'the bridge is shutting down' });
    expect(await b.closed).toEqual({ code: 1001, reason: 'the bridge is shutting down' });
  });

  it('an unreachable server closes with 1011', async () => {
    const b = await startBridge({
      listen: 'ws://127.0.0.1:0',
      remote: 'unix:/nonexistent/ovnkit/db.sock',
      tokens: [TOKEN],
    });
    bridges.push(b);
    const client = await RawClient.open(b.url, { token: TOKEN });
    expect(await client.closed).toEqual({ code: 1011, reason: 'cannot reach the OVSDB server' });
  });

  it('a server that goes away closes its clients with 1011', async () => {
    const other = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['unix'] });
    try {
      const b = await startBridge({
        listen: 'ws://127.0.0.1:0',
        remote: other.unixRemote,
        tokens: [TOKEN],
      });
      bridges.push(b);
      const client = await RawClient.open(b.url, { token: TOKEN });
      expect((await client.request('list_dbs', []))['error']).toBeNull();
      await other.kill();
      expect(await client.closed).toEqual({
        code: 1011,
        reason: 'the OVSDB server closed the connection',
      });
    } finally {
      await other.stop();
    }
  });

  it('a client that does not answer pings is dropped; one that does stays', async () => {
    const bridge = await bridgeWith({}, { pingIntervalMs: 100 });
    const alive = await RawClient.open(bridge.url, { token: TOKEN });
    const silent = new WebSocket(bridge.url, {
      headers: { Authorization: `Bearer ${TOKEN}` },
      autoPong: false,
    });
    const silentClosed = new Promise<number>((resolve) =>
      silent.once('close', (code: number) => resolve(code)),
    );
    await new Promise((resolve) => silent.once('open', resolve));
    expect(await silentClosed).toBe(1006);
    expect(bridge.stats().pingTimeouts).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await alive.request('echo', ['still here']))['result']).toEqual(['still here']);
    alive.close();
  });

  it('refuses clients over maxConnections with HTTP 503', async () => {
    const bridge = await bridgeWith({}, { maxConnections: 2 });
    const a = await RawClient.open(bridge.url, { token: TOKEN });
    const b = await RawClient.open(bridge.url, { token: TOKEN });
    await expect(RawClient.open(bridge.url, { token: TOKEN })).rejects.toEqual(
      new HttpRefusal(503),
    );
    a.close();
    await a.closed;
    for (let i = 0; i < 50 && bridge.stats().connectionsOpen > 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const c = await RawClient.open(bridge.url, { token: TOKEN });
    expect((await c.request('echo', ['third']))['result']).toEqual(['third']);
    b.close();
    c.close();
  });

  it('each client gets its own server session (locks are per client)', async () => {
    const bridge = await bridgeWith();
    const before = bridge.stats().upstreamConnects;
    const a = await RawClient.open(bridge.url, { token: TOKEN });
    const b = await RawClient.open(bridge.url, { token: TOKEN });
    const lock = unique('lock').replace(/-/g, '_');
    expect((await a.request('lock', [lock]))['result']).toEqual({ locked: true });
    expect((await b.request('lock', [lock]))['result']).toEqual({ locked: false });
    expect(bridge.stats().upstreamConnects).toBe(before + 2);
    a.close();
    b.close();
  });
});

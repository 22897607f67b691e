/**
 * What the bridge holds for its clients, in both directions, is bounded per
 * client (`maxSessionBufferedBytes`) and for all clients together
 * (`maxBufferedBytes`): the client whose growth would pass a bound is
 * closed with 1013 and the others go on. Checked with the bridge's own
 * counters (`bufferedBytes`, `peakBufferedBytes`, `bufferDrops`):
 * - server → client: a real ovsdb-server's 3 MB monitor reply to a client
 *   over a 2 MiB session bound; messages a server sends without ending them
 *   (a plain `net` server standing in for one), three clients over an
 *   8 MiB total;
 * - client → server: WebSocket frames that never end (sent by hand), three
 *   clients over an 8 MiB total.
 */

import * as net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bridge, startBridge } from '../../src/bridge/bridge.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';
import { RawClient } from './helpers.js';

const TOKEN = 'bounds-token-77a1';
const MiB = 1024 * 1024;
let server: OvsdbServerHandle;
const bridges: Bridge[] = [];
const cleanups: (() => void | Promise<void>)[] = [];

beforeAll(async () => {
  requireOvsdbServer(true);
  server = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['unix'] });
  const conn = await connect(server.unixRemote);
  // 30 rows of 100 KB: a monitor reply of about 3 MB.
  await conn.transact(
    DB,
    Array.from({ length: 30 }, (_, i) => ({
      op: 'insert' as const,
      table: 'Item',
      row: { name: `${'x'.repeat(100_000)}${i}`, n: i },
    })),
  );
  conn.close();
});

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  for (const b of bridges) await b.close();
  await server?.stop();
});

async function bridgeWith(options: Partial<Parameters<typeof startBridge>[0]>): Promise<Bridge> {
  const b = await startBridge({
    listen: 'ws://127.0.0.1:0/',
    remote: server.unixRemote,
    tokens: [TOKEN],
    ...options,
  });
  bridges.push(b);
  return b;
}

async function until(test: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const MONITOR = { method: 'monitor_cond', params: [DB, 'm', { Item: { columns: ['name'] } }] };

describe('the session bound', () => {
  it('a server message that would take one client past it closes that client (1013)', async () => {
    const warnings: string[] = [];
    const b = await bridgeWith({
      maxSessionBufferedBytes: 2 * MiB,
      logger: { warn: (m) => warnings.push(m) },
    });
    const big = await RawClient.open(b.url, { token: TOKEN });
    big.ws.send(JSON.stringify({ ...MONITOR, id: 'big' }));
    expect(await big.closed).toEqual({
      code: 1013,
      reason: 'the bridge is overloaded: its buffers are full',
    });
    const s = b.stats();
    expect(s.bufferDrops).toBe(1);
    expect(s.peakSessionBufferedBytes).toBeLessThanOrEqual(2 * MiB);
    expect(warnings.some((w) => /over the 2097152-byte bound of a session/.test(w))).toBe(true);
    // Small replies are fine on the same bridge.
    const small = await RawClient.open(b.url, { token: TOKEN });
    expect((await small.request('echo', ['ok']))['result']).toEqual(['ok']);
    small.close();
    await until(() => b.stats().bufferedBytes === 0);
  }, 30_000);

  it('by default one session may hold a message of maxMessageBytes: the 3 MB reply arrives', async () => {
    const b = await bridgeWith({});
    const c = await RawClient.open(b.url, { token: TOKEN });
    const reply = await c.send({ ...MONITOR, id: 'whole' }, 20_000);
    expect(Object.keys((reply['result'] as { Item: object }).Item)).toHaveLength(30);
    expect(b.stats().bufferDrops).toBe(0);
    expect(b.stats().peakSessionBufferedBytes).toBeGreaterThan(3_000_000);
    c.close();
  }, 30_000);
});

describe('the total bound, server → client', () => {
  it('messages a server never ends: the third client is closed, the first two stay', async () => {
    // A stand-in for a server in the middle of three long replies.
    const sockets = new Set<net.Socket>();
    const fake = net.createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
      s.once('data', () => {
        s.write(`{"id":0,"result":"${'r'.repeat(3 * MiB)}`);
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          fake.close(() => resolve());
        }),
    );
    const port = (fake.address() as net.AddressInfo).port;
    const b = await bridgeWith({ remote: `tcp:127.0.0.1:${port}`, maxBufferedBytes: 8 * MiB });
    const clients: RawClient[] = [];
    for (let i = 0; i < 2; i++) {
      const c = await RawClient.open(b.url, { token: TOKEN });
      c.ws.send(JSON.stringify({ method: 'echo', params: [], id: i }));
      clients.push(c);
      await until(() => b.stats().bufferedBytes >= (i + 1) * 3 * MiB);
    }
    const third = await RawClient.open(b.url, { token: TOKEN });
    third.ws.send(JSON.stringify({ method: 'echo', params: [], id: 2 }));
    expect((await third.closed).code).toBe(1013);
    const s = b.stats();
    expect(s.bufferDrops).toBe(1);
    expect(s.peakBufferedBytes).toBeLessThanOrEqual(8 * MiB);
    expect(s.bufferedBytes).toBeGreaterThanOrEqual(6 * MiB);
    await until(() => b.stats().connectionsOpen === 2);
    for (const c of clients) c.close();
    await until(() => b.stats().bufferedBytes === 0);
  }, 30_000);
});

describe('the total bound, client → server', () => {
  it('frames a client never ends: the third client is closed, the others stay', async () => {
    const b = await bridgeWith({ maxBufferedBytes: 8 * MiB });
    const url = new URL(b.url);
    /** Upgrade by hand, then send the first 3 MiB of a 3.5 MiB text frame. */
    const partialFrame = async (): Promise<{ socket: net.Socket; closed: Promise<void> }> => {
      const s = net.connect(Number(url.port), '127.0.0.1');
      s.on('error', () => undefined);
      const closed = new Promise<void>((r) => s.once('close', () => r()));
      await new Promise((r) => s.once('connect', r));
      s.write(
        `GET / HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Authorization: Bearer ${TOKEN}\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
      await new Promise<void>((resolve) => {
        let head = '';
        const onData = (d: Buffer) => {
          head += d.toString('latin1');
          if (head.includes('\r\n\r\n')) {
            s.off('data', onData);
            resolve();
          }
        };
        s.on('data', onData);
      });
      s.resume();
      const header = Buffer.alloc(14);
      header[0] = 0x81;
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(3.5 * MiB), 2);
      header.writeUInt32BE(0, 10);
      await new Promise<void>((r) =>
        s.write(Buffer.concat([header, Buffer.alloc(3 * MiB, 0x20)]), () => r()),
      );
      return { socket: s, closed };
    };
    const a = await partialFrame();
    const c2 = await partialFrame();
    await until(() => b.stats().bufferedBytes >= 6 * MiB);
    const c3 = await partialFrame();
    await c3.closed;
    const s = b.stats();
    expect(s.bufferDrops).toBe(1);
    expect(s.peakBufferedBytes).toBeLessThanOrEqual(8 * MiB + 64 * 1024);
    expect(a.socket.destroyed || c2.socket.destroyed).toBe(false);
    // Another client is still served.
    const ok = await RawClient.open(b.url, { token: TOKEN });
    expect((await ok.request('echo', ['served']))['result']).toEqual(['served']);
    ok.close();
    a.socket.destroy();
    c2.socket.destroy();
    await until(() => b.stats().bufferedBytes === 0);
  }, 30_000);
});

describe('max connections', () => {
  it('refuses clients beyond maxConnections with HTTP 503', async () => {
    const b = await bridgeWith({ maxConnections: 2 });
    const one = await RawClient.open(b.url, { token: TOKEN });
    const two = await RawClient.open(b.url, { token: TOKEN });
    await expect(RawClient.open(b.url, { token: TOKEN })).rejects.toMatchObject({ status: 503 });
    one.close();
    await until(() => b.stats().connectionsOpen === 1);
    const three = await RawClient.open(b.url, { token: TOKEN });
    expect((await three.request('echo', ['3']))['result']).toEqual(['3']);
    two.close();
    three.close();
  });
});

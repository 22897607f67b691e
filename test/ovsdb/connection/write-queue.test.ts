/**
 * The bound of the write queue: a peer that sends 1 MiB `echo` requests and
 * never reads the replies (a plain `net` server) used to make the client
 * queue every reply, without end. Now the connection is dropped with a
 * WriteQueueFullError once the queue would pass `maxWriteQueueBytes`
 * (checked with the connection's own counters, the peak of queued bytes),
 * while a server that reads keeps any amount of pipelined traffic; and the
 * database client reconnects after such a drop, as after any other.
 */

import * as net from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { StatusEvent } from '../../../src/client/client.js';
import { connectDatabase } from '../../../src/client/open.js';
import { connect } from '../../../src/ovsdb/connection/connect.js';
import { ConnectionClosedError, WriteQueueFullError } from '../../../src/ovsdb/wire/errors.js';
import { DEFAULT_MAX_WRITE_QUEUE_BYTES } from '../../../src/ovsdb/wire/rpc.js';
import { createServer, type OvsdbServer } from '../../../src/server/server.js';
import { requireOvsdbServer, startOvsdbServer } from '../../../src/testing/index.js';
import { TEST_MODEL } from '../../client/helpers/fixtures.js';
import { TEST_SCHEMA } from '../../helpers/server.js';

const MiB = 1024 * 1024;
/** An `echo` request of about 1 MiB. */
const BIG_ECHO = `{"method":"echo","params":["${'e'.repeat(MiB)}"],"id":"flood"}`;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A hostile server: never reads what a client sends and writes up to
 * `limit` 1 MiB `echo` requests to it (waiting for its own socket to drain).
 */
async function floodServer(limit: number): Promise<{ port: number; sent: () => number }> {
  let sent = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.pause(); // never read
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    const pump = (): void => {
      while (sent < limit && !socket.destroyed) {
        sent++;
        if (!socket.write(BIG_ECHO)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as net.AddressInfo).port, sent: () => sent };
}

describe('a server that floods the client with echo requests and never reads', () => {
  it('the connection is dropped once the queue would pass maxWriteQueueBytes', async () => {
    const flood = await floodServer(400);
    const limit = 8 * MiB;
    const conn = await connect(`tcp:127.0.0.1:${flood.port}`, { maxWriteQueueBytes: limit });
    const error = await conn.closed;
    expect(error).toBeInstanceOf(WriteQueueFullError);
    const e = error as WriteQueueFullError;
    expect(e.limit).toBe(limit);
    expect(e.queuedBytes).toBeGreaterThan(limit);
    expect(e.message).toMatch(/over the 8388608-byte bound of the write queue/);
    // The queue never held more than the bound, and it did fill up to near it.
    expect(conn.writeQueue.peakBytes).toBeLessThanOrEqual(limit);
    expect(conn.writeQueue.peakBytes).toBeGreaterThan(limit - 2 * MiB);
    expect(conn.writeQueue.bytes).toBe(0);
    // It gave up long before the flood ended.
    expect(flood.sent()).toBeLessThan(400);
    // Requests made afterwards fail at once, naming the reason.
    const late = await conn.echo('late').catch((x: unknown) => x);
    expect(late).toBeInstanceOf(ConnectionClosedError);
    expect((late as Error).message).toMatch(/write queue/);
  }, 30_000);

  it('the default bound is 64 MiB', async () => {
    expect(DEFAULT_MAX_WRITE_QUEUE_BYTES).toBe(64 * MiB);
    const flood = await floodServer(400);
    const conn = await connect(`tcp:127.0.0.1:${flood.port}`);
    const pending = conn.echo('pending').catch((x: unknown) => x);
    const error = await conn.closed;
    expect(error).toBeInstanceOf(WriteQueueFullError);
    expect((error as WriteQueueFullError).limit).toBe(DEFAULT_MAX_WRITE_QUEUE_BYTES);
    expect(conn.writeQueue.peakBytes).toBeLessThanOrEqual(DEFAULT_MAX_WRITE_QUEUE_BYTES);
    expect(conn.writeQueue.peakBytes).toBeGreaterThan(DEFAULT_MAX_WRITE_QUEUE_BYTES - 2 * MiB);
    expect(flood.sent()).toBeLessThan(400);
    // A request pending at the time fails with the reason as its cause.
    const p = (await pending) as ConnectionClosedError;
    expect(p).toBeInstanceOf(ConnectionClosedError);
    expect(p.cause).toBe(error);
  }, 60_000);

  it('one message larger than the bound may always wait; a second one may not', async () => {
    const flood = await floodServer(40);
    const conn = await connect(`tcp:127.0.0.1:${flood.port}`, { maxWriteQueueBytes: MiB / 2 });
    const error = await conn.closed;
    expect(error).toBeInstanceOf(WriteQueueFullError);
    // A single reply of 1 MiB waited alone, over the bound; the next one closed it.
    expect(conn.writeQueue.peakBytes).toBeGreaterThan(MiB);
    expect(conn.writeQueue.peakBytes).toBeLessThan(MiB + 1024);
  }, 30_000);

  it('rejects a bound that is not positive', async () => {
    const flood = await floodServer(0);
    await expect(connect(`tcp:127.0.0.1:${flood.port}`, { maxWriteQueueBytes: 0 })).rejects.toThrow(
      /maxWriteQueueBytes must be positive/,
    );
  });
});

describe('a server that reads', () => {
  it('takes 40 pipelined 1 MiB echo requests under the default bound: the queue drains as it reads', async () => {
    requireOvsdbServer(true);
    const real = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['unix'] });
    cleanups.push(() => real.stop());
    const conn = await connect(real.unixRemote);
    cleanups.push(() => conn.close());
    const payload = 'p'.repeat(MiB);
    const replies = await Promise.all(Array.from({ length: 40 }, () => conn.echo(payload)));
    expect(replies.every((r) => r[0] === payload)).toBe(true);
    expect(conn.isClosed).toBe(false);
    // Most of them waited in the queue at once, under the bound.
    expect(conn.writeQueue.peakBytes).toBeGreaterThan(30 * MiB);
    expect(conn.writeQueue.peakBytes).toBeLessThanOrEqual(DEFAULT_MAX_WRITE_QUEUE_BYTES);
    expect(conn.writeQueue.bytes).toBe(0);
  }, 60_000);
});

describe('the database client', () => {
  let server: OvsdbServer;

  afterAll(async () => {
    await server?.close();
  });

  it('drops a connection whose write queue is full, says why, and reconnects', async () => {
    server = await createServer({ databases: [TEST_SCHEMA], listen: ['ptcp:0:127.0.0.1'] });
    const upstream = server.addresses[0]?.port as number;
    // A proxy in front of the server; `attack()` turns the first connection
    // hostile: it stops reading the client and floods it with echo requests.
    const proxied: net.Socket[] = [];
    const proxy = net.createServer((client) => {
      client.on('error', () => undefined);
      const up = net.connect({ host: '127.0.0.1', port: upstream });
      up.on('error', () => undefined);
      client.pipe(up);
      up.pipe(client);
      client.on('close', () => up.destroy());
      up.on('close', () => client.destroy());
      proxied.push(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const s of proxied) s.destroy();
          proxy.close(() => resolve());
        }),
    );
    const port = (proxy.address() as net.AddressInfo).port;
    const events: StatusEvent[] = [];
    const client = connectDatabase({
      remotes: `tcp:127.0.0.1:${port}`,
      model: TEST_MODEL,
      maxWriteQueueBytes: 4 * MiB,
      probeIntervalMs: 0,
      backoff: { initialDelayMs: 50, maxDelayMs: 100 },
    });
    cleanups.push(() => client.close());
    client.onStatus((e) => {
      events.push(e);
    });
    await client.whenSynced();
    const victim = proxied[0] as net.Socket;
    victim.unpipe();
    victim.pause();
    let written = 0;
    const pump = (): void => {
      while (written < 200 && !victim.destroyed) {
        written++;
        if (!victim.write(BIG_ECHO)) {
          victim.once('drain', pump);
          return;
        }
      }
    };
    pump();
    const deadline = Date.now() + 20_000;
    // The first sync is `connected`, each reconnection `resynced`.
    const connects = (): number =>
      events.filter((e) => e.type === 'connected' || e.type === 'resynced').length;
    const before = connects();
    while (connects() === before) {
      if (Date.now() > deadline) throw new Error(`no reconnect: ${JSON.stringify(events)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const lost = events.find((e) => e.type === 'disconnected');
    if (lost === undefined) throw new Error(JSON.stringify(events.map((e) => [e.type, e.reason])));
    expect(lost?.reason).toMatch(/over the 4194304-byte bound of the write queue/);
    expect(lost?.error).toBeInstanceOf(WriteQueueFullError);
    expect(written).toBeLessThan(200);
    expect(proxied.length).toBeGreaterThanOrEqual(2);
    // The new connection works.
    await client.transactRaw([{ op: 'insert', table: 'Item', row: { name: 'after', n: 1 } }]);
    await client.whenSynced();
    await client.drained();
    expect([...client.rows('Item')].map((r) => r.name)).toContain('after');
  }, 60_000);
});

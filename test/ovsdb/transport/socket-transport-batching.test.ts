/**
 * The socket transport hands the messages written in one turn of the event
 * loop to the socket as one write, in order, and still reports back-pressure
 * and flushes on close.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SocketTransport } from '../../../src/ovsdb/transport/socket-transport.js';

interface Pair {
  readonly transport: SocketTransport;
  readonly socket: net.Socket;
  /** Socket writes the transport made. */
  readonly writes: string[];
  /** Everything the other end received. */
  readonly received: () => string;
  readonly otherEnd: net.Socket;
}

let dir: string;
let server: net.Server;
let pairs: Pair[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-batch-'));
  server = net.createServer();
  await new Promise<void>((r) => server.listen(join(dir, 's.sock'), r));
});

afterEach(async () => {
  for (const p of pairs) {
    p.socket.destroy();
    p.otherEnd.destroy();
  }
  pairs = [];
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

async function pair(): Promise<Pair> {
  const accepted = new Promise<net.Socket>((r) => server.once('connection', r));
  const socket = net.connect(join(dir, 's.sock'));
  await new Promise<void>((r) => socket.once('connect', () => r()));
  const otherEnd = await accepted;
  const chunks: Buffer[] = [];
  otherEnd.on('data', (c: Buffer) => chunks.push(c));
  const writes: string[] = [];
  const write = socket.write.bind(socket) as (chunk: string, enc: BufferEncoding) => boolean;
  socket.write = ((chunk: string, enc: BufferEncoding) => {
    writes.push(chunk);
    return write(chunk, enc);
  }) as typeof socket.write;
  const transport = new SocketTransport(socket, 'unix:test');
  transport.attach({ data: () => {}, message: () => {}, drain: () => {}, close: () => {} });
  const p = {
    transport,
    socket,
    writes,
    received: () => Buffer.concat(chunks).toString(),
    otherEnd,
  };
  pairs.push(p);
  return p;
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
}

describe('SocketTransport write batching', () => {
  it('sends the messages of one turn as one socket write, in order', async () => {
    const p = await pair();
    const messages = Array.from({ length: 50 }, (_, i) => `{"id":${i}}`);
    for (const m of messages) expect(p.transport.write(m)).toBe(true);
    expect(p.writes).toEqual([]); // nothing yet: the turn is not over
    await Promise.resolve();
    expect(p.writes).toEqual([messages.join('')]);
    await until(() => p.received().length === messages.join('').length);
    expect(p.received()).toBe(messages.join(''));
  });

  it('writes at once when a turn writes more than the high-water mark', async () => {
    const p = await pair();
    const big = `"${'x'.repeat(p.socket.writableHighWaterMark)}"`;
    p.transport.write('{"a":1}');
    p.transport.write(big);
    expect(p.writes).toEqual([`{"a":1}${big}`]);
    p.transport.write('{"b":2}');
    await Promise.resolve();
    expect(p.writes).toEqual([`{"a":1}${big}`, '{"b":2}']);
  });

  it('flushes what is pending before closing', async () => {
    const p = await pair();
    p.transport.write('{"last":1}');
    p.transport.close();
    expect(p.writes).toEqual(['{"last":1}']);
    await until(() => p.received() === '{"last":1}');
    expect(p.received()).toBe('{"last":1}');
    expect(p.transport.write('{"after":1}')).toBe(false);
  });

  it('counts pending messages in bufferedBytes', async () => {
    const p = await pair();
    p.transport.write('{"é":1}');
    expect(p.transport.bufferedBytes).toBeGreaterThanOrEqual(Buffer.byteLength('{"é":1}'));
  });
});

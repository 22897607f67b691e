/**
 * The two message limits of a connection (see `ovsdb/wire/limits.ts`):
 * `maxMessageBytes` bounds every message, `maxUnsolicitedBytes` one that
 * begins while no request is pending (a notification, a request from the
 * server). Over a byte stream (the framer cuts a message off as soon as it
 * crosses its limit) and over a message transport (a WebSocket).
 */

import { afterEach, describe, expect, it } from 'vitest';
import { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';
import { ConnectionClosedError, ProtocolError } from '../../../src/ovsdb/wire/errors.js';
import {
  DEFAULT_MAX_REPLY_BYTES,
  DEFAULT_MAX_UNSOLICITED_BYTES,
} from '../../../src/ovsdb/wire/limits.js';
import { JsonRpcPeer } from '../../../src/ovsdb/wire/rpc.js';
import { createMemoryPair, type MemoryTransport } from '../../helpers/memory-transport.js';

const opened: { close(): void }[] = [];
afterEach(() => {
  for (const c of opened.splice(0)) c.close();
});

/** A message of exactly `bytes` bytes: `{"id":…,"result":"xxx…","error":null}`. */
function reply(id: number, bytes: number): string {
  const head = `{"id":${id},"result":"`;
  const tail = '","error":null}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

/** An `update2` notification of exactly `bytes` bytes. */
function notification(bytes: number): string {
  const head = '{"id":null,"method":"update2","params":["m",{"T":{"u":{"insert":{"s":"';
  const tail = '"}}}}]}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

function open(
  kind: 'stream' | 'message',
  options: ConstructorParameters<typeof OvsdbConnection>[1],
): { conn: OvsdbConnection; server: MemoryTransport } {
  const [client, other] = createMemoryPair({ kind, chunkSize: 4096 });
  // The other end only collects what the client writes.
  other.attach({ data: () => {}, message: () => {}, drain: () => {}, close: () => {} });
  const conn = new OvsdbConnection(client, { onListenerError: () => {}, ...options });
  opened.push(conn);
  // What "the server" sends is injected into the client's end.
  return { conn, server: client };
}

function send(kind: 'stream' | 'message', server: MemoryTransport, text: string): void {
  if (kind === 'stream') server.injectBytes(text);
  else server.injectMessage(text);
}

describe.each(['stream', 'message'] as const)('over a %s transport', (kind) => {
  const limits = { maxMessageBytes: 100_000, maxUnsolicitedBytes: 10_000 };

  it('a reply larger than maxUnsolicitedBytes is accepted while its request is pending', async () => {
    const { conn, server } = open(kind, limits);
    const echo = conn.rpc.request('get_schema', ['X']);
    expect(conn.rpc.pendingRequests).toBe(1);
    send(kind, server, reply(0, 100_000));
    expect(((await echo) as string).length).toBeGreaterThan(99_000);
    expect(conn.rpc.pendingRequests).toBe(0);
    expect(conn.isClosed).toBe(false);
  });

  it('a reply over maxMessageBytes closes the connection', async () => {
    const { conn, server } = open(kind, limits);
    const pending = conn.rpc.request('get_schema', ['X']);
    send(kind, server, reply(0, 100_001));
    const e = await pending.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionClosedError);
    expect(((e as Error).cause as Error).message).toMatch(/exceeds the 100000-byte limit/);
    expect(await conn.closed).toBeInstanceOf(ProtocolError);
  });

  it('an unsolicited message over maxUnsolicitedBytes closes the connection', async () => {
    const { conn, server } = open(kind, limits);
    let updates = 0;
    conn.on('update2', () => updates++);
    send(kind, server, notification(10_000));
    expect(updates).toBe(1);
    send(kind, server, notification(10_001));
    const error = await conn.closed;
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error?.message).toMatch(/exceeds the 10000-byte limit/);
    expect(updates).toBe(1);
  });

  it('a notification arriving while a request is pending gets the larger limit', async () => {
    const { conn, server } = open(kind, limits);
    let updates = 0;
    conn.on('update2', () => updates++);
    const pending = conn.rpc.request('transact', ['X']);
    send(kind, server, notification(50_000));
    send(kind, server, reply(0, 100));
    await pending;
    expect(updates).toBe(1);
    expect(conn.isClosed).toBe(false);
  });

  it('maxUnsolicitedBytes is never above maxMessageBytes', async () => {
    const { conn, server } = open(kind, { maxMessageBytes: 1000, maxUnsolicitedBytes: 5000 });
    send(kind, server, notification(1001));
    expect((await conn.closed)?.message).toMatch(/exceeds the 1000-byte limit/);
  });
});

describe('defaults', () => {
  it('replies up to 1 GiB, unsolicited messages up to 64 MiB', () => {
    expect(DEFAULT_MAX_REPLY_BYTES).toBe(1024 * 1024 * 1024);
    expect(DEFAULT_MAX_UNSOLICITED_BYTES).toBe(64 * 1024 * 1024);
  });

  it('a 65 MiB notification closes a connection with default limits; a 65 MiB reply does not', async () => {
    const big = 65 * 1024 * 1024;
    const a = open('stream', {});
    const pending = a.conn.rpc.request('get_schema', ['X']);
    a.server.injectBytes(reply(0, big), 1 << 20);
    expect(((await pending) as string).length).toBeGreaterThan(big - 100);
    const b = open('stream', {});
    b.server.injectBytes(notification(big), 1 << 20);
    expect((await b.conn.closed)?.message).toMatch(/exceeds the 67108864-byte limit/);
  });

  it('JsonRpcPeer reports its pending requests', async () => {
    const [client, server] = createMemoryPair();
    const peer = new JsonRpcPeer(client);
    const other = new JsonRpcPeer(server, { onRequest: () => 'ok' });
    opened.push(peer, other);
    const p = peer.request('x', []);
    expect(peer.pendingRequests).toBe(1);
    await p;
    expect(peer.pendingRequests).toBe(0);
  });
});

/**
 * The in-memory server listening on WebSocket (`ws:127.0.0.1:0`): clients
 * connect with `connect(url)`, transact, monitor and get updates; each client
 * is its own session; closing the listener closes the clients with 1001.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connect } from '../../src/ovsdb/connect.js';
import { createServer, type OvsdbServer } from '../../src/ovsdb/server/server.js';
import {
  attachWebSocketListener,
  type WebSocketListener,
} from '../../src/ovsdb/server/ws-listener.js';
import type { TableUpdates2 } from '../../src/ovsdb/wire.js';
import { DB, nextEvent, TEST_SCHEMA } from '../helpers/server.js';
import { RawClient } from './helpers.js';

let server: OvsdbServer;
let listener: WebSocketListener;

beforeAll(async () => {
  server = await createServer({ databases: [TEST_SCHEMA] });
  listener = await attachWebSocketListener(server, 'ws:127.0.0.1:0');
});

afterAll(async () => {
  await listener?.close();
  await server?.close();
});

describe('the in-memory server over ws', () => {
  it('listens on the bound port and serves list_dbs, transact and monitors', async () => {
    expect(listener.url).toBe(`ws://127.0.0.1:${listener.port}/`);
    expect(listener.port).toBeGreaterThan(0);
    const a = await connect(listener.url);
    const b = await connect(listener.url);
    expect([...(await a.listDbs())].sort()).toEqual([DB, '_Server']);
    const initial = await a.monitorCond(DB, 'm', { Item: { columns: ['name', 'n'] } });
    expect(initial).toEqual({});
    const update = nextEvent(a, 'update2');
    const [ins] = await b.transact(DB, [
      { op: 'insert', table: 'Item', row: { name: 'over-ws', n: 5 } },
    ]);
    const uuid = (ins as { uuid: [string, string] }).uuid[1];
    const [id, updates] = (await update) as [unknown, TableUpdates2];
    expect(id).toBe('m');
    expect(updates).toEqual({ Item: { [uuid]: { insert: { name: 'over-ws', n: 5 } } } });
    a.close();
    b.close();
  });

  it('gives each client its own session (locks)', async () => {
    const a = await connect(listener.url);
    const b = await connect(listener.url);
    expect(await a.lock('ws_lock')).toBe(true);
    expect(await b.lock('ws_lock')).toBe(false);
    const locked = nextEvent(b, 'locked');
    a.close();
    expect(await locked).toEqual(['ws_lock']);
    b.close();
  });

  it('refuses binary frames with 1003', async () => {
    const client = await RawClient.open(listener.url);
    client.sendRaw(Buffer.from('{"method":"list_dbs","params":[],"id":1}'), true);
    expect((await client.closed).code).toBe(1003);
  });

  it('with tokens, refuses a client without one (1008)', async () => {
    const guarded = await attachWebSocketListener(server, 'ws://127.0.0.1:0/db', {
      tokens: ['s3'],
    });
    try {
      const bad = await RawClient.open(guarded.url);
      expect(await bad.closed).toEqual({ code: 1008, reason: 'unauthorized: missing token' });
      const good = await connect(guarded.url, { token: 's3' });
      expect(await good.echo('ok')).toEqual(['ok']);
      good.close();
    } finally {
      await guarded.close();
    }
  });

  it('refuses a listener without tokens on a non-loopback address', async () => {
    await expect(attachWebSocketListener(server, 'ws:0.0.0.0:0')).rejects.toThrow(
      /only listen on a loopback address/,
    );
  });

  it('closing the listener closes its clients with 1001', async () => {
    const own = await attachWebSocketListener(server, 'ws:127.0.0.1:0');
    const ws = new WebSocket(own.url);
    await new Promise((resolve) => ws.once('open', resolve));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    await own.close();
    expect(await closed).toBe(1001);
  });
});

/**
 * The in-memory server listening on WebSocket (`ws:127.0.0.1:0`): clients
 * connect with `connect(url)`, transact, monitor and get updates; each client
 * is its own session; closing the listener closes the clients with 1001.
 * The same through `createServer({ listen: ['ws:…'] })` (a database client
 * syncs its replica and transacts; `wss:` with the tls option) and through
 * `ovnkit-server --listen ws:…`.
 */

import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectDatabase } from '../../src/client/open.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { defineModel } from '../../src/ovsdb/schema/model.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import type { Operation, TableUpdates2 } from '../../src/ovsdb/wire/wire.js';
import {
  attachWebSocketListener,
  type WebSocketListener,
} from '../../src/server/listeners/ws-listener.js';
import { createServer, type OvsdbServer } from '../../src/server/server.js';
import { createPki, readClientTls, requireOvsdbServer } from '../../src/testing/index.js';
import { HttpRefusal, RawClient } from '../bridge/helpers.js';
import { DB, nextEvent, sleep, TEST_SCHEMA, unique } from '../helpers/server.js';

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

  it('reads and writes integers beyond ±(2^53−1) exactly in text frames', async () => {
    const ws = new WebSocket(listener.url, { perMessageDeflate: false });
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    const replies: string[] = [];
    ws.on('message', (d: Buffer) => replies.push(d.toString()));
    const next = async (n: number): Promise<string> => {
      for (let i = 0; i < 200 && replies.length < n; i++) await sleep(10);
      return replies[n - 1] as string;
    };
    ws.send(
      '{"method":"echo","params":[9223372036854775807,-9223372036854775808],"id":9007199254740993}',
    );
    expect(await next(1)).toBe(
      '{"id":9007199254740993,"result":[9223372036854775807,-9223372036854775808],"error":null}',
    );
    const name = unique('int64');
    ws.send(
      `{"method":"transact","params":["${DB}",{"op":"insert","table":"Item","row":{"name":"${name}","n":-9223372036854775808}},{"op":"mutate","table":"Item","where":[["name","==","${name}"]],"mutations":[["n","+=",9007199254740993]]},{"op":"select","table":"Item","where":[["n","<",-9007199254740993]],"columns":["n"]}],"id":2}`,
    );
    expect(await next(2)).toMatch(
      /,\{"count":1\},\{"rows":\[\{"n":-9214364837600034815\}\]\}\],"error":null\}$/,
    );
    ws.close();
  });

  it('sends a long update as one message of several frames', async () => {
    // Over 16 Mi characters, a message is made in pieces: one frame each, one message.
    const a = await connect(listener.url);
    const b = await connect(listener.url);
    await a.monitorCond(DB, 'long', { Item: { columns: ['name'] } });
    const update = nextEvent(a, 'update2');
    const name = `long-${'é😀x'.repeat(4_500_000)}`;
    const [ins] = await b.transact(DB, [{ op: 'insert', table: 'Item', row: { name } }]);
    const uuid = (ins as { uuid: [string, string] }).uuid[1];
    const [id, updates] = (await update) as [unknown, TableUpdates2];
    expect(id).toBe('long');
    expect(updates).toEqual({ Item: { [uuid]: { insert: { name } } } });
    a.close();
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

  it('refuses browser pages of other origins with 403, unless listed', async () => {
    const page = 'http://127.0.0.1:1/';
    await expect(
      RawClient.open(listener.url, { headers: { Origin: 'http://127.0.0.1:1' } }),
    ).rejects.toEqual(new HttpRefusal(403));
    const listed = await attachWebSocketListener(server, 'ws:127.0.0.1:0', {
      allowOrigins: [page],
    });
    try {
      const ok = await RawClient.open(listed.url, { headers: { Origin: 'http://127.0.0.1:1' } });
      expect((await ok.request('echo', ['listed']))['result']).toEqual(['listed']);
      ok.close();
      await expect(
        RawClient.open(listed.url, { headers: { Origin: 'https://elsewhere.example' } }),
      ).rejects.toEqual(new HttpRefusal(403));
    } finally {
      await listed.close();
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

describe('createServer({ listen: ["ws:…"] })', () => {
  it('listens on ws, reports the bound port, and serves a database client', async () => {
    const s = await createServer({
      databases: [TEST_SCHEMA],
      listen: ['ws:127.0.0.1:0', 'ws://127.0.0.1:0/ovsdb'],
    });
    const writer = await connect(s.remotes[0] as string);
    const client = connectDatabase({
      remotes: s.remotes[1] as string,
      model: defineModel(parseSchema(TEST_SCHEMA)),
    });
    try {
      const [plain, withPath] = s.addresses;
      expect(plain).toMatchObject({ remote: 'ws:127.0.0.1:0', kind: 'ws', host: '127.0.0.1' });
      expect(plain?.port).toBeGreaterThan(0);
      expect(plain?.client).toBe(`ws://127.0.0.1:${plain?.port}/`);
      expect(withPath?.client).toBe(`ws://127.0.0.1:${withPath?.port}/ovsdb`);
      expect(s.remotes).toEqual([plain?.client, withPath?.client]);
      expect(s.readLog()).toContain(`ws:127.0.0.1:0: listening on port ${plain?.port}`);

      const before = unique('ws-before');
      await writer.transact(DB, [
        { op: 'insert', table: 'Item', row: { name: before, n: 1 } } as Operation,
      ]);
      await client.ready;
      const names = () =>
        [...client.rows('Item')].map((r) => (r as Record<string, unknown>)['name']);
      expect(names()).toContain(before);

      const later = unique('ws-later');
      await writer.transact(DB, [
        { op: 'insert', table: 'Item', row: { name: later, n: 2 } } as Operation,
      ]);
      for (let i = 0; i < 100 && !names().includes(later); i++) await sleep(20);
      expect(names()).toContain(later);

      const mine = unique('ws-mine');
      const [result] = await client.transactRaw([
        { op: 'insert', table: 'Item', row: { name: mine, n: 3 } } as Operation,
      ]);
      expect(result).toMatchObject({ uuid: ['uuid', expect.any(String)] });
      expect(names()).toContain(mine);
      const [rows] = await writer.transact(DB, [
        { op: 'select', table: 'Item', where: [['name', '==', mine]], columns: ['n'] },
      ]);
      expect(rows).toEqual({ rows: [{ n: 3 }] });
      expect(s.sessionCount).toBe(2);
    } finally {
      await client.close();
      writer.close();
      await s.close();
    }
  });

  it('closing the server closes its ws clients and stops listening', async () => {
    const s = await createServer({ databases: [TEST_SCHEMA], listen: ['ws:127.0.0.1:0'] });
    const url = s.remotes[0] as string;
    const ws = new WebSocket(url);
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    await s.close();
    expect([1000, 1001]).toContain(await closed);
    await expect(connect(url, { timeoutMs: 2000 })).rejects.toThrow();
  });

  it('refuses wss: without the tls option and ws: on a non-loopback address', async () => {
    await expect(
      createServer({ databases: [TEST_SCHEMA], listen: ['wss:127.0.0.1:0'] }),
    ).rejects.toThrow(/wss:127\.0\.0\.1:0: a wss: listener needs the tls option/);
    await expect(
      createServer({ databases: [TEST_SCHEMA], listen: ['ws:0.0.0.0:0'] }),
    ).rejects.toThrow(/only listen on a loopback address/);
    await expect(
      createServer({ databases: [TEST_SCHEMA], listen: ['ws:127.0.0.1:99999'] }),
    ).rejects.toThrow(/out of range/);
  });

  it('serves wss: with the certificate and key of the tls option', async () => {
    requireOvsdbServer(true);
    const dir = await mkdtemp(join(tmpdir(), 'ovnkit-wss-mem-'));
    try {
      const pki = await createPki(dir, { unrelatedCa: false });
      const [key, cert, ca] = await Promise.all([
        readFile(pki.server.privateKey, 'utf8'),
        readFile(pki.server.certificate, 'utf8'),
        readFile(pki.caCert, 'utf8'),
      ]);
      const s = await createServer({
        databases: [TEST_SCHEMA],
        listen: ['wss:127.0.0.1:0'],
        tls: { key, cert, ca },
      });
      try {
        const [address] = s.addresses;
        expect(address?.kind).toBe('wss');
        expect(address?.client).toBe(`wss://127.0.0.1:${address?.port}/`);
        const conn = await connect(address?.client as string, {
          tls: await readClientTls(pki, { credential: null }),
        });
        expect([...(await conn.listDbs())].sort()).toEqual([DB, '_Server']);
        conn.close();
      } finally {
        await s.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('ovnkit-server --listen ws:', () => {
  it('prints the ws URL it listens on and serves it', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(root, 'src/server/program/cli.ts'),
        '--schema',
        join(root, 'schema/ovn-nb-7.18.0.ovsschema'),
        '--listen',
        'ws:127.0.0.1:0',
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (t: string) => {
      out += t;
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      for (let i = 0; i < 400 && !out.includes('\n'); i++) await sleep(50);
      const m = /^listening on (ws:\/\/127\.0\.0\.1:(\d+)\/)\n$/.exec(out);
      expect(m).not.toBeNull();
      expect(Number(m?.[2])).toBeGreaterThan(0);
      const conn = await connect(m?.[1] as string);
      const [r] = await conn.transact('OVN_Northbound', [
        { op: 'insert', table: 'Logical_Switch', row: { name: 'sw-ws' } },
      ]);
      expect(r).toMatchObject({ uuid: ['uuid', expect.any(String)] });
      conn.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 30_000);
});

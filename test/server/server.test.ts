/**
 * The in-memory server's own API: `createServer`, listeners and remotes,
 * in-process connections, adding and removing databases, closing.
 */

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import { RemoteSyntaxError } from '../../src/ovsdb/transport/remote.js';
import { ConnectionClosedError, RpcError } from '../../src/ovsdb/wire/errors.js';
import { createServer, Database, type OvsdbServer } from '../../src/server/core-index.js';
import { DB, nextEvent, TEST_SCHEMA } from '../helpers/server.js';

let dir: string;
const servers: OvsdbServer[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-memsrv-'));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

async function start(listen: string[] = []): Promise<OvsdbServer> {
  const s = await createServer({ databases: [TEST_SCHEMA], listen });
  servers.push(s);
  return s;
}

describe('createServer', () => {
  it('listens on punix and ptcp port 0 and reports the client remotes and bound ports', async () => {
    const sock = join(dir, 'a.sock');
    const s = await start([`punix:${sock}`, 'ptcp:0:127.0.0.1']);
    const [unix, tcp] = s.addresses;
    expect(unix).toEqual({
      remote: `punix:${sock}`,
      kind: 'punix',
      client: `unix:${sock}`,
      path: sock,
    });
    expect(tcp?.kind).toBe('ptcp');
    expect(tcp?.port).toBeGreaterThan(0);
    expect(tcp?.client).toBe(`tcp:127.0.0.1:${tcp?.port}`);
    expect(s.remotes).toEqual([`unix:${sock}`, `tcp:127.0.0.1:${tcp?.port}`]);
    for (const remote of s.remotes) {
      const conn = await connect(remote);
      expect(await conn.listDbs()).toEqual([DB, '_Server']);
      conn.close();
    }
  });

  it('a listener added later works too; the log records the listeners', async () => {
    const s = await start();
    expect(s.remotes).toEqual([]);
    const a = await s.listen('ptcp:0:127.0.0.1');
    const conn = await connect(a.client);
    expect(await conn.getServerId()).toBe(s.serverId);
    conn.close();
    expect(s.readLog()).toMatch(/socket_util\|INFO\|ptcp:0:127\.0\.0\.1: listening on port \d+/);
  });

  it('rejects passive remotes it cannot parse and pssl without certificates', async () => {
    await expect(
      createServer({ databases: [TEST_SCHEMA], listen: ['tcp:127.0.0.1:1'] }),
    ).rejects.toBeInstanceOf(RemoteSyntaxError);
    const s = await start();
    await expect(s.listen('pssl:0:127.0.0.1')).rejects.toThrow(/needs the tls option/);
  });

  it('refuses two databases of the same name, and a database named _Server', async () => {
    await expect(createServer({ databases: [TEST_SCHEMA, TEST_SCHEMA] })).rejects.toThrow(
      /already served/,
    );
    await expect(
      createServer({
        databases: [
          {
            name: '_Server',
            version: '1.0.0',
            tables: { T: { columns: { a: { type: 'integer' } } } },
          },
        ],
      }),
    ).rejects.toThrow(/already served/);
  });

  it('serves a given Database engine with its contents', async () => {
    const db = new Database(parseSchema(TEST_SCHEMA));
    db.transact([{ op: 'insert', table: 'Item', row: { name: 'pre', n: 7 } }]);
    const s = await createServer({ databases: [db] });
    servers.push(s);
    expect(s.database(DB)).toBe(db);
    const conn = new OvsdbConnection(s.connectInProcess());
    const [sel] = await conn.transact(DB, [
      { op: 'select', table: 'Item', where: [], columns: ['name', 'n'] },
    ]);
    expect(sel).toEqual({ rows: [{ name: 'pre', n: 7 }] });
    conn.close();
  });
});

describe('in-process connections', () => {
  it('speak the same protocol as sockets, updates before replies', async () => {
    const s = await start();
    const conn = new OvsdbConnection(s.connectInProcess());
    expect(conn.description).toMatch(/^inprocess#\d+$/);
    expect(await conn.echo('a', 1)).toEqual(['a', 1]);
    const initial = await conn.monitorCond(DB, 'm', { Item: { columns: ['name'] } });
    expect(initial).toEqual({});
    const seen: unknown[] = [];
    conn.on('update2', (_id, u) => seen.push(u));
    const [ins] = await conn.transact(DB, [{ op: 'insert', table: 'Item', row: { name: 'x' } }]);
    // The update was delivered before the reply resolved the promise.
    const uuid = (ins as { uuid: [string, string] }).uuid[1];
    expect(seen).toEqual([{ Item: { [uuid]: { insert: { name: 'x' } } } }]);
    conn.close();
  });

  it('pause holds the server messages until resume', async () => {
    const s = await start();
    const transport = s.connectInProcess();
    const conn = new OvsdbConnection(transport);
    await conn.listDbs();
    transport.pause();
    let answered = false;
    const p = conn.echo('held').then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(answered).toBe(false);
    transport.resume();
    expect(await p).toEqual(['held']);
    conn.close();
  });

  it('a session the server closes sees a close; the server forgets it', async () => {
    const s = await start();
    const transport = s.connectInProcess();
    const received: string[] = [];
    const closed = new Promise<Error | undefined>((resolve) => {
      transport.attach({
        data: () => undefined,
        message: (t) => received.push(t),
        drain: () => undefined,
        close: (e) => resolve(e),
      });
    });
    transport.write('{"method":"list_dbs","params":[],"id":1}');
    await new Promise((r) => setTimeout(r, 10));
    expect(s.sessionCount).toBe(1);
    // A reply the server did not ask for makes it drop the session.
    transport.write('{"id":5,"result":[]}');
    expect(await closed).toBeUndefined();
    expect(received).toEqual(['{"id":1,"result":["Test","_Server"],"error":null}']);
    expect(s.sessionCount).toBe(0);
    expect(s.readLog()).toMatch(/inprocess#\d+: received unexpected reply message/);
  });
});

describe('adding and removing databases', () => {
  it('removeDatabase cancels monitors and disconnects unaware sessions; addDatabase serves it again', async () => {
    const s = await start();
    const aware = new OvsdbConnection(s.connectInProcess());
    const unaware = new OvsdbConnection(s.connectInProcess());
    await aware.setDbChangeAware(true);
    await aware.monitorCond(DB, 'm', { Item: {} });
    await unaware.listDbs();
    const canceled = nextEvent(aware, 'monitorCanceled');
    const gone = nextEvent(unaware, 'close');
    const db = s.removeDatabase(DB);
    expect(db).toBeInstanceOf(Database);
    expect(await canceled).toEqual(['m']);
    await gone;
    expect(await aware.listDbs()).toEqual(['_Server']);
    const err = await aware.getSchema(DB).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(s.removeDatabase(DB)).toBeUndefined();
    expect(s.removeDatabase('_Server')).toBeUndefined();
    s.addDatabase(db as Database);
    expect(await aware.listDbs()).toEqual([DB, '_Server']);
    expect(s.readLog()).toContain(`disconnecting (removing ${DB} database by user request)`);
    expect(() => s.addDatabase(TEST_SCHEMA)).toThrow(/already served/);
    aware.close();
  });
});

describe('close and abort', () => {
  it('close ends every session, stops listening and removes the socket file', async () => {
    const sock = join(dir, 'c.sock');
    const s = await createServer({ databases: [TEST_SCHEMA], listen: [`punix:${sock}`] });
    const conn = await connect(`unix:${sock}`);
    await conn.listDbs();
    const closed = nextEvent(conn, 'close');
    await s.close();
    const [error] = await closed;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(existsSync(sock)).toBe(false);
    await expect(connect(`unix:${sock}`)).rejects.toBeInstanceOf(ConnectionClosedError);
    await s.close(); // idempotent
  });

  it('abort drops tcp connections at once', async () => {
    const s = await createServer({ databases: [TEST_SCHEMA], listen: ['ptcp:0:127.0.0.1'] });
    const conn = await connect(s.remotes[0] as string);
    await conn.listDbs();
    const closed = nextEvent(conn, 'close');
    await s.abort();
    const [error] = await closed;
    expect(error).toBeInstanceOf(Error);
    expect(conn.isClosed).toBe(true);
  });
});

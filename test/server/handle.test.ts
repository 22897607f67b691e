/**
 * `startMemoryServer` (`ovnkit/testing`): the same handle as the real-server
 * harness, so suites run against either — remotes, stop, restart keeping
 * data, kill, the real `ovsdb-client` against it, the emulated `appctl`.
 */

import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import { ConnectionClosedError } from '../../src/ovsdb/wire/errors.js';
import { startMemoryServer } from '../../src/testing/index.js';
import { DB, nextEvent, TEST_SCHEMA } from '../helpers/server.js';

const NB = new URL('../../schema/ovn-nb-7.18.0.ovsschema', import.meta.url).pathname;

describe('startMemoryServer', () => {
  it('starts from a schema file, unix only by default, and stops cleanly', async () => {
    const server = await startMemoryServer({ schemaPath: NB });
    try {
      expect(server.dbName).toBe('OVN_Northbound');
      expect(server.clustered).toBe(false);
      expect(Object.keys(server.remotes)).toEqual(['unix']);
      expect(server.remotes.unix).toBe(server.unixRemote);
      expect(server.running).toBe(true);
      expect(server.pid).toBe(process.pid);
      const conn = await connect(server.unixRemote);
      expect(await conn.listDbs()).toEqual(['OVN_Northbound', '_Server']);
      conn.close();
    } finally {
      await server.stop();
    }
    expect(server.running).toBe(false);
    expect(existsSync(server.dir)).toBe(false);
    await server.stop(); // idempotent
    await expect(server.restart()).rejects.toThrow(/was stopped/);
  });

  it('accepts a parsed schema and serves it as ovsdb-server writes it back', async () => {
    const server = await startMemoryServer({ schema: parseSchema(TEST_SCHEMA), remotes: ['tcp'] });
    try {
      expect(server.remotes.unix).toBeUndefined();
      expect(server.remotes.tcp).toMatch(/^tcp:127\.0\.0\.1:\d+$/);
      const conn = await connect(server.remotes.tcp as string);
      expect(await conn.getSchema(DB)).toEqual(TEST_SCHEMA);
      conn.close();
    } finally {
      await server.stop();
    }
  });

  it('restart keeps the data and the ports, gives a new server id, and drops connections', async () => {
    const server = await startMemoryServer({ schema: TEST_SCHEMA, remotes: ['unix', 'tcp'] });
    try {
      const conn = await connect(server.remotes.tcp as string);
      await conn.transact(DB, [{ op: 'insert', table: 'Item', row: { name: 'kept', n: 1 } }]);
      const id = await conn.getServerId();
      const remotes = { ...server.remotes };
      const closed = nextEvent(conn, 'close');
      await server.restart();
      const [error] = await closed;
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect(server.remotes).toEqual(remotes);
      const again = await connect(server.remotes.tcp as string);
      const [sel] = await again.transact(DB, [
        { op: 'select', table: 'Item', where: [['name', '==', 'kept']], columns: ['n'] },
      ]);
      expect(sel).toEqual({ rows: [{ n: 1 }] });
      expect(await again.getServerId()).not.toBe(id);
      again.close();
    } finally {
      await server.stop();
    }
  });

  it('kill drops every connection at once; restart recovers the committed data', async () => {
    const server = await startMemoryServer({ schema: TEST_SCHEMA, remotes: ['tcp'] });
    try {
      const conn = await connect(server.remotes.tcp as string);
      await conn.transact(DB, [{ op: 'insert', table: 'Item', row: { name: 'durable', n: 2 } }]);
      const closed = nextEvent(conn, 'close');
      await server.kill();
      const [error] = await closed;
      expect(error).toBeInstanceOf(Error);
      expect(server.running).toBe(false);
      expect(server.pid).toBe(-1);
      await expect(connect(server.remotes.tcp as string)).rejects.toBeInstanceOf(
        ConnectionClosedError,
      );
      await server.restart();
      const again = await connect(server.remotes.tcp as string);
      const [sel] = await again.transact(DB, [
        { op: 'select', table: 'Item', where: [['name', '==', 'durable']], columns: ['n'] },
      ]);
      expect(sel).toEqual({ rows: [{ n: 2 }] });
      again.close();
    } finally {
      await server.stop();
    }
  });

  it('ovsdbClient runs the real ovsdb-client against it', async () => {
    const server = await startMemoryServer({ schema: TEST_SCHEMA });
    try {
      const out = await server.ovsdbClient(
        'transact',
        JSON.stringify([DB, { op: 'insert', table: 'Item', row: { name: 'via-client', n: 3 } }]),
      );
      expect(JSON.parse(out)[0].uuid[0]).toBe('uuid');
      const dump = await server.ovsdbClient('--format=json', 'dump', DB, 'Item');
      expect(JSON.stringify(JSON.parse(dump))).toContain('via-client');
      expect((await server.ovsdbClient('list-dbs')).split('\n')).toContain(DB);
    } finally {
      await server.stop();
    }
  });

  it('appctl emulates list-dbs, remove-db, add-db, list-remotes and add-remote', async () => {
    const server = await startMemoryServer({ schema: TEST_SCHEMA });
    try {
      expect(await server.appctl('ovsdb-server/list-dbs')).toBe(`${DB}\n_Server\n`);
      await server.appctl('ovsdb-server/remove-db', DB);
      expect(await server.appctl('ovsdb-server/list-dbs')).toBe('_Server\n');
      await expect(server.appctl('ovsdb-server/remove-db', DB)).rejects.toThrow(/no database/);
      await expect(server.appctl('ovsdb-server/add-db', '/elsewhere.db')).rejects.toThrow(
        /removed database/,
      );
      await server.appctl('ovsdb-server/add-db', server.dbPath);
      expect(await server.appctl('ovsdb-server/list-dbs')).toBe(`${DB}\n_Server\n`);
      await server.appctl('ovsdb-server/add-remote', 'ptcp:0:127.0.0.1');
      expect(await server.appctl('ovsdb-server/list-remotes')).toMatch(
        /^ptcp:0:127\.0\.0\.1\npunix:/,
      );
      await expect(server.appctl('exit')).rejects.toThrow(/not one of the commands/);
      expect(await server.readLog()).toMatch(/ptcp:0:127\.0\.0\.1: listening on port \d+/);
    } finally {
      await server.stop();
    }
  });

  it('refuses clustered databases and a missing schema', async () => {
    await expect(startMemoryServer({ schema: TEST_SCHEMA, clustered: true })).rejects.toThrow(
      /standalone databases only/,
    );
    await expect(startMemoryServer({})).rejects.toThrow(/give `schema` or `schemaPath`/);
  });
});

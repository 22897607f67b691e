/**
 * The server's hooks for tests that simulate what only several processes
 * show: `accept` (serve a connection the caller made), `serverView` (a
 * session reads its own `_Server` database, whose rows change on demand and
 * reach its `_Server` monitors), and `forgetHistory` (`monitor_cond_since`
 * answers `found: false` afterwards).
 */

import { afterEach, describe, expect, it } from 'vitest';
import { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { createServer, type OvsdbServer } from '../../src/server/core-index.js';
import { createInProcessPair } from '../../src/server/listeners/in-process-transport.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';

let server: OvsdbServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const REQ = {
  Database: {
    columns: ['name', 'model', 'leader', 'connected', 'index'],
    where: [['name', '==', DB]],
  },
} as const;

describe('serverView and accept', () => {
  it('a session accepted with a view reads its own _Server rows; a change reaches its monitors only', async () => {
    server = await createServer({ databases: [TEST_SCHEMA] });
    const view = server.serverView();
    const { client, server: end } = createInProcessPair();
    server.accept(end, view);
    const member = new OvsdbConnection(client);
    const plain = new OvsdbConnection(server.connectInProcess());
    const seen: unknown[] = [];
    const others: unknown[] = [];
    member.on('update2', (_id, u) => seen.push(u));
    plain.on('update2', (_id, u) => others.push(u));
    const initial = await member.monitorCond('_Server', 'm', REQ as never);
    expect(Object.values(initial['Database'] ?? {})[0]).toEqual({
      initial: { name: DB, model: 'standalone', leader: true, connected: true },
    });
    await plain.monitorCond('_Server', 'm', REQ as never);
    view.set(DB, { model: 'clustered', leader: false, index: 7 });
    await member.echo();
    await plain.echo();
    expect(seen).toHaveLength(1);
    expect(
      Object.values((seen[0] as Record<string, Record<string, unknown>>)['Database'] ?? {})[0],
    ).toEqual({
      modify: { model: 'clustered', leader: false, index: 7 },
    });
    expect(others).toEqual([]);
    // Setting what a row already holds changes nothing.
    view.set(DB, { leader: false });
    await member.echo();
    expect(seen).toHaveLength(1);
    expect(() => view.set('nope', { leader: true })).toThrow(
      '_Server has no row for database nope',
    );
    member.close();
    plain.close();
  });
});

describe('forgetHistory', () => {
  it('makes monitor_cond_since answer found: false from an id it knew', async () => {
    server = await createServer({ databases: [TEST_SCHEMA] });
    const conn = new OvsdbConnection(server.connectInProcess());
    await conn.transact(DB, [
      { op: 'insert', table: 'Item', row: { name: 'a', n: 1 } } as Operation,
    ]);
    const first = await conn.monitorCondSince(DB, 'a', { Item: { columns: ['name'] } });
    const again = await conn.monitorCondSince(
      DB,
      'b',
      { Item: { columns: ['name'] } },
      first.lastTxnId,
    );
    expect(again.found).toBe(true);
    server.forgetHistory(DB);
    const after = await conn.monitorCondSince(
      DB,
      'c',
      { Item: { columns: ['name'] } },
      first.lastTxnId,
    );
    expect(after.found).toBe(false);
    expect(Object.keys(after.updates['Item'] ?? {})).toHaveLength(1);
    conn.close();
  });
});

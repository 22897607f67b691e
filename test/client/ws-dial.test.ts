/**
 * `dialWebSocket`: the database client (`connectDatabase`) over `ws:` through
 * the bridge, with the token in the URL: it syncs its replica, sees changes
 * made elsewhere, and its own transactions round-trip.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bridge, startBridge } from '../../src/bridge/bridge.js';
import { connectDatabase } from '../../src/client/open.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { defineModel } from '../../src/ovsdb/schema/model.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import { dialWebSocket } from '../../src/ovsdb/transport/connect-ws.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { DB, sleep, TEST_SCHEMA, unique } from '../helpers/server.js';

const TOKEN = 'dial-token';
let server: OvsdbServerHandle;
let bridge: Bridge;
let writer: OvsdbConnection;

beforeAll(async () => {
  requireOvsdbServer(true);
  server = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['unix'] });
  bridge = await startBridge({
    listen: 'ws://127.0.0.1:0/ovsdb',
    remote: server.unixRemote,
    tokens: [TOKEN],
  });
  writer = await connect(server.unixRemote);
});

afterAll(async () => {
  writer?.close();
  await bridge?.close();
  await server?.stop();
});

describe('connectDatabase with dialWebSocket', () => {
  it('syncs through the bridge, follows changes, and transacts', async () => {
    const name = unique('dial');
    await writer.transact(DB, [{ op: 'insert', table: 'Item', row: { name, n: 1 } } as Operation]);
    const client = connectDatabase({
      remotes: `${bridge.url}?token=${TOKEN}`,
      model: defineModel(parseSchema(TEST_SCHEMA)),
      dial: dialWebSocket,
    });
    try {
      await client.ready;
      const names = () =>
        [...client.rows('Item')].map((r) => (r as Record<string, unknown>)['name']);
      expect(names()).toContain(name);
      const other = unique('dial-other');
      await writer.transact(DB, [
        { op: 'insert', table: 'Item', row: { name: other, n: 2 } } as Operation,
      ]);
      for (let i = 0; i < 100 && !names().includes(other); i++) await sleep(20);
      expect(names()).toContain(other);
      const mine = unique('dial-mine');
      const [result] = await client.transactRaw([
        { op: 'insert', table: 'Item', row: { name: mine, n: 3 } } as Operation,
      ]);
      expect(result).toMatchObject({ uuid: ['uuid', expect.any(String)] });
      expect(names()).toContain(mine);
      expect(bridge.stats().upstreamConnects).toBeGreaterThanOrEqual(1);
    } finally {
      await client.close();
    }
  });
});

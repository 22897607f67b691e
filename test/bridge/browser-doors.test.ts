/**
 * The browser entry's doors, `openDatabase` and `connect`, over a real
 * bridge in front of a real ovsdb-server. They run here in Node with the
 * `ws` package standing in for the browser's `WebSocket` (the code path is
 * the browser's: `ovnkit/browser` opens WebSocket remotes only);
 * `browser-bundle.test.ts` shows the entry bundles for browsers, and
 * `browser.test.ts` runs the example page in Chromium.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Bridge, startBridge } from '../../src/bridge/bridge.js';
import { connect, openDatabase, type WebSocketConstructor } from '../../src/browser.js';
import { NB } from '../../src/nb/generated/model.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';

const TOKEN = 'browser-doors-token-7a2c';
const WS = WebSocket as unknown as WebSocketConstructor;

let server: OvsdbServerHandle;
let bridge: Bridge;

beforeAll(async () => {
  requireOvsdbServer(true);
  server = await startOvsdbServer({ schemaPath: 'schema/ovn-nb-7.18.0.ovsschema' });
  bridge = await startBridge({
    listen: 'ws://127.0.0.1:0/ovsdb',
    remote: server.unixRemote,
    tokens: [TOKEN],
    policy: { allowDbs: ['OVN_Northbound', '_Server'] },
  });
}, 60_000);

afterAll(async () => {
  await bridge?.close();
  await server?.stop();
});

describe('ovnkit/browser', () => {
  it('openDatabase: the handle in sync through the bridge, typed transactions, the replica', async () => {
    const db = await openDatabase({
      remotes: bridge.url,
      model: NB,
      token: TOKEN,
      WebSocket: WS,
      tables: { Logical_Switch: true, Logical_Switch_Port: true },
    });
    try {
      const { value: sw } = await db.transact((tx) => {
        const port = tx.insert('Logical_Switch_Port', { name: 'browser-p1' });
        return tx.insert('Logical_Switch', { name: 'browser-sw', ports: [port] });
      });
      // Read-your-writes: the replica shows the transaction once it resolves.
      expect(db.get('Logical_Switch', sw)?.name).toBe('browser-sw');
      expect(db.lookup('Logical_Switch_Port', { name: 'browser-p1' })?.name).toBe('browser-p1');
      const [r] = await db.transactRaw([
        {
          op: 'select',
          table: 'Logical_Switch',
          where: [['name', '==', 'browser-sw']],
          columns: ['name'],
        },
      ]);
      expect(r).toEqual({ rows: [{ name: 'browser-sw' }] });
    } finally {
      await db.close();
    }
  }, 30_000);

  it('openDatabase refuses a socket remote, and a wrong token gives up like any unusable server', async () => {
    await expect(
      openDatabase({
        remotes: server.unixRemote,
        model: NB,
        WebSocket: WS,
        backoff: { maxRetries: 0 },
      }),
    ).rejects.toThrow(/cannot be opened in a browser/);
    await expect(
      openDatabase({
        remotes: bridge.url,
        model: NB,
        token: 'wrong',
        WebSocket: WS,
        backoff: { maxRetries: 0 },
      }),
    ).rejects.toThrow(/1008|unauthorized/);
  }, 30_000);

  it('connect: a bare connection through the bridge', async () => {
    const conn = await connect(bridge.url, { token: TOKEN, WebSocket: WS, timeoutMs: 5000 });
    try {
      expect(await conn.listDbs()).toContain('OVN_Northbound');
    } finally {
      conn.close();
    }
  });
});

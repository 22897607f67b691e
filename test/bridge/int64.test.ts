/**
 * 64-bit integers through the bridge, against ovsdb-server, seen as raw
 * WebSocket text: integers beyond ±(2^53−1) (values and a request id) reach
 * the server exactly, and the server's messages come back as the server
 * wrote them.
 */

import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Bridge, startBridge } from '../../src/bridge/bridge.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { DB, TEST_SCHEMA, unique } from '../helpers/server.js';

let server: OvsdbServerHandle;
let bridge: Bridge;

beforeAll(async () => {
  requireOvsdbServer(true);
  server = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['unix'] });
  bridge = await startBridge({
    listen: 'ws://127.0.0.1:0/ovsdb',
    remote: server.unixRemote,
    noAuth: true,
  });
});

afterAll(async () => {
  await bridge?.close();
  await server?.stop();
});

/** Send `text` in one frame and resolve with the next frame's text. */
async function roundTrip(text: string): Promise<string> {
  const ws = new WebSocket(bridge.url, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  try {
    const reply = new Promise<string>((resolve) => {
      ws.once('message', (data: Buffer) => resolve(data.toString('utf8')));
    });
    ws.send(text);
    return await reply;
  } finally {
    ws.close();
  }
}

it('forwards integers beyond ±(2^53−1) exactly, both ways', async () => {
  const name = unique('i64');
  const insert = await roundTrip(
    `{"method":"transact","params":["${DB}",{"op":"insert","table":"Item","row":{"name":"${name}","n":9223372036854775807,"opts":["map",[["k","v"]]]}}],"id":9007199254740993}`,
  );
  expect(insert).toMatch(
    /^\{"id":9007199254740993,"result":\[\{"uuid":\["uuid","[0-9a-f-]{36}"\]\}\],"error":null\}$/,
  );

  // The server stored the exact value (its own client's text says so).
  const dumped = await server.ovsdbClient(
    'transact',
    `["${DB}",{"op":"select","table":"Item","where":[["name","==","${name}"]],"columns":["n"]}]`,
  );
  expect(dumped.trim()).toBe('[{"rows":[{"n":9223372036854775807}]}]');

  // A condition on a 64-bit value matches exactly, and the reply is the server's text unchanged.
  const selected = await roundTrip(
    `{"method":"transact","params":["${DB}",{"op":"select","table":"Item","where":[["n","==",9223372036854775807],["name","==","${name}"]],"columns":["n","name"]}],"id":-9223372036854775808}`,
  );
  expect(selected).toBe(
    `{"id":-9223372036854775808,"result":[{"rows":[{"name":"${name}","n":9223372036854775807}]}],"error":null}`,
  );
  // One below does not match: nothing was rounded on the way.
  const none = await roundTrip(
    `{"method":"transact","params":["${DB}",{"op":"select","table":"Item","where":[["n","==",9223372036854775806]],"columns":["n"]}],"id":1}`,
  );
  expect(none).toBe('{"id":1,"result":[{"rows":[]}],"error":null}');
});

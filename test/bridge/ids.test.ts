/**
 * Request ids through the bridge, against a real ovsdb-server: every client
 * request goes up with an id of the bridge's, and every reply comes back
 * with the client's id exactly as the client wrote it. The `list_dbs` filter
 * keys on the bridge's ids, so a client cannot make it filter the wrong
 * reply (`echo` and `list_dbs` sharing id 7 used to return the unfiltered
 * list). The tests read raw frames, so ids are compared as text.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Bridge, startBridge } from '../../src/bridge/bridge.js';
import { topLevelIdSpan, withId } from '../../src/bridge/ids.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { DB, TEST_SCHEMA, unique } from '../helpers/server.js';

const TOKEN = 'ids-token-31c9';
let server: OvsdbServerHandle;
let bridge: Bridge;

/** A WebSocket client that keeps every frame's raw text. */
class Raw {
  readonly frames: string[] = [];
  private waiters: { n: number; resolve: () => void }[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.frames.push(data.toString('utf8'));
      this.waiters = this.waiters.filter((w) => {
        if (this.frames.length < w.n) return true;
        w.resolve();
        return false;
      });
    });
    ws.on('error', () => undefined);
  }

  static open(url: string): Promise<Raw> {
    const ws = new WebSocket(url, {
      headers: { Authorization: `Bearer ${TOKEN}` },
      perMessageDeflate: false,
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Raw(ws)));
      ws.once('error', reject);
    });
  }

  /** Send each text as one frame. */
  send(...texts: string[]): void {
    for (const t of texts) this.ws.send(t);
  }

  /** Resolve once `n` frames arrived in all (rejects after 5 s). */
  async until(n: number): Promise<string[]> {
    if (this.frames.length < n) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${this.frames.length} of ${n} frames: ${this.frames}`)),
          5000,
        );
        this.waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    }
    return this.frames.slice(0, n);
  }

  close(): void {
    this.ws.close();
  }
}

/** The raw text of a frame's top-level id. */
function idText(frame: string): string {
  const span = topLevelIdSpan(frame);
  if (span === undefined) throw new Error(`no id in ${frame}`);
  return frame.slice(span.start, span.end);
}

beforeAll(async () => {
  requireOvsdbServer(true);
  server = await startOvsdbServer({
    schema: TEST_SCHEMA,
    remotes: ['unix'],
    extraArgs: ['-vjsonrpc:file:dbg'],
  });
  bridge = await startBridge({
    listen: 'ws://127.0.0.1:0/',
    remote: server.unixRemote,
    tokens: [TOKEN],
    policy: { allowDbs: [DB] },
  });
});

afterAll(async () => {
  await bridge?.close();
  await server?.stop();
});

describe('the list_dbs filter keys on the bridge’s own ids', () => {
  it('echo and list_dbs with the same id: each reply is what it answers, list_dbs filtered', async () => {
    const c = await Raw.open(bridge.url);
    c.send(
      '{"method":"echo","params":["_Server","x"],"id":7}',
      '{"method":"list_dbs","params":[],"id":7}',
    );
    const [echo, dbs] = (await c.until(2)).map((f) => JSON.parse(f));
    expect(echo).toEqual({ id: 7, result: ['_Server', 'x'], error: null });
    expect(dbs).toEqual({ id: 7, result: [DB], error: null });
    c.close();
  });

  it('list_dbs first, then echo with the same id: the echo is not filtered', async () => {
    const c = await Raw.open(bridge.url);
    c.send(
      '{"method":"list_dbs","params":[],"id":"same"}',
      '{"method":"echo","params":["_Server"],"id":"same"}',
    );
    const [dbs, echo] = (await c.until(2)).map((f) => JSON.parse(f));
    expect(dbs).toEqual({ id: 'same', result: [DB], error: null });
    expect(echo).toEqual({ id: 'same', result: ['_Server'], error: null });
    c.close();
  });

  it('many requests with one id in flight, and ids reused after their reply', async () => {
    const c = await Raw.open(bridge.url);
    // (The bridge answers a refused request at once, before the server's replies.)
    const batch = [
      '{"method":"echo","params":["_Server"],"id":1}',
      '{"method":"list_dbs","params":[],"id":1}',
      '{"method":"list_dbs","params":[],"id":1}',
      '{"method":"echo","params":["a"],"id":1}',
      '{"method":"list_dbs","params":[],"id":1}',
    ];
    c.send('{"method":"get_schema","params":["_Server"],"id":1}', ...batch);
    const replies = (await c.until(6)).map((f) => JSON.parse(f));
    expect(replies).toEqual([
      {
        id: 1,
        result: null,
        error: {
          error: 'permission error',
          details: 'get_schema: database "_Server" is not allowed by this bridge',
          refused_by: 'bridge',
        },
      },
      { id: 1, result: ['_Server'], error: null },
      { id: 1, result: [DB], error: null },
      { id: 1, result: [DB], error: null },
      { id: 1, result: ['a'], error: null },
      { id: 1, result: [DB], error: null },
    ]);
    // Reused after the replies: the same again.
    c.send(batch[1] as string, batch[0] as string);
    const again = (await c.until(8)).slice(6).map((f) => JSON.parse(f));
    expect(again).toEqual([
      { id: 1, result: [DB], error: null },
      { id: 1, result: ['_Server'], error: null },
    ]);
    c.close();
  });

  it('an id that looks like the bridge’s own (0, 1, …) or a reply from the client changes nothing', async () => {
    const c = await Raw.open(bridge.url);
    // The bridge's first ids on this connection are 0 and 1; the client uses them too.
    c.send(
      '{"method":"echo","params":["_Server"],"id":1}',
      '{"method":"list_dbs","params":[],"id":0}',
    );
    const replies = (await c.until(2)).map((f) => JSON.parse(f));
    expect(replies).toEqual([
      { id: 1, result: ['_Server'], error: null },
      { id: 0, result: [DB], error: null },
    ]);
    c.close();
  });
});

describe('reply ids are the client’s, exactly as written', () => {
  it.each([
    ['a string', '"r-1"'],
    ['an empty string', '""'],
    ['a string with escapes', '"\\u0041\\n\\"q\\"\\\\ é ☃"'],
    ['zero', '0'],
    ['a negative integer', '-42'],
    ['INT64_MAX', '9223372036854775807'],
    ['INT64_MIN', '-9223372036854775808'],
    ['an integer beyond int64', '123456789012345678901234567890'],
    ['a real written with a trailing zero', '1.50'],
    ['an exponent', '1e3'],
    ['true', 'true'],
    ['false', 'false'],
    ['an array', '[1, "two", [3]]'],
    ['an object', '{"b": [1, {"c": null}], "a": "x"}'],
    ['an object holding "id"', '{"id": 5, "method": "nope"}'],
  ])('%s: %s', async (_what, id) => {
    const c = await Raw.open(bridge.url);
    c.send(
      `{"method":"get_schema","params":["_Server"],"id":${id}}`,
      `{"method":"echo","params":["e"],"id":${id}}`,
      `{"method":"list_dbs","params":[],"id":${id}}`,
      `{"method":"transact","params":["${DB}",{"op":"comment","comment":"c"}],"id":${id}}`,
    );
    const frames = await c.until(4);
    for (const f of frames) expect(idText(f)).toBe(id);
    const expectedId = JSON.parse(id);
    expect(frames.map((f) => JSON.parse(f))).toEqual([
      {
        id: expectedId,
        result: null,
        error: {
          error: 'permission error',
          details: 'get_schema: database "_Server" is not allowed by this bridge',
          refused_by: 'bridge',
        },
      },
      { id: expectedId, result: ['e'], error: null },
      { id: expectedId, result: [DB], error: null },
      { id: expectedId, result: [{}], error: null },
    ]);
    c.close();
  });

  it('the id member may come anywhere, with white space; a duplicate member counts as JSON.parse counts it', async () => {
    const c = await Raw.open(bridge.url);
    c.send(
      '{ "params" : ["p"] , "id" :  "late"  , "method" : "echo" }',
      '{"id":"first","method":"echo","params":["q"],"id":"last"}',
      '{"\\u0069d":"escaped-key","method":"echo","params":[]}',
    );
    const frames = await c.until(3);
    expect(frames.map(idText)).toEqual(['"late"', '"last"', '"escaped-key"']);
    c.close();
  });

  it('the server sees only the bridge’s ids', async () => {
    const marker = unique('client-id-marker');
    const c = await Raw.open(bridge.url);
    c.send(`{"method":"echo","params":["seen"],"id":"${marker}"}`);
    expect(JSON.parse((await c.until(1))[0] as string)).toEqual({
      id: marker,
      result: ['seen'],
      error: null,
    });
    const log = await server.readLog();
    expect(log).toMatch(/received request, method="echo", params=\["seen"\], id=\d+/);
    expect(log).not.toContain(marker);
    c.close();
  });
});

describe('cancel', () => {
  it('names the bridge’s id of the pending request with the client’s id', async () => {
    const c = await Raw.open(bridge.url);
    const name = unique('never');
    c.send('{"method":"set_db_change_aware","params":[true],"id":"aware"}');
    await c.until(1);
    // Blocks until a row named `name` exists, which never happens.
    c.send(
      JSON.stringify({
        method: 'transact',
        params: [
          DB,
          {
            op: 'wait',
            table: 'Item',
            where: [['name', '==', name]],
            columns: ['name'],
            until: '==',
            rows: [{ name }],
            timeout: 60_000,
          },
        ],
        id: { blocked: 1 },
      }),
    );
    // Unknown ids and a malformed cancel are not forwarded; the right one is.
    c.send(
      '{"method":"cancel","params":["nothing pending"],"id":null}',
      '{"method":"cancel","params":[],"id":null}',
      '{"method":"cancel","params":[{"blocked":1}],"id":null}',
    );
    const [, canceled] = await c.until(2);
    expect(idText(canceled as string)).toBe('{"blocked":1}');
    expect(JSON.parse(canceled as string)).toEqual({
      id: { blocked: 1 },
      error: 'canceled',
    });
    const log = await server.readLog();
    expect(log).toMatch(/received notification, method="cancel", params=\[\d+\]/);
    expect(log).not.toContain('nothing pending');
    c.close();
  });
});

describe('withId and topLevelIdSpan', () => {
  it('replace only the top-level id of a server reply', () => {
    expect(withId('{"id":3,"result":{"id":3},"error":null}', '"x"')).toBe(
      '{"id":"x","result":{"id":3},"error":null}',
    );
    expect(withId('{"result":[{"id":1}],"error":null,"id":12}', '[1]')).toBe(
      '{"result":[{"id":1}],"error":null,"id":[1]}',
    );
    expect(withId('{"result":"no id"}', '1')).toBeUndefined();
    expect(topLevelIdSpan('{"a":"}\\"{","id" : 5 }')).toEqual({ start: 19, end: 20 });
  });
});

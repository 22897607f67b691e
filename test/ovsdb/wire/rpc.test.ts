import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ConnectionClosedError,
  ProtocolError,
  RequestTimeoutError,
  RpcError,
} from '../../../src/ovsdb/wire/errors.js';
import { JsonRpcPeer } from '../../../src/ovsdb/wire/rpc.js';
import { createMemoryPair } from '../../helpers/memory-transport.js';
import { closeAfterTest, closePeers, setup } from '../../helpers/rpc-peer.js';

afterEach(closePeers);

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('JsonRpcPeer: requests and replies', () => {
  it('sends strict JSON-RPC 1.0 requests with increasing numeric ids', async () => {
    const { peer, client } = setup();
    void peer.request('list_dbs', []).catch(() => {});
    void peer.request('get_schema', ['OVN_Northbound']).catch(() => {});
    expect(client.sent).toEqual([
      '{"method":"list_dbs","params":[],"id":0}',
      '{"method":"get_schema","params":["OVN_Northbound"],"id":1}',
    ]);
  });

  it('resolves with the result of the matching reply, whatever the order', async () => {
    const { peer, client } = setup();
    const a = peer.request('a', []);
    const b = peer.request('b', []);
    client.injectBytes(
      '{"id":1,"result":"B","error":null}{"id":0,"result":{"x":[1]},"error":null}',
    );
    await expect(a).resolves.toEqual({ x: [1] });
    await expect(b).resolves.toBe('B');
  });

  it('rejects with RpcError when error is not null, with or without result', async () => {
    const { peer, client } = setup();
    const a = peer.request('transact', ['nope']);
    const b = peer.request('frob', []);
    client.injectBytes(
      '{"id":0,"result":null,"error":{"error":"unknown database","details":"nope"}}' +
        '{"id":1,"error":"unknown method"}',
    );
    const ea = await a.catch((e: unknown) => e);
    expect(ea).toBeInstanceOf(RpcError);
    expect((ea as RpcError).method).toBe('transact');
    expect((ea as RpcError).error).toEqual({ error: 'unknown database', details: 'nope' });
    expect((ea as RpcError).code).toBe('unknown database: nope');
    const eb = await b.catch((e: unknown) => e);
    expect(eb).toBeInstanceOf(RpcError);
    expect((eb as RpcError).code).toBe('unknown method');
    expect(peer.isClosed).toBe(false);
  });

  it('ignores replies to unknown ids (and non-numeric ids) without closing', async () => {
    const { peer, client } = setup();
    const p = peer.request('x', []);
    client.injectBytes('{"id":99,"result":1,"error":null}{"id":"echo","result":[],"error":null}');
    expect(peer.isClosed).toBe(false);
    client.injectBytes('{"id":0,"result":2,"error":null}');
    await expect(p).resolves.toBe(2);
  });

  it('a second reply to the same id is ignored', async () => {
    const { peer, client } = setup();
    const p = peer.request('x', []);
    client.injectBytes('{"id":0,"result":1,"error":null}{"id":0,"result":2,"error":null}');
    await expect(p).resolves.toBe(1);
    expect(peer.isClosed).toBe(false);
  });

  it('reports the id through onSent before sending', () => {
    const { peer, client } = setup();
    const ids: [number, number][] = [];
    void peer
      .request('a', [], { onSent: (id) => ids.push([id, client.sent.length]) })
      .catch(() => {});
    void peer
      .request('b', [], { onSent: (id) => ids.push([id, client.sent.length]) })
      .catch(() => {});
    expect(ids).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });

  it('rejects with a TypeError when params cannot be serialized, and stays usable', async () => {
    const { peer, client } = setup();
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    await expect(peer.request('x', cyclic)).rejects.toThrow(/cannot be serialized/);
    await expect(peer.request('x', [{ toJSON: () => 1n }, cyclic])).rejects.toThrow(TypeError);
    expect(client.sent).toEqual([]);
    expect(peer.isClosed).toBe(false);
    expect(() => peer.notify('x', [cyclic])).toThrow(TypeError);
  });

  it('sends and receives 64-bit integers exactly', async () => {
    const { peer, client } = setup();
    const reply = peer.request('x', [9223372036854775807n, -(2n ** 53n + 1n), 42]);
    expect(client.sent).toEqual([
      '{"method":"x","params":[9223372036854775807,-9007199254740993,42],"id":0}',
    ]);
    client.injectBytes(
      '{"id":0,"result":[-9223372036854775808,9007199254740993,9007199254740991],"error":null}',
    );
    await expect(reply).resolves.toStrictEqual([-(2n ** 63n), 2n ** 53n + 1n, 2 ** 53 - 1]);
    peer.notify('n', [2n ** 60n]);
    expect(client.sent[1]).toBe('{"method":"n","params":[1152921504606846976],"id":null}');
  });

  it('reads 64-bit integers exactly from a message transport too, and echoes them back', async () => {
    const got: unknown[] = [];
    const { client } = setup(
      {
        onNotification: (_m, p) => got.push(p),
        onRequest: (_m, p) => p[0],
      },
      { kind: 'message' },
    );
    client.injectMessage(
      '{"method":"n","params":[9223372036854775807, 0.10000000000000001],"id":null}',
    );
    client.injectMessage('{"method":"r","params":[-9007199254740993],"id":18446744073709551617}');
    await tick();
    expect(got).toStrictEqual([[2n ** 63n - 1n, 0.1]]);
    expect(client.sent).toEqual([
      '{"id":18446744073709552000,"result":-9007199254740993,"error":null}',
    ]);
  });
});

describe('JsonRpcPeer: notifications and server requests', () => {
  it('sends notifications and cancel with "id": null', () => {
    const { peer, client } = setup();
    peer.notify('hello', [1, 'two']);
    peer.cancel(7);
    expect(client.sent).toEqual([
      '{"method":"hello","params":[1,"two"],"id":null}',
      '{"method":"cancel","params":[7],"id":null}',
    ]);
  });

  it('answers echo with identical params and id', () => {
    const { client } = setup();
    client.injectBytes('{"method":"echo","params":[],"id":"echo"}');
    client.injectBytes('{"method":"echo","params":[1,{"a":["b"]}],"id":42}');
    expect(client.sent).toEqual([
      '{"id":"echo","result":[],"error":null}',
      '{"id":42,"result":[1,{"a":["b"]}],"error":null}',
    ]);
  });

  it('answers other requests with "unknown method" when there is no onRequest', () => {
    const { client } = setup();
    client.injectBytes('{"method":"frob","params":[],"id":5}');
    expect(client.sent).toEqual(['{"id":5,"result":null,"error":"unknown method"}']);
  });

  it('answers requests through onRequest: values, throws, RpcErrors and promises', async () => {
    const { client, written } = setup({
      onRequest: (method, params) => {
        if (method === 'sum') return (params as number[]).reduce((a, b) => a + b, 0);
        if (method === 'nothing') return undefined;
        if (method === 'fail') throw new Error('boom');
        if (method === 'rpcfail') throw new RpcError(method, { error: 'not allowed' });
        if (method === 'later') return Promise.resolve(['done']);
        return Promise.reject(new Error('async boom'));
      },
    });
    client.injectBytes(
      '{"method":"sum","params":[1,2,3],"id":1}{"method":"nothing","params":[],"id":2}' +
        '{"method":"fail","params":[],"id":3}{"method":"rpcfail","params":[],"id":4}' +
        '{"method":"later","params":[],"id":5}{"method":"asyncfail","params":[],"id":6}',
    );
    await tick();
    const byId = new Map(written().map((m) => [m['id'], m]));
    expect(byId.get(1)).toEqual({ id: 1, result: 6, error: null });
    expect(byId.get(2)).toEqual({ id: 2, result: null, error: null });
    expect(byId.get(3)).toEqual({ id: 3, result: null, error: { error: 'boom' } });
    expect(byId.get(4)).toEqual({ id: 4, result: null, error: { error: 'not allowed' } });
    expect(byId.get(5)).toEqual({ id: 5, result: ['done'], error: null });
    expect(byId.get(6)).toEqual({ id: 6, result: null, error: { error: 'async boom' } });
  });

  it('delivers notifications synchronously, in order, before a later reply settles', async () => {
    const order: string[] = [];
    const { peer, client } = setup({
      onNotification: (method, params) => order.push(`${method}:${JSON.stringify(params)}`),
    });
    const p = peer.request('transact', []).then(() => order.push('reply'));
    client.injectBytes('{"method":"update2","params":["m",{}],"id":null}');
    expect(order).toEqual(['update2:["m",{}]']);
    client.injectBytes(
      '{"method":"update2","params":["m",1],"id":null}{"id":0,"result":[],"error":null}' +
        '{"method":"locked","params":["l"],"id":null}',
    );
    await p;
    expect(order).toEqual(['update2:["m",{}]', 'update2:["m",1]', 'locked:["l"]', 'reply']);
  });

  it('accepts notifications without an id member', () => {
    const got: string[] = [];
    const { peer, client } = setup({ onNotification: (m) => got.push(m) });
    client.injectBytes('{"method":"n","params":[]}');
    expect(got).toEqual(['n']);
    expect(peer.isClosed).toBe(false);
  });

  it('reports a throwing hook and keeps going', () => {
    const errors: unknown[] = [];
    const got: unknown[] = [];
    const { peer, client } = setup({
      onNotification: (_m, params) => {
        got.push(params[0]);
        if (params[0] === 1) throw new Error('listener bug');
      },
      onHookError: (e) => errors.push(e),
    });
    client.injectBytes(
      '{"method":"n","params":[1],"id":null}{"method":"n","params":[2],"id":null}',
    );
    expect(got).toEqual([1, 2]);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('listener bug');
    expect(peer.isClosed).toBe(false);
  });
});

describe('JsonRpcPeer: timeouts and aborts', () => {
  it('rejects with RequestTimeoutError and ignores the late reply', async () => {
    const { peer, client } = setup();
    const p = peer.request('slow', [], { timeoutMs: 20 });
    const e = await p.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RequestTimeoutError);
    expect((e as RequestTimeoutError).method).toBe('slow');
    expect((e as RequestTimeoutError).timeoutMs).toBe(20);
    client.injectBytes('{"id":0,"result":1,"error":null}');
    expect(peer.isClosed).toBe(false);
    const q = peer.request('fast', []);
    client.injectBytes('{"id":1,"result":"ok","error":null}');
    await expect(q).resolves.toBe('ok');
  });

  it('uses requestTimeoutMs as the default, which a request can override', async () => {
    const { peer, client } = setup({ requestTimeoutMs: 15 });
    const a = peer.request('a', []);
    const b = peer.request('b', [], { timeoutMs: 5000 });
    await expect(a).rejects.toBeInstanceOf(RequestTimeoutError);
    client.injectBytes('{"id":1,"result":"b","error":null}');
    await expect(b).resolves.toBe('b');
  });

  it('clears the timer when the reply comes first', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { peer, client } = setup();
      const p = peer.request('a', [], { timeoutMs: 1000 });
      expect(vi.getTimerCount()).toBe(1);
      client.injectBytes('{"id":0,"result":1,"error":null}');
      await expect(p).resolves.toBe(1);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects with the signal reason on abort, optionally sending cancel', async () => {
    const { peer, client } = setup();
    const c1 = new AbortController();
    const c2 = new AbortController();
    const a = peer.request('a', [], { signal: c1.signal });
    const b = peer.request('b', [], { signal: c2.signal, cancelOnAbort: true });
    c1.abort(new Error('stop a'));
    c2.abort(new Error('stop b'));
    await expect(a).rejects.toThrow('stop a');
    await expect(b).rejects.toThrow('stop b');
    expect(client.sent).toEqual([
      '{"method":"a","params":[],"id":0}',
      '{"method":"b","params":[],"id":1}',
      '{"method":"cancel","params":[1],"id":null}',
    ]);
    // The server's late "canceled" reply is ignored.
    client.injectBytes('{"id":1,"result":null,"error":"canceled"}');
    expect(peer.isClosed).toBe(false);
  });

  it('a timeout with cancelOnAbort sends cancel too', async () => {
    const { peer, client } = setup();
    const a = peer.request('a', [], { timeoutMs: 5 });
    const b = peer.request('b', [], { timeoutMs: 5, cancelOnAbort: true });
    await expect(a).rejects.toBeInstanceOf(RequestTimeoutError);
    await expect(b).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(client.sent).toEqual([
      '{"method":"a","params":[],"id":0}',
      '{"method":"b","params":[],"id":1}',
      '{"method":"cancel","params":[1],"id":null}',
    ]);
  });

  it('send reports to its handler: the id as it is written, then the result or the error', () => {
    const { peer, client } = setup();
    const seen: string[] = [];
    const handler = (name: string) => ({
      onSent: (id: number) => seen.push(`${name} sent ${id} after ${client.sent.length} writes`),
      onReply: (r: unknown) => seen.push(`${name} reply ${JSON.stringify(r)}`),
      onError: (e: unknown) => seen.push(`${name} error ${(e as Error).name}`),
    });
    peer.send('a', [], handler('a'));
    peer.send('b', [], handler('b'));
    client.injectBytes('{"id":1,"result":[2],"error":null}{"id":0,"error":"no"}');
    peer.close();
    peer.send('c', [], handler('c'));
    expect(seen).toEqual([
      'a sent 0 after 0 writes',
      'b sent 1 after 1 writes',
      'b reply [2]',
      'a error RpcError',
      'c error ConnectionClosedError',
    ]);
  });

  it('a handler that throws is reported, and the peer keeps going', async () => {
    const errors: unknown[] = [];
    const { peer, client } = setup({ onHookError: (e) => errors.push(e) });
    peer.send('a', [], {
      onReply: () => {
        throw new Error('bad handler');
      },
      onError: () => {},
    });
    const b = peer.request('b', []);
    client.injectBytes('{"id":0,"result":1,"error":null}{"id":1,"result":2,"error":null}');
    await expect(b).resolves.toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(['bad handler']);
    expect(peer.isClosed).toBe(false);
  });

  it('an already aborted signal rejects without sending anything', async () => {
    const { peer, client } = setup();
    const reason = new Error('already');
    await expect(
      peer.request('a', [], { signal: AbortSignal.abort(reason), cancelOnAbort: true }),
    ).rejects.toBe(reason);
    expect(client.sent).toEqual([]);
  });

  it('cancel() leaves the request pending until the server answers "canceled"', async () => {
    const { peer, client } = setup();
    let id = -1;
    const p = peer.request('transact', ['db', { op: 'wait' }], { onSent: (i) => (id = i) });
    peer.cancel(id);
    client.injectBytes(`{"id":${id},"result":null,"error":"canceled"}`);
    const e = await p.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RpcError);
    expect((e as RpcError).code).toBe('canceled');
  });
});

describe('JsonRpcPeer: protocol errors', () => {
  const malformed: [string, string | Uint8Array, RegExp][] = [
    ['top-level array', '[1]', /must be an object/],
    ['invalid JSON', '{"id":0,"result":}', /invalid JSON/],
    [
      'jsonrpc member',
      '{"jsonrpc":"2.0","id":0,"result":1,"error":null}',
      /unexpected member "jsonrpc"/,
    ],
    ['method not a string', '{"method":1,"params":[],"id":null}', /"method" must be a string/],
    [
      'params not an array',
      '{"method":"update","params":{},"id":null}',
      /"params" of "update" must be an array/,
    ],
    ['params missing', '{"method":"update","id":null}', /must be an array/],
    [
      'request with result',
      '{"method":"m","params":[],"id":1,"result":1}',
      /carries "result" or "error"/,
    ],
    ['reply without id', '{"result":1,"error":null}', /non-null "id"/],
    ['reply with null id', '{"id":null,"result":1,"error":null}', /non-null "id"/],
    [
      'reply without result or error',
      '{"id":0,"error":null}',
      /needs "result" or a non-null "error"/,
    ],
    ['params without method', '{"id":0,"params":[],"result":1}', /"params" without "method"/],
    [
      'invalid UTF-8',
      new Uint8Array([...new TextEncoder().encode('{"id":0,"result":"'), 0xff, 0x22, 0x7d]),
      /invalid UTF-8/,
    ],
  ];

  for (const [name, data, pattern] of malformed) {
    it(`closes with a ProtocolError on ${name}, rejecting pending requests`, async () => {
      const { peer, client } = setup();
      const pending = peer.request('x', []);
      client.injectBytes(data);
      const reason = await peer.closed;
      expect(reason).toBeInstanceOf(ProtocolError);
      expect((reason as Error).message).toMatch(pattern);
      expect(peer.isClosed).toBe(true);
      const e = await pending.catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ConnectionClosedError);
      expect((e as Error).cause).toBe(reason);
      await tick();
      expect(client.isClosed).toBe(true);
    });
  }

  it('delivers valid messages that precede garbage in the same chunk, then closes', async () => {
    const got: unknown[] = [];
    const { peer, client } = setup({ onNotification: (_m, p) => got.push(p[0]) });
    const req = peer.request('x', []);
    client.injectBytes(
      '{"method":"n","params":[1],"id":null}{"id":0,"result":"r","error":null}{"method":"n","params":[2],"id":null}]]',
    );
    await expect(req).resolves.toBe('r');
    expect(got).toEqual([1, 2]);
    expect(await peer.closed).toBeInstanceOf(ProtocolError);
  });

  it('stops handling messages once a malformed one closed it', () => {
    const got: unknown[] = [];
    const { peer, client } = setup({ onNotification: (_m, p) => got.push(p[0]) });
    client.injectBytes(
      '{"method":"n","params":[1],"id":null}{"bogus":1}{"method":"n","params":[2],"id":null}',
    );
    expect(got).toEqual([1]);
    expect(peer.isClosed).toBe(true);
  });

  it('enforces maxMessageBytes on stream transports', async () => {
    const { peer, client } = setup({ maxMessageBytes: 64 });
    client.injectBytes(`{"method":"n","params":["${'x'.repeat(100)}`);
    const reason = await peer.closed;
    expect(reason).toBeInstanceOf(ProtocolError);
    expect((reason as Error).message).toContain('64-byte limit');
  });

  it('treats a close in the middle of a message as a protocol error', async () => {
    const { peer, client, server } = setup();
    const p = peer.request('x', []);
    client.injectBytes('{"id":0,"resu');
    server.close();
    const reason = await peer.closed;
    expect(reason).toBeInstanceOf(ProtocolError);
    expect((reason as Error).message).toContain('in the middle of a message (13 bytes received)');
    await expect(p).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});

describe('JsonRpcPeer: message transports', () => {
  it('parses whole messages without framing', async () => {
    const got: unknown[] = [];
    const { peer, client } = setup({ onNotification: (_m, p) => got.push(p) }, { kind: 'message' });
    const p = peer.request('x', []);
    client.injectMessage('{"method":"n","params":["a"],"id":null}');
    client.injectMessage(' {"id":0,"result":"ok","error":null} ');
    await expect(p).resolves.toBe('ok');
    expect(got).toEqual([['a']]);
  });

  it('enforces maxMessageBytes in UTF-8 bytes', async () => {
    const { peer, client } = setup({ maxMessageBytes: 40 }, { kind: 'message' });
    // 38 characters but 48 bytes (each é is two bytes).
    client.injectMessage(`{"method":"n","params":["${'é'.repeat(10)}"]}`);
    const reason = await peer.closed;
    expect(reason).toBeInstanceOf(ProtocolError);
    expect((reason as Error).message).toContain('48-byte message exceeds the 40-byte limit');
  });

  it('accepts a message of exactly maxMessageBytes', () => {
    const got: unknown[] = [];
    const text = '{"method":"n","params":["é"]}'; // 30 bytes
    const { peer, client } = setup(
      { maxMessageBytes: 30, onNotification: (_m, p) => got.push(p[0]) },
      { kind: 'message' },
    );
    client.injectMessage(text);
    expect(got).toEqual(['é']);
    expect(peer.isClosed).toBe(false);
  });

  it('closes with a ProtocolError on invalid JSON or a non-object message', async () => {
    const a = setup({}, { kind: 'message' });
    a.client.injectMessage('{"id":');
    expect(await a.peer.closed).toBeInstanceOf(ProtocolError);
    const b = setup({}, { kind: 'message' });
    b.client.injectMessage('"hello"');
    expect(((await b.peer.closed) as Error).message).toContain('must be a JSON object');
  });

  it('applies the framer limits: 1,000 levels answered, 1,001 and U+0000 close with a ProtocolError', async () => {
    const deep = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;
    const got: unknown[] = [];
    const ok = setup({ onNotification: (_m, p) => got.push(p) }, { kind: 'message' });
    ok.client.injectMessage(`{"method":"n","params":${deep(999)},"id":null}`);
    expect(got).toHaveLength(1);
    expect(ok.peer.isClosed).toBe(false);
    for (const text of [
      `{"method":"n","params":${deep(1000)},"id":null}`,
      `{"method":"n","params":${deep(100_000)},"id":null}`,
      `{"method":"n","params":[${deep(999)},12345678901234567890],"id":null}`,
    ]) {
      const { peer, client } = setup({}, { kind: 'message' });
      const p = peer.request('x', []);
      client.injectMessage(text);
      const reason = await peer.closed;
      expect(reason).toBeInstanceOf(ProtocolError);
      expect((reason as Error).message).toMatch(/Nesting deeper than 1000 levels/);
      await expect(p).rejects.toBeInstanceOf(ConnectionClosedError);
    }
    const nul = setup({}, { kind: 'message' });
    nul.client.injectMessage('{"method":"n","params":["a\\u0000"],"id":null}');
    expect(((await nul.peer.closed) as Error).message).toMatch(/null bytes not supported/);
  });
});

describe('JsonRpcPeer: closing', () => {
  it('a local close resolves closed with undefined and rejects pending requests', async () => {
    const reasons: unknown[] = [];
    const { peer, client } = setup({ onClose: (e) => reasons.push(e) });
    const p = peer.request('x', []);
    peer.close('done');
    expect(peer.isClosed).toBe(true);
    expect(await peer.closed).toBeUndefined();
    const e = await p.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionClosedError);
    expect((e as Error).message).toContain('done');
    expect(reasons).toEqual([undefined]);
    await tick();
    expect(client.isClosed).toBe(true);
    // Requests after close reject; notifications are dropped; close is idempotent.
    await expect(peer.request('y', [])).rejects.toBeInstanceOf(ConnectionClosedError);
    peer.notify('n', []);
    peer.close();
    expect(client.sent).toEqual(['{"method":"x","params":[],"id":0}']);
    expect(reasons).toHaveLength(1);
  });

  it('close(error) resolves closed with that error', async () => {
    const { peer } = setup();
    const p = peer.request('x', []);
    const err = new Error('fatal');
    peer.close(err);
    expect(await peer.closed).toBe(err);
    expect(((await p.catch((x: unknown) => x)) as Error).cause).toBe(err);
  });

  it('a clean remote close rejects pending requests with ConnectionClosedError', async () => {
    const { peer, server } = setup();
    const p = peer.request('x', []);
    server.close();
    const reason = await peer.closed;
    expect(reason).toBeInstanceOf(ConnectionClosedError);
    expect((reason as Error).message).toContain('closed by the other side');
    await expect(p).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(peer.request('y', [])).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('a transport error becomes the close reason and the cause of pending rejections', async () => {
    const { peer, client } = setup();
    const p = peer.request('x', []);
    const err = new Error('ECONNRESET');
    client.fail(err);
    expect(await peer.closed).toBe(err);
    const e = await p.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionClosedError);
    expect((e as Error).cause).toBe(err);
  });

  it('a throwing transport write closes the peer instead of throwing', async () => {
    const { peer, client } = setup();
    const write = client.write.bind(client);
    let calls = 0;
    client.write = (text: string): boolean => {
      if (++calls === 2) throw new Error('EPIPE');
      return write(text);
    };
    const a = peer.request('a', []);
    const b = peer.request('b', []);
    await expect(a).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(b).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(((await peer.closed) as Error).message).toBe('EPIPE');
  });
});

describe('JsonRpcPeer: write backpressure', () => {
  it('queues while the transport is above its high-water mark and flushes on drain', async () => {
    const { peer, client } = setup({}, { highWaterMark: 50, autoDeliver: false });
    peer.notify('n', ['x'.repeat(60)]); // over the mark: write returns false
    peer.notify('n', [1]);
    peer.notify('n', [2]);
    expect(client.sent).toHaveLength(1);
    expect(peer.queuedWrites).toBe(2);
    let drained = false;
    const d = peer.drained().then(() => (drained = true));
    await tick();
    expect(drained).toBe(false);
    client.flush(); // delivers and reports drain: the queue goes out
    expect(client.sent.map((s) => JSON.parse(s).params[0])).toEqual(['x'.repeat(60), 1, 2]);
    expect(peer.queuedWrites).toBe(0);
    // The last two (37 bytes each) put the transport over its mark again.
    await tick();
    expect(drained).toBe(false);
    client.flush();
    await d;
    expect(drained).toBe(true);
  });

  it('keeps message order when the queue fills again during a flush', () => {
    const { peer, client } = setup({}, { highWaterMark: 60, autoDeliver: false });
    for (let i = 0; i < 10; i++) peer.notify('n', [i, 'y'.repeat(10)]);
    // Each message is 50 bytes: the second write crosses the mark.
    expect(client.sent).toHaveLength(2);
    expect(peer.queuedWrites).toBe(8);
    client.flush();
    expect(client.sent).toHaveLength(4);
    expect(peer.queuedWrites).toBe(6);
    while (peer.queuedWrites > 0) client.flush();
    expect(client.sent.map((s) => JSON.parse(s).params[0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('drained() resolves at once when nothing waits, and on close', async () => {
    const { peer } = setup({}, { highWaterMark: 10, autoDeliver: false });
    await peer.drained();
    peer.notify('n', ['long enough to cross the mark']);
    peer.notify('n', [1]);
    const d = peer.drained();
    peer.close();
    await d;
    expect(peer.queuedWrites).toBe(0);
  });

  it('requests sent while queued still get their replies', async () => {
    const { peer, client } = setup({}, { highWaterMark: 1, autoDeliver: false });
    const a = peer.request('a', []);
    const b = peer.request('b', []);
    expect(peer.queuedWrites).toBe(1);
    client.flush();
    client.injectBytes('{"id":0,"result":"A","error":null}{"id":1,"result":"B","error":null}');
    await expect(Promise.all([a, b])).resolves.toEqual(['A', 'B']);
  });
});

describe('JsonRpcPeer over a peer', () => {
  it('two peers talk to each other through the memory transport, in small chunks', async () => {
    const [a, b] = createMemoryPair({ chunkSize: 3 });
    const server = new JsonRpcPeer(b, {
      onRequest: (method, params) => ({ method, params }),
    });
    const client = new JsonRpcPeer(a);
    closeAfterTest(server, client);
    await expect(client.request('anything', ['é', 1, { k: 'v' }])).resolves.toEqual({
      method: 'anything',
      params: ['é', 1, { k: 'v' }],
    });
    await expect(server.request('echo', ['ping'])).resolves.toEqual(['ping']);
    client.close();
    expect(await server.closed).toBeInstanceOf(ConnectionClosedError);
  });
});

/**
 * WebSocketTransport and openWebSocketTransport against a scripted
 * WebSocket-like object: early messages, binary frames, write backpressure
 * through `bufferedAmount`, close codes, timeouts and aborts.
 */

import { describe, expect, it, vi } from 'vitest';
import {
  closeCodeName,
  openWebSocketTransport,
  WebSocketClosedError,
  type WebSocketLike,
  WebSocketTransport,
} from '../../../src/ovsdb/transport/ws-transport.js';
import { ConnectionClosedError } from '../../../src/ovsdb/wire/errors.js';
import { JsonRpcPeer } from '../../../src/ovsdb/wire/rpc.js';
import type { TransportHandlers } from '../../../src/ovsdb/wire/transport.js';

type Listener = (event: never) => void;

/** A WebSocket whose events and buffer the test drives by hand. */
class FakeSocket implements WebSocketLike {
  readyState = 1;
  bufferedAmount = 0;
  binaryType = 'blob';
  readonly sent: string[] = [];
  readonly closes: [number | undefined, string | undefined][] = [];
  terminated = 0;
  paused = 0;
  resumed = 0;
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(readonly url = 'ws://bridge.test/ovsdb?token=secret') {}

  send(data: string): void {
    this.sent.push(data);
  }
  close(code?: number, reason?: string): void {
    this.closes.push([code, reason]);
    this.readyState = 2;
  }
  addEventListener(type: string, listener: Listener): void {
    const set = this.listeners.get(type) ?? new Set<Listener>();
    this.listeners.set(type, set);
    set.add(listener);
  }
  removeEventListener(type: string, listener: Listener): void {
    this.listeners.get(type)?.delete(listener);
  }
  emit(type: string, event: object): void {
    if (type === 'close') this.readyState = 3;
    if (type === 'open') this.readyState = 1;
    for (const l of [...(this.listeners.get(type) ?? [])]) (l as (e: object) => void)(event);
  }
  listenerCount(): number {
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }
}

class PausableSocket extends FakeSocket {
  pause(): void {
    this.paused++;
  }
  resume(): void {
    this.resumed++;
  }
  terminate(): void {
    this.terminated++;
  }
}

function record(): { handlers: TransportHandlers; log: unknown[] } {
  const log: unknown[] = [];
  return {
    log,
    handlers: {
      data: (c) => log.push(['data', c]),
      message: (t) => log.push(['message', t]),
      drain: () => log.push(['drain']),
      close: (e) => log.push(['close', e]),
    },
  };
}

describe('WebSocketTransport', () => {
  it('is a message transport described by its URL with the token hidden', () => {
    const s = new FakeSocket();
    const t = new WebSocketTransport(s);
    expect(t.kind).toBe('message');
    expect(t.description).toBe('ws://bridge.test/ovsdb?token=***');
    expect(s.binaryType).toBe('arraybuffer');
  });

  it('keeps messages (and a close) that arrive before attach', () => {
    const s = new FakeSocket();
    const t = new WebSocketTransport(s);
    s.emit('message', { data: '{"a":1}' });
    s.emit('message', { data: '{"a":2}' });
    s.emit('close', { code: 1000, reason: '' });
    const { handlers, log } = record();
    t.attach(handlers);
    expect(log).toEqual([
      ['message', '{"a":1}'],
      ['message', '{"a":2}'],
      ['close', undefined],
    ]);
    expect(() => t.attach(handlers)).toThrow(/already attached/);
  });

  it('decodes binary frames as UTF-8 and closes with 1007 on invalid UTF-8', () => {
    const s = new FakeSocket();
    const t = new WebSocketTransport(s);
    const { handlers, log } = record();
    t.attach(handlers);
    s.emit('message', { data: new TextEncoder().encode('{"x":"é"}').buffer });
    s.emit('message', { data: new TextEncoder().encode('{"y":1}') });
    s.emit('message', { data: new Uint8Array([0x7b, 0xff, 0x7d]) });
    expect(log.slice(0, 2)).toEqual([
      ['message', '{"x":"é"}'],
      ['message', '{"y":1}'],
    ]);
    const [kind, error] = log[2] as [string, WebSocketClosedError];
    expect(kind).toBe('close');
    expect(error).toBeInstanceOf(WebSocketClosedError);
    expect(error.code).toBe(1007);
    expect(s.closes).toEqual([[1007, 'invalid UTF-8 in a binary frame']]);
    // Nothing after the close.
    s.emit('message', { data: '{}' });
    expect(log).toHaveLength(3);
  });

  it('closes with 1003 on frame data it cannot read', () => {
    const s = new FakeSocket();
    const t = new WebSocketTransport(s);
    const { handlers, log } = record();
    t.attach(handlers);
    s.emit('message', { data: { size: 3 } });
    expect((log[0] as [string, WebSocketClosedError])[1].code).toBe(1003);
  });

  it('write returns false above the high-water mark and reports drain at the low-water mark', async () => {
    vi.useFakeTimers();
    try {
      const s = new FakeSocket();
      const t = new WebSocketTransport(s, { highWaterMark: 100, lowWaterMark: 10, drainPollMs: 5 });
      const { handlers, log } = record();
      t.attach(handlers);
      expect(t.write('a')).toBe(true);
      s.bufferedAmount = 150;
      expect(t.write('b')).toBe(false);
      expect(s.sent).toEqual(['a', 'b']);
      s.bufferedAmount = 50;
      await vi.advanceTimersByTimeAsync(20);
      expect(log).toEqual([]);
      s.bufferedAmount = 10;
      await vi.advanceTimersByTimeAsync(5);
      expect(log).toEqual([['drain']]);
      await vi.advanceTimersByTimeAsync(50);
      expect(log).toEqual([['drain']]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a JSON-RPC peer queues behind the high-water mark and flushes on drain', async () => {
    vi.useFakeTimers();
    try {
      const s = new FakeSocket();
      const peer = new JsonRpcPeer(
        new WebSocketTransport(s, { highWaterMark: 10, drainPollMs: 1 }),
      );
      s.bufferedAmount = 1000;
      void peer.request('echo', [1]).catch(() => undefined);
      void peer.request('echo', [2]).catch(() => undefined);
      void peer.request('echo', [3]).catch(() => undefined);
      expect(s.sent).toHaveLength(1);
      expect(peer.queuedWrites).toBe(2);
      s.bufferedAmount = 0;
      await vi.advanceTimersByTimeAsync(2);
      expect(s.sent.map((m) => JSON.parse(m).params[0])).toEqual([1, 2, 3]);
      peer.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not write when the socket is not open', () => {
    const s = new FakeSocket();
    s.readyState = 0;
    const t = new WebSocketTransport(s);
    expect(t.write('x')).toBe(false);
    expect(s.sent).toEqual([]);
  });

  it('close sends 1000 and reports close once the handshake ends', () => {
    const s = new FakeSocket();
    const t = new WebSocketTransport(s);
    const { handlers, log } = record();
    t.attach(handlers);
    t.close();
    t.close();
    expect(s.closes).toEqual([[1000, undefined]]);
    expect(t.write('late')).toBe(false);
    s.emit('close', { code: 1000, reason: '' });
    s.emit('close', { code: 1000, reason: '' });
    expect(log).toEqual([['close', undefined]]);
    expect(s.listenerCount()).toBe(0);
  });

  it('close reports close after closeTimeoutMs when the handshake does not end', async () => {
    vi.useFakeTimers();
    try {
      const s = new PausableSocket();
      const t = new WebSocketTransport(s, { closeTimeoutMs: 100 });
      const { handlers, log } = record();
      t.attach(handlers);
      t.close();
      await vi.advanceTimersByTimeAsync(99);
      expect(log).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(log).toEqual([['close', undefined]]);
      expect(s.terminated).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    [1000, '', undefined],
    [1005, '', undefined],
    [
      1001,
      'the bridge is shutting down',
      'WebSocket closed with code 1001 (going away): the bridge is shutting down',
    ],
    [
      1008,
      'unauthorized: invalid token',
      'WebSocket closed with code 1008 (policy violation): unauthorized: invalid token',
    ],
    [1000, 'bye', 'WebSocket closed with code 1000 (normal closure): bye'],
  ])('a close from the other side with %i %j', (code, reason, message) => {
    const s = new FakeSocket('ws://h/');
    const t = new WebSocketTransport(s);
    const { handlers, log } = record();
    t.attach(handlers);
    s.emit('close', { code, reason });
    const error = (log[0] as [string, WebSocketClosedError | undefined])[1];
    if (message === undefined) expect(error).toBeUndefined();
    else {
      expect(error).toBeInstanceOf(WebSocketClosedError);
      expect(error?.message).toBe(`ws://h/: ${message}`);
      expect(error?.code).toBe(code);
      expect(error?.reason).toBe(reason);
    }
  });

  it('an abnormal close (1006) carries the last error text', () => {
    const s = new FakeSocket('ws://h/');
    const t = new WebSocketTransport(s);
    const { handlers, log } = record();
    t.attach(handlers);
    s.emit('error', { message: 'read ECONNRESET' });
    s.emit('close', { code: 1006, reason: '' });
    const error = (log[0] as [string, WebSocketClosedError])[1];
    expect(error.message).toBe(
      'ws://h/: WebSocket closed with code 1006 (abnormal closure): read ECONNRESET',
    );
  });

  it('pause and resume reach sockets that have them', () => {
    const p = new PausableSocket();
    const t = new WebSocketTransport(p);
    expect(t.canPause).toBe(true);
    t.pause();
    t.resume();
    expect([p.paused, p.resumed]).toEqual([1, 1]);
    const plain = new WebSocketTransport(new FakeSocket());
    expect(plain.canPause).toBe(false);
    plain.pause();
  });

  it('names close codes', () => {
    expect(closeCodeName(1009)).toBe('message too big');
    expect(closeCodeName(4001)).toBe('application');
    expect(closeCodeName(1999)).toBe('unknown');
  });
});

describe('openWebSocketTransport', () => {
  it('resolves once the socket opens', async () => {
    const s = new FakeSocket();
    s.readyState = 0;
    const opening = openWebSocketTransport(() => s);
    s.emit('open', {});
    const t = await opening;
    expect(t.description).toBe('ws://bridge.test/ovsdb?token=***');
    // Only the transport's own listeners are left.
    expect(s.listenerCount()).toBe(3);
  });

  it('rejects with ConnectionClosedError carrying the close code when the socket closes first', async () => {
    const s = new FakeSocket('ws://h/');
    s.readyState = 0;
    const opening = openWebSocketTransport(() => s);
    s.emit('error', { message: 'Unexpected server response: 403' });
    s.emit('close', { code: 1006, reason: '' });
    const err = await opening.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect((err as Error).message).toBe(
      'connection closed: connect to ws://h/ failed: ws://h/: WebSocket closed with code 1006 (abnormal closure): Unexpected server response: 403',
    );
    expect(((err as Error).cause as WebSocketClosedError).code).toBe(1006);
    expect(s.listenerCount()).toBe(0);
  });

  it('times out, terminating the socket', async () => {
    vi.useFakeTimers();
    try {
      const s = new PausableSocket('ws://h/');
      s.readyState = 0;
      const opening = openWebSocketTransport(() => s, { timeoutMs: 50 }).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(50);
      const err = await opening;
      expect(err).toBeInstanceOf(ConnectionClosedError);
      expect((err as Error).message).toBe(
        'connection closed: connect to ws://h/ failed: not open within 50 ms',
      );
      expect(s.terminated).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects with the signal reason when aborted, before or while opening', async () => {
    const reason = new Error('stop');
    let created = 0;
    await expect(
      openWebSocketTransport(
        () => {
          created++;
          return new FakeSocket();
        },
        { signal: AbortSignal.abort(reason) },
      ),
    ).rejects.toBe(reason);
    expect(created).toBe(0);
    const s = new FakeSocket();
    s.readyState = 0;
    const controller = new AbortController();
    const opening = openWebSocketTransport(() => s, { signal: controller.signal });
    controller.abort(reason);
    await expect(opening).rejects.toBe(reason);
    expect(s.closes).toHaveLength(1);
  });

  it('passes on what create throws, and checks timeoutMs', async () => {
    const boom = new SyntaxError('bad URL');
    await expect(
      openWebSocketTransport(() => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    await expect(openWebSocketTransport(() => new FakeSocket(), { timeoutMs: 0 })).rejects.toThrow(
      /timeoutMs must be positive/,
    );
  });
});

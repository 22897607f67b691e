/**
 * The inactivity probe's rule, on a fake session with fake timers: `echo`
 * after P of silence and a drop after 2P when nothing is owed; no `echo` and
 * no drop before `replySilenceTimeoutMs` while a reply is owed; never a drop
 * while reads are paused; every byte counts; while a reply is owed, the
 * connection is dropped once the kernel counts `UNANSWERED_LIMIT`
 * retransmissions or probes without an answer (a lost host or path), and
 * never for a kernel whose peer answers. And the defaults: no probe on
 * `unix:` remotes, 5 s over TCP, a given interval for every remote.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  connectionConfig,
  DEFAULT_KEEPALIVE_MS,
  DEFAULT_PROBE_INTERVAL_MS,
  DEFAULT_REPLY_SILENCE_TIMEOUT_MS,
  probeIntervalFor,
} from '../../src/client/options.js';
import {
  MeteredTransport,
  type ProbedSession,
  startProbe,
  UNANSWERED_LIMIT,
} from '../../src/client/probe.js';
import { dialRemote } from '../../src/ovsdb/transport/dial-node.js';
import type { TcpKernelState } from '../../src/ovsdb/transport/tcp-state.js';
import {
  DEFAULT_MAX_REPLY_BYTES,
  DEFAULT_MAX_UNSOLICITED_BYTES,
} from '../../src/ovsdb/wire/limits.js';
import type { Transport } from '../../src/ovsdb/wire/transport.js';
import { TEST_MODEL } from './helpers/fixtures.js';

const P = 1000;

/** A session whose server answers nothing unless told; `owed` requests stay pending. */
class FakeSession implements ProbedSession {
  endReason: string | undefined;
  echoes = 0;
  owed = 0;
  private pendingEchoes: (() => void)[] = [];
  readonly metered = new MeteredTransport({} as Transport);
  /** What the kernel says of the connection (undefined: no answer, as on other systems). */
  kernelState: TcpKernelState | undefined;
  kernelReads = 0;
  readonly flow = {
    tcpState: async (): Promise<TcpKernelState | undefined> => {
      this.kernelReads++;
      return this.kernelState;
    },
  };
  endCode: string | undefined;
  readonly conn = {
    echo: (): Promise<unknown> => {
      this.echoes++;
      return new Promise((resolve) => this.pendingEchoes.push(() => resolve([])));
    },
    rpc: {
      get pendingRequests(): number {
        return session.owed + session.pendingEchoes.length;
      },
    },
  };
  end(reason: string, _error?: unknown, code?: string): void {
    if (this.endReason !== undefined) return;
    this.endReason = reason;
    this.endCode = code;
  }
  /** A byte arrives (and answers the echoes). */
  receive(): void {
    this.metered.lastRx = Date.now();
    for (const r of this.pendingEchoes.splice(0)) r();
  }
}
let session: FakeSession;
let timer: ReturnType<typeof setInterval> | undefined;

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  session = new FakeSession();
});
afterEach(() => {
  if (timer) clearInterval(timer);
  timer = undefined;
  vi.useRealTimers();
});

function start(replySilenceTimeoutMs = 10 * P, paused = () => false): void {
  timer = startProbe(session, { intervalMs: P, replySilenceTimeoutMs }, paused);
}

describe('startProbe', () => {
  it('with nothing owed: echo after P of silence, drop after 2P', async () => {
    start();
    await vi.advanceTimersByTimeAsync(P - 100);
    expect(session.echoes).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(session.echoes).toBe(1);
    expect(session.endReason).toBeUndefined();
    await vi.advanceTimersByTimeAsync(P);
    expect(session.endReason).toMatch(
      /^inactivity probe: nothing received from the server for \d+ ms$/,
    );
    expect(session.echoes).toBe(1);
  });

  it('stays up while the server answers', async () => {
    start();
    for (let i = 0; i < 20; i++) {
      await vi.advanceTimersByTimeAsync(1.5 * P);
      session.receive();
    }
    expect(session.endReason).toBeUndefined();
    expect(session.echoes).toBeGreaterThanOrEqual(10);
  });

  it('while a reply is owed: no echo and no drop until replySilenceTimeoutMs', async () => {
    session.owed = 1;
    start(10 * P);
    await vi.advanceTimersByTimeAsync(9.5 * P);
    expect(session.echoes).toBe(0);
    expect(session.endReason).toBeUndefined();
    await vi.advanceTimersByTimeAsync(P);
    expect(session.endReason).toMatch(
      /nothing received from the server for \d+ ms while waiting for a reply \(replySilenceTimeoutMs 10000\)/,
    );
  });

  it('a reply arriving in pieces keeps the connection alive however long it takes', async () => {
    session.owed = 1;
    start(3 * P);
    for (let i = 0; i < 30; i++) {
      await vi.advanceTimersByTimeAsync(P);
      session.receive();
    }
    expect(session.endReason).toBeUndefined();
    // The reply is in: nothing owed, so the usual rule again.
    session.owed = 0;
    await vi.advanceTimersByTimeAsync(2.5 * P);
    expect(session.echoes).toBe(1);
    expect(session.endReason).toMatch(/^inactivity probe/);
  });

  it('without a reply-silence limit, an owed reply is waited for without end', async () => {
    session.owed = 1;
    start(0);
    await vi.advanceTimersByTimeAsync(1000 * P);
    expect(session.endReason).toBeUndefined();
    expect(session.echoes).toBe(0);
  });

  it('the reply-silence limit is at least 2P', async () => {
    session.owed = 1;
    start(P / 2);
    await vi.advanceTimersByTimeAsync(1.5 * P);
    expect(session.endReason).toBeUndefined();
    await vi.advanceTimersByTimeAsync(P);
    expect(session.endReason).toMatch(/while waiting for a reply/);
  });

  it('its own echoes do not count as owed replies', async () => {
    start(100 * P);
    await vi.advanceTimersByTimeAsync(1.2 * P);
    expect(session.echoes).toBe(1);
    expect(session.conn.rpc.pendingRequests).toBe(1);
    await vi.advanceTimersByTimeAsync(P);
    expect(session.endReason).toMatch(/^inactivity probe/);
  });

  it('while reads are paused: echo every P, never a drop', async () => {
    session.owed = 1;
    start(2 * P, () => true);
    await vi.advanceTimersByTimeAsync(10.1 * P);
    expect(session.endReason).toBeUndefined();
    expect(session.echoes).toBeGreaterThanOrEqual(9);
  });

  it('while a reply is owed: dropped once the kernel counts UNANSWERED_LIMIT retransmissions', async () => {
    session.owed = 1;
    start(100 * P);
    // The kernel is asked only after P of silence.
    session.kernelState = {
      unacknowledgedBytes: 120,
      retransmits: UNANSWERED_LIMIT - 1,
      unansweredProbes: 0,
    };
    await vi.advanceTimersByTimeAsync(0.9 * P);
    expect(session.kernelReads).toBe(0);
    await vi.advanceTimersByTimeAsync(2 * P);
    expect(session.kernelReads).toBeGreaterThan(0);
    expect(session.endReason).toBeUndefined();
    session.kernelState = {
      unacknowledgedBytes: 120,
      retransmits: UNANSWERED_LIMIT,
      unansweredProbes: 0,
    };
    await vi.advanceTimersByTimeAsync(P / 2);
    expect(session.endReason).toBe(
      `the server's host acknowledges nothing: 120 bytes sent ${UNANSWERED_LIMIT} times without an acknowledgement while waiting for a reply`,
    );
    expect(session.endCode).toBe('path_lost');
    expect(session.echoes).toBe(0);
  });

  it('while a reply is owed: dropped once UNANSWERED_LIMIT keepalive probes go unanswered', async () => {
    session.owed = 1;
    start(100 * P);
    session.kernelState = {
      unacknowledgedBytes: 0,
      retransmits: 0,
      unansweredProbes: UNANSWERED_LIMIT,
    };
    await vi.advanceTimersByTimeAsync(1.5 * P);
    expect(session.endReason).toMatch(
      /^the server's host answers nothing: 5 TCP probes without an answer/,
    );
  });

  it('a host that answers (a busy or stopped server process) is waited for', async () => {
    session.owed = 1;
    start(100 * P);
    // Acknowledged bytes, answered zero-window probes: a live kernel.
    session.kernelState = { unacknowledgedBytes: 5_000_000, retransmits: 0, unansweredProbes: 1 };
    await vi.advanceTimersByTimeAsync(50 * P);
    expect(session.kernelReads).toBeGreaterThan(40);
    expect(session.endReason).toBeUndefined();
    // No table to read (another system): the reply-silence limit still holds.
    session.kernelState = undefined;
    await vi.advanceTimersByTimeAsync(51 * P);
    expect(session.endReason).toMatch(/replySilenceTimeoutMs 100000/);
  });

  it('bytes that arrive while the kernel is asked are an answer', async () => {
    session.owed = 1;
    session.kernelState = { unacknowledgedBytes: 1, retransmits: 9, unansweredProbes: 0 };
    session.flow.tcpState = async () => {
      session.kernelReads++;
      session.receive();
      return session.kernelState;
    };
    start(100 * P);
    await vi.advanceTimersByTimeAsync(1.5 * P);
    expect(session.kernelReads).toBe(1);
    expect(session.endReason).toBeUndefined();
  });

  it('nothing owed: the kernel is not asked (the echo rule decides)', async () => {
    session.kernelState = { unacknowledgedBytes: 1, retransmits: 9, unansweredProbes: 0 };
    start();
    await vi.advanceTimersByTimeAsync(2.5 * P);
    expect(session.kernelReads).toBe(0);
    expect(session.endReason).toMatch(/^inactivity probe/);
  });

  it('interval 0: no probe', () => {
    expect(startProbe(session, { intervalMs: 0, replySilenceTimeoutMs: 0 }, () => false)).toBe(
      undefined,
    );
  });
});

describe('connection defaults', () => {
  const config = (options: Record<string, unknown> = {}) =>
    connectionConfig(
      {
        remotes: 'unix:/run/db.sock,tcp:10.0.0.1:6641,ssl:10.0.0.2:6641,ws://h:1/x',
        model: TEST_MODEL,
        ...options,
      },
      dialRemote,
    );

  it('no probe on unix: remotes, 5 s over TCP', () => {
    const c = config();
    expect(probeIntervalFor(c, 'unix:/run/db.sock')).toBe(0);
    for (const r of ['tcp:10.0.0.1:6641', 'ssl:10.0.0.2:6641', 'ws://h:1/x', 'wss://h:1/x'])
      expect(probeIntervalFor(c, r)).toBe(DEFAULT_PROBE_INTERVAL_MS);
    expect(DEFAULT_PROBE_INTERVAL_MS).toBe(5000);
    expect(c.keepAliveMs).toBe(DEFAULT_KEEPALIVE_MS);
    expect(c.replySilenceTimeoutMs).toBe(DEFAULT_REPLY_SILENCE_TIMEOUT_MS);
    expect(c.maxMessageBytes).toBe(DEFAULT_MAX_REPLY_BYTES);
    expect(c.maxUnsolicitedBytes).toBe(DEFAULT_MAX_UNSOLICITED_BYTES);
  });

  it('a given interval applies to every remote', () => {
    const c = config({ probeIntervalMs: 180_000 });
    expect(probeIntervalFor(c, 'unix:/run/db.sock')).toBe(180_000);
    expect(probeIntervalFor(c, 'tcp:10.0.0.1:6641')).toBe(180_000);
    expect(probeIntervalFor(config({ probeIntervalMs: 0 }), 'tcp:10.0.0.1:6641')).toBe(0);
  });

  it('the default limits admit a 1M-port initial reply (about 350 B a port)', () => {
    expect(DEFAULT_MAX_REPLY_BYTES).toBeGreaterThanOrEqual(2 * 350 * 1_000_000);
    expect(DEFAULT_MAX_UNSOLICITED_BYTES).toBe(64 * 1024 * 1024);
  });

  it('the unsolicited limit is never above maxMessageBytes', () => {
    expect(config({ maxMessageBytes: 1000 }).maxUnsolicitedBytes).toBe(1000);
    expect(config({ maxMessageBytes: 1000, maxUnsolicitedBytes: 100 }).maxUnsolicitedBytes).toBe(
      100,
    );
  });

  it('rejects negative intervals and limits below 2 bytes', () => {
    expect(() => config({ probeIntervalMs: -1 })).toThrow(RangeError);
    expect(() => config({ replySilenceTimeoutMs: Number.NaN })).toThrow(RangeError);
    expect(() => config({ keepAliveMs: -5 })).toThrow(RangeError);
    expect(() => config({ maxMessageBytes: 1 })).toThrow(RangeError);
    expect(() => config({ maxUnsolicitedBytes: 0 })).toThrow(RangeError);
  });
});

/**
 * The inactivity probe: after `interval` ms without a byte from the server
 * the client sends `echo`, and after twice as long it drops the connection.
 * While reads are paused (backpressure) nothing can arrive, so the probe
 * then only keeps the server's own probe satisfied.
 * @module
 */

import type { Transport, TransportHandlers } from '../ovsdb/wire/transport.js';

/** Records when bytes last arrived. */
export class MeteredTransport implements Transport {
  lastRx = Date.now();
  constructor(private readonly inner: Transport) {}
  get kind(): 'stream' | 'message' {
    return this.inner.kind;
  }
  get description(): string {
    return this.inner.description;
  }
  attach(handlers: TransportHandlers): void {
    this.inner.attach({
      data: (chunk) => {
        this.lastRx = Date.now();
        handlers.data(chunk);
      },
      message: (text) => {
        this.lastRx = Date.now();
        handlers.message(text);
      },
      drain: () => handlers.drain(),
      close: (error) => handlers.close(error),
    });
  }
  write(text: string): boolean {
    return this.inner.write(text);
  }
  close(): void {
    this.inner.close();
  }
}

/** What the probe watches: one session. */
export interface ProbedSession {
  /** Set once the session is ending: the probe stops acting. */
  readonly endReason: string | undefined;
  readonly metered: MeteredTransport;
  readonly conn: { echo(...args: unknown[]): Promise<unknown> };
  end(reason: string): void;
}

/**
 * Start probing `s` every quarter of `interval` (at least 10 ms); returns
 * the timer to clear when the session ends, or undefined when `interval`
 * disables the probe.
 * @param readsPaused - true while the client does not read the socket.
 */
export function startProbe(
  s: ProbedSession,
  interval: number,
  readsPaused: () => boolean,
): ReturnType<typeof setInterval> | undefined {
  if (!(interval > 0)) return undefined;
  let lastEchoAt = 0;
  const tick = () => {
    if (s.endReason !== undefined) return;
    const now = Date.now();
    const idle = now - s.metered.lastRx;
    if (idle < interval) return;
    if (!readsPaused() && idle >= 2 * interval) {
      s.end(`inactivity probe: nothing received from the server for ${idle} ms`);
      return;
    }
    if (lastEchoAt <= s.metered.lastRx || now - lastEchoAt >= interval) {
      lastEchoAt = now;
      s.conn.echo('ovnkit-probe').catch(() => {});
    }
  };
  const probe = setInterval(tick, Math.max(10, Math.floor(interval / 4)));
  probe.unref?.();
  return probe;
}

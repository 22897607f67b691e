/**
 * The inactivity probe, and how the client decides that a server is gone.
 *
 * Every byte from the server counts as a sign of life (a large reply
 * arriving in pieces keeps the connection alive however long it takes). With
 * a probe interval P (see `DatabaseClientOptions.probeIntervalMs`):
 *
 * - **Nothing owed**: when no request of the client's is outstanding, after
 *   P ms without a byte the client sends `echo`, and after 2P ms it drops
 *   the connection (Open vSwitch's rule).
 * - **A reply owed**: while a request of the client's other than its own
 *   `echo` is outstanding (the initial monitor reply, a transaction), the
 *   server may be busy building the reply: ovsdb-server writes nothing while
 *   it builds the initial reply of a large database (some 20 s for 500k
 *   logical switch ports on a small machine) and answers no `echo` meanwhile.
 *   Silence is then no verdict: no `echo` is sent, and TCP keepalive (on by
 *   default for remotes over TCP, answered by the server's kernel however
 *   busy the server process is) watches the host and the path. The
 *   connection is dropped when keepalive fails, or when the silence reaches
 *   `replySilenceTimeoutMs` (a stuck server process).
 * - **Reads paused** (the client's event queue is full): nothing can
 *   arrive, so the probe never drops the connection and only sends `echo`
 *   every P ms to keep the server's own probe satisfied.
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
  readonly conn: {
    echo(...args: unknown[]): Promise<unknown>;
    /** The requests sent and not yet answered (echoes included). */
    readonly rpc: { readonly pendingRequests: number };
  };
  end(reason: string): void;
}

/** How one session is probed. */
export interface ProbeSettings {
  /** P: `echo` after this many ms of silence, drop after 2P; 0 disables the probe. */
  readonly intervalMs: number;
  /**
   * The longest silence while a reply is owed (at least 2P); 0: no limit.
   */
  readonly replySilenceTimeoutMs: number;
}

/**
 * Start probing `s` every quarter of the interval (at least 10 ms, at most
 * a second); returns the timer to clear when the session ends, or undefined
 * when the interval is 0 (no probe).
 * @param readsPaused - true while the client does not read the socket.
 */
export function startProbe(
  s: ProbedSession,
  settings: ProbeSettings,
  readsPaused: () => boolean,
): ReturnType<typeof setInterval> | undefined {
  const interval = settings.intervalMs;
  if (!(interval > 0)) return undefined;
  const replyLimit =
    settings.replySilenceTimeoutMs > 0
      ? Math.max(2 * interval, settings.replySilenceTimeoutMs)
      : Number.POSITIVE_INFINITY;
  let lastEchoAt = 0;
  let echoes = 0;
  const echo = (now: number) => {
    lastEchoAt = now;
    echoes++;
    s.conn.echo('ovnkit-probe').then(
      () => echoes--,
      () => echoes--,
    );
  };
  const tick = () => {
    if (s.endReason !== undefined) return;
    const now = Date.now();
    const idle = now - s.metered.lastRx;
    if (idle < interval) return;
    const echoDue = lastEchoAt <= s.metered.lastRx || now - lastEchoAt >= interval;
    if (readsPaused()) {
      if (echoDue) echo(now);
      return;
    }
    if (s.conn.rpc.pendingRequests > echoes) {
      // A reply is owed: the server may be busy building it.
      if (idle >= replyLimit) {
        s.end(
          `inactivity probe: nothing received from the server for ${idle} ms while waiting for a reply (replySilenceTimeoutMs ${settings.replySilenceTimeoutMs})`,
        );
      }
      return;
    }
    if (idle >= 2 * interval) {
      s.end(`inactivity probe: nothing received from the server for ${idle} ms`);
      return;
    }
    if (echoDue) echo(now);
  };
  const probe = setInterval(tick, Math.min(1000, Math.max(10, Math.floor(interval / 4))));
  probe.unref?.();
  return probe;
}

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
 *   Silence is then no verdict: no `echo` is sent. The server's kernel
 *   still acknowledges the client's bytes and answers TCP keepalive probes
 *   however busy the server process is, so once the silence reaches P the
 *   client asks its own kernel, every tick, whether the server's host
 *   answers (see `tcp-state.ts`, Linux): when the kernel counts
 *   {@link UNANSWERED_LIMIT} retransmissions of unacknowledged bytes, or as
 *   many keepalive or zero-window probes, in a row without an answer, the
 *   host or the path is lost and the connection is dropped. TCP keepalive
 *   itself (on by default over TCP) ends the connection after 10 unanswered
 *   probes where the kernel cannot be asked; and the connection is dropped
 *   when the silence reaches `replySilenceTimeoutMs` (a stuck server
 *   process, or a host lost where neither applies).
 * - **Reads paused** (the client's event queue is full): nothing can
 *   arrive, so the probe never drops the connection and only sends `echo`
 *   every P ms to keep the server's own probe satisfied.
 * @module
 */

import type { ReconnectReason } from '../observability/metrics.js';
import type { TcpKernelState, TcpStateReader } from '../ovsdb/transport/tcp-state.js';
import type { Transport, TransportHandlers } from '../ovsdb/wire/transport.js';

/**
 * How many retransmissions of unacknowledged bytes, or keepalive or
 * zero-window probes, in a row without an answer mean that the server's
 * host or the path to it is lost: about 6 s after the first send at the
 * kernel's shortest retransmission timeout (0.2, 0.6, 1.4, 3.0, 6.2 s), 5 s
 * after keepalive started probing. A live host answers each of them within
 * a round trip, however busy its server process is.
 */
export const UNANSWERED_LIMIT = 5;

/** Records when bytes last arrived. */
export class MeteredTransport implements Transport {
  /** The probe's clock: when bytes last arrived, or the connection opened, or reads resumed. */
  lastRx = Date.now();
  /**
   * @param received - where the time bytes last arrived is also written
   *   (shared by a client's connections: its health's message age).
   */
  constructor(
    private readonly inner: Transport,
    private readonly received: { at: number } = { at: 0 },
  ) {}
  get kind(): 'stream' | 'message' {
    return this.inner.kind;
  }
  get description(): string {
    return this.inner.description;
  }
  attach(handlers: TransportHandlers): void {
    this.inner.attach({
      data: (chunk) => {
        this.arrived();
        handlers.data(chunk);
      },
      message: (text) => {
        this.arrived();
        handlers.message(text);
      },
      drain: () => handlers.drain(),
      close: (error) => handlers.close(error),
    });
  }
  private arrived(): void {
    const now = Date.now();
    this.lastRx = now;
    this.received.at = now;
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
  /** The kernel's view of the connection (where it can be read). */
  readonly flow: { readonly tcpState?: TcpStateReader | undefined };
  readonly conn: {
    echo(...args: unknown[]): Promise<unknown>;
    /** The requests sent and not yet answered (echoes included). */
    readonly rpc: { readonly pendingRequests: number };
  };
  end(reason: string, error?: unknown, code?: ReconnectReason): void;
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
  const kernel = s.flow.tcpState;
  /** A question to the kernel is under way. */
  let asking = false;
  const askKernel = (read: TcpStateReader) => {
    asking = true;
    const rx = s.metered.lastRx;
    read().then(
      (state) => {
        asking = false;
        // Bytes that arrived meanwhile are an answer.
        if (s.endReason !== undefined || s.metered.lastRx !== rx || state === undefined) return;
        const lost = unanswered(state);
        if (lost !== undefined) s.end(`${lost} while waiting for a reply`, undefined, 'path_lost');
      },
      () => {
        asking = false;
      },
    );
  };
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
      } else if (kernel !== undefined && !asking) {
        askKernel(kernel);
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

/**
 * Why `state` says the server's host or the path to it is lost, or
 * undefined when the host answers.
 */
export function unanswered(state: TcpKernelState): string | undefined {
  if (state.unacknowledgedBytes > 0 && state.retransmits >= UNANSWERED_LIMIT) {
    return `the server's host acknowledges nothing: ${state.unacknowledgedBytes} bytes sent ${state.retransmits} times without an acknowledgement`;
  }
  if (state.unansweredProbes >= UNANSWERED_LIMIT) {
    return `the server's host answers nothing: ${state.unansweredProbes} TCP probes without an answer`;
  }
  return undefined;
}

/**
 * One client connection of a test database, seen from the server: the
 * in-process connection a client dials, wrapped on the server's side to
 * record the transactions that pass and to inject faults (a dropped
 * connection, a lost reply, a half-open connection, delayed replies, a
 * failed transaction), and on the client's side to tell when the client
 * has received everything the server sent.
 *
 * Nothing here changes how the server handles what reaches it: a fault
 * acts on the connection, as a network or a crash would, and the server
 * and the client behave as they would over a socket.
 * @module
 */

import type { DialedTransport } from '../../ovsdb/transport/dial.js';
import { joinPieces, stringifyJson } from '../../ovsdb/wire/json-stringify.js';
import { parseJsonMessage } from '../../ovsdb/wire/json-text.js';
import type { Transport } from '../../ovsdb/wire/transport.js';
import type { InProcessTransport } from '../../server/listeners/in-process-transport.js';
import type { ChannelHandlers, SessionChannel } from '../../server/rpc/channel.js';
import { jsonKey } from '../../server/rpc/session.js';

/** An OVSDB error for {@link TestSession.failNextTransaction}, as ovsdb-server writes one. */
export interface InjectedError {
  /** The error name, e.g. `constraint violation`, `timed out`, `I/O error`. */
  readonly error: string;
  /** The human-readable details, if any. */
  readonly details?: string | undefined;
}

/** How a recorded transaction ended. */
export type RecordedOutcome =
  /** Every operation succeeded (the changes, if any, were committed). */
  | 'committed'
  /** An operation or the commit failed: nothing was committed. */
  | 'failed'
  /** A JSON-RPC error answered it (`canceled`, `unknown database`, …). */
  | 'error'
  /** The connection ended before a reply reached the client. */
  | 'no reply'
  /** No reply yet. */
  | 'pending';

/** One `transact` request a client sent, with how it ended. */
export interface RecordedTransaction {
  /** The label of the connection that sent it (see `TestDatabase.dial`). */
  readonly session: string;
  /** The database it named. */
  readonly database: string;
  /** Its operations, as sent (wire JSON). */
  readonly ops: readonly unknown[];
  /** How it ended so far. */
  readonly outcome: RecordedOutcome;
  /** The reply's result array, once answered without a JSON-RPC error. */
  readonly results?: readonly unknown[] | undefined;
  /** The JSON-RPC error of the reply, when it had one. */
  readonly error?: unknown;
}

/** What a session reports to its database. */
export interface SessionHost {
  /** Whether any recorder is on (requests are only parsed then, or when a fault needs it). */
  recording(): boolean;
  /** A transaction was sent on session `label`. */
  record(t: RecordedTransaction): void;
  /** The session ended. */
  ended(s: TestSession): void;
}

/** Options of {@link TestSession.dropAfter}. */
export interface DropAfterOptions {
  /** Count only requests of this method (e.g. `transact`); by default every message counts. */
  readonly method?: string | undefined;
  /**
   * Whether the server handles the last counted message before the
   * connection drops (default true): a transaction then commits and its
   * reply is lost. With false, it is lost before reaching the server.
   */
  readonly handle?: boolean | undefined;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Whether `r` is an OVSDB error object (in a result array). */
export function isErrorResult(r: unknown): boolean {
  return typeof r === 'object' && r !== null && 'error' in r;
}

/**
 * One client connection of a test database, with the faults a test can
 * inject into it. Find it with `TestDatabase.session(label)`.
 */
export class TestSession {
  /** The server end given to the server (wrapped). */
  readonly channel: SessionChannel;
  /** The client end, for the client's dialer (wrapped). */
  readonly dialed: DialedTransport;

  private handlers: ChannelHandlers | undefined;
  private isClosed = false;
  private halfOpenNow = false;
  /** While true, what the server writes is lost (the connection is about to drop). */
  private swallowing = false;
  private delayMs = 0;
  private readonly delayed: { at: number; text: string }[] = [];
  private delayTimer: ReturnType<typeof setTimeout> | undefined;
  private failNext: InjectedError | undefined;
  private dropRule: { method: string | undefined; left: number; handle: boolean } | undefined;
  /** Recorded transactions waiting for their reply, and requests whose reply is rewritten, by id. */
  private readonly awaiting = new Map<string, Mutable<RecordedTransaction>>();
  private readonly rewrites = new Map<string, InjectedError>();
  private written = 0;
  private delivered = 0;
  private waiters: { target: number; resolve: () => void }[] = [];

  /**
   * @param label The connection's label: the remote the client dialed, without `unix:`.
   * @param server The server end of an in-process pair.
   * @param client The client end of the same pair.
   */
  constructor(
    readonly label: string,
    private readonly server: SessionChannel,
    client: InProcessTransport,
    private readonly host: SessionHost,
  ) {
    const self = this;
    this.channel = {
      kind: 'message',
      name: server.name,
      probes: false,
      attach(handlers) {
        self.handlers = handlers;
        server.attach({
          ...handlers,
          message: (text) => self.fromClient(text),
          close: () => {
            self.ended();
            handlers.close();
          },
        });
      },
      write: (text) => {
        let whole: string;
        try {
          whole = joinPieces(text);
        } catch {
          // Longer than one string: the in-process end closes the connection for it.
          server.write(text);
          return;
        }
        self.toClient(whole);
      },
      close: () => server.close(),
      abort: () => server.abort(),
    };
    const transport: Transport = {
      kind: 'message',
      description: `unix:${label}`,
      attach(handlers) {
        client.attach({
          ...handlers,
          message: (text) => {
            handlers.message(text);
            self.delivered++;
            self.wake();
          },
          close: (error) => {
            self.ended();
            handlers.close(error);
          },
        });
      },
      write: (text) => client.write(text),
      close: () => client.close(),
    };
    this.dialed = { transport, pause: () => client.pause(), resume: () => client.resume() };
  }

  /** The connection's name in the server's log, e.g. `inprocess#3`. */
  get name(): string {
    return this.server.name;
  }

  /** True once the connection ended. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** True while held half-open ({@link TestSession.halfOpen}). */
  get isHalfOpen(): boolean {
    return this.halfOpenNow;
  }

  /** Drop the connection now, as a reset: nothing more passes either way. */
  drop(): void {
    if (this.isClosed) return;
    this.swallowing = true;
    this.server.abort();
  }

  /**
   * Drop the connection once the server has received `count` more messages
   * (of `options.method` only, when given). The last one is handled first
   * unless `options.handle` is false, and nothing the server writes after
   * it reaches the client: a `transact` commits and its reply is lost, the
   * case where a client cannot know the outcome from the reply.
   */
  dropAfter(count: number, options: DropAfterOptions = {}): void {
    if (!Number.isInteger(count) || count < 1) {
      throw new RangeError(`dropAfter: count must be a positive integer, not ${count}`);
    }
    this.dropRule = { method: options.method, left: count, handle: options.handle !== false };
  }

  /**
   * Hold the connection half-open, as a peer that vanished without a word:
   * nothing the client sends is handled, nothing is sent back, and nothing
   * closes it. The client must notice by its own liveness rules (its
   * inactivity probe). {@link TestSession.heal} ends it.
   */
  halfOpen(): void {
    this.halfOpenNow = true;
    this.wake();
  }

  /**
   * Deliver everything the server sends to this client `ms` later (replies
   * and updates alike, in order; nothing is reordered). 0 ends the delay.
   */
  delayReplies(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`delayReplies: ms must be ≥ 0, not ${ms}`);
    this.delayMs = ms;
    if (ms === 0) this.pump(true);
  }

  /**
   * Make the next transaction on this connection (on any database but
   * `_Server`) fail with `error`: its operations run, nothing is committed,
   * and the reply carries `error` after the results of the operations, as
   * ovsdb-server reports an error found at commit (a constraint, an I/O
   * error, …).
   */
  failNextTransaction(error: InjectedError): void {
    this.failNext = error;
  }

  /** End a half-open hold and a delay (what was delayed is sent at once). */
  heal(): void {
    this.halfOpenNow = false;
    this.delayReplies(0);
  }

  /**
   * Resolves once the client has received every message the server sent it
   * so far: at once when the connection is closed or held half-open.
   */
  caughtUp(): Promise<void> {
    if (this.isClosed || this.halfOpenNow || this.delivered >= this.written) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push({ target: this.written, resolve }));
  }

  // ---- internals ----------------------------------------------------------

  private fromClient(text: string): void {
    const handlers = this.handlers;
    if (handlers === undefined || this.isClosed || this.halfOpenNow || this.swallowing) return;
    const recording = this.host.recording();
    if (!recording && this.failNext === undefined && this.dropRule === undefined) {
      handlers.message(text);
      return;
    }
    let m: { method?: unknown; params?: unknown; id?: unknown };
    try {
      m = parseJsonMessage(text) as typeof m;
    } catch {
      handlers.message(text); // the server judges bad input itself
      return;
    }
    const params = Array.isArray(m?.params) ? (m.params as unknown[]) : undefined;
    const database = params?.[0];
    const txn =
      m.method === 'transact' &&
      m.id !== undefined &&
      m.id !== null &&
      typeof database === 'string' &&
      database !== '_Server';
    let out = text;
    if (txn && recording) {
      const entry: Mutable<RecordedTransaction> = {
        session: this.label,
        database: database as string,
        ops: (params as unknown[]).slice(1),
        outcome: 'pending',
      };
      this.awaiting.set(jsonKey(m.id), entry);
      this.host.record(entry);
    }
    if (txn && this.failNext !== undefined) {
      // The operations run, then `abort` fails the transaction; its error in
      // the reply is replaced by the injected one.
      this.rewrites.set(jsonKey(m.id), this.failNext);
      this.failNext = undefined;
      out = stringifyJson({ ...m, params: [...(params as unknown[]), { op: 'abort' }] });
    }
    const rule = this.dropRule;
    if (rule !== undefined && (rule.method === undefined || rule.method === m.method)) {
      rule.left--;
      if (rule.left === 0) {
        this.dropRule = undefined;
        this.swallowing = true;
        if (rule.handle) handlers.message(out);
        this.server.abort();
        return;
      }
    }
    handlers.message(out);
  }

  private toClient(text: string): void {
    if (this.isClosed || this.swallowing || this.halfOpenNow) return;
    let out = text;
    if (
      (this.awaiting.size > 0 || this.rewrites.size > 0) &&
      text.startsWith('{"id":') &&
      !text.startsWith('{"id":null')
    ) {
      out = this.reply(text);
    }
    this.written++;
    if (this.delayMs === 0 && this.delayed.length === 0) {
      this.server.write(out);
      return;
    }
    this.delayed.push({ at: Date.now() + this.delayMs, text: out });
    this.pump(false);
  }

  /** A reply: note it in its recorded transaction, apply an injected error. */
  private reply(text: string): string {
    const m = parseJsonMessage(text) as { id?: unknown; result?: unknown; error?: unknown };
    const key = jsonKey(m.id);
    let out = text;
    const injected = this.rewrites.get(key);
    if (injected !== undefined) {
      this.rewrites.delete(key);
      if (Array.isArray(m.result)) {
        const results = [...m.result];
        const last = results[results.length - 1] as { error?: unknown } | undefined;
        if (last?.error === 'aborted') {
          results[results.length - 1] =
            injected.details === undefined
              ? { error: injected.error }
              : { error: injected.error, details: injected.details };
        }
        m.result = results;
        out = stringifyJson(m);
      }
    }
    const entry = this.awaiting.get(key);
    if (entry !== undefined) {
      this.awaiting.delete(key);
      if (m.error !== undefined && m.error !== null) {
        entry.outcome = 'error';
        entry.error = m.error;
      } else {
        const results = Array.isArray(m.result) ? (m.result as unknown[]) : [];
        entry.results = results;
        entry.outcome = results.some(isErrorResult) ? 'failed' : 'committed';
      }
    }
    return out;
  }

  /** Send what is due of the delayed messages (all with `all`), and wait for the rest. */
  private pump(all: boolean): void {
    if (this.delayTimer !== undefined) clearTimeout(this.delayTimer);
    this.delayTimer = undefined;
    const now = Date.now();
    while (this.delayed.length > 0) {
      const head = this.delayed[0] as { at: number; text: string };
      if (!all && head.at > now) break;
      this.delayed.shift();
      if (!this.isClosed) this.server.write(head.text);
    }
    const next = this.delayed[0];
    if (next !== undefined) {
      this.delayTimer = setTimeout(() => this.pump(false), Math.max(1, next.at - now));
    }
  }

  private ended(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    if (this.delayTimer !== undefined) clearTimeout(this.delayTimer);
    this.delayed.length = 0;
    for (const entry of this.awaiting.values()) entry.outcome = 'no reply';
    this.awaiting.clear();
    this.wake();
    this.host.ended(this);
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const done = this.isClosed || this.halfOpenNow;
    const left: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (done || this.delivered >= w.target) w.resolve();
      else left.push(w);
    }
    this.waiters = left;
  }
}

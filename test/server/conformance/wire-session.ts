/**
 * A raw JSON-RPC session for the conformance suite: it writes exactly the
 * messages a test gives it and records every message the server sends, in
 * arrival order, without interpreting them (no automatic echo replies).
 * @module
 */

import { connect, type Socket } from 'node:net';
import { JsonStreamFramer } from '../../../src/ovsdb/wire/framer.js';
import { stringifyJson } from '../../../src/ovsdb/wire/json-stringify.js';

/** A message from the server, as parsed. */
export type Message = Record<string, unknown>;

interface Waiter {
  readonly match: (m: Message) => boolean;
  readonly resolve: (m: Message) => void;
  readonly reject: (e: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** One raw connection to a server's unix socket. */
export class WireSession {
  /** Every message received, in order. */
  readonly received: Message[] = [];
  /** Index in {@link WireSession.received} up to which {@link WireSession.take} has consumed. */
  private consumed = 0;
  private waiters: Waiter[] = [];
  private nextId = 1;
  private isClosed = false;
  private readonly framer = new JsonStreamFramer();

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      let messages: unknown[];
      try {
        messages = this.framer.push(chunk);
      } catch (e) {
        this.fail(e as Error);
        return;
      }
      for (const m of messages) this.record(m as Message);
    });
    socket.on('close', () => {
      this.isClosed = true;
      this.fail(new Error('connection closed by the server'));
    });
    socket.on('error', () => undefined);
  }

  /** Connect to `unix:<path>` (or a bare path). */
  static open(remote: string): Promise<WireSession> {
    const path = remote.startsWith('unix:') ? remote.slice(5) : remote;
    return new Promise((resolve, reject) => {
      const s = connect(path);
      s.once('connect', () => {
        s.off('error', reject);
        resolve(new WireSession(s));
      });
      s.once('error', reject);
    });
  }

  /** True once the server closed the connection. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Write raw text. */
  writeRaw(text: string): void {
    if (!this.isClosed) this.socket.write(text);
  }

  /** Send a message object as is. */
  send(message: unknown): void {
    this.writeRaw(stringifyJson(message));
  }

  /** Send a notification. */
  notify(method: string, params: unknown[]): void {
    this.send({ method, params, id: null });
  }

  /** Send a request with the next numeric id (or `id`); resolves with its reply message. */
  request(method: string, params: unknown[], id?: unknown): Promise<Message> {
    const rid = id ?? this.nextId++;
    const reply = this.waitFor((m) => !('method' in m) && sameId(m.id, rid));
    this.send({ method, params, id: rid });
    return reply;
  }

  /** Send a request and return everything received up to and including its reply. */
  async requestAndTake(method: string, params: unknown[], id?: unknown): Promise<Message[]> {
    await this.request(method, params, id);
    return this.take();
  }

  /** The messages received since the last `take`, consumed. */
  take(): Message[] {
    const out = this.received.slice(this.consumed);
    this.consumed = this.received.length;
    return out;
  }

  /**
   * Wait until everything the server sent before answering an `echo` sent
   * now has arrived, and return the messages received since the last `take`
   * (the echo reply left out). For a closed session, returns what arrived.
   */
  async sync(): Promise<Message[]> {
    if (this.isClosed) return this.take();
    const id = `sync-${this.nextId++}`;
    try {
      await this.request('echo', ['sync'], id);
    } catch {
      return this.take();
    }
    return this.take().filter((m) => !(sameId(m.id, id) && 'result' in m));
  }

  /** Resolve with the first future (or not yet consumed) message that `match` accepts. */
  waitFor(match: (m: Message) => boolean, timeoutMs = 10_000): Promise<Message> {
    for (let i = this.consumed; i < this.received.length; i++) {
      const m = this.received[i] as Message;
      if (match(m)) return Promise.resolve(m);
    }
    if (this.isClosed) return Promise.reject(new Error('connection closed by the server'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no matching message within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = { match, resolve, reject, timer };
      this.waiters.push(waiter);
    });
  }

  /** Close the connection. */
  close(): void {
    this.socket.destroy();
  }

  private record(m: Message): void {
    this.received.push(m);
    for (const w of [...this.waiters]) {
      if (w.match(m)) {
        clearTimeout(w.timer);
        this.waiters = this.waiters.filter((x) => x !== w);
        w.resolve(m);
      }
    }
  }

  private fail(e: Error): void {
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(e);
    }
    this.waiters = [];
  }
}

function sameId(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  return stringifyJson(a) === stringifyJson(b);
}

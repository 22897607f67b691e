/**
 * The raw client: a Unix socket that writes pre-serialized JSON-RPC text and
 * finds the boundaries of the messages it receives with a byte scanner. In
 * counting mode it only counts them (the ceiling a client library is
 * compared with); in capturing mode it also hands each complete message's
 * bytes to a callback (for a raw monitor that parses, and for setup and
 * verification requests).
 * @module
 */

import { connect, type Socket } from 'node:net';

/** A raw JSON-RPC socket client. */
export class RawClient {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private received = 0;
  private waiters: { n: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  private parts: Buffer[] = [];
  private closedError: Error | undefined;
  /** Called with each complete message's bytes while set. */
  onMessage: ((bytes: Buffer) => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.scan(chunk));
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.fail(new Error('raw client: the server closed the connection')));
  }

  /** Connect to the Unix socket at `path`. */
  static open(path: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = connect(path);
      s.once('connect', () => {
        s.removeListener('error', reject);
        resolve(new RawClient(s));
      });
      s.once('error', reject);
    });
  }

  /** Write text as is. */
  write(text: string): void {
    this.socket.write(text);
  }

  /** Messages received so far. */
  get count(): number {
    return this.received;
  }

  /** Resolves once `n` messages in total have been received. */
  until(n: number): Promise<void> {
    if (this.received >= n) return Promise.resolve();
    if (this.closedError) return Promise.reject(this.closedError);
    return new Promise((resolve, reject) => this.waiters.push({ n, resolve, reject }));
  }

  /**
   * Send one request (`id` is set here) and resolve with its parsed reply.
   * Other messages received meanwhile (notifications) are ignored. Not for
   * timed sections.
   */
  async request(method: string, params: readonly unknown[]): Promise<unknown> {
    const id = `raw-${method}-${Math.random().toString(36).slice(2)}`;
    const previous = this.onMessage;
    try {
      return await new Promise<unknown>((resolve, reject) => {
        this.onMessage = (bytes) => {
          const msg = JSON.parse(bytes.toString('utf8')) as {
            id?: unknown;
            result?: unknown;
            error?: unknown;
          };
          if (msg.id !== id) return;
          if (msg.error !== null && msg.error !== undefined) {
            reject(new Error(`${method} failed: ${JSON.stringify(msg.error)}`));
          } else resolve(msg.result);
        };
        this.until(this.received + 1).catch(reject);
        this.socket.write(JSON.stringify({ method, params, id }));
      });
    } finally {
      this.onMessage = previous;
    }
  }

  /** Close the socket. */
  close(): void {
    this.closedError ??= new Error('raw client closed');
    this.socket.destroy();
  }

  private fail(e: Error): void {
    this.closedError ??= e;
    const w = this.waiters;
    this.waiters = [];
    for (const x of w) x.reject(e);
  }

  private scan(chunk: Buffer): void {
    const capture = this.onMessage !== undefined;
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--this.depth === 0) {
          this.received++;
          if (capture) {
            this.parts.push(chunk.subarray(start, i + 1));
            const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
            this.parts = [];
            start = i + 1;
            this.onMessage?.(bytes);
          }
        }
      }
    }
    if (capture) {
      if (start < chunk.length && (this.depth > 0 || this.inString)) {
        this.parts.push(chunk.subarray(start));
      }
    }
    if (this.waiters.length > 0) {
      const ready = this.waiters.filter((w) => w.n <= this.received);
      if (ready.length > 0) {
        this.waiters = this.waiters.filter((w) => w.n > this.received);
        for (const w of ready) w.resolve();
      }
    }
  }
}

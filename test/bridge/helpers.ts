/**
 * Helpers for the WebSocket tests: a raw `ws` client that records every
 * message and how the socket closed, and sends JSON-RPC requests by hand.
 */

import { expect } from 'vitest';
import WebSocket from 'ws';

/** How a WebSocket closed. */
export interface Closed {
  readonly code: number;
  readonly reason: string;
}

/** A raw WebSocket client with request/reply bookkeeping. */
export class RawClient {
  /** Every message received, parsed. */
  readonly received: Record<string, unknown>[] = [];
  /** Resolves when the socket closes. */
  readonly closed: Promise<Closed>;
  private readonly waiters = new Map<string, (m: Record<string, unknown>) => void>();
  private nextId = 0;

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => {
      ws.on('close', (code: number, reason: Buffer) =>
        resolve({ code, reason: reason.toString() }),
      );
    });
    ws.on('error', () => undefined);
    ws.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString()) as Record<string, unknown>;
      this.received.push(m);
      const key = JSON.stringify(m['id'] ?? null);
      const w = this.waiters.get(key);
      if (w && !Object.hasOwn(m, 'method')) {
        this.waiters.delete(key);
        w(m);
      }
    });
  }

  /**
   * Open `url`; resolves once open (the bridge may still close it at once,
   * e.g. for a bad token). Rejects on an HTTP refusal with its status.
   */
  static open(
    url: string,
    options: { token?: string; headers?: Record<string, string> } = {},
  ): Promise<RawClient> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers['Authorization'] = `Bearer ${options.token}`;
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new RawClient(ws)));
      ws.once('unexpected-response', (_req, res) => {
        reject(new HttpRefusal(res.statusCode ?? 0));
        ws.terminate();
      });
      ws.once('error', reject);
    });
  }

  /** Send a request and resolve with the whole reply message. */
  request(method: string, params: unknown[], timeoutMs = 5000): Promise<Record<string, unknown>> {
    const id = `r${this.nextId++}`;
    return this.send({ method, params, id }, timeoutMs);
  }

  /** Send a message with an `id` and resolve with the reply carrying that id. */
  send(message: { id: unknown } & Record<string, unknown>, timeoutMs = 5000) {
    const key = JSON.stringify(message.id);
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no reply to ${key} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.set(key, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.ws.send(JSON.stringify(message));
    });
  }

  /** Send raw text (or bytes) as one frame. */
  sendRaw(data: string | Buffer, binary = false): void {
    this.ws.send(data, { binary });
  }

  close(): void {
    this.ws.close();
  }
}

/** The bridge refused the HTTP upgrade with `status`. */
export class HttpRefusal extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

/** The reply a refused request gets; `operation`: the refused operation of a `transact`. */
export function permissionError(id: unknown, details: string | RegExp, operation?: number) {
  return {
    id,
    result: null,
    error: {
      error: 'permission error',
      details: typeof details === 'string' ? details : expect.stringMatching(details),
      refused_by: 'bridge',
      ...(operation === undefined ? {} : { operation }),
    },
  };
}

/**
 * A Unix-socket proxy in front of a real ovsdb-server, to cut, freeze or
 * filter a client's connection without touching the server:
 *
 * - `cut()` destroys every proxied connection and refuses new ones until
 *   `restore()`;
 * - `freeze()` stops forwarding in both directions while keeping the sockets
 *   open (a silent, hung server), until `thaw()`; `holdRequests()` stops
 *   forwarding the client's messages only (requests in flight), until `thaw()`;
 * - `refuseMethods([...])` answers requests for those methods with
 *   `"unknown method"` itself, as an older server would;
 * - `dropReplies()` keeps forwarding the client's requests but throws away
 *   everything the server sends (replies lost on the way back), until `cut()`.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonStreamFramer } from '../../../src/ovsdb/wire/framer.js';

interface Pair {
  readonly client: net.Socket;
  readonly server: net.Socket;
  readonly held: { toServer: Buffer[]; toClient: Buffer[] };
}

/** See the module docs. */
export class OvsdbProxy {
  /** `unix:<path>` to give the client. */
  readonly remote: string;
  /** How many client connections were accepted (and forwarded). */
  accepted = 0;
  /** Requests answered with "unknown method", by method. */
  readonly refused = new Map<string, number>();
  /** Every request method the clients sent, in order. */
  readonly methods: string[] = [];

  private readonly dir: string;
  private readonly path: string;
  private readonly server: net.Server;
  private readonly pairs = new Set<Pair>();
  private down = false;
  private frozen = false;
  private holding = false;
  private dropping = false;
  private refusedMethods = new Set<string>();

  private constructor(private readonly target: string) {
    this.dir = mkdtempSync(join(tmpdir(), 'ovnkit-proxy-'));
    this.path = join(this.dir, 'proxy.sock');
    this.remote = `unix:${this.path}`;
    this.server = net.createServer((c) => this.accept(c));
  }

  /** Start a proxy to `target` (`unix:<path>` of the server). */
  static async start(target: string): Promise<OvsdbProxy> {
    if (!target.startsWith('unix:')) throw new Error('the proxy forwards to unix: remotes only');
    const p = new OvsdbProxy(target.slice('unix:'.length));
    await new Promise<void>((ok, fail) => {
      p.server.once('error', fail);
      p.server.listen(p.path, () => ok());
    });
    return p;
  }

  /** Forward requests, throw away whatever the server sends, until {@link OvsdbProxy.cut}. */
  dropReplies(): void {
    this.dropping = true;
  }

  /** Drop every connection and refuse new ones. */
  cut(): void {
    this.down = true;
    this.dropping = false;
    for (const p of this.pairs) {
      p.client.destroy();
      p.server.destroy();
    }
    this.pairs.clear();
  }

  /** Accept connections again. */
  restore(): void {
    this.down = false;
  }

  /** Stop forwarding bytes (both ways), keeping connections open. */
  freeze(): void {
    this.frozen = true;
  }

  /** Stop forwarding the client's messages (they are held), keeping the server's flowing. */
  holdRequests(): void {
    this.holding = true;
  }

  /** Forward again, including what was held. */
  thaw(): void {
    this.frozen = false;
    this.holding = false;
    for (const p of this.pairs) {
      for (const b of p.held.toServer.splice(0)) p.server.write(b);
      for (const b of p.held.toClient.splice(0)) p.client.write(b);
    }
  }

  /** Answer requests for `methods` with "unknown method" instead of forwarding them. */
  refuseMethods(methods: readonly string[]): void {
    this.refusedMethods = new Set(methods);
  }

  /** Stop the proxy and drop its connections. */
  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((ok) => this.server.close(() => ok()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private accept(client: net.Socket): void {
    if (this.down) {
      client.destroy();
      return;
    }
    this.accepted++;
    const server = net.connect({ path: this.target });
    const pair: Pair = { client, server, held: { toServer: [], toClient: [] } };
    this.pairs.add(pair);
    const framer = new JsonStreamFramer();
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('error', drop);
    server.on('error', drop);
    client.on('close', drop);
    server.on('close', drop);
    client.on('data', (chunk: Buffer) => {
      // Look at every request; forward (re-serialised) or refuse it.
      let messages: unknown[];
      try {
        messages = framer.push(chunk);
      } catch {
        drop();
        return;
      }
      for (const m of messages) {
        const msg = m as { method?: unknown; id?: unknown };
        if (typeof msg.method === 'string') this.methods.push(msg.method);
        if (
          typeof msg.method === 'string' &&
          msg.id !== null &&
          msg.id !== undefined &&
          this.refusedMethods.has(msg.method)
        ) {
          this.refused.set(msg.method, (this.refused.get(msg.method) ?? 0) + 1);
          const reply = Buffer.from(JSON.stringify({ id: msg.id, error: 'unknown method' }));
          if (this.frozen) pair.held.toClient.push(reply);
          else client.write(reply);
          continue;
        }
        const out = Buffer.from(JSON.stringify(m));
        if (this.frozen || this.holding) pair.held.toServer.push(out);
        else server.write(out);
      }
    });
    server.on('data', (chunk: Buffer) => {
      if (this.dropping) return;
      if (this.frozen) pair.held.toClient.push(chunk);
      else client.write(chunk);
    });
  }
}

/**
 * A Unix-socket proxy in front of an OVSDB server that reads both
 * directions of every connection and counts, per connection, the write
 * transactions (`transact` with an `insert`, `update`, `mutate` or `delete`)
 * the client sent, and whether the server had granted it lock `lock` when
 * each was sent: granted by a `{"locked": true}` reply to `lock`/`steal`
 * or a `locked` notification, taken away by `stolen`. A write sent by a
 * connection that did not hold the lock is a standby's write.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonStreamFramer } from '../../../src/ovsdb/wire/framer.js';

const WRITES = new Set(['insert', 'update', 'mutate', 'delete']);

/** What one proxied connection did. */
export interface ConnectionLog {
  readonly openedAt: number;
  closedAt: number | undefined;
  /** Whether the server has granted the lock to this connection (as of the last message). */
  held: boolean;
  /** When the server granted the lock (Date.now()), each time. */
  readonly grants: number[];
  /** Write transactions sent. */
  writes: number;
  /** Write transactions sent while the connection did not hold the lock. */
  standbyWrites: number;
  /** When the first write was sent while holding the lock after the last grant. */
  firstWriteAfterGrant: number | undefined;
}

/** See the module documentation. */
export class CountingProxy {
  /** `unix:<path>` to give the client. */
  readonly remote: string;
  /** Every connection, in the order accepted. */
  readonly connections: ConnectionLog[] = [];
  private readonly dir: string;
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly target: string,
    private readonly lock: string,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'ovnkit-count-'));
    const path = join(this.dir, 'proxy.sock');
    this.remote = `unix:${path}`;
    this.server = net.createServer((c) => this.accept(c));
  }

  /** Start a proxy to `target` (`unix:<path>`) that follows lock `lock`. */
  static async start(target: string, lock: string): Promise<CountingProxy> {
    if (!target.startsWith('unix:')) throw new Error('the proxy forwards to unix: remotes only');
    const p = new CountingProxy(target.slice('unix:'.length), lock);
    await new Promise<void>((ok, fail) => {
      p.server.once('error', fail);
      p.server.listen(p.remote.slice('unix:'.length), () => ok());
    });
    return p;
  }

  /** Write transactions of every connection, and those sent without the lock. */
  get totals(): { writes: number; standbyWrites: number } {
    let writes = 0;
    let standbyWrites = 0;
    for (const c of this.connections) {
      writes += c.writes;
      standbyWrites += c.standbyWrites;
    }
    return { writes, standbyWrites };
  }

  /** Stop the proxy and drop its connections. */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((ok) => this.server.close(() => ok()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private accept(client: net.Socket): void {
    const server = net.connect({ path: this.target });
    this.sockets.add(client);
    this.sockets.add(server);
    const log: ConnectionLog = {
      openedAt: Date.now(),
      closedAt: undefined,
      held: false,
      grants: [],
      writes: 0,
      standbyWrites: 0,
      firstWriteAfterGrant: undefined,
    };
    this.connections.push(log);
    const lockRequests = new Set<unknown>();
    const up = new JsonStreamFramer();
    const down = new JsonStreamFramer();
    const drop = () => {
      if (log.closedAt === undefined) log.closedAt = Date.now();
      client.destroy();
      server.destroy();
      this.sockets.delete(client);
      this.sockets.delete(server);
    };
    for (const s of [client, server]) {
      s.on('error', drop);
      s.on('close', drop);
    }
    const grant = () => {
      log.held = true;
      log.grants.push(Date.now());
      log.firstWriteAfterGrant = undefined;
    };
    client.on('data', (chunk: Buffer) => {
      let messages: unknown[];
      try {
        messages = up.push(chunk);
      } catch {
        drop();
        return;
      }
      for (const m of messages) {
        const msg = m as { method?: unknown; params?: unknown; id?: unknown };
        const params = Array.isArray(msg.params) ? msg.params : [];
        if ((msg.method === 'lock' || msg.method === 'steal') && params[0] === this.lock) {
          lockRequests.add(msg.id);
        }
        if (msg.method === 'unlock' && params[0] === this.lock) log.held = false;
        if (msg.method === 'transact') {
          const ops = params.slice(1) as { op?: unknown }[];
          if (ops.some((op) => WRITES.has(op.op as string))) {
            log.writes++;
            if (!log.held) log.standbyWrites++;
            else log.firstWriteAfterGrant ??= Date.now();
          }
        }
      }
      server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      let messages: unknown[];
      try {
        messages = down.push(chunk);
      } catch {
        drop();
        return;
      }
      for (const m of messages) {
        const msg = m as { method?: unknown; params?: unknown; id?: unknown; result?: unknown };
        const params = Array.isArray(msg.params) ? msg.params : [];
        if (msg.id !== undefined && lockRequests.delete(msg.id)) {
          if ((msg.result as { locked?: unknown } | null)?.locked === true) grant();
        } else if (msg.method === 'locked' && params[0] === this.lock) grant();
        else if (msg.method === 'stolen' && params[0] === this.lock) log.held = false;
      }
      client.write(chunk);
    });
  }
}

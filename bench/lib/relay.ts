/**
 * A relay in front of a server's Unix socket that reads everything its
 * clients write, at once, and holds what the server does not take yet in
 * its own memory (no backpressure towards the client). With the server
 * stopped, a client's writes still leave its process: what the client
 * retains per request is then its own state, not request text waiting for
 * the kernel's socket buffer, whose share depends on how the writes were
 * cut into system calls.
 * @module
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running relay. */
export interface Relay {
  /** `unix:<path>` of the relay. */
  readonly remote: string;
  /** Stop listening, drop every connection and remove the socket. */
  close(): Promise<void>;
}

/** Start a relay to the Unix socket at `upstreamPath`. */
export async function startRelay(upstreamPath: string): Promise<Relay> {
  const dir = mkdtempSync(join(tmpdir(), 'ovnkit-bench-relay-'));
  const path = join(dir, 'relay.sock');
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = netConnect(upstreamPath);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      // Written without waiting for `drain`: the relay's memory holds what the other side has not taken.
      from.on('data', (chunk: Buffer) => to.write(chunk));
      from.on('end', () => to.end());
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  return {
    remote: `unix:${path}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

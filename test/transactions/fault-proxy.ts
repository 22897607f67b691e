/**
 * A Unix-socket proxy in front of an ovsdb-server that can lose messages on
 * purpose: drop what the server sends (so a transaction commits but its reply
 * is lost), drop what the client sends (so the request never arrives), and
 * cut every connection.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What the proxy forwards. */
export type ProxyMode = 'pass' | 'drop-replies' | 'drop-requests';

/** A running {@link startFaultProxy}. */
export interface FaultProxy {
  /** `unix:<path>`: where clients connect. */
  readonly remote: string;
  /** What is forwarded from now on. */
  mode: ProxyMode;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Close every open connection (clients see the server hang up). */
  cut(): void;
  /** Stop listening and close everything. */
  close(): Promise<void>;
}

/** Start a proxy that forwards to the Unix socket `upstream` (a `unix:` remote). */
export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = upstream.replace(/^unix:/, '');
  const dir = await mkdtemp(join(tmpdir(), 'ovnkit-proxy-'));
  const path = join(dir, 'proxy.sock');
  const pairs = new Set<[net.Socket, net.Socket]>();
  let accepted = 0;
  const state: { mode: ProxyMode } = { mode: 'pass' };
  const server = net.createServer((client) => {
    accepted++;
    const up = net.connect({ path: target });
    const pair: [net.Socket, net.Socket] = [client, up];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      up.destroy();
    };
    client.on('data', (chunk) => {
      if (state.mode !== 'drop-requests') up.write(chunk);
    });
    up.on('data', (chunk) => {
      if (state.mode !== 'drop-replies') client.write(chunk);
    });
    for (const s of pair) {
      s.on('error', end);
      s.on('close', end);
    }
  });
  const cut = () => {
    for (const [a, b] of [...pairs]) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  return {
    remote: `unix:${path}`,
    get mode() {
      return state.mode;
    },
    set mode(m: ProxyMode) {
      state.mode = m;
    },
    get accepted() {
      return accepted;
    },
    cut,
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

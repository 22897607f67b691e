/**
 * TCP keepalive: `connect()` turns it on for remotes over TCP (`tcp:`,
 * `ws:`) unless `keepAliveMs` is 0. Seen from the kernel: on Linux the
 * socket's line in `/proc/net/tcp` shows timer 2 (keepalive) while idle.
 */

import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { connect } from '../../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';

const closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

/** The active timer (`tr` column) of the client socket connected to 127.0.0.1:`port`. */
function timerOfClientTo(port: number): string | undefined {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local rem st tx:rx tr:when …; established is 01
    if (f[2] === `0100007F:${hex}` && f[3] === '01') return f[5]?.split(':')[0];
  }
  return undefined;
}

async function tcpServer(): Promise<number> {
  const sockets: net.Socket[] = [];
  const server = net.createServer((s) => sockets.push(s));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  closers.push(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return (server.address() as net.AddressInfo).port;
}

function keep(conn: OvsdbConnection): OvsdbConnection {
  closers.push(() => conn.close());
  return conn;
}

describe.runIf(process.platform === 'linux')('TCP keepalive', () => {
  it('is on by default for tcp: and off with keepAliveMs 0', async () => {
    const port = await tcpServer();
    keep(await connect(`tcp:127.0.0.1:${port}`));
    expect(timerOfClientTo(port)).toBe('02');
    const port2 = await tcpServer();
    keep(await connect(`tcp:127.0.0.1:${port2}`, { keepAliveMs: 0 }));
    expect(timerOfClientTo(port2)).toBe('00');
  });

  it('is on by default for the socket under a ws: remote', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((ok) => wss.once('listening', () => ok()));
    closers.push(() => {
      for (const c of wss.clients) c.terminate();
      wss.close();
    });
    const port = (wss.address() as net.AddressInfo).port;
    keep(await connect(`ws://127.0.0.1:${port}/`));
    expect(timerOfClientTo(port)).toBe('02');
  });
});

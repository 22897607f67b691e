/**
 * Clients that make `ovnkit bridge` (a process, in front of a real
 * ovsdb-server) hold what they must not:
 *
 * - a `--read-only` client that parks thousands of `wait` transactions that
 *   never complete: the bridge stops reading it at `--max-pending-requests`
 *   (ovsdb-server holds no more of them than that), and closes it with 1013
 *   once it is stalled for a ping interval;
 * - pending requests count what they cost the bridge against the session's
 *   byte bound (they counted about one byte each);
 * - a client stalled because the server does not read (stopped with
 *   SIGSTOP) is closed with the documented 1013, not dropped as if it had
 *   died.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import {
  type BridgeProcess,
  probeWs,
  type ServerUnderTest,
  startBridgeProcess,
  startServer,
  transactAsBystander,
} from './helpers.js';

let server: ServerUnderTest;
const bridges: BridgeProcess[] = [];

beforeAll(async () => {
  server = await startServer('ovsdb-server');
});

afterAll(async () => {
  await Promise.all(bridges.map((b) => b.stop()));
  await server?.stop();
});

async function bridge(extra: readonly string[]): Promise<BridgeProcess> {
  const b = await startBridgeProcess(server.remote, extra);
  bridges.push(b);
  return b;
}

/** A `transact` whose `wait` never completes (no row is selected, and `!=` an empty set never holds). */
function parkedWait(id: number): string {
  return JSON.stringify({
    method: 'transact',
    params: [
      'OVN_Northbound',
      {
        op: 'wait',
        table: 'Logical_Switch',
        where: [['name', '==', `no-such-switch-${id}`]],
        columns: ['name'],
        until: '!=',
        rows: [],
      },
    ],
    id,
  });
}

/** ovsdb-server's count of transactions waiting (`memory/show` `triggers:N`). */
async function triggers(s: ServerUnderTest): Promise<number> {
  const text = await runTool(requireOvsdbServer(false).ovsAppctl, [
    '-t',
    s.server.ctl,
    'memory/show',
  ]);
  return Number(/triggers:(\d+)/.exec(text)?.[1] ?? 0);
}

/** Open a WebSocket to `url`; resolves once open. */
async function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 0 });
  ws.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return ws;
}

/** The close code of `ws`, or 'open' when it is still open after `ms`. */
function closeCode(ws: WebSocket, ms: number): Promise<number | 'open'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('open'), ms);
    ws.once('close', (code: number) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('pending requests of a bridge client', () => {
  it('a read-only client parking 5,000 waits: the server holds at most about 1,000, and the stalled client is closed with 1013', async () => {
    const b = await bridge(['--read-only', '--ping-interval', '2000']);
    const ws = await open(b.url);
    const closed = closeCode(ws, 15_000);
    for (let i = 0; i < 5000; i++) ws.send(parkedWait(i));
    // Until the count at the server stops changing.
    let last = -1;
    let n = await triggers(server);
    for (let still = 0; still < 3; still = n === last ? still + 1 : 0) {
      await sleep(200);
      last = n;
      n = await triggers(server);
    }
    expect(n).toBeGreaterThanOrEqual(1000);
    // At the bound, within what one read of the client's socket brings.
    expect(n).toBeLessThan(1500);
    expect(await closed).toBe(1013);
    expect(b.log()).toMatch(
      /closed: stalled by flow control \(\d+ requests wait for their replies\)/,
    );
    // The server forgets them with the bridge's connection; others carry on.
    await expect.poll(() => triggers(server), { timeout: 10_000 }).toBe(0);
    expect(await transactAsBystander(server.remote, 'after-waits')).toEqual([
      { name: 'after-waits' },
    ]);
    expect(b.alive()).toBe(true);
  }, 60_000);

  it('each pending request counts what it costs the bridge against the session bound', async () => {
    // 900 pending requests (under the count bound) cost the bridge about
    // 370 kB: over a 256 KiB session bound.
    const b = await bridge(['--read-only', '--max-session-buffered-bytes', String(256 * 1024)]);
    const frames = Array.from({ length: 900 }, (_, i) => parkedWait(i));
    const r = await probeWs(b.url, frames);
    expect(r).toMatchObject({ closed: true, code: 1013 });
    expect(b.log()).toMatch(
      /closed: the session would buffer \d+ bytes, over the 262144-byte bound/,
    );
    await expect.poll(() => triggers(server), { timeout: 10_000 }).toBe(0);
  }, 60_000);
});

describe('a client stalled by flow control', () => {
  it('is closed with 1013 when the server does not read', async () => {
    const own = await startServer('ovsdb-server');
    const pid = own.server.child.pid as number;
    try {
      const b = await startBridgeProcess(own.remote, ['--ping-interval', '300']);
      bridges.push(b);
      const ws = await open(b.url);
      // The server neither reads nor answers: the bridge's socket to it fills.
      process.kill(pid, 'SIGSTOP');
      const closed = closeCode(ws, 15_000);
      const big = 'x'.repeat(100_000);
      for (let i = 0; i < 100; i++) {
        ws.send(JSON.stringify({ method: 'echo', params: [big], id: i }));
      }
      expect(await closed).toBe(1013);
      expect(b.log()).toMatch(/closed: stalled by flow control \(the OVSDB server does not read\)/);
    } finally {
      process.kill(pid, 'SIGCONT');
      await own.stop();
    }
  }, 60_000);
});

/**
 * 100 concurrent WebSocket clients through one bridge to a real ovsdb-server,
 * each with its own server session: every client monitors the rows of the
 * run, inserts its own row and updates it, and must see all 100 inserts and
 * its own update. Prints the timings.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bridge, startBridge } from '../../src/bridge/bridge.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import type { TableUpdates2 } from '../../src/ovsdb/wire/wire.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { DB, sleep, TEST_SCHEMA } from '../helpers/server.js';

const CLIENTS = 100;
const TOKEN = 'many-clients-token';
const BASE = 7_000_000;

let server: OvsdbServerHandle;
let bridge: Bridge;

beforeAll(async () => {
  requireOvsdbServer(true);
  server = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['unix'] });
  bridge = await startBridge({
    listen: 'ws://127.0.0.1:0/ovsdb',
    remote: server.unixRemote,
    tokens: [TOKEN],
  });
});

afterAll(async () => {
  await bridge?.close();
  await server?.stop();
});

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

describe(`${CLIENTS} concurrent WebSocket clients`, () => {
  it('each monitors and transacts; every client sees every insert', async () => {
    const t0 = performance.now();
    const conns: OvsdbConnection[] = await Promise.all(
      Array.from({ length: CLIENTS }, () =>
        connect(bridge.url, { token: TOKEN, timeoutMs: 20_000 }),
      ),
    );
    const tConnected = performance.now();
    expect(bridge.stats().connectionsOpen).toBe(CLIENTS);

    // Every client monitors every row of this run (n in [BASE, BASE + 2 * CLIENTS)).
    const seen = conns.map(() => new Map<string, number>());
    const inserts = conns.map(() => 0);
    conns.forEach((conn, i) => {
      conn.on('update2', (_id, updates: TableUpdates2) => {
        for (const [uuid, change] of Object.entries(updates['Item'] ?? {})) {
          if (change.insert) {
            inserts[i]!++;
            seen[i]!.set(uuid, change.insert['n'] as number);
          } else if (change.modify && change.modify['n'] !== undefined) {
            seen[i]!.set(uuid, change.modify['n'] as number);
          }
        }
      });
    });
    await Promise.all(
      conns.map((conn) =>
        conn.monitorCond(DB, 'all', {
          Item: {
            columns: ['name', 'n'],
            where: [
              ['n', '>=', BASE],
              ['n', '<', BASE + 2 * CLIENTS],
            ],
          },
        }),
      ),
    );
    const tMonitored = performance.now();
    // One server connection per client.
    expect(bridge.stats().upstreamConnects).toBe(CLIENTS);

    // Each client inserts its row, then updates it.
    const latencies: number[] = [];
    const uuids = await Promise.all(
      conns.map(async (conn, i) => {
        const s = performance.now();
        const [res] = await conn.transact(DB, [
          { op: 'insert', table: 'Item', row: { name: `client-${i}`, n: BASE + i } },
        ]);
        latencies.push(performance.now() - s);
        const uuid = (res as { uuid: [string, string] }).uuid[1];
        const s2 = performance.now();
        await conn.transact(DB, [
          {
            op: 'update',
            table: 'Item',
            where: [['_uuid', '==', ['uuid', uuid]]],
            row: { n: BASE + CLIENTS + i },
          },
        ]);
        latencies.push(performance.now() - s2);
        return uuid;
      }),
    );
    const tTransacted = performance.now();

    // Every client sees all inserts, and the final value of every row.
    const deadline = Date.now() + 20_000;
    const complete = () =>
      seen.every((m) => m.size === CLIENTS && [...m.values()].every((n) => n >= BASE + CLIENTS));
    while (!complete() && Date.now() < deadline) await sleep(20);
    const tSynced = performance.now();
    expect(inserts.every((n) => n === CLIENTS)).toBe(true);
    for (const m of seen) {
      expect(m.size).toBe(CLIENTS);
      uuids.forEach((uuid, i) => {
        expect(m.get(uuid)).toBe(BASE + CLIENTS + i);
      });
    }
    // Everyone is still connected, through its own session.
    const echoes = await Promise.all(conns.map((c, i) => c.echo(i)));
    expect(echoes).toEqual(conns.map((_, i) => [i]));
    const stats = bridge.stats();
    for (const c of conns) c.close();

    latencies.sort((a, b) => a - b);
    console.log(
      [
        `${CLIENTS} ws clients: connect ${(tConnected - t0).toFixed(0)} ms`,
        `monitor ${(tMonitored - tConnected).toFixed(0)} ms`,
        `${2 * CLIENTS} transactions ${(tTransacted - tMonitored).toFixed(0)} ms`,
        `every client saw all ${CLIENTS} rows with their final values ${(tSynced - tMonitored).toFixed(0)} ms after the first transaction`,
        `transact latency p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms`,
        `bridge: ${stats.messagesToServer} messages to the server, ${stats.messagesToClients} to clients, max queued ${stats.maxQueuedBytes} bytes`,
      ].join('; '),
    );
  }, 60_000);
});

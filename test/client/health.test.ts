/**
 * The client's health (`client.health`, the `health` of each status event,
 * and the gauges of the Prometheus adapter scraped from a real `/metrics`
 * endpoint), against a real clustered ovsdb-server behind a TCP proxy:
 * connected and in sync once ready, the server and its role (`leader`), the
 * age of the last message and of the last update applied, whether a lock is
 * held; not connected and not in sync once the server is killed, and in
 * sync again after its restart; and a silent server (the proxy frozen)
 * shows as a growing message age while the client still counts as
 * connected.
 */

import type * as PromClient from 'prom-client';
import { expect, it } from 'vitest';
import type { StatusEvent } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import { serveMetricsRegistry } from '../../src/net/metrics-endpoint.js';
import { prometheusMetrics } from '../../src/observability/prometheus.js';
import { startOvsdbServer } from '../../src/testing/index.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';
import { TEST_MODEL, until } from './helpers/fixtures.js';
import { FreezableTcpProxy } from './helpers/tcp-proxy.js';
import { requirePackage } from './metrics-require.js';
import { parseMetrics, type Scrape, sampleValue, series } from './metrics-text.js';

const promClient = requirePackage('prom-client') as typeof PromClient;
const P = 'ovnkit_client_';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('health: a property, status events and gauges scraped from /metrics', async () => {
  const server = await startOvsdbServer({
    schema: TEST_SCHEMA,
    clustered: true,
    remotes: ['unix', 'tcp'],
  });
  const proxy = await FreezableTcpProxy.start(server.remotes.tcp!);
  const registry = new promClient.Registry();
  const endpoint = await serveMetricsRegistry(registry, { host: '127.0.0.1', port: 0 });
  const scrape = async (): Promise<Scrape> =>
    parseMetrics(await (await fetch(endpoint.url)).text());
  const L = { db: DB, client: 'health' };
  const client = connectDatabase({
    remotes: proxy.remote,
    model: TEST_MODEL,
    metrics: prometheusMetrics(promClient, { registry, client: 'health' }),
    // The silence below is only looked at, never acted on.
    probeIntervalMs: 60_000,
    backoff: { initialDelayMs: 50, maxDelayMs: 300 },
  });
  const events: StatusEvent[] = [];
  client.onStatus((e) => {
    events.push(e);
  });
  const event = (type: string) => events.findLast((e) => e.type === type);
  try {
    expect(client.health).toEqual({
      connected: false,
      inSync: false,
      remote: undefined,
      role: undefined,
      lastMessageAgeMs: undefined,
      lastUpdateAgeMs: undefined,
      lockHeld: false,
    });

    await client.ready;
    const h = client.health;
    expect(h).toMatchObject({
      connected: true,
      inSync: true,
      remote: proxy.remote,
      role: 'leader',
      lockHeld: false,
    });
    expect(h.lastMessageAgeMs).toBeLessThan(2000);
    expect(h.lastUpdateAgeMs).toBeLessThan(2000);
    await client.drained();
    expect(event('connected')?.health).toMatchObject({ connected: true, inSync: true });
    expect(event('connecting')?.health).toMatchObject({ inSync: false });

    let s = await scrape();
    expect(s.types.get(`${P}connected`)).toBe('gauge');
    expect(sampleValue(s, `${P}connected`, L)).toBe(1);
    expect(sampleValue(s, `${P}in_sync`, L)).toBe(1);
    expect(series(s, `${P}server_role`)).toEqual([
      `client=health,db=${DB},remote=${proxy.remote},role=leader 1`,
    ]);
    expect(sampleValue(s, `${P}last_message_age_seconds`, L)).toBeLessThan(2);
    expect(sampleValue(s, `${P}last_update_age_seconds`, L)).toBeLessThan(2);

    // A lock held.
    await client.lock('health_lock').whenHeld();
    expect(client.health.lockHeld).toBe(true);
    await client.drained();
    expect(event('lock')?.health?.lockHeld).toBe(true);
    s = await scrape();
    expect(sampleValue(s, `${P}lock_held`, { ...L, lock: 'health_lock' })).toBe(1);

    // The age of the last update grows while nothing changes, and restarts with a change.
    await sleep(1200);
    expect(client.health.lastUpdateAgeMs).toBeGreaterThanOrEqual(1000);
    expect(sampleValue(await scrape(), `${P}last_update_age_seconds`, L)).toBeGreaterThanOrEqual(1);
    await server.ovsdbClient(
      'transact',
      JSON.stringify([DB, { op: 'insert', table: 'Item', row: { name: 'x', n: 1 } }]),
    );
    await client.waitFor('Item', (r) => r.name === 'x');
    expect(client.health.lastUpdateAgeMs).toBeLessThan(1000);

    // The server killed: not connected, not in sync; again after its restart.
    await server.kill();
    await until(() => !client.health.connected, 10_000, 'the loss of the connection');
    expect(client.health).toMatchObject({ inSync: false, remote: undefined, role: undefined });
    s = await scrape();
    expect(sampleValue(s, `${P}connected`, L)).toBe(0);
    expect(sampleValue(s, `${P}in_sync`, L)).toBe(0);
    expect(series(s, `${P}server_role`)).toEqual([]);
    await until(() => event('disconnected') !== undefined, 10_000, 'the disconnected event');
    expect(event('disconnected')?.health).toMatchObject({ connected: false, inSync: false });
    await server.restart();
    await until(() => client.health.inSync, 20_000, 'the resync');
    await client.drained();
    expect(event('resynced')?.health).toMatchObject({ inSync: true, role: 'leader' });
    expect(sampleValue(await scrape(), `${P}in_sync`, L)).toBe(1);

    // A silent server: still connected, its silence in the message age.
    proxy.freeze();
    await sleep(1500);
    expect(client.health).toMatchObject({ connected: true, inSync: true });
    expect(client.health.lastMessageAgeMs).toBeGreaterThanOrEqual(1500);
    expect(sampleValue(await scrape(), `${P}last_message_age_seconds`, L)).toBeGreaterThanOrEqual(
      1.5,
    );
  } finally {
    await client.close();
    await endpoint.close();
    await proxy.close();
    await server.stop();
  }
}, 60_000);

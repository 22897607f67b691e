/**
 * Status events, against real ovsdb-servers: one event per transition (the
 * first sync is `connected`, a reconnection `resynced`, never both), in
 * order; and when a round through the remotes fails or skips servers, the
 * event that ends it lists every server with its reason (`servers`, and in
 * the `reason` text).
 */

import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type BackoffOptions,
  ClientClosedError,
  connectDatabase,
  type StatusEvent,
} from '../../src/client/index.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { sleep, TEST_SCHEMA } from '../helpers/server.js';
import { TEST_MODEL, until } from './helpers/fixtures.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function server(): Promise<OvsdbServerHandle> {
  requireOvsdbServer(true);
  const s = await startOvsdbServer({ schema: TEST_SCHEMA });
  cleanups.push(() => s.stop());
  return s;
}

function open(
  remotes: readonly string[],
  backoff: BackoffOptions = { initialDelayMs: 50, maxDelayMs: 100 },
) {
  const events: StatusEvent[] = [];
  const client = connectDatabase({ remotes, model: TEST_MODEL, backoff });
  client.onStatus((e) => {
    events.push(e);
  });
  cleanups.push(() => client.close());
  return { client, events };
}

/** The event types, runs of the retry loop (`connecting`, `reconnecting`) kept. */
const types = (events: readonly StatusEvent[]) => events.map((e) => e.type);

describe('one event per transition', () => {
  it('a first sync is one `connected`; a reconnection one `resynced`, in order', async () => {
    const s = await server();
    const { client, events } = open([s.unixRemote]);
    await client.ready;
    await client.drained();
    expect(types(events)).toEqual(['connecting', 'connected']);
    expect(events[1]).toMatchObject({
      remote: s.unixRemote,
      reason: 'initial sync complete',
      servers: [],
    });
    expect(events[1]?.monitors?.length).toBeGreaterThan(0);

    // The server dies (after a second in sync: a shorter session backs off
    // first) and comes back on the same socket.
    await sleep(1100);
    await s.kill();
    await until(() => events.some((e) => e.type === 'reconnecting'), 10_000, 'a failed round');
    await s.restart();
    await until(() => client.stats.connects === 2, 10_000, 'the resync');
    await client.drained();

    const after = events.slice(2);
    expect(after[0]).toMatchObject({ type: 'disconnected', remote: s.unixRemote });
    const last = after.at(-1);
    expect(last?.type).toBe('resynced');
    expect(last?.remote).toBe(s.unixRemote);
    expect(last?.monitors?.length).toBeGreaterThan(0);
    // No `connected` after the first; exactly one `resynced`; between the
    // disconnection and the resync only the retry loop's own events.
    expect(types(events).filter((t) => t === 'connected')).toHaveLength(1);
    expect(types(events).filter((t) => t === 'resynced')).toHaveLength(1);
    const loop = types(after.slice(1, -1));
    expect(new Set(loop)).toEqual(new Set(['connecting', 'reconnecting']));
    // Each round here is one `connecting` and, when it fails, one `reconnecting`.
    expect(loop.join(' ')).toMatch(/^(connecting reconnecting )+connecting$/);
    for (const e of after.filter((x) => x.type === 'reconnecting')) {
      expect(e.servers).toHaveLength(1);
      const [a] = e.servers ?? [];
      expect(a).toMatchObject({ remote: s.unixRemote, skipped: false });
      expect(a?.reason.length).toBeGreaterThan(0);
      expect(e.reason).toBe(`no usable server: ${s.unixRemote}: ${a?.reason}`);
    }
  });
});

describe("a round over several remotes gives each server's reason", () => {
  it('first remote dead, second fine: `connected` names the dead one and why', async () => {
    const s = await server();
    const dead = `unix:${join(s.dir, 'nobody-listens.sock')}`;
    const { client, events } = open([dead, s.unixRemote]);
    await client.ready;
    await client.drained();
    expect(types(events)).toEqual(['connecting', 'connecting', 'connected']);
    expect(events.map((e) => e.remote)).toEqual([dead, s.unixRemote, s.unixRemote]);
    const connected = events[2]!;
    expect(connected.servers).toHaveLength(1);
    const [a] = connected.servers ?? [];
    expect(a).toMatchObject({ remote: dead, skipped: false });
    expect(a?.reason).toMatch(/ENOENT|no such file/i);
    expect(connected.reason).toBe(`initial sync complete (after ${dead}: ${a?.reason})`);
  });

  it('all remotes fail: `reconnecting` lists both, then the resync names the one skipped', async () => {
    const s = await server();
    const dead = `unix:${join(s.dir, 'nobody-listens.sock')}`;
    const { client, events } = open([dead, s.unixRemote]);
    await client.ready;
    await sleep(1100);
    await s.kill();
    await until(() => events.some((e) => e.type === 'reconnecting'), 10_000, 'a failed round');
    const failed = events.find((e) => e.type === 'reconnecting')!;
    // The round starts after the server just lost: the dead one, then it.
    expect(failed.servers?.map((x) => [x.remote, x.skipped])).toEqual([
      [dead, false],
      [s.unixRemote, false],
    ]);
    const [d, live] = failed.servers ?? [];
    expect(d?.reason).toMatch(/ENOENT|no such file/i);
    // Refused, or (when the connect raced the listener's close) a write to a socket the dying
    // server had accepted but never read: EPIPE / ECONNRESET.
    expect(live?.reason).toMatch(/ECONNREFUSED|refused|ENOENT|EPIPE|ECONNRESET/i);
    expect(failed.reason).toBe(
      `no usable server: ${dead}: ${d?.reason}; ${s.unixRemote}: ${live?.reason}`,
    );

    await s.restart();
    await until(() => client.stats.connects === 2, 10_000, 'the resync');
    await client.drained();
    const resynced = events.filter((e) => e.type === 'resynced');
    expect(resynced).toHaveLength(1);
    expect(resynced[0]?.remote).toBe(s.unixRemote);
    expect(resynced[0]?.servers?.map((x) => x.remote)).toEqual([dead]);
    expect(resynced[0]?.reason).toMatch(
      new RegExp(`^resynchronised after reconnecting \\(after ${escapeRe(dead)}: .+\\)$`),
    );
  });

  it("giving up names every server's reason", async () => {
    const s = await server();
    const a = `unix:${join(s.dir, 'a.sock')}`;
    const b = `unix:${join(s.dir, 'b.sock')}`;
    const { client, events } = open([a, b], { initialDelayMs: 10, maxDelayMs: 20, maxRetries: 1 });
    const e = await client.ready.then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ClientClosedError);
    expect((e as ClientClosedError).reason).toMatch(
      new RegExp(`^gave up reconnecting after 1 retry: ${escapeRe(a)}: .+; ${escapeRe(b)}: .+$`),
    );
    await until(() => events.some((x) => x.type === 'closed'), 5000, 'the closed event');
    const rounds = events.filter((x) => x.type === 'reconnecting');
    expect(rounds).toHaveLength(1);
    expect(rounds[0]?.servers?.map((x) => x.remote)).toEqual([a, b]);
  });
});

function escapeRe(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

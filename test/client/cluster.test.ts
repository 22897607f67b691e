/**
 * The client on a real 3-server Raft cluster (`startOvsdbCluster`): it skips
 * followers with leader-only, may use a follower without it, and follows the
 * leader when leadership moves (no kill: the leader hands over), resuming
 * with found=true.
 *
 * The real server only: the in-memory server serves standalone databases
 * (no Raft, no leaders), and this suite is about choosing among cluster
 * members.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient, StatusEvent } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { type OvsdbClusterHandle, startOvsdbCluster } from '../../src/testing/index.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';
import { TEST_MODEL, type TestTables, until } from './helpers/fixtures.js';

let cluster: OvsdbClusterHandle;
const clients: DatabaseClient<TestTables>[] = [];

beforeAll(async () => {
  cluster = await startOvsdbCluster({ schema: TEST_SCHEMA, size: 3 });
  const leader = await cluster.leader();
  // Filler rows keep the transaction history long enough to resume.
  const filler = Array.from({ length: 300 }, (_, i) => ({
    op: 'insert',
    table: 'Item',
    row: { name: `filler-${i}`, n: -1, tags: ['set', ['a', 'b', 'c']] },
  }));
  await cluster.ovsdbClient(leader.index, 'transact', JSON.stringify([DB, ...filler]));
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

afterAll(() => cluster?.stop());

function open(
  remotes: readonly string[],
  options: Partial<Parameters<typeof connectDatabase<TestTables>>[0]> = {},
) {
  const c = connectDatabase({
    remotes,
    model: TEST_MODEL,
    backoff: { initialDelayMs: 50, maxDelayMs: 400 },
    ...options,
  });
  clients.push(c as DatabaseClient<TestTables>);
  return c;
}

describe('startOvsdbCluster', () => {
  it('builds a cluster of three connected members with one leader', async () => {
    expect(cluster.members).toHaveLength(3);
    expect(cluster.members.every((m) => m.running)).toBe(true);
    const leader = await cluster.leader();
    const roles = await Promise.all(cluster.members.map((m) => cluster.status(m.index)));
    expect(roles.filter((r) => /^Role: leader$/m.test(r))).toHaveLength(1);
    expect(roles[leader.index]).toMatch(/^Role: leader$/m);
    expect(roles.every((r) => /^Status: cluster member$/m.test(r))).toBe(true);
  });
});

describe('server choice', () => {
  it('with leader-only (the default), skips followers and connects to the leader', async () => {
    const leader = await cluster.leader();
    const followersFirst = [...cluster.remotes].sort((a, b) =>
      a === leader.remote ? 1 : b === leader.remote ? -1 : 0,
    );
    const skipped: string[] = [];
    const c = open(followersFirst, { logger: { info: (m) => skipped.push(m) } });
    const statuses: StatusEvent[] = [];
    c.onStatus((e) => {
      statuses.push(e);
    });
    await c.ready;
    await c.drained();
    expect(c.status.remote).toBe(leader.remote);
    expect(skipped.filter((m) => m.includes('not the Test cluster leader'))).toHaveLength(2);
    // One `connected`, naming each follower skipped and why.
    const connected = statuses.filter((e) => e.type === 'connected');
    expect(connected).toHaveLength(1);
    expect(connected[0]?.remote).toBe(leader.remote);
    expect(connected[0]?.servers?.map((a) => [a.remote, a.skipped, a.code, a.reason])).toEqual(
      followersFirst
        .slice(0, 2)
        .map((r) => [r, true, 'not-leader', 'the server is not the Test cluster leader']),
    );
    for (const r of followersFirst.slice(0, 2)) {
      expect(connected[0]?.reason).toContain(`${r}: the server is not the Test cluster leader`);
    }
  });

  it('without leader-only, uses a follower, with read-your-writes through it', async () => {
    const leader = await cluster.leader();
    const follower = cluster.members.find((m) => m !== leader)!;
    const c = open([follower.remote, leader.remote], { leaderOnly: false });
    await c.ready;
    expect(c.status.remote).toBe(follower.remote);
    expect(c.health).toMatchObject({ remote: follower.remote, role: 'follower', inSync: true });
    await c.transactRaw([
      { op: 'insert', table: 'Item', row: { name: 'via-follower', n: 1 } } as Operation,
    ]);
    expect(c.lookup('Item', { name: 'via-follower' })?.n).toBe(1);
  });
});

describe('leadership moves', () => {
  it('reconnects to the new leader and resumes with found=true', async () => {
    const leader = await cluster.leader();
    const c = open(cluster.remotes);
    await c.ready;
    expect(c.status.remote).toBe(leader.remote);
    const initialRows = c.stats.initialRows;
    const statuses: StatusEvent[] = [];
    c.onStatus((e) => {
      statuses.push(e);
    });
    await cluster.appctl(leader.index, 'cluster/failure-test', 'transfer-leadership');
    await until(() => statuses.some((e) => e.type === 'resynced'), 20_000, 'the resync');
    const next = await cluster.leader();
    expect(next.index).not.toBe(leader.index);
    expect(c.status.remote).toBe(next.remote);
    const types = statuses.map((e) => e.type);
    expect(types).toContain('leader-changed');
    expect(types.indexOf('leader-changed')).toBeLessThan(types.indexOf('disconnected'));
    expect(statuses.find((e) => e.type === 'leader-changed')).toMatchObject({
      remote: leader.remote,
      reason: expect.stringMatching(/not the Test cluster leader/),
    });
    expect(statuses.find((e) => e.type === 'resynced')?.monitors?.[0]).toMatchObject({
      found: true,
      initialRows: 0,
    });
    expect(c.stats.initialRows).toBe(initialRows);
    await c.transactRaw([
      { op: 'insert', table: 'Item', row: { name: 'after-move', n: 2 } } as Operation,
    ]);
    expect(c.lookup('Item', { name: 'after-move' })?.n).toBe(2);
  });
});

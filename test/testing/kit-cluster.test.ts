/**
 * The simulated cluster (`createTestCluster`), driving the real client
 * through what a Raft cluster's `_Server` rows tell it: leader-only
 * failover (resuming on the new leader with `found: true`), a resume with
 * `found: false` after the history went, a stale member skipped, a
 * disconnected member left, a relay skipped under leader-only and used
 * without it until it loses its source, a stopped member refused.
 */

import { describe, expect, it } from 'vitest';
import {
  connectDatabase,
  type DatabaseClient,
  type DatabaseClientOptions,
} from '../../src/client/index.js';
import { NB, type NBTables } from '../../src/nb/index.js';
import { createTestCluster, type TestClusterOptions } from '../../src/testing/kit/cluster.js';
import '../../src/testing/vitest.js';
import { closeAfterEach, nextStatus } from './kit-helpers.js';

const track = closeAfterEach();

async function rig(options: TestClusterOptions = {}) {
  const cluster = await createTestCluster(
    NB,
    {
      Logical_Switch: { sw0: { name: 'sw0', ports: ['p1'] } },
      Logical_Switch_Port: { p1: { name: 'p1' } },
    },
    options,
  );
  track(cluster);
  return cluster;
}

function client(
  cluster: Awaited<ReturnType<typeof rig>>,
  more: Partial<DatabaseClientOptions<NBTables, Record<never, never>>> = {},
): DatabaseClient<NBTables> {
  const c = connectDatabase({
    remotes: [...cluster.remotes],
    dial: cluster.dial,
    model: NB,
    ...more,
  });
  track(c);
  return c;
}

describe('createTestCluster', () => {
  it('leader-only failover: the client leaves a member that loses leadership and resumes on the new leader', async () => {
    const cluster = await rig();
    const c = client(cluster);
    await c.ready;
    expect(c.status.remote).toBe('unix:m0');
    await c.transactRaw([{ op: 'insert', table: 'Logical_Switch', row: { name: 'sw1' } }]);
    const changed = nextStatus(c, 'leader-changed');
    const resynced = nextStatus(c, 'resynced');
    cluster.setLeader(1);
    expect((await changed).reason).toBe('the server is not the OVN_Northbound cluster leader');
    const event = await resynced;
    expect(c.status.remote).toBe('unix:m1');
    // The round starts after the server lost: m1, the leader, at once.
    expect(event.servers ?? []).toEqual([]);
    // Members share one log: the client resumes from its last transaction.
    expect(event.monitors?.[0]?.found).toBe(true);
    expect(cluster.members[0]?.sessions).toEqual([]);
    await c.transactRaw([{ op: 'insert', table: 'Logical_Switch', row: { name: 'sw2' } }]);
    await expect(cluster).toHaveDataSubset({ Logical_Switch: [{ name: 'sw1' }, { name: 'sw2' }] });
  });

  it('a resume from a history that went: found false, the replica replaced with events only for what differs', async () => {
    const cluster = await rig();
    const c = client(cluster);
    await c.ready;
    const updates: string[] = [];
    c.on('Logical_Switch', 'insert', (row) => {
      updates.push(`insert ${row.name}`);
    });
    c.on('Logical_Switch', 'update', (row) => {
      updates.push(`update ${row.name}`);
    });
    const resynced = nextStatus(c, 'resynced');
    // The leader goes; a write the client misses; the history goes (the
    // members restarted from a snapshot); m2 leads.
    cluster.members[0]?.stop();
    const conn = cluster.connection('other');
    await conn.transact('OVN_Northbound', [
      { op: 'insert', table: 'Logical_Switch', row: { name: 'sw9' } },
    ]);
    conn.close();
    cluster.forgetHistory();
    cluster.setLeader(2);
    const event = await resynced;
    expect(c.status.remote).toBe('unix:m2');
    const sync = event.monitors?.[0];
    expect(sync?.found).toBe(false);
    expect(sync?.replaced).toEqual({ inserted: 1, updated: 0, deleted: 0, unchanged: 2 });
    await c.drained();
    expect(updates).toEqual(['insert sw9']);
  });

  it('a stale member (a Raft index below one the client has seen) is skipped', async () => {
    const cluster = await rig();
    cluster.members[0]?.set({ index: 5 });
    cluster.members[2]?.set({ index: 5 });
    const c = client(cluster, { leaderOnly: false });
    await c.ready;
    expect(c.status.remote).toBe('unix:m0');
    const resynced = nextStatus(c, 'resynced');
    cluster.members[0]?.stop();
    const event = await resynced;
    expect(c.status.remote).toBe('unix:m2');
    expect(event.servers?.map((s) => [s.remote, s.code])).toEqual([['unix:m1', 'stale']]);
  });

  it('a member that loses its cluster is left', async () => {
    const cluster = await rig();
    const c = client(cluster, { leaderOnly: false });
    await c.ready;
    expect(c.status.remote).toBe('unix:m0');
    const disconnected = nextStatus(c, 'disconnected');
    const resynced = nextStatus(c, 'resynced');
    cluster.members[0]?.set({ connected: false });
    expect((await disconnected).reason).toMatch(/not connected to the OVN_Northbound cluster/);
    await resynced;
    expect(c.status.remote).toBe('unix:m1');
  });

  it('a relay is skipped under leader-only, and used without it until it loses its source', async () => {
    const cluster = await rig({ leader: 1 });
    cluster.members[0]?.set({ model: 'relay' });
    const leaderOnly = client(cluster);
    const connected = nextStatus(leaderOnly, 'connected');
    await leaderOnly.ready;
    expect(leaderOnly.status.remote).toBe('unix:m1');
    expect((await connected).servers?.map((s) => [s.remote, s.code])).toEqual([
      ['unix:m0', 'not-leader'],
    ]);
    const c = client(cluster, { leaderOnly: false });
    await c.ready;
    expect(c.status.remote).toBe('unix:m0');
    expect(c.health.role).toBe('relay');
    const disconnected = nextStatus(c, 'disconnected');
    const resynced = nextStatus(c, 'resynced');
    cluster.members[0]?.set({ connected: false });
    expect((await disconnected).reason).toBe(
      'the relay is not connected to its source of OVN_Northbound',
    );
    await resynced;
    expect(c.status.remote).toBe('unix:m1');
  });

  it('a stopped member refuses connections until started again', async () => {
    const cluster = await rig();
    const m0 = cluster.members[0];
    m0?.stop();
    expect(m0?.running).toBe(false);
    await expect(cluster.dial('unix:m0', {} as never)).rejects.toThrow(
      'unix:m0: connection refused (the member is stopped)',
    );
    m0?.start();
    const c = client(cluster);
    await c.ready;
    expect(c.status.remote).toBe('unix:m0');
    expect(cluster.members[0]?.sessions).toHaveLength(1);
  });
});

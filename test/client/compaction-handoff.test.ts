/**
 * The compaction hand-off on a real 3-member Raft cluster: before it writes
 * a snapshot, an ovsdb-server that leads the cluster hands leadership over
 * (`raft_notify_snapshot_recommended`), so a large database changes leader
 * at every automatic compaction. Here the leader is made to do it 50 times,
 * the way it does it: `cluster/failure-test transfer-leadership` runs that
 * very function, and `ovsdb-server/compact` then writes the snapshot on the
 * former leader. (`ovsdb-server/compact` alone does not hand over: on a
 * leader it compacts in place.)
 *
 * Meanwhile one leader-only client with two monitor groups writes, one
 * transaction at a time, to the tables of both. At each hand-off it must
 * follow the new leader and resume both monitors with `found: true` (no
 * full re-dump: the cluster keeps enough history), and in the end its
 * replica equals the database, every row was delivered as one insert event
 * (none lost, none twice), and every reported outcome matches the database.
 */

import { expect, it } from 'vitest';
import type { MonitorSyncInfo } from '../../src/client/client.js';
import { openDatabase } from '../../src/client/index.js';
import { startOvsdbCluster } from '../../src/testing/index.js';
import { outcomeOf } from '../../src/transactions/index.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';
import { TEST_MODEL } from './helpers/fixtures.js';
import { compareWithDump } from './reliability/scenario.js';

const HANDOFFS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it(`resumes both monitors with found=true across ${HANDOFFS} compaction hand-offs`, async () => {
  const cluster = await startOvsdbCluster({ schema: TEST_SCHEMA, size: 3 });
  const db = await openDatabase({
    remotes: cluster.remotes,
    model: TEST_MODEL,
    tables: {
      Item: { monitor: 'items' },
      Root: { monitor: 'config' },
      Connection: { monitor: 'config' },
    },
    backoff: { initialDelayMs: 50, maxDelayMs: 500 },
  });
  try {
    // ovsdb-server keeps no more transaction history than the database has
    // atoms: some bulk for the history of a few hundred small transactions.
    await db.transact((tx) => {
      tx.insert('Root', { connections: [] });
      for (let i = 0; i < 1000; i++) tx.insert('Item', { name: `filler-${i}`, n: -1 });
    });
    const inserted = new Map<string, number>();
    const count = (key: string) => {
      inserted.set(key, (inserted.get(key) ?? 0) + 1);
    };
    db.on('Item', 'insert', (row) => count(`Item ${row.name}`));
    db.on('Connection', 'insert', (row) => count(`Connection ${row.target}`));
    const resyncs: MonitorSyncInfo[][] = [];
    db.onStatus((e) => {
      if (e.type === 'resynced') resyncs.push([...(e.monitors ?? [])]);
    });
    const fullSyncsBefore = db.stats.fullSyncs;

    // The writer: one transaction at a time, each touching both monitors' tables.
    const outcomes: { name: string; outcome: string }[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const name = `w-${i}`;
        try {
          await db.transact((tx) => {
            tx.insert('Item', { name, n: i });
            const c = tx.insert('Connection', { target: name });
            // (The test model types Item's columns only.)
            tx.mutate('Root', [], [['connections', 'insert', [c]]] as never);
          });
          outcomes.push({ name, outcome: 'committed' });
        } catch (e) {
          outcomes.push({ name, outcome: outcomeOf(e) });
        }
      }
    })();

    for (let h = 0; h < HANDOFFS; h++) {
      const written = outcomes.length;
      while (outcomes.length < written + 3) await sleep(5);
      const leader = await cluster.leader();
      const resynced = resyncs.length;
      await cluster.appctl(leader.index, 'cluster/failure-test', 'transfer-leadership');
      await cluster.appctl(leader.index, 'ovsdb-server/compact');
      const deadline = Date.now() + 20_000;
      while (resyncs.length === resynced || db.status.remote === leader.remote) {
        if (Date.now() > deadline) throw new Error(`hand-off ${h}: the client did not follow`);
        await sleep(5);
      }
    }
    writing = false;
    await writer;
    await db.drained();

    // Every hand-off resumed both monitors from where they were.
    expect(resyncs.length).toBeGreaterThanOrEqual(HANDOFFS);
    const found = resyncs.flat().filter((m) => m.found).length;
    const notFound = resyncs.flat().filter((m) => !m.found);
    console.log(
      `${HANDOFFS} hand-offs, ${outcomes.length} transactions: ${resyncs.length} resyncs, ${found} monitors resumed with found=true, ${notFound.length} full re-dumps`,
    );
    expect(notFound).toEqual([]);
    expect(found).toBe(2 * resyncs.length);
    expect(db.stats.fullSyncs).toBe(fullSyncsBefore);
    expect(db.stats.resumedNotFound).toBe(0);

    // The replica equals the database.
    const leader = await cluster.leader();
    const dump = await cluster.ovsdbClient(leader.index, '--format=json', 'dump', DB);
    const { rows, differences } = compareWithDump(db, dump);
    expect(differences).toEqual([]);
    expect(rows).toBeGreaterThan(1000 + outcomes.length);

    // Every committed write is in the database and was delivered once; nothing else was.
    const committed = outcomes.filter((o) => o.outcome === 'committed').map((o) => o.name);
    expect(outcomes.filter((o) => o.outcome === 'unknown')).toEqual([]);
    const inDb = [...db.rows('Item')].map((r) => r.name).filter((n) => n.startsWith('w-'));
    expect(inDb.sort()).toEqual([...committed].sort());
    const expected = new Map<string, number>();
    for (const name of committed) {
      expected.set(`Item ${name}`, 1);
      expected.set(`Connection ${name}`, 1);
    }
    const delivered = new Map([...inserted].filter(([k]) => !k.startsWith('Item filler-')));
    expect(delivered).toEqual(expected);
  } finally {
    await db.close();
    await cluster.stop();
  }
}, 180_000);

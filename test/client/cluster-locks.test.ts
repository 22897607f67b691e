/**
 * OVSDB locks on a real 3-member RAFT cluster (`startOvsdbCluster`), as
 * `ovn-northd` uses them: leader-only clients compete for the lock on the
 * leader. After a leader change (a handover, then a SIGKILL of the leader)
 * the holder loses the lock with its connection and gets it back on the new
 * leader; a standby's fenced writes never commit; and a lock is kept by
 * each server process, not by the cluster (clients of two members both
 * hold it).
 *
 * The real server only: the in-memory server serves standalone databases.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  connectDatabase,
  type DatabaseClient,
  type DatabaseLock,
  LockNotHeldError,
  type StatusEvent,
} from '../../src/client/index.js';
import { type OvsdbClusterHandle, startOvsdbCluster } from '../../src/testing/index.js';
import {
  type DatabaseHandle,
  openDatabase,
  TransactionOutcomeError,
} from '../../src/transactions/index.js';
import { TEST_SCHEMA } from '../helpers/server.js';
import { TEST_MODEL, type TestTables, until } from './helpers/fixtures.js';

let cluster: OvsdbClusterHandle;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  cluster = await startOvsdbCluster({ schema: TEST_SCHEMA, size: 3 });
});
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(() => cluster?.stop());

const BACKOFF = { initialDelayMs: 50, maxDelayMs: 400 };

async function handle(fence: string): Promise<DatabaseHandle<TestTables>> {
  const db = await openDatabase({
    remotes: cluster.remotes,
    model: TEST_MODEL,
    backoff: BACKOFF,
    fence,
  });
  closers.push(() => db.close());
  return db as DatabaseHandle<TestTables>;
}

/** How each fenced write of a writer ended. */
interface WriteLog {
  committed: string[];
  refused: number;
  notCommitted: number;
  /** Committed writes sent while the writer's lock was not held (must stay empty). */
  committedUnheld: string[];
  other: unknown[];
}

/**
 * Write `${prefix}-${i}` rows through `db`, fenced, one after the other
 * until `stop()`, and note how each ended.
 */
function writer(
  db: DatabaseHandle<TestTables>,
  lock: DatabaseLock,
  prefix: string,
): { log: WriteLog; stop(): Promise<void> } {
  const log: WriteLog = {
    committed: [],
    refused: 0,
    notCommitted: 0,
    committedUnheld: [],
    other: [],
  };
  let running = true;
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const name = `${prefix}-${i}`;
      const heldAtSend = lock.held;
      try {
        await db.transact((tx) => {
          tx.insert('Item', { name, n: i });
        });
        log.committed.push(name);
        if (!heldAtSend) log.committedUnheld.push(name);
      } catch (e) {
        if (e instanceof LockNotHeldError) log.refused++;
        else if (e instanceof TransactionOutcomeError && e.outcome === 'committed') {
          log.committed.push(name);
        } else if (e instanceof TransactionOutcomeError && e.outcome === 'not committed') {
          log.notCommitted++;
        } else log.other.push(e);
        // Not held: wait a little rather than spin on local refusals.
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  })();
  return {
    log,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/** The `Item` names starting with `prefix-`, read from the leader. */
async function rowsOf(prefix: string): Promise<string[]> {
  const leader = await cluster.leader();
  const out = await cluster.ovsdbClient(
    leader.index,
    'transact',
    JSON.stringify(['Test', { op: 'select', table: 'Item', where: [], columns: ['name'] }]),
  );
  const rows = (JSON.parse(out) as [{ rows: { name: string }[] }])[0].rows;
  return rows.map((r) => r.name).filter((n) => n.startsWith(`${prefix}-`));
}

/** The remote and time of the `held` events of `client` from now on. */
function heldOn(client: DatabaseClient<TestTables>): { remote: string | undefined; at: number }[] {
  const out: { remote: string | undefined; at: number }[] = [];
  client.onStatus((e: StatusEvent) => {
    if (e.type === 'lock' && e.lock?.state === 'held')
      out.push({ remote: e.remote, at: Date.now() });
  });
  return out;
}

describe('a lock on a RAFT cluster with leader changes', () => {
  it('the holder loses the lock with the old leader and gets it back on the new one', async ({
    annotate,
  }) => {
    const a = await handle('cl_holder');
    const la = a.lock('cl_holder');
    await la.whenHeld();
    const held = heldOn(a.client);
    const w = writer(a, la, 'holder');
    await until(() => w.log.committed.length >= 5, 10_000, 'writes before the handover');

    // A handover: the old leader steps down without dying.
    const first = await cluster.leader();
    const handedOverAt = Date.now();
    await cluster.appctl(first.index, 'cluster/failure-test', 'transfer-leadership');
    await until(() => held.length >= 1, 20_000, 'the lock on the new leader');
    const second = await cluster.leader();
    expect(second.index).not.toBe(first.index);
    expect(held[0]!.remote).toBe(second.remote);
    const before = w.log.committed.length;
    await until(() => w.log.committed.length >= before + 5, 10_000, 'writes after the handover');

    // SIGKILL of the leader.
    const killedAt = Date.now();
    await cluster.kill(second.index);
    await until(() => held.length >= 2, 30_000, 'the lock on the next leader');
    const third = await cluster.leader();
    expect(held[1]!.remote).toBe(third.remote);
    const after = w.log.committed.length;
    await until(() => w.log.committed.length >= after + 5, 10_000, 'writes after the kill');
    await w.stop();
    await cluster.restart(second.index);

    // Every write ended committed or not committed: none unknown, none unexplained.
    expect(w.log.other).toEqual([]);
    expect(w.log.committedUnheld).toEqual([]);
    expect((await rowsOf('holder')).sort()).toEqual([...w.log.committed].sort());
    await annotate(
      `held again ${held[0]!.at - handedOverAt} ms after the handover, ${held[1]!.at - killedAt} ms after the SIGKILL of the leader; ` +
        `writes: ${w.log.committed.length} committed, ${w.log.refused} refused (lock not held), ${w.log.notCommitted} lost and not committed`,
    );
  });

  it('a standby never commits; after failovers exactly one of the two holds the lock', async () => {
    const a = await handle('cl_pair');
    const la = a.lock('cl_pair');
    await la.whenHeld();
    const b = await handle('cl_pair');
    const lb = b.lock('cl_pair');
    await until(() => lb.reason === 'another client holds it', 10_000, 'the standby to queue');
    const wa = writer(a, la, 'pair_a');
    const wb = writer(b, lb, 'pair_b');
    await until(() => wa.log.committed.length >= 5 && wb.log.refused >= 5, 10_000, 'both writing');
    expect(wb.log.committed).toEqual([]);
    expect(await rowsOf('pair_b')).toEqual([]);

    for (const failover of ['transfer', 'kill'] as const) {
      const leader = await cluster.leader();
      if (failover === 'transfer') {
        await cluster.appctl(leader.index, 'cluster/failure-test', 'transfer-leadership');
      } else {
        await cluster.kill(leader.index);
      }
      // Both clients leave the old leader; whichever asks the new one first holds it.
      await until(
        () => a.client.status.remote !== leader.remote && b.client.status.remote !== leader.remote,
        30_000,
        'both clients to leave the old leader',
      );
      await until(() => la.held || lb.held, 30_000, 'a holder on the new leader');
      const next = await cluster.leader();
      const [holder, standby] = la.held ? [la, lb] : [lb, la];
      await until(() => standby.reason === 'another client holds it', 10_000, 'the other to queue');
      expect(holder.held).toBe(true);
      expect(standby.held).toBe(false);
      await until(
        () =>
          [a.client.status, b.client.status].every(
            (st) => st.state === 'connected' && st.remote === next.remote,
          ),
        30_000,
        'both clients on the new leader',
      );
      if (failover === 'kill') await cluster.restart(leader.index);
    }
    await wa.stop();
    await wb.stop();

    for (const w of [wa, wb]) {
      expect(w.log.other).toEqual([]);
      expect(w.log.committedUnheld).toEqual([]);
    }
    expect((await rowsOf('pair_a')).sort()).toEqual([...wa.log.committed].sort());
    expect((await rowsOf('pair_b')).sort()).toEqual([...wb.log.committed].sort());
  });
});

describe('a lock is kept by each server process, not by the cluster', () => {
  it('without leader-only, clients of two members both hold "the" lock', async () => {
    const leader = await cluster.leader();
    const follower = cluster.members.find((m) => m.index !== leader.index && m.running)!;
    const onLeader = connectDatabase({ remotes: leader.remote, model: TEST_MODEL });
    const onFollower = connectDatabase({
      remotes: follower.remote,
      model: TEST_MODEL,
      leaderOnly: false,
    });
    closers.push(
      () => onLeader.close(),
      () => onFollower.close(),
    );
    await Promise.all([
      onLeader.lock('per_process').whenHeld(),
      onFollower.lock('per_process').whenHeld(),
    ]);
    // Both fenced writes commit: the follower checks the assert against its own locks.
    await onLeader.transact([{ op: 'insert', table: 'Item', row: { name: 'pp-leader-1' } }], {
      fence: 'per_process',
    });
    await onFollower.transact([{ op: 'insert', table: 'Item', row: { name: 'pp-follower-1' } }], {
      fence: 'per_process',
    });
    expect((await rowsOf('pp')).sort()).toEqual(['pp-follower-1', 'pp-leader-1']);
  });
});

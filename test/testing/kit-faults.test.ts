/**
 * Fault injection on a test database's connections, driving the real
 * client: a dropped connection (the client reconnects and resumes from its
 * last transaction), a lost reply (the typed transaction ends `committed`
 * or `not committed`, never `unknown`), a half-open connection (the
 * client's inactivity probe notices it), delayed replies (nothing
 * reordered), a transaction failed with a chosen OVSDB error, and a lock
 * held by someone else.
 */

import { describe, expect, it } from 'vitest';
import { connectDatabase, type DatabaseClient, openDatabase } from '../../src/client/index.js';
import { NB, type NBTables } from '../../src/nb/index.js';
import { TransactionError } from '../../src/ovsdb/wire/errors.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { seedDatabase } from '../../src/testing/kit/database.js';
import { TransactionOutcomeError } from '../../src/transactions/index.js';
import '../../src/testing/vitest.js';
import { closeAfterEach, nextStatus } from './kit-helpers.js';

const track = closeAfterEach();

async function rig() {
  const db = await seedDatabase(NB, { Logical_Switch: { sw0: { name: 'sw0' } } });
  track(db);
  return db;
}

function client(
  db: Awaited<ReturnType<typeof rig>>,
  label = 'controller',
  more: { probeIntervalMs?: number } = {},
): DatabaseClient<NBTables> {
  const c = connectDatabase({ remotes: db.remote(label), dial: db.dial, model: NB, ...more });
  track(c);
  return c;
}

const addSwitch = (name: string): Operation => ({
  op: 'insert',
  table: 'Logical_Switch',
  row: { name },
});

describe('a dropped connection', () => {
  it('the client reconnects and resumes from its last transaction, with what it missed', async () => {
    const db = await rig();
    const c = client(db);
    await c.ready;
    await c.transactRaw([addSwitch('before')]);
    const first = db.session('controller');
    const resynced = nextStatus(c, 'resynced');
    first.drop();
    // Written while the client is away.
    const conn = db.connection('other');
    await conn.transact('OVN_Northbound', [addSwitch('meanwhile')]);
    conn.close();
    await resynced;
    expect(first.closed).toBe(true);
    expect(db.session('controller')).not.toBe(first);
    const sync = c.stats.lastSync[0];
    expect(sync?.method).toBe('monitor_cond_since');
    expect(sync?.found).toBe(true);
    expect(sync?.initialRows).toBe(0);
    expect(sync?.changes).toBe(1);
    await expect(c).toHaveData({
      Logical_Switch: [{ name: 'sw0' }, { name: 'before' }, { name: 'meanwhile' }],
    });
  });
});

describe('a lost reply', () => {
  it('the transaction ran and its reply was lost: the typed transaction ends committed', async () => {
    const db = await rig();
    const handle = track(
      await openDatabase({ remotes: db.remote('controller'), dial: db.dial, model: NB }),
    );
    const rec = db.record();
    db.session('controller').dropAfter(1, { method: 'transact' });
    const r = await handle.transact((tx) => tx.insert('Logical_Switch', { name: 'lost-reply' }));
    expect(r.outcome).toBe('committed');
    expect(['replica', 'probe']).toContain(r.resolution);
    expect(rec.transactions[0]?.outcome).toBe('no reply');
    await expect(db).toHaveDataSubset({ Logical_Switch: [{ name: 'lost-reply' }] });
  });

  it('the request was lost before the server read it: the typed transaction ends not committed', async () => {
    const db = await rig();
    const handle = track(
      await openDatabase({ remotes: db.remote('controller'), dial: db.dial, model: NB }),
    );
    db.session('controller').dropAfter(1, { method: 'transact', handle: false });
    const e = await handle
      .transact((tx) => tx.insert('Logical_Switch', { name: 'lost-request' }))
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(e).toBeInstanceOf(TransactionOutcomeError);
    expect((e as TransactionOutcomeError).outcome).toBe('not committed');
    await expect(db).toHaveData({ Logical_Switch: [{ name: 'sw0' }] });
  });
});

describe('a half-open connection', () => {
  it('the client notices by its inactivity probe, drops it and reconnects', async () => {
    const db = await rig();
    const c = client(db, 'controller', { probeIntervalMs: 100 });
    await c.ready;
    const held = db.session('controller');
    const disconnected = nextStatus(c, 'disconnected');
    const resynced = nextStatus(c, 'resynced');
    held.halfOpen();
    const event = await disconnected;
    expect(event.reason).toMatch(/^inactivity probe: nothing received from the server for \d+ ms$/);
    await resynced;
    expect(db.session('controller')).not.toBe(held);
    // The new connection works.
    await c.transactRaw([addSwitch('after')]);
    await expect(db).toHaveDataSubset({ Logical_Switch: [{ name: 'after' }] });
  });
});

describe('delayed replies', () => {
  it('arrive late and in order: updates before the reply, as sent', async () => {
    const db = await rig();
    const c = client(db);
    await c.ready;
    db.session('controller').delayReplies(150);
    let settled = false;
    const done = c.transactRaw([addSwitch('slow')]).then(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 40));
    expect(settled).toBe(false);
    await done;
    // Read-your-writes still holds: the update came before the reply.
    expect([...c.rows('Logical_Switch')].map((s) => s.name).sort()).toEqual(['slow', 'sw0']);
    db.session('controller').delayReplies(0);
  });
});

describe('a failed transaction', () => {
  it('fails with the chosen error after its operations ran, and commits nothing', async () => {
    const db = await rig();
    const c = client(db);
    await c.ready;
    db.session('controller').failNextTransaction({ error: 'I/O error', details: 'disk full' });
    const e = await c.transactRaw([addSwitch('never')]).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(TransactionError);
    expect((e as TransactionError).error).toBe('I/O error');
    expect((e as TransactionError).details).toBe('disk full');
    await expect(db).toHaveData({ Logical_Switch: [{ name: 'sw0' }] });
    // Only the next one.
    await c.transactRaw([addSwitch('then')]);
    await expect(db).toHaveData({ Logical_Switch: [{ name: 'sw0' }, { name: 'then' }] });
  });

  it('is recorded as failed, with its reply', async () => {
    const db = await rig();
    const c = client(db);
    await c.ready;
    const rec = db.record();
    db.session('controller').failNextTransaction({ error: 'timed out' });
    await c.transactRaw([addSwitch('never')]).catch(() => undefined);
    expect(rec.transactions).toHaveLength(1);
    expect(rec.transactions[0]?.outcome).toBe('failed');
    expect(rec.transactions[0]?.results?.at(-1)).toEqual({ error: 'timed out' });
  });
});

describe('a lock held by the test', () => {
  it('is refused to the client until released, then granted', async () => {
    const db = await rig();
    const held = await db.holdLock('ovn_northd');
    const conn = db.connection('controller');
    track({ close: async () => conn.close() });
    const granted = new Promise<string>((resolve) => conn.on('locked', resolve));
    expect(await conn.lock('ovn_northd')).toBe(false);
    await held.release();
    expect(await granted).toBe('ovn_northd');
  });
});

/**
 * Exactly-once: a transaction whose reply is lost is resolved to
 * "committed" or "not committed" after the client reconnects and resyncs,
 * against every target (both servers, and the real one over `ws:` through a
 * bridge in front of the proxy) behind a proxy that loses messages on
 * purpose (and a server that is killed).
 */

import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import type { TableName } from '../../src/ovsdb/schema/model.js';
import { outcomeOf, TransactionOutcomeError } from '../../src/transactions/index.js';
import { TARGETS, useTarget } from '../helpers/targets.js';
import type { Transacting } from '../helpers/typed.js';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';
import { Test, type TestTables } from './fixtures/test-model/index.js';
import { rejection, TEST_SCHEMA_PATH, unique } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(TARGETS)('exactly-once against %s', (target) => {
  const fx = useTarget(target, { schemaPath: TEST_SCHEMA_PATH });
  let proxy: FaultProxy;
  /** What the clients dial: the proxy, or for a ws target a bridge in front of it. */
  let remote: string;
  /** A raw connection, straight to the server's socket. */
  let raw: OvsdbConnection;
  beforeAll(async () => {
    proxy = await startFaultProxy(fx.unixRemote);
    fx.onClose(() => proxy.close());
    remote = await fx.via(proxy.remote);
    raw = await connect(fx.unixRemote);
    fx.onClose(() => raw.close());
  });

  async function client(
    tables?: readonly TableName<TestTables>[],
  ): Promise<{ client: DatabaseClient<TestTables>; db: Transacting<TestTables> }> {
    const c = connectDatabase({
      remotes: [remote],
      model: Test,
      backoff: { initialDelayMs: 10, maxDelayMs: 50 },
      ...(tables ? { tables: Object.fromEntries(tables.map((t) => [t, true])) } : {}),
    });
    fx.onClose(() => c.close());
    await c.ready;
    return { client: c, db: c };
  }

  /** The Root rows named `name`, straight from the server. */
  async function rootsNamed(name: string): Promise<unknown[]> {
    const [r] = await raw.transact('Test', [
      { op: 'select', table: 'Root', where: [['name', '==', name]], columns: ['_uuid'] },
    ]);
    return r!.rows as unknown[];
  }

  /**
   * Run `start` with the proxy in `mode`, give the server time to handle the
   * request, then cut the connection and let the client reconnect.
   */
  async function lose<T>(
    mode: 'drop-replies' | 'drop-requests',
    start: () => Promise<T>,
  ): Promise<T> {
    proxy.mode = mode;
    const p = start();
    p.catch(() => {});
    await sleep(150);
    proxy.mode = 'pass';
    proxy.cut();
    return p;
  }

  describe('an inserting transaction whose reply is lost', () => {
    it('is "committed" when it committed: the resynced replica shows the row', async () => {
      const { db, client: c } = await client();
      const name = unique('lost-reply');
      const result = await lose('drop-replies', () =>
        db.transact((tx) => tx.insert('Root', { name })),
      );
      expect(result).toMatchObject({ outcome: 'committed', resolution: 'replica', attempts: 1 });
      expect(c.get('Root', result.value)?.name).toBe(name);
      expect(await rootsNamed(name)).toHaveLength(1);
    });

    it('is "committed" when it committed: a select probe finds the row of an unmonitored table', async () => {
      const { db, client: c } = await client(['Child']);
      expect(c.isMonitored('Root')).toBe(false);
      const name = unique('lost-reply-probe');
      const result = await lose('drop-replies', () =>
        db.transact((tx) => tx.insert('Root', { name })),
      );
      expect(result).toMatchObject({ outcome: 'committed', resolution: 'probe' });
      expect(await rootsNamed(name)).toEqual([{ _uuid: ['uuid', result.value] }]);
    });

    it('is "not committed" when the request never arrived', async () => {
      const { db } = await client();
      const name = unique('lost-request');
      const e = await rejection(
        lose('drop-requests', () => db.transact((tx) => tx.insert('Root', { name }))),
      );
      expect(e).toBeInstanceOf(TransactionOutcomeError);
      expect(outcomeOf(e)).toBe('not committed');
      expect((e as TransactionOutcomeError).reason).toMatch(/inserted rows do not exist/);
      expect(await rootsNamed(name)).toHaveLength(0);
    });

    it('with idempotent: a retry that hits "duplicate uuid" proves the first attempt committed (one row)', async () => {
      const { db } = await client();
      const name = unique('idem-committed');
      const result = await lose('drop-replies', () =>
        db.transact((tx) => tx.insert('Root', { name }), { idempotent: true }),
      );
      expect(result).toMatchObject({
        outcome: 'committed',
        resolution: 'duplicate uuid',
        attempts: 2,
      });
      expect(await rootsNamed(name)).toHaveLength(1);
    });

    it('with idempotent: a retry commits what never arrived (one row, the same UUID)', async () => {
      const { db } = await client();
      const name = unique('idem-retry');
      const result = await lose('drop-requests', () =>
        db.transact((tx) => tx.insert('Root', { name }), { idempotent: true }),
      );
      expect(result).toMatchObject({ outcome: 'committed', resolution: 'retry', attempts: 2 });
      expect(await rootsNamed(name)).toEqual([{ _uuid: ['uuid', result.value] }]);
    });

    it('that committed but returns operation results reports "committed" with the results lost', async () => {
      const { db } = await client();
      const name = unique('results-lost');
      const e = await rejection(
        lose('drop-replies', () =>
          db.transact((tx) => {
            tx.insert('Root', { name });
            return tx.select('Root', { name });
          }),
        ),
      );
      expect(e).toBeInstanceOf(TransactionOutcomeError);
      expect(outcomeOf(e)).toBe('committed');
      expect(await rootsNamed(name)).toHaveLength(1);
    });
  });

  describe('a transaction without inserts whose reply is lost', () => {
    it('has outcome "unknown", with the reason', async () => {
      const { db } = await client();
      const name = unique('no-insert');
      await db.transact((tx) => tx.insert('Root', { name }));
      const e = await rejection(
        lose('drop-replies', () => db.transact((tx) => tx.update('Root', { name }, { i: 5 }))),
      );
      expect(e).toBeInstanceOf(TransactionOutcomeError);
      expect(outcomeOf(e)).toBe('unknown');
      expect((e as TransactionOutcomeError).reason).toContain('inserts no row');
    });

    it('is sent again with idempotent: true', async () => {
      const { db, client: c } = await client();
      const name = unique('no-insert-idem');
      const { value: root } = await db.transact((tx) => tx.insert('Root', { name }));
      const result = await lose('drop-requests', () =>
        db.transact((tx) => tx.update('Root', { name }, { i: 6 }), { idempotent: true }),
      );
      expect(result).toMatchObject({
        outcome: 'committed',
        resolution: 'retry',
        attempts: 2,
        value: 1,
      });
      expect(c.get('Root', root)?.i).toBe(6);
    });

    it('that only reads is sent again', async () => {
      const { db } = await client();
      const name = unique('read-only');
      await db.transact((tx) => tx.insert('Root', { name }));
      const result = await lose('drop-replies', () =>
        db.transact((tx) => tx.select('Root', { name }, ['name'])),
      );
      expect(result).toMatchObject({ outcome: 'committed', attempts: 2, value: [{ name }] });
    });
  });

  describe('a transaction in flight when the server is killed', () => {
    it('is "not committed" once the client reconnects to the restarted server', async () => {
      const { db } = await client();
      const name = unique('killed');
      const p = db.transact((tx) => {
        // Hold the transaction on the server until it dies.
        tx.wait(
          'Root',
          { name: unique('never') },
          { columns: ['i'], until: '==', rows: [{ i: 1 }], timeout: 60_000 },
        );
        tx.insert('Root', { name });
      });
      p.catch(() => {});
      await sleep(100);
      await fx.server.kill();
      await fx.server.restart();
      const e = await rejection(p);
      expect(e).toBeInstanceOf(TransactionOutcomeError);
      expect(outcomeOf(e)).toBe('not committed');
      raw.close();
      raw = await connect(fx.unixRemote);
      expect(await rootsNamed(name)).toHaveLength(0);
    });
  });
});

/**
 * Every operation and mutator of the transaction builder against every
 * target (both servers, and the real one over `ws:` through the bridge),
 * including the error cases, each checked for its typed error.
 */

import { describe, expect, it } from 'vitest';
import { newUuid } from '../../src/ovsdb/values/uuid.js';
import { DatumError, RequestTimeoutError, TransactionError } from '../../src/ovsdb/wire/errors.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { compileTransaction } from '../../src/transactions/compile.js';
import {
  BatchError,
  DuplicateIndexError,
  outcomeOf,
  TransactionOutcomeError,
} from '../../src/transactions/index.js';
import { typedError } from '../../src/transactions/reply.js';
import { TARGETS } from '../helpers/targets.js';
import { Test } from './fixtures/test-model/index.js';
import { rejection, TEST_SCHEMA_PATH, unique, useServer } from './helpers.js';

describe.each(TARGETS)('transaction operations against %s', (target) => {
  const fixture = useServer(target, { schemaPath: TEST_SCHEMA_PATH });

  describe('insert, select, update, delete', () => {
    it('insert returns the row UUID chosen by the client; select returns typed rows', async () => {
      const { db, client } = await fixture.client(Test);
      const name = unique('r');
      const { value, resolution, attempts } = await db.transact((tx) => {
        const child = tx.insert('Child', { name: 'c', n: 3 });
        const root = tx.insert('Root', {
          name,
          i: 7,
          r: 2.5,
          b: true,
          e: 'beta',
          sset: ['x', 'y'],
          smap: { k: 'v' },
          imap: { 1: 'one' },
          children: [child],
          child_map: { first: child },
        });
        return {
          root,
          child,
          rows: tx.select('Root', root, ['name', 'i', 'e', 'sset', 'smap', 'imap', 'children']),
        };
      });
      expect([resolution, attempts]).toEqual(['reply', 1]);
      expect(value.rows).toEqual([
        {
          name,
          i: 7,
          e: 'beta',
          sset: ['x', 'y'],
          smap: { k: 'v' },
          imap: { 1: 'one' },
          children: [value.child],
        },
      ]);
      // Read-your-writes: the replica already holds both rows, under the client's UUIDs.
      expect(client.get('Root', value.root)?.child_map).toEqual({ first: value.child });
      expect(client.get('Child', value.child)?.name).toBe('c');
    });

    it('update and delete return the number of rows, and a Ref works in later transactions', async () => {
      const { db, client } = await fixture.client(Test);
      const a = unique('a');
      const { value: root } = await db.transact((tx) => tx.insert('Root', { name: a }));
      const { value } = await db.transact((tx) => ({
        one: tx.update('Root', { name: a }, { i: 42, s: 'hey' }),
        none: tx.update('Root', [['name', '==', unique('nobody')]], { i: 1 }),
      }));
      expect(value).toEqual({ one: 1, none: 0 });
      expect(client.get('Root', root)).toMatchObject({ i: 42, s: 'hey' });
      const { value: deleted } = await db.transact((tx) => tx.delete('Root', root));
      expect(deleted).toBe(1);
      expect(client.get('Root', root)).toBeUndefined();
    });

    it('insert takes a given UUID, and a row may reference itself', async () => {
      const { db } = await fixture.client(Test);
      const uuid = newUuid<'Weak'>();
      const { value } = await db.transact((tx) => {
        const ref = tx.insert('Weak', { name: 'self', peer: uuid }, { uuid });
        return { ref, rows: tx.select('Weak', ref, ['_uuid', 'peer']) };
      });
      expect(value).toEqual({ ref: uuid, rows: [{ _uuid: uuid, peer: uuid }] });
    });

    it('select sorts by the sort columns', async () => {
      const { db } = await fixture.client(Test);
      const tag = unique('sorted');
      const { value } = await db.transact((tx) => {
        for (const i of [5, -3, 9, 0]) tx.insert('Root', { name: `${tag}-${i}`, i, smap: { tag } });
        return tx.select('Root', [['smap', 'includes', { tag }]], ['i'], { sort: ['i'] });
      });
      expect(value.map((r) => r.i)).toEqual([-3, 0, 5, 9]);
    });

    it('conditions of every function select the right rows', async () => {
      const { db } = await fixture.client(Test);
      const tag = unique('cond');
      const { value } = await db.transact((tx) => {
        tx.insert('Root', {
          name: `${tag}-1`,
          i: 1,
          r: 1.5,
          sset: ['a', 'b'],
          smap: { tag, k: '1' },
        });
        tx.insert('Root', { name: `${tag}-2`, i: 2, r: 2.5, sset: ['b'], smap: { tag } });
        const mine = [['smap', 'includes', { tag }]] as const;
        const names = (where: Parameters<typeof tx.select<'Root', 'name'>>[1]) =>
          tx.select('Root', where, ['name'], { sort: ['name'] });
        return {
          lt: names([...mine, ['i', '<', 2]]),
          le: names([...mine, ['i', '<=', 2]]),
          gt: names([...mine, ['r', '>', 2]]),
          ge: names([...mine, ['i', '>=', 2]]),
          ne: names([...mine, ['i', '!=', 1]]),
          inc: names([...mine, ['sset', 'includes', ['a']]]),
          exc: names([...mine, ['sset', 'excludes', ['a']]]),
          map: names([...mine, ['smap', 'includes', { k: '1' }]]),
          key: names({ name: `${tag}-2` }),
        };
      });
      const n = (...ids: number[]) => ids.map((i) => ({ name: `${tag}-${i}` }));
      expect(value).toEqual({
        lt: n(1),
        le: n(1, 2),
        gt: n(2),
        ge: n(2),
        ne: n(2),
        inc: n(1),
        exc: n(2),
        map: n(1),
        key: n(2),
      });
    });
  });

  describe('mutate', () => {
    it('applies set, map and arithmetic mutators', async () => {
      const { db, client } = await fixture.client(Test);
      const { value: root } = await db.transact((tx) =>
        tx.insert('Root', {
          name: unique('m'),
          i: 10,
          r: 10,
          oi: 5,
          sset: ['a', 'b'],
          iset: [1, 2],
          rset: [1.5, 2],
          smap: { a: '1', b: '2', c: '3' },
          imap: { 1: 'x', 2: 'y' },
        }),
      );
      await db.transact((tx) => {
        tx.mutate('Root', root, [
          ['sset', 'insert', ['c']],
          ['sset', 'delete', ['a']],
          ['iset', 'insert', [3]],
          ['iset', '*=', 10],
          ['rset', '+=', 0.5],
          ['smap', 'insert', { a: 'ignored', d: '4' }],
          ['smap', 'delete', ['b']],
          ['smap', 'delete', { c: '3', d: 'not-this-value' }],
          ['imap', 'delete', [1]],
          ['i', '+=', 5],
          ['i', '-=', 1],
          ['i', '*=', 3],
          ['i', '/=', 4],
          ['i', '%=', 7],
          ['r', '/=', 4],
          ['oi', '-=', 10],
        ]);
      });
      expect(client.get('Root', root)).toMatchObject({
        sset: ['b', 'c'],
        iset: [10, 20, 30],
        rset: [2, 2.5],
        smap: { a: '1', d: '4' },
        imap: { 2: 'y' },
        i: ((((10 + 5 - 1) * 3) / 4) | 0) % 7,
        r: 2.5,
        oi: -5,
      });
    });
  });

  describe('wait, comment, assert, abort, durable', () => {
    it('wait passes when the rows are (or are not) as given, and fails with "timed out" otherwise', async () => {
      const { db } = await fixture.client(Test);
      const name = unique('w');
      await db.transact((tx) => {
        tx.insert('Root', { name, i: 1 });
      });
      await db.transact((tx) => {
        tx.wait('Root', { name }, { columns: ['i'], until: '==', rows: [{ i: 1 }], timeout: 0 });
        tx.wait('Root', { name }, { columns: ['i'], until: '!=', rows: [{ i: 2 }], timeout: 0 });
      });
      for (const timeout of [0, 50]) {
        const e = await rejection(
          db.transact((tx) => {
            tx.comment('first');
            tx.wait('Root', { name }, { columns: ['i'], until: '==', rows: [{ i: 2 }], timeout });
          }),
        );
        expect(e).toBeInstanceOf(TransactionError);
        const t = e as TransactionError;
        expect([t.opIndex, t.op, t.table, t.error, t.commit]).toEqual([
          1,
          'wait',
          'Root',
          'timed out',
          false,
        ]);
        expect(outcomeOf(e)).toBe('not committed');
      }
    });

    it('comment and durable commit; abort fails with "aborted"; assert without the lock with "not owner"', async () => {
      const { db, client } = await fixture.client(Test);
      const name = unique('c');
      const { ops } = await db.transact((tx) => tx.insert('Root', { name }), {
        comment: 'from a test',
        durable: true,
      });
      expect(ops.slice(1)).toEqual([
        { op: 'comment', comment: 'from a test' },
        { op: 'commit', durable: true },
      ]);
      expect(client.lookup('Root', { name })).toBeDefined();

      const other = unique('c');
      let e = await rejection(
        db.transact((tx) => {
          tx.insert('Root', { name: other });
          tx.abort();
        }),
      );
      expect(e).toMatchObject({ opIndex: 1, op: 'abort', error: 'aborted', commit: false });
      e = await rejection(db.transact((tx) => tx.assertLock('nobody_holds_this')));
      expect(e).toMatchObject({ opIndex: 0, op: 'assert', error: 'not owner' });
      expect(client.lookup('Root', { name: other })).toBeUndefined();
    });

    it('assert passes on the session that holds the lock', async () => {
      const { conn, db } = await fixture.connection(Test);
      expect(await conn.lock('tx_test_lock')).toBe(true);
      const name = unique('locked');
      const { value } = await db.transact((tx) => {
        tx.assertLock('tx_test_lock');
        return tx.insert('Root', { name });
      });
      expect(value).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('server errors are typed', () => {
    it('referential integrity: a reference to a missing row, and deleting a referenced row', async () => {
      const { db } = await fixture.client(Test);
      let e = await rejection(
        db.transact((tx) => {
          tx.insert('Root', {
            name: unique('ri'),
            children: ['00000000-0000-4000-8000-000000000001' as never],
          });
        }),
      );
      expect(e).toBeInstanceOf(TransactionError);
      expect(e).toMatchObject({
        error: 'referential integrity violation',
        commit: true,
        opIndex: 1,
      });
      expect((e as TransactionError).details).toContain('references nonexistent row');

      const { value: child } = await db.transact((tx) => {
        const child = tx.insert('Child', { name: 'kept' });
        tx.insert('Root', { name: unique('ri'), children: [child] });
        return child;
      });
      e = await rejection(db.transact((tx) => tx.delete('Child', child)));
      expect(e).toMatchObject({ error: 'referential integrity violation', commit: true });
      expect((e as TransactionError).details).toContain('remaining reference');
    });

    it('constraint violation: a mutation result out of range names the operation', async () => {
      const { db } = await fixture.client(Test);
      const name = unique('cv');
      await db.transact((tx) => tx.insert('Root', { name, i: 90 }));
      const e = await rejection(
        db.transact((tx) => {
          tx.select('Root', { name });
          tx.mutate('Root', { name }, [['i', '+=', 20]]);
        }),
      );
      expect(e).toBeInstanceOf(TransactionError);
      expect(e).not.toBeInstanceOf(DuplicateIndexError);
      expect(e).toMatchObject({
        opIndex: 1,
        op: 'mutate',
        table: 'Root',
        error: 'constraint violation',
        commit: false,
      });
      expect((e as TransactionError).details).toContain('110 is not in the valid range');
    });

    it('constraint violation: too many rows is a commit error', async () => {
      const { db } = await fixture.client(Test);
      const e = await rejection(
        db.transact((tx) => {
          for (let a = 0; a < 3; a++) tx.insert('Limited', { a, b: 'x' });
        }),
      );
      expect(e).toMatchObject({ opIndex: 3, commit: true, error: 'constraint violation' });
      expect(e).not.toBeInstanceOf(DuplicateIndexError);
    });

    it('a duplicate index names the index and the value (two inserts)', async () => {
      const { db } = await fixture.client(Test);
      const name = unique('dup');
      const e = await rejection(
        db.transact((tx) => {
          tx.insert('Root', { name });
          tx.insert('Root', { name });
        }),
      );
      expect(e).toBeInstanceOf(DuplicateIndexError);
      const d = e as DuplicateIndexError;
      expect([d.table, d.index, d.value, d.valueText, d.commit, d.opIndex]).toEqual([
        'Root',
        ['name'],
        { name },
        name,
        true,
        2,
      ]);
      expect(d.message).toContain(`{"name":"${name}"}`);
    });

    it('a duplicate index names the value from the replica when both rows existed', async () => {
      const { db } = await fixture.client(Test);
      const [a, b] = [unique('dupa'), unique('dupb')];
      await db.transact((tx) => {
        tx.insert('Root', { name: a });
        tx.insert('Root', { name: b, i: 3 });
      });
      const e = await rejection(db.transact((tx) => tx.update('Root', { name: b }, { name: a })));
      expect(e).toBeInstanceOf(DuplicateIndexError);
      expect((e as DuplicateIndexError).value).toEqual({ name: a });
    });

    it('a duplicate composite index names every column', async () => {
      const { db } = await fixture.client(Test);
      await db.transact((tx) => tx.delete('Limited', []));
      const e = await rejection(
        db.transact((tx) => {
          tx.insert('Limited', { a: 1, b: 'x y' });
          tx.insert('Limited', { a: 1, b: 'x y' });
        }),
      );
      expect(e).toMatchObject({
        index: ['a', 'b'],
        value: { a: 1, b: 'x y' },
        valueText: '1 and "x y"',
      });
    });

    it('range error: an arithmetic overflow', async () => {
      const { db } = await fixture.client(Test);
      const name = unique('range');
      await db.transact((tx) => tx.insert('Root', { name, oi: 2 ** 52 }));
      const e = await rejection(
        db.transact((tx) => tx.mutate('Root', { name }, [['oi', '*=', 2 ** 52]])),
      );
      expect(e).toBeInstanceOf(TransactionError);
      expect(e).toMatchObject({ opIndex: 0, op: 'mutate', table: 'Root', error: 'range error' });
    });

    it('domain error: a division by zero is caught before sending, and the server reply maps to a typed error', async () => {
      const { db, client } = await fixture.client(Test);
      const name = unique('domain');
      await db.transact((tx) => tx.insert('Root', { name }));
      const e = await rejection(db.transact((tx) => tx.mutate('Root', { name }, [['i', '/=', 0]])));
      expect(e).toBeInstanceOf(DatumError);
      expect(e).toMatchObject({ table: 'Root', column: 'i', value: 0 });
      expect((e as DatumError).reason).toContain('division by zero');

      // What the server says when it gets one anyway.
      const ops: Operation[] = [
        { op: 'select', table: 'Root', where: [['name', '==', name]] },
        { op: 'mutate', table: 'Root', where: [['name', '==', name]], mutations: [['r', '/=', 0]] },
      ];
      const compiled = { ...compileTransaction(Test, () => {}).compiled, ops };
      const error = (await rejection(client.transactRaw(ops))) as TransactionError;
      const mapped = typedError(Test, compiled, error, client);
      expect(mapped).toMatchObject({
        opIndex: 1,
        op: 'mutate',
        table: 'Root',
        error: 'domain error',
        commit: false,
      });
    });
  });

  describe('options', () => {
    it('dryRun returns the JSON operations and sends nothing', async () => {
      const { db, client } = await fixture.client(Test);
      const name = unique('dry');
      const dry = await db.transact((tx) => tx.insert('Root', { name, sset: ['a'] }), {
        dryRun: true,
        comment: 'c',
      });
      expect(dry.outcome).toBe('dry run');
      expect(dry.database).toBe('Test');
      expect(JSON.parse(JSON.stringify(dry.ops))).toEqual([
        {
          op: 'insert',
          table: 'Root',
          row: { name, sset: ['set', ['a']] },
          uuid: dry.value,
          'uuid-name': 'row0',
        },
        { op: 'comment', comment: 'c' },
      ]);
      await db.transact((tx) => tx.select('Root', []));
      expect(client.lookup('Root', { name })).toBeUndefined();
    });

    it('an aborted signal sends nothing', async () => {
      const { db, client } = await fixture.client(Test);
      const name = unique('aborted');
      const ac = new AbortController();
      ac.abort(new Error('stop'));
      const e = await rejection(
        db.transact((tx) => tx.insert('Root', { name }), { signal: ac.signal }),
      );
      expect((e as Error).message).toBe('stop');
      expect(outcomeOf(e)).toBe('not committed');
      await db.transact((tx) => tx.select('Root', []));
      expect(client.lookup('Root', { name })).toBeUndefined();
    });

    it('a timeout cancels a blocked transaction; an inserting one resolves to "not committed"', async () => {
      const { db } = await fixture.connection(Test);
      const name = unique('blocked');
      const started = Date.now();
      const e = await rejection(
        db.transact(
          (tx) => {
            tx.wait(
              'Root',
              { name: unique('never') },
              { columns: ['i'], until: '==', rows: [{ i: 1 }], timeout: 10_000 },
            );
            tx.insert('Root', { name });
          },
          { timeoutMs: 200 },
        ),
      );
      expect(Date.now() - started).toBeLessThan(5000);
      expect(e).toBeInstanceOf(TransactionOutcomeError);
      expect(e).toMatchObject({ outcome: 'not committed' });
      expect((e as TransactionOutcomeError).reason).toMatch(/no reply within 200 ms.*probe/);
      const { value } = await db.transact((tx) => tx.select('Root', { name }));
      expect(value).toEqual([]);
    });

    it('a timed-out transaction without inserts has outcome "unknown", with the reason', async () => {
      const { db } = await fixture.connection(Test);
      const e = await rejection(
        db.transact(
          (tx) => {
            tx.wait(
              'Root',
              { name: unique('never') },
              { columns: ['i'], until: '==', rows: [{ i: 1 }], timeout: 10_000 },
            );
            tx.update('Root', { name: unique('x') }, { i: 1 });
          },
          { timeoutMs: 100 },
        ),
      );
      expect(e).toBeInstanceOf(TransactionOutcomeError);
      expect(e).toMatchObject({ outcome: 'unknown' });
      expect((e as TransactionOutcomeError).reason).toContain('inserts no row');
      expect((e as TransactionOutcomeError).cause).toBeInstanceOf(RequestTimeoutError);
    });
  });

  describe('transactBatches', () => {
    it('commits the items in batches and reports progress', async () => {
      const { db, client } = await fixture.client(Test);
      const tag = unique('batch');
      const items = Array.from({ length: 25 }, (_, i) => `${tag}-${i}`);
      const progress: number[] = [];
      const result = await db.transactBatches(
        items,
        10,
        (tx, name, i) => tx.insert('Root', { name, i: i % 50 }),
        {
          onProgress: (p) => {
            expect(p.total).toBe(25);
            expect(p.batches).toBe(3);
            progress.push(p.done);
          },
        },
      );
      expect(result).toEqual({ items: 25, batches: 3, attempts: 3 });
      expect(progress).toEqual([10, 20, 25]);
      expect(items.every((name) => client.lookup('Root', { name }) !== undefined)).toBe(true);
    });

    it('stops at a failing batch, saying how many items committed', async () => {
      const { db, client } = await fixture.client(Test);
      const tag = unique('batchfail');
      const items = Array.from({ length: 30 }, (_, i) => `${tag}-${i === 15 ? 14 : i}`);
      const e = await rejection(
        db.transactBatches(items, 10, (tx, name) => tx.insert('Root', { name })),
      );
      expect(e).toBeInstanceOf(BatchError);
      expect(e).toMatchObject({ batch: 1, done: 10, firstItem: 10, outcome: 'not committed' });
      expect((e as BatchError).cause).toBeInstanceOf(DuplicateIndexError);
      expect(client.lookup('Root', { name: `${tag}-9` })).toBeDefined();
      expect(client.lookup('Root', { name: `${tag}-10` })).toBeUndefined();
    });
  });
});

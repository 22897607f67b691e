/**
 * Event delivery against every target (both servers, and the real one over
 * `ws:` through the bridge): commit order under 1,000 concurrent writes from
 * other connections, no drops. Backpressure is in event-backpressure.test.ts.
 */

import { describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/ovsdb/wire/wire.js';
import { DB, TEST_SCHEMA } from '../../helpers/server.js';
import { TARGETS, useTarget } from '../../helpers/targets.js';
import { type Item, testClientOpener, until, useRawWriters } from '../helpers/fixtures.js';

describe.each(TARGETS)('events against %s', (target) => {
  const fx = useTarget(target, { schema: TEST_SCHEMA });
  const writers = useRawWriters(fx, 4);
  const open = testClientOpener(fx);

  describe('commit order', () => {
    it('delivers the events of 1,000 concurrent transactions in commit order, none dropped', async () => {
      const counter = 'order-counter';
      await writers[0]!.transact(DB, [
        { op: 'insert', table: 'Item', row: { name: counter, n: 0 } },
      ]);
      const c = open();
      await c.ready;
      const events: { kind: 'update' | 'insert'; row: Item; old?: Item; batch: number }[] = [];
      c.on('Item', 'update', (row, old, { batch }) => {
        if (row.name === counter) events.push({ kind: 'update', row, old, batch });
      });
      c.on('Item', 'insert', (row, { batch }) => {
        if (row.name.startsWith('w-')) events.push({ kind: 'insert', row, batch });
      });
      // 4 connections × 250 transactions, all sent without waiting: the server
      // interleaves the sessions; the counter records the commit order.
      const sends: Promise<unknown>[] = [];
      for (let i = 0; i < 250; i++) {
        for (let w = 0; w < writers.length; w++) {
          sends.push(
            writers[w]!.transact(DB, [
              {
                op: 'mutate',
                table: 'Item',
                where: [['name', '==', counter]],
                mutations: [['n', '+=', 1]],
              },
              { op: 'insert', table: 'Item', row: { name: `w-${w}-${i}`, n: -1 } },
            ] as Operation[]),
          );
        }
      }
      await Promise.all(sends);
      await until(() => c.lookup('Item', { name: counter })?.n === 1000, 20_000, 'the last commit');
      await c.drained();
      // ovsdb-server may report several transactions in one update (a batch):
      // batches arrive in commit order, each with one counter update whose
      // delta is the number of transactions, i.e. of inserts, in it.
      const batches = new Map<number, typeof events>();
      for (const e of events) {
        const list = batches.get(e.batch) ?? [];
        list.push(e);
        batches.set(e.batch, list);
      }
      const order = [...batches.keys()];
      expect(order).toEqual([...order].sort((a, b) => a - b));
      let counterValue = 0;
      let insertCount = 0;
      const lastPerWriter = [-1, -1, -1, -1];
      for (const batch of order) {
        const list = batches.get(batch)!;
        const updates = list.filter((e) => e.kind === 'update');
        const inserts = list.filter((e) => e.kind === 'insert');
        expect(updates).toHaveLength(1);
        const u = updates[0]!;
        expect(u.old?.n).toBe(counterValue);
        expect(u.row.n - counterValue).toBe(inserts.length);
        counterValue = u.row.n;
        insertCount += inserts.length;
        // One session's transactions commit in the order it sent them: its
        // inserts in this batch follow those of earlier batches, with no gap.
        const perWriter = new Map<number, number[]>();
        for (const e of inserts) {
          const [, w, i] = e.row.name.split('-').map(Number);
          perWriter.set(w!, [...(perWriter.get(w!) ?? []), i!]);
        }
        for (const [w, is] of perWriter) {
          is.sort((a, b) => a - b);
          expect(is[0]).toBe(lastPerWriter[w]! + 1);
          expect(is.at(-1)! - is[0]!).toBe(is.length - 1);
          lastPerWriter[w] = is.at(-1)!;
        }
      }
      expect(counterValue).toBe(1000);
      expect(insertCount).toBe(1000);
      expect(lastPerWriter).toEqual([249, 249, 249, 249]);
      expect(c.lookup('Item', { name: counter })?.n).toBe(1000);
    });
  });
});

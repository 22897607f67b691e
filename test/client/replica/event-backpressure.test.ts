/**
 * Event backpressure against every target (both servers, and the real one
 * over `ws:` through the bridge): a slow handler neither blocks the reader
 * nor lets the queue grow without bound, while other connections write.
 */

import { describe, expect, it } from 'vitest';
import { ZERO_UUID } from '../../../src/ovsdb/values/uuid.js';
import type { Operation } from '../../../src/ovsdb/wire/wire.js';
import { DB, TEST_SCHEMA } from '../../helpers/server.js';
import { TARGETS, useTarget } from '../../helpers/targets.js';
import { testClientOpener, until, useRawWriters } from '../helpers/fixtures.js';

/** What a Node socket reads at once. */
const SOCKET_READ_BYTES = 64 * 1024;
/**
 * A lower bound of the size of one update notification of the test below
 * (an empty monitor id; real ones are longer), framing excluded.
 */
const SMALLEST_UPDATE_BYTES = JSON.stringify({
  id: null,
  method: 'update3',
  params: ['', ZERO_UUID, { Item: { [ZERO_UUID]: { modify: { n: 1 } } } }],
}).length;

describe.each(TARGETS)('event backpressure against %s', (target) => {
  const fx = useTarget(target, { schema: TEST_SCHEMA });
  const writers = useRawWriters(fx, 4);
  const open = testClientOpener(fx);

  describe('backpressure', () => {
    it('a blocked handler does not block the reader: the replica stays current', async () => {
      const c = open();
      await c.ready;
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const delivered: string[] = [];
      c.on('Item', 'insert', async (row) => {
        if (!row.name.startsWith('gate-')) return;
        await gate;
        delivered.push(row.name);
      });
      for (let i = 0; i < 20; i++) {
        await c.transactRaw([{ op: 'insert', table: 'Item', row: { name: `gate-${i}`, n: i } }]);
        expect(c.lookup('Item', { name: `gate-${i}` })?.n).toBe(i);
      }
      expect(delivered).toEqual([]);
      release();
      await c.drained();
      expect(delivered).toEqual(Array.from({ length: 20 }, (_, i) => `gate-${i}`));
    });

    it('pauses reading above the high-water mark, resumes below the low one, delivers everything in order', async () => {
      const high = 64;
      const c = open({ eventQueue: { highWaterMark: high, lowWaterMark: 16 } });
      await c.ready;
      const seen: number[] = [];
      c.on('Item', 'insert', async (row) => {
        if (!row.name.startsWith('bp-')) return;
        await new Promise((r) => setTimeout(r, 1));
        seen.push(row.n);
      });
      const total = 2000;
      const perTxn = 10;
      const sends: Promise<unknown>[] = [];
      for (let t = 0; t < total / perTxn; t++) {
        const ops: Operation[] = [];
        for (let j = 0; j < perTxn; j++) {
          const n = t * perTxn + j;
          ops.push({
            op: 'insert',
            table: 'Item',
            row: { name: `bp-${n}`, n, tags: ['set', ['x'.repeat(200)]] },
          } as Operation);
        }
        sends.push(writers[t % writers.length]!.transact(DB, ops));
      }
      await Promise.all(sends);
      await until(() => seen.length === total, 40_000, 'every event');
      await c.drained();
      expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i));
      expect(c.stats.events.pauses).toBeGreaterThan(0);
      expect(c.count('Item')).toBeGreaterThanOrEqual(total);
      expect(c.status.state).toBe('connected');
    });

    it('keeps the queue bounded under a sustained write load: the server merges while reading is paused', async () => {
      const high = 32;
      const c = open({ eventQueue: { highWaterMark: high, lowWaterMark: 8 } });
      const name = 'bp-hot';
      await c.ready;
      await c.transactRaw([{ op: 'insert', table: 'Item', row: { name, n: 0 } }]);
      const chain: [number, number][] = [];
      c.on('Item', 'update', async (row, old) => {
        if (row.name !== name) return;
        await new Promise((r) => setTimeout(r, 2));
        chain.push([old.n, row.n]);
      });
      const writes = 3000;
      const sends: Promise<unknown>[] = [];
      for (let i = 0; i < writes; i++) {
        sends.push(
          writers[i % writers.length]!.transact(DB, [
            {
              op: 'mutate',
              table: 'Item',
              where: [['name', '==', name]],
              mutations: [['n', '+=', 1]],
            },
          ] as Operation[]),
        );
      }
      await Promise.all(sends);
      await until(() => chain.at(-1)?.[1] === writes, 40_000, 'the last value');
      await c.drained();
      // Nothing lost: a continuous chain from 0 to the last write.
      let last = 0;
      for (const [from, to] of chain) {
        expect(from).toBe(last);
        expect(to).toBeGreaterThan(from);
        last = to;
      }
      expect(c.stats.events.pauses).toBeGreaterThan(0);
      // Bounded by the high-water mark plus what one socket read (64 KiB) can
      // hold of the smallest update, however many transactions were written
      // meanwhile. (Over `ws:` too: the WebSocket delivers the frames of the
      // read it is in when it pauses.)
      expect(c.stats.events.maxQueueLength).toBeLessThanOrEqual(
        high + Math.ceil(SOCKET_READ_BYTES / SMALLEST_UPDATE_BYTES),
      );
      expect(chain.length).toBeLessThan(writes);
    });
  });
});

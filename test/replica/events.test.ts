/**
 * Event delivery against a real server: commit order under 1,000 concurrent
 * writes from other connections, no drops, and backpressure: a slow handler
 * neither blocks the reader nor lets the queue grow without bound.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type DatabaseClient } from '../../src/ovsdb/client.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection.js';
import type { Operation } from '../../src/ovsdb/wire.js';
import { type OvsdbServerHandle, startOvsdbServer } from '../../src/testing/index.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';
import {
  type Item,
  rawConnection,
  TEST_MODEL,
  type TestTables,
  until,
} from './helpers/fixtures.js';

let server: OvsdbServerHandle;
const writers: OvsdbConnection[] = [];
const clients: DatabaseClient<TestTables>[] = [];

beforeAll(async () => {
  server = await startOvsdbServer({ schema: TEST_SCHEMA });
  for (let i = 0; i < 4; i++) writers.push(await rawConnection(server.unixRemote));
});

afterAll(async () => {
  for (const c of clients) await c.close();
  for (const w of writers) w.close();
  await server?.stop();
});

function open(options: Partial<Parameters<typeof connectDatabase<TestTables>>[0]> = {}) {
  const c = connectDatabase({ remotes: server.unixRemote, model: TEST_MODEL, ...options });
  clients.push(c as DatabaseClient<TestTables>);
  return c;
}

describe('commit order', () => {
  it('delivers the events of 1,000 concurrent transactions in commit order, none dropped', async () => {
    const counter = 'order-counter';
    await writers[0]!.transact(DB, [{ op: 'insert', table: 'Item', row: { name: counter, n: 0 } }]);
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
      await c.transact([{ op: 'insert', table: 'Item', row: { name: `gate-${i}`, n: i } }]);
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
    await c.transact([{ op: 'insert', table: 'Item', row: { name, n: 0 } }]);
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
    // Bounded by the high-water mark plus one socket read of small updates,
    // however many transactions were written meanwhile.
    expect(c.stats.events.maxQueueLength).toBeLessThanOrEqual(high + 256);
    expect(chain.length).toBeLessThan(writes);
  });
});

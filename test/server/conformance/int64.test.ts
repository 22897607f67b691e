/**
 * Conformance over full int64: the int64 corpus (`test/server/corpus/int64.ts`)
 * replayed over the wire against a real ovsdb-server 3.1 and the in-memory
 * server, on a schema with bounds at and near the int64 limits, with monitors
 * of versions 1 to 3 open (some with `where` clauses on big integers). Result
 * arrays, notifications and dumps must be equal, bigints exact: both servers'
 * messages are read by the lossless framer, so an integer sent as a real
 * (`9.22337203685478e+18`) would not compare equal to one sent exactly.
 * Also `get_schema`, `_Server`'s schema text, and big integers as request and
 * monitor ids.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringifyJson } from '../../../src/ovsdb/wire/json-stringify.js';
import { int64 } from '../corpus/int64.js';
import type { CorpusCase } from '../corpus/types.js';
import { INT64_SCHEMA_PATH } from '../harness.js';
import { ConformancePair, loadSchemaFile, type MonitorSpec, writerMonitors } from './harness.js';

const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;
const P53 = 2n ** 53n;

const schema = loadSchemaFile(INT64_SCHEMA_PATH);

const monitors: MonitorSpec[] = [
  ...writerMonitors(schema),
  {
    session: 'o',
    id: 'v2w',
    method: 'monitor_cond',
    requests: {
      T: {
        columns: ['name', 'i', 's', 'm'],
        where: [
          ['i', '>', 9007199254740991],
          ['s', 'includes', MIN],
          ['oi', '==', MAX],
        ],
      },
      K: { where: [['k', '>=', P53]] },
    },
  },
  {
    session: 'o',
    id: 'v3w',
    method: 'monitor_cond_since',
    requests: {
      T: { columns: ['oi', 'big', 'pos', 'bm', 'r'], where: [['i', '<', -P53]] },
      K: { columns: ['k'], where: [['k', '!=', MAX]] },
    },
  },
];

let pair: ConformancePair;

beforeAll(async () => {
  pair = await ConformancePair.start(INT64_SCHEMA_PATH, monitors);
});

afterAll(async () => {
  await pair?.stop();
});

let compared = 0;

async function replay(c: CorpusCase): Promise<void> {
  const initial = await pair.startCase();
  expect(initial.memory, 'initial monitor replies').toEqual(initial.real);
  for (const [i, txn] of c.txns.entries()) {
    const { real, memory } = await pair.step(txn);
    expect(memory, `transaction ${i}: ${stringifyJson(txn)}`).toEqual(real);
    expect(real.afterReply).toEqual([]);
    const dumps = await pair.dumps();
    expect(dumps.memory, `dump after transaction ${i}`).toEqual(dumps.real);
    compared++;
  }
}

describe('int64 corpus', () => {
  for (const c of int64) it(c.name, () => replay(c));

  it('replayed every transaction, and the servers sent bigints', () => {
    expect(compared).toBe(int64.reduce((n, c) => n + c.txns.length, 0));
    expect(compared).toBeGreaterThanOrEqual(80);
  });
});

describe('messages', () => {
  async function both(method: string, params: unknown[], id?: unknown): Promise<unknown[]> {
    return Promise.all(
      [pair.real, pair.memory].map(async (side) => {
        const reply = await side.w.request(method, params, id);
        side.w.take();
        return reply;
      }),
    );
  }

  it('get_schema: the bounds come back exactly as ovsdb-server sends them', async () => {
    const [real, memory] = await both('get_schema', [schema.name]);
    expect(memory).toEqual(real);
    const columns = (real as { result: { tables: { T: { columns: Record<string, unknown> } } } })
      .result.tables.T.columns;
    expect(columns.big).toEqual({
      type: { key: { type: 'integer', minInteger: -9007199254740993n, maxInteger: MAX - 1n } },
    });
    expect(columns.full).toEqual({ type: 'integer' });
  });

  it("_Server's Database.schema text is the same", async () => {
    const op = {
      op: 'select',
      table: 'Database',
      where: [['name', '==', schema.name]],
      columns: ['schema'],
    };
    const [real, memory] = await both('transact', ['_Server', op]);
    expect(memory).toEqual(real);
    expect(stringifyJson(real)).toContain('9223372036854775806');
  });

  it('echo and request ids: integers come back exact, a token beyond int64 as a %.15g real', async () => {
    const params = [MAX, MIN, P53 + 1n, 2 ** 63, ['set', [MIN, MAX]]];
    const [real, memory] = await both('echo', params, MAX);
    expect(memory).toEqual(real);
    expect(real).toEqual({
      id: MAX,
      // 9223372036854775808 is a real to ovsdb-server: it comes back as 9.22337203685478e+18.
      result: [MAX, MIN, P53 + 1n, 9.22337203685478e18, ['set', [MIN, MAX]]],
      error: null,
    });
  });

  it('a monitor with a big integer id, its update, and its cancellation', async () => {
    await pair.startCase();
    const out = await Promise.all(
      [pair.real, pair.memory].map(async (side) => {
        const s = side.w;
        const params = [schema.name, MIN, { K: {} }];
        const first = await s.request('monitor', params);
        await s.request('transact', [schema.name, { op: 'insert', table: 'K', row: { k: MAX } }]);
        const update = await s.waitFor(
          (m) => m.method === 'update' && (m.params as unknown[])[0] === MIN,
        );
        const cancel = await s.request('monitor_cancel', [MIN]);
        s.take();
        return [
          side.norm.message(first, { method: 'monitor', params }),
          side.norm.message(update),
          side.norm.message(cancel),
        ];
      }),
    );
    expect(out[1]).toEqual(out[0]);
    expect(stringifyJson(out[0])).toContain('"k":9223372036854775807');
  });

  it('monitor_cond_change between where clauses on big integers', async () => {
    await pair.startCase();
    const out = await Promise.all(
      [pair.real, pair.memory].map(async (side) => {
        const s = side.o;
        const seen: unknown[] = [];
        const insert = (k: bigint, n: string) => ({ op: 'insert', table: 'K', row: { k, n } });
        await side.w.request('transact', [schema.name, insert(MIN, 'a'), insert(P53 + 1n, 'b')]);
        await side.w.request('transact', [schema.name, insert(MAX, 'c')]);
        side.w.take();
        const params = [schema.name, 'c1', { K: { where: [['k', '<', -P53]] } }];
        const first = await s.request('monitor_cond', params);
        s.take();
        seen.push(side.norm.message(first, { method: 'monitor_cond', params }));
        const change = await s.request('monitor_cond_change', [
          'c1',
          'c1',
          { K: [{ where: [['k', '>', P53]] }] },
        ]);
        const changed = s.take();
        seen.push(side.norm.message(change));
        for (const m of changed) if (m !== change) seen.push(side.norm.message(m));
        await side.w.request('transact', [
          schema.name,
          { op: 'mutate', table: 'K', where: [['k', '==', MAX]], mutations: [['k', '-=', MAX]] },
        ]);
        side.w.take();
        for (const m of await s.sync()) {
          if ((m.params as unknown[] | undefined)?.[0] === 'c1') seen.push(side.norm.message(m));
        }
        await s.request('monitor_cancel', ['c1']);
        s.take();
        return seen;
      }),
    );
    expect(out[1]).toEqual(out[0]);
    expect(stringifyJson(out[0])).toContain('9223372036854775807');
    expect(out[0]).toHaveLength(4);
  });
});

/**
 * Conformance, randomized: fast-check generates sequences of transactions on
 * the small test schema (every column shape: scalars, optional values, sets,
 * maps, strong and weak references, enums, ranges, lengths, an index and
 * `maxRows`; valid and invalid values; garbage collection), runs each
 * sequence over the wire on a real ovsdb-server and on the in-memory server
 * with six monitors open, and compares every result array, every monitor's
 * notifications and the final dumps.
 *
 * Rows are addressed by `name` (and named UUIDs within a transaction): UUIDs
 * differ between the servers. A `mutate` touches one row at most, because
 * which row's error ovsdb-server reports first follows its hash order.
 */

import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_SCHEMA_PATH } from '../harness.js';
import { ConformancePair, loadSchemaFile } from './harness.js';
import { testSchemaMonitors } from './monitors.js';

let pair: ConformancePair;

beforeAll(async () => {
  pair = await ConformancePair.start(
    TEST_SCHEMA_PATH,
    testSchemaMonitors(loadSchemaFile(TEST_SCHEMA_PATH)),
  );
});

afterAll(async () => {
  await pair?.stop();
});

const name = fc.constantFrom('a', 'b', 'c', 'd');
const int = fc.constantFrom(-11, -10, 0, 1, 2, 5, 6, 100, 101);
const real = fc.constantFrom(-2, -1.5, 0, 0.1, 0.5, 1000.5, 2000);
const set = <T>(a: fc.Arbitrary<T>, max: number) =>
  fc.uniqueArray(a, { maxLength: max }).map((xs) => ['set', xs]);
const smallMap = fc
  .uniqueArray(fc.tuple(fc.constantFrom('k', 'x', 'y'), fc.constantFrom('v', 'w', '')), {
    maxLength: 3,
    selector: (p) => p[0],
  })
  .map((ps) => ['map', ps]);
const imap = fc
  .uniqueArray(fc.tuple(fc.constantFrom(1, 2, 3, 4), fc.constantFrom('a', 'bb', 'long')), {
    maxLength: 4,
    selector: (p) => p[0],
  })
  .map((ps) => ['map', ps]);
const bmap = fc
  .uniqueArray(fc.tuple(fc.boolean(), fc.constantFrom(0, 7, -3)), {
    maxLength: 2,
    selector: (p) => p[0],
  })
  .map((ps) => ['map', ps]);

/** Column values of Root (some outside their constraints). */
const rootColumn = fc.oneof(
  fc.record({ i: int }),
  fc.record({ r: real }),
  fc.record({ b: fc.boolean() }),
  fc.record({ e: fc.oneof(fc.constantFrom('alpha', 'beta', 'zzz'), fc.constant(['set', []])) }),
  fc.record({ s: fc.constantFrom('x', 'ab', 'abcde', 'toolong') }),
  fc.record({ oi: fc.oneof(int, fc.constant(['set', []])) }),
  fc.record({ ie: fc.oneof(fc.constantFrom(1, 3, 4), fc.constant(['set', []])) }),
  fc.record({ iset: set(fc.constantFrom(0, 1, 2, 1000, 1001), 6) }),
  fc.record({ rset: set(real, 3) }),
  fc.record({ sset: set(fc.constantFrom('', 'p', 'q'), 2) }),
  fc.record({ smap: smallMap }),
  fc.record({ imap }),
  fc.record({ bmap }),
  fc.record({
    u: fc.oneof(
      fc.constant(['set', []]),
      fc.constant(['uuid', '6d7a2c3f-0000-4000-8000-000000000001']),
    ),
  }),
);

const rootRow = fc
  .tuple(name, fc.array(rootColumn, { maxLength: 3 }))
  .map(([n, cols]) => Object.assign({ name: n, sset: 'q' }, ...cols) as Record<string, unknown>);

const where = fc.oneof(
  fc.constant([] as unknown[]),
  name.map((n) => [['name', '==', n]]),
  name.map((n) => [['name', '!=', n]]),
  int.map((n) => [['i', '<', n]]),
  fc.constantFrom(1, 2, 1000).map((n) => [['iset', 'includes', n]]),
  fc.constantFrom('alpha', 'beta').map((e) => [['e', '==', e]]),
  fc.constantFrom(0, 2).map((n) => [['oi', '>=', n]]),
  fc.constant([['smap', 'includes', ['map', [['k', 'v']]]]]),
);

const mutation = fc.oneof(
  fc
    .tuple(fc.constantFrom('+=', '-=', '*=', '/=', '%='), fc.constantFrom(-1, 0, 1, 2, 50))
    .map(([m, v]) => ['i', m, v]),
  fc
    .tuple(fc.constantFrom('+=', '*=', '/='), fc.constantFrom(0, 0.5, 3, 1e3))
    .map(([m, v]) => ['r', m, v]),
  fc
    .tuple(fc.constantFrom('+=', '*=', '%='), fc.constantFrom(0, 1, 2))
    .map(([m, v]) => ['iset', m, v]),
  fc
    .tuple(fc.constantFrom('insert', 'delete'), set(fc.constantFrom(0, 1, 2, 3, 1000), 3))
    .map(([m, v]) => ['iset', m, v]),
  fc
    .tuple(fc.constantFrom('insert', 'delete'), set(fc.constantFrom('', 'p', 'q'), 3))
    .map(([m, v]) => ['sset', m, v]),
  fc.tuple(fc.constantFrom('insert', 'delete'), smallMap).map(([m, v]) => ['smap', m, v]),
  fc.constantFrom('k', 'x').map((k) => ['smap', 'delete', ['set', [k]]]),
  fc.tuple(fc.constantFrom('insert', 'delete'), imap).map(([m, v]) => ['imap', m, v]),
  fc.tuple(fc.constantFrom('insert', 'delete'), set(real, 2)).map(([m, v]) => ['rset', m, v]),
);

/** One operation group; `k` makes uuid-names unique within a transaction. */
const op = (k: number): fc.Arbitrary<unknown[]> => {
  const groups: fc.Arbitrary<unknown[]>[] = [
    rootRow.map((row) => [{ op: 'insert', table: 'Root', row }]),
    fc
      .tuple(name, name, fc.boolean(), fc.boolean(), fc.constantFrom(0, 1, 5))
      .map(([rn, cn, link, viaMap, n]) => {
        const child = {
          op: 'insert',
          table: 'Child',
          row: { name: cn, n },
          'uuid-name': `c${k}`,
        };
        if (!link) return [child];
        const mutationJson = viaMap
          ? ['child_map', 'insert', ['map', [[cn, ['named-uuid', `c${k}`]]]]]
          : ['children', 'insert', ['named-uuid', `c${k}`]];
        return [
          child,
          { op: 'mutate', table: 'Root', where: [['name', '==', rn]], mutations: [mutationJson] },
        ];
      }),
    fc.tuple(name, name, fc.boolean()).map(([wn, rn, both]) => {
      const w = { op: 'insert', table: 'Weak', row: { name: wn }, 'uuid-name': `w${k}` };
      const ref = {
        op: 'mutate',
        table: 'Root',
        where: [['name', '==', rn]],
        mutations: [['weak', 'insert', ['named-uuid', `w${k}`]]],
      };
      const req = {
        op: 'insert',
        table: 'WeakReq',
        row: { one: ['named-uuid', `w${k}`], some: ['named-uuid', `w${k}`] },
      };
      return both ? [w, ref, req] : [w, ref];
    }),
    fc
      .tuple(fc.constantFrom(1, 2), fc.constantFrom('x', 'y'), fc.option(fc.constantFrom(3, 4)))
      .map(([a, b, c]) => [
        { op: 'insert', table: 'Limited', row: c === null ? { a, b } : { a, b, c } },
      ]),
    fc
      .tuple(fc.constantFrom('x', 'y'), fc.constantFrom(1, 2), fc.option(fc.constantFrom(3, 4)))
      .map(([b, a, c]) => [
        {
          op: 'update',
          table: 'Limited',
          where: [['b', '==', b]],
          row: c === null ? { a } : { c },
        },
      ]),
    fc.tuple(where, fc.array(rootColumn, { maxLength: 2 }), fc.option(name)).map(([w, cols, n]) => [
      {
        op: 'update',
        table: 'Root',
        where: w,
        row: Object.assign(n === null ? {} : { name: n }, ...cols),
      },
    ]),
    fc
      .tuple(name, fc.array(mutation, { minLength: 1, maxLength: 2 }))
      .map(([n, ms]) => [
        { op: 'mutate', table: 'Root', where: [['name', '==', n]], mutations: ms },
      ]),
    fc
      .tuple(fc.constantFrom('Root', 'Child', 'Weak', 'Limited'), name)
      .map(([table, n]) =>
        table === 'Limited'
          ? [{ op: 'delete', table, where: [['b', '==', n === 'a' ? 'x' : 'y']] }]
          : [{ op: 'delete', table, where: [['name', '==', n]] }],
      ),
    fc
      .tuple(name, fc.constantFrom(0, 1, 5))
      .map(([n, v]) => [
        { op: 'update', table: 'Child', where: [['name', '==', n]], row: { n: v } },
      ]),
    where.map((w) => [{ op: 'select', table: 'Root', where: w, columns: ['name', 'i', 'iset'] }]),
    fc.tuple(where, fc.constantFrom('==', '!=')).map(([w, until]) => [
      {
        op: 'wait',
        table: 'Root',
        where: w,
        columns: ['name'],
        until,
        rows: [{ name: 'a' }],
        timeout: 0,
      },
    ]),
    fc.constant([{ op: 'comment', comment: 'random' }]),
    fc.constant([{ op: 'abort' }]),
  ];
  return fc.oneof(...groups);
};

const txn = fc
  .array(fc.nat(), { minLength: 1, maxLength: 4 })
  .chain((ks) => fc.tuple(...ks.map((_, k) => op(k))))
  .map((parts) => parts.flat());

/** Number of sequences; raise with `OVNKIT_FC_RUNS` for a longer hunt. */
const RUNS = Number(process.env.OVNKIT_FC_RUNS ?? 120);

it(
  'random transaction sequences give the same results, notifications and dumps',
  async () => {
    let compared = 0;
    let notified = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(txn, { minLength: 1, maxLength: 10 }), async (txns) => {
        const initial = await pair.startCase(true);
        expect(initial.memory).toEqual(initial.real);
        for (const t of txns) {
          const { real, memory } = await pair.step(t);
          expect(memory, JSON.stringify(t)).toEqual(real);
          expect(real.afterReply).toEqual([]);
          compared++;
          notified += Object.values(real.notifications).flat().length;
        }
        const dumps = await pair.dumps();
        expect(dumps.memory).toEqual(dumps.real);
      }),
      {
        numRuns: RUNS,
        ...(process.env.OVNKIT_FC_SEED ? { seed: Number(process.env.OVNKIT_FC_SEED) } : {}),
      },
    );
    expect(compared).toBeGreaterThan(RUNS);
    expect(notified).toBeGreaterThan(RUNS);
  },
  30_000 + RUNS * 200,
);

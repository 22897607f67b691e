/**
 * Randomized differential test: fast-check generates sequences of transactions
 * on the small test schema (valid and invalid values, references within a
 * transaction, garbage collection, weak references, indexes, maxRows) and the
 * engine must answer each exactly as a real ovsdb-server does, ending in the
 * same state.
 *
 * Rows are addressed by `name` conditions and by named UUIDs within one
 * transaction: literal UUIDs differ between the two servers.
 */

import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RealServer, startRealServer } from '../helpers/ovsdb-client.js';
import { Differential, loadSchema, TEST_SCHEMA_PATH } from './harness.js';

const schema = loadSchema(TEST_SCHEMA_PATH);
let server: RealServer;
let diff: Differential;

beforeAll(async () => {
  server = await startRealServer(TEST_SCHEMA_PATH);
  diff = new Differential(schema, server, true);
});

afterAll(async () => {
  await server?.close();
});

const name = fc.constantFrom('a', 'b', 'c', 'd');
const int = fc.constantFrom(-11, -10, 0, 1, 5, 100, 101);
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

/** Column values of Root (some out of their constraints). */
const rootColumn = fc.oneof(
  fc.record({ i: int }),
  fc.record({ r: real }),
  fc.record({ b: fc.boolean() }),
  fc.record({ e: fc.oneof(fc.constantFrom('alpha', 'beta', 'zzz'), fc.constant(['set', []])) }),
  fc.record({ s: fc.constantFrom('x', 'ab', 'abcde', 'toolong') }),
  fc.record({ oi: fc.oneof(int, fc.constant(['set', []])) }),
  fc.record({ iset: set(fc.constantFrom(0, 1, 2, 1000, 1001), 6) }),
  fc.record({ rset: set(real, 3) }),
  fc.record({ sset: set(fc.constantFrom('', 'p', 'q'), 2) }),
  fc.record({ smap: smallMap }),
  fc.record({ imap }),
);

const rootRow = fc
  .tuple(name, fc.array(rootColumn, { maxLength: 3 }))
  .map(([n, cols]) => Object.assign({ name: n }, ...cols) as Record<string, unknown>);

const where = fc.oneof(
  fc.constant([] as unknown[]),
  name.map((n) => [['name', '==', n]]),
  name.map((n) => [['name', '!=', n]]),
  int.map((n) => [['i', '<', n]]),
  fc.constantFrom(1, 2, 1000).map((n) => [['iset', 'includes', n]]),
  fc.constantFrom('alpha', 'beta').map((e) => [['e', '==', e]]),
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
);

/** One operation; `k` makes uuid-names unique within a transaction. */
const op = (k: number): fc.Arbitrary<unknown[]> =>
  fc.oneof(
    rootRow.map((row) => [{ op: 'insert', table: 'Root', row }]),
    fc.tuple(name, name, fc.boolean(), fc.boolean()).map(([rn, cn, link, viaMap]) => {
      const child = { op: 'insert', table: 'Child', row: { name: cn }, 'uuid-name': `c${k}` };
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
      .tuple(fc.constantFrom(1, 2), fc.constantFrom('x', 'y'))
      .map(([a, b]) => [{ op: 'insert', table: 'Limited', row: { a, b } }]),
    fc.tuple(where, fc.array(rootColumn, { maxLength: 2 }), fc.option(name)).map(([w, cols, n]) => [
      {
        op: 'update',
        table: 'Root',
        where: w,
        row: Object.assign(n === null ? {} : { name: n }, ...cols),
      },
    ]),
    // One row at most (names are unique): with several rows, which row's
    // mutation error ovsdb-server reports depends on its hash order.
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
  );

const txn = fc
  .array(fc.nat(), { minLength: 1, maxLength: 4 })
  .chain((ks) => fc.tuple(...ks.map((_, k) => op(k))))
  .map((parts) => parts.flat());

/** Number of sequences; raise with `OVNKIT_FC_RUNS` for a longer hunt. */
const RUNS = Number(process.env.OVNKIT_FC_RUNS ?? 300);

it(
  'random transaction sequences match ovsdb-server',
  async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(txn, { minLength: 1, maxLength: 12 }), async (txns) => {
        await diff.reset();
        for (const t of txns) {
          const { engine, server: real } = await diff.step(t);
          expect(engine, JSON.stringify(t)).toEqual(real);
          compared++;
        }
        const dumps = await diff.dumps();
        expect(dumps.engine).toEqual(dumps.server);
      }),
      {
        numRuns: RUNS,
        ...(process.env.OVNKIT_FC_SEED ? { seed: Number(process.env.OVNKIT_FC_SEED) } : {}),
      },
    );
    expect(compared).toBeGreaterThan(RUNS);
  },
  20_000 + RUNS * 30,
);

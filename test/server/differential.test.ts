/**
 * Differential tests: every corpus transaction runs on the engine and on a real
 * ovsdb-server 3.1; the normalized result arrays (error strings included) and
 * the final dumps must be equal. See `harness.ts` for the normalizations.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/server/core-index.js';
import { ovsdbClientTransact, type RealServer, startRealServer } from '../helpers/ovsdb-client.js';
import { basics } from './corpus/basics.js';
import { conditionsRefs } from './corpus/conditions-refs.js';
import { mutations } from './corpus/mutations.js';
import { parsing } from './corpus/parsing.js';
import type { CorpusCase } from './corpus/types.js';
import { Differential, loadSchema, Normalizer, TEST_SCHEMA_PATH } from './harness.js';

const schema = loadSchema(TEST_SCHEMA_PATH);
let server: RealServer;
let diff: Differential;

beforeAll(async () => {
  server = await startRealServer(TEST_SCHEMA_PATH);
  diff = new Differential(schema, server);
});

afterAll(async () => {
  await server?.close();
});

async function runCase(c: CorpusCase): Promise<void> {
  await diff.reset();
  for (const [i, txn] of c.txns.entries()) {
    const { engine, server: real } = await diff.step(txn);
    expect(engine, `transaction ${i}: ${JSON.stringify(txn)}`).toEqual(real);
    // Dump after every step so that _version labels carry over: a row keeps its
    // label only if neither server gave it a new _version.
    const dumps = await diff.dumps();
    expect(dumps.engine, `dump after transaction ${i}`).toEqual(dumps.server);
  }
}

const suites: [string, readonly CorpusCase[]][] = [
  ['basics', basics],
  ['conditions and references', conditionsRefs],
  ['mutations', mutations],
  ['parsing', parsing],
];

for (const [title, cases] of suites) {
  describe(title, () => {
    for (const c of cases) it(c.name, () => runCase(c));
  });
}

describe('reserved database _Server', () => {
  const serverSchema = loadSchema(
    new URL('../../schema/_server.ovsschema', import.meta.url).pathname,
  );
  const cases: unknown[][] = [
    [{ op: 'insert', table: 'Database', row: { name: 'x' } }],
    [{ op: 'insert', table: 'Database', row: { name: 'x', model: 'standalone' } }],
    [{ op: 'delete', table: 'Database', where: [] }],
    [
      { op: 'comment', comment: 'x' },
      { op: 'update', table: 'Database', where: [], row: {} },
    ],
    [{ op: 'mutate', table: 'Database', where: [[false]], mutations: [] }],
    [
      { op: 'select', table: 'Database', where: [false] },
      { op: 'commit', durable: false },
    ],
    [{ op: 'select', table: 'Database', where: [false], columns: ['name'] }, { op: 'abort' }],
  ];
  for (const ops of cases) {
    it(JSON.stringify(ops), async () => {
      const engine = new Database(serverSchema);
      const real = await server.request('transact', ['_Server', ...ops]);
      const mine = engine.transact(ops);
      expect(mine.blocked).not.toBe(true);
      expect(new Normalizer().results(ops, mine.blocked === true ? [] : mine.results)).toEqual(
        new Normalizer().results(ops, real as unknown[]),
      );
    });
  }
});

describe('harness', () => {
  it('the socket client gets the same replies as ovsdb-client transact', async () => {
    await diff.reset();
    await server.transact([
      {
        op: 'insert',
        table: 'Weak',
        row: { name: 'x' },
        uuid: '44444444-4444-4444-4444-444444444444',
      },
    ]);
    // Every request ends with "abort", so both clients see the same state.
    const txns: unknown[][] = [
      [{ op: 'select', table: 'Weak', where: [], columns: ['_uuid', 'name'] }],
      [{ op: 'insert', table: 'Root', row: { name: 'r', i: 1000 } }],
      [{ op: 'update', table: 'Weak', where: [], row: { name: 'y' } }],
      [{ op: 'delete', table: 'Weak', where: [], extra: 1 }],
    ];
    for (const ops of txns) {
      const all = [...ops, { op: 'abort' }];
      const viaSocket = await server.transact(all);
      expect(viaSocket).toEqual(ovsdbClientTransact(server.socketPath, server.dbName, all));
    }
  });
});

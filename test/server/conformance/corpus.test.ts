/**
 * Conformance: the hand-written differential corpus (`test/server/corpus/`)
 * replayed over the wire against a real ovsdb-server 3.1 and against the
 * in-memory server, with six monitors open (versions 1, 2 and 3, with and
 * without `where`). After every transaction the normalized result arrays,
 * each monitor's notifications and the dumps must be equal. See
 * `harness.ts` and `normalize.ts`.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basics } from '../corpus/basics.js';
import { conditionsRefs } from '../corpus/conditions-refs.js';
import { mutations } from '../corpus/mutations.js';
import { nb } from '../corpus/nb.js';
import { parsing } from '../corpus/parsing.js';
import type { CorpusCase } from '../corpus/types.js';
import { NB_SCHEMA_PATH, TEST_SCHEMA_PATH } from '../harness.js';
import { ConformancePair, loadSchemaFile } from './harness.js';
import { nbMonitors, testSchemaMonitors } from './monitors.js';

let compared = 0;

async function replay(pair: ConformancePair, c: CorpusCase): Promise<void> {
  const initial = await pair.startCase();
  expect(initial.memory, 'initial monitor replies').toEqual(initial.real);
  for (const [i, txn] of c.txns.entries()) {
    const { real, memory } = await pair.step(txn);
    expect(memory, `transaction ${i}: ${JSON.stringify(txn)}`).toEqual(real);
    expect(real.afterReply).toEqual([]);
    const dumps = await pair.dumps();
    expect(dumps.memory, `dump after transaction ${i}`).toEqual(dumps.real);
    compared++;
  }
}

function suite(
  title: string,
  schemaPath: string,
  monitors: typeof testSchemaMonitors,
  cases: readonly (readonly [string, readonly CorpusCase[]])[],
): void {
  describe(title, () => {
    let pair: ConformancePair;
    beforeAll(async () => {
      pair = await ConformancePair.start(schemaPath, monitors(loadSchemaFile(schemaPath)));
    });
    afterAll(async () => {
      await pair?.stop();
    });
    for (const [group, list] of cases) {
      describe(group, () => {
        for (const c of list) it(c.name, () => replay(pair, c));
      });
    }
    it('update3 transaction ids: all zeros from ovsdb-server, real ids from the in-memory server', () => {
      expect(pair.real.txnIds.length).toBeGreaterThan(0);
      expect(new Set(pair.real.txnIds)).toEqual(new Set(['00000000-0000-0000-0000-000000000000']));
      expect(pair.memory.txnIds.length).toBe(pair.real.txnIds.length);
      expect(pair.memory.txnIds.every((id) => /^[0-9a-f-]{36}$/.test(id))).toBe(true);
      expect(pair.memory.txnIds).not.toContain('00000000-0000-0000-0000-000000000000');
      for (const ids of pair.memory.txnIdsByMonitor.values()) {
        expect(new Set(ids).size).toBe(ids.length);
      }
      expect(new Set(pair.real.sinceIds)).toEqual(
        new Set(['00000000-0000-0000-0000-000000000000']),
      );
    });
  });
}

suite('test schema', TEST_SCHEMA_PATH, testSchemaMonitors, [
  ['basics', basics],
  ['conditions and references', conditionsRefs],
  ['mutations', mutations],
  ['parsing', parsing],
]);

suite('OVN Northbound 7.18.0', NB_SCHEMA_PATH, nbMonitors, [['nb', nb]]);

describe('corpus size', () => {
  it('replays every corpus transaction over the wire', () => {
    const total = [basics, conditionsRefs, mutations, parsing, nb]
      .flat()
      .reduce((n, c) => n + c.txns.length, 0);
    expect(total).toBeGreaterThanOrEqual(300);
    expect(compared).toBe(total);
  });
});

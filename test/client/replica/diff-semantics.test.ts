/**
 * update2 diff semantics against every target (both servers, and the real
 * one over `ws:` through the bridge): random mutations of set,
 * map, scalar and optional columns (insert/delete elements and pairs,
 * replace whole values, clear optionals), written by another connection;
 * the replica, built only from the server's `modify` diffs, must equal a
 * fresh `ovsdb-client dump` after every batch.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/client/client.js';
import { connectDatabase } from '../../../src/client/open.js';
import type { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';
import type { Condition, Operation } from '../../../src/ovsdb/wire/wire.js';
import { DB, TEST_SCHEMA } from '../../helpers/server.js';
import { TARGETS, useTarget } from '../../helpers/targets.js';
import { dumpToRows, rawConnection, TEST_MODEL, type TestTables } from '../helpers/fixtures.js';

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe.each(TARGETS)('update2 diffs against %s', (target) => {
  const fx = useTarget(target, { schema: TEST_SCHEMA });
  let writer: OvsdbConnection;
  let client: DatabaseClient<TestTables>;
  beforeAll(async () => {
    // The writer goes straight to the server's socket; the replica, the target's way.
    writer = await rawConnection(fx.unixRemote);
    fx.onClose(() => writer.close());
    client = connectDatabase({ remotes: fx.remote, model: TEST_MODEL });
    fx.onClose(() => client.close());
    await client.ready;
  });

  it('keeps the replica equal to a dump through 400 random set, map, scalar and optional changes', async () => {
    const seed = 20240611;
    const rnd = prng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const words = ['a', 'b', 'c', 'd', 'e', 'f', 'g', '__proto__', 'ü', '😀'];
    const names = Array.from({ length: 8 }, (_, i) => `d-${i}`);
    await writer.transact(
      DB,
      names.map((name) => ({ op: 'insert', table: 'Item', row: { name, n: 0 } }) as Operation),
    );
    // A Connection (optional integer column), kept alive by a Root reference.
    await writer.transact(DB, [
      { op: 'insert', table: 'Connection', row: { target: 'ptcp:1' }, 'uuid-name': 'c' },
      { op: 'insert', table: 'Root', row: { connections: ['named-uuid', 'c'] } },
    ] as Operation[]);

    const randomOp = (): Operation => {
      const where: Condition[] = [['name', '==', pick(names)]];
      switch (Math.floor(rnd() * 8)) {
        case 0:
          return {
            op: 'mutate',
            table: 'Item',
            where,
            mutations: [['tags', 'insert', ['set', [...new Set([pick(words), pick(words)])]]]],
          } as Operation;
        case 1:
          return {
            op: 'mutate',
            table: 'Item',
            where,
            mutations: [['tags', 'delete', ['set', [pick(words)]]]],
          } as Operation;
        case 2:
          return {
            op: 'mutate',
            table: 'Item',
            where,
            mutations: [['opts', 'insert', ['map', [[pick(words), pick(words)]]]]],
          } as Operation;
        case 3:
          return {
            op: 'mutate',
            table: 'Item',
            where,
            mutations: [['opts', 'delete', ['set', [pick(words)]]]],
          } as Operation;
        case 4: {
          // Replace whole values: the diff mixes additions, removals and changed values.
          const tags = [...new Set([pick(words), pick(words), pick(words)])];
          const opts = Object.fromEntries([
            [pick(words), pick(words)],
            [pick(words), pick(words)],
          ]);
          return {
            op: 'update',
            table: 'Item',
            where,
            row: { tags: ['set', tags], opts: ['map', Object.entries(opts)] },
          } as Operation;
        }
        case 5:
          return {
            op: 'mutate',
            table: 'Item',
            where,
            mutations: [['n', '+=', Math.floor(rnd() * 10) - 5]],
          } as Operation;
        case 6:
          return {
            op: 'update',
            table: 'Connection',
            where: [],
            row: { inactivity_probe: rnd() < 0.3 ? ['set', []] : Math.floor(rnd() * 5000) },
          } as Operation;
        default:
          return {
            op: 'update',
            table: 'Item',
            where,
            row: { tags: ['set', []], opts: ['map', []] },
          } as Operation;
      }
    };

    for (let batch = 0; batch < 8; batch++) {
      const sends: Promise<unknown>[] = [];
      for (let i = 0; i < 50; i++) sends.push(writer.transact(DB, [randomOp(), randomOp()]));
      await Promise.all(sends);
      // A transaction of the client itself: its reply comes after every update.
      await client.transactRaw([{ op: 'comment', comment: `sync ${batch}` } as Operation]);
      const dump = dumpToRows(
        TEST_MODEL.schema,
        await fx.server.ovsdbClient('--format=json', 'dump', DB),
      );
      for (const table of ['Item', 'Connection', 'Root'] as const) {
        const rows = dump[table]!;
        expect(client.count(table), `${table} row count (seed ${seed}, batch ${batch})`).toBe(
          rows.size,
        );
        for (const [uuid, row] of rows) {
          const { _version: _v, ...mine } = client.get(table, uuid) as unknown as Record<
            string,
            unknown
          >;
          expect(mine, `${table} ${uuid} (seed ${seed}, batch ${batch})`).toEqual(row);
        }
      }
    }
  });
});

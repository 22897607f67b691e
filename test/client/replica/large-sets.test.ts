/**
 * Large sets in replica rows are versions (set-versions.ts), built when read:
 * every version, read in any order and at any time later, holds the set it
 * held when it was current; rows look like plain rows (keys, spread, JSON,
 * frozen arrays); and a replica built from the server's diffs of a large
 * set equals a fresh dump (both servers).
 */

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/client/client.js';
import { connectDatabase } from '../../../src/client/open.js';
import type { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';
import { compareAtoms } from '../../../src/ovsdb/values/order.js';
import type { Operation, WireRow } from '../../../src/ovsdb/wire/wire.js';
import { compileRowCodec, type Row } from '../../../src/rows/codec.js';
import { LAZY_SET_MIN, rowVersions } from '../../../src/rows/set-versions.js';
import { DB, TEST_SCHEMA } from '../../helpers/server.js';
import { TARGETS, useTarget } from '../../helpers/targets.js';
import { dumpToRows, rawConnection, TEST_MODEL, type TestTables } from '../helpers/fixtures.js';

const UUID = '11111111-2222-4333-8444-555555555555';
const sorted = (xs: Iterable<string>): string[] => [...xs].sort(compareAtoms);
/** Strings that sort differently by UTF-16 and by UTF-8 bytes, and plain ones. */
const tag = fc.oneof(
  fc.integer({ min: 0, max: 2000 }).map((i) => `t${i}`),
  fc.constantFrom('ü', '😀', '\uffff', 'Z', 'a'),
);

describe('large set versions (row codec)', () => {
  const codec = compileRowCodec(TEST_MODEL.schema.tables.Item!);

  it('every version reads as the set it held, in any order of reading', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(tag, { minLength: LAZY_SET_MIN - 10, maxLength: LAZY_SET_MIN + 80 }),
        fc.array(
          fc.record({
            diff: fc.uniqueArray(tag, { minLength: 1, maxLength: 5 }),
            n: fc.option(fc.integer({ min: -5, max: 5 })),
            clear: fc.boolean(),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        fc.array(fc.nat(), { maxLength: 60 }),
        (initial, steps, readOrder) => {
          let expected = new Set(initial);
          let row = codec.decodeRow(UUID, {
            name: 'big',
            // In the server's order.
            tags: ['set', sorted(initial)],
          } as WireRow);
          const versions: { row: Row; tags: string[] }[] = [{ row, tags: sorted(expected) }];
          for (const s of steps) {
            // Now and then a diff that empties the set (every element), then refills it.
            const diff = s.clear && expected.size < 300 ? [...expected, ...s.diff] : s.diff;
            const next = new Set(expected);
            for (const x of new Set(diff)) {
              if (next.has(x)) next.delete(x);
              else next.add(x);
            }
            const wire: Record<string, unknown> = { tags: ['set', diff] };
            if (s.n !== null) wire.n = s.n;
            row = codec.applyModify(row, wire as WireRow);
            expected = next;
            versions.push({ row, tags: sorted(expected) });
          }
          // Read some versions out of order first, then all of them newest first.
          const order = [
            ...readOrder.map((i) => i % versions.length),
            ...versions.map((_, i) => versions.length - 1 - i),
          ];
          for (const i of order) {
            const v = versions[i]!;
            expect(v.row.tags).toEqual(v.tags);
            // Built once: the same array on every read.
            expect(v.row.tags).toBe(v.row.tags);
          }
          // A diff of a large set gives a version (a set refilled from a small one is
          // a plain array until its next diff); rows keep the template's keys.
          const last = versions.at(-1)!;
          const before = versions.at(-2)!;
          if (before.tags.length >= LAZY_SET_MIN && last.tags.length > 0) {
            expect(rowVersions(last.row)?.tags).toBeDefined();
          }
          expect(Object.keys(last.row)).toEqual(Object.keys(versions[0]!.row));
          expect({ ...last.row }.tags).toEqual(last.tags);
          expect(JSON.parse(JSON.stringify(last.row)).tags).toEqual(last.tags);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('leaves a small set a plain value, and a diff of another column keeps the version', () => {
    const small = codec.decodeRow(UUID, { name: 's', tags: ['set', ['a', 'b']] } as WireRow);
    const s2 = codec.applyModify(small, { tags: 'c' } as WireRow);
    expect(rowVersions(s2)).toBeUndefined();
    expect(s2.tags).toEqual(['a', 'b', 'c']);

    const many = Array.from({ length: LAZY_SET_MIN }, (_, i) => `x${String(i).padStart(4, '0')}`);
    const big = codec.decodeRow(UUID, { name: 'b', tags: ['set', many] } as WireRow);
    const b2 = codec.applyModify(big, { tags: 'x9999' } as WireRow);
    const version = rowVersions(b2)?.tags;
    expect(version).toBeDefined();
    const b3 = codec.applyModify(b2, { n: 7 } as WireRow);
    // The unchanged set is the same version, not read.
    expect(rowVersions(b3)?.tags).toBe(version);
    expect(b3.n).toBe(7);
    expect(b3.tags).toEqual([...many, 'x9999']);
    expect(big.tags).toEqual(many);
  });

  it('reads each row its own version through one accessor shared by every row', () => {
    const many = Array.from({ length: LAZY_SET_MIN }, (_, i) => `x${String(i).padStart(4, '0')}`);
    const big = codec.decodeRow(UUID, { name: 'b', tags: ['set', many] } as WireRow);
    const r1 = codec.applyModify(big, { tags: 'x9998' } as WireRow);
    const r2 = codec.applyModify(r1, { tags: 'x9999' } as WireRow);
    const d1 = Object.getOwnPropertyDescriptor(r1, 'tags');
    const d2 = Object.getOwnPropertyDescriptor(r2, 'tags');
    expect(d1?.get).toBeTypeOf('function');
    expect(d1?.get).toBe(d2?.get);
    expect(d1?.enumerable).toBe(true);
    expect(r1.tags).toEqual([...many, 'x9998']);
    expect(r2.tags).toEqual([...many, 'x9998', 'x9999']);
    // The accessor copied onto another object does not read a replica row: it says so.
    const copy = Object.defineProperty({}, 'tags', d2!) as { tags: unknown };
    expect(() => copy.tags).toThrow(TypeError);
  });
});

describe.each(TARGETS)('large sets in the replica against %s', (target) => {
  const fx = useTarget(target, { schema: TEST_SCHEMA });
  let writer: OvsdbConnection;
  let client: DatabaseClient<TestTables>;
  beforeAll(async () => {
    writer = await rawConnection(fx.unixRemote);
    fx.onClose(() => writer.close());
    client = connectDatabase({ remotes: fx.remote, model: TEST_MODEL });
    fx.onClose(() => client.close());
    await client.ready;
  });

  it('keeps every version of a 400-element set through 120 diffs, and equals a dump', async () => {
    const initial = Array.from({ length: 400 }, (_, i) => `p${i}`);
    await writer.transact(DB, [
      { op: 'insert', table: 'Item', row: { name: 'big', n: 0, tags: ['set', initial] } },
    ] as Operation[]);
    await client.transactRaw([{ op: 'comment', comment: 'synced' } as Operation]);

    const seen: { old: Row; row: Row }[] = [];
    const off = client.on('Item', 'update', (row, old) => {
      seen.push({ old: old as unknown as Row, row: row as unknown as Row });
    });
    let expected = new Set(initial);
    const states: string[][] = [sorted(expected)];
    let next = 1000;
    for (let i = 0; i < 120; i++) {
      const add = Array.from({ length: 1 + (i % 3) }, () => `p${next++}`);
      const members = [...expected];
      const del = i % 4 === 0 ? [] : [members[(i * 37) % members.length]!];
      const mutations: unknown[] = [['tags', 'insert', ['set', add]]];
      if (del.length > 0) mutations.push(['tags', 'delete', ['set', del]]);
      const ops: Operation[] = [
        { op: 'mutate', table: 'Item', where: [['name', '==', 'big']], mutations } as Operation,
      ];
      if (i % 5 === 0) {
        ops.push({
          op: 'mutate',
          table: 'Item',
          where: [['name', '==', 'big']],
          mutations: [['n', '+=', 1]],
        } as Operation);
      }
      await writer.transact(DB, ops);
      for (const x of add) expected.add(x);
      for (const x of del) expected.delete(x);
      expected = new Set(expected);
      states.push(sorted(expected));
    }
    await client.transactRaw([{ op: 'comment', comment: 'all seen' } as Operation]);
    off();

    expect(seen).toHaveLength(120);
    // Read newest first, long after each version stopped being current.
    for (let i = seen.length - 1; i >= 0; i--) {
      expect(seen[i]!.row.tags, `after change ${i}`).toEqual(states[i + 1]);
      expect(seen[i]!.old.tags, `before change ${i}`).toEqual(states[i]);
      expect(Object.isFrozen(seen[i]!.row.tags)).toBe(true);
    }
    const row = client.find('Item', (r) => r.name === 'big')!;
    expect(Array.isArray(row.tags)).toBe(true);
    expect(row.n).toBe(24);
    const dump = dumpToRows(
      TEST_MODEL.schema,
      await fx.server.ovsdbClient('--format=json', 'dump', DB),
    );
    const { _version: _v, ...mine } = row as unknown as Record<string, unknown>;
    expect(mine).toEqual(dump.Item!.get(row._uuid));
    expect(row.tags).toEqual(states.at(-1));
  });
});

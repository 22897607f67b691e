/**
 * Schema (unique) and client (non-unique) indexes, on their own.
 */

import { describe, expect, it } from 'vitest';
import { parseSchema } from '../../../src/ovsdb/schema/schema.js';
import { compileRowCodec } from '../../../src/rows/codec.js';
import { IndexError, MultiIndex, UniqueIndex } from '../../../src/rows/indexes.js';

const T = parseSchema({
  name: 'D',
  version: '1.0.0',
  tables: {
    T: {
      columns: {
        name: { type: 'string' },
        zone: { type: { key: 'string', min: 0, max: 1 } },
        tags: { type: { key: 'string', min: 0, max: 'unlimited' } },
        ids: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
        a: { type: 'integer' },
        b: { type: 'string' },
      },
      indexes: [['name'], ['a', 'b']],
      isRoot: true,
    },
  },
}).tables['T']!;
const codec = compileRowCodec(T);
const row = (uuid: string, wire: Record<string, unknown>) => codec.decodeRow(uuid, wire as never);

describe('UniqueIndex', () => {
  it('indexes 64-bit values (bigints beyond ±(2^53−1)) exactly, alone and with other columns', () => {
    const byA = new UniqueIndex(T, ['a']);
    const byAB = new UniqueIndex(T, ['a', 'b']);
    const r1 = row('u1', { a: 2n ** 53n + 1n, b: 'q' });
    const r2 = row('u2', { a: 2n ** 53n, b: 'q' });
    const r3 = row('u3', { a: 5, b: 'q' });
    for (const [u, r] of [
      ['u1', r1],
      ['u2', r2],
      ['u3', r3],
    ] as const) {
      byA.add(u, r);
      byAB.add(u, r);
    }
    expect(byA.get({ a: 2n ** 53n + 1n })).toBe('u1');
    expect(byA.get({ a: 2n ** 53n })).toBe('u2');
    expect(byAB.get({ a: 2n ** 53n + 1n, b: 'q' })).toBe('u1');
    expect(byAB.get({ a: 2n ** 53n, b: 'q' })).toBe('u2');
    // A safe value looked up as a bigint is found as the number it is.
    expect(byA.get({ a: 5n })).toBe('u3');
    expect(byAB.get({ a: 5n, b: 'q' })).toBe('u3');
    const multi = new MultiIndex('a', T, { column: 'a' });
    multi.add('u1', r1);
    multi.add('u3', r3);
    expect(multi.get(2n ** 53n + 1n)).toEqual(['u1']);
    expect(multi.get(5n)).toEqual(['u3']);
  });

  it('finds rows by one or several columns', () => {
    const byName = new UniqueIndex(T, ['name']);
    const byAB = new UniqueIndex(T, ['a', 'b']);
    const r = row('u1', { name: 'x', a: 1, b: 'q' });
    byName.add('u1', r);
    byAB.add('u1', r);
    expect(byName.get({ name: 'x' })).toBe('u1');
    expect(byAB.get({ a: 1, b: 'q' })).toBe('u1');
    expect(byAB.get({ a: 1, b: 'r' })).toBeUndefined();
  });

  it('stays exact when two rows swap their keys within one transaction', () => {
    const idx = new UniqueIndex(T, ['name']);
    const a0 = row('A', { name: 'x' });
    const b0 = row('B', { name: 'y' });
    idx.add('A', a0);
    idx.add('B', b0);
    // A: x → y, then B: y → x.
    const a1 = codec.applyModify(a0, { name: 'y' } as never);
    idx.update('A', a0, a1);
    const b1 = codec.applyModify(b0, { name: 'x' } as never);
    idx.update('B', b0, b1);
    expect(idx.get({ name: 'x' })).toBe('B');
    expect(idx.get({ name: 'y' })).toBe('A');
    expect(idx.size).toBe(2);
    idx.remove('A', a0); // a stale key: does not point to A any more
    expect(idx.get({ name: 'x' })).toBe('B');
  });
});

describe('MultiIndex', () => {
  it('indexes a map key, non-unique', () => {
    const pod = new MultiIndex('pod', T, { column: 'ids', key: 'pod' });
    const r1 = row('u1', { ids: ['map', [['pod', 'ns/a']]] });
    const r2 = row('u2', {
      ids: [
        'map',
        [
          ['pod', 'ns/a'],
          ['x', 'y'],
        ],
      ],
    });
    const r3 = row('u3', {});
    pod.add('u1', r1);
    pod.add('u2', r2);
    pod.add('u3', r3);
    expect(pod.get('ns/a').sort()).toEqual(['u1', 'u2']);
    const r2b = codec.applyModify(r2, { ids: ['map', [['pod', 'ns/b']]] } as never);
    pod.update('u2', r2, r2b);
    expect(pod.get('ns/a')).toEqual(['u1']);
    expect(pod.get('ns/b')).toEqual(['u2']);
    pod.remove('u1', r1);
    expect(pod.get('ns/a')).toEqual([]);
    expect([...pod.keys()]).toEqual(['ns/b']);
  });

  it('indexes set elements, optional values and computed keys', () => {
    const tags = new MultiIndex('tags', T, { column: 'tags' });
    const zone = new MultiIndex('zone', T, { column: 'zone' });
    const first = new MultiIndex('first', T, { compute: (r) => (r['name'] as string).slice(0, 1) });
    const r1 = row('u1', { name: 'abc', tags: ['set', ['t1', 't2']], zone: 'z' });
    const r2 = row('u2', { name: 'axe', tags: 't2' });
    for (const [u, r] of [
      ['u1', r1],
      ['u2', r2],
    ] as const) {
      tags.add(u, r);
      zone.add(u, r);
      first.add(u, r);
    }
    expect(tags.get('t2').sort()).toEqual(['u1', 'u2']);
    expect(tags.get('t1')).toEqual(['u1']);
    expect(zone.get('z')).toEqual(['u1']);
    expect([...zone.keys()]).toEqual(['z']); // an empty optional is not indexed
    expect(first.get('a').sort()).toEqual(['u1', 'u2']);
  });

  it('rejects unknown columns and keys of non-map columns', () => {
    expect(() => new MultiIndex('x', T, { column: 'nope' as never })).toThrow(IndexError);
    expect(() => new MultiIndex('x', T, { column: 'tags', key: 'k' })).toThrow(
      /needs a map column/,
    );
  });
});

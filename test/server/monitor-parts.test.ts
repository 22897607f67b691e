/**
 * The pieces monitors are built from, checked directly: update2 diffs and
 * default values, ORed monitor conditions (with ovsdb-server's constant-clause
 * quirk), the lock queue, the history, and the hash-map order of monitor ids.
 * (Their combined behaviour is compared with ovsdb-server in
 * `test/server/conformance/`.)
 */

import { describe, expect, it } from 'vitest';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import { ZERO_UUID } from '../../src/ovsdb/values/uuid.js';
import {
  type Datum,
  type DatumType,
  datumDiff,
  isDefaultDatum,
  LockTable,
  MonitorCondition,
  OpError,
  TxnHistory,
} from '../../src/server/core-index.js';
import { shashOrder } from '../../src/server/engine/ovs-hash.js';
import { jsonHash, OvsHmapOrder } from '../../src/server/engine/ovs-hmap.js';
import { TEST_SCHEMA } from '../helpers/server.js';

const int: DatumType['key'] = { type: 'integer' };
const str: DatumType['key'] = { type: 'string' };
const set: DatumType = { key: int, min: 0, max: Number.POSITIVE_INFINITY };
const map: DatumType = { key: str, value: str, min: 0, max: Number.POSITIVE_INFINITY };
const optional: DatumType = { key: int, min: 0, max: 1 };

describe('datumDiff', () => {
  it('a set gives the symmetric difference', () => {
    expect(datumDiff({ keys: [1, 2, 3] }, { keys: [2, 3, 4, 5] }, set)).toEqual({
      keys: [1, 4, 5],
      values: undefined,
    });
  });

  it('a map gives removed pairs (old value), added pairs and changed values (new value)', () => {
    const old: Datum = { keys: ['a', 'b', 'c'], values: ['1', '2', '3'] };
    const next: Datum = { keys: ['b', 'c', 'd'], values: ['2', '30', '4'] };
    expect(datumDiff(old, next, map)).toEqual({ keys: ['a', 'c', 'd'], values: ['1', '30', '4'] });
  });

  it('a column of at most one value gives the new value, even when empty', () => {
    expect(datumDiff({ keys: [1] }, { keys: [] }, optional)).toEqual({ keys: [] });
    expect(datumDiff({ keys: [] }, { keys: [7] }, optional)).toEqual({ keys: [7] });
  });
});

describe('isDefaultDatum', () => {
  it('is the empty value for min 0 and the single default atom otherwise', () => {
    expect(isDefaultDatum({ keys: [] }, set)).toBe(true);
    expect(isDefaultDatum({ keys: [0] }, set)).toBe(false);
    expect(isDefaultDatum({ keys: [0] }, { key: int, min: 1, max: 1 })).toBe(true);
    expect(isDefaultDatum({ keys: [-0] }, { key: { type: 'real' }, min: 1, max: 1 })).toBe(true);
    expect(isDefaultDatum({ keys: [''] }, { key: str, min: 1, max: 1 })).toBe(true);
    expect(isDefaultDatum({ keys: [ZERO_UUID] }, { key: { type: 'uuid' }, min: 1, max: 1 })).toBe(
      true,
    );
    expect(isDefaultDatum({ keys: [false] }, { key: { type: 'boolean' }, min: 1, max: 1 })).toBe(
      true,
    );
    expect(
      isDefaultDatum({ keys: [0], values: [''] }, { key: int, value: str, min: 1, max: 1 }),
    ).toBe(true);
  });
});

describe('MonitorCondition', () => {
  const item = parseSchema(TEST_SCHEMA).tables.Item!;
  const row = (n: number, name = 'x'): Record<string, Datum> => ({
    n: { keys: [n] },
    name: { keys: [name] },
    tags: { keys: [] },
    opts: { keys: [], values: [] },
  });

  it('matches when any clause does; no clauses match everything', () => {
    const c = MonitorCondition.parse(item, [
      ['n', '==', 1],
      ['name', '==', 'y'],
    ]);
    expect(c.matches(row(1))).toBe(true);
    expect(c.matches(row(2, 'y'))).toBe(true);
    expect(c.matches(row(2))).toBe(false);
    expect(MonitorCondition.parse(item, []).matches(row(9))).toBe(true);
    expect(MonitorCondition.parse(item, undefined).isEmpty).toBe(true);
  });

  it('honours a constant true only next to at most one false when every clause is ==', () => {
    expect(MonitorCondition.parse(item, [false, true]).matches(row(1))).toBe(true);
    expect(MonitorCondition.parse(item, [false, false, true]).matches(row(1))).toBe(false);
    expect(MonitorCondition.parse(item, [false, false, true, ['n', '>', 0]]).matches(row(1))).toBe(
      true,
    );
    expect(MonitorCondition.parse(item, [false]).matches(row(1))).toBe(false);
  });

  it('reads its columns (constants read _uuid) and compares regardless of clause order', () => {
    const a = MonitorCondition.parse(item, [['n', '<', 3], true]);
    expect(a.columns).toEqual(['n', '_uuid']);
    expect(a.sameAs(MonitorCondition.parse(item, [true, ['n', '<', 3]]))).toBe(true);
    expect(a.sameAs(MonitorCondition.parse(item, [true, ['n', '<', 4]]))).toBe(false);
  });

  it('rejects bad clauses as ovsdb-server does, named UUIDs included', () => {
    expect(() => MonitorCondition.parse(item, [['zz', '==', 1]])).toThrow(OpError);
    const e = (() => {
      try {
        MonitorCondition.parse(item, [['name', '==', ['named-uuid', 'x']]]);
      } catch (err) {
        return err as OpError;
      }
      return undefined;
    })();
    expect(e?.error).toBe('syntax error');
  });
});

describe('LockTable', () => {
  it('queues waiters; steal takes the lock and the victim gets it back on release', () => {
    const t = new LockTable<string>();
    expect(t.acquire('a', 'x', 'lock')).toEqual({ locked: true, victim: undefined });
    expect(t.acquire('b', 'x', 'lock')).toEqual({ locked: false, victim: undefined });
    expect(t.acquire('c', 'x', 'steal')).toEqual({ locked: true, victim: 'a' });
    expect(t.owns('c', 'x')).toBe(true);
    expect(t.has('a', 'x')).toBe(true);
    expect(t.release('c', 'x')).toBe('a');
    // As in ovsdb-server, the owner is named (to be notified) whenever a waiter leaves.
    expect(t.release('b', 'x')).toBe('a');
    expect(t.release('a', 'x')).toBeUndefined();
    expect(t.has('a', 'x')).toBe(false);
    expect(t.namesOf('a')).toEqual([]);
  });

  it('drops a robbed thief from the queue but keeps its waiter until it unlocks', () => {
    const t = new LockTable<string>();
    t.acquire('a', 'x', 'lock');
    expect(t.acquire('b', 'x', 'steal')).toEqual({ locked: true, victim: 'a' });
    expect(t.acquire('c', 'x', 'steal')).toEqual({ locked: true, victim: 'b' });
    expect(t.has('b', 'x')).toBe(true);
    expect(t.owns('b', 'x')).toBe(false);
    expect(t.namesOf('b')).toEqual(['x']);
    expect(t.release('b', 'x')).toBeUndefined();
    expect(t.has('b', 'x')).toBe(false);
    // The thief leaves: the lock goes back to the first owner, never to b.
    expect(t.release('c', 'x')).toBe('a');
  });
});

describe('TxnHistory', () => {
  it('keeps the last transactions and finds those after an id', () => {
    const h = new TxnHistory(2);
    expect(h.lastId).toBe(ZERO_UUID);
    const a = h.add({ rows: [] });
    const b = h.add({ rows: [] });
    const c = h.add({ rows: [] });
    expect(h.size).toBe(2);
    expect(h.lastId).toBe(c);
    expect(h.since(a)).toBeUndefined();
    expect(h.since(b)?.map((e) => e.id)).toEqual([c]);
    expect(h.since(c.toUpperCase())).toEqual([]);
    expect(new TxnHistory(0).add({ rows: [] })).toBe(ZERO_UUID);
  });
});

describe('OvsHmapOrder', () => {
  it('iterates string keys as an OVS shash does', () => {
    const names = ['mon', 'a', 'b', 'v1', 'v2', 'v3', 'z', 'q'];
    const h = new OvsHmapOrder<string>();
    for (const n of names) h.insert(n, n);
    expect(h.values()).toEqual(shashOrder(names));
    h.remove('a');
    expect(h.values()).toEqual(shashOrder(names).filter((n) => n !== 'a'));
  });

  it('hashes every JSON type except non-integers; unhashable keys come last', () => {
    for (const v of ['x', 0, -5, 123456, null, true, false, [1, 'x'], { a: [2] }]) {
      expect(jsonHash(v)).toBeTypeOf('number');
    }
    expect(jsonHash(1.5)).toBeUndefined();
    const h = new OvsHmapOrder<string>();
    h.insert(1.5, 'real');
    h.insert('s', 's');
    expect(h.values()).toEqual(['s', 'real']);
  });
});

/**
 * The transaction view over a model other than the Northbound one (the Test
 * fixture schema), against the servers: within one transaction, reads see
 * the inserts, updates, mutations and deletes already added, the server's
 * garbage collection of non-root rows and the removal of weak references;
 * and what the server commits is exactly what the view predicted. Index
 * reads (`lookup`, `byIndex`) see the same, from the replica's indexes
 * without a table scan; a read of an unmonitored table fails at once.
 */

import { describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import type { RowOf, TableName } from '../../src/ovsdb/schema/model.js';
import { IndexError } from '../../src/rows/indexes.js';
import {
  TableNotMonitoredError,
  TransactionView,
  type TransactionViewReader,
  type TransactionViewReaderExtras,
} from '../../src/transactions/index.js';
import { TARGETS } from '../helpers/targets.js';
import type { Transacting } from '../helpers/typed.js';
import { Test, type TestTables } from './fixtures/test-model/index.js';
import { TEST_SCHEMA_PATH, unique, useServer } from './helpers.js';

type View = TransactionView<TestTables>;
type Rec = Record<string, unknown>;

/** The tables the comparison covers (those with references between them). */
const TABLES = ['Root', 'Child', 'Weak'] as const;
type Snapshot = Record<(typeof TABLES)[number], Rec[]>;

/** A row without its version, with its sets sorted (the server keeps sets sorted). */
function normalize(row: object): Rec {
  const out: Rec = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === '_version') continue;
    out[k] = Array.isArray(v) ? [...v].sort() : v;
  }
  return out;
}

function byUuid(rows: readonly object[]): Rec[] {
  return rows.map(normalize).sort((a, b) => String(a['_uuid']).localeCompare(String(b['_uuid'])));
}

function snapshotOf(read: (table: (typeof TABLES)[number]) => readonly object[]): Snapshot {
  return Object.fromEntries(TABLES.map((t) => [t, byUuid(read(t))])) as Snapshot;
}

describe.each(TARGETS.filter((t) => t.via === 'direct'))('TransactionView against %s', (target) => {
  const fixture = useServer(target, { schemaPath: TEST_SCHEMA_PATH });

  /**
   * Run `build` over a view in one transaction, commit it, and check that
   * the tables the server then holds are those the view showed at the end
   * of the callback.
   */
  async function commitChecked(
    client: DatabaseClient<TestTables>,
    db: Transacting<TestTables>,
    build: (view: View) => void,
  ): Promise<void> {
    let predicted: Snapshot | undefined;
    await db.transact((tx) => {
      const view = new TransactionView(tx, client);
      build(view);
      predicted = snapshotOf((t) => view.rows(t));
    });
    const { value } = await db.transact((tx) => ({
      Root: tx.select('Root', []),
      Child: tx.select('Child', []),
      Weak: tx.select('Weak', []),
    }));
    expect(snapshotOf((t) => value[t])).toEqual(predicted);
    expect(snapshotOf((t) => [...client.rows(t)])).toEqual(predicted);
  }

  it('an insert is seen by get and rows at once, with the defaults the server gives', async () => {
    const { client, db } = await fixture.client(Test);
    const name = unique('r');
    await commitChecked(client, db, (view) => {
      expect(view.rows('Root').some((r) => r.name === name)).toBe(false);
      const child = view.insert('Child', { name: 'c', n: 1 });
      const root = view.insert('Root', {
        name,
        i: 7,
        sset: ['y', 'x'],
        smap: { k: 'v' },
        children: [child],
      });
      expect(view.isNew('Root', root)).toBe(true);
      expect(view.get('Root', root)).toMatchObject({
        _uuid: root,
        name,
        i: 7,
        r: 0,
        b: false,
        u: null,
        e: null,
        sset: ['y', 'x'],
        iset: [],
        smap: { k: 'v' },
        imap: {},
        children: [child],
        child_map: {},
        fixed: '',
      });
      expect(view.find('Root', (r) => r.name === name)?._uuid).toBe(root);
      expect(view.get('Child', child)).toMatchObject({ name: 'c', n: 1, kids: [], owner: null });
      expect(view.referrers('Root', 'children', child).map((r) => r._uuid)).toEqual([root]);

      view.update('Root', root, { i: 8, e: 'gamma' });
      view.mutate('Root', root, [
        ['iset', 'insert', [3, 1]],
        ['smap', 'insert', { k2: 'v2' }],
      ]);
      view.mutate('Child', child, [['n', '+=', 41]]);
      expect(view.get('Root', root)).toMatchObject({
        i: 8,
        e: 'gamma',
        iset: [3, 1],
        smap: { k: 'v', k2: 'v2' },
      });
      expect(view.get('Child', child)?.n).toBe(42);
    });
  });

  it('a deleted row is gone, and so are the non-root rows only it held', async () => {
    const { client, db } = await fixture.client(Test);
    const { value: ids } = await db.transact((tx) => {
      const c3 = tx.insert('Child', { name: 'c3' });
      const c1 = tx.insert('Child', { name: 'c1', kids: [c3] });
      const c2 = tx.insert('Child', { name: 'c2' });
      const a = tx.insert('Root', { name: unique('a'), sset: ['s'], children: [c1, c2] });
      const b = tx.insert('Root', { name: unique('b'), sset: ['s'], children: [c2] });
      return { a, b, c1, c2, c3 };
    });
    await commitChecked(client, db, (view) => {
      expect(view.get('Root', ids.a)).toBeDefined();
      view.delete('Root', ids.a);
      expect(view.get('Root', ids.a)).toBeUndefined();
      expect(view.rows('Root').map((r) => r._uuid)).not.toContain(ids.a);
      // c1 lost its only strong reference, and with it c3 (held by c1 only).
      expect(view.get('Child', ids.c1)).toBeUndefined();
      expect(view.get('Child', ids.c3)).toBeUndefined();
      // c2 is still held by b.
      expect(view.get('Child', ids.c2)?.name).toBe('c2');
      expect(view.rows('Child').map((r) => r._uuid)).toContain(ids.c2);
    });
    expect(client.get('Child', ids.c1)).toBeUndefined();
    expect(client.get('Child', ids.c2)).toBeDefined();
  });

  it('a non-root row disappears when an update or a mutation drops its last strong reference', async () => {
    const { client, db } = await fixture.client(Test);
    const { value: ids } = await db.transact((tx) => {
      const c1 = tx.insert('Child', { name: 'c1' });
      const c2 = tx.insert('Child', { name: 'c2' });
      const c3 = tx.insert('Child', { name: 'c3' });
      const a = tx.insert('Root', {
        name: unique('a'),
        sset: ['s'],
        children: [c1, c3],
        child_map: { x: c2, y: c1 },
      });
      return { a, c1, c2, c3 };
    });
    await commitChecked(client, db, (view) => {
      view.update('Root', ids.a, { children: [] });
      // c3 was held by `children` only; c1 is still held by `child_map`.
      expect(view.get('Child', ids.c3)).toBeUndefined();
      expect(view.get('Child', ids.c1)?.name).toBe('c1');
      view.mutate('Root', ids.a, [['child_map', 'delete', ['y']]]);
      expect(view.get('Child', ids.c1)).toBeUndefined();
      view.setMapKeys('Root', ids.a, 'child_map', { x: null });
      expect(view.get('Child', ids.c2)).toBeUndefined();
      expect(view.get('Root', ids.a)?.child_map).toEqual({});
      // A new child replaces them, inserted and referenced in the same transaction.
      const c4 = view.insert('Child', { name: 'c4' });
      view.addToSet('Root', ids.a, 'children', [c4]);
      expect(view.get('Root', ids.a)?.children).toEqual([c4]);
      // Inserted, then dropped again: never committed.
      const c5 = view.insert('Child', { name: 'c5' });
      view.addToSet('Root', ids.a, 'children', [c5]);
      view.removeFromSet('Root', ids.a, 'children', [c5]);
      expect(view.get('Child', c5)).toBeUndefined();
    });
    expect(client.get('Child', ids.c1)).toBeUndefined();
  });

  it('a weak reference to a deleted row vanishes', async () => {
    const { client, db } = await fixture.client(Test);
    const { value: ids } = await db.transact((tx) => {
      const w1 = tx.insert('Weak', { name: 'w1' });
      const w2 = tx.insert('Weak', { name: 'w2', peer: w1 });
      const a = tx.insert('Root', {
        name: unique('a'),
        sset: ['s'],
        weak: [w1, w2],
        weak_map: { [w1]: 5, [w2]: 6 },
      });
      const c = tx.insert('Child', { name: 'c', owner: a });
      const b = tx.insert('Root', { name: unique('b'), sset: ['s'], children: [c] });
      return { a, b, c, w1, w2 };
    });
    await commitChecked(client, db, (view) => {
      view.delete('Weak', ids.w1);
      expect(view.get('Weak', ids.w1)).toBeUndefined();
      expect(view.get('Weak', ids.w2)?.peer).toBeNull();
      expect(view.get('Root', ids.a)).toMatchObject({ weak: [ids.w2], weak_map: { [ids.w2]: 6 } });
      // Deleting a root row: the weak `owner` of the child (held by b) is cleared.
      view.delete('Root', ids.a);
      expect(view.get('Child', ids.c)).toMatchObject({ name: 'c', owner: null });
      expect(view.referrers('Root', 'children', ids.c).map((r) => r._uuid)).toEqual([ids.b]);
    });
    expect(client.get('Weak', ids.w2)?.peer).toBeNull();
  });

  it("lookup and byIndex see the transaction's inserts, updates and deletes, without scanning the table", async () => {
    const prefix = unique('big');
    let computed = 0;
    const client = connectDatabase({
      remotes: [fixture.remote],
      model: Test,
      indexes: {
        Root: {
          byI: { column: 'i' },
          pod: { column: 'smap', key: 'pod' },
          odd: {
            compute: (r) => {
              computed++;
              return r.name.startsWith(prefix) && r.i % 2 === 1 ? r.i : undefined;
            },
          },
        },
      },
    });
    try {
      await client.ready;
      const db = client;
      const N = 20_000;
      const names = Array.from({ length: N }, (_, n) => `${prefix}-${n}`);
      await db.transactBatches(names, 5000, (tx, name, n) => {
        tx.insert('Root', { name, i: n % 100, sset: ['s'], smap: { pod: `${name}/pod` } });
      });
      expect(client.count('Root')).toBeGreaterThanOrEqual(N);

      // The replica, counting the rows of Root a scan visits.
      let visited = 0;
      const reader: TransactionViewReader<TestTables> & TransactionViewReaderExtras<TestTables> = {
        get: (table, uuid) => client.get(table, uuid),
        rows<T extends TableName<TestTables>>(table: T): Iterable<RowOf<TestTables, T>> {
          return (function* () {
            for (const r of client.rows(table)) {
              if (table === 'Root') visited++;
              yield r;
            }
          })();
        },
        isMonitored: (table) => client.isMonitored(table),
        lookup: (table, key) => client.lookup(table, key),
        byIndex: (table, index, value) => client.byIndex(table as 'Root', index as 'byI', value),
        indexValues: (table, index, row) => client.indexValues(table, index, row),
      };
      computed = 0;
      const uuidOf = (name: string) => client.lookup('Root', { name })!._uuid;
      const r7 = uuidOf(`${prefix}-7`);
      const r8 = uuidOf(`${prefix}-8`);
      const r9 = uuidOf(`${prefix}-9`);
      const r10 = uuidOf(`${prefix}-10`);
      const inPrefix = (rows: readonly { name: string }[]) =>
        rows.filter((r) => r.name.startsWith(`${prefix}`)).map((r) => r.name);
      const { value } = await db.transact(
        (tx) => {
          const view = new TransactionView(tx, reader);
          // Rows the transaction did not touch: the replica's indexes.
          expect(view.lookup('Root', { name: `${prefix}-123` })?.i).toBe(23);
          expect(inPrefix(view.byIndex('Root', 'byI', 7))).toHaveLength(N / 100);
          expect(view.byIndex('Root', 'pod', `${prefix}-5/pod`).map((r) => r.name)).toEqual([
            `${prefix}-5`,
          ]);

          // An insert is found by every index.
          const added = view.insert('Root', {
            name: `${prefix}-new`,
            i: 7,
            sset: ['s'],
            smap: { pod: 'new/pod' },
          });
          expect(view.lookup('Root', { name: `${prefix}-new` })?._uuid).toBe(added);
          expect(inPrefix(view.byIndex('Root', 'byI', 7))).toHaveLength(N / 100 + 1);
          expect(view.byIndex('Root', 'pod', 'new/pod').map((r) => r._uuid)).toEqual([added]);
          expect(view.byIndex('Root', 'odd', 7).map((r) => r._uuid)).toContain(added);

          // An update: no longer found under the old values, found under the new ones.
          view.update('Root', r7, { name: `${prefix}-renamed`, i: 8 });
          view.update('Root', r8, { i: 7 });
          expect(view.lookup('Root', { name: `${prefix}-7` })).toBeUndefined();
          expect(view.lookup('Root', { name: `${prefix}-renamed` })?._uuid).toBe(r7);
          const sevens = view.byIndex('Root', 'byI', 7).map((r) => r._uuid);
          expect(sevens).not.toContain(r7);
          expect(sevens).toContain(r8);
          expect(view.byIndex('Root', 'byI', 8).map((r) => r._uuid)).toContain(r7);
          expect(view.byIndex('Root', 'odd', 7).map((r) => r._uuid)).not.toContain(r7);
          view.setMapKeys('Root', r9, 'smap', { pod: 'moved/pod' });
          expect(view.byIndex('Root', 'pod', `${prefix}-9/pod`)).toEqual([]);
          expect(view.byIndex('Root', 'pod', 'moved/pod').map((r) => r._uuid)).toEqual([r9]);

          // A delete: gone from every index; a name freed by a rename can be taken again.
          view.delete('Root', r10);
          expect(view.lookup('Root', { name: `${prefix}-10` })).toBeUndefined();
          expect(view.byIndex('Root', 'byI', 10).map((r) => r._uuid)).not.toContain(r10);
          const again = view.insert('Root', { name: `${prefix}-7`, i: 1, sset: ['s'] });
          expect(view.lookup('Root', { name: `${prefix}-7` })?._uuid).toBe(again);
          const gone = view.insert('Root', { name: `${prefix}-gone`, i: 1, sset: ['s'] });
          view.delete('Root', gone);
          expect(view.lookup('Root', { name: `${prefix}-gone` })).toBeUndefined();

          // Not one row of the table was visited; the client index computed the changed rows only.
          const indexedVisits = visited;
          const indexedComputes = computed;
          // A scan for comparison.
          expect(view.find('Root', (r) => r.name === `${prefix}-19999`)).toBeDefined();
          return { indexedVisits, indexedComputes, scanVisits: visited, again, added };
        },
        { dryRun: true },
      );
      expect(value.indexedVisits).toBe(0);
      expect(value.indexedComputes).toBeLessThanOrEqual(20);
      expect(value.scanVisits).toBeGreaterThanOrEqual(N);
    } finally {
      await client.close();
    }
  });

  it('lookup needs a schema index; byIndex a client index', async () => {
    const { client, db } = await fixture.client(Test);
    await db.transact(
      (tx) => {
        const view = new TransactionView(tx, client);
        expect(() => view.lookup('Root', { i: 1 })).toThrow(IndexError);
        expect(() => view.lookup('Limited', { a: 1 })).toThrow(IndexError);
        expect(view.lookup('Limited', { a: 1, b: 'x' })).toBeUndefined();
        const l = view.insert('Limited', { a: 1, b: 'x' });
        expect(view.lookup('Limited', { b: 'x', a: 1 })?._uuid).toBe(l);
        expect(() => view.byIndex('Root', 'nope', 1)).toThrow(IndexError);
      },
      { dryRun: true },
    );
  });

  it('a read of a table the client does not monitor fails at once, naming it', async () => {
    const client = connectDatabase({
      remotes: [fixture.remote],
      model: Test,
      tables: { Root: true },
    });
    try {
      await client.ready;
      const db = client;
      await db.transact(
        (tx) => {
          const view = new TransactionView(tx, client);
          expect(view.monitors('Root')).toBe(true);
          expect(view.monitors('Child')).toBe(false);
          expect(view.rows('Root')).toBeInstanceOf(Array);
          const err = (() => {
            try {
              view.rows('Child');
            } catch (e) {
              return e;
            }
          })();
          expect(err).toBeInstanceOf(TableNotMonitoredError);
          expect(err).toMatchObject({ table: 'Child' });
          expect(String((err as Error).message)).toMatch(/table Child is read/);
          expect(() => view.get('Child', '00000000-0000-0000-0000-000000000001')).toThrow(
            TableNotMonitoredError,
          );
          expect(() => view.referrers('Child', 'kids', 'x')).toThrow(TableNotMonitoredError);
          // Rows the transaction writes are readable all the same.
          const c = view.insert('Child', { name: 'c' });
          expect(view.get('Child', c)?.name).toBe('c');
          // And deleting a root row does not read the unmonitored tables that reference it.
          const r = view.insert('Root', { name: unique('r'), sset: ['s'], children: [c] });
          view.delete('Root', r);
        },
        { dryRun: true },
      );
    } finally {
      await client.close();
    }
  });
});

/**
 * monitor_cond_since against a one-server clustered database of a real
 * ovsdb-server (only its clustered databases keep the transaction history
 * that resuming needs) and against the in-memory server (whose standalone
 * databases keep one too), over every connection method.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/ovsdb/wire/wire.js';
import {
  CLIENT_METHODS,
  collectEvents,
  DB,
  nextEvent,
  unique,
  useServer,
} from '../../helpers/server.js';
import { SERVER_KINDS } from '../../helpers/servers.js';

describe.each(SERVER_KINDS)('against %s', (kind) => {
  const fixture = useServer(kind === 'ovsdb-server' ? { clustered: true } : {}, kind);

  // ovsdb-server trims its transaction history to at most 100 transactions and
  // to no more atoms than the database holds, so on a nearly empty database
  // even a recent id is soon forgotten (found=false). Filler rows keep the
  // history long enough for these tests.
  beforeAll(async () => {
    const conn = await fixture.connect('unix');
    const filler = Array.from({ length: 200 }, (_, i) =>
      insert(`filler-${i}`, -1 - i, { tags: ['set', ['a', 'b', 'c', 'd']] }),
    );
    await conn.transact(DB, filler);
    conn.close();
  });

  describe.each(CLIENT_METHODS)('monitor_cond_since over %s', (method) => {
    it('reports the database model (clustered; the in-memory server: standalone)', async () => {
      const conn = await fixture.connect(method);
      const [sel] = await conn.transact('_Server', [
        {
          op: 'select',
          table: 'Database',
          where: [['name', '==', DB]],
          columns: ['model', 'leader'],
        },
      ]);
      expect(sel).toEqual({
        rows: [{ model: kind === 'ovsdb-server' ? 'clustered' : 'standalone', leader: true }],
      });
    });
    it('resumes with the last transaction id: only the missed changes arrive (found=true)', async () => {
      const base = uniqueN();
      const writer = await fixture.connect(method);
      const [r0, r1] = await writer.transact(DB, [
        insert(unique('r0'), base + 1),
        insert(unique('r1'), base + 2),
      ]);

      const first = await fixture.connect(method);
      const dump = await first.monitorCondSince(DB, 'since', {
        Item: {
          columns: ['name', 'n'],
          where: [
            ['n', '==', base + 1],
            ['n', '==', base + 2],
            ['n', '==', base + 3],
          ],
        },
      });
      expect(dump.found).toBe(false);
      expect(dump.lastTxnId).toMatch(UUID_RE);
      expect(dump.lastTxnId).not.toBe(ZERO_UUID);
      expect(Object.keys(dump.updates['Item'] ?? {}).sort()).toEqual(
        [uuidOf(r0), uuidOf(r1)].sort(),
      );
      expect(dump.updates['Item']?.[uuidOf(r0)]).toHaveProperty('initial');
      first.close();

      // A live observer records the txn id of the last change.
      const observer = await fixture.connect(method);
      await observer.monitorCondSince(DB, 'observer', {
        Item: {
          columns: ['name', 'n'],
          where: [
            ['n', '==', base + 1],
            ['n', '==', base + 2],
            ['n', '==', base + 3],
          ],
        },
      });
      const seen = collectEvents(observer, 'update3');

      // Changes made while the first client is away.
      const renamed = unique('renamed');
      const r2b = unique('r2b');
      const [r2] = await writer.transact(DB, [insert(unique('r2'), base + 3)]);
      await writer.transact(DB, [
        {
          op: 'update',
          table: 'Item',
          where: [['_uuid', '==', ['uuid', uuidOf(r1)]]],
          row: { name: renamed },
        },
      ]);
      await writer.transact(DB, [
        { op: 'delete', table: 'Item', where: [['_uuid', '==', ['uuid', uuidOf(r0)]]] },
      ]);
      await observer.echo('sync');
      expect(seen).toHaveLength(3);
      const txnIds = seen.map(([, txnId]) => txnId);
      expect(new Set([dump.lastTxnId, ...txnIds]).size).toBe(4);

      const again = await fixture.connect(method);
      const resumed = await again.monitorCondSince(
        DB,
        'since',
        {
          Item: {
            columns: ['name', 'n'],
            where: [
              ['n', '==', base + 1],
              ['n', '==', base + 2],
              ['n', '==', base + 3],
            ],
          },
        },
        dump.lastTxnId,
      );
      expect(resumed.found).toBe(true);
      expect(resumed.lastTxnId).toBe(txnIds[2]);
      expect(resumed.updates).toEqual({
        Item: {
          [uuidOf(r2)]: { insert: { name: expect.stringMatching(/^r2-/), n: base + 3 } },
          [uuidOf(r1)]: { modify: { name: renamed } },
          [uuidOf(r0)]: { delete: null },
        },
      });

      // And the resumed monitor keeps going with update3.
      const next = nextEvent(again, 'update3');
      await writer.transact(DB, [
        {
          op: 'update',
          table: 'Item',
          where: [['_uuid', '==', ['uuid', uuidOf(r2)]]],
          row: { name: r2b },
        },
      ]);
      const [monitorId, lastTxnId, updates] = await next;
      expect(monitorId).toBe('since');
      expect(lastTxnId).toMatch(UUID_RE);
      expect(lastTxnId).not.toBe(resumed.lastTxnId);
      expect(updates).toEqual({ Item: { [uuidOf(r2)]: { modify: { name: r2b } } } });
    });

    it('an unknown or all-zero last transaction id gives a full dump (found=false)', async () => {
      const base = uniqueN();
      const writer = await fixture.connect(method);
      const [r0] = await writer.transact(DB, [insert(unique('z'), base)]);
      const conn = await fixture.connect(method);
      const req = { Item: { columns: ['n'], where: [['n', '==', base]] } } as const;
      const unknown = await conn.monitorCondSince(
        DB,
        'unknown',
        req,
        '2c4e8d1a-0000-4000-8000-000000000001',
      );
      expect(unknown.found).toBe(false);
      expect(unknown.updates).toEqual({ Item: { [uuidOf(r0)]: { initial: { n: base } } } });
      const zero = await conn.monitorCondSince(DB, 'zero', req, ZERO_UUID);
      expect(zero.found).toBe(false);
      expect(zero.updates).toEqual(unknown.updates);
      expect(zero.lastTxnId).toBe(unknown.lastTxnId);
    });
  });
});

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let block = 0;
function uniqueN(): number {
  block++;
  return 5_000_000 + block * 1000;
}

function uuidOf(result: unknown): string {
  const uuid = (result as { uuid: [string, string] }).uuid;
  return uuid[1];
}

function insert(name: string, n: number, extra: Record<string, unknown> = {}): Operation {
  return { op: 'insert', table: 'Item', row: { name, n, ...extra } } as Operation;
}

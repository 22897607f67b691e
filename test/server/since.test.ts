/**
 * `monitor_cond_since` on the in-memory server, where every database keeps a
 * bounded transaction history (a standalone ovsdb-server keeps none): a
 * client that comes back with its last transaction id gets `found: true` and
 * only what it missed, merged per row.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { ZERO_UUID } from '../../src/ovsdb/values/uuid.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { createServer, type OvsdbServer } from '../../src/server/core-index.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let server: OvsdbServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(
  historyLength?: number,
): Promise<{ writer: OvsdbConnection; open: () => OvsdbConnection }> {
  server = await createServer({ databases: [TEST_SCHEMA], historyLength });
  const s = server;
  const open = () => new OvsdbConnection(s.connectInProcess());
  return { writer: open(), open };
}

const item = (name: string, n: number): Operation =>
  ({ op: 'insert', table: 'Item', row: { name, n } }) as Operation;
const byName = (name: string) => [
  ['_uuid', '!=', ['uuid', ZERO_UUID]],
  ['name', '==', name],
];
const uuidOf = (r: unknown): string => (r as { uuid: [string, string] }).uuid[1];
const REQ = { Item: { columns: ['name', 'n'] } } as const;

describe('monitor_cond_since with a history', () => {
  it('answers found=true with only the missed changes, merged per row', async () => {
    const { writer, open } = await setup();
    const [a, b, c] = await writer.transact(DB, [item('a', 1), item('b', 2), item('c', 3)]);
    const first = open();
    const dump = await first.monitorCondSince(DB, 'm', REQ);
    expect(dump.found).toBe(false);
    expect(dump.lastTxnId).toMatch(UUID_RE);
    expect(Object.keys(dump.updates.Item ?? {})).toHaveLength(3);
    first.close();

    // While the client is away: d inserted then modified, e inserted then
    // deleted, a modified and modified back, b deleted, c modified twice.
    const [d] = await writer.transact(DB, [item('d', 4)]);
    await writer.transact(DB, [
      { op: 'update', table: 'Item', where: byName('d'), row: { n: 40 } },
    ] as unknown as Operation[]);
    await writer.transact(DB, [item('e', 5)]);
    await writer.transact(DB, [
      { op: 'delete', table: 'Item', where: byName('e') },
    ] as unknown as Operation[]);
    await writer.transact(DB, [
      { op: 'update', table: 'Item', where: byName('a'), row: { n: 10 } },
    ] as unknown as Operation[]);
    await writer.transact(DB, [
      { op: 'update', table: 'Item', where: byName('a'), row: { n: 1 } },
    ] as unknown as Operation[]);
    await writer.transact(DB, [
      { op: 'delete', table: 'Item', where: byName('b') },
    ] as unknown as Operation[]);
    await writer.transact(DB, [
      { op: 'update', table: 'Item', where: byName('c'), row: { n: 30 } },
    ] as unknown as Operation[]);
    await writer.transact(DB, [
      { op: 'update', table: 'Item', where: byName('c'), row: { n: 300 } },
    ] as unknown as Operation[]);

    const again = open();
    const resumed = await again.monitorCondSince(DB, 'm', REQ, dump.lastTxnId);
    expect(resumed.found).toBe(true);
    expect(resumed.lastTxnId).not.toBe(dump.lastTxnId);
    expect(resumed.updates).toEqual({
      Item: {
        [uuidOf(d)]: { insert: { name: 'd', n: 40 } },
        [uuidOf(b)]: { delete: null },
        [uuidOf(c)]: { modify: { n: 300 } },
      },
    });
    expect(uuidOf(a)).toMatch(UUID_RE);

    // The resumed monitor goes on with update3 notifications carrying new ids.
    const seen: [unknown, string, unknown][] = [];
    again.on('update3', (id, txn, u) => seen.push([id, txn, u]));
    await writer.transact(DB, [
      { op: 'update', table: 'Item', where: byName('d'), row: { n: 41 } },
    ] as unknown as Operation[]);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.[0]).toBe('m');
    expect(seen[0]?.[1]).toMatch(UUID_RE);
    expect(seen[0]?.[1]).not.toBe(resumed.lastTxnId);
    expect(seen[0]?.[2]).toEqual({ Item: { [uuidOf(d)]: { modify: { n: 41 } } } });

    // Resuming from the newest id: found, nothing missed.
    const latest = await open().monitorCondSince(DB, 'n', REQ, seen[0]?.[1]);
    expect(latest).toEqual({ found: true, lastTxnId: seen[0]?.[1], updates: {} });
  });

  it('applies the where clauses (ORed) to what was missed', async () => {
    const { writer, open } = await setup();
    await writer.transact(DB, [item('seed', 100)]);
    const first = await open().monitorCondSince(DB, 'm', {
      Item: {
        columns: ['name'],
        where: [
          ['n', '<', 10],
          ['name', '==', 'z'],
        ],
      },
    });
    const [x] = await writer.transact(DB, [item('x', 5), item('y', 50)]);
    const [z] = await writer.transact(DB, [item('z', 60)]);
    await writer.transact(DB, [
      { op: 'update', table: 'Item', where: byName('x'), row: { n: 15 } },
    ] as unknown as Operation[]);
    const resumed = await open().monitorCondSince(
      DB,
      'm',
      {
        Item: {
          columns: ['name'],
          where: [
            ['n', '<', 10],
            ['name', '==', 'z'],
          ],
        },
      },
      first.lastTxnId,
    );
    expect(resumed.found).toBe(true);
    // x entered and left the condition: nothing; y never matched; z matched.
    expect(resumed.updates).toEqual({ Item: { [uuidOf(z)]: { insert: { name: 'z' } } } });
    expect(uuidOf(x)).toMatch(UUID_RE);
  });

  it('forgets ids older than the history: found=false and a full dump', async () => {
    const { writer, open } = await setup(3);
    const observer = open();
    await observer.monitorCondSince(DB, 'obs', REQ);
    const ids: string[] = [];
    observer.on('update3', (_m, id) => ids.push(id));
    for (let i = 0; i < 5; i++) await writer.transact(DB, [item(`r${i}`, i)]);
    expect(ids).toHaveLength(5);
    // Kept: the last three transactions. Resuming from the oldest kept id works.
    const recent = await open().monitorCondSince(DB, 'r', REQ, ids[2]);
    expect(recent.found).toBe(true);
    expect(Object.keys(recent.updates.Item ?? {})).toHaveLength(2);
    const old = await open().monitorCondSince(DB, 'o', REQ, ids[1]);
    expect(old.found).toBe(false);
    expect(old.lastTxnId).toBe(ids[4]);
    const rows = Object.values(old.updates.Item ?? {});
    expect(rows).toHaveLength(5);
    expect(rows.every((u) => 'initial' in u)).toBe(true);
  });

  it('with historyLength 0 behaves like a standalone ovsdb-server: all-zero ids, never found', async () => {
    const { writer, open } = await setup(0);
    await writer.transact(DB, [item('a', 1)]);
    const conn = open();
    const r = await conn.monitorCondSince(DB, 'm', REQ);
    expect(r.found).toBe(false);
    expect(r.lastTxnId).toBe(ZERO_UUID);
    const ids: string[] = [];
    conn.on('update3', (_m, id) => ids.push(id));
    await writer.transact(DB, [item('b', 2)]);
    expect(ids).toEqual([ZERO_UUID]);
  });

  it('an id the server never issued is not found', async () => {
    const { writer, open } = await setup();
    await writer.transact(DB, [item('a', 1)]);
    const r = await open().monitorCondSince(DB, 'm', REQ, '2c4e8d1a-0000-4000-8000-000000000001');
    expect(r.found).toBe(false);
    expect(Object.keys(r.updates.Item ?? {})).toHaveLength(1);
  });
});

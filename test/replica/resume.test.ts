/**
 * Resuming after a lost connection, against real servers behind a proxy
 * that cuts the client off while another connection changes the database:
 *
 * - on a clustered database, every monitor resumes with `found=true` and
 *   only the missed changes arrive (no `initial` rows);
 * - on a standalone database (which keeps no history), `found=false`: the
 *   replica is replaced by the new dump and events are emitted only for rows
 *   that really differ;
 * - a condition changed while disconnected is applied on reconnection.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type DatabaseClient, type StatusEvent } from '../../src/ovsdb/client.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection.js';
import type { Operation } from '../../src/ovsdb/wire.js';
import { type OvsdbServerHandle, startOvsdbServer } from '../../src/testing/index.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';
import {
  dumpToRows,
  rawConnection,
  TEST_MODEL,
  type TestTables,
  until,
} from './helpers/fixtures.js';
import { OvsdbProxy } from './helpers/proxy.js';

interface Setup {
  server: OvsdbServerHandle;
  proxy: OvsdbProxy;
  writer: OvsdbConnection;
}

async function setUp(clustered: boolean): Promise<Setup> {
  const server = await startOvsdbServer({ schema: TEST_SCHEMA, clustered });
  const proxy = await OvsdbProxy.start(server.unixRemote);
  const writer = await rawConnection(server.unixRemote);
  // The server keeps a transaction history only up to the number of atoms
  // in the database: filler rows keep it long enough.
  const filler: Operation[] = [];
  for (let i = 0; i < 200; i++) {
    filler.push({
      op: 'insert',
      table: 'Item',
      row: { name: `filler-${i}`, n: -1 - i, tags: ['set', ['a', 'b', 'c']] },
    } as Operation);
  }
  await writer.transact(DB, filler);
  return { server, proxy, writer };
}

async function tearDown(s: Setup | undefined): Promise<void> {
  if (!s) return;
  s.writer.close();
  await s.proxy.close();
  await s.server.stop();
}

const clients: DatabaseClient<TestTables>[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

function open(
  remote: string,
  options: Partial<Parameters<typeof connectDatabase<TestTables>>[0]> = {},
) {
  const c = connectDatabase({
    remotes: remote,
    model: TEST_MODEL,
    backoff: { initialDelayMs: 20, maxDelayMs: 100 },
    ...options,
  });
  clients.push(c as DatabaseClient<TestTables>);
  return c;
}

function record(c: DatabaseClient<TestTables>): string[] {
  const seen: string[] = [];
  c.on('Item', 'insert', (r) => {
    seen.push(`insert ${r.name}`);
  });
  c.on('Item', 'update', (r, o) => {
    seen.push(`update ${o.name} n=${o.n}→${r.n}`);
  });
  c.on('Item', 'delete', (r) => {
    seen.push(`delete ${r.name}`);
  });
  c.on('Connection', 'insert', (r) => {
    seen.push(`insert connection ${r.target}`);
  });
  return seen;
}

/** Cut the client off, run `changes` meanwhile, restore, and wait for the resync. */
async function cutAndChange(
  s: Setup,
  c: DatabaseClient<TestTables>,
  changes: () => Promise<void>,
): Promise<StatusEvent> {
  const connects = c.stats.connects;
  let resynced: StatusEvent | undefined;
  const off = c.onStatus((e) => {
    if (e.type === 'resynced') resynced = e;
  });
  s.proxy.cut();
  await until(() => c.status.state !== 'connected', 5000, 'the disconnection');
  await changes();
  s.proxy.restore();
  await until(() => c.stats.connects === connects + 1, 10_000, 'the resync');
  await c.drained();
  off();
  expect(resynced).toBeDefined();
  return resynced!;
}

async function compareWithDump(s: Setup, c: DatabaseClient<TestTables>): Promise<void> {
  const dump = dumpToRows(
    TEST_MODEL.schema,
    await s.server.ovsdbClient('--format=json', 'dump', DB, 'Item'),
  );
  const items = dump['Item']!;
  expect(c.count('Item')).toBe(items.size);
  for (const [uuid, row] of items) {
    const { _version: _v, ...mine } = c.get('Item', uuid) as unknown as Record<string, unknown>;
    expect(mine).toEqual(row);
  }
}

describe('found=true (clustered database)', () => {
  let s: Setup | undefined;
  beforeAll(async () => {
    s = await setUp(true);
  });
  afterAll(() => tearDown(s));

  it('resumes every monitor from its last transaction id: only the missed changes, no initial rows', async () => {
    const { writer } = s!;
    await writer.transact(DB, [
      { op: 'insert', table: 'Item', row: { name: 'keep', n: 1 } },
      { op: 'insert', table: 'Item', row: { name: 'change', n: 1 } },
      { op: 'insert', table: 'Item', row: { name: 'remove', n: 1 } },
    ] as Operation[]);
    const c = open(s!.proxy.remote, {
      tables: {
        Item: { monitor: 'items' },
        Connection: { monitor: 'config' },
        Root: { monitor: 'config' },
      },
    });
    await c.ready;
    const initialRows = c.stats.initialRows;
    expect(initialRows).toBeGreaterThan(200);
    const keep = c.lookup('Item', { name: 'keep' });
    const seen = record(c);
    const resynced = await cutAndChange(s!, c, async () => {
      await writer.transact(DB, [
        { op: 'update', table: 'Item', where: [['name', '==', 'change']], row: { n: 2 } },
        { op: 'delete', table: 'Item', where: [['name', '==', 'remove']] },
        { op: 'insert', table: 'Item', row: { name: 'new', n: 1 } },
        { op: 'insert', table: 'Connection', row: { target: 'ptcp:1234' }, 'uuid-name': 'c' },
        { op: 'insert', table: 'Root', row: { connections: ['named-uuid', 'c'] } },
      ] as Operation[]);
    });
    expect(resynced.monitors?.map((m) => [m.monitor, m.found, m.initialRows])).toEqual([
      ['items', true, 0],
      ['config', true, 0],
    ]);
    expect(c.stats.initialRows).toBe(initialRows);
    expect(c.stats.resumedFound).toBe(2);
    expect(seen.sort()).toEqual(
      ['delete remove', 'insert connection ptcp:1234', 'insert new', 'update change n=1→2'].sort(),
    );
    expect(c.lookup('Item', { name: 'keep' })).toBe(keep);
    await compareWithDump(s!, c);
  });

  it('applies a condition changed while disconnected when it reconnects', async () => {
    const { writer } = s!;
    await writer.transact(DB, [
      { op: 'insert', table: 'Item', row: { name: 'cond-a', n: 777_001 } },
      { op: 'insert', table: 'Item', row: { name: 'cond-b', n: 777_002 } },
    ] as Operation[]);
    const c = open(s!.proxy.remote, { tables: { Item: { where: [['n', '==', 777_001]] } } });
    await c.ready;
    expect(c.filter('Item', () => true).map((r) => r.name)).toEqual(['cond-a']);
    let changed: Promise<void> | undefined;
    await cutAndChange(s!, c, async () => {
      changed = c.setMonitor('Item', { where: [['n', '==', 777_002]] });
    });
    await changed;
    expect(c.filter('Item', () => true).map((r) => r.name)).toEqual(['cond-b']);
  });
});

describe('found=false (standalone database)', () => {
  let s: Setup | undefined;
  beforeAll(async () => {
    s = await setUp(false);
  });
  afterAll(() => tearDown(s));

  it('replaces the replica and emits events only for rows that differ', async () => {
    const { writer } = s!;
    const c = open(s!.proxy.remote);
    await c.ready;
    const before = new Map([...c.rows('Item')].map((r) => [r._uuid, r]));
    expect(before.size).toBe(200);
    const seen = record(c);
    const resynced = await cutAndChange(s!, c, async () => {
      await writer.transact(DB, [
        { op: 'update', table: 'Item', where: [['name', '==', 'filler-1']], row: { n: 1000 } },
        { op: 'delete', table: 'Item', where: [['name', '==', 'filler-2']] },
        { op: 'insert', table: 'Item', row: { name: 'fresh', n: 5 } },
      ] as Operation[]);
    });
    const sync = resynced.monitors?.[0];
    expect(sync).toMatchObject({ method: 'monitor_cond_since', found: false, initialRows: 200 });
    // A standalone server gives no transaction ids (all zeros): nothing to resume from.
    expect(sync?.fromTxnId).toBe('00000000-0000-0000-0000-000000000000');
    expect(sync?.replaced).toEqual({ inserted: 1, updated: 1, deleted: 1, unchanged: 198 });
    expect(c.stats.fullSyncs).toBe(2);
    expect(seen.sort()).toEqual(['delete filler-2', 'insert fresh', 'update filler-1 n=-2→1000']);
    // Unchanged rows keep their very objects.
    let same = 0;
    for (const r of c.rows('Item')) if (before.get(r._uuid) === r) same++;
    expect(same).toBe(198);
    await compareWithDump(s!, c);
  });

  it('detects a hung server with the inactivity probe and reconnects', async () => {
    const c = open(s!.proxy.remote, { probeIntervalMs: 200 });
    await c.ready;
    const statuses: StatusEvent[] = [];
    c.onStatus((e) => {
      statuses.push(e);
    });
    const t0 = Date.now();
    s!.proxy.freeze();
    try {
      await until(() => statuses.some((e) => e.type === 'disconnected'), 5000, 'the probe');
    } finally {
      s!.proxy.thaw();
    }
    const elapsed = Date.now() - t0;
    expect(statuses.find((e) => e.type === 'disconnected')?.reason).toMatch(/inactivity probe/);
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(3000);
    await until(() => c.status.state === 'connected', 10_000, 'the reconnection');
  });
});

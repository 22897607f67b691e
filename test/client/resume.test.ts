/**
 * Resuming after a lost connection, against every target (both servers, and
 * the real one over `ws:` through a bridge in front of the proxy), behind a
 * proxy that cuts the client off while another connection changes the
 * database:
 *
 * - on a database with a history (a clustered ovsdb-server, the in-memory
 *   server), every monitor resumes with `found=true` and only the missed
 *   changes arrive (no `initial` rows);
 * - on one without (a standalone ovsdb-server, the in-memory server with
 *   `historyLength: 0`), `found=false`: the
 *   replica is replaced by the new dump and events are emitted only for rows
 *   that really differ;
 * - a condition changed while disconnected is applied on reconnection.
 */

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient, StatusEvent } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';
import type { TestServerHandle } from '../helpers/servers.js';
import { TARGETS, type TargetFixture, useTarget } from '../helpers/targets.js';
import {
  dumpToRows,
  rawConnection,
  TEST_MODEL,
  type TestTables,
  until,
} from './helpers/fixtures.js';
import { OvsdbProxy } from './helpers/proxy.js';

/** A target's server behind a proxy that can cut the client off, and a raw writer. */
interface Setup {
  readonly server: TestServerHandle;
  readonly proxy: OvsdbProxy;
  /** A raw writer, straight to the server's socket. */
  readonly writer: OvsdbConnection;
  /** What the client dials: the proxy, or for a ws target a bridge in front of it. */
  readonly remote: string;
}

/** Start the proxy and the writer for `fx` in `beforeAll`; they are closed with the fixture. */
function useSetup(fx: TargetFixture): Setup {
  let setup: Setup | undefined;
  beforeAll(async () => {
    const proxy = await OvsdbProxy.start(fx.unixRemote);
    fx.onClose(() => proxy.close());
    const writer = await rawConnection(fx.unixRemote);
    fx.onClose(() => writer.close());
    // ovsdb-server keeps a transaction history only up to the number of atoms
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
    setup = { server: fx.server, proxy, writer, remote: await fx.via(proxy.remote) };
  });
  const get = (): Setup => {
    if (setup === undefined) throw new Error('the setup is not ready (use it inside tests)');
    return setup;
  };
  return {
    get server() {
      return get().server;
    },
    get proxy() {
      return get().proxy;
    },
    get writer() {
      return get().writer;
    },
    get remote() {
      return get().remote;
    },
  };
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

describe.each(TARGETS)('resuming against %s', (target) => {
  describe('found=true (a database with a history)', () => {
    // Only a clustered ovsdb-server keeps a transaction history; the in-memory
    // server's standalone databases keep one too (docs/conformance.md).
    const fx = useTarget(target, (t) =>
      t.server === 'ovsdb-server'
        ? { schema: TEST_SCHEMA, clustered: true }
        : { schema: TEST_SCHEMA },
    );
    const s = useSetup(fx);

    it('resumes every monitor from its last transaction id: only the missed changes, no initial rows', async () => {
      const { writer } = s;
      await writer.transact(DB, [
        { op: 'insert', table: 'Item', row: { name: 'keep', n: 1 } },
        { op: 'insert', table: 'Item', row: { name: 'change', n: 1 } },
        { op: 'insert', table: 'Item', row: { name: 'remove', n: 1 } },
      ] as Operation[]);
      const c = open(s.remote, {
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
      const resynced = await cutAndChange(s, c, async () => {
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
        [
          'delete remove',
          'insert connection ptcp:1234',
          'insert new',
          'update change n=1→2',
        ].sort(),
      );
      expect(c.lookup('Item', { name: 'keep' })).toBe(keep);
      await compareWithDump(s, c);
    });

    it('applies a condition changed while disconnected when it reconnects', async () => {
      const { writer } = s;
      await writer.transact(DB, [
        { op: 'insert', table: 'Item', row: { name: 'cond-a', n: 777_001 } },
        { op: 'insert', table: 'Item', row: { name: 'cond-b', n: 777_002 } },
      ] as Operation[]);
      const c = open(s.remote, { tables: { Item: { where: [['n', '==', 777_001]] } } });
      await c.ready;
      expect(c.filter('Item', () => true).map((r) => r.name)).toEqual(['cond-a']);
      let changed: Promise<void> | undefined;
      await cutAndChange(s, c, async () => {
        changed = c.setMonitor('Item', { where: [['n', '==', 777_002]] });
      });
      await changed;
      expect(c.filter('Item', () => true).map((r) => r.name)).toEqual(['cond-b']);
    });
  });

  describe('found=false (a database without a history)', () => {
    // A standalone ovsdb-server keeps none; the in-memory server keeps none
    // with historyLength 0.
    const fx = useTarget(target, { schema: TEST_SCHEMA, historyLength: 0 });
    const s = useSetup(fx);

    it('replaces the replica and emits events only for rows that differ', async () => {
      const { writer } = s;
      const c = open(s.remote);
      await c.ready;
      const before = new Map([...c.rows('Item')].map((r) => [r._uuid, r]));
      expect(before.size).toBe(200);
      const seen = record(c);
      const resynced = await cutAndChange(s, c, async () => {
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
      await compareWithDump(s, c);
    });

    it('detects a hung server with the inactivity probe and reconnects', async () => {
      const c = open(s.remote, { probeIntervalMs: 200 });
      await c.ready;
      const statuses: StatusEvent[] = [];
      c.onStatus((e) => {
        statuses.push(e);
      });
      const t0 = Date.now();
      s.proxy.freeze();
      try {
        await until(() => statuses.some((e) => e.type === 'disconnected'), 5000, 'the probe');
      } finally {
        s.proxy.thaw();
      }
      const elapsed = Date.now() - t0;
      expect(statuses.find((e) => e.type === 'disconnected')?.reason).toMatch(/inactivity probe/);
      expect(elapsed).toBeGreaterThanOrEqual(350);
      expect(elapsed).toBeLessThan(3000);
      await until(() => c.status.state === 'connected', 10_000, 'the reconnection');
    });
  });
});

/**
 * `openDatabase`, the typed way in, against a real ovsdb-server: it resolves
 * once the replica is in sync, its transactions are typed by the model and
 * read back through the same handle (read-your-writes), client indexes and
 * events work through it, and it closes its client. A client that cannot
 * get in sync rejects the open and is closed.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientClosedError } from '../../src/client/errors.js';
import { DatabaseClient, openDatabase } from '../../src/client/index.js';
import { RemoteSyntaxError } from '../../src/ovsdb/transport/remote.js';
import { newUuid } from '../../src/ovsdb/values/uuid.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { BatchError, DuplicateIndexError } from '../../src/transactions/index.js';
import { Test } from './fixtures/test-model/index.js';
import { rejection, TEST_SCHEMA_PATH, unique } from './helpers.js';

const BACKOFF = { initialDelayMs: 20, maxDelayMs: 200 } as const;

describe('openDatabase against ovsdb-server', () => {
  let server: OvsdbServerHandle;
  const open: { close(): Promise<void> }[] = [];
  beforeAll(async () => {
    requireOvsdbServer();
    server = await startOvsdbServer({ schemaPath: TEST_SCHEMA_PATH });
  });
  afterAll(async () => {
    for (const db of open) await db.close();
    await server?.stop();
  });
  const track = <H extends { close(): Promise<void> }>(db: H): H => {
    open.push(db);
    return db;
  };

  it('resolves in sync with the rows already there, and transactions read back through the handle', async () => {
    const before = unique('before');
    const writer = track(
      await openDatabase({ remotes: server.unixRemote, model: Test, backoff: BACKOFF }),
    );
    await writer.transact((tx) => tx.insert('Root', { name: before, i: 1 }));

    const db = track(
      await openDatabase({ remotes: [server.unixRemote], model: Test, backoff: BACKOFF }),
    );
    expect(db).toBeInstanceOf(DatabaseClient);
    expect(db.model).toBe(Test);
    expect(db.status.state).toBe('connected');
    // In sync on open: the earlier row is in the replica without waiting.
    expect(db.lookup('Root', { name: before })?.i).toBe(1);

    const name = unique('r');
    const { value, resolution } = await db.transact((tx) => {
      const child = tx.insert('Child', { name: 'c', n: 3 });
      const root = tx.insert('Root', { name, i: 7, sset: ['x'], children: [child] });
      return { root, child };
    });
    expect(resolution).toBe('reply');
    // Read-your-writes: the handle's replica already has both rows.
    expect(db.get('Root', value.root)).toMatchObject({
      name,
      i: 7,
      sset: ['x'],
      children: [value.child],
    });
    expect(db.get('Child', value.child)?.n).toBe(3);
    expect(db.find('Root', (r) => r.name === name)?._uuid).toBe(value.root);
    expect(db.filter('Root', (r) => r.i === 7).map((r) => r.name)).toContain(name);
    expect([...db.rows('Child')].some((c) => c._uuid === value.child)).toBe(true);
    expect(db.count('Root')).toBeGreaterThanOrEqual(2);

    // The typed errors of the transaction layer come through.
    const e = await rejection(db.transact((tx) => tx.insert('Root', { name })));
    expect(e).toBeInstanceOf(DuplicateIndexError);

    // A dry run sends nothing.
    const dry = await db.transact((tx) => tx.insert('Root', { name: unique('dry') }), {
      dryRun: true,
    });
    expect(dry.outcome).toBe('dry run');
    expect(dry.ops[0]).toMatchObject({ op: 'insert', table: 'Root' });
  });

  it('transactBatches writes every item, and events and waitFor see them', async () => {
    const db = track(
      await openDatabase({ remotes: server.unixRemote, model: Test, backoff: BACKOFF }),
    );
    const prefix = unique('batch');
    const seen: string[] = [];
    const off = db.on('Root', 'insert', (row) => {
      if (row.name.startsWith(prefix)) seen.push(row.name);
    });
    const names = Array.from({ length: 5 }, (_, i) => `${prefix}-${i}`);
    const last = db.waitFor('Root', (r) => r.name === names[4], { timeoutMs: 10_000 });
    const progress: number[] = [];
    const result = await db.transactBatches(
      names,
      2,
      (tx, n, i) => {
        tx.insert('Root', { name: n, i });
      },
      { onProgress: (p) => progress.push(p.done) },
    );
    expect(result).toMatchObject({ items: 5, batches: 3 });
    expect(progress).toEqual([2, 4, 5]);
    expect((await last).i).toBe(4);
    await db.drained();
    off();
    expect([...seen].sort()).toEqual(names); // within one update, rows come in server order

    const failed = await rejection(
      db.transactBatches([names[0]], 1, (tx) => {
        tx.insert('Root', { name: `${prefix}-dup` });
        tx.insert('Root', { name: `${prefix}-dup` });
      }),
    );
    expect(failed).toBeInstanceOf(BatchError);
  });

  it('client indexes are typed and served through the handle', async () => {
    const db = track(
      await openDatabase({
        remotes: server.unixRemote,
        model: Test,
        backoff: BACKOFF,
        indexes: { Root: { tag: { column: 'smap', key: 'tag' } } },
      }),
    );
    const tag = unique('tag');
    const { value: root } = await db.transact((tx) =>
      tx.insert('Root', { name: unique('ix'), smap: { tag } }),
    );
    expect(db.byIndex('Root', 'tag', tag).map((r) => r._uuid)).toEqual([root]);
    // @ts-expect-error there is no such index
    expect(() => db.byIndex('Root', 'nope', tag)).toThrow();
  });

  it('close() closes the client: later transactions fail with ClientClosedError', async () => {
    const db = await openDatabase({ remotes: server.unixRemote, model: Test, backoff: BACKOFF });
    await db.close();
    expect(db.status.state).toBe('closed');
    const e = await rejection(db.transact((tx) => tx.insert('Child', { name: 'late' })));
    expect(e).toBeInstanceOf(ClientClosedError);
  });

  it('the lower-level composition still works over the same client', async () => {
    const db = track(
      await openDatabase({ remotes: server.unixRemote, model: Test, backoff: BACKOFF }),
    );
    const raw = db;
    const { value } = await raw.transact((tx) => tx.insert('Root', { name: unique('low') }));
    expect(db.get('Root', value)?.name).toMatch(/^low/);
  });

  it('rejects, with the client closed, when it cannot get in sync', async () => {
    const missing = `unix:${server.dir}/no-such-${newUuid()}.sock`;
    const e = await rejection(
      openDatabase({
        remotes: missing,
        model: Test,
        backoff: { initialDelayMs: 5, maxDelayMs: 10, maxRetries: 2 },
      }),
    );
    expect(e).toBeInstanceOf(ClientClosedError);

    const controller = new AbortController();
    const opening = openDatabase({ remotes: missing, model: Test, signal: controller.signal });
    controller.abort();
    expect(await rejection(opening)).toBeInstanceOf(ClientClosedError);
  });

  it('rejects for an invalid remote', async () => {
    const e = await rejection(openDatabase({ remotes: 'nonsense', model: Test }));
    expect(e).toBeInstanceOf(RemoteSyntaxError);
  });
});

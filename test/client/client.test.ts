/**
 * The database client against every target (the real standalone
 * ovsdb-server and the in-memory server directly, and the real server over
 * `ws:` through the bridge): reads
 * (get, lookup, iteration, filters), immutable rows, events with (new, old),
 * waitFor, read-your-writes, runtime monitor changes, monitor groups, status
 * events, closing and giving up.
 */

import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientClosedError, type StatusEvent } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import { WaitTimeoutError } from '../../src/client/replica/replica.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { IndexError } from '../../src/rows/indexes.js';
import { startOvsdbServer } from '../../src/testing/index.js';
import { DB, TEST_SCHEMA, unique, VIAS } from '../helpers/server.js';
import { TARGETS, useTarget } from '../helpers/targets.js';
import { rawConnection, TEST_MODEL, type TestTables, until } from './helpers/fixtures.js';

const insertItem = (name: string, n: number, extra: Record<string, unknown> = {}): Operation =>
  ({ op: 'insert', table: 'Item', row: { name, n, ...extra } }) as Operation;

/** Open a client of `remotes`, closed after the tests of the file (or when `close` is called). */
function opener(remotes: () => string, closers: { onClose(close: () => Promise<void>): void }) {
  return (options: Partial<Parameters<typeof connectDatabase<TestTables>>[0]> = {}) => {
    const c = connectDatabase({ remotes: remotes(), model: TEST_MODEL, ...options });
    closers.onClose(() => c.close());
    return c;
  };
}

/** Clients opened outside a target fixture: closed after the file's tests. */
const looseClosers: (() => Promise<void>)[] = [];
const loose = { onClose: (close: () => Promise<void>) => void looseClosers.push(close) };
afterAll(async () => {
  for (const close of looseClosers.splice(0)) await close();
});

describe.each(TARGETS)('database client against %s', (target) => {
  const fx = useTarget(target, { schema: TEST_SCHEMA });
  let writer: OvsdbConnection;
  beforeAll(async () => {
    // A raw second writer, straight to the server's socket.
    writer = await rawConnection(fx.unixRemote);
    fx.onClose(() => writer.close());
  });
  const open = opener(() => fx.remote, fx);

  describe('reads', () => {
    it('syncs, then reads by UUID, schema index, iteration and filters', async () => {
      const a = unique('read-a');
      const [r] = await writer.transact(DB, [
        insertItem(a, 7, { tags: ['set', ['x', 'y']], opts: ['map', [['k', 'v']]] }),
      ]);
      const uuid = (r as { uuid: [string, string] }).uuid[1];
      const c = open();
      await c.ready;
      expect(c.status.state).toBe('connected');
      const row = c.get('Item', uuid);
      expect(row).toMatchObject({ _uuid: uuid, name: a, n: 7, tags: ['x', 'y'], opts: { k: 'v' } });
      expect(c.lookup('Item', { name: a })).toBe(row);
      expect(c.filter('Item', (i) => i.n === 7)).toContain(row);
      expect(c.find('Item', (i) => i.name === a)).toBe(row);
      expect([...c.rows('Item')]).toContain(row);
      expect(c.count('Item')).toBeGreaterThanOrEqual(1);
      expect(() => c.lookup('Item', { n: 7 })).toThrow(IndexError);
    });

    it('hands out frozen rows that later changes do not touch', async () => {
      const c = open();
      await c.ready;
      const name = unique('frozen');
      const [r] = await c.transactRaw([insertItem(name, 1, { tags: ['set', ['a']] })]);
      const uuid = (r as { uuid: [string, string] }).uuid[1];
      const before = c.get('Item', uuid)!;
      expect(Object.isFrozen(before)).toBe(true);
      expect(Object.isFrozen(before.tags)).toBe(true);
      expect(() => {
        (before as { n: number }).n = 2;
      }).toThrow(TypeError);
      await c.transactRaw([
        { op: 'update', table: 'Item', where: [['_uuid', '==', ['uuid', uuid]]], row: { n: 2 } },
      ]);
      const after = c.get('Item', uuid)!;
      expect(after.n).toBe(2);
      expect(before.n).toBe(1);
      expect(after.tags).toBe(before.tags); // structural sharing
    });
  });

  describe('read-your-writes', () => {
    it('transact resolves after the replica applied the transaction', async () => {
      const c = open();
      await c.ready;
      for (let i = 0; i < 30; i++) {
        const name = unique('ryw');
        const [r] = await c.transactRaw([insertItem(name, i)]);
        const uuid = (r as { uuid: [string, string] }).uuid[1];
        expect(c.get('Item', uuid)?.name).toBe(name);
        await c.transactRaw([
          {
            op: 'mutate',
            table: 'Item',
            where: [['_uuid', '==', ['uuid', uuid]]],
            mutations: [['n', '+=', 100]],
          },
        ]);
        expect(c.get('Item', uuid)?.n).toBe(i + 100);
        await c.transactRaw([
          { op: 'delete', table: 'Item', where: [['_uuid', '==', ['uuid', uuid]]] },
        ]);
        expect(c.get('Item', uuid)).toBeUndefined();
      }
    });
  });

  describe('transact options', () => {
    it('reports when the request is sent, and never for one that was not', async () => {
      const c = open();
      await c.ready;
      let sent = 0;
      await c.transactRaw([insertItem(unique('sent'), 1)], { onSent: () => sent++ });
      expect(sent).toBe(1);
      await c.close();
      await expect(c.transactRaw([], { onSent: () => sent++ })).rejects.toBeInstanceOf(
        ClientClosedError,
      );
      expect(sent).toBe(1);
    });

    it('cancelOnAbort cancels a blocked transaction on the server', async () => {
      const c = open();
      await c.whenSynced();
      expect(c.executor.cancels).toBe(true);
      const gate = unique('gate');
      const after = unique('after');
      const ac = new AbortController();
      const blocked = c.transactRaw(
        [
          // Blocks until a row named `gate` exists (up to 5 s), then inserts `after`.
          {
            op: 'wait',
            table: 'Item',
            where: [['name', '==', gate]],
            columns: ['name'],
            until: '!=',
            rows: [],
            timeout: 5000,
          },
          insertItem(after, 1),
        ] as Operation[],
        { signal: ac.signal, cancelOnAbort: true },
      );
      setTimeout(() => ac.abort(new Error('changed my mind')), 100);
      await expect(blocked).rejects.toThrow('changed my mind');
      // A round trip on the client's own session: the server has read the
      // `cancel` sent before it (through the bridge too, a longer way than
      // the writer's).
      await c.transactRaw([{ op: 'comment', comment: 'after the cancel' } as Operation]);
      // Had the server kept the transaction, this would let it commit.
      await writer.transact(DB, [insertItem(gate, 1)]);
      await c.waitFor('Item', (r) => r.name === gate, { timeoutMs: 5000 });
      await new Promise((r) => setTimeout(r, 300));
      const [sel] = await writer.transact(DB, [
        { op: 'select', table: 'Item', where: [['name', '==', after]] },
      ]);
      expect((sel as { rows: unknown[] }).rows).toEqual([]);
    });
  });

  describe('events', () => {
    it('delivers insert, update (new, old) and delete in commit order', async () => {
      const c = open();
      await c.ready;
      const name = unique('ev');
      const seen: string[] = [];
      c.on('Item', 'insert', (row) => {
        if (row.name === name) seen.push(`insert n=${row.n}`);
      });
      c.on('Item', 'update', (row, old) => {
        if (row.name === name) seen.push(`update n=${old.n}→${row.n} tags=${old.tags}→${row.tags}`);
      });
      c.on('Item', 'delete', (row) => {
        if (row.name === name) seen.push(`delete n=${row.n}`);
      });
      const [r] = await writer.transact(DB, [insertItem(name, 1)]);
      const where = [['_uuid', '==', ['uuid', (r as { uuid: [string, string] }).uuid[1]]]] as const;
      await writer.transact(DB, [
        { op: 'update', table: 'Item', where, row: { n: 2 } },
      ] as Operation[]);
      await writer.transact(DB, [
        { op: 'mutate', table: 'Item', where, mutations: [['tags', 'insert', ['set', ['t']]]] },
      ] as Operation[]);
      await writer.transact(DB, [{ op: 'delete', table: 'Item', where }] as Operation[]);
      await until(() => seen.length === 4, 5000, 'four events');
      expect(seen).toEqual([
        'insert n=1',
        'update n=1→2 tags=→',
        'update n=2→2 tags=→t',
        'delete n=2',
      ]);
    });

    it('a handler only sees changes applied after it was added; removing it stops delivery', async () => {
      const c = open();
      await c.ready;
      const name = unique('late');
      await c.transactRaw([insertItem(name, 1)]);
      const seen: number[] = [];
      const off = c.on('Item', 'update', (row) => {
        if (row.name === name) seen.push(row.n);
      });
      await c.transactRaw([
        { op: 'update', table: 'Item', where: [['name', '==', name]], row: { n: 2 } },
      ]);
      await c.drained();
      off();
      await c.transactRaw([
        { op: 'update', table: 'Item', where: [['name', '==', name]], row: { n: 3 } },
      ]);
      await c.drained();
      expect(seen).toEqual([2]);
    });

    it('a throwing handler is reported and delivery goes on', async () => {
      const errors: string[] = [];
      const c = open({
        onHandlerError: (e, ctx) => errors.push(`${ctx}: ${(e as Error).message}`),
      });
      await c.ready;
      const seen: string[] = [];
      c.on('Item', 'insert', () => {
        throw new Error('boom');
      });
      c.on('Item', 'insert', (row) => {
        seen.push(row.name);
      });
      const name = unique('throw');
      await c.transactRaw([insertItem(name, 1)]);
      await c.drained();
      expect(seen).toContain(name);
      expect(errors).toEqual(['Item insert handler: boom']);
    });
  });

  describe('waitFor', () => {
    it('resolves when another client makes a row match', async () => {
      const c = open();
      await c.ready;
      const name = unique('wait');
      const waiting = c.waitFor('Item', (r) => r.name === name && r.n === 42, { timeoutMs: 5000 });
      await writer.transact(DB, [insertItem(name, 41)]);
      await writer.transact(DB, [
        { op: 'update', table: 'Item', where: [['name', '==', name]], row: { n: 42 } },
      ]);
      await expect(waiting).resolves.toMatchObject({ name, n: 42 });
    });

    it('rejects on timeout and on abort', async () => {
      const c = open();
      await c.ready;
      await expect(c.waitFor('Item', () => false, { timeoutMs: 50 })).rejects.toBeInstanceOf(
        WaitTimeoutError,
      );
      const ac = new AbortController();
      const w = c.waitFor('Item', () => false, { signal: ac.signal });
      ac.abort(new Error('stop waiting'));
      await expect(w).rejects.toThrow('stop waiting');
    });
  });

  describe('monitor selection', () => {
    it('monitors only the chosen columns and rows, and changes the condition at run time', async () => {
      const base = 9_000_000 + Math.floor(Math.random() * 1000) * 1000;
      const lo = unique('lo');
      const hi = unique('hi');
      await writer.transact(DB, [insertItem(lo, base + 1), insertItem(hi, base + 500)]);
      const c = open({
        tables: {
          Item: {
            columns: ['name', 'n'],
            where: [
              ['n', '<', base + 100],
              ['n', '==', -1],
            ],
          },
        },
      });
      await c.ready;
      const mine = () =>
        c.filter('Item', (r) => r.n > base && r.n < base + 1000).map((r) => r.name);
      expect(mine()).toEqual([lo]);
      expect(Object.keys(c.lookup('Item', { name: lo })!).sort()).toEqual(['_uuid', 'n', 'name']);
      expect(c.count('Connection')).toBe(0);
      expect(c.isMonitored('Connection')).toBe(false);
      const events: string[] = [];
      c.on('Item', 'insert', (r) => {
        if (r.n > base) events.push(`+${r.name}`);
      });
      c.on('Item', 'delete', (r) => {
        if (r.n > base) events.push(`-${r.name}`);
      });
      await c.setMonitor('Item', { where: [['n', '>=', base + 100]] });
      expect(mine()).toEqual([hi]);
      await c.drained();
      expect(events.sort()).toEqual([`+${hi}`, `-${lo}`].sort());

      // New columns restart the monitor: the rows gain the column, with update events.
      const updates: string[] = [];
      c.on('Item', 'update', (r, old) => {
        if (r.name === hi) updates.push(`${String(old.tags)}|${r.tags.join(',')}`);
      });
      await writer.transact(DB, [
        { op: 'update', table: 'Item', where: [['name', '==', hi]], row: { tags: ['set', ['q']] } },
      ]);
      await c.setMonitor('Item', { columns: ['name', 'n', 'tags'] });
      expect(c.lookup('Item', { name: hi })?.tags).toEqual(['q']);
      await c.drained();
      expect(updates).toEqual(['undefined|q']);
    });

    it('runs several monitors on one connection', async () => {
      const c = open({
        tables: { Item: { monitor: 'items' }, Connection: { monitor: 'conns' }, Root: true },
      });
      await c.ready;
      expect(c.stats.lastSync.map((s) => s.monitor).sort()).toEqual(['conns', 'default', 'items']);
      const target = `ptcp:${unique('x').replace(/\D/g, '').slice(-4)}`;
      // Connection is not a root table: reference it from Root so that it stays.
      await writer.transact(DB, [
        { op: 'insert', table: 'Connection', row: { target }, 'uuid-name': 'c' },
        { op: 'insert', table: 'Root', row: { connections: ['named-uuid', 'c'] } },
      ] as Operation[]);
      await c.waitFor('Connection', (r) => r.target === target, { timeoutMs: 5000 });
    });
  });

  describe('reconnection and schema changes', () => {
    it('reconnect() drops the connection and resyncs without events for unchanged rows', async () => {
      const c = open();
      await c.ready;
      // At least one transaction, so that there is a transaction id to resume from.
      await c.transactRaw([insertItem(unique('before-reconnect'), 1)]);
      const seen: string[] = [];
      c.on('Item', 'insert', (r) => {
        seen.push(r.name);
      });
      const statuses: StatusEvent[] = [];
      c.onStatus((e) => {
        statuses.push(e);
      });
      c.reconnect('testing');
      await until(() => c.stats.connects === 2, 10_000, 'the resync');
      await c.drained();
      // (A session shorter than a second backs off first: "reconnecting" may appear.)
      const types = statuses.map((e) => e.type).filter((t) => t !== 'reconnecting');
      // One event per transition: a reconnection is `resynced`, never also `connected`.
      expect(types).toEqual(['disconnected', 'connecting', 'resynced']);
      expect(statuses[0]).toMatchObject({ reason: 'testing', remote: fx.remote });
      const sync = statuses.at(-1)?.monitors?.[0];
      if (target.server === 'memory') {
        // Its standalone databases keep a history (docs/conformance.md): the
        // monitor resumes, with nothing missed.
        expect(sync).toMatchObject({ found: true, initialRows: 0 });
      } else {
        // A standalone ovsdb-server keeps none: a new dump, compared row by row.
        expect(sync).toMatchObject({ found: false });
        expect(sync?.replaced).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
      }
      expect(seen).toEqual([]);
    });
  });

  describe('status and lifecycle', () => {
    it('reports connecting then connected, and closed with the reason', async () => {
      const c = open();
      const events: StatusEvent[] = [];
      c.onStatus((e) => {
        events.push(e);
      });
      await c.ready;
      await c.drained();
      expect(events.map((e) => e.type)).toEqual(['connecting', 'connected']);
      expect(events[1]).toMatchObject({ remote: fx.remote, reason: 'initial sync complete' });
      expect(events[1]?.monitors?.[0]).toMatchObject({
        method: 'monitor_cond_since',
        found: false,
      });
      await c.close();
      await c.drained();
      expect(events.at(-1)).toMatchObject({ type: 'closed', reason: 'closed by the program' });
      expect(c.status.state).toBe('closed');
      await expect(c.transactRaw([])).rejects.toBeInstanceOf(ClientClosedError);
      expect(c.count('Item')).toBeGreaterThan(0); // the replica stays readable
    });

    it('skips a dead remote and uses the next one', async () => {
      const c = open({
        remotes: [`unix:${fx.server.dir}/nobody.sock`, fx.remote],
        shuffleRemotes: true,
      });
      await c.ready;
      expect(c.status.remote).toBe(fx.remote);
    });

    it('an aborted signal closes the client', async () => {
      const ac = new AbortController();
      const c = open({ signal: ac.signal });
      await c.ready;
      ac.abort();
      await until(() => c.status.state === 'closed', 2000, 'closed state');
    });
  });
});

// No server involved: option checks fail before anything is dialed.
describe('option checks', () => {
  const open = opener(() => 'unix:/nonexistent/ovnkit.sock', loose);
  it('rejects unknown tables, columns and index specs at once', () => {
    expect(() => open({ tables: { Nope: true } as never })).toThrow(/no table Nope/);
    expect(() => open({ tables: { Item: { columns: ['nope' as never] } } })).toThrow(
      /no column nope/,
    );
    expect(() =>
      connectDatabase({
        remotes: 'unix:/nonexistent/ovnkit.sock',
        model: TEST_MODEL,
        indexes: { Item: { bad: { column: 'n', key: 'k' } } },
      }),
    ).toThrow(/needs a map column/);
    expect(() => open({ remotes: 'bogus:thing' })).toThrow(/unknown method|bogus/);
  });
});

// No server either: a remote nobody listens on, of each kind a target dials.
describe.each(VIAS)('without a reachable server, dialing %s', (via) => {
  const dead = (what: string) =>
    via === 'direct'
      ? `unix:${tmpdir()}/ovnkit-${process.pid}-${what}.sock`
      : // Port 9 (discard) on loopback: nobody listens there in a test run.
        `ws://127.0.0.1:9/${what}`;
  const open = opener(() => dead('unused'), loose);

  it('gives up after its retries: pending work rejects, nothing throws', async () => {
    const c = open({
      remotes: dead('dead'),
      backoff: { initialDelayMs: 10, maxDelayMs: 20, maxRetries: 2 },
    });
    const pending = c.transactRaw([]);
    const waiting = c.waitFor('Item', () => false);
    const statuses: StatusEvent[] = [];
    c.onStatus((e) => {
      statuses.push(e);
    });
    await expect(c.ready).rejects.toThrow(/gave up reconnecting after 2 retries/);
    await expect(pending).rejects.toBeInstanceOf(ClientClosedError);
    await expect(waiting).rejects.toBeInstanceOf(ClientClosedError);
    await c.drained();
    expect(statuses.filter((s) => s.type === 'reconnecting').map((s) => s.retry)).toEqual([1, 2]);
    expect(statuses.at(-1)?.type).toBe('closed');
    expect(c.status.state).toBe('closed');
  });

  it('closing before the first sync rejects ready', async () => {
    const c = open({ remotes: dead('never'), backoff: { initialDelayMs: 1000 } });
    const ready = c.ready;
    await c.close();
    await expect(ready).rejects.toThrow(/closed by the program/);
  });
});

// The real server only: the in-memory server does not implement `convert`
// (docs/conformance.md), so there is no live conversion to follow.
describe('schema changes (ovsdb-server)', () => {
  it('follows a live schema conversion (monitor_canceled), re-reading the schema', async () => {
    const own = await startOvsdbServer({ schema: TEST_SCHEMA });
    try {
      const c = connectDatabase({
        remotes: own.unixRemote,
        model: TEST_MODEL,
        backoff: { initialDelayMs: 20 },
      });
      loose.onClose(() => c.close());
      await c.ready;
      await c.transactRaw([insertItem('before-convert', 1)]);
      expect(c.compat?.identical).toBe(true);
      const converted = structuredClone(TEST_SCHEMA) as unknown as {
        version: string;
        tables: { Item: { columns: Record<string, unknown> } };
      };
      converted.version = '1.3.0';
      converted.tables.Item.columns['note'] = { type: 'string' };
      const file = `${own.dir}/converted.ovsschema`;
      await writeFile(file, JSON.stringify(converted));
      const statuses: StatusEvent[] = [];
      c.onStatus((e) => {
        statuses.push(e);
      });
      await own.ovsdbClient('convert', file);
      await until(() => c.stats.connects === 2, 10_000, 'the resync after conversion');
      await c.drained();
      expect(statuses.find((e) => e.type === 'disconnected')?.reason).toMatch(/canceled monitor/);
      expect(c.compat).toMatchObject({ serverVersion: '1.3.0', extraColumns: { Item: ['note'] } });
      expect(c.lookup('Item', { name: 'before-convert' })?.n).toBe(1);
    } finally {
      await own.stop();
    }
  });
});

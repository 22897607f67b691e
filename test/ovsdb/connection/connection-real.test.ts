/**
 * OvsdbConnection against both servers (a real ovsdb-server and the
 * in-memory server), over every connection method (unix, tcp, ssl, and ws
 * through an `ovnkit bridge`): one server of each kind per file, every test
 * on its own rows.
 */

import { describe, expect, it } from 'vitest';
import type { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';
import {
  ConnectionClosedError,
  RpcError,
  TransactionError,
} from '../../../src/ovsdb/wire/errors.js';
import type { Operation } from '../../../src/ovsdb/wire/wire.js';
import {
  CLIENT_METHODS,
  collectEvents,
  DB,
  nextEvent,
  sleep,
  TEST_SCHEMA,
  unique,
  useServer,
  withId,
} from '../../helpers/server.js';
import { SERVER_KINDS } from '../../helpers/servers.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** A block of 1000 integers no other test uses, for `n`-based conditions. */
let nBlock = 0;
function uniqueN(): number {
  nBlock++;
  return nBlock * 1000 + (process.pid % 1000) * 1_000_000;
}

function insertItem(name: string, n: number, extra: Record<string, unknown> = {}): Operation {
  return { op: 'insert', table: 'Item', row: { name, n, ...extra } } as Operation;
}

/** A `wait` that can only finish when an Item named `name` has n = 424242. */
function waitNever(name: string, timeout = 60_000): Operation {
  return {
    op: 'wait',
    table: 'Item',
    where: [['name', '==', name]],
    columns: ['n'],
    until: '==',
    rows: [{ n: 424242 }],
    timeout,
  } as Operation;
}

function uuidOf(result: unknown): string {
  const uuid = (result as { uuid?: unknown }).uuid;
  if (!Array.isArray(uuid) || uuid[0] !== 'uuid' || typeof uuid[1] !== 'string') {
    throw new Error(`not an insert result: ${JSON.stringify(result)}`);
  }
  return uuid[1];
}

describe.each(SERVER_KINDS)('against %s', (kind) => {
  const fixture = useServer({}, kind);

  describe.each(CLIENT_METHODS)('OvsdbConnection over %s', (method) => {
    const open = (options?: Parameters<typeof fixture.connect>[1]) =>
      fixture.connect(method, options);

    it('connects with a description naming the remote', async () => {
      const conn = await open();
      expect(conn.description).toBe(fixture.remote(method));
      expect(conn.isClosed).toBe(false);
    });

    it('list_dbs names the database and _Server', async () => {
      const conn = await open();
      const dbs = await conn.listDbs();
      expect([...dbs].sort()).toEqual([DB, '_Server']);
    });

    it('get_schema returns the schema the database was created from', async () => {
      const conn = await open();
      expect(await conn.getSchema(DB)).toEqual(TEST_SCHEMA);
      const server = (await conn.getSchema('_Server')) as { name: string; tables: object };
      expect(server.name).toBe('_Server');
      expect(Object.keys(server.tables)).toContain('Database');
    });

    it('get_schema of an unknown database is an RpcError', async () => {
      const conn = await open();
      const err = await conn.getSchema('NoSuchDb').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RpcError);
      expect((err as RpcError).code).toMatch(/unknown database/);
    });

    it('transact inserts and selects', async () => {
      const conn = await open();
      const name = unique('item');
      const results = await conn.transact(DB, [
        insertItem(name, 7, { tags: ['set', ['b', 'a']], opts: ['map', [['k', 'v']]] }),
        {
          op: 'select',
          table: 'Item',
          where: [['name', '==', name]],
          columns: ['_uuid', 'n', 'tags', 'opts'],
        },
      ]);
      expect(results).toHaveLength(2);
      const uuid = uuidOf(results[0]);
      expect(uuid).toMatch(UUID_RE);
      expect(results[1]).toEqual({
        rows: [
          {
            _uuid: ['uuid', uuid],
            n: 7,
            tags: ['set', ['a', 'b']],
            opts: ['map', [['k', 'v']]],
          },
        ],
      });
    });

    it('a failing operation throws TransactionError with its index, error and details', async () => {
      const conn = await open();
      const name = unique('fail');
      const ops: Operation[] = [
        insertItem(name, 1),
        { op: 'mutate', table: 'Item', where: [['name', '==', name]], mutations: [['n', '/=', 0]] },
        { op: 'select', table: 'Item', where: [] },
      ];
      const err = await conn.transact(DB, ops).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransactionError);
      const te = err as TransactionError;
      expect(te.opIndex).toBe(1);
      expect(te.error).toBe('domain error');
      expect(te.details).toMatch(/division by zero/i);
      expect(te.commit).toBe(false);
      expect(te.op).toBe('mutate');
      expect(te.table).toBe('Item');
      // One entry per operation: the insert's result, the error, then null.
      expect(te.results).toHaveLength(3);
      expect(uuidOf(te.results?.[0])).toMatch(UUID_RE);
      expect(te.results?.[1]).toEqual({ error: 'domain error', details: 'Division by zero.' });
      expect(te.results?.[2]).toBeNull();
      // Nothing was committed.
      const [sel] = await conn.transact(DB, [
        { op: 'select', table: 'Item', where: [['name', '==', name]] },
      ]);
      expect(sel).toEqual({ rows: [] });
    });

    it('a failing commit throws TransactionError for the extra result entry', async () => {
      const conn = await open();
      const name = unique('dup');
      const ops = [insertItem(name, 1), insertItem(name, 2)];
      const err = await conn.transact(DB, ops).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransactionError);
      const te = err as TransactionError;
      expect(te.commit).toBe(true);
      expect(te.opIndex).toBe(2);
      expect(te.error).toBe('constraint violation');
      expect(te.details).toContain(`identical values (${name}) for index on column "name"`);
      expect(te.results).toHaveLength(3);
      expect(uuidOf(te.results?.[0])).toMatch(UUID_RE);
      expect(uuidOf(te.results?.[1])).toMatch(UUID_RE);
    });

    it('a wait that fails at once reports "timed out"', async () => {
      const conn = await open();
      const name = unique('wait0');
      const err = await conn
        .transact(DB, [insertItem(name, 1), waitNever(name, 0)])
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransactionError);
      expect((err as TransactionError).opIndex).toBe(1);
      expect((err as TransactionError).error).toBe('timed out');
    });

    it('sendTransact hands over the result array as sent, errors included', async () => {
      const conn = await open();
      const name = unique('raw');
      const raw = await new Promise<unknown[]>((onReply, onError) =>
        conn.sendTransact(
          DB,
          [
            insertItem(name, 1),
            {
              op: 'mutate',
              table: 'Item',
              where: [['name', '==', name]],
              mutations: [['n', '%=', 0]],
            },
            { op: 'comment', comment: 'never reached' },
          ],
          { onReply: onReply as (r: unknown) => void, onError },
        ),
      );
      expect(raw).toHaveLength(3);
      expect(uuidOf(raw[0])).toMatch(UUID_RE);
      expect(raw[1]).toEqual({ error: 'domain error', details: 'Division by zero.' });
      expect(raw[2]).toBeNull();
    });

    it('transact on an unknown database is an RpcError, not a TransactionError', async () => {
      const conn = await open();
      const err = await conn
        .transact('NoSuchDb', [{ op: 'select', table: 'Item', where: [] }])
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RpcError);
      expect((err as RpcError).code).toMatch(/^unknown database/);
    });

    describe('cancel', () => {
      it('an aborted signal with cancelOnAbort cancels the pending wait on the server', async () => {
        const { conn, tap } = await fixture.connectTapped(method);
        // ovsdb-server answers a cancelled request ("canceled") only for db-change-aware sessions.
        await conn.setDbChangeAware(true);
        const controller = new AbortController();
        let id: number | undefined;
        const pending = conn.transact(DB, [waitNever(unique('cancel'))], {
          signal: controller.signal,
          cancelOnAbort: true,
          onSent: (i) => {
            id = i;
          },
        });
        const outcome = pending.catch((e: unknown) => e);
        expect(id).toBeTypeOf('number');
        // Make sure the server has the wait before cancelling: echo is answered after it.
        await conn.echo('sync');
        const reason = new Error('user gave up');
        controller.abort(reason);
        expect(await outcome).toBe(reason);
        expect(tap.sent).toContainEqual({ method: 'cancel', params: [id], id: null });
        expect(await tap.waitForReceived(withId(id))).toEqual({ id, error: 'canceled' });
        // The connection stays usable.
        expect(await conn.echo('still here')).toEqual(['still here']);
        expect(conn.isClosed).toBe(false);
      });

      it('cancel(id) makes the request reject with the RpcError "canceled"', async () => {
        const { conn, tap } = await fixture.connectTapped(method);
        await conn.setDbChangeAware(true);
        let id = -1;
        const outcome = conn
          .transact(DB, [waitNever(unique('cancel-id'))], { onSent: (i) => (id = i) })
          .catch((e: unknown) => e);
        await conn.echo('sync');
        conn.cancel(id);
        const err = await outcome;
        expect(err).toBeInstanceOf(RpcError);
        expect((err as RpcError).code).toBe('canceled');
        expect(tap.sent).toContainEqual({ method: 'cancel', params: [id], id: null });
        const [r] = await conn.transact(DB, [{ op: 'comment', comment: 'after cancel' }]);
        expect(r).toEqual({});
      });

      it('without db-change-awareness the server drops the cancelled request without a reply', async () => {
        const { conn, tap } = await fixture.connectTapped(method);
        const other = await open();
        const nameA = unique('silent');
        const nameB = unique('control');
        await other.transact(DB, [insertItem(nameA, 1), insertItem(nameB, 1)]);
        let idA = -1;
        const cancelled = conn
          .transact(DB, [waitNever(nameA)], { onSent: (i) => (idA = i) })
          .catch((e: unknown) => e);
        // Control: an identical wait that is not cancelled completes once the row matches.
        const control = conn.transact(DB, [waitNever(nameB)]);
        await conn.echo('sync');
        conn.cancel(idA);
        await conn.echo('sync');
        await other.transact(DB, [
          { op: 'update', table: 'Item', where: [['name', '==', nameA]], row: { n: 424242 } },
          { op: 'update', table: 'Item', where: [['name', '==', nameB]], row: { n: 424242 } },
        ]);
        expect(await control).toEqual([{}]);
        const err = await cancelled;
        expect(err).toBeInstanceOf(RpcError);
        expect((err as RpcError).code).toBe('canceled');
        expect(tap.received.some(withId(idA))).toBe(false);
        expect(await conn.echo('usable')).toEqual(['usable']);
      });
    });

    describe('monitors', () => {
      it('monitor sends the initial rows, then update notifications', async () => {
        const conn = await open();
        const writer = await open();
        const name = unique('mon');
        const [ins] = await writer.transact(DB, [insertItem(name, 1)]);
        const uuid = uuidOf(ins);
        const initial = await conn.monitor(DB, ['mon', name], {
          Item: { columns: ['name', 'n'] },
        });
        expect(initial['Item']?.[uuid]).toEqual({ new: { name, n: 1 } });

        const updates = collectEvents(conn, 'update');
        await writer.transact(DB, [
          { op: 'update', table: 'Item', where: [['_uuid', '==', ['uuid', uuid]]], row: { n: 2 } },
        ]);
        const name2 = unique('mon');
        const [ins2] = await writer.transact(DB, [insertItem(name2, 5)]);
        await writer.transact(DB, [
          { op: 'delete', table: 'Item', where: [['_uuid', '==', ['uuid', uuid]]] },
        ]);
        await conn.echo('sync'); // every update the server sent before this reply has arrived
        expect(updates).toEqual([
          [['mon', name], { Item: { [uuid]: { old: { n: 1 }, new: { name, n: 2 } } } }],
          [['mon', name], { Item: { [uuidOf(ins2)]: { new: { name: name2, n: 5 } } } }],
          [['mon', name], { Item: { [uuid]: { old: { name, n: 2 } } } }],
        ]);
      });

      it('monitor_cond filters with where (clauses are ORed) and sends update2 diffs', async () => {
        const conn = await open();
        const writer = await open();
        const base = uniqueN();
        const initial = await conn.monitorCond(DB, 'cond', {
          Item: {
            columns: ['name', 'n', 'tags', 'opts'],
            // A row matches when ANY clause matches (ovsdb-server(7), monitor_cond).
            where: [
              ['n', '==', base + 1],
              ['n', '==', base + 2],
            ],
          },
        });
        expect(initial).toEqual({});
        const updates = collectEvents(conn, 'update2');
        await writer.transact(DB, [insertItem(unique('outside'), base + 500)]);
        const name = unique('inside');
        const [ins] = await writer.transact(DB, [
          insertItem(name, base + 1, { tags: ['set', ['a', 'b']], opts: ['map', [['k1', 'v1']]] }),
        ]);
        const uuid = uuidOf(ins);
        await writer.transact(DB, [
          {
            op: 'update',
            table: 'Item',
            where: [['_uuid', '==', ['uuid', uuid]]],
            row: { n: base + 2, tags: ['set', ['b', 'c']], opts: ['map', [['k2', 'v2']]] },
          },
        ]);
        await writer.transact(DB, [
          { op: 'delete', table: 'Item', where: [['_uuid', '==', ['uuid', uuid]]] },
        ]);
        await conn.echo('sync');
        expect(updates).toEqual([
          [
            'cond',
            {
              Item: {
                [uuid]: {
                  insert: {
                    name,
                    n: base + 1,
                    tags: ['set', ['a', 'b']],
                    opts: ['map', [['k1', 'v1']]],
                  },
                },
              },
            },
          ],
          [
            'cond',
            {
              Item: {
                [uuid]: {
                  // Sets: the symmetric difference; maps: the changed pairs.
                  modify: {
                    n: base + 2,
                    tags: ['set', ['a', 'c']],
                    opts: [
                      'map',
                      [
                        ['k1', 'v1'],
                        ['k2', 'v2'],
                      ],
                    ],
                  },
                },
              },
            },
          ],
          ['cond', { Item: { [uuid]: { delete: null } } }],
        ]);
      });

      it('monitor_cond_change swaps the condition and renames the monitor', async () => {
        const conn = await open();
        const writer = await open();
        const base = uniqueN();
        const [a, b] = await writer.transact(DB, [
          insertItem(unique('a'), base + 1),
          insertItem(unique('b'), base + 2),
        ]);
        const initial = await conn.monitorCond(DB, 'before', {
          Item: { columns: ['n'], where: [['n', '==', base + 1]] },
        });
        expect(initial).toEqual({ Item: { [uuidOf(a)]: { initial: { n: base + 1 } } } });
        const change = nextEvent(conn, 'update2');
        await conn.monitorCondChange('before', 'after', {
          Item: [{ where: [['n', '==', base + 2]] }],
        });
        const [monitorId, updates] = await change;
        expect(monitorId).toBe('after');
        expect(updates).toEqual({
          Item: { [uuidOf(a)]: { delete: null }, [uuidOf(b)]: { insert: { n: base + 2 } } },
        });
        // The old id is gone.
        const err = await conn
          .monitorCondChange('before', 'x', { Item: [{ where: [] }] })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RpcError);
        expect((err as RpcError).code).toMatch(/unknown monitor session/);
      });

      it('monitor_cancel stops the updates', async () => {
        const conn = await open();
        const writer = await open();
        const base = uniqueN();
        await conn.monitorCond(DB, 'cancel-me', {
          Item: { columns: ['n'], where: [['n', '==', base]] },
        });
        const updates = collectEvents(conn, 'update2');
        await writer.transact(DB, [insertItem(unique('seen'), base)]);
        await conn.echo('sync');
        expect(updates).toHaveLength(1);
        await conn.monitorCancel('cancel-me');
        await writer.transact(DB, [insertItem(unique('unseen'), base)]);
        await conn.echo('sync');
        expect(updates).toHaveLength(1);
        const err = await conn.monitorCancel('cancel-me').catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RpcError);
        expect((err as RpcError).code).toBe('unknown monitor');
      });

      it('monitor_cond_since without a known transaction id answers found=false with a full dump', async () => {
        const conn = await open();
        const writer = await open();
        const base = uniqueN();
        const [a] = await writer.transact(DB, [insertItem(unique('since'), base)]);
        const request = { Item: { columns: ['n'], where: [['n', '==', base]] } } as const;
        const first = await conn.monitorCondSince(DB, 'since-1', request);
        expect(first.found).toBe(false);
        if (kind === 'ovsdb-server') {
          // A standalone ovsdb-server keeps no transaction history: the id stays all zeros.
          expect(first.lastTxnId).toBe(ZERO_UUID);
        } else {
          // The in-memory server keeps a history on every database: a real id.
          expect(first.lastTxnId).toMatch(UUID_RE);
          expect(first.lastTxnId).not.toBe(ZERO_UUID);
        }
        expect(first.updates).toEqual({ Item: { [uuidOf(a)]: { initial: { n: base } } } });
        const other = await conn.monitorCondSince(
          DB,
          'since-2',
          request,
          '6e1dc4a2-6c63-4b0d-9d5c-4d0b3b3ba5a1',
        );
        expect(other.found).toBe(false);
        expect(other.updates).toEqual(first.updates);

        const update3 = nextEvent(conn, 'update3');
        const [b] = await writer.transact(DB, [insertItem(unique('since'), base)]);
        const [monitorId, lastTxnId, updates] = await update3;
        expect(['since-1', 'since-2']).toContain(monitorId);
        if (kind === 'ovsdb-server') expect(lastTxnId).toBe(ZERO_UUID);
        else expect(lastTxnId).not.toBe(first.lastTxnId);
        expect(updates).toEqual({ Item: { [uuidOf(b)]: { insert: { n: base } } } });
      });
    });

    it('set_db_change_aware and get_server_id', async () => {
      const conn = await open();
      const other = await open();
      await expect(conn.setDbChangeAware(true)).resolves.toBeUndefined();
      await expect(conn.setDbChangeAware(false)).resolves.toBeUndefined();
      const id = await conn.getServerId();
      expect(id).toMatch(UUID_RE);
      expect(await other.getServerId()).toBe(id);
    });

    it('locks: lock, wait for it, steal', async () => {
      const a = await open();
      const b = await open();
      // Lock names must be <id>s: letters, digits and underscores.
      const lock = unique('lock').replace(/-/g, '_');
      expect(await a.lock(lock)).toBe(true);
      expect(await b.lock(lock)).toBe(false);
      const bLocked = nextEvent(b, 'locked');
      await a.unlock(lock);
      expect(await bLocked).toEqual([lock]);
      // b holds the lock now: its transactions may assert it.
      expect(await b.transact(DB, [{ op: 'assert', lock }])).toEqual([{}]);

      const bStolen = nextEvent(b, 'stolen');
      expect(await a.steal(lock)).toBe(true);
      expect(await bStolen).toEqual([lock]);
      const err = await b.transact(DB, [{ op: 'assert', lock }]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransactionError);
      expect((err as TransactionError).error).toBe('not owner');
      expect(await a.transact(DB, [{ op: 'assert', lock }])).toEqual([{}]);
      // A second lock request for the same name without unlocking is refused.
      const again = await b.lock(lock).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(RpcError);
      expect(JSON.stringify((again as RpcError).error)).toContain('must issue');
      const bad = await a.lock('not-an-id').catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(RpcError);
      expect(JSON.stringify((bad as RpcError).error)).toContain('lock request params must be <id>');
    });

    it('echo returns its params unchanged', async () => {
      const conn = await open();
      const params = ['x', 1, 2.5, true, null, { a: [1, { b: 'ü€𝄞' }] }, []];
      expect(await conn.echo(...params)).toEqual(params);
      expect(await conn.echo()).toEqual([]);
    });

    it('close rejects pending requests and reports close', async () => {
      const conn: OvsdbConnection = await open();
      const pending = conn.transact(DB, [waitNever(unique('closing'))]).catch((e: unknown) => e);
      await conn.echo('sync');
      const closeEvent = nextEvent(conn, 'close');
      conn.close();
      expect(await pending).toBeInstanceOf(ConnectionClosedError);
      expect(await closeEvent).toEqual([undefined]);
      expect(await conn.closed).toBeUndefined();
      expect(conn.isClosed).toBe(true);
      await expect(conn.listDbs()).rejects.toBeInstanceOf(ConnectionClosedError);
    });
  });

  describe('a message with "jsonrpc":"2.0"', () => {
    it.each(['unix', 'tcp'] as const)(
      'makes the server drop a %s connection without reply',
      async (method) => {
        const { openSocketTransport } = await import(
          '../../../src/ovsdb/transport/socket-transport.js'
        );
        const transport = await openSocketTransport(fixture.remote(method));
        const chunks: Uint8Array[] = [];
        const closed = new Promise<Error | undefined>((resolve) => {
          transport.attach({
            data: (c) => chunks.push(c),
            message: () => undefined,
            drain: () => undefined,
            close: (e) => resolve(e),
          });
        });
        transport.write('{"jsonrpc":"2.0","method":"list_dbs","params":[],"id":1}');
        const result = await Promise.race([
          closed.then(() => 'closed'),
          sleep(3000).then(() => 'open'),
        ]);
        expect(result).toBe('closed');
        expect(Buffer.concat(chunks).toString()).toBe('');
        const log = await fixture.server.readLog();
        expect(log).toContain('message has unexpected member "jsonrpc"');
      },
    );

    it('is dropped while the same message without it is answered', async () => {
      const { openSocketTransport } = await import(
        '../../../src/ovsdb/transport/socket-transport.js'
      );
      const transport = await openSocketTransport(fixture.remote('unix'));
      let text = '';
      transport.attach({
        data: (c) => {
          text += Buffer.from(c).toString();
        },
        message: () => undefined,
        drain: () => undefined,
        close: () => undefined,
      });
      transport.write('{"method":"list_dbs","params":[],"id":1}');
      for (let i = 0; i < 100 && !text.includes('}'); i++) await sleep(20);
      expect(JSON.parse(text)).toEqual({ id: 1, result: [DB, '_Server'], error: null });
      transport.close();
    });
  });
});

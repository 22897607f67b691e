import { afterEach, describe, expect, it } from 'vitest';
import { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';
import { TypedEmitter } from '../../../src/ovsdb/connection/emitter.js';
import {
  ConnectionClosedError,
  ProtocolError,
  RequestTimeoutError,
  RpcError,
  TransactionError,
} from '../../../src/ovsdb/wire/errors.js';
import { JsonRpcPeer } from '../../../src/ovsdb/wire/rpc.js';
import type { Operation } from '../../../src/ovsdb/wire/wire.js';
import { createMemoryPair, type MemoryTransport } from '../../helpers/memory-transport.js';

type Handler = (params: readonly unknown[], server: JsonRpcPeer) => unknown;

interface Fake {
  conn: OvsdbConnection;
  /** The scripted server end. */
  server: JsonRpcPeer;
  /** Requests the server received: [method, params]. */
  calls: [string, readonly unknown[]][];
  /** Notifications the server received. */
  notes: [string, readonly unknown[]][];
  /** The connection's transport (`sent` holds the raw text it wrote). */
  client: MemoryTransport;
  /** The server's transport, for writing raw text to the connection. */
  serverEnd: MemoryTransport;
}

const opened: { close(): void }[] = [];

/** A connection to a scripted server over an in-memory stream split into 7-byte chunks. */
function fake(
  handlers: Record<string, Handler>,
  options: ConstructorParameters<typeof OvsdbConnection>[1] = {},
): Fake {
  const [client, serverEnd] = createMemoryPair({ chunkSize: 7 });
  const calls: [string, readonly unknown[]][] = [];
  const notes: [string, readonly unknown[]][] = [];
  const server: JsonRpcPeer = new JsonRpcPeer(serverEnd, {
    onRequest: (method, params) => {
      calls.push([method, params]);
      const h = handlers[method];
      if (!h) throw new RpcError(method, 'unknown method');
      return h(params, server);
    },
    onNotification: (method, params) => notes.push([method, params]),
  });
  const conn = new OvsdbConnection(client, options);
  opened.push(conn, server);
  return { conn, server, calls, notes, client, serverEnd };
}

afterEach(() => {
  for (const c of opened.splice(0)) c.close();
});

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('OvsdbConnection: requests', () => {
  it('listDbs sends list_dbs and returns the names', async () => {
    const { conn, client } = fake({ list_dbs: () => ['OVN_Northbound', '_Server'] });
    await expect(conn.listDbs()).resolves.toEqual(['OVN_Northbound', '_Server']);
    expect(client.sent).toEqual(['{"method":"list_dbs","params":[],"id":0}']);
    expect(conn.description).toBe('memory:a');
  });

  it('rejects a malformed reply with a ProtocolError but stays open', async () => {
    const { conn } = fake({ list_dbs: () => ['a', 1], get_server_id: () => 7 });
    const e = await conn.listDbs().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toContain(
      'unexpected "list_dbs" reply: expected an array of strings, got ["a",1]',
    );
    await expect(conn.getServerId()).rejects.toThrow(/expected a string, got 7/);
    expect(conn.isClosed).toBe(false);
  });

  it('getSchema passes the database and returns the raw schema', async () => {
    const schema = { name: 'OVN_Northbound', version: '7.18.0', tables: {} };
    const { conn, calls } = fake({ get_schema: () => schema });
    await expect(conn.getSchema('OVN_Northbound')).resolves.toEqual(schema);
    expect(calls).toEqual([['get_schema', ['OVN_Northbound']]]);
  });

  it('transact sends [db, ...ops] and returns one result per operation', async () => {
    const ops: Operation[] = [
      { op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' }, 'uuid-name': 'sw' },
      {
        op: 'select',
        table: 'Logical_Switch',
        where: [['name', '==', 'sw0']],
        columns: ['name'],
        sort: ['name'],
      },
      { op: 'comment', comment: 'hi' },
    ];
    const results = [
      { uuid: ['uuid', '5b2e3fa4-4a5e-4b40-8c7e-0fd5c5cd1d2b'] },
      { rows: [{ name: 'sw0' }] },
      {},
    ];
    const { conn, calls } = fake({ transact: () => results });
    await expect(conn.transact('OVN_Northbound', ops)).resolves.toEqual(results);
    expect(calls).toEqual([['transact', ['OVN_Northbound', ...ops]]]);
  });

  it('transact throws TransactionError for a failed operation, naming it', async () => {
    const ops: Operation[] = [
      { op: 'insert', table: 'Logical_Switch', row: { name: 'a' } },
      { op: 'insert', table: 'Logical_Switch_Port', row: { name: 'p' } },
      { op: 'delete', table: 'ACL', where: [] },
    ];
    const results = [
      { uuid: ['uuid', '5b2e3fa4-4a5e-4b40-8c7e-0fd5c5cd1d2b'] },
      {
        error: 'constraint violation',
        details:
          'Transaction causes multiple rows in "Logical_Switch_Port" table to have identical values (p) for index on column "name".',
      },
      null,
    ];
    const { conn } = fake({ transact: () => results });
    const e = await conn.transact('OVN_Northbound', ops).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TransactionError);
    const t = e as TransactionError;
    expect(t.opIndex).toBe(1);
    expect(t.error).toBe('constraint violation');
    expect(t.details).toContain('identical values (p)');
    expect(t.commit).toBe(false);
    expect(t.op).toBe('insert');
    expect(t.table).toBe('Logical_Switch_Port');
    expect(t.results).toEqual(results);
    expect(t.message).toMatch(
      /^operation 1 \(insert Logical_Switch_Port\) failed: constraint violation: /,
    );
  });

  it('transact throws TransactionError with commit=true for the extra commit error entry', async () => {
    const ops: Operation[] = [{ op: 'delete', table: 'Logical_Switch', where: [] }];
    const results = [
      { count: 1 },
      { error: 'referential integrity violation', details: 'cannot delete' },
    ];
    const { conn } = fake({ transact: () => results });
    const e = (await conn
      .transact('OVN_Northbound', ops)
      .catch((x: unknown) => x)) as TransactionError;
    expect(e).toBeInstanceOf(TransactionError);
    expect(e.commit).toBe(true);
    expect(e.opIndex).toBe(1);
    expect(e.op).toBeUndefined();
    expect(e.error).toBe('referential integrity violation');
    expect(e.message).toBe('commit failed: referential integrity violation: cannot delete');
  });

  it('transact rejects a result array shorter than the operations', async () => {
    const { conn } = fake({ transact: () => [{}] });
    const ops: Operation[] = [{ op: 'abort' }, { op: 'abort' }];
    await expect(conn.transact('db', ops)).rejects.toThrow(/expected 2 results .*got 1/);
  });

  it('sendTransact hands over the result array unchecked', async () => {
    const results = [{ count: 0 }, { error: 'aborted' }, null];
    const { conn } = fake({ transact: () => results });
    await expect(
      new Promise((onReply, onError) =>
        conn.sendTransact(
          'db',
          [{ op: 'update', table: 'T', where: [true], row: {} }, { op: 'abort' }],
          { onReply, onError },
        ),
      ),
    ).resolves.toEqual(results);
  });

  it('transact surfaces a request-level error as RpcError', async () => {
    const { conn } = fake({
      transact: () => {
        throw new RpcError('transact', { error: 'unknown database', details: 'no such db' });
      },
    });
    const e = await conn.transact('nope', []).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RpcError);
    expect((e as RpcError).code).toBe('unknown database: no such db');
  });

  it('monitor, monitorCond and monitorCondSince send their params and return the updates', async () => {
    const updates = { Logical_Switch: { 'a-uuid': { new: { name: 'sw0' } } } };
    const updates2 = { Logical_Switch: { 'a-uuid': { initial: { name: 'sw0' } } } };
    const txn = '6e0a2c8e-0a1b-4f4b-9f77-3d4a2b1c0d9e';
    const { conn, calls } = fake({
      monitor: () => updates,
      monitor_cond: () => updates2,
      monitor_cond_since: (p) => [p[3] !== '00000000-0000-0000-0000-000000000000', txn, updates2],
    });
    const reqs = { Logical_Switch: { columns: ['name'], where: [['name', '!=', '']] as const } };
    await expect(
      conn.monitor('NB', 'm0', { Logical_Switch: { columns: ['name'] } }),
    ).resolves.toEqual(updates);
    await expect(conn.monitorCond('NB', ['m', 1], reqs)).resolves.toEqual(updates2);
    await expect(conn.monitorCondSince('NB', 'm2', reqs)).resolves.toEqual({
      found: false,
      lastTxnId: txn,
      updates: updates2,
    });
    await expect(conn.monitorCondSince('NB', 'm3', reqs, txn)).resolves.toEqual({
      found: true,
      lastTxnId: txn,
      updates: updates2,
    });
    expect(calls).toEqual([
      ['monitor', ['NB', 'm0', { Logical_Switch: { columns: ['name'] } }]],
      ['monitor_cond', ['NB', ['m', 1], reqs]],
      ['monitor_cond_since', ['NB', 'm2', reqs, '00000000-0000-0000-0000-000000000000']],
      ['monitor_cond_since', ['NB', 'm3', reqs, txn]],
    ]);
  });

  it('rejects malformed monitor replies', async () => {
    const { conn } = fake({
      monitor_cond: () => ({ T: { u: 5 } }),
      monitor_cond_since: () => [true, 'x'],
    });
    await expect(conn.monitorCond('NB', 'm', {})).rejects.toThrow(
      /"monitor_cond" reply: expected table updates/,
    );
    await expect(conn.monitorCondSince('NB', 'm', {})).rejects.toThrow(
      /expected \[found, last-txn-id, updates\]/,
    );
  });

  it('monitorCondChange, monitorCancel, unlock and setDbChangeAware send their params', async () => {
    const { conn, calls } = fake({
      monitor_cond_change: () => ({}),
      monitor_cancel: () => ({}),
      unlock: () => ({}),
      set_db_change_aware: () => ({}),
    });
    await conn.monitorCondChange('m', 'm2', { Logical_Switch: [{ where: [['name', '==', 'a']] }] });
    await conn.monitorCancel('m2');
    await conn.unlock('lk');
    await conn.setDbChangeAware();
    await conn.setDbChangeAware(false);
    expect(calls).toEqual([
      ['monitor_cond_change', ['m', 'm2', { Logical_Switch: [{ where: [['name', '==', 'a']] }] }]],
      ['monitor_cancel', ['m2']],
      ['unlock', ['lk']],
      ['set_db_change_aware', [true]],
      ['set_db_change_aware', [false]],
    ]);
  });

  it('lock and steal return the "locked" member', async () => {
    let held = false;
    const { conn, calls } = fake({
      lock: () => {
        const got = !held;
        held = true;
        return { locked: got };
      },
      steal: () => ({ locked: true }),
    });
    await expect(conn.lock('a')).resolves.toBe(true);
    await expect(conn.lock('a')).resolves.toBe(false);
    await expect(conn.steal('a')).resolves.toBe(true);
    expect(calls.map((c) => c[0])).toEqual(['lock', 'lock', 'steal']);
    const bad = fake({ lock: () => ({}) });
    await expect(bad.conn.lock('a')).rejects.toThrow(/expected \{"locked": boolean\}/);
  });

  it('echo returns its params; getServerId returns the id', async () => {
    const { conn } = fake({ get_server_id: () => 'a1b2c3d4-0000-4000-8000-000000000001' });
    await expect(conn.echo('x', 1, { y: [2] })).resolves.toEqual(['x', 1, { y: [2] }]);
    await expect(conn.echo()).resolves.toEqual([]);
    await expect(conn.getServerId()).resolves.toBe('a1b2c3d4-0000-4000-8000-000000000001');
  });

  it('cancel sends the cancel notification for a request id', async () => {
    let id = -1;
    const { conn, notes, serverEnd } = fake({ transact: () => new Promise(() => {}) });
    const p = conn
      .transact('db', [{ op: 'abort' }], { onSent: (i) => (id = i) })
      .catch((x: unknown) => x);
    conn.cancel(id);
    // The request rejects at once: the server only answers when db-change-aware.
    const e = await p;
    expect(e).toBeInstanceOf(RpcError);
    expect((e as RpcError).code).toBe('canceled');
    await tick();
    expect(notes).toEqual([['cancel', [id]]]);
    // A late "canceled" reply for the id is ignored and the connection stays usable.
    serverEnd.write(`{"id":${id},"result":null,"error":"canceled"}`);
    await tick();
    expect(conn.isClosed).toBe(false);
  });

  it('applies requestTimeoutMs', async () => {
    const { conn } = fake({ list_dbs: () => new Promise(() => {}) }, { requestTimeoutMs: 20 });
    await expect(conn.listDbs()).rejects.toBeInstanceOf(RequestTimeoutError);
    await expect(conn.echo(1)).resolves.toEqual([1]);
  });

  it('passes an AbortSignal through', async () => {
    const { conn } = fake({ get_schema: () => new Promise(() => {}) });
    const ac = new AbortController();
    const p = conn.getSchema('db', { signal: ac.signal });
    ac.abort(new Error('user gave up'));
    await expect(p).rejects.toThrow('user gave up');
  });
});

describe('OvsdbConnection: notifications', () => {
  it('emits every OVSDB notification as its typed event', async () => {
    const got: unknown[] = [];
    const { conn, server } = fake({});
    conn.on('update', (id, u) => got.push(['update', id, u]));
    conn.on('update2', (id, u) => got.push(['update2', id, u]));
    conn.on('update3', (id, txn, u) => got.push(['update3', id, txn, u]));
    conn.on('locked', (name) => got.push(['locked', name]));
    conn.on('stolen', (name) => got.push(['stolen', name]));
    conn.on('monitorCanceled', (id) => got.push(['monitorCanceled', id]));
    conn.on('notification', (m, p) => got.push(['notification', m, p]));
    server.notify('update', ['m', { T: { u: { old: { a: 1 }, new: { a: 2 } } } }]);
    server.notify('update2', [['m', 2], { T: { u: { modify: { a: 2 } } } }]);
    server.notify('update3', ['m', 'txn', { T: { u: { delete: null } } }]);
    server.notify('locked', ['lk']);
    server.notify('stolen', ['lk']);
    server.notify('monitor_canceled', ['m']);
    server.notify('something_new', [1]);
    await tick();
    expect(got).toEqual([
      ['update', 'm', { T: { u: { old: { a: 1 }, new: { a: 2 } } } }],
      ['update2', ['m', 2], { T: { u: { modify: { a: 2 } } } }],
      ['update3', 'm', 'txn', { T: { u: { delete: null } } }],
      ['locked', 'lk'],
      ['stolen', 'lk'],
      ['monitorCanceled', 'm'],
      ['notification', 'something_new', [1]],
    ]);
  });

  it('delivers the updates a transaction causes before transact resolves', async () => {
    const order: string[] = [];
    const { conn } = fake({
      transact: (_p, server) => {
        server.notify('update2', ['m', { Logical_Switch: { u1: { insert: { name: 'sw0' } } } }]);
        server.notify('update3', [
          'm3',
          'txn-1',
          { Logical_Switch: { u1: { insert: { name: 'sw0' } } } },
        ]);
        return [{ uuid: ['uuid', 'u1'] }];
      },
    });
    conn.on('update2', () => order.push('update2'));
    conn.on('update3', (_id, txn) => order.push(`update3 ${txn}`));
    await conn
      .transact('db', [{ op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' } }])
      .then(() => order.push('reply'));
    expect(order).toEqual(['update2', 'update3 txn-1', 'reply']);
  });

  it('closes with a ProtocolError on a malformed notification payload', async () => {
    const closes: unknown[] = [];
    const { conn, server } = fake({});
    const updates: unknown[] = [];
    conn.on('update2', (_i, u) => updates.push(u));
    conn.on('close', (e) => closes.push(e));
    server.notify('update2', ['m', { T: { u: 'not a row update' } }]);
    const reason = await conn.closed;
    expect(reason).toBeInstanceOf(ProtocolError);
    expect((reason as Error).message).toContain('malformed "update2" notification');
    expect(closes).toEqual([reason]);
    expect(updates).toEqual([]);
    for (const [method, params] of [
      ['update', ['m']],
      ['update3', ['m', 5, {}]],
      ['locked', [1]],
      ['stolen', []],
      ['monitor_canceled', []],
    ] as const) {
      const f = fake({});
      f.server.notify(method, params);
      expect(await f.conn.closed, method).toBeInstanceOf(ProtocolError);
    }
  });

  it('a throwing listener is reported and the others still run', async () => {
    const errors: [unknown, string][] = [];
    const { conn, server } = fake({}, { onListenerError: (e, ev) => errors.push([e, ev]) });
    const got: number[] = [];
    conn.on('locked', () => {
      throw new Error('listener bug');
    });
    conn.on('locked', () => got.push(1));
    server.notify('locked', ['a']);
    server.notify('locked', ['b']);
    await tick();
    expect(got).toEqual([1, 1]);
    expect(errors.map(([e, ev]) => [(e as Error).message, ev])).toEqual([
      ['listener bug', 'locked'],
      ['listener bug', 'locked'],
    ]);
    expect(conn.isClosed).toBe(false);
  });

  it('off and once', async () => {
    const { conn, server } = fake({});
    const got: string[] = [];
    const l = (name: string): void => {
      got.push(`on:${name}`);
    };
    conn.on('stolen', l);
    conn.once('stolen', (name) => got.push(`once:${name}`));
    server.notify('stolen', ['a']);
    await tick();
    conn.off('stolen', l);
    server.notify('stolen', ['b']);
    await tick();
    expect(got).toEqual(['on:a', 'once:a']);
  });
});

describe('OvsdbConnection: closing', () => {
  it('close() emits close(undefined), resolves closed and rejects pending requests', async () => {
    const { conn } = fake({ list_dbs: () => new Promise(() => {}) });
    const closes: unknown[] = [];
    conn.on('close', (e) => closes.push(e));
    const p = conn.listDbs();
    await tick();
    conn.close();
    expect(conn.isClosed).toBe(true);
    await expect(p).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(await conn.closed).toBeUndefined();
    expect(closes).toEqual([undefined]);
    await expect(conn.echo()).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('a server-side close emits close with a ConnectionClosedError', async () => {
    const { conn, server } = fake({});
    const closes: unknown[] = [];
    conn.on('close', (e) => closes.push(e));
    server.close();
    const reason = await conn.closed;
    expect(reason).toBeInstanceOf(ConnectionClosedError);
    expect(closes).toEqual([reason]);
  });
});

describe('TypedEmitter', () => {
  interface Ev {
    a: [n: number];
    b: [];
  }

  it('runs listeners in order; changes during emit apply to the next emit', () => {
    const e = new TypedEmitter<Ev>();
    const got: string[] = [];
    const late = (n: number): void => {
      got.push(`late${n}`);
    };
    const first = (n: number): void => {
      got.push(`first${n}`);
      e.on('a', late);
      e.off('a', second);
    };
    const second = (n: number): void => {
      got.push(`second${n}`);
    };
    e.on('a', first).on('a', second);
    expect(e.emit('a', 1)).toBe(true);
    expect(got).toEqual(['first1', 'second1']);
    e.off('a', first);
    e.emit('a', 2);
    expect(got).toEqual(['first1', 'second1', 'late2']);
    expect(e.emit('b')).toBe(false);
  });

  it('once removes only its own registration of a listener', () => {
    const e = new TypedEmitter<Ev>();
    const got: number[] = [];
    const l = (n: number): void => {
      got.push(n);
    };
    e.on('a', l);
    e.once('a', l);
    expect(e.listenerCount('a')).toBe(2);
    e.emit('a', 1);
    expect(e.listenerCount('a')).toBe(1);
    e.emit('a', 2);
    expect(got).toEqual([1, 1, 2]);
    e.removeAllListeners();
    expect(e.listenerCount('a')).toBe(0);
  });

  it('reports a throwing listener (even when the hook throws) and keeps emitting', () => {
    const reported: [string, string][] = [];
    const e = new TypedEmitter<Ev>({
      onListenerError: (err, ev) => {
        reported.push([(err as Error).message, ev]);
        throw new Error('hook bug');
      },
    });
    const got: number[] = [];
    e.on('a', () => {
      throw new Error('bad listener');
    });
    e.on('a', (n) => got.push(n));
    expect(() => e.emit('a', 5)).not.toThrow();
    expect(got).toEqual([5]);
    expect(reported).toEqual([['bad listener', 'a']]);
  });

  it('rejects a listener that is not a function', () => {
    const e = new TypedEmitter<Ev>();
    expect(() => e.on('a', 5 as unknown as () => void)).toThrow(TypeError);
  });
});

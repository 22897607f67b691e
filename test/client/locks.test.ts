/**
 * OVSDB locks in the database client, against the real ovsdb-server and
 * ovnkit-server side by side: the order in which a lock is granted, its
 * state and status events, `steal`, fencing (a transaction of a client
 * that lost the lock is refused with `LockNotHeldError`, before sending or
 * by the server, never left unknown), release on close, asking again after
 * a lost connection and a server restart, and the outcome of a fenced
 * transaction whose reply was lost while the lock was lost too.
 */

import type * as PromClient from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  connectDatabase,
  type DatabaseClient,
  type DatabaseLock,
  LockNotHeldError,
  openDatabase,
  type StatusEvent,
  TransactionRefusedError,
} from '../../src/client/index.js';
import * as root from '../../src/index.js';
import { prometheusMetrics } from '../../src/observability/prometheus.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { TransactionError } from '../../src/ovsdb/wire/errors.js';
import * as transactions from '../../src/transactions/index.js';
import {
  connectionExecutor,
  outcomeOf,
  TransactionOutcomeError,
} from '../../src/transactions/index.js';
import { sleep, TEST_SCHEMA } from '../helpers/server.js';
import { SERVER_KINDS, startTestServer, type TestServerHandle } from '../helpers/servers.js';
import { rejection } from '../transactions/helpers.js';
import { TEST_MODEL, type TestTables, until } from './helpers/fixtures.js';
import { OvsdbProxy } from './helpers/proxy.js';
import { FreezableTcpProxy } from './helpers/tcp-proxy.js';
import { requirePackage } from './metrics-require.js';

const promClient = requirePackage('prom-client') as typeof PromClient;

/** The status events of `client` from now on, as `type` or `type:lock-state`. */
function record(client: { onStatus(handler: (event: StatusEvent) => void): () => void }): string[] {
  const out: string[] = [];
  client.onStatus((e) => {
    out.push(e.type === 'lock' ? `lock:${e.lock?.name}:${e.lock?.state}` : e.type);
  });
  return out;
}

/** Until `lock` was answered "queued" by the server. */
function queued(lock: DatabaseLock): Promise<void> {
  return until(() => lock.reason === 'another client holds it', 10_000, 'the lock to be queued');
}

describe('the lock error is exported by every entry point', () => {
  it('root, ovnkit/client and ovnkit/transactions, as a refusal', () => {
    expect(root.LockNotHeldError).toBe(LockNotHeldError);
    expect(transactions.LockNotHeldError).toBe(LockNotHeldError);
    const e = new LockNotHeldError('L', 'client', 'stolen by another client');
    expect(e).toBeInstanceOf(TransactionRefusedError);
    expect(outcomeOf(e)).toBe('not committed');
    expect(e.message).toContain('"L"');
  });
});

describe.each(SERVER_KINDS)('locks against %s', (kind) => {
  let server: TestServerHandle;
  const closers: (() => Promise<void> | void)[] = [];
  let counter = 0;
  const uniqueLock = () => `lock_${kind.replace('-', '_')}_${++counter}`;

  beforeAll(async () => {
    server = await startTestServer(kind, { schema: TEST_SCHEMA, remotes: ['unix'] });
  });
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });
  afterAll(() => server?.stop());

  function client(
    options: Partial<Parameters<typeof connectDatabase<TestTables>>[0]> = {},
  ): DatabaseClient<TestTables> {
    const c = connectDatabase({
      remotes: server.remotes.unix!,
      model: TEST_MODEL,
      backoff: { initialDelayMs: 20, maxDelayMs: 200 },
      ...options,
    });
    closers.push(() => c.close());
    return c as DatabaseClient<TestTables>;
  }

  async function handle(
    options: Partial<Parameters<typeof openDatabase<TestTables>>[0]> = {},
  ): Promise<DatabaseClient<TestTables>> {
    const db = await openDatabase({
      remotes: server.remotes.unix!,
      model: TEST_MODEL,
      backoff: { initialDelayMs: 20, maxDelayMs: 200 },
      ...options,
    });
    closers.push(() => db.close());
    return db as DatabaseClient<TestTables>;
  }

  async function proxy(): Promise<OvsdbProxy> {
    const p = await OvsdbProxy.start(server.remotes.unix!);
    closers.push(() => p.close());
    return p;
  }

  /** Whether an `Item` named `name` exists, read with a fresh connection. */
  async function exists(name: string): Promise<boolean> {
    const conn = await connect(server.remotes.unix!);
    try {
      const [r] = await conn.transact('Test', [
        { op: 'select', table: 'Item', where: [['name', '==', name]], columns: ['name'] },
      ]);
      return ((r as { rows: unknown[] }).rows?.length ?? 0) > 0;
    } finally {
      conn.close();
    }
  }

  it('grants the lock to the first client that asks and queues the others, in order', async () => {
    const name = uniqueLock();
    const [a, b, c] = [client(), client(), client()];
    const seenA = record(a);
    const seenB = record(b);
    await Promise.all([a.ready, b.ready, c.ready]);
    const la = a.lock(name);
    await la.whenHeld();
    const lb = b.lock(name);
    await queued(lb);
    const lc = c.lock(name);
    await queued(lc);
    expect([la.state, lb.state, lc.state]).toEqual(['held', 'waiting', 'waiting']);
    expect(la.held).toBe(true);
    expect(a.status.locks).toEqual([{ name, state: 'held' }]);
    expect(b.status.locks).toEqual([{ name, state: 'waiting' }]);
    // Asking again gives the same lock.
    expect(b.lock(name)).toBe(lb);

    await la.release();
    await lb.whenHeld();
    expect(lc.state).toBe('waiting');
    expect(la.state).toBe('released');
    expect(a.status.locks).toEqual([]);
    await lb.release();
    await lc.whenHeld();
    await Promise.all([a.drained(), b.drained()]);
    expect(seenA.filter((e) => e.startsWith('lock:'))).toEqual([
      `lock:${name}:waiting`,
      `lock:${name}:held`,
      `lock:${name}:released`,
    ]);
    expect(seenB.filter((e) => e.startsWith('lock:'))).toEqual([
      `lock:${name}:waiting`,
      `lock:${name}:held`,
      `lock:${name}:released`,
    ]);
    // A released lock cannot be waited for.
    await expect(la.whenHeld()).rejects.toThrow(/released/);
  });

  it('asks only once in sync: held comes after connected', async () => {
    const name = uniqueLock();
    const d = client();
    const seen = record(d);
    const lock = d.lock(name);
    expect(lock.state).toBe('waiting');
    await lock.whenHeld();
    await d.drained();
    expect(seen).toEqual([`lock:${name}:waiting`, 'connecting', 'connected', `lock:${name}:held`]);
  });

  it('the fence option asks for its lock; a lock name OVSDB refuses is a TypeError', async () => {
    const name = uniqueLock();
    const c = client({ fence: name });
    const seen = record(c);
    await c.ready;
    await c.lock(name).whenHeld();
    await c.drained();
    expect(seen.filter((e) => e.startsWith('lock:'))).toEqual([
      `lock:${name}:waiting`,
      `lock:${name}:held`,
    ]);
    expect(() => c.lock('has space')).toThrow(TypeError);
    expect(() => c.lock('')).toThrow(TypeError);
    expect(() => connectDatabase({ remotes: 'unix:/x', model: TEST_MODEL, fence: '9x' })).toThrow(
      TypeError,
    );
    // A fence naming a lock the client never asked for is refused before sending.
    const e = await rejection(
      c.transactRaw([{ op: 'insert', table: 'Item', row: { name: `never-${name}` } }], {
        fence: 'never_asked',
      }),
    );
    expect(e).toBeInstanceOf(LockNotHeldError);
    expect((e as LockNotHeldError).lock).toBe('never_asked');
    expect((e as LockNotHeldError).refusedBy).toBe('client');
    expect(await exists(`never-${name}`)).toBe(false);
  });

  it('steal: the holder learns it lost the lock, its fenced transactions are refused, and it gets the lock back when the thief lets go', async () => {
    const name = uniqueLock();
    const a = await handle({ fence: name });
    const la = a.lock(name);
    await la.whenHeld();
    const seenA = record(a); // from before the `held` event's delivery
    const first = await a.transact((tx) => {
      tx.insert('Item', { name: `${name}-a1`, n: 1 });
    });
    expect(first.outcome).toBe('committed');

    const b = client();
    await b.ready;
    const lb = b.lock(name, { steal: true });
    await lb.whenHeld();
    await until(() => la.state === 'lost', 5000, 'the holder to learn');
    expect(la.held).toBe(false);
    expect(la.reason).toContain('stolen');

    // Typed and raw: refused before sending, naming the lock; never unknown.
    const typed = await rejection(
      a.transact((tx) => {
        tx.insert('Item', { name: `${name}-a2`, n: 2 });
      }),
    );
    expect(typed).toBeInstanceOf(LockNotHeldError);
    expect((typed as LockNotHeldError).lock).toBe(name);
    expect((typed as LockNotHeldError).refusedBy).toBe('client');
    expect(outcomeOf(typed)).toBe('not committed');
    const raw = await rejection(
      a.transactRaw([{ op: 'insert', table: 'Item', row: { name: `${name}-a3` } }]),
    );
    expect(raw).toBeInstanceOf(LockNotHeldError);
    expect(await exists(`${name}-a2`)).toBe(false);
    expect(await exists(`${name}-a3`)).toBe(false);
    // The thief's own writes are not fenced here; a's unfenced one commits.
    await a.transact(
      (tx) => {
        tx.insert('Item', { name: `${name}-unfenced`, n: 3 });
      },
      { fence: false },
    );
    expect(await exists(`${name}-unfenced`)).toBe(true);

    // ovsdb-server keeps a robbed `lock` waiter in line: the lock comes back.
    await lb.release();
    await la.whenHeld();
    await a.transact((tx) => {
      tx.insert('Item', { name: `${name}-a4`, n: 4 });
    });
    expect(await exists(`${name}-a4`)).toBe(true);
    await a.drained();
    expect(seenA.filter((e) => e.startsWith('lock:')).slice(-2)).toEqual([
      `lock:${name}:lost`,
      `lock:${name}:held`,
    ]);
  });

  it('a thief that is robbed in turn stays in line and gets the lock back', async () => {
    const name = uniqueLock();
    const [a, b, c] = [client(), client(), client()];
    await Promise.all([a.ready, b.ready, c.ready]);
    const la = a.lock(name);
    await la.whenHeld();
    const lb = b.lock(name, { steal: true });
    await lb.whenHeld();
    const lc = c.lock(name, { steal: true });
    await lc.whenHeld();
    await until(() => lb.state === 'lost', 5000, 'b to be robbed');
    // b stole with `steal`, which ovsdb-server drops from the queue once robbed: the client queues again.
    await queued(lb);
    await lc.release();
    // a was first in line (robbed `lock` waiters stay queued), then b.
    await la.whenHeld();
    expect(lb.state).toBe('lost');
    await la.release();
    await lb.whenHeld();
  });

  it('a fenced transaction the server runs after the lock was stolen is refused by the server', async () => {
    const name = uniqueLock();
    const gate = `${name}-gate`;
    const a = await handle({ fence: name });
    await a.lock(name).whenHeld();
    await a.transact((tx) => {
      tx.insert('Item', { name: gate, n: 0 });
    });
    // Sent while held; the server holds it on its `wait` until the gate opens.
    let sent = false;
    const pending = rejection(
      a.transact((tx) => {
        tx.wait('Item', { name: gate }, { columns: ['n'], until: '==', rows: [{ n: 1 }] });
        tx.insert('Item', { name: `${name}-late`, n: 1 });
      }),
    );
    void pending.then(() => {
      sent = true;
    });
    await sleep(200);
    expect(sent).toBe(false);
    const b = client();
    await b.ready;
    await b.lock(name, { steal: true }).whenHeld();
    // Opening the gate runs a's transaction again: its assert now fails.
    await b.transactRaw([
      { op: 'update', table: 'Item', where: [['name', '==', gate]], row: { n: 1 } },
    ]);
    const e = await pending;
    expect(e).toBeInstanceOf(LockNotHeldError);
    expect((e as LockNotHeldError).refusedBy).toBe('server');
    expect((e as LockNotHeldError).lock).toBe(name);
    expect((e as LockNotHeldError).details).toBe(`Asserted lock ${name} not held.`);
    expect(outcomeOf(e)).toBe('not committed');
    expect(await exists(`${name}-late`)).toBe(false);
  });

  it('fencing keeps results and error indexes those of the operations given', async () => {
    const name = uniqueLock();
    const c = client({ fence: name });
    await c.lock(name).whenHeld();
    const results = await c.transactRaw([
      { op: 'insert', table: 'Item', row: { name: `${name}-x`, n: 1 } },
      { op: 'select', table: 'Item', where: [['name', '==', `${name}-x`]], columns: ['n'] },
    ]);
    expect(results).toHaveLength(2);
    expect(results[1]).toEqual({ rows: [{ n: 1 }] });
    const e = await rejection(
      c.transactRaw([
        { op: 'insert', table: 'Item', row: { name: `${name}-y`, n: 1 } },
        { op: 'insert', table: 'Item', row: { name: `${name}-x`, n: 2 } },
      ]),
    );
    expect(e).toBeInstanceOf(TransactionError);
    expect((e as { opIndex: number }).opIndex).toBe(2); // the commit: a duplicate name
    expect((e as { error: string }).error).toBe('constraint violation');
    // Typed over the same client: a DuplicateIndexError naming this transaction's row.
    const db = c;
    const typed = await rejection(
      db.transact((tx) => {
        tx.insert('Item', { name: `${name}-x`, n: 3 });
      }),
    );
    expect(typed).toBeInstanceOf(transactions.DuplicateIndexError);
  });

  it('closing releases the lock, and the next client in line gets it', async () => {
    const name = uniqueLock();
    const [a, b] = [client(), client()];
    const seenA = record(a);
    await Promise.all([a.ready, b.ready]);
    const la = a.lock(name);
    await la.whenHeld();
    const lb = b.lock(name);
    await queued(lb);
    const waiting = a.lock(`${name}_other`);
    const never = rejection(waiting.whenHeld());
    await a.close();
    await lb.whenHeld();
    expect(la.state).toBe('released');
    expect(a.status.locks).toEqual([]);
    expect(await never).toBeInstanceOf(root.ClientClosedError);
    expect(seenA.slice(-3)).toEqual([
      `lock:${name}:released`,
      `lock:${name}_other:released`,
      'closed',
    ]);
    expect(() => a.lock(name)).toThrow(root.ClientClosedError);
  });

  it('a lost connection loses the lock (before `disconnected`), and the client asks again after resyncing', async () => {
    const name = uniqueLock();
    const p = await proxy();
    const a = client({ remotes: p.remote });
    const seen = record(a);
    await a.ready;
    const la = a.lock(name);
    await la.whenHeld();
    p.cut();
    await until(() => la.state === 'lost', 5000, 'the lock to be lost');
    expect(a.status.locks).toEqual([{ name, state: 'lost' }]);
    p.restore();
    await la.whenHeld();
    await a.drained();
    const at = (e: string) => seen.lastIndexOf(e);
    // lost, then disconnected (with a reconnecting round or not), then resynced, then held.
    expect(seen.filter((e) => e.startsWith('lock:'))).toEqual([
      `lock:${name}:waiting`,
      `lock:${name}:held`,
      `lock:${name}:lost`,
      `lock:${name}:held`,
    ]);
    expect(at(`lock:${name}:lost`)).toBe(at('disconnected') - 1);
    expect(at('resynced')).toBe(at(`lock:${name}:held`) - 1);
  });

  it('a lost connection hands the lock to the standby; the old holder waits in line', async () => {
    const name = uniqueLock();
    const p = await proxy();
    const a = client({ remotes: p.remote, fence: name });
    await a.lock(name).whenHeld();
    const b = client({ fence: name }); // asks for the lock too: in line behind a
    const lb = b.lock(name);
    await queued(lb);
    p.cut();
    // The server releases the lock with a's session: at once on a unix socket.
    await lb.whenHeld();
    p.restore();
    const la = a.lock(name);
    await a.whenSynced();
    await queued(la);
    expect(la.state).toBe('lost');
    const e = await rejection(
      a.transactRaw([{ op: 'insert', table: 'Item', row: { name: `${name}-a` } }]),
    );
    expect(e).toBeInstanceOf(LockNotHeldError);
    await b.transactRaw([{ op: 'insert', table: 'Item', row: { name: `${name}-b` } }]);
    expect(await exists(`${name}-a`)).toBe(false);
    expect(await exists(`${name}-b`)).toBe(true);
  });

  it('after a server restart the lock is asked for again and held', async () => {
    const name = uniqueLock();
    const a = client({ fence: name });
    const la = a.lock(name);
    await la.whenHeld();
    // The events, not a poll of the state: the client may be granted the lock
    // again before a poll would see it lost.
    const events = record(a);
    await server.restart();
    await until(() => events.includes(`lock:${name}:lost`), 10_000, 'the lock to be lost').catch(
      (e: unknown) => {
        throw new Error(
          `${(e as Error).message}; status events: ${events.join(', ')}; lock ${la.state}`,
        );
      },
    );
    await la.whenHeld();
    expect(events.indexOf(`lock:${name}:lost`)).toBeLessThan(
      events.lastIndexOf(`lock:${name}:held`),
    );
    await a.transactRaw([{ op: 'insert', table: 'Item', row: { name: `${name}-after` } }]);
    expect(await exists(`${name}-after`)).toBe(true);
  });

  it('over TCP, a holder whose path goes silent loses the lock when the server probe drops it; the standby takes over', async ({
    annotate,
  }) => {
    const name = uniqueLock();
    const tcpServer = await startTestServer(kind, { schema: TEST_SCHEMA, remotes: ['tcp'] });
    closers.push(() => tcpServer.stop());
    const p = await FreezableTcpProxy.start(tcpServer.remotes.tcp!);
    closers.push(() => p.close());
    // Default probe and keepalive settings on both sides.
    const a = connectDatabase({ remotes: p.remote, model: TEST_MODEL, fence: name });
    closers.push(() => a.close());
    const la = a.lock(name);
    await la.whenHeld();
    const b = connectDatabase({ remotes: tcpServer.remotes.tcp!, model: TEST_MODEL, fence: name });
    closers.push(() => b.close());
    const lb = b.lock(name);
    await queued(lb);
    const frozenAt = Date.now();
    p.freeze();
    let lostAt = 0;
    void until(() => la.state === 'lost', 60_000, 'a to learn').then(() => {
      lostAt = Date.now();
    });
    await lb.whenHeld();
    const grantedAt = Date.now();
    await b.transactRaw([{ op: 'insert', table: 'Item', row: { name: `${name}-b` } }]);
    await until(() => lostAt > 0, 60_000, 'a to learn');
    // The server waits one probe interval, then one more for the echo's reply.
    expect(grantedAt - frozenAt).toBeGreaterThanOrEqual(5000);
    await annotate(
      `${kind}: path lost at 0; the server released the lock at ${grantedAt - frozenAt} ms; the old holder learnt at ${lostAt - frozenAt} ms`,
    );
  }, 60_000);

  describe('the outcome of a fenced transaction whose reply is lost while the lock is lost', () => {
    for (const idempotent of [false, true]) {
      it(`committed (idempotent: ${idempotent})`, async () => {
        const name = uniqueLock();
        const p = await proxy();
        const a = await handle({ remotes: p.remote, fence: name });
        const la = a.lock(name);
        await la.whenHeld();
        const b = client({ fence: name });
        const lb = b.lock(name);
        await queued(lb);
        p.dropReplies();
        const row = `${name}-lost-reply`;
        const result = a.transact(
          (tx) => {
            tx.insert('Item', { name: row, n: 1 });
          },
          { idempotent },
        );
        // The server commits it (a holds the lock); the reply is thrown away.
        await until(() => b.lookup('Item', { name: row }) !== undefined, 5000, 'the commit');
        p.cut();
        await lb.whenHeld();
        p.restore();
        const r = await result;
        expect(r.outcome).toBe('committed');
        expect(['replica', 'probe']).toContain(r.resolution);
        expect(la.state).toBe('lost');
        expect(b.count('Item')).toBeGreaterThan(0);
      });
    }

    it('not committed', async () => {
      const name = uniqueLock();
      const p = await proxy();
      const a = await handle({ remotes: p.remote, fence: name });
      await a.lock(name).whenHeld();
      const b = client({ fence: name });
      const lb = b.lock(name);
      await queued(lb);
      p.freeze();
      const row = `${name}-never-sent`;
      const result = rejection(
        a.transact((tx) => {
          tx.insert('Item', { name: row, n: 1 });
        }),
      );
      await sleep(100);
      p.cut(); // what the proxy held is dropped: the request never reached the server
      p.thaw();
      await lb.whenHeld();
      p.restore();
      const e = await result;
      expect(e).toBeInstanceOf(TransactionOutcomeError);
      expect((e as TransactionOutcomeError).outcome).toBe('not committed');
      expect(await exists(row)).toBe(false);
    });
  });

  it('the client metrics say whether each lock is held', async () => {
    const name = uniqueLock();
    const registry = new promClient.Registry();
    const a = client({ metrics: prometheusMetrics(promClient, { registry }) });
    const la = a.lock(name);
    await la.whenHeld();
    const gauge = async () =>
      (await registry.metrics())
        .split('\n')
        .find((l) => l.startsWith('ovnkit_client_lock_held{') && l.includes(`lock="${name}"`));
    expect(await gauge()).toBe(`ovnkit_client_lock_held{db="Test",lock="${name}"} 1`);
    const b = client();
    await b.lock(name, { steal: true }).whenHeld();
    await until(() => la.state === 'lost', 5000, 'the lock to be lost');
    expect(await gauge()).toBe(`ovnkit_client_lock_held{db="Test",lock="${name}"} 0`);
  });
});

describe('fencing needs a client that keeps locks', () => {
  it('a bare connection executor refuses a fence before sending', async () => {
    const conn = { model: TEST_MODEL } as never;
    const executor = connectionExecutor(conn, TEST_MODEL);
    const e = await rejection(
      transactions.transact(executor, (tx) => tx.comment('x'), { fence: 'L' }),
    );
    expect(e).toBeInstanceOf(TypeError);
    expect(outcomeOf(e)).toBe('not committed');
  });
});

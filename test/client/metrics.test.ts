/**
 * Client metrics against a real (clustered, so that monitors resume)
 * ovsdb-server, counted by `prometheusMetrics` into a registry of its own
 * and read back from the registry's text exposition: typed transactions by
 * outcome (committed, failed, refused, invalid) with their latency
 * histogram, request errors by method and kind, reconnects by reason
 * (`client.reconnect()` and a server restart), monitor updates and rows,
 * monitor syncs and resumes, backpressure pauses and the event queue's
 * length while a handler holds it.
 */

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as PromClient from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseClient, openDatabase } from '../../src/client/index.js';
import { connectDatabase } from '../../src/client/open.js';
import { prometheusMetrics } from '../../src/observability/prometheus.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { TransactionError } from '../../src/ovsdb/wire/errors.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { createServer } from '../../src/server/server.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import {
  DuplicateIndexError,
  TransactionOutcomeError,
  TransactionRefusedError,
  VerifyConflictError,
} from '../../src/transactions/index.js';
import { outcomeLabel } from '../../src/transactions/metrics.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';
import { nextResync, TEST_MODEL, type TestTables } from './helpers/fixtures.js';
import { OvsdbProxy } from './helpers/proxy.js';
import { requirePackage } from './metrics-require.js';
import { parseMetrics, type Scrape, sampleValue, series } from './metrics-text.js';

requireOvsdbServer();

const promClient = requirePackage('prom-client') as typeof PromClient;

const P = 'ovnkit_client_';
const L = { db: DB, client: 'metrics-test' };

describe('client metrics (prometheusMetrics) against ovsdb-server', () => {
  let server: OvsdbServerHandle;
  let remote: string;
  let writer: OvsdbConnection;
  const registry = new promClient.Registry();
  let db: DatabaseClient<TestTables>;

  const scrape = async (): Promise<Scrape> => parseMetrics(await registry.metrics());

  beforeAll(async () => {
    server = await startOvsdbServer({ schema: TEST_SCHEMA, clustered: true });
    remote = server.remotes.unix!;
    writer = await connect(remote);
    db = await openDatabase({
      remotes: remote,
      model: TEST_MODEL,
      metrics: prometheusMetrics(promClient, { registry, client: 'metrics-test' }),
      eventQueue: { highWaterMark: 3, lowWaterMark: 1 },
      backoff: { initialDelayMs: 20, maxDelayMs: 200 },
    });
  });

  afterAll(async () => {
    await db?.close();
    writer?.close();
    await server?.stop();
  });

  it('registers every client metric with its type', async () => {
    const s = await scrape();
    expect(s.types.get(`${P}transactions_total`)).toBe('counter');
    expect(s.types.get(`${P}transaction_duration_seconds`)).toBe('histogram');
    expect(s.types.get(`${P}rpc_errors_total`)).toBe('counter');
    expect(s.types.get(`${P}reconnects_total`)).toBe('counter');
    expect(s.types.get(`${P}monitor_updates_total`)).toBe('counter');
    expect(s.types.get(`${P}monitor_rows_total`)).toBe('counter');
    expect(s.types.get(`${P}monitor_syncs_total`)).toBe('counter');
    expect(s.types.get(`${P}resumes_total`)).toBe('counter');
    expect(s.types.get(`${P}backpressure_pauses_total`)).toBe('counter');
    expect(s.types.get(`${P}event_queue_length`)).toBe('gauge');
    // The first sync is a full dump, asked from no transaction id.
    expect(series(s, `${P}monitor_syncs_total`)).toEqual([
      'client=metrics-test,db=Test,kind=full 1',
    ]);
    expect(series(s, `${P}resumes_total`)).toEqual([]);
    expect(sampleValue(s, `${P}event_queue_length`, L)).toBe(0);
  });

  it('counts transactions by outcome, with their latency, and the failed requests', async () => {
    for (let i = 0; i < 5; i++) {
      await db.transact((tx) => {
        tx.insert('Item', { name: `m-${i}`, n: i });
      });
    }
    // A constraint violation: the server's answer, "failed".
    const dup = await db
      .transact((tx) => {
        tx.insert('Item', { name: 'm-0', n: 99 });
      })
      .catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(DuplicateIndexError);
    // A lock the session does not hold: a refusal.
    const refused = await db
      .transact((tx) => {
        tx.assertLock('not_mine');
        tx.insert('Item', { name: 'never', n: 1 });
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TransactionRefusedError);
    // An invalid value: rejected before anything is sent.
    const invalid = await db
      .transact((tx) => {
        tx.insert('Item', { name: 'bad', n: 'not a number' as unknown as number });
      })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(Error);

    const s = await scrape();
    expect(series(s, `${P}transactions_total`)).toEqual([
      'client=metrics-test,db=Test,outcome=committed 5',
      'client=metrics-test,db=Test,outcome=failed 1',
      'client=metrics-test,db=Test,outcome=invalid 1',
      'client=metrics-test,db=Test,outcome=refused 1',
    ]);
    expect(
      sampleValue(s, `${P}transaction_duration_seconds_count`, { ...L, outcome: 'committed' }),
    ).toBe(5);
    expect(
      sampleValue(s, `${P}transaction_duration_seconds_bucket`, {
        ...L,
        outcome: 'committed',
        le: '+Inf',
      }),
    ).toBe(5);
    const sum = sampleValue(s, `${P}transaction_duration_seconds_sum`, {
      ...L,
      outcome: 'committed',
    });
    expect(sum).toBeGreaterThan(0);
    // The requests that failed at the server; the invalid one was never sent.
    expect(series(s, `${P}rpc_errors_total`)).toEqual([
      'client=metrics-test,db=Test,kind=operation_failed,method=transact 1',
      'client=metrics-test,db=Test,kind=refused,method=transact 1',
    ]);
    // Each committed transaction came back as one monitor update of one row.
    expect(sampleValue(s, `${P}monitor_updates_total`, L)).toBe(5);
    expect(sampleValue(s, `${P}monitor_rows_total`, L)).toBe(5);
  });

  it('counts monitor updates and rows from another writer', async () => {
    const ops: Operation[] = [];
    for (let i = 0; i < 2; i++) {
      ops.push({ op: 'insert', table: 'Item', row: { name: `w-${i}`, n: 100 + i } } as Operation);
    }
    await writer.transact(DB, ops);
    await db.waitFor('Item', (r) => r.name === 'w-1', { timeoutMs: 10_000 });
    const s = await scrape();
    expect(sampleValue(s, `${P}monitor_updates_total`, L)).toBe(6);
    expect(sampleValue(s, `${P}monitor_rows_total`, L)).toBe(7);
  });

  it('samples the event queue while a handler holds it, and counts the backpressure pause', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let seen = 0;
    const off = db.on('Item', 'insert', async () => {
      seen++;
      if (seen === 1) await held;
    });
    try {
      const ops: Operation[] = [];
      for (let i = 0; i < 5; i++) {
        ops.push({ op: 'insert', table: 'Item', row: { name: `q-${i}`, n: 200 + i } } as Operation);
      }
      await writer.transact(DB, ops);
      await db.waitFor('Item', (r) => r.name === 'q-4', { timeoutMs: 10_000 });
      while (seen === 0) await new Promise((r) => setTimeout(r, 5));
      // The first event is being delivered: the other four wait.
      let s = await scrape();
      expect(sampleValue(s, `${P}event_queue_length`, L)).toBe(4);
      expect(sampleValue(s, `${P}backpressure_pauses_total`, L)).toBe(1);
      release();
      await db.drained();
      s = await scrape();
      expect(sampleValue(s, `${P}event_queue_length`, L)).toBe(0);
      expect(seen).toBe(5);
    } finally {
      release();
      off();
    }
  });

  it('counts a requested reconnect and the resume that follows', async () => {
    const resynced = nextResync(db);
    db.reconnect('test: reconnect');
    await resynced;
    const s = await scrape();
    expect(series(s, `${P}reconnects_total`)).toEqual([
      'client=metrics-test,db=Test,reason=requested 1',
    ]);
    // A clustered database keeps its history: the monitor resumed.
    expect(series(s, `${P}resumes_total`)).toEqual(['client=metrics-test,db=Test,found=true 1']);
    expect(series(s, `${P}monitor_syncs_total`)).toEqual([
      'client=metrics-test,db=Test,kind=full 1',
      'client=metrics-test,db=Test,kind=resumed 1',
    ]);
  });

  it('counts a reconnect after the server restarts', async () => {
    const resynced = nextResync(db);
    writer.close();
    await server.restart();
    await resynced;
    writer = await connect(remote);
    const s = await scrape();
    expect(series(s, `${P}reconnects_total`)).toEqual([
      'client=metrics-test,db=Test,reason=closed_by_server 1',
      'client=metrics-test,db=Test,reason=requested 1',
    ]);
    const resumes = series(s, `${P}resumes_total`);
    expect(resumes.reduce((n, line) => n + Number(line.split(' ')[1]), 0)).toBe(2);
    // Still one sample per transaction outcome: nothing was counted twice.
    expect(sampleValue(s, `${P}transactions_total`, { ...L, outcome: 'committed' })).toBe(5);
  });

  it('stops sampling a closed client', async () => {
    await db.close();
    const s = await scrape();
    expect(sampleValue(s, `${P}event_queue_length`, L)).toBeUndefined();
  });
});

describe('client metrics against the in-memory server, behind a proxy', () => {
  it('counts a resume the server could not serve (found: false) and a method fallback', async () => {
    // Two transactions of history: three missed ones are beyond it.
    const server = await createServer({
      databases: [TEST_SCHEMA],
      listen: ['ptcp:0:127.0.0.1'],
      historyLength: 2,
    });
    const sock = join(mkdtempSync(join(tmpdir(), 'ovnkit-metrics-')), 'db.sock');
    await server.listen(`punix:${sock}`);
    const proxy = await OvsdbProxy.start(`unix:${sock}`);
    const writer = await connect(server.remotes[0]!);
    const registry = new promClient.Registry();
    const client = connectDatabase({
      remotes: proxy.remote,
      model: TEST_MODEL,
      metrics: prometheusMetrics(promClient, { registry }),
      backoff: { initialDelayMs: 20, maxDelayMs: 100 },
    });
    try {
      await client.ready;
      await writer.transact(DB, [
        { op: 'insert', table: 'Item', row: { name: 'first', n: 0 } } as Operation,
      ]);
      await client.waitFor('Item', (r) => r.name === 'first', { timeoutMs: 10_000 });
      const resynced = nextResync(client);
      proxy.cut();
      for (let i = 0; i < 3; i++) {
        await writer.transact(DB, [
          { op: 'insert', table: 'Item', row: { name: `missed-${i}`, n: i } } as Operation,
        ]);
      }
      // The next connection does not know monitor_cond_since: the client falls back.
      proxy.refuseMethods(['monitor_cond_since']);
      proxy.restore();
      await resynced;
      const s = parseMetrics(await registry.metrics());
      const L0 = { db: DB };
      expect(series(s, `${P}reconnects_total`)).toEqual(['db=Test,reason=closed_by_server 1']);
      expect(series(s, `${P}rpc_errors_total`)).toEqual([
        'db=Test,kind=unknown_method,method=monitor_cond_since 1',
      ]);
      // monitor_cond has no resume: a full dump, and no resume asked.
      expect(series(s, `${P}monitor_syncs_total`)).toEqual(['db=Test,kind=full 2']);
      expect(series(s, `${P}resumes_total`)).toEqual([]);
      expect(client.count('Item')).toBe(4);
      expect(sampleValue(s, `${P}monitor_updates_total`, L0)).toBe(1);

      // Once more with monitor_cond_since allowed, after more than the history: found false.
      proxy.refuseMethods([]);
      const again = nextResync(client);
      client.reconnect('test');
      await again;
      await writer.transact(DB, [
        { op: 'insert', table: 'Item', row: { name: 'second', n: 10 } } as Operation,
      ]);
      await client.waitFor('Item', (r) => r.name === 'second', { timeoutMs: 10_000 });
      const last = nextResync(client);
      proxy.cut();
      for (let i = 0; i < 3; i++) {
        await writer.transact(DB, [
          {
            op: 'insert',
            table: 'Item',
            row: { name: `missed-again-${i}`, n: 20 + i },
          } as Operation,
        ]);
      }
      proxy.restore();
      await last;
      const t = parseMetrics(await registry.metrics());
      expect(series(t, `${P}resumes_total`)).toEqual(['db=Test,found=false 1']);
      expect(series(t, `${P}reconnects_total`)).toEqual([
        'db=Test,reason=closed_by_server 2',
        'db=Test,reason=requested 1',
      ]);
      expect(client.count('Item')).toBe(8);
    } finally {
      await client.close();
      writer.close();
      await proxy.close();
      await server.close();
    }
  });
});

describe('outcome labels', () => {
  it('name each kind of transact error', () => {
    const base = new TransactionError(0, 'constraint violation', 'x', true, 'insert', 'Item', []);
    expect(outcomeLabel(base)).toBe('failed');
    expect(outcomeLabel(new VerifyConflictError(base, 'u', ['n'], 3))).toBe('conflict');
    expect(outcomeLabel(new TransactionOutcomeError('unknown', 'lost'))).toBe('unknown');
    expect(outcomeLabel(new TransactionOutcomeError('not committed', 'lost'))).toBe(
      'not_committed',
    );
    expect(outcomeLabel(new TransactionOutcomeError('committed', 'lost'))).toBe('committed');
    expect(outcomeLabel(new Error('closed'))).toBe('not_committed');
  });
});

describe('prometheusMetrics', () => {
  it('shares one registry between adapters, each with its client label', async () => {
    const registry = new promClient.Registry();
    const a = prometheusMetrics(promClient, { registry, client: 'a' }).forClient({
      db: 'X',
      queueLength: () => 2,
    });
    const b = prometheusMetrics(promClient, { registry, client: 'b' }).forClient({
      db: 'X',
      queueLength: () => 5,
    });
    a.transaction('committed', 0.001);
    b.transaction('committed', 0.002);
    b.transaction('conflict', 0.003);
    let s = parseMetrics(await registry.metrics());
    expect(series(s, `${P}transactions_total`)).toEqual([
      'client=a,db=X,outcome=committed 1',
      'client=b,db=X,outcome=committed 1',
      'client=b,db=X,outcome=conflict 1',
    ]);
    expect(series(s, `${P}event_queue_length`)).toEqual(['client=a,db=X 2', 'client=b,db=X 5']);
    a.close();
    s = parseMetrics(await registry.metrics());
    expect(series(s, `${P}event_queue_length`)).toEqual(['client=b,db=X 5']);
  });

  it('takes a prefix, and refuses a registry whose metric of that name has another type', async () => {
    const registry = new promClient.Registry();
    prometheusMetrics(promClient, { registry, prefix: 'app_' })
      .forClient({ db: 'X', queueLength: () => 0 })
      .reconnect('probe');
    const s = parseMetrics(await registry.metrics());
    expect(series(s, 'app_client_reconnects_total')).toEqual(['db=X,reason=probe 1']);
    const clash = new promClient.Registry();
    new promClient.Gauge({
      name: 'ovnkit_client_transactions_total',
      help: 'x',
      registers: [clash],
    });
    expect(() =>
      prometheusMetrics(promClient, { registry: clash }).forClient({
        db: 'X',
        queueLength: () => 0,
      }),
    ).toThrow(
      /the registry already has a metric ovnkit_client_transactions_total of type gauge, not counter/,
    );
  });

  it("refuses anything but prom-client's module", () => {
    expect(() =>
      prometheusMetrics({} as unknown as Parameters<typeof prometheusMetrics>[0]),
    ).toThrow(/the first argument must be the module of prom-client/);
  });
});

/**
 * Tracing against a real ovsdb-server, with the OpenTelemetry SDK
 * (`BasicTracerProvider`, `SimpleSpanProcessor`, `InMemorySpanExporter`)
 * and `AsyncLocalStorageContextManager`: a span per typed `transact` with
 * the database, operation count, tables, outcome, attempts and replays; a
 * failed one with the exception recorded and status ERROR; the caller's
 * active span as the parent; a span per monitor sync (the first, and the
 * resume after a reconnect).
 */

import type * as OtelApi from '@opentelemetry/api';
import type * as ContextAsyncHooks from '@opentelemetry/context-async-hooks';
import type * as SdkTraceBase from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type DatabaseClient, openDatabase } from '../../src/client/index.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { DuplicateIndexError } from '../../src/transactions/index.js';
import { TEST_SCHEMA } from '../helpers/server.js';
import { nextResync, TEST_MODEL, type TestTables } from './helpers/fixtures.js';
import { requirePackage } from './metrics-require.js';

requireOvsdbServer();

const api = requirePackage('@opentelemetry/api') as typeof OtelApi;
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = requirePackage(
  '@opentelemetry/sdk-trace-base',
) as typeof SdkTraceBase;
const { AsyncLocalStorageContextManager } = requirePackage(
  '@opentelemetry/context-async-hooks',
) as typeof ContextAsyncHooks;

describe('tracing (OpenTelemetry) against ovsdb-server', () => {
  let server: OvsdbServerHandle;
  let db: DatabaseClient<TestTables>;
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('ovnkit-test');
  const contextManager = new AsyncLocalStorageContextManager();
  let connectSpan: { traceId: string; spanId: string };

  const spans = (name: string): ReadableSpan[] =>
    exporter.getFinishedSpans().filter((s) => s.name === name);

  beforeAll(async () => {
    api.context.setGlobalContextManager(contextManager.enable());
    server = await startOvsdbServer({ schema: TEST_SCHEMA, clustered: true });
    // Connected inside a span: the monitor syncs are its children.
    db = await tracer.startActiveSpan('connect', async (span) => {
      connectSpan = span.spanContext();
      try {
        return await openDatabase({ remotes: server.remotes.unix!, model: TEST_MODEL, tracer });
      } finally {
        span.end();
      }
    });
  });

  afterAll(async () => {
    await db?.close();
    await server?.stop();
    api.context.disable();
    await provider.shutdown();
  });

  it('traces the first monitor sync, as a child of the span that connected', () => {
    const [sync, ...more] = spans('ovsdb.monitor.sync');
    expect(more).toEqual([]);
    expect(sync).toBeDefined();
    expect(sync!.kind).toBe(api.SpanKind.CLIENT);
    expect(sync!.attributes).toMatchObject({
      'db.system.name': 'ovsdb',
      'db.namespace': 'Test',
      'ovsdb.monitor': 'default',
      'ovsdb.tables': ['Item', 'Root', 'Connection'],
      'ovsdb.method': 'monitor_cond_since',
      'ovsdb.found': false,
      'ovsdb.from_txn_id': '00000000-0000-0000-0000-000000000000',
      'ovsdb.initial_rows': 0,
    });
    expect(sync!.parentSpanContext?.spanId).toBe(connectSpan.spanId);
    expect(sync!.spanContext().traceId).toBe(connectSpan.traceId);
    expect(sync!.status.code).toBe(api.SpanStatusCode.UNSET);
  });

  describe('transact', () => {
    beforeEach(() => exporter.reset());

    it('gets a span with the database, operations, tables, outcome, attempts and replays', async () => {
      await db.transact((tx) => {
        tx.insert('Item', { name: 't-1', n: 1 });
        tx.insert('Item', { name: 't-2', n: 2 });
        tx.update('Root', [], { connections: [] });
      });
      const [span, ...more] = spans('ovsdb.transact');
      expect(more).toEqual([]);
      expect(span!.kind).toBe(api.SpanKind.CLIENT);
      expect(span!.attributes).toEqual({
        'db.system.name': 'ovsdb',
        'db.namespace': 'Test',
        'db.operation.name': 'transact',
        'ovsdb.operations': 3,
        'ovsdb.tables': ['Item', 'Root'],
        'ovsdb.outcome': 'committed',
        'ovsdb.attempts': 1,
        'ovsdb.replays': 0,
      });
      expect(span!.status.code).toBe(api.SpanStatusCode.UNSET);
      expect(span!.events).toEqual([]);
      // No caller span: a root.
      expect(span!.parentSpanContext).toBeUndefined();
    });

    it('records a failed transaction: the exception, status ERROR and the outcome', async () => {
      const e = await db
        .transact((tx) => {
          tx.insert('Item', { name: 't-1', n: 3 });
        })
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(DuplicateIndexError);
      const [span] = spans('ovsdb.transact');
      expect(span!.status).toEqual({
        code: api.SpanStatusCode.ERROR,
        message: (e as Error).message,
      });
      expect(span!.attributes['ovsdb.outcome']).toBe('failed');
      expect(span!.attributes['ovsdb.attempts']).toBe(1);
      expect(span!.events.map((ev) => ev.name)).toEqual(['exception']);
      expect(span!.events[0]!.attributes).toMatchObject({
        'exception.type': 'DuplicateIndexError',
        'exception.message': (e as Error).message,
      });
    });

    it("is a child of the caller's active span", async () => {
      let parent!: OtelApi.SpanContext;
      await tracer.startActiveSpan('reconcile', async (span) => {
        parent = span.spanContext();
        await db.transact((tx) => {
          tx.insert('Item', { name: 't-3', n: 3 });
        });
        await db.transact((tx) => {
          tx.insert('Item', { name: 't-4', n: 4 });
        });
        span.end();
      });
      const children = spans('ovsdb.transact');
      expect(children).toHaveLength(2);
      for (const child of children) {
        expect(child.parentSpanContext?.spanId).toBe(parent.spanId);
        expect(child.spanContext().traceId).toBe(parent.traceId);
      }
      expect(spans('reconcile')).toHaveLength(1);
    });

    it('makes its own span active while it runs (nothing leaks into the next)', async () => {
      await db.transact((tx) => {
        tx.insert('Item', { name: 't-5', n: 5 });
      });
      expect(api.trace.getActiveSpan()).toBeUndefined();
      const [span] = spans('ovsdb.transact');
      expect(span!.parentSpanContext).toBeUndefined();
    });
  });

  it('traces the resync after a reconnect: a resume with found true', async () => {
    exporter.reset();
    const resynced = nextResync(db);
    db.reconnect('test');
    await resynced;
    const [sync, ...more] = spans('ovsdb.monitor.sync');
    expect(more).toEqual([]);
    expect(sync!.attributes).toMatchObject({
      'ovsdb.monitor': 'default',
      'ovsdb.method': 'monitor_cond_since',
      'ovsdb.found': true,
      'ovsdb.initial_rows': 0,
    });
    expect(sync!.attributes['ovsdb.from_txn_id']).not.toBe('00000000-0000-0000-0000-000000000000');
  });
});

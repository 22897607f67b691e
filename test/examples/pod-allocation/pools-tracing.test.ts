/**
 * Controller tracing with an OpenTelemetry tracer (InMemorySpanExporter,
 * BasicTracerProvider, SimpleSpanProcessor, and AsyncLocalStorage as the
 * global context manager), against both servers: one pod reconcile and one
 * pool reconcile each give a span with `ipam.lease` and `nb.transact`
 * children; a failing pod and a failing pool have error status and the
 * exception recorded.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterTopology } from '../../../examples/pod-allocation/controller/index.js';
import { requirePackage } from '../../client/metrics-require.js';
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';
import { NB_SCHEMA } from './helpers.js';
import { poolRig } from './pools-rig.js';

// Loaded as a Node program loads them (see metrics-require.ts), one API instance for all.
const api = requirePackage('@opentelemetry/api') as typeof import('@opentelemetry/api');
const sdk = requirePackage(
  '@opentelemetry/sdk-trace-base',
) as typeof import('@opentelemetry/sdk-trace-base');
const hooks = requirePackage(
  '@opentelemetry/context-async-hooks',
) as typeof import('@opentelemetry/context-async-hooks');

type ReadableSpan = import('@opentelemetry/sdk-trace-base').ReadableSpan;

/** An OpenTelemetry HrTime in nanoseconds. */
const hrNanos = ([seconds, nanos]: readonly [number, number]): bigint =>
  BigInt(seconds) * 1_000_000_000n + BigInt(nanos);

const TOPOLOGY: ClusterTopology = {
  router: 'lr-trace',
  subnets: [{ name: 't', cidr: '10.80.0.0/24' }],
};

const ERROR = 2; // SpanStatusCode.ERROR

function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  return spans.filter(
    (s) =>
      s.parentSpanContext?.spanId === parent.spanContext().spanId &&
      s.spanContext().traceId === parent.spanContext().traceId,
  );
}

describe.each(SERVER_KINDS)('controller tracing against %s', (kind) => {
  const manager = new hooks.AsyncLocalStorageContextManager();
  beforeAll(() => {
    expect(api.context.setGlobalContextManager(manager.enable())).toBe(true);
  });
  afterAll(() => {
    api.context.disable();
  });

  it('a span per reconcile with IPAM and NB transaction children; errors on failing ones', async () => {
    const exporter = new sdk.InMemorySpanExporter();
    const provider = new sdk.BasicTracerProvider({
      spanProcessors: [new sdk.SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('pod-allocation-test');
    const server = await startTestServer(kind, { schemaPath: NB_SCHEMA });
    const r = await poolRig(server.unixRemote, TOPOLOGY, {
      controller: { tracer },
      pools: { tracer },
    });
    try {
      r.nodes.add({ name: 'node-0', subnet: 't', minIdle: 2, maxIdle: 4 });
      await r.start();
      let spans = exporter.getFinishedSpans();
      const pool = spans.filter((s) => s.name === 'pool.reconcile');
      expect(pool).toHaveLength(1);
      expect(pool[0]!.attributes['node']).toBe('node-0');
      expect(pool[0]!.parentSpanContext).toBeUndefined();
      expect(childrenOf(spans, pool[0]!).map((s) => s.name)).toEqual(['ipam.lease', 'nb.transact']);
      expect(childrenOf(spans, pool[0]!)[0]!.attributes['count']).toBe(2);
      expect(pool[0]!.status.code).not.toBe(ERROR);
      exporter.reset();

      // One pod start (from the pool), and its node's refill.
      r.pods.add({ namespace: 'default', name: 'web', node: 'node-0' });
      await r.settle();
      spans = exporter.getFinishedSpans();
      const pods = spans.filter((s) => s.name === 'pod.reconcile');
      expect(pods).toHaveLength(1);
      const pod = pods[0]!;
      expect(pod.attributes['pod']).toBe('default/web');
      expect(pod.parentSpanContext).toBeUndefined();
      const kids = childrenOf(spans, pod);
      expect(kids.map((s) => s.name)).toEqual(['ipam.lease', 'nb.transact']);
      expect(kids[0]!.attributes['pool']).toBe(true);
      for (const k of kids) {
        // HrTime is [seconds, nanoseconds]: compared as numbers (`<=` on the arrays compares their text).
        expect(hrNanos(k.startTime) <= hrNanos(k.endTime)).toBe(true);
        expect(childrenOf(spans, k)).toEqual([]);
      }
      expect(pod.status.code).not.toBe(ERROR);
      const refills = spans.filter((s) => s.name === 'pool.reconcile');
      expect(refills.length).toBeGreaterThanOrEqual(1);
      // The refill's transaction is a child of a pool reconcile, not of the pod's.
      const refillTx = refills
        .flatMap((s) => childrenOf(spans, s))
        .filter((s) => s.name === 'nb.transact');
      expect(refillTx).toHaveLength(1);
      exporter.reset();

      // A pod with a bad annotation, and a node with bad bounds: error status, exception recorded.
      r.pods.add({
        namespace: 'default',
        name: 'broken',
        node: 'node-0',
        annotations: { 'ovn.kubernetes.io/ip_address': 'not-an-ip' },
      });
      r.nodes.add({ name: 'node-bad', subnet: 't', minIdle: 3, maxIdle: 1 });
      await r.settle();
      spans = exporter.getFinishedSpans();
      const failedPod = spans.find(
        (s) => s.name === 'pod.reconcile' && s.attributes['pod'] === 'default/broken',
      );
      expect(failedPod?.status.code).toBe(ERROR);
      expect(failedPod?.status.message).toMatch(/ip_address="not-an-ip"/);
      expect(failedPod?.events.map((e) => e.name)).toContain('exception');
      expect(childrenOf(spans, failedPod!)).toEqual([]); // failed before the IPAM
      const failedPool = spans.find(
        (s) => s.name === 'pool.reconcile' && s.attributes['node'] === 'node-bad',
      );
      expect(failedPool?.status.code).toBe(ERROR);
      expect(failedPool?.status.message).toMatch(/minIdle=3 is above maxIdle 1/);
      expect(
        failedPool?.events.find((e) => e.name === 'exception')?.attributes?.['exception.type'],
      ).toBe('PoolBoundsError');
    } finally {
      await r.close();
      await server.stop();
      await provider.shutdown();
    }
  });
});

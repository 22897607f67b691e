/**
 * WO: what metrics and tracing cost on W1 and W2's ovnkit rows. Each of
 * W1a (sequential one-port transactions), W1b (the same, all at once) and
 * W2 (batches of 1,000 ports, each awaited) runs three times per
 * repetition, interleaved: with neither the `metrics` nor the `tracer`
 * option (`off`), with `metrics` only (`metrics`: `prometheusMetrics` into a
 * registry of its own), and with both (`on`: those metrics, and a tracer
 * of the OpenTelemetry SDK, `BasicTracerProvider` with a
 * `BatchSpanProcessor` whose exporter drops the spans, under an
 * `AsyncLocalStorageContextManager`). The ratios metrics/off and on/off
 * are paired per repetition (median, min–max). `npm run bench -- --observability` (or
 * `--only WO`) runs it; `--only W1,W2 --observability` runs it in place of
 * W1 and W2.
 *
 * prom-client and the OpenTelemetry packages are loaded by this workload
 * when it runs, never by the others.
 * @module
 */

import { performance } from 'node:perf_hooks';
import { connectDatabase } from '../../src/client/open.js';
import { NB } from '../../src/nb/generated/model.js';
import type { ClientMetrics } from '../../src/observability/metrics.js';
import type { Tracer } from '../../src/observability/tracing.js';
import { finishPorts, openWithSwitch } from '../lib/nb-data.js';
import { addPort, addPorts, portData } from '../lib/ovnkit-side.js';
import { cpuFigure, emptyResult, figure, ratio } from '../lib/results.js';
import type { BenchServer } from '../lib/servers.js';
import type { BenchContext, Figure, Workload, WorkloadResult } from '../lib/types.js';
import { cpuClock, measureVariants, type Variant } from '../lib/variants.js';
import { type CpuSink, withCpu } from './w1-single-port.js';
import { w2Sizes } from './w2-batched.js';

/** The `metrics` and `tracer` options of the `on` rows (`tracer` undefined: metrics only). */
interface Observability {
  readonly metrics: ClientMetrics;
  readonly tracer: Tracer | undefined;
  /**
   * Register a fresh context manager for one `on` sample; returns the
   * function that unregisters it (so that the `off` samples run without
   * AsyncLocalStorage's hooks).
   */
  enter(): () => void;
  /** Spans ended so far (to check that the tracer really traced). */
  spans(): number;
  shutdown(): Promise<void>;
}

/** prom-client metrics and an OpenTelemetry SDK tracer, as a program would set them up. */
async function setUpObservability(): Promise<Observability> {
  const prom = await import('prom-client');
  const api = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { prometheusMetrics } = await import('../../src/observability/prometheus.js');
  let ended = 0;
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new BatchSpanProcessor(
        {
          export(spans, done) {
            ended += spans.length;
            done({ code: 0 });
          },
          shutdown: async () => {},
        },
        { maxQueueSize: 100_000, maxExportBatchSize: 4096, scheduledDelayMillis: 200 },
      ),
    ],
  });
  return {
    metrics: prometheusMetrics(prom, { registry: new prom.Registry() }),
    tracer: provider.getTracer('ovnkit-bench'),
    enter: () => {
      const manager = new AsyncLocalStorageContextManager().enable();
      if (!api.context.setGlobalContextManager(manager)) {
        throw new Error('a context manager is already registered');
      }
      return () => api.context.disable();
    },
    spans: () => ended,
    shutdown: async () => {
      await provider.forceFlush();
      await provider.shutdown();
    },
  };
}

/** A synced client with typed transactions, observed or not. */
async function openClient(remote: string, observe: Observability | undefined) {
  const client = connectDatabase({
    remotes: remote,
    model: NB,
    ...(observe === undefined ? {} : { metrics: observe.metrics }),
    ...(observe?.tracer === undefined ? {} : { tracer: observe.tracer }),
  });
  await client.ready;
  return { client, db: client };
}

/** W1's ovnkit row (one-port transactions), observed or not. LSP/s. */
async function singlePort(
  s: BenchServer,
  n: number,
  pipelined: boolean,
  observe: Observability | undefined,
  onCpu: CpuSink,
): Promise<number> {
  const c = await openWithSwitch(s.socketPath);
  const leave = observe?.tracer === undefined ? undefined : observe.enter();
  const { client, db } = await openClient(s.remote, observe);
  try {
    const ports = portData(0, n);
    const cpu = cpuClock();
    const t0 = performance.now();
    if (pipelined) await Promise.all(ports.map((p) => addPort(db, p)));
    else for (const p of ports) await addPort(db, p);
    const ms = performance.now() - t0;
    onCpu(cpu());
    if (client.count('Logical_Switch_Port') !== n) throw new Error('wrong port count');
    return await finishPorts(c, n, ms, `WO ${pipelined ? 'pipelined' : 'sequential'}`);
  } finally {
    await client.close();
    leave?.();
  }
}

/** W2's ovnkit row (batches, each awaited), observed or not. LSP/s. */
async function batched(
  s: BenchServer,
  ports: number,
  batch: number,
  observe: Observability | undefined,
  onCpu: CpuSink,
): Promise<number> {
  const c = await openWithSwitch(s.socketPath);
  const leave = observe?.tracer === undefined ? undefined : observe.enter();
  const { client, db } = await openClient(s.remote, observe);
  try {
    const batches: ReturnType<typeof portData>[] = [];
    for (let i = 0; i < ports; i += batch) batches.push(portData(i, Math.min(batch, ports - i)));
    const cpu = cpuClock();
    const t0 = performance.now();
    for (const b of batches) await addPorts(db, b);
    const ms = performance.now() - t0;
    onCpu(cpu());
    if (client.count('Logical_Switch_Port') !== ports) throw new Error('wrong port count');
    return await finishPorts(c, ports, ms, 'WO batched');
  } finally {
    await client.close();
    leave?.();
  }
}

/** WO. */
export const wo: Workload = {
  id: 'WO',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const n = ctx.quick ? 200 : 5000;
    const { ports, batch } = w2Sizes(ctx.quick);
    const result = emptyResult(
      'WO',
      `metrics + tracing on vs off: W1 (${n} one-port transactions, sequential and pipelined) and W2 (${ports} LSPs in transactions of ${batch}), ovnkit's rows, ovsdb-server NB 7.18.0`,
    );
    const observe = await setUpObservability();
    const metricsOnly: Observability = { ...observe, tracer: undefined };
    try {
      // Each pair is adjacent, so that its two samples of a repetition are close in time.
      const variants: Variant[] = [
        {
          key: 'WO1a.off',
          sample: (s) => withCpu(n, (k) => singlePort(s, n, false, undefined, k)),
        },
        {
          key: 'WO1a.metrics',
          sample: (s) => withCpu(n, (k) => singlePort(s, n, false, metricsOnly, k)),
        },
        { key: 'WO1a.on', sample: (s) => withCpu(n, (k) => singlePort(s, n, false, observe, k)) },
        {
          key: 'WO1b.off',
          sample: (s) => withCpu(n, (k) => singlePort(s, n, true, undefined, k)),
        },
        {
          key: 'WO1b.metrics',
          sample: (s) => withCpu(n, (k) => singlePort(s, n, true, metricsOnly, k)),
        },
        { key: 'WO1b.on', sample: (s) => withCpu(n, (k) => singlePort(s, n, true, observe, k)) },
        {
          key: 'WO2.off',
          sample: (s) => withCpu(ports, (k) => batched(s, ports, batch, undefined, k)),
        },
        {
          key: 'WO2.metrics',
          sample: (s) => withCpu(ports, (k) => batched(s, ports, batch, metricsOnly, k)),
        },
        {
          key: 'WO2.on',
          sample: (s) => withCpu(ports, (k) => batched(s, ports, batch, observe, k)),
        },
      ];
      const samples = await measureVariants(ctx, 'WO', variants);
      await observe.shutdown();
      const transactions = ctx.reps * (2 * n + Math.ceil(ports / batch));
      if (observe.spans() < transactions) {
        throw new Error(`the tracer ended ${observe.spans()} spans, fewer than ${transactions}`);
      }
      const rows: [string, string][] = [
        ['WO1a', 'W1a sequential'],
        ['WO1b', 'W1b pipelined'],
        ['WO2', 'W2 batched'],
      ];
      for (const [w, what] of rows) {
        const f = (key: string, subject: string): Figure =>
          figure(key, subject, 'LSP/s', samples.get(key) ?? []);
        const off = f(`${w}.off`, `ovnkit ${what}, no metrics or tracer`);
        const met = f(`${w}.metrics`, `ovnkit ${what}, prometheusMetrics only`);
        const on = f(`${w}.on`, `ovnkit ${what}, prometheusMetrics + OpenTelemetry tracer`);
        const cpu = new Map<Figure, Figure>();
        for (const x of [off, met, on]) {
          result.figures.push(x);
          const c = cpuFigure(x, samples.cpu.get(x.id));
          if (c) {
            result.figures.push(c);
            cpu.set(x, c);
          }
        }
        result.ratios.push(
          ratio('metrics/off', met, off, '>=', 0.95, 'throughput with metrics, paired'),
          ratio('on/off', on, off, '>=', 0.9, 'throughput with metrics and tracing, paired'),
        );
        const [cOff, cMet, cOn] = [cpu.get(off), cpu.get(met), cpu.get(on)];
        if (cOff && cMet && cOn) {
          result.ratios.push(
            ratio('cpu metrics/off', cMet, cOff, '<=', 1.1, 'client CPU per LSP'),
            ratio('cpu on/off', cOn, cOff, '<=', 1.25, 'client CPU per LSP'),
          );
        }
      }
      return result;
    } finally {
      await observe.shutdown().catch(() => {});
    }
  },
};

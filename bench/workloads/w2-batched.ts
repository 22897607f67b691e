/**
 * W2: 100,000 logical switch ports in transactions of 1,000 (each awaited),
 * each transaction inserting its ports and adding them all to one switch.
 * Measured for ovnkit (typed builder over `connectDatabase`), the bare
 * `OvsdbConnection`, the raw client, Go's libovsdb and ovsdbapp (fewer
 * ports; a rate), each with its client CPU time per port; the ratios pair
 * the subjects' samples per repetition.
 * @module
 */

import { performance } from 'node:perf_hooks';
import { batchOps, finishPorts, openWithSwitch, SWITCH, transactText } from '../lib/nb-data.js';
import {
  AS_OVNKIT,
  addPorts,
  type BareMonitor,
  bareOps,
  bareTransact,
  monitorBare,
  openBare,
  openOvnkit,
  portData,
} from '../lib/ovnkit-side.js';
import {
  contextRatio,
  cpuFigure,
  cpuVs,
  emptyResult,
  figure,
  ratio,
  times,
} from '../lib/results.js';
import type { BenchServer } from '../lib/servers.js';
import type { BenchContext, Figure, Workload, WorkloadResult } from '../lib/types.js';
import { cpuClock, measureVariants, type Variant } from '../lib/variants.js';
import { ovsdbappBatched, ovsdbappStatus } from '../peers/ovsdbapp.js';
import {
  type CpuSink,
  libovsdbFor,
  libovsdbWrites,
  peersRequired,
  withCpu,
} from './w1-single-port.js';

/**
 * The bare connection, optionally with a `monitor_cond` of every table (see
 * W1): what monitoring costs the server and the socket. LSP/s.
 */
async function bareBatched(
  s: BenchServer,
  ports: number,
  batch: number,
  monitor: BareMonitor,
  onCpu?: CpuSink,
): Promise<number> {
  const c = await openWithSwitch(s.socketPath);
  const conn = await openBare(s.remote);
  try {
    await monitorBare(conn, monitor);
    const ops: Record<string, unknown>[][] = [];
    for (let i = 0; i < ports; i += batch) {
      const o = batchOps(i, Math.min(batch, ports - i));
      ops.push(bareOps(monitor, o));
    }
    const cpu = cpuClock();
    const t0 = performance.now();
    for (const o of ops) await bareTransact(conn, o);
    const ms = performance.now() - t0;
    onCpu?.(cpu());
    return await finishPorts(c, ports, ms, 'bare batched');
  } finally {
    conn.close();
  }
}

/** W2's sizes. */
export function w2Sizes(quick: boolean): { ports: number; batch: number } {
  return { ports: quick ? 5000 : 100_000, batch: 1000 };
}

/** Raw client: pre-serialized batches, each awaited. LSP/s. */
export async function rawBatched(
  server: BenchServer,
  ports: number,
  batch: number,
  onCpu?: CpuSink,
): Promise<number> {
  const c = await openWithSwitch(server.socketPath);
  const requests: string[] = [];
  for (let start = 0; start < ports; start += batch) {
    requests.push(transactText(batchOps(start, Math.min(batch, ports - start)), start));
  }
  const base = c.count;
  const cpu = cpuClock();
  const t0 = performance.now();
  for (let k = 0; k < requests.length; k++) {
    c.write(requests[k]!);
    await c.until(base + k + 1);
  }
  const ms = performance.now() - t0;
  onCpu?.(cpu());
  return finishPorts(c, ports, ms, 'raw batched');
}

/** W2. */
export const w2: Workload = {
  id: 'W2',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const { ports, batch } = w2Sizes(ctx.quick);
    const appPorts = Number(process.env['BENCH_OVSDBAPP_W2_PORTS'] ?? (ctx.quick ? 2000 : 20_000));
    const result = emptyResult(
      'W2',
      `${ports} LSPs in transactions of ${batch}, each awaited, ovsdb-server NB 7.18.0`,
    );
    // Ratio pairs are neighbours in this order (ovnkit beside raw and beside libovsdb).
    const variants: Variant[] = [
      {
        key: 'W2.raw',
        warmUp: true,
        sample: (s) => withCpu(ports, (k) => rawBatched(s, ports, batch, k)),
      },
      {
        key: 'W2.ovnkit',
        warmUp: true,
        sample: (s) =>
          withCpu(ports, async (onCpu) => {
            const c = await openWithSwitch(s.socketPath);
            const session = await openOvnkit(s.remote);
            try {
              const batches: ReturnType<typeof portData>[] = [];
              for (let i = 0; i < ports; i += batch)
                batches.push(portData(i, Math.min(batch, ports - i)));
              const cpu = cpuClock();
              const t0 = performance.now();
              for (const b of batches) await addPorts(session.db, b);
              const ms = performance.now() - t0;
              onCpu(cpu());
              const seen = session.client.count('Logical_Switch_Port');
              if (seen !== ports) throw new Error(`ovnkit replica has ${seen} ports, not ${ports}`);
              return await finishPorts(c, ports, ms, 'ovnkit batched');
            } finally {
              await session.close();
            }
          }),
      },
    ];
    const go = libovsdbFor(ctx, result, ['W2']);
    if (go !== undefined)
      variants.push({
        key: 'W2.libovsdb',
        sample: (s) => libovsdbWrites(go, s, 'w2', ports, { batch }),
      });
    variants.push(
      {
        key: 'W2.bare-monitored',
        warmUp: true,
        sample: (s) => withCpu(ports, (k) => bareBatched(s, ports, batch, 'everything', k)),
      },
      {
        key: 'W2.bare-as-ovnkit',
        warmUp: true,
        sample: (s) => withCpu(ports, (k) => bareBatched(s, ports, batch, 'as-ovnkit', k)),
      },
      {
        key: 'W2.bare',
        warmUp: true,
        sample: (s) => withCpu(ports, (k) => bareBatched(s, ports, batch, 'none', k)),
      },
    );
    const app = ovsdbappStatus();
    if (app.ok) {
      variants.push({
        key: 'W2.ovsdbapp',
        async sample(s) {
          const c = await openWithSwitch(s.socketPath);
          const r = await ovsdbappBatched(ctx.root, s.remote, SWITCH, appPorts, batch);
          const value = await finishPorts(c, appPorts, r.seconds * 1000, 'ovsdbapp batched');
          return { value, cpuUsPerOp: (r.cpuSeconds * 1e6) / appPorts };
        },
      });
    } else if (peersRequired()) {
      throw new Error(app.reason);
    } else {
      result.skipped.push({ workload: 'W2', subject: 'ovsdbapp batched', reason: app.reason });
    }
    const samples = await measureVariants(ctx, 'W2', variants);
    const push = (...figures: Figure[]) => {
      for (const x of figures) {
        result.figures.push(x);
        const cpu = cpuFigure(x, samples.cpu.get(x.id));
        if (cpu) result.figures.push(cpu);
      }
    };
    const raw = figure('W2.raw', 'raw client', 'LSP/s', samples.get('W2.raw')!);
    const ovnkit = figure(
      'W2.ovnkit',
      'ovnkit connectDatabase + typed builder',
      'LSP/s',
      samples.get('W2.ovnkit')!,
    );
    const bare = figure(
      'W2.bare',
      'ovnkit bare OvsdbConnection.transact',
      'LSP/s',
      samples.get('W2.bare')!,
    );
    const monitored = figure(
      'W2.bare-monitored',
      'bare connection + monitor_cond of every table (no replica)',
      'LSP/s',
      samples.get('W2.bare-monitored')!,
    );
    const asOvnkit = figure(
      'W2.bare-as-ovnkit',
      AS_OVNKIT,
      'LSP/s',
      samples.get('W2.bare-as-ovnkit')!,
    );
    push(raw, ovnkit, bare, monitored, asOvnkit);
    result.ratios.push(
      ratio(
        'ovnkit/raw',
        ovnkit,
        raw,
        '>=',
        0.85,
        `monitoring alone: bare-monitored/raw ${times(monitored, raw)}; ovnkit/bare-monitored ${times(ovnkit, monitored)}`,
      ),
      ratio(
        'ovnkit/bare-as-ovnkit',
        ovnkit,
        asOvnkit,
        '>=',
        0.9,
        cpuVs(result.figures, ovnkit, asOvnkit),
      ),
      contextRatio('ovnkit/bare-monitored', ovnkit, monitored),
      contextRatio('bare-as-ovnkit/bare-monitored', asOvnkit, monitored),
    );
    const goSamples = samples.get('W2.libovsdb');
    if (goSamples) {
      const lib = figure(
        'W2.libovsdb',
        'libovsdb (Go) MonitorAll + Create/Mutate',
        'LSP/s',
        goSamples,
      );
      push(lib);
      result.ratios.push(
        ratio(
          'ovnkit/libovsdb',
          ovnkit,
          lib,
          '>=',
          2,
          `${cpuVs(result.figures, ovnkit, lib)}; a client with no work of its own asking what ovnkit asks: bare-as-ovnkit/libovsdb ${times(asOvnkit, lib)}`,
        ),
      );
    }
    const appSamples = samples.get('W2.ovsdbapp');
    if (appSamples) {
      push(
        figure('W2.ovsdbapp', 'ovsdbapp, 1,000 ports per transaction', 'LSP/s', appSamples, {
          note: `first ${appPorts} ports only`,
        }),
      );
    }
    return result;
  },
};

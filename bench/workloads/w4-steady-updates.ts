/**
 * W4: steady-state updates. A database of ports is populated (untimed); a
 * second client (its own process) commits 5,000 warm-up updates (untimed,
 * applied by the observer before the clock starts: see `w4-child.ts`), then
 * one `external_ids` update per port, one row per transaction, pipelined;
 * the time from the first timed commit
 * to the observer having applied all of them is measured for ovnkit's
 * replica and for a raw monitor that only frames and parses the `update2`
 * notifications, with the observer's CPU time per update. Each observer runs
 * in a fresh process on a fresh server; the two alternate within each
 * repetition and the ratio pairs them per repetition.
 * @module
 */

import { runTsChild } from '../lib/child.js';
import { populatePorts } from '../lib/nb-data.js';
import { RawClient } from '../lib/raw-client.js';
import { cpuFigure, emptyResult, figure, ratio } from '../lib/results.js';
import type { BenchServer } from '../lib/servers.js';
import type { BenchContext, Workload, WorkloadResult } from '../lib/types.js';
import { type MeasuredSample, measureVariants } from '../lib/variants.js';

async function observe(
  ctx: BenchContext,
  s: BenchServer,
  mode: string,
  n: number,
): Promise<MeasuredSample> {
  const c = await RawClient.open(s.socketPath);
  try {
    await populatePorts(c, n);
  } finally {
    c.close();
  }
  const r = await runTsChild<{ ms: number; cpuUs: number }>(
    ctx.root,
    'bench/workloads/w4-child.ts',
    [mode, s.socketPath, String(n)],
  );
  return { value: r.ms, cpuUsPerOp: r.cpuUs / n };
}

/** W4. */
export const w4: Workload = {
  id: 'W4',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const n = ctx.quick ? 1000 : 20_000;
    const result = emptyResult(
      'W4',
      `${n} single-row external_ids updates by a second client (pipelined) over ${n} LSPs, ovsdb-server NB 7.18.0`,
    );
    const samples = await measureVariants(ctx, 'W4', [
      { key: 'W4.raw', sample: (s) => observe(ctx, s, 'raw', n) },
      { key: 'W4.ovnkit', sample: (s) => observe(ctx, s, 'replica', n) },
    ]);
    const raw = figure(
      'W4.raw',
      'raw monitor (frame + JSON.parse of update2)',
      'ms',
      samples.get('W4.raw')!,
    );
    const ovnkit = figure(
      'W4.ovnkit',
      'ovnkit replica (connectDatabase) applied all',
      'ms',
      samples.get('W4.ovnkit')!,
    );
    result.figures.push(raw, ovnkit);
    for (const x of [raw, ovnkit]) {
      const c = cpuFigure(x, samples.cpu.get(x.id), 'update');
      if (c) result.figures.push(c);
    }
    result.ratios.push(ratio('time ovnkit/raw', ovnkit, raw, '<=', 1.15));
    return result;
  },
};

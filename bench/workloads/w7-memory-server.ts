/**
 * W7: ovnkit's in-memory server (`ovnkit-server`, its own process) against
 * the real `ovsdb-server`, with the raw client on W1b (one-port
 * transactions, pipelined) and W2 (ports in transactions of 1,000, each
 * awaited). Ratio in-memory ÷ real throughput, target ≥ 0.5.
 * @module
 */

import { emptyResult, figure, ratio } from '../lib/results.js';
import type { BenchContext, Workload, WorkloadResult } from '../lib/types.js';
import { measureVariants } from '../lib/variants.js';
import { rawPipelined } from './w1-single-port.js';
import { rawBatched, w2Sizes } from './w2-batched.js';

/** W7. */
export const w7: Workload = {
  id: 'W7',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const n = ctx.quick ? 200 : 5000;
    const { ports, batch } = w2Sizes(ctx.quick);
    const result = emptyResult(
      'W7',
      `in-memory server (ovnkit-server process) vs ovsdb-server, raw client: W1b ${n} txns pipelined, W2 ${ports} LSPs by ${batch}`,
    );
    const s = await measureVariants(ctx, 'W7', [
      { key: 'W7.W1b.real', server: 'ovsdb-server', sample: (x) => rawPipelined(x, n) },
      { key: 'W7.W1b.memory', server: 'memory', sample: (x) => rawPipelined(x, n) },
      { key: 'W7.W2.real', server: 'ovsdb-server', sample: (x) => rawBatched(x, ports, batch) },
      { key: 'W7.W2.memory', server: 'memory', sample: (x) => rawBatched(x, ports, batch) },
    ]);
    const f = (key: string, subject: string) => figure(key, subject, 'LSP/s', s.get(key)!);
    const w1Real = f('W7.W1b.real', 'ovsdb-server, raw client, W1b pipelined');
    const w1Mem = f('W7.W1b.memory', 'in-memory server, raw client, W1b pipelined');
    const w2Real = f('W7.W2.real', 'ovsdb-server, raw client, W2 batched');
    const w2Mem = f('W7.W2.memory', 'in-memory server, raw client, W2 batched');
    result.figures.push(w1Real, w1Mem, w2Real, w2Mem);
    result.ratios.push(
      ratio('W1b memory/real', w1Mem, w1Real, '>=', 0.5),
      ratio('W2 memory/real', w2Mem, w2Real, '>=', 0.5),
    );
    return result;
  },
};

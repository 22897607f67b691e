/**
 * W6: the pod controller of the example layer, pods reconciled per second
 * for 5,000 pods against a fresh ovsdb-server, through
 * `benchPodController` of `examples/pod-allocation/bench.ts`. When that
 * module is missing the row is reported as skipped, never estimated.
 * @module
 */

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { emptyResult, figure } from '../lib/results.js';
import { withServer } from '../lib/servers.js';
import { repeat } from '../lib/stats.js';
import type { BenchContext, Workload, WorkloadResult } from '../lib/types.js';

/** The example's entry point. */
type BenchPodController = (options: {
  remote: string;
  pods: number;
  concurrency?: number;
}) => Promise<{ pods: number; seconds: number; podsPerSecond: number }>;

const MODULE = 'examples/pod-allocation/bench.ts';

/** W6. */
export const w6: Workload = {
  id: 'W6',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const pods = ctx.quick ? 200 : 5000;
    const result = emptyResult(
      'W6',
      `pod controller, ${pods} pods (${MODULE}), ovsdb-server NB 7.18.0`,
    );
    const file = join(ctx.root, MODULE);
    if (!existsSync(file)) {
      result.skipped.push({
        workload: 'W6',
        subject: 'pods reconciled per second',
        reason: `not available: ${MODULE} missing`,
      });
      return result;
    }
    const mod = (await import(pathToFileURL(file).href)) as { benchPodController?: unknown };
    if (typeof mod.benchPodController !== 'function') {
      throw new Error(`${MODULE} does not export a benchPodController function`);
    }
    const bench = mod.benchPodController as BenchPodController;
    const rates = await repeat(ctx.reps, (rep) =>
      withServer('ovsdb-server', ctx.root, async (s) => {
        const r = await bench({ remote: s.remote, pods });
        if (r.pods !== pods)
          throw new Error(`pod controller reconciled ${r.pods} pods, not ${pods}`);
        ctx.log(`W6 rep ${rep + 1}/${ctx.reps}: ${r.podsPerSecond.toFixed(0)} pods/s`);
        return r.podsPerSecond;
      }),
    );
    result.figures.push(figure('W6.ovnkit', 'pod controller (example layer)', 'pods/s', rates));
    return result;
  },
};

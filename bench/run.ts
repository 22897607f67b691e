/**
 * The benchmark harness: `npm run bench [-- --quick] [-- --only W1,W3]`.
 *
 * Runs W1–W10, WH and WX (the heap of a pending transaction, one huge
 * transaction) and WT (the test kit's per-test cost; see
 * `bench/workloads/`), each against fresh real
 * `ovsdb-server`s (NB 7.18.0, Unix socket) and, for W7, W8 and W9, ovnkit's
 * in-memory server in its own process (W8 and W9 with database files; W8
 * serves NB and SB to `ovn-northd`). The
 * peers are a raw client, Go's libovsdb (built offline on first use, see
 * `bench/peers/libovsdb.ts`), Python's ovsdbapp and `ovn-nbctl`. Every
 * measurement is repeated (5 times, or `--reps N`; the median is reported
 * and every sample kept), the subjects of a workload interleaved within
 * each repetition; a ratio is the median of the per-repetition ratios (with
 * their min–max, and the ratio of the medians beside it), judged against
 * its target. Subjects also report their client CPU time per operation,
 * and every workload the load average at its start and end.
 * Prints a Markdown table on stdout, progress on stderr, and writes
 * `bench/results/latest.json` (`quick.json` with `--quick`, or `--out FILE`).
 *
 * `--quick`: every workload at a small size, one repetition; nothing is
 * asserted about speed, but the run fails (exit 1) when a workload breaks.
 *
 * `--observability`: W1 and W2's ovnkit rows with metrics and tracing on
 * vs off (workload WO, `bench/workloads/wo-observability.ts`), in place of
 * W1 and W2 (`--only W1,W2 --observability`), or alone. `--only WO` also
 * selects it; a run without either leaves it out.
 *
 * `--scale`: the scaling bench instead (`bench/scale.ts`): per-transaction
 * costs and RSS of ovsdb-server and ovnkit-server at 10k, 100k and 500k ports.
 * @module
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadAverage, machineInfo } from './lib/machine.js';
import { loadSpan, renderTable } from './lib/table.js';
import type { BenchContext, Workload, WorkloadResult } from './lib/types.js';
import { runScale } from './scale.js';
import { w1 } from './workloads/w1-single-port.js';
import { w2 } from './workloads/w2-batched.js';
import { w3 } from './workloads/w3-initial-sync.js';
import { w4 } from './workloads/w4-steady-updates.js';
import { w5 } from './workloads/w5-codegen.js';
import { w6 } from './workloads/w6-pod-controller.js';
import { w7 } from './workloads/w7-memory-server.js';
import { w8 } from './workloads/w8-northd.js';
import { w9 } from './workloads/w9-durability.js';
import { w10 } from './workloads/w10-desired.js';
import { wh } from './workloads/wh-pending-heap.js';
import { wo } from './workloads/wo-observability.js';
import { wt } from './workloads/wt-test-kit.js';
import { wx } from './workloads/wx-huge-transaction.js';

const WORKLOADS: readonly Workload[] = [w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, wh, wx, wo, wt];
/** Run only when asked for (`--only WO`, `--observability`). */
const ON_REQUEST = new Set(['WO']);

const ROOT = resolve(import.meta.dirname, '..');

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  if (i >= 0) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`${name}=`));
  return eq?.slice(name.length + 1);
}

async function main(): Promise<number> {
  const quick = process.argv.includes('--quick');
  const observability = process.argv.includes('--observability');
  let only = argValue('--only')
    ?.split(',')
    .map((s) => s.trim().toUpperCase())
    .filter((s) => s !== '');
  if (observability) {
    // WO measures W1 and W2's ovnkit rows on vs off: it replaces them.
    only = [...(only ?? []).filter((id) => id !== 'W1' && id !== 'W2'), 'WO'];
  }
  const reps = Number(argValue('--reps') ?? (quick ? 1 : 5));
  const out = resolve(
    argValue('--out') ??
      join(
        ROOT,
        'bench/results',
        `${process.argv.includes('--observability') ? 'observability-' : ''}${quick ? 'quick' : 'latest'}.json`,
      ),
  );
  const unknown = only?.filter((id) => !WORKLOADS.some((w) => w.id === id)) ?? [];
  if (unknown.length > 0 || !Number.isInteger(reps) || reps < 1) {
    console.error(
      `usage: bench/run.ts [--quick] [--only W1,W3] [--observability] [--reps N] [--out FILE]` +
        (unknown.length > 0 ? `\nunknown workload(s): ${unknown.join(', ')}` : ''),
    );
    return 2;
  }
  const started = performance.now();
  const ctx: BenchContext = {
    quick,
    reps,
    root: ROOT,
    log: (m) => {
      const t = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
      process.stderr.write(`[bench ${t}s] ${m}\n`);
    },
  };
  const machine = machineInfo();
  const date = new Date().toISOString();
  ctx.log(
    `${quick ? 'quick run' : 'full run'}, ${reps} repetition(s); ${machine.cpus} × ${machine.model}, ` +
      `load ${machine.loadAverage.join(' ')}`,
  );
  const results: WorkloadResult[] = [];
  const failures: { id: string; error: string }[] = [];
  for (const w of WORKLOADS) {
    if (only ? !only.includes(w.id) : ON_REQUEST.has(w.id)) continue;
    const loadStart = loadAverage();
    ctx.log(`${w.id} starting, load ${loadStart.join(' ')}`);
    const t0 = performance.now();
    try {
      const r = await w.run(ctx);
      r.wallSeconds = (performance.now() - t0) / 1000;
      r.loadAverageStart = loadStart;
      r.loadAverageEnd = loadAverage();
      results.push(r);
      ctx.log(`${w.id} done in ${r.wallSeconds.toFixed(1)} s, load ${r.loadAverageEnd.join(' ')}`);
    } catch (e) {
      const error = e instanceof Error ? (e.stack ?? e.message) : String(e);
      failures.push({ id: w.id, error });
      ctx.log(`${w.id} FAILED: ${error}`);
    }
  }
  const wallSeconds = (performance.now() - started) / 1000;
  const report = {
    date,
    quick,
    reps,
    wallSeconds,
    machine: { ...machine, loadAverageStart: machine.loadAverage, loadAverageEnd: loadAverage() },
    workloads: results,
    failures,
  };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `ovnkit benchmarks, ${date}, ${machine.cpus} × ${machine.model}, load ` +
      `${machine.loadAverage.join(' ')} → ${loadAverage().join(' ')}; node ${machine.versions['node']}, ` +
      `${machine.versions['ovsdbServer']}, ${machine.versions['ovn']}, ` +
      `${machine.versions['python']}, ovsdbapp ${machine.versions['ovsdbapp']}` +
      `, libovsdb ${machine.versions['libovsdb']} (${machine.versions['go']})` +
      `${quick ? ' (quick: small sizes, speed not meaningful)' : ''}; medians of ${reps}`,
  );
  console.log('');
  for (const r of results)
    console.log(`- ${r.id}: ${r.title} (${r.wallSeconds.toFixed(0)} s, load ${loadSpan(r)})`);
  console.log('');
  console.log(renderTable(results));
  for (const f of failures) console.log(`\n${f.id} FAILED: ${f.error.split('\n')[0]}`);
  console.log(`\nwall time ${wallSeconds.toFixed(0)} s; results in ${out}`);
  return failures.length > 0 ? 1 : 0;
}

process.exitCode = process.argv.includes('--scale') ? await runScale(ROOT, argValue) : await main();

/**
 * The scaling bench: `npm run bench -- --scale [--sizes 10000,100000,500000]
 * [--reps 5] [--txns 1000] [--series PREFIX,…] [--out FILE] [--quick]`. Not
 * part of CI.
 *
 * Populates, at every size N, a fresh ovsdb-server and a fresh
 * ovnkit-server (its own process, as in W7) with N Logical_Switch_Ports in
 * N/250 switches (NB 7.18.0), keeps them all running, and then samples every
 * series ({@link ALL_SERIES}; `--series sync` only those whose id starts
 * with `sync`) at every size in every repetition, the subjects of
 * a series back to back in alternating order. So the ratios between
 * subjects are paired (measured within seconds of each other on a shared,
 * noisy machine), and so are the growth ratios between sizes (within one
 * repetition). One untimed round runs first.
 *
 * Prints the medians per size, the growth from the smallest size to each
 * larger one, the paired ratios, and the acceptance checks (at 500k); writes every sample to
 * `bench/results/scale.json` (or `--out`) and the curves to
 * `bench/results/scale.svg` (the JSON file's name with `.svg`). `--quick`: sizes 1,000
 * and 5,000, one repetition, 50 transactions (a smoke test; the numbers mean
 * nothing).
 *
 * The client rows (`bench/workloads/scale-client.ts`): the initial sync of
 * the whole database by ovnkit's `connectDatabase`, a raw client, libovsdb
 * and `ovsdb-client monitor`, against the populated ovsdb-server; after the
 * repetitions, `connectDatabase` with default options over unix and tcp on
 * the largest one. More rows are added by appending series to
 * {@link ALL_SERIES}: see `bench/lib/scale-types.ts`.
 * @module
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadAverage, machineInfo } from './lib/machine.js';
import type { ScaleContext, ScaleSeries, ScaleServer } from './lib/scale-types.js';
import type { ServerKind } from './lib/servers.js';
import { median } from './lib/stats.js';
import { type ChartPanel, renderSvg, sizeLabel } from './lib/svg-chart.js';
import {
  CLIENT_CHARTS,
  CLIENT_SERIES,
  CLIENT_TARGETS,
  defaultOptionsCheck,
} from './workloads/scale-client.js';
import { populate, release, SERVER_SERIES } from './workloads/scale-server.js';

/** Every series the bench can measure, in report order (`--series` picks some). */
export const ALL_SERIES: readonly ScaleSeries[] = [...SERVER_SERIES, ...CLIENT_SERIES];

/**
 * The acceptance targets (issue #25), commit by name on ovnkit-server at
 * 500k ports: at most 2.5 times its cost at the smallest size, and at most
 * ovsdb-server's.
 */
const TARGETS = { size: 500_000, growth: 2.5, versusOvsdb: 1 };

/** Charts: their titles and units, by `ScaleSeries.chart`. */
const CHARTS: Readonly<Record<string, { title: string; yLabel: string }>> = {
  commit: {
    title: 'One transaction, wall time at the client (sequential, raw client)',
    yLabel: 'µs per transaction',
  },
  'commit-cpu': { title: 'One transaction, server CPU time', yLabel: 'µs per transaction' },
  scan: { title: 'Condition no index answers: server CPU per row', yLabel: 'ns per row' },
  rss: { title: 'Server resident memory', yLabel: 'MB' },
  ...CLIENT_CHARTS,
};

/** Samples of one series, subject by subject, size by size, in repetition order. */
type Samples = Map<string, Map<number, number[]>>;

function paired(a: readonly number[], b: readonly number[]): number[] {
  return a.map((x, i) => x / (b[i] as number)).filter(Number.isFinite);
}

function fmt(x: number): string {
  if (!Number.isFinite(x)) return '–';
  if (Math.abs(x) >= 100) return Math.round(x).toLocaleString('en-US');
  if (Math.abs(x) >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

/** Run the scaling bench; returns the exit code. */
export async function runScale(
  root: string,
  arg: (name: string) => string | undefined,
): Promise<number> {
  const quick = process.argv.includes('--quick');
  const sizes = (arg('--sizes') ?? (quick ? '1000,5000' : '10000,100000,500000'))
    .split(',')
    .map((s) => Number(s.trim().replace(/k$/i, '000').replace(/M$/i, '000000')))
    .sort((a, b) => a - b);
  const reps = Number(arg('--reps') ?? (quick ? 1 : 5));
  const txns = Number(arg('--txns') ?? (quick ? 50 : 1000));
  // `--series sync,commit`: only the series whose id starts with one of these.
  const only = arg('--series')
    ?.split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  const SERIES = ALL_SERIES.filter(
    (s) => only === undefined || only.some((p) => s.id.startsWith(p)),
  );
  const out = resolve(
    arg('--out') ?? join(root, 'bench/results', quick ? 'scale-quick.json' : 'scale.json'),
  );
  if (
    sizes.some((n) => !Number.isInteger(n) || n < 1) ||
    !(reps >= 1) ||
    !(txns >= 1) ||
    SERIES.length === 0
  ) {
    console.error(
      'usage: bench/run.ts --scale [--sizes 10000,100000,500000] [--reps N] [--txns N] [--series PREFIX,…] [--out FILE] [--quick]',
    );
    return 2;
  }
  const started = performance.now();
  const ctx: ScaleContext = {
    txns,
    root,
    log: (m) => {
      const t = ((performance.now() - started) / 1000).toFixed(0).padStart(5);
      process.stderr.write(`[scale ${t}s] ${m}\n`);
    },
  };
  const machine = machineInfo();
  const date = new Date().toISOString();
  ctx.log(
    `sizes ${sizes.join(', ')}; ${reps} repetition(s) of ${txns} transactions; load ${machine.loadAverage.join(' ')}`,
  );

  const kinds = [
    ...new Set(SERIES.flatMap((s) => s.subjects.map((x) => x.server))),
  ] as ServerKind[];
  const servers = new Map<string, ScaleServer>();
  const defaultOptions: Awaited<ReturnType<typeof defaultOptionsCheck>> = [];
  const key = (kind: ServerKind, n: number) => `${kind}@${n}`;
  const samples = new Map<string, Samples>(
    SERIES.map((s) => [
      s.id,
      new Map(s.subjects.map((x) => [x.key, new Map(sizes.map((n) => [n, []]))])),
    ]),
  );
  try {
    for (const n of sizes) {
      for (const kind of kinds) {
        ctx.log(`populating ${kind} with ${n} ports`);
        servers.set(key(kind, n), await populate(kind, n, ctx));
      }
    }
    for (let rep = -1; rep < reps; rep++) {
      ctx.log(rep < 0 ? 'warmup round' : `repetition ${rep + 1}/${reps}`);
      for (const n of sizes) {
        for (let si = 0; si < SERIES.length; si++) {
          const series = SERIES[si] as ScaleSeries;
          const order = (rep + si) % 2 === 0 ? series.subjects : [...series.subjects].reverse();
          for (const subject of order) {
            const s = servers.get(key(subject.server, n)) as ScaleServer;
            const v = await series.sample(s, subject, ctx);
            if (rep >= 0) samples.get(series.id)?.get(subject.key)?.get(n)?.push(v);
          }
        }
      }
    }
    // connectDatabase with default options on the largest ovsdb-server, over unix and tcp.
    const largest = servers.get(key('ovsdb-server', sizes[sizes.length - 1] as number));
    if (largest !== undefined && SERIES.some((s) => CLIENT_SERIES.includes(s))) {
      ctx.log(`connectDatabase with default options at ${largest.n} ports, over unix and tcp`);
      defaultOptions.push(...(await defaultOptionsCheck(largest, ctx)));
    }
  } finally {
    for (const s of servers.values()) await release(s);
  }
  const wallSeconds = (performance.now() - started) / 1000;

  // Report.
  const lo = sizes[0] as number;
  const larger = sizes.slice(1);
  // The acceptance size: 500k when measured, else the largest.
  const hi = sizes.includes(TARGETS.size) ? TARGETS.size : (sizes[sizes.length - 1] as number);
  const lines: string[] = [];
  lines.push(
    `ovnkit scaling bench, ${date}, ${machine.cpus} × ${machine.model}, load ${machine.loadAverage.join(' ')} → ${loadAverage().join(' ')}; ` +
      `node ${machine.versions['node']}, ${machine.versions['ovsdbServer']}; medians of ${reps}${quick ? ' (quick: numbers mean nothing)' : ''}`,
  );
  lines.push('');
  lines.push(
    `| Series | Subject | ${sizes.map(sizeLabel).join(' | ')} | Unit | ${larger.map((n) => `${sizeLabel(n)}/${sizeLabel(lo)}`).join(' | ')} |`,
  );
  lines.push(
    `|---|---|${sizes.map(() => '---:').join('|')}|---|${larger.map(() => '---:').join('|')}|`,
  );
  const json: unknown[] = [];
  const ratios: { series: string; ratio: string; n: number; median: number; samples: number[] }[] =
    [];
  for (const series of SERIES) {
    const bySubject = samples.get(series.id) as Samples;
    for (const subject of series.subjects) {
      const bySize = bySubject.get(subject.key) as Map<number, number[]>;
      const growth = larger.map((n) => {
        const g = paired(bySize.get(n) ?? [], bySize.get(lo) ?? []);
        ratios.push({
          series: series.id,
          ratio: `${subject.key} ${n}/${lo}`,
          n,
          median: median(g),
          samples: g,
        });
        return fmt(median(g));
      });
      lines.push(
        `| ${series.id} | ${subject.label} | ${sizes.map((n) => fmt(median(bySize.get(n) ?? []))).join(' | ')} | ${series.unit} | ${growth.join(' | ')} |`,
      );
      json.push({
        series: series.id,
        title: series.title,
        unit: series.unit,
        subject: subject.key,
        samples: Object.fromEntries(sizes.map((n) => [n, bySize.get(n)])),
        median: Object.fromEntries(sizes.map((n) => [n, median(bySize.get(n) ?? [])])),
      });
    }
  }
  lines.push('');
  lines.push(`| Series | Paired ratio | ${sizes.map(sizeLabel).join(' | ')} |`);
  lines.push(`|---|---|${sizes.map(() => '---:').join('|')}|`);
  for (const series of SERIES) {
    if (series.compare === undefined) continue;
    const [a, b] = series.compare;
    const bySubject = samples.get(series.id) as Samples;
    const cells = sizes.map((n) => {
      const r = paired(bySubject.get(a)?.get(n) ?? [], bySubject.get(b)?.get(n) ?? []);
      ratios.push({ series: series.id, ratio: `${a}/${b}`, n, median: median(r), samples: r });
      return fmt(median(r));
    });
    lines.push(`| ${series.id} | ${a} / ${b} | ${cells.join(' | ')} |`);
  }
  const find = (series: string, ratio: string, n: number) =>
    ratios.find((r) => r.series === series && r.ratio === ratio && r.n === n)?.median ?? Number.NaN;
  const present = (id: string) => SERIES.some((s) => s.id === id);
  const checks = ['commit-by-name', 'commit-by-name-cpu'].filter(present).flatMap((id) => {
    const growth = find(id, `ovnkit-server ${hi}/${lo}`, hi);
    const versus = find(id, 'ovnkit-server/ovsdb-server', hi);
    return [
      {
        check: `${id}: ovnkit-server ${sizeLabel(hi)}/${sizeLabel(lo)}`,
        value: growth,
        target: `<= ${TARGETS.growth}`,
        pass: growth <= TARGETS.growth,
      },
      {
        check: `${id}: ovnkit-server/ovsdb-server at ${sizeLabel(hi)}`,
        value: versus,
        target: `<= ${TARGETS.versusOvsdb}`,
        pass: versus <= TARGETS.versusOvsdb,
      },
    ];
  });
  // The client rows: the ovnkit client's own cost per port and its heap per port must not grow.
  for (const [id, target] of [
    ['sync-cpu', CLIENT_TARGETS.growth],
    ['sync-client', CLIENT_TARGETS.growth],
    ['sync-heap', CLIENT_TARGETS.heapGrowth],
  ] as const) {
    if (!present(id)) continue;
    const growth = find(id, `ovnkit ${hi}/${lo}`, hi);
    checks.push({
      check: `${id}: ovnkit per port ${sizeLabel(hi)}/${sizeLabel(lo)}`,
      value: growth,
      target: `<= ${target}`,
      pass: growth <= target,
    });
  }
  for (const d of defaultOptions) {
    checks.push({
      check: `connectDatabase, default options, ${d.remote}, ${sizeLabel(sizes[sizes.length - 1] as number)} ports: ready in ${fmt(d.ms / 1000)} s, ${d.disconnects} disconnections`,
      value: d.ready && d.disconnects === 0 ? 1 : 0,
      target: '= 1 (ready, never disconnected)',
      pass: d.ready && d.disconnects === 0,
    });
  }
  lines.push('');
  for (const c of checks)
    lines.push(`- ${c.check}: ${fmt(c.value)} (target ${c.target}) ${c.pass ? 'PASS' : 'FAIL'}`);
  lines.push(`\nwall time ${wallSeconds.toFixed(0)} s; samples in ${out}`);

  const report = {
    date,
    quick,
    sizes,
    reps,
    txns,
    portsPerSwitch: 250,
    wallSeconds,
    machine: { ...machine, loadAverageStart: machine.loadAverage, loadAverageEnd: loadAverage() },
    series: json,
    ratios,
    checks,
    defaultOptions,
  };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  const panels: ChartPanel[] = Object.entries(CHARTS).flatMap(([chart, c]) => {
    const lines2 = SERIES.filter((s) => s.chart === chart).flatMap((s) =>
      s.subjects.map((x) => ({
        label: `${x.label}${SERIES.filter((t) => t.chart === chart).length > 1 ? `, ${s.id}` : ''}`,
        dashed: x.reference === true,
        points: sizes.map((n) => ({
          x: n,
          y: median(samples.get(s.id)?.get(x.key)?.get(n) ?? []),
        })),
      })),
    );
    return lines2.length === 0
      ? []
      : [
          {
            title: c.title,
            xLabel: 'Logical_Switch_Ports (log scale)',
            yLabel: c.yLabel,
            lines: lines2,
          },
        ];
  });
  const svg = `${out.replace(/\.json$/, '')}.svg`;
  writeFileSync(
    svg,
    renderSvg(
      panels,
      `ovnkit scaling bench, ${date.slice(0, 10)}: medians of ${reps}, N ports in N/250 switches`,
    ),
  );
  console.log(lines.join('\n'));
  console.log(`chart in ${svg}`);
  return 0;
}

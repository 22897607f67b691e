/**
 * W9: commit throughput with a database file, `ovnkit-server` against the
 * real `ovsdb-server` (standalone), both started with ovsdb-server's own
 * command line on a file made by `ovsdb-tool create` (NB 7.18.0), each
 * sample on a fresh file and process, the raw client on a Unix socket:
 *
 * - W9a: sequential inserts of 4 KB rows (a switch whose `external_ids`
 *   holds 4 KB), each awaited; transactions/s of 2,000 after the first
 *   10,000 on the process (steady state; the first 2,000, while V8 compiles
 *   ovnkit-server's hot paths, are reported apart as `W9a.cold`, without a
 *   target).
 * - W9b: W2's batches (ports in transactions of 1,000, each awaited); LSP/s.
 * - W9c: sequential inserts with `"durable": true` (fsync before the
 *   reply), each awaited; transactions/s of 300 after the first 3,000 (the
 *   first 300 as `W9c.cold`).
 * - W9d: restart on W9b's file: from starting the process to the first
 *   answered request (its own load time, from its log, is shown apart); ms.
 *
 * W9a and W9c also run the Node floor (`bench/lib/node-floor-server.mjs`):
 * a Node.js process that only frames, parses, writes the insert's record
 * (SHA-1, one write, `fdatasync` when durable) and replies, with no OVSDB
 * semantics at all. Its rows (`W9a.node-floor`, and ÷ ovsdb-server paired)
 * show where Node itself stands on the workload: what any Node server
 * spends at least.
 *
 * `ovnkit-server` runs as a user runs it: plain `node` on JavaScript, the
 * package's `bin`, from the run's compiled copy of the sources (see
 * `bench/lib/compiled.mjs`: the working tree, never a `dist/` that may be
 * stale); `BENCH_W9_TSX=1` runs `src/server/program/cli.ts`
 * through tsx instead (its start, about half a second of CPU, then counts
 * in W9d, and its source maps in every error stack).
 *
 * Subjects alternate within each repetition (the first one swaps every
 * repetition), and each ratio is the median of the per-repetition paired
 * ratios ovnkit ÷ ovsdb-server (times: ovsdb-server ÷ ovnkit). Target ≥ 1.
 * @module
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import { compileSources } from '../lib/compile-sources.js';
import { DB } from '../lib/nb-data.js';
import { RawClient } from '../lib/raw-client.js';
import { contextRatio, emptyResult, figure, limit } from '../lib/results.js';
import { type BenchServer, NB_SCHEMA, terminate, waitForSocket } from '../lib/servers.js';
import type { BenchContext, Workload, WorkloadResult } from '../lib/types.js';
import { rawBatched, w2Sizes } from './w2-batched.js';

type Subject = 'ovsdb-server' | 'ovnkit-server' | 'node-floor';
const SUBJECTS: readonly Subject[] = ['ovsdb-server', 'ovnkit-server'];
/** The subjects of W9a and W9c: the two servers and the Node floor. */
const WITH_FLOOR: readonly Subject[] = [...SUBJECTS, 'node-floor'];

/** `list` rotated left by `n` (each repetition starts with another subject). */
function rotated<T>(list: readonly T[], n: number): T[] {
  const k = n % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

interface FileServer extends BenchServer {
  readonly dir: string;
  readonly db: string;
  readonly log: string;
  /** The server's process ID. */
  readonly pid: number | undefined;
  /** SIGTERM and wait (the files stay). */
  terminate(): Promise<void>;
}

/**
 * The user + system CPU time process `pid` used so far, in ms, from
 * `/proc/<pid>/stat` (clock ticks of 10 ms); undefined where there is no
 * such file.
 */
function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** How `ovnkit-server` is started: the compiled CLI, or `src/server/program/cli.ts` through tsx. */
let serverCli: string | undefined;

/** Start `subject` on `db` in `dir` with ovsdb-server's command line; resolves once it listens. */
async function start(root: string, subject: Subject, dir: string, db: string): Promise<FileServer> {
  const sock = join(dir, 'db.sock');
  const log = join(dir, 'x.log');
  const args = [
    db,
    `--remote=punix:${sock}`,
    `--unixctl=${join(dir, 'x.ctl')}`,
    `--pidfile=${join(dir, 'x.pid')}`,
    `--log-file=${log}`,
    '-vconsole:off',
  ];
  const proc: ChildProcess =
    subject === 'ovsdb-server'
      ? spawn(requireOvsdbServer(false).ovsdbServer, args, { stdio: 'ignore' })
      : subject === 'node-floor'
        ? spawn(process.execPath, [join(root, 'bench/lib/node-floor-server.mjs'), sock, db], {
            stdio: ['ignore', 'ignore', 'inherit'],
          })
        : spawn(
            process.execPath,
            serverCli === undefined
              ? [
                  '--conditions=ovnkit-source',
                  '--import',
                  'tsx',
                  join(root, 'src/server/program/cli.ts'),
                  ...args,
                ]
              : [serverCli, ...args],
            { stdio: ['ignore', 'ignore', 'inherit'], cwd: root },
          );
  try {
    // Polled every 5 ms: W9d times a restart up to here.
    await waitForSocket(sock, proc, subject, { pollMs: 5, withinMs: 15_000 });
  } catch (e) {
    proc.kill('SIGKILL');
    throw e;
  }
  const stopProcess = () => terminate(proc, 10_000);
  return {
    kind: subject === 'ovsdb-server' ? 'ovsdb-server' : 'memory',
    remote: `unix:${sock}`,
    socketPath: sock,
    dir,
    db,
    log,
    pid: proc.pid,
    terminate: stopProcess,
    async stop() {
      await stopProcess();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh file (`ovsdb-tool create`) and `subject` serving it. */
async function fresh(root: string, subject: Subject): Promise<FileServer> {
  const dir = mkdtempSync(join(tmpdir(), 'ovnkit-bench-w9-'));
  const db = join(dir, 'nb.db');
  if (subject !== 'node-floor') {
    await runTool(requireOvsdbServer(false).ovsdbTool, ['create', db, join(root, NB_SCHEMA)]);
  }
  return start(root, subject, dir, db);
}

/** What {@link sequential} measured. */
interface SequentialSample {
  /** The first `n` transactions on the fresh process, transactions/s. */
  readonly cold: number;
  /** The `n` after the warm-up, transactions/s. */
  readonly warm: number;
  /** The server's CPU time per transaction of those, µs (when known). */
  readonly warmCpuUs: number | undefined;
}

/**
 * Sequential inserts of a switch holding a 4 KB value, each awaited
 * (durable: fsync'ed): the first `n` timed on the freshly started process
 * (cold: V8 compiles ovnkit-server's hot paths meanwhile, and a function
 * called once per transaction is optimized only after a few thousand
 * calls), then `warmup` more untimed, then `n` timed again (warm: a server
 * that has been up for a while, as the one a deployment runs). The
 * server's CPU time is read around the warm part.
 */
async function sequential(
  s: FileServer,
  n: number,
  warmup: number,
  durable: boolean,
): Promise<SequentialSample> {
  const c = await RawClient.open(s.socketPath);
  try {
    const blob = 'x'.repeat(4096);
    const total = 2 * n + warmup;
    const requests: string[] = [];
    for (let i = 0; i < total; i++) {
      const ops: unknown[] = [
        DB,
        {
          op: 'insert',
          table: 'Logical_Switch',
          row: { name: `ls-${i}`, external_ids: ['map', [['blob', blob]]] },
        },
      ];
      if (durable) ops.push({ op: 'commit', durable: true });
      requests.push(JSON.stringify({ method: 'transact', params: ops, id: i }));
    }
    const run = async (from: number, count: number): Promise<number> => {
      const base = c.count;
      const t0 = performance.now();
      for (let k = 0; k < count; k++) {
        c.write(requests[from + k] as string);
        await c.until(base + k + 1);
      }
      return (count / (performance.now() - t0)) * 1000;
    };
    const cold = await run(0, n);
    await run(n, warmup);
    const cpu0 = cpuMs(s.pid);
    const warm = await run(n + warmup, n);
    const cpu1 = cpuMs(s.pid);
    const r = (await c.request('transact', [
      DB,
      { op: 'select', table: 'Logical_Switch', where: [], columns: ['_uuid'] },
    ])) as [{ rows?: unknown[] }];
    if (r[0].rows?.length !== total) {
      throw new Error(`expected ${total} switches, found ${r[0].rows?.length}`);
    }
    const warmCpuUs =
      cpu0 !== undefined && cpu1 !== undefined ? ((cpu1 - cpu0) * 1000) / n : undefined;
    return { cold, warm, warmCpuUs };
  } finally {
    c.close();
  }
}

/** Restart `s` on its file: ms from spawning to the first answered request; and ovnkit's load time from its log. */
async function restart(
  root: string,
  s: FileServer,
): Promise<{ ms: number; cpuMs?: number | undefined; loadMs?: number }> {
  await s.terminate();
  const t0 = performance.now();
  const again = await start(
    root,
    s.kind === 'memory' ? 'ovnkit-server' : 'ovsdb-server',
    s.dir,
    s.db,
  );
  try {
    const c = await RawClient.open(again.socketPath);
    await c.request('list_dbs', []);
    const ms = performance.now() - t0;
    const cpu = cpuMs(again.pid);
    c.close();
    // The log is appended to by every start: the last reading is this one's.
    const all = [
      ...readFileSync(again.log, 'utf8').matchAll(
        /read database \S+, \d+ records \(\d+ bytes\), in (\d+) ms/g,
      ),
    ];
    const m = all[all.length - 1];
    return m === undefined ? { ms, cpuMs: cpu } : { ms, cpuMs: cpu, loadMs: Number(m[1]) };
  } finally {
    await again.stop();
  }
}

/** W9. */
export const w9: Workload = {
  id: 'W9',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const n4k = ctx.quick ? 100 : 2000;
    const nDurable = ctx.quick ? 20 : 300;
    // Untimed between the cold and the warm part: enough for V8 to have optimized the hot paths.
    const warm4k = ctx.quick ? 100 : 8000;
    const warmDurable = ctx.quick ? 20 : 2700;
    const { ports, batch } = w2Sizes(ctx.quick);
    const result = emptyResult(
      'W9',
      `database files, ovnkit-server vs ovsdb-server (standalone), raw client: ${n4k} sequential 4 KB inserts ` +
        `(after ${n4k + warm4k}), W2 ${ports} LSPs by ${batch}, ${nDurable} durable inserts (after ` +
        `${nDurable + warmDurable}), restart on the ${ports}-port file`,
    );
    // The run's compiled copy (see bench/lib/compiled.mjs), or one made here.
    let made: string | undefined;
    if (process.env['BENCH_W9_TSX'] !== '1') {
      const shared = process.env['OVNKIT_BENCH_COMPILED'];
      const dir = shared !== undefined && shared !== '' ? shared : await compileSources(ctx.root);
      if (dir !== shared) made = dir;
      serverCli = join(dir, 'src/server/program/cli.js');
    }
    try {
      return await measure(ctx, result, { n4k, warm4k, nDurable, warmDurable }, ports, batch);
    } finally {
      serverCli = undefined;
      if (made !== undefined) rmSync(made, { recursive: true, force: true });
    }
  },
};

/** The samples of every sub-workload and their figures, into `result`. */
async function measure(
  ctx: BenchContext,
  result: WorkloadResult,
  sizes: {
    readonly n4k: number;
    readonly warm4k: number;
    readonly nDurable: number;
    readonly warmDurable: number;
  },
  ports: number,
  batch: number,
): Promise<WorkloadResult> {
  const { n4k, warm4k, nDurable, warmDurable } = sizes;
  const keys = ['W9a', 'W9b', 'W9c', 'W9d'] as const;
  const samples = new Map<string, number[]>();
  const push = (key: string, v: number) => {
    samples.set(key, [...(samples.get(key) ?? []), v]);
  };
  for (let rep = 0; rep < ctx.reps; rep++) {
    for (const key of keys) {
      const subjects = rotated(key === 'W9a' || key === 'W9c' ? WITH_FLOOR : SUBJECTS, rep);
      for (const subject of subjects) {
        const s = await fresh(ctx.root, subject);
        try {
          let v: number;
          const cpu0 = cpuMs(s.pid);
          let cpu: number | undefined;
          if (key === 'W9a' || key === 'W9c') {
            const q =
              key === 'W9a'
                ? await sequential(s, n4k, warm4k, false)
                : await sequential(s, nDurable, warmDurable, true);
            v = q.warm;
            cpu = q.warmCpuUs;
            push(`${key}.cold.${subject}`, q.cold);
          } else {
            const rate = await rawBatched(s, ports, batch);
            if (key === 'W9b') v = rate;
            else {
              const r = await restart(ctx.root, s);
              v = r.ms;
              cpu = r.cpuMs;
              if (r.loadMs !== undefined) push('W9d.load', r.loadMs);
            }
          }
          if (key === 'W9b') {
            // Per port; the connection and the final check included.
            const cpu1 = cpuMs(s.pid);
            if (cpu0 !== undefined && cpu1 !== undefined) cpu = ((cpu1 - cpu0) * 1000) / ports;
          }
          if (cpu !== undefined) push(`${key}.cpu.${subject}`, cpu);
          push(`${key}.${subject}`, v);
          ctx.log(`W9 rep ${rep + 1}/${ctx.reps} ${key} ${subject}: ${v.toFixed(1)}`);
        } finally {
          await s.stop();
        }
      }
    }
  }
  const what: Record<(typeof keys)[number], [string, string]> = {
    W9a: [`sequential 4 KB inserts (${n4k} after the first ${n4k + warm4k})`, 'txn/s'],
    W9b: [`W2 batches of ${batch}`, 'LSP/s'],
    W9c: [
      `sequential durable inserts (${nDurable} after the first ${nDurable + warmDurable})`,
      'txn/s',
    ],
    W9d: [`restart on a ${ports}-port file, to the first reply`, 'ms'],
  };
  for (const key of keys) {
    const [label, unit] = what[key];
    const real = samples.get(`${key}.ovsdb-server`) ?? [];
    const ours = samples.get(`${key}.ovnkit-server`) ?? [];
    const fr = figure(`${key}.ovsdb-server`, `ovsdb-server, ${label}`, unit, real);
    const fo = figure(`${key}.ovnkit-server`, `ovnkit-server, ${label}`, unit, ours);
    result.figures.push(fr, fo);
    // Paired per repetition; for times the better is the smaller, so the ratio is inverted.
    const paired = ours.map((o, i) =>
      unit === 'ms' ? (real[i] as number) / o : o / (real[i] as number),
    );
    const fp = figure(
      `${key}.paired`,
      `${label}: ovnkit ÷ ovsdb-server, paired per repetition`,
      '×',
      paired,
      unit === 'ms'
        ? { higherIsBetter: true, note: 'ovsdb-server time ÷ ovnkit time' }
        : { higherIsBetter: true },
    );
    result.figures.push(fp);
    const floor = samples.get(`${key}.node-floor`);
    const ff =
      floor === undefined
        ? undefined
        : figure(
            `${key}.node-floor`,
            `Node floor (frame, JSON.parse, record, SHA-1, write, reply; no OVSDB semantics), ${label}`,
            unit,
            floor,
          );
    const limited = limit(`${label} ovnkit/ovsdb-server (paired median)`, fp, '>=', 1);
    if (ff === undefined) result.ratios.push(limited);
    else {
      const floorVsReal = contextRatio('node-floor/ovsdb-server', ff, fr);
      result.figures.push(ff);
      result.ratios.push(
        {
          ...limited,
          note: `the Node floor reaches ${(floorVsReal.paired?.median ?? floorVsReal.value).toFixed(2)}× ovsdb-server`,
        },
        floorVsReal,
        contextRatio('ovnkit/node-floor', fo, ff),
      );
    }
    // The servers' CPU time (W9d: the restarted process's, to the first reply).
    const cpuUnit = key === 'W9d' ? 'ms' : key === 'W9b' ? 'µs/LSP' : 'µs/txn';
    const cpuReal = samples.get(`${key}.cpu.ovsdb-server`) ?? [];
    const cpuOurs = samples.get(`${key}.cpu.ovnkit-server`) ?? [];
    const cpuFloor = samples.get(`${key}.cpu.node-floor`);
    if (ff !== undefined && cpuFloor !== undefined && cpuFloor.length === ff.samples.length) {
      result.figures.push(
        figure(`${key}.cpu.node-floor`, `Node floor, ${label}: server CPU`, cpuUnit, cpuFloor, {
          higherIsBetter: false,
        }),
      );
    }
    if (cpuReal.length === real.length && cpuOurs.length === ours.length) {
      result.figures.push(
        figure(`${key}.cpu.ovsdb-server`, `ovsdb-server, ${label}: server CPU`, cpuUnit, cpuReal, {
          higherIsBetter: false,
        }),
        figure(
          `${key}.cpu.ovnkit-server`,
          `ovnkit-server, ${label}: server CPU`,
          cpuUnit,
          cpuOurs,
          { higherIsBetter: false },
        ),
        figure(
          `${key}.cpu.paired`,
          `${label}: server CPU, ovsdb-server ÷ ovnkit, paired per repetition`,
          '×',
          cpuOurs.map((o, i) => (cpuReal[i] as number) / Math.max(o, 1e-9)),
          { higherIsBetter: true, note: 'ovsdb-server CPU ÷ ovnkit CPU' },
        ),
      );
    }
  }
  // The first half of W9a and W9c, on the freshly started process: no target.
  for (const [key, n, label] of [
    ['W9a', n4k, 'sequential 4 KB inserts'],
    ['W9c', nDurable, 'sequential durable inserts'],
  ] as const) {
    const real = samples.get(`${key}.cold.ovsdb-server`) ?? [];
    const ours = samples.get(`${key}.cold.ovnkit-server`) ?? [];
    const what = `${label}, the first ${n} after the start`;
    result.figures.push(
      figure(`${key}.cold.ovsdb-server`, `ovsdb-server, ${what}`, 'txn/s', real),
      figure(`${key}.cold.ovnkit-server`, `ovnkit-server, ${what}`, 'txn/s', ours),
      figure(
        `${key}.cold.paired`,
        `${what}: ovnkit ÷ ovsdb-server, paired per repetition`,
        '×',
        ours.map((o, i) => o / (real[i] as number)),
        { higherIsBetter: true, note: 'cold: the JIT compiles ovnkit-server meanwhile; no target' },
      ),
    );
  }
  const load = samples.get('W9d.load');
  if (load !== undefined) {
    result.figures.push(
      figure(
        'W9d.load',
        `ovnkit-server, reading the ${ports}-port file (from its log)`,
        'ms',
        load,
      ),
    );
  }
  return result;
}

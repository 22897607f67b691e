/**
 * W1: transactions that each insert one logical switch port (addresses and
 * port security) and add it to `Logical_Switch.ports`; (a) sequential, each
 * awaited, and (b) all issued at once (pipelined). Measured for ovnkit (the
 * typed builder over `connectDatabase`), the bare `OvsdbConnection`, the
 * raw client, Go's libovsdb (`MonitorAll` cache, `bench/peers/libovsdb.ts`),
 * ovsdbapp (sequential) and `ovn-nbctl` (sequential, fewer ports, one
 * process per transaction, and through its daemon). Every subject but
 * `ovn-nbctl` also reports its client CPU time per port (user + system of
 * the client process during the timed section). The ratios pair the
 * subjects' samples per repetition; the subjects in this process are
 * warmed up first (see `lib/variants.ts`).
 * @module
 */

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  finishPorts,
  openWithSwitch,
  SWITCH,
  singlePortOps,
  transactText,
} from '../lib/nb-data.js';
import {
  AS_OVNKIT,
  addPort,
  type BareMonitor,
  bareOps,
  bareTransact,
  monitorBare,
  openBare,
  openOvnkit,
  portData,
} from '../lib/ovnkit-side.js';
import { endSection, startSection } from '../lib/profiler.js';
import { RawClient } from '../lib/raw-client.js';
import {
  contextRatio,
  cpuFigure,
  cpuVs,
  emptyResult,
  figure,
  ratio,
  times,
} from '../lib/results.js';
import { callgrindStatus, serverInstructionsPerTxn } from '../lib/server-instructions.js';
import { type BenchServer, NB_SCHEMA } from '../lib/servers.js';
import type { BenchContext, Figure, Ratio, Workload, WorkloadResult } from '../lib/types.js';
import { cpuClock, type MeasuredSample, measureVariants, type Variant } from '../lib/variants.js';
import { libovsdbBinary, libovsdbRun } from '../peers/libovsdb.js';
import { nbctlDaemon, nbctlSequential, nbctlStatus } from '../peers/nbctl.js';
import { ovsdbappSequential, ovsdbappStatus } from '../peers/ovsdbapp.js';

/**
 * Called with the client CPU time (user + system of this process, µs) of a
 * timed section, once it ended.
 */
export type CpuSink = (cpuUs: number) => void;

/** Raw client, sequential: write one request, wait for its reply. LSP/s. */
export async function rawSequential(
  server: BenchServer,
  n: number,
  onCpu?: CpuSink,
): Promise<number> {
  const c = await openWithSwitch(server.socketPath);
  const requests = Array.from({ length: n }, (_, i) => transactText(singlePortOps(i), i));
  const base = c.count;
  const cpu = cpuClock();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    c.write(requests[i]!);
    await c.until(base + i + 1);
  }
  const ms = performance.now() - t0;
  onCpu?.(cpu());
  return finishPorts(c, n, ms, 'raw sequential');
}

/** Raw client, pipelined: write every request (100 per write), wait for all replies. LSP/s. */
export async function rawPipelined(
  server: BenchServer,
  n: number,
  onCpu?: CpuSink,
): Promise<number> {
  const c = await openWithSwitch(server.socketPath);
  const requests = Array.from({ length: n }, (_, i) => transactText(singlePortOps(i), i));
  const base = c.count;
  const cpu = cpuClock();
  const t0 = performance.now();
  for (let i = 0; i < n; i += 100) c.write(requests.slice(i, i + 100).join(''));
  await c.until(base + n);
  const ms = performance.now() - t0;
  onCpu?.(cpu());
  return finishPorts(c, n, ms, 'raw pipelined');
}

/** ovnkit: the typed builder over `connectDatabase`, sequential or all at once. LSP/s. */
export async function ovnkitSinglePort(
  server: BenchServer,
  n: number,
  pipelined: boolean,
  onCpu?: CpuSink,
): Promise<number> {
  const c = await openWithSwitch(server.socketPath);
  const s = await openOvnkit(server.remote);
  try {
    const ports = portData(0, n);
    await startSection();
    const cpu = cpuClock();
    const t0 = performance.now();
    if (pipelined) await Promise.all(ports.map((p) => addPort(s.db, p)));
    else for (const p of ports) await addPort(s.db, p);
    const ms = performance.now() - t0;
    onCpu?.(cpu());
    await endSection();
    if (s.client.count('Logical_Switch_Port') !== n) {
      throw new Error(
        `ovnkit replica has ${s.client.count('Logical_Switch_Port')} ports, not ${n}`,
      );
    }
    return await finishPorts(c, n, ms, `ovnkit ${pipelined ? 'pipelined' : 'sequential'}`);
  } finally {
    await s.close();
  }
}

/**
 * The bare connection, optionally with a `monitor_cond` of every table and
 * column (its updates are parsed and dropped): the difference between the
 * two isolates what monitoring costs the server and the socket, which a
 * replica-keeping client pays and the raw client does not. `as-ovnkit`
 * asks the server for what ovnkit asks (see {@link BareMonitor}).
 */
async function bare(
  server: BenchServer,
  n: number,
  pipelined: boolean,
  monitor: BareMonitor,
  onCpu?: CpuSink,
): Promise<number> {
  const c = await openWithSwitch(server.socketPath);
  const conn = await openBare(server.remote);
  try {
    await monitorBare(conn, monitor);
    const ops = Array.from({ length: n }, (_, i) => bareOps(monitor, singlePortOps(i)));
    const cpu = cpuClock();
    const t0 = performance.now();
    if (pipelined) await Promise.all(ops.map((o) => bareTransact(conn, o)));
    else for (const o of ops) await bareTransact(conn, o);
    const ms = performance.now() - t0;
    onCpu?.(cpu());
    return await finishPorts(c, n, ms, 'bare connection');
  } finally {
    conn.close();
  }
}

/**
 * A sample of an in-process subject with its client CPU per port: `run`
 * gets the sink to report the timed section's CPU time to.
 */
export async function withCpu(
  n: number,
  run: (onCpu: CpuSink) => Promise<number>,
): Promise<MeasuredSample> {
  let cpuUs = Number.NaN;
  const value = await run((us) => {
    cpuUs = us;
  });
  return { value, cpuUsPerOp: cpuUs / n };
}

/**
 * Whether a peer that cannot run here fails the workload instead of being
 * skipped: in CI (`CI=true`) and with `BENCH_REQUIRE_PEERS=1`, so that the
 * smoke run keeps the peers from rotting.
 */
export function peersRequired(): boolean {
  return process.env['CI'] === 'true' || process.env['BENCH_REQUIRE_PEERS'] === '1';
}

/**
 * The libovsdb peer's binary (built on first use), or `undefined` with the
 * reason added to `result.skipped`. When peers are required a build that
 * fails throws instead; sources that are not on the machine at all are
 * still only a skipped row.
 */
export function libovsdbFor(
  ctx: BenchContext,
  result: WorkloadResult,
  workloads: readonly string[],
): string | undefined {
  const b = libovsdbBinary(join(ctx.root, NB_SCHEMA), ctx.log);
  if (b.ok) return b.binary;
  if (peersRequired() && b.absent !== true) throw new Error(b.reason);
  for (const w of workloads)
    result.skipped.push({ workload: w, subject: 'libovsdb (Go peer)', reason: b.reason });
  return undefined;
}

/** One libovsdb W1/W2 sample: the Go program on `s`, then the port count checked here too. */
export async function libovsdbWrites(
  binary: string,
  s: BenchServer,
  workload: 'w1a' | 'w1b' | 'w2',
  n: number,
  options: { readonly concurrency?: number; readonly batch?: number } = {},
): Promise<MeasuredSample> {
  const r = await libovsdbRun(binary, s.socketPath, workload, n, options);
  const c = await RawClient.open(s.socketPath);
  await finishPorts(c, n, 1, `libovsdb ${workload}`);
  return { value: r.portsPerSec ?? (n / r.ms) * 1000, cpuUsPerOp: r.cpuUs / n };
}

/** W1's transactions per sample. */
function w1Size(quick: boolean): number {
  return quick ? 200 : 5000;
}

/**
 * W1b's server side in instructions (see `lib/server-instructions.ts`): what
 * ovsdb-server executes per transaction for the bare monitored connection
 * and for the one asking what ovnkit asks, once per run (a count, the same
 * in every repetition). Their ratio bounds W1b's `ovnkit/bare-monitored`:
 * a client that costs nothing, asking what ovnkit asks, reaches about its
 * inverse while the server is the bottleneck.
 */
async function serverInstructions(ctx: BenchContext, result: WorkloadResult): Promise<void> {
  const status = callgrindStatus();
  if (!status.ok) {
    if (peersRequired()) throw new Error(status.reason);
    result.skipped.push({
      workload: 'W1b',
      subject: 'ovsdb-server instructions per transaction (callgrind)',
      reason: status.reason,
    });
    return;
  }
  const n = w1Size(ctx.quick);
  const note = `callgrind, (run of ${n} − run of none) ÷ ${n}, all at once`;
  const count = async (monitor: BareMonitor, id: string, subject: string): Promise<Figure> => {
    ctx.log(`W1b: ovsdb-server under callgrind, ${monitor}`);
    const per = await serverInstructionsPerTxn(ctx.root, monitor, 0, n);
    return figure(id, subject, 'instructions/txn', [per], { higherIsBetter: false, note });
  };
  const monitored = await count(
    'everything',
    'W1b.server-instr.bare-monitored',
    'ovsdb-server serving the bare connection + monitor_cond of every table',
  );
  const asOvnkit = await count(
    'as-ovnkit',
    'W1b.server-instr.bare-as-ovnkit',
    `ovsdb-server serving the ${AS_OVNKIT}`,
  );
  result.figures.push(monitored, asOvnkit);
  const r = asOvnkit.median / monitored.median;
  result.ratios.push(
    contextRatio(
      'server-instr bare-as-ovnkit/bare-monitored',
      asOvnkit,
      monitored,
      `what ovnkit's requests cost ovsdb-server; W1b's ceiling for ovnkit/bare-monitored is about ${(1 / r).toFixed(3)}×`,
    ),
  );
}

/** W1. */
export const w1: Workload = {
  id: 'W1',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const n = w1Size(ctx.quick);
    const nbctlN = ctx.quick ? 10 : 100;
    const result = emptyResult(
      'W1',
      `${n} one-port transactions (insert LSP + mutate Logical_Switch.ports), ovsdb-server NB 7.18.0`,
    );
    // Each ratio's two subjects are neighbours in this order (and stay so as
    // it rotates), so that their samples of a repetition are close in time.
    const variants: Variant[] = [
      {
        key: 'W1a.ovnkit',
        warmUp: true,
        sample: (s) => withCpu(n, (k) => ovnkitSinglePort(s, n, false, k)),
      },
      {
        key: 'W1a.bare-monitored',
        warmUp: true,
        sample: (s) => withCpu(n, (k) => bare(s, n, false, 'everything', k)),
      },
      {
        key: 'W1a.bare-as-ovnkit',
        warmUp: true,
        sample: (s) => withCpu(n, (k) => bare(s, n, false, 'as-ovnkit', k)),
      },
      { key: 'W1a.raw', warmUp: true, sample: (s) => withCpu(n, (k) => rawSequential(s, n, k)) },
      {
        key: 'W1a.bare',
        warmUp: true,
        sample: (s) => withCpu(n, (k) => bare(s, n, false, 'none', k)),
      },
      {
        key: 'W1b.ovnkit',
        warmUp: true,
        sample: (s) => withCpu(n, (k) => ovnkitSinglePort(s, n, true, k)),
      },
      {
        key: 'W1b.bare-monitored',
        warmUp: true,
        sample: (s) => withCpu(n, (k) => bare(s, n, true, 'everything', k)),
      },
      {
        key: 'W1b.bare-as-ovnkit',
        warmUp: true,
        sample: (s) => withCpu(n, (k) => bare(s, n, true, 'as-ovnkit', k)),
      },
      { key: 'W1b.raw', warmUp: true, sample: (s) => withCpu(n, (k) => rawPipelined(s, n, k)) },
      {
        key: 'W1b.bare',
        warmUp: true,
        sample: (s) => withCpu(n, (k) => bare(s, n, true, 'none', k)),
      },
    ];
    const go = libovsdbFor(ctx, result, ['W1a', 'W1b']);
    if (go !== undefined) {
      // After ovnkit's rows: W1a.libovsdb and W1b.libovsdb sit between the
      // pipelined rows and ovnkit's sequential one as the order rotates.
      variants.push(
        { key: 'W1b.libovsdb', sample: (s) => libovsdbWrites(go, s, 'w1b', n, { concurrency: 0 }) },
        { key: 'W1a.libovsdb', sample: (s) => libovsdbWrites(go, s, 'w1a', n) },
      );
    }
    const app = ovsdbappStatus();
    if (app.ok) {
      variants.push({
        key: 'W1a.ovsdbapp',
        async sample(s) {
          const c = await openWithSwitch(s.socketPath);
          const r = await ovsdbappSequential(ctx.root, s.remote, SWITCH, n);
          const value = await finishPorts(c, n, r.seconds * 1000, 'ovsdbapp sequential');
          return { value, cpuUsPerOp: (r.cpuSeconds * 1e6) / n };
        },
      });
    } else if (peersRequired()) {
      throw new Error(app.reason);
    } else {
      result.skipped.push({ workload: 'W1a', subject: 'ovsdbapp sequential', reason: app.reason });
    }
    const nbctl = nbctlStatus();
    if (nbctl.ok) {
      variants.push(
        {
          key: 'W1a.nbctl',
          async sample(s) {
            const c = await openWithSwitch(s.socketPath);
            const secs = await nbctlSequential(s.remote, SWITCH, nbctlN);
            return finishPorts(c, nbctlN, secs * 1000, 'ovn-nbctl');
          },
        },
        {
          key: 'W1a.nbctl-daemon',
          async sample(s) {
            const c = await openWithSwitch(s.socketPath);
            const secs = await nbctlDaemon(s.remote, SWITCH, nbctlN);
            return finishPorts(c, nbctlN, secs * 1000, 'ovn-nbctl daemon');
          },
        },
      );
    } else {
      result.skipped.push({ workload: 'W1a', subject: 'ovn-nbctl', reason: nbctl.reason });
    }
    const samples = await measureVariants(ctx, 'W1', variants);
    const f = (key: string, subject: string, note?: string) =>
      figure(key, subject, 'LSP/s', samples.get(key) ?? [], note === undefined ? {} : { note });
    const push = (...figures: Figure[]) => {
      for (const x of figures) {
        result.figures.push(x);
        const cpu = cpuFigure(x, samples.cpu.get(x.id));
        if (cpu) result.figures.push(cpu);
      }
    };
    const cpuOf = (x: Figure): Figure => result.figures.find((y) => y.cpuOf === x.id)!;
    const a = {
      raw: f('W1a.raw', 'raw client, sequential'),
      ovnkit: f('W1a.ovnkit', 'ovnkit connectDatabase + typed builder, sequential'),
      bare: f('W1a.bare', 'ovnkit bare OvsdbConnection.transact, sequential'),
      monitored: f(
        'W1a.bare-monitored',
        'bare connection + monitor_cond of every table (no replica), sequential',
      ),
      asOvnkit: f('W1a.bare-as-ovnkit', `${AS_OVNKIT}, sequential`),
    };
    const b = {
      raw: f('W1b.raw', 'raw client, pipelined'),
      ovnkit: f('W1b.ovnkit', 'ovnkit connectDatabase + typed builder, pipelined'),
      bare: f('W1b.bare', 'ovnkit bare OvsdbConnection.transact, pipelined'),
      monitored: f(
        'W1b.bare-monitored',
        'bare connection + monitor_cond of every table (no replica), pipelined',
      ),
      asOvnkit: f('W1b.bare-as-ovnkit', `${AS_OVNKIT}, pipelined`),
    };
    /**
     * ovnkit ÷ the bare connection asking the server what ovnkit asks
     * against `target` (the floor of a client with ovnkit's requests), and,
     * without a target, against the bare monitored connection and what
     * ovnkit's requests alone cost the server (`bare-as-ovnkit` ÷
     * bare-monitored).
     */
    const againstAsOvnkit = (x: typeof a, mode: string, target: number): Ratio[] => [
      ratio(
        `ovnkit/bare-as-ovnkit-${mode}`,
        x.ovnkit,
        x.asOvnkit,
        '>=',
        target,
        cpuVs(result.figures, x.ovnkit, x.asOvnkit),
      ),
      contextRatio(
        `ovnkit/bare-monitored-${mode}`,
        x.ovnkit,
        x.monitored,
        `${cpuVs(result.figures, x.ovnkit, x.monitored)}; asking what ovnkit asks, the bare connection reaches ${times(x.asOvnkit, x.monitored)}`,
      ),
      contextRatio(`bare-as-ovnkit/bare-monitored-${mode}`, x.asOvnkit, x.monitored),
    ];
    push(a.raw, a.ovnkit, a.bare, a.monitored, a.asOvnkit);
    const cpuA = cpuOf(a.ovnkit);
    const cpuMon = cpuOf(a.monitored);
    result.ratios.push(
      ratio(
        'ovnkit/raw-seq',
        a.ovnkit,
        a.raw,
        '>=',
        0.8,
        `monitoring alone: bare-monitored/raw ${times(a.monitored, a.raw)}`,
      ),
      ...againstAsOvnkit(a, 'seq', 0.9),
      ratio(
        'cpu ovnkit/bare-as-ovnkit-seq',
        cpuA,
        cpuOf(a.asOvnkit),
        '<=',
        1.25,
        `raw client ${cpuOf(a.raw).median.toFixed(1)} µs/LSP`,
      ),
      contextRatio('cpu ovnkit/bare-monitored-seq', cpuA, cpuMon),
    );
    if (samples.has('W1a.libovsdb')) {
      const go = f('W1a.libovsdb', 'libovsdb (Go) MonitorAll + Create/Mutate, sequential');
      push(go);
      result.ratios.push(
        ratio('ovnkit/libovsdb-seq', a.ovnkit, go, '>=', 2, cpuVs(result.figures, a.ovnkit, go)),
      );
    }
    if (samples.has('W1a.ovsdbapp')) {
      const app = f('W1a.ovsdbapp', 'ovsdbapp, one transaction per port, sequential');
      push(app);
      result.ratios.push(
        ratio('ovnkit/ovsdbapp-seq', a.ovnkit, app, '>=', 5, cpuVs(result.figures, a.ovnkit, app)),
      );
    }
    if (samples.has('W1a.nbctl')) {
      result.figures.push(
        f('W1a.nbctl', 'ovn-nbctl, one process per port', `${nbctlN} ports`),
        f('W1a.nbctl-daemon', 'ovn-nbctl through its daemon (OVN_NB_DAEMON)', `${nbctlN} ports`),
      );
    }
    push(b.raw, b.ovnkit, b.bare, b.monitored, b.asOvnkit);
    result.ratios.push(
      ratio(
        'ovnkit/raw-pipelined',
        b.ovnkit,
        b.raw,
        '>=',
        0.85,
        `monitoring alone: bare-monitored/raw ${times(b.monitored, b.raw)}`,
      ),
      ...againstAsOvnkit(b, 'pipelined', 0.95),
    );
    await serverInstructions(ctx, result);
    if (samples.has('W1b.libovsdb')) {
      const go = f('W1b.libovsdb', 'libovsdb (Go), all transactions at once (one goroutine each)');
      push(go);
      result.ratios.push(
        ratio(
          'ovnkit/libovsdb-pipelined',
          b.ovnkit,
          go,
          '>=',
          2,
          cpuVs(result.figures, b.ovnkit, go),
        ),
      );
    }
    return result;
  },
};

/**
 * W8: `ovn-northd` (OVN 23.03) on NB+SB served by `ovnkit-server` against
 * the same on the real `ovsdb-server`: NB 7.0.0 and SB 20.27.0 from the
 * installed OVN, each server on a database file made by `ovsdb-tool
 * create`, started with ovsdb-server's command line (`ovnkit-server` as
 * it ships: the run's compiled copy of the sources, see
 * `bench/lib/compiled.mjs`; through tsx with `OVNKIT_BENCH_SOURCE=1`), a
 * fresh pair and northd per sample (the helpers of
 * `test/server/northd-pair.ts`, which the drop-in test uses too).
 *
 * The topology: 20 switches × 25 ports (MAC and IP addresses), each switch
 * on one router by a router port, created in one `ovn-nbctl` transaction.
 *
 * - W8a: that transaction with `--wait=sb`, from the start of `ovn-nbctl`
 *   to its return: NB commit, northd's full computation, its SB
 *   transaction writing every logical flow and binding, and `sb_cfg` back
 *   in NB; ms.
 * - W8b: northd's full recompute: `ovn-appctl -t <northd> inc-engine/recompute`
 *   then `ovn-nbctl --wait=sb sync`, timed together (northd recomputes on
 *   its next loop, before or with the `nb_cfg` bump of the sync, so the
 *   sync returns after the recompute); median of several per sample, after
 *   one untimed recompute and once northd and both servers are idle; ms.
 *   Beside it, northd's CPU time (user + system from `/proc`) per
 *   recompute, and that of the two database servers together (the same
 *   for W8a: CPU spent on the topology).
 *
 * Subjects alternate within each repetition (the first one swaps every
 * repetition); the ratios are the medians of the per-repetition ratios.
 * Targets: W8a time ovsdb-server ÷ ovnkit-server ≥ 1.0 and the two
 * servers' CPU for the topology ovnkit-server ÷ ovsdb-server ≤ 1.5; W8b
 * time ≥ 0.9.
 * `--quick`: 3 switches × 5 ports, one recompute per sample.
 * @module
 */

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Kind } from '../../test/server/file-servers.js';
import { type OvnPair, startOvnPair, tool } from '../../test/server/northd-pair.js';
import { ovnkitEntry } from '../lib/child.js';
import { emptyResult, figure, ratio } from '../lib/results.js';
import { median } from '../lib/stats.js';
import type { BenchContext, Workload, WorkloadResult } from '../lib/types.js';

const SUBJECTS: readonly Kind[] = ['ovsdb-server', 'ovnkit-server'];

/** User + system CPU time of process `pid` so far, in ms (from `/proc/<pid>/stat`). */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 (utime, stime), counted from the state (field 3).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** The ovn-nbctl commands (joined by `--`) that build `switches` × `ports` and the router. */
export function w8Topology(switches: number, ports: number): string[] {
  const cmds: string[][] = [['lr-add', 'lr0']];
  for (let s = 0; s < switches; s++) {
    const sw = `ls${s}`;
    const hex = s.toString(16).padStart(2, '0');
    cmds.push(
      ['ls-add', sw],
      ['lrp-add', 'lr0', `lr0-${sw}`, `00:00:00:00:${hex}:fe`, `10.${s}.0.1/16`],
      ['lsp-add', sw, `${sw}-lr0`],
      ['lsp-set-type', `${sw}-lr0`, 'router'],
      ['lsp-set-addresses', `${sw}-lr0`, 'router'],
      ['lsp-set-options', `${sw}-lr0`, `router-port=lr0-${sw}`],
    );
    for (let p = 0; p < ports; p++) {
      const port = `${sw}-p${p}`;
      const mac = `0a:00:00:00:${hex}:${p.toString(16).padStart(2, '0')}`;
      cmds.push(['lsp-add', sw, port], ['lsp-set-addresses', port, `${mac} 10.${s}.1.${p + 10}`]);
    }
  }
  return cmds.flatMap((c, i) => (i === 0 ? c : ['--', ...c]));
}

/** Wait until `cpu` (ms) grows by less than 10 ms in 300 ms, for 10 s at most. */
async function settle(cpu: () => number): Promise<void> {
  const deadline = Date.now() + 10_000;
  let last = cpu();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 300));
    const now = cpu();
    if (now - last < 10) return;
    last = now;
  }
}

interface Sample {
  readonly buildMs: number;
  readonly buildNorthdCpuMs: number;
  readonly buildServerCpuMs: number;
  readonly recomputeMs: number;
  readonly northdCpuMs: number;
  readonly serverCpuMs: number;
  readonly flows: number;
}

async function sample(
  kind: Kind,
  switches: number,
  ports: number,
  recomputes: number,
): Promise<Sample> {
  const pair: OvnPair = await startOvnPair(kind);
  try {
    const northd = pair.northds[0]!;
    await pair.nbctl('init');
    // northd is up (its control socket answers) before anything is timed.
    for (let i = 0; (await northd.status()) !== 'active'; i++) {
      if (i > 300) throw new Error(`${kind}: ovn-northd did not become active`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await pair.nbctl('--wait=sb', 'sync');
    const northdPid = northd.child.pid;
    const serverPids = [pair.nb.child.pid, pair.sb.child.pid];
    const serverCpu = () => serverPids.reduce<number>((a, p) => a + cpuMs(p), 0);
    const topology = w8Topology(switches, ports);
    const bn0 = cpuMs(northdPid);
    const bs0 = serverCpu();
    const t0 = performance.now();
    await pair.nbctl('--wait=sb', ...topology);
    const buildMs = performance.now() - t0;
    const buildNorthdCpuMs = cpuMs(northdPid) - bn0;
    const buildServerCpuMs = serverCpu() - bs0;
    const flows = Number(
      (await pair.sbctl('--bare', '--columns=_uuid', 'list', 'Logical_Flow'))
        .split('\n')
        .filter((l) => l.trim() !== '').length,
    );
    const bindings = (await pair.sbctl('--bare', '--columns=logical_port', 'list', 'Port_Binding'))
      .split('\n')
      .filter((l) => l.trim() !== '').length;
    const expected = switches * (ports + 1) + switches;
    if (bindings !== expected)
      throw new Error(`${kind}: ${bindings} port bindings, expected ${expected}`);
    // One recompute untimed, then until the three processes are idle (what the
    // build left behind, e.g. a compaction of a database file, is not timed).
    await tool('ovn-appctl', ['-t', northd.ctl, 'inc-engine/recompute']);
    await pair.nbctl('--wait=sb', 'sync');
    await settle(() => serverCpu() + cpuMs(northdPid));
    const spans: number[] = [];
    const c0 = cpuMs(northdPid);
    const s0 = serverCpu();
    for (let i = 0; i < recomputes; i++) {
      const t = performance.now();
      await tool('ovn-appctl', ['-t', northd.ctl, 'inc-engine/recompute']);
      await pair.nbctl('--wait=sb', 'sync');
      spans.push(performance.now() - t);
    }
    return {
      buildMs,
      buildNorthdCpuMs,
      buildServerCpuMs,
      recomputeMs: median(spans),
      northdCpuMs: (cpuMs(northdPid) - c0) / recomputes,
      serverCpuMs: (serverCpu() - s0) / recomputes,
      flows,
    };
  } finally {
    await pair.stop();
  }
}

/** W8. */
export const w8: Workload = {
  id: 'W8',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const cli = ovnkitEntry(ctx.root, 'server/program/cli');
    const before = process.env.OVNKIT_SERVER_CLI;
    if (cli.flags.length === 0) process.env.OVNKIT_SERVER_CLI = cli.file;
    try {
      return await measure(ctx);
    } finally {
      if (before === undefined) delete process.env.OVNKIT_SERVER_CLI;
      else process.env.OVNKIT_SERVER_CLI = before;
    }
  },
};

async function measure(ctx: BenchContext): Promise<WorkloadResult> {
  {
    const [switches, ports] = ctx.quick ? [3, 5] : [20, 25];
    const recomputes = ctx.quick ? 1 : 5;
    const result = emptyResult(
      'W8',
      `ovn-northd 23.03 on NB 7.0.0 + SB 20.27.0 (files), ovnkit-server vs ovsdb-server: ` +
        `${switches} switches × ${ports} ports + a router in one ovn-nbctl --wait=sb transaction, ` +
        `then full recomputes (inc-engine/recompute + --wait=sb sync, median of ${recomputes})`,
    );
    const got = new Map<Kind, Sample[]>(SUBJECTS.map((k) => [k, []]));
    for (let rep = 0; rep < ctx.reps; rep++) {
      for (let k = 0; k < SUBJECTS.length; k++) {
        const kind = SUBJECTS[(k + rep) % SUBJECTS.length]!;
        const s = await sample(kind, switches, ports, recomputes);
        got.get(kind)!.push(s);
        ctx.log(
          `W8 rep ${rep + 1}/${ctx.reps} ${kind}: build ${s.buildMs.toFixed(0)} ms ` +
            `(northd CPU ${s.buildNorthdCpuMs.toFixed(0)} ms, servers CPU ${s.buildServerCpuMs.toFixed(0)} ms), ` +
            `recompute ${s.recomputeMs.toFixed(0)} ms, northd CPU ${s.northdCpuMs.toFixed(0)} ms, ` +
            `servers CPU ${s.serverCpuMs.toFixed(0)} ms, ${s.flows} logical flows`,
        );
      }
    }
    const key = (kind: Kind) => (kind === 'ovsdb-server' ? 'real' : 'ovnkit');
    const fig = (kind: Kind, what: string, subject: string, pick: (s: Sample) => number) =>
      figure(`W8${what}.${key(kind)}`, `${kind}: ${subject}`, 'ms', got.get(kind)!.map(pick), {
        higherIsBetter: false,
        note: `${median(got.get(kind)!.map((s) => s.flows))} logical flows`,
      });
    const [realBuild, oursBuild, realRe, oursRe] = [
      fig('ovsdb-server', 'a', 'topology transaction to sb_cfg', (s) => s.buildMs),
      fig('ovnkit-server', 'a', 'topology transaction to sb_cfg', (s) => s.buildMs),
      fig('ovsdb-server', 'b', 'northd full recompute + sync', (s) => s.recomputeMs),
      fig('ovnkit-server', 'b', 'northd full recompute + sync', (s) => s.recomputeMs),
    ] as const;
    const cpu = (
      kind: Kind,
      w: 'a' | 'b',
      what: string,
      subject: string,
      pick: (s: Sample) => number,
    ) =>
      figure(`W8${w}.${key(kind)}.${what}`, `${kind}: ${subject}`, 'ms', got.get(kind)!.map(pick), {
        higherIsBetter: false,
      });
    const [realServers, oursServers] = (['ovsdb-server', 'ovnkit-server'] as const).map((k) =>
      cpu(k, 'a', 'servers', 'NB+SB server CPU for the topology', (s) => s.buildServerCpuMs),
    ) as [ReturnType<typeof cpu>, ReturnType<typeof cpu>];
    result.figures.push(
      realBuild,
      oursBuild,
      realRe,
      oursRe,
      cpu('ovsdb-server', 'a', 'northd', 'northd CPU for the topology', (s) => s.buildNorthdCpuMs),
      cpu('ovnkit-server', 'a', 'northd', 'northd CPU for the topology', (s) => s.buildNorthdCpuMs),
      realServers,
      oursServers,
      cpu('ovsdb-server', 'b', 'northd', 'northd CPU per recompute', (s) => s.northdCpuMs),
      cpu('ovnkit-server', 'b', 'northd', 'northd CPU per recompute', (s) => s.northdCpuMs),
      cpu('ovsdb-server', 'b', 'servers', 'NB+SB server CPU per recompute', (s) => s.serverCpuMs),
      cpu('ovnkit-server', 'b', 'servers', 'NB+SB server CPU per recompute', (s) => s.serverCpuMs),
    );
    const med = (kind: Kind, pick: (s: Sample) => number) =>
      median(got.get(kind)!.map(pick)).toFixed(0);
    const cpuNote = (build: boolean) => {
      const n = (s: Sample) => (build ? s.buildNorthdCpuMs : s.northdCpuMs);
      const v = (s: Sample) => (build ? s.buildServerCpuMs : s.serverCpuMs);
      return (
        `northd CPU ${med('ovsdb-server', n)} vs ${med('ovnkit-server', n)} ms, ` +
        `NB+SB server CPU ${med('ovsdb-server', v)} vs ${med('ovnkit-server', v)} ms`
      );
    };
    result.ratios.push(
      ratio('time ovsdb-server/ovnkit-server', realBuild, oursBuild, '>=', 1.0, cpuNote(true)),
      ratio('servers CPU ovnkit-server/ovsdb-server', oursServers, realServers, '<=', 1.5),
      ratio('time ovsdb-server/ovnkit-server', realRe, oursRe, '>=', 0.9, cpuNote(false)),
    );
    return result;
  }
}

/**
 * W3: initial sync of a 100,000-port NB database. Each side runs in a fresh
 * child process with `--expose-gc` (heaps never mix): the replica
 * (`connectDatabase` with the NB model, every table, until `ready`) against
 * a raw socket that receives the `monitor_cond` reply of every table and
 * `JSON.parse`s it, Go's libovsdb (`MonitorAll` until its cache holds every
 * port) and ovsdbapp's IDL (`ovs.db.idl`, every table) until its first
 * complete sync. Time is from connecting to done; heap is what the result
 * retains after a full GC, per port; client CPU is the process's user +
 * system time over the timed section, per port. The sides take turns within
 * each repetition and the ratios pair them per repetition.
 * @module
 */

import { runTsChild } from '../lib/child.js';
import { populatePorts } from '../lib/nb-data.js';
import { RawClient } from '../lib/raw-client.js';
import { cpuFigure, cpuVs, emptyResult, figure, ratio, times } from '../lib/results.js';
import { withServer } from '../lib/servers.js';
import type { BenchContext, Figure, Workload, WorkloadResult } from '../lib/types.js';
import { libovsdbRun } from '../peers/libovsdb.js';
import { ovsdbappStatus, ovsdbappSync } from '../peers/ovsdbapp.js';
import { libovsdbFor, peersRequired } from './w1-single-port.js';

interface ChildResult {
  readonly ms: number;
  readonly heapBytes: number;
  readonly ports: number;
  readonly cpuUs: number;
}

/** W3. */
export const w3: Workload = {
  id: 'W3',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const ports = ctx.quick ? 5000 : 100_000;
    const result = emptyResult(
      'W3',
      `initial sync of ${ports} LSPs (${ports / 1000} switches; every NB table), ovsdb-server NB 7.18.0`,
    );
    const app = ovsdbappStatus();
    if (!app.ok) {
      if (peersRequired()) throw new Error(app.reason);
      result.skipped.push({ workload: 'W3', subject: 'ovsdbapp IDL sync', reason: app.reason });
    }
    const go = libovsdbFor(ctx, result, ['W3']);
    const samples = {
      raw: [] as ChildResult[],
      replica: [] as ChildResult[],
      go: [] as ChildResult[],
      app: [] as number[],
      appCpu: [] as number[],
    };
    await withServer('ovsdb-server', ctx.root, async (server) => {
      const c = await RawClient.open(server.socketPath);
      try {
        await populatePorts(c, ports);
      } finally {
        c.close();
      }
      ctx.log(`W3 populated ${ports} ports`);
      const child = (mode: string) =>
        runTsChild<ChildResult>(
          ctx.root,
          'bench/workloads/w3-child.ts',
          [mode, server.socketPath, String(ports)],
          ['--expose-gc'],
        );
      const sides: (() => Promise<void>)[] = [
        async () => {
          samples.raw.push(await child('raw'));
        },
        async () => {
          samples.replica.push(await child('replica'));
        },
      ];
      if (go !== undefined) {
        sides.push(async () => {
          const r = await libovsdbRun(go, server.socketPath, 'w3', ports);
          if (r.ports !== ports) throw new Error(`libovsdb cached ${r.ports} ports, not ${ports}`);
          samples.go.push({
            ms: r.ms,
            heapBytes: (r.heapBytesPerPort ?? Number.NaN) * ports,
            ports: r.ports,
            cpuUs: r.cpuUs,
          });
        });
      }
      if (app.ok) {
        sides.push(async () => {
          const r = await ovsdbappSync(ctx.root, server.remote, ports);
          if (r.ports !== ports) throw new Error(`ovsdbapp IDL saw ${r.ports} ports, not ${ports}`);
          samples.app.push(r.seconds * 1000);
          samples.appCpu.push((r.cpuSeconds * 1e6) / ports);
        });
      }
      for (let rep = 0; rep < ctx.reps; rep++) {
        for (let k = 0; k < sides.length; k++) await sides[(k + rep) % sides.length]!();
        ctx.log(
          `W3 rep ${rep + 1}/${ctx.reps}: raw ${samples.raw.at(-1)?.ms.toFixed(0)} ms, ` +
            `replica ${samples.replica.at(-1)?.ms.toFixed(0)} ms` +
            (go !== undefined ? `, libovsdb ${samples.go.at(-1)?.ms.toFixed(0)} ms` : '') +
            (app.ok ? `, ovsdbapp ${samples.app.at(-1)?.toFixed(0)} ms` : ''),
        );
      }
    });
    const rawMs = figure(
      'W3.raw.time',
      'raw socket + JSON.parse',
      'ms',
      samples.raw.map((s) => s.ms),
    );
    const repMs = figure(
      'W3.ovnkit.time',
      'ovnkit connectDatabase until ready',
      'ms',
      samples.replica.map((s) => s.ms),
    );
    const rawHeap = figure(
      'W3.raw.heap',
      'raw parsed reply, retained heap',
      'B/port',
      samples.raw.map((s) => s.heapBytes / ports),
    );
    const repHeap = figure(
      'W3.ovnkit.heap',
      'ovnkit replica, retained heap',
      'B/port',
      samples.replica.map((s) => s.heapBytes / ports),
    );
    const cpu = (of: Figure, xs: readonly ChildResult[]) =>
      cpuFigure(
        of,
        xs.map((x) => x.cpuUs / ports),
        'port',
      );
    result.figures.push(rawMs, repMs, rawHeap, repHeap);
    for (const c of [cpu(rawMs, samples.raw), cpu(repMs, samples.replica)])
      if (c) result.figures.push(c);
    result.ratios.push(
      ratio('time ovnkit/raw', repMs, rawMs, '<=', 1.5, cpuVs(result.figures, repMs, rawMs)),
      ratio('heap ovnkit/raw', repHeap, rawHeap, '<=', 2),
    );
    if (samples.go.length > 0) {
      const goMs = figure(
        'W3.libovsdb.time',
        'libovsdb (Go) NewOVSDBClient + MonitorAll until the cache holds every port',
        'ms',
        samples.go.map((s) => s.ms),
      );
      const goHeap = figure(
        'W3.libovsdb.heap',
        'libovsdb cache, retained Go heap (HeapAlloc after 3 GCs)',
        'B/port',
        samples.go.map((s) => s.heapBytes / ports),
      );
      result.figures.push(goMs, goHeap);
      const c = cpu(goMs, samples.go);
      if (c) result.figures.push(c);
      result.ratios.push(
        ratio(
          'time ovnkit/libovsdb',
          repMs,
          goMs,
          '<=',
          0.5,
          `the raw client's floor: raw/libovsdb ${times(rawMs, goMs)}; ${cpuVs(result.figures, repMs, goMs)}`,
        ),
        ratio('heap ovnkit/libovsdb', repHeap, goHeap, '<=', 0.5),
      );
    }
    if (samples.app.length > 0) {
      const appMs = figure(
        'W3.ovsdbapp.time',
        'ovsdbapp IDL (ovs.db.idl) first sync',
        'ms',
        samples.app,
      );
      result.figures.push(appMs);
      const c = cpuFigure(appMs, samples.appCpu, 'port');
      if (c) result.figures.push(c);
      result.ratios.push(
        ratio(
          'time ovsdbapp/ovnkit',
          appMs,
          repMs,
          '>=',
          8,
          `the raw client's ceiling: ovsdbapp/raw ${times(appMs, rawMs)}`,
        ),
      );
    }
    return result;
  },
};

/**
 * W1: transactions that each insert one logical switch port (addresses and
 * port security) and add it to `Logical_Switch.ports`; (a) sequential, each
 * awaited, and (b) all issued at once (pipelined). Measured for ovnkit (the
 * typed builder over `connectDatabase`), the bare `OvsdbConnection`, the
 * raw client, ovsdbapp (sequential) and `ovn-nbctl` (sequential, fewer
 * ports, one process per transaction, and through its daemon).
 * @module
 */

import { performance } from 'node:perf_hooks';
import {
  finishPorts,
  openWithSwitch,
  SWITCH,
  singlePortOps,
  transactText,
} from '../lib/nb-data.js';
import {
  addPort,
  bareTransact,
  monitorEverything,
  openBare,
  openOvnkit,
  portData,
} from '../lib/ovnkit-side.js';
import { endSection, startSection } from '../lib/profiler.js';
import { emptyResult, figure, ratio } from '../lib/results.js';
import type { BenchServer } from '../lib/servers.js';
import type { BenchContext, Workload, WorkloadResult } from '../lib/types.js';
import { measureVariants, type Variant } from '../lib/variants.js';
import { nbctlDaemon, nbctlSequential, nbctlStatus } from '../peers/nbctl.js';
import { ovsdbappSequential, ovsdbappStatus } from '../peers/ovsdbapp.js';

/** Raw client, sequential: write one request, wait for its reply. LSP/s. */
export async function rawSequential(server: BenchServer, n: number): Promise<number> {
  const c = await openWithSwitch(server.socketPath);
  const requests = Array.from({ length: n }, (_, i) => transactText(singlePortOps(i), i));
  const base = c.count;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    c.write(requests[i]!);
    await c.until(base + i + 1);
  }
  return finishPorts(c, n, performance.now() - t0, 'raw sequential');
}

/** Raw client, pipelined: write every request (100 per write), wait for all replies. LSP/s. */
export async function rawPipelined(server: BenchServer, n: number): Promise<number> {
  const c = await openWithSwitch(server.socketPath);
  const requests = Array.from({ length: n }, (_, i) => transactText(singlePortOps(i), i));
  const base = c.count;
  const t0 = performance.now();
  for (let i = 0; i < n; i += 100) c.write(requests.slice(i, i + 100).join(''));
  await c.until(base + n);
  return finishPorts(c, n, performance.now() - t0, 'raw pipelined');
}

/** ovnkit: the typed builder over `connectDatabase`, sequential or all at once. LSP/s. */
export async function ovnkitSinglePort(
  server: BenchServer,
  n: number,
  pipelined: boolean,
): Promise<number> {
  const c = await openWithSwitch(server.socketPath);
  const s = await openOvnkit(server.remote);
  try {
    const ports = portData(0, n);
    await startSection();
    const t0 = performance.now();
    if (pipelined) await Promise.all(ports.map((p) => addPort(s.db, p)));
    else for (const p of ports) await addPort(s.db, p);
    const ms = performance.now() - t0;
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
 * replica-keeping client pays and the raw client does not.
 */
async function bare(
  server: BenchServer,
  n: number,
  pipelined: boolean,
  monitored = false,
): Promise<number> {
  const c = await openWithSwitch(server.socketPath);
  const conn = await openBare(server.remote);
  try {
    if (monitored) await monitorEverything(conn);
    const ops = Array.from({ length: n }, (_, i) => singlePortOps(i));
    const t0 = performance.now();
    if (pipelined) await Promise.all(ops.map((o) => bareTransact(conn, o)));
    else for (const o of ops) await bareTransact(conn, o);
    return await finishPorts(c, n, performance.now() - t0, 'bare connection');
  } finally {
    conn.close();
  }
}

/** W1. */
export const w1: Workload = {
  id: 'W1',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const n = ctx.quick ? 200 : 5000;
    const nbctlN = ctx.quick ? 10 : 100;
    const result = emptyResult(
      'W1',
      `${n} one-port transactions (insert LSP + mutate Logical_Switch.ports), ovsdb-server NB 7.18.0`,
    );
    const variants: Variant[] = [
      { key: 'W1a.raw', sample: (s) => rawSequential(s, n) },
      { key: 'W1a.ovnkit', sample: (s) => ovnkitSinglePort(s, n, false) },
      { key: 'W1a.bare', sample: (s) => bare(s, n, false) },
      { key: 'W1b.raw', sample: (s) => rawPipelined(s, n) },
      { key: 'W1b.ovnkit', sample: (s) => ovnkitSinglePort(s, n, true) },
      { key: 'W1b.bare', sample: (s) => bare(s, n, true) },
      { key: 'W1a.bare-monitored', sample: (s) => bare(s, n, false, true) },
      { key: 'W1b.bare-monitored', sample: (s) => bare(s, n, true, true) },
    ];
    const app = ovsdbappStatus();
    if (app.ok) {
      variants.push({
        key: 'W1a.ovsdbapp',
        async sample(s) {
          const c = await openWithSwitch(s.socketPath);
          const r = await ovsdbappSequential(ctx.root, s.remote, SWITCH, n);
          return finishPorts(c, n, r.seconds * 1000, 'ovsdbapp sequential');
        },
      });
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
    const a = {
      raw: f('W1a.raw', 'raw client, sequential'),
      ovnkit: f('W1a.ovnkit', 'ovnkit connectDatabase + typed builder, sequential'),
      bare: f('W1a.bare', 'ovnkit bare OvsdbConnection.transact, sequential'),
      monitored: f(
        'W1a.bare-monitored',
        'bare connection + monitor_cond of every table (no replica), sequential',
      ),
    };
    const b = {
      raw: f('W1b.raw', 'raw client, pipelined'),
      ovnkit: f('W1b.ovnkit', 'ovnkit connectDatabase + typed builder, pipelined'),
      bare: f('W1b.bare', 'ovnkit bare OvsdbConnection.transact, pipelined'),
      monitored: f(
        'W1b.bare-monitored',
        'bare connection + monitor_cond of every table (no replica), pipelined',
      ),
    };
    result.figures.push(a.raw, a.ovnkit, a.bare, a.monitored);
    result.ratios.push(ratio('ovnkit/raw-seq', a.ovnkit, a.raw, '>=', 0.8));
    if (samples.has('W1a.ovsdbapp')) {
      const app = f('W1a.ovsdbapp', 'ovsdbapp, one transaction per port, sequential');
      result.figures.push(app);
      result.ratios.push(ratio('ovnkit/ovsdbapp-seq', a.ovnkit, app, '>=', 5));
    }
    if (samples.has('W1a.nbctl')) {
      result.figures.push(
        f('W1a.nbctl', 'ovn-nbctl, one process per port', `${nbctlN} ports`),
        f('W1a.nbctl-daemon', 'ovn-nbctl through its daemon (OVN_NB_DAEMON)', `${nbctlN} ports`),
      );
    }
    result.figures.push(b.raw, b.ovnkit, b.bare, b.monitored);
    result.ratios.push(ratio('ovnkit/raw-pipelined', b.ovnkit, b.raw, '>=', 0.85));
    return result;
  },
};

/**
 * WH: the heap a pending transaction retains. 5,000 of W1's transactions
 * (insert one port, add it to the switch's `ports`) are sent at once to an
 * ovsdb-server (NB 7.18.0) that was stopped (SIGSTOP) after a warm-up, so
 * that none is answered; the heap after a full GC, before and after
 * sending, gives the bytes per pending transaction. ovnkit's typed
 * transactions (`openDatabase` + the typed builder) against the bare
 * connection (`connect` + `conn.transact`) sending the same operations.
 * Each side runs in a fresh child process with `--expose-gc`
 * (`wh-child.ts`), through a relay that reads everything the client writes
 * (`lib/relay.ts`): with the server stopped, the request texts would
 * otherwise wait in the client's heap as far as the kernel's socket buffer
 * does not take them, and how much it takes depends on how the writes were
 * cut into system calls (that made the bare connection's figure spread
 * over 0.2–1.7 KB). Afterwards the server goes on (SIGCONT) and every
 * transaction must commit. The sides take turns within each repetition and
 * the ratio pairs them.
 * `--quick`: 500 transactions.
 * @module
 */

import { runTsChild } from '../lib/child.js';
import { finishPorts, openWithSwitch } from '../lib/nb-data.js';
import { startRelay } from '../lib/relay.js';
import { contextRatio, emptyResult, figure, limit } from '../lib/results.js';
import type { BenchServer } from '../lib/servers.js';
import type { BenchContext, Workload, WorkloadResult } from '../lib/types.js';
import { measureVariants } from '../lib/variants.js';

interface ChildResult {
  readonly bytesPerTxn: number;
  readonly settleMs: number;
}

/** One sample: `mode`'s child against `server` through a relay; bytes per pending transaction. */
async function sample(
  ctx: BenchContext,
  server: BenchServer,
  mode: 'typed' | 'bare',
  n: number,
  warm: number,
): Promise<number> {
  const pid = server.pid;
  if (pid === undefined) throw new Error('WH needs the server process');
  const c = await openWithSwitch(server.socketPath);
  const relay = await startRelay(server.socketPath);
  let r: ChildResult;
  try {
    r = await runTsChild<ChildResult>(
      ctx.root,
      'bench/workloads/wh-child.ts',
      [mode, relay.remote, String(pid), String(n), String(warm)],
      ['--expose-gc'],
    );
  } finally {
    // The child lets the server go on; this is for a child that died before.
    process.kill(pid, 'SIGCONT');
    await relay.close();
  }
  await finishPorts(c, warm + n, 1, `WH ${mode}`);
  ctx.log(`WH ${mode}: writes drained in ${r.settleMs.toFixed(0)} ms`);
  return r.bytesPerTxn;
}

/** WH. */
export const wh: Workload = {
  id: 'WH',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const n = ctx.quick ? 500 : 5000;
    const warm = ctx.quick ? 200 : 5000;
    const result = emptyResult(
      'WH',
      `heap retained per pending transaction: ${n} W1 transactions sent at once to a stopped ovsdb-server NB 7.18.0 (after ${warm} answered)`,
    );
    const samples = await measureVariants(ctx, 'WH', [
      { key: 'WH.typed', sample: (s) => sample(ctx, s, 'typed', n, warm) },
      { key: 'WH.bare', sample: (s) => sample(ctx, s, 'bare', n, warm) },
    ]);
    const f = (id: string, subject: string) =>
      figure(id, subject, 'B/txn', samples.get(id)!, {
        higherIsBetter: false,
        note: `${n} pending, heap after a full GC`,
      });
    const typed = f('WH.typed', 'ovnkit openDatabase + typed builder, pending transaction');
    const bare = f('WH.bare', 'bare connection (connect + conn.transact), pending transaction');
    result.figures.push(typed, bare);
    result.ratios.push(
      limit('typed heap per pending transaction', typed, '<=', 1024),
      contextRatio('typed/bare', typed, bare),
    );
    return result;
  },
};

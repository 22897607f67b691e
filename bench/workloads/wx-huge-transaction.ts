/**
 * WX: one huge transaction, adding 1,000,000 UUIDs to a port group's
 * `ports` (`mutate` … `insert`), from the UUIDs to the JSON text handed to
 * the socket: ovnkit (`openDatabase` + the typed builder, the clock stopped
 * as the connection writes the request to its transport) against the raw
 * client building the same wire operation and `JSON.stringify`ing it. Each
 * side runs in a fresh child process with `--expose-gc` (`wx-child.ts`),
 * which also reports the heap in use when the text is made and the peak
 * RSS, over the process's memory before the transaction. The UUIDs name no
 * rows: ovsdb-server would refuse the transaction, and its reply is not
 * waited for (ovnkit's handle is closed once the text is written). The
 * sides take turns within each repetition and the ratios pair them.
 * `--quick`: 10,000 UUIDs.
 * @module
 */

import { runTsChild } from '../lib/child.js';
import { DB } from '../lib/nb-data.js';
import { RawClient } from '../lib/raw-client.js';
import { contextRatio, emptyResult, figure, ratio } from '../lib/results.js';
import type { BenchServer } from '../lib/servers.js';
import type { BenchContext, Workload, WorkloadResult } from '../lib/types.js';
import { measureVariants } from '../lib/variants.js';

/** The port group every WX transaction adds to. */
export const PORT_GROUP = 'pg-huge';

interface ChildResult {
  readonly ms: number;
  readonly heapBytes: number;
  readonly peakRssBytes: number;
  readonly chars: number;
}

/** Insert the port group (untimed setup). */
async function createPortGroup(server: BenchServer): Promise<void> {
  const c = await RawClient.open(server.socketPath);
  try {
    const r = (await c.request('transact', [
      DB,
      { op: 'insert', table: 'Port_Group', row: { name: PORT_GROUP } },
    ])) as { error?: string }[];
    if (r[0]?.error) throw new Error(`creating ${PORT_GROUP} failed: ${JSON.stringify(r)}`);
  } finally {
    c.close();
  }
}

/** WX. */
export const wx: Workload = {
  id: 'WX',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const count = ctx.quick ? 10_000 : 1_000_000;
    const result = emptyResult(
      'WX',
      `one transaction adding ${count} UUIDs to Port_Group.ports (mutate insert), build and encode to the JSON text`,
    );
    const memory = new Map<string, ChildResult[]>([
      ['ovnkit', []],
      ['raw', []],
    ]);
    const side = (mode: 'ovnkit' | 'raw') => async (server: BenchServer) => {
      if (mode === 'ovnkit') await createPortGroup(server);
      const r = await runTsChild<ChildResult>(
        ctx.root,
        'bench/workloads/wx-child.ts',
        [mode, server.remote, String(count)],
        ['--expose-gc'],
      );
      memory.get(mode)!.push(r);
      ctx.log(
        `WX ${mode}: ${(r.chars / 1e6).toFixed(1)} M chars, heap +${(r.heapBytes / 1e6).toFixed(0)} MB, ` +
          `peak RSS +${(r.peakRssBytes / 1e6).toFixed(0)} MB`,
      );
      return r.ms;
    };
    const samples = await measureVariants(ctx, 'WX', [
      { key: 'WX.ovnkit.time', sample: side('ovnkit') },
      { key: 'WX.raw.time', sample: side('raw') },
    ]);
    const MB = (mode: string, what: 'heapBytes' | 'peakRssBytes') =>
      memory.get(mode)!.map((r) => r[what] / 1e6);
    const subject = {
      ovnkit: 'ovnkit openDatabase + typed builder, to the text written to the transport',
      raw: 'raw client, wire operation + JSON.stringify',
    };
    const time = (mode: 'ovnkit' | 'raw') =>
      figure(`WX.${mode}.time`, subject[mode], 'ms', samples.get(`WX.${mode}.time`)!, {
        higherIsBetter: false,
        note: `${count} UUIDs, ${(memory.get(mode)![0]!.chars / 1e6).toFixed(1)} M chars`,
      });
    const mem = (mode: 'ovnkit' | 'raw', what: 'heapBytes' | 'peakRssBytes') =>
      figure(
        `WX.${mode}.${what === 'heapBytes' ? 'heap' : 'rss'}`,
        `${subject[mode]}: ${what === 'heapBytes' ? 'heap in use when the text is made' : 'peak RSS'}, over the process's before`,
        'MB',
        MB(mode, what),
        { higherIsBetter: false },
      );
    const ovnkit = time('ovnkit');
    const raw = time('raw');
    const heap = { ovnkit: mem('ovnkit', 'heapBytes'), raw: mem('raw', 'heapBytes') };
    const rss = { ovnkit: mem('ovnkit', 'peakRssBytes'), raw: mem('raw', 'peakRssBytes') };
    result.figures.push(ovnkit, raw, heap.ovnkit, heap.raw, rss.ovnkit, rss.raw);
    result.ratios.push(
      ratio('time ovnkit/raw', ovnkit, raw, '<=', 1.5),
      contextRatio('heap ovnkit/raw', heap.ovnkit, heap.raw),
    );
    // At small sizes a side's peak can stay below the setup's (the UUIDs): no ratio then.
    if (rss.ovnkit.median > 0 && rss.raw.median > 0) {
      result.ratios.push(contextRatio('peak RSS ovnkit/raw', rss.ovnkit, rss.raw));
    }
    return result;
  },
};

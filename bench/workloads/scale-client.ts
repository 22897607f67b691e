/**
 * The client rows of the scaling bench: the initial sync of the whole NB
 * database held by the populated ovsdb-server (N ports), by
 *
 * - `ovnkit`: `connectDatabase({ model: NB })` with default options, until
 *   `ready` (a fresh process, `scale-sync-child.ts`);
 * - `raw`: a plain socket, `monitor_cond` of every column, `JSON.parse` of
 *   the reply (the floor for a JavaScript client; same child);
 * - `libovsdb`: the Go client, `MonitorAll` until its cache holds every port
 *   (`bench/peers/libovsdb.ts`);
 * - `ovsdb-client`: `ovsdb-client --format=json monitor … ALL` until it
 *   prints the first update after the initial contents (an untimed marker
 *   transaction repeated every 250 ms once the monitor is requested; the
 *   figure is late by at most that much).
 *
 * One sync per subject and size in each repetition gives every series
 * here: the `sync` series runs it, the others read its result. Per port:
 * the wall time to ready (mostly ovsdb-server building the reply, which it
 * does alone and silently), the client's own part of it (from the first
 * byte of the reply), the client's CPU time, the heap the result retains
 * after a full GC, the peak resident memory during the sync, and the reply's
 * size.
 * @module
 */

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runTsChild } from '../lib/child.js';
import { DB, transactText } from '../lib/nb-data.js';
import { RawClient } from '../lib/raw-client.js';
import type { ScaleContext, ScaleSeries, ScaleServer, ScaleSubject } from '../lib/scale-types.js';
import { NB_SCHEMA } from '../lib/servers.js';
import { libovsdbBinary, libovsdbSync } from '../peers/libovsdb.js';

/** What one sync gives (NaN where a subject cannot say). */
export interface SyncResult {
  readonly ms: number;
  readonly clientMs: number;
  readonly cpuMs: number;
  readonly heapBytes: number;
  readonly peakRssBytes: number;
  readonly replyBytes: number;
  readonly ports: number;
  readonly disconnects?: number;
  readonly statuses?: readonly string[];
}

const OVNKIT: ScaleSubject = {
  key: 'ovnkit',
  label: 'ovnkit connectDatabase',
  server: 'ovsdb-server',
};
const RAW: ScaleSubject = {
  key: 'raw',
  label: 'raw socket + JSON.parse',
  server: 'ovsdb-server',
  reference: true,
};
const LIBOVSDB: ScaleSubject = {
  key: 'libovsdb',
  label: 'libovsdb MonitorAll',
  server: 'ovsdb-server',
};
const OVSDB_CLIENT: ScaleSubject = {
  key: 'ovsdb-client',
  label: 'ovsdb-client monitor',
  server: 'ovsdb-server',
};

/** The last sync of each subject at each size (`key@n`), for the series that read it. */
const last = new Map<string, SyncResult>();
const unavailable = new Set<string>();

const NONE: SyncResult = {
  ms: Number.NaN,
  clientMs: Number.NaN,
  cpuMs: Number.NaN,
  heapBytes: Number.NaN,
  peakRssBytes: Number.NaN,
  replyBytes: Number.NaN,
  ports: 0,
};

/** One sync of the ovnkit client (default options) or the raw client, in a fresh process. */
export function nodeSync(
  root: string,
  mode: 'ovnkit' | 'raw',
  remote: string,
  n: number,
): Promise<SyncResult> {
  return runTsChild<SyncResult>(
    root,
    'bench/workloads/scale-sync-child.ts',
    [mode, remote, String(n)],
    ['--expose-gc', '--max-old-space-size=16384', '--conditions=ovnkit-source'],
  );
}

/** User + system CPU time of process `pid` so far, in ms (Linux). */
function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 (1-based), in clock ticks of 10 ms.
  return (Number(f[11]) + Number(f[12])) * 10;
}

async function ovsdbClientSync(s: ScaleServer): Promise<SyncResult> {
  const marker = await RawClient.open(s.server.socketPath);
  const mark = (k: number) =>
    marker.write(
      transactText(
        [
          {
            op: 'mutate',
            table: 'Logical_Switch',
            where: [['name', '==', 'ls-0']],
            mutations: [
              ['external_ids', 'delete', ['set', ['ovnkit-bench-marker']]],
              ['external_ids', 'insert', ['map', [['ovnkit-bench-marker', String(k)]]]],
            ],
          },
        ],
        `marker-${k}`,
      ),
    );
  const t0 = performance.now();
  const child = spawn(
    'ovsdb-client',
    ['--format=json', 'monitor', `unix:${s.server.socketPath}`, DB, 'ALL'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let timer: ReturnType<typeof setInterval> | undefined;
  try {
    const { ms, cpuMs, bytes } = await new Promise<{ ms: number; cpuMs: number; bytes: number }>(
      (resolve, reject) => {
        let bytes = 0;
        let tail = '';
        child.on('error', reject);
        child.on('exit', (code) => reject(new Error(`ovsdb-client monitor exited with ${code}`)));
        child.stdout.on('data', (d: Buffer) => {
          bytes += d.length;
          const text = tail + d.toString('latin1');
          // An update's rows are "old"/"new" (or "insert"/"delete"); the initial ones "initial".
          if (/"(new|old|insert|delete)"/.test(text)) {
            resolve({ ms: performance.now() - t0, cpuMs: cpuOf(child.pid!), bytes });
          }
          tail = text.slice(-16);
        });
        let k = 0;
        timer = setInterval(() => mark(k++), 250);
      },
    );
    return { ...NONE, ms, cpuMs, replyBytes: bytes, ports: s.n };
  } finally {
    if (timer) clearInterval(timer);
    child.removeAllListeners('exit');
    child.kill('SIGKILL');
    await marker.request('transact', [
      DB,
      {
        op: 'mutate',
        table: 'Logical_Switch',
        where: [['name', '==', 'ls-0']],
        mutations: [['external_ids', 'delete', ['set', ['ovnkit-bench-marker']]]],
      },
    ]);
    marker.close();
  }
}

async function sync(s: ScaleServer, subject: ScaleSubject, ctx: ScaleContext): Promise<SyncResult> {
  switch (subject.key) {
    case 'ovnkit':
    case 'raw': {
      const r = await nodeSync(ctx.root, subject.key, s.server.remote, s.n);
      if (r.disconnects)
        throw new Error(`ovnkit disconnected during its sync: ${r.statuses?.join('; ')}`);
      return r;
    }
    case 'libovsdb': {
      const b = libovsdbBinary(join(ctx.root, NB_SCHEMA), ctx.log);
      if (!b.ok) {
        if (!unavailable.has('libovsdb')) ctx.log(`libovsdb rows skipped: ${b.reason}`);
        unavailable.add('libovsdb');
        return NONE;
      }
      const r = await libovsdbSync(b.binary, s.server.socketPath, s.n);
      return {
        ...NONE,
        ms: r.ms,
        cpuMs: r.cpuMs,
        heapBytes: r.heapBytesPerPort * r.ports,
        ports: r.ports,
      };
    }
    default:
      return ovsdbClientSync(s);
  }
}

function perPort(pick: (r: SyncResult) => number, scale: number) {
  return async (s: ScaleServer, subject: ScaleSubject): Promise<number> => {
    const r = last.get(`${subject.key}@${s.n}`);
    if (r === undefined) throw new Error(`no sync of ${subject.key} at ${s.n} to read`);
    return (pick(r) * scale) / s.n;
  };
}

/** The client sync series, in report order. */
export const CLIENT_SERIES: readonly ScaleSeries[] = [
  {
    id: 'sync',
    title: 'Initial sync of the whole NB database, wall time to ready',
    unit: 'µs/port',
    chart: 'sync',
    subjects: [OVNKIT, RAW, LIBOVSDB, OVSDB_CLIENT],
    compare: ['ovnkit', 'raw'],
    async sample(s, subject, ctx) {
      const r = await sync(s, subject, ctx);
      last.set(`${subject.key}@${s.n}`, r);
      ctx.log(
        `  sync ${subject.key} ${s.n}: ${(r.ms / 1000).toFixed(1)} s, CPU ${(r.cpuMs / 1000).toFixed(1)} s`,
      );
      return (r.ms * 1000) / s.n;
    },
  },
  {
    id: 'sync-client',
    title: "Initial sync, the client's part: first byte of the reply to ready",
    unit: 'µs/port',
    chart: 'sync',
    subjects: [OVNKIT, RAW],
    compare: ['ovnkit', 'raw'],
    sample: perPort((r) => r.clientMs, 1000),
  },
  {
    id: 'sync-cpu',
    title: 'Initial sync, CPU time of the client process',
    unit: 'µs/port',
    chart: 'sync-cpu',
    subjects: [OVNKIT, RAW, LIBOVSDB, OVSDB_CLIENT],
    compare: ['ovnkit', 'libovsdb'],
    sample: perPort((r) => r.cpuMs, 1000),
  },
  {
    id: 'sync-heap',
    title: 'Initial sync, heap retained by the result after a full GC',
    unit: 'B/port',
    chart: 'sync-memory',
    subjects: [OVNKIT, RAW, LIBOVSDB],
    compare: ['ovnkit', 'raw'],
    sample: perPort((r) => r.heapBytes, 1),
  },
  {
    id: 'sync-peak',
    title: 'Initial sync, peak resident memory over the process before it',
    unit: 'B/port',
    chart: 'sync-memory',
    subjects: [OVNKIT, RAW],
    compare: ['ovnkit', 'raw'],
    sample: perPort((r) => r.peakRssBytes, 1),
  },
  {
    id: 'sync-reply',
    title: 'The monitor reply (every column of every table)',
    unit: 'B/port',
    chart: 'sync-memory',
    subjects: [RAW],
    sample: perPort((r) => r.replyBytes, 1),
  },
];

/** The charts of {@link CLIENT_SERIES}. */
export const CLIENT_CHARTS: Readonly<Record<string, { title: string; yLabel: string }>> = {
  sync: { title: 'Initial sync of the NB database, wall time', yLabel: 'µs per port' },
  'sync-cpu': { title: 'Initial sync, client CPU time', yLabel: 'µs per port' },
  'sync-memory': { title: 'Initial sync, client memory and reply size', yLabel: 'bytes per port' },
};

/** The acceptance targets of the client rows (issue #25). */
export const CLIENT_TARGETS = { growth: 1.1, heapGrowth: 1 };

/** One `connectDatabase` with default options over unix and over tcp against `s`: ready, or why not. */
export async function defaultOptionsCheck(
  s: ScaleServer,
  ctx: ScaleContext,
): Promise<{ remote: string; ready: boolean; ms: number; disconnects: number; detail: string }[]> {
  const out = [];
  for (const remote of [s.server.remote, s.server.tcpRemote]) {
    if (remote === undefined) continue;
    try {
      const r = await nodeSync(ctx.root, 'ovnkit', remote, s.n);
      out.push({
        remote: remote.replace(/^(unix|tcp):.*$/, '$1'),
        ready: true,
        ms: r.ms,
        disconnects: r.disconnects ?? 0,
        detail: (r.statuses ?? []).join('; '),
      });
    } catch (e) {
      out.push({
        remote: remote.replace(/^(unix|tcp):.*$/, '$1'),
        ready: false,
        ms: Number.NaN,
        disconnects: Number.NaN,
        detail: (e as Error).message.slice(0, 500),
      });
    }
    ctx.log(
      `  default options over ${out.at(-1)?.remote} at ${s.n}: ${JSON.stringify(out.at(-1))}`,
    );
  }
  return out;
}

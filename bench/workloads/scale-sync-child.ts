/**
 * One initial-sync sample of the scaling bench in a fresh process (run with
 * `--expose-gc`): `ovnkit` runs `connectDatabase({ model: NB })` with default
 * options until `ready`; `raw` sends `monitor_cond` for every column of every
 * NB table on a plain socket and `JSON.parse`s the reply.
 *
 * Prints one JSON object: `ms` from connecting to done; `clientMs` from the
 * first byte of the monitor reply to done (the client's own part: the rest
 * is the server building the reply, writing nothing); `cpuMs` the process's
 * CPU time over the sync; `heapBytes` what the result retains after a full
 * GC; `peakRssBytes` the peak resident memory during the sync over the
 * resident memory before it (the kernel's high-water mark, reset first);
 * `replyBytes` the bytes received; `ports`; and for `ovnkit` its
 * disconnections and status events.
 *
 * Usage: node --expose-gc --import tsx scale-sync-child.ts ovnkit|raw REMOTE PORTS
 * @module
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectDatabase } from '../../src/client/open.js';
import { NB } from '../../src/nb/generated/model.js';
import type { Dialer } from '../../src/ovsdb/transport/dial.js';
import { dialRemote } from '../../src/ovsdb/transport/dial-node.js';
import type { Transport, TransportHandlers } from '../../src/ovsdb/wire/transport.js';
import { NB_SCHEMA } from '../lib/servers.js';

const [mode, remote, portsArg] = process.argv.slice(2);
const ports = Number(portsArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

function fullGc(): number {
  for (let i = 0; i < 4; i++) gc!();
  return process.memoryUsage().heapUsed;
}

function status(field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(m?.[1] ?? Number.NaN) * 1024;
}

/** Reset the resident-memory high-water mark (Linux: `clear_refs` 5). */
function resetPeak(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not allowed: the peak then includes what came before.
  }
}

let replyStart = 0;
let received = 0;

/** A transport that notes the first byte after a monitor request was written. */
class Watched implements Transport {
  private asked = false;
  constructor(private readonly inner: Transport) {}
  get kind() {
    return this.inner.kind;
  }
  get description() {
    return this.inner.description;
  }
  attach(h: TransportHandlers): void {
    const seen = (n: number) => {
      received += n;
      if (this.asked && replyStart === 0) replyStart = performance.now();
    };
    this.inner.attach({
      data: (chunk) => {
        seen(chunk.length);
        h.data(chunk);
      },
      message: (text) => {
        seen(text.length);
        h.message(text);
      },
      drain: () => h.drain(),
      close: (e) => h.close(e),
    });
  }
  write(text: string): boolean {
    // The database's monitor request (not the one of `_Server`).
    if (text.includes('"monitor') && !text.includes('"_Server"')) this.asked = true;
    return this.inner.write(text);
  }
  close(): void {
    this.inner.close();
  }
}

const watchedDial: Dialer = async (r, options) => {
  const flow = await dialRemote(r, options);
  return { ...flow, transport: new Watched(flow.transport) };
};

let held: unknown;

interface Sample {
  ms: number;
  clientMs: number;
  cpuMs: number;
  heapBytes: number;
  peakRssBytes: number;
  replyBytes: number;
  ports: number;
  disconnects?: number;
  statuses?: string[];
}

async function measure(run: () => Promise<{ n: number; extra?: Partial<Sample> }>) {
  const before = fullGc();
  const rssBefore = status('VmRSS');
  resetPeak();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const { n, extra } = await run();
  const t1 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  const peak = status('VmHWM');
  const heapBytes = fullGc() - before;
  return {
    ms: t1 - t0,
    clientMs: t1 - (replyStart || t0),
    cpuMs: (cpu.user + cpu.system) / 1000,
    heapBytes,
    peakRssBytes: peak - rssBefore,
    replyBytes: received,
    ports: n,
    ...extra,
  } satisfies Sample;
}

async function ovnkit(): Promise<Sample> {
  const statuses: string[] = [];
  const r = await measure(async () => {
    const t0 = performance.now();
    const c = connectDatabase({ remotes: remote!, model: NB, dial: watchedDial });
    c.onStatus((e) => {
      statuses.push(`${((performance.now() - t0) / 1000).toFixed(1)} s ${e.type}: ${e.reason}`);
    });
    await c.ready;
    held = c;
    return { n: c.count('Logical_Switch_Port') };
  });
  const client = held as { stats: { disconnects: number }; close(): Promise<void> };
  const out = { ...r, disconnects: client.stats.disconnects, statuses };
  await client.close();
  return out;
}

/** `monitor_cond` of every table, every column. */
function monitorRequest(): string {
  const root = join(import.meta.dirname, '../..');
  const schema = JSON.parse(readFileSync(join(root, NB_SCHEMA), 'utf8')) as {
    name: string;
    tables: Record<string, { columns: Record<string, unknown> }>;
  };
  const requests: Record<string, { columns: string[] }> = {};
  for (const [t, s] of Object.entries(schema.tables))
    requests[t] = { columns: Object.keys(s.columns) };
  return JSON.stringify({
    method: 'monitor_cond',
    params: [schema.name, 'scale', requests],
    id: 1,
  });
}

async function raw(): Promise<Sample> {
  const request = monitorRequest();
  const path = remote!.replace(/^unix:/, '');
  return measure(async () => {
    const parsed = await new Promise<{ result: Record<string, Record<string, unknown>> }>(
      (resolve, reject) => {
        const socket = connect({ path });
        const chunks: Buffer[] = [];
        socket.on('error', reject);
        socket.on('connect', () => socket.write(request));
        socket.on('data', (chunk: Buffer) => {
          if (replyStart === 0) replyStart = performance.now();
          received += chunk.length;
          chunks.push(chunk);
          // ovsdb-server ends a reply with `"error":null}`.
          if (!chunk.subarray(-13).toString('latin1').endsWith('"error":null}')) return;
          try {
            const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            socket.destroy();
            resolve(msg);
          } catch {
            // the marker was inside a string: keep reading
          }
        });
      },
    );
    held = parsed;
    return { n: Object.keys(parsed.result['Logical_Switch_Port'] ?? {}).length };
  });
}

const out = mode === 'ovnkit' ? await ovnkit() : mode === 'raw' ? await raw() : undefined;
if (out === undefined) throw new Error(`unknown mode ${mode}`);
if (out.ports !== ports) throw new Error(`${mode}: saw ${out.ports} ports, expected ${ports}`);
void held;
console.log(JSON.stringify(out));
process.exit(0);

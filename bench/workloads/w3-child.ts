/**
 * One side of W3 in a fresh process (run with `--expose-gc`), so that heaps
 * do not mix: `raw` receives the `monitor_cond` reply for every NB table and
 * `JSON.parse`s it; `replica` runs `connectDatabase({ model: NB })` until
 * `ready`. Prints `{"ms":…,"heapBytes":…,"ports":…,"cpuUs":…}`: the time
 * from connecting to done, the heap retained by the result (held) after a
 * full GC, minus the heap before connecting, and the process's CPU time
 * (user + system, µs) over the timed section.
 *
 * Usage: node --expose-gc --import tsx bench/workloads/w3-child.ts raw|replica SOCKET PORTS
 * @module
 */

import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectDatabase } from '../../src/client/open.js';
import { NB } from '../../src/nb/generated/model.js';
import { endSection, startSection } from '../lib/profiler.js';
import { NB_SCHEMA } from '../lib/servers.js';

const [mode, socketPath, portsArg] = process.argv.slice(2);
const ports = Number(portsArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

function fullGc(): number {
  for (let i = 0; i < 4; i++) gc!();
  return process.memoryUsage().heapUsed;
}

/** The request: `monitor_cond` of every table, every column. */
function monitorRequest(): string {
  const root = join(import.meta.dirname, '../..');
  const schema = JSON.parse(readFileSync(join(root, NB_SCHEMA), 'utf8')) as {
    name: string;
    tables: Record<string, { columns: Record<string, unknown> }>;
  };
  const requests: Record<string, { columns: string[] }> = {};
  for (const [t, s] of Object.entries(schema.tables))
    requests[t] = { columns: Object.keys(s.columns) };
  return JSON.stringify({ method: 'monitor_cond', params: [schema.name, 'w3', requests], id: 1 });
}

let held: unknown;

interface Out {
  ms: number;
  heapBytes: number;
  ports: number;
  cpuUs: number;
}

function cpuNow(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

async function raw(): Promise<Out> {
  const request = monitorRequest();
  const before = fullGc();
  const cpu0 = cpuNow();
  const t0 = performance.now();
  const parsed = await new Promise<{ result: Record<string, Record<string, unknown>> }>(
    (resolve, reject) => {
      const socket = connect({ path: socketPath! });
      const chunks: Buffer[] = [];
      socket.on('error', reject);
      socket.on('connect', () => socket.write(request));
      socket.on('data', (chunk: Buffer) => {
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
  const ms = performance.now() - t0;
  const cpuUs = cpuNow() - cpu0;
  held = parsed;
  const heapBytes = fullGc() - before;
  const n = Object.keys(parsed.result['Logical_Switch_Port'] ?? {}).length;
  return { ms, heapBytes, ports: n, cpuUs };
}

async function replica(): Promise<Out> {
  const before = fullGc();
  await startSection();
  const cpu0 = cpuNow();
  const t0 = performance.now();
  const client = connectDatabase({ remotes: `unix:${socketPath}`, model: NB });
  await client.ready;
  const ms = performance.now() - t0;
  const cpuUs = cpuNow() - cpu0;
  await endSection();
  held = client;
  const heapBytes = fullGc() - before;
  const n = client.count('Logical_Switch_Port');
  await client.close();
  return { ms, heapBytes, ports: n, cpuUs };
}

const out = mode === 'raw' ? await raw() : mode === 'replica' ? await replica() : undefined;
if (out === undefined) throw new Error(`unknown mode ${mode}`);
if (out.ports !== ports) throw new Error(`${mode}: saw ${out.ports} ports, expected ${ports}`);
void held;
console.log(JSON.stringify(out));

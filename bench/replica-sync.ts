/**
 * Initial sync of a 100k-port OVN Northbound database: the replica client
 * against a raw socket that only receives and `JSON.parse`s the same monitor
 * reply.
 *
 * Starts an ovsdb-server (NB schema 7.18.0) in a temporary directory and
 * fills it with `BENCH_PORTS` (default 100,000) logical switch ports, 1,000
 * per switch, each with a name, one address, two `external_ids` keys and one
 * option. Then, alternately, `BENCH_RUNS` (default 5) times each:
 *
 * - **replica**: `connectDatabase({ model: NB })` until `ready` (every table
 *   monitored: setup requests, monitor reply decoded into typed, frozen rows,
 *   schema indexes built);
 * - **raw**: a Unix socket that sends the very `monitor_cond_since` request
 *   the client sent (captured on the first replica run), concatenates the
 *   reply's chunks and `JSON.parse`s it once it is complete.
 *
 * Time is wall clock from connecting to done; heap is `heapUsed` after a full
 * GC with the result (the replica, or the parsed reply) still referenced,
 * minus `heapUsed` before, divided by the number of ports. The medians are
 * compared with the targets (≤ 1.5× the raw time, ≤ 2× the raw heap).
 *
 * Both end-to-end times include ovsdb-server building and sending the dump,
 * which dominates them; so the bench also replays the captured reply bytes
 * offline and times only the client side: the framer and replica against
 * `Buffer.concat` + `JSON.parse`.
 *
 * Run: `node --import tsx bench/replica-sync.ts`.
 * Environment: `BENCH_PORTS`, `BENCH_RUNS`, `BENCH_CAPTURE` (a file to save
 * the captured reply bytes in, for profiling).
 */

import { writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { connectDatabase } from '../src/client/open.js';
import { Replica } from '../src/client/replica/replica.js';
import { NB, type NBTables } from '../src/nb/index.js';
import { connect } from '../src/ovsdb/connection/connect.js';
import type { DialedTransport } from '../src/ovsdb/transport/dial.js';
import { dialSocket } from '../src/ovsdb/transport/dial-node.js';
import { JsonStreamFramer } from '../src/ovsdb/wire/framer.js';
import type { Transport } from '../src/ovsdb/wire/transport.js';
import type { Operation, TableUpdates2 } from '../src/ovsdb/wire/wire.js';
import { startOvsdbServer } from '../src/testing/index.js';

const PORTS = Number(process.env['BENCH_PORTS'] ?? 100_000);
const RUNS = Math.max(3, Number(process.env['BENCH_RUNS'] ?? 5));
const PER_SWITCH = 1000;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function fullGc(): void {
  for (let i = 0; i < 3; i++) gc();
}

/**
 * A heap baseline: what the previous run left behind (a closed socket keeps
 * its client reachable until it is fully closed) must be gone, so wait until
 * two full collections a while apart agree within 1 MB.
 */
async function baseline(): Promise<number> {
  let last = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 20; i++) {
    fullGc();
    const now = process.memoryUsage().heapUsed;
    if (Math.abs(now - last) < 1e6) return now;
    last = now;
    await new Promise((r) => setTimeout(r, 300));
  }
  return last;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function populate(remote: string): Promise<void> {
  const conn = await connect(remote);
  try {
    for (let sw = 0; sw * PER_SWITCH < PORTS; sw++) {
      const ops: Operation[] = [];
      const names: unknown[] = [];
      for (let i = 0; i < PER_SWITCH && sw * PER_SWITCH + i < PORTS; i++) {
        const n = sw * PER_SWITCH + i;
        const mac = `0a:58:${[(n >> 16) & 255, (n >> 8) & 255, n & 255, sw & 255]
          .map((b) => b.toString(16).padStart(2, '0'))
          .join(':')}`;
        ops.push({
          op: 'insert',
          table: 'Logical_Switch_Port',
          'uuid-name': `p${i}`,
          row: {
            name: `ns${sw}_pod-${n}`,
            addresses: ['set', [`${mac} 10.${sw & 255}.${(n >> 8) & 255}.${n & 255}`]],
            external_ids: [
              'map',
              [
                ['pod', `ns${sw}/pod-${n}`],
                ['k8s.ovn.org/nad', 'default'],
              ],
            ],
            options: ['map', [['requested-chassis', `node-${n % 50}`]]],
          },
        });
        names.push(['named-uuid', `p${i}`]);
      }
      ops.push({
        op: 'insert',
        table: 'Logical_Switch',
        row: { name: `sw${sw}`, ports: ['set', names as never] },
      });
      await conn.transact('OVN_Northbound', ops);
    }
  } finally {
    conn.close();
  }
}

/** A transport that remembers the first `monitor_cond_since` request written. */
function recordingDial(sink: { request?: string }) {
  return async (
    remote: string,
    options: Parameters<typeof dialSocket>[1],
  ): Promise<DialedTransport> => {
    const inner = await dialSocket(remote, options);
    const t = inner.transport;
    const transport: Transport = {
      kind: t.kind,
      description: t.description,
      attach: (h) => t.attach(h),
      write: (text) => {
        if (sink.request === undefined && text.includes('"monitor_cond_since"'))
          sink.request = text;
        return t.write(text);
      },
      close: () => t.close(),
    };
    return { ...inner, transport };
  };
}

interface Sample {
  ms: number;
  heapBytes: number;
}

/**
 * What the current run keeps alive while its heap is measured; cleared
 * before each run so that no earlier result is collected during a later
 * measurement.
 */
const held: { value?: unknown } = {};

async function replicaRun(remote: string, sink: { request?: string }): Promise<Sample> {
  held.value = undefined;
  const before = await baseline();
  const t0 = performance.now();
  const client = connectDatabase({ remotes: remote, model: NB, dial: recordingDial(sink) });
  held.value = client;
  await client.ready;
  const ms = performance.now() - t0;
  if (client.count('Logical_Switch_Port') !== PORTS) {
    throw new Error(`replica has ${client.count('Logical_Switch_Port')} ports, expected ${PORTS}`);
  }
  fullGc();
  const heapBytes = process.memoryUsage().heapUsed - before;
  await client.close();
  held.value = undefined;
  return { ms, heapBytes };
}

async function rawRun(path: string, request: string): Promise<Sample & { bytes: Buffer }> {
  held.value = undefined;
  const before = await baseline();
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const socket = netConnect({ path });
    const chunks: Buffer[] = [];
    socket.on('error', reject);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // The reply ends with `"error":null}` (ovsdb-server's member order).
      if (!chunk.subarray(-13).toString('latin1').endsWith('"error":null}')) return;
      let parsed: unknown;
      const bytes = Buffer.concat(chunks);
      try {
        parsed = JSON.parse(bytes.toString('utf8'));
      } catch {
        return; // the marker was inside a string: keep reading
      }
      const ms = performance.now() - t0;
      held.value = parsed;
      chunks.length = 0;
      socket.destroy();
      fullGc();
      const heapBytes = process.memoryUsage().heapUsed - before;
      held.value = undefined;
      resolve({ ms, heapBytes, bytes });
    });
  });
}

/** Offline, raw: concatenate the chunks, decode and `JSON.parse`; the result is held. */
async function offlineRaw(chunks: readonly Buffer[]): Promise<Sample> {
  held.value = undefined;
  const h0 = await baseline();
  const t0 = performance.now();
  const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown };
  const ms = performance.now() - t0;
  if (parsed.id === undefined) throw new Error('bad capture');
  held.value = parsed;
  fullGc();
  return { ms, heapBytes: process.memoryUsage().heapUsed - h0 };
}

/** Offline, replica: frame the chunks and load the reply into a replica; the replica is held. */
async function offlineReplica(chunks: readonly Buffer[]): Promise<Sample> {
  held.value = undefined;
  const h0 = await baseline();
  const t0 = performance.now();
  held.value = loadReplica(chunks);
  const ms = performance.now() - t0;
  fullGc();
  return { ms, heapBytes: process.memoryUsage().heapUsed - h0 };
}

function loadReplica(chunks: readonly Buffer[]): Replica<NBTables> {
  const framer = new JsonStreamFramer();
  const messages: unknown[] = [];
  for (const c of chunks) framer.pushInto(c, messages);
  const updates = (messages[0] as { result: [boolean, string, TableUpdates2] }).result[2];
  const { replica, feed } = Replica.withFeed(NB);
  for (const table of Object.keys(NB.schema.tables)) {
    feed.configure(table, ['_version', ...NB.schema.tables[table]!.columnNames]);
    feed.replace(table, updates[table] ?? {}, 'update2');
  }
  if (replica.count('Logical_Switch_Port') !== PORTS) throw new Error('offline replica incomplete');
  return replica;
}

/**
 * Client-side CPU and heap only, on the captured reply bytes (no server, no
 * socket): the framer and the replica (decode, freeze, index) against
 * `Buffer.concat` + `toString` + `JSON.parse` of the same 64 KiB chunks.
 */
async function offline(bytes: Buffer): Promise<{
  rawMs: number;
  replicaMs: number;
  rawHeap: number;
  replicaHeap: number;
}> {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 65536) chunks.push(bytes.subarray(i, i + 65536));
  const raw: Sample[] = [];
  const rep: Sample[] = [];
  for (let run = 0; run < RUNS + 1; run++) {
    const r = await offlineRaw(chunks);
    const p = await offlineReplica(chunks);
    if (run > 0) {
      raw.push(r);
      rep.push(p);
    }
  }
  held.value = undefined;
  return {
    rawMs: median(raw.map((x) => x.ms)),
    replicaMs: median(rep.map((x) => x.ms)),
    rawHeap: median(raw.map((x) => x.heapBytes)) / PORTS,
    replicaHeap: median(rep.map((x) => x.heapBytes)) / PORTS,
  };
}

async function main(): Promise<void> {
  console.log(`populating ${PORTS} logical switch ports...`);
  const server = await startOvsdbServer({ schemaPath: 'schema/ovn-nb-7.18.0.ovsschema' });
  try {
    const t = performance.now();
    await populate(server.unixRemote);
    console.log(`populated in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const sink: { request?: string } = {};
    // Warm up both paths once (JIT, server caches).
    await replicaRun(server.unixRemote, sink);
    if (sink.request === undefined) throw new Error('no monitor_cond_since request was captured');
    const socketPath = server.unixRemote.slice('unix:'.length);
    await rawRun(socketPath, sink.request);
    const replica: Sample[] = [];
    const raw: Sample[] = [];
    let captured: Buffer | undefined;
    for (let i = 0; i < RUNS; i++) {
      const r = await rawRun(socketPath, sink.request);
      captured ??= r.bytes;
      raw.push({ ms: r.ms, heapBytes: r.heapBytes });
      replica.push(await replicaRun(server.unixRemote, sink));
      console.log(
        `run ${i + 1}: raw ${r.ms.toFixed(0)} ms ${(r.heapBytes / PORTS).toFixed(0)} B/port; ` +
          `replica ${replica[i]!.ms.toFixed(0)} ms ${(replica[i]!.heapBytes / PORTS).toFixed(0)} B/port`,
      );
    }
    const rawMs = median(raw.map((s) => s.ms));
    const repMs = median(replica.map((s) => s.ms));
    const rawHeap = median(raw.map((s) => s.heapBytes)) / PORTS;
    const repHeap = median(replica.map((s) => s.heapBytes)) / PORTS;
    const timeRatio = repMs / rawMs;
    const heapRatio = repHeap / rawHeap;
    console.log('');
    console.log(`ports: ${PORTS}, runs: ${RUNS} (medians)`);
    console.log(`raw JSON.parse : ${rawMs.toFixed(0)} ms, ${rawHeap.toFixed(0)} B heap per port`);
    console.log(`replica        : ${repMs.toFixed(0)} ms, ${repHeap.toFixed(0)} B heap per port`);
    console.log(
      `ratio          : time ${timeRatio.toFixed(2)}× (target ≤ 1.5×) ${timeRatio <= 1.5 ? 'OK' : 'MISSED'}, ` +
        `heap ${heapRatio.toFixed(2)}× (target ≤ 2×) ${heapRatio <= 2 ? 'OK' : 'MISSED'}`,
    );
    if (captured) {
      if (process.env['BENCH_CAPTURE']) writeFileSync(process.env['BENCH_CAPTURE'], captured);
      const o = await offline(captured);
      console.log(
        `client CPU only (captured ${(captured.length / 1e6).toFixed(1)} MB reply, no server): ` +
          `JSON.parse ${o.rawMs.toFixed(0)} ms, framer+replica ${o.replicaMs.toFixed(0)} ms ` +
          `(${(o.replicaMs / o.rawMs).toFixed(2)}×); heap per port: parsed reply ` +
          `${o.rawHeap.toFixed(0)} B, replica ${o.replicaHeap.toFixed(0)} B ` +
          `(${(o.replicaHeap / o.rawHeap).toFixed(2)}×)`,
      );
    }
  } finally {
    await server.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});

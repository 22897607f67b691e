/**
 * Framer throughput on real ovsdb-server output.
 *
 * Starts an ovsdb-server with the OVN Northbound schema in a temporary
 * directory, inserts a few thousand logical switch ports with
 * `ovsdb-client transact`, and captures over a unix socket the raw bytes of
 *   1. a `monitor_cond` reply for the whole database (one large message), and
 *   2. the `update2` notifications and `transact` replies of small one-port
 *      transactions (many small messages).
 * Each capture is repeated to about 50 MB and measured three ways, median of
 * 5 runs:
 *   - framer: `JsonStreamFramer.push` in 64 KiB chunks (finds the message
 *     boundaries, decodes UTF-8, parses);
 *   - decode+parse: `TextDecoder.decode` + `JSON.parse` of each message's bytes,
 *     boundaries known in advance;
 *   - parse only: `JSON.parse` of each message, already decoded.
 *
 * Run: `npm run bench:framer` (or `node --import tsx bench/framer-throughput.ts`).
 * Environment: `BENCH_PORTS` (default 3000), `BENCH_MB` (default 50).
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { JsonStreamFramer } from '../src/ovsdb/wire/framer.js';

const ROOT = resolve(import.meta.dirname, '..');
const SCHEMA = join(ROOT, 'schema/ovn-nb-7.18.0.ovsschema');
const PORTS = Number(process.env['BENCH_PORTS'] ?? 3000);
const TARGET_BYTES = Number(process.env['BENCH_MB'] ?? 50) * 1e6;
const CHUNK = 64 * 1024;
const RUNS = 5;
const PORTS_PER_SWITCH = 250;
const SMALL_TXNS = 1000;

interface Server {
  dir: string;
  sock: string;
  proc: ChildProcess;
}

async function startServer(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'ovnkit-bench-'));
  const db = join(dir, 'nb.db');
  const sock = join(dir, 'nb.sock');
  execFileSync('ovsdb-tool', ['create', db, SCHEMA]);
  const proc = spawn(
    'ovsdb-server',
    [
      db,
      `--remote=punix:${sock}`,
      `--unixctl=${join(dir, 'x.ctl')}`,
      `--pidfile=${join(dir, 'x.pid')}`,
      `--log-file=${join(dir, 'x.log')}`,
    ],
    { stdio: 'ignore' },
  );
  // Wait until the socket accepts connections (it exists a moment before it listens).
  for (let i = 0; ; i++) {
    if (existsSync(sock) && (await canConnect(sock))) break;
    if (i === 400) {
      proc.kill('SIGTERM');
      throw new Error(`ovsdb-server is not listening on ${sock} (see ${join(dir, 'x.log')})`);
    }
    await sleep(25);
  }
  return { dir, sock, proc };
}

function canConnect(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function stopServer(s: Server): void {
  s.proc.kill('SIGTERM');
  rmSync(s.dir, { recursive: true, force: true });
}

function mac(n: number): string {
  const h = n.toString(16).padStart(6, '0');
  return `0a:00:00:${h.slice(0, 2)}:${h.slice(2, 4)}:${h.slice(4, 6)}`;
}

/** Insert `PORTS` logical switch ports, `PORTS_PER_SWITCH` per switch, with ovsdb-client. */
function populate(sock: string): void {
  let port = 0;
  for (let sw = 0; port < PORTS; sw++) {
    const ops: unknown[] = [];
    const names: unknown[] = [];
    for (let k = 0; k < PORTS_PER_SWITCH && port < PORTS; k++, port++) {
      const ip = `10.${(port >> 16) & 255}.${(port >> 8) & 255}.${port & 255}`;
      ops.push({
        op: 'insert',
        table: 'Logical_Switch_Port',
        'uuid-name': `p${port}`,
        row: {
          name: `lsp-${sw}-${port}`,
          addresses: `${mac(port)} ${ip}`,
          port_security: `${mac(port)} ${ip}`,
          enabled: true,
          options: ['map', [['requested-chassis', `chassis-${port % 17}`]]],
          external_ids: [
            'map',
            [
              ['neutron:device_owner', 'compute:nova'],
              ['neutron:port_name', `port-${port}`],
              ['neutron:project_id', 'f3c3d2a1b0e94b8f9a7c6d5e4f3a2b1c'],
              ['neutron:cidrs', `${ip}/16`],
            ],
          ],
        },
      });
      names.push(['named-uuid', `p${port}`]);
    }
    ops.push({
      op: 'insert',
      table: 'Logical_Switch',
      row: {
        name: `ls-${sw}`,
        ports: ['set', names],
        external_ids: ['map', [['neutron:network_name', `net-${sw}`]]],
      },
    });
    execFileSync('ovsdb-client', [
      'transact',
      `unix:${sock}`,
      JSON.stringify(['OVN_Northbound', ...ops]),
    ]);
  }
}

/** Send `requests` over a fresh unix-socket session and return every byte received until `done`. */
async function capture(
  sock: string,
  run: (send: (msg: object) => void) => void,
  done: (messages: Record<string, unknown>[]) => boolean,
): Promise<Uint8Array> {
  const socket: Socket = connect(sock);
  await new Promise<void>((ok, fail) => {
    socket.once('connect', ok);
    socket.once('error', fail);
  });
  const chunks: Buffer[] = [];
  const framer = new JsonStreamFramer();
  const messages: Record<string, unknown>[] = [];
  const finished = new Promise<void>((ok, fail) => {
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      for (const m of framer.push(chunk)) messages.push(m as Record<string, unknown>);
      if (done(messages)) ok();
    });
    socket.once('error', fail);
  });
  run((msg) => socket.write(JSON.stringify(msg)));
  await finished;
  socket.destroy();
  return new Uint8Array(Buffer.concat(chunks));
}

function repeat(bytes: Uint8Array, target: number): Uint8Array {
  const reps = Math.max(1, Math.round(target / bytes.length));
  const out = new Uint8Array(reps * bytes.length);
  for (let i = 0; i < reps; i++) out.set(bytes, i * bytes.length);
  return out;
}

/** Message boundaries by a plain string-aware depth scan (independent of the framer). */
function boundaries(bytes: Uint8Array): [number, number][] {
  const out: [number, number][] = [];
  let depth = 0;
  let start = -1;
  let inStr = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inStr) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inStr = false;
    } else if (c === 0x22) inStr = true;
    else if (c === 0x7b || c === 0x5b) {
      if (depth++ === 0) start = i;
    } else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) out.push([start, i + 1]);
    }
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface Row {
  workload: string;
  messages: number;
  avgBytes: number;
  mb: number;
  framer: number;
  decodeParse: number;
  parseOnly: number;
}

function measure(name: string, unit: Uint8Array): Row {
  const stream = repeat(unit, TARGET_BYTES);
  const bounds = boundaries(stream);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const texts = bounds.map(([s, e]) => decoder.decode(stream.subarray(s, e)));
  const mb = stream.length / 1e6;
  const t = { framer: [] as number[], decodeParse: [] as number[], parseOnly: [] as number[] };
  let sink = 0;
  for (let run = 0; run < RUNS; run++) {
    let t0 = performance.now();
    const framer = new JsonStreamFramer();
    let count = 0;
    for (let i = 0; i < stream.length; i += CHUNK) {
      count += framer.push(stream.subarray(i, Math.min(stream.length, i + CHUNK))).length;
    }
    t.framer.push(performance.now() - t0);
    if (count !== bounds.length) {
      throw new Error(`framer found ${count} messages, expected ${bounds.length}`);
    }

    t0 = performance.now();
    for (const [s, e] of bounds) {
      const v = JSON.parse(decoder.decode(stream.subarray(s, e))) as object;
      if (v) sink++;
    }
    t.decodeParse.push(performance.now() - t0);

    t0 = performance.now();
    for (const text of texts) {
      const v = JSON.parse(text) as object;
      if (v) sink++;
    }
    t.parseOnly.push(performance.now() - t0);
  }
  if (sink === 0) throw new Error('nothing parsed');
  return {
    workload: name,
    messages: bounds.length,
    avgBytes: Math.round(stream.length / bounds.length),
    mb,
    framer: mb / (median(t.framer) / 1000),
    decodeParse: mb / (median(t.decodeParse) / 1000),
    parseOnly: mb / (median(t.parseOnly) / 1000),
  };
}

async function main(): Promise<void> {
  const server = await startServer();
  try {
    const t0 = performance.now();
    populate(server.sock);
    console.log(
      `inserted ${PORTS} logical switch ports in ${Math.round(performance.now() - t0)} ms`,
    );

    const reply = await capture(
      server.sock,
      (send) =>
        send({
          method: 'monitor_cond',
          params: ['OVN_Northbound', 'bench', { Logical_Switch_Port: {}, Logical_Switch: {} }],
          id: 0,
        }),
      (ms) => ms.some((m) => m['id'] === 0),
    );

    const small = await capture(
      server.sock,
      (send) => {
        send({
          method: 'monitor_cond',
          params: ['OVN_Northbound', 'bench', { Logical_Switch_Port: {} }],
          id: 0,
        });
        for (let i = 1; i <= SMALL_TXNS; i++) {
          const port = i % PORTS;
          send({
            method: 'transact',
            params: [
              'OVN_Northbound',
              {
                op: 'mutate',
                table: 'Logical_Switch_Port',
                where: [['name', '==', `lsp-${Math.floor(port / PORTS_PER_SWITCH)}-${port}`]],
                mutations: [['external_ids', 'insert', ['map', [[`bench:${i}`, `value-${i}`]]]]],
              },
            ],
            id: i,
          });
        }
      },
      (ms) => ms.some((m) => m['id'] === SMALL_TXNS),
    );
    // Drop the initial monitor_cond reply: keep only the small messages.
    const first = boundaries(small)[0]!;
    const smallOnly = small.subarray(first[1]);

    console.log(
      `captured: monitor_cond reply ${reply.length} bytes; ${SMALL_TXNS} transactions → ${smallOnly.length} bytes of update2 + replies`,
    );
    console.log(
      `node ${process.version}, ${CHUNK / 1024} KiB chunks, median of ${RUNS} runs, MB = 10^6 bytes\n`,
    );
    const rows = [
      measure('monitor_cond reply', reply),
      measure('update2 + transact replies', smallOnly),
    ];
    const header = [
      'workload',
      'messages',
      'avg bytes',
      'MB',
      'framer MB/s',
      'decode+JSON.parse MB/s',
      'JSON.parse MB/s',
      'framer / decode+parse',
    ];
    const table = rows.map((r) => [
      r.workload,
      String(r.messages),
      String(r.avgBytes),
      r.mb.toFixed(1),
      r.framer.toFixed(0),
      r.decodeParse.toFixed(0),
      r.parseOnly.toFixed(0),
      `${((r.framer / r.decodeParse) * 100).toFixed(0)}%`,
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
    const line = (cells: string[]): string =>
      `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
    console.log(line(header));
    console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
    for (const row of table) console.log(line(row));
  } finally {
    stopServer(server);
  }
}

await main();

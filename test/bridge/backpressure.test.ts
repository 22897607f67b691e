/**
 * Backpressure through the bridge, measured: a WebSocket client that stops
 * reading while a real ovsdb-server streams large monitor replies must not
 * grow the bridge's memory past a bound. The bridge runs in a child process
 * (with `--expose-gc`) so that its heap is measured alone.
 *
 * The client asks for {@link REPLIES} full dumps of a table of about 1 MB
 * each plus {@link ECHOES} 16 KiB echo requests (over 50 MiB in all), and stops
 * reading at once. The bridge must stop reading the server (upstream pause),
 * the server then stops reading the bridge, so the bridge must stop reading
 * the client (client pause); memory held by the bridge stays around its
 * high-water mark (1 MiB) plus one message. A control run with the
 * high-water mark set out of reach shows that the same measurement does see
 * the data pile up when backpressure is off.
 */

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connect } from '../../src/ovsdb/connection/connect.js';
import {
  type OvsdbServerHandle,
  requireOvsdbServer,
  startOvsdbServer,
} from '../../src/testing/index.js';
import { DB, sleep, TEST_SCHEMA } from '../helpers/server.js';

const ROWS = 500;
const ROW_PAD = 'x'.repeat(2000);
const REPLIES = 40;
const ECHOES = 700;
const ECHO_PAD = 'e'.repeat(16 * 1024);
/** The bound the test asserts on the bridge's retained memory growth (heap + external). */
const BOUND = 12 * 1024 * 1024;

let server: OvsdbServerHandle;
let replyBytes = 0;

beforeAll(async () => {
  requireOvsdbServer(true);
  server = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['unix'] });
  const conn = await connect(server.unixRemote);
  const ops = [];
  for (let i = 0; i < ROWS; i++) {
    ops.push({ op: 'insert' as const, table: 'Item', row: { name: `row-${i}-${ROW_PAD}`, n: i } });
  }
  await conn.transact(DB, ops);
  const dump = await conn.monitor(DB, 'size', { Item: { columns: ['name'] } });
  replyBytes = JSON.stringify(dump).length;
  conn.close();
});

afterAll(async () => {
  await server?.stop();
});

interface Mem {
  heapUsed: number;
  external: number;
  stats: {
    upstreamPauses: number;
    clientPauses: number;
    maxQueuedBytes: number;
    queuedBytes: number;
    messagesToClients: number;
  };
}

class BridgeProcess {
  private readonly lines: Interface;
  private readonly waiting: ((line: string) => void)[] = [];
  private readonly queue: string[] = [];

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.lines = createInterface({ input: child.stdout });
    this.lines.on('line', (line) => {
      const w = this.waiting.shift();
      if (w) w(line);
      else this.queue.push(line);
    });
  }

  static async start(options: object): Promise<{ proc: BridgeProcess; url: string }> {
    const child = spawn(
      process.execPath,
      [
        '--expose-gc',
        '--import',
        'tsx',
        'test/bridge/fixtures/bridge-process.ts',
        JSON.stringify(options),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const proc = new BridgeProcess(child);
    const first = await Promise.race([
      proc.nextLine(),
      new Promise<string>((_, reject) =>
        child.once('exit', (code) => reject(new Error(`bridge process exited ${code}: ${stderr}`))),
      ),
    ]);
    return { proc, url: (JSON.parse(first) as { url: string }).url };
  }

  nextLine(): Promise<string> {
    const line = this.queue.shift();
    if (line !== undefined) return Promise.resolve(line);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async mem(): Promise<Mem> {
    this.child.stdin.write('mem\n');
    return JSON.parse(await this.nextLine()) as Mem;
  }

  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.write('close\n');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

interface RunResult {
  baseline: number;
  peakGrowth: number;
  samples: number[];
  mem: Mem;
  monitorReplies: number;
  echoReplies: number;
  rowsPerReply: Set<number>;
}

/** One run: a client that stops reading, measured, then reads everything. */
async function run(highWaterMark: number): Promise<RunResult> {
  const backpressure = highWaterMark < 2 ** 30;
  const { proc, url } = await BridgeProcess.start({
    listen: 'ws://127.0.0.1:0/ovsdb',
    remote: server.unixRemote,
    noAuth: true,
    highWaterMark,
    maxMessageBytes: 8 * 1024 * 1024,
  });
  try {
    const baseline = await proc.mem();
    const base = baseline.heapUsed + baseline.external;
    const ws = new WebSocket(url, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    let monitorReplies = 0;
    let echoReplies = 0;
    const rowsPerReply = new Set<number>();
    ws.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString()) as { id: string; result: unknown };
      if (m.id.startsWith('mon-')) {
        monitorReplies++;
        rowsPerReply.add(Object.keys((m.result as { Item: object }).Item).length);
      } else if (m.id.startsWith('echo-')) {
        echoReplies++;
        expect((m.result as string[])[0]).toBe(ECHO_PAD);
      }
    });
    // Stop reading, then ask for far more than the bound.
    ws.pause();
    for (let i = 0; i < REPLIES; i++) {
      ws.send(
        JSON.stringify({
          method: 'monitor',
          params: [DB, `m${i}`, { Item: { columns: ['name'] } }],
          id: `mon-${i}`,
        }),
      );
    }
    for (let i = 0; i < ECHOES; i++) {
      ws.send(JSON.stringify({ method: 'echo', params: [ECHO_PAD], id: `echo-${i}` }));
    }
    // Let the pipeline fill up, sampling the bridge's memory: with backpressure
    // until both directions are paused and then a while longer; without it,
    // until the growth passes the bound (or the data is all in).
    const samples: number[] = [];
    let mem = await proc.mem();
    const until = Date.now() + 20_000;
    let settled = 0;
    while (Date.now() < until) {
      await sleep(250);
      mem = await proc.mem();
      samples.push(mem.heapUsed + mem.external - base);
      if (backpressure) {
        if (mem.stats.upstreamPauses > 0 && mem.stats.clientPauses > 0) settled++;
        if (settled >= 8) break;
      } else if (samples.at(-1)! > BOUND) break;
    }
    const peakGrowth = Math.max(...samples);
    if (!backpressure) {
      ws.terminate();
      return {
        baseline: base,
        peakGrowth,
        samples,
        mem,
        monitorReplies,
        echoReplies,
        rowsPerReply,
      };
    }
    // Read again: everything arrives, nothing was dropped.
    ws.resume();
    const deadline = Date.now() + 30_000;
    while ((monitorReplies < REPLIES || echoReplies < ECHOES) && Date.now() < deadline) {
      await sleep(50);
    }
    ws.close();
    return { baseline: base, peakGrowth, samples, mem, monitorReplies, echoReplies, rowsPerReply };
  } finally {
    await proc.close();
  }
}

describe('a client that stops reading', () => {
  it('does not grow the bridge past the bound, and gets every reply once it reads again', async () => {
    const requested = REPLIES * replyBytes + ECHOES * ECHO_PAD.length;
    expect(requested).toBeGreaterThan(4 * BOUND);
    const r = await run(1024 * 1024);
    console.log(
      `backpressure on: requested ${(requested / 2 ** 20).toFixed(1)} MiB; bridge growth samples (MiB): ${r.samples
        .map((s) => (s / 2 ** 20).toFixed(1))
        .join(
          ', ',
        )}; max queued for the client ${(r.mem.stats.maxQueuedBytes / 2 ** 20).toFixed(2)} MiB; upstream pauses ${r.mem.stats.upstreamPauses}, client pauses ${r.mem.stats.clientPauses}`,
    );
    expect(r.peakGrowth).toBeLessThan(BOUND);
    expect(r.mem.stats.upstreamPauses).toBeGreaterThanOrEqual(1);
    expect(r.mem.stats.clientPauses).toBeGreaterThanOrEqual(1);
    // The queue for the stalled client stayed near the high-water mark (plus one message).
    expect(r.mem.stats.maxQueuedBytes).toBeLessThan(1024 * 1024 + 2 * replyBytes);
    expect(r.monitorReplies).toBe(REPLIES);
    expect(r.echoReplies).toBe(ECHOES);
    expect([...r.rowsPerReply]).toEqual([ROWS]);
  }, 60_000);

  it('control: with the high-water mark out of reach the same measurement exceeds the bound', async () => {
    const r = await run(2 ** 40);
    console.log(
      `backpressure off: bridge growth samples (MiB): ${r.samples
        .map((s) => (s / 2 ** 20).toFixed(1))
        .join(', ')}`,
    );
    expect(r.peakGrowth).toBeGreaterThan(BOUND);
    expect(r.mem.stats.upstreamPauses).toBe(0);
  }, 60_000);
});

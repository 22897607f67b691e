/**
 * Transaction throughput of the in-memory OVSDB server against the real
 * ovsdb-server, measured in the same run with the same client.
 *
 * Workloads (OVN Northbound 7.18.0 schema, one logical switch):
 *   - W1b: 5,000 transactions, each inserting one logical switch port (with
 *     addresses and port security) and adding it to the switch's `ports`,
 *     all sent at once (pipelined) on one connection;
 *   - W2: 100,000 ports in transactions of 1,000 (each awaited).
 *
 * Both servers run as separate processes on a fresh database per run: the
 * real one (`ovsdb-server`, standalone, file storage) and the in-memory one
 * (`ovnkit-server`, no snapshot file). The client is a raw socket that
 * writes pre-serialized requests and only counts the replies, so it adds
 * the same small cost to both. Each figure is the median of 3 runs; the
 * ratio is in-memory ÷ real (higher is better; the target is ≥ 0.5).
 *
 * Run: `node --import tsx bench/memory-server.ts [--quick]`.
 * Environment: `BENCH_RUNS` (default 3), `BENCH_W1_TXNS` (5000),
 * `BENCH_W2_PORTS` (100000), `BENCH_W2_BATCH` (1000), and `BENCH_MEMORY_CLI`
 * (another `ovnkit-server` entry point to measure, e.g. a modified copy).
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = resolve(import.meta.dirname, '..');
const SCHEMA = join(ROOT, 'schema/ovn-nb-7.18.0.ovsschema');
const QUICK = process.argv.includes('--quick');
const RUNS = Number(process.env['BENCH_RUNS'] ?? (QUICK ? 1 : 3));
const W1_TXNS = Number(process.env['BENCH_W1_TXNS'] ?? (QUICK ? 500 : 5000));
const W2_PORTS = Number(process.env['BENCH_W2_PORTS'] ?? (QUICK ? 5000 : 100_000));
const W2_BATCH = Number(process.env['BENCH_W2_BATCH'] ?? 1000);
const MEMORY_CLI = process.env['BENCH_MEMORY_CLI'] ?? join(ROOT, 'src/server/cli.ts');

type Kind = 'ovsdb-server' | 'memory';

interface Server {
  readonly sock: string;
  readonly proc: ChildProcess;
  readonly dir: string;
}

async function waitForSocket(path: string, proc: ChildProcess): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (proc.exitCode !== null) throw new Error(`server exited (${proc.exitCode})`);
    const ok = await new Promise<boolean>((done) => {
      const s = connect(path);
      s.once('connect', () => {
        s.destroy();
        done(true);
      });
      s.once('error', () => done(false));
    });
    if (ok) return;
    await sleep(20);
  }
  throw new Error(`${path} did not come up`);
}

async function startServer(kind: Kind): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'ovnkit-bench-mem-'));
  const sock = join(dir, 'db.sock');
  let proc: ChildProcess;
  if (kind === 'ovsdb-server') {
    const db = join(dir, 'nb.db');
    execFileSync('ovsdb-tool', ['create', db, SCHEMA]);
    proc = spawn(
      'ovsdb-server',
      [
        db,
        `--remote=punix:${sock}`,
        `--unixctl=${join(dir, 'x.ctl')}`,
        `--pidfile=${join(dir, 'x.pid')}`,
        `--log-file=${join(dir, 'x.log')}`,
        '-vconsole:off',
      ],
      { stdio: 'ignore' },
    );
  } else {
    proc = spawn(
      process.execPath,
      ['--import', 'tsx', MEMORY_CLI, '--schema', SCHEMA, '--listen', `punix:${sock}`],
      { stdio: 'ignore', cwd: ROOT },
    );
  }
  await waitForSocket(sock, proc);
  return { sock, proc, dir };
}

async function stopServer(s: Server): Promise<void> {
  if (s.proc.exitCode === null) {
    const exited = new Promise((r) => s.proc.once('exit', r));
    s.proc.kill('SIGTERM');
    await exited;
  }
  rmSync(s.dir, { recursive: true, force: true });
}

/** A raw client: writes text, counts complete top-level JSON messages received. */
class RawClient {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private received = 0;
  private waiters: { n: number; resolve: () => void }[] = [];

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.scan(chunk));
  }

  static open(path: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = connect(path);
      s.once('connect', () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** Resolves once `n` messages in total have been received. */
  until(n: number): Promise<void> {
    if (this.received >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  get count(): number {
    return this.received;
  }

  close(): void {
    this.socket.destroy();
  }

  private scan(chunk: Buffer): void {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i] as number;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) this.inString = false;
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth++;
      else if (c === 0x7d || c === 0x5d) {
        this.depth--;
        if (this.depth === 0) this.received++;
      }
    }
    if (this.waiters.length > 0) {
      const ready = this.waiters.filter((w) => w.n <= this.received);
      this.waiters = this.waiters.filter((w) => w.n > this.received);
      for (const w of ready) w.resolve();
    }
  }
}

function lspInsert(i: number, uuidName: string): Record<string, unknown> {
  const mac = `0a:00:${((i >> 16) & 255).toString(16).padStart(2, '0')}:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}:01`;
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  return {
    op: 'insert',
    table: 'Logical_Switch_Port',
    row: {
      name: `lsp-${i}`,
      addresses: ['set', [`${mac} ${ip}`]],
      port_security: ['set', [`${mac} ${ip}`]],
    },
    'uuid-name': uuidName,
  };
}

async function setupSwitch(c: RawClient): Promise<void> {
  c.write(
    JSON.stringify({
      method: 'transact',
      params: ['OVN_Northbound', { op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' } }],
      id: 'setup',
    }),
  );
  await c.until(1);
}

/** W1b: one port per transaction, all pipelined. Returns ports per second. */
async function w1b(kind: Kind): Promise<number> {
  const server = await startServer(kind);
  try {
    const c = await RawClient.open(server.sock);
    await setupSwitch(c);
    const requests: string[] = [];
    for (let i = 0; i < W1_TXNS; i++) {
      requests.push(
        JSON.stringify({
          method: 'transact',
          params: [
            'OVN_Northbound',
            lspInsert(i, 'p'),
            {
              op: 'mutate',
              table: 'Logical_Switch',
              where: [['name', '==', 'sw0']],
              mutations: [['ports', 'insert', ['named-uuid', 'p']]],
            },
          ],
          id: i,
        }),
      );
    }
    const t0 = performance.now();
    for (let i = 0; i < requests.length; i += 100) c.write(requests.slice(i, i + 100).join(''));
    await c.until(1 + W1_TXNS);
    const ms = performance.now() - t0;
    c.close();
    return (W1_TXNS / ms) * 1000;
  } finally {
    await stopServer(server);
  }
}

/** W2: ports in transactions of W2_BATCH, each awaited. Returns ports per second. */
async function w2(kind: Kind): Promise<number> {
  const server = await startServer(kind);
  try {
    const c = await RawClient.open(server.sock);
    await setupSwitch(c);
    const requests: string[] = [];
    for (let start = 0; start < W2_PORTS; start += W2_BATCH) {
      const ops: unknown[] = [];
      const names: unknown[] = [];
      for (let i = start; i < Math.min(W2_PORTS, start + W2_BATCH); i++) {
        ops.push(lspInsert(i, `p${i}`));
        names.push(['named-uuid', `p${i}`]);
      }
      ops.push({
        op: 'mutate',
        table: 'Logical_Switch',
        where: [['name', '==', 'sw0']],
        mutations: [['ports', 'insert', ['set', names]]],
      });
      requests.push(
        JSON.stringify({ method: 'transact', params: ['OVN_Northbound', ...ops], id: start }),
      );
    }
    const t0 = performance.now();
    for (const [k, r] of requests.entries()) {
      c.write(r);
      await c.until(2 + k);
    }
    const ms = performance.now() - t0;
    c.close();
    return (W2_PORTS / ms) * 1000;
  } finally {
    await stopServer(server);
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function measure(
  name: string,
  run: (kind: Kind) => Promise<number>,
): Promise<{ name: string; real: number; memory: number; ratio: number }> {
  const real: number[] = [];
  const memory: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternate the order so that neither server always runs on a warmer machine.
    if (i % 2 === 0) {
      real.push(await run('ovsdb-server'));
      memory.push(await run('memory'));
    } else {
      memory.push(await run('memory'));
      real.push(await run('ovsdb-server'));
    }
  }
  const r = median(real);
  const m = median(memory);
  return { name, real: r, memory: m, ratio: m / r };
}

const results = [
  await measure(`W1b: ${W1_TXNS} one-port transactions, pipelined`, w1b),
  await measure(`W2: ${W2_PORTS} ports in transactions of ${W2_BATCH}`, w2),
];

console.log(`in-memory server vs ovsdb-server (median of ${RUNS}; ports/s; ratio target >= 0.5)`);
for (const r of results) {
  console.log(
    `${r.name.padEnd(48)} ovsdb-server ${r.real.toFixed(0).padStart(8)}  in-memory ${r.memory
      .toFixed(0)
      .padStart(8)}  ratio ${r.ratio.toFixed(2)}`,
  );
}

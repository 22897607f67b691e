/**
 * What a client's requests cost ovsdb-server, counted in instructions:
 * ovsdb-server runs under `valgrind --tool=callgrind`, which counts the
 * instructions it executes and so gives the same number whatever else the
 * machine is doing. A bare connection (no client work to speak of) sends
 * W1b's one-port transactions, all at once, after monitoring either every
 * column (`everything`) or what ovnkit asks for (`as-ovnkit`: `_version`
 * too, with `monitor_cond_since`, and inserts with their own UUID).
 *
 * The count per transaction is the difference between two runs of
 * different sizes on fresh servers (the smaller may send none), divided by
 * the difference in size, so that start-up, schema loading and the monitor
 * request cancel out.
 * @module
 */

import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finishPorts, openWithSwitch, singlePortOps } from './nb-data.js';
import { type BareMonitor, bareOps, bareTransact, monitorBare, openBare } from './ovnkit-side.js';
import { NB_SCHEMA, terminate, waitForSocket } from './servers.js';

/** `valgrind --version`, or why it cannot run. */
export function callgrindStatus(): { ok: true; version: string } | { ok: false; reason: string } {
  const r = spawnSync('valgrind', ['--version'], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) {
    return {
      ok: false,
      reason: `valgrind not installed (${r.error?.message ?? r.stderr.trim()})`,
    };
  }
  return { ok: true, version: r.stdout.trim() };
}

/** Instructions ovsdb-server executed from start to exit, serving `n` W1b transactions. */
async function countRun(root: string, monitor: BareMonitor, n: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'ovnkit-bench-callgrind-'));
  const db = join(dir, 'nb.db');
  const socket = join(dir, 'db.sock');
  const out = join(dir, 'callgrind.out');
  let proc: ChildProcess | undefined;
  try {
    execFileSync('ovsdb-tool', ['create', db, join(root, NB_SCHEMA)]);
    proc = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        `--callgrind-out-file=${out}`,
        'ovsdb-server',
        `--remote=punix:${socket}`,
        `--unixctl=${join(dir, 'x.ctl')}`,
        `--pidfile=${join(dir, 'ovsdb-server.pid')}`,
        `--log-file=${join(dir, 'ovsdb-server.log')}`,
        db,
      ],
      { stdio: 'ignore' },
    );
    await waitForSocket(socket, proc, 'ovsdb-server under callgrind');
    const c = await openWithSwitch(socket);
    const conn = await openBare(`unix:${socket}`);
    try {
      await monitorBare(conn, monitor);
      const ops = Array.from({ length: n }, (_, i) => bareOps(monitor, singlePortOps(i)));
      await Promise.all(ops.map((o) => bareTransact(conn, o)));
    } finally {
      conn.close();
    }
    await finishPorts(c, n, 1, `callgrind ${monitor}`);
    await terminate(proc, 30_000);
    const totals = /^(?:summary|totals): (\d+)/m.exec(readFileSync(out, 'utf8'));
    if (totals === null) throw new Error(`${out}: no instruction total`);
    return Number(totals[1]);
  } finally {
    if (proc !== undefined) await terminate(proc, 30_000);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * ovsdb-server's instructions per W1b transaction for a bare connection
 * that monitors as `monitor` says: runs of `small` and `large`
 * transactions, differenced.
 */
export async function serverInstructionsPerTxn(
  root: string,
  monitor: BareMonitor,
  small: number,
  large: number,
): Promise<number> {
  const a = await countRun(root, monitor, small);
  const b = await countRun(root, monitor, large);
  return (b - a) / (large - small);
}

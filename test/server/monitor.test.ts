/**
 * `ovnkit-server --detach --monitor`: the monitoring parent restarts the
 * server when it is killed (`kill -9`), with every acknowledged write in
 * its database file, and `ovs-appctl exit` ends both. The real
 * ovsdb-server's monitor, as the reference for the clean exit.
 */

import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { accepts, command, type Kind, serverArgs } from './file-servers.js';
import { NB_SCHEMA, until } from './northd-pair.js';

const run = promisify(execFile);
const tools = requireOvsdbServer();
const dirs: string[] = [];
const pids: number[] = [];

afterAll(() => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const alive = (pid: number) => existsSync(`/proc/${pid}`);

function ppid(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Whether `check` holds within `ms` (polled every 100 ms). */
const holds = (check: () => boolean | Promise<boolean>, ms = 20_000): Promise<boolean> =>
  until(
    async () => await check(),
    (v) => v,
    ms,
  );

/** Start `kind` with --detach --monitor on a new NB file; the server's and the monitor's pids. */
async function startMonitored(kind: Kind): Promise<{ dir: string; pid: number; monitor: number }> {
  const dir = mkdtempSync(join(tmpdir(), `ovnkit-monitor-${kind}-`));
  dirs.push(dir);
  const db = join(dir, 'nb.db');
  await run(tools.ovsdbTool, ['create', db, NB_SCHEMA]);
  const [program, args] = command(kind, [
    ...serverArgs(dir, db),
    '--detach',
    '--monitor',
    '--no-chdir',
  ]);
  const parent = spawn(program, args, { stdio: 'ignore' });
  const code = await new Promise((r) => parent.once('exit', r));
  expect(code).toBe(0);
  const pid = Number.parseInt(readFileSync(join(dir, 'x.pid'), 'utf8'), 10);
  const monitor = ppid(pid);
  pids.push(pid, monitor);
  expect(monitor).not.toBe(1);
  expect(await accepts(join(dir, 'db.sock'))).toBe(true);
  return { dir, pid, monitor };
}

const nbctl = (dir: string, ...args: string[]) =>
  run('ovn-nbctl', [`--db=unix:${join(dir, 'db.sock')}`, '--timeout=20', ...args], {
    timeout: 30_000,
  });

describe('--monitor', () => {
  it('ovnkit-server: kill -9 of the server restarts it with every acknowledged write; ovs-appctl exit ends both', async () => {
    const { dir, pid, monitor } = await startMonitored('ovnkit-server');
    const names = Array.from({ length: 10 }, (_, i) => `ls${i}`);
    for (const n of names) await nbctl(dir, 'ls-add', n);
    process.kill(pid, 'SIGKILL');
    let next = pid;
    expect(
      await holds(() => {
        try {
          next = Number.parseInt(readFileSync(join(dir, 'x.pid'), 'utf8'), 10);
        } catch {
          return false;
        }
        return next !== pid && alive(next);
      }),
    ).toBe(true);
    pids.push(next);
    expect(ppid(next)).toBe(monitor);
    expect(await holds(() => accepts(join(dir, 'db.sock')))).toBe(true);
    const listed = (await nbctl(dir, 'ls-list')).stdout;
    for (const n of names) expect(listed).toContain(`(${n})`);
    expect(readFileSync(join(dir, 'x.log'), 'utf8')).toMatch(
      new RegExp(
        `daemon_unix\\(monitor\\)\\|ERR\\|1 crashes: pid ${pid} died, killed \\(SIGKILL\\), restarting`,
      ),
    );
    await run(tools.ovsAppctl, ['-t', join(dir, 'x.ctl'), 'exit']);
    expect(await holds(() => !alive(next) && !alive(monitor))).toBe(true);
  }, 60_000);

  it.each(['ovsdb-server', 'ovnkit-server'] as const)(
    '%s: ovs-appctl exit ends the server and its monitor',
    async (kind) => {
      const { dir, pid, monitor } = await startMonitored(kind);
      await run(tools.ovsAppctl, ['-t', join(dir, 'x.ctl'), 'exit']);
      expect(await holds(() => !alive(pid) && !alive(monitor))).toBe(true);
    },
    60_000,
  );
});

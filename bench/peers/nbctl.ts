/**
 * The `ovn-nbctl` peer: W1a-style sequential port adds, one `ovn-nbctl`
 * process per transaction (what scripts do), and the same through an
 * `ovn-nbctl` daemon (`OVN_NB_DAEMON`), which keeps one synced IDL.
 * @module
 */

import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { portAddress, portName } from '../lib/nb-data.js';

const run = promisify(execFile);

/** `ovn-nbctl --version`'s first line, or why it is unavailable. */
export function nbctlStatus(): { ok: true; version: string } | { ok: false; reason: string } {
  try {
    const out = execFileSync('ovn-nbctl', ['--version'], { encoding: 'utf8' });
    return { ok: true, version: out.split('\n')[0] ?? out };
  } catch (e) {
    return {
      ok: false,
      reason: `ovn-nbctl not installed (${(e as Error).message.split('\n')[0]})`,
    };
  }
}

function addArgs(sw: string, i: number): string[] {
  const name = portName(i);
  const a = portAddress(i);
  return [
    'lsp-add',
    sw,
    name,
    '--',
    'lsp-set-addresses',
    name,
    a,
    '--',
    'lsp-set-port-security',
    name,
    a,
  ];
}

/** Add ports `0 … count-1` with one `ovn-nbctl` process each; returns seconds. */
export async function nbctlSequential(remote: string, sw: string, count: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < count; i++) await run('ovn-nbctl', [`--db=${remote}`, ...addArgs(sw, i)]);
  return (performance.now() - t0) / 1000;
}

/** The same through an `ovn-nbctl` daemon (started before the clock); returns seconds. */
export async function nbctlDaemon(remote: string, sw: string, count: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'ovnkit-bench-nbctl-'));
  const ctl = join(dir, 'nbctl.ctl');
  const pidfile = join(dir, 'nbctl.pid');
  try {
    execFileSync('ovn-nbctl', [
      `--db=${remote}`,
      '--detach',
      `--pidfile=${pidfile}`,
      `--log-file=${join(dir, 'nbctl.log')}`,
      `--unixctl=${ctl}`,
    ]);
    const env = { ...process.env, OVN_NB_DAEMON: ctl };
    // The daemon syncs its IDL on its first command; do one untimed read.
    await run('ovn-nbctl', ['ls-list'], { env });
    const t0 = performance.now();
    for (let i = 0; i < count; i++) await run('ovn-nbctl', addArgs(sw, i), { env });
    return (performance.now() - t0) / 1000;
  } finally {
    try {
      const pid = Number(readFileSync(pidfile, 'utf8').trim());
      if (pid > 0) process.kill(pid, 'SIGTERM');
    } catch {
      // not started
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

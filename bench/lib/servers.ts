/**
 * The servers a workload runs against, each fresh and on a Unix socket: the
 * real `ovsdb-server` (standalone, file storage, via `startOvsdbServer`) and
 * ovnkit's in-memory server as its own process (`src/server/program/cli.ts` through
 * tsx), so that neither shares the client's CPU.
 * @module
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startOvsdbServer } from '../../src/testing/index.js';
import { ovnkitEntry } from './child.js';

/** The NB schema every workload uses, relative to the repository root. */
export const NB_SCHEMA = 'schema/ovn-nb-7.18.0.ovsschema';

/** Which server. */
export type ServerKind = 'ovsdb-server' | 'memory';

/** A running benchmark server. */
export interface BenchServer {
  /** Which server it is. */
  readonly kind: ServerKind;
  /** `unix:<path>`. */
  readonly remote: string;
  /** The socket path. */
  readonly socketPath: string;
  /** The server's process ID (for its RSS), when known. */
  readonly pid?: number | undefined;
  /** `tcp:127.0.0.1:<port>`, for ovsdb-server (which also listens there). */
  readonly tcpRemote?: string | undefined;
  /** Stop it and remove its files. */
  stop(): Promise<void>;
}

/**
 * Wait until the Unix socket at `path` accepts a connection, trying every
 * `pollMs` (default 20) for at most `withinMs` (default 30 s), and no longer
 * than `proc` (called `what` in the errors) runs.
 */
export async function waitForSocket(
  path: string,
  proc: ChildProcess,
  what: string,
  { pollMs = 20, withinMs = 30_000 }: { pollMs?: number; withinMs?: number } = {},
): Promise<void> {
  for (let i = 0; i * pollMs < withinMs; i++) {
    if (proc.exitCode !== null) throw new Error(`${what} exited (${proc.exitCode})`);
    const ok = await new Promise<boolean>((done) => {
      const s = connect(path);
      s.once('connect', () => {
        s.destroy();
        done(true);
      });
      s.once('error', () => done(false));
    });
    if (ok) return;
    await sleep(pollMs);
  }
  throw new Error(`${what}: ${path} did not come up within ${withinMs / 1000} s`);
}

/** Stop `proc` if it still runs: SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
export async function terminate(proc: ChildProcess, graceMs: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Start a fresh server of `kind` with the NB 7.18.0 schema. `root` is the repository root. */
export async function startBenchServer(kind: ServerKind, root: string): Promise<BenchServer> {
  if (kind === 'ovsdb-server') {
    const s = await startOvsdbServer({
      schemaPath: join(root, NB_SCHEMA),
      remotes: ['unix', 'tcp'],
    });
    return {
      kind,
      remote: s.unixRemote,
      socketPath: s.unixRemote.slice('unix:'.length),
      pid: s.pid,
      tcpRemote: s.remotes.tcp,
      stop: () => s.stop(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'ovnkit-bench-mem-'));
  const socketPath = join(dir, 'db.sock');
  // The program as it ships (the run's compiled copy), or its source through tsx.
  const cli = ovnkitEntry(root, 'server/program/cli');
  const proc = spawn(
    process.execPath,
    [...cli.flags, cli.file, '--schema', join(root, NB_SCHEMA), '--listen', `punix:${socketPath}`],
    { stdio: ['ignore', 'ignore', 'inherit'], cwd: root },
  );
  try {
    await waitForSocket(socketPath, proc, 'ovnkit-server');
  } catch (e) {
    proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    kind,
    remote: `unix:${socketPath}`,
    socketPath,
    pid: proc.pid ?? -1,
    async stop() {
      await terminate(proc, 5000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Run `fn` against a fresh server of `kind`, stopping it afterwards. */
export async function withServer<T>(
  kind: ServerKind,
  root: string,
  fn: (server: BenchServer) => Promise<T>,
): Promise<T> {
  const server = await startBenchServer(kind, root);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

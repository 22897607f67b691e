/**
 * Process bookkeeping shared by the real-server harnesses (`ovsdb-server.ts`,
 * `cluster.ts`): every child process and temporary directory they create is
 * registered here, so that one set of exit and signal hooks kills and removes
 * them all and nothing outlives the test process. Also the readiness probe
 * of their sockets.
 * @module
 */

import { type ChildProcess, execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as net from 'node:net';
import { promisify } from 'node:util';
import { connectUnixSocket } from '../ovsdb/transport/unix-path.js';

const run = promisify(execFile);

/**
 * Whether a socket (`{ path }`, or `{ host, port }`) accepts a connection
 * within a second; the connection is closed at once.
 */
export function socketAccepts(options: net.NetConnectOpts): Promise<boolean> {
  return new Promise((done) => {
    const socket = 'path' in options ? connectUnixSocket(options.path) : net.connect(options);
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
    socket.setTimeout(1000, () => finish(false));
  });
}

/** Child processes to SIGKILL when the test process exits. */
export const liveChildren = new Set<ChildProcess>();
/** Temporary directories to remove when the test process exits. */
export const liveDirs = new Set<string>();
let hooksInstalled = false;

function cleanupSync(): void {
  for (const child of liveChildren) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  liveChildren.clear();
  for (const dir of liveDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort
    }
  }
  liveDirs.clear();
}

/** Install the exit and signal hooks once per process. */
export function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', cleanupSync);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      cleanupSync();
      // When nobody else handles the signal, restore the default action.
      if (process.listenerCount(signal) === 1) {
        process.off(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}

/**
 * Run an Open vSwitch tool and return its stdout; a failure becomes an Error
 * naming the command and carrying its stderr.
 */
export async function runTool(
  tool: string,
  args: string[],
  timeout = 30_000,
  maxBuffer = 64 * 1024 * 1024,
): Promise<string> {
  try {
    const { stdout } = await run(tool, args, { timeout, maxBuffer });
    return stdout;
  } catch (e) {
    const err = e as Error & { stderr?: string };
    throw new Error(
      `${tool} ${args.join(' ')} failed: ${err.stderr?.trim() || err.message}`.slice(0, 4000),
      { cause: e },
    );
  }
}

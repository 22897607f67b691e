/**
 * Running `ovnkit-server` as a daemon, as Open vSwitch daemons run
 * (`lib/daemon-unix.c`):
 *
 * - `--detach`: the program starts a copy of itself in a new session and
 *   waits on a pipe; the copy signals once its databases are open and it
 *   listens, and the first exits 0 (with the copy's exit status, or 1, when
 *   the copy dies first). The copy then changes to `/` unless `--no-chdir`,
 *   and writes nothing more to the console.
 * - `--pidfile`: the process id, written atomically (`<file>.tmp<pid>`,
 *   rename) before the databases are opened, as ovsdb-server writes it, and
 *   removed when the server exits. The server keeps the file open while it
 *   runs. A pidfile that names another ovnkit-server holding it open is an
 *   error unless `--overwrite-pidfile`; one that names a process which
 *   does not hold it (the pid reused after a crash, or in a new container)
 *   is stale and replaced.
 *
 * - `--monitor`: a monitoring parent runs the server as its child and starts
 *   a new child when the server crashes: killed by a signal other than
 *   SIGTERM, SIGINT or SIGHUP (SIGKILL and SIGABRT included: the kernel's
 *   out-of-memory killer and V8's fatal errors end a Node process so), or
 *   exiting with a non-zero status once it had started. A server that
 *   exits cleanly (status 0: `ovs-appctl exit`, SIGTERM) ends the monitor
 *   too. Restarts are at most one per 10 seconds, as Open vSwitch's
 *   monitor does; a server that fails during its first start ends the
 *   monitor with that status. SIGTERM, SIGINT and SIGHUP sent to the
 *   monitor go to the server. The pidfile names the server, not the
 *   monitor. ovsdb-server's monitor restarts only after signals that
 *   indicate a bug (SIGSEGV, SIGABRT, …), not after SIGKILL.
 *
 * Open vSwitch holds an `fcntl` lock on the pidfile instead, which Node
 * cannot take: so `ovs-appctl -t <name>` (which finds the daemon through a
 * locked pidfile) does not reach ovnkit-server (name the control socket
 * instead: `--unixctl=SOCKET`, `ovs-appctl -t SOCKET`), and whether the
 * named process holds the file is read from `/proc/<pid>/fd` (on Linux;
 * elsewhere, and when that is not readable by this user, a live process is
 * taken to be the server).
 * @module
 */

import { spawn } from 'node:child_process';
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import type { Readable } from 'node:stream';

/** Set in the environment of the detached copy. */
const DAEMON_ENV = 'OVNKIT_SERVER_DAEMON_FD';
/** Set in the environment of the server a monitor runs. */
const MONITORED_ENV = 'OVNKIT_SERVER_MONITORED';
/** The copy's end of the startup pipe. */
const NOTIFY_FD = 3;

/** Whether this process is the detached copy of a `--detach` start. */
export function isDetachedChild(): boolean {
  return process.env[DAEMON_ENV] === String(NOTIFY_FD);
}

/** Whether this process is the server that a `--monitor` parent runs. */
export function isMonitoredChild(): boolean {
  return process.env[MONITORED_ENV] === '1';
}

/**
 * In the detached copy: tell the waiting parent that startup is complete
 * (then it exits 0). Called once; later calls do nothing.
 */
export function notifyStarted(): void {
  if (!isDetachedChild()) return;
  delete process.env[DAEMON_ENV];
  try {
    writeSync(NOTIFY_FD, 'ready\n');
    closeSync(NOTIFY_FD);
  } catch {
    // the parent is gone: nothing to tell
  }
}

/**
 * Start this program again, detached, with `args`, and wait until it
 * signals startup. Resolves with the exit status for the parent: 0 once the
 * copy runs, the copy's own status (or 1) when it exits first.
 */
export function detach(
  args: readonly string[],
  io: { stdout(t: string): void; stderr(t: string): void },
): Promise<number> {
  const script = process.argv[1] as string;
  const child = spawn(process.execPath, [...process.execArgv, script, ...args], {
    detached: true,
    argv0: process.argv0,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    env: { ...process.env, [DAEMON_ENV]: String(NOTIFY_FD) },
  });
  const relay = (stream: Readable | null, write: (t: string) => void) => {
    stream?.setEncoding('utf8');
    stream?.on('data', (t: string) => write(t));
    stream?.on('error', () => {});
  };
  relay(child.stdout, (t) => io.stdout(t));
  relay(child.stderr, (t) => io.stderr(t));
  const notify = child.stdio[NOTIFY_FD] as Readable | null;
  return new Promise((resolve) => {
    let done = false;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      child.stdout?.destroy();
      child.stderr?.destroy();
      notify?.destroy();
      child.unref();
      resolve(code);
    };
    notify?.on('error', () => {});
    notify?.on('data', () => setImmediate(() => finish(0)));
    child.once('error', (e) => {
      io.stderr(`ovnkit-server: cannot start the daemon: ${e.message}\n`);
      finish(1);
    });
    child.once('exit', (code, signal) => {
      if (done) return;
      // Let what the copy printed before dying come through first.
      setImmediate(() => {
        if (code !== null && code !== 0) {
          finish(code);
          return;
        }
        io.stderr(
          `ovnkit-server: fork child died before signaling startup (${signal === null ? `exit status ${code}` : `killed (${signal})`})\n`,
        );
        finish(1);
      });
    });
  });
}

/** Signals that end a monitored server on purpose: the monitor then ends too. */
const CLEAN_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/** How a monitored server ended, in Open vSwitch's words. */
function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `killed (${signal})` : `exit status ${code}`;
}

/**
 * Be the monitor of `--monitor`: run this program with `args` as a child
 * (detached from the console when this process is, see
 * {@link isDetachedChild}), tell the waiting parent once the first child
 * has started, and start a new child whenever one crashes (see the module
 * documentation). `log` writes one line in the server's log format.
 * Resolves with this process's exit status.
 */
export async function runMonitor(
  args: readonly string[],
  log: (level: 'INFO' | 'WARN' | 'ERR', text: string) => void,
): Promise<number> {
  const script = process.argv[1] as string;
  const title = process.title;
  let child: ReturnType<typeof spawn> | undefined;
  let stopping = false;
  for (const signal of CLEAN_SIGNALS) {
    process.on(signal, () => {
      stopping = true;
      if (child?.exitCode === null && child.signalCode === null) child.kill(signal);
      else process.exit(0);
    });
  }
  let lastRestart = Number.NEGATIVE_INFINITY;
  let crashes = 0;
  for (let first = true; ; first = false) {
    const c = spawn(process.execPath, [...process.execArgv, script, ...args], {
      argv0: process.argv0,
      stdio: ['ignore', 'inherit', 'inherit', 'pipe'],
      env: { ...process.env, [DAEMON_ENV]: String(NOTIFY_FD), [MONITORED_ENV]: '1' },
    });
    child = c;
    const notify = c.stdio[NOTIFY_FD] as Readable | null;
    notify?.on('error', () => {});
    const ready = new Promise<boolean>((resolve) => {
      notify?.once('data', () => resolve(true));
      c.once('exit', () => resolve(false));
    });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      c.once('exit', (code, signal) => resolve([code, signal])),
    );
    c.once('error', (e) => log('ERR', `cannot start the server: ${e.message}`));
    const started = await ready;
    notify?.destroy();
    if (first) {
      if (!started) {
        const [code] = await exited;
        return code !== null && code !== 0 ? code : 1;
      }
      notifyStarted();
    }
    process.title = `${title}: monitoring pid ${c.pid} (${crashes === 0 ? 'healthy' : `${crashes} crashes`})`;
    const [code, signal] = await exited;
    const status = `pid ${c.pid} died, ${describeExit(code, signal)}`;
    const clean =
      stopping ||
      (signal === null && code === 0) ||
      (signal !== null && CLEAN_SIGNALS.includes(signal));
    if (clean) {
      log('INFO', `${status}, exiting`);
      return 0;
    }
    crashes++;
    if (Date.now() < lastRestart + 10_000) {
      log('WARN', `${status}, waiting until 10 seconds since last restart`);
      await new Promise((r) => setTimeout(r, lastRestart + 10_000 - Date.now()));
      if (stopping) return 0;
    }
    lastRestart = Date.now();
    log('ERR', `${crashes} crashes: ${status}, restarting`);
  }
}

/** Whether process `pid` exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether process `pid` holds `file` open: false when it does not (or is
 * gone), undefined when this cannot be told here.
 */
function holdsOpen(pid: number, file: Stats): boolean | undefined {
  if (process.platform !== 'linux') return undefined;
  let owner: Stats;
  try {
    owner = statSync(`/proc/${pid}`);
  } catch {
    return false;
  }
  // The server that wrote the file owns it: a process of another user is not that server.
  if (owner.uid !== file.uid) return false;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  for (const fd of fds) {
    try {
      const s = statSync(`/proc/${pid}/fd/${fd}`);
      if (s.ino === file.ino && s.dev === file.dev) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

/** A pidfile this process wrote and holds open; {@link Pidfile.remove} it on exit. */
export class Pidfile {
  private removed = false;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    /** The live process a stale pidfile named, when it was replaced. */
    readonly replacedPid: number | undefined,
  ) {}

  /**
   * Write this process's id to `path`, and keep the file open.
   * @throws Error when `path` names another ovnkit-server that holds it
   *   (unless `overwrite`), or cannot be written.
   */
  static create(path: string, overwrite: boolean): Pidfile {
    let replacedPid: number | undefined;
    if (!overwrite) {
      let text: string | undefined;
      let file: Stats | undefined;
      try {
        text = readFileSync(path, 'utf8');
        file = statSync(path);
      } catch {
        // none
      }
      const pid = text === undefined ? Number.NaN : Number.parseInt(text, 10);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        if (file === undefined || holdsOpen(pid, file) !== false) {
          throw new Error(`${path}: already running as pid ${pid}, aborting`);
        }
        replacedPid = pid;
      }
    }
    const tmp = `${path}.tmp${process.pid}`;
    let fd: number | undefined;
    try {
      fd = openSync(tmp, 'w', 0o644);
      writeSync(fd, `${process.pid}\n`);
      renameSync(tmp, path);
    } catch (e) {
      if (fd !== undefined) closeSync(fd);
      try {
        unlinkSync(tmp);
      } catch {
        // never made
      }
      throw new Error(`${path}: cannot create pidfile (${(e as Error).message})`);
    }
    return new Pidfile(path, fd, replacedPid);
  }

  /** Remove the pidfile if it still names this process, and close it. */
  remove(): void {
    if (this.removed) return;
    this.removed = true;
    try {
      if (Number.parseInt(readFileSync(this.path, 'utf8'), 10) === process.pid) {
        unlinkSync(this.path);
      }
    } catch {
      // already gone
    }
    closeSync(this.fd);
  }
}

/**
 * Test helpers: `ovnkit-server` and the real `ovsdb-server` as processes on
 * a database file, started with the same ovsdb-server command line (unix
 * socket, control socket, pidfile, log file in one directory), and a raw
 * client that sends pre-serialized requests and sees each reply.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { JsonStreamFramer } from '../../src/ovsdb/wire/framer.js';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { installHooks, liveChildren, socketAccepts } from '../../src/testing/processes.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'src/server/program/cli.ts');

/** Which server. */
export type Kind = 'ovnkit-server' | 'ovsdb-server';

/** A server process on `db` in `dir`. */
export interface FileServer {
  readonly kind: Kind;
  readonly child: ChildProcess;
  readonly sock: string;
  readonly ctl: string;
  readonly pidfile: string;
  readonly log: string;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** SIGKILL, and wait for the end. */
  kill(): Promise<void>;
}

/** The command line ovsdb-server takes, for either server (no `db`: ovnkit-server serving `--schema` from memory). */
export function serverArgs(dir: string, db: string | undefined): string[] {
  return [
    ...(db === undefined ? [] : [db]),
    `--remote=punix:${join(dir, 'db.sock')}`,
    `--unixctl=${join(dir, 'x.ctl')}`,
    `--pidfile=${join(dir, 'x.pid')}`,
    `--log-file=${join(dir, 'x.log')}`,
  ];
}

/** The program and arguments that run `kind` with `args`. */
export function command(kind: Kind, args: readonly string[]): [string, string[]] {
  if (kind === 'ovsdb-server')
    return [requireOvsdbServer(false).ovsdbServer, [...args, '-vconsole:off']];
  // Extra node flags for the server process (e.g. `--cpu-prof`, which NODE_OPTIONS refuses).
  const flags = (process.env.OVNKIT_SERVER_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
  // The compiled program (the benchmarks run it as it ships), or the sources through tsx.
  const compiled = process.env.OVNKIT_SERVER_CLI;
  if (compiled !== undefined && compiled !== '') {
    return [process.execPath, [...flags, compiled, ...args]];
  }
  return [
    process.execPath,
    [...flags, '--conditions=ovnkit-source', '--import', 'tsx', CLI, ...args],
  ];
}

/** Where `startCli` writes, kept for the test to read. */
export interface CapturedIo {
  out: string;
  err: string;
  stdout(t: string): void;
  stderr(t: string): void;
}

/** A `CliIo` that keeps what is written. */
export function captureIo(): CapturedIo {
  const o: CapturedIo = {
    out: '',
    err: '',
    stdout: (t) => {
      o.out += t;
    },
    stderr: (t) => {
      o.err += t;
    },
  };
  return o;
}

/** Whether the unix socket at `path` accepts a connection. */
export function accepts(path: string): Promise<boolean> {
  return socketAccepts({ path });
}

/**
 * Start `kind` on `db` (in `dir`; none: a `--schema` in `extra`) and wait
 * until it accepts connections (at most `startupMs`).
 */
export async function startFileServer(
  kind: Kind,
  dir: string,
  db: string | undefined,
  extra: readonly string[] = [],
  shellPrefix?: string,
  startupMs = 30_000,
): Promise<FileServer> {
  installHooks();
  const [program, args] = command(kind, [...serverArgs(dir, db), ...extra]);
  // `shellPrefix` runs first in a shell that then becomes the server (e.g. `ulimit -f 100`).
  const child =
    shellPrefix === undefined
      ? spawn(program, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] })
      : spawn('/bin/sh', ['-c', `${shellPrefix}; exec "$0" "$@"`, program, ...args], {
          cwd: ROOT,
          stdio: ['ignore', 'ignore', 'pipe'],
        });
  liveChildren.add(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (t: string) => {
    stderr = (stderr + t).slice(-4000);
  });
  const exited = new Promise<number | string>((r) =>
    child.once('exit', (code, signal) => {
      liveChildren.delete(child);
      r(code ?? signal ?? -1);
    }),
  );
  const sock = join(dir, 'db.sock');
  const ctl = join(dir, 'x.ctl');
  const deadline = Date.now() + startupMs;
  // The database socket, then the control socket (ovs-appctl), which may come later.
  for (const path of [sock, ctl]) {
    while (!(await accepts(path))) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${kind} exited during startup: ${stderr}`);
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`${kind} did not listen on ${path} within ${startupMs} ms: ${stderr}`);
      }
      await sleep(20);
    }
  }
  return {
    kind,
    child,
    sock,
    ctl,
    pidfile: join(dir, 'x.pid'),
    log: join(dir, 'x.log'),
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Files in `dir` other than the expected ones. */
export function strayFiles(dir: string, expected: readonly string[]): string[] {
  return readdirSync(dir).filter((f) => !expected.includes(f));
}

/** A raw JSON-RPC client on a unix socket: requests by id, each reply delivered once. */
export class RawRpc {
  private readonly framer = new JsonStreamFramer();
  private readonly waiting = new Map<string, (reply: Record<string, unknown>) => void>();
  private closedWith: Error | undefined;
  private readonly onClose: (() => void)[] = [];

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      const out: unknown[] = [];
      this.framer.pushInto(chunk, out);
      for (const m of out as Record<string, unknown>[]) {
        const key = JSON.stringify(m.id);
        const w = this.waiting.get(key);
        if (w !== undefined) {
          this.waiting.delete(key);
          w(m);
        }
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closedWith ??= new Error('connection closed');
      for (const f of this.onClose) f();
    });
  }

  static open(path: string): Promise<RawRpc> {
    return new Promise((resolve, reject) => {
      const s = connect(path);
      s.once('connect', () => resolve(new RawRpc(s)));
      s.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Send a request; resolves with its reply, or rejects when the connection closes first. */
  request(
    method: string,
    params: unknown[],
    id: number | string,
  ): Promise<Record<string, unknown>> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith);
    return new Promise((resolve, reject) => {
      const key = JSON.stringify(id);
      this.waiting.set(key, resolve);
      this.onClose.push(() => {
        if (this.waiting.delete(key)) reject(this.closedWith);
      });
      this.socket.write(JSON.stringify({ method, params, id }));
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

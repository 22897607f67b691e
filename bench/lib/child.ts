/**
 * Child processes of the harness: run a command, collect its output, and
 * parse the JSON object it prints last on stdout.
 * @module
 */

import { spawn } from 'node:child_process';

/** Options of {@link runJson}. */
export interface RunJsonOptions {
  /** Working directory. */
  readonly cwd?: string;
  /** Extra environment variables. */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill the child after this many ms (default 20 minutes). */
  readonly timeoutMs?: number;
}

/** Run `command args…`, fail on a non-zero exit, and parse the last stdout line as JSON. */
export function runJson<T>(
  command: string,
  args: readonly string[],
  options: RunJsonOptions = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20 * 60_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const what = `${command} ${args.join(' ')}`;
      if (code !== 0) {
        reject(new Error(`${what} exited with ${code ?? signal}:\n${err.slice(-4000)}`));
        return;
      }
      const line = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as T);
      } catch {
        reject(
          new Error(`${what} printed no JSON result:\n${out.slice(-2000)}\n${err.slice(-2000)}`),
        );
      }
    });
  });
}

/** Run a TypeScript file of this repository in a fresh Node process (through tsx). */
export function runTsChild<T>(
  root: string,
  file: string,
  args: readonly string[],
  nodeFlags: readonly string[] = [],
): Promise<T> {
  return runJson<T>(process.execPath, [...nodeFlags, '--import', 'tsx', file, ...args], {
    cwd: root,
  });
}

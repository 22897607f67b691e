/**
 * Child processes of the harness: run a command, collect its output, and
 * parse the JSON object it prints last on stdout.
 * @module
 */

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/**
 * The Node flags that run one of the harness's TypeScript files: tsx, and
 * `compiled.mjs`, which sends ovnkit's own modules to the compiled copy the
 * parent made (unless `OVNKIT_BENCH_SOURCE=1`).
 */
export function benchNodeFlags(): string[] {
  const flags = ['--import', 'tsx'];
  if (process.env['OVNKIT_BENCH_SOURCE'] !== '1') {
    flags.push('--import', fileURLToPath(new URL('./compiled.mjs', import.meta.url)));
  }
  return flags;
}

/**
 * The ovnkit module the harness's processes load for `src/<path>.ts`: the
 * compiled copy of this run (see `compiled.mjs`), or the source file when
 * the sources run through tsx. Returns the path and the Node flags it needs.
 */
export function ovnkitEntry(root: string, path: string): { file: string; flags: string[] } {
  const compiled = process.env['OVNKIT_BENCH_COMPILED'];
  if (process.env['OVNKIT_BENCH_SOURCE'] !== '1' && compiled !== undefined && compiled !== '') {
    return { file: join(compiled, 'src', `${path}.js`), flags: [] };
  }
  return { file: join(root, 'src', `${path}.ts`), flags: ['--import', 'tsx'] };
}

/** Run a TypeScript file of this repository in a fresh Node process (see {@link benchNodeFlags}). */
export function runTsChild<T>(
  root: string,
  file: string,
  args: readonly string[],
  nodeFlags: readonly string[] = [],
): Promise<T> {
  return runJson<T>(process.execPath, [...nodeFlags, ...benchNodeFlags(), file, ...args], {
    cwd: root,
  });
}

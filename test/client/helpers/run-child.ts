/**
 * Run a child process to its end (the namespace tests run their client in
 * one): resolves with its stdout when it exits with 0, rejects with the end
 * of its stderr otherwise; killed (SIGKILL) after `timeoutMs`.
 */

import { spawn } from 'node:child_process';

export function runChild(
  command: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => {
      stdout += d;
    });
    p.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} exited with ${code}: ${stderr.slice(-3000)}`));
    });
  });
}

/** The last line of a child's output, parsed as JSON. */
export function lastJsonLine<T>(stdout: string): T {
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as T;
}

/**
 * {@link runCli}: the `ovnkit` command line: `ovnkit <subcommand> [args]`,
 * dispatched through the table of `commands.ts`. Exit statuses: 0 success,
 * 1 failure, 2 usage error.
 * @module
 */

import { COMMANDS } from './commands.js';
import type { CliIo } from './io.js';

function usage(): string {
  const names = Object.keys(COMMANDS).sort();
  const width = Math.max(...names.map((n) => n.length));
  return [
    'Usage: ovnkit <command> [options]',
    '',
    'Commands:',
    ...names.map((n) => `  ${n.padEnd(width)}  ${COMMANDS[n]!.summary}`),
    '',
    'Run "ovnkit <command> --help" for the options of a command.',
    '',
  ].join('\n');
}

/**
 * Run the command line `argv` (without `node` and the script).
 *
 * ```ts
 * process.exitCode = await runCli(['show', '--db', 'unix:/var/run/ovn/ovnnb_db.sock']);
 * ```
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(usage());
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    io.stderr.write(`ovnkit: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return 2;
  }
  const run = await command.load();
  return run(rest, io);
}

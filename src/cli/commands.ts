/**
 * The `ovnkit` subcommands: a table from name to a one-line summary and a
 * loader, so that `ovnkit <name>` loads only the code of the subcommand it
 * runs. Add a subcommand by adding an entry.
 * @module
 */

import type { CliIo } from './io.js';

/** A subcommand: runs with its arguments and resolves with the exit status. */
export type CliRun = (argv: readonly string[], io: CliIo) => Promise<number>;

/** One entry of {@link COMMANDS}. */
export interface CliCommand {
  /** One line for `ovnkit --help`. */
  readonly summary: string;
  /** Load the subcommand. */
  readonly load: () => Promise<CliRun>;
}

/** The subcommands, by name. */
export const COMMANDS: Readonly<Record<string, CliCommand>> = {
  show: {
    summary: 'print the Northbound topology, like ovn-nbctl show',
    load: async () => (await import('./show.js')).runShowCli,
  },
  bridge: {
    summary: 'serve OVSDB to browsers over WebSocket',
    load: async () => {
      const { runBridgeCli } = await import('../bridge/cli.js');
      return (argv, io) => runBridgeCli(argv, { stdout: io.stdout, stderr: io.stderr });
    },
  },
};

/**
 * What an `ovnkit` subcommand writes to and reads its defaults from.
 * @module
 */

/** Where a subcommand writes. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** The environment (for defaults such as `OVN_NB_DB`). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

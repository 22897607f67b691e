/**
 * `ovnkit show`: print the Northbound topology the way `ovn-nbctl show`
 * does (switches, routers, their ports and NAT rules), sorted.
 *
 * ```
 * ovnkit show --db unix:/var/run/ovn/ovnnb_db.sock [SWITCH|ROUTER]
 * ovnkit show --db ssl:10.0.0.1:6641 -p key.pem -c cert.pem -C cacert.pem
 * ```
 * @module
 */

import { readFile } from 'node:fs/promises';
import type { DatabaseClient } from '../client/client.js';
import { connectDatabase } from '../client/open.js';
import { NB, type NBTables } from '../nb/generated/model.js';
import { showNb } from '../nb/show.js';
import type { CliIo } from './io.js';

/** The remote used when neither `--db` nor `OVN_NB_DB` is given (as for `ovn-nbctl`). */
export const DEFAULT_NB_DB = 'unix:/var/run/ovn/ovnnb_db.sock';

const USAGE = `Usage: ovnkit show [--db REMOTE] [options] [SWITCH|ROUTER]

Print the logical switches and routers of an OVN Northbound database, with
their ports and NAT rules, like "ovn-nbctl show".

Options:
  --db REMOTE             the database (default: $OVN_NB_DB, or ${DEFAULT_NB_DB});
                          several remotes may be separated by commas
  -t, --timeout SECS      give up connecting after SECS seconds (default 10)
  --no-leader-only        accept any cluster member, not just the leader
  -p, --private-key FILE  client private key (ssl: remotes)
  -c, --certificate FILE  client certificate (ssl: remotes)
  -C, --ca-cert FILE      CA certificate (ssl: remotes)
  -h, --help              show this help
`;

class UsageError extends Error {}

interface ShowArgs {
  readonly db: string;
  readonly timeoutMs: number;
  readonly leaderOnly: boolean;
  readonly only: string | undefined;
  readonly key: string | undefined;
  readonly cert: string | undefined;
  readonly ca: string | undefined;
}

function parseArgs(argv: readonly string[], env: CliIo['env']): ShowArgs | 'help' {
  let db = env['OVN_NB_DB'] || DEFAULT_NB_DB;
  let timeoutMs = 10_000;
  let leaderOnly = true;
  let only: string | undefined;
  let key: string | undefined;
  let cert: string | undefined;
  let ca: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      if (eq > 0) return arg.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '-h':
      case '--help':
        return 'help';
      case '--db':
        db = value();
        break;
      case '-t':
      case '--timeout': {
        const v = value();
        const secs = Number(v);
        if (!/^\d+(\.\d+)?$/.test(v) || secs <= 0)
          throw new UsageError(
            `--timeout: expected a positive number of seconds, got ${JSON.stringify(v)}`,
          );
        timeoutMs = secs * 1000;
        break;
      }
      case '--no-leader-only':
        leaderOnly = false;
        break;
      case '-p':
      case '--private-key':
        key = value();
        break;
      case '-c':
      case '--certificate':
        cert = value();
        break;
      case '-C':
      case '--ca-cert':
        ca = value();
        break;
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
        if (only !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
        only = arg;
    }
  }
  return { db, timeoutMs, leaderOnly, only, key, cert, ca };
}

/**
 * Run `ovnkit show` with `argv` (the arguments after `show`). Resolves with
 * the exit status: 0 printed, 1 could not connect or read, 2 usage error.
 */
export async function runShowCli(argv: readonly string[], io: CliIo): Promise<number> {
  let args: ShowArgs | 'help';
  try {
    args = parseArgs(argv, io.env);
  } catch (e) {
    io.stderr.write(
      `ovnkit show: ${e instanceof Error ? e.message : String(e)}\nTry "ovnkit show --help".\n`,
    );
    return 2;
  }
  if (args === 'help') {
    io.stdout.write(USAGE);
    return 0;
  }
  let tls: { key?: Buffer; cert?: Buffer; ca?: Buffer } | undefined;
  try {
    if (args.key !== undefined || args.cert !== undefined || args.ca !== undefined) {
      tls = {
        ...(args.key !== undefined ? { key: await readFile(args.key) } : {}),
        ...(args.cert !== undefined ? { cert: await readFile(args.cert) } : {}),
        ...(args.ca !== undefined ? { ca: await readFile(args.ca) } : {}),
      };
    }
  } catch (e) {
    io.stderr.write(`ovnkit show: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  let client: DatabaseClient<NBTables>;
  try {
    client = connectDatabase({
      remotes: args.db,
      model: NB,
      leaderOnly: args.leaderOnly,
      connectTimeoutMs: args.timeoutMs,
      ...(tls !== undefined ? { tls } : {}),
    });
  } catch (e) {
    io.stderr.write(`ovnkit show: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`could not connect to ${args.db} within ${args.timeoutMs / 1000} s`)),
        args.timeoutMs,
      );
    });
    await Promise.race([client.ready, timeout]);
    io.stdout.write(showNb(client, { only: args.only }));
    return 0;
  } catch (e) {
    io.stderr.write(`ovnkit show: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    await client.close();
  }
}

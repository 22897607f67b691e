/**
 * Locating the Open vSwitch programs the test harness runs (`ovsdb-server`,
 * `ovsdb-tool`, `ovsdb-client`, `ovs-appctl`, `ovs-pki`).
 * @module
 */

import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Absolute paths of the Open vSwitch programs the harness uses. */
export interface OvsTools {
  /** `ovsdb-server`: the database server. */
  readonly ovsdbServer: string;
  /** `ovsdb-tool`: creates database files. */
  readonly ovsdbTool: string;
  /** `ovsdb-client`: a command-line client, handy for checks from tests. */
  readonly ovsdbClient: string;
  /** `ovs-appctl`: controls a running server through its unixctl socket. */
  readonly ovsAppctl: string;
  /** Absent when `ovs-pki` is not installed; only TLS servers need it. */
  readonly ovsPki?: string | undefined;
}

// sbin directories are often missing from PATH for non-root users.
const EXTRA_DIRS = ['/usr/sbin', '/usr/local/sbin', '/sbin', '/usr/bin', '/usr/local/bin'];

/** Environment variable naming the directories (PATH syntax) to search instead of the defaults. */
export const OVS_BIN_DIRS_ENV = 'OVNKIT_OVS_BIN_DIRS';

function searchDirs(): string[] {
  const override = process.env[OVS_BIN_DIRS_ENV];
  if (override !== undefined) return override.split(delimiter).filter(Boolean);
  return [...(process.env['PATH'] ?? '').split(delimiter).filter(Boolean), ...EXTRA_DIRS];
}

/** The path of program `name` in the directories searched for Open vSwitch's programs, if any. */
export function findProgram(name: string): string | undefined {
  const dirs = searchDirs();
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

let cached: OvsTools | null | undefined;

/**
 * Find the Open vSwitch programs on `PATH` and in the usual sbin directories
 * (or only in the directories of the `OVNKIT_OVS_BIN_DIRS` environment
 * variable, when set, e.g. for an Open vSwitch built from source).
 * Returns undefined when `ovsdb-server`, `ovsdb-tool`, `ovsdb-client` or
 * `ovs-appctl` is missing. The result is cached.
 */
export function findOvsdbServer(): OvsTools | undefined {
  if (cached !== undefined) return cached ?? undefined;
  const ovsdbServer = findProgram('ovsdb-server');
  const ovsdbTool = findProgram('ovsdb-tool');
  const ovsdbClient = findProgram('ovsdb-client');
  const ovsAppctl = findProgram('ovs-appctl');
  const ovsPki = findProgram('ovs-pki');
  if (!ovsdbServer || !ovsdbTool || !ovsdbClient || !ovsAppctl) {
    cached = null;
    return undefined;
  }
  cached = { ovsdbServer, ovsdbTool, ovsdbClient, ovsAppctl, ovsPki };
  return cached;
}

/** Thrown by {@link requireOvsdbServer} when Open vSwitch is not installed. */
export class OvsdbServerMissingError extends Error {
  override name = 'OvsdbServerMissingError';
}

const NOTICE = [
  '',
  '################################################################################',
  '#  ovsdb-server NOT FOUND                                                      #',
  '#                                                                              #',
  '#  These tests run against a real Open vSwitch ovsdb-server and cannot pass    #',
  '#  without it. Install Open vSwitch (Debian/Ubuntu:                            #',
  '#    apt-get install openvswitch-common ovn-common)                            #',
  '#  so that ovsdb-server, ovsdb-tool, ovsdb-client and ovs-appctl are on PATH   #',
  '#  or in /usr/sbin.                                                            #',
  '################################################################################',
  '',
].join('\n');

/**
 * Like {@link findOvsdbServer}, but a missing server is an error: it prints a
 * loud notice on stderr and throws {@link OvsdbServerMissingError}, so a
 * suite that needs the server fails (in CI and locally) instead of passing
 * without having run. Call it in `beforeAll`.
 *
 * @param needPki Also require `ovs-pki` (for TLS tests).
 */
export function requireOvsdbServer(needPki = false): OvsTools {
  const tools = findOvsdbServer();
  if (tools && (!needPki || tools.ovsPki)) return tools;
  const what = tools ? 'ovs-pki' : 'ovsdb-server';
  process.stderr.write(NOTICE.replace('ovsdb-server NOT FOUND', `${what} NOT FOUND`.padEnd(22)));
  const ci = process.env['CI'] === 'true' ? ' (CI=true: a missing server is a failure)' : '';
  throw new OvsdbServerMissingError(
    `${what} is not installed; the real-server tests cannot run${ci}`,
  );
}

/**
 * NB and SB ovsdb-servers with a real ovn-northd between them, for the
 * tests that check what northd makes of the rows the DSL writes. The NB
 * server serves schema 7.0.0 (OVN 23.03's), the SB one the installed SB
 * schema; northd runs with its own control socket, pid file and log file
 * in a temporary directory.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseClient } from '../../../src/client/client.js';
import { connectDatabase } from '../../../src/client/open.js';
import { createNb, NB, type NBTables, type Nb } from '../../../src/nb/index.js';
import { connect } from '../../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';
import { type OvsdbServerHandle, startOvsdbServer } from '../../../src/testing/index.js';
import { NB_SCHEMA_7_0 } from './differential.js';

/** The installed Southbound schema. */
export const SB_SCHEMA = '/usr/share/ovn/ovn-sb.ovsschema';

/** NB and SB servers, northd, a DSL client of NB and a raw connection to SB. */
export interface NorthdRig {
  readonly dir: string;
  readonly nbServer: OvsdbServerHandle;
  readonly sbServer: OvsdbServerHandle;
  readonly client: DatabaseClient<NBTables>;
  readonly nb: Nb;
  readonly sb: OvsdbConnection;
  /** Start ovn-northd (again). */
  startNorthd(): void;
  /** Stop ovn-northd (SIGTERM, SIGKILL after 5 s); nothing when it is not running. */
  stopNorthd(): Promise<void>;
  /** Stop everything and remove the directory. */
  stop(): Promise<void>;
}

/** Start the rig; `name` labels its temporary directory. */
export async function startNorthdRig(name: string): Promise<NorthdRig> {
  const dir = await mkdtemp(join(tmpdir(), `ovnkit-${name}-`));
  const [nbServer, sbServer] = await Promise.all([
    startOvsdbServer({ schemaPath: NB_SCHEMA_7_0 }),
    startOvsdbServer({ schemaPath: SB_SCHEMA }),
  ]);
  let northd: ChildProcess | undefined;
  const startNorthd = () => {
    northd = spawn(
      'ovn-northd',
      [
        `--ovnnb-db=${nbServer.unixRemote}`,
        `--ovnsb-db=${sbServer.unixRemote}`,
        `--unixctl=${join(dir, 'northd.ctl')}`,
        `--pidfile=${join(dir, 'northd.pid')}`,
        `--log-file=${join(dir, 'northd.log')}`,
        '-vconsole:off',
      ],
      { stdio: 'ignore' },
    );
  };
  const stopNorthd = async () => {
    const child = northd;
    northd = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  startNorthd();
  const client = connectDatabase({ remotes: [nbServer.unixRemote], model: NB });
  await client.ready;
  const sb = await connect(sbServer.unixRemote);
  return {
    dir,
    nbServer,
    sbServer,
    client,
    nb: createNb(client),
    sb,
    startNorthd,
    stopNorthd,
    async stop() {
      await stopNorthd();
      sb.close();
      await client.close();
      await Promise.all([nbServer.stop(), sbServer.stop()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `ovnkit-server --config-file`, as ovsdb-server(1) and ovsdb(7) of Open
 * vSwitch 3.3 document it (OVS 3.1 predates it): the manual's examples of a
 * standalone database (the service model inferred or given), the
 * active-backup, relay and clustered ones refused by name, remote options
 * (`read-only`, `inactivity-probe`, `role`), `ovsdb-server/reload` after the
 * file changed, and the commands that would contradict the file refused.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { type CliServer, startCli } from '../../src/server/program/cli.js';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import { captureIo } from './file-servers.js';
import { NB_SCHEMA, SB_SCHEMA } from './northd-pair.js';

const tools = requireOvsdbServer();
let dir: string;
let nb: string;
let sb: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-config-'));
  nb = join(dir, 'nb.db');
  sb = join(dir, 'sb.db');
  await runTool(tools.ovsdbTool, ['create', nb, NB_SCHEMA]);
  await runTool(tools.ovsdbTool, ['create', sb, SB_SCHEMA]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const io = captureIo;

async function config(name: string, json: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(json, null, 2));
  return path;
}

const appctl = (ctl: string, ...args: string[]) => runTool(tools.ovsAppctl, ['-t', ctl, ...args]);

describe('--config-file', () => {
  it('serves the manual example of a standalone database, with remote options', async () => {
    const sock = join(dir, 'a.sock');
    const file = await config('standalone.json', {
      remotes: {
        [`punix:${sock}`]: {},
        'ptcp:0:127.0.0.1': {
          'read-only': true,
          'inactivity-probe': 10000,
          'max-backoff': 8000,
          dscp: 10,
        },
      },
      databases: { [nb]: { 'service-model': 'standalone' } },
    });
    const out = io();
    const r = (await startCli([`--config-file=${file}`], out)) as CliServer;
    expect(typeof r).toBe('object');
    try {
      const tcp = r.server.remotes.find((x) => x.startsWith('tcp:')) as string;
      const writer = await connect(`unix:${sock}`);
      const reader = await connect(tcp);
      const insert = [{ op: 'insert' as const, table: 'Logical_Switch', row: { name: 'sw0' } }];
      expect(await writer.transact('OVN_Northbound', insert)).toHaveLength(1);
      expect(
        await reader.transact('OVN_Northbound', insert).catch((e: Error) => e.message),
      ).toMatch(/insert operation not allowed when database server is in read only mode/);
      writer.close();
      reader.close();
    } finally {
      await r.stop();
    }
  });

  it.each([
    [
      'active-backup',
      {
        'service-model': 'active-backup',
        backup: true,
        source: { 'tcp:127.0.0.1:6641': { 'inactivity-probe': 5000, 'max-backoff': 8000 } },
      },
      /service model 'active-backup' is not supported by ovnkit-server/,
    ],
    [
      'relay',
      { 'service-model': 'relay', source: { 'tcp:127.0.0.1:6642': {} } },
      /service model 'relay' is not supported by ovnkit-server/,
    ],
    ['clustered', { 'service-model': 'clustered' }, /service model 'clustered' is not supported/],
    ['an unknown', { 'service-model': 'sharded' }, /'sharded' is not a valid service model/],
  ])('refuses the manual example of %s database by name', async (_what, options, message) => {
    const file = await config('refused.json', {
      remotes: { 'ptcp:0:127.0.0.1': {} },
      databases: { [nb]: options },
    });
    const out = io();
    expect(await startCli([`--config-file=${file}`], out)).toBe(2);
    expect(out.err).toMatch(message);
  });

  it('refuses a clustered database file given without a service model', async () => {
    const clustered = join(dir, 'clustered.db');
    await runTool(tools.ovsdbTool, ['create-cluster', clustered, NB_SCHEMA, 'tcp:127.0.0.1:6643']);
    const file = await config('cluster.json', {
      remotes: { 'ptcp:0:127.0.0.1': {} },
      databases: { [clustered]: {} },
    });
    const out = io();
    expect(await startCli([`--config-file=${file}`], out)).toBe(1);
    expect(out.err).toMatch(/a clustered database: only standalone databases are served/);
  });

  it.each([
    ['[1, 2]', /configuration in a file must be a JSON object/],
    ['{"remotes": []}', /'remotes' is not a JSON object/],
    ['{"remotes": {"ptcp:0": 5}}', /ptcp:0: JSON-RPC options are not a JSON object or null/],
    ['{"remotes": {"ptcp:0": {"read-only": "yes"}}}', /option "read-only" must be a boolean/],
    ['{"sync_from": "tcp:127.0.0.1:6641"}', /active-backup replication is not supported/],
    ['{"remotes": ', /reading JSON failed/],
  ])('refuses %s with a clear error', async (text, message) => {
    const path = join(dir, 'bad.json');
    await writeFile(path, text);
    const out = io();
    expect(await startCli([`--config-file=${path}`], out)).toBe(2);
    expect(out.err).toMatch(message);
  });

  it('is found in OVS_DBDIR when relative, and ovsdb-server/reload applies a changed file', async () => {
    const a = join(dir, 'r1.sock');
    const b = join(dir, 'r2.sock');
    const ctl = join(dir, 'r.ctl');
    await config('reload.json', { remotes: { [`punix:${a}`]: {} }, databases: { [nb]: null } });
    const saved = process.env.OVS_DBDIR;
    process.env.OVS_DBDIR = dir;
    let r: CliServer;
    try {
      r = (await startCli(['--config-file=reload.json', `--unixctl=${ctl}`], io())) as CliServer;
    } finally {
      if (saved === undefined) delete process.env.OVS_DBDIR;
      else process.env.OVS_DBDIR = saved;
    }
    try {
      expect(await appctl(ctl, 'ovsdb-server/list-dbs')).toBe('OVN_Northbound\n_Server\n');
      await expect(appctl(ctl, 'ovsdb-server/add-remote', `punix:${b}`)).rejects.toThrow(
        `Update the ${join(dir, 'reload.json')} and use ovsdb-server/reload instead`,
      );
      await expect(appctl(ctl, 'ovsdb-server/remove-db', 'OVN_Northbound')).rejects.toThrow(
        /use ovsdb-server\/reload instead/,
      );
      await config('reload.json', {
        remotes: { [`punix:${b}`]: {} },
        databases: { [nb]: {}, [sb]: {} },
      });
      expect(await appctl(ctl, 'ovsdb-server/reload')).toBe('');
      expect(await appctl(ctl, 'ovsdb-server/list-dbs')).toBe(
        'OVN_Northbound\nOVN_Southbound\n_Server\n',
      );
      expect(await appctl(ctl, 'ovsdb-server/list-remotes')).toBe(`punix:${b}\n`);
      const conn = await connect(`unix:${b}`);
      expect(await conn.listDbs()).toEqual(['OVN_Northbound', 'OVN_Southbound', '_Server']);
      conn.close();
      await expect(connect(`unix:${a}`)).rejects.toThrow();
      await writeFile(join(dir, 'reload.json'), '{"databases": {"x": {"service-model": "relay"}}}');
      await expect(appctl(ctl, 'ovsdb-server/reload')).rejects.toThrow(
        'Configuration failed.  See the log file for details.',
      );
    } finally {
      await r.stop();
    }
  });
});

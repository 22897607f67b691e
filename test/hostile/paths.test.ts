/**
 * Unix socket paths longer than a socket address holds (107 bytes), side by
 * side with ovsdb-server 3.1: in a directory whose path is 150 bytes long,
 * the database socket, the control socket and one added by
 * `ovsdb-server/add-remote` are made under their full names, and
 * `ovs-appctl -t`, `ovsdb-client` and ovnkit's client all reach them (Node
 * alone made them under names cut at 107 bytes, which no Open vSwitch tool
 * looks for). A socket whose own file name is too long to be reached at
 * all is refused, by the server at start and in `add-remote` and by the
 * client, with an error that names the path and the limit.
 */

import { existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import { type FileServer, startFileServer } from '../server/file-servers.js';
import { NB_SCHEMA, runToExit } from './helpers.js';

const LIMIT = 107;
let top: string;

beforeAll(async () => {
  top = await mkdtemp(join(tmpdir(), 'ovnkit-hostile-paths-'));
});

afterAll(async () => {
  if (top !== undefined) await rm(top, { recursive: true, force: true });
});

/** A new directory under `top` whose path is `length` bytes long, with an NB database in it. */
async function longDir(name: string, length: number): Promise<{ dir: string; db: string }> {
  const base = join(top, name);
  mkdirSync(base);
  const dir = join(base, 'd'.repeat(length - base.length - 1));
  mkdirSync(dir);
  const db = join(dir, 'nb.db');
  await runTool(requireOvsdbServer(false).ovsdbTool, ['create', db, NB_SCHEMA]);
  return { dir, db };
}

function appctl(ctl: string, ...args: string[]): Promise<string> {
  return runTool(requireOvsdbServer(false).ovsAppctl, ['-t', ctl, ...args]);
}

describe.each(['ovnkit-server', 'ovsdb-server'] as const)(
  '%s with socket paths of 150 bytes',
  (kind) => {
    let server: FileServer;
    let dir: string;

    beforeAll(async () => {
      const made = await longDir(kind, 150);
      dir = made.dir;
      server = await startFileServer(kind, dir, made.db);
    });

    afterAll(async () => {
      await server?.kill();
    });

    it('makes the sockets under their full names, and every tool reaches them', async () => {
      expect(Buffer.byteLength(server.sock)).toBeGreaterThan(LIMIT);
      expect(lstatSync(server.sock).isSocket()).toBe(true);
      expect(lstatSync(server.ctl).isSocket()).toBe(true);
      // Nothing under a cut name beside the long directory.
      expect(readdirSync(join(top, kind))).toEqual([dir.slice(join(top, kind).length + 1)]);
      expect(await appctl(server.ctl, 'version')).toMatch(/\(Open vSwitch\)|\(ovnkit\)/);
      const dbs = await runTool(requireOvsdbServer(false).ovsdbClient, [
        'list-dbs',
        `unix:${server.sock}`,
      ]);
      expect(dbs).toContain('OVN_Northbound');
      const conn = await connect(`unix:${server.sock}`, { timeoutMs: 10_000 });
      try {
        expect(await conn.listDbs()).toContain('OVN_Northbound');
      } finally {
        conn.close();
      }
    });

    it('ovsdb-server/add-remote makes its socket under the full name too', async () => {
      const second = join(dir, 'second.sock');
      expect(await appctl(server.ctl, 'ovsdb-server/add-remote', `punix:${second}`)).toBe('');
      await expect.poll(() => existsSync(second) && lstatSync(second).isSocket()).toBe(true);
      const conn = await connect(`unix:${second}`, { timeoutMs: 10_000 });
      try {
        expect(await conn.listDbs()).toContain('OVN_Northbound');
      } finally {
        conn.close();
      }
    });
  },
);

describe('a socket whose file name alone is too long', () => {
  const name = `${'c'.repeat(120)}.ctl`;

  it.each(['ovnkit-server', 'ovsdb-server'] as const)(
    '%s refuses it as its control socket at start',
    async (kind) => {
      const dir = join(top, `refuse-${kind}`);
      mkdirSync(dir);
      const db = join(dir, 'nb.db');
      await runTool(requireOvsdbServer(false).ovsdbTool, ['create', db, NB_SCHEMA]);
      const ctl = join(dir, name);
      const r = await runToExit(kind, [db, `--unixctl=${ctl}`, `--log-file=${join(dir, 'x.log')}`]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('could not initialize control socket');
      if (kind === 'ovnkit-server') {
        expect(r.stderr).toContain(`${ctl}: a unix socket path is limited to ${LIMIT} bytes`);
      }
      // No socket under a cut name.
      expect(readdirSync(dir).filter((f) => f.startsWith('c'))).toEqual([]);
    },
  );

  it('ovnkit-server refuses it in add-remote, and the client refuses to connect to it, saying why', async () => {
    const { dir, db } = await longDir('refuse-remote', 60);
    const server = await startFileServer('ovnkit-server', dir, db);
    try {
      const path = join(dir, name);
      await expect(appctl(server.ctl, 'ovsdb-server/add-remote', `punix:${path}`)).rejects.toThrow(
        `${path}: a unix socket path is limited to ${LIMIT} bytes`,
      );
      expect(readdirSync(dir).filter((f) => f.startsWith('c'))).toEqual([]);
      expect(await appctl(server.ctl, 'ovsdb-server/list-remotes')).not.toContain(name);
      await expect(connect(`unix:${path}`, { timeoutMs: 5000 })).rejects.toThrow(
        `${path}: a unix socket path is limited to ${LIMIT} bytes`,
      );
    } finally {
      await server.kill();
    }
  });
});

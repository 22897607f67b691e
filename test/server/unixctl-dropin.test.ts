/**
 * The unixctl commands that OVN's and kube-ovn's scripts call, through the
 * real `ovs-appctl`, on `ovnkit-server` and on ovsdb-server 3.1 started with
 * the same command line on the same kind of database: the same output (and
 * the same error and exit status), masking only what must differ (memory
 * figures; ovnkit-server's own `metrics` log module).
 */

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { type FileServer, type Kind, startFileServer } from './file-servers.js';
import { NB_SCHEMA } from './northd-pair.js';

const run = promisify(execFile);
const tools = requireOvsdbServer();
const KINDS: readonly Kind[] = ['ovsdb-server', 'ovnkit-server'];
let dir: string;
const servers = new Map<Kind, FileServer>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ovnkit-unixctl-'));
  await Promise.all(
    KINDS.map(async (kind) => {
      const sub = join(dir, kind);
      mkdirSync(sub);
      const db = join(sub, 'nb.db');
      await run(tools.ovsdbTool, ['create', db, NB_SCHEMA]);
      servers.set(kind, await startFileServer(kind, sub, db));
    }),
  );
}, 60_000);

afterAll(async () => {
  await Promise.all([...servers.values()].map((s) => s.kill()));
  rmSync(dir, { recursive: true, force: true });
});

/** `ovs-appctl -t <ctl> ARGS` on `kind`: exit status, stdout and stderr (the socket path masked). */
async function appctl(kind: Kind, ...args: string[]): Promise<[number, string, string]> {
  const ctl = (servers.get(kind) as FileServer).ctl;
  try {
    const { stdout, stderr } = await run(tools.ovsAppctl, ['-t', ctl, ...args]);
    return [0, stdout, stderr.replaceAll(ctl, 'CTL')];
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return [err.code, err.stdout, err.stderr.replaceAll(ctl, 'CTL')];
  }
}

/** The same `ovs-appctl` command on both servers, masked by `mask`. */
async function both(
  args: string[],
  mask: (t: string) => string = (t) => t,
): Promise<[number, string, string][]> {
  return Promise.all(
    KINDS.map(async (k) => {
      const [code, out, err] = await appctl(k, ...args);
      return [code, mask(out), mask(err)] as [number, string, string];
    }),
  );
}

describe('unixctl commands, ovnkit-server against ovsdb-server', () => {
  it.each([
    [['ovsdb-server/sync-status']],
    [['ovsdb-server/get-db-storage-status', 'OVN_Northbound']],
    [['ovsdb-server/get-db-storage-status', '_Server']],
    [['ovsdb-server/get-db-storage-status', 'nope']],
    [['ovsdb-server/get-db-storage-status']],
    [['cluster/status', 'OVN_Northbound']],
    [['ovsdb-server/perf-counters-show']],
    [['ovsdb-server/perf-counters-clear']],
    [['ovsdb-server/list-remotes']],
  ])('%j prints what ovsdb-server prints', async (args) => {
    const [real, ours] = await both(args, (t) => t.replace(/punix:\S+\/db\.sock/, 'punix:SOCK'));
    expect(ours).toEqual(real);
  });

  it('memory/show has the same figures (values masked)', async () => {
    const [real, ours] = await both(['memory/show'], (t) => t.replace(/:\d+/g, ':N'));
    expect(ours).toEqual(real);
    expect(real?.[1]).toMatch(/monitors:N n-weak-refs:N/);
  });

  it('vlog/list and vlog/set change the same table', async () => {
    const mask = (t: string) =>
      t
        .split('\n')
        .filter((l) => !l.startsWith('metrics '))
        .join('\n');
    expect((await both(['vlog/list'], mask))[1]).toEqual((await both(['vlog/list'], mask))[0]);
    for (const spec of ['ovsdb_server:file:dbg', 'console:warn', 'jsonrpc:off']) {
      const [real, ours] = await both(['vlog/set', spec]);
      expect(ours).toEqual(real);
    }
    const [real, ours] = await both(['vlog/list'], mask);
    expect(ours).toEqual(real);
    expect(real?.[1]).toMatch(/ovsdb_server\s+WARN\s+INFO\s+DBG/);
  });

  it('ovsdb-server/reconnect drops the client connections of both', async () => {
    for (const kind of KINDS) {
      const socket = connect((servers.get(kind) as FileServer).sock);
      await new Promise((r) => socket.once('connect', r));
      const closed = new Promise((r) => socket.once('close', r));
      socket.on('error', () => {});
      expect(await appctl(kind, 'ovsdb-server/reconnect')).toEqual([0, '', '']);
      await closed;
    }
  });
});

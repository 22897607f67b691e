/**
 * The real-server test harness (`ovnkit/testing`): start, stop, restart,
 * kill, helpers, and that nothing outlives the process that started it.
 */

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import { findOvsdbServer, requireOvsdbServer, startOvsdbServer } from '../../src/testing/index.js';
import { DB, nextEvent, TEST_SCHEMA } from '../helpers/server.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

beforeAll(() => {
  requireOvsdbServer();
});

describe('findOvsdbServer / requireOvsdbServer', () => {
  it('finds the Open vSwitch programs', () => {
    const tools = findOvsdbServer();
    expect(tools?.ovsdbServer).toMatch(/\/ovsdb-server$/);
    expect(tools?.ovsdbTool).toMatch(/\/ovsdb-tool$/);
    expect(tools?.ovsdbClient).toMatch(/\/ovsdb-client$/);
    expect(tools?.ovsAppctl).toMatch(/\/ovs-appctl$/);
    expect(requireOvsdbServer(true).ovsPki).toMatch(/\/ovs-pki$/);
  });

  it('a missing server fails loudly instead of skipping', async () => {
    const script = `
      import { requireOvsdbServer, OvsdbServerMissingError } from './src/testing/index.ts';
      try { requireOvsdbServer(); console.log('FOUND'); }
      catch (e) { console.log(e instanceof OvsdbServerMissingError ? 'MISSING: ' + e.message : 'OTHER'); }
    `;
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: ROOT, env: { ...process.env, OVNKIT_OVS_BIN_DIRS: '/nonexistent', CI: 'true' } },
    );
    expect(stdout).toContain('MISSING: ovsdb-server is not installed');
    expect(stdout).toContain('CI=true');
    expect(stderr).toContain('ovsdb-server NOT FOUND');
    expect(stderr).toContain('#####');
  });
});

describe('startOvsdbServer', () => {
  it('starts from a schema file, unix only by default, and stops cleanly', async () => {
    const server = await startOvsdbServer({
      schemaPath: join(ROOT, 'test/fixtures/schemas/ovn-nb-7.0.0.ovsschema'),
    });
    try {
      expect(server.dbName).toBe('OVN_Northbound');
      expect(server.clustered).toBe(false);
      expect(Object.keys(server.remotes)).toEqual(['unix']);
      expect(server.remotes.unix).toBe(`unix:${join(server.dir, 'db.sock')}`);
      expect(server.unixRemote).toBe(server.remotes.unix);
      expect(existsSync(server.dbPath)).toBe(true);
      expect(server.running).toBe(true);
      expect(alive(server.pid)).toBe(true);
      expect((await server.ovsdbClient('list-dbs')).split('\n')).toContain('OVN_Northbound');
      expect(await server.appctl('ovsdb-server/list-dbs')).toContain('OVN_Northbound');
      expect(await server.readLog()).toContain('ovsdb-server (Open vSwitch)');
    } finally {
      await server.stop();
    }
    expect(server.running).toBe(false);
    expect(await waitDead(server.pid)).toBe(true);
    expect(existsSync(server.dir)).toBe(false);
    await server.stop(); // idempotent
  });

  it('accepts a parsed DatabaseSchema and serves it unchanged', async () => {
    const server = await startOvsdbServer({ schema: parseSchema(TEST_SCHEMA) });
    try {
      const conn = await connect(server.remotes.unix!);
      expect(await conn.getSchema(DB)).toEqual(TEST_SCHEMA);
      conn.close();
    } finally {
      await server.stop();
    }
  });

  it('listens on tcp and ssl ports of 127.0.0.1', async () => {
    const server = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['tcp', 'ssl'] });
    try {
      expect(server.remotes.unix).toBeUndefined();
      expect(server.remotes.tcp).toMatch(/^tcp:127\.0\.0\.1:\d+$/);
      expect(server.remotes.ssl).toMatch(/^ssl:127\.0\.0\.1:\d+$/);
      expect(server.remotes.tcp).not.toBe(server.remotes.ssl?.replace('ssl', 'tcp'));
      expect(server.pki).toBeDefined();
      const remotes = await server.appctl('ovsdb-server/list-remotes');
      expect(remotes).toContain('pssl:0:127.0.0.1');
      expect(remotes).toContain('ptcp:0:127.0.0.1');
      const conn = await connect(server.remotes.tcp!);
      expect(await conn.listDbs()).toContain(DB);
      conn.close();
    } finally {
      await server.stop();
    }
  });

  it('ovsdbClient puts the server after the command and options before it', async () => {
    const server = await startOvsdbServer({ schema: TEST_SCHEMA });
    try {
      const out = await server.ovsdbClient(
        'transact',
        JSON.stringify([DB, { op: 'insert', table: 'Item', row: { name: 'via-client', n: 3 } }]),
      );
      expect(JSON.parse(out)[0].uuid[0]).toBe('uuid');
      const dump = await server.ovsdbClient('--format=json', 'dump', DB, 'Item');
      const parsed = JSON.parse(dump) as { data: unknown[][] }[];
      expect(JSON.stringify(parsed)).toContain('via-client');
    } finally {
      await server.stop();
    }
  });

  it('restart keeps the database, the remotes and ports, and drops connections', async () => {
    const server = await startOvsdbServer({ schema: TEST_SCHEMA, remotes: ['unix', 'tcp'] });
    try {
      const conn = await connect(server.remotes.tcp!);
      await conn.transact(DB, [{ op: 'insert', table: 'Item', row: { name: 'kept', n: 1 } }]);
      const serverId = await conn.getServerId();
      const pid = server.pid;
      const remotes = { ...server.remotes };
      const closed = nextEvent(conn, 'close');
      await server.restart();
      const [error] = await closed;
      expect(error).toBeInstanceOf(Error);
      expect(server.pid).not.toBe(pid);
      expect(await waitDead(pid)).toBe(true);
      expect(server.remotes).toEqual(remotes);
      const again = await connect(server.remotes.tcp!);
      const [sel] = await again.transact(DB, [
        { op: 'select', table: 'Item', where: [['name', '==', 'kept']], columns: ['n'] },
      ]);
      expect(sel).toEqual({ rows: [{ n: 1 }] });
      expect(await again.getServerId()).not.toBe(serverId);
      again.close();
    } finally {
      await server.stop();
    }
  });

  it('kill stops the process at once; restart recovers the committed data', async () => {
    const server = await startOvsdbServer({ schema: TEST_SCHEMA, clustered: true });
    try {
      expect(server.clustered).toBe(true);
      const conn = await connect(server.remotes.unix!);
      await conn.transact(DB, [{ op: 'insert', table: 'Item', row: { name: 'durable', n: 2 } }]);
      const pid = server.pid;
      await server.kill();
      expect(server.running).toBe(false);
      expect(alive(pid)).toBe(false);
      expect(existsSync(server.dir)).toBe(true);
      await server.restart();
      const again = await connect(server.remotes.unix!);
      const [sel] = await again.transact(DB, [
        { op: 'select', table: 'Item', where: [['name', '==', 'durable']], columns: ['n'] },
      ]);
      expect(sel).toEqual({ rows: [{ n: 2 }] });
      again.close();
      conn.close();
    } finally {
      await server.stop();
    }
    expect(existsSync(server.dir)).toBe(false);
    await expect(server.restart()).rejects.toThrow(/was stopped/);
  });

  it('fails with the server output when ovsdb-server cannot start', async () => {
    const err = await startOvsdbServer({
      schema: TEST_SCHEMA,
      extraArgs: ['--no-such-option'],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/exited during startup/);
    expect((err as Error).message).toContain('no-such-option');
  });

  it('rejects a missing or nameless schema', async () => {
    await expect(startOvsdbServer({})).rejects.toThrow(/give `schema` or `schemaPath`/);
    await expect(startOvsdbServer({ schema: { tables: {} } })).rejects.toThrow(/no name/);
    await expect(
      startOvsdbServer({ schema: { name: 'Bad', version: '1.0.0', tables: { T: {} } } }),
    ).rejects.toThrow(/ovsdb-tool create/);
  });

  it.each([
    ['process.exit', 'process.exit(0);'],
    [
      'SIGTERM',
      "process.kill(process.pid, 'SIGTERM'); await new Promise((r) => setTimeout(r, 5000));",
    ],
  ])('kills its servers and removes their directories on %s', async (_how, ending) => {
    const script = `
      import { startOvsdbServer } from './src/testing/index.ts';
      const s = await startOvsdbServer({ schema: ${JSON.stringify(TEST_SCHEMA)}, remotes: ['unix', 'tcp'] });
      console.log(JSON.stringify({ pid: s.pid, dir: s.dir }));
      ${ending}
    `;
    const child = await run(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: ROOT },
    ).catch((e: { stdout?: string; signal?: string }) => e);
    const { pid, dir } = JSON.parse(String(child.stdout).trim().split('\n').pop() ?? '{}') as {
      pid: number;
      dir: string;
    };
    expect(pid).toBeGreaterThan(0);
    expect(await waitDead(pid)).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });
});

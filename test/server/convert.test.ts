/**
 * `convert` (online schema conversion) against ovnkit-server and ovsdb-server
 * 3.1, both started as processes on database files made by `ovsdb-tool
 * create` from the test schema and given the same `ovsdb-client` commands:
 * a column added, a column removed, a schema of another name and data that
 * does not fit the new schema print the same (stdout, stderr, exit status,
 * UUIDs and paths masked); `get-schema`, `dump`, `list-columns` and
 * `_Server`'s `Database` row print the same afterwards; `monitor`s running
 * during a convert end the same way; and after a restart the new schema is
 * served from the file.
 */

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FileServer, type Kind, startFileServer } from './file-servers.js';
import { TEST_SCHEMA_PATH } from './harness.js';

const execFileP = promisify(execFile);
const KINDS: readonly Kind[] = ['ovsdb-server', 'ovnkit-server'];

let top: string;
const dirs: string[] = [];
const servers: (FileServer | undefined)[] = [undefined, undefined];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** UUIDs replaced by `<n>` in order of first appearance; the directories masked. */
function normalize(text: string): string {
  const labels = new Map<string, string>();
  let out = text.replace(UUID, (u) => {
    let l = labels.get(u);
    if (l === undefined) {
      l = `<${labels.size + 1}>`.padEnd(36, '.');
      labels.set(u, l);
    }
    return l;
  });
  for (const d of dirs) out = out.replaceAll(d, '<dir>');
  return out;
}

interface Outcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | string | null;
}

function run(program: string, args: readonly string[]): Promise<Outcome> {
  return new Promise((done) => {
    execFile(program, args, { timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : ((err as { code?: number | string }).code ?? null);
      done({ stdout: normalize(stdout), stderr: normalize(stderr), code });
    });
  });
}

const remote = (i: number): string => `unix:${join(dirs[i] as string, 'db.sock')}`;

/** `ovsdb-client <cmd> <remote> <args…>` against both servers: [real, ovnkit]. */
async function client(cmd: string, ...args: string[]): Promise<[Outcome, Outcome]> {
  const [r, o] = await Promise.all(
    KINDS.map((_, i) => run('ovsdb-client', [cmd, remote(i), ...args])),
  );
  return [r as Outcome, o as Outcome];
}

/** Both servers print the same: returns ovsdb-server's outcome. */
async function same(cmd: string, ...args: string[]): Promise<Outcome> {
  const [r, o] = await client(cmd, ...args);
  expect(o, `${cmd} ${args.join(' ')}`).toEqual(r);
  return r;
}

/** The test schema, changed by `edit`, written to `<top>/<file>`. */
async function schemaFile(
  file: string,
  edit: (s: {
    name: string;
    version: string;
    tables: Record<string, { columns: Record<string, unknown> }>;
  }) => void,
): Promise<string> {
  const s = JSON.parse(await readFile(TEST_SCHEMA_PATH, 'utf8'));
  edit(s);
  const path = join(top, file);
  await writeFile(path, JSON.stringify(s));
  return path;
}

/** A `ovsdb-client monitor` on each server, read as it runs. */
class Monitors {
  readonly children: ChildProcess[];
  readonly outs: string[] = ['', ''];
  readonly errs: string[] = ['', ''];
  readonly exits: Promise<number | string>[];
  constructor(args: readonly string[], opts: readonly string[] = []) {
    this.children = KINDS.map((_, i) =>
      spawn('ovsdb-client', [...opts, 'monitor', remote(i), ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    this.exits = this.children.map(
      (c) => new Promise((r) => c.once('close', (code, signal) => r(code ?? signal ?? -1))),
    );
    this.children.forEach((c, i) => {
      c.stdout?.setEncoding('utf8');
      c.stdout?.on('data', (t: string) => {
        this.outs[i] += t;
      });
      c.stderr?.setEncoding('utf8');
      c.stderr?.on('data', (t: string) => {
        this.errs[i] += t;
      });
    });
  }

  async waitFor(re: RegExp): Promise<void> {
    for (let n = 0; n < 1200 && !this.outs.every((o) => re.test(o)); n++) await sleep(25);
    expect(this.outs.map((o) => re.test(o))).toEqual([true, true]);
  }

  /** How each ended within `ms` (else killed: "running"), and what each printed: [real, ovnkit]. */
  async end(ms: number): Promise<[string, string]> {
    const ended = await Promise.all(
      this.exits.map((e) => Promise.race([e, sleep(ms).then(() => 'running' as const)])),
    );
    for (const c of this.children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(this.exits);
    return ended.map(
      (how, i) =>
        `${normalize(`${this.outs[i]}\n[stderr]\n${this.errs[i]}`)
          .split('\n')
          .filter((l) => !/fatal_signal\|WARN|terminating with signal/.test(l))
          .join('\n')}\n[end] ${how}`,
    ) as [string, string];
  }
}

async function start(i: number): Promise<void> {
  servers[i] = await startFileServer(
    KINDS[i] as Kind,
    dirs[i] as string,
    join(dirs[i] as string, 'test.db'),
  );
}

beforeAll(async () => {
  top = await mkdtemp(join(tmpdir(), 'ovnkit-convert-'));
  for (const [i, kind] of KINDS.entries()) {
    dirs[i] = join(top, kind);
    await mkdir(dirs[i] as string);
    await execFileP('ovsdb-tool', ['create', join(dirs[i] as string, 'test.db'), TEST_SCHEMA_PATH]);
    await start(i);
  }
  await same(
    'transact',
    JSON.stringify([
      'Test',
      { op: 'insert', table: 'Weak', row: { name: 'w1' }, 'uuid-name': 'w1' },
      { op: 'insert', table: 'Weak', row: { name: 'w2', peer: ['named-uuid', 'w1'] } },
      { op: 'insert', table: 'Root', row: { name: 'r1', i: 50, e: 'beta', fixed: 'f' } },
    ]),
  );
}, 60_000);

afterAll(async () => {
  for (const s of servers) await s?.kill();
  await rm(top, { recursive: true, force: true });
});

/** What both servers print of the database after a convert. */
async function sameContents(): Promise<void> {
  await same('get-schema', 'Test');
  await same('get-schema-version', 'Test');
  await same('list-columns', 'Test', 'Weak');
  await same('list-columns', 'Test', 'Root');
  await same('dump', 'Test');
  await same('dump', '_Server', 'Database', 'name', 'model', 'schema');
}

describe('convert against both servers', () => {
  it('adding a column: the same reply, contents and end of the monitors running', async () => {
    const file = await schemaFile('add.ovsschema', (s) => {
      s.version = '1.1.0';
      (s.tables.Weak as { columns: Record<string, unknown> }).columns.extra = {
        type: { key: 'integer', min: 0, max: 1 },
      };
    });
    const plain = new Monitors(['Test', 'Weak']);
    const unaware = new Monitors(['Test', 'Weak'], ['--no-db-change-aware']);
    const server = new Monitors(['_Server', 'Database', 'name', 'schema']);
    await plain.waitFor(/w2/);
    await unaware.waitFor(/w2/);
    await server.waitFor(/Test/);
    await same('convert', file);
    // Rows come in the order of their random UUIDs: compared as sorted lines.
    const sorted = (t: string): string =>
      t
        .replace(/<\d+>\.+/g, '<uuid>')
        .split('\n')
        .sort()
        .join('\n');
    const [pr, po] = (await plain.end(3000)).map(sorted);
    expect(po).toBe(pr);
    expect(pr).toContain('Test database was removed');
    const [ur, uo] = (await unaware.end(3000)).map(sorted);
    expect(uo).toBe(ur);
    const [sr, so] = (await server.end(1000)).map(sorted);
    expect(so).toBe(sr);
    // ovsdb-server 3.1 leaves the schema in `_Server`'s row as it was.
    expect(sr).not.toContain('1.1.0');
    await sameContents();
  }, 60_000);

  it('removing columns: the same reply and contents', async () => {
    const file = await schemaFile('remove.ovsschema', (s) => {
      s.version = '1.2.0';
      delete (s.tables.Weak as { columns: Record<string, unknown> }).columns.peer;
      delete (s.tables.Root as { columns: Record<string, unknown> }).columns.e;
    });
    await same('convert', file);
    await sameContents();
  }, 60_000);

  it('a schema of another name, and data that does not fit: the same error', async () => {
    const other = await schemaFile('other.ovsschema', (s) => {
      s.name = 'Other';
    });
    await same('convert', other);
    const tight = await schemaFile('tight.ovsschema', (s) => {
      s.version = '1.3.0';
      (s.tables.Root as { columns: Record<string, unknown> }).columns.i = {
        type: { key: { type: 'integer', minInteger: 0, maxInteger: 10 } },
      };
    });
    // ovsdb-server 3.1 stops on a conversion that fails this way (the client
    // sees the connection end): ovnkit-server replies with the error the
    // conversion met, as ovsdb-server replies to a failed conversion, and
    // keeps serving the database unchanged.
    const o = await run('ovsdb-client', ['convert', remote(1), tight]);
    expect(o).toEqual({
      stdout: '',
      stderr:
        'ovsdb-client: transaction returned error: {"details":"50 is not in the valid range 0 to 10 (inclusive)","error":"constraint violation"}\n',
      code: 1,
    });
    if (servers[0]?.child.exitCode !== null || servers[0]?.child.signalCode !== null) {
      await servers[0]?.kill();
      await start(0);
    }
    await sameContents();
  }, 60_000);

  it('after a restart, the converted schema and data are served from the file', async () => {
    const file = await schemaFile('restart.ovsschema', (s) => {
      s.version = '2.0.0';
    });
    await same('convert', file);
    // The file starts with the new schema, written as ovsdb-server writes it.
    const records = await Promise.all(
      dirs.map(async (d) => (await readFile(join(d, 'test.db'), 'utf8')).split('\n')[1]),
    );
    expect(records[1]).toBe(records[0]);
    for (const i of [0, 1]) {
      await servers[i]?.kill();
      await start(i);
    }
    await sameContents();
    const [r, o] = await Promise.all(
      dirs.map((d) => run('ovsdb-tool', ['db-version', join(d, 'test.db')])),
    );
    expect(o).toEqual(r);
    expect(r?.stdout).toBe('2.0.0\n');
  }, 60_000);
});

/**
 * Every `ovsdb-client` command against the `ovnkit-server` program and
 * against ovsdb-server 3.1, both started as processes on database files made
 * by `ovsdb-tool create` (OVN Northbound 7.18.0 and the small test schema),
 * given the same commands in the same order: stdout, stderr and the exit
 * status must be equal once UUIDs (other than the fixed ones rows are
 * inserted with, and the all-zero transaction id), timestamps, `_date`s and
 * the record hashes of `backup` are masked.
 *
 * ovnkit-server runs with `--history=0`, the standalone ovsdb-server's
 * `monitor_cond_since` behaviour (`found: false`, all-zero transaction ids);
 * its default keeps a history (see docs/conformance.md).
 */

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NB_SCHEMA_PATH, TEST_SCHEMA_PATH } from './harness.js';

const execFileP = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'src/server/program/cli.ts');
const NB = 'OVN_Northbound';
const T = 'Test';

let dir: string;
let real: ChildProcess | undefined;
let ovnkit: ChildProcess | undefined;
/** The two remotes: ovsdb-server's, then ovnkit-server's. */
let remotes: [string, string];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-client-all-'));
  for (const [schema, name] of [
    [NB_SCHEMA_PATH, 'nb'],
    [TEST_SCHEMA_PATH, 'test'],
  ] as const) {
    await execFileP('ovsdb-tool', ['create', join(dir, `${name}-real.db`), schema]);
    await copyFile(join(dir, `${name}-real.db`), join(dir, `${name}-ovnkit.db`));
  }
  const args = (kind: string) => [
    `--remote=punix:${join(dir, `${kind}.sock`)}`,
    `--unixctl=${join(dir, `${kind}.ctl`)}`,
    `--pidfile=${join(dir, `${kind}.pid`)}`,
    `--log-file=${join(dir, `${kind}.log`)}`,
    '--no-chdir',
    join(dir, `nb-${kind}.db`),
    join(dir, `test-${kind}.db`),
  ];
  real = spawn('ovsdb-server', args('real'), { stdio: 'ignore' });
  ovnkit = spawn(process.execPath, ['--import', 'tsx', CLI, '--history=0', ...args('ovnkit')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  ovnkit.stdout?.setEncoding('utf8');
  ovnkit.stdout?.on('data', (t: string) => {
    out += t;
  });
  for (
    let i = 0;
    i < 600 && !(out.includes('listening on') && existsSync(join(dir, 'real.sock')));
    i++
  ) {
    await sleep(50);
  }
  expect(out).toBe(`listening on unix:${join(dir, 'ovnkit.sock')}\n`);
  remotes = [`unix:${join(dir, 'real.sock')}`, `unix:${join(dir, 'ovnkit.sock')}`];
}, 60_000);

afterAll(async () => {
  ovnkit?.kill('SIGTERM');
  real?.kill('SIGTERM');
  await sleep(200);
  await rm(dir, { recursive: true, force: true });
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * UUIDs replaced by `<n>` in order of first appearance (the fixed row UUIDs,
 * made of one repeated digit, kept), timestamps, `_date`s, record hashes and
 * the remote's socket masked.
 */
function normalize(text: string): string {
  const labels = new Map<string, string>();
  return text
    .replace(UUID, (u) => {
      if (/^([0-9a-f])\1{7}-/.test(u)) return u;
      let l = labels.get(u);
      if (l === undefined) {
        l = `<${labels.size + 1}>`.padEnd(36, '.');
        labels.set(u, l);
      }
      return l;
    })
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?/g, '<time>')
    .replace(/"_date":\d+/g, '"_date":<ms>')
    .replace(/^(OVSDB JSON \d+) [0-9a-f]{40}$/gm, '$1 <sha1>')
    .replaceAll(dir, '<dir>')
    .replace(/(real|ovnkit)\.sock/g, '<sock>');
}

interface Outcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | string | null;
}

function runClient(args: readonly string[], input?: string): Promise<Outcome> {
  return new Promise((done) => {
    const child = execFile('ovsdb-client', args, { timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : ((err as { code?: number | string }).code ?? null);
      done({ stdout: normalize(stdout), stderr: normalize(stderr), code });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** `ovsdb-client <opts…> <cmd> <remote> <args…>` against each server: [real, ovnkit]. */
async function client(cmd: string, ...args: string[]): Promise<[Outcome, Outcome]> {
  const opts: string[] = [];
  while (args[0]?.startsWith('--')) opts.push(args.shift() as string);
  const [r, o] = await Promise.all(
    remotes.map((remote) => runClient([...opts, cmd, remote, ...args])),
  );
  return [r as Outcome, o as Outcome];
}

/** Both servers print the same: returns ovsdb-server's outcome. */
async function same(cmd: string, ...args: string[]): Promise<Outcome> {
  const [r, o] = await client(cmd, ...args);
  expect(o, `${cmd} ${args.join(' ')}`).toEqual(r);
  return r;
}

/** A child `ovsdb-client` on each server whose output is read as it comes. */
class Children {
  readonly children: ChildProcess[];
  readonly outs: string[];
  readonly errs: string[];
  constructor(cmd: string, args: readonly string[], opts: readonly string[] = []) {
    this.children = remotes.map((remote) =>
      spawn('ovsdb-client', [...opts, cmd, remote, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    this.outs = this.children.map(() => '');
    this.errs = this.children.map(() => '');
    this.children.forEach((c, i) => {
      c.stdout?.setEncoding('utf8');
      c.stdout?.on('data', (t: string) => {
        this.outs[i] += t;
      });
      c.stderr?.setEncoding('utf8');
      c.stderr?.on('data', (t: string) => {
        // Connection log lines go to stderr: kept apart from stdout, compared too.
        this.errs[i] += t;
      });
    });
  }

  /** Wait until both outputs match `re` (up to 30 s: the machine may be loaded). */
  async waitFor(re: RegExp): Promise<void> {
    for (let n = 0; n < 1200 && !this.outs.every((o) => re.test(o)); n++) await sleep(25);
    expect(this.outs.map((o) => re.test(o))).toEqual([true, true]);
  }

  /** Stop both; their outputs, normalized: [real, ovnkit]. */
  async stop(): Promise<[string, string]> {
    // Anything a server sent late would show now.
    await sleep(150);
    for (const c of this.children) c.kill('SIGTERM');
    await sleep(50);
    return this.outs.map((o, i) =>
      normalize(`${o}\n[stderr]\n${this.errs[i]}`)
        .split('\n')
        .filter((l) => !/fatal_signal\|WARN\|terminating with signal/.test(l))
        .join('\n'),
    ) as [string, string];
  }
}

async function monitor(
  cmd: string,
  args: readonly string[],
  opts: readonly string[],
  ready: RegExp,
  then: () => Promise<unknown>,
  done: RegExp,
): Promise<string> {
  const c = new Children(cmd, args, opts);
  let outs: [string, string];
  try {
    await c.waitFor(ready);
    await then();
    await c.waitFor(done);
  } finally {
    outs = await c.stop();
  }
  expect(outs[1]).toBe(outs[0]);
  return outs[0];
}

const u = (d: string): string =>
  `${d.repeat(8)}-${d.repeat(4)}-4${d.repeat(3)}-8${d.repeat(3)}-${d.repeat(12)}`;

function txn(db: string, ...ops: unknown[]): string {
  return JSON.stringify([db, ...ops]);
}

describe('ovsdb-client, every command, against ovnkit-server and ovsdb-server', {
  timeout: 120_000,
}, () => {
  it('list-dbs, get-schema, get-schema-version, get-schema-cksum', async () => {
    expect((await same('list-dbs')).stdout).toBe('OVN_Northbound\nTest\n_Server\n');
    for (const db of [NB, T, '_Server']) {
      await same('get-schema', db);
      await same('get-schema-version', db);
      await same('get-schema-cksum', db);
    }
    expect((await same('get-schema-version', NB)).stdout).toBe('7.18.0\n');
    expect((await same('get-schema', 'Nope')).code).toBe(1);
  });

  it('list-tables and list-columns: same tables and columns in the same order', async () => {
    for (const db of [NB, T, '_Server']) {
      await same('list-tables', db);
      await same('list-columns', db);
      await same('--format=json', 'list-columns', db);
    }
    for (const table of ['ACL', 'Logical_Switch_Port', 'NB_Global', 'Load_Balancer']) {
      const r = await same('list-columns', NB, table);
      expect(r.stdout).toContain('_uuid');
    }
    await same('list-columns', T, 'Root');
    await same('--format=csv', 'list-tables', T);
    await same('list-columns', NB, 'Nope');
  });

  it('transact and query: the same results and errors', async () => {
    const txns = [
      txn(T, { op: 'insert', table: 'Root', uuid: u('1'), row: { name: 'a', sset: 'x', i: 5 } }),
      txn(T, { op: 'insert', table: 'Root', uuid: u('2'), row: { name: 'a', sset: 'y' } }),
      txn(T, { op: 'insert', table: 'Root', row: { name: 'b', i: 1000 } }),
      txn(T, { op: 'insert', table: 'Root', row: { name: 'b', s: 'x' } }),
      txn(T, { op: 'insert', table: 'Root', row: { name: 'b', e: 'delta' } }),
      txn(T, { op: 'insert', table: 'Root', row: { name: 'b', nope: 1 } }),
      txn(T, { op: 'insert', table: 'Nope', row: {} }),
      txn(T, { op: 'insert', table: 'Root', row: { name: 1 } }),
      txn(T, { op: 'insert', table: 'Root', uuid: u('d'), row: { name: 'c' } }),
      txn(T, {
        op: 'insert',
        table: 'Root',
        row: { name: 'd', sset: 'x', children: ['set', [['uuid', u('9')]]] },
      }),
      txn(
        T,
        { op: 'insert', table: 'Limited', uuid: u('3'), row: { a: 1 } },
        { op: 'insert', table: 'Limited', uuid: u('4'), row: { a: 2 } },
        { op: 'insert', table: 'Limited', uuid: u('5'), row: { a: 3 } },
      ),
      // Which of two rows an index conflict names "First" is decided by
      // comparing them column by column: conflicts where the random
      // `_version` decides (Limited, Address_Set) are left out; for the two
      // Root rows named "a" above, `sset` decides before it.
      txn(
        T,
        { op: 'insert', table: 'Limited', uuid: u('3'), row: { a: 1, b: 'x' } },
        { op: 'insert', table: 'Limited', uuid: u('4'), row: { a: 2, b: 'y' } },
      ),
      txn(T, {
        op: 'mutate',
        table: 'Root',
        where: [['name', '==', 'a']],
        mutations: [['i', '+=', 1000]],
      }),
      txn(T, {
        op: 'mutate',
        table: 'Root',
        where: [],
        mutations: [['iset', 'insert', ['set', [1, 2, 3, 4, 5, 6]]]],
      }),
      txn(T, { op: 'mutate', table: 'Root', where: [], mutations: [['name', '+=', 1]] }),
      txn(T, {
        op: 'mutate',
        table: 'Root',
        where: [['name', '==', 'a']],
        mutations: [['i', '/=', 0]],
      }),
      txn(T, { op: 'mutate', table: 'Root', where: [], mutations: [['fixed', '+=', 'x']] }),
      txn(T, { op: 'update', table: 'Root', where: [], row: { fixed: 'x' } }),
      txn(T, { op: 'update', table: 'Root', where: [['nope', '==', 1]], row: {} }),
      txn(T, { op: 'select', table: 'Root', where: [['name', '<', 'a']] }),
      txn(T, { op: 'bogus', table: 'Root' }),
      txn(T, {
        op: 'wait',
        table: 'Root',
        where: [],
        columns: ['name'],
        until: '==',
        rows: [],
        timeout: 0,
      }),
      txn(
        T,
        { op: 'insert', table: 'Child', uuid: u('6'), row: { name: 'k' }, 'uuid-name': 'k' },
        {
          op: 'mutate',
          table: 'Root',
          where: [['name', '==', 'a']],
          mutations: [['children', 'insert', ['set', [['named-uuid', 'k']]]]],
        },
      ),
      txn(T, { op: 'delete', table: 'Child', where: [] }),
      txn(T, { op: 'insert', table: 'WeakReq', row: {} }),
      txn(T, { op: 'abort' }),
      txn(T, { op: 'comment', comment: 'hi' }, { op: 'assert', lock: 'foo' }),
      txn('Nope', { op: 'select', table: 'Root', where: [] }),
      txn(T, {
        op: 'select',
        table: 'Root',
        where: [],
        columns: ['name', 'i', 'sset', 'children'],
      }),
      txn(NB, { op: 'insert', table: 'Address_Set', uuid: u('7'), row: { name: 'as1' } }),

      txn(NB, {
        op: 'insert',
        table: 'Logical_Switch',
        uuid: u('a'),
        row: { name: 'ls0', ports: ['named-uuid', 'p'] },
      }),
      txn(
        NB,
        {
          op: 'insert',
          table: 'Logical_Switch_Port',
          uuid: u('b'),
          row: { name: 'p0' },
          'uuid-name': 'p',
        },
        {
          op: 'insert',
          table: 'Logical_Switch',
          uuid: u('a'),
          row: { name: 'ls0', ports: ['named-uuid', 'p'] },
        },
      ),
      txn(NB, { op: 'insert', table: 'NB_Global', row: {} }),
      txn(NB, { op: 'delete', table: 'Logical_Switch_Port', where: [] }),
      txn(NB, { op: 'select', table: 'Logical_Switch', where: [] }),
    ];
    for (const t of txns) {
      await same('transact', t);
      await same('query', t);
    }
    const r = await same('transact', txns[1] as string);
    expect(r.stdout).toContain('constraint violation');
    expect(r.stdout).toContain('identical values (a) for index on column');
  });

  it('dump (text, json, csv, one table, some columns) and backup', async () => {
    for (const db of [NB, T]) {
      await same('dump', db);
      await same('--format=json', 'dump', db);
      await same('--format=csv', 'dump', db);
    }
    await same('dump', T, 'Root');
    await same('dump', T, 'Root', 'name', 'sset');
    await same('dump', NB, 'Logical_Switch', 'name');
    await same('dump', '_Server');
    // backup writes a table's rows in the order `select` returns them, which
    // in ovsdb-server is its row map's (see docs/conformance.md): NB holds
    // one row per table here.
    const r = await same('backup', NB);
    expect(r.stdout).toMatch(/^OVSDB JSON \d+ <sha1>$/m);
  });

  // Version 1 monitors and conditional ones are written in ovsdb-server's hash
  // order, where the order of several rows follows its row maps (see
  // docs/conformance.md): these watch one row at a time.
  it('monitor (text and json) prints the same initial rows and updates', async () => {
    const out = await monitor(
      'monitor',
      [NB, 'NB_Global', 'name,options,nb_cfg'],
      [],
      /initial/,
      () =>
        same(
          'transact',
          txn(NB, {
            op: 'update',
            table: 'NB_Global',
            where: [],
            row: { options: ['map', [['k', 'v']]], nb_cfg: 3 },
          }),
        ),
      /new/,
    );
    expect(out).toMatch(/old/);
    await same(
      'transact',
      txn(T, { op: 'insert', table: 'Weak', uuid: u('c'), row: { name: 'm' } }),
    );
    await monitor(
      'monitor',
      [T, 'Weak', 'name,peer'],
      ['--format=json'],
      /initial/,
      () =>
        same(
          'transact',
          txn(T, {
            op: 'update',
            table: 'Weak',
            where: [],
            row: { name: 'n', peer: ['uuid', u('c')] },
          }),
        ),
      /"n"/,
    );
    await monitor(
      'monitor',
      [NB, 'Address_Set'],
      ['--format=json'],
      /initial/,
      () =>
        same(
          'transact',
          txn(NB, {
            op: 'update',
            table: 'Address_Set',
            where: [],
            row: { addresses: ['set', ['10.0.0.1']] },
          }),
        ),
      /10\.0\.0\.1/,
    );
  });

  it('monitor-cond and monitor-cond-since (text and json), with and without conditions', async () => {
    for (const format of [[], ['--format=json']]) {
      await monitor(
        'monitor-cond',
        [T, '[["name","==","a"]]', 'Root', 'name,i'],
        format,
        /initial/,
        () =>
          same(
            'transact',
            txn(T, {
              op: 'mutate',
              table: 'Root',
              where: [['name', '==', 'a']],
              mutations: [['i', '+=', 1]],
            }),
          ),
        /modify|"old"|old/,
      );
      await monitor(
        'monitor-cond',
        [T, '[true]', 'Root', 'name,i,b'],
        format,
        /initial/,
        () =>
          same(
            'transact',
            txn(T, {
              op: 'update',
              table: 'Root',
              where: [['name', '==', 'a']],
              row: { b: true },
            }),
          ),
        /true/,
      );
      await monitor(
        'monitor-cond-since',
        [T, '[]', 'Limited'],
        format,
        /initial/,
        () =>
          same(
            'transact',
            txn(T, { op: 'mutate', table: 'Limited', where: [], mutations: [['a', '*=', 10]] }),
          ),
        /modify|old/,
      );
      await monitor(
        'monitor-cond-since',
        [T, u('e'), '[["b","==","x"]]', 'Limited', 'a,b'],
        format,
        /initial/,
        () =>
          same(
            'transact',
            txn(T, { op: 'mutate', table: 'Limited', where: [], mutations: [['a', '/=', 10]] }),
          ),
        /modify|old/,
      );
    }
  });

  it('lock, steal and unlock print the same', async () => {
    const holder = new Children('lock', ['L1']);
    try {
      await holder.waitFor(/locked/);
      const waiter = new Children('lock', ['L1']);
      await sleep(300);
      const thief = new Children('steal', ['L1']);
      await thief.waitFor(/locked/);
      await holder.waitFor(/stolen/);
      const [wr, wo] = await waiter.stop();
      expect(wo).toBe(wr);
      const [tr, to] = await thief.stop();
      expect(to).toBe(tr);
    } finally {
      const [hr, ho] = await holder.stop();
      expect(ho).toBe(hr);
    }
    const unlock = new Children('unlock', ['L1']);
    const [ur, uo] = await unlock.stop();
    expect(uo).toBe(ur);
  });

  it('wait for a database state', async () => {
    for (const [db, state] of [
      [T, 'connected'],
      [T, 'added'],
      [NB, 'connected'],
      ['Nope', 'removed'],
      [T, 'bogus'],
    ] as const) {
      await same('wait', db, state);
    }
    // A database that never comes: both wait until stopped.
    const c = new Children('wait', ['Nope', 'added']);
    await sleep(500);
    const [r, o] = await c.stop();
    expect(o).toBe(r);
  });

  it('convert (online, a column added; more in convert.test.ts)', async () => {
    const schema = join(dir, 'test-1.1.ovsschema');
    const text = JSON.parse(
      (await execFileP('ovsdb-client', ['get-schema', remotes[0], T])).stdout,
    ) as { version: string; tables: Record<string, { columns: Record<string, unknown> }> };
    text.version = '1.1.0';
    (text.tables.Weak as { columns: Record<string, unknown> }).columns.extra = { type: 'integer' };
    await writeFile(schema, JSON.stringify(text));
    const o = await same('convert', schema);
    expect(o.code).toBe(0);
    await same('get-schema-version', T);
    await same('list-columns', T, 'Weak');
  });
});

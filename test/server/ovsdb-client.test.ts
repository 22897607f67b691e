/**
 * The real `ovsdb-client` against the `ovnkit-server` program, on the int64
 * schema (bounded and unbounded integer columns, bounds at and near the
 * int64 limits): `get-schema`, `list-tables`, `list-columns`, `transact`,
 * `dump` and `monitor` must print exactly what they print against an
 * ovsdb-server 3.1 started on the same schema and given the same
 * transactions. Only UUIDs are normalized (`_version`s are random; rows are
 * inserted with fixed UUIDs, so their order is the same on both).
 */

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringifyJson } from '../../src/ovsdb/wire/json-stringify.js';
import { startTestServer, type TestServerHandle } from '../helpers/servers.js';
import { INT64_SCHEMA_PATH } from './harness.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'src/server/program/cli.ts');
const DB = 'Int64';

const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;
const P53 = 2n ** 53n;

let dir: string;
let real: TestServerHandle;
let ovnkit: ChildProcess;
/** The two remotes: the real server's, then ovnkit-server's. */
let remotes: [string, string];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-client-'));
  real = await startTestServer('ovsdb-server', { schemaPath: INT64_SCHEMA_PATH });
  const sock = join(dir, 'ovnkit.sock');
  ovnkit = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, '--schema', INT64_SCHEMA_PATH, '--listen', `punix:${sock}`],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  ovnkit.stdout?.setEncoding('utf8');
  ovnkit.stdout?.on('data', (t: string) => {
    out += t;
  });
  for (let i = 0; i < 300 && !out.includes('listening on'); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(out).toBe(`listening on unix:${sock}\n`);
  remotes = [real.unixRemote, `unix:${sock}`];
}, 30_000);

afterAll(async () => {
  ovnkit?.kill('SIGTERM');
  await real?.stop();
  await rm(dir, { recursive: true, force: true });
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** UUIDs replaced by `<n>` in order of first appearance (the fixed row UUIDs kept). */
function normalize(text: string): string {
  const labels = new Map<string, string>();
  return text.replace(UUID, (u) => {
    if (/^([0-9a-f])\1{7}-/.test(u)) return u;
    let l = labels.get(u);
    if (l === undefined) {
      l = `<${labels.size + 1}>`.padEnd(36, '.');
      labels.set(u, l);
    }
    return l;
  });
}

/** `ovsdb-client <args…>` against each server: [real, ovnkit]. */
async function client(...args: string[]): Promise<[string, string]> {
  const out = await Promise.all(
    remotes.map(async (remote) => {
      const [cmd, ...rest] = args;
      const { stdout } = await run('ovsdb-client', [cmd as string, remote, ...rest]);
      return stdout;
    }),
  );
  return out as [string, string];
}

async function transact(ops: unknown[]): Promise<[string, string]> {
  return client('transact', stringifyJson([DB, ...ops]));
}

/** Spawn `ovsdb-client monitor` on both, wait for `ready` in each output, run `then`, wait for `done`. */
async function monitor(
  args: readonly string[],
  ready: RegExp,
  then: () => Promise<unknown>,
  done: RegExp,
): Promise<[string, string]> {
  const children = remotes.map((remote) =>
    spawn('ovsdb-client', ['monitor', remote, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  const outs = children.map(() => '');
  children.forEach((c, i) => {
    c.stdout.setEncoding('utf8');
    c.stdout.on('data', (t: string) => {
      outs[i] += t;
    });
  });
  const waitAll = async (re: RegExp): Promise<void> => {
    for (let n = 0; n < 200 && !outs.every((o) => re.test(o)); n++) {
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  try {
    await waitAll(ready);
    await then();
    await waitAll(done);
    // Anything a server sent late would show now.
    await new Promise((r) => setTimeout(r, 100));
  } finally {
    for (const c of children) c.kill('SIGTERM');
  }
  return outs as [string, string];
}

const rowA = {
  name: 'a',
  i: MIN,
  oi: MAX,
  s: ['set', [MAX, MIN, P53 + 1n, 5]],
  m: [
    'map',
    [
      [MAX, MIN],
      [1, P53],
    ],
  ],
  r: P53 + 1n,
  big: MAX - 1n,
  pos: ['set', [P53, MAX]],
  full: MIN,
  top: MIN,
  low: MAX,
  e: P53 + 1n,
  one: P53 + 1n,
  bm: ['map', [[P53 + 1n, -P53 - 1n]]],
  small: ['set', [-10, 10]],
};

describe('ovsdb-client against ovnkit-server and ovsdb-server', () => {
  it('get-schema prints the same schema: bounds exact, defaults left out', async () => {
    const [r, o] = await client('get-schema', DB);
    expect(o).toBe(r);
    expect(r).toContain('"maxInteger":9223372036854775806,"minInteger":-9007199254740993');
    expect(r).toContain('"full":{"type":"integer"}');
  });

  it('list-tables and list-columns print the same, in the same order', async () => {
    const [rt, ot] = await client('list-tables', DB);
    expect(ot).toBe(rt);
    const [r, o] = await client('list-columns', DB);
    expect(o).toBe(r);
    expect(r).toContain('{"key":{"minInteger":9007199254740992,"type":"integer"}');
  });

  it('transact prints the same results', async () => {
    const txns: unknown[][] = [
      [
        { op: 'insert', table: 'T', uuid: '11111111-1111-4111-8111-111111111111', row: rowA },
        {
          op: 'insert',
          table: 'K',
          uuid: '22222222-2222-4222-8222-222222222222',
          row: { k: MAX, n: 'x' },
        },
        {
          op: 'insert',
          table: 'K',
          uuid: '33333333-3333-4333-8333-333333333333',
          row: { k: MIN, n: 'y' },
        },
      ],
      [
        { op: 'select', table: 'T', where: [['i', '<', -P53]], columns: ['i', 's', 'm', 'r'] },
        { op: 'mutate', table: 'T', where: [], mutations: [['i', '+=', MAX]] },
        { op: 'select', table: 'T', where: [['i', '==', -1]], columns: ['i'] },
      ],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['oi', '+=', 1]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['i', '*=', MIN]] }],
      [{ op: 'insert', table: 'T', row: { i: 2 ** 63 } }],
      [{ op: 'insert', table: 'T', row: { big: MAX } }],
      [
        {
          op: 'wait',
          table: 'K',
          where: [['k', '<', 0]],
          columns: ['k'],
          until: '==',
          rows: [{ k: MIN }],
          timeout: MAX,
        },
        { op: 'delete', table: 'K', where: [['k', '==', 2 ** 63]] },
      ],
      [{ op: 'select', table: 'K', where: [['k', '>', P53]], columns: ['k', 'n'] }],
    ];
    for (const ops of txns) {
      const [r, o] = await transact(ops);
      expect(normalize(o), stringifyJson(ops)).toBe(normalize(r));
    }
  });

  it('dump prints the same tables', async () => {
    const [r, o] = await client('dump', DB);
    expect(normalize(o)).toBe(normalize(r));
    expect(r).toContain('9223372036854775807');
    expect(r).toContain('-9223372036854775808');
  });

  it('monitor prints the same initial contents and update', async () => {
    const [r, o] = await monitor(
      [DB, 'T'],
      /initial/,
      () =>
        transact([
          {
            op: 'update',
            table: 'T',
            where: [['name', '==', 'a']],
            row: { i: MAX, s: ['set', [MIN, P53]], m: ['map', [[MIN, MAX]]] },
          },
        ]),
      /new/,
    );
    expect(normalize(o)).toBe(normalize(r));
    expect(r).toMatch(/initial/);
    expect(r).toMatch(/old/);
    expect(r).toContain('{-9223372036854775808=9223372036854775807}');
  });

  it('monitor with --format=json prints the same update', async () => {
    const [r, o] = await monitor(
      ['--format=json', DB, 'K'],
      /initial/,
      () =>
        transact([
          { op: 'mutate', table: 'K', where: [['k', '==', MIN]], mutations: [['k', '/=', 2]] },
        ]),
      /"old"/,
    );
    expect(normalize(o)).toBe(normalize(r));
    expect(r).toContain('-4611686018427387904');
  });
});

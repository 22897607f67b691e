/**
 * Database files shared with Open vSwitch, both ways:
 * - the same transactions (with client-chosen UUIDs) give ovsdb-server and
 *   ovnkit the same records, record by record (but `_date`): inserts, set
 *   and map diffs, deletes, garbage collection, weak references removed,
 *   comments, int64 values at the bounds;
 * - ovnkit serves the files ovsdb-server and `ovsdb-tool` wrote, with the
 *   same rows and UUIDs;
 * - `ovsdb-tool show-log`, `query`, `compact`, `convert`, `db-version` and
 *   `db-cksum` work on files ovnkit wrote, and ovsdb-server serves them.
 */

import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../../src/ovsdb/connection/connect.js';
import { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';
import { parseSchemaText } from '../../../src/ovsdb/schema/schema.js';
import { parseJson } from '../../../src/ovsdb/wire/json-text.js';
import type { Operation } from '../../../src/ovsdb/wire/wire.js';
import { createServer } from '../../../src/server/core-index.js';
import { requireOvsdbServer, startOvsdbServer } from '../../../src/testing/index.js';
import { runTool } from '../../../src/testing/processes.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const TEST_SCHEMA = join(ROOT, 'test/fixtures/test.ovsschema');
const INT64_SCHEMA = join(ROOT, 'test/fixtures/int64.ovsschema');
const NB_SCHEMA = join(ROOT, 'schema/ovn-nb-7.18.0.ovsschema');
const tools = requireOvsdbServer(false);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-interop-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const u = (n: number) => `${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`;
const R1 = u(1);
const R2 = u(2);
const C1 = u(11);
const C2 = u(12);
const W1 = u(21);
const ref = (x: string) => ['uuid', x];

/** Transactions over the Test schema, with fixed UUIDs so both servers write the same records. */
const TXNS: unknown[][] = [
  [
    { op: 'insert', table: 'Weak', uuid: W1, row: { name: 'w1' } },
    { op: 'insert', table: 'Child', uuid: C1, row: { name: 'c1', n: 1 } },
    { op: 'insert', table: 'Child', uuid: C2, row: { name: 'c2', kids: ref(C1) } },
    {
      op: 'insert',
      table: 'Root',
      uuid: R1,
      row: {
        name: 'r1',
        i: 5,
        r: 1.25,
        b: true,
        e: 'beta',
        s: 'abc',
        iset: ['set', [1, 2, 3]],
        rset: ['set', [0.5, 2.75]],
        sset: ['set', ['a', 'b']],
        smap: [
          'map',
          [
            ['k', 'v'],
            ['k2', 'v2'],
          ],
        ],
        imap: ['map', [[1, 'a']]],
        children: ref(C1),
        child_map: ['map', [['x', ref(C2)]]],
        weak: ref(W1),
        weak_map: ['map', [[ref(W1), 7]]],
        fixed: 'f',
      },
    },
    { op: 'comment', comment: 'setup' },
  ],
  [
    {
      op: 'update',
      table: 'Root',
      where: [['_uuid', '==', ref(R1)]],
      row: {
        smap: [
          'map',
          [
            ['k', 'v3'],
            ['new', 'x'],
          ],
        ],
        r: 3.5,
      },
    },
    {
      op: 'mutate',
      table: 'Root',
      where: [],
      mutations: [
        ['iset', 'insert', 4],
        ['iset', 'delete', 1],
      ],
    },
    { op: 'commit', durable: true },
  ],
  // C2 loses its last reference: collected, and C1 with it once children drops it.
  [
    {
      op: 'update',
      table: 'Root',
      where: [],
      row: { child_map: ['map', []], children: ['set', []] },
    },
  ],
  // The weak references to W1 go with it.
  [{ op: 'delete', table: 'Weak', where: [] }],
  [
    { op: 'insert', table: 'Root', uuid: R2, row: { name: 'r2', sset: 'z' } },
    { op: 'comment', comment: 'two' },
    { op: 'comment', comment: 'lines' },
  ],
  [{ op: 'delete', table: 'Root', where: [['name', '==', 'r2']] }],
];

const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;
const INT64_TXNS: unknown[][] = [
  [
    {
      op: 'insert',
      table: 'T',
      uuid: u(31),
      row: {
        i: MIN,
        oi: MAX,
        s: ['set', [MAX, 2n ** 53n + 1n, -1]],
        m: ['map', [[MIN, MAX]]],
        big: MAX - 1n,
      },
    },
  ],
  [
    {
      op: 'mutate',
      table: 'T',
      where: [],
      mutations: [
        ['s', 'delete', MAX],
        ['i', '+=', 1],
      ],
    },
  ],
];

/** The JSON records of an OVSDB file, read exactly. */
function records(file: string): Record<string, unknown>[] {
  const bytes = readFileSync(file);
  const out: Record<string, unknown>[] = [];
  let at = 0;
  while (at < bytes.length) {
    const lf = bytes.indexOf(0x0a, at);
    const m = /^OVSDB JSON (\d+) [0-9a-f]{40}$/.exec(bytes.toString('latin1', at, lf));
    if (m === null) throw new Error(`bad header at ${at}`);
    const end = lf + 1 + Number(m[1]);
    out.push(parseJson(bytes.toString('utf8', lf + 1, end)) as Record<string, unknown>);
    at = end;
  }
  return out;
}

function withoutDates(recs: Record<string, unknown>[]): Record<string, unknown>[] {
  return recs.map((r) => {
    const { _date, ...rest } = r;
    return rest;
  });
}

async function run(conn: OvsdbConnection, db: string, txns: unknown[][]): Promise<void> {
  for (const t of txns) {
    const results = (await conn.transact(db, t as Operation[])) as unknown[];
    expect(results.some((r) => r !== null && typeof r === 'object' && 'error' in r)).toBe(false);
  }
}

/** Run `txns` on a real ovsdb-server and return a copy of its database file. */
async function viaOvsdbServer(
  schemaPath: string,
  db: string,
  txns: unknown[][],
  name: string,
): Promise<string> {
  const server = await startOvsdbServer({ schemaPath });
  try {
    const conn = await connect(server.unixRemote);
    await run(conn, db, txns);
    conn.close();
    // Killed: what it acknowledged is in the file.
    await server.kill();
    const copy = join(dir, name);
    copyFileSync(server.dbPath, copy);
    return copy;
  } finally {
    await server.stop();
  }
}

/** Run `txns` on ovnkit's server keeping `file`; returns its dump. */
async function viaOvnkit(schemaPath: string, db: string, txns: unknown[][], file: string) {
  const schema = parseSchemaText(readFileSync(schemaPath, 'utf8'));
  const s = await createServer({ databases: [schema], dbFile: file });
  try {
    await run(connectIn(s), db, txns);
    return dumpOf(s, db);
  } finally {
    await s.close();
  }
}

function connectIn(s: Awaited<ReturnType<typeof createServer>>): OvsdbConnection {
  return new OvsdbConnection(s.connectInProcess());
}

/** Every row of every table (all columns but _version), by table then UUID. */
function dumpOf(s: Awaited<ReturnType<typeof createServer>>, db: string) {
  const d = s.database(db)?.dump() ?? {};
  return normalize(d);
}

function normalize(d: Record<string, Record<string, unknown>[]>) {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [t, rows] of Object.entries(d)) {
    out[t] = {};
    for (const r of rows) {
      const { _version, _uuid, ...rest } = r;
      (out[t] as Record<string, unknown>)[(_uuid as [string, string])[1]] = rest;
    }
  }
  return out;
}

/** `ovsdb-tool query` of every table of `file`, normalized as {@link normalize}. */
async function queryAll(file: string, db: string, tables: string[]) {
  const text = await runTool(tools.ovsdbTool, [
    'query',
    file,
    JSON.stringify([db, ...tables.map((table) => ({ op: 'select', table, where: [] }))]),
  ]);
  const results = parseJson(text) as { rows: Record<string, unknown>[] }[];
  const d: Record<string, Record<string, unknown>[]> = {};
  tables.forEach((t, i) => {
    d[t] = results[i]?.rows ?? [];
  });
  return normalize(d);
}

async function openedByOvnkit(file: string, db: string) {
  const s = await createServer({ dbFiles: [file] });
  try {
    return dumpOf(s, db);
  } finally {
    await s.close();
  }
}

const TEST_TABLES = ['Root', 'Child', 'Weak', 'WeakReq', 'Limited'];

describe('the same transactions', () => {
  it('give ovsdb-server and ovnkit the same records, and each serves the other’s file', async () => {
    const real = await viaOvsdbServer(TEST_SCHEMA, 'Test', TXNS, 'real.db');
    const ours = join(dir, 'ours.db');
    const ourDump = await viaOvnkit(TEST_SCHEMA, 'Test', TXNS, ours);
    const realRecs = records(real);
    const ourRecs = records(ours);
    expect(ourRecs).toHaveLength(1 + TXNS.length);
    expect(withoutDates(ourRecs)).toEqual(withoutDates(realRecs));
    // Spot checks of what the records hold.
    expect(ourRecs[1]?._comment).toBe('setup');
    expect(ourRecs[2]?.Root).toEqual({
      [R1]: {
        smap: [
          'map',
          [
            ['k', 'v3'],
            ['k2', 'v2'],
            ['new', 'x'],
          ],
        ],
        r: 3.5,
        iset: ['set', [1, 4]],
      },
    });
    expect(ourRecs[3]?.Child).toEqual({ [C1]: null, [C2]: null });
    expect(ourRecs[5]?._comment).toBe('two\nlines');
    // ovnkit serves ovsdb-server's file: the same rows, the same UUIDs.
    expect(await openedByOvnkit(real, 'Test')).toEqual(ourDump);
    // ovsdb-tool reads ovnkit's file to the same rows.
    expect(await queryAll(ours, 'Test', TEST_TABLES)).toEqual(ourDump);
    expect(Object.keys(ourDump.Root ?? {})).toEqual([R1]);
  });

  it('keep 64-bit integers exact at the int64 bounds, both ways', async () => {
    const real = await viaOvsdbServer(INT64_SCHEMA, 'Int64', INT64_TXNS, 'real64.db');
    const ours = join(dir, 'ours64.db');
    const ourDump = await viaOvnkit(INT64_SCHEMA, 'Int64', INT64_TXNS, ours);
    expect(withoutDates(records(ours))).toEqual(withoutDates(records(real)));
    expect(readFileSync(ours, 'utf8')).toContain('"i":-9223372036854775808');
    expect(ourDump.T?.[u(31)]).toMatchObject({ i: MIN + 1n, oi: MAX, big: MAX - 1n });
    expect(await openedByOvnkit(real, 'Int64')).toEqual(ourDump);
    expect(await queryAll(ours, 'Int64', ['T', 'K'])).toEqual(ourDump);
  });
});

describe('ovsdb-tool on files ovnkit wrote', () => {
  it('show-log, db-version, db-cksum, compact, convert; ovsdb-tool create and transact files open in ovnkit', async () => {
    // A file made by ovsdb-tool create, written to by ovsdb-tool transact.
    const created = join(dir, 'created.db');
    await runTool(tools.ovsdbTool, ['create', created, NB_SCHEMA]);
    await runTool(tools.ovsdbTool, [
      'transact',
      created,
      JSON.stringify([
        'OVN_Northbound',
        { op: 'insert', table: 'Logical_Switch', uuid: u(41), row: { name: 'sw0' } },
      ]),
    ]);
    const served = await createServer({ dbFiles: [created] });
    try {
      const conn = connectIn(served);
      const [sel] = (await conn.transact('OVN_Northbound', [
        { op: 'select', table: 'Logical_Switch', where: [], columns: ['_uuid', 'name'] },
      ] as Operation[])) as { rows: unknown[] }[];
      expect(sel?.rows).toEqual([{ _uuid: ['uuid', u(41)], name: 'sw0' }]);
      await conn.transact('OVN_Northbound', [
        {
          op: 'insert',
          table: 'Logical_Switch',
          uuid: u(42),
          row: { name: 'sw1', other_config: ['map', [['a', 'b']]] },
        },
        { op: 'comment', comment: 'from ovnkit' },
      ] as Operation[]);
      conn.close();
    } finally {
      await served.close();
    }
    const log = await runTool(tools.ovsdbTool, ['show-log', created]);
    expect(log).toMatch(/^record 0: "OVN_Northbound" schema, version="7\.18\.0"/);
    expect(log).toMatch(/record 2: .* "from ovnkit"/);
    expect((await runTool(tools.ovsdbTool, ['db-version', created])).trim()).toBe('7.18.0');
    const cksum = (await runTool(tools.ovsdbTool, ['schema-cksum', NB_SCHEMA])).trim();
    expect((await runTool(tools.ovsdbTool, ['db-cksum', created])).trim()).toBe(cksum);

    // ovnkit's own new file, compacted by ovsdb-tool and opened again.
    const ours = join(dir, 'compact.db');
    const dump = await viaOvnkit(TEST_SCHEMA, 'Test', TXNS, ours);
    await runTool(tools.ovsdbTool, ['compact', ours]);
    expect(records(ours)).toHaveLength(2);
    expect(records(ours)[1]?._comment).toMatch(/^compacted by ovsdb-tool/);
    expect(await openedByOvnkit(ours, 'Test')).toEqual(dump);

    // Converted by ovsdb-tool to a newer schema: the new column has its default.
    const newer = JSON.parse(readFileSync(TEST_SCHEMA, 'utf8')) as {
      version: string;
      tables: { Root: { columns: Record<string, unknown> } };
    };
    newer.version = '1.1.0';
    newer.tables.Root.columns.added = { type: 'string' };
    const newerPath = join(dir, 'newer.ovsschema');
    writeFileSync(newerPath, JSON.stringify(newer));
    const converted = join(dir, 'converted.db');
    await viaOvnkit(TEST_SCHEMA, 'Test', TXNS, converted);
    await runTool(tools.ovsdbTool, ['convert', converted, newerPath]);
    expect((await runTool(tools.ovsdbTool, ['db-version', converted])).trim()).toBe('1.1.0');
    const after = await openedByOvnkit(converted, 'Test');
    expect(after.Root?.[R1]).toEqual({ ...(dump.Root?.[R1] as object), added: '' });

    // And ovsdb-server itself serves a file ovnkit wrote.
    const served2 = join(dir, 'served.db');
    await viaOvnkit(TEST_SCHEMA, 'Test', TXNS, served2);
    const sock = join(dir, 'served.sock');
    const ctl = join(dir, 'served.ctl');
    await runTool(tools.ovsdbServer, [
      served2,
      `--remote=punix:${sock}`,
      `--unixctl=${ctl}`,
      `--pidfile=${join(dir, 'served.pid')}`,
      `--log-file=${join(dir, 'served.log')}`,
      '--detach',
      '--no-chdir',
    ]);
    try {
      const conn = await connect(`unix:${sock}`);
      const [sel] = (await conn.transact('Test', [
        { op: 'select', table: 'Root', where: [], columns: ['_uuid', 'name', 'smap'] },
      ] as Operation[])) as { rows: unknown[] }[];
      expect(sel?.rows).toEqual([
        {
          _uuid: ['uuid', R1],
          name: 'r1',
          smap: [
            'map',
            [
              ['k', 'v3'],
              ['new', 'x'],
            ],
          ],
        },
      ]);
      conn.close();
    } finally {
      await runTool(tools.ovsAppctl, ['-t', ctl, 'exit']);
    }
  });
});

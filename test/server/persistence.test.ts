/**
 * Database files of the in-memory server (`dbFile`, `dbFiles`): an OVSDB
 * standalone file with one record per commit, written before the reply;
 * loaded at start with references, indexes and garbage collection as a
 * replay commits them; compacted on ovsdb-server's rule and on demand;
 * converted to a newer schema; an ovnkit JSON snapshot of earlier versions
 * converted once; and exact 64-bit integers.
 */

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import { parseSchemaText } from '../../src/ovsdb/schema/schema.js';
import { TransactionError } from '../../src/ovsdb/wire/errors.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import {
  type CreateServerOptions,
  createServer,
  DbFileError,
  type OvsdbServer,
  SNAPSHOT_FORMAT,
  SnapshotError,
} from '../../src/server/core-index.js';

const SCHEMA = {
  name: 'P',
  version: '1.0.0',
  tables: {
    Owner: {
      columns: {
        name: { type: 'string' },
        pets: { type: { key: { type: 'uuid', refTable: 'Pet' }, min: 0, max: 'unlimited' } },
        tags: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
        seen: { type: 'integer', ephemeral: true },
      },
      isRoot: true,
      indexes: [['name']],
    },
    Pet: { columns: { name: { type: 'string' }, age: { type: 'integer' } } },
  },
};

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-persist-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function ops(list: unknown[]): Operation[] {
  return list as Operation[];
}

async function withServer<T>(
  options: Partial<CreateServerOptions>,
  f: (conn: OvsdbConnection, s: OvsdbServer) => Promise<T>,
): Promise<T> {
  const s = await createServer({ databases: [SCHEMA], ...options });
  const conn = new OvsdbConnection(s.connectInProcess());
  try {
    return await f(conn, s);
  } finally {
    conn.close();
    await s.close();
  }
}

/** The JSON records of an OVSDB file (headers checked for length). */
function records(file: string): Record<string, unknown>[] {
  const text = readFileSync(file, 'utf8');
  const out: Record<string, unknown>[] = [];
  let at = 0;
  while (at < text.length) {
    const lf = text.indexOf('\n', at);
    const m = /^OVSDB JSON (\d+) [0-9a-f]{40}$/.exec(text.slice(at, lf));
    expect(m).not.toBeNull();
    const body = Buffer.from(text.slice(lf + 1), 'utf8')
      .subarray(0, Number(m?.[1]))
      .toString('utf8');
    out.push(JSON.parse(body) as Record<string, unknown>);
    at = lf + 1 + body.length;
  }
  return out;
}

const seed = ops([
  { op: 'insert', table: 'Pet', row: { name: 'rex', age: 3 }, 'uuid-name': 'p' },
  {
    op: 'insert',
    table: 'Owner',
    row: { name: 'ann', pets: ['named-uuid', 'p'], tags: ['map', [['k', 'v']]] },
  },
]);

describe('dbFile', () => {
  it('survives a restart with rows, references, indexes and _version', async () => {
    const file = join(dir, 'a.db');
    const before = await withServer({ dbFile: file }, async (conn) => {
      await conn.transact('P', seed);
      const [sel] = await conn.transact('P', ops([{ op: 'select', table: 'Owner', where: [] }]));
      return sel as { rows: { _version: unknown }[] };
    });
    expect(existsSync(file)).toBe(true);
    await withServer({ dbFile: file }, async (conn) => {
      const [sel] = (await conn.transact(
        'P',
        ops([{ op: 'select', table: 'Owner', where: [] }]),
      )) as { rows: { _version: unknown }[] }[];
      // The same rows and UUIDs; _version is not kept in files (ovsdb-server makes a new one too).
      const strip = (r: { _version: unknown }) => ({ ...r, _version: undefined });
      expect(sel?.rows.map(strip)).toEqual(before.rows.map(strip));
      // The unique index was rebuilt.
      const dup = await conn
        .transact('P', ops([{ op: 'insert', table: 'Owner', row: { name: 'ann' } }]))
        .catch((e: unknown) => e);
      expect(dup).toBeInstanceOf(TransactionError);
      expect((dup as TransactionError).error).toBe('constraint violation');
      // The reference count was rebuilt: the pet cannot be deleted while referenced.
      const del = await conn
        .transact('P', ops([{ op: 'delete', table: 'Pet', where: [] }]))
        .catch((e: unknown) => e);
      expect((del as TransactionError).error).toBe('referential integrity violation');
      // Garbage collection still works once the reference goes, and is recorded.
      await conn.transact(
        'P',
        ops([{ op: 'update', table: 'Owner', where: [], row: { pets: ['set', []] } }]),
      );
      const [pets] = await conn.transact('P', ops([{ op: 'select', table: 'Pet', where: [] }]));
      expect(pets).toEqual({ rows: [] });
    });
    const recs = records(file);
    const last = recs[recs.length - 1] as Record<string, Record<string, unknown>>;
    expect(Object.values(last.Pet ?? {})).toEqual([null]);
  });

  it('appends one record per commit before the reply: changed columns only, diffs, deletes, comments', async () => {
    const file = join(dir, 'b.db');
    await withServer({ dbFile: file }, async (conn) => {
      expect(records(file)).toHaveLength(1);
      const [, owner] = (await conn.transact('P', [
        ...seed,
        { op: 'comment', comment: 'first' },
        { op: 'comment', comment: 'second' },
      ] as Operation[])) as { uuid: [string, string] }[];
      const ownerUuid = owner?.uuid[1] as string;
      // The record is on disk as soon as the reply is here.
      let recs = records(file);
      expect(recs).toHaveLength(2);
      expect(recs[0]).toMatchObject({ name: 'P', version: '1.0.0' });
      expect(recs[1]).toMatchObject({ _comment: 'first\nsecond', _is_diff: true });
      expect(typeof recs[1]?._date).toBe('number');
      expect((recs[1]?.Owner as Record<string, unknown> | undefined)?.[ownerUuid]).toEqual({
        name: 'ann',
        pets: ['uuid', expect.any(String)],
        tags: ['map', [['k', 'v']]],
      });
      await conn.transact(
        'P',
        ops([
          {
            op: 'update',
            table: 'Owner',
            where: [],
            row: {
              tags: [
                'map',
                [
                  ['k', 'w'],
                  ['z', 'y'],
                ],
              ],
            },
          },
          { op: 'commit', durable: true },
        ]),
      );
      recs = records(file);
      // Only the changed column, as its diff: k changed to w, z added.
      expect(recs[2]).toEqual({
        _date: expect.any(Number),
        _is_diff: true,
        Owner: {
          [ownerUuid]: {
            tags: [
              'map',
              [
                ['k', 'w'],
                ['z', 'y'],
              ],
            ],
          },
        },
      });
      // A change to an ephemeral column only is not written; a no-op neither.
      await conn.transact(
        'P',
        ops([{ op: 'update', table: 'Owner', where: [], row: { seen: 5 } }]),
      );
      await conn.transact(
        'P',
        ops([{ op: 'update', table: 'Owner', where: [], row: { name: 'ann' } }]),
      );
      expect(records(file)).toHaveLength(3);
      await conn.transact('P', ops([{ op: 'delete', table: 'Owner', where: [] }]));
      recs = records(file);
      // The owner deleted, and its pet collected with it.
      expect(recs[3]?.Owner).toEqual({ [ownerUuid]: null });
      expect(Object.values(recs[3]?.Pet as object)).toEqual([null]);
    });
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('writes whole columns without diffs when columnDiff is false', async () => {
    const file = join(dir, 'c.db');
    await withServer({ dbFile: file, storage: { columnDiff: false } }, async (conn) => {
      await conn.transact('P', seed);
      await conn.transact(
        'P',
        ops([
          {
            op: 'mutate',
            table: 'Owner',
            where: [],
            mutations: [['tags', 'insert', ['map', [['a', 'b']]]]],
          },
        ]),
      );
    });
    const recs = records(file);
    expect(recs[2]?._is_diff).toBeUndefined();
    expect(Object.values(recs[2]?.Owner as object)).toEqual([
      {
        tags: [
          'map',
          [
            ['a', 'b'],
            ['k', 'v'],
          ],
        ],
      },
    ]);
    await withServer({ dbFile: file }, async (conn) => {
      const [sel] = await conn.transact(
        'P',
        ops([{ op: 'select', table: 'Owner', where: [], columns: ['tags'] }]),
      );
      expect(sel).toEqual({
        rows: [
          {
            tags: [
              'map',
              [
                ['a', 'b'],
                ['k', 'v'],
              ],
            ],
          },
        ],
      });
    });
  });

  it('compacts on ovsdb-server’s rule and on demand, atomically, to the same contents', async () => {
    const file = join(dir, 'd.db');
    const compaction = { minIntervalMs: 0, randomIntervalMs: 0, minBytes: 4000, minRecords: 10 };
    const names = await withServer({ dbFile: file, storage: { compaction } }, async (conn, s) => {
      for (let i = 0; i < 40; i++) {
        await conn.transact('P', ops([{ op: 'insert', table: 'Owner', row: { name: `o${i}` } }]));
        await new Promise((r) => setImmediate(r));
      }
      // The log grew past 4000 bytes and twice its compacted size at least once.
      const recs = records(file);
      expect(recs.length).toBeLessThan(40);
      expect(s.readLog()).toMatch(/database compaction took \d+ms/);
      s.compact('P');
      expect(records(file)).toHaveLength(2);
      expect(records(file)[1]).toMatchObject({ _comment: 'compacting database online' });
      expect(() => s.compact('Nope')).toThrow('no database by that name');
      expect(() => s.compact('_Server')).toThrow('cannot compact built-in databases');
      const [sel] = (await conn.transact(
        'P',
        ops([{ op: 'select', table: 'Owner', where: [], columns: ['name'] }]),
      )) as { rows: { name: string }[] }[];
      return sel?.rows.map((r) => r.name).sort();
    });
    expect(names).toHaveLength(40);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
    await withServer({ dbFile: file }, async (conn) => {
      const [sel] = (await conn.transact(
        'P',
        ops([{ op: 'select', table: 'Owner', where: [], columns: ['name'] }]),
      )) as { rows: { name: string }[] }[];
      expect(sel?.rows.map((r) => r.name).sort()).toEqual(names);
    });
  });

  it('converts the data when the schema given differs, as ovsdb-tool convert', async () => {
    const file = join(dir, 'e.db');
    await withServer({ dbFile: file }, (conn) => conn.transact('P', seed));
    const newer = structuredClone(SCHEMA) as typeof SCHEMA & {
      version: string;
      tables: { Pet: { columns: Record<string, unknown> } };
    };
    newer.version = '1.1.0';
    delete (newer.tables.Pet.columns as Record<string, unknown>).age;
    newer.tables.Pet.columns.color = { type: 'string' };
    await withServer({ databases: [newer], dbFile: file }, async (conn, s) => {
      const [pets] = await conn.transact(
        'P',
        ops([{ op: 'select', table: 'Pet', where: [], columns: ['name', 'color'] }]),
      );
      expect(pets).toEqual({ rows: [{ name: 'rex', color: '' }] });
      expect(s.readLog()).toContain('converted database P from schema version 1.0.0 to 1.1.0');
    });
    const recs = records(file);
    expect(recs).toHaveLength(2);
    expect(recs[0]?.version).toBe('1.1.0');
    const narrower = structuredClone(newer);
    (narrower.tables.Pet.columns as Record<string, unknown>).name = {
      type: { key: { type: 'string', enum: ['set', ['tom']] } },
    };
    narrower.version = '1.2.0';
    await expect(createServer({ databases: [narrower], dbFile: file })).rejects.toThrow(
      /cannot convert database P from schema version 1.1.0 to 1.2.0: table Pet, row [-0-9a-f]+, column name: constraint violation/,
    );
    const other = { ...SCHEMA, name: 'Q' };
    await expect(createServer({ databases: [other], dbFile: file })).rejects.toThrow(
      /holds database P, not Q/,
    );
  });

  it('converts an ovnkit JSON snapshot into a database file once', async () => {
    const file = join(dir, 'f.json');
    const uuid = '0b8b6bd6-1cfa-4c11-b5a8-c3c4a7f4b1a1';
    writeFileSync(
      file,
      JSON.stringify({
        format: SNAPSHOT_FORMAT,
        version: 1,
        databases: { P: { schema: SCHEMA, rows: { Owner: { [uuid]: { name: 'old' } } } } },
      }),
    );
    writeFileSync(join(dir, `.f.json.${process.pid}.tmp`), '{');
    await withServer({ dbFile: file }, async (conn, s) => {
      const [sel] = await conn.transact(
        'P',
        ops([{ op: 'select', table: 'Owner', where: [], columns: ['_uuid', 'name'] }]),
      );
      expect(sel).toEqual({ rows: [{ _uuid: ['uuid', uuid], name: 'old' }] });
      expect(s.readLog()).toContain(
        'converted the ovnkit JSON snapshot into an OVSDB database file',
      );
    });
    expect(readFileSync(file, 'utf8').startsWith('OVSDB JSON ')).toBe(true);
    expect(readFileSync(`${file}.snapshot-backup`, 'utf8').startsWith('{')).toBe(true);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
    const again = await withServer({ dbFile: file }, async (_c, s) => s.readLog());
    expect(again).not.toContain('converted the ovnkit JSON snapshot');
    const bad = join(dir, 'g.json');
    writeFileSync(
      bad,
      JSON.stringify({
        format: SNAPSHOT_FORMAT,
        version: 1,
        databases: { P: { schema: SCHEMA, rows: { Pet: { [uuid]: { name: 'x', age: 'old' } } } } },
      }),
    );
    const err = await createServer({ databases: [SCHEMA], dbFile: bad }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DbFileError);
    expect((err as Error).message).toContain(`table Pet, row ${uuid}, column age`);
    expect(readFileSync(bad, 'utf8').startsWith('{')).toBe(true);
    writeFileSync(bad, '{"format":"something else"}');
    await expect(createServer({ databases: [SCHEMA], dbFile: bad })).rejects.toBeInstanceOf(
      SnapshotError,
    );
  });

  it('refuses damage before the end of the file, naming the file and offset', async () => {
    const file = join(dir, 'h.db');
    await withServer({ dbFile: file }, async (conn) => {
      await conn.transact('P', seed);
      await conn.transact('P', ops([{ op: 'insert', table: 'Owner', row: { name: 'bob' } }]));
    });
    const text = readFileSync(file, 'utf8');
    const second = text.indexOf('OVSDB JSON', 1);
    const third = text.indexOf('OVSDB JSON', second + 1);
    writeFileSync(file, `${text.slice(0, third - 5)}X${text.slice(third - 4)}`);
    const err = await createServer({ databases: [SCHEMA], dbFile: file }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DbFileError);
    expect((err as DbFileError).offset).toBe(Buffer.byteLength(text.slice(0, second)));
    expect((err as Error).message).toContain(
      `${file}: record at offset ${(err as DbFileError).offset}: `,
    );
  });

  it('serves database files with their own schemas (dbFiles); dbFile keeps one database', async () => {
    const a = join(dir, 'i.db');
    await withServer({ dbFile: a }, (conn) => conn.transact('P', seed));
    const s = await createServer({ dbFiles: [a], databases: [{ ...SCHEMA, name: 'Mem' }] });
    try {
      expect(s.databaseNames).toEqual(expect.arrayContaining(['P', 'Mem', '_Server']));
      expect(s.databaseFile('P')).toBe(a);
      expect(s.database('P')?.tables.get('Pet')?.rows.size).toBe(1);
    } finally {
      await s.close();
    }
    await expect(createServer({ dbFiles: [a, a] })).rejects.toThrow(/database P is already served/);
    await expect(
      createServer({ databases: [SCHEMA, { ...SCHEMA, name: 'Q' }], dbFile: join(dir, 'j.db') }),
    ).rejects.toThrow(/dbFile keeps one database, and 2 are given/);
    await expect(createServer({ dbFiles: [join(dir, 'none.db')] })).rejects.toThrow(
      /none\.db: cannot open: no such file or directory/,
    );
  });
});

describe('int64', () => {
  it('round-trips integers beyond ±(2^53−1) and bounds at the int64 limits exactly', async () => {
    const MIN = -(2n ** 63n);
    const MAX = 2n ** 63n - 1n;
    const schema = parseSchemaText(
      readFileSync(new URL('../fixtures/int64.ovsschema', import.meta.url), 'utf8'),
    );
    const file = join(dir, 'int64.db');
    const row = {
      i: MIN,
      oi: MAX,
      s: ['set', [MAX, 2n ** 53n + 1n, -9007199254740991]],
      m: ['map', [[MIN, MAX]]],
      big: MAX - 1n,
    };
    const s = await createServer({ databases: [schema], dbFile: file });
    const conn = new OvsdbConnection(s.connectInProcess());
    await conn.transact(
      'Int64',
      ops([
        { op: 'insert', table: 'T', row },
        { op: 'insert', table: 'K', row: { k: 2n ** 62n } },
      ]),
    );
    conn.close();
    const before = s.database('Int64')?.dump();
    await s.close();
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"i":-9223372036854775808');
    expect(text).toContain('"maxInteger":9223372036854775806');
    expect(text).not.toMatch(/e\+18/);
    const again = await createServer({ databases: [schema], dbFile: file });
    try {
      const after = again.database('Int64')?.dump();
      // _version is not kept in files.
      const strip = (d: typeof after) =>
        Object.fromEntries(
          Object.entries(d ?? {}).map(([t, rows]) => [t, rows.map((r) => ({ ...r, _version: 0 }))]),
        );
      expect(strip(after)).toEqual(strip(before));
      expect(after?.T?.[0]?.i).toBe(MIN);
      expect(after?.T?.[0]?.oi).toBe(MAX);
      // The unique index was rebuilt over the exact value.
      const dup = again
        .database('Int64')
        ?.transact([{ op: 'insert', table: 'K', row: { k: 2n ** 62n } }]);
      expect(dup?.blocked === true ? [] : dup?.results[1]).toMatchObject({
        error: 'constraint violation',
      });
    } finally {
      await again.close();
    }
  });
});

/**
 * Persistence of the in-memory server (`dbFile`): the JSON snapshot is
 * written atomically after commits (at once for a durable commit), loaded at
 * start with its references and indexes rebuilt, and a broken snapshot is
 * refused with a precise error.
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
  createServer,
  Database,
  type OvsdbServer,
  readSnapshot,
  restoreRows,
  SNAPSHOT_FORMAT,
  SnapshotError,
  writeSnapshot,
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
  file: string,
  f: (conn: OvsdbConnection, s: OvsdbServer) => Promise<T>,
  saveDelayMs?: number,
): Promise<T> {
  const s = await createServer({ databases: [SCHEMA], dbFile: file, saveDelayMs });
  const conn = new OvsdbConnection(s.connectInProcess());
  try {
    return await f(conn, s);
  } finally {
    conn.close();
    await s.close();
  }
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
    const file = join(dir, 'a.json');
    const before = await withServer(file, async (conn) => {
      await conn.transact('P', seed);
      const [sel] = await conn.transact('P', ops([{ op: 'select', table: 'Owner', where: [] }]));
      return sel;
    });
    expect(existsSync(file)).toBe(true);
    await withServer(file, async (conn) => {
      const [sel] = await conn.transact('P', ops([{ op: 'select', table: 'Owner', where: [] }]));
      expect(sel).toEqual(before);
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
      // And garbage collection still works once the reference goes.
      await conn.transact(
        'P',
        ops([{ op: 'update', table: 'Owner', where: [], row: { pets: ['set', []] } }]),
      );
      const [pets] = await conn.transact('P', ops([{ op: 'select', table: 'Pet', where: [] }]));
      expect(pets).toEqual({ rows: [] });
    });
  });

  it('writes atomically: a well-formed file, no temporary file left behind', async () => {
    const file = join(dir, 'b.json');
    await withServer(
      file,
      async (conn) => {
        await conn.transact('P', seed);
        // A durable commit writes at once, without waiting for the delay.
        await conn.transact(
          'P',
          ops([
            { op: 'insert', table: 'Owner', row: { name: 'bob' } },
            { op: 'commit', durable: true },
          ]),
        );
        const snap = JSON.parse(readFileSync(file, 'utf8')) as {
          format: string;
          version: number;
          databases: Record<string, { rows: Record<string, Record<string, { name?: unknown }>> }>;
        };
        expect(snap.format).toBe(SNAPSHOT_FORMAT);
        expect(snap.version).toBe(1);
        const owners = Object.values(snap.databases.P?.rows.Owner ?? {}).map((r) => r.name);
        expect(owners.sort()).toEqual(['ann', 'bob']);
        expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
      },
      60_000,
    );
  });

  it('gathers commits and writes after the delay', async () => {
    const file = join(dir, 'c.json');
    await withServer(
      file,
      async (conn) => {
        await conn.transact('P', seed);
        expect(existsSync(file)).toBe(false);
        await new Promise((r) => setTimeout(r, 120));
        expect(existsSync(file)).toBe(true);
      },
      50,
    );
  });

  it('loads into a newer schema: dropped columns are ignored, new ones get defaults', async () => {
    const file = join(dir, 'd.json');
    await withServer(file, (conn) => conn.transact('P', seed));
    const newer = structuredClone(SCHEMA) as typeof SCHEMA & {
      tables: { Pet: { columns: Record<string, unknown> } };
    };
    delete (newer.tables.Pet.columns as Record<string, unknown>).age;
    newer.tables.Pet.columns.color = { type: 'string' };
    const s = await createServer({ databases: [newer], dbFile: file });
    const conn = new OvsdbConnection(s.connectInProcess());
    const [pets] = await conn.transact(
      'P',
      ops([{ op: 'select', table: 'Pet', where: [], columns: ['name', 'color'] }]),
    );
    expect(pets).toEqual({ rows: [{ name: 'rex', color: '' }] });
    conn.close();
    await s.close();
  });

  it('refuses a broken snapshot with the file, table, row and column', async () => {
    const notJson = join(dir, 'e.json');
    writeFileSync(notJson, '{nope');
    await expect(createServer({ databases: [SCHEMA], dbFile: notJson })).rejects.toThrow(
      SnapshotError,
    );
    const wrong = join(dir, 'f.json');
    writeFileSync(wrong, JSON.stringify({ format: 'x' }));
    await expect(createServer({ databases: [SCHEMA], dbFile: wrong })).rejects.toThrow(
      /not an ovnkit-ovsdb-snapshot/,
    );
    const badValue = join(dir, 'g.json');
    const uuid = '0b8b6bd6-1cfa-4c11-b5a8-c3c4a7f4b1a1';
    writeFileSync(
      badValue,
      JSON.stringify({
        format: SNAPSHOT_FORMAT,
        version: 1,
        databases: { P: { schema: {}, rows: { Pet: { [uuid]: { name: 'x', age: 'old' } } } } },
      }),
    );
    const err = await createServer({ databases: [SCHEMA], dbFile: badValue }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SnapshotError);
    expect((err as Error).message).toContain(`database P, table Pet, row ${uuid}, column age`);
    const dangling = join(dir, 'h.json');
    writeFileSync(
      dangling,
      JSON.stringify({
        format: SNAPSHOT_FORMAT,
        version: 1,
        databases: {
          P: {
            schema: {},
            rows: { Owner: { [uuid]: { name: 'x', pets: ['uuid', uuid.replace('0b', '0c')] } } },
          },
        },
      }),
    );
    await expect(createServer({ databases: [SCHEMA], dbFile: dangling })).rejects.toThrow(
      /references missing row/,
    );
  });
});

describe('int64', () => {
  it('round-trips integers beyond ±(2^53−1) and bounds at the int64 limits exactly', () => {
    const MIN = -(2n ** 63n);
    const MAX = 2n ** 63n - 1n;
    const schema = parseSchemaText(
      readFileSync(new URL('../fixtures/int64.ovsschema', import.meta.url), 'utf8'),
    );
    const db = new Database(schema);
    const out = db.transact([
      {
        op: 'insert',
        table: 'T',
        row: {
          i: MIN,
          oi: MAX,
          s: ['set', [MAX, 2n ** 53n + 1n, -9007199254740991]],
          m: ['map', [[MIN, MAX]]],
          big: MAX - 1n,
        },
      },
      { op: 'insert', table: 'K', row: { k: 2n ** 62n } },
    ]);
    expect(out.blocked === true ? [] : out.results).toHaveLength(2);
    const file = join(dir, 'int64.json');
    writeSnapshot(file, [db]);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"i":-9223372036854775808');
    expect(text).toContain('"maxInteger":9223372036854775806');
    expect(text).not.toMatch(/e\+18/);
    const snapshot = readSnapshot(file);
    const restored = new Database(schema);
    restoreRows(restored, snapshot?.databases.Int64?.rows ?? {}, file);
    expect(restored.dump()).toEqual(db.dump());
    expect(restored.dump().T?.[0]?.i).toBe(MIN);
    // The unique index was rebuilt over the exact value.
    const dup = restored.transact([{ op: 'insert', table: 'K', row: { k: 2n ** 62n } }]);
    expect(dup.blocked === true ? [] : dup.results[1]).toMatchObject({
      error: 'constraint violation',
    });
  });
});

/**
 * Hostile ovnkit JSON snapshots (the file format of ovnkit 0.1) given to
 * `ovnkit-server` as its database file. A snapshot is converted into a
 * standard database file once; what it holds must pass every check a
 * database file's record passes (UUID row keys, `maxRows`, garbage
 * collection of rows nothing refers to, weak references to missing rows,
 * a UUID in two tables read as ovsdb-server reads it), so that the server
 * either refuses the snapshot and leaves it as it was, or serves exactly
 * what it serves again after a restart on the file it wrote (and what
 * ovsdb-server serves from that file), the snapshot kept byte for byte
 * beside it.
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Kind, RawRpc, startFileServer } from '../server/file-servers.js';

const SCHEMA = {
  name: 'P',
  version: '1.0.0',
  tables: {
    Owner: {
      columns: {
        name: { type: 'string' },
        pets: { type: { key: { type: 'uuid', refTable: 'Pet' }, min: 0, max: 'unlimited' } },
        fav: {
          type: { key: { type: 'uuid', refTable: 'Pet', refType: 'weak' }, min: 0, max: 1 },
        },
      },
      isRoot: true,
      indexes: [['name']],
    },
    Pet: { columns: { name: { type: 'string' } } },
    Config: { columns: { x: { type: 'integer' } }, isRoot: true, maxRows: 1 },
  },
};

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';
const U3 = '33333333-3333-4333-8333-333333333333';

type Rows = Record<string, Record<string, Record<string, unknown>>>;

/** The cases: each snapshot's rows, and what the server must make of them. */
const CASES: readonly {
  name: string;
  rows: Rows;
  /** A pattern of the refusal, or the rows served (by table, sorted by name) when accepted. */
  expect: RegExp | Record<string, unknown[]>;
}[] = [
  {
    name: 'a row key that is not a UUID',
    rows: { Owner: { 'not-a-uuid': { name: 'a' } } },
    expect: /table Owner: "not-a-uuid" is not a valid UUID/,
  },
  {
    name: 'two rows in a maxRows: 1 table',
    rows: { Config: { [U1]: { x: 1 }, [U2]: { x: 2 } } },
    expect: /"Config" table to contain 2 rows, greater than the schema-defined limit of 1 row/,
  },
  {
    name: 'a row that no row refers to in a non-root table',
    rows: { Owner: { [U1]: { name: 'a' } }, Pet: { [U2]: { name: 'orphan' } } },
    expect: { Owner: [{ name: 'a', pets: ['set', []], fav: ['set', []] }], Pet: [], Config: [] },
  },
  {
    name: 'a weak reference to a row that does not exist',
    rows: { Owner: { [U1]: { name: 'a', fav: ['uuid', U3] } } },
    expect: { Owner: [{ name: 'a', pets: ['set', []], fav: ['set', []] }], Pet: [], Config: [] },
  },
  {
    // ovsdb-server reads such a record into this very state.
    name: 'one UUID in two tables',
    rows: {
      Owner: { [U1]: { name: 'a', pets: ['uuid', U1] } },
      Pet: { [U1]: { name: 'p' } },
    },
    expect: { Owner: [{ name: 'a', pets: ['uuid', U1], fav: ['set', []] }], Pet: [], Config: [] },
  },
];

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-hostile-snapshot-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Start `kind` on `file`: what it serves (every table, rows sorted by name), or why it refused. */
async function serve(
  file: string,
  kind: Kind = 'ovnkit-server',
): Promise<{ rows: Record<string, unknown[]> } | { refused: string }> {
  let server: Awaited<ReturnType<typeof startFileServer>>;
  try {
    server = await startFileServer(kind, dir, file);
  } catch (e) {
    return { refused: (e as Error).message };
  }
  try {
    const rpc = await RawRpc.open(server.sock);
    const tables = Object.keys(SCHEMA.tables);
    const reply = await rpc.request(
      'transact',
      [
        'P',
        ...tables.map((table) => ({
          op: 'select',
          table,
          where: [],
          columns: Object.keys(SCHEMA.tables[table as keyof typeof SCHEMA.tables].columns),
        })),
      ],
      1,
    );
    rpc.close();
    const results = reply.result as { rows: { name?: string }[] }[];
    const rows: Record<string, unknown[]> = {};
    tables.forEach((table, i) => {
      rows[table] = [...(results[i]?.rows ?? [])].sort((a, b) =>
        String(a.name).localeCompare(String(b.name)),
      );
    });
    return { rows };
  } finally {
    await server.kill();
  }
}

describe('an ovnkit JSON snapshot is checked as a database file is', () => {
  it.each(CASES)('$name', async ({ rows, expect: expected }) => {
    const file = join(dir, 'p.db');
    const text = JSON.stringify({
      format: 'ovnkit-ovsdb-snapshot',
      version: 1,
      databases: { P: { schema: SCHEMA, rows } },
    });
    writeFileSync(file, text);
    const first = await serve(file);
    if (expected instanceof RegExp) {
      // Refused before anything was written: the snapshot is as it was, and nothing was made.
      expect(first).toMatchObject({ refused: expect.stringMatching(expected) });
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(existsSync(`${file}.snapshot-backup`)).toBe(false);
      return;
    }
    expect(first).toEqual({ rows: expected });
    // Converted: the snapshot is kept as it was, and the server comes back
    // on the file it wrote in the very same state, which ovsdb-server reads too.
    expect(readFileSync(`${file}.snapshot-backup`, 'utf8')).toBe(text);
    expect(readFileSync(file, 'utf8').startsWith('OVSDB JSON ')).toBe(true);
    expect(await serve(file)).toEqual(first);
    expect(await serve(file, 'ovsdb-server')).toEqual(first);
  });

  it('refuses to convert when the backup name is taken, leaving both files as they were', async () => {
    const file = join(dir, 'p.db');
    const text = JSON.stringify({
      format: 'ovnkit-ovsdb-snapshot',
      version: 1,
      databases: { P: { schema: SCHEMA, rows: { Owner: { [U1]: { name: 'a' } } } } },
    });
    writeFileSync(file, text);
    writeFileSync(`${file}.snapshot-backup`, 'something else');
    const r = await serve(file);
    expect(r).toMatchObject({
      refused: expect.stringContaining(`cannot keep the snapshot as ${file}.snapshot-backup`),
    });
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readFileSync(`${file}.snapshot-backup`, 'utf8')).toBe('something else');
  });
});

/**
 * `monitor_cond_since` across a restart of `ovnkit-server` on a database
 * file (issue #19): the transaction ids of a file-backed database come from
 * its records, so the history the last records rebuild on open has the ids
 * clients saw before the restart. A client that reconnects with the id of
 * the last transaction it saw gets `found: true` and only what it missed;
 * an id older than the window gets `found: false` and a full dump. Stopped
 * by SIGTERM and by kill -9; after an online compaction the history starts
 * at the snapshot. `ovsdb-tool show-log` still reads the file. Ids are
 * chained (two records of the same text get different ids).
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chainId } from '../../src/server/storage/log.js';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import { type FileServer, RawRpc, startFileServer } from './file-servers.js';

const ZERO = '00000000-0000-0000-0000-000000000000';
const HISTORY = 4;

const SCHEMA = {
  name: 'Hist',
  version: '1.0.0',
  tables: {
    T: { isRoot: true, columns: { n: { type: 'integer' }, tag: { type: 'string' } } },
  },
};

const tools = requireOvsdbServer(false);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function setup(): Promise<{ dir: string; db: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ovnkit-hist-'));
  dirs.push(dir);
  const schema = join(dir, 'schema.json');
  await writeFile(schema, JSON.stringify(SCHEMA));
  const db = join(dir, 'hist.db');
  await runTool(tools.ovsdbTool, ['create', db, schema]);
  return { dir, db };
}

let reqId = 0;

async function insert(rpc: RawRpc, n: number, tag: string): Promise<void> {
  const reply = await rpc.request(
    'transact',
    ['Hist', { op: 'insert', table: 'T', row: { n, tag } }],
    ++reqId,
  );
  expect(reply.error).toBeNull();
  expect((reply.result as { error?: string }[])[0]?.error).toBeUndefined();
}

/** A row's update2: `initial` in a full dump, `insert` for a change. */
interface Row2 {
  initial?: { n: number; tag: string };
  insert?: { n: number; tag: string };
}

interface Since {
  found: boolean;
  last: string;
  updates: Record<string, Record<string, Row2>>;
}

/** `monitor_cond_since` of table T from `id` on a new connection. */
async function since(server: FileServer, id: string): Promise<Since> {
  const rpc = await RawRpc.open(server.sock);
  try {
    const reply = await rpc.request(
      'monitor_cond_since',
      ['Hist', `m${++reqId}`, { T: [{ columns: ['n', 'tag'] }] }, id],
      ++reqId,
    );
    expect(reply.error).toBeNull();
    const [found, last, updates] = reply.result as [boolean, string, Since['updates']];
    return { found, last, updates };
  } finally {
    rpc.close();
  }
}

/** The `n` of the rows an update inserts (`insert`, or `initial` in a full dump), sorted. */
function inserted(s: Since): number[] {
  const kind = s.found ? 'insert' : 'initial';
  return Object.values(s.updates.T ?? {})
    .map((u) => u[kind]?.n as number)
    .sort((a, b) => a - b);
}

async function stop(server: FileServer, how: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  if (how === 'SIGKILL') {
    await server.kill();
    return;
  }
  server.child.kill('SIGTERM');
  await server.exited;
}

describe('transaction ids of database file records', () => {
  it('are version 5 UUIDs chained to the record before: records of the same text get different ids', () => {
    const sha1 = 'a9993e364706816aba3e25717850c26c9cd0d89d';
    const first = chainId('', sha1);
    const second = chainId(first, sha1);
    const uuid5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(first).toMatch(uuid5);
    expect(second).toMatch(uuid5);
    expect(second).not.toBe(first);
    expect(chainId(first, sha1)).toBe(second);
  });
});

describe('monitor_cond_since after ovnkit-server restarts on a database file', () => {
  for (const how of ['SIGTERM', 'SIGKILL'] as const) {
    it(`resumes with found: true and only the missed changes (${how})`, async () => {
      const { dir, db } = await setup();
      const args = [`--history=${HISTORY}`];
      const first = await startFileServer('ovnkit-server', dir, db, args);
      const writer = await RawRpc.open(first.sock);
      await insert(writer, 1, 'before');
      const old = (await since(first, ZERO)).last;
      for (let n = 2; n <= 6; n++) await insert(writer, n, 'before');
      const synced = await since(first, ZERO);
      expect(synced.found).toBe(false);
      expect(inserted(synced)).toEqual([1, 2, 3, 4, 5, 6]);
      const noted = synced.last;
      expect(noted).not.toBe(ZERO);
      // The id is resumable before the restart.
      expect(await since(first, noted)).toMatchObject({ found: true, last: noted, updates: {} });
      writer.close();
      await stop(first, how);

      const second = await startFileServer('ovnkit-server', dir, db, args);
      try {
        // The same id names the last transaction after the restart.
        expect(await since(second, noted)).toMatchObject({ found: true, last: noted, updates: {} });
        const other = await RawRpc.open(second.sock);
        await insert(other, 7, 'after');
        await insert(other, 8, 'after');
        other.close();

        const resumed = await since(second, noted);
        expect(resumed.found).toBe(true);
        expect(resumed.last).not.toBe(noted);
        expect(inserted(resumed)).toEqual([7, 8]);
        expect(
          Object.values(resumed.updates.T ?? {})
            .map((u) => u.insert?.tag)
            .sort(),
        ).toEqual(['after', 'after']);

        // Older than the window: a full dump.
        const stale = await since(second, old);
        expect(stale.found).toBe(false);
        expect(inserted(stale)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }

      // ovsdb-tool still reads the file: the schema and 8 transactions.
      const log = await runTool(tools.ovsdbTool, ['show-log', db]);
      expect(log).toMatch(/^record 0:/m);
      expect(log).toMatch(/^record 8:/m);
      expect(log).not.toMatch(/^record 9:/m);
    });
  }

  it('after a compaction, resumes from the transactions written since (older ids: found: false)', async () => {
    const { dir, db } = await setup();
    const args = [`--history=${HISTORY}`];
    const first = await startFileServer('ovnkit-server', dir, db, args);
    const writer = await RawRpc.open(first.sock);
    await insert(writer, 1, 'before');
    await insert(writer, 2, 'before');
    const beforeCompact = (await since(first, ZERO)).last;
    await runTool(tools.ovsAppctl, ['-t', first.ctl, 'ovsdb-server/compact']);
    // The history before the snapshot is kept in memory.
    expect(await since(first, beforeCompact)).toMatchObject({ found: true, updates: {} });
    await insert(writer, 3, 'compacted');
    const noted = (await since(first, ZERO)).last;
    await insert(writer, 4, 'compacted');
    writer.close();
    await stop(first, 'SIGKILL');

    const second = await startFileServer('ovnkit-server', dir, db, args);
    try {
      const resumed = await since(second, noted);
      expect(resumed.found).toBe(true);
      expect(inserted(resumed)).toEqual([4]);
      const stale = await since(second, beforeCompact);
      expect(stale.found).toBe(false);
      expect(inserted(stale)).toEqual([1, 2, 3, 4]);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
    const log = await runTool(tools.ovsdbTool, ['show-log', db]);
    expect(log).toMatch(/^record 3:/m);
  });

  it('with --history=0, ids stay all zeros after a restart', async () => {
    const { dir, db } = await setup();
    const first = await startFileServer('ovnkit-server', dir, db, ['--history=0']);
    const writer = await RawRpc.open(first.sock);
    await insert(writer, 1, 'x');
    writer.close();
    expect(await since(first, ZERO)).toMatchObject({ found: false, last: ZERO });
    await stop(first, 'SIGTERM');
    const second = await startFileServer('ovnkit-server', dir, db, ['--history=0']);
    try {
      const s = await since(second, ZERO);
      expect(s).toMatchObject({ found: false, last: ZERO });
      expect(inserted(s)).toEqual([1]);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});

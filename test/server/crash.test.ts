/**
 * kill -9 during commits loses nothing acknowledged. `ovnkit-server` and, as
 * the reference, the real `ovsdb-server` each serve a database file (made
 * by `ovsdb-tool create`) through rounds of: start, check what the file
 * holds, run a sequential writer and a pipelined one (16 in flight) that
 * insert 20 KB rows, and SIGKILL the server mid-stream. After every round,
 * every acknowledged insert is there, no insert is there twice, nothing is
 * there that was not sent, and no stray file is left (a stale pidfile and
 * sockets are expected after a kill; the next start replaces them). A last
 * clean stop leaves only the database file, the lock file ovsdb-server
 * keeps, and the log.
 */

import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import { type FileServer, type Kind, RawRpc, startFileServer, strayFiles } from './file-servers.js';

const ROUNDS = 5;
const ROW_BYTES = 20 * 1024;
const PIPELINE = 16;

const SCHEMA = {
  name: 'Crash',
  version: '1.0.0',
  tables: {
    T: {
      isRoot: true,
      columns: { n: { type: 'integer' }, writer: { type: 'string' }, blob: { type: 'string' } },
    },
  },
};

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function insert(n: number, writer: string): unknown[] {
  const blob = String.fromCharCode(97 + (n % 26)).repeat(ROW_BYTES);
  return ['Crash', { op: 'insert', table: 'T', row: { n, writer, blob } }];
}

interface Tally {
  sent: Set<number>;
  acked: Set<number>;
  next: number;
}

/** Insert rows one at a time (`depth` 1) or `depth` in flight, until the connection drops. */
async function writer(rpc: RawRpc, tally: Tally, name: string, depth: number): Promise<void> {
  const one = async (): Promise<void> => {
    while (!rpc.closed) {
      const n = tally.next++;
      tally.sent.add(n);
      let reply: Record<string, unknown>;
      try {
        reply = await rpc.request('transact', insert(n, name), n);
      } catch {
        return;
      }
      const result = reply.result as { uuid?: unknown }[] | undefined;
      if (reply.error !== null || result?.[0]?.uuid === undefined) {
        throw new Error(`insert ${n} failed: ${JSON.stringify(reply)}`);
      }
      tally.acked.add(n);
    }
  };
  await Promise.all(Array.from({ length: depth }, one));
}

/** Check the file's contents through the server: returns how many rows it holds. */
async function verify(server: FileServer, tally: Tally): Promise<number> {
  const rpc = await RawRpc.open(server.sock);
  try {
    const reply = await rpc.request(
      'transact',
      ['Crash', { op: 'select', table: 'T', where: [], columns: ['n'] }],
      'verify',
    );
    const rows = (reply.result as { rows: { n: number }[] }[])[0]?.rows ?? [];
    const present = rows.map((r) => r.n);
    const unique = new Set(present);
    expect(present.length - unique.size, 'duplicated inserts').toBe(0);
    const lost = [...tally.acked].filter((n) => !unique.has(n));
    expect(lost, 'acknowledged inserts lost').toEqual([]);
    const unknown = present.filter((n) => !tally.sent.has(n));
    expect(unknown, 'rows never sent').toEqual([]);
    return present.length;
  } finally {
    rpc.close();
  }
}

async function crashRounds(kind: Kind): Promise<string> {
  const tools = requireOvsdbServer(false);
  const dir = await mkdtemp(join(tmpdir(), `ovnkit-crash-${kind}-`));
  dirs.push(dir);
  const schema = join(dir, 'crash.ovsschema');
  await writeFile(schema, JSON.stringify(SCHEMA));
  const db = join(dir, 'crash.db');
  await runTool(tools.ovsdbTool, ['create', db, schema]);
  const lockFile = '.crash.db.~lock~';
  const base = ['crash.db', 'crash.ovsschema', lockFile, 'x.log'];
  const tally: Tally = { sent: new Set(), acked: new Set(), next: 0 };
  let rows = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const server = await startFileServer(kind, dir, db);
    try {
      rows = await verify(server, tally);
      const ackedBefore = tally.acked.size;
      const seq = await RawRpc.open(server.sock);
      const pip = await RawRpc.open(server.sock);
      const writing = Promise.all([
        writer(seq, tally, 'seq', 1),
        writer(pip, tally, 'pipelined', PIPELINE),
      ]);
      // Kill mid-stream: once some inserts are acknowledged, after a random extra moment.
      const deadline = Date.now() + 10_000;
      while (tally.acked.size < ackedBefore + 50 && Date.now() < deadline) await sleep(5);
      await sleep(20 + Math.random() * 200);
      expect(tally.acked.size).toBeGreaterThan(ackedBefore);
      await server.kill();
      await writing;
      seq.close();
      pip.close();
    } finally {
      await server.kill();
    }
    // A kill leaves the pidfile and sockets, never a temporary file.
    expect(strayFiles(dir, [...base, 'x.pid', 'db.sock', 'x.ctl'])).toEqual([]);
  }
  const last = await startFileServer(kind, dir, db);
  rows = await verify(last, tally);
  await runTool(tools.ovsAppctl, ['-t', last.ctl, 'exit']);
  expect(await last.exited).toBe(0);
  expect(strayFiles(dir, base)).toEqual([]);
  const unacked = rows - tally.acked.size;
  return `${kind}: ${ROUNDS} kills, ${tally.sent.size} inserts sent, ${tally.acked.size} acknowledged, 0 lost, 0 duplicated, ${unacked} written but not acknowledged`;
}

describe('kill -9 during sequential and pipelined commits of 20 KB rows', () => {
  for (const kind of ['ovnkit-server', 'ovsdb-server'] as const) {
    it(`${kind} loses no acknowledged insert and leaves no stray file`, async () => {
      const summary = await crashRounds(kind);
      console.log(summary);
    }, 90_000);
  }
});

describe('a database file that cannot be written', () => {
  it('stops ovnkit-server without acknowledging the commit, and keeps what was acknowledged', async () => {
    const tools = requireOvsdbServer(false);
    const dir = await mkdtemp(join(tmpdir(), 'ovnkit-efbig-'));
    dirs.push(dir);
    const schema = join(dir, 'crash.ovsschema');
    await writeFile(schema, JSON.stringify(SCHEMA));
    const db = join(dir, 'crash.db');
    await runTool(tools.ovsdbTool, ['create', db, schema]);
    // Files may grow to 400 blocks (200 or 400 KiB): a later 20 KB record cannot be written (EFBIG).
    const server = await startFileServer('ovnkit-server', dir, db, [], 'ulimit -f 400');
    const tally: Tally = { sent: new Set(), acked: new Set(), next: 0 };
    const rpc = await RawRpc.open(server.sock);
    await writer(rpc, tally, 'seq', 1);
    rpc.close();
    expect(await server.exited).toBe(1);
    expect(tally.acked.size).toBeGreaterThan(5);
    expect(tally.sent.size).toBe(tally.acked.size + 1);
    const log = readFileSync(server.log, 'utf8');
    expect(log).toMatch(/\|ovsdb_server\|ERR\|.*crash\.db: write failed: .*\(EFBIG\); stopping/);
    const again = await startFileServer('ovnkit-server', dir, db);
    try {
      expect(await verify(again, tally)).toBe(tally.acked.size);
      // The partial record was cut off at once: nothing to truncate on open.
      expect(readFileSync(again.log, 'utf8')).not.toContain('truncating');
    } finally {
      await again.kill();
    }
  }, 60_000);
});

/**
 * The in-memory server's connection bounds (`listeners/limits.ts`), with the
 * server in a process of its own: `ovnkit-server` itself (its defaults and
 * `--max-connections`), and a fixture process that starts `createServer`
 * with small bounds and reports `connectionStats()`.
 *
 * - total input: connections each sending most of a message, never
 *   finishing it, used to be held whole (12 × 60 MB: 792 MB); now the
 *   connection that takes the total past `maxInputBytes` is dropped;
 * - `maxConnections` refuses the connections beyond it;
 * - a client that monitors and never reads: its monitors' changes merge per
 *   row, and it is disconnected once they pass `maxBacklogBytes`; one whose
 *   changes merge into little (one row changed again and again) stays, and
 *   gets the merged update when it reads again.
 * Other clients keep working throughout.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { JsonStreamFramer } from '../../src/ovsdb/wire/framer.js';
import type { ConnectionLimitStats } from '../../src/server/index.js';
import { DEFAULT_MAX_BACKLOG_BYTES, DEFAULT_MAX_INPUT_BYTES } from '../../src/server/index.js';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { liveChildren, runTool } from '../../src/testing/processes.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';
import { type FileServer, ROOT, startFileServer } from './file-servers.js';

const MiB = 1024 * 1024;
const tools = requireOvsdbServer(false);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-limits-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A raw unix/tcp client: writes what it is given, collects every message it reads. */
class Raw {
  readonly messages: Record<string, unknown>[] = [];
  readonly closed: Promise<void>;
  isClosed = false;
  private readonly framer = new JsonStreamFramer({ maxMessageBytes: 1024 * MiB });

  private constructor(readonly socket: net.Socket) {
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      const out: unknown[] = [];
      this.framer.pushInto(chunk, out);
      this.messages.push(...(out as Record<string, unknown>[]));
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.isClosed = true;
        resolve();
      }),
    );
  }

  static open(path: string): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const s = net.connect(path);
      s.once('connect', () => resolve(new Raw(s)));
      s.once('error', reject);
    });
  }

  /** Write `data`; resolves once the socket took it (or closed). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) resolve();
      else this.socket.write(data, () => resolve());
    });
  }

  /** Wait until a message satisfies `test` (5 s at most). */
  async until(test: (m: Record<string, unknown>) => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.messages.some(test)) {
      if (Date.now() > deadline) throw new Error('no such message');
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** The fixture: `createServer` with the given options in its own process. */
interface Bounded {
  readonly remotes: string[];
  stats(): Promise<{ stats: ConnectionLimitStats; rss: number; sessions: number }>;
  log(): Promise<string>;
  close(): Promise<void>;
}

async function startBounded(options: Record<string, unknown>): Promise<Bounded> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--conditions=ovnkit-source',
      '--import',
      'tsx',
      join(ROOT, 'test/server/fixtures/bounded-server.ts'),
      JSON.stringify(options),
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  liveChildren.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines: Interface = createInterface({ input: child.stdout! });
  const queue: ((line: string) => void)[] = [];
  lines.on('line', (line) => queue.shift()?.(line));
  const next = (): Promise<Record<string, unknown>> =>
    new Promise((resolve) => queue.push((line) => resolve(JSON.parse(line))));
  const ask = (what: string) => {
    const reply = next();
    child.stdin?.write(`${what}\n`);
    return reply;
  };
  const first = await next();
  return {
    remotes: first['remotes'] as string[],
    stats: () => ask('stats') as never,
    log: async () => (await ask('log'))['log'] as string,
    async close() {
      child.stdin?.write('close\n');
      await exited;
      liveChildren.delete(child);
    },
  };
}

/** The start of an echo request that is never finished, `bytes` long. */
function unfinished(bytes: number): Buffer {
  const head = Buffer.from('{"method":"echo","params":["');
  const b = Buffer.alloc(bytes, 0x61);
  head.copy(b);
  return b;
}

/** A 10 KB string: rows of this size make the backlog grow quickly. */
const BIG = 'v'.repeat(10_000);

describe('ovnkit-server (the program) with its defaults', () => {
  let server: FileServer;
  let sub: string;

  beforeAll(async () => {
    sub = await mkdtemp(join(dir, 'cli-'));
    const db = join(sub, 'db.db');
    await runTool(tools.ovsdbTool, ['create', db, join(ROOT, 'schema/ovn-nb-7.18.0.ovsschema')]);
    server = await startFileServer('ovnkit-server', sub, db);
  }, 60_000);

  afterAll(async () => {
    await server?.kill();
  });

  it('holds at most 256 MiB of unfinished messages: the connection that passes it is dropped', async () => {
    expect(DEFAULT_MAX_INPUT_BYTES).toBe(256 * MiB);
    const chunk = unfinished(60 * 1000 * 1000);
    const senders: Raw[] = [];
    // One after the other, so that which one passes the bound is known: 4 × 60 MB fit, the 5th does not.
    // (A write completes once the kernel took it: the server has read all but a socket buffer.)
    for (let i = 0; i < 5; i++) {
      const c = await Raw.open(server.sock);
      senders.push(c);
      await c.write(chunk);
      await new Promise((r) => setTimeout(r, 200));
    }
    await senders[4]?.closed;
    expect(senders.map((c) => c.isClosed)).toEqual([false, false, false, false, true]);
    const log = await readFile(server.log, 'utf8');
    expect(log).toMatch(
      /jsonrpc\|WARN\|unix#\d+: incomplete messages of all connections would exceed 268435456 bytes \(\d+ held, \d+ by this connection\), disconnecting/,
    );
    expect(log).toMatch(/reconnect\|WARN\|unix#\d+: connection dropped \(input buffers full\)/);
    expect(log.match(/connection dropped \(input buffers full\)/g)).toHaveLength(1);
    // Another client is served meanwhile.
    const conn = await connect(`unix:${server.sock}`);
    expect(await conn.echo('still here')).toEqual(['still here']);
    await conn.transact('OVN_Northbound', [
      { op: 'insert', table: 'Logical_Switch', row: { name: 'sw-during' } },
    ]);
    conn.close();
    for (const c of senders) c.socket.destroy();
  }, 120_000);
});

describe('ovnkit-server --max-connections', () => {
  let server: FileServer;

  beforeAll(async () => {
    const sub = await mkdtemp(join(dir, 'max-'));
    const db = join(sub, 'db.db');
    await runTool(tools.ovsdbTool, ['create', db, join(ROOT, 'schema/ovn-nb-7.18.0.ovsschema')]);
    server = await startFileServer('ovnkit-server', sub, db, ['--max-connections=3']);
  }, 60_000);

  afterAll(async () => {
    await server?.kill();
  });

  it('refuses the connections beyond the limit, and accepts again once one closes', async () => {
    // startFileServer's readiness probe connected once; it is closed by now.
    await new Promise((r) => setTimeout(r, 200));
    const conns = [];
    for (let i = 0; i < 3; i++) {
      const c = await connect(`unix:${server.sock}`);
      expect(await c.echo(`c${i}`)).toEqual([`c${i}`]);
      conns.push(c);
    }
    const extra = await Raw.open(server.sock);
    await extra.closed;
    const log = await readFile(server.log, 'utf8');
    expect(log).toMatch(
      /ovsdb_jsonrpc_server\|WARN\|punix:.*db\.sock: refusing connection from a unix client: 3 connections open, the most allowed \(maxConnections\)/,
    );
    for (const c of conns) expect(await c.echo('ok')).toEqual(['ok']);
    conns.pop()?.close();
    await new Promise((r) => setTimeout(r, 200));
    const again = await connect(`unix:${server.sock}`);
    expect(await again.echo('again')).toEqual(['again']);
    again.close();
    for (const c of conns) c.close();
  }, 60_000);

  it('a value that is not a count is a usage error', async () => {
    const sub = await mkdtemp(join(dir, 'bad-'));
    const child = spawn(
      process.execPath,
      [
        '--conditions=ovnkit-source',
        '--import',
        'tsx',
        join(ROOT, 'src/server/program/cli.ts'),
        '--schema',
        join(ROOT, 'schema/ovn-nb-7.18.0.ovsschema'),
        `--listen=punix:${join(sub, 's.sock')}`,
        '--max-connections=many',
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((r) => child.once('close', r));
    expect(code).toBe(2);
    expect(err).toMatch(/--max-connections must be a non-negative integer, got "many"/);
  }, 30_000);
});

describe('small bounds (a createServer process)', () => {
  let bounded: Bounded;
  let sock: string;

  beforeAll(async () => {
    sock = join(dir, 'bounded.sock');
    bounded = await startBounded({
      databases: [TEST_SCHEMA],
      listen: [`punix:${sock}`, 'ws:127.0.0.1:0'],
      maxInputBytes: 8 * MiB,
      maxBacklogBytes: 2 * MiB,
    });
  }, 60_000);

  afterAll(async () => {
    await bounded?.close();
  });

  it('total input: the connection that takes it past 8 MiB is dropped; the others are held', async () => {
    const a = await Raw.open(sock);
    const b = await Raw.open(sock);
    const c = await Raw.open(sock);
    await a.write(unfinished(3 * MiB));
    await b.write(unfinished(3 * MiB));
    let s = (await bounded.stats()).stats;
    for (let i = 0; i < 50 && s.inputBytes < 6 * MiB; i++) {
      await new Promise((r) => setTimeout(r, 50));
      s = (await bounded.stats()).stats;
    }
    expect(s.inputBytes).toBeGreaterThanOrEqual(6 * MiB);
    await c.write(unfinished(3 * MiB));
    await c.closed;
    s = (await bounded.stats()).stats;
    expect(s.inputDrops).toBe(1);
    expect(s.peakInputBytes).toBeLessThanOrEqual(8 * MiB);
    expect(a.isClosed || b.isClosed).toBe(false);
    // Finishing a message frees its part: a finishes its echo and gets the reply.
    await a.write('"],"id":1}');
    await a.until((m) => m['id'] === 1);
    s = (await bounded.stats()).stats;
    expect(s.inputBytes).toBeLessThanOrEqual(3 * MiB + 64 * 1024);
    expect(await bounded.log()).toMatch(/would exceed 8388608 bytes/);
    a.socket.destroy();
    b.socket.destroy();
  }, 60_000);

  it('a client that monitors and never reads is disconnected once its merged backlog passes 2 MiB', async () => {
    const stuck = await Raw.open(sock);
    await stuck.write(
      JSON.stringify({
        method: 'monitor_cond',
        params: [DB, 'm', { Item: { columns: ['name', 'n'] } }],
        id: 'mon',
      }),
    );
    await stuck.until((m) => m['id'] === 'mon');
    stuck.socket.pause(); // from now on it reads nothing
    const writer = await connect(`unix:${sock}`);
    const before = (await bounded.stats()).stats.backlogDrops;
    let inserted = 0;
    let stats = (await bounded.stats()).stats;
    // Each insert adds a 10 KB row update: the socket fills, then the merged backlog grows.
    while (inserted < 1500 && stats.backlogDrops === before) {
      await writer.transact(DB, [
        { op: 'insert', table: 'Item', row: { name: `${BIG}${inserted}`, n: inserted } },
      ]);
      inserted++;
      if (inserted % 20 === 0) stats = (await bounded.stats()).stats;
    }
    // (A socket that is not read does not see its end either.)
    stuck.socket.resume();
    await stuck.closed;
    stats = (await bounded.stats()).stats;
    expect(stats.backlogDrops).toBe(before + 1);
    expect(stats.peakBacklogBytes).toBeLessThanOrEqual(2 * MiB + 20_000);
    expect(stats.peakBacklogBytes).toBeGreaterThan(2 * MiB);
    expect(inserted).toBeLessThan(1500);
    expect(await bounded.log()).toMatch(
      /jsonrpc\|WARN\|unix#\d+: excessive sending backlog \(\d+ bytes waiting, over the 2097152-byte bound\), disconnecting/,
    );
    // The writer was never held up.
    expect(await writer.echo('fine')).toEqual(['fine']);
    await writer.transact(DB, [{ op: 'delete', table: 'Item', where: [] }]);
    writer.close();
  }, 120_000);

  it('changes to one row merge into one update: that client stays, and gets it when it reads', async () => {
    const writer = await connect(`unix:${sock}`);
    const [ins] = await writer.transact(DB, [
      { op: 'insert', table: 'Item', row: { name: 'hot', n: 0 } },
    ]);
    const uuid = (ins as { uuid: [string, string] }).uuid[1];
    const slow = await Raw.open(sock);
    await slow.write(
      JSON.stringify({
        method: 'monitor_cond',
        params: [DB, 'h', { Item: { columns: ['name', 'n'], where: [['n', '>=', 0]] } }],
        id: 'mon',
      }),
    );
    await slow.until((m) => m['id'] === 'mon');
    slow.socket.pause();
    // 1,500 updates of one 10 KB row: 15 MB of updates, merging into one row.
    for (let i = 1; i <= 1500; i++) {
      await writer.transact(DB, [
        {
          op: 'update',
          table: 'Item',
          where: [['_uuid', '==', ['uuid', uuid]]],
          row: { name: `${BIG}-${i}`, n: i },
        },
      ]);
    }
    expect(slow.isClosed).toBe(false);
    const { stats } = await bounded.stats();
    expect(stats.peakBacklogBytes).toBeLessThanOrEqual(2 * MiB + 20_000);
    slow.socket.resume();
    await slow.until((m) => {
      if (m['method'] !== 'update2') return false;
      const row = (
        m['params'] as [string, Record<string, Record<string, { modify?: { n?: number } }>>]
      )[1]['Item']?.[uuid];
      return row?.modify?.n === 1500;
    });
    // Far fewer updates than transactions reached it: they were merged while it did not read.
    const updates = slow.messages.filter((m) => m['method'] === 'update2').length;
    expect(updates).toBeLessThan(1500);
    expect(slow.isClosed).toBe(false);
    slow.socket.destroy();
    await writer.transact(DB, [{ op: 'delete', table: 'Item', where: [] }]);
    writer.close();
  }, 120_000);

  it('merged while backlogged: an insert then update is one insert, an insert then delete nothing', async () => {
    const slow = await Raw.open(sock);
    await slow.write(
      JSON.stringify({
        method: 'monitor_cond',
        params: [DB, 'mm', { Item: { columns: ['name', 'n'] } }],
        id: 'mon',
      }),
    );
    await slow.until((m) => m['id'] === 'mon');
    slow.socket.pause();
    const writer = await connect(`unix:${sock}`);
    // Fill the socket: 1 MB of updates it does not read.
    for (let i = 0; i < 100; i++) {
      await writer.transact(DB, [
        { op: 'insert', table: 'Item', row: { name: `${BIG}fill${i}`, n: 1000 + i } },
      ]);
    }
    const uuidOf = (r: unknown) => (r as { uuid: [string, string] }).uuid[1];
    const [a] = await writer.transact(DB, [
      { op: 'insert', table: 'Item', row: { name: 'A', n: 1 } },
    ]);
    const [b] = await writer.transact(DB, [
      { op: 'insert', table: 'Item', row: { name: 'B', n: 2 } },
    ]);
    const ua = uuidOf(a);
    const ub = uuidOf(b);
    await writer.transact(DB, [
      { op: 'update', table: 'Item', where: [['_uuid', '==', ['uuid', ua]]], row: { n: 10 } },
    ]);
    await writer.transact(DB, [
      { op: 'delete', table: 'Item', where: [['_uuid', '==', ['uuid', ub]]] },
    ]);
    await writer.transact(DB, [
      { op: 'update', table: 'Item', where: [['name', '==', 'A']], row: { n: 11 } },
    ]);
    slow.socket.resume();
    await slow.until((m) => JSON.stringify(m).includes(ua));
    const mentions = slow.messages.filter(
      (m) =>
        m['method'] === 'update2' &&
        (JSON.stringify(m).includes(ua) || JSON.stringify(m).includes(ub)),
    );
    // A once, as an insert with its last value; B (inserted and deleted meanwhile) never.
    expect(mentions).toHaveLength(1);
    const rows = (mentions[0]!['params'] as [string, { Item: Record<string, unknown> }])[1].Item;
    expect(rows[ua]).toEqual({ insert: { name: 'A', n: 11 } });
    expect(rows[ub]).toBeUndefined();
    slow.socket.destroy();
    await writer.transact(DB, [{ op: 'delete', table: 'Item', where: [] }]);
    writer.close();
  }, 60_000);

  it('over WebSocket: a frame that never ends counts against the total input', async () => {
    const url = new URL(bounded.remotes[1] as string);
    /** Upgrade by hand, then send the first `bytes` of a 5 MiB text frame. */
    const partialFrame = async (bytes: number): Promise<net.Socket> => {
      const s = net.connect(Number(url.port), '127.0.0.1');
      s.on('error', () => undefined);
      await new Promise((r) => s.once('connect', r));
      s.write(
        `GET / HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
      await new Promise<void>((resolve) => {
        let head = '';
        const onData = (d: Buffer) => {
          head += d.toString('latin1');
          if (head.includes('\r\n\r\n')) {
            s.off('data', onData);
            resolve();
          }
        };
        s.on('data', onData);
      });
      const header = Buffer.alloc(14);
      header[0] = 0x81;
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(5 * MiB), 2);
      header.writeUInt32BE(0, 10); // a zero mask: the payload as sent
      await new Promise<void>((r) =>
        s.write(Buffer.concat([header, Buffer.alloc(bytes, 0x20)]), () => r()),
      );
      return s;
    };
    const before = (await bounded.stats()).stats.inputDrops;
    const a = await partialFrame(3 * MiB);
    const b = await partialFrame(3 * MiB);
    let s = (await bounded.stats()).stats;
    for (let i = 0; i < 50 && s.inputBytes < 6 * MiB; i++) {
      await new Promise((r) => setTimeout(r, 50));
      s = (await bounded.stats()).stats;
    }
    expect(s.inputBytes).toBeGreaterThanOrEqual(6 * MiB);
    const c = await partialFrame(3 * MiB);
    await new Promise((r) => c.once('close', r));
    s = (await bounded.stats()).stats;
    expect(s.inputDrops).toBe(before + 1);
    expect(a.destroyed || b.destroyed).toBe(false);
    a.destroy();
    b.destroy();
    for (let i = 0; i < 50 && s.inputBytes > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      s = (await bounded.stats()).stats;
    }
    expect(s.inputBytes).toBe(0);
  }, 60_000);

  it('over WebSocket: a client that does not read is disconnected past the backlog bound', async () => {
    const ws = new WebSocket(bounded.remotes[1] as string, { perMessageDeflate: false });
    ws.on('error', () => undefined);
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.send(
      JSON.stringify({
        method: 'monitor_cond',
        params: [DB, 'w', { Item: { columns: ['name', 'n'] } }],
        id: 'mon',
      }),
    );
    await new Promise((r) => ws.once('message', r));
    ws.pause();
    const writer = await connect(`unix:${sock}`);
    const before = (await bounded.stats()).stats.backlogDrops;
    let stats = (await bounded.stats()).stats;
    let inserted = 0;
    while (inserted < 2000 && stats.backlogDrops === before) {
      await writer.transact(DB, [
        { op: 'insert', table: 'Item', row: { name: `${BIG}ws${inserted}`, n: inserted } },
      ]);
      inserted++;
      if (inserted % 20 === 0) stats = (await bounded.stats()).stats;
    }
    expect(stats.backlogDrops).toBe(before + 1);
    expect(inserted).toBeLessThan(2000);
    ws.resume();
    expect(await closed).toBe(1006);
    expect(await writer.echo('fine')).toEqual(['fine']);
    await writer.transact(DB, [{ op: 'delete', table: 'Item', where: [] }]);
    writer.close();
  }, 120_000);

  it('defaults', () => {
    expect(DEFAULT_MAX_BACKLOG_BYTES).toBe(256 * MiB);
  });
});

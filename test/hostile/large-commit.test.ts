/**
 * A commit whose file record and monitor updates are longer than the
 * longest string the JavaScript engine holds (2^29 − 24 units, about 512
 * MiB), against `ovnkit-server` as a process and the real ovsdb-server 3.1
 * given the same requests:
 *
 * - 6 KB written into every row of a table of 100,000 rows (a 605 MB
 *   record, and as much in each monitor's update);
 * - 55 MB written into every row of a table of 10 rows (550 MB).
 *
 * Each server gets both, with a database file (ovnkit-server also without
 * one), while a monitor of every column (`monitor_cond_since`) and a
 * monitor of one column (`monitor`, the changed one) watch; then a small
 * marker transaction follows on the same table. The transaction must be
 * answered and committed, each monitor must receive its update before the
 * marker's, a new monitor of everything must be answered, and a server
 * started again on the file must hold the same contents. ovnkit-server
 * must also open ovsdb-server's file of the same content.
 *
 * The monitors' updates are summarised as they are parsed (each row
 * becomes its kind and a label of its `pad`), so the test holds the
 * messages' structure, not their 600 MB of text.
 */

import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonStreamFramer } from '../../src/ovsdb/wire/framer.js';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { runTool } from '../../src/testing/processes.js';
import { type FileServer, type Kind, RawRpc, startFileServer } from '../server/file-servers.js';

const DB = 'Big';
const SCHEMA = {
  name: DB,
  version: '1.0.0',
  tables: {
    A: { columns: { pad: { type: 'string' }, n: { type: 'integer' } }, isRoot: true },
    B: { columns: { pad: { type: 'string' }, n: { type: 'integer' } }, isRoot: true },
  },
};

/** `n` characters of text (ASCII, nothing to escape). */
function pattern(n: number): string {
  const unit = 'a large commit: 0123456789 abcdefghijklmnopqrstuvwxyz; ';
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

const P6K = pattern(6 * 1024);
const P55M = pattern(55 * 1024 * 1024);

/** The two large commits: `value` written into every row of `table`. */
const CASES = [
  { table: 'A', rows: 100_000, value: P6K, label: 'P6K' },
  { table: 'B', rows: 10, value: P55M, label: 'P55M' },
] as const;

/** A row update as the test keeps it: its kind (`modify`, `new+old`, …) and what it says of `pad` and `n`. */
class Summary {
  constructor(
    readonly kind: string,
    readonly pad: unknown,
    readonly n: unknown,
  ) {}
}

/** `pad` as a label: `P6K`, `P55M`, a short value itself, or its length. */
function padLabel(v: unknown): unknown {
  if (v === P6K) return 'P6K';
  if (v === P55M) return 'P55M';
  if (typeof v === 'string' && v.length > 100) return `<${v.length} characters>`;
  return v;
}

function summarize(u: unknown): Summary {
  if (u instanceof Summary) return u;
  const o = (u ?? {}) as Record<string, unknown>;
  const kind = Object.keys(o).sort().join('+');
  const cols = (o.new ?? o.initial ?? o.insert ?? o.modify ?? o.old ?? {}) as Record<
    string,
    unknown
  >;
  return new Summary(kind, padLabel(cols.pad), cols.n);
}

type Updates = Record<string, Record<string, Summary>>;

/** Every row update of `updates` summarised (those parsed whole, not yet). */
function summarizeAll(updates: unknown): Updates {
  const out: Updates = {};
  for (const [table, rows] of Object.entries((updates ?? {}) as Record<string, unknown>)) {
    const t: Record<string, Summary> = {};
    for (const [uuid, u] of Object.entries(rows as Record<string, unknown>)) t[uuid] = summarize(u);
    out[table] = t;
  }
  return out;
}

/**
 * A client on a unix socket that reads messages of any size, summarising
 * row updates as they are parsed, and keeps the monitor notifications.
 */
class MonitorClient {
  private readonly framer = new JsonStreamFramer({
    maxMessageBytes: 2 ** 33,
    // A table's rows in a large reply or update: each row summarised as soon as it is parsed.
    splitReviverFor: (path) =>
      (path[0] === 'result' || path[0] === 'params') &&
      path.length >= 2 &&
      Object.hasOwn(SCHEMA.tables, String(path[path.length - 1]))
        ? (_uuid, u) => summarize(u)
        : undefined,
  });
  readonly notifications: { method: string; updates: Updates }[] = [];
  private readonly replies = new Map<string, (m: Record<string, unknown>) => void>();
  private readonly changed: (() => void)[] = [];
  closed = false;
  failure: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      const out: unknown[] = [];
      try {
        this.framer.pushInto(chunk, out);
      } catch (e) {
        this.failure = e as Error;
        socket.destroy();
      }
      for (const m of out as Record<string, unknown>[]) this.onMessage(m);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static open(path: string): Promise<MonitorClient> {
    return new Promise((resolve, reject) => {
      const s = netConnect(path);
      s.once('connect', () => resolve(new MonitorClient(s)));
      s.once('error', reject);
    });
  }

  private onMessage(m: Record<string, unknown>): void {
    const method = m.method;
    if (typeof method === 'string' && method.startsWith('update')) {
      const params = m.params as unknown[];
      this.notifications.push({
        method,
        updates: summarizeAll(method === 'update3' ? params[2] : params[1]),
      });
      this.wake();
      return;
    }
    const key = JSON.stringify(m.id);
    const w = this.replies.get(key);
    if (w !== undefined) {
      this.replies.delete(key);
      w(m);
    }
  }

  private wake(): void {
    for (const f of this.changed.splice(0)) f();
  }

  /** Send a monitor request; resolves with the updates of its reply. */
  async monitor(method: string, id: string, requests: unknown): Promise<Updates> {
    const params: unknown[] = [DB, id, requests];
    if (method === 'monitor_cond_since') params.push('00000000-0000-0000-0000-000000000000');
    const reply = await new Promise<Record<string, unknown>>((resolve, reject) => {
      this.replies.set(JSON.stringify(id), resolve);
      this.changed.push(() => {
        if (this.closed) reject(new Error(`the connection closed before the ${method} reply`));
      });
      this.socket.write(JSON.stringify({ method, params, id }));
    });
    expect(reply.error ?? null, `${method} reply`).toBeNull();
    const result = reply.result as unknown[];
    return summarizeAll(method === 'monitor_cond_since' ? result[2] : result);
  }

  /** Wait until a notification holds a row whose `pad` is `marker`; returns the notifications up to it. */
  async until(marker: string): Promise<Updates[]> {
    for (;;) {
      const i = this.notifications.findIndex((n) =>
        Object.values(n.updates).some((rows) => Object.values(rows).some((r) => r.pad === marker)),
      );
      if (i >= 0) return this.notifications.slice(0, i + 1).map((n) => n.updates);
      if (this.closed) {
        throw new Error(
          `the connection closed before the update with ${marker}${this.failure ? `: ${this.failure.message}` : ''}`,
        );
      }
      await new Promise<void>((resolve) => this.changed.push(resolve));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** How many rows of `table` in `updates` say `kind` with a `pad` of `label`. */
function count(
  updates: readonly Updates[],
  table: string,
  kinds: readonly string[],
  label: string,
) {
  let n = 0;
  for (const u of updates) {
    for (const r of Object.values(u[table] ?? {}))
      if (kinds.includes(r.kind) && r.pad === label) n++;
  }
  return n;
}

async function transact(rpc: RawRpc, ops: unknown[], id: number): Promise<unknown[]> {
  const reply = await rpc.request('transact', [DB, ...ops], id);
  expect(reply.error ?? null, `transact ${id}`).toBeNull();
  return reply.result as unknown[];
}

/** The contents every server must end with, checked by `select`s on `sock`. */
async function checkContents(sock: string): Promise<void> {
  const rpc = await RawRpc.open(sock);
  try {
    let id = 100;
    for (const c of CASES) {
      const [big, marker, all] = (await transact(
        rpc,
        [
          { op: 'select', table: c.table, where: [['pad', '==', c.value]], columns: ['n'] },
          { op: 'select', table: c.table, where: [['pad', '==', `marker-${c.table}`]] },
          { op: 'select', table: c.table, where: [], columns: ['_uuid'] },
        ],
        id++,
      )) as { rows: { n?: number }[] }[];
      const ns = big!.rows.map((r) => r.n as number).sort((a, b) => a - b);
      expect(ns.length, `${c.table} rows holding ${c.label}`).toBe(c.rows);
      expect(ns[0]).toBe(0);
      expect(ns[ns.length - 1]).toBe(c.rows - 1);
      expect(marker!.rows.length, `${c.table}'s marker row`).toBe(1);
      expect(all!.rows.length, `${c.table} rows`).toBe(c.rows + 1);
    }
  } finally {
    rpc.close();
  }
}

let dir: string;
let schemaFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ovnkit-large-commit-'));
  schemaFile = join(dir, 'big.ovsschema');
  await writeFile(schemaFile, JSON.stringify(SCHEMA));
});

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** A new database file of the schema in a directory of its own. */
async function newDb(name: string): Promise<{ sub: string; db: string }> {
  const sub = join(dir, name);
  await rm(sub, { recursive: true, force: true });
  await mkdir(sub);
  const db = join(sub, 'big.db');
  await runTool(requireOvsdbServer().ovsdbTool, ['create', db, schemaFile]);
  return { sub, db };
}

/**
 * The scenario on a running server: fill the tables, watch them with a
 * monitor of every column and one of `pad`, make both large commits (each
 * followed by a marker), then open a new monitor of everything.
 */
async function largeCommits(server: FileServer): Promise<void> {
  const writer = await RawRpc.open(server.sock);
  const monitors: MonitorClient[] = [];
  try {
    // 100,000 rows in four transactions, and 10.
    for (let k = 0; k < 4; k++) {
      const ops = Array.from({ length: 25_000 }, (_, i) => ({
        op: 'insert',
        table: 'A',
        row: { n: k * 25_000 + i },
      }));
      await transact(writer, ops, k + 1);
    }
    await transact(
      writer,
      Array.from({ length: 10 }, (_, i) => ({ op: 'insert', table: 'B', row: { n: i } })),
      5,
    );

    const all = await MonitorClient.open(server.sock);
    const one = await MonitorClient.open(server.sock);
    monitors.push(all, one);
    const allInitial = await all.monitor('monitor_cond_since', 'all', { A: {}, B: {} });
    const oneInitial = await one.monitor('monitor', 'one', {
      A: { columns: ['pad'] },
      B: { columns: ['pad'] },
    });
    expect(Object.keys(allInitial.A ?? {}).length).toBe(100_000);
    expect(Object.keys(oneInitial.A ?? {}).length).toBe(100_000);

    let id = 10;
    for (const c of CASES) {
      const result = await transact(
        writer,
        [{ op: 'update', table: c.table, where: [], row: { pad: c.value } }],
        id++,
      );
      expect(result, `the ${c.label} update of ${c.table}`).toEqual([{ count: c.rows }]);
      await transact(
        writer,
        [{ op: 'insert', table: c.table, row: { pad: `marker-${c.table}` } }],
        id++,
      );
      // Each monitor gets the large update, then (or with it) the marker.
      const seenAll = await all.until(`marker-${c.table}`);
      const seenOne = await one.until(`marker-${c.table}`);
      expect(count(seenAll, c.table, ['modify'], c.label), 'monitor of every column').toBe(c.rows);
      expect(count(seenOne, c.table, ['new+old'], c.label), 'monitor of pad').toBe(c.rows);
      all.notifications.length = 0;
      one.notifications.length = 0;
    }

    // A new monitor of everything is answered with both large commits.
    const fresh = await MonitorClient.open(server.sock);
    monitors.push(fresh);
    const initial = await fresh.monitor('monitor_cond', 'fresh', { A: {}, B: {} });
    for (const c of CASES) {
      expect(count([initial], c.table, ['initial'], c.label), `new monitor: ${c.table}`).toBe(
        c.rows,
      );
      expect(count([initial], c.table, ['initial'], `marker-${c.table}`)).toBe(1);
    }
    await checkContents(server.sock);
  } finally {
    writer.close();
    for (const m of monitors) m.close();
  }
}

const LONG = 600_000;

/**
 * The scenario on `kind` with a database file; then, the server killed,
 * ovnkit-server started on that file must hold the same contents.
 */
async function withFile(kind: Kind): Promise<void> {
  const { sub, db } = await newDb(kind);
  let server = await startFileServer(kind, sub, db);
  try {
    await largeCommits(server);
    await server.kill();
    expect((await stat(db)).size).toBeGreaterThan(1_150_000_000);
    server = await startFileServer('ovnkit-server', sub, db, [], undefined, LONG);
    await checkContents(server.sock);
  } finally {
    await server.kill();
    await rm(sub, { recursive: true, force: true });
  }
}

describe('a commit longer than the longest string', () => {
  it(
    'ovsdb-server answers, announces and writes it; ovnkit-server opens its file',
    () => withFile('ovsdb-server'),
    LONG,
  );

  it(
    'ovnkit-server with a database file answers, announces and writes it, and restarts on the file',
    () => withFile('ovnkit-server'),
    LONG,
  );

  it(
    'ovnkit-server without a database file answers and announces it',
    async () => {
      const sub = join(dir, 'ovnkit-memory');
      await mkdir(sub);
      const server = await startFileServer('ovnkit-server', sub, undefined, [
        '--schema',
        schemaFile,
      ]);
      try {
        await largeCommits(server);
      } finally {
        await server.kill();
        await rm(sub, { recursive: true, force: true });
      }
    },
    LONG,
  );
});

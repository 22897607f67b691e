/**
 * A real `ovsdb-server` for differential tests, and a minimal JSON-RPC 1.0
 * client that talks to it over its unix socket.
 *
 * {@link startRealServer} creates a database from a schema in a fresh temporary
 * directory (`ovsdb-tool create`), spawns `ovsdb-server` on
 * `punix:<dir>/db.sock` (no `--detach`; killed by {@link RealServer.close}) and
 * connects. {@link RealServer.transact} sends one `transact` request and
 * resolves with the result array exactly as the server sent it.
 *
 * The reader is self-contained: it frames the byte stream into JSON values with
 * a string- and escape-aware scanner that never rescans consumed input.
 * @module
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** A running `ovsdb-server` with one connected JSON-RPC session. */
export interface RealServer {
  /** The temporary directory holding the database, socket, pid and log files. */
  readonly dir: string;
  /** The unix socket path the server listens on. */
  readonly socketPath: string;
  /** The database name (the schema's `name`). */
  readonly dbName: string;
  /** Send any JSON-RPC request; resolves with `result`, rejects when `error` is not null. */
  request(method: string, params: unknown[], timeoutMs?: number): Promise<unknown>;
  /** `transact` on this database; resolves with the result array. */
  transact(ops: readonly unknown[], timeoutMs?: number): Promise<unknown[]>;
  /** Delete every row of every table (one transaction). */
  reset(): Promise<void>;
  /** Close the session, kill the server and remove the directory. */
  close(): Promise<void>;
}

/** Frames a stream of concatenated JSON texts into parsed values. */
class JsonFramer {
  private buf = '';
  private pos = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private start = -1;

  /** Feed text; returns the complete values found. */
  push(text: string): unknown[] {
    this.buf += text;
    const out: unknown[] = [];
    const b = this.buf;
    for (let i = this.pos; i < b.length; i++) {
      const c = b.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92) this.escaped = true;
        else if (c === 34) this.inString = false;
        continue;
      }
      if (c === 34) {
        this.inString = true;
      } else if (c === 123 || c === 91) {
        if (this.depth === 0) this.start = i;
        this.depth++;
      } else if (c === 125 || c === 93) {
        this.depth--;
        if (this.depth === 0) {
          out.push(JSON.parse(b.slice(this.start, i + 1)));
          this.start = -1;
        }
      }
    }
    if (this.depth === 0) {
      this.buf = '';
      this.pos = 0;
    } else {
      this.buf = b.slice(this.start);
      this.pos = this.buf.length;
      this.start = 0;
    }
    return out;
  }
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function connectSocket(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    s.once('connect', () => {
      s.off('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
}

/**
 * Start a real `ovsdb-server` serving a new database created from `schemaPath`.
 */
export async function startRealServer(schemaPath: string): Promise<RealServer> {
  const dir = mkdtempSync(join(tmpdir(), 'ovnkit-ovsdb-'));
  const dbPath = join(dir, 'db');
  const socketPath = join(dir, 'db.sock');
  execFileSync('ovsdb-tool', ['create', dbPath, schemaPath]);
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as {
    name: string;
    tables: Record<string, unknown>;
  };
  const child: ChildProcess = spawn(
    'ovsdb-server',
    [
      dbPath,
      `--remote=punix:${socketPath}`,
      `--unixctl=${join(dir, 'x.ctl')}`,
      `--pidfile=${join(dir, 'x.pid')}`,
      `--log-file=${join(dir, 'x.log')}`,
      '-vconsole:off',
    ],
    { stdio: 'ignore' },
  );
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  let socket: Socket | undefined;
  const t0 = Date.now();
  while (socket === undefined) {
    if (exited) throw new Error(`ovsdb-server exited early (see ${dir}/x.log)`);
    try {
      socket = await connectSocket(socketPath);
    } catch (e) {
      if (Date.now() - t0 > 10_000) throw e;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const sock = socket;
  const framer = new JsonFramer();
  const decoder = new StringDecoder('utf8');
  const pending = new Map<number, Pending>();
  let nextId = 1;
  sock.on('data', (chunk: Buffer) => {
    for (const msg of framer.push(decoder.write(chunk))) {
      const m = msg as {
        id?: unknown;
        method?: unknown;
        params?: unknown;
        result?: unknown;
        error?: unknown;
      };
      if (m.method === 'echo') {
        sock.write(JSON.stringify({ id: m.id, result: m.params, error: null }));
        continue;
      }
      if (typeof m.id !== 'number') continue;
      const p = pending.get(m.id);
      if (p === undefined) continue;
      pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.error !== null && m.error !== undefined) {
        p.reject(new Error(`ovsdb-server error: ${JSON.stringify(m.error)}`));
      } else {
        p.resolve(m.result);
      }
    }
  });
  sock.on('close', () => {
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error('connection to ovsdb-server closed'));
    }
    pending.clear();
  });

  const request = (method: string, params: unknown[], timeoutMs = 10_000): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${method}: no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      sock.write(JSON.stringify({ method, params, id }));
    });

  const transact = async (ops: readonly unknown[], timeoutMs?: number): Promise<unknown[]> =>
    (await request('transact', [schema.name, ...ops], timeoutMs)) as unknown[];

  return {
    dir,
    socketPath,
    dbName: schema.name,
    request,
    transact,
    async reset() {
      const ops = Object.keys(schema.tables).map((table) => ({ op: 'delete', table, where: [] }));
      const res = await transact(ops);
      const bad = res.find((r) => r !== null && typeof r === 'object' && 'error' in r);
      if (bad !== undefined) throw new Error(`reset failed: ${JSON.stringify(res)}`);
    },
    async close() {
      sock.destroy();
      if (!exited) {
        child.kill('SIGTERM');
        await waitFor(() => exited, 5000, 'ovsdb-server to exit').catch(() => {
          child.kill('SIGKILL');
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Run one transaction with the real `ovsdb-client transact` tool against the
 * server at `socketPath` and return its parsed result array. Slower than
 * {@link RealServer.transact} (one process per call); used to cross-check it.
 */
export function ovsdbClientTransact(
  socketPath: string,
  dbName: string,
  ops: readonly unknown[],
): unknown[] {
  const out = execFileSync(
    'ovsdb-client',
    ['transact', `unix:${socketPath}`, JSON.stringify([dbName, ...ops])],
    { encoding: 'utf8', timeout: 10_000 },
  );
  return JSON.parse(out) as unknown[];
}

/**
 * Shared pieces of the hostile-input suite: messages that nest a value to a
 * chosen depth in each position a peer controls (request id, echo params,
 * row value, `where`, monitor id, lock name, `get_schema`, …), raw probes
 * over a unix socket and over a WebSocket that send one attack and then an
 * `echo` marker (so "still open" is decided by a reply, never a timeout),
 * and the processes under attack: `ovnkit-server`, `ovsdb-server` and
 * `ovnkit bridge`, each in its own temporary directory.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer, connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { JsonStreamFramer } from '../../src/ovsdb/wire/framer.js';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { installHooks, liveChildren, runTool } from '../../src/testing/processes.js';
import {
  command,
  type FileServer,
  type Kind,
  ROOT,
  startFileServer,
} from '../server/file-servers.js';

/**
 * The nesting limit every side applies: ovsdb-server 3.1's, measured (an
 * `echo` nesting 1,000 levels, the top-level object included, is answered;
 * 1,001 drops the connection) and the default of the framer and parsers.
 */
export const LIMIT = 1000;
/** At the limit, just over it, far over it (9,990: just under the old 10,000 cap; 100,000). */
export const DEPTHS = [LIMIT, LIMIT + 1, 9_990, 100_000] as const;

export const NB_SCHEMA = join(ROOT, 'schema/ovn-nb-7.18.0.ovsschema');
const DB = 'OVN_Northbound';

/** A place in a message where a peer may nest a value: `@` marks it, `leaf` is what sits innermost. */
export interface Position {
  readonly name: string;
  readonly template: string;
  readonly leaf: string;
}

const txn = (op: string): string => `{"method":"transact","params":["${DB}",${op}],"id":"x"}`;

/** Every position of a client's message that holds JSON of the client's choosing. */
export const POSITIONS: readonly Position[] = [
  { name: 'echo params', template: '{"method":"echo","params":@,"id":"x"}', leaf: '1' },
  { name: 'request id', template: '{"method":"list_dbs","params":[],"id":@}', leaf: '1' },
  {
    name: 'row value',
    template: txn('{"op":"insert","table":"Logical_Switch","row":{"name":@}}'),
    leaf: '"a"',
  },
  { name: 'where', template: txn('{"op":"select","table":"Logical_Switch","where":@}'), leaf: '1' },
  {
    name: 'where value',
    template: txn('{"op":"select","table":"Logical_Switch","where":[["name","==",@]]}'),
    leaf: '1',
  },
  {
    name: 'mutation',
    template: txn(
      '{"op":"mutate","table":"Logical_Switch","where":[],"mutations":[["other_config","insert",@]]}',
    ),
    leaf: '1',
  },
  {
    name: 'wait rows',
    template: txn(
      '{"op":"wait","table":"Logical_Switch","where":[],"columns":["name"],"until":"==","rows":[{"name":@}],"timeout":0}',
    ),
    leaf: '"a"',
  },
  { name: 'comment', template: txn('{"op":"comment","comment":@}'), leaf: '"a"' },
  { name: 'operation', template: txn('@'), leaf: '1' },
  { name: 'transact db', template: '{"method":"transact","params":[@],"id":"x"}', leaf: '"a"' },
  {
    name: 'monitor id',
    template: `{"method":"monitor","params":["${DB}",@,{"Logical_Switch":{}}],"id":"x"}`,
    leaf: '1',
  },
  {
    name: 'monitor_cond id',
    template: `{"method":"monitor_cond","params":["${DB}",@,{"Logical_Switch":{}}],"id":"x"}`,
    leaf: '1',
  },
  {
    name: 'monitor_cond_since id',
    template: `{"method":"monitor_cond_since","params":["${DB}",@,{"Logical_Switch":{}},"00000000-0000-0000-0000-000000000000"],"id":"x"}`,
    leaf: '1',
  },
  {
    name: 'monitor where',
    template: `{"method":"monitor_cond","params":["${DB}","w",{"Logical_Switch":{"where":@}}],"id":"x"}`,
    leaf: 'true',
  },
  {
    name: 'monitor_cancel id',
    template: '{"method":"monitor_cancel","params":[@],"id":"x"}',
    leaf: '1',
  },
  {
    name: 'monitor_cond_change id',
    template: '{"method":"monitor_cond_change","params":[@,"y",{}],"id":"x"}',
    leaf: '1',
  },
  { name: 'lock name', template: '{"method":"lock","params":[@],"id":"x"}', leaf: '"a"' },
  { name: 'steal name', template: '{"method":"steal","params":[@],"id":"x"}', leaf: '"a"' },
  { name: 'unlock name', template: '{"method":"unlock","params":[@],"id":"x"}', leaf: '"a"' },
  { name: 'get_schema', template: '{"method":"get_schema","params":[@],"id":"x"}', leaf: '"a"' },
  {
    name: 'set_db_change_aware',
    template: '{"method":"set_db_change_aware","params":[@],"id":"x"}',
    leaf: 'true',
  },
  { name: 'unknown method', template: '{"method":"nope","params":[@],"id":"x"}', leaf: '1' },
  { name: 'cancel', template: '{"method":"cancel","params":[@],"id":null}', leaf: '1' },
  { name: 'method', template: '{"method":@,"params":[],"id":"x"}', leaf: '"a"' },
  { name: 'reply id', template: '{"id":@,"result":[],"error":null}', leaf: '1' },
];

/** The bracket depth at the `@` of a template. */
function depthAt(template: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    else if (c === '@') return depth;
  }
  throw new Error(`no @ in ${template}`);
}

/** `p`'s message with arrays nested at `@` so that the whole message nests exactly `total` levels. */
export function nested(p: Position, total: number): string {
  const n = total - depthAt(p.template);
  if (n < 0) throw new Error(`${p.name}: already ${depthAt(p.template)} levels deep`);
  return p.template.replace('@', `${'['.repeat(n)}${p.leaf}${']'.repeat(n)}`);
}

/** The deepest nesting of JSON `text` (a string-aware bracket count, iterative). */
export function nestingOf(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** The marker sent after each attack: its reply proves the connection still works. */
export const AFTER = '{"method":"echo","params":["after"],"id":"after"}';

/** What a probe saw. */
export interface ProbeResult {
  /** The connection ended before the marker's reply. */
  readonly closed: boolean;
  /** Texts of the messages received before the marker's reply (or the close). */
  readonly texts: string[];
  /** Those messages, parsed. */
  readonly messages: Record<string, unknown>[];
  /** What the probe's own reader refused in what the server sent, if anything. */
  readonly failure?: Error | undefined;
}

/** `p`, or a rejection naming `what` after 10 s (a probe never waits without end). */
function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within 10 s`)), 10_000);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** A framer that reads anything a server sends (the probe is never the side that gives up). */
function lenientFramer(): JsonStreamFramer {
  return new JsonStreamFramer({ maxDepth: 1_000_000 });
}

/**
 * Send `chunks` (one write each, `gapMs` apart) then {@link AFTER} over a new
 * unix-socket connection, and wait for the marker's reply or the close.
 */
export async function probeSocket(
  path: string,
  chunks: readonly string[],
  gapMs = 0,
): Promise<ProbeResult> {
  const socket = netConnect(path);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const framer = lenientFramer();
  const texts: string[] = [];
  const messages: Record<string, unknown>[] = [];
  let failure: Error | undefined;
  const done = new Promise<boolean>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      const out: { text: string; value: unknown }[] = [];
      try {
        framer.pushFramesInto(chunk, out);
      } catch (e) {
        failure ??= e as Error;
        socket.destroy();
      }
      for (const m of out) {
        const v = m.value as Record<string, unknown>;
        if (v['id'] === 'after') {
          resolve(false);
          return;
        }
        texts.push(m.text);
        messages.push(v);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(true));
  });
  for (const [i, c] of chunks.entries()) {
    if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
    if (!socket.destroyed) socket.write(c);
  }
  if (!socket.destroyed) socket.write(AFTER);
  try {
    const closed = await within(done, `${path}: neither the marker's reply nor a close`);
    return { closed, texts, messages, failure };
  } finally {
    socket.destroy();
  }
}

/** What a WebSocket probe saw. */
export interface WsProbeResult extends ProbeResult {
  /** The close code and reason, when the bridge closed the connection. */
  readonly code?: number;
  readonly reason?: string;
}

/** Open a WebSocket to `url`, send `frames` then {@link AFTER}, and wait for the marker's reply or the close. */
export async function probeWs(url: string, frames: readonly string[]): Promise<WsProbeResult> {
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 0 });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const texts: string[] = [];
  const messages: Record<string, unknown>[] = [];
  try {
    return await within(
      new Promise<WsProbeResult>((resolve) => {
        ws.on('message', (data: Buffer) => {
          const text = data.toString('utf8');
          const out: { text: string; value: unknown }[] = [];
          try {
            lenientFramer().pushFramesInto(Buffer.from(text), out);
          } catch {
            // Not for this probe to judge: kept as text only.
          }
          const v = (out[0]?.value ?? {}) as Record<string, unknown>;
          if (v['id'] === 'after') {
            resolve({ closed: false, texts, messages });
            return;
          }
          texts.push(text);
          messages.push(v);
        });
        ws.on('error', () => undefined);
        ws.on('close', (code: number, reason: Buffer) =>
          resolve({ closed: true, texts, messages, code, reason: reason.toString() }),
        );
        for (const f of frames) ws.send(f);
        ws.send(AFTER);
      }),
      `${url}: neither the marker's reply nor a close`,
    );
  } finally {
    ws.terminate();
  }
}

/** A server process under attack, with what a test needs of it. */
export interface ServerUnderTest {
  readonly kind: Kind;
  readonly server: FileServer;
  readonly dir: string;
  /** `unix:<socket>`. */
  readonly remote: string;
  /** Still running. */
  alive(): boolean;
  stop(): Promise<void>;
}

/** Run `kind` with `args` until it exits (killed after 20 s): its exit code (null when killed) and stderr. */
export function runToExit(
  kind: Kind,
  args: readonly string[],
): Promise<{ code: number | null; stderr: string }> {
  installHooks();
  const [program, argv] = command(kind, args);
  const child = spawn(program, argv, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  liveChildren.add(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (t: string) => {
    stderr += t;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      liveChildren.delete(child);
      resolve({ code, stderr });
    }),
  );
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Start `kind` on a fresh OVN Northbound database file in a temporary directory. */
export async function startServer(
  kind: Kind,
  extra: readonly string[] = [],
): Promise<ServerUnderTest> {
  const tools = requireOvsdbServer(true);
  const dir = await mkdtemp(join(tmpdir(), `ovnkit-hostile-${kind}-`));
  const db = join(dir, 'nb.db');
  await runTool(tools.ovsdbTool, ['create', db, NB_SCHEMA]);
  const server = await startFileServer(kind, dir, db, extra);
  return {
    kind,
    server,
    dir,
    remote: `unix:${server.sock}`,
    alive: () => server.child.exitCode === null && server.child.signalCode === null,
    async stop() {
      await server.kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A second client that was not attacked: inserts a logical switch named
 * `name` and reads it back. Resolves with the names it found.
 */
export async function transactAsBystander(remote: string, name: string): Promise<unknown> {
  const conn = await connect(remote, { timeoutMs: 10_000 });
  try {
    const r = await conn.transact(DB, [{ op: 'insert', table: 'Logical_Switch', row: { name } }], {
      timeoutMs: 10_000,
    });
    if (!r[0]?.uuid) throw new Error(`insert failed: ${JSON.stringify(r)}`);
    const rows = await conn.transact(
      DB,
      [{ op: 'select', table: 'Logical_Switch', where: [['name', '==', name]], columns: ['name'] }],
      { timeoutMs: 10_000 },
    );
    return rows[0]?.rows;
  } finally {
    conn.close();
  }
}

/** An `ovnkit bridge` process (`src/cli/main.ts bridge`). */
export interface BridgeProcess {
  readonly child: ChildProcess;
  /** Its `ws://` URL. */
  readonly url: string;
  /** stderr so far (its log). */
  log(): string;
  alive(): boolean;
  stop(): Promise<void>;
}

/** Start `ovnkit bridge --listen ws://127.0.0.1:0 --remote <remote> --no-auth <extra>`. */
export async function startBridgeProcess(
  remote: string,
  extra: readonly string[] = [],
): Promise<BridgeProcess> {
  installHooks();
  const child = spawn(
    process.execPath,
    [
      '--conditions=ovnkit-source',
      '--import',
      'tsx',
      'src/cli/main.ts',
      'bridge',
      '--listen',
      'ws://127.0.0.1:0',
      '--remote',
      remote,
      '--no-auth',
      ...extra,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  liveChildren.add(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (t: string) => {
    stderr = (stderr + t).slice(-200_000);
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      liveChildren.delete(child);
      resolve();
    }),
  );
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the bridge did not start: ${stderr}`)),
      30_000,
    );
    lines.once('line', (l) => {
      clearTimeout(timer);
      resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`the bridge exited (${code}): ${stderr}`)));
  });
  const url = /^listening on (\S+)$/.exec(first)?.[1];
  if (url === undefined) throw new Error(`unexpected first line from the bridge: ${first}`);
  return {
    child,
    url,
    log: () => stderr,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

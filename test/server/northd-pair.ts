/**
 * Test helpers: NB and SB served by `ovnkit-server` or by the real
 * `ovsdb-server` (both as processes, on database files made by
 * `ovsdb-tool create` from the installed OVN's schemas, with ovsdb-server's
 * command line), `ovn-northd` instances between them, and the SB contents
 * northd produces (logical flows, port and datapath bindings), normalized
 * so that two runs compare as sets: datapath UUIDs become the datapath's
 * name, other UUIDs a placeholder.
 */

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { installHooks, liveChildren } from '../../src/testing/processes.js';
import { type FileServer, type Kind, startFileServer } from './file-servers.js';

export const NB_SCHEMA = '/usr/share/ovn/ovn-nb.ovsschema';
export const SB_SCHEMA = '/usr/share/ovn/ovn-sb.ovsschema';

const run = promisify(execFile);

/** `tool ARGS` to its end; stdout. */
export async function tool(program: string, args: readonly string[]): Promise<string> {
  const { stdout } = await run(program, [...args], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

/** One `ovn-northd` process. */
export interface Northd {
  readonly child: ChildProcess;
  /** Its control socket, for `ovn-appctl -t`. */
  readonly ctl: string;
  readonly log: string;
  /** `ovn-appctl -t <ctl> status`: `active`, `standby` or `paused` (undefined when it does not answer). */
  status(): Promise<string | undefined>;
  /** SIGKILL (or `signal`) and wait for the end. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** NB + SB on one kind of server, with northd instances between them. */
export interface OvnPair {
  readonly kind: Kind;
  readonly dir: string;
  readonly nb: FileServer;
  readonly sb: FileServer;
  readonly northds: Northd[];
  /** `ovn-nbctl --db=unix:<nb> --timeout=50 ARGS`. */
  nbctl(...args: string[]): Promise<string>;
  /** `ovn-sbctl --db=unix:<sb> --timeout=50 ARGS`. */
  sbctl(...args: string[]): Promise<string>;
  /** Start one more ovn-northd (`n` names its files). */
  startNorthd(n: number): Northd;
  stop(): Promise<void>;
}

/** Start NB and SB on `kind` and `northds` ovn-northd instances. */
export async function startOvnPair(kind: Kind, northds = 1): Promise<OvnPair> {
  const tools = requireOvsdbServer();
  installHooks();
  const dir = mkdtempSync(join(tmpdir(), `ovnkit-northd-${kind}-`));
  const make = async (name: string, schema: string): Promise<FileServer> => {
    const sub = join(dir, name);
    mkdirSync(sub);
    const db = join(sub, `${name}.db`);
    await tool(tools.ovsdbTool, ['create', db, schema]);
    return startFileServer(kind, sub, db);
  };
  let nb: FileServer | undefined;
  let sb: FileServer | undefined;
  try {
    [nb, sb] = await Promise.all([make('nb', NB_SCHEMA), make('sb', SB_SCHEMA)]);
  } catch (e) {
    await Promise.all([nb?.kill(), sb?.kill()]);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const nbSock = nb.sock;
  const sbSock = sb.sock;
  const list: Northd[] = [];
  const startNorthd = (n: number): Northd => {
    const ctl = join(dir, `northd${n}.ctl`);
    const log = join(dir, `northd${n}.log`);
    const child = spawn(
      'ovn-northd',
      [
        `--ovnnb-db=unix:${nbSock}`,
        `--ovnsb-db=unix:${sbSock}`,
        `--unixctl=${ctl}`,
        `--pidfile=${join(dir, `northd${n}.pid`)}`,
        `--log-file=${log}`,
        '-vconsole:off',
      ],
      { stdio: 'ignore' },
    );
    liveChildren.add(child);
    const exited = new Promise<void>((r) =>
      child.once('exit', () => {
        liveChildren.delete(child);
        r();
      }),
    );
    const d: Northd = {
      child,
      ctl,
      log,
      async status() {
        try {
          const out = await tool('ovn-appctl', ['-t', ctl, '--timeout=10', 'status']);
          return /Status:\s*(\S+)/.exec(out)?.[1];
        } catch {
          return undefined;
        }
      },
      async kill(signal: NodeJS.Signals = 'SIGKILL') {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        await exited;
      },
    };
    list.push(d);
    return d;
  };
  for (let n = 1; n <= northds; n++) startNorthd(n);
  const ctl = (program: string, sock: string, args: string[]) =>
    tool(program, [`--db=unix:${sock}`, '--timeout=50', ...args]);
  return {
    kind,
    dir,
    nb,
    sb,
    northds: list,
    nbctl: (...args) => ctl('ovn-nbctl', nbSock, args),
    sbctl: (...args) => ctl('ovn-sbctl', sbSock, args),
    startNorthd,
    async stop() {
      await Promise.all(list.map((d) => d.kill('SIGTERM')));
      await Promise.all([nb.kill(), sb.kill()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Poll `read` until `ok` (every 100 ms, up to `timeoutMs`); the last value read. */
export async function until<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let v = await read();
  while (!ok(v) && Date.now() < deadline) {
    await sleep(100);
    v = await read();
  }
  return v;
}

/** The tail of a northd log, for failure messages. */
export function logTail(path: string, chars = 3000): string {
  try {
    return readFileSync(path, 'utf8').slice(-chars);
  } catch {
    return '';
  }
}

// --- SB contents, normalized ---

type Json = unknown;

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

interface Table {
  headings: string[];
  data: Json[][];
}

/** `ovn-sbctl --format=json --columns=… list TABLE` as rows keyed by column. */
async function list(
  pair: OvnPair,
  table: string,
  columns: readonly string[],
): Promise<Record<string, Json>[]> {
  const out = await pair.sbctl('--format=json', `--columns=${columns.join(',')}`, 'list', table);
  const t = JSON.parse(out) as Table;
  return t.data.map((row) => Object.fromEntries(t.headings.map((h, i) => [h, row[i]])));
}

function uuidOf(v: Json): string | undefined {
  return Array.isArray(v) && v[0] === 'uuid' ? String(v[1]) : undefined;
}

function setOf(v: Json): Json[] {
  if (Array.isArray(v) && v[0] === 'set') return v[1] as Json[];
  return [v];
}

function mapOf(v: Json): [Json, Json][] {
  return Array.isArray(v) && v[0] === 'map' ? (v[1] as [Json, Json][]) : [];
}

/** A value as stable text: maps and sets sorted, UUIDs replaced by `name(uuid)` or `<uuid>`. */
function text(v: Json, names: ReadonlyMap<string, string>): string {
  const sub = (s: string) => s.replace(UUID_RE, (u) => names.get(u) ?? '<uuid>');
  if (Array.isArray(v)) {
    if (v[0] === 'uuid') return sub(String(v[1]));
    if (v[0] === 'set')
      return `[${(v[1] as Json[])
        .map((x) => text(x, names))
        .sort()
        .join(',')}]`;
    if (v[0] === 'map')
      return `{${(v[1] as [Json, Json][])
        .map(([k, x]) => `${text(k, names)}=${text(x, names)}`)
        .sort()
        .join(',')}}`;
  }
  return typeof v === 'string' ? sub(v) : JSON.stringify(v);
}

/** What northd wrote to SB, normalized and sorted. */
export interface SbDump {
  /**
   * `pipeline|table|priority|match|actions|datapath or [group's datapaths]`,
   * an ECMP member's number in a match (`reg8[16..31] == N`) as `<member>`.
   */
  readonly flows: string[];
  /** `logical_port|type|options|mac|tunnel_key|datapath`. */
  readonly portBindings: string[];
  /** `external_ids|tunnel_key`. */
  readonly datapaths: string[];
  /** Datapath name by SB UUID. */
  readonly names: ReadonlyMap<string, string>;
}

/** Dump and normalize the SB's Logical_Flow, Port_Binding and Datapath_Binding tables. */
export async function dumpSb(pair: OvnPair): Promise<SbDump> {
  const [dps, groups, flows, pbs] = await Promise.all([
    list(pair, 'Datapath_Binding', ['_uuid', 'external_ids', 'tunnel_key']),
    list(pair, 'Logical_DP_Group', ['_uuid', 'datapaths']),
    list(pair, 'Logical_Flow', [
      'pipeline',
      'table_id',
      'priority',
      'match',
      'actions',
      'logical_datapath',
      'logical_dp_group',
    ]),
    list(pair, 'Port_Binding', [
      'logical_port',
      'type',
      'options',
      'mac',
      'tunnel_key',
      'datapath',
    ]),
  ]);
  const names = new Map<string, string>();
  for (const d of dps) {
    const name = mapOf(d['external_ids']).find(([k]) => k === 'name')?.[1];
    names.set(uuidOf(d['_uuid'])!, `dp:${String(name)}`);
  }
  const groupNames = new Map<string, string>();
  for (const g of groups) {
    const members = setOf(g['datapaths'])
      .map((x) => names.get(uuidOf(x)!) ?? '<unknown dp>')
      .sort();
    groupNames.set(uuidOf(g['_uuid'])!, `[${members.join(',')}]`);
  }
  const dpOf = (f: Record<string, Json>): string => {
    const single = setOf(f['logical_datapath']).map(uuidOf).filter(Boolean);
    if (single.length > 0) return names.get(single[0]!) ?? '<unknown dp>';
    const group = setOf(f['logical_dp_group']).map(uuidOf).filter(Boolean);
    return group.length > 0 ? (groupNames.get(group[0]!) ?? '<unknown group>') : '<none>';
  };
  return {
    flows: flows
      .map((f) =>
        [
          f['pipeline'],
          f['table_id'],
          f['priority'],
          text(f['match'], names).replace(/reg8\[16\.\.31\] == \d+/g, 'reg8[16..31] == <member>'),
          text(f['actions'], names),
          dpOf(f),
        ].join('|'),
      )
      .sort(),
    portBindings: pbs
      .map((p) =>
        [
          p['logical_port'],
          text(p['type'], names),
          text(p['options'], names),
          text(p['mac'], names),
          p['tunnel_key'],
          text(p['datapath'], names),
        ].join('|'),
      )
      .sort(),
    datapaths: dps.map((d) => `${text(d['external_ids'], names)}|${d['tunnel_key']}`).sort(),
    names,
  };
}

/**
 * Every row of every SB table but Logical_Flow (which {@link dumpSb}
 * compares, without its `external_ids`, whose `stage-hint` is a prefix of
 * an NB UUID), as `Table|column=value|…` (all columns but `_uuid`,
 * `_version` and timestamps), sorted: references to datapaths and port
 * bindings as their names, other UUIDs as `<uuid>`.
 */
export async function dumpSbTables(pair: OvnPair): Promise<string[]> {
  const schema = JSON.parse(readFileSync(SB_SCHEMA, 'utf8')) as { tables: Record<string, unknown> };
  const tables = Object.keys(schema.tables)
    .filter((t) => t !== 'Logical_Flow')
    .sort();
  const dumps = await Promise.all(
    tables.map(async (table) => {
      const out = await pair.sbctl('--format=json', 'list', table);
      return { table, t: JSON.parse(out) as Table };
    }),
  );
  const names = new Map<string, string>();
  for (const { table, t } of dumps) {
    const u = t.headings.indexOf('_uuid');
    const key =
      table === 'Datapath_Binding'
        ? 'external_ids'
        : table === 'Port_Binding'
          ? 'logical_port'
          : '';
    if (key === '') continue;
    const k = t.headings.indexOf(key);
    for (const row of t.data) {
      const id = uuidOf(row[u])!;
      if (table === 'Port_Binding') names.set(id, `pb:${String(row[k])}`);
      else {
        const name = mapOf(row[k]).find(([x]) => x === 'name')?.[1];
        names.set(id, `dp:${String(name)}`);
      }
    }
  }
  const rows: string[] = [];
  for (const { table, t } of dumps) {
    const cols = t.headings
      .map((h, i) => [h, i] as const)
      .filter(([h]) => h !== '_uuid' && h !== '_version' && !h.includes('timestamp'));
    for (const row of t.data)
      rows.push(`${table}|${cols.map(([h, i]) => `${h}=${text(row[i], names)}`).join('|')}`);
  }
  return rows.sort();
}

/** The entries only in `a` and only in `b` (as multisets). */
export function difference(
  a: readonly string[],
  b: readonly string[],
): { onlyA: string[]; onlyB: string[] } {
  const count = new Map<string, number>();
  for (const x of a) count.set(x, (count.get(x) ?? 0) + 1);
  const onlyB: string[] = [];
  for (const x of b) {
    const c = count.get(x) ?? 0;
    if (c > 0) count.set(x, c - 1);
    else onlyB.push(x);
  }
  const onlyA: string[] = [];
  for (const [x, c] of count) for (let i = 0; i < c; i++) onlyA.push(x);
  return { onlyA, onlyB };
}

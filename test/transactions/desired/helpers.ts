/**
 * Helpers of the desired-state property and concurrency tests: an NB
 * database served by the real `ovsdb-server` or by the `ovnkit-server`
 * program (each a child process on a file made by `ovsdb-tool create`), NB
 * clients, a client that counts the transactions it sends, and the rows as
 * the real `ovsdb-client dump` prints them, with UUIDs replaced by the keys
 * of the rows they name.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { connectDatabase, type DatabaseClient } from '../../../src/client/index.js';
import { NB, type NBTables } from '../../../src/nb/generated/index.js';
import type { Operation } from '../../../src/ovsdb/wire/wire.js';
import { requireOvsdbServer } from '../../../src/testing/index.js';
import { runTool } from '../../../src/testing/processes.js';
import { type FileServer, type Kind, startFileServer } from '../../server/file-servers.js';

export const NB_SCHEMA = new URL('../../../schema/ovn-nb-7.18.0.ovsschema', import.meta.url)
  .pathname;

/** The two servers: the real one and the ovnkit-server program. */
export const KINDS: readonly Kind[] = ['ovsdb-server', 'ovnkit-server'];

const BACKOFF = { initialDelayMs: 20, maxDelayMs: 200 } as const;

/** A server on a fresh NB database. */
export interface NbServer {
  readonly kind: Kind;
  readonly process: FileServer;
  /** `unix:<socket>` */
  readonly remote: string;
  stop(): Promise<void>;
}

/** Start `kind` on a fresh NB 7.18 database in a new temporary directory. */
export async function startNbServer(kind: Kind): Promise<NbServer> {
  const tools = requireOvsdbServer(false);
  const dir = await mkdtemp(join(tmpdir(), `ovnkit-desired-${kind}-`));
  const db = join(dir, 'nb.db');
  await runTool(tools.ovsdbTool, ['create', db, NB_SCHEMA]);
  const process = await startFileServer(kind, dir, db);
  return {
    kind,
    process,
    remote: `unix:${process.sock}`,
    async stop() {
      await process.kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A server and two clients on it: {@link useNbServer}'s fixture. */
export interface NbFixture {
  readonly server: NbServer;
  readonly c1: DatabaseClient<NBTables>;
  readonly c2: DatabaseClient<NBTables>;
}

/**
 * A server of `kind` on a fresh NB database and two synced clients on it,
 * started in `beforeAll` and stopped in `afterAll` (use inside tests).
 */
export function useNbServer(kind: Kind): NbFixture {
  const fx: { server?: NbServer; c1?: DatabaseClient<NBTables>; c2?: DatabaseClient<NBTables> } =
    {};
  beforeAll(async () => {
    fx.server = await startNbServer(kind);
    fx.c1 = await connectNb(fx.server.remote);
    fx.c2 = await connectNb(fx.server.remote);
  }, 60_000);
  afterAll(async () => {
    await fx.c1?.close();
    await fx.c2?.close();
    await fx.server?.stop();
  });
  return fx as NbFixture;
}

/** An NB client on `remote`, synced. */
export async function connectNb(remote: string): Promise<DatabaseClient<NBTables>> {
  const client = connectDatabase({ remotes: remote, model: NB, backoff: BACKOFF });
  await client.whenSynced();
  return client;
}

/** A round trip on `c`: the updates of every commit before it are in its replica after. */
export async function settle(c: DatabaseClient<NBTables>): Promise<void> {
  await c.transact([{ op: 'comment', comment: 'settle' }]);
  await c.drained();
}

/** `client`, with `transact` counted (and, once, preceded by `before`). */
export interface CountingClient {
  readonly client: DatabaseClient<NBTables>;
  /** Calls of `transact` so far. */
  readonly count: () => number;
  /** The operations of each call, in order. */
  readonly sent: readonly (readonly Operation[])[];
}

/**
 * Wrap `client` so that its `transact` calls are counted and their
 * operations kept; `before`, when given, runs (and is awaited) before the
 * first call is passed on.
 */
export function countingClient(
  client: DatabaseClient<NBTables>,
  before?: () => Promise<void>,
): CountingClient {
  const sent: (readonly Operation[])[] = [];
  const wrapped = Object.create(client, {
    transact: {
      value: async (...args: Parameters<DatabaseClient<NBTables>['transact']>) => {
        sent.push(args[0]);
        if (sent.length === 1 && before !== undefined) await before();
        return client.transact(...args);
      },
    },
  }) as DatabaseClient<NBTables>;
  return { client: wrapped, count: () => sent.length, sent };
}

/** One table as `ovsdb-client -f json dump` prints it. */
export interface DumpedTable {
  readonly table: string;
  readonly headings: readonly string[];
  /** Each row as printed (one JSON text per row), in the server's order. */
  readonly lines: readonly string[];
  /** Each row: column → wire value. */
  readonly rows: readonly Readonly<Record<string, unknown>>[];
}

/** The tables the tests look at. */
export const TABLES = [
  'ACL',
  'Address_Set',
  'Logical_Router',
  'Logical_Router_Static_Route',
  'Logical_Switch',
  'Logical_Switch_Port',
  'NAT',
  'Port_Group',
] as const;

/** `ovsdb-client -f json dump <remote> OVN_Northbound`, parsed, for `tables`. */
export async function dump(
  remote: string,
  tables: readonly string[] = TABLES,
): Promise<Map<string, DumpedTable>> {
  const tools = requireOvsdbServer(false);
  // The whole database (`dump` takes one table at most), then the tables asked for.
  const text = await runTool(tools.ovsdbClient, ['-f', 'json', 'dump', remote, 'OVN_Northbound']);
  const out = new Map<string, DumpedTable>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const t = JSON.parse(line) as { caption: string; headings: string[]; data: unknown[][] };
    const table = t.caption.replace(/ table$/, '');
    if (!tables.includes(table)) continue;
    out.set(table, {
      table,
      headings: t.headings,
      lines: t.data.map((r) => JSON.stringify(r)),
      rows: t.data.map((r) => Object.fromEntries(t.headings.map((h, i) => [h, r[i]]))),
    });
  }
  for (const t of tables) if (!out.has(t)) throw new Error(`ovsdb-client dump printed no ${t}`);
  return out;
}

/** The atoms of a wire value of a set (or optional) column. */
export function wireSet(v: unknown): unknown[] {
  if (Array.isArray(v) && v[0] === 'set') return (v[1] as unknown[]).map(wireAtom);
  return [wireAtom(v)];
}

/** A wire atom: a UUID as its string, anything else as is. */
export function wireAtom(v: unknown): unknown {
  if (Array.isArray(v) && (v[0] === 'uuid' || v[0] === 'named-uuid')) return v[1];
  return v;
}

/** A wire map as a record (keys sorted). */
export function wireMap(v: unknown): Record<string, unknown> {
  const pairs = (v as [string, [unknown, unknown][]])[1];
  const out: Record<string, unknown> = {};
  for (const [k, x] of [...pairs].sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1))) {
    out[String(k)] = wireAtom(x);
  }
  return out;
}

/**
 * The names of the ports in port group `name`, sorted, as `ovsdb-client dump`
 * shows them; the group must exist once and carry no `external_ids`.
 */
export async function groupPorts(remote: string, name: string): Promise<string[]> {
  const tables = await dump(remote, ['Port_Group', 'Logical_Switch_Port']);
  const groups = tables.get('Port_Group')!.rows.filter((r) => r['name'] === name);
  if (groups.length !== 1) throw new Error(`${groups.length} port groups named ${name}`);
  const ext = wireMap(groups[0]!['external_ids']);
  if (Object.keys(ext).length > 0)
    throw new Error(`${name} has external_ids ${JSON.stringify(ext)}`);
  const names = new Map(
    tables.get('Logical_Switch_Port')!.rows.map((r) => [wireAtom(r['_uuid']), r['name']]),
  );
  return (wireSet(groups[0]!['ports']) as string[]).map((u) => String(names.get(u))).sort();
}

/** The owner mark of a dumped row. */
export function ownerOfWire(
  row: Readonly<Record<string, unknown>>,
  ownerKey = 'ovnkit-owner',
): string | undefined {
  const ext = row['external_ids'];
  if (ext === undefined) return undefined;
  const v = wireMap(ext)[ownerKey];
  return typeof v === 'string' ? v : undefined;
}

/** The printed rows owned by `owner`, per table: what "byte-for-byte unchanged" compares. */
export function ownedLines(tables: Map<string, DumpedTable>, owner: string): string[] {
  const out: string[] = [];
  for (const t of [...tables.values()].sort((a, b) => (a.table < b.table ? -1 : 1))) {
    t.rows.forEach((r, i) => {
      if (ownerOfWire(r) === owner) out.push(`${t.table} ${t.lines[i]}`);
    });
  }
  return out.sort();
}

/** Children columns: child table → [parent table, column]. */
const HOLDERS: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  ACL: [
    ['Logical_Switch', 'acls'],
    ['Port_Group', 'acls'],
  ],
  NAT: [['Logical_Router', 'nat']],
  Logical_Router_Static_Route: [['Logical_Router', 'static_routes']],
};

/** The short name of a table in key texts. */
export const SHORT: Readonly<Record<string, string>> = {
  Logical_Switch: 'LS',
  Logical_Switch_Port: 'LSP',
  Port_Group: 'PG',
  Address_Set: 'AS',
  Logical_Router: 'LR',
  ACL: 'ACL',
  NAT: 'NAT',
  Logical_Router_Static_Route: 'RT',
};

/** The key text of a row of `table` from its key columns and its parent's key text. */
export function keyText(
  table: string,
  row: Readonly<Record<string, unknown>>,
  parent?: string,
): string {
  switch (table) {
    case 'ACL':
      return `ACL:${parent}:${row['direction']}:${row['priority']}:${row['match']}`;
    case 'NAT':
      return `NAT:${parent}:${row['type']}:${row['external_ip']}:${row['logical_ip']}`;
    case 'Logical_Router_Static_Route':
      return `RT:${parent}:${row['ip_prefix']}:${row['nexthop']}`;
    default:
      return `${SHORT[table]}:${row['name']}`;
  }
}

/**
 * Every dumped row by key text: UUID → key (a child's key names its holder;
 * a child held twice would get the key of one, and is reported by `holders`).
 */
export function keysOfDump(tables: Map<string, DumpedTable>): {
  byUuid: Map<string, string>;
  holders: Map<string, number>;
} {
  const byUuid = new Map<string, string>();
  const holders = new Map<string, number>();
  const plain = (v: unknown): Record<string, unknown> => v as Record<string, unknown>;
  for (const t of [
    'Logical_Switch',
    'Logical_Switch_Port',
    'Port_Group',
    'Address_Set',
    'Logical_Router',
  ]) {
    for (const r of tables.get(t)?.rows ?? [])
      byUuid.set(wireAtom(r['_uuid']) as string, keyText(t, plain(r)));
  }
  for (const [child, list] of Object.entries(HOLDERS)) {
    const rows = new Map<string, Readonly<Record<string, unknown>>>();
    for (const r of tables.get(child)?.rows ?? []) rows.set(wireAtom(r['_uuid']) as string, r);
    for (const [ptable, col] of list) {
      for (const p of tables.get(ptable)?.rows ?? []) {
        const pkey = byUuid.get(wireAtom(p['_uuid']) as string)!;
        for (const u of wireSet(p[col]) as string[]) {
          const r = rows.get(u);
          if (r === undefined) continue;
          holders.set(u, (holders.get(u) ?? 0) + 1);
          byUuid.set(u, keyText(child, plain(r), pkey));
        }
      }
    }
  }
  return { byUuid, holders };
}

/** `table uuid _version` of each row of `owner` in `client`'s replica, sorted. */
export function ownedVersions(client: DatabaseClient<NBTables>, owner: string): string[] {
  return TABLES.flatMap((t) =>
    [...client.rows(t)]
      .filter(
        (x) =>
          (x as { external_ids?: Record<string, string> }).external_ids?.['ovnkit-owner'] === owner,
      )
      .map((x) => {
        const v = (x as { _version?: unknown })._version;
        if (typeof v !== 'string') throw new Error(`${t} ${x._uuid}: no _version in the replica`);
        return `${t} ${x._uuid} ${v}`;
      }),
  ).sort();
}

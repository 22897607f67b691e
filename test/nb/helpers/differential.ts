/**
 * The differential harness: the same intent through the DSL on one fresh
 * `ovsdb-server` and through `ovn-nbctl` on another, then the two
 * `ovsdb-client dump`s compared after replacing every UUID by a label
 * derived from the referenced row's content (so that the labels agree
 * across servers whenever the contents do).
 */

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import type { DatabaseClient } from '../../../src/client/client.js';
import { connectDatabase } from '../../../src/client/open.js';
import { createNb, NB, type NBTables, type Nb, type NbTxn } from '../../../src/nb/index.js';
import { connect } from '../../../src/ovsdb/connection/connect.js';
import type { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';
import { type OvsdbServerHandle, startOvsdbServer } from '../../../src/testing/index.js';

const run = promisify(execFile);

/** The NB schema the model was generated from, and the one OVN 23.03 ships. */
export const NB_SCHEMA_7_18 = 'schema/ovn-nb-7.18.0.ovsschema';
export const NB_SCHEMA_7_0 = 'test/fixtures/schemas/ovn-nb-7.0.0.ovsschema';

/** A cell as `ovsdb-client --format=json dump` writes it. */
export type Cell = unknown;
/** A raw dump: table → rows (column → cell), UUIDs as they are. */
export type RawDump = Record<string, Record<string, Cell>[]>;
/** A normalized dump: table → sorted rows, every UUID replaced by a content label. */
export type NormalizedDump = Record<string, string[]>;

/** Parse the JSON dump of every table. */
export async function rawDump(server: OvsdbServerHandle): Promise<RawDump> {
  const text = await server.ovsdbClient('--format=json', 'dump', 'OVN_Northbound');
  const out: RawDump = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const t = JSON.parse(line) as { caption: string; headings: string[]; data: Cell[][] };
    const table = t.caption.replace(/ table$/, '');
    out[table] = t.data.map((row) => Object.fromEntries(t.headings.map((h, i) => [h, row[i]])));
  }
  return out;
}

function isPair(v: Cell, tag: string): v is [string, string] {
  return Array.isArray(v) && v.length === 2 && v[0] === tag;
}

function second(v: Cell): unknown {
  return (v as unknown[])[1];
}

/** Replace UUIDs by content labels and sort rows and set elements. */
export function normalize(dump: RawDump): NormalizedDump {
  const byUuid = new Map<string, { table: string; row: Record<string, Cell> }>();
  for (const [table, rows] of Object.entries(dump)) {
    for (const row of rows) {
      const u = row['_uuid'];
      if (isPair(u, 'uuid')) byUuid.set(u[1], { table, row });
    }
  }
  const labels = new Map<string, string>();
  const label = (uuid: string, stack: readonly string[]): string => {
    const known = labels.get(uuid);
    if (known !== undefined) return known;
    const target = byUuid.get(uuid);
    if (target === undefined) return 'dangling';
    if (stack.includes(uuid)) return 'cycle';
    const text = canonicalRow(target.row, [...stack, uuid]);
    const l = `${target.table}#${createHash('sha1').update(`${target.table} ${text}`).digest('hex').slice(0, 10)}`;
    labels.set(uuid, l);
    return l;
  };
  const canon = (v: Cell, stack: readonly string[]): unknown => {
    if (isPair(v, 'uuid')) return ['ref', label(v[1], stack)];
    if (isPair(v, 'set')) {
      return ['set', (second(v) as Cell[]).map((x) => canon(x, stack)).sort(cmpJson)];
    }
    if (isPair(v, 'map')) {
      return [
        'map',
        (second(v) as [Cell, Cell][])
          .map(([k, x]) => [canon(k, stack), canon(x, stack)])
          .sort(cmpJson),
      ];
    }
    return v;
  };
  const canonicalRow = (row: Record<string, Cell>, stack: readonly string[]): string => {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(row).sort()) {
      if (k === '_uuid' || k === '_version') continue;
      const c = canon(row[k], stack);
      // A one-element set is written as the bare element: treat both alike.
      out[k] =
        Array.isArray(c) && c[0] === 'set' && (c[1] as unknown[]).length === 1
          ? (c[1] as unknown[])[0]
          : c;
    }
    return JSON.stringify(out);
  };
  const result: NormalizedDump = {};
  for (const [table, rows] of Object.entries(dump)) {
    result[table] = rows.map((r) => canonicalRow(r, [])).sort();
  }
  return result;
}

function cmpJson(a: unknown, b: unknown): number {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Only the non-empty tables (for readable failures). */
export function nonEmpty(d: NormalizedDump): NormalizedDump {
  return Object.fromEntries(Object.entries(d).filter(([, rows]) => rows.length > 0));
}

/** Run `ovn-nbctl --db=<server> args…`; returns stdout. */
export async function nbctl(server: OvsdbServerHandle, ...args: string[]): Promise<string> {
  const { stdout } = await run(
    'ovn-nbctl',
    [`--db=${server.unixRemote}`, '--no-leader-only', ...args],
    {
      timeout: 20_000,
    },
  );
  return stdout;
}

/** The UUID of the single row of `table` matching `conditions` (`ovn-nbctl find` syntax). */
export async function nbctlUuid(
  server: OvsdbServerHandle,
  table: string,
  ...conditions: string[]
): Promise<string> {
  const out = (await nbctl(server, '--bare', '--columns=_uuid', 'find', table, ...conditions))
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  if (out.length !== 1)
    throw new Error(
      `expected one ${table} row matching ${conditions.join(' ')}, found ${out.length}`,
    );
  return out[0]!;
}

/** A DSL step: one `nb.transact`, which may be expected to throw. */
export type DslStep =
  | ((t: NbTxn) => unknown)
  | {
      readonly run: (t: NbTxn) => unknown;
      readonly throws: abstract new (...args: never[]) => Error;
    };

/** An nbctl step: one invocation (which may be expected to fail), or a function for steps that look UUIDs up. */
export type NbctlStep =
  | readonly string[]
  | { readonly args: readonly string[]; readonly fails: true }
  | ((
      nbctl: (...args: string[]) => Promise<string>,
      uuid: (table: string, ...conditions: string[]) => Promise<string>,
    ) => Promise<void>);

/** One differential scenario. */
export interface Scenario {
  /** What it checks. */
  readonly name: string;
  /** The DSL area it covers. */
  readonly group: string;
  readonly dsl: readonly DslStep[];
  readonly nbctl: readonly NbctlStep[];
  /**
   * A deliberate difference from ovn-nbctl: the dumps must differ, and agree
   * once `adjust` (applied to the raw dump of either side) removes it.
   */
  readonly difference?: {
    readonly explain: string;
    readonly dsl?: (d: RawDump) => void;
    readonly nbctl?: (d: RawDump) => void;
  };
}

/** A fresh server with a connected DSL. */
export interface NbServer {
  readonly server: OvsdbServerHandle;
  readonly client: DatabaseClient<NBTables>;
  readonly nb: Nb;
  close(): Promise<void>;
}

/** A server and the DSL for one file's tests: started before them, closed after them. */
export function useNb(schemaPath: string): () => NbServer {
  let s: NbServer | undefined;
  beforeAll(async () => {
    s = await startNb(schemaPath);
  });
  afterAll(async () => {
    await s?.close();
  });
  return () => {
    if (s === undefined) throw new Error('the NB server is not started (use it inside a test)');
    return s;
  };
}

/** Start a fresh server and connect the DSL to it. */
export async function startNb(schemaPath: string): Promise<NbServer> {
  const server = await startOvsdbServer({ schemaPath });
  const client = connectDatabase({
    remotes: [server.unixRemote],
    model: NB,
    backoff: { initialDelayMs: 20, maxDelayMs: 200 },
  });
  await client.ready;
  return {
    server,
    client,
    nb: createNb(client),
    async close() {
      await client.close();
      await server.stop();
    },
  };
}

async function runDsl(nb: Nb, steps: readonly DslStep[]): Promise<void> {
  for (const [i, step] of steps.entries()) {
    if (typeof step === 'function') {
      await nb.transact((t) => {
        step(t);
      });
    } else {
      const err = await nb
        .transact((t) => {
          step.run(t);
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      if (!(err instanceof step.throws)) {
        throw new Error(
          `DSL step ${i}: expected ${step.throws.name}, got ${err === undefined ? 'success' : String(err)}`,
        );
      }
    }
  }
}

async function runNbctl(server: OvsdbServerHandle, steps: readonly NbctlStep[]): Promise<void> {
  const call = (...args: string[]) => nbctl(server, ...args);
  const uuid = (table: string, ...conditions: string[]) => nbctlUuid(server, table, ...conditions);
  for (const [i, step] of steps.entries()) {
    if (typeof step === 'function') await step(call, uuid);
    else if (Array.isArray(step)) await call(...(step as string[]));
    else {
      const s = step as { args: readonly string[] };
      const failed = await call(...s.args).then(
        () => false,
        () => true,
      );
      if (!failed) throw new Error(`nbctl step ${i} (${s.args.join(' ')}) was expected to fail`);
    }
  }
}

/** Empty every table (one transaction through the DSL's client, so that its replica is in sync afterwards). */
async function resetDsl(a: NbServer, tables: readonly string[]): Promise<void> {
  await a.client.transactRaw(tables.map((table) => ({ op: 'delete' as const, table, where: [] })));
}

/** Empty every table of the ovn-nbctl side (over a connection kept for that). */
async function resetServer(conn: OvsdbConnection, tables: readonly string[]): Promise<void> {
  await conn.transact(
    'OVN_Northbound',
    tables.map((table) => ({ op: 'delete' as const, table, where: [] })),
  );
}

/** Compare the two sides' dumps (see {@link Scenario.difference}). */
function compare(s: Scenario, da: RawDump, db: RawDump): void {
  if (s.difference === undefined) {
    expect(nonEmpty(normalize(da)), s.name).toEqual(nonEmpty(normalize(db)));
    return;
  }
  expect(nonEmpty(normalize(da)), `${s.name}: the documented difference must show`).not.toEqual(
    nonEmpty(normalize(db)),
  );
  s.difference.dsl?.(da);
  s.difference.nbctl?.(db);
  expect(nonEmpty(normalize(da)), `${s.name}: ${s.difference.explain}`).toEqual(
    nonEmpty(normalize(db)),
  );
}

/** The two sides: the DSL's server and client, ovn-nbctl's server and a connection to empty it. */
interface Pair {
  readonly a: NbServer;
  readonly b: OvsdbServerHandle;
  readonly bConn: OvsdbConnection;
}

/**
 * Pairs of servers for running scenarios: the DSL side and the ovn-nbctl
 * side. A scenario takes a free pair, runs on it, and empties both
 * databases before giving it back, so that every scenario starts from empty
 * databases without paying for new servers.
 */
export class ScenarioPool {
  private readonly free: Pair[] = [];
  private readonly all: Pair[] = [];
  private readonly waiting: ((pair: Pair) => void)[] = [];

  private constructor(readonly schemaPath: string) {}

  /** Start `size` pairs of servers of `schemaPath`. */
  static async start(schemaPath: string, size: number): Promise<ScenarioPool> {
    const pool = new ScenarioPool(schemaPath);
    const pairs = await Promise.all(
      Array.from({ length: size }, async () => {
        const [a, b] = await Promise.all([startNb(schemaPath), startOvsdbServer({ schemaPath })]);
        return { a, b, bConn: await connect(b.unixRemote) };
      }),
    );
    pool.all.push(...pairs);
    pool.free.push(...pairs);
    return pool;
  }

  private acquire(): Promise<Pair> {
    const pair = this.free.pop();
    if (pair !== undefined) return Promise.resolve(pair);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(pair: Pair): void {
    const next = this.waiting.shift();
    if (next !== undefined) next(pair);
    else this.free.push(pair);
  }

  /** Run a scenario on a free pair and assert that the dumps agree (or differ as documented). */
  async check(s: Scenario): Promise<void> {
    const pair = await this.acquire();
    let tables: string[] = [];
    try {
      await runDsl(pair.a.nb, s.dsl);
      await runNbctl(pair.b, s.nbctl);
      const [da, db] = await Promise.all([rawDump(pair.a.server), rawDump(pair.b)]);
      tables = Object.keys(db);
      compare(s, da, db);
    } finally {
      if (tables.length === 0) tables = Object.keys(await rawDump(pair.b));
      await Promise.all([resetDsl(pair.a, tables), resetServer(pair.bConn, tables)]);
      this.release(pair);
    }
  }

  /** Stop every server. */
  async close(): Promise<void> {
    for (const p of this.all) p.bConn.close();
    await Promise.all(this.all.flatMap(({ a, b }) => [a.close(), b.stop()]));
  }
}

/** Run a scenario on two fresh servers of `schemaPath` (see {@link ScenarioPool} for many). */
export async function checkScenario(s: Scenario, schemaPath: string): Promise<void> {
  const pool = await ScenarioPool.start(schemaPath, 1);
  try {
    await pool.check(s);
  } finally {
    await pool.close();
  }
}

/** The rows of `table` in a raw dump. */
export function rowsOf(d: RawDump, table: string): Record<string, Cell>[] {
  return d[table] ?? [];
}

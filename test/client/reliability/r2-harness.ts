/**
 * R2, the crash test: single-LSP transactions (insert a Logical_Switch_Port
 * and add it to `Logical_Switch.ports`) run against a standalone
 * ovsdb-server that is SIGKILLed and restarted at random points. Afterwards
 * every transaction's reported outcome is checked against the database:
 * - `committed`: the port exists, with the UUID the client chose, in its
 *   switch's `ports` (nothing acknowledged is lost);
 * - `not committed`: no port of that name exists;
 * - no port exists twice, and there is no port nobody reported committed.
 *
 * Used by `test/transactions/r2-crash.test.ts` (a CI-sized run) and
 * `test/reliability/r2-crash.ts` (the full run).
 */

import { connectDatabase } from '../../../src/client/open.js';
import { NB, type NBTables } from '../../../src/nb/generated/index.js';
import { connect } from '../../../src/ovsdb/connection/connect.js';
import type { Uuid } from '../../../src/ovsdb/values/uuid.js';
import { startOvsdbServer } from '../../../src/testing/index.js';
import { type Outcome, outcomeOf, type Resolution } from '../../../src/transactions/index.js';

/** Options of {@link runR2}. */
export interface R2Options {
  /** Transactions to run (5,000 in the full test). */
  readonly transactions: number;
  /** Server kills (5 in the full test). */
  readonly kills: number;
  /** Transactions in flight at once. Default 32. */
  readonly concurrency?: number;
  /** Switches the ports are spread over. Default 10. */
  readonly switches?: number;
  /** Every `idempotentEvery`-th transaction uses `idempotent: true` (0: none). Default 2. */
  readonly idempotentEvery?: number;
  /**
   * Every `durableEvery`-th transaction asks for a durable commit (0: none).
   * The server then syncs its log before replying, which widens the window in
   * which a kill loses the reply of a committed transaction. Default 3.
   */
  readonly durableEvery?: number;
  /** Random seed. Default: from the clock. */
  readonly seed?: number;
  /** Progress lines. */
  readonly log?: (line: string) => void;
}

/** What {@link runR2} found. */
export interface R2Report {
  readonly transactions: number;
  readonly kills: number;
  readonly seed: number;
  readonly ms: number;
  readonly outcomes: Readonly<Record<Outcome, number>>;
  /** How the committed transactions were found to be committed. */
  readonly resolutions: Readonly<Record<string, number>>;
  /** Transactions whose reply was lost and whose outcome was then resolved. */
  readonly resolvedAfterLoss: number;
  /** Transactions reported committed whose port is missing or differs. */
  readonly lostAcknowledged: number;
  /** Transactions reported not committed whose port exists. */
  readonly phantom: number;
  /** Ports present more than once (by name), or not in exactly one switch. */
  readonly duplicates: number;
  /** Ports in the database that no transaction reported committed. */
  readonly unreported: number;
  /** Every discrepancy, in words (empty when the run passed). */
  readonly problems: readonly string[];
}

/** A small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Record_ {
  outcome: Outcome;
  uuid: string | undefined;
  resolution: Resolution | undefined;
  error: string | undefined;
}

/** Run R2 and report; never throws for a discrepancy (see `problems`). */
export async function runR2(options: R2Options): Promise<R2Report> {
  const n = options.transactions;
  const concurrency = options.concurrency ?? 32;
  const switchCount = options.switches ?? 10;
  const idempotentEvery = options.idempotentEvery ?? 2;
  const durableEvery = options.durableEvery ?? 3;
  const seed = options.seed ?? Date.now() % 2 ** 31;
  const log = options.log ?? (() => {});
  const rand = random(seed);

  const server = await startOvsdbServer({ schemaPath: 'schema/ovn-nb-7.18.0.ovsschema' });
  const client = connectDatabase({
    remotes: [server.unixRemote],
    model: NB,
    backoff: { initialDelayMs: 20, maxDelayMs: 250 },
  });
  const started = Date.now();
  try {
    await client.ready;
    const db = client;
    const { value: switches } = await db.transact((tx) =>
      Array.from({ length: switchCount }, (_, i) =>
        tx.insert('Logical_Switch', { name: `r2-sw${i}` }),
      ),
    );

    // Kill points: a random number of finished transactions within each of
    // `kills` equal slices of 5%–90% of the run.
    const slice = (0.85 * n) / Math.max(1, options.kills);
    const killAt = Array.from({ length: options.kills }, (_, k) =>
      Math.floor(0.05 * n + slice * (k + rand())),
    );
    const records: Record_[] = Array.from({ length: n }, () => ({
      outcome: 'unknown',
      uuid: undefined,
      resolution: undefined,
      error: undefined,
    }));
    let finished = 0;
    let kills = 0;
    let killing: Promise<void> | undefined;
    const maybeKill = () => {
      if (killing !== undefined || kills >= killAt.length || finished < killAt[kills]!) return;
      kills++;
      const k = kills;
      // A random extra delay, so the kill lands at a random point of the traffic.
      const delay = Math.floor(rand() * 20);
      killing = (async () => {
        await new Promise((r) => setTimeout(r, delay));
        log(`kill ${k} after ${finished} transactions`);
        await server.kill();
        await new Promise((r) => setTimeout(r, Math.floor(rand() * 200)));
        await server.restart();
      })().finally(() => {
        killing = undefined;
        maybeKill();
      });
    };

    let next = 0;
    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        const rec = records[i]!;
        const sw = switches[i % switchCount] as Uuid<'Logical_Switch'>;
        try {
          const result = await db.transact(
            (tx) => {
              const port = tx.insert('Logical_Switch_Port', { name: `r2-lsp-${i}` });
              rec.uuid = port;
              tx.mutate('Logical_Switch', sw, [['ports', 'insert', [port]]]);
              return port;
            },
            {
              idempotent: idempotentEvery > 0 && i % idempotentEvery === 0,
              durable: durableEvery > 0 && i % durableEvery === 0,
            },
          );
          rec.outcome = 'committed';
          rec.resolution = result.resolution;
        } catch (e) {
          rec.outcome = outcomeOf(e);
          rec.error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        }
        finished++;
        if (finished % 1000 === 0) log(`${finished}/${n} done`);
        maybeKill();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    while (killing !== undefined) await killing;
    const ms = Date.now() - started;

    // Check against a fresh read of the database.
    const conn = await connect(server.unixRemote);
    const [ports, sws] = await conn.transact('OVN_Northbound', [
      { op: 'select', table: 'Logical_Switch_Port', where: [], columns: ['_uuid', 'name'] },
      { op: 'select', table: 'Logical_Switch', where: [], columns: ['_uuid', 'ports'] },
    ]);
    conn.close();
    const byName = new Map<string, string[]>();
    for (const row of ports!.rows as { _uuid: [string, string]; name: string }[]) {
      const list = byName.get(row.name) ?? [];
      list.push(row._uuid[1]);
      byName.set(row.name, list);
    }
    const inSwitches = new Map<string, number>();
    for (const row of sws!.rows as { ports: unknown }[]) {
      const p = row.ports as ['set', [string, string][]] | [string, string];
      const list = p[0] === 'set' ? (p[1] as [string, string][]) : [p as [string, string]];
      for (const [, u] of list) inSwitches.set(u, (inSwitches.get(u) ?? 0) + 1);
    }

    const problems: string[] = [];
    const outcomes: Record<Outcome, number> = { committed: 0, 'not committed': 0, unknown: 0 };
    const resolutions: Record<string, number> = {};
    let lostAcknowledged = 0;
    let phantom = 0;
    let duplicates = 0;
    let resolvedAfterLoss = 0;
    for (let i = 0; i < n; i++) {
      const rec = records[i]!;
      outcomes[rec.outcome]++;
      const present: string[] = byName.get(`r2-lsp-${i}`) ?? [];
      if (present.length > 1) {
        duplicates++;
        problems.push(`transaction ${i}: ${present.length} ports named r2-lsp-${i}`);
      }
      if (rec.outcome === 'committed') {
        const res = rec.resolution ?? '?';
        resolutions[res] = (resolutions[res] ?? 0) + 1;
        if (res !== 'reply') resolvedAfterLoss++;
        if (present.length !== 1 || present[0] !== rec.uuid) {
          lostAcknowledged++;
          problems.push(
            `transaction ${i}: reported committed (${res}) as ${rec.uuid}, database has ${JSON.stringify(present)}`,
          );
        } else if (inSwitches.get(rec.uuid!) !== 1) {
          duplicates++;
          problems.push(
            `transaction ${i}: port ${rec.uuid} is in ${inSwitches.get(rec.uuid!) ?? 0} switches`,
          );
        }
      } else if (rec.outcome === 'not committed') {
        if (rec.error?.includes('TransactionOutcomeError')) resolvedAfterLoss++;
        if (present.length > 0) {
          phantom++;
          problems.push(
            `transaction ${i}: reported not committed (${rec.error}), database has ${JSON.stringify(present)}`,
          );
        }
      } else {
        problems.push(`transaction ${i}: outcome ${rec.outcome}: ${rec.error}`);
      }
    }
    const reported = new Set(
      records.map((r, i) => (r.outcome === 'committed' ? `r2-lsp-${i}` : '')),
    );
    let unreported = 0;
    for (const name of byName.keys()) {
      if (!reported.has(name)) unreported++;
    }
    if (unreported > 0 && unreported !== phantom) {
      problems.push(`${unreported} ports in the database were not reported committed`);
    }
    return {
      transactions: n,
      kills,
      seed,
      ms,
      outcomes,
      resolutions,
      resolvedAfterLoss,
      lostAcknowledged,
      phantom,
      duplicates,
      unreported,
      problems,
    };
  } finally {
    await client.close();
    await server.stop();
  }
}

/** One line per figure, for logs and closing notes. */
export function formatR2(r: R2Report): string {
  return [
    `R2: ${r.transactions} single-LSP transactions, ${r.kills} SIGKILL+restart of the standalone server, ${r.ms} ms (seed ${r.seed})`,
    `  outcomes: committed ${r.outcomes.committed}, not committed ${r.outcomes['not committed']}, unknown ${r.outcomes.unknown}`,
    `  committed by: ${Object.entries(r.resolutions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; outcomes resolved after a lost reply: ${r.resolvedAfterLoss}`,
    `  acknowledged but missing: ${r.lostAcknowledged}; reported not committed but present: ${r.phantom}; duplicated: ${r.duplicates}; unreported ports: ${r.unreported}`,
    ...r.problems.slice(0, 20).map((p) => `  problem: ${p}`),
  ].join('\n');
}

// Keep the table map type referenced for readers of this harness.
export type { NBTables };

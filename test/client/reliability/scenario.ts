/**
 * The leader-failover scenario, shared by the CI test (3 kills during 2,000
 * transactions) and the full reliability run (10 kills during 20,000).
 *
 * A 3-server Raft cluster; an observer client (leader-only, two monitors)
 * keeps a replica; a writer client runs transactions that each increment a
 * counter, insert a row and now and then update or delete an earlier one.
 * At evenly spaced points the current leader is SIGKILLed. After each kill:
 *
 * 1. the time until the observer is connected to the new leader is measured,
 *    from the kill and from the moment the new leader is known;
 * 2. the writer is paused and the observer's replica is compared with a
 *    fresh `ovsdb-client dump` of the new leader (every table, every column
 *    but `_version`);
 * 3. the observer's monitors must have resumed with found=true (no `initial`
 *    rows received at this resync) whenever the new leader can still resume
 *    them: ovsdb-server keeps the last 100 transactions only
 *    (`ovsdb_txn_history_run`), so once the writer has committed that many on
 *    the new leader before the observer is back, found=false and a full
 *    resync are the server's answer, and the replica must still equal the
 *    dump (see {@link killProblems});
 * 4. the killed server is restarted (it rejoins as a follower) and the
 *    writer resumes.
 *
 * At the end the chain of counter update events the observer delivered
 * must be continuous from 0 to the last value: no event lost, none out of
 * order, across every failover.
 */

import { connectDatabase } from '../../../src/client/open.js';
import { TransactionError } from '../../../src/ovsdb/wire/errors.js';
import type { Operation } from '../../../src/ovsdb/wire/wire.js';
import { startOvsdbCluster } from '../../../src/testing/index.js';
import { TransactionOutcomeUnknownError } from '../../../src/transactions/errors.js';
import { DB, TEST_SCHEMA } from '../../helpers/server.js';
import { dumpToRows, TEST_MODEL } from '../helpers/fixtures.js';

/** Options of {@link runFailover}. */
export interface FailoverOptions {
  readonly kills: number;
  readonly transactions: number;
  /** Writer pace, transactions per second (at most). Default 150. */
  readonly ratePerSecond?: number;
  /** The observer's and writer's backoff. Default 50..300 ms. */
  readonly backoff?: { readonly initialDelayMs: number; readonly maxDelayMs: number };
  /** Progress lines. */
  readonly log?: (line: string) => void;
}

/** What happened at one kill. */
export interface KillFigures {
  readonly kill: number;
  /** Writer transactions committed before the kill. */
  readonly atTransaction: number;
  readonly killedMember: number;
  readonly newLeader: number;
  /** Kill → the new leader known (a member reports `Role: leader`). */
  readonly electionMs: number;
  /** Kill → observer connected to the new leader and in sync. */
  readonly reconnectMs: number;
  /** New leader known → observer connected to it (negative: the observer was first). */
  readonly afterLeaderMs: number;
  /** Whether each monitor resumed with found=true. */
  readonly found: readonly boolean[];
  /** Row changes the resume carried (changes missed while disconnected), per monitor. */
  readonly missedChanges: readonly number[];
  /** Writer transactions committed between the kill and the observer's resync. */
  readonly writtenDuringFailover: number;
  /** `initial` rows received since the first sync. */
  readonly initialRowsSinceFirstSync: number;
  /** `initial` rows received at this kill's resync (0 when resumed). */
  readonly initialRowsAtResync: number;
  /** Rows compared with the dump, and the differences found. */
  readonly rowsCompared: number;
  readonly differences: readonly string[];
  /** The remote the observer was connected to, and the leader's. */
  readonly observerRemote: string | undefined;
  readonly leaderRemote: string;
}

/** The outcome of {@link runFailover}. */
export interface FailoverResult {
  readonly kills: readonly KillFigures[];
  readonly transactions: number;
  /** Transactions whose reply was lost and that were retried. */
  readonly retried: number;
  readonly durationMs: number;
  /** The observer's backoff cap. */
  readonly maxDelayMs: number;
  /** Counter update events delivered, and whether their chain was continuous. */
  readonly counterEvents: number;
  readonly counterChainOk: boolean;
  readonly finalCounter: number;
  /** Differences between the replica and a dump at the end. */
  readonly finalDifferences: readonly string[];
  readonly eventStats: {
    queued: number;
    delivered: number;
    maxQueueLength: number;
    pauses: number;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The transactions ovsdb-server keeps for `monitor_cond_since`
 * (`ovsdb_txn_history_run` in ovsdb/transaction.c drops older ones).
 */
export const SERVER_TXN_HISTORY = 100;

/**
 * Whether the new leader could still resume the observer's monitors: fewer
 * transactions were committed between the kill and the observer's resync
 * than the server's history holds (with a margin of 5 for the transaction in
 * flight at the kill and the ones committed while the resync was answered).
 */
export function resumable(k: KillFigures): boolean {
  return k.writtenDuringFailover < SERVER_TXN_HISTORY - 5;
}

/** What is wrong with one kill's figures (empty: nothing); shared by the CI test and the full run. */
export function killProblems(k: KillFigures, maxDelayMs: number): string[] {
  const problems: string[] = [];
  if (k.observerRemote !== k.leaderRemote) problems.push('not connected to the new leader');
  if (k.afterLeaderMs > maxDelayMs + 1000)
    problems.push(`connected ${k.afterLeaderMs} ms after the new leader was known`);
  if (k.rowsCompared <= 1000) problems.push(`only ${k.rowsCompared} rows compared`);
  if (k.differences.length > 0) problems.push(`${k.differences.length} differences with the dump`);
  if (resumable(k)) {
    if (!k.found.every(Boolean))
      problems.push(
        `found=${k.found.join(',')} although only ${k.writtenDuringFailover} transactions were written meanwhile`,
      );
    if (k.initialRowsAtResync !== 0)
      problems.push(`${k.initialRowsAtResync} initial rows at a resync that could resume`);
  } else if (k.found.every(Boolean) === false && k.initialRowsAtResync === 0) {
    problems.push('found=false but no initial rows were received');
  }
  return problems;
}

/** Compare a replica of the `Test` database with an `ovsdb-client --format=json dump` of it. */
export function compareWithDump(
  replica: {
    count(t: 'Item' | 'Root' | 'Connection'): number;
    get(t: 'Item' | 'Root' | 'Connection', u: string): unknown;
  },
  dumpText: string,
): { rows: number; differences: string[] } {
  const dump = dumpToRows(TEST_MODEL.schema, dumpText);
  const differences: string[] = [];
  let rows = 0;
  for (const table of ['Item', 'Root', 'Connection'] as const) {
    const expected = dump[table] ?? new Map();
    if (replica.count(table) !== expected.size) {
      differences.push(
        `${table}: ${replica.count(table)} rows in the replica, ${expected.size} in the dump`,
      );
    }
    for (const [uuid, row] of expected) {
      rows++;
      const mine = replica.get(table, uuid) as Record<string, unknown> | undefined;
      if (mine === undefined) {
        differences.push(`${table} ${uuid}: missing from the replica`);
        continue;
      }
      const { _version: _v, ...rest } = mine;
      if (JSON.stringify(sortKeys(rest)) !== JSON.stringify(sortKeys(row))) {
        differences.push(
          `${table} ${uuid}: replica ${JSON.stringify(rest)} ≠ dump ${JSON.stringify(row)}`,
        );
      }
    }
  }
  return { rows, differences: differences.slice(0, 20) };
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** Run the scenario; see the module docs. */
export async function runFailover(options: FailoverOptions): Promise<FailoverResult> {
  const log = options.log ?? (() => {});
  const rate = options.ratePerSecond ?? 150;
  const backoff = options.backoff ?? { initialDelayMs: 50, maxDelayMs: 300 };
  const t0 = Date.now();
  const cluster = await startOvsdbCluster({ schema: TEST_SCHEMA, size: 3 });
  const observer = connectDatabase({
    remotes: cluster.remotes,
    model: TEST_MODEL,
    backoff,
    tables: {
      Item: { monitor: 'items' },
      Root: { monitor: 'config' },
      Connection: { monitor: 'config' },
    },
  });
  const writer = connectDatabase({
    remotes: cluster.remotes,
    model: TEST_MODEL,
    backoff,
    tables: {},
  });
  try {
    await writer.ready;
    // Filler: the server keeps a transaction history only up to the number
    // of atoms in the database.
    const filler: Operation[] = [
      { op: 'insert', table: 'Item', row: { name: 'counter', n: 0 } } as Operation,
      {
        op: 'insert',
        table: 'Connection',
        row: { target: 'ptcp:6641' },
        'uuid-name': 'c',
      } as Operation,
      { op: 'insert', table: 'Root', row: { connections: ['named-uuid', 'c'] } } as Operation,
    ];
    for (let i = 0; i < 1000; i++) {
      filler.push({
        op: 'insert',
        table: 'Item',
        row: { name: `filler-${i}`, n: -1, tags: ['set', ['a', 'b', 'c', 'd']] },
      } as Operation);
    }
    await writer.transactRaw(filler);
    await observer.ready;
    const initialAfterFirstSync = observer.stats.initialRows;
    log(
      `cluster up, observer synced (${initialAfterFirstSync} initial rows) in ${Date.now() - t0} ms`,
    );

    // The counter's chain of update events, checked at the end.
    let chainOk = true;
    let lastCounter = 0;
    let counterEvents = 0;
    observer.on('Item', 'update', (row, old) => {
      if (row.name !== 'counter') return;
      counterEvents++;
      if (old.n !== lastCounter || row.n <= old.n) chainOk = false;
      lastCounter = row.n;
    });

    const killAt = new Set(
      Array.from({ length: options.kills }, (_, k) =>
        Math.floor(((k + 1) * options.transactions) / (options.kills + 1)),
      ),
    );
    const kills: KillFigures[] = [];
    const failovers: Promise<void>[] = [];
    let initialRowsBefore = initialAfterFirstSync;
    let retried = 0;
    let committed = 0;
    // The writer never waits for a failover: it keeps writing (its own client
    // reconnects); it is paused only while the replica is compared with a dump.
    let gate: Promise<void> | undefined;
    let inFlight: Promise<void> = Promise.resolve();
    const pauseWriter = async (): Promise<() => void> => {
      let open!: () => void;
      gate = new Promise<void>((r) => {
        open = r;
      });
      await inFlight;
      return () => {
        gate = undefined;
        open();
      };
    };
    // Paced from the previous transaction's start, so that after a failover
    // the writer goes on at its rate instead of bursting to catch up.
    let due = Date.now();
    for (let i = 0; i < options.transactions; i++) {
      while (gate) await gate;
      if (killAt.has(i)) {
        failovers.push(
          failover(failovers.length + 1, i).then((f) => {
            kills.push(f);
          }),
        );
        // One failover at a time: the next kill waits for the previous one.
        if (failovers.length > 1) await failovers.at(-2);
      }
      const ops: Operation[] = [
        {
          op: 'mutate',
          table: 'Item',
          where: [['name', '==', 'counter']],
          mutations: [['n', '+=', 1]],
        },
        {
          op: 'insert',
          table: 'Item',
          row: {
            name: `w-${i}`,
            n: i,
            tags: ['set', [`t${i % 5}`]],
            opts: ['map', [['k', String(i)]]],
          },
        },
      ] as Operation[];
      if (i >= 3 && i % 3 === 0) {
        ops.push({
          op: 'mutate',
          table: 'Item',
          where: [['name', '==', `w-${i - 3}`]],
          mutations: [
            ['opts', 'insert', ['map', [['m', 'x']]]],
            ['tags', 'insert', ['set', ['extra']]],
          ],
        } as Operation);
      }
      if (i >= 7 && i % 7 === 0) {
        ops.push({
          op: 'delete',
          table: 'Item',
          where: [['name', '==', `w-${i - 7}`]],
        } as Operation);
      }
      // Every 50th transaction also touches the other monitor's tables.
      if (i % 50 === 0) {
        ops.push({
          op: 'update',
          table: 'Connection',
          where: [],
          row: { inactivity_probe: i },
        } as Operation);
      }
      const write = async (): Promise<void> => {
        let lostReply = false;
        for (;;) {
          try {
            await writer.transactRaw(ops);
            committed++;
            return;
          } catch (e) {
            if (e instanceof TransactionOutcomeUnknownError) {
              retried++;
              lostReply = true;
              continue;
            }
            // A retry of a transaction that had committed: its insert now conflicts.
            if (lostReply && e instanceof TransactionError && e.error === 'constraint violation') {
              committed++;
              return;
            }
            throw e;
          }
        }
      };
      due = Math.max(due, Date.now()) + 1000 / rate;
      inFlight = write();
      await inFlight;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      if ((i + 1) % 1000 === 0) log(`${i + 1} transactions`);
    }
    await Promise.all(failovers);
    kills.sort((a, b) => a.kill - b.kill);

    // Final comparison.
    const final = await settle();
    const leader = await cluster.leader();
    const end = compareWithDump(
      observer,
      await cluster.ovsdbClient(leader.index, '--format=json', 'dump', DB),
    );
    await observer.drained();
    return {
      kills,
      transactions: options.transactions,
      retried,
      durationMs: Date.now() - t0,
      maxDelayMs: backoff.maxDelayMs,
      counterEvents,
      counterChainOk: chainOk && lastCounter === final,
      finalCounter: final,
      finalDifferences: end.differences,
      eventStats: { ...observer.stats.events },
    };

    /** Wait until the observer shows the writer's last committed counter; returns it. */
    async function settle(): Promise<number> {
      const [sel] = await writer.transactRaw([
        {
          op: 'select',
          table: 'Item',
          where: [['name', '==', 'counter']],
          columns: ['n'],
        } as Operation,
      ]);
      const value = (sel as { rows: { n: number }[] }).rows[0]!.n;
      await observer.waitFor('Item', (r) => r.name === 'counter' && r.n >= value, {
        timeoutMs: 30_000,
      });
      return value;
    }

    async function failover(kill: number, atTransaction: number): Promise<KillFigures> {
      const connects = observer.stats.connects;
      const leader = await cluster.leader();
      const committedAtKill = committed;
      const killedAt = Date.now();
      await cluster.kill(leader.index);
      // Find the new leader (polling the survivors) while both clients reconnect.
      const next = await cluster.leader(30_000);
      const electedAt = Date.now();
      const deadline = Date.now() + 30_000;
      while (!(observer.stats.connects > connects && observer.status.state === 'connected')) {
        if (Date.now() > deadline)
          throw new Error(`kill ${kill}: the observer did not reconnect within 30 s`);
        await sleep(5);
      }
      const connectedAt = Date.now();
      const writtenDuringFailover = committed - committedAtKill;
      const lastSync = observer.stats.lastSync;
      const resume = await pauseWriter();
      try {
        await settle();
        const dump = await cluster.ovsdbClient(next.index, '--format=json', 'dump', DB);
        const { rows, differences } = compareWithDump(observer, dump);
        const figures: KillFigures = {
          kill,
          atTransaction,
          killedMember: leader.index,
          newLeader: next.index,
          electionMs: electedAt - killedAt,
          reconnectMs: connectedAt - killedAt,
          afterLeaderMs: connectedAt - electedAt,
          found: lastSync.map((s) => s.found),
          missedChanges: lastSync.map((s) => s.changes),
          writtenDuringFailover,
          initialRowsSinceFirstSync: observer.stats.initialRows - initialAfterFirstSync,
          initialRowsAtResync: observer.stats.initialRows - initialRowsBefore,
          rowsCompared: rows,
          differences,
          observerRemote: observer.status.remote,
          leaderRemote: next.remote,
        };
        initialRowsBefore = observer.stats.initialRows;
        log(
          `kill ${kill} at txn ${atTransaction}: member ${leader.index} → leader ${next.index}; ` +
            `election ${figures.electionMs} ms, in sync ${figures.reconnectMs} ms after the kill ` +
            `(${figures.afterLeaderMs} ms after the new leader was known); ${writtenDuringFailover} txns written meanwhile; ` +
            `found=${figures.found.join(',')} with ${figures.missedChanges.join('+')} missed changes; ` +
            `initial rows at this resync ${figures.initialRowsAtResync}; ${rows} rows compared, ` +
            `${differences.length} differences`,
        );
        await cluster.restart(leader.index);
        return figures;
      } finally {
        resume();
      }
    }
  } finally {
    await observer.close();
    await writer.close();
    await cluster.stop();
  }
}

/**
 * Run in the router namespace of a {@link NetLab} by `netns-failover.test.ts`:
 * a database client with default options, over TCP, on a 3-member cluster
 * whose members are the lab's hosts, writing one transaction at a time; then
 * one fault on the leader, and how long the client takes to settle the
 * transaction in flight, to reach the new leader and to commit again.
 *
 * The faults (`case`):
 * - `written`: a transaction is written and reaches the leader (its kernel
 *   acknowledges it; the leader cannot commit it: its traffic with the other
 *   members was dropped just before), then the leader's traffic with the
 *   client is dropped too;
 * - `before`: the leader's traffic is dropped, then a transaction is
 *   written: its bytes are never acknowledged;
 * - `idle`: the leader's traffic is dropped while nothing is owed;
 * - `stopped`: the leader's process is stopped (SIGSTOP: its kernel still
 *   answers), a transaction is written, and the process is resumed after
 *   `stopMs`.
 *
 * Prints one JSON line ({@link ChildReport}); times are in ms from the fault.
 *
 * Usage: node --import tsx failover-child.ts '<ChildArgs as JSON>'
 */

import { execFileSync } from 'node:child_process';
import type { StatusEvent } from '../../../src/client/client.js';
import { openDatabase } from '../../../src/client/index.js';
import { outcomeOf } from '../../../src/transactions/index.js';
import { TEST_MODEL } from './fixtures.js';

/** What the test passes. */
export interface ChildArgs {
  readonly case: 'written' | 'before' | 'idle' | 'stopped';
  /** The members' `tcp:` remotes. */
  readonly remotes: readonly string[];
  /** The commands that drop each member's traffic with the others, and all of it. */
  readonly drop: readonly { readonly raft: string[][]; readonly all: string[][] }[];
  /** The members' process IDs (for `stopped`). */
  readonly pids: readonly number[];
  /** How long the leader stays stopped. */
  readonly stopMs: number;
}

/** What the child prints. */
export interface ChildReport {
  readonly case: ChildArgs['case'];
  /** The member the client used before the fault, and after. */
  readonly oldLeader: number;
  readonly newLeader: number;
  /** The in-flight transaction settled (undefined: none was in flight). */
  readonly settledMs: number | undefined;
  /** The client gave the old leader up. */
  readonly lostMs: number;
  /** In sync on the new leader. */
  readonly reconnectedMs: number;
  /** The next transaction committed. */
  readonly committedMs: number;
  /** Why the connection was given up. */
  readonly reason: string;
  /** Status event types between the fault and the end of the stop (`stopped`). */
  readonly eventsWhileStopped: readonly string[];
  /** How each monitor resumed on the new leader. */
  readonly found: readonly boolean[];
  /** Every transaction: the name it inserted and the outcome the client reported. */
  readonly writes: readonly { readonly name: string; readonly outcome: string }[];
}

const args = JSON.parse(process.argv[2]!) as ChildArgs;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const run = (commands: readonly string[][]) => {
  for (const [cmd, ...rest] of commands) execFileSync(cmd!, rest);
};

const db = await openDatabase({ remotes: [...args.remotes], model: TEST_MODEL });
const events: { at: number; event: StatusEvent }[] = [];
db.onStatus((event) => {
  events.push({ at: Date.now(), event });
});
const writes: { name: string; outcome: string }[] = [];
const write = async (name: string): Promise<string> => {
  const w = { name, outcome: 'pending' };
  writes.push(w);
  try {
    await db.transact((tx) => tx.insert('Item', { name, n: writes.length }));
    w.outcome = 'committed';
  } catch (e) {
    w.outcome = outcomeOf(e);
  }
  return w.outcome;
};

const oldRemote = db.status.remote!;
const oldLeader = args.remotes.indexOf(oldRemote);
const drop = args.drop[oldLeader]!;
for (let i = 0; i < 5; i++) await write(`before-${i}`);

let inflight: Promise<string> | undefined;
let t0: number;
let eventsWhileStopped: string[] = [];
switch (args.case) {
  case 'written': {
    run(drop.raft);
    inflight = write('inflight');
    // The leader's kernel acknowledges within a round trip; the leader cannot commit.
    await sleep(300);
    run(drop.all);
    t0 = Date.now();
    break;
  }
  case 'before': {
    run([...drop.raft, ...drop.all]);
    t0 = Date.now();
    inflight = write('inflight');
    break;
  }
  case 'idle': {
    run([...drop.raft, ...drop.all]);
    t0 = Date.now();
    break;
  }
  case 'stopped': {
    const pid = args.pids[oldLeader]!;
    process.kill(pid, 'SIGSTOP');
    t0 = Date.now();
    const from = events.length;
    inflight = write('inflight');
    await sleep(args.stopMs);
    eventsWhileStopped = events.slice(from).map((e) => e.event.type);
    process.kill(pid, 'SIGCONT');
    break;
  }
}

let settledAt: number | undefined;
if (inflight !== undefined) {
  await inflight;
  settledAt = Date.now();
}
// In sync on another member.
for (;;) {
  const s = db.status;
  if (s.state === 'connected' && s.remote !== undefined && s.remote !== oldRemote) break;
  await sleep(20);
}
await db.drained();
const lost = events.find((e) => e.at >= t0 && e.event.type === 'disconnected');
const resynced = events.find(
  (e) => e.at >= t0 && e.event.type === 'resynced' && e.event.remote !== oldRemote,
);
await write('after');
const committedAt = Date.now();
const report: ChildReport = {
  case: args.case,
  oldLeader,
  newLeader: args.remotes.indexOf(resynced?.event.remote ?? ''),
  settledMs: settledAt === undefined ? undefined : settledAt - t0,
  lostMs: (lost?.at ?? Number.NaN) - t0,
  reconnectedMs: (resynced?.at ?? Number.NaN) - t0,
  committedMs: committedAt - t0,
  reason: lost?.event.reason ?? '',
  eventsWhileStopped,
  found: (resynced?.event.monitors ?? []).map((m) => m.found),
  writes,
};
await db.close();
console.log(JSON.stringify(report));
process.exit(0);

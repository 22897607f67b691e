/**
 * One side of WH in a fresh process (run with `--expose-gc`), so that heaps
 * do not mix: `typed` opens the database (`openDatabase` with the NB model,
 * every table monitored) and sends W1's transaction through the typed
 * builder; `bare` opens a bare connection (`connect`) and sends the same
 * operations (each insert with its own UUID, as the builder sends it) with
 * `conn.transact`. Both first send `WARM` transactions that are answered
 * (V8 compiles the path, the maps that hold pending requests grow), then
 * stop the server (SIGSTOP), take the heap after a full GC, send `N`
 * transactions (all at once, none answered), wait until the socket has
 * taken every byte (the relay in front of the server reads everything, so
 * no request text waits in this process) and take the heap again. Then the
 * server goes on (SIGCONT) and every transaction must commit.
 *
 * Prints `{"bytesPerTxn":…,"settleMs":…}`: the heap the pending
 * transactions retain, per transaction, and how long the writes took to
 * drain.
 *
 * Usage: node --expose-gc … bench/workloads/wh-child.ts typed|bare REMOTE SERVER_PID N WARM
 * @module
 */

import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../../src/client/open.js';
import { NB } from '../../src/nb/generated/model.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { singlePortOps } from '../lib/nb-data.js';
import { addPort, bareTransact, portData, withOwnUuids } from '../lib/ovnkit-side.js';

const [mode, remote, pidArg, nArg, warmArg] = process.argv.slice(2);
const serverPid = Number(pidArg);
const n = Number(nArg);
const warm = Number(warmArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

function fullGc(): number {
  for (let i = 0; i < 4; i++) gc!();
  return process.memoryUsage().heapUsed;
}

/**
 * The heap after a full GC once it stopped changing: the writes of the
 * transactions just sent leave this process within a few milliseconds
 * (the relay reads as fast as they come), and the texts waiting to be
 * written are garbage from then on.
 */
async function settledHeap(): Promise<{ heap: number; ms: number }> {
  const t0 = performance.now();
  let prev = fullGc();
  for (let i = 0; i < 50; i++) {
    await sleep(50);
    const now = fullGc();
    if (Math.abs(now - prev) < 16 * 1024) return { heap: now, ms: performance.now() - t0 };
    prev = now;
  }
  throw new Error('the heap did not settle within 2.5 s: the writes do not drain');
}

/** A side: sends transaction `i` (its inputs made beforehand), and closes. */
interface Side {
  send(i: number): Promise<unknown>;
  close(): Promise<void>;
}

async function typedSide(): Promise<Side> {
  const db = await openDatabase({ remotes: remote!, model: NB });
  const ports = portData(0, warm + n);
  return {
    send: (i) => addPort(db, ports[i]!),
    async close() {
      const count = db.count('Logical_Switch_Port');
      await db.close();
      if (count !== warm + n) throw new Error(`typed: the replica has ${count} ports`);
    },
  };
}

async function bareSide(): Promise<Side> {
  const conn = await connect(remote!);
  const ops = Array.from({ length: warm + n }, (_, i) => withOwnUuids(singlePortOps(i)));
  return {
    send: (i) => bareTransact(conn, ops[i]!),
    async close() {
      conn.close();
    },
  };
}

const side = mode === 'typed' ? await typedSide() : mode === 'bare' ? await bareSide() : undefined;
if (side === undefined) throw new Error(`unknown mode ${mode}`);
const warmed: Promise<unknown>[] = [];
for (let i = 0; i < warm; i++) warmed.push(side.send(i));
await Promise.all(warmed);
process.kill(serverPid, 'SIGSTOP');
let out: { bytesPerTxn: number; settleMs: number };
let pending: Promise<unknown>[] = [];
try {
  const before = fullGc();
  for (let i = warm; i < warm + n; i++) pending.push(side.send(i));
  const after = await settledHeap();
  out = { bytesPerTxn: (after.heap - before) / n, settleMs: after.ms };
} finally {
  process.kill(serverPid, 'SIGCONT');
}
await Promise.all(pending);
pending = [];
await side.close();
console.log(JSON.stringify(out));

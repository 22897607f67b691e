/**
 * One observer of W4 in a fresh process. It syncs (untimed), starts the
 * writer process (`w4-writer.ts`) and waits until it is ready, lets it
 * commit {@link WARM_UP} warm-up updates and waits until it has applied
 * them (untimed), then starts the clock, lets the writer commit its `COUNT`
 * single-row updates (pipelined), and stops the clock when it has applied
 * all of them:
 * `replica` is `connectDatabase({ model: NB })` (every table); `raw` is a
 * socket with the same `monitor_cond` that frames and `JSON.parse`s each
 * `update2` notification and counts the updated rows. Prints
 * `{"ms":…,"cpuUs":…}`: the time and this process's CPU time (user + system,
 * µs; the writer is another process) from the start of the clock until all
 * were applied.
 *
 * Usage: node --import tsx bench/workloads/w4-child.ts raw|replica SOCKET COUNT
 * @module
 */

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { connectDatabase } from '../../src/client/open.js';
import { NB } from '../../src/nb/generated/model.js';
import { benchNodeFlags } from '../lib/child.js';
import { RawClient } from '../lib/raw-client.js';
import { NB_SCHEMA } from '../lib/servers.js';

const [mode, socketPath, countArg] = process.argv.slice(2);
const count = Number(countArg);
const ROOT = join(import.meta.dirname, '../..');

/**
 * Updates committed and applied before the clock starts, so that both
 * observers run warm: V8 compiles their update paths over the first
 * thousands, and a controller runs warm.
 */
const WARM_UP = 5000;
/** The warm-up updates of a run of `count`. */
const warmUp = Math.min(WARM_UP, count);

/**
 * Start the writer; resolves with `warm` (commits the warm-up updates and
 * resolves once the writer has their replies), `go` (starts the timed
 * commits) and `done` (its exit).
 */
async function startWriter(): Promise<{
  warm: () => Promise<void>;
  go: () => void;
  done: Promise<void>;
}> {
  const child = spawn(
    process.execPath,
    [
      ...benchNodeFlags(),
      join(ROOT, 'bench/workloads/w4-writer.ts'),
      socketPath!,
      String(count),
      String(warmUp),
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const done = new Promise<void>((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`W4 writer exited with ${code}`)),
    ),
  );
  const lines = createInterface({ input: child.stdout });
  const said = (expected: string) =>
    new Promise<void>((resolve, reject) => {
      lines.once('line', (l) =>
        l === expected ? resolve() : reject(new Error(`writer said ${l}, not ${expected}`)),
      );
      done.catch(reject);
    });
  await said('ready');
  return {
    warm: () => {
      child.stdin.write('warm up\n');
      return said('warm');
    },
    go: () => child.stdin.write('go\n'),
    done,
  };
}

function cpuNow(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

async function replica(): Promise<{ ms: number; cpuUs: number }> {
  const client = connectDatabase({ remotes: `unix:${socketPath}`, model: NB });
  await client.ready;
  const writer = await startWriter();
  const warmed = client.waitFor(
    'Logical_Switch_Port',
    (row) => row.external_ids['seq'] === `w${warmUp - 1}`,
  );
  await writer.warm();
  await warmed;
  const last = String(count - 1);
  const cpu0 = cpuNow();
  const t0 = performance.now();
  const applied = client.waitFor('Logical_Switch_Port', (row) => row.external_ids['seq'] === last);
  writer.go();
  await applied;
  const ms = performance.now() - t0;
  const cpuUs = cpuNow() - cpu0;
  await writer.done;
  let updated = 0;
  for (const row of client.rows('Logical_Switch_Port'))
    if (row.external_ids['gen'] === '1') updated++;
  await client.close();
  if (updated !== count) throw new Error(`replica: ${updated} ports updated, expected ${count}`);
  return { ms, cpuUs };
}

async function raw(): Promise<{ ms: number; cpuUs: number }> {
  const schema = JSON.parse(readFileSync(join(ROOT, NB_SCHEMA), 'utf8')) as {
    name: string;
    tables: Record<string, { columns: Record<string, unknown> }>;
  };
  const requests: Record<string, { columns: string[] }> = {};
  for (const [t, s] of Object.entries(schema.tables))
    requests[t] = { columns: Object.keys(s.columns) };
  const c = await RawClient.open(socketPath!);
  await c.request('monitor_cond', [schema.name, 'w4', requests]);
  const writer = await startWriter();
  let rows = 0;
  let target = 0;
  let reached: () => void = () => {};
  /** Count row updates from zero; resolves once `n` have arrived. */
  const untilRows = (n: number) => {
    rows = 0;
    target = n;
    return new Promise<void>((resolve) => {
      reached = resolve;
    });
  };
  c.onMessage = (bytes) => {
    const msg = JSON.parse(bytes.toString('utf8')) as {
      method?: string;
      params?: [unknown, Record<string, Record<string, unknown>>];
    };
    if (msg.method !== 'update2') return;
    const lsp = msg.params?.[1]['Logical_Switch_Port'];
    if (lsp) for (const _ in lsp) rows++;
    if (rows >= target) reached();
  };
  const warmed = untilRows(warmUp);
  await writer.warm();
  await warmed;
  if (rows !== warmUp) throw new Error(`raw monitor: ${rows} warm-up updates, expected ${warmUp}`);
  const applied = untilRows(count);
  const cpu0 = cpuNow();
  const t0 = performance.now();
  writer.go();
  await applied;
  const ms = performance.now() - t0;
  const cpuUs = cpuNow() - cpu0;
  await writer.done;
  c.close();
  if (rows !== count) throw new Error(`raw monitor: ${rows} row updates, expected ${count}`);
  return { ms, cpuUs };
}

const out = mode === 'raw' ? await raw() : mode === 'replica' ? await replica() : undefined;
if (out === undefined) throw new Error(`unknown mode ${mode}`);
console.log(JSON.stringify(out));

/**
 * WT: what one test's fresh database costs with the test kit
 * (`ovnkit/testing`): a new in-memory database seeded with 100 rows (4
 * switches of 24 ports, named references), a client connected through the
 * kit's in-process dialer and in sync, then both closed. Against the same
 * per test with a real `ovsdb-server` (started, seeded with the same rows
 * in one transaction, a client in sync over its unix socket, stopped), the
 * way a harness of real processes pays for isolation.
 *
 * Each repetition runs many such tests in a row (after a warm-up); the
 * figures' samples are the per-repetition medians, and the note gives the
 * spread over every test (10th and 90th percentiles, maximum); the kit's
 * CPU time per test (server and client run in the bench's process) is
 * reported beside it, less sensitive to the machine's load than wall time.
 * Targets: a per-test median of at most 5 ms, and at most a tenth of the
 * real server's.
 * @module
 */

import { connectDatabase } from '../../src/client/index.js';
import { NB } from '../../src/nb/index.js';
import { connect } from '../../src/ovsdb/connection/connect.js';
import { seedDatabase } from '../../src/testing/index.js';
import { seedTransaction } from '../../src/testing/kit/seed.js';
import { startOvsdbServer } from '../../src/testing/ovsdb-server.js';
import { cpuFigure, emptyResult, figure, limit, ratio } from '../lib/results.js';
import { median } from '../lib/stats.js';
import type { BenchContext, Workload, WorkloadResult } from '../lib/types.js';

const SWITCHES = 4;
const PORTS_PER_SWITCH = 24;

/** 100 rows: 4 switches of 24 ports each, ports named from their switch. */
function seed(): Record<string, Record<string, object>> {
  const switches: Record<string, object> = {};
  const ports: Record<string, object> = {};
  for (let s = 0; s < SWITCHES; s++) {
    const names: string[] = [];
    for (let p = 0; p < PORTS_PER_SWITCH; p++) {
      const name = `sw${s}-p${p}`;
      names.push(name);
      ports[name] = {
        name,
        addresses: [
          `00:00:00:00:${s.toString(16).padStart(2, '0')}:${p.toString(16).padStart(2, '0')} 10.${s}.0.${p + 2}`,
        ],
        external_ids: { pod: `ns/pod-${s}-${p}` },
      };
    }
    switches[`sw${s}`] = {
      name: `sw${s}`,
      ports: names,
      other_config: { subnet: `10.${s}.0.0/24` },
    };
  }
  return { Logical_Switch: switches, Logical_Switch_Port: ports };
}

const SEED = seed();
const ROWS = SWITCHES * (PORTS_PER_SWITCH + 1);

/** One test's database with the kit; resolves with its wall time in ms and this process's CPU time in µs (server and client both run here). */
async function kitTest(): Promise<{ ms: number; cpuUs: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const db = await seedDatabase(NB, SEED as never);
  const client = connectDatabase({ remotes: db.remote(), dial: db.dial, model: NB });
  await client.ready;
  if (client.count('Logical_Switch_Port') !== SWITCHES * PORTS_PER_SWITCH) {
    throw new Error(`WT: the client holds ${client.count('Logical_Switch_Port')} ports`);
  }
  await client.close();
  await db.close();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuUs: c.user + c.system };
}

/** One test's database on a real ovsdb-server; resolves with its wall time in ms. */
async function realTest(): Promise<number> {
  const t0 = performance.now();
  const server = await startOvsdbServer({ schema: NB.schema.json as object });
  try {
    const { ops } = seedTransaction(NB.schema, SEED);
    const conn = await connect(server.unixRemote);
    await conn.transact(NB.name, ops);
    conn.close();
    const client = connectDatabase({ remotes: server.unixRemote, model: NB });
    await client.ready;
    if (client.count('Logical_Switch_Port') !== SWITCHES * PORTS_PER_SWITCH) {
      throw new Error(`WT: the client holds ${client.count('Logical_Switch_Port')} ports`);
    }
    await client.close();
  } finally {
    await server.stop();
  }
  return performance.now() - t0;
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
}

function spread(all: readonly number[]): string {
  return `per test over ${all.length} tests: median ${median(all).toFixed(2)} ms, p10 ${quantile(all, 0.1).toFixed(2)}, p90 ${quantile(all, 0.9).toFixed(2)}, max ${Math.max(...all).toFixed(2)} ms`;
}

/** WT. */
export const wt: Workload = {
  id: 'WT',
  async run(ctx: BenchContext): Promise<WorkloadResult> {
    const kitPerRep = ctx.quick ? 20 : 200;
    const realPerRep = ctx.quick ? 2 : 10;
    const result = emptyResult(
      'WT',
      `test kit: a fresh in-memory database seeded with ${ROWS} rows and a client in sync, per test (${kitPerRep} tests per repetition), vs a real ovsdb-server per test (${realPerRep})`,
    );
    for (let i = 0; i < (ctx.quick ? 5 : 50); i++) await kitTest();
    const kit: number[] = [];
    const kitCpu: number[] = [];
    const real: number[] = [];
    const kitAll: number[] = [];
    const realAll: number[] = [];
    for (let rep = 0; rep < ctx.reps; rep++) {
      const k: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < kitPerRep; i++) {
        const t = await kitTest();
        k.push(t.ms);
        cpu.push(t.cpuUs);
      }
      const r: number[] = [];
      for (let i = 0; i < realPerRep; i++) r.push(await realTest());
      kit.push(median(k));
      kitCpu.push(median(cpu));
      real.push(median(r));
      kitAll.push(...k);
      realAll.push(...r);
      ctx.log(
        `WT rep ${rep + 1}: kit ${median(k).toFixed(2)} ms, ovsdb-server ${median(r).toFixed(1)} ms per test`,
      );
    }
    const fk = figure(
      'WT.kit',
      'test kit: seedDatabase (100 rows) + client in sync + close',
      'ms',
      kit,
      {
        higherIsBetter: false,
        note: spread(kitAll),
      },
    );
    const fr = figure(
      'WT.ovsdb-server',
      'ovsdb-server per test: start + seed (100 rows) + client in sync + stop',
      'ms',
      real,
      {
        higherIsBetter: false,
        note: spread(realAll),
      },
    );
    const fc = cpuFigure(fk, kitCpu, 'test');
    result.figures.push(fk, ...(fc === undefined ? [] : [fc]), fr);
    result.ratios.push(
      limit('per-test median (ms)', fk, '<=', 5),
      ratio('kit/ovsdb-server per test', fk, fr, '<=', 0.1),
    );
    return result;
  },
};

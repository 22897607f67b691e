/**
 * The full reliability run: 10 leader kills during 20,000 transactions on a
 * real 3-server Raft cluster (see `scenario.ts`), with every check of the CI
 * test, and the figures printed.
 *
 * Run: `node --import tsx test/reliability/run.ts` (the `reliability` npm
 * script). Environment: `RELIABILITY_KILLS` (default 10),
 * `RELIABILITY_TRANSACTIONS` (default 20,000), `RELIABILITY_RATE`
 * (transactions per second, default 150). Exits with status 1 when a check
 * fails.
 */

import { killProblems, resumable, runFailover } from './scenario.js';

const kills = Number(process.env['RELIABILITY_KILLS'] ?? 10);
const transactions = Number(process.env['RELIABILITY_TRANSACTIONS'] ?? 20_000);
const ratePerSecond = Number(process.env['RELIABILITY_RATE'] ?? 150);
const backoff = { initialDelayMs: 50, maxDelayMs: 300 };

function stats(xs: readonly number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return `min ${s[0]} / median ${at(0.5)} / max ${s.at(-1)} ms`;
}

async function main(): Promise<void> {
  console.log(
    `reliability: ${kills} leader kills during ${transactions} transactions at ≤ ${ratePerSecond}/s, backoff ${backoff.initialDelayMs}..${backoff.maxDelayMs} ms`,
  );
  const r = await runFailover({
    kills,
    transactions,
    ratePerSecond,
    backoff,
    log: (line) => console.log(`  ${line}`),
  });
  const failures: string[] = [];
  for (const k of r.kills) {
    for (const p of killProblems(k, r.maxDelayMs)) failures.push(`kill ${k.kill}: ${p}`);
  }
  if (r.finalDifferences.length > 0)
    failures.push(`end: ${r.finalDifferences.length} differences with the dump`);
  if (!r.counterChainOk) failures.push('end: the chain of counter events is broken');
  if (r.finalCounter !== transactions)
    failures.push(`end: counter ${r.finalCounter}, expected ${transactions}`);

  console.log('');
  console.log(
    `kills: ${r.kills.length}, transactions: ${r.transactions}, retried after a lost reply: ${r.retried}`,
  );
  console.log(`election (kill → new leader known): ${stats(r.kills.map((k) => k.electionMs))}`);
  console.log(
    `reconnect (kill → in sync with the new leader): ${stats(r.kills.map((k) => k.reconnectMs))}`,
  );
  console.log(
    `after the new leader was known: ${stats(r.kills.map((k) => k.afterLeaderMs))} (bound: backoff cap ${r.maxDelayMs} ms + 1000 ms)`,
  );
  console.log(
    `resumes with found=true: ${r.kills.filter((k) => k.found.every(Boolean)).length}/${r.kills.length} ` +
      `(${r.kills.filter(resumable).length} within the server's history of 100 transactions)`,
  );
  console.log(
    `initial rows after the first sync: ${r.kills.at(-1)?.initialRowsSinceFirstSync ?? 0}`,
  );
  console.log(
    `rows compared with dumps: ${r.kills.reduce((n, k) => n + k.rowsCompared, 0)}, differences: ${r.kills.reduce((n, k) => n + k.differences.length, 0) + r.finalDifferences.length}`,
  );
  console.log(
    `counter events: ${r.counterEvents} (chain continuous: ${r.counterChainOk}), final counter ${r.finalCounter}`,
  );
  console.log(
    `events: ${JSON.stringify(r.eventStats)}; duration ${(r.durationMs / 1000).toFixed(1)} s`,
  );
  if (failures.length > 0) {
    console.log(`\nFAILED:\n  ${failures.join('\n  ')}`);
    process.exitCode = 1;
  } else {
    console.log('\nall checks passed');
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});

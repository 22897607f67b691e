/**
 * The full R2 crash test: 5,000 single-LSP transactions while the
 * standalone ovsdb-server is SIGKILLed and restarted 5 times.
 *
 *   node --import tsx test/reliability/r2-crash.ts [transactions] [kills] [seed]
 *
 * Exits 1 when a reported outcome does not match the database.
 */

import { formatR2, runR2 } from './r2-harness.js';

const [transactions = '5000', kills = '5', seed] = process.argv.slice(2);
const report = await runR2({
  transactions: Number(transactions),
  kills: Number(kills),
  ...(seed !== undefined ? { seed: Number(seed) } : {}),
  log: (line) => console.log(line),
});
console.log(formatR2(report));
if (report.problems.length > 0 || report.outcomes.unknown > 0 || report.kills !== Number(kills)) {
  process.exitCode = 1;
}

/**
 * The in-memory server against the real ovsdb-server (W7 of the benchmark
 * harness, `bench/workloads/w7-memory-server.ts`): the raw client on W1b
 * and W2 against both, each a separate process, median of 3 runs.
 *
 * Run: `npm run bench:memory-server [-- --quick]`, the same as
 * `npm run bench -- --only W7 [--quick]`.
 * @module
 */

import { resolve } from 'node:path';
import { renderTable } from './lib/table.js';
import { w7 } from './workloads/w7-memory-server.js';

const quick = process.argv.includes('--quick');
const result = await w7.run({
  quick,
  reps: quick ? 1 : 3,
  root: resolve(import.meta.dirname, '..'),
  log: (m) => process.stderr.write(`${m}\n`),
});
console.log(`${result.title}\n`);
console.log(renderTable([result]));

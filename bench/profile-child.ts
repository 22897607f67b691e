/**
 * The ovnkit side of W1b in a process of its own, for `node --cpu-prof`:
 * the typed builder over `connectDatabase`, all transactions at once (W1b)
 * or, with `seq`, each awaited (W1a).
 *
 * Usage: BENCH_CPU_PROFILE=FILE node --import tsx bench/profile-child.ts REMOTE SOCKET COUNT [seq]
 * @module
 */

import { ovnkitSinglePort } from './workloads/w1-single-port.js';

const [remote, socketPath, count, mode] = process.argv.slice(2);
const rate = await ovnkitSinglePort(
  { kind: 'ovsdb-server', remote: remote!, socketPath: socketPath!, stop: async () => {} },
  Number(count),
  mode !== 'seq',
);
console.log(JSON.stringify({ rate }));

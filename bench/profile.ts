/**
 * CPU profiles of the ovnkit side of W1b (5,000 one-port transactions,
 * pipelined), W1a (the same, sequential) and W3 (initial sync of 100,000 ports), each in its own
 * process, profiling only the timed section (inspector, `BENCH_CPU_PROFILE`), against a fresh ovsdb-server; prints the
 * top frames by self time and leaves the `.cpuprofile` files in
 * `bench/results/` (open them in Chrome DevTools).
 *
 * W8A: ovnkit-server's NB and SB processes under W8a (`--cpu-prof`, the
 * servers as the W8 bench runs them), the frames of the topology
 * transaction's span only.
 *
 * Run: `npm run bench:profile -- [W1a|W1b|W3|W8a] [--quick]` (ovnkit as it ships: see
 * `lib/compiled.mjs`).
 * @module
 */

import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { benchNodeFlags, ovnkitEntry, runJson } from './lib/child.js';
import { topFrames } from './lib/cpu-profile.js';
import { populatePorts } from './lib/nb-data.js';
import { RawClient } from './lib/raw-client.js';
import { withServer } from './lib/servers.js';

const ROOT = resolve(import.meta.dirname, '..');
const quick = process.argv.includes('--quick');
const which = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const wanted = which.length > 0 ? which.map((w) => w.toUpperCase()) : ['W1B', 'W3'];
const outDir = join(ROOT, 'bench/results');
mkdirSync(outDir, { recursive: true });

async function profiled(name: string, file: string, args: string[]): Promise<void> {
  const dest = join(outDir, `${name}.cpuprofile`);
  rmSync(dest, { force: true });
  await runJson(
    process.execPath,
    ['--expose-gc', '--enable-source-maps', ...benchNodeFlags(), file, ...args],
    {
      cwd: ROOT,
      env: { BENCH_CPU_PROFILE: dest },
    },
  );
  if (!existsSync(dest)) throw new Error(`${name}: no profile written`);
  console.log(`\n${name} (${dest}): top frames by self time`);
  for (const f of topFrames(dest, 20)) {
    console.log(
      `${f.percent.toFixed(1).padStart(5)}%  ${f.selfMs.toFixed(0).padStart(6)} ms  ${f.frame}`,
    );
  }
}

if (wanted.includes('W1B')) {
  const n = quick ? 500 : 5000;
  await withServer('ovsdb-server', ROOT, (s) =>
    profiled('profile-w1b-ovnkit', 'bench/profile-child.ts', [s.remote, s.socketPath, String(n)]),
  );
}
if (wanted.includes('W1A')) {
  const n = quick ? 500 : 5000;
  await withServer('ovsdb-server', ROOT, (s) =>
    profiled('profile-w1a-ovnkit', 'bench/profile-child.ts', [
      s.remote,
      s.socketPath,
      String(n),
      'seq',
    ]),
  );
}
if (wanted.includes('W3')) {
  const ports = quick ? 5000 : 100_000;
  await withServer('ovsdb-server', ROOT, async (s) => {
    const c = await RawClient.open(s.socketPath);
    try {
      await populatePorts(c, ports);
    } finally {
      c.close();
    }
    await profiled('profile-w3-replica', 'bench/workloads/w3-child.ts', [
      'replica',
      s.socketPath,
      String(ports),
    ]);
  });
}
if (wanted.includes('W8A')) {
  // W8a's topology transaction, with ovnkit-server's NB and SB processes
  // profiled (--cpu-prof) and only the span of the transaction counted.
  const { startOvnPair } = await import('../test/server/northd-pair.js');
  const { w8Topology } = await import('./workloads/w8-northd.js');
  const profDir = join(outDir, 'profile-w8a');
  rmSync(profDir, { recursive: true, force: true });
  mkdirSync(profDir, { recursive: true });
  process.env.OVNKIT_SERVER_NODE_FLAGS = `--cpu-prof --cpu-prof-dir=${profDir} --cpu-prof-interval=250`;
  // As the W8 bench runs it: the compiled program.
  const cli = ovnkitEntry(ROOT, 'server/program/cli');
  if (cli.flags.length === 0) process.env.OVNKIT_SERVER_CLI = cli.file;
  const pair = await startOvnPair('ovnkit-server');
  delete process.env.OVNKIT_SERVER_NODE_FLAGS;
  delete process.env.OVNKIT_SERVER_CLI;
  const servers = { NB: pair.nb.child.pid, SB: pair.sb.child.pid };
  let window: { fromUs: number; toUs: number };
  try {
    const northd = pair.northds[0];
    await pair.nbctl('init');
    for (let i = 0; (await northd?.status()) !== 'active'; i++) {
      if (i > 300) throw new Error('ovn-northd did not become active');
      await new Promise((r) => setTimeout(r, 100));
    }
    await pair.nbctl('--wait=sb', 'sync');
    const [switches, ports] = quick ? [3, 5] : [20, 25];
    const fromUs = Number(process.hrtime.bigint() / 1000n);
    await pair.nbctl('--wait=sb', ...w8Topology(switches, ports));
    window = { fromUs, toUs: Number(process.hrtime.bigint() / 1000n) };
    console.log(`W8a: ${((window.toUs - window.fromUs) / 1000).toFixed(0)} ms`);
    // The profiles are written when the servers exit cleanly.
    pair.nb.child.kill('SIGTERM');
    pair.sb.child.kill('SIGTERM');
    await Promise.all([pair.nb.exited, pair.sb.exited]);
  } finally {
    await pair.stop();
  }
  for (const [name, pid] of Object.entries(servers)) {
    const file = readdirSync(profDir).find((f) => f.includes(`.${pid}.0.`));
    if (file === undefined) throw new Error(`${name}: no profile written`);
    console.log(
      `\nW8a ${name} server (${join(profDir, file)}): top frames by self time in the transaction's span`,
    );
    for (const f of topFrames(join(profDir, file), 20, window)) {
      console.log(
        `${f.percent.toFixed(1).padStart(5)}%  ${f.selfMs.toFixed(0).padStart(6)} ms  ${f.frame}`,
      );
    }
  }
}

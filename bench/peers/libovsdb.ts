/**
 * The libovsdb peer of the scaling bench: the Go benchmark of
 * `github.com/ovn-org/libovsdb` (`client.NewOVSDBClient` + `MonitorAll`, a
 * cache of every NB table, models from `modelgen -extended`), from the
 * directory `$OVNKIT_LIBOVSDB_DIR` (default `/work/shared/peers/libovsdb`; see
 * its README). It is built offline on first use (Debian's `golang-go` and
 * `golang-*-dev` packages plus its `third_party/`, no module proxy) into a
 * cache outside the repository, `$OVNKIT_BENCH_CACHE` (default
 * `~/.cache/ovnkit-bench`)`/libovsdb`, with models generated from NB 7.18.0;
 * it is rebuilt when its sources or the schema change.
 *
 * The copy's W3 wait for a full cache is raised from 120 s to 1,200 s, so
 * that a 1M-port sync on a loaded machine is not cut short, and every sample
 * also reports the CPU time of its timed section (`cpuUs`: user + system of
 * the whole process, from `getrusage(RUSAGE_SELF)` at the start and the end
 * of the section); nothing else measured changes. `npm run bench` runs its
 * W1a, W1b (all at once), W2 and W3 through {@link libovsdbRun}.
 * @module
 */

import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { runJson } from '../lib/child.js';

/** Where the peer's sources are. */
export const LIBOVSDB_DIR = process.env['OVNKIT_LIBOVSDB_DIR'] ?? '/work/shared/peers/libovsdb';

/** The cache directory of the scaling bench's builds. */
export const BENCH_CACHE =
  process.env['OVNKIT_BENCH_CACHE'] ?? join(homedir(), '.cache', 'ovnkit-bench');

/** One W3 sample as the Go program prints it, plus its CPU time. */
export interface LibovsdbSync {
  readonly ms: number;
  readonly ports: number;
  readonly heapBytesPerPort: number;
  /** User + system CPU time of the process, ms. */
  readonly cpuMs: number;
}

/**
 * The edits made to the copy of `main.go` before it is built: each is a
 * pattern that must match and its replacement. Part of the build's stamp.
 */
const PATCHES: readonly (readonly [RegExp, string])[] = [
  [/waitCache\(c, n, 120\*time\.Second\)/, 'waitCache(c, n, 1200*time.Second)'],
  [/"sync\/atomic"\n/, '"sync/atomic"\n\t"syscall"\n'],
  [/(GOMAXPROCS\s+int\s+`json:"gomaxprocs"`)/, '$1\n\tCPUUs float64 `json:"cpuUs"`'],
  [/var t0 time\.Time\n/, 'var t0 time.Time\n\tvar cpu0 float64\n'],
  [/\bt0 = time\.Now\(\)\n/g, 't0 = time.Now()\n\t\tcpu0 = cpuMicros()\n'],
  [/(tCache := waitCache\(c, n, 60\*time\.Second\)\n)/, '$1\tr.CPUUs = cpuMicros() - cpu0\n'],
  [/(\tt0 := time\.Now\(\)\n)/, '$1\tcpu0 := cpuMicros()\n'],
  [
    /(r\.Ms = float64\(t1\.Sub\(t0\)\.Microseconds\(\)\) \/ 1000\n)/,
    '$1\tr.CPUUs = cpuMicros() - cpu0\n',
  ],
  [
    /$/,
    '\n// cpuMicros: user + system CPU time of the process so far, µs.\n' +
      'func cpuMicros() float64 {\n\tvar ru syscall.Rusage\n' +
      '\tif err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {\n\t\treturn 0\n\t}\n' +
      '\treturn float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1000\n}\n',
  ],
];

function patchMain(text: string): string {
  let out = text;
  for (const [pattern, replacement] of PATCHES) {
    const next = out.replace(pattern, replacement);
    if (next === out) throw new Error(`main.go no longer matches ${pattern}`);
    out = next;
  }
  return out;
}

/** The libovsdb commit the peer is built from (12 hex digits), from its `modules.list`. */
export function libovsdbRevision(): string | null {
  try {
    const list = readFileSync(join(LIBOVSDB_DIR, 'modules.list'), 'utf8');
    const m = /^github\.com\/ovn-org\/libovsdb\s.*@ ([0-9a-f]{12})/m.exec(list);
    return m?.[1] ?? null;
  } catch {
    return null;
  }
}

function sourcesHash(schema: string): string {
  const h = createHash('sha256');
  h.update(PATCHES.map(([p, r]) => `${p.source}\0${r}`).join('\0'));
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      if (e.name === 'vendor' || e.name === 'nbdb' || e.name === 'results') continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) h.update(p.slice(LIBOVSDB_DIR.length)).update(readFileSync(p));
    }
  };
  walk(LIBOVSDB_DIR);
  h.update(readFileSync(schema));
  return h.digest('hex').slice(0, 16);
}

/** The peer's binary, or why there is none (`absent`: its sources are not on this machine). */
export type LibovsdbBuild =
  | { ok: true; binary: string }
  | { ok: false; reason: string; absent?: boolean };

let built: LibovsdbBuild | undefined;

/**
 * Build (once, then from the cache) and return the benchmark binary, or why
 * it cannot be had here.
 */
export function libovsdbBinary(schema: string, log: (m: string) => void): LibovsdbBuild {
  if (built) return built;
  if (!existsSync(join(LIBOVSDB_DIR, 'main.go'))) {
    built = {
      ok: false,
      reason: `no libovsdb benchmark in ${LIBOVSDB_DIR} (set OVNKIT_LIBOVSDB_DIR)`,
      absent: true,
    };
    return built;
  }
  const dir = join(BENCH_CACHE, 'libovsdb');
  const binary = join(dir, 'libovsdb-bench');
  const stamp = join(dir, 'stamp');
  const hash = sourcesHash(schema);
  if (existsSync(binary) && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) {
    built = { ok: true, binary };
    return built;
  }
  // Built beside the cache entry and moved into place, so that a process
  // still running the previous binary is not disturbed.
  const next = `${dir}.build-${process.pid}`;
  try {
    log(`libovsdb: building into ${dir} (first use)`);
    rmSync(next, { recursive: true, force: true });
    const nsrc = join(next, 'src');
    cpSync(LIBOVSDB_DIR, nsrc, { recursive: true, dereference: false });
    execFileSync('chmod', ['-R', 'u+w', nsrc]);
    const main = join(nsrc, 'main.go');
    writeFileSync(main, patchMain(readFileSync(main, 'utf8')));
    const env = {
      ...process.env,
      GOFLAGS: '-mod=vendor',
      GOPROXY: 'off',
      GOSUMDB: 'off',
      GONOSUMDB: '*',
      GOTOOLCHAIN: 'local',
      GOCACHE: join(BENCH_CACHE, 'gocache'),
      GOPATH: join(BENCH_CACHE, 'gopath'),
    };
    const run = (cmd: string, args: string[]) =>
      execFileSync(cmd, args, { cwd: nsrc, env, stdio: ['ignore', 'pipe', 'pipe'] });
    run(join(nsrc, 'prepare.sh'), []);
    run('go', ['build', '-o', join(next, 'modelgen'), 'github.com/ovn-org/libovsdb/cmd/modelgen']);
    rmSync(join(nsrc, 'nbdb'), { recursive: true, force: true });
    run(join(next, 'modelgen'), ['-extended', '-p', 'nbdb', '-o', join(nsrc, 'nbdb'), schema]);
    run('go', ['build', '-o', join(next, 'libovsdb-bench'), '.']);
    writeFileSync(join(next, 'stamp'), hash);
    const old = `${dir}.old-${process.pid}`;
    if (existsSync(dir)) renameSync(dir, old);
    renameSync(next, dir);
    rmSync(old, { recursive: true, force: true });
    built = { ok: true, binary };
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    built = {
      ok: false,
      reason: `libovsdb build failed: ${(err.stderr?.toString() || err.message).trim().split('\n').slice(-3).join(' ')}`,
    };
    rmSync(next, { recursive: true, force: true });
  }
  return built;
}

/**
 * One W3 sample (fresh process): connect + `MonitorAll` until the cache holds
 * `ports` ports, against the ovsdb-server at `socketPath` (already filled).
 * The CPU time comes from the shell's `times` after the process exits.
 */
export function libovsdbSync(
  binary: string,
  socketPath: string,
  ports: number,
): Promise<LibovsdbSync> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'sh',
      [
        '-c',
        '"$0" "$@"; rc=$?; times >&2; exit $rc',
        binary,
        '-socket',
        socketPath,
        '-workload',
        'w3',
        '-n',
        String(ports),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`libovsdb-bench w3 exited with ${code}: ${err.slice(-2000)}`));
        return;
      }
      // `times`: the shell's user/system line, then its children's.
      const m = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(err.trim());
      const cpuMs = m
        ? (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000
        : Number.NaN;
      try {
        const r = JSON.parse(out.trim().split('\n').pop() ?? '') as Omit<LibovsdbSync, 'cpuMs'>;
        resolve({ ms: r.ms, ports: r.ports, heapBytesPerPort: r.heapBytesPerPort, cpuMs });
      } catch {
        reject(new Error(`libovsdb-bench printed no JSON: ${out.slice(-500)}`));
      }
    });
  });
}

/** One sample of the peer's W1a/W1b/W2/W3 as it prints it (`cpuUs` from the patch). */
export interface LibovsdbSample {
  readonly workload: string;
  readonly ports: number;
  /** W1/W2: to the last reply with every port in the cache; W3: to a full cache. */
  readonly ms: number;
  /** W1/W2. */
  readonly portsPerSec?: number;
  /** W3: Go heap retained per port after 3 GCs. */
  readonly heapBytesPerPort?: number;
  /** User + system CPU time of the process during the timed section, µs. */
  readonly cpuUs: number;
  readonly loadAvgStart: string;
  readonly loadAvgEnd: string;
  readonly go: string;
  readonly gomaxprocs: number;
}

/**
 * One sample in a fresh process against the ovsdb-server at `socketPath`:
 * `w1a` (sequential), `w1b` (`concurrency` transactions in flight; 0 = all
 * at once, as ovnkit's W1b), `w2` (`batch` ports per transaction) create
 * `sw0` and write `ports` ports into an empty database; `w3` syncs a
 * database already holding `ports` ports. The program checks the counts on
 * the server and in its cache and exits non-zero when they are wrong.
 */
export function libovsdbRun(
  binary: string,
  socketPath: string,
  workload: 'w1a' | 'w1b' | 'w2' | 'w3',
  ports: number,
  options: { readonly concurrency?: number; readonly batch?: number } = {},
): Promise<LibovsdbSample> {
  const args = ['-socket', socketPath, '-workload', workload, '-n', String(ports)];
  if (options.concurrency !== undefined) args.push('-concurrency', String(options.concurrency));
  if (options.batch !== undefined) args.push('-batch', String(options.batch));
  return runJson<LibovsdbSample>(binary, args);
}

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
 * that a 1M-port sync on a loaded machine is not cut short; nothing measured
 * changes.
 * @module
 */

import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

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

function sourcesHash(schema: string): string {
  const h = createHash('sha256');
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

let built: { ok: true; binary: string } | { ok: false; reason: string } | undefined;

/**
 * Build (once, then from the cache) and return the benchmark binary, or why
 * it cannot be had here.
 */
export function libovsdbBinary(
  schema: string,
  log: (m: string) => void,
): { ok: true; binary: string } | { ok: false; reason: string } {
  if (built) return built;
  if (!existsSync(join(LIBOVSDB_DIR, 'main.go'))) {
    built = { ok: false, reason: `no libovsdb benchmark in ${LIBOVSDB_DIR}` };
    return built;
  }
  const dir = join(BENCH_CACHE, 'libovsdb');
  const src = join(dir, 'src');
  const binary = join(dir, 'libovsdb-bench');
  const stamp = join(dir, 'stamp');
  const hash = sourcesHash(schema);
  if (existsSync(binary) && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) {
    built = { ok: true, binary };
    return built;
  }
  try {
    log(`libovsdb: building into ${dir} (first use)`);
    rmSync(dir, { recursive: true, force: true });
    cpSync(LIBOVSDB_DIR, src, { recursive: true, dereference: false });
    execFileSync('chmod', ['-R', 'u+w', src]);
    const main = join(src, 'main.go');
    writeFileSync(
      main,
      readFileSync(main, 'utf8').replace(
        'waitCache(c, n, 120*time.Second)',
        'waitCache(c, n, 1200*time.Second)',
      ),
    );
    const env = {
      ...process.env,
      GOFLAGS: '-mod=vendor',
      GOPROXY: 'off',
      GOSUMDB: 'off',
      GONOSUMDB: '*',
      GOTOOLCHAIN: 'local',
      GOCACHE: join(dir, 'gocache'),
      GOPATH: join(dir, 'gopath'),
    };
    const run = (cmd: string, args: string[]) =>
      execFileSync(cmd, args, { cwd: src, env, stdio: ['ignore', 'pipe', 'pipe'] });
    run(join(src, 'prepare.sh'), []);
    run('go', ['build', '-o', join(dir, 'modelgen'), 'github.com/ovn-org/libovsdb/cmd/modelgen']);
    rmSync(join(src, 'nbdb'), { recursive: true, force: true });
    run(join(dir, 'modelgen'), ['-extended', '-p', 'nbdb', '-o', join(src, 'nbdb'), schema]);
    run('go', ['build', '-o', binary, '.']);
    writeFileSync(stamp, hash);
    built = { ok: true, binary };
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    built = {
      ok: false,
      reason: `libovsdb build failed: ${(err.stderr?.toString() || err.message).trim().split('\n').slice(-3).join(' ')}`,
    };
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

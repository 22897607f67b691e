/**
 * The package as a stranger gets it: the sources staged in a temporary
 * directory, packed with `npm pack` (whose `prepack` script builds `dist/`),
 * and the tarball installed with `npm ci --offline` into a fresh consumer
 * project outside the repository, so that nothing resolves through the
 * repository's own `node_modules`.
 *
 * The consumer's lockfile is made from the repository's: the tarball as a
 * `file:` dependency plus the entries its dependencies resolve to (and
 * `@types/node` for the TypeScript consumers), so the install needs only the
 * npm cache that `npm ci` filled, never the registry.
 *
 * Everything lives under `<tmpdir>/ovnkit-packaging/<hash of the inputs>`:
 * the test files of one vitest run share one build (serialized by lock
 * directories), a later run on unchanged sources reuses it, and directories
 * unused for an hour are removed.
 */

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** The repository root. */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The repository's TypeScript compiler, which the consumers use instead of installing one. */
export const TSC = join(REPO, 'node_modules/typescript/bin/tsc');

/** What the package's sources are made of: staged, hashed and packed. */
const INPUTS = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'README.md',
  'CHANGELOG.md',
  'src',
  'codegen',
  'schema',
];

/** Packages the TypeScript consumers add next to ovnkit (from the repository's lockfile). */
const CONSUMER_DEV_DEPENDENCIES = ['@types/node'];

/** One file of `npm pack --json`. */
export interface PackedFile {
  readonly path: string;
  readonly size: number;
}

/** What `npm pack --json` reports about the tarball. */
export interface PackInfo {
  readonly filename: string;
  /** Bytes of the tarball. */
  readonly size: number;
  /** Bytes of the files in it. */
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: readonly PackedFile[];
}

/** A packed and installed ovnkit. */
export interface PackedInstall {
  /** The directory holding everything below. */
  readonly root: string;
  /** The tarball. */
  readonly tarball: string;
  readonly pack: PackInfo;
  /** The consumer project (`package.json` with `"type": "module"`, `node_modules/ovnkit` installed). */
  readonly consumer: string;
  /** Wall time of staging + build + pack + install, when this call did them (ms). */
  readonly buildMs: number | undefined;
}

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  [key: string]: unknown;
}

interface Lockfile {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

function run(cmd: string, args: readonly string[], cwd: string, timeout = 240_000) {
  return exec(cmd, [...args], {
    cwd,
    timeout,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false' },
  }).catch((e: unknown) => {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${cmd} ${args.join(' ')} (in ${cwd}) failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`,
    );
  });
}

function walk(path: string, out: string[]): void {
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) walk(join(path, name), out);
  } else {
    out.push(path);
  }
}

/** Copy the inputs into `stage` and return the hash of their paths and contents. */
function stageInputs(stage: string): string {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    const from = join(REPO, input);
    if (!existsSync(from)) continue;
    cpSync(from, join(stage, input), { recursive: true });
  }
  const files: string[] = [];
  for (const input of INPUTS) {
    const p = join(stage, input);
    if (existsSync(p)) walk(p, files);
  }
  for (const f of files) {
    hash.update(relative(stage, f));
    hash.update('\0');
    hash.update(readFileSync(f));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Where `name` required from the lockfile path `from` lives (Node's lookup:
 * the nearest `node_modules/<name>` up the tree).
 */
function locate(lock: Lockfile, from: string, name: string): string {
  let base = from;
  for (;;) {
    const candidate = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (lock.packages[candidate] !== undefined) return candidate;
    if (base === '') break;
    const i = base.lastIndexOf('/node_modules/');
    base = i < 0 ? '' : base.slice(0, i);
  }
  throw new Error(
    `the repository's package-lock.json has no entry for ${name} (needed by ${from})`,
  );
}

/** The lockfile entries `names` need, transitively, at the paths they have in the repository. */
function closure(lock: Lockfile, names: readonly string[]): Map<string, LockEntry> {
  const out = new Map<string, LockEntry>();
  const visit = (from: string, name: string) => {
    const path = locate(lock, from, name);
    if (out.has(path)) return;
    const entry = lock.packages[path]!;
    out.set(path, entry);
    for (const dep of Object.keys(entry.dependencies ?? {})) visit(path, dep);
  };
  for (const name of names) visit('', name);
  return out;
}

/** The consumer's package.json and package-lock.json. */
function consumerManifests(
  repoLock: Lockfile,
  pkg: { name: string; version: string; dependencies?: Record<string, string>; bin?: object },
  tarballName: string,
  integrity: string,
): { manifest: object; lockfile: object } {
  const spec = `file:../${tarballName}`;
  const devDependencies: Record<string, string> = {};
  for (const name of CONSUMER_DEV_DEPENDENCIES) {
    devDependencies[name] = repoLock.packages[`node_modules/${name}`]!.version!;
  }
  const manifest = {
    name: 'ovnkit-consumer',
    version: '1.0.0',
    private: true,
    type: 'module',
    dependencies: { [pkg.name]: spec },
    devDependencies,
  };
  const runtime = closure(repoLock, Object.keys(pkg.dependencies ?? {}));
  const dev = closure(repoLock, CONSUMER_DEV_DEPENDENCIES);
  const packages: Record<string, LockEntry> = {
    '': {
      name: manifest.name,
      version: manifest.version,
      dependencies: manifest.dependencies,
      devDependencies,
    },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: spec,
      integrity,
      ...(pkg.dependencies === undefined ? {} : { dependencies: pkg.dependencies }),
      ...(pkg.bin === undefined ? {} : { bin: pkg.bin }),
    },
  };
  for (const [path, entry] of [...runtime, ...dev]) {
    const { dev: _d, devOptional: _o, peer: _p, ...rest } = entry;
    packages[path] = runtime.has(path) ? rest : { ...rest, dev: true };
  }
  return {
    manifest,
    lockfile: {
      name: manifest.name,
      version: manifest.version,
      lockfileVersion: 3,
      requires: true,
      packages,
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Remove packaging directories (and run markers) that nobody used for an hour. */
function pruneOld(parent: string, keep: string): void {
  for (const name of readdirSync(parent)) {
    const p = join(parent, name);
    if (p === keep) continue;
    try {
      if (Date.now() - statSync(p).mtimeMs > 3_600_000) rmSync(p, { recursive: true, force: true });
    } catch {
      // someone else removed it
    }
  }
}

async function build(root: string, stage: string): Promise<void> {
  rmSync(join(root, 'consumer'), { recursive: true, force: true });
  symlinkSync(join(REPO, 'node_modules'), join(stage, 'node_modules'), 'dir');
  const manifestText = readFileSync(join(stage, 'package.json'), 'utf8');
  const lockText = readFileSync(join(stage, 'package-lock.json'), 'utf8');
  // `npm pack` runs the `prepack` script, which builds dist/ from the staged sources.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', root], stage);
  // The JSON report follows the output of the lifecycle scripts.
  const info = (JSON.parse(stdout.slice(stdout.search(/^\[$/m))) as PackInfo[])[0]!;
  const pack: PackInfo = {
    filename: info.filename,
    size: info.size,
    unpackedSize: info.unpackedSize,
    entryCount: info.entryCount,
    files: info.files.map((f) => ({ path: f.path, size: f.size })),
  };
  // The staged sources and dist/ are in the tarball now.
  unlinkSync(join(stage, 'node_modules'));
  rmSync(stage, { recursive: true, force: true });
  const tarball = join(root, pack.filename);
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const pkg = JSON.parse(manifestText);
  const repoLock = JSON.parse(lockText) as Lockfile;
  const { manifest, lockfile } = consumerManifests(repoLock, pkg, pack.filename, integrity);
  const consumer = join(root, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(consumer, 'package-lock.json'), `${JSON.stringify(lockfile, null, 2)}\n`);
  await run('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], consumer);
  writeFileSync(join(root, 'pack.json'), `${JSON.stringify(pack, null, 2)}\n`);
}

/**
 * The run this process belongs to: the vitest run (its workers are children
 * of one process), or the process itself. The start time tells a reused PID apart.
 */
function runKey(): string {
  const id = process.env['VITEST'] !== undefined ? process.ppid : process.pid;
  let started = '';
  try {
    started = readFileSync(`/proc/${id}/stat`, 'utf8').split(') ')[1]?.split(' ')[19] ?? '';
  } catch {
    // not Linux: the PID alone
  }
  return `${id}-${started}`;
}

/** Take the lock directory `lock`, waiting while someone else holds it. */
async function acquire(lock: string): Promise<void> {
  for (;;) {
    try {
      mkdirSync(lock);
      return;
    } catch {
      // A lock older than 10 minutes is left over from a killed run.
      const age = existsSync(lock) ? Date.now() - statSync(lock).mtimeMs : 0;
      if (age > 600_000) rmSync(lock, { recursive: true, force: true });
      await sleep(500);
    }
  }
}

function installAt(root: string, buildMs: number | undefined): PackedInstall {
  // In use: keep it from being pruned.
  const now = new Date();
  utimesSync(root, now, now);
  const pack = JSON.parse(readFileSync(join(root, 'pack.json'), 'utf8')) as PackInfo;
  return {
    root,
    tarball: join(root, pack.filename),
    pack,
    consumer: join(root, 'consumer'),
    buildMs,
  };
}

/**
 * Stage, build, pack and install ovnkit (or reuse the result of an earlier
 * call on the same sources, or of the same test run: the test files of one
 * run share one build even when the sources change meanwhile). Takes a
 * minute or so when it has to build.
 */
export async function packedInstall(): Promise<PackedInstall> {
  const parent = join(tmpdir(), 'ovnkit-packaging');
  mkdirSync(parent, { recursive: true });
  const run = join(parent, `run-${runKey()}.json`);
  const runLock = `${run}.lock`;
  await acquire(runLock);
  const scratch = join(parent, `stage-${process.pid}-${Date.now()}`);
  try {
    if (existsSync(run)) {
      const { root } = JSON.parse(readFileSync(run, 'utf8')) as { root: string };
      if (existsSync(join(root, 'pack.json'))) return installAt(root, undefined);
    }
    mkdirSync(scratch);
    const hash = stageInputs(scratch);
    const root = join(parent, hash);
    mkdirSync(root, { recursive: true });
    pruneOld(parent, root);
    let buildMs: number | undefined;
    // Processes of other runs may build the same sources at the same time.
    const lock = join(root, '.lock');
    await acquire(lock);
    try {
      if (!existsSync(join(root, 'pack.json'))) {
        const stage = join(root, 'stage');
        rmSync(stage, { recursive: true, force: true });
        cpSync(scratch, stage, { recursive: true });
        const t0 = performance.now();
        await build(root, stage);
        buildMs = performance.now() - t0;
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
    writeFileSync(run, JSON.stringify({ root }));
    return installAt(root, buildMs);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(runLock, { recursive: true, force: true });
  }
}

/** Run a command and return its stdout (its stderr is in the error when it fails). */
export async function runIn(
  cwd: string,
  cmd: string,
  args: readonly string[],
  timeout = 120_000,
): Promise<{ stdout: string; stderr: string }> {
  return run(cmd, args, cwd, timeout);
}

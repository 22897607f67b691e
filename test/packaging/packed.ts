/**
 * The packages as a stranger gets them: the sources staged in a temporary
 * directory, `ovnkit` and `ovnkit-codegen` (the `codegen/` workspace) packed
 * with `npm pack` (whose `prepack` scripts build their `dist/`), and the
 * tarballs installed with `npm ci --offline` into fresh consumer projects
 * outside the repository, so that nothing resolves through the repository's
 * own `node_modules`: a runtime consumer with `ovnkit` alone, a codegen
 * consumer with `ovnkit-codegen` and the `ovnkit` it needs, and an examples
 * consumer with `ovnkit` and the other packages the examples import.
 *
 * The consumers' lockfiles are made from the repository's: the tarballs as
 * `file:` dependencies plus the entries their dependencies resolve to (and
 * `@types/node` for the TypeScript consumers), so the installs need only the
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
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
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

/**
 * What the examples consumer adds besides: the packages the examples import
 * themselves (the pod-allocation example's YAML and address parsing, and
 * the types of the metrics and tracing libraries it takes).
 */
const EXAMPLES_DEV_DEPENDENCIES = [
  ...CONSUMER_DEV_DEPENDENCIES,
  'yaml',
  'ipaddr.js',
  '@opentelemetry/api',
  'prom-client',
];

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

/** The code generator's package, packed and installed. */
export interface PackedCodegen {
  /** The `ovnkit-codegen` tarball. */
  readonly tarball: string;
  readonly pack: PackInfo;
  /**
   * The codegen consumer project (`"type": "module"`): `node_modules/ovnkit-codegen`
   * and `node_modules/ovnkit` installed from the tarballs.
   */
  readonly consumer: string;
}

/** A packed and installed ovnkit, and its code generator. */
export interface PackedInstall {
  /** The directory holding everything below. */
  readonly root: string;
  /** The `ovnkit` tarball. */
  readonly tarball: string;
  readonly pack: PackInfo;
  /**
   * The runtime consumer project (`package.json` with `"type": "module"`,
   * `node_modules/ovnkit` installed, and nothing of the code generator).
   */
  readonly consumer: string;
  /**
   * The examples consumer project: `node_modules/ovnkit` from the tarball and
   * the packages the examples import besides (`EXAMPLES_DEV_DEPENDENCIES`).
   */
  readonly examplesConsumer: string;
  readonly codegen: PackedCodegen;
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

/** Build output and installed packages inside the inputs (`codegen/dist`, …): never staged. */
const NOT_STAGED = new Set(['dist', 'node_modules']);

/** Copy the inputs into `stage` and return the hash of their paths and contents. */
function stageInputs(stage: string): string {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    const from = join(REPO, input);
    if (!existsSync(from)) continue;
    cpSync(from, join(stage, input), {
      recursive: true,
      filter: (src) => src === from || !NOT_STAGED.has(basename(src)),
    });
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
  // What this file builds (the consumers it installs) is part of the result too.
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
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

/** The manifest of a packed package, as far as a consumer's lockfile needs it. */
interface PackageManifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  bin?: object;
}

/** One tarball a consumer installs. */
interface Tarball {
  readonly pkg: PackageManifest;
  /** The tarball's file name, next to the consumer directory. */
  readonly filename: string;
  readonly integrity: string;
}

/**
 * The package.json and package-lock.json of consumer `name`, which depends on
 * `tarballs` and has `devDeps` (at the repository's versions).
 */
function consumerManifests(
  repoLock: Lockfile,
  name: string,
  tarballs: readonly Tarball[],
  devDeps: readonly string[] = CONSUMER_DEV_DEPENDENCIES,
): { manifest: object; lockfile: object } {
  const devDependencies: Record<string, string> = {};
  for (const dep of devDeps) {
    devDependencies[dep] = repoLock.packages[`node_modules/${dep}`]!.version!;
  }
  const dependencies: Record<string, string> = {};
  for (const t of tarballs) dependencies[t.pkg.name] = `file:../${t.filename}`;
  const manifest = {
    name,
    version: '1.0.0',
    private: true,
    type: 'module',
    dependencies,
    devDependencies,
  };
  const ours = new Set(tarballs.map((t) => t.pkg.name));
  const runtime = closure(
    repoLock,
    tarballs.flatMap((t) => Object.keys(t.pkg.dependencies ?? {}).filter((d) => !ours.has(d))),
  );
  const dev = closure(repoLock, devDeps);
  const packages: Record<string, LockEntry> = {
    '': {
      name: manifest.name,
      version: manifest.version,
      dependencies: manifest.dependencies,
      devDependencies,
    },
  };
  for (const { pkg, filename, integrity } of tarballs) {
    packages[`node_modules/${pkg.name}`] = {
      version: pkg.version,
      resolved: `file:../${filename}`,
      integrity,
      ...(pkg.dependencies === undefined ? {} : { dependencies: pkg.dependencies }),
      ...(pkg.peerDependencies === undefined ? {} : { peerDependencies: pkg.peerDependencies }),
      ...(pkg.peerDependenciesMeta === undefined
        ? {}
        : { peerDependenciesMeta: pkg.peerDependenciesMeta }),
      ...(pkg.bin === undefined ? {} : { bin: pkg.bin }),
    };
  }
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

/**
 * The staged tree's `node_modules`: the repository's packages, except that the
 * workspace links (`ovnkit`, `ovnkit-codegen`) point into the stage, so that
 * the code generator builds against the staged `ovnkit`.
 */
function linkNodeModules(stage: string): void {
  const dir = join(stage, 'node_modules');
  mkdirSync(dir);
  const own: Record<string, string> = { ovnkit: stage, 'ovnkit-codegen': join(stage, 'codegen') };
  for (const name of readdirSync(join(REPO, 'node_modules'))) {
    symlinkSync(own[name] ?? join(REPO, 'node_modules', name), join(dir, name), 'dir');
  }
}

/** `npm pack` in `dir` (its `prepack` script builds dist/ from the staged sources). */
async function pack(dir: string, destination: string): Promise<PackInfo> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], dir);
  // The JSON report follows the output of the lifecycle scripts.
  const info = (JSON.parse(stdout.slice(stdout.search(/^\[$/m))) as PackInfo[])[0]!;
  return {
    filename: info.filename,
    size: info.size,
    unpackedSize: info.unpackedSize,
    entryCount: info.entryCount,
    files: info.files.map((f) => ({ path: f.path, size: f.size })),
  };
}

/** Write a consumer project into `dir` and install it offline. */
async function install(dir: string, manifests: { manifest: object; lockfile: object }) {
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifests.manifest, null, 2)}\n`);
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify(manifests.lockfile, null, 2)}\n`);
  await run('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], dir);
}

async function build(root: string, stage: string): Promise<void> {
  rmSync(join(root, 'consumer'), { recursive: true, force: true });
  rmSync(join(root, 'codegen-consumer'), { recursive: true, force: true });
  rmSync(join(root, 'examples-consumer'), { recursive: true, force: true });
  linkNodeModules(stage);
  const manifestText = readFileSync(join(stage, 'package.json'), 'utf8');
  const codegenManifestText = readFileSync(join(stage, 'codegen/package.json'), 'utf8');
  const lockText = readFileSync(join(stage, 'package-lock.json'), 'utf8');
  const packs = {
    ovnkit: await pack(stage, root),
    codegen: await pack(join(stage, 'codegen'), root),
  };
  // The staged sources and dist/ are in the tarballs now.
  rmSync(stage, { recursive: true, force: true });
  const tarball = (p: PackInfo, manifest: string): Tarball => ({
    pkg: JSON.parse(manifest) as PackageManifest,
    filename: p.filename,
    integrity: `sha512-${createHash('sha512')
      .update(readFileSync(join(root, p.filename)))
      .digest('base64')}`,
  });
  const ovnkit = tarball(packs.ovnkit, manifestText);
  const codegen = tarball(packs.codegen, codegenManifestText);
  const repoLock = JSON.parse(lockText) as Lockfile;
  await install(join(root, 'consumer'), consumerManifests(repoLock, 'ovnkit-consumer', [ovnkit]));
  await install(
    join(root, 'codegen-consumer'),
    consumerManifests(repoLock, 'ovnkit-codegen-consumer', [ovnkit, codegen]),
  );
  await install(
    join(root, 'examples-consumer'),
    consumerManifests(repoLock, 'ovnkit-examples-consumer', [ovnkit], EXAMPLES_DEV_DEPENDENCIES),
  );
  writeFileSync(join(root, 'pack.json'), `${JSON.stringify(packs, null, 2)}\n`);
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
  const packs = JSON.parse(readFileSync(join(root, 'pack.json'), 'utf8')) as {
    ovnkit: PackInfo;
    codegen: PackInfo;
  };
  return {
    root,
    tarball: join(root, packs.ovnkit.filename),
    pack: packs.ovnkit,
    consumer: join(root, 'consumer'),
    examplesConsumer: join(root, 'examples-consumer'),
    codegen: {
      tarball: join(root, packs.codegen.filename),
      pack: packs.codegen,
      consumer: join(root, 'codegen-consumer'),
    },
    buildMs,
  };
}

/**
 * Stage, build, pack and install ovnkit and ovnkit-codegen (or reuse the result of an earlier
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

/** Files of tsc's `--listFiles` output under the repository, its compiler's lib files aside. */
export function fromRepository(files: readonly string[]): string[] {
  return files.filter(
    (f) => f.startsWith(`${REPO}/`) && !f.startsWith(`${REPO}/node_modules/typescript/`),
  );
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

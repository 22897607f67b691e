/**
 * What the example tests share: an NB and an SB database, on real
 * `ovsdb-server`s or on ovnkit's in-memory server, with `ovn-northd` between
 * them; running an example's `main.ts` as a child process (as a user does);
 * and checking that an example's generated model is up to date with the
 * schema it was generated from.
 * @module
 */

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  type OvsdbServerHandle,
  startMemoryServer,
  startOvsdbServer,
} from '../../src/testing/index.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const NB_SCHEMA = '/usr/share/ovn/ovn-nb.ovsschema';
export const SB_SCHEMA = '/usr/share/ovn/ovn-sb.ovsschema';

const run = promisify(execFile);

/** Which server the databases run on. */
export type ServerKind = 'ovsdb-server' | 'in-memory';
export const SERVER_KINDS: readonly ServerKind[] = ['ovsdb-server', 'in-memory'];

/** NB + SB + ovn-northd. */
export interface OvnRig {
  readonly kind: ServerKind;
  readonly nb: OvsdbServerHandle;
  readonly sb: OvsdbServerHandle;
  readonly dir: string;
  /** `ovn-nbctl --db=<nb> ARGS` (asynchronous: an in-memory server runs in this process). */
  nbctl(...args: string[]): Promise<string>;
  /** `ovn-sbctl --db=<sb> ARGS`. */
  sbctl(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** Start NB and SB on `kind` servers, and ovn-northd between them (unless `northd: false`). */
export async function startOvnRig(
  kind: ServerKind,
  options: { readonly northd?: boolean } = {},
): Promise<OvnRig> {
  const start = kind === 'in-memory' ? startMemoryServer : startOvsdbServer;
  const dir = await mkdtemp(join(tmpdir(), 'ovnkit-example-'));
  const [nb, sb] = await Promise.all([
    start({ schemaPath: NB_SCHEMA }),
    start({ schemaPath: SB_SCHEMA }),
  ]);
  let northd: ChildProcess | undefined;
  if (options.northd !== false) {
    northd = spawn(
      'ovn-northd',
      [
        `--ovnnb-db=${nb.unixRemote}`,
        `--ovnsb-db=${sb.unixRemote}`,
        `--unixctl=${join(dir, 'northd.ctl')}`,
        `--pidfile=${join(dir, 'northd.pid')}`,
        `--log-file=${join(dir, 'northd.log')}`,
        '-vconsole:off',
      ],
      { stdio: 'ignore' },
    );
  }
  const ctl = async (tool: string, db: string, args: string[]): Promise<string> => {
    const { stdout } = await run(tool, [`--db=${db}`, '--timeout=20', ...args], {
      encoding: 'utf8',
    });
    return stdout;
  };
  return {
    kind,
    nb,
    sb,
    dir,
    nbctl: (...args) => ctl('ovn-nbctl', nb.unixRemote, args),
    sbctl: (...args) => ctl('ovn-sbctl', sb.unixRemote, args),
    async stop() {
      const child = northd;
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      await Promise.all([nb.stop(), sb.stop()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The output of an example's `main.ts` run with `node --conditions=ovnkit-source --import tsx`. */
export interface ExampleRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run `examples/<name>/main.ts ARGS` to its end. */
export async function runExample(
  name: string,
  args: readonly string[],
  timeoutMs = 30_000,
): Promise<ExampleRun> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [
        '--conditions=ovnkit-source',
        '--import',
        'tsx',
        join(ROOT, 'examples', name, 'main.ts'),
        ...args,
      ],
      { cwd: ROOT, timeout: timeoutMs, encoding: 'utf8' },
    );
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? '', stderr: err.stderr ?? String(e) };
  }
}

/** Start `examples/<name>/main.ts ARGS` and leave it running. */
export function spawnExample(name: string, args: readonly string[]): ChildProcess {
  return spawn(
    process.execPath,
    [
      '--conditions=ovnkit-source',
      '--import',
      'tsx',
      join(ROOT, 'examples', name, 'main.ts'),
      ...args,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/**
 * `ovnkit-codegen --schema SCHEMA --out examples/<name>/model --check`, the
 * command the model was generated with: exit status and stderr.
 */
export async function checkExampleModel(
  name: string,
  schema: string,
): Promise<{ code: number; stderr: string; stdout: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [
        '--conditions=ovnkit-source',
        '--import',
        'tsx',
        join(ROOT, 'codegen', 'cli.ts'),
        '--schema',
        schema,
        '--out',
        `examples/${name}/model`,
        '--check',
      ],
      { cwd: ROOT, timeout: 60_000, encoding: 'utf8' },
    );
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? '', stderr: err.stderr ?? String(e) };
  }
}

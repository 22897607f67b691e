/**
 * Shared helpers of the code generator tests: repository paths, scratch
 * directories under `.tmp/` at the repository root, and running the CLI in-process or as a
 * child process.
 */

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { runCli } from '../../codegen/cli.js';
import { generate, writeGenerated } from '../../codegen/index.js';

const run = promisify(execFile);

/** The repository root. */
export const ROOT = join(import.meta.dirname, '../..');
/** The 15 fixture schemas. */
export const SCHEMAS = join(ROOT, 'test/fixtures/schemas');
/** The committed NB model and how it is generated. */
export const NB_OUT = 'src/nb/generated';
export const NB_ARGS = [
  '--schema',
  'schema/ovn-nb-7.18.0.ovsschema',
  '--docs',
  'schema/ovn-nb.xml',
  '--ovsdb-dir',
  'src/ovsdb',
  '--out',
  NB_OUT,
] as const;
/**
 * The committed `_Server` model (the core's own, in `src/ovsdb`) and how it is
 * generated: with the schema document embedded, so that the model's schema
 * JSON is `schema/_server.ovsschema` exactly.
 */
export const SERVER_OUT = 'src/ovsdb/schema/generated/server';
export const SERVER_ARGS = [
  '--schema',
  'schema/_server.ovsschema',
  '--embed-schema',
  '--ovsdb-dir',
  'src/ovsdb',
  '--out',
  SERVER_OUT,
] as const;
/** The committed model of the edge-case fixture schema and how it is generated. */
export const EDGE_ARGS = [
  '--schema',
  'test/codegen/fixtures/edge.ovsschema',
  '--ovsdb-dir',
  'src/ovsdb',
  '--out',
  'test/codegen/fixtures/edge-model',
] as const;

/**
 * Every committed generated model and the arguments it is generated with
 * (from the repository root): `--check` with them must pass.
 */
export const COMMITTED_MODELS: readonly (readonly string[])[] = [
  NB_ARGS,
  SERVER_ARGS,
  EDGE_ARGS,
  ...['6.1.0', '7.0.0', '7.19.0'].map((v) => [
    '--schema',
    `test/fixtures/schemas/ovn-nb-${v}.ovsschema`,
    '--no-docs',
    '--ovsdb-dir',
    'src/ovsdb',
    '--out',
    `test/nb/fixtures/models/nb-${v}`,
  ]),
  [
    '--schema',
    'test/fixtures/test.ovsschema',
    '--ovsdb-dir',
    'src/ovsdb',
    '--out',
    'test/transactions/fixtures/test-model',
  ],
  // The examples import the published entry point, from the schemas OVN installs.
  ...['port-group-watcher', 'tenant-network'].map((name) => [
    '--schema',
    '/usr/share/ovn/ovn-nb.ovsschema',
    '--out',
    `examples/${name}/model`,
  ]),
  ['--schema', '/usr/share/ovn/ovn-sb.ovsschema', '--out', 'examples/sb-agent/model'],
];

/** The output directory of generation arguments. */
export function outDirOf(args: readonly string[]): string {
  return args[args.indexOf('--out') + 1]!;
}

/**
 * `s` escaped for XML text and attribute values; with `refs`, its line
 * terminators (LF, CR, U+2028, U+2029) as character references, which
 * survive in attribute values.
 */
export function xmlEscape(s: string, refs = true): string {
  const escaped = s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
  return refs
    ? escaped.replace(/[\n\r\u2028\u2029]/g, (c) => `&#x${c.charCodeAt(0).toString(16)};`)
    : escaped;
}

/** Read a repository file. */
export function readRepo(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/**
 * A fresh scratch directory inside the repository, under `.tmp/` (git-ignored
 * and outside the `tsconfig.json` project, so a concurrent `tsc` never sees
 * half-written files); remove it with {@link removeDir}.
 */
export function scratchDir(prefix: string): string {
  const base = join(ROOT, '.tmp');
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, `${prefix}-`));
}

/** Remove a scratch directory. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The path of `abs` relative to the repository root, with `/` separators. */
export function repoRelative(abs: string): string {
  return relative(ROOT, abs).split('\\').join('/');
}

/** What a CLI run printed and returned. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run the CLI in this process, from the repository root. */
export async function cli(args: readonly string[], stderrIsTty = false): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    stderrIsTty,
    cwd: ROOT,
  });
  return { code, stdout, stderr };
}

/**
 * Run `codegen/cli.ts` as a child process (real exit status and streams), with
 * `ovnkit/ovsdb` resolved to the repository's sources (the `ovnkit-source`
 * export condition).
 */
export async function spawnCli(args: readonly string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--conditions=ovnkit-source', '--import', 'tsx', 'codegen/cli.ts', ...args],
      { cwd: ROOT, encoding: 'utf8' },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The fixture schema file names, sorted. */
export const SCHEMA_FILES = readdirSync(SCHEMAS)
  .filter((f) => f.endsWith('.ovsschema'))
  .sort();

/** The output directory of a fixture schema under `scratch`: `<scratch>/<schema file stem>`. */
export function fixtureOutDir(scratch: string, file: string): string {
  return join(scratch, file.replace(/\.ovsschema$/, ''));
}

/** What {@link generateFixtures} produced. */
export interface FixtureOutputs {
  /** Generated files per schema file. */
  readonly files: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Generation time per schema file, in ms. */
  readonly ms: ReadonlyMap<string, number>;
}

/**
 * Generate every fixture schema (NB ones with `ovn-nb.xml` docs, SB ones with
 * `ovn-sb.xml`, Open_vSwitch ones with `vswitch.xml`) into
 * `scratch` (a directory made by {@link scratchDir}),
 * importing the ovsdb layer from `src/ovsdb`.
 */
export function generateFixtures(scratch: string): FixtureOutputs {
  const docsFor = (file: string): string | undefined =>
    file.startsWith('ovn-nb-')
      ? readRepo('schema/ovn-nb.xml')
      : file.startsWith('ovn-sb')
        ? readRepo('schema/ovn-sb.xml')
        : file.startsWith('vswitch')
          ? readRepo('schema/vswitch.xml')
          : undefined;
  const files = new Map<string, ReadonlyMap<string, string>>();
  const ms = new Map<string, number>();
  const ovsdb = relative(fixtureOutDir(scratch, 'x'), join(ROOT, 'src/ovsdb'))
    .split('\\')
    .join('/');
  for (const file of SCHEMA_FILES) {
    const text = readFileSync(join(SCHEMAS, file), 'utf8');
    const started = performance.now();
    const out = generate({
      schema: text,
      docsXml: docsFor(file),
      ovsdbImport: {
        uuid: `${ovsdb}/values/uuid.js`,
        int64: `${ovsdb}/values/int64.js`,
        model: `${ovsdb}/schema/model.js`,
        schema: `${ovsdb}/schema/schema.js`,
      },
    });
    ms.set(file, performance.now() - started);
    files.set(file, out);
    writeGenerated(fixtureOutDir(scratch, file), out);
  }
  return { files, ms };
}

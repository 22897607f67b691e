/**
 * `@arethetypeswrong/cli` on the packed tarballs (`ovnkit` and
 * `ovnkit-codegen`) with the `esm-only` profile (both are ES-module-only
 * packages for Node ≥ 20 and bundlers).
 *
 * The profile ignores two resolution modes, and attw still lists their
 * findings (as "ignored"); they are expected, one per entry point:
 * - `NoResolution` under `node10`: the pre-`exports` resolution of
 *   `moduleResolution: node` cannot see subpath exports (`ovnkit/nb`, …) nor
 *   `exports`-only types; TypeScript projects must use `node16`/`nodenext`
 *   or `bundler`.
 * - `CJSResolvesToESM` under `node16-cjs`: a CommonJS module can load
 *   ovnkit only with `await import()`, as with any ES-only package.
 * Every other finding fails the test.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { type PackedInstall, packedInstall, REPO, runIn } from './packed.js';

interface Problem {
  kind: string;
  entrypoint?: string;
  resolutionKind?: string;
}

/** The findings the `esm-only` profile ignores (see the file's documentation). */
const IGNORED: Record<string, string> = {
  node10: 'NoResolution',
  'node16-cjs': 'CJSResolvesToESM',
};

let installed: PackedInstall;

beforeAll(async () => {
  installed = await packedInstall();
}, 300_000);

/** attw's report on `tarball` (attw exits non-zero, and this rejects, on a problem the profile does not ignore). */
async function attw(tarball: string) {
  const { stdout } = await runIn(
    REPO,
    process.execPath,
    [
      `${REPO}/node_modules/@arethetypeswrong/cli/dist/index.js`,
      tarball,
      '--profile',
      'esm-only',
      '--format',
      'json',
    ],
    90_000,
  );
  return JSON.parse(stdout) as {
    analysis: { entrypoints: Record<string, unknown>; problems: Problem[] };
  };
}

/** Only the expected ignored findings: exactly one of each kind per code entry point. */
function expectOnlyIgnored(entrypoints: readonly string[], problems: readonly Problem[]): void {
  const unexpected = problems.filter((p) => IGNORED[p.resolutionKind ?? ''] !== p.kind);
  expect(unexpected).toEqual([]);
  const code = entrypoints.filter((e) => e !== './package.json');
  for (const [resolutionKind, kind] of Object.entries(IGNORED)) {
    const hit = problems.filter((p) => p.resolutionKind === resolutionKind && p.kind === kind);
    expect(hit.map((p) => p.entrypoint).sort()).toEqual(code);
  }
}

it('attw --profile esm-only finds no problem in the ovnkit tarball', async () => {
  const report = await attw(installed.tarball);
  const entrypoints = Object.keys(report.analysis.entrypoints).sort();
  // attw analysed every entry point of the packed `exports`; the code generator is not one.
  const pkg = JSON.parse(
    readFileSync(join(installed.consumer, 'node_modules/ovnkit/package.json'), 'utf8'),
  ) as { exports: Record<string, unknown> };
  expect(entrypoints).toEqual(Object.keys(pkg.exports).sort());
  expect(entrypoints).toEqual(expect.arrayContaining(['.', './ovsdb', './nb', './package.json']));
  expect(entrypoints).not.toContain('./codegen');
  expectOnlyIgnored(entrypoints, report.analysis.problems);
}, 120_000);

it('attw --profile esm-only finds no problem in the ovnkit-codegen tarball', async () => {
  const report = await attw(installed.codegen.tarball);
  const entrypoints = Object.keys(report.analysis.entrypoints).sort();
  expect(entrypoints).toEqual(['.', './package.json']);
  expectOnlyIgnored(entrypoints, report.analysis.problems);
}, 120_000);

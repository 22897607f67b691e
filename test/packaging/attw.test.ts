/**
 * `@arethetypeswrong/cli` on the packed tarball with the `esm-only` profile
 * (ovnkit is an ES-module-only package for Node ≥ 20 and bundlers).
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

it('attw --profile esm-only finds no problem in the tarball', async () => {
  const { stdout } = await runIn(
    REPO,
    process.execPath,
    [
      `${REPO}/node_modules/@arethetypeswrong/cli/dist/index.js`,
      installed.tarball,
      '--profile',
      'esm-only',
      '--format',
      'json',
    ],
    90_000,
  );
  // attw exits non-zero (and runIn throws) on a problem the profile does not ignore.
  const report = JSON.parse(stdout) as {
    analysis: { entrypoints: Record<string, unknown>; problems: Problem[] };
  };
  const entrypoints = Object.keys(report.analysis.entrypoints).sort();
  expect(entrypoints).toEqual(
    [
      '.',
      './bridge',
      './browser',
      './codegen',
      './nb',
      './ovsdb',
      './package.json',
      './server',
      './testing',
      './transactions',
    ].sort(),
  );
  const problems = report.analysis.problems;
  const unexpected = problems.filter((p) => IGNORED[p.resolutionKind ?? ''] !== p.kind);
  expect(unexpected).toEqual([]);
  // The ignored findings are exactly one of each kind per code entry point.
  const code = entrypoints.filter((e) => e !== './package.json');
  for (const [resolutionKind, kind] of Object.entries(IGNORED)) {
    const hit = problems.filter((p) => p.resolutionKind === resolutionKind && p.kind === kind);
    expect(hit.map((p) => p.entrypoint).sort()).toEqual(code);
  }
}, 120_000);

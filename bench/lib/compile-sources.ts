/**
 * The compiled copy of ovnkit that the benchmarks measure (see
 * `compiled.mjs`): `src/` compiled file for file as `tsc` lays out `dist/`
 * (esbuild, types stripped, nothing bundled).
 * @module
 */

import { copyFileSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * Compile `root/src` into a new temporary directory (as `dir/src`, with the
 * package's `package.json` and a `node_modules` link beside it, so that the
 * compiled files resolve their dependencies and read the package version as
 * `dist/` does); returns the directory. The caller removes it.
 */
export async function compileSources(root: string): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'ovnkit-bench-js-'));
  const src = join(root, 'src');
  const entryPoints = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(src, f));
  await build({
    entryPoints,
    outdir: join(out, 'src'),
    outbase: src,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  copyFileSync(join(root, 'package.json'), join(out, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
  return out;
}

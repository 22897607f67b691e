/**
 * The benchmarks measure ovnkit as it ships: compiled JavaScript, not the
 * TypeScript sources through tsx (whose `keepNames` transform wraps every
 * function a hot path creates in a `__name(…)` call that the package never
 * makes). Loaded with `--import` before anything else, this module:
 *
 * - compiles `src/` once per run (`compile-sources.ts`), so that what is
 *   measured is the working tree and never a stale `dist/`;
 * - registers a resolve hook that sends every import of a file under
 *   `src/` (relative, or through the package's `ovnkit-source` condition)
 *   to its compiled file, so the harness, its workloads and their children
 *   keep importing `../../src/…` as before;
 * - hands the directory to child processes in `OVNKIT_BENCH_COMPILED` (they
 *   load this module too, see `benchNodeFlags` in `child.ts`, and reuse it);
 *   the process that compiled it removes it when it exits.
 *
 * `OVNKIT_BENCH_SOURCE=1` turns it off: the sources run through tsx.
 * @module
 */

import { rmSync } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

if (process.env['OVNKIT_BENCH_SOURCE'] !== '1') {
  let dir = process.env['OVNKIT_BENCH_COMPILED'];
  if (dir === undefined || dir === '') {
    // Loaded after tsx (`--import tsx` first), so the TypeScript module loads.
    const { compileSources } = await import('./compile-sources.ts');
    const made = await compileSources(ROOT);
    dir = made;
    process.env['OVNKIT_BENCH_COMPILED'] = made;
    process.on('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  register('./compiled-resolve.mjs', import.meta.url, {
    data: {
      src: pathToFileURL(join(ROOT, 'src')).href,
      out: pathToFileURL(join(dir, 'src')).href,
    },
  });
}

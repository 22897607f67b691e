/**
 * Bundle the browser example with esbuild: `node --import tsx examples/browser/build.ts [outdir]`
 * (inside this repository: `node --conditions=ovnkit-source --import tsx …`) writes `index.html` and `app.js` (default outdir: `examples/browser/dist`).
 * Then serve it with the bridge:
 *
 * ```sh
 * ovnkit bridge --listen ws://127.0.0.1:8080/ovsdb --remote unix:/var/run/ovn/ovnnb_db.sock \
 *   --token-file tokens --allow-db OVN_Northbound --read-only --static examples/browser/dist
 * # open http://127.0.0.1:8080/#token=<token>
 * ```
 */

import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The `--conditions` this process runs with (`node --conditions=ovnkit-source …`
 * inside the repository, where `ovnkit/browser` resolves to its sources).
 */
const NODE_CONDITIONS = process.execArgv.flatMap(
  (arg) => /^(?:--conditions|-C)=(.+)$/.exec(arg)?.[1] ?? [],
);

/**
 * Build the page into `outDir`. The bundle targets browsers (`platform:
 * 'browser'`), so any Node built-in reached from the page fails the build.
 * `conditions` are extra package export conditions esbuild resolves
 * `ovnkit/browser` with (default: this process's `--conditions`).
 */
export async function buildBrowserExample(
  outDir: string,
  conditions: readonly string[] = NODE_CONDITIONS,
): Promise<{ bytes: number }> {
  await mkdir(outDir, { recursive: true });
  const result = await build({
    entryPoints: [join(here, 'main.ts')],
    // esbuild's own conditions for the platform and format (browser, import) come after these.
    conditions: [...conditions],
    outfile: join(outDir, 'app.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    metafile: true,
    logLevel: 'silent',
  });
  await copyFile(join(here, 'index.html'), join(outDir, 'index.html'));
  const out = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith('app.js'));
  return { bytes: out?.[1].bytes ?? 0 };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? join(here, 'dist'));
  const { bytes } = await buildBrowserExample(outDir);
  console.log(`wrote ${join(outDir, 'app.js')} (${bytes} bytes) and index.html`);
}

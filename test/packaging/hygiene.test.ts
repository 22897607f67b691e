/**
 * Dependency hygiene of the packed package: `dependencies` holds only what
 * the shipped code imports, and importing `ovnkit` or `ovnkit/nb` loads
 * neither ts-morph nor TypeScript (only `ovnkit/codegen` needs them). The
 * module graph is read in a fresh Node process (`consumer/loaded-modules.mjs`):
 * ES modules through a resolve hook, CommonJS ones from the require cache.
 */

import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedInstall, packedInstall, REPO, runIn } from './packed.js';

let installed: PackedInstall;
/** The probe scripts, inside the consumer project so that `ovnkit` resolves to the install. */
let probe: string;

beforeAll(async () => {
  installed = await packedInstall();
  probe = mkdtempSync(join(installed.consumer, 'hygiene-'));
  for (const f of ['loaded-modules.mjs', 'resolve-hook.mjs']) {
    cpSync(join(REPO, 'test/packaging/consumer', f), join(probe, f));
  }
}, 300_000);

afterAll(() => {
  if (probe !== undefined) rmSync(probe, { recursive: true, force: true });
});

/** Package names of the `node_modules` files among `files` (paths or file: URLs). */
function packagesOf(files: readonly string[]): string[] {
  const names = new Set<string>();
  for (const f of files) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f);
    if (m) names.add(m[1]!);
  }
  return [...names].sort();
}

/** Every module file loaded by importing `specifiers` in a fresh process. */
async function loaded(...specifiers: string[]): Promise<string[]> {
  const { stdout } = await runIn(
    probe,
    process.execPath,
    ['loaded-modules.mjs', ...specifiers],
    60_000,
  );
  const { esm, cjs } = JSON.parse(stdout) as { esm: string[]; cjs: string[] };
  return [...esm, ...cjs];
}

describe('the module graph', () => {
  it('importing ovnkit and ovnkit/nb loads ws and zod, and no ts-morph or TypeScript', async () => {
    const files = await loaded('ovnkit', 'ovnkit/nb');
    // The entry points themselves came from the install.
    expect(files).toContain(
      `file://${installed.consumer}/node_modules/ovnkit/dist/src/nb/index.js`,
    );
    expect(packagesOf(files)).toEqual(['ovnkit', 'ws', 'zod']);
    expect(files.filter((f) => /typescript|ts-morph/.test(f))).toEqual([]);
  });

  it('importing ovnkit/codegen does load ts-morph (the check above can see it)', async () => {
    const names = packagesOf(await loaded('ovnkit/codegen'));
    expect(names).toContain('ts-morph');
    expect(names).toContain('@ts-morph/common');
  });
});

describe('dependencies', () => {
  /** Bare specifiers of `import`/`require` in the shipped JavaScript. */
  function importedPackages(): Set<string> {
    const root = join(installed.consumer, 'node_modules/ovnkit/dist');
    const out = new Set<string>();
    const visit = (p: string) => {
      if (statSync(p).isDirectory()) {
        for (const n of readdirSync(p)) visit(join(p, n));
        return;
      }
      if (!p.endsWith('.js')) return;
      // Comments hold usage examples (`import … from 'ovnkit/nb'`): drop them first.
      const code = readFileSync(p, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      const re = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\)?\(\s*|\)\(\s*)'([^'.][^']*)'/g;
      for (const m of code.matchAll(re)) {
        const spec = m[1]!;
        if (spec.startsWith('node:')) continue;
        out.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    };
    visit(root);
    return out;
  }

  it('are exactly the packages the shipped code imports', () => {
    const pkg = JSON.parse(
      readFileSync(join(installed.consumer, 'node_modules/ovnkit/package.json'), 'utf8'),
    ) as { dependencies?: Record<string, string> };
    const used = importedPackages();
    expect([...used].sort()).toEqual(Object.keys(pkg.dependencies ?? {}).sort());
  });
});

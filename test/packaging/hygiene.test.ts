/**
 * Dependency hygiene of the packed packages: `dependencies` (and, for
 * `ovnkit-codegen`, `peerDependencies`) hold only what the shipped code
 * imports; a runtime-only install of `ovnkit` holds neither TypeScript nor
 * ts-morph, and importing `ovnkit` or `ovnkit/nb` loads neither (only the
 * separate `ovnkit-codegen` package needs them). The module graph is read in a
 * fresh Node process (`consumer/loaded-modules.mjs`): ES modules through a
 * resolve hook, CommonJS ones from the require cache.
 */

import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedInstall, packedInstall, REPO, runIn } from './packed.js';

let installed: PackedInstall;
/** The probe scripts, inside each consumer project so that the packages resolve to the install. */
let probe: string;
let codegenProbe: string;

function probeDir(consumer: string): string {
  const dir = mkdtempSync(join(consumer, 'hygiene-'));
  for (const f of ['loaded-modules.mjs', 'resolve-hook.mjs']) {
    cpSync(join(REPO, 'test/packaging/consumer', f), join(dir, f));
  }
  return dir;
}

beforeAll(async () => {
  installed = await packedInstall();
  probe = probeDir(installed.consumer);
  codegenProbe = probeDir(installed.codegen.consumer);
}, 300_000);

afterAll(() => {
  for (const dir of [probe, codegenProbe]) {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
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

/** Every module file loaded by importing `specifiers` in a fresh process in `dir`. */
async function loaded(dir: string, ...specifiers: string[]): Promise<string[]> {
  const { stdout } = await runIn(
    dir,
    process.execPath,
    ['loaded-modules.mjs', ...specifiers],
    60_000,
  );
  const { esm, cjs } = JSON.parse(stdout) as { esm: string[]; cjs: string[] };
  return [...esm, ...cjs];
}

/** The packages installed in `consumer/node_modules` (scoped ones as `@scope/name`). */
function installedPackages(consumer: string): string[] {
  const root = join(consumer, 'node_modules');
  const names: string[] = [];
  for (const name of readdirSync(root)) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      for (const sub of readdirSync(join(root, name))) names.push(`${name}/${sub}`);
    } else names.push(name);
  }
  return names.sort();
}

describe('the module graph', () => {
  it('importing ovnkit and ovnkit/nb loads ws and zod, and no ts-morph or TypeScript', async () => {
    const files = await loaded(probe, 'ovnkit', 'ovnkit/nb');
    // The entry points themselves came from the install.
    expect(files).toContain(
      `file://${installed.consumer}/node_modules/ovnkit/dist/src/nb/index.js`,
    );
    expect(packagesOf(files)).toEqual(['ovnkit', 'ws', 'zod']);
    expect(files.filter((f) => /typescript|ts-morph/.test(f))).toEqual([]);
  });

  it('importing ovnkit-codegen does load ts-morph (the check above can see it), and the installed ovnkit', async () => {
    const files = await loaded(codegenProbe, 'ovnkit-codegen');
    const { consumer } = installed.codegen;
    expect(files).toContain(`file://${consumer}/node_modules/ovnkit-codegen/dist/index.js`);
    expect(files).toContain(`file://${consumer}/node_modules/ovnkit/dist/src/ovsdb/index.js`);
    const names = packagesOf(files);
    expect(names).toContain('ts-morph');
    expect(names).toContain('@ts-morph/common');
    expect(names).toContain('ovnkit');
    // Nothing from the repository.
    expect(files.filter((f) => f.includes(`${REPO}/`))).toEqual([]);
  });
});

describe('a runtime-only install of ovnkit', () => {
  it('has no TypeScript, no ts-morph and no code generator', () => {
    const nm = join(installed.consumer, 'node_modules');
    for (const absent of ['typescript', 'ts-morph', '@ts-morph', 'ovnkit-codegen']) {
      expect(existsSync(join(nm, absent)), absent).toBe(false);
    }
    expect(existsSync(join(nm, '.bin/ovnkit-codegen'))).toBe(false);
  });

  it('holds exactly ovnkit, its runtime dependencies and the consumer’s @types/node', () => {
    expect(installedPackages(installed.consumer)).toEqual([
      '@types/node',
      'ovnkit',
      'undici-types',
      'ws',
      'zod',
    ]);
  });
});

describe('dependencies', () => {
  /** Bare specifiers of `import`/`require` in the shipped JavaScript under `root`. */
  function importedPackages(root: string, skip?: string): Set<string> {
    const out = new Set<string>();
    const visit = (p: string) => {
      if (p === skip) return;
      if (statSync(p).isDirectory()) {
        for (const n of readdirSync(p)) visit(join(p, n));
        return;
      }
      if (!p.endsWith('.js')) return;
      // Comments hold usage examples (`import … from 'ovnkit/nb'`): drop them first.
      const code = readFileSync(p, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      // A package name starts with neither `.` nor `$` (`from '${x}'` in a template is text).
      const re = /(?:(?<![-\w])from\s*|\bimport\s*\(\s*|\brequire\)?\(\s*|\)\(\s*)'([^'.$][^']*)'/g;
      for (const m of code.matchAll(re)) {
        const spec = m[1]!;
        if (spec.startsWith('node:')) continue;
        out.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    };
    visit(root);
    return out;
  }

  interface Manifest {
    version: string;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  }
  const manifest = (dir: string): Manifest =>
    JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

  it('of ovnkit are exactly the packages the shipped code imports: ws and zod (prom-client and OTel optional peers, never imported; vitest an optional peer of ovnkit/testing/vitest alone)', () => {
    const dir = join(installed.consumer, 'node_modules/ovnkit');
    const pkg = manifest(dir);
    const vitestEntry = join(dir, 'dist/src/testing/vitest.js');
    const used = importedPackages(join(dir, 'dist'), vitestEntry);
    expect([...used].sort()).toEqual(Object.keys(pkg.dependencies ?? {}).sort());
    expect(Object.keys(pkg.dependencies ?? {}).sort()).toEqual(['ws', 'zod']);
    // vitest is imported by the vitest entry only.
    expect([...importedPackages(vitestEntry)]).toEqual(['vitest']);
    // prom-client and @opentelemetry/api are optional peers: the shipped code never imports them
    // (the caller passes the prom-client module and an OTel tracer); vitest is an optional
    // peer for `ovnkit/testing/vitest`, which a vitest user imports.
    expect(pkg.peerDependencies).toEqual({
      '@opentelemetry/api': '>=1.3.0 <2',
      'prom-client': '>=14 <16',
      vitest: '>=3 <5',
    });
    expect(pkg.peerDependenciesMeta).toEqual({
      '@opentelemetry/api': { optional: true },
      'prom-client': { optional: true },
      vitest: { optional: true },
    });
  });

  it('of ovnkit-codegen are exactly the packages its shipped code imports: ts-morph, and ovnkit as a peer', () => {
    const nm = join(installed.codegen.consumer, 'node_modules');
    const pkg = manifest(join(nm, 'ovnkit-codegen'));
    const used = importedPackages(join(nm, 'ovnkit-codegen/dist'));
    expect([...used].sort()).toEqual(['ovnkit', 'ts-morph']);
    expect(pkg.dependencies).toEqual({ 'ts-morph': '28.0.0' });
    // The peer range admits the ovnkit packed next to it.
    expect(pkg.peerDependencies).toEqual({ ovnkit: `^${manifest(join(nm, 'ovnkit')).version}` });
  });
});

describe('tarball contents', () => {
  it('ovnkit ships no code generator', () => {
    const paths = installed.pack.files.map((f) => f.path);
    expect(paths).toContain('dist/src/ovsdb/index.js');
    expect(paths.filter((p) => p.includes('codegen'))).toEqual([]);
  });

  it('ovnkit-codegen ships its built modules, its manifest and its README only', () => {
    const paths = installed.codegen.pack.files.map((f) => f.path).sort();
    expect(paths.filter((p) => !/^dist\/[a-z-]+\.(?:js|d\.ts)$/.test(p))).toEqual([
      'README.md',
      'package.json',
    ]);
    expect(paths).toEqual(
      expect.arrayContaining(['dist/cli.js', 'dist/index.d.ts', 'dist/index.js']),
    );
    // One declaration file per module.
    const js = paths.filter((p) => p.endsWith('.js'));
    expect(paths.filter((p) => p.endsWith('.d.ts'))).toEqual(
      js.map((p) => p.replace(/\.js$/, '.d.ts')).sort(),
    );
  });
});

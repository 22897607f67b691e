/**
 * The cost of ovnkit's declarations to a consumer that type-checks them
 * (`skipLibCheck: false`): no declaration file reachable from the packed
 * package's entry points refers to zod (an implementation detail, whose
 * types are costly to check), and a small consumer
 * (`consumer/small.ts.txt`: a client, the NB model, the DSL, validators)
 * type-checks without errors and without loading any of zod's files. Its
 * time and memory are printed next to a baseline (the same project with a
 * file that imports nothing of ovnkit), not asserted.
 */

import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedInstall, packedInstall, REPO, runIn, TSC } from './packed.js';

let installed: PackedInstall;
let pkgDir: string;
const dirs: string[] = [];

beforeAll(async () => {
  installed = await packedInstall();
  pkgDir = join(installed.consumer, 'node_modules/ovnkit');
}, 300_000);

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Module specifiers a declaration file refers to: imports, re-exports, `import()` types, references. */
function specifiers(text: string): { modules: string[]; paths: string[]; types: string[] } {
  const modules = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
  const paths = [...text.matchAll(/\/\/\/\s*<reference\s+path=['"]([^'"]+)['"]/g)].map(
    (m) => m[1]!,
  );
  const types = [...text.matchAll(/\/\/\/\s*<reference\s+types=['"]([^'"]+)['"]/g)].map(
    (m) => m[1]!,
  );
  return { modules, paths, types };
}

/** The declaration file a relative specifier of `from` names (`./x.js` → `./x.d.ts`). */
function resolveDeclaration(from: string, spec: string): string {
  const base = resolve(dirname(from), spec);
  for (const candidate of [
    base.replace(/\.js$/, '.d.ts'),
    base.replace(/\.mjs$/, '.d.mts'),
    `${base}.d.ts`,
    join(base, 'index.d.ts'),
    base,
  ]) {
    if (candidate.endsWith('.ts') && existsSync(candidate)) return candidate;
  }
  throw new Error(`${relative(pkgDir, from)}: cannot resolve ${spec}`);
}

/** The `types` of every entry point in the installed package's `exports`. */
function entryDeclarations(): string[] {
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types?: string }>;
  };
  return Object.values(pkg.exports)
    .flatMap((target) => (typeof target === 'string' ? [] : [target.types]))
    .filter((t): t is string => t !== undefined)
    .map((t) => join(pkgDir, t));
}

/**
 * Walk the declaration graph from the entry points: every reachable file,
 * and every package specifier (not relative) with the files that name it.
 */
function declarationGraph(): { files: Set<string>; external: Map<string, string[]> } {
  const files = new Set<string>();
  const external = new Map<string, string[]>();
  const queue = entryDeclarations();
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const { modules, paths, types } = specifiers(readFileSync(file, 'utf8'));
    for (const spec of [...modules, ...paths.map((p) => (p.startsWith('.') ? p : `./${p}`))]) {
      if (spec.startsWith('.')) queue.push(resolveDeclaration(file, spec));
      else external.set(spec, [...(external.get(spec) ?? []), relative(pkgDir, file)]);
    }
    for (const spec of types) {
      external.set(spec, [...(external.get(spec) ?? []), relative(pkgDir, file)]);
    }
  }
  return { files, external };
}

/** The package a specifier names: `zod/v4/core` → `zod`, `@types/ws` → `@types/ws`. */
function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

describe('the public declarations', () => {
  it('no declaration file reachable from the entry points refers to zod', () => {
    const { files, external } = declarationGraph();
    expect(files.size).toBeGreaterThan(50);
    const packages = [...new Set([...external.keys()].map(packageOf))].sort();
    console.log(
      `declarations: ${files.size} files reachable from ${entryDeclarations().length} entry points; packages named: ${packages.join(', ')}`,
    );
    const zod = [...external].filter(([spec]) => packageOf(spec) === 'zod');
    expect(zod).toEqual([]);
    // Nor any mention of it, in code or documentation.
    const mentions = [...files].filter((f) => /\bzod\b/.test(readFileSync(f, 'utf8')));
    expect(mentions.map((f) => relative(pkgDir, f))).toEqual([]);
  });
});

/**
 * `tsc --extendedDiagnostics` figures: `Memory used` (KiB), `Check time` and
 * `Total time` (s), and the counts of `Types` and `Instantiations` (which,
 * unlike times, do not depend on the machine's load).
 */
function diagnostics(out: string): {
  memoryKiB: number;
  checkS: number;
  totalS: number;
  types: number;
  instantiations: number;
} {
  const num = (label: string) => {
    const m = new RegExp(`^${label}:\\s+([0-9.]+)`, 'm').exec(out);
    if (m === null) throw new Error(`no ${label} in tsc output:\n${out}`);
    return Number(m[1]);
  };
  return {
    memoryKiB: num('Memory used'),
    checkS: num('Check time'),
    totalS: num('Total time'),
    types: num('Types'),
    instantiations: num('Instantiations'),
  };
}

/** Type-check `file` in a fresh project of the runtime consumer, without skipLibCheck. */
async function typeCheck(prefix: string, file: string, text?: string) {
  const dir = mkdtempSync(join(installed.consumer, prefix));
  dirs.push(dir);
  const name = file.replace(/\.txt$/, '');
  if (text === undefined) cpSync(join(REPO, 'test/packaging/consumer', file), join(dir, name));
  else writeFileSync(join(dir, name), text);
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
    },
    files: [name],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const started = performance.now();
  // Errors fail the run (tsc exits non-zero).
  const { stdout } = await runIn(
    dir,
    process.execPath,
    [TSC, '-p', '.', '--extendedDiagnostics', '--listFiles'],
    300_000,
  );
  const wallMs = performance.now() - started;
  const files = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('/'));
  return { wallMs, files, ...diagnostics(stdout) };
}

describe('a consumer type-checking the declarations (skipLibCheck: false)', () => {
  it('type-checks a small consumer without loading zod; time and memory printed', async () => {
    const baseline = await typeCheck('tsc-baseline-', 'baseline.ts', "import 'node:fs';\n");
    const small = await typeCheck('tsc-small-', 'small.ts.txt');
    const ovnkitFiles = small.files.filter((f) => f.includes('/node_modules/ovnkit/'));
    expect(ovnkitFiles.length).toBeGreaterThan(20);
    expect(small.files.filter((f) => f.includes('/node_modules/zod/'))).toEqual([]);
    const line = (what: string, r: typeof small) =>
      `${what.padEnd(22)} ${String(r.files.length).padStart(4)} files, check ${r.checkS.toFixed(2)} s, total ${r.totalS.toFixed(2)} s (wall ${(r.wallMs / 1000).toFixed(2)} s), memory ${(r.memoryKiB / 1024).toFixed(0)} MiB, ${r.types} types, ${r.instantiations} instantiations`;
    console.log(
      [
        'tsc --noEmit, skipLibCheck false (lib checks included):',
        line('baseline (node only)', baseline),
        line('small consumer', small),
        `ovnkit's share: ${ovnkitFiles.length} declaration files, +${(small.totalS - baseline.totalS).toFixed(2)} s, +${((small.memoryKiB - baseline.memoryKiB) / 1024).toFixed(0)} MiB, +${small.types - baseline.types} types, +${small.instantiations - baseline.instantiations} instantiations`,
      ].join('\n'),
    );
  }, 600_000);
});

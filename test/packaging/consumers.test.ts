/**
 * The packed packages from a consumer's side: TypeScript projects with
 * `nodenext` and `bundler` resolution type-check real usage of every entry
 * point of `ovnkit` (`consumer/usage.ts.txt`) and of the `ovnkit-codegen` API
 * (`consumer/codegen-usage.ts.txt`, in the codegen consumer), and a plain
 * JavaScript ES module runs a transaction against a real ovsdb-server and
 * against the in-memory server, and a `node:test` file runs a controller
 * test on the test kit (`ovnkit/testing`, no vitest).
 */

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';
import { fromRepository, type PackedInstall, packedInstall, REPO, runIn, TSC } from './packed.js';

const FIXTURES = join(REPO, 'test/packaging/consumer');

let installed: PackedInstall;
const dirs: string[] = [];

/**
 * A fresh directory inside a consumer project (the runtime one by default)
 * holding `files` from `consumer/` (a `.txt` suffix is dropped: `usage.ts.txt`
 * becomes `usage.ts`; inside the repository, `ovnkit` would resolve to the
 * repository itself).
 */
function project(prefix: string, files: readonly string[], consumer = installed.consumer): string {
  const dir = mkdtempSync(join(consumer, prefix));
  dirs.push(dir);
  for (const f of files) cpSync(join(FIXTURES, f), join(dir, f.replace(/\.txt$/, '')));
  return dir;
}

beforeAll(async () => {
  installed = await packedInstall();
}, 300_000);

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * Type-check `file` (`usage.ts.txt` by default, in the runtime consumer) with
 * these compiler options; resolves with tsc's output.
 */
async function typeCheck(
  prefix: string,
  options: Record<string, unknown>,
  file = 'usage.ts.txt',
  consumer = installed.consumer,
) {
  const dir = project(prefix, [file], consumer);
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      strict: true,
      noEmit: true,
      types: ['node'],
      ...options,
    },
    files: [file.replace(/\.txt$/, '')],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  // `--listFiles` prints the files of the program after checking it; errors fail the run.
  const { stdout } = await runIn(dir, process.execPath, [TSC, '-p', '.', '--listFiles']);
  return stdout;
}

describe('TypeScript consumers', () => {
  // Both at once: each is one tsc process.
  let nodenext: Promise<string>;
  let bundler: Promise<string>;
  beforeAll(() => {
    nodenext = typeCheck('ts-nodenext-', {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      // A strict consumer: what the package's types must hold up to.
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
    });
    bundler = typeCheck('ts-bundler-', {
      module: 'esnext',
      moduleResolution: 'bundler',
      skipLibCheck: true,
    });
    // Unhandled until awaited in a test; a rejection is reported there.
    nodenext.catch(() => undefined);
    bundler.catch(() => undefined);
  });

  for (const [name, result] of [
    ['nodenext', () => nodenext],
    ['bundler', () => bundler],
  ] as const) {
    it(`${name}: every entry point resolves to the packed declarations and type-checks`, async () => {
      const files = (await result()).split('\n').map((l) => l.trim());
      // Every entry point's declarations (the `types` of each packed `exports` entry) came
      // from the installed tarball, none from the repository.
      const entries = packedTypes();
      expect(entries).toEqual(
        expect.arrayContaining(['dist/src/index.d.ts', 'dist/src/ovsdb/index.d.ts']),
      );
      expect(entries.length).toBeGreaterThanOrEqual(9);
      for (const entry of entries) {
        expect(files).toContain(join(installed.consumer, 'node_modules/ovnkit', entry));
      }
      expect(fromRepository(files)).toEqual([]);
    }, 120_000);
  }
});

/** The `types` file of every entry point in the installed ovnkit's `exports` (package-relative). */
function packedTypes(): string[] {
  const pkg = JSON.parse(
    readFileSync(join(installed.consumer, 'node_modules/ovnkit/package.json'), 'utf8'),
  ) as { exports: Record<string, string | { types?: string }> };
  return Object.values(pkg.exports)
    .flatMap((target) => (typeof target === 'string' ? [] : [target.types]))
    .filter((t): t is string => t !== undefined)
    .map((t) => t.replace(/^\.\//, ''));
}

describe('a TypeScript consumer of ovnkit-codegen', () => {
  it('nodenext: the API resolves to the packed declarations of both packages and type-checks', async () => {
    const { consumer } = installed.codegen;
    const out = await typeCheck(
      'ts-codegen-',
      {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        verbatimModuleSyntax: true,
        skipLibCheck: true,
      },
      'codegen-usage.ts.txt',
      consumer,
    );
    const files = out.split('\n').map((l) => l.trim());
    for (const entry of [
      'ovnkit-codegen/dist/index.d.ts',
      'ovnkit/dist/src/ovsdb/index.d.ts',
      'ovnkit/dist/src/nb/index.d.ts',
    ]) {
      expect(files).toContain(join(consumer, 'node_modules', entry));
    }
    expect(fromRepository(files)).toEqual([]);
  }, 120_000);
});

describe('a JavaScript ES module consumer', () => {
  for (const kind of ['real', 'memory'] as const) {
    it(`commits an NB transaction on ${kind === 'real' ? 'ovsdb-server' : 'the in-memory server'} and reads it back`, async () => {
      if (kind === 'real') requireOvsdbServer();
      const dir = project(`js-${kind}-`, ['transact.mjs']);
      const { stdout } = await runIn(dir, process.execPath, ['transact.mjs', kind], 60_000);
      const out = JSON.parse(stdout) as {
        port: string;
        rows: { _uuid: [string, string]; name: string }[];
        dbs: string[];
      };
      expect(out.port).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(out.rows).toEqual([{ _uuid: ['uuid', out.port], name: 'sw0-p1' }]);
      expect(out.dbs).toEqual(['OVN_Northbound', '_Server']);
    }, 60_000);
  }
});

describe('a node:test consumer of the test kit', () => {
  it('seeds a database, resumes a dropped client and asserts state and transactions', async () => {
    const dir = project('js-testkit-', ['testkit.mjs']);
    const { stdout } = await runIn(dir, process.execPath, ['--test', 'testkit.mjs'], 60_000);
    expect(stdout).toMatch(/^# pass 1$/m);
    expect(stdout).toMatch(/^# fail 0$/m);
  }, 60_000);
});

/**
 * The pod-allocation example (the pod controller and its node pools) as a
 * user copies it: its files alone, in a project that installed the packed
 * `ovnkit` tarball (and the packages the example imports besides), compiled
 * by TypeScript with `"strict": true` and no other checking option (so not
 * `exactOptionalPropertyTypes`), every `ovnkit/…` import resolving to the
 * packed declarations; the compiled demo then runs on the package's
 * in-memory server.
 */

import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRepository, type PackedInstall, packedInstall, REPO, runIn, TSC } from './packed.js';

let installed: PackedInstall;
let dir: string;

beforeAll(async () => {
  installed = await packedInstall();
  dir = mkdtempSync(join(installed.examplesConsumer, 'pod-allocation-'));
  cpSync(join(REPO, 'examples/pod-allocation'), dir, { recursive: true });
}, 300_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('examples/pod-allocation against the packed package', () => {
  it('compiles in a strict consumer, on the packed declarations only, and its demo runs', async () => {
    const tsconfig = {
      compilerOptions: {
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        types: ['node'],
        rootDir: '.',
        outDir: 'out',
      },
      include: ['**/*.ts'],
      exclude: ['out'],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    // `--listFiles` prints the program's files after checking it; an error fails the run.
    const { stdout } = await runIn(dir, process.execPath, [TSC, '-p', '.', '--listFiles'], 180_000);
    const files = stdout.split('\n').map((l) => l.trim());
    const pkg = join(installed.examplesConsumer, 'node_modules/ovnkit/dist/src');
    for (const entry of ['client', 'desired', 'nb', 'ovsdb', 'testing', 'server']) {
      expect(files).toContain(join(pkg, entry, 'index.d.ts'));
    }
    expect(files).toContain(join(dir, 'controller/controller.ts'));
    expect(files).toContain(join(dir, 'pools/reconciler.ts'));
    expect(fromRepository(files)).toEqual([]);

    // The demo reads its pods and nodes next to itself.
    for (const f of ['pods.json', 'nodes.json']) cpSync(join(dir, f), join(dir, 'out', f));
    const run = await runIn(dir, process.execPath, ['out/demo.js'], 120_000);
    expect(run.stdout).toContain('pods: 49 (ready 37, failed 7, deleted 5)');
    expect(run.stdout).toContain('(in-memory server)');
  }, 300_000);
});

/**
 * Every file under `examples/` runs in the test suite. Each example has an
 * entry point that some test executes:
 *
 * - `examples/pod-allocation/demo.ts`: `test/examples/pod-allocation/demo.test.ts`
 *   (`runDemo` on both servers, and `npm run demo` in a child process);
 * - `examples/pod-allocation/bench.ts`: its CLI, here, against a real ovsdb-server;
 * - `examples/pod-allocation/main.ts` (the controller process):
 *   `test/hostile/pod-controller-files.test.ts` (spawned, its watched files swapped);
 * - `examples/browser/build.ts` (bundles `main.ts`): `test/bridge/browser.test.ts`
 *   (the page in headless Chromium);
 * - `examples/tenant-network/main.ts`: `test/examples/tenant-network.test.ts`
 *   (its CLI in a child process, on ovsdb-server and on the in-memory server,
 *   with ovn-northd);
 * - `examples/port-group-watcher/main.ts`: `test/examples/port-group-watcher.test.ts`
 *   (its CLI in a child process while ovn-nbctl changes ports, on both servers);
 * - `examples/sb-agent/main.ts`: `test/examples/sb-agent.test.ts` (its CLI in a
 *   child process on SB, with ovn-northd, on both servers);
 * - `examples/desired-state/main.ts`: `test/examples/desired-state.test.ts`
 *   (its CLI in a child process, on both servers and on its own in-memory one).
 *
 * The first test checks that every other `.ts` file under `examples/` is
 * imported, directly or not, by one of those entry points or by a test file,
 * so a new example file cannot sit there untested.
 */

import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { requireOvsdbServer } from '../../src/testing/index.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const EXAMPLES = join(ROOT, 'examples');
const run = promisify(execFile);

/** Entry points, each executed by the test named in the module docs. */
const ENTRIES = [
  'pod-allocation/demo.ts',
  'pod-allocation/bench.ts',
  'pod-allocation/main.ts',
  'browser/build.ts',
  // Bundled by build.ts (esbuild entry point), not imported by it.
  'browser/main.ts',
  'tenant-network/main.ts',
  'port-group-watcher/main.ts',
  'sb-agent/main.ts',
  'desired-state/main.ts',
].map((p) => join(EXAMPLES, p));

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Relative imports of a file (static and dynamic), resolved to `.ts` paths. */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map(
    (m) => m[1] as string,
  );
  return specs.map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
}

function closure(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  // The test files themselves run too: what they import from examples/ runs.
  const tests = tsFiles(join(ROOT, 'test')).filter((f) =>
    readFileSync(f, 'utf8').includes('examples/'),
  );
  const todo = [...entries, ...tests.flatMap(relativeImports)];
  while (todo.length > 0) {
    const file = todo.pop() as string;
    if (seen.has(file) || !file.startsWith(EXAMPLES)) continue;
    seen.add(file);
    todo.push(...relativeImports(file));
  }
  return seen;
}

describe('examples', () => {
  it('every .ts file under examples/ is reachable from an entry point or a test', () => {
    const files = tsFiles(EXAMPLES);
    expect(files.length).toBeGreaterThan(10);
    const reached = closure(ENTRIES);
    const orphans = files.filter((f) => !reached.has(f)).map((f) => relative(ROOT, f));
    expect(orphans).toEqual([]);
  });

  it('the pod controller benchmark CLI reconciles pods against a real ovsdb-server', async () => {
    requireOvsdbServer();
    const { stdout } = await run(
      process.execPath,
      [
        '--conditions=ovnkit-source',
        '--import',
        'tsx',
        join(EXAMPLES, 'pod-allocation/bench.ts'),
        '--pods',
        '60',
      ],
      { cwd: ROOT, timeout: 60_000 },
    );
    const m = /^(\d+) pods in ([\d.]+) s: (\d+) pods\/s \(concurrency 16, ovsdb-server\)/m.exec(
      stdout,
    );
    expect(m, stdout).not.toBeNull();
    expect(Number(m?.[1])).toBe(60);
    expect(Number(m?.[3])).toBeGreaterThan(0);
  }, 90_000);
});

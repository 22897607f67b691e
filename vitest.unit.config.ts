/**
 * `npm run test:unit`: the tests that need no Open vSwitch, no OVN and no
 * browser: every test file whose imports (followed through the tests'
 * helpers and `src/`) reach neither the real-server harness
 * (`src/testing/ovs-tools.ts`) nor a test file that runs an Open vSwitch,
 * OVN, Chromium or Python program itself.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { closure, importGraph, ROOT } from './test/helpers/import-graph.js';
import base from './vitest.config.js';

const HARNESS = 'src/testing/ovs-tools.ts';
const PROGRAMS =
  /\b(ovsdb-server|ovsdb-client|ovsdb-tool|ovs-appctl|ovs-pki|ovn-nbctl|ovn-sbctl|ovn-northd|ovn-trace|chromium|python3)\b/;

const graph = importGraph(['src', 'codegen', 'test', 'examples', 'bench']);

function needsPrograms(file: string): boolean {
  for (const f of closure(graph, file)) {
    if (f === HARNESS) return true;
    if (!f.startsWith('src/') && PROGRAMS.test(readFileSync(join(ROOT, f), 'utf8'))) return true;
  }
  return false;
}

/** The unit test files, relative to the repository root. */
export const UNIT_TESTS = [...graph.keys()].filter(
  (f) => f.startsWith('test/') && f.endsWith('.test.ts') && !needsPrograms(f),
);

// Not mergeConfig: it would concatenate `include` with the base config's.
export default defineConfig({
  ...base,
  test: { ...base.test, include: UNIT_TESTS, typecheck: { enabled: false } },
});

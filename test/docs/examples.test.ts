/**
 * The `@example` code of the doc comments compiles: every fenced block
 * under an `@example` tag in `src/` and `codegen/` is type-checked as a
 * module of its own that imports the package by its public names. The main
 * entry points must carry one.
 */

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allExamples, checkExamples, type DocExample, examplesOf, REPO } from './doc-examples.js';

/** Inside the repository (so that `node_modules` resolves), one directory per process. */
const OUT = join(REPO, '.tmp/doc-examples', String(process.pid));

afterAll(() => rmSync(OUT, { recursive: true, force: true }));

/** The entry points that must show their use: [file, documented symbol]. */
const REQUIRED: readonly (readonly [string, string])[] = [
  ['src/ovsdb/connection/connect.ts', 'connect'],
  ['src/client/open.ts', 'openDatabase'],
  ['src/nb/nb.ts', 'createNb'],
  ['src/nb/connect.ts', 'connectNb'],
  ['codegen/generate.ts', 'generate'],
  ['src/server/server.ts', 'createServer'],
  ['src/testing/test-database.ts', 'createTestDatabase'],
  ['src/testing/ovsdb-server.ts', 'startOvsdbServer'],
  ['src/testing/memory-server.ts', 'startMemoryServer'],
  ['src/testing/kit/database.ts', 'seedDatabase'],
  ['src/testing/kit/cluster.ts', 'createTestCluster'],
  ['src/testing/kit/ovn.ts', 'startOvn'],
  ['src/testing/kit/seed.ts', 'invalidRow'],
];

describe('doc comment examples', () => {
  const examples = allExamples();

  it('the main entry points carry an @example', () => {
    const have = new Set(examples.map((e) => `${e.file} ${e.symbol}`));
    expect(REQUIRED.filter(([f, s]) => !have.has(`${f} ${s}`))).toEqual([]);
  });

  it('every @example type-checks against the sources', () => {
    expect(examples.length).toBeGreaterThanOrEqual(REQUIRED.length);
    const errors = checkExamples(examples, join(OUT, 'all'));
    expect(errors.map((e) => e.message)).toEqual([]);
  }, 120_000);

  it('a broken example is reported with its file, line and symbol', () => {
    const source = [
      "import { parseSchema } from 'ovnkit/ovsdb';",
      '/**',
      ' * Parse.',
      ' * @example',
      ' * ```ts',
      " * import { parseSchema } from 'ovnkit/ovsdb';",
      ' * const n: number = parseSchema({});',
      ' * ```',
      ' */',
      'export function broken(): void {}',
      '',
    ].join('\n');
    const found: DocExample[] = examplesOf(join(REPO, 'src/broken.ts'), source);
    expect(found).toEqual([
      {
        file: 'src/broken.ts',
        line: 6,
        symbol: 'broken',
        code: "import { parseSchema } from 'ovnkit/ovsdb';\nconst n: number = parseSchema({});\n",
      },
    ]);
    const errors = checkExamples(found, join(OUT, 'broken'));
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(
        /^src\/broken\.ts:7 broken @example: TS2322 Type 'DatabaseSchema' is not assignable to type 'number'/,
      ),
    ]);
  }, 120_000);
});

import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fixtureOutDir,
  generateFixtures,
  ROOT,
  removeDir,
  SCHEMA_FILES,
  scratchDir,
} from './helpers.js';

const run = promisify(execFile);
const scratch = scratchDir('codegen-typecheck');
let fileCount = 0;
beforeAll(() => {
  const { files } = generateFixtures(scratch);
  fileCount = [...files.values()].reduce((n, f) => n + f.size, 0);
});
afterAll(() => removeDir(scratch));

/** Run a Node script; resolve to its combined output, and whether it failed. */
async function node(args: readonly string[]): Promise<{ output: string; failed: boolean }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...args], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    return { output: `${stdout}${stderr}`, failed: false };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { output: `${e.stdout ?? ''}${e.stderr ?? String(err)}`, failed: true };
  }
}

describe('output for all 13 fixture schemas', () => {
  it('type-checks (one tsc run over all 13, the repository’s strict settings)', async () => {
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        extends: join(ROOT, 'tsconfig.json'),
        compilerOptions: { declaration: false, declarationMap: false, sourceMap: false },
        include: ['./**/*.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const result = await node([tsc, '-p', join(scratch, 'tsconfig.json')]);
    expect(result.output).toBe('');
    expect(result.failed).toBe(false);
  }, 120_000);

  it('is formatted and lint-clean for Biome with the repository config', async () => {
    const biome = join(ROOT, 'node_modules/@biomejs/biome/bin/biome');
    const dirs = SCHEMA_FILES.map((f) => fixtureOutDir(scratch, f));
    const result = await node([biome, 'check', '--reporter=summary', ...dirs]);
    expect(result.failed, result.output).toBe(false);
    expect(result.output).toContain(`Checked ${fileCount} files`);
  }, 60_000);
});

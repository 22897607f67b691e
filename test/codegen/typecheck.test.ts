import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Project } from 'ts-morph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMAT_SETTINGS } from '../../codegen/emit.js';
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
let outputs: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map();
let fileCount = 0;
beforeAll(() => {
  outputs = generateFixtures(scratch).files;
  fileCount = [...outputs.values()].reduce((n, f) => n + f.size, 0);
});
afterAll(() => removeDir(scratch));

/** Run a Node script in `cwd`; resolve to its combined output, and whether it failed. */
async function node(
  args: readonly string[],
  cwd: string = ROOT,
): Promise<{ output: string; failed: boolean }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...args], {
      cwd,
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

  it('passes Biome’s linter and import organizer with the repository config', async () => {
    // Generated code is laid out by the TypeScript formatter, not Biome's: the repository's
    // config turns Biome's formatter off for generated directories with an override, and so
    // does this config (the repository's, extended) for the scratch directory.
    writeFileSync(
      join(scratch, 'biome.json'),
      JSON.stringify({
        extends: [join(ROOT, 'biome.json')],
        files: { includes: ['**/*.ts'] },
        overrides: [{ includes: ['**'], formatter: { enabled: false } }],
      }),
    );
    const biome = join(ROOT, 'node_modules/@biomejs/biome/bin/biome');
    const dirs = SCHEMA_FILES.map((f) => fixtureOutDir(scratch, f));
    const result = await node([biome, 'check', '--reporter=summary', ...dirs], scratch);
    expect(result.failed, result.output).toBe(false);
    expect(result.output).toContain(`Checked ${fileCount} files`);
  }, 60_000);

  it('is formatted: the TypeScript formatter leaves every file as it is', () => {
    const project = new Project({ useInMemoryFileSystem: true, skipLoadingLibFiles: true });
    let checked = 0;
    for (const [schema, files] of outputs) {
      for (const [name, text] of files) {
        const file = project.createSourceFile(`/${schema}/${name}`, text);
        file.formatText(FORMAT_SETTINGS);
        expect(file.getFullText() === text, `${schema}: ${name}`).toBe(true);
        expect(text).not.toMatch(/[ \t]$/m);
        expect(text).not.toMatch(/\n\n\n/);
        expect(text.endsWith('}\n') || text.endsWith(';\n')).toBe(true);
        project.removeSourceFile(file);
        checked++;
      }
    }
    expect(checked).toBe(fileCount);
  }, 60_000);
});

import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { Project } from 'ts-morph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMAT_SETTINGS } from '../../codegen/emit.js';
import { topologyFor } from '../nb/helpers/matrix-program.js';
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

/**
 * Type assertions on the generated vswitch and NB models, type-checked with
 * them: which integer columns are 64-bit (`Int64`) and which stay `number`.
 */
function int64Assertions(): string {
  const int64 = relative(scratch, join(ROOT, 'src/ovsdb/values/int64.js')).split('\\').join('/');
  return `import type { Int64 } from '${int64}';
import type { Acl, AclInsert, NbGlobal, NbGlobalInsert } from './ovn-nb-7.18.0/index.js';
import type { Interface, InterfaceInsert, InterfaceUpdate } from './vswitch/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export const statistics: Equal<Interface['statistics'], Readonly<Record<string, Int64>>> = true;
export const statisticsValue: Equal<Interface['statistics'][string], Int64> = true;
export const ofport: Equal<Interface['ofport'], Int64 | null> = true;
export const ofportRequest: Equal<Interface['ofport_request'], number | null> = true;
export const nbCfg: Equal<NbGlobal['nb_cfg'], Int64> = true;
export const priority: Equal<Acl['priority'], number> = true;

export const insert: InterfaceInsert = {
  name: 'eth0',
  statistics: { rx_bytes: 9223372036854775807n, tx_bytes: 1 },
};
export const update: InterfaceUpdate = { ofport_request: 1 };
export const nb: NbGlobalInsert = { nb_cfg: 1n };
export const acl: AclInsert = { action: 'drop', direction: 'to-lport', priority: 1 };

// @ts-expect-error ofport_request is bounded to 1..65279: a number, not a bigint
export const badUpdate: InterfaceUpdate = { ofport_request: 1n };
// @ts-expect-error ACL.priority is bounded to 0..32767: a number, not a bigint
export const badAcl: AclInsert = { action: 'drop', direction: 'to-lport', priority: 1n };
// @ts-expect-error ACL.action is required: its default "" is not an ACL action
export const noAction: AclInsert = { direction: 'to-lport', priority: 1 };
// @ts-expect-error a string is not an integer
export const badStatistics: InterfaceInsert = { statistics: { rx_bytes: '1' } };
`;
}

describe('output for all 15 fixture schemas', () => {
  it('type-checks (one tsc run over all 15, the repository’s strict settings)', async () => {
    writeFileSync(join(scratch, 'int64-assertions.ts'), int64Assertions());
    // The NB version matrix's program, typed by each NB model (test/nb/version-matrix.test.ts
    // runs it): the same DSL text compiles with every NB schema from 6.1.0.
    for (const file of SCHEMA_FILES.filter((f) => f.startsWith('ovn-nb-'))) {
      const stem = file.replace(/\.ovsschema$/, '');
      writeFileSync(join(scratch, `matrix-${stem}.ts`), topologyFor(scratch, `./${stem}/index.js`));
    }
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

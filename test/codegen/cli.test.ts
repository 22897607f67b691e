import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, removeDir, repoRelative, scratchDir, spawnCli } from './helpers.js';

const scratch = scratchDir('codegen-cli');
afterAll(() => removeDir(scratch));

/** A copy of the _Server schema with one member broken by `edit`. */
function brokenSchema(name: string, edit: (json: Record<string, unknown>) => void): string {
  const json = JSON.parse(readFileSync('schema/_server.ovsschema', 'utf8')) as Record<
    string,
    unknown
  >;
  edit(json);
  const path = join(scratch, name);
  writeFileSync(path, JSON.stringify(json));
  return repoRelative(path);
}

describe('invalid input', () => {
  it('an invalid schema exits 1 with the path-precise SchemaError and no stack trace', async () => {
    const schema = brokenSchema('bad-max.ovsschema', (json) => {
      const tables = json['tables'] as Record<string, { columns: Record<string, unknown> }>;
      tables['Database']!.columns['index'] = {
        type: { key: { type: 'integer', minInteger: 10, maxInteger: 1 }, min: 0, max: 1 },
      };
    });
    const out = repoRelative(join(scratch, 'never-written'));
    const r = await spawnCli(['--schema', schema, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `ovnkit-codegen: invalid schema in ${schema}: tables.Database.columns.index.type.key.maxInteger: minInteger 10 exceeds maxInteger 1\n`,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(scratch, 'never-written'))).toBe(false);
  });

  it('reports a reference to a missing table by its path', async () => {
    const schema = brokenSchema('bad-ref.ovsschema', (json) => {
      const tables = json['tables'] as Record<string, { columns: Record<string, unknown> }>;
      tables['Database']!.columns['owner'] = {
        type: { key: { type: 'uuid', refTable: 'Nope' } },
      };
    });
    const r = await cli(['--schema', schema, '--out', repoRelative(join(scratch, 'x'))]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'tables.Database.columns.owner.type.key.refTable: no table named Nope',
    );
  });

  it('a file that is not JSON is a SchemaError too', async () => {
    const path = join(scratch, 'not-json.ovsschema');
    writeFileSync(path, '{"name": ');
    const r = await cli([
      '--schema',
      repoRelative(path),
      '--out',
      repoRelative(join(scratch, 'x')),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/invalid schema in .*not-json\.ovsschema: not valid JSON: /);
  });

  it('a missing schema file is named', async () => {
    const r = await cli(['--schema', 'no/such.ovsschema', '--out', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot read schema file .*no\/such\.ovsschema: no such file/);
  });

  it('malformed docs XML is reported with line and column', async () => {
    const xml = join(scratch, 'bad.xml');
    writeFileSync(xml, '<database>\n  <table name="Database">\n    <p>x</table>\n</database>\n');
    const r = await cli([
      '--schema',
      'schema/_server.ovsschema',
      '--docs',
      repoRelative(xml),
      '--out',
      repoRelative(join(scratch, 'x')),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('invalid docs XML in');
    expect(r.stderr).toContain('line 3, column 9: </table> closes <p>');
  });

  it('reads at most 16 MiB of a schema and 8 MiB of docs: /dev/zero and a 9 MiB file are refused by name', async () => {
    const zero = await cli(['--schema', '/dev/zero', '--out', 'x']);
    expect(zero.stderr).toBe(
      'ovnkit-codegen: schema file /dev/zero is larger than 16 MiB, the most ovnkit-codegen reads\n',
    );
    expect(zero.code).toBe(1);
    const xml = join(scratch, 'big.xml');
    writeFileSync(xml, `<database>${' '.repeat(9 * 1024 * 1024)}</database>`);
    const big = await cli([
      '--schema',
      'schema/_server.ovsschema',
      '--docs',
      repoRelative(xml),
      '--out',
      'x',
    ]);
    expect(big.stderr).toBe(
      `ovnkit-codegen: docs file ${join(scratch, 'big.xml')} is larger than 8 MiB, the most ovnkit-codegen reads\n`,
    );
    expect(big.code).toBe(1);
  });

  it('docs XML nested 100,000 deep: a clear error naming the file and the depth limit (child process)', async () => {
    const xml = join(scratch, 'deep.xml');
    writeFileSync(xml, `<database>${'<p>'.repeat(100_000)}x${'</p>'.repeat(100_000)}</database>`);
    const out = join(scratch, 'deep-out');
    const r = await spawnCli([
      '--schema',
      'schema/_server.ovsschema',
      '--docs',
      repoRelative(xml),
      '--out',
      repoRelative(out),
    ]);
    expect(r.stderr).toBe(
      `ovnkit-codegen: invalid docs XML in ${repoRelative(xml)}: line 1, column 776: ` +
        'elements nest deeper than 256 levels (the limit)\n',
    );
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });
});

describe('usage', () => {
  it('--help prints the usage and exits 0', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ovnkit-codegen --schema FILE --out DIR');
    expect(r.stdout).toContain('--check');
  });

  it.each([
    [['--out', 'x'], 'give --schema FILE or --remote REMOTE --db NAME'],
    [
      ['--schema', 'a', '--remote', 'unix:/x', '--db', 'D', '--out', 'x'],
      'cannot be used together',
    ],
    [['--remote', 'unix:/x', '--out', 'x'], '--remote needs --db NAME'],
    [['--schema', 'a'], '--out DIR is required'],
    [['--schema', 'a', '--out', 'x', '--bogus'], "Unknown option '--bogus'"],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

describe('generation', () => {
  it('prints one progress line per table when stderr is a terminal', async () => {
    const out = repoRelative(join(scratch, 'progress'));
    const r = await cli(
      ['--schema', 'test/fixtures/schemas/vswitch.ovsschema', '--out', out],
      true,
    );
    expect(r.code).toBe(0);
    const progress = r.stderr.split('\n').filter((l) => /^\[\s*\d+\/19\] /.test(l));
    expect(progress).toHaveLength(19);
    expect(progress[0]).toBe('[ 1/19] AutoAttach');
    expect(r.stderr).toContain(`generated 21 files in ${out}`);
  });

  it('prints no progress lines when stderr is not a terminal', async () => {
    const r = await cli([
      '--schema',
      'test/fixtures/schemas/vswitch.ovsschema',
      '--out',
      repoRelative(join(scratch, 'quiet')),
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/^\[/m);
  });

  it('--name and --ovsdb-import shape the model and its imports', async () => {
    const dir = join(scratch, 'named');
    const r = await cli([
      '--schema',
      'schema/_server.ovsschema',
      '--name',
      'ServerDb',
      '--ovsdb-import',
      'ovnkit/ovsdb',
      '--out',
      repoRelative(dir),
    ]);
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['database.ts', 'index.ts', 'model.ts']);
    const model = readFileSync(join(dir, 'model.ts'), 'utf8');
    expect(model).toContain(
      "import { type DatabaseModel, defineModel, parseSchema, type TableTypes } from 'ovnkit/ovsdb';",
    );
    expect(model).toContain(
      'export const ServerDb: DatabaseModel<ServerDbTables> = defineModel<ServerDbTables>(',
    );
    expect(model.split('\n')[0]).toBe(
      '// Generated by ovnkit-codegen from _Server 1.2.0 (cksum 3009684573 744). Do not edit.',
    );
  });

  it('warns when the docs XML describes none of the schema’s tables', async () => {
    const r = await cli([
      '--schema',
      'schema/_server.ovsschema',
      '--docs',
      'schema/ovn-nb.xml',
      '--out',
      repoRelative(join(scratch, 'docs-mismatch')),
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'warning: the docs XML describes none of the tables of _Server; no OVN docs added',
    );
  });

  it('rejects a --name that is not an identifier, naming the option (usage error)', async () => {
    const r = await cli(['--schema', 'schema/_server.ovsschema', '--name', 'my-db', '--out', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--name "my-db" is not a TypeScript identifier');
  });
});

/**
 * The documentation XML shipped in `schema/` (`ovn-nb.xml`, `ovn-sb.xml`,
 * `vswitch.xml`): the CLI picks it by the schema's name when `--docs` is not
 * given, `--docs FILE` replaces it and `--no-docs` leaves it out.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_DOCS, bundledDocs } from '../../codegen/bundled-docs.js';
import { parseDocs } from '../../codegen/docs.js';
import { cli, ROOT, readRepo, removeDir, repoRelative, SCHEMAS, scratchDir } from './helpers.js';

const scratch = scratchDir('codegen-shipped-docs');
afterAll(() => removeDir(scratch));

const SB_SCHEMA = repoRelative(join(SCHEMAS, 'ovn-sb.ovsschema'));
const VSWITCH_SCHEMA = repoRelative(join(SCHEMAS, 'vswitch.ovsschema'));

/** Whitespace collapsed, as TSDoc wrapping and XML indentation both change it. */
function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The TSDoc text (comment markers removed, whitespace collapsed) of property `name` in `file`. */
function propertyDoc(file: string, name: string): string {
  const at = file.indexOf(`\n  readonly ${name}: `);
  expect(at, `property ${name}`).toBeGreaterThan(0);
  const end = file.lastIndexOf('*/', at);
  const start = file.lastIndexOf('/**', end);
  expect(start).toBeGreaterThanOrEqual(0);
  // Only whitespace between the comment and the property: it is that property's comment.
  expect(file.slice(end + 2, at).trim()).toBe('');
  return flat(
    file
      .slice(start + 3, end)
      .split('\n')
      .map((l) => l.replace(/^\s*\* ?/, ''))
      .join('\n'),
  );
}

function generated(dir: string, file: string): string {
  return readFileSync(join(dir, file), 'utf8');
}

/** [schema, output file, property, a phrase of the shipped XML's text for it]. */
const CASES = [
  [
    SB_SCHEMA,
    'chassis.ts',
    'name',
    'OVN does not prescribe a particular format for chassis names.',
  ],
  [
    SB_SCHEMA,
    'port-binding.ts',
    'logical_port',
    'OVN does not prescribe a particular format for the logical port ID.',
  ],
  [VSWITCH_SCHEMA, 'interface.ts', 'statistics', '`rx_packets`: Number of received packets.'],
  [VSWITCH_SCHEMA, 'bridge.ts', 'datapath_type', 'Name of datapath provider.'],
] as const;

const sbOut = join(scratch, 'sb');
const vswitchOut = join(scratch, 'vswitch');
const outOf = (schema: string) => (schema === SB_SCHEMA ? sbOut : vswitchOut);
let runs: { sb: Awaited<ReturnType<typeof cli>>; vswitch: Awaited<ReturnType<typeof cli>> };

beforeAll(async () => {
  const [sb, vswitch] = await Promise.all([
    cli(['--schema', SB_SCHEMA, '--out', repoRelative(sbOut)]),
    cli(['--schema', VSWITCH_SCHEMA, '--out', repoRelative(vswitchOut)]),
  ]);
  runs = { sb, vswitch };
}, 60_000);

describe('the shipped documentation', () => {
  it('schema/ holds a documentation file for each database name codegen knows', () => {
    expect(BUNDLED_DOCS).toEqual({
      OVN_Northbound: 'ovn-nb.xml',
      OVN_Southbound: 'ovn-sb.xml',
      Open_vSwitch: 'vswitch.xml',
    });
    for (const [db, file] of Object.entries(BUNDLED_DOCS)) {
      // Resolved through the installed ovnkit package, which is this repository.
      expect(bundledDocs(db)).toEqual({ found: true, path: join(ROOT, 'schema', file) });
      const schemaFile =
        db === 'OVN_Northbound'
          ? 'ovn-nb-7.18.0.ovsschema'
          : db === 'OVN_Southbound'
            ? 'ovn-sb.ovsschema'
            : 'vswitch.ovsschema';
      const tables = Object.keys(
        (JSON.parse(readFileSync(join(SCHEMAS, schemaFile), 'utf8')) as { tables: object }).tables,
      );
      const docs = parseDocs(readRepo(`schema/${file}`));
      // Every table of the schema is documented (the XML matches the schema it ships with).
      expect(
        tables.filter((t) => !docs.tables.has(t)),
        file,
      ).toEqual([]);
    }
    expect(bundledDocs('_Server')).toBeUndefined();
  });

  it('the root package ships schema/ (where codegen looks)', () => {
    const pkg = JSON.parse(readRepo('package.json')) as { files: string[] };
    expect(pkg.files).toContain('schema');
  });

  it('vswitch.xml: nested groups, documented map keys and <option> are read', () => {
    const docs = parseDocs(readRepo('schema/vswitch.xml'));
    const iface = docs.tables.get('Interface')!;
    // <column name="statistics" key="…"> inside two levels of <group>.
    expect(iface.keys.get('statistics')!.map((k) => k.key)).toEqual(
      expect.arrayContaining(['rx_packets', 'tx_bytes', 'collisions']),
    );
    const ovs = docs.tables.get('Open_vSwitch')!;
    const text = JSON.stringify([...ovs.keys.values()]);
    // <option>--monitor</option> becomes a code span.
    expect(text).toContain('`--monitor`');
  });
});

describe('codegen picks the documentation by the schema’s name', () => {
  it.each(CASES)('%s: %s %s carries the XML’s text', (schema, file, property, phrase) => {
    const xml = flat(readRepo(schema === SB_SCHEMA ? 'schema/ovn-sb.xml' : 'schema/vswitch.xml'));
    // The phrase is the XML's (markup aside).
    const plain = phrase.replace(/`/g, '').replace(/^(\w+): /, '');
    expect(xml).toContain(plain);
    expect(propertyDoc(generated(outOf(schema), file), property)).toContain(phrase);
  });

  it('the runs succeed without warnings', () => {
    for (const r of [runs.sb, runs.vswitch]) {
      expect(r.code).toBe(0);
      expect(r.stderr).not.toContain('warning');
    }
  });

  it('--check with the same command finds the directory up to date', async () => {
    const r = await cli(['--schema', SB_SCHEMA, '--out', repoRelative(sbOut), '--check']);
    expect(r.stderr).toContain('is up to date');
    expect(r.code).toBe(0);
  });

  it('the table documentation comes from the XML too', () => {
    const chassis = generated(sbOut, 'chassis.ts');
    const comment = chassis.slice(0, chassis.indexOf('export interface Chassis {'));
    const doc = flat(comment.replace(/^\s*\* ?/gm, ''));
    expect(doc).toContain(
      'A row of the `Chassis` table: Physical Network Hypervisor and Gateway Information.',
    );
  });

  it('--no-docs leaves the XML out', async () => {
    const out = join(scratch, 'sb-no-docs');
    const r = await cli(['--schema', SB_SCHEMA, '--no-docs', '--out', repoRelative(out)]);
    expect(r.code).toBe(0);
    const doc = propertyDoc(generated(out, 'chassis.ts'), 'name');
    expect(doc).toBe('Type: string. Unique: no two rows share a value (index).');
  });

  it('--docs FILE replaces the shipped documentation', async () => {
    const xml = join(scratch, 'mine.xml');
    writeFileSync(
      xml,
      '<database name="x"><table name="Chassis"><column name="name">My own words.</column></table></database>',
    );
    const out = join(scratch, 'sb-own-docs');
    const r = await cli([
      '--schema',
      SB_SCHEMA,
      '--docs',
      repoRelative(xml),
      '--out',
      repoRelative(out),
    ]);
    expect(r.code).toBe(0);
    const doc = propertyDoc(generated(out, 'chassis.ts'), 'name');
    expect(doc).toContain('My own words.');
    expect(doc).not.toContain('chassis names');
    expect(propertyDoc(generated(out, 'port-binding.ts'), 'logical_port')).not.toContain(
      'logical port ID',
    );
  });

  it('--docs and --no-docs together are a usage error', async () => {
    const r = await cli([
      '--schema',
      SB_SCHEMA,
      '--docs',
      'schema/ovn-sb.xml',
      '--no-docs',
      '--out',
      'x',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--docs and --no-docs cannot be used together');
  });

  it('a schema with no shipped documentation gets none, silently', async () => {
    const out = join(scratch, 'server');
    const r = await cli(['--schema', 'schema/_server.ovsschema', '--out', repoRelative(out)]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('warning');
    expect(propertyDoc(generated(out, 'database.ts'), 'name')).toBe('Type: string.');
  });
});

import fc from 'fast-check';
import { ts } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { compareAtoms, normalizeSchema } from '../../codegen/canonical.js';
import { defaultModelName, generate, pascalCase } from '../../codegen/index.js';
import { NB } from '../../src/nb/index.js';
import { parseSchema, parseSchemaText } from '../../src/ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../../src/ovsdb/schema/schema-types.js';
import { readRepo } from './helpers.js';

const nbText = readRepo('schema/ovn-nb-7.18.0.ovsschema');
const nb719Text = readRepo('test/fixtures/schemas/ovn-nb-7.19.0.ovsschema');
const docsXml = readRepo('schema/ovn-nb.xml');

let bareNb: Map<string, string> | undefined;
/** NB 7.18.0 generated without docs (once; several tests read it). */
function nbWithoutDocs(): Map<string, string> {
  bareNb ??= generate({ schema: nbText });
  return bareNb;
}

/** The TSDoc comment right above `readonly <column>:` in `file`. */
function docAbove(file: string, column: string): string {
  const at = file.indexOf(`  readonly ${column}:`);
  expect(at).toBeGreaterThan(0);
  const before = file.slice(0, at);
  const start = before.lastIndexOf('  /**');
  return before.slice(start);
}

/** Reverse the order of every object's members and every enum array, recursively. */
function reversed(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) {
    if (key === 'enum' && value[0] === 'set')
      return ['set', [...(value[1] as unknown[])].reverse()];
    return value.map((v) => reversed(v));
  }
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversed(v, k)]),
  );
}

describe('determinism', () => {
  it('generating twice is byte-identical', () => {
    const first = generate({ schema: nb719Text, docsXml });
    const second = generate({ schema: nb719Text, docsXml });
    expect([...second.keys()]).toEqual([...first.keys()]);
    for (const [name, content] of first) expect(second.get(name) === content).toBe(true);
  });

  it('the order of tables, columns and enum values in the schema does not matter', () => {
    const json = JSON.parse(nbText) as unknown;
    const shuffled = reversed(json);
    expect(JSON.stringify(shuffled)).not.toBe(JSON.stringify(json));
    expect(generate({ schema: shuffled, docsXml })).toEqual(generate({ schema: json, docsXml }));
  });

  it('accepts schema text, parsed JSON or a DatabaseSchema alike', () => {
    const fromText = nbWithoutDocs();
    expect(generate({ schema: JSON.parse(nbText) })).toEqual(fromText);
    expect(generate({ schema: parseSchemaText(nbText) })).toEqual(fromText);
  });

  it('output files are sorted by name', () => {
    const names = [...nbWithoutDocs().keys()];
    expect(names).toEqual([...names].sort());
  });
});

describe('the generated NB model', () => {
  it('embeds a schema equal in meaning to the source schema', () => {
    const source = normalizeSchema(parseSchemaText(nbText));
    const strip = (s: DatabaseSchema) => ({ ...s, json: undefined });
    expect(strip(normalizeSchema(NB.schema))).toEqual(strip(source));
    expect(NB.name).toBe('OVN_Northbound');
    expect(NB.version).toBe('7.18.0');
    expect(NB.schema.cksum).toBe((JSON.parse(nbText) as { cksum: string }).cksum);
  });

  it('the embedded schema reparses to itself', () => {
    expect(parseSchema(NB.schema.json).tables).toEqual(NB.schema.tables);
  });
});

describe('embedSchema', () => {
  const serverText = readRepo('schema/_server.ovsschema');

  it('model.ts exports the document as given and builds the model from it; table files do not change', () => {
    const plain = generate({ schema: serverText });
    const embedded = generate({ schema: serverText, embedSchema: true });
    expect([...embedded.keys()]).toEqual([...plain.keys()]);
    for (const [name, content] of plain) {
      if (name !== 'model.ts') expect(embedded.get(name) === content, name).toBe(true);
    }
    const model = embedded.get('model.ts')!;
    expect(model).toContain('export const ServerSchemaJson = {');
    expect(model).toContain('  parseSchema(ServerSchemaJson),\n);');
    // The canonical table schemas are not what the model is built from any more.
    expect(model).not.toContain('DatabaseTable');
    expect(plain.get('model.ts')).not.toContain('ServerSchemaJson');
    // Members in the document's order: `name` first, `index` last, as in the file.
    const columns = [...model.matchAll(/^ {8}(\w+): \{/gm)].map((m) => m[1]);
    expect(columns).toEqual([
      'name',
      'model',
      'connected',
      'leader',
      'schema',
      'cid',
      'sid',
      'index',
    ]);
  });

  it('follows the order of members in the document (and only model.ts does)', () => {
    const json = JSON.parse(nbText) as unknown;
    const asGiven = generate({ schema: json, embedSchema: true });
    const shuffled = generate({ schema: reversed(json), embedSchema: true });
    for (const [name, content] of asGiven) {
      expect(shuffled.get(name) === content, name).toBe(name !== 'model.ts');
    }
    expect(asGiven.get('model.ts')).toContain(
      "export const NBSchemaJson = {\n  name: 'OVN_Northbound',",
    );
    expect(shuffled.get('model.ts')).toContain('export const NBSchemaJson = {\n  tables: {');
  });

  it('the document constant’s name is claimed before table names', () => {
    const schema = {
      name: '_Server',
      version: '1.0.0',
      tables: { ServerSchemaJson: { columns: { a: { type: 'string' } } } },
    };
    const files = generate({ schema, embedSchema: true });
    expect(files.get('model.ts')).toContain('export const ServerSchemaJson = {');
    expect(files.get('serverschemajson.ts')).toContain('export interface ServerSchemaJsonRow {');
  });
});

describe('TSDoc', () => {
  const files = generate({ schema: nbText, docsXml });
  const acl = files.get('acl.ts')!;
  const lsp = files.get('logical-switch-port.ts')!;

  it('ACL.priority carries its constraint and OVN’s description', () => {
    const doc = docAbove(acl, 'priority');
    expect(doc).toContain('* Type: integer 0–32767.');
    expect(doc).toContain("* The ACL rule's priority. Rules with numerically higher priority take");
    expect(doc).toContain('`allow-stateless` flows always take precedence before stateful ACLs');
  });

  it('the table comment has OVN’s title and prose and the schema’s facts', () => {
    const at = acl.indexOf('export interface Acl {');
    const doc = acl.slice(acl.lastIndexOf('/**', at), at);
    expect(doc).toContain('A row of the `ACL` table: Access Control List (ACL) rule.');
    expect(doc).toContain('highest-`priority` matching row in this table determines');
    expect(doc).toContain('Not a root table: a row that no strong reference points to is deleted');
  });

  it('map keys documented in the XML are listed under the map column', () => {
    const doc = docAbove(lsp, 'options');
    expect(doc).toContain('* Keys:');
    expect(doc).toContain(
      '* - `router-port`: Required. The `name` of the `Logical_Router_Port` to which this\n' +
        '   *   logical switch port is connected.',
    );
  });

  it('index and ephemeral notes are derived from the schema', () => {
    expect(docAbove(lsp, 'name')).toContain('Unique: no two rows share a value (index).');
    const conn = files.get('connection.ts')!;
    expect(docAbove(conn, 'status')).toContain('Ephemeral: not persisted');
  });

  it('without --docs only the schema facts are documented', () => {
    const bare = nbWithoutDocs().get('acl.ts')!;
    const doc = docAbove(bare, 'priority');
    expect(doc).toBe('  /** Type: integer 0–32767. */\n');
  });

  it('no comment line starts with @ (a TSDoc tag) except @module', () => {
    for (const [name, content] of files) {
      const tags = content.split('\n').filter((l) => /^\s*\* @/.test(l) && !l.includes('@module'));
      expect(tags, name).toEqual([]);
    }
  });
});

describe('names', () => {
  it.each([
    ['Logical_Switch_Port', 'LogicalSwitchPort'],
    ['ACL', 'Acl'],
    ['NB_Global', 'NbGlobal'],
    ['Load_Balancer_Health_Check', 'LoadBalancerHealthCheck'],
    ['BFD', 'Bfd'],
    ['DHCPv6_Options', 'Dhcpv6Options'],
    ['Open_vSwitch', 'OpenVSwitch'],
    ['sFlow', 'SFlow'],
    ['QoS', 'QoS'],
    ['IPFIX', 'Ipfix'],
    ['_Server', 'Server'],
  ])('pascalCase(%s) is %s', (name, expected) => {
    expect(pascalCase(name)).toBe(expected);
  });

  it.each([
    ['OVN_Northbound', 'NB'],
    ['OVN_Southbound', 'SB'],
    ['Open_vSwitch', 'OpenVSwitch'],
    ['_Server', 'Server'],
    ['OVN_IC_Northbound', 'OvnIcNorthbound'],
  ])('the default model name of %s is %s', (db, expected) => {
    expect(defaultModelName(db)).toBe(expected);
  });

  it('a table named like the model gets a Row suffix (Open_vSwitch)', () => {
    const files = generate({ schema: readRepo('test/fixtures/schemas/vswitch.ovsschema') });
    const model = files.get('model.ts')!;
    expect(model).toContain('export const OpenVSwitch: DatabaseModel<OpenVSwitchTables>');
    expect(model).toMatch(
      /readonly Open_vSwitch: TableTypes<\s*OpenVSwitchRow,\s*OpenVSwitchInsert,\s*OpenVSwitchUpdate,\s*'Open_vSwitch 8\.8\.0'\s*>;/,
    );
    expect(files.get('open-vswitch.ts')).toContain('export interface OpenVSwitchRow {');
  });

  it('the edge fixture resolves global, model and file-name clashes', () => {
    const files = generate({ schema: readRepo('test/codegen/fixtures/edge.ovsschema') });
    expect([...files.keys()]).toContain('model-table.ts');
    expect(files.get('map.ts')).toContain('export interface MapRow {');
    expect(files.get('edge-test.ts')).toContain('export interface EdgeTestRow {');
    expect(files.get('edgecase.ts')).toContain('export interface EdgeCase {');
    expect(files.get('edge-case.ts')).toContain('export interface EdgeCaseRow {');
    expect(files.get('edge-case.ts')).toContain('export interface EdgeCaseRowUpdate');
  });
});

describe('enums', () => {
  it('emit a sorted const array and a type derived from it', () => {
    const acl = nbWithoutDocs().get('acl.ts')!;
    expect(acl).toContain("export const AclDirection = ['from-lport', 'to-lport'] as const;");
    expect(acl).toContain('export type AclDirection = (typeof AclDirection)[number];');
    expect(acl).toContain('  readonly direction: AclDirection;');
    expect(acl).toContain('  readonly severity: AclSeverity | null;');
  });
});

/** A generated module as CommonJS with types erased; fails the test on a syntax error. */
function transpile(text: string): string {
  const out = ts.transpileModule(text, {
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  });
  const errors = out.diagnostics?.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(errors).toEqual([]);
  return out.outputText;
}

/** Run a generated table module (it imports only types): its exports. */
function runModule(text: string): Record<string, unknown> {
  const exports: Record<string, unknown> = {};
  new Function('exports', transpile(text))(exports);
  return exports;
}

describe('strings in generated code', () => {
  const tricky = fc.constantFrom(
    '*/',
    '/*',
    '//',
    '`',
    '$' + '{x}',
    "'",
    '"',
    '\\',
    '\n',
    '\u2028',
    'café',
    '@tag',
    ' ',
  );
  const value = fc.oneof(tricky, fc.string({ maxLength: 8 }), fc.string({ unit: 'grapheme' }));

  it('any enum strings come out as the same values, in code that parses (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(value, { minLength: 1, maxLength: 6 }), (values) => {
        const schema = {
          name: 'P',
          version: '1.0.0',
          tables: {
            T: {
              columns: {
                c: { type: { key: { type: 'string', enum: ['set', values] } } },
                m: {
                  type: {
                    key: 'string',
                    value: { type: 'string', enum: ['set', values] },
                    min: 0,
                    max: 'unlimited',
                  },
                },
              },
            },
          },
        };
        const files = generate({ schema });
        const sorted = [...values].sort(compareAtoms);
        const mod = runModule(files.get('t.ts')!);
        expect(mod['TC']).toEqual(sorted);
        expect(mod['TMValue']).toEqual(sorted);
        const meta = mod['TTable'] as { columns: { c: { type: { key: { enum: unknown } } } } };
        expect(meta.columns.c.type.key.enum).toEqual(['set', sorted]);
        for (const text of files.values()) transpile(text);
      }),
      { numRuns: 40 },
    );
  });
});

describe('64-bit integers', () => {
  const INT64_MIN = -(2n ** 63n);
  const INT64_MAX = 2n ** 63n - 1n;
  /** A schema whose integer columns cover the type rule (objects: bigints stay exact). */
  function wideSchema(extreme: Record<string, unknown> = {}): unknown {
    return {
      name: 'Wide',
      version: '1.0.0',
      tables: {
        T: {
          columns: {
            counter: { type: 'integer' },
            bounded: {
              type: {
                key: {
                  type: 'integer',
                  minInteger: -Number.MAX_SAFE_INTEGER,
                  maxInteger: Number.MAX_SAFE_INTEGER,
                },
              },
            },
            half: { type: { key: { type: 'integer', minInteger: 0 }, min: 0, max: 1 } },
            big: {
              type: { key: { type: 'integer', minInteger: -(2n ** 60n), maxInteger: 2n ** 62n } },
            },
            beyond: { type: { key: { type: 'integer', minInteger: 0, maxInteger: 2n ** 53n } } },
            level: {
              type: {
                key: {
                  type: 'integer',
                  enum: ['set', [INT64_MAX, -1, INT64_MIN, 9007199254740993n]],
                },
              },
            },
            stats: { type: { key: 'string', value: 'integer', min: 0, max: 'unlimited' } },
            by_id: { type: { key: 'integer', value: 'string', min: 0, max: 'unlimited' } },
            ports: {
              type: {
                key: { type: 'integer', minInteger: 1, maxInteger: 65535 },
                value: { type: 'integer', minInteger: 0, maxInteger: 4294967295 },
                min: 0,
                max: 'unlimited',
              },
            },
            ids: { type: { key: 'integer', min: 0, max: 'unlimited' }, ...extreme },
          },
        },
        U: { columns: { name: { type: 'string' } } },
      },
    };
  }
  const files = generate({ schema: wideSchema() });
  const t = files.get('t.ts')!;

  it('types an integer bounded within ±(2^53−1) on both sides as number, any other as Int64', () => {
    expect(t).toContain('  readonly counter: Int64;');
    expect(t).toContain('  readonly bounded: number;');
    expect(t).toContain('  readonly half: Int64 | null;');
    expect(t).toContain('  readonly big: Int64;');
    expect(t).toContain('  readonly beyond: Int64;');
    expect(t).toContain('  readonly ids: readonly Int64[];');
    expect(t).toContain('  readonly stats: Readonly<Record<string, Int64>>;');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a template literal type
    expect(t).toContain('  readonly by_id: Readonly<Record<number | `${bigint}`, string>>;');
    expect(t).toContain('  readonly ports: Readonly<Record<number, number>>;');
  });

  it('imports Int64 only where a column uses it', () => {
    expect(t).toContain("import type { Int64, Uuid } from 'ovnkit/ovsdb';");
    expect(files.get('u.ts')).toContain("import type { Uuid } from 'ovnkit/ovsdb';");
    expect(files.get('u.ts')).not.toContain('Int64');
    const dir = generate({
      schema: wideSchema(),
      ovsdbImport: {
        uuid: '../ovsdb/values/uuid.js',
        int64: '../ovsdb/values/int64.js',
        model: '../ovsdb/schema/model.js',
        schema: '../ovsdb/schema/schema.js',
      },
    }).get('t.ts')!;
    expect(dir).toContain("import type { Int64 } from '../ovsdb/values/int64.js';");
    expect(dir).toContain("import type { Uuid } from '../ovsdb/values/uuid.js';");
  });

  it('says so in the TSDoc of the 64-bit columns only', () => {
    expect(docAbove(t, 'counter')).toContain(
      'Type: integer (64-bit: a `bigint` beyond ±(2^53−1)).',
    );
    expect(docAbove(t, 'stats')).toContain('(64-bit: a `bigint` beyond ±(2^53−1)).');
    expect(docAbove(t, 'bounded')).not.toContain('64-bit');
    expect(docAbove(t, 'level')).not.toContain('64-bit');
  });

  it('writes big bounds and enum values as bigint literals that run back to the same values', () => {
    expect(t).toContain(
      'export const TLevel = [-9223372036854775808n, -1, 9007199254740993n, 9223372036854775807n] as const;',
    );
    expect(t).toContain('minInteger: -1152921504606846976n,');
    expect(t).toContain('maxInteger: 4611686018427387904n,');
    const mod = runModule(t);
    expect(mod['TLevel']).toEqual([INT64_MIN, -1, 9007199254740993n, INT64_MAX]);
    const meta = mod['TTable'] as { columns: Record<string, { type: { key: unknown } }> };
    expect(meta.columns['big']?.type.key).toEqual({
      type: 'integer',
      minInteger: -(2n ** 60n),
      maxInteger: 2n ** 62n,
    });
    expect(meta.columns['beyond']?.type.key).toEqual({
      type: 'integer',
      minInteger: 0,
      maxInteger: 2n ** 53n,
    });
  });

  it('embeds table schemas equal in meaning to the source schema', () => {
    const source = normalizeSchema(parseSchema(wideSchema()));
    const tables = Object.fromEntries(
      ['T', 'U'].map((name) => [
        name,
        runModule(files.get(`${name.toLowerCase()}.ts`)!)[`${name}Table`],
      ]),
    );
    const embedded = normalizeSchema(parseSchema({ name: 'Wide', version: '1.0.0', tables }));
    expect({ ...embedded, json: null }).toEqual({ ...source, json: null });
  });

  it('leaves out bounds at the int64 limits, as get_schema does: the same code as without', () => {
    const withLimits = generate({
      schema: wideSchema({
        type: {
          key: { type: 'integer', minInteger: INT64_MIN, maxInteger: INT64_MAX },
          min: 0,
          max: 'unlimited',
        },
      }),
    });
    expect(withLimits.get('t.ts')).toBe(t);
  });
});

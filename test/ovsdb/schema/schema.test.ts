import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareSchemas } from '../../../src/ovsdb/schema/compat.js';
import { parseSchema, parseSchemaText } from '../../../src/ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../../../src/ovsdb/schema/schema-types.js';
import { INT64_MAX, INT64_MIN } from '../../../src/ovsdb/values/int64.js';
import { SchemaError } from '../../../src/ovsdb/wire/errors.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/schemas');
const fixtureFiles = readdirSync(FIXTURES).filter((f) => f.endsWith('.ovsschema'));

function load(file: string): DatabaseSchema {
  return parseSchemaText(readFileSync(join(FIXTURES, file), 'utf8'));
}

function table(schema: DatabaseSchema, name: string) {
  const t = schema.tables[name];
  if (t === undefined) throw new Error(`no table ${name}`);
  return t;
}

function column(schema: DatabaseSchema, t: string, c: string) {
  const col = table(schema, t).columns[c];
  if (col === undefined) throw new Error(`no column ${t}.${c}`);
  return col;
}

describe('parseSchema on the fixture schemas', () => {
  it('finds all 15 fixtures', () => {
    expect(fixtureFiles).toHaveLength(15);
  });

  it.each(fixtureFiles)('parses %s', (file) => {
    const text = readFileSync(join(FIXTURES, file), 'utf8');
    const json: unknown = JSON.parse(text);
    const schema = parseSchema(json);
    const raw = json as { name: string; version: string; tables: Record<string, unknown> };
    expect(schema.name).toBe(raw.name);
    expect(schema.version).toBe(raw.version);
    expect(schema.json).toBe(json);
    expect(Object.keys(schema.tables)).toEqual(Object.keys(raw.tables));
    for (const t of Object.values(schema.tables)) {
      const declared = Object.keys(
        (raw.tables[t.name] as { columns: Record<string, unknown> }).columns,
      );
      expect(t.columnNames).toEqual([...declared].sort());
      expect(Object.keys(t.columns).sort()).toEqual(['_uuid', '_version', ...declared].sort());
      for (const implicit of ['_uuid', '_version']) {
        const c = t.columns[implicit];
        expect(c?.mutable).toBe(false);
        expect(c?.type).toEqual({ key: { type: 'uuid' }, min: 1, max: 1, kind: 'scalar' });
      }
    }
  });

  const nb = load('ovn-nb-7.18.0.ovsschema');

  it('reads ACL.priority as a scalar integer 0..32767', () => {
    const c = column(nb, 'ACL', 'priority');
    expect(c.type).toEqual({
      key: { type: 'integer', minInteger: 0, maxInteger: 32767 },
      min: 1,
      max: 1,
      kind: 'scalar',
    });
    expect(c.mutable).toBe(true);
    expect(c.ephemeral).toBe(false);
  });

  it('reads ACL.action as an enum in schema order', () => {
    expect(column(nb, 'ACL', 'action').type.key.enum).toEqual([
      'allow',
      'allow-related',
      'allow-stateless',
      'drop',
      'reject',
      'pass',
    ]);
  });

  it('reads Logical_Switch.ports as a strong set of references', () => {
    expect(column(nb, 'Logical_Switch', 'ports').type).toEqual({
      key: { type: 'uuid', refTable: 'Logical_Switch_Port', refType: 'strong' },
      min: 0,
      max: Number.POSITIVE_INFINITY,
      kind: 'set',
    });
  });

  it('reads maps and optional columns', () => {
    const ids = column(nb, 'Logical_Switch', 'external_ids').type;
    expect(ids.kind).toBe('map');
    expect(ids.key).toEqual({ type: 'string' });
    expect(ids.value).toEqual({ type: 'string' });
    expect(column(nb, 'Logical_Switch_Port', 'dhcpv4_options').type).toMatchObject({
      kind: 'optional',
      key: { type: 'uuid', refTable: 'DHCP_Options', refType: 'weak' },
    });
  });

  it('keeps isRoot as the NB schema declares it', () => {
    expect(table(nb, 'NB_Global').isRoot).toBe(true);
    expect(table(nb, 'Logical_Switch').isRoot).toBe(true);
    expect(table(nb, 'Logical_Router').isRoot).toBe(true);
    expect(table(nb, 'Port_Group').isRoot).toBe(true);
    expect(table(nb, 'Logical_Switch_Port').isRoot).toBe(false);
    expect(table(nb, 'ACL').isRoot).toBe(false);
    expect(table(nb, 'NAT').isRoot).toBe(false);
    expect(Object.values(nb.tables).filter((t) => t.isRoot)).toHaveLength(21);
  });

  it('reads indexes and maxRows', () => {
    expect(table(nb, 'Logical_Switch_Port').indexes).toEqual([['name']]);
    expect(table(nb, 'Logical_Switch').indexes).toEqual([]);
    expect(table(nb, 'BFD').indexes).toEqual([['logical_port', 'dst_ip']]);
    expect(table(nb, 'NB_Global').maxRows).toBe(1);
    expect(table(nb, 'ACL').maxRows).toBe(Number.POSITIVE_INFINITY);
  });

  it('reads the vswitch ephemeral columns', () => {
    const vs = load('vswitch.ovsschema');
    expect(column(vs, 'Interface', 'ofport').ephemeral).toBe(false);
    const ephemeral = Object.values(vs.tables).flatMap((t) =>
      Object.values(t.columns).filter((c) => c.ephemeral),
    );
    expect(ephemeral.length).toBeGreaterThan(10);
  });

  it('has prototype-free tables and columns records', () => {
    expect(nb.tables['constructor']).toBeUndefined();
    expect(table(nb, 'ACL').columns['toString']).toBeUndefined();
  });
});

/** A valid schema with one table `T` (column `a`) and one table `U` (column `b`). */
function schemaWith(
  colA: unknown,
  tableT: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): unknown {
  return {
    name: 'Test',
    version: '1.0.0',
    tables: {
      T: { columns: { a: colA }, ...tableT },
      U: { columns: { b: { type: 'integer' } } },
    },
    ...extra,
  };
}

function typed(type: unknown, more: Record<string, unknown> = {}): unknown {
  return schemaWith({ type, ...more });
}

function errorOf(json: unknown): SchemaError {
  try {
    parseSchema(json);
  } catch (e) {
    if (e instanceof SchemaError) return e;
    throw e;
  }
  throw new Error('parseSchema accepted the schema');
}

describe('parseSchema defaults and rules', () => {
  it('accepts a schema without version (ovsdb-server 7 §3.2) and reports ""', () => {
    const s = parseSchema({ name: 'x', tables: { T: { columns: { a: { type: 'integer' } } } } });
    expect(s.version).toBe('');
    expect(s.cksum).toBeUndefined();
  });

  it('keeps cksum', () => {
    const s = parseSchema({ ...(schemaWith({ type: 'integer' }) as object), cksum: '1 2' });
    expect(s.cksum).toBe('1 2');
  });

  it('makes every table root when none sets isRoot', () => {
    const s = parseSchema(schemaWith({ type: 'integer' }, { isRoot: false }));
    expect(s.tables['T']?.isRoot).toBe(true);
    expect(s.tables['U']?.isRoot).toBe(true);
  });

  it('makes tables without isRoot non-root when another table is root', () => {
    const s = parseSchema(schemaWith({ type: 'integer' }, { isRoot: true }));
    expect(s.tables['T']?.isRoot).toBe(true);
    expect(s.tables['U']?.isRoot).toBe(false);
  });

  it('forces weak-reference columns mutable, but not strong ones', () => {
    const weak = parseSchema(
      typed({ key: { type: 'uuid', refTable: 'U', refType: 'weak' } }, { mutable: false }),
    );
    expect(weak.tables['T']?.columns['a']?.mutable).toBe(true);
    const weakValue = parseSchema(
      typed(
        { key: 'string', value: { type: 'uuid', refTable: 'U', refType: 'weak' } },
        { mutable: false },
      ),
    );
    expect(weakValue.tables['T']?.columns['a']?.mutable).toBe(true);
    const strong = parseSchema(typed({ key: { type: 'uuid', refTable: 'U' } }, { mutable: false }));
    expect(strong.tables['T']?.columns['a']?.mutable).toBe(false);
    expect(strong.tables['T']?.columns['a']?.type.key.refType).toBe('strong');
  });

  it.each([
    [{ key: 'integer' }, 'scalar', 1, 1],
    [{ key: 'integer', min: 0 }, 'optional', 0, 1],
    [{ key: 'integer', min: 0, max: 2 }, 'set', 0, 2],
    [{ key: 'integer', min: 1, max: 'unlimited' }, 'set', 1, Number.POSITIVE_INFINITY],
    [{ key: 'integer', value: 'string' }, 'map', 1, 1],
    [{ key: 'integer', value: 'string', min: 0, max: 'unlimited' }, 'map', 0, Infinity],
  ])('derives kind for %j', (type, kind, min, max) => {
    const t = parseSchema(typed(type)).tables['T']?.columns['a']?.type;
    expect(t?.kind).toBe(kind);
    expect(t?.min).toBe(min);
    expect(t?.max).toBe(max);
  });

  it('reads a bare-atom enum and a uuid enum', () => {
    const s = parseSchema(typed({ key: { type: 'string', enum: 'only' } }));
    expect(s.tables['T']?.columns['a']?.type.key.enum).toEqual(['only']);
    const u = parseSchema(
      typed({
        key: { type: 'uuid', enum: ['set', [['uuid', 'AAAAAAAA-0000-0000-0000-000000000000']]] },
      }),
    );
    expect(u.tables['T']?.columns['a']?.type.key.enum).toEqual([
      'aaaaaaaa-0000-0000-0000-000000000000',
    ]);
  });

  it('allows indexes on _uuid (as ovsdb-tool does) and maxLength 0', () => {
    const s = parseSchema(
      schemaWith(
        { type: { key: { type: 'string', maxLength: 0 } } },
        {
          indexes: [['_uuid', 'a']],
        },
      ),
    );
    expect(s.tables['T']?.indexes).toEqual([['_uuid', 'a']]);
    expect(s.tables['T']?.columns['a']?.type.key.maxLength).toBe(0);
  });

  it('parseSchemaText reports invalid JSON with an empty path', () => {
    const e = (() => {
      try {
        parseSchemaText('{"name":');
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(SchemaError);
    expect((e as SchemaError).path).toBe('');
    expect((e as SchemaError).reason).toMatch(/^not valid JSON: /);
  });
});

const ID_REASON = 'expected an <id> (a letter or "_", then letters, digits or "_")';

/** [description, schema JSON, expected path, expected reason]. */
const malformed: [string, unknown, string, string][] = [
  ['not an object', [], '', 'expected an object'],
  [
    'unknown top-level member',
    { ...(schemaWith({ type: 'integer' }) as object), foo: 1 },
    'foo',
    'unknown member',
  ],
  ['missing name', { tables: {} }, 'name', 'required member is missing'],
  ['name not an id', { name: '1x', tables: {} }, 'name', ID_REASON],
  [
    'version not x.y.z',
    { name: 'x', version: '1.2', tables: {} },
    'version',
    'expected a version string of the form x.y.z',
  ],
  [
    'version with 4 parts',
    { name: 'x', version: '1.2.3.4', tables: {} },
    'version',
    'expected a version string of the form x.y.z',
  ],
  ['cksum not a string', { name: 'x', cksum: 5, tables: {} }, 'cksum', 'expected a string'],
  ['missing tables', { name: 'x' }, 'tables', 'required member is missing'],
  ['tables not an object', { name: 'x', tables: 'a' }, 'tables', 'expected an object'],
  [
    'table name reserved',
    { name: 'x', tables: { _T: { columns: { a: { type: 'integer' } } } } },
    'tables._T',
    'table names beginning with "_" are reserved',
  ],
  [
    'table name not an id',
    { name: 'x', tables: { 'T-x': { columns: { a: { type: 'integer' } } } } },
    'tables.T-x',
    'table name must be an <id> (a letter or "_", then letters, digits or "_")',
  ],
  ['table not an object', { name: 'x', tables: { T: 3 } }, 'tables.T', 'expected an object'],
  [
    'table missing columns',
    { name: 'x', tables: { T: {} } },
    'tables.T.columns',
    'required member is missing',
  ],
  [
    'table with no columns',
    { name: 'x', tables: { T: { columns: {} } } },
    'tables.T.columns',
    'a table must have at least one column',
  ],
  [
    'unknown table member',
    schemaWith({ type: 'integer' }, { foo: 1 }),
    'tables.T.foo',
    'unknown member',
  ],
  [
    'maxRows 0',
    schemaWith({ type: 'integer' }, { maxRows: 0 }),
    'tables.T.maxRows',
    'must be at least 1',
  ],
  [
    'maxRows not an integer',
    schemaWith({ type: 'integer' }, { maxRows: 1.5 }),
    'tables.T.maxRows',
    'expected an integer',
  ],
  [
    'isRoot not a boolean',
    schemaWith({ type: 'integer' }, { isRoot: 1 }),
    'tables.T.isRoot',
    'expected a boolean',
  ],
  [
    'table mutable not a boolean',
    schemaWith({ type: 'integer' }, { mutable: 'no' }),
    'tables.T.mutable',
    'expected a boolean',
  ],
  [
    'indexes not an array',
    schemaWith({ type: 'integer' }, { indexes: 'a' }),
    'tables.T.indexes',
    'expected an array of indexes',
  ],
  [
    'index not an array',
    schemaWith({ type: 'integer' }, { indexes: ['a'] }),
    'tables.T.indexes.0',
    'expected an array of column names',
  ],
  [
    'empty index',
    schemaWith({ type: 'integer' }, { indexes: [[]] }),
    'tables.T.indexes.0',
    'an index must have at least one column',
  ],
  [
    'index of unknown column',
    schemaWith({ type: 'integer' }, { indexes: [['a'], ['a', 'b']] }),
    'tables.T.indexes.1.1',
    'no column "b" in table T',
  ],
  [
    'index with duplicate column',
    schemaWith({ type: 'integer' }, { indexes: [['a', 'a']] }),
    'tables.T.indexes.0.1',
    'column "a" appears twice in the index',
  ],
  [
    'index of ephemeral column',
    schemaWith({ type: 'integer', ephemeral: true }, { indexes: [['a']] }),
    'tables.T.indexes.0.0',
    'ephemeral column "a" may not be indexed',
  ],
  [
    'index element not a string',
    schemaWith({ type: 'integer' }, { indexes: [[1]] }),
    'tables.T.indexes.0.0',
    'expected a column name',
  ],
  [
    'column name reserved',
    { name: 'x', tables: { T: { columns: { _a: { type: 'integer' } } } } },
    'tables.T.columns._a',
    'column names beginning with "_" are reserved',
  ],
  [
    'column name not an id',
    { name: 'x', tables: { T: { columns: { 'a-b': { type: 'integer' } } } } },
    'tables.T.columns.a-b',
    'column name must be an <id> (a letter or "_", then letters, digits or "_")',
  ],
  ['column not an object', schemaWith('integer'), 'tables.T.columns.a', 'expected an object'],
  ['column missing type', schemaWith({}), 'tables.T.columns.a.type', 'required member is missing'],
  [
    'unknown column member',
    schemaWith({ type: 'integer', foo: 1 }),
    'tables.T.columns.a.foo',
    'unknown member',
  ],
  [
    'column mutable not a boolean',
    schemaWith({ type: 'integer', mutable: 'no' }),
    'tables.T.columns.a.mutable',
    'expected a boolean',
  ],
  [
    'column ephemeral not a boolean',
    schemaWith({ type: 'integer', ephemeral: 0 }),
    'tables.T.columns.a.ephemeral',
    'expected a boolean',
  ],
  [
    'unknown atomic type',
    typed('int'),
    'tables.T.columns.a.type',
    '"int" is not an atomic type (integer, real, boolean, string, uuid)',
  ],
  [
    'type a number',
    typed(5),
    'tables.T.columns.a.type',
    'expected an atomic type name or an object',
  ],
  [
    'type missing key',
    typed({ value: 'integer' }),
    'tables.T.columns.a.type.key',
    'required member is missing',
  ],
  [
    'unknown type member',
    typed({ key: 'integer', foo: 1 }),
    'tables.T.columns.a.type.foo',
    'unknown member',
  ],
  ['min 2', typed({ key: 'integer', min: 2 }), 'tables.T.columns.a.type.min', 'expected 0 or 1'],
  ['min -1', typed({ key: 'integer', min: -1 }), 'tables.T.columns.a.type.min', 'expected 0 or 1'],
  [
    'max 0',
    typed({ key: 'integer', max: 0 }),
    'tables.T.columns.a.type.max',
    'expected an integer from 1 to 4294967295 or "unlimited"',
  ],
  [
    'max "lots"',
    typed({ key: 'integer', max: 'lots' }),
    'tables.T.columns.a.type.max',
    'expected an integer from 1 to 4294967295 or "unlimited"',
  ],
  [
    'max 1.5',
    typed({ key: 'integer', max: 1.5 }),
    'tables.T.columns.a.type.max',
    'expected an integer from 1 to 4294967295 or "unlimited"',
  ],
  [
    'base type missing type',
    typed({ key: {} }),
    'tables.T.columns.a.type.key.type',
    'required member is missing',
  ],
  [
    'unknown base type',
    typed({ key: { type: 'float' } }),
    'tables.T.columns.a.type.key.type',
    '"float" is not an atomic type (integer, real, boolean, string, uuid)',
  ],
  [
    'unknown value base type',
    typed({ key: 'string', value: { type: 'int' } }),
    'tables.T.columns.a.type.value.type',
    '"int" is not an atomic type (integer, real, boolean, string, uuid)',
  ],
  [
    'unknown base member',
    typed({ key: { type: 'integer', foo: 1 } }),
    'tables.T.columns.a.type.key.foo',
    'unknown member',
  ],
  [
    'maxInteger not an integer',
    typed({ key: { type: 'integer', maxInteger: 1.5 } }),
    'tables.T.columns.a.type.key.maxInteger',
    'expected an integer',
  ],
  [
    'minInteger exceeds maxInteger',
    typed({ key: { type: 'integer', minInteger: 5, maxInteger: 3 } }),
    'tables.T.columns.a.type.key.maxInteger',
    'minInteger 5 exceeds maxInteger 3',
  ],
  [
    'minInteger on a string',
    typed({ key: { type: 'string', minInteger: 1 } }),
    'tables.T.columns.a.type.key.minInteger',
    'not allowed for type string',
  ],
  [
    'minLength on an integer',
    typed({ key: { type: 'integer', minLength: 1 } }),
    'tables.T.columns.a.type.key.minLength',
    'not allowed for type integer',
  ],
  [
    'minReal a string',
    typed({ key: { type: 'real', minReal: 'a' } }),
    'tables.T.columns.a.type.key.minReal',
    'expected a number',
  ],
  [
    'minReal exceeds maxReal',
    typed({ key: { type: 'real', minReal: 3, maxReal: 2.5 } }),
    'tables.T.columns.a.type.key.maxReal',
    'minReal 3 exceeds maxReal 2.5',
  ],
  [
    'minLength negative',
    typed({ key: { type: 'string', minLength: -1 } }),
    'tables.T.columns.a.type.key.minLength',
    'expected an integer from 0 to 4294967295',
  ],
  [
    'minLength exceeds maxLength',
    typed({ key: { type: 'string', minLength: 3, maxLength: 2 } }),
    'tables.T.columns.a.type.key.maxLength',
    'minLength 3 exceeds maxLength 2',
  ],
  [
    'enum with minInteger',
    typed({ key: { type: 'integer', enum: ['set', [1, 2]], minInteger: 1 } }),
    'tables.T.columns.a.type.key.minInteger',
    'not allowed together with enum',
  ],
  [
    'enum with maxLength',
    typed({ key: { type: 'string', enum: 'a', maxLength: 3 } }),
    'tables.T.columns.a.type.key.maxLength',
    'not allowed together with enum',
  ],
  [
    'enum element of the wrong type',
    typed({ key: { type: 'integer', enum: ['set', [1, 'a']] } }),
    'tables.T.columns.a.type.key.enum.1',
    'expected an integer, got a string',
  ],
  [
    'bare enum of the wrong type',
    typed({ key: { type: 'string', enum: 3 } }),
    'tables.T.columns.a.type.key.enum',
    'expected a string, got an integer',
  ],
  [
    'enum with duplicates',
    typed({ key: { type: 'string', enum: ['set', ['a', 'b', 'a']] } }),
    'tables.T.columns.a.type.key.enum.2',
    'duplicate enum value "a"',
  ],
  [
    'empty enum',
    typed({ key: { type: 'integer', enum: ['set', []] } }),
    'tables.T.columns.a.type.key.enum',
    'enum must have at least one value',
  ],
  [
    'enum a map',
    typed({ key: { type: 'integer', enum: ['map', [[1, 2]]] } }),
    'tables.T.columns.a.type.key.enum',
    'expected an atom or ["set", [atom, ...]], not a map',
  ],
  [
    'enum set without array',
    typed({ key: { type: 'string', enum: ['set', 'a'] } }),
    'tables.T.columns.a.type.key.enum',
    'expected an atom or ["set", [atom, ...]]',
  ],
  [
    'uuid enum with a bare string',
    typed({ key: { type: 'uuid', enum: ['set', ['00000000-0000-0000-0000-000000000000']] } }),
    'tables.T.columns.a.type.key.enum.0',
    'expected ["uuid", <string>] or ["named-uuid", <string>], got a string',
  ],
  [
    'refTable to a missing table',
    typed({ key: { type: 'uuid', refTable: 'Z' } }),
    'tables.T.columns.a.type.key.refTable',
    'no table named Z',
  ],
  [
    'value refTable to a missing table',
    typed({ key: { type: 'uuid', refTable: 'U' }, value: { type: 'uuid', refTable: 'Z' } }),
    'tables.T.columns.a.type.value.refTable',
    'no table named Z',
  ],
  [
    'refTable not an id',
    typed({ key: { type: 'uuid', refTable: 'a b' } }),
    'tables.T.columns.a.type.key.refTable',
    'expected a table name',
  ],
  [
    'bad refType',
    typed({ key: { type: 'uuid', refTable: 'U', refType: 'soft' } }),
    'tables.T.columns.a.type.key.refType',
    'expected "strong" or "weak"',
  ],
  [
    'refType without refTable',
    typed({ key: { type: 'uuid', refType: 'weak' } }),
    'tables.T.columns.a.type.key.refType',
    'not allowed without refTable',
  ],
  [
    'refTable on a string',
    typed({ key: { type: 'string', refTable: 'U' } }),
    'tables.T.columns.a.type.key.refTable',
    'not allowed for type string',
  ],
  [
    'refTable together with enum',
    typed({
      key: { type: 'uuid', enum: ['uuid', '00000000-0000-0000-0000-000000000000'], refTable: 'U' },
    }),
    'tables.T.columns.a.type.key.refTable',
    'not allowed together with enum',
  ],
  [
    'maxInteger 2^63 (beyond int64)',
    typed({ key: { type: 'integer', maxInteger: INT64_MAX + 1n } }),
    'tables.T.columns.a.type.key.maxInteger',
    'integer 9223372036854775808 is outside int64 (−2^63 to 2^63−1)',
  ],
  [
    'minInteger −2^63−1 (beyond int64)',
    typed({ key: { type: 'integer', minInteger: INT64_MIN - 1n } }),
    'tables.T.columns.a.type.key.minInteger',
    'integer -9223372036854775809 is outside int64 (−2^63 to 2^63−1)',
  ],
  [
    'minInteger exceeds maxInteger beyond 2^53',
    typed({
      key: { type: 'integer', minInteger: 9007199254740993n, maxInteger: 9007199254740992n },
    }),
    'tables.T.columns.a.type.key.maxInteger',
    'minInteger 9007199254740993 exceeds maxInteger 9007199254740992',
  ],
  [
    'enum element beyond int64',
    typed({ key: { type: 'integer', enum: ['set', [1, INT64_MAX + 1n]] } }),
    'tables.T.columns.a.type.key.enum.1',
    'integer 9223372036854775808 is outside int64 (−2^63 to 2^63−1)',
  ],
  [
    'enum with duplicate big integers',
    typed({ key: { type: 'integer', enum: ['set', [9007199254740993n, 9007199254740993n]] } }),
    'tables.T.columns.a.type.key.enum.1',
    'duplicate enum value 9007199254740993',
  ],
  [
    'max 2^63−1',
    typed({ key: 'integer', max: INT64_MAX }),
    'tables.T.columns.a.type.max',
    'expected an integer from 1 to 4294967295 or "unlimited"',
  ],
  [
    'maxLength 2^53',
    typed({ key: { type: 'string', maxLength: 2n ** 53n } }),
    'tables.T.columns.a.type.key.maxLength',
    'expected an integer from 0 to 4294967295',
  ],
  [
    'maxRows 2^63',
    schemaWith({ type: 'integer' }, { maxRows: INT64_MAX + 1n }),
    'tables.T.maxRows',
    'integer 9223372036854775808 is outside int64 (−2^63 to 2^63−1)',
  ],
];

describe('parseSchema rejects malformed schemas', () => {
  it('has at least 25 cases', () => {
    expect(malformed.length).toBeGreaterThanOrEqual(25);
  });

  it.each(malformed)('%s', (_desc, json, path, reason) => {
    const e = errorOf(json);
    expect({ path: e.path, reason: e.reason }).toEqual({ path, reason });
    expect(e.message).toBe(path === '' ? reason : `${path}: ${reason}`);
  });
});

/** `json` as JSON text, bigints written as their exact digits. */
function jsonText(json: unknown): string {
  return JSON.stringify(json, (_k, v: unknown) =>
    typeof v === 'bigint' ? `\u0000${v}` : v,
  ).replace(/"\\u0000(-?[0-9]+)"/g, '$1');
}

/** Schema `typed(type)` as text, with `type` given as JSON text. */
function typedText(type: string): string {
  return `{"name":"Test","version":"1.0.0","tables":{"T":{"columns":{"a":{"type":${type}}}},"U":{"columns":{"b":{"type":"integer"}}}}}`;
}

/** [description, schema JSON] of int64 schemas both parseSchema and ovsdb-tool accept. */
const int64Accepted: [string, unknown][] = [
  [
    'bounds at INT64_MIN and INT64_MAX',
    typed({ key: { type: 'integer', minInteger: INT64_MIN, maxInteger: INT64_MAX } }),
  ],
  [
    'an enum of big integers',
    typed({ key: { type: 'integer', enum: ['set', [INT64_MAX, INT64_MIN, 9007199254740993n]] } }),
  ],
  ['a bare big-integer enum', typed({ key: { type: 'integer', enum: INT64_MIN } })],
  ['maxRows 2^63−1', schemaWith({ type: 'integer' }, { maxRows: INT64_MAX })],
];

/** [description, schema text] that ovsdb-tool reads as integers although written as reals. */
const integralReals: [string, string][] = [
  ['minInteger 1.0', typedText('{"key":{"type":"integer","minInteger":1.0}}')],
  ['minInteger 1e3', typedText('{"key":{"type":"integer","minInteger":1e3}}')],
  ['an enum of 1.0', typedText('{"key":{"type":"integer","enum":["set",[1.0,2]]}}')],
  ['max 2.0', typedText('{"key":"integer","min":0,"max":2.0}')],
];

/** [description, schema text, expected path, expected reason]: integer tokens beyond int64. */
const beyondInt64Text: [string, string, string, string][] = [
  [
    'maxInteger 9223372036854775808',
    typedText('{"key":{"type":"integer","maxInteger":9223372036854775808}}'),
    'tables.T.columns.a.type.key.maxInteger',
    'integer 9223372036854776000 is outside int64 (−2^63 to 2^63−1)',
  ],
  [
    'minInteger -9223372036854775809',
    typedText('{"key":{"type":"integer","minInteger":-9223372036854775809}}'),
    'tables.T.columns.a.type.key.minInteger',
    'integer -9223372036854776000 is outside int64 (−2^63 to 2^63−1)',
  ],
  [
    'an enum of 10000000000000000000',
    typedText('{"key":{"type":"integer","enum":["set",[1,10000000000000000000]]}}'),
    'tables.T.columns.a.type.key.enum.1',
    'integer 10000000000000000000 is outside int64 (−2^63 to 2^63−1)',
  ],
];

describe('parseSchema over the int64 range', () => {
  it('reads bounds at INT64_MIN and INT64_MAX exactly, as bigints', () => {
    const s = parseSchema(int64Accepted[0]![1]);
    expect(s.tables['T']?.columns['a']?.type.key).toEqual({
      type: 'integer',
      minInteger: INT64_MIN,
      maxInteger: INT64_MAX,
    });
  });

  it('reads an enum of big integers exactly, in schema order', () => {
    const s = parseSchema(int64Accepted[1]![1]);
    expect(s.tables['T']?.columns['a']?.type.key.enum).toEqual([
      INT64_MAX,
      INT64_MIN,
      9007199254740993n,
    ]);
  });

  it('stores integers canonical: a bigint within ±(2^53−1) becomes a number', () => {
    const bounded = parseSchema(
      typed({ key: { type: 'integer', minInteger: -5n, maxInteger: 2n ** 53n - 1n } }),
    ).tables['T']?.columns['a']?.type.key;
    expect(bounded?.minInteger).toBe(-5);
    expect(bounded?.maxInteger).toBe(Number.MAX_SAFE_INTEGER);
    const e = parseSchema(typed({ key: { type: 'integer', enum: ['set', [7n, 2n ** 60n]] } }))
      .tables['T']?.columns['a']?.type.key.enum;
    expect(e).toEqual([7, 2n ** 60n]);
    expect(typeof e?.[0]).toBe('number');
  });

  it('keeps the input in json unchanged', () => {
    const json = int64Accepted[0]![1];
    expect(parseSchema(json).json).toBe(json);
  });

  it('takes maxRows beyond 2^53 as a number', () => {
    const s = parseSchema(int64Accepted[3]![1]);
    expect(s.tables['T']?.maxRows).toBe(2 ** 63);
  });

  it('rejects a number beyond ±(2^53−1), which is inexact, and names the fix', () => {
    const e = errorOf(typed({ key: { type: 'integer', maxInteger: 2 ** 60 } }));
    expect(e.path).toBe('tables.T.columns.a.type.key.maxInteger');
    expect(e.reason).toBe(
      'integer 1152921504606847000 is beyond ±(2^53−1), where a number is inexact: give it as a bigint',
    );
    const en = errorOf(typed({ key: { type: 'integer', enum: ['set', [1, -(2 ** 60)]] } }));
    expect(en.path).toBe('tables.T.columns.a.type.key.enum.1');
    expect(en.reason).toMatch(/^integer -1152921504606847000 is beyond ±\(2\^53−1\)/);
  });

  it('parseSchemaText reads integers beyond 2^53 exactly', () => {
    const s = parseSchemaText(
      typedText(
        '{"key":{"type":"integer","minInteger":-9223372036854775808,"maxInteger":9223372036854775807}}',
      ),
    );
    expect(s.tables['T']?.columns['a']?.type.key.minInteger).toBe(INT64_MIN);
    expect(s.tables['T']?.columns['a']?.type.key.maxInteger).toBe(INT64_MAX);
    const e = parseSchemaText(
      typedText('{"key":{"type":"integer","enum":["set",[9007199254740993,1]]}}'),
    );
    expect(e.tables['T']?.columns['a']?.type.key.enum).toEqual([9007199254740993n, 1]);
  });

  it.each(beyondInt64Text)('parseSchemaText rejects %s', (_desc, text, path, reason) => {
    let e: unknown;
    try {
      parseSchemaText(text);
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(SchemaError);
    expect({ path: (e as SchemaError).path, reason: (e as SchemaError).reason }).toEqual({
      path,
      reason,
    });
  });

  it('JSON.parse rounds INT64_MAX, so parseSchema rejects what parseSchemaText reads', () => {
    const text = typedText('{"key":{"type":"integer","maxInteger":9223372036854775807}}');
    expect(errorOf(JSON.parse(text)).reason).toBe(
      'integer 9223372036854776000 is outside int64 (−2^63 to 2^63−1)',
    );
    expect(parseSchemaText(text).tables['T']?.columns['a']?.type.key.maxInteger).toBe(INT64_MAX);
  });

  it.each(integralReals)('parseSchemaText takes %s as an integer', (_desc, text) => {
    const s = parseSchemaText(text);
    const t = s.tables['T']?.columns['a']?.type;
    expect(
      [t?.key.minInteger, ...(t?.key.enum ?? []), t?.max].every(
        (v) => v === undefined || Number.isSafeInteger(v),
      ),
    ).toBe(true);
  });

  it('compareSchemas compares big-integer enums and bounds by value', () => {
    const a = parseSchema(int64Accepted[1]![1]);
    const b = parseSchema(int64Accepted[1]![1]);
    expect(compareSchemas(a, b).typeDifferences).toEqual([]);
    const c = parseSchema(
      typed({ key: { type: 'integer', enum: ['set', [INT64_MAX, INT64_MIN, 1]] } }),
    );
    expect(compareSchemas(a, c).typeDifferences).toMatchObject([
      { table: 'T', column: 'a', incompatible: false },
    ]);
  });
});

describe('ovsdb-tool agrees', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ovnkit-schema-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;

  /** Run `ovsdb-tool create` on `json` (or on schema text); returns its exit status and stderr. */
  function ovsdbToolCreate(json: unknown): { status: number | null; stderr: string } {
    n++;
    const schemaFile = join(dir, `s${n}.json`);
    writeFileSync(schemaFile, typeof json === 'string' ? json : jsonText(json));
    const r = spawnSync('ovsdb-tool', ['create', join(dir, `d${n}.db`), schemaFile], {
      encoding: 'utf8',
    });
    return { status: r.status, stderr: r.stderr };
  }

  it('rejects every malformed schema that parseSchema rejects', () => {
    for (const [desc, json] of malformed) {
      const r = ovsdbToolCreate(json);
      expect([desc, r.status !== 0]).toEqual([desc, true]);
      expect(r.stderr).toMatch(/ovsdb-tool: /);
    }
  });

  it.each([
    ['no version', { name: 'x', tables: { T: { columns: { a: { type: 'integer' } } } } }],
    ['an index on _uuid', schemaWith({ type: 'integer' }, { indexes: [['_uuid', 'a']] })],
    ['maxLength 0', typed({ key: { type: 'string', maxLength: 0 } })],
    ['a bare-atom enum', typed({ key: { type: 'string', enum: 'only' } })],
    [
      'an immutable weak reference',
      typed({ key: { type: 'uuid', refTable: 'U', refType: 'weak' } }, { mutable: false }),
    ],
    ['no tables', { name: 'x', tables: {} }],
    ...int64Accepted,
  ])('accepts %s, as parseSchema does', (_desc, json) => {
    expect(() => parseSchema(json)).not.toThrow();
    expect(ovsdbToolCreate(json)).toEqual({ status: 0, stderr: '' });
  });

  it.each(beyondInt64Text)('rejects %s, as parseSchemaText does', (_desc, text) => {
    const r = ovsdbToolCreate(text);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/ovsdb-tool: .*(Type mismatch|expected integer)/);
  });

  it.each(integralReals)('accepts %s as an integer, as parseSchemaText does', (_desc, text) => {
    expect(() => parseSchemaText(text)).not.toThrow();
    expect(ovsdbToolCreate(text)).toEqual({ status: 0, stderr: '' });
  });

  it('writes the bigints of the int64 cases as exact digits', () => {
    expect(jsonText({ a: [INT64_MIN, 1, 'x'] })).toBe('{"a":[-9223372036854775808,1,"x"]}');
  });
});

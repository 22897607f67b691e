import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSchema, parseSchemaText } from '../../../src/ovsdb/schema/schema.js';
import type {
  ColumnSchema,
  DatabaseSchema,
  TableSchema,
} from '../../../src/ovsdb/schema/schema-types.js';
import {
  columnValidator,
  columnValueProblem,
  describeColumnType,
  rowValidator,
  type ValidationError,
  validateColumnValue,
  validateRow,
} from '../../../src/ovsdb/values/validators.js';
import { DatumError } from '../../../src/ovsdb/wire/errors.js';

const nb = parseSchemaText(
  readFileSync(join(import.meta.dirname, '../../fixtures/schemas/ovn-nb-7.18.0.ovsschema'), 'utf8'),
);

const U1 = '6a7b4e2c-1f3d-4c5b-9a8e-0123456789ab';

const custom = parseSchema({
  name: 'V',
  version: '1.0.0',
  tables: {
    T: {
      columns: {
        i: { type: 'integer' },
        r: { type: { key: { type: 'real', minReal: -1.5, maxReal: 2.5 } } },
        ie: { type: { key: { type: 'integer', enum: ['set', [1, 2, 3]] } } },
        be: { type: { key: { type: 'boolean', enum: true } } },
        ue: { type: { key: { type: 'uuid', enum: ['uuid', U1] } } },
        len: { type: { key: { type: 'string', minLength: 2, maxLength: 3 } } },
        s2: { type: { key: 'string', min: 0, max: 2 } },
        s1: { type: { key: 'string', min: 1, max: 'unlimited' } },
        su: { type: { key: 'uuid', min: 0, max: 'unlimited' } },
        sr: { type: { key: 'real', min: 0, max: 'unlimited' } },
        u: { type: 'uuid' },
        o: { type: { key: 'integer', min: 0, max: 1 } },
        m: {
          type: {
            key: { type: 'integer', minInteger: 0, maxInteger: 9 },
            value: { type: 'string', enum: ['set', ['x', 'y']] },
            min: 0,
            max: 2,
          },
        },
        m1: { type: { key: 'string', value: 'string', min: 1, max: 'unlimited' } },
        mu: { type: { key: 'uuid', value: 'string', min: 0, max: 'unlimited' } },
        fixed: { type: 'string', mutable: false },
      },
    },
  },
});

function column(schema: DatabaseSchema, t: string, c: string): ColumnSchema {
  const col = schema.tables[t]?.columns[c];
  if (col === undefined) throw new Error(`${t}.${c}`);
  return col;
}

const T = custom.tables['T'] as TableSchema;
const c = (name: string) => column(custom, 'T', name);

function datumError(fn: () => unknown): DatumError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DatumError) return e;
    throw e;
  }
  throw new Error('expected a DatumError');
}

describe('validateColumnValue on OVN NB', () => {
  it('names the maxInteger rule', () => {
    const e = datumError(() => validateColumnValue('ACL', column(nb, 'ACL', 'priority'), 40000));
    expect(e.message).toBe('ACL.priority: integer 40000 is above maxInteger 32767 (value: 40000)');
    expect([e.table, e.column, e.value]).toEqual(['ACL', 'priority', 40000]);
  });

  it('names the minInteger rule', () => {
    expect(
      datumError(() => validateColumnValue('ACL', column(nb, 'ACL', 'priority'), -1)).reason,
    ).toBe('integer -1 is below minInteger 0');
  });

  it('lists the enum', () => {
    expect(
      datumError(() => validateColumnValue('ACL', column(nb, 'ACL', 'action'), 'foo')).reason,
    ).toBe('"foo" is not one of allow, allow-related, allow-stateless, drop, reject, pass');
  });

  it('accepts valid NB values', () => {
    expect(() => validateColumnValue('ACL', column(nb, 'ACL', 'priority'), 32767)).not.toThrow();
    expect(() =>
      validateColumnValue('ACL', column(nb, 'ACL', 'action'), 'allow-related'),
    ).not.toThrow();
    expect(() => validateColumnValue('ACL', column(nb, 'ACL', 'name'), null)).not.toThrow();
    expect(() =>
      validateColumnValue('QoS', column(nb, 'QoS', 'bandwidth'), { rate: 100, burst: 10 }),
    ).not.toThrow();
  });

  it('checks map keys and values on QoS.bandwidth', () => {
    const bw = column(nb, 'QoS', 'bandwidth');
    expect(datumError(() => validateColumnValue('QoS', bw, { speed: 1 })).reason).toBe(
      'map key "speed": "speed" is not one of rate, burst',
    );
    expect(datumError(() => validateColumnValue('QoS', bw, { rate: 0 })).reason).toBe(
      'value of map key "rate": integer 0 is below minInteger 1',
    );
  });

  it('checks the maxLength of ACL.name', () => {
    const name = column(nb, 'ACL', 'name');
    expect(() => validateColumnValue('ACL', name, 'a'.repeat(63))).not.toThrow();
    expect(datumError(() => validateColumnValue('ACL', name, 'a'.repeat(64))).reason).toBe(
      `string "${'a'.repeat(56)}... (64 code points) is longer than maxLength 63`,
    );
  });
});

describe('atomic types and ranges', () => {
  it.each([
    ['i', 1.5, 'expected an integer, got number 1.5'],
    ['i', '1', 'expected an integer, got string "1"'],
    [
      'i',
      2 ** 53,
      'integer 9007199254740992 is not a safe JS integer (it may already be rounded): pass it as a bigint, e.g. 9007199254740992n',
    ],
    [
      'i',
      -(2 ** 53),
      'integer -9007199254740992 is not a safe JS integer (it may already be rounded): pass it as a bigint, e.g. -9007199254740992n',
    ],
    ['i', '-9223372036854775809n', 'expected an integer, got string "-9223372036854775809n"'],
    ['r', Number.NaN, 'real NaN is not finite'],
    ['r', 2.6, 'real 2.6 is above maxReal 2.5'],
    ['r', -1.6, 'real -1.6 is below minReal -1.5'],
    ['r', 'x', 'expected a real, got string "x"'],
    ['ie', 4, '4 is not one of 1, 2, 3'],
    ['ie', 1.5, 'expected an integer, got number 1.5'],
    ['be', false, 'false is not one of true'],
    [
      'ue',
      'f0e1d2c3-b4a5-4968-8776-5544332211ff',
      `"f0e1d2c3-b4a5-4968-8776-5544332211ff" is not one of ${U1}`,
    ],
    ['u', 'abc', '"abc" is not a UUID'],
    ['u', 5, 'expected a UUID string, got integer 5'],
    ['u', null, 'a value is required, got null'],
    ['i', undefined, 'a value is required, got undefined'],
    ['o', 'x', 'expected an integer, got string "x"'],
    ['len', 5, 'expected a string, got integer 5'],
    ['len', '\ud800ab', 'string "\\ud800ab" contains a lone UTF-16 surrogate'],
  ])('%s rejects %j', (name, value, reason) => {
    const e = datumError(() => validateColumnValue('T', c(name), value));
    expect([e.table, e.column, e.reason]).toEqual(['T', name, reason]);
  });

  it.each([
    ['i', Number.MAX_SAFE_INTEGER],
    ['r', 2.5],
    ['r', -1.5],
    ['ie', 3],
    ['be', true],
    ['ue', U1.toUpperCase()],
    ['u', U1],
    ['o', null],
    ['o', -3],
  ])('%s accepts %j', (name, value) => {
    expect(columnValueProblem(c(name), value)).toBeUndefined();
  });

  it('takes bigints for integers within int64, and no further', () => {
    expect(columnValueProblem(c('i'), 2n ** 63n - 1n)).toBeUndefined();
    expect(columnValueProblem(c('i'), -(2n ** 63n))).toBeUndefined();
    expect(columnValueProblem(c('i'), 7n)).toBeUndefined();
    expect(columnValueProblem(c('i'), -(2n ** 63n) - 1n)).toBe(
      'integer -9223372036854775809 is outside the int64 range -9223372036854775808..9223372036854775807',
    );
    expect(columnValueProblem(c('i'), 2n ** 63n)).toMatch(/outside the int64 range/);
    expect(columnValueProblem(c('o'), 2n ** 60n)).toBeUndefined();
  });
});

describe('string lengths count Unicode code points', () => {
  it.each([
    ['ab', true],
    ['abc', true],
    ['😀😀', true], // 2 code points, 4 UTF-16 units
    ['😀😀😀', true], // 3 code points, 6 UTF-16 units
    ['e\u0301', true], // 2 code points (combining accent)
    ['é', false],
    ['😀', false],
    ['abcd', false],
    ['😀😀😀😀', false],
  ])('%j valid: %s', (value, ok) => {
    expect(columnValueProblem(c('len'), value) === undefined).toBe(ok);
  });

  it('reports the code-point count', () => {
    expect(columnValueProblem(c('len'), '😀')).toBe(
      'string "😀" (1 code points) is shorter than minLength 2',
    );
    expect(columnValueProblem(c('len'), '😀😀😀😀')).toBe(
      'string "😀😀😀😀" (4 code points) is longer than maxLength 3',
    );
  });
});

describe('sets', () => {
  it('checks cardinality', () => {
    expect(columnValueProblem(c('s2'), ['a', 'b', 'c'])).toBe('set has 3 elements, max 2');
    expect(columnValueProblem(c('s1'), [])).toBe('set has 0 elements, min 1');
    expect(columnValueProblem(c('s2'), [])).toBeUndefined();
    expect(columnValueProblem(c('s1'), ['a', 'b', 'c', 'd'])).toBeUndefined();
  });

  it('rejects duplicate elements', () => {
    expect(columnValueProblem(c('s2'), ['a', 'a'])).toBe('duplicate set element "a"');
    expect(columnValueProblem(c('su'), [U1, U1.toUpperCase()])).toBe(
      `duplicate set element "${U1.toUpperCase()}"`,
    );
    expect(columnValueProblem(c('sr'), [0, -0])).toBe('duplicate set element 0');
  });

  it('names the bad element', () => {
    expect(columnValueProblem(c('su'), [U1, 'nope'])).toBe('element 1: "nope" is not a UUID');
  });

  it('requires an array', () => {
    expect(columnValueProblem(c('s2'), 'a')).toBe('expected an array, got string "a"');
  });
});

describe('maps', () => {
  it('checks key and value constraints', () => {
    expect(columnValueProblem(c('m'), { '3': 'x', '9': 'y' })).toBeUndefined();
    expect(columnValueProblem(c('m'), { '10': 'x' })).toBe(
      'map key "10": integer 10 is above maxInteger 9',
    );
    expect(columnValueProblem(c('m'), { '1': 'z' })).toBe(
      'value of map key "1": "z" is not one of x, y',
    );
    expect(columnValueProblem(c('m'), { '01': 'x' })).toBe(
      'map key "01" is not an integer in canonical decimal form',
    );
  });

  it('checks cardinality', () => {
    expect(columnValueProblem(c('m'), { '1': 'x', '2': 'x', '3': 'y' })).toBe(
      'map has 3 pairs, max 2',
    );
    expect(columnValueProblem(c('m1'), {})).toBe('map has 0 pairs, min 1');
  });

  it('rejects uuid keys that differ only in case', () => {
    expect(columnValueProblem(c('mu'), { [U1]: 'a', [U1.toUpperCase()]: 'b' })).toBe(
      `duplicate map key "${U1.toUpperCase()}"`,
    );
  });

  it('requires a plain object', () => {
    expect(columnValueProblem(c('m1'), ['a'])).toBe('expected a plain object, got an array');
    expect(columnValueProblem(c('m1'), new Map())).toBe('expected a plain object, got an object');
    expect(
      columnValueProblem(c('m1'), Object.assign(Object.create(null), { a: 'b' })),
    ).toBeUndefined();
  });

  it('accepts a __proto__ key stored as own property', () => {
    const v: Record<string, unknown> = {};
    Object.defineProperty(v, '__proto__', { value: 'x', enumerable: true });
    expect(columnValueProblem(c('m1'), v)).toBeUndefined();
  });
});

describe('columnValidator', () => {
  it('is cached per table and column', () => {
    expect(columnValidator('T', c('m'))).toBe(columnValidator('T', c('m')));
    expect(columnValidator('T', c('m'))).not.toBe(columnValidator('T', c('i')));
  });

  it('reports the same reason as validateColumnValue', () => {
    const r = columnValidator('ACL', column(nb, 'ACL', 'priority')).safeParse(40000);
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message)).toEqual([
      'integer 40000 is above maxInteger 32767',
    ]);
  });

  it('passes valid values through unchanged', () => {
    const v = { '1': 'x' };
    expect(columnValidator('T', c('m')).parse(v)).toBe(v);
  });

  it('describes the column', () => {
    expect(columnValidator('ACL', column(nb, 'ACL', 'priority')).description).toBe(
      'ACL.priority: integer 0–32767',
    );
  });

  it('parse throws a ValidationError listing the issues', () => {
    let error: unknown;
    try {
      columnValidator('ACL', column(nb, 'ACL', 'priority')).parse(-1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Error);
    expect((error as ValidationError).issues).toMatchObject([
      { message: 'integer -1 is below minInteger 0', path: [] },
    ]);
  });

  it('implements the Standard Schema interface (v1)', async () => {
    const v = columnValidator('ACL', column(nb, 'ACL', 'priority'));
    expect([v['~standard'].version, v['~standard'].vendor]).toEqual([1, 'zod']);
    expect(await v['~standard'].validate(5)).toEqual({ value: 5 });
    const bad = await v['~standard'].validate(40000);
    expect(bad.issues?.map((i) => i.message)).toEqual(['integer 40000 is above maxInteger 32767']);
  });
});

describe('rows', () => {
  it('accepts a valid insert and update', () => {
    const row = { i: 1, s2: ['a'], fixed: 'x', o: undefined };
    expect(rowValidator(T, 'insert').parse(row)).toBe(row);
    expect(() => validateRow(T, { i: 2, m: {} }, 'update')).not.toThrow();
  });

  it('reports every problem with the column as path', () => {
    const r = rowValidator(T, 'update').safeParse({ i: 'x', nope: 1, fixed: 'y', _uuid: U1 });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => [i.path, i.message])).toEqual([
      [['i'], 'expected an integer, got string "x"'],
      [['nope'], 'table T has no column nope'],
      [['fixed'], 'column fixed is immutable'],
      [['_uuid'], '_uuid cannot be written'],
    ]);
  });

  it('rejects _uuid and _version on insert, but allows immutable columns', () => {
    const e = datumError(() => validateRow(T, { _version: U1 }, 'insert'));
    expect([e.table, e.column, e.reason]).toEqual([
      'T',
      '_version',
      "_version cannot be written (an insert chooses its UUID with the operation's uuid option)",
    ]);
    expect(() => validateRow(T, { fixed: 'x' }, 'insert')).not.toThrow();
  });

  it('throws DatumError naming table and column', () => {
    const acl = nb.tables['ACL'] as TableSchema;
    const e = datumError(() => validateRow(acl, { priority: 1, action: 'nope' }, 'insert'));
    expect(e.message).toBe(
      'ACL.action: "nope" is not one of allow, allow-related, allow-stateless, drop, reject, pass (value: "nope")',
    );
    expect(datumError(() => validateRow(acl, { bogus: 1 }, 'update')).reason).toBe(
      'table ACL has no column bogus',
    );
  });

  it('rejects a non-object row', () => {
    const e = datumError(() => validateRow(T, [1], 'insert'));
    expect([e.table, e.column, e.reason]).toEqual([
      'T',
      undefined,
      'expected a row object, got an array',
    ]);
  });

  it('is cached per table and mode', () => {
    expect(rowValidator(T, 'insert')).toBe(rowValidator(T, 'insert'));
    expect(rowValidator(T, 'insert')).not.toBe(rowValidator(T, 'update'));
  });
});

describe('describeColumnType', () => {
  it.each([
    ['ACL', 'priority', 'integer 0–32767'],
    ['ACL', 'name', 'optional string (length ≤ 63)'],
    ['ACL', 'direction', 'string ∈ {"from-lport", "to-lport"}'],
    ['Logical_Switch', 'ports', 'set of 0..∞ uuids → Logical_Switch_Port'],
    ['Logical_Switch_Port', 'addresses', 'set of 0..∞ strings'],
    ['Logical_Switch', 'external_ids', 'map of string → string'],
    ['Logical_Router_Policy', 'output_port', 'optional uuid → Logical_Router_Port (weak)'],
    ['Connection', 'max_backoff', 'optional integer ≥ 1000'],
    ['Forwarding_Group', 'child_port', 'set of 1..∞ strings'],
    ['QoS', 'bandwidth', 'map of string ∈ {"rate", "burst"} → integer 1–4294967295'],
    ['NB_Global', 'ipsec', 'boolean'],
    ['NB_Global', '_uuid', 'uuid'],
  ])('%s.%s is %s', (t, col, text) => {
    expect(describeColumnType(column(nb, t, col))).toBe(text);
  });

  it('describes bounded sets and maps', () => {
    expect(describeColumnType(c('s2'))).toBe('set of 0..2 strings');
    expect(describeColumnType(c('m'))).toBe(
      'map of integer 0–9 → string ∈ {"x", "y"} (0..2 pairs)',
    );
    expect(describeColumnType(c('len'))).toBe('string (length 2–3)');
    expect(describeColumnType(c('r'))).toBe('real -1.5–2.5');
  });
});

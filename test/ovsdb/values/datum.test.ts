import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSchema } from '../../../src/ovsdb/schema/schema.js';
import type { ColumnSchema, TableSchema } from '../../../src/ovsdb/schema/schema-types.js';
import {
  compileColumnCodec,
  compileTableCodec,
  decodeAtom,
  defaultValue,
  encodeAtom,
  mapKeyString,
  parseMapKey,
} from '../../../src/ovsdb/values/datum.js';
import { DatumError } from '../../../src/ovsdb/wire/errors.js';

const U1 = '6a7b4e2c-1f3d-4c5b-9a8e-0123456789ab';
const U2 = 'f0e1d2c3-b4a5-4968-8776-5544332211ff';

const schema = parseSchema({
  name: 'Datum',
  version: '1.0.0',
  tables: {
    T: {
      columns: {
        i: { type: 'integer' },
        r: { type: 'real' },
        b: { type: 'boolean' },
        s: { type: 'string' },
        u: { type: 'uuid' },
        ref: { type: { key: { type: 'uuid', refTable: 'T' } } },
        oi: { type: { key: 'integer', min: 0, max: 1 } },
        ou: { type: { key: 'uuid', min: 0, max: 1 } },
        ss: { type: { key: 'string', min: 0, max: 'unlimited' } },
        si: { type: { key: 'integer', min: 1, max: 4 } },
        su: { type: { key: 'uuid', min: 0, max: 'unlimited' } },
        mss: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
        mis: { type: { key: 'integer', value: 'string', min: 0, max: 'unlimited' } },
        mrb: { type: { key: 'real', value: 'boolean', min: 0, max: 'unlimited' } },
        mbi: { type: { key: 'boolean', value: 'integer', min: 0, max: 'unlimited' } },
        mus: { type: { key: 'uuid', value: 'string', min: 0, max: 'unlimited' } },
        msu: { type: { key: 'string', value: 'uuid', min: 0, max: 'unlimited' } },
        m1: { type: { key: 'integer', value: 'uuid', min: 1, max: 'unlimited' } },
      },
    },
  },
});

const T = schema.tables['T'] as TableSchema;

function col(name: string): ColumnSchema {
  const c = T.columns[name];
  if (c === undefined) throw new Error(name);
  return c;
}

function codec(name: string) {
  return compileColumnCodec('T', col(name));
}

function datumError(fn: () => unknown): DatumError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DatumError) return e;
    throw e;
  }
  throw new Error('expected a DatumError');
}

describe('scalar columns', () => {
  it.each([
    ['i', 42, 42],
    ['i', -7, -7],
    ['r', 1.5, 1.5],
    ['r', 3, 3],
    ['b', true, true],
    ['s', 'héllo', 'héllo'],
    ['u', ['uuid', U1], U1],
    ['ref', ['uuid', U2], U2],
  ])('%s decodes %j', (c, wire, js) => {
    expect(codec(c).decode(wire)).toEqual(js);
  });

  it.each([
    ['i', 42, 42],
    ['r', 1.5, 1.5],
    ['b', false, false],
    ['s', '', ''],
    ['u', U1, ['uuid', U1]],
  ])('%s encodes %j', (c, js, wire) => {
    expect(codec(c).encode(js)).toEqual(wire);
  });

  it('decodes a one-element set as the scalar', () => {
    expect(codec('i').decode(['set', [5]])).toBe(5);
    expect(codec('u').decode(['set', [['uuid', U1]]])).toBe(U1);
  });

  it('rejects an empty or two-element set for a scalar', () => {
    expect(datumError(() => codec('i').decode(['set', []])).message).toBe(
      'T.i: expected exactly one value, got a set of 0 (value: ["set",[]])',
    );
    expect(datumError(() => codec('i').decode(['set', [1, 2]])).reason).toBe(
      'expected exactly one value, got a set of 2',
    );
  });

  it('lower-cases UUIDs on decode and encode', () => {
    expect(codec('u').decode(['uuid', U1.toUpperCase()])).toBe(U1);
    expect(codec('u').encode(U1.toUpperCase())).toEqual(['uuid', U1]);
  });

  it('rejects null for a scalar on encode', () => {
    const e = datumError(() => codec('s').encode(null));
    expect([e.table, e.column, e.reason]).toEqual(['T', 's', 'a value is required, got null']);
  });
});

describe('integer range', () => {
  it.each([
    [
      2 ** 53,
      'integer 9007199254740992 is not a safe JS integer (it may already be rounded): pass it as a bigint, e.g. 9007199254740992n',
    ],
    [
      -(2 ** 53),
      'integer -9007199254740992 is not a safe JS integer (it may already be rounded): pass it as a bigint, e.g. -9007199254740992n',
    ],
    [2 ** 64, 'integer 18446744073709552000 is outside the int64 range'],
    [1.5, 'expected an integer, got a real'],
    ['1', 'expected an integer, got a string'],
  ])('decode rejects %j', (wire, reason) => {
    const e = datumError(() => codec('i').decode(wire));
    expect([e.table, e.column, e.value, e.reason]).toEqual(['T', 'i', wire, reason]);
  });

  it('accepts ±(2^53−1) as numbers and the rest of int64 as bigints, in canonical form', () => {
    expect(codec('i').decode(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
    expect(codec('i').encode(Number.MIN_SAFE_INTEGER)).toBe(Number.MIN_SAFE_INTEGER);
    expect(codec('i').decode(2n ** 63n - 1n)).toBe(2n ** 63n - 1n);
    expect(codec('i').decode(-(2n ** 63n))).toBe(-(2n ** 63n));
    expect(codec('i').encode(2n ** 53n + 1n)).toBe(2n ** 53n + 1n);
    // A bigint that is a safe integer becomes the number.
    expect(codec('i').encode(-42n)).toBe(-42);
    expect(codec('i').decode(42n)).toBe(42);
    expect(codec('si').decode(['set', [1n, 2n ** 60n]])).toStrictEqual([1, 2n ** 60n]);
  });

  it('rejects a bigint beyond int64', () => {
    for (const v of [2n ** 63n, -(2n ** 63n) - 1n]) {
      for (const e of [
        datumError(() => codec('i').decode(v)),
        datumError(() => codec('i').encode(v)),
      ]) {
        expect([e.table, e.column, e.value, e.reason]).toEqual([
          'T',
          'i',
          v,
          `integer ${v} is outside the int64 range -9223372036854775808..9223372036854775807`,
        ]);
      }
    }
  });

  it('rejects an unsafe number on encode, and a number JSON.parse rounded on decode', () => {
    expect(datumError(() => codec('i').encode(2 ** 53)).reason).toMatch(
      /^integer 9007199254740992 is not a safe JS integer .*: pass it as a bigint/,
    );
    const parsed: unknown = JSON.parse('9007199254740993');
    expect(() => codec('i').decode(parsed)).toThrow(DatumError);
  });

  it('decodes a real sent as a long integer token (a bigint) as its number', () => {
    expect(codec('r').decode(2n ** 60n)).toBe(2 ** 60);
  });

  it('rejects non-finite reals on encode', () => {
    expect(datumError(() => codec('r').encode(Number.NaN)).reason).toBe('real NaN is not finite');
    expect(datumError(() => codec('r').encode(Infinity)).reason).toBe(
      'real Infinity is not finite',
    );
  });
});

describe('wrong types', () => {
  it.each([
    ['r', 'x', 'expected a real, got a string'],
    ['b', 0, 'expected a boolean, got an integer'],
    ['s', 5, 'expected a string, got an integer'],
    ['s', null, 'expected a string, got null'],
    ['u', U1, 'expected ["uuid", <string>] or ["named-uuid", <string>], got a string'],
    ['u', ['uuid', 'nope'], '"nope" is not a UUID'],
    [
      'u',
      ['uuid', U1, 'x'],
      'expected ["uuid", <string>] or ["named-uuid", <string>], got an array',
    ],
    ['ss', ['map', []], 'expected a string, got an array'],
    ['mss', ['set', []], 'expected ["map", [[key, value], ...]], got an array'],
    ['mss', 'x', 'expected ["map", [[key, value], ...]], got a string'],
    ['mss', ['map', [['a']]], 'expected a [key, value] pair'],
    ['mss', ['map', [['a', 1]]], 'expected a string, got an integer'],
    ['mss', ['map', [[1, 'a']]], 'expected a string, got an integer'],
    [
      'mss',
      [
        'map',
        [
          ['a', 'b'],
          ['a', 'c'],
        ],
      ],
      'duplicate map key "a"',
    ],
    [
      'mss',
      [
        'map',
        [
          ['__proto__', 'b'],
          ['__proto__', 'c'],
        ],
      ],
      'duplicate map key "__proto__"',
    ],
    [
      'msu',
      ['map', [['k', 'v']]],
      'expected ["uuid", <string>] or ["named-uuid", <string>], got a string',
    ],
    ['mis', ['map', [['1', 'a']]], 'expected an integer, got a string'],
    ['ss', ['set', 'a'], 'expected ["set", [...]]'],
  ])('%s decode rejects %j', (c, wire, reason) => {
    const e = datumError(() => codec(c).decode(wire));
    expect([e.table, e.column, e.reason]).toEqual(['T', c, reason]);
  });

  it.each([
    ['i', '1', 'expected an integer, got a string'],
    ['u', 'nope', '"nope" is not a UUID'],
    ['u', 5, 'expected a UUID string, got an integer'],
    ['ss', 'a', 'expected an array, got a string'],
    ['ss', ['a', 1], 'expected a string, got an integer'],
    ['mss', ['a'], 'expected a plain object, got an array'],
    ['mss', new Map([['a', 'b']]), 'expected a plain object, got an object'],
    ['mss', null, 'expected a plain object, got null'],
    ['mis', { '01': 'x' }, 'map key "01" is not an integer in canonical decimal form'],
    ['mis', { a: 'x' }, 'map key "a" is not an integer in canonical decimal form'],
    [
      'mis',
      { '9223372036854775808': 'x' },
      'map key "9223372036854775808": integer 9223372036854775808 is outside the int64 range',
    ],
    ['mrb', { '1.50': true }, 'map key "1.50" is not a real in canonical form (String(n))'],
    ['mbi', { yes: 1 }, 'map key "yes" is not "true" or "false"'],
    ['mus', { x: 'a' }, 'map key "x" is not a UUID'],
    ['mss', { a: 1 }, 'expected a string, got an integer'],
  ])('%s encode rejects %j', (c, js, reason) => {
    const e = datumError(() => codec(c).encode(js));
    expect([e.table, e.column, e.reason]).toEqual(['T', c, reason]);
  });

  it('puts table, column, reason and value in the message', () => {
    expect(datumError(() => codec('b').decode('true')).message).toBe(
      'T.b: expected a boolean, got a string (value: "true")',
    );
  });
});

describe('optional columns', () => {
  it('decodes the empty set to null', () => {
    expect(codec('oi').decode(['set', []])).toBeNull();
    expect(codec('ou').decode(['set', []])).toBeNull();
  });
  it('decodes a bare atom and a one-element set', () => {
    expect(codec('oi').decode(7)).toBe(7);
    expect(codec('oi').decode(['set', [7]])).toBe(7);
    expect(codec('ou').decode(['uuid', U1])).toBe(U1);
  });
  it('rejects two elements', () => {
    expect(datumError(() => codec('oi').decode(['set', [1, 2]])).reason).toBe(
      'expected at most one value, got a set of 2',
    );
  });
  it('encodes null as the empty set and a value as the bare atom', () => {
    expect(codec('oi').encode(null)).toEqual(['set', []]);
    expect(codec('oi').encode(3)).toBe(3);
    expect(codec('ou').encode(U2)).toEqual(['uuid', U2]);
  });
});

describe('set columns', () => {
  it('decodes sets, the empty set and a bare atom', () => {
    expect(codec('ss').decode(['set', ['a', 'b']])).toEqual(['a', 'b']);
    expect(codec('ss').decode(['set', []])).toEqual([]);
    expect(codec('ss').decode('only')).toEqual(['only']);
    expect(codec('su').decode(['uuid', U1])).toEqual([U1]);
    expect(
      codec('su').decode([
        'set',
        [
          ['uuid', U1],
          ['uuid', U2],
        ],
      ]),
    ).toEqual([U1, U2]);
  });
  it('does not check set sizes or duplicates (validators do)', () => {
    expect(codec('si').decode(['set', [1, 2, 3, 4, 5]])).toEqual([1, 2, 3, 4, 5]);
    expect(codec('si').decode(['set', []])).toEqual([]);
  });
  it('encodes arrays as ["set", ...], even with one element', () => {
    expect(codec('ss').encode(['a'])).toEqual(['set', ['a']]);
    expect(codec('ss').encode([])).toEqual(['set', []]);
    expect(codec('su').encode([U1])).toEqual(['set', [['uuid', U1]]]);
  });
});

describe('map columns', () => {
  it('decodes string maps and the empty map', () => {
    expect(
      codec('mss').decode([
        'map',
        [
          ['a', 'b'],
          ['c', 'd'],
        ],
      ]),
    ).toEqual({ a: 'b', c: 'd' });
    expect(codec('mss').decode(['map', []])).toEqual({});
  });

  it('uses decimal strings for integer keys and converts back', () => {
    const js = codec('mis').decode([
      'map',
      [
        [1, 'one'],
        [-20, 'minus twenty'],
      ],
    ]);
    expect(js).toEqual({ '1': 'one', '-20': 'minus twenty' });
    expect(codec('mis').encode(js)).toEqual([
      'map',
      [
        [1, 'one'],
        [-20, 'minus twenty'],
      ],
    ]);
  });

  it('uses String(n) for real keys and "true"/"false" for booleans', () => {
    const js = codec('mrb').decode([
      'map',
      [
        [1.5, true],
        [2, false],
      ],
    ]);
    expect(js).toEqual({ '1.5': true, '2': false });
    expect(codec('mrb').encode({ '1.5': true, '1e+21': false })).toEqual([
      'map',
      [
        [1.5, true],
        [1e21, false],
      ],
    ]);
    expect(
      codec('mbi').decode([
        'map',
        [
          [true, 1],
          [false, 0],
        ],
      ]),
    ).toEqual({ true: 1, false: 0 });
    expect(codec('mbi').encode({ false: 3 })).toEqual(['map', [[false, 3]]]);
  });

  it('uses UUID strings for uuid keys and ["uuid", ...] for uuid values', () => {
    const js = codec('mus').decode(['map', [[['uuid', U1.toUpperCase()], 'x']]]);
    expect(js).toEqual({ [U1]: 'x' });
    expect(codec('mus').encode(js)).toEqual(['map', [[['uuid', U1], 'x']]]);
    expect(codec('msu').decode(['map', [['k', ['uuid', U2]]]])).toEqual({ k: U2 });
    expect(codec('msu').encode({ k: U2 })).toEqual(['map', [['k', ['uuid', U2]]]]);
  });

  it('keeps a __proto__ key as an own property and leaves the prototype alone', () => {
    const js = codec('mss').decode([
      'map',
      [
        ['__proto__', 'polluted'],
        ['a', 'b'],
      ],
    ]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(js)).toBe(Object.prototype);
    expect(Object.hasOwn(js, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(js, '__proto__')?.value).toBe('polluted');
    expect(Object.keys(js)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(codec('mss').encode(js)).toEqual([
      'map',
      [
        ['__proto__', 'polluted'],
        ['a', 'b'],
      ],
    ]);
  });

  it('decodes keys such as constructor and toString as own data', () => {
    const js = codec('mss').decode([
      'map',
      [
        ['constructor', 'x'],
        ['toString', 'y'],
      ],
    ]);
    expect(js).toEqual({ constructor: 'x', toString: 'y' });
  });

  it('rejects duplicate keys on decode', () => {
    expect(
      datumError(() =>
        codec('mis').decode([
          'map',
          [
            [1, 'a'],
            [1, 'b'],
          ],
        ]),
      ).reason,
    ).toBe('duplicate map key "1"');
    expect(
      datumError(() =>
        codec('mus').decode([
          'map',
          [
            [['uuid', U1], 'a'],
            [['uuid', U1.toUpperCase()], 'b'],
          ],
        ]),
      ).reason,
    ).toBe(`duplicate map key "${U1}"`);
  });
});

describe('named UUIDs', () => {
  it('encodes UUIDs the callback names as ["named-uuid", name]', () => {
    const names = new Map([[U1, 'row1']]);
    const ctx = { namedUuid: (u: string) => names.get(u) };
    expect(codec('u').encode(U1, ctx)).toEqual(['named-uuid', 'row1']);
    expect(codec('u').encode(U2, ctx)).toEqual(['uuid', U2]);
    expect(codec('su').encode([U1, U2], ctx)).toEqual([
      'set',
      [
        ['named-uuid', 'row1'],
        ['uuid', U2],
      ],
    ]);
    expect(codec('mus').encode({ [U1]: 'v' }, ctx)).toEqual([
      'map',
      [[['named-uuid', 'row1'], 'v']],
    ]);
    expect(codec('msu').encode({ k: U1.toUpperCase() }, ctx)).toEqual([
      'map',
      [['k', ['named-uuid', 'row1']]],
    ]);
  });

  it('is a DatumError on decode without a resolver', () => {
    const e = datumError(() => codec('u').decode(['named-uuid', 'row1']));
    expect([e.table, e.column, e.reason]).toEqual([
      'T',
      'u',
      'named UUID "row1" is only allowed inside a transaction',
    ]);
  });

  it('resolves with the decode context', () => {
    const ctx = { resolveNamedUuid: (n: string) => (n === 'row1' ? U1 : 'garbage') };
    expect(codec('u').decode(['named-uuid', 'row1'], ctx)).toBe(U1);
    expect(
      codec('su').decode(
        [
          'set',
          [
            ['named-uuid', 'row1'],
            ['uuid', U2],
          ],
        ],
        ctx,
      ),
    ).toEqual([U1, U2]);
    expect(datumError(() => codec('u').decode(['named-uuid', 'other'], ctx)).reason).toBe(
      'named UUID "other" did not resolve to a UUID',
    );
  });
});

describe('table codecs', () => {
  const tc = compileTableCodec(T);

  it('is cached per table object, and column codecs per column', () => {
    expect(compileTableCodec(T)).toBe(tc);
    expect(compileColumnCodec('T', col('i'))).toBe(codec('i'));
    expect(tc.columns['i']).toBe(codec('i'));
    const other = parseSchema(schema.json).tables['T'] as TableSchema;
    expect(compileTableCodec(other)).not.toBe(tc);
  });

  it('decodes only the columns present, skipping unknown ones', () => {
    expect(
      tc.decodeRow({
        _uuid: ['uuid', U1],
        i: 3,
        ss: 'x',
        mss: ['map', [['k', 'v']]],
        column_from_a_newer_schema: 42,
      }),
    ).toEqual({ _uuid: U1, i: 3, ss: ['x'], mss: { k: 'v' } });
  });

  it('names the column in decodeRow errors', () => {
    const e = datumError(() => tc.decodeRow({ i: 3, b: 'no' }));
    expect([e.table, e.column, e.reason]).toEqual(['T', 'b', 'expected a boolean, got a string']);
  });

  it('encodes rows, skipping undefined members and applying named UUIDs', () => {
    expect(
      tc.encodeRow(
        { i: 1, oi: null, ss: ['a'], ref: U1, s: undefined },
        { namedUuid: (u) => (u === U1 ? 'n' : undefined) },
      ),
    ).toEqual({ i: 1, oi: ['set', []], ss: ['set', ['a']], ref: ['named-uuid', 'n'] });
  });

  it('rejects unknown columns in encodeRow', () => {
    const e = datumError(() => tc.encodeRow({ nope: 1 }));
    expect([e.table, e.column, e.reason]).toEqual(['T', 'nope', 'table T has no column nope']);
  });
});

describe('atoms and map keys', () => {
  it('decodes and encodes bare atoms', () => {
    expect(decodeAtom({ type: 'uuid' }, ['uuid', U1])).toBe(U1);
    expect(encodeAtom({ type: 'uuid' }, U1)).toEqual(['uuid', U1]);
    expect(decodeAtom({ type: 'integer' }, 5)).toBe(5);
    const e = datumError(() => decodeAtom({ type: 'integer' }, 'x'));
    expect([e.table, e.column, e.reason]).toEqual([
      undefined,
      undefined,
      'expected an integer, got a string',
    ]);
  });

  it('round-trips map keys', () => {
    expect(parseMapKey({ type: 'integer' }, mapKeyString(-12))).toBe(-12);
    expect(parseMapKey({ type: 'real' }, mapKeyString(0.1))).toBe(0.1);
    expect(parseMapKey({ type: 'boolean' }, mapKeyString(false))).toBe(false);
    expect(parseMapKey({ type: 'uuid' }, U1.toUpperCase())).toBe(U1);
  });
});

describe('defaultValue', () => {
  it.each([
    ['i', 0],
    ['r', 0],
    ['b', false],
    ['s', ''],
    ['u', '00000000-0000-0000-0000-000000000000'],
    ['ref', '00000000-0000-0000-0000-000000000000'],
    ['oi', null],
    ['ou', null],
    ['ss', []],
    ['si', [0]],
    ['mss', {}],
    ['m1', { '0': '00000000-0000-0000-0000-000000000000' }],
  ])('%s defaults to %j', (c, v) => {
    expect(defaultValue(col(c))).toEqual(v);
  });

  it('returns a fresh array each time', () => {
    const a = defaultValue(col('ss'));
    expect(a).not.toBe(defaultValue(col('ss')));
  });
});

describe('defaultValue against the real ovsdb-server', () => {
  const run = promisify(execFile);
  const dir = mkdtempSync(join(tmpdir(), 'ovnkit-datum-'));
  const sock = join(dir, 'db.sock');
  let pid: number | undefined;

  beforeAll(async () => {
    writeFileSync(join(dir, 'schema.json'), JSON.stringify(schema.json));
    await run('ovsdb-tool', ['create', join(dir, 'db'), join(dir, 'schema.json')]);
    const server = spawn(
      'ovsdb-server',
      [
        join(dir, 'db'),
        `--remote=punix:${sock}`,
        `--unixctl=${join(dir, 'x.ctl')}`,
        `--pidfile=${join(dir, 'x.pid')}`,
        `--log-file=${join(dir, 'x.log')}`,
      ],
      { stdio: 'ignore' },
    );
    pid = server.pid;
    for (let i = 0; i < 100; i++) {
      try {
        await run('ovsdb-client', ['list-dbs', `unix:${sock}`]);
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error('ovsdb-server did not start');
  });

  afterAll(() => {
    if (pid !== undefined) process.kill(pid);
    rmSync(dir, { recursive: true, force: true });
  });

  it('matches the row an insert with no columns creates', async () => {
    const { stdout } = await run('ovsdb-client', [
      'transact',
      `unix:${sock}`,
      JSON.stringify([
        'Datum',
        { op: 'insert', table: 'T', row: {} },
        { op: 'select', table: 'T', where: [] },
      ]),
    ]);
    const result = JSON.parse(stdout) as [unknown, { rows: Record<string, unknown>[] }];
    const wire = result[1].rows[0];
    if (wire === undefined) throw new Error('no row');
    const row = compileTableCodec(T).decodeRow(wire);
    expect(Object.keys(row).sort()).toEqual(Object.keys(T.columns).sort());
    for (const name of T.columnNames) {
      expect([name, row[name]]).toEqual([name, defaultValue(col(name))]);
    }
  });
});

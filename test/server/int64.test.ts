/**
 * The engine over full int64: integer atoms in canonical form (a number when
 * safe, a bigint beyond ±(2^53−1)), bounds near the int64 limits, conditions
 * and set order across numbers and bigints, the integer mutators with
 * ovsdb-server's exact overflow tests, and the schema as `get_schema` gives
 * it. The expected values are what ovsdb-server 3.1 answers (the same
 * transactions run against it in `conformance/int64.test.ts`).
 */

import { describe, expect, it } from 'vitest';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import { INT64_MAX, INT64_MIN } from '../../src/ovsdb/values/int64.js';
import {
  Database,
  ovsJsonText,
  schemaText,
  schemaToJson,
  type TransactResult,
} from '../../src/server/core-index.js';
import { jsonHash } from '../../src/server/engine/ovs-hmap.js';

const SAFE = 2 ** 53 - 1;

const schema = parseSchema({
  name: 'I',
  tables: {
    K: { isRoot: true, indexes: [['k']], columns: { k: { type: 'integer' } } },
    T: {
      isRoot: true,
      columns: {
        i: { type: 'integer' },
        r: { type: 'real' },
        s: { type: { key: 'integer', min: 0, max: 'unlimited' } },
        m: { type: { key: 'integer', value: 'integer', min: 0, max: 'unlimited' } },
        big: {
          type: {
            key: { type: 'integer', minInteger: -9007199254740993n, maxInteger: INT64_MAX - 1n },
          },
        },
        full: { type: { key: { type: 'integer', minInteger: INT64_MIN, maxInteger: INT64_MAX } } },
        top: { type: { key: { type: 'integer', minInteger: INT64_MIN, maxInteger: 100 } } },
        e: {
          type: {
            key: { type: 'integer', enum: ['set', [INT64_MAX, 1, 9007199254740993n, INT64_MIN]] },
            min: 0,
            max: 1,
          },
        },
      },
    },
  },
});

function run(db: Database, ops: unknown[]): unknown[] {
  const out = db.transact(ops);
  if (out.blocked === true) throw new Error('unexpectedly blocked');
  return (out as TransactResult).results;
}

/** Integers in ascending order (select returns rows in ovsdb-server's hash order). */
function ascending(xs: unknown[]): unknown[] {
  return [...xs].sort((a, b) => ((a as number) < (b as number) ? -1 : 1));
}

function selectI(db: Database): unknown {
  return run(db, [{ op: 'select', table: 'T', where: [], columns: ['i'] }])[0];
}

/** One row with `i = x`, then `i <mutator> y`: the mutate result and the value of `i` after it. */
function mutate(x: number | bigint, mutator: string, y: number | bigint): unknown {
  const db = new Database(schema);
  run(db, [{ op: 'insert', table: 'T', row: { i: x } }]);
  const [res] = run(db, [{ op: 'mutate', table: 'T', where: [], mutations: [['i', mutator, y]] }]);
  return { res, i: (selectI(db) as { rows: { i: unknown }[] }).rows[0]?.i };
}

const range = (m: string) => ({
  error: 'range error',
  details: `Result of "${m}" operation is out of range.`,
});

describe('storage and parsing', () => {
  it('stores INT64_MIN, INT64_MAX and ±(2^53±1) exactly, in canonical form', () => {
    const db = new Database(schema);
    const values = [INT64_MIN, INT64_MAX, SAFE, -SAFE, 2n ** 53n, -(2n ** 53n), 2n ** 53n + 1n];
    for (const v of values) run(db, [{ op: 'insert', table: 'T', row: { i: v } }]);
    const rows = (selectI(db) as { rows: { i: unknown }[] }).rows.map((r) => r.i);
    expect(ascending(rows)).toEqual(ascending(values));
    expect(ascending(rows.filter((v) => typeof v === 'number'))).toEqual([-SAFE, SAFE]);
  });

  it('takes a bigint within the safe range as the number it is', () => {
    const db = new Database(schema);
    run(db, [{ op: 'insert', table: 'T', row: { i: 42n } }]);
    expect(selectI(db)).toEqual({ rows: [{ i: 42 }] });
  });

  it('reads an integral number below 2^63 (an exponent-form token) as the integer it is', () => {
    const db = new Database(schema);
    run(db, [{ op: 'insert', table: 'T', row: { i: 1e16 } }]);
    run(db, [{ op: 'insert', table: 'T', row: { i: 9.2e18 } }]);
    const rows = (selectI(db) as { rows: { i: unknown }[] }).rows.map((r) => r.i);
    expect(ascending(rows)).toEqual([10000000000000000n, 9200000000000000000n]);
  });

  it('rejects a token beyond int64 as ovsdb-server does: "expected integer", echoed as a real', () => {
    const db = new Database(schema);
    expect(run(db, [{ op: 'insert', table: 'T', row: { i: 2 ** 63 } }])).toEqual([
      { error: 'syntax error', details: 'expected integer', syntax: '9.22337203685478e+18' },
    ]);
    expect(run(db, [{ op: 'insert', table: 'T', row: { i: -(2 ** 64) } }])).toEqual([
      { error: 'syntax error', details: 'expected integer', syntax: '-1.84467440737096e+19' },
    ]);
    expect(run(db, [{ op: 'insert', table: 'T', row: { i: INT64_MAX + 1n } }])).toEqual([
      { error: 'syntax error', details: 'expected integer', syntax: '9223372036854775808' },
    ]);
    expect(run(db, [{ op: 'insert', table: 'T', row: { i: 1.5 } }])).toEqual([
      { error: 'syntax error', details: 'expected integer', syntax: '1.5' },
    ]);
  });

  it('converts an integer token for a real column as json_real() does', () => {
    const db = new Database(schema);
    run(db, [{ op: 'insert', table: 'T', row: { r: 9007199254740993n } }]);
    const [sel] = run(db, [{ op: 'select', table: 'T', where: [], columns: ['r'] }]);
    expect(sel).toEqual({ rows: [{ r: 9007199254740990 }] });
  });

  it('checks bounds beyond 2^53 exactly, with ovsdb-server wording', () => {
    const db = new Database(schema);
    expect(run(db, [{ op: 'insert', table: 'T', row: { big: INT64_MAX } }])).toEqual([
      {
        error: 'constraint violation',
        details:
          '9223372036854775807 is not in the valid range -9007199254740993 to 9223372036854775806 (inclusive)',
      },
    ]);
    expect(run(db, [{ op: 'insert', table: 'T', row: { big: -9007199254740994n } }])[0]).toEqual({
      error: 'constraint violation',
      details:
        '-9007199254740994 is not in the valid range -9007199254740993 to 9223372036854775806 (inclusive)',
    });
    expect(run(db, [{ op: 'insert', table: 'T', row: { top: 101 } }])[0]).toEqual({
      error: 'constraint violation',
      details: '101 is greater than maximum allowed value 100',
    });
    for (const big of [-9007199254740993n, INT64_MAX - 1n]) {
      expect(run(db, [{ op: 'insert', table: 'T', row: { big } }])[0]).toHaveProperty('uuid');
    }
    expect(
      run(db, [{ op: 'insert', table: 'T', row: { full: INT64_MIN, top: INT64_MIN } }])[0],
    ).toHaveProperty('uuid');
  });

  it('checks an enum of big integers and lists it in order', () => {
    const db = new Database(schema);
    expect(
      run(db, [{ op: 'insert', table: 'T', row: { e: 9007199254740993n } }])[0],
    ).toHaveProperty('uuid');
    expect(run(db, [{ op: 'insert', table: 'T', row: { e: 9007199254740992n } }])[0]).toEqual({
      error: 'constraint violation',
      details:
        '9007199254740992 is not one of the allowed values ([-9223372036854775808, 1, 9007199254740993, 9223372036854775807])',
    });
  });

  it('keeps a unique index over big integers exact', () => {
    const db = new Database(schema);
    run(db, [{ op: 'insert', table: 'K', row: { k: 2n ** 53n + 1n } }]);
    expect(run(db, [{ op: 'insert', table: 'K', row: { k: 2n ** 53n } }])).toEqual([
      { uuid: expect.anything() },
    ]);
    const dup = run(db, [{ op: 'insert', table: 'K', row: { k: 2n ** 53n + 1n } }]);
    expect(dup[1]).toMatchObject({ error: 'constraint violation' });
    expect(String((dup[1] as { details: string }).details)).toContain(
      'identical values (9007199254740993) for index on column "k"',
    );
  });
});

describe('sets and maps', () => {
  it('orders numbers and bigints by value, and finds duplicates across the two', () => {
    const db = new Database(schema);
    const s = ['set', [INT64_MAX, 5, -(2n ** 53n), INT64_MIN, SAFE, 2n ** 53n]];
    const m = [
      'map',
      [
        [INT64_MAX, INT64_MIN],
        [-1, 2n ** 60n],
        [INT64_MIN, 0],
      ],
    ];
    run(db, [{ op: 'insert', table: 'T', row: { s, m } }]);
    const [sel] = run(db, [{ op: 'select', table: 'T', where: [], columns: ['s', 'm'] }]);
    expect(sel).toEqual({
      rows: [
        {
          s: ['set', [INT64_MIN, -(2n ** 53n), 5, SAFE, 2n ** 53n, INT64_MAX]],
          m: [
            'map',
            [
              [INT64_MIN, 0],
              [-1, 2n ** 60n],
              [INT64_MAX, INT64_MIN],
            ],
          ],
        },
      ],
    });
    expect(
      run(db, [
        { op: 'insert', table: 'T', row: { s: ['set', [INT64_MAX, 9223372036854775807n]] } },
      ]),
    ).toEqual([{ error: 'ovsdb error', details: 'set contains duplicate' }]);
  });

  it('inserts and deletes big set elements and map keys', () => {
    const db = new Database(schema);
    run(db, [{ op: 'insert', table: 'T', row: { s: ['set', [1, INT64_MAX]] } }]);
    run(db, [
      {
        op: 'mutate',
        table: 'T',
        where: [],
        mutations: [
          ['s', 'insert', ['set', [INT64_MIN, 2n ** 53n]]],
          ['s', 'delete', INT64_MAX],
          ['m', 'insert', ['map', [[2n ** 62n, 1]]]],
        ],
      },
    ]);
    const [sel] = run(db, [{ op: 'select', table: 'T', where: [], columns: ['s', 'm'] }]);
    expect(sel).toEqual({
      rows: [{ s: ['set', [INT64_MIN, 1, 2n ** 53n]], m: ['map', [[2n ** 62n, 1]]] }],
    });
  });
});

describe('conditions', () => {
  const db = new Database(schema);
  const values = [INT64_MIN, -(2n ** 53n), -SAFE, 0, SAFE, 2n ** 53n, INT64_MAX];
  for (const v of values) run(db, [{ op: 'insert', table: 'T', row: { i: v, s: ['set', [v]] } }]);
  const where = (w: unknown[]): unknown[] => {
    const [sel] = run(db, [{ op: 'select', table: 'T', where: w, columns: ['i'] }]);
    return ascending((sel as { rows: { i: unknown }[] }).rows.map((r) => r.i));
  };

  it('compares numerically across numbers and bigints', () => {
    expect(where([['i', '<', 2n ** 53n]])).toEqual([INT64_MIN, -(2n ** 53n), -SAFE, 0, SAFE]);
    expect(where([['i', '<=', -SAFE]])).toEqual([INT64_MIN, -(2n ** 53n), -SAFE]);
    expect(where([['i', '>', SAFE]])).toEqual([2n ** 53n, INT64_MAX]);
    expect(where([['i', '>=', INT64_MAX]])).toEqual([INT64_MAX]);
    expect(where([['i', '==', INT64_MIN]])).toEqual([INT64_MIN]);
    expect(where([['i', '!=', 0]])).toHaveLength(6);
    expect(where([['i', '<', INT64_MIN]])).toEqual([]);
    expect(where([['s', 'includes', 2n ** 53n]])).toEqual([2n ** 53n]);
    expect(where([['s', 'excludes', ['set', [INT64_MIN, INT64_MAX]]]])).toHaveLength(5);
  });

  it('waits on big integers', () => {
    const ok = run(db, [
      {
        op: 'wait',
        table: 'T',
        where: [['i', '>', SAFE]],
        columns: ['i'],
        until: '==',
        rows: [{ i: INT64_MAX }, { i: 2n ** 53n }],
        timeout: INT64_MAX,
      },
    ]);
    expect(ok).toEqual([{}]);
  });
});

describe('integer mutators (ovsdb-server 3.1 answers)', () => {
  it('+= and -= fail at the int64 bounds and reach them exactly', () => {
    expect(mutate(INT64_MAX, '+=', 1)).toEqual({ res: range('+='), i: INT64_MAX });
    expect(mutate(INT64_MIN, '+=', -1)).toEqual({ res: range('+='), i: INT64_MIN });
    expect(mutate(INT64_MIN, '-=', 1)).toEqual({ res: range('-='), i: INT64_MIN });
    expect(mutate(INT64_MAX, '-=', -1)).toEqual({ res: range('-='), i: INT64_MAX });
    expect(mutate(INT64_MAX - 1n, '+=', 1)).toEqual({ res: { count: 1 }, i: INT64_MAX });
    expect(mutate(INT64_MIN + 1n, '-=', 1)).toEqual({ res: { count: 1 }, i: INT64_MIN });
    expect(mutate(SAFE, '+=', 2)).toEqual({ res: { count: 1 }, i: 2n ** 53n + 1n });
    expect(mutate(2n ** 53n, '-=', 1)).toEqual({ res: { count: 1 }, i: SAFE });
  });

  it('*= follows mul_int as written, including its flaws', () => {
    expect(mutate(INT64_MAX, '*=', 2)).toEqual({ res: range('*='), i: INT64_MAX });
    expect(mutate(-1, '*=', INT64_MIN)).toEqual({ res: range('*='), i: -1 });
    // Both positive: `x >= INT64_MAX / y` fails products that just fit.
    expect(mutate(INT64_MAX, '*=', 1)).toEqual({ res: range('*='), i: INT64_MAX });
    expect(mutate(2, '*=', 2n ** 62n - 1n)).toEqual({ res: range('*='), i: 2 });
    // Both non-positive: `y < INT64_MAX / y` ignores x, and products past INT64_MAX wrap.
    expect(mutate(-1, '*=', -3037000500)).toEqual({ res: range('*='), i: -1 });
    expect(mutate(-1, '*=', -3037000499)).toEqual({ res: { count: 1 }, i: 3037000499 });
    expect(mutate(INT64_MIN, '*=', -1)).toEqual({ res: { count: 1 }, i: INT64_MIN });
    expect(mutate(-(2n ** 62n), '*=', -2)).toEqual({ res: { count: 1 }, i: INT64_MIN });
    expect(mutate(-(2n ** 62n), '*=', -3)).toEqual({ res: { count: 1 }, i: -(2n ** 62n) });
    expect(mutate(-(2n ** 62n), '*=', -4)).toEqual({ res: { count: 1 }, i: 0 });
    // Mixed signs are exact.
    expect(mutate(2, '*=', -(2n ** 62n))).toEqual({ res: { count: 1 }, i: INT64_MIN });
    expect(mutate(2, '*=', -(2n ** 62n) - 1n)).toEqual({ res: range('*='), i: 2 });
    expect(mutate(-2, '*=', 2n ** 62n)).toEqual({ res: { count: 1 }, i: INT64_MIN });
    expect(mutate(9007199254740993n, '*=', 1)).toEqual({
      res: { count: 1 },
      i: 9007199254740993n,
    });
    expect(mutate(3037000499, '*=', 3037000499)).toEqual({
      res: { count: 1 },
      i: 9223372030926249001n,
    });
    // ovsdb-server 3.1 divides by zero (SIGFPE) on a negative times 0; here it is 0.
    expect(mutate(-5, '*=', 0)).toEqual({ res: { count: 1 }, i: 0 });
  });

  it('/= and %= by zero are domain errors; INT64_MIN by -1 is a range error', () => {
    const domain = { error: 'domain error', details: 'Division by zero.' };
    expect(mutate(5, '/=', 0)).toEqual({ res: domain, i: 5 });
    expect(mutate(INT64_MIN, '%=', 0)).toEqual({ res: domain, i: INT64_MIN });
    expect(mutate(INT64_MIN, '/=', -1)).toEqual({ res: range('/='), i: INT64_MIN });
    expect(mutate(INT64_MIN, '%=', -1)).toEqual({ res: range('%='), i: INT64_MIN });
    expect(mutate(INT64_MAX, '/=', -1)).toEqual({ res: { count: 1 }, i: -INT64_MAX });
    expect(mutate(INT64_MIN, '/=', 2)).toEqual({ res: { count: 1 }, i: -(2n ** 62n) });
    expect(mutate(INT64_MIN, '%=', 10)).toEqual({ res: { count: 1 }, i: -8 });
    expect(mutate(-7, '/=', 2)).toEqual({ res: { count: 1 }, i: -3 });
    expect(mutate(-7, '%=', 2)).toEqual({ res: { count: 1 }, i: -1 });
  });

  it('a result past the column bounds is a constraint violation; a collision in a set is one too', () => {
    const db = new Database(schema);
    run(db, [
      { op: 'insert', table: 'T', row: { big: INT64_MAX - 2n, s: ['set', [0, 5, INT64_MIN]] } },
    ]);
    const m = (mutations: unknown[]) =>
      run(db, [{ op: 'mutate', table: 'T', where: [], mutations }]);
    expect(m([['big', '+=', 2]])).toEqual([
      {
        error: 'constraint violation',
        details:
          '9223372036854775807 is not in the valid range -9007199254740993 to 9223372036854775806 (inclusive)',
      },
    ]);
    expect(m([['big', '+=', 1]])).toEqual([{ count: 1 }]);
    expect(m([['s', '-=', 1]])).toEqual([range('-=')]);
    expect(m([['s', 'delete', INT64_MIN]])).toEqual([{ count: 1 }]);
    expect(m([['s', '*=', 0]])).toEqual([
      { error: 'constraint violation', details: 'Result of "*=" operation contains duplicates.' },
    ]);
  });
});

describe('output', () => {
  it('writes bounds as get_schema does: exact, and left out at the int64 defaults', () => {
    const cols = (
      schemaToJson(schema).tables as Record<string, { columns: Record<string, unknown> }>
    ).T?.columns as Record<string, unknown>;
    expect(cols.big).toEqual({
      type: {
        key: { type: 'integer', minInteger: -9007199254740993n, maxInteger: INT64_MAX - 1n },
      },
    });
    expect(cols.full).toEqual({ type: 'integer' });
    expect(cols.top).toEqual({ type: { key: { type: 'integer', maxInteger: 100 } } });
    expect(cols.e).toEqual({
      type: {
        key: { type: 'integer', enum: ['set', [INT64_MIN, 1, 9007199254740993n, INT64_MAX]] },
        min: 0,
      },
    });
    const text = schemaText(schema);
    expect(text).toContain('"maxInteger":9223372036854775806,"minInteger":-9007199254740993');
    expect(text).toContain(
      '"enum":["set",[-9223372036854775808,1,9007199254740993,9223372036854775807]]',
    );
  });

  it('echoes bigints exactly in error syntax and hashes them as hash_int of the low 32 bits', () => {
    expect(ovsJsonText([INT64_MIN, 2 ** 63, 2 ** 62])).toBe(
      '[-9223372036854775808,9.22337203685478e+18,4611686018427387904]',
    );
    expect(jsonHash(2n ** 60n + 7n)).toBe(jsonHash(7));
    expect(jsonHash(-(2n ** 60n) - 1n)).toBe(jsonHash(-1));
    expect(jsonHash(2 ** 40 + 3)).toBe(jsonHash(3));
  });
});

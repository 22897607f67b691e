/**
 * Differential corpus: 64-bit integers at the bounds, against the int64
 * schema (`test/fixtures/int64.ovsschema`). Integers beyond ±(2^53−1) are
 * bigints here and travel as exact JSON integers. Each case runs on an empty
 * database; see `types.ts`.
 *
 * Left out on purpose: a negative integer `*=` 0, which divides by zero in
 * ovsdb-server 3.1's overflow test and kills it (SIGFPE); the in-memory
 * server answers 0 (`test/server/int64.test.ts`).
 * @module
 */

import type { CorpusCase } from './types.js';

const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;
const SAFE = 2 ** 53 - 1;
const P53 = 2n ** 53n;

/** Set `i` of every row to `x`, apply `i <mutator> y`, and read `i` back. */
function arith(x: number | bigint, mutator: string, y: number | bigint): unknown[] {
  return [
    { op: 'update', table: 'T', where: [], row: { i: x } },
    { op: 'mutate', table: 'T', where: [], mutations: [['i', mutator, y]] },
    { op: 'select', table: 'T', where: [], columns: ['i'] },
  ];
}

const select = (where: unknown[], columns = ['name']): unknown => ({
  op: 'select',
  table: 'T',
  where,
  columns,
});

/** Cases against the int64 schema. */
export const int64: readonly CorpusCase[] = [
  {
    name: 'insert, select and update INT64_MIN, INT64_MAX and ±(2^53±1)',
    txns: [
      [
        { op: 'insert', table: 'T', row: { name: 'min', i: MIN, oi: MIN, r: 1 } },
        { op: 'insert', table: 'T', row: { name: 'max', i: MAX, oi: MAX } },
        { op: 'insert', table: 'T', row: { name: 'safe', i: SAFE, oi: -SAFE } },
        { op: 'insert', table: 'T', row: { name: 'p53', i: P53, oi: -P53 } },
        { op: 'insert', table: 'T', row: { name: 'p53+1', i: P53 + 1n, oi: -P53 - 1n } },
      ],
      [select([], ['name', 'i', 'oi'])],
      [
        {
          op: 'update',
          table: 'T',
          where: [['name', '==', 'min']],
          row: { i: MAX, oi: ['set', []] },
        },
        { op: 'update', table: 'T', where: [['name', '==', 'max']], row: { i: MIN } },
        { op: 'update', table: 'T', where: [['i', '==', P53]], row: { i: -P53 } },
        select([], ['name', 'i', 'oi']),
      ],
      [
        { op: 'update', table: 'T', where: [['name', '==', 'safe']], row: { r: P53 + 1n } },
        select([['name', '==', 'safe']], ['r']),
      ],
    ],
  },
  {
    name: 'integer tokens beyond int64, reals and exponent forms in integer columns',
    txns: [
      [{ op: 'insert', table: 'T', row: { i: 2 ** 63 } }],
      [{ op: 'insert', table: 'T', row: { i: -(2 ** 63) * 2 } }],
      [{ op: 'insert', table: 'T', row: { i: 1.5 } }],
      [{ op: 'insert', table: 'T', row: { s: ['set', [1, 2 ** 64]] } }],
      [{ op: 'insert', table: 'T', row: { m: ['map', [[2 ** 70, 1]]] } }],
      [
        { op: 'insert', table: 'T', row: { name: 'exp', i: 1e16, oi: 9.2e18 } },
        select([], ['i', 'oi']),
      ],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['i', '+=', 1e19]] }],
      [{ op: 'select', table: 'T', where: [['i', '<', 2 ** 63]], columns: ['i'] }],
    ],
  },
  {
    name: 'bounds beyond 2^53, bounds at the int64 limits, enums of big integers',
    txns: [
      [{ op: 'insert', table: 'T', row: { big: MAX } }],
      [{ op: 'insert', table: 'T', row: { big: -9007199254740994n } }],
      [{ op: 'insert', table: 'T', row: { pos: ['set', [P53, P53 - 1n]] } }],
      [{ op: 'insert', table: 'T', row: { top: 101 } }],
      [{ op: 'insert', table: 'T', row: { low: -101 } }],
      [{ op: 'insert', table: 'T', row: { e: 9007199254740992n } }],
      [{ op: 'insert', table: 'T', row: { one: 9007199254740992n } }],
      [{ op: 'insert', table: 'T', row: { bm: ['map', [[9007199254740994n, 0]]] } }],
      [{ op: 'insert', table: 'T', row: { bm: ['map', [[0, -9007199254740994n]]] } }],
      [
        {
          op: 'insert',
          table: 'T',
          row: {
            name: 'edges',
            big: MAX - 1n,
            pos: ['set', [P53, MAX]],
            full: MIN,
            top: MIN,
            low: MAX,
            e: MIN,
            one: 9007199254740993n,
            bm: [
              'map',
              [
                [9007199254740993n, -9007199254740993n],
                [MIN, MAX],
              ],
            ],
          },
        },
        {
          op: 'insert',
          table: 'T',
          row: { name: 'edges2', big: -9007199254740993n, e: MAX, top: 100 },
        },
        select([], ['name', 'big', 'pos', 'full', 'top', 'low', 'e', 'one', 'bm']),
      ],
    ],
  },
  {
    name: 'conditions and wait across numbers and bigints',
    txns: [
      [
        { op: 'insert', table: 'T', row: { name: 'a', i: MIN, oi: MIN, s: ['set', [MIN, 0]] } },
        { op: 'insert', table: 'T', row: { name: 'b', i: -P53, s: ['set', [-P53]] } },
        { op: 'insert', table: 'T', row: { name: 'c', i: -SAFE, oi: 0 } },
        {
          op: 'insert',
          table: 'T',
          row: { name: 'd', i: SAFE, oi: SAFE, s: ['set', [SAFE, P53]] },
        },
        { op: 'insert', table: 'T', row: { name: 'e', i: P53 + 1n, oi: P53 + 1n } },
        { op: 'insert', table: 'T', row: { name: 'f', i: MAX, oi: MAX, s: ['set', [MAX, MIN]] } },
      ],
      [
        select([['i', '<', P53]]),
        select([['i', '<=', -SAFE]]),
        select([['i', '>', SAFE]]),
        select([['i', '>=', MAX]]),
        select([['i', '==', MIN]]),
        select([['i', '!=', P53 + 1n]]),
        select([['i', '<', MIN]]),
        select([['i', '>', MAX]]),
        select([['oi', '<', -SAFE]]),
        select([['oi', '>', 9007199254740992n]]),
        select([['oi', '==', ['set', []]]]),
      ],
      [
        select([['s', 'includes', MIN]]),
        select([['s', 'includes', ['set', [SAFE, P53]]]]),
        select([['s', 'excludes', ['set', [MAX, -P53]]]]),
        select([['s', '==', ['set', [MAX, MIN]]]]),
        select([['s', '!=', ['set', [MIN, 0]]]]),
      ],
      [
        {
          op: 'wait',
          table: 'T',
          where: [['i', '>', SAFE]],
          columns: ['i', 'oi'],
          until: '==',
          rows: [
            { i: MAX, oi: MAX },
            { i: P53 + 1n, oi: P53 + 1n },
          ],
          timeout: MAX,
        },
        {
          op: 'wait',
          table: 'T',
          where: [['name', '==', 'a']],
          columns: ['s'],
          until: '!=',
          rows: [{ s: ['set', [MIN]] }],
          timeout: 0,
        },
      ],
      [
        {
          op: 'wait',
          table: 'T',
          where: [['name', '==', 'a']],
          columns: ['i'],
          until: '==',
          rows: [{ i: MIN + 1n }],
          timeout: 0,
        },
      ],
      [
        {
          op: 'wait',
          table: 'T',
          where: [],
          columns: ['i'],
          until: '==',
          rows: [],
          timeout: -(2n ** 60n),
        },
      ],
    ],
  },
  {
    name: '+= and -= overflowing at both bounds',
    txns: [
      [{ op: 'insert', table: 'T', row: { name: 'x' } }],
      arith(MAX, '+=', 1),
      arith(MIN, '+=', -1),
      arith(MIN, '-=', 1),
      arith(MAX, '-=', -1),
      arith(MAX, '+=', MAX),
      arith(MIN, '-=', MAX),
      arith(MAX - 1n, '+=', 1),
      arith(MIN + 1n, '-=', 1),
      arith(SAFE, '+=', 2),
      arith(P53, '-=', 1),
      arith(-SAFE, '-=', SAFE),
      arith(MAX, '-=', MAX),
      arith(MIN, '+=', MAX),
    ],
  },
  {
    name: '*= at the bounds: overflow, -1 * INT64_MIN, and mul_int as written',
    txns: [
      [{ op: 'insert', table: 'T', row: { name: 'x' } }],
      arith(MAX, '*=', 2),
      arith(MIN, '*=', 2),
      arith(-1, '*=', MIN),
      arith(MIN, '*=', -1),
      arith(MAX, '*=', 1),
      arith(MAX, '*=', -1),
      arith(1, '*=', MAX),
      arith(2, '*=', 2n ** 62n - 1n),
      arith(2n ** 62n - 1n, '*=', 2),
      arith(-1, '*=', -3037000500),
      arith(-1, '*=', -3037000499),
      arith(-3037000499, '*=', -3037000499),
      arith(3037000499, '*=', 3037000499),
      arith(3037000500, '*=', 3037000500),
      arith(-(2n ** 62n), '*=', -2),
      arith(-(2n ** 62n), '*=', -3),
      arith(-(2n ** 62n), '*=', -4),
      arith(2, '*=', -(2n ** 62n)),
      arith(2, '*=', -(2n ** 62n) - 1n),
      arith(-2, '*=', 2n ** 62n),
      arith(2n ** 62n, '*=', -2),
      arith(P53 + 1n, '*=', 1),
      arith(SAFE, '*=', SAFE),
      arith(0, '*=', MIN),
      arith(5, '*=', 0),
      arith(MIN, '*=', 1),
    ],
  },
  {
    name: '/= and %= at the bounds: INT64_MIN by -1, by 0',
    txns: [
      [{ op: 'insert', table: 'T', row: { name: 'x' } }],
      arith(MIN, '/=', -1),
      arith(MIN, '%=', -1),
      arith(5, '/=', 0),
      arith(5, '%=', 0),
      arith(MIN, '/=', 0),
      arith(MAX, '%=', 0),
      arith(MAX, '/=', -1),
      arith(MIN, '/=', 1),
      arith(MIN, '%=', 1),
      arith(MIN, '/=', 2),
      arith(MIN, '%=', 10),
      arith(MAX, '%=', P53),
      arith(MIN, '/=', MAX),
      arith(MAX, '/=', MIN),
      arith(-7, '/=', 2),
      arith(-7, '%=', 2),
      arith(7, '%=', -2),
    ],
  },
  {
    name: 'mutations of sets and maps of big integers, and results past the column bounds',
    txns: [
      [
        {
          op: 'insert',
          table: 'T',
          row: {
            name: 'x',
            s: ['set', [MAX, 5, -P53, MIN, SAFE, P53]],
            m: [
              'map',
              [
                [MAX, MIN],
                [-1, 2n ** 60n],
                [MIN, 0],
              ],
            ],
            big: MAX - 2n,
            pos: ['set', [P53, MAX - 1n]],
            small: ['set', [-10, 0, 10]],
          },
        },
        select([], ['s', 'm']),
      ],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['s', '+=', 1]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['s', '-=', 1]] }],
      [
        {
          op: 'mutate',
          table: 'T',
          where: [],
          mutations: [
            ['s', 'delete', ['set', [MIN, MAX]]],
            ['s', '*=', 2],
            ['s', 'insert', ['set', [MIN, MAX, 0]]],
            [
              'm',
              'insert',
              [
                'map',
                [
                  [2n ** 62n, 1],
                  [MAX, 7],
                ],
              ],
            ],
            ['m', 'delete', ['set', [MIN]]],
            ['m', 'delete', ['map', [[-1, 2n ** 60n]]]],
          ],
        },
        select([], ['s', 'm']),
      ],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['s', '/=', 0]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['pos', '*=', 0]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['big', '+=', 2]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['big', '+=', 1]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['pos', '-=', 1]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['pos', '+=', 1]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['pos', '+=', 2]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['small', '*=', P53]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['small', '+=', MAX]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['small', '-=', MIN]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['small', '%=', MAX]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['r', '+=', P53 + 1n]] }],
      [{ op: 'mutate', table: 'T', where: [], mutations: [['r', '*=', MAX]] }],
      [select([], ['s', 'm', 'big', 'pos', 'small', 'r'])],
    ],
  },
  {
    name: 'a unique index over big integers',
    txns: [
      [
        { op: 'insert', table: 'K', row: { k: P53 + 1n, n: 'a' } },
        { op: 'insert', table: 'K', row: { k: P53, n: 'b' } },
        { op: 'insert', table: 'K', row: { k: MAX, n: 'c' } },
      ],
      [{ op: 'insert', table: 'K', row: { k: P53 + 1n, n: 'd' } }],
      [{ op: 'update', table: 'K', where: [['n', '==', 'b']], row: { k: MAX } }],
      [
        { op: 'update', table: 'K', where: [['n', '==', 'c']], row: { k: MIN } },
        { op: 'update', table: 'K', where: [['n', '==', 'b']], row: { k: MAX } },
      ],
      [{ op: 'mutate', table: 'K', where: [['k', '==', MIN]], mutations: [['k', '-=', 1]] }],
      [{ op: 'select', table: 'K', where: [['k', '>=', P53]], columns: ['k', 'n'] }],
    ],
  },
];

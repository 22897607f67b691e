/**
 * Differential corpus: Mutations, update values and condition types.
 * Each case runs on an empty database; see `types.ts`.
 * @module
 */

import type { CorpusCase } from './types.js';

/** Cases against the small test schema (`test/fixtures/test.ovsschema`). */
export const mutations: readonly CorpusCase[] = [
  {
    name: 'every mutator on integers, reals, sets and maps; update value errors; condition type checks',
    txns: [
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a',
            iset: ['set', [1, 2, 3]],
            rset: ['set', [0.1, 0.2]],
            smap: [
              'map',
              [
                ['k', 'v'],
                ['x', 'y'],
              ],
            ],
            imap: [
              'map',
              [
                [1, 'a'],
                [2, 'b'],
              ],
            ],
            bmap: ['map', [[true, 1]]],
            r: 0.1,
          },
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [
            ['iset', '+=', 1],
            ['iset', '*=', 2],
          ],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['iset'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['iset', '*=', 0]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['iset', '-=', 5]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['iset', '%=', 3]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['iset', '/=', 2]],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['iset'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['r', '+=', 0.2]],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['r'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['r', '/=', 0]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [
            ['r', '*=', 1e300],
            ['r', '*=', 1e300],
          ],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['r', '*=', 1000.0]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['r', '-=', 10000.0]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['rset', '*=', 3]],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['rset'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['i', '-=', 11]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['i', '+=', ['set', [1, 2]]]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['i', '+=', 1.5]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['smap', '+=', 1]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['name', 'insert', 'x']],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['b', '+=', 1]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['oi', '+=', 1]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['oi', 'insert', 7]],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['oi'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['oi', 'insert', 8]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['oi', 'delete', ['set', [7, 8]]]],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['oi'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [
            [
              'smap',
              'insert',
              [
                'map',
                [
                  ['k', 'NEW'],
                  ['z', 'w'],
                ],
              ],
            ],
          ],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['smap'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [
            [
              'smap',
              'delete',
              [
                'map',
                [
                  ['k', 'wrong'],
                  ['x', 'y'],
                ],
              ],
            ],
          ],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['smap'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['smap', 'delete', ['set', ['k', 'nope']]]],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['smap'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['smap', 'delete', 'z']],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['smap'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [
            [
              'imap',
              'insert',
              [
                'map',
                [
                  [3, 'c'],
                  [4, 'd'],
                ],
              ],
            ],
          ],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['imap', 'insert', ['map', [[3, 'toolong']]]]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['imap', 'delete', ['map', [[3, 'toolong']]]]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['imap', 'delete', ['set', [1.5]]]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['imap', 'insert', ['set', [1]]]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['sset', 'insert', ['set', ['b', 'a']]]],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['sset'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['sset', 'delete', ['set', ['a', 'b']]]],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['sset'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['e', 'insert', 'delta']],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['nope', 'insert', 'delta']],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['e', 'frob', 'delta']],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['e', 'insert']],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [['name', '==', 'zz']],
          mutations: [['i', '/=', 0]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['_uuid', 'insert', 'x']],
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            _uuid: ['uuid', '11111111-1111-1111-1111-111111111111'],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            _version: ['uuid', '11111111-1111-1111-1111-111111111111'],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            r: 1.2345678901234567,
          },
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['r'],
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            r: 1000.6,
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            r: -2,
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            e: 'Alpha',
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            ie: 4,
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            s: 'toolongstring',
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            s: 'ünï',
          },
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['s'],
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            s: '日本語日本語',
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            u: ['uuid', 'not-a-uuid'],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            u: ['uuid', 'ABCDEF01-1111-1111-1111-111111111111'],
          },
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['u'],
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            u: ['named-uuid', 'xx'],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            u: ['named', 'xx'],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            smap: ['set', []],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            smap: ['map', [['a']]],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            smap: [
              'map',
              [
                ['a', 'b'],
                ['a', 'c'],
              ],
            ],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            smap: ['map', {}],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            sset: ['set', []],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            iset: ['set', [1, 'x']],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            iset: ['set', [2000]],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            iset: 5,
          },
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['iset'],
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            name: ['set', ['q']],
          },
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            name: null,
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            b: 'true',
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            e: ['set', ['alpha', 'beta']],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: [],
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: {},
          row: {},
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          row: {},
        },
      ],
      [
        {
          op: 'update',
          table: 5,
          where: [],
          row: {},
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [['i', '==', 1, 2]],
          row: {},
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: ['i'],
          row: {},
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [[1, '==', 2]],
          row: {},
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['e', '==', 'nope']],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['e', '==', ['set', ['nope']]]],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['smap', 'includes', ['map', [['q', '1']]]]],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['smap', 'excludes', ['map', [['q', '1']]]]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['smap', '==', ['map', []]]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['iset', 'includes', ['set', []]]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['iset', 'includes', ['set', [1, 2, 3, 4, 5, 6]]]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['iset', 'excludes', ['set', [1, 2, 3, 4, 5, 6, 7]]]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['r', '<', 1]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['r', '<', 1.5]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['b', '<', 1]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['r', '<', 'x']],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['_version', '!=', ['uuid', '11111111-1111-1111-1111-111111111111']]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [false],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: [],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['_uuid'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: [1],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          sort: ['nope'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: 'name',
        },
      ],
    ],
  },
  {
    name: 'range and domain errors on reals, remainder and division signs',
    txns: [
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a',
            rset: ['set', [1.5, -2.5]],
            oi: 7,
          },
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [
            ['rset', '*=', 1e300],
            ['rset', '*=', 1e300],
          ],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['rset', '*=', 1e300]],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['rset'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['rset', '+=', 1e308]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['rset', '/=', 1e-300]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['rset', '-=', 1.7976931348623157e308]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['rset', '/=', 0]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['oi', '%=', 0]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['oi', '%=', -4]],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['oi'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [
            ['oi', '*=', -3],
            ['oi', '/=', 2],
          ],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['oi'],
        },
      ],
    ],
  },
];

/**
 * Differential corpus: Conditions, references, garbage collection, indexes, wait.
 * Each case runs on an empty database; see `types.ts`.
 * @module
 */

import type { CorpusCase } from './types.js';

/** Cases against the small test schema (`test/fixtures/test.ovsschema`). */
export const conditionsRefs: readonly CorpusCase[] = [
  {
    name: 'optional-scalar and set conditions, distinct select, sort',
    txns: [
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a',
            oi: 5,
          },
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'b',
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['oi', '==', ['set', []]]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['oi', '!=', ['set', []]]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['oi', 'includes', ['set', []]]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['oi', 'excludes', ['set', []]]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['oi', '<', ['set', []]]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['oi', '<', 10]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['oi', '>=', 5]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['oi', '!=', 5]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['oi', 'excludes', 5]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['oi', 'includes', 5]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['oi', 'excludes', ['set', [5, 6]]]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['name', 'includes', 'a']],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['name', 'excludes', ['set', ['a', 'b']]]],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['b'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['name'],
          sort: ['name'],
        },
      ],
    ],
  },
  {
    name: 'garbage collection of unreferenced non-root rows',
    txns: [
      [
        {
          op: 'insert',
          table: 'Child',
          row: {
            name: 'orphan',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Child',
          row: {
            name: 'c1',
          },
          'uuid-name': 'c1',
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'r',
            children: ['named-uuid', 'c1'],
          },
          'uuid-name': 'r',
        },
      ],
      [
        {
          op: 'select',
          table: 'Child',
          where: [],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'delete',
          table: 'Child',
          where: [],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['children', 'delete', ['set', []]]],
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            children: ['set', []],
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Child',
          where: [],
          columns: ['name'],
        },
      ],
    ],
  },
  {
    name: 'cascading garbage collection through child references',
    txns: [
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'r',
            children: ['named-uuid', 'c1'],
          },
        },
        {
          op: 'insert',
          table: 'Child',
          row: {
            name: 'c1',
            kids: ['named-uuid', 'c2'],
          },
          'uuid-name': 'c1',
        },
        {
          op: 'insert',
          table: 'Child',
          row: {
            name: 'c2',
          },
          'uuid-name': 'c2',
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            children: ['set', []],
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Child',
          where: [],
          columns: ['name'],
        },
      ],
    ],
  },
  {
    name: 'weak references: removal on delete, never-existing targets, min constraints',
    txns: [
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'w1',
          },
          'uuid-name': 'w1',
        },
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'w2',
          },
          'uuid-name': 'w2',
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'r',
            weak: [
              'set',
              [
                ['named-uuid', 'w1'],
                ['named-uuid', 'w2'],
              ],
            ],
            weak_map: ['map', [[['named-uuid', 'w1'], 1]]],
          },
        },
        {
          op: 'insert',
          table: 'WeakReq',
          row: {
            one: ['named-uuid', 'w1'],
            some: ['named-uuid', 'w2'],
          },
        },
      ],
      [
        {
          op: 'delete',
          table: 'Weak',
          where: [['name', '==', 'w1']],
        },
      ],
      [
        {
          op: 'delete',
          table: 'Weak',
          where: [['name', '==', 'w2']],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'q',
            weak: ['uuid', '11111111-1111-1111-1111-111111111111'],
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'WeakReq',
          row: {},
        },
      ],
      [
        {
          op: 'insert',
          table: 'WeakReq',
          row: {
            one: ['uuid', '11111111-1111-1111-1111-111111111111'],
          },
        },
      ],
    ],
  },
  {
    name: 'multi-column index, maxRows, wait, commit, comment',
    txns: [
      [
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 1,
            b: 'x',
          },
        },
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 1,
            b: 'y',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 2,
            b: 'x',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 1,
            b: 'x',
          },
        },
        {
          op: 'delete',
          table: 'Limited',
          where: [['b', '==', 'y']],
        },
      ],
      [
        {
          op: 'update',
          table: 'Limited',
          where: [['b', '==', 'y']],
          row: {
            b: 'x',
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Limited',
          where: [['b', '==', 'y']],
          row: {
            b: 'x',
            c: 3,
          },
        },
        {
          op: 'update',
          table: 'Limited',
          where: [['b', '==', 'x']],
          row: {
            c: 4,
          },
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Limited',
          where: [],
          mutations: [['a', '+=', 1]],
        },
      ],
      [
        {
          op: 'wait',
          table: 'Limited',
          where: [],
          columns: ['a'],
          until: '==',
          rows: [
            {
              a: 2,
            },
            {
              a: 3,
            },
          ],
          timeout: 0,
        },
      ],
      [
        {
          op: 'wait',
          table: 'Limited',
          where: [],
          columns: ['a'],
          until: '==',
          rows: [
            {
              a: 2,
            },
          ],
          timeout: 0,
        },
      ],
      [
        {
          op: 'wait',
          table: 'Limited',
          where: [],
          columns: ['a'],
          until: '!=',
          rows: [
            {
              a: 2,
            },
          ],
          timeout: 0,
        },
      ],
      [
        {
          op: 'wait',
          table: 'Limited',
          where: [],
          columns: ['a'],
          until: '!=',
          rows: [
            {
              a: 2,
            },
          ],
          timeout: 30,
        },
      ],
      [
        {
          op: 'wait',
          table: 'Limited',
          where: [],
          columns: ['a'],
          until: '~',
          rows: [],
          timeout: 0,
        },
      ],
      [
        {
          op: 'wait',
          table: 'Limited',
          where: [],
          columns: ['a'],
          until: '==',
          rows: [],
          timeout: -1,
        },
      ],
      [
        {
          op: 'commit',
        },
      ],
      [
        {
          op: 'commit',
          durable: false,
        },
        {
          op: 'comment',
          comment: 'hi',
        },
      ],
      [
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 9,
            b: 'x',
          },
          uuid: '22222222-2222-2222-2222-222222222222',
        },
      ],
    ],
  },
  {
    name: 'explicit uuid, uuid-name, forward references, self references',
    txns: [
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'a',
          },
          uuid: '22222222-2222-2222-2222-222222222222',
        },
      ],
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'b',
          },
          uuid: '22222222-2222-2222-2222-222222222222',
        },
      ],
      [
        {
          op: 'delete',
          table: 'Weak',
          where: [],
        },
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'b',
          },
          uuid: '22222222-2222-2222-2222-222222222222',
        },
      ],
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'c',
          },
          uuid: '33333333-2222-2222-2222-222222222222',
          'uuid-name': 'x',
        },
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'd',
          },
          'uuid-name': 'x',
        },
      ],
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'c',
          },
          uuid: 'bogus',
        },
      ],
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'c',
            peer: ['named-uuid', 'later'],
          },
        },
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'later',
          },
          'uuid-name': 'later',
        },
      ],
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'e',
          },
          'uuid-name': '1bad',
        },
      ],
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'e',
            peer: ['named-uuid', '1bad'],
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'self',
          },
          'uuid-name': 'me',
        },
        {
          op: 'update',
          table: 'Weak',
          where: [['name', '==', 'self']],
          row: {
            peer: ['named-uuid', 'me'],
          },
        },
      ],
      [
        {
          op: 'delete',
          table: 'Weak',
          where: [['name', '==', 'self']],
        },
      ],
      [
        {
          op: 'select',
          table: 'Weak',
          where: [['_uuid', '==', ['named-uuid', 'zz']]],
        },
      ],
    ],
  },
  {
    name: 'weak references stay dangling in a row changed earlier in the transaction (ovsdb-server 3.1 behaviour)',
    txns: [
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'w1',
          },
          'uuid-name': 'w1',
        },
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'w2',
          },
          'uuid-name': 'w2',
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'r',
            weak: [
              'set',
              [
                ['named-uuid', 'w1'],
                ['named-uuid', 'w2'],
              ],
            ],
          },
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 's',
            weak: ['named-uuid', 'w1'],
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [['name', '==', 'r']],
          row: {
            i: 1,
          },
        },
        {
          op: 'delete',
          table: 'Weak',
          where: [['name', '==', 'w1']],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['name', 'weak'],
          sort: ['name'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [['name', '==', 'r']],
          mutations: [['weak', 'delete', ['set', []]]],
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [['name', '==', 'r']],
          row: {
            i: 2,
          },
        },
      ],
      [
        {
          op: 'delete',
          table: 'Weak',
          where: [],
        },
        {
          op: 'update',
          table: 'Root',
          where: [['name', '==', 's']],
          row: {
            i: 3,
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['name', 'weak'],
          sort: ['name'],
        },
      ],
    ],
  },
];

/**
 * Differential corpus: Parser errors in hash order, in-transaction visibility, quoting, index conflicts.
 * Each case runs on an empty database; see `types.ts`.
 * @module
 */

import type { CorpusCase } from './types.js';

/** Cases against the small test schema (`test/fixtures/test.ovsschema`). */
export const parsing: readonly CorpusCase[] = [
  {
    name: 'unknown members and columns reported in server order; op parser errors; sort; in-transaction visibility; maxRows',
    txns: [
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'c',
            i: 'x',
            b: 'y',
            s: 1,
            e: 'q',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            zz: 1,
            name: 'c',
            i: 'x',
            b: 'y',
            s: 1,
            e: 'q',
            yy: 2,
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            fixed: 1,
            i: 'x',
            b: 'y',
            s: 1,
            e: 'q',
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            fixed: 'x',
            _uuid: ['uuid', '11111111-1111-1111-1111-111111111111'],
            _version: ['uuid', '11111111-1111-1111-1111-111111111111'],
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {},
          a: 1,
          b: 2,
          c: 3,
          d: 4,
          e: 5,
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          x: 1,
          columns: ['name'],
          sort: ['name'],
          zzz: 1,
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            e: 'x',
          },
          extra: 1,
        },
      ],
      [
        {
          op: 'insert',
          table: 'Nope',
          row: {
            e: 'x',
          },
          extra: 1,
        },
      ],
      ['notanobject'],
      [
        {
          table: 'Root',
        },
      ],
      [
        {
          op: 5,
        },
      ],
      [
        {
          op: 'in sert',
        },
      ],
      [
        {
          op: 'insert',
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: 5,
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {},
          uuid: 5,
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {},
          'uuid-name': '9x',
        },
      ],
      [
        {
          op: 'delete',
          table: 'Nope',
        },
      ],
      [
        {
          op: 'delete',
        },
      ],
      [
        {
          op: 'wait',
        },
      ],
      [
        {
          op: 'wait',
          table: 'Root',
          where: [],
          until: '==',
          rows: [],
          timeout: 1.5,
        },
      ],
      [
        {
          op: 'wait',
          table: 'Root',
          where: [],
          until: '==',
          rows: [
            {
              nope: 1,
            },
          ],
          timeout: 0,
        },
      ],
      [
        {
          op: 'wait',
          table: 'Root',
          where: [],
          until: '==',
          rows: [5],
          timeout: 0,
        },
      ],
      [
        {
          op: 'wait',
          table: 'Root',
          where: [],
          columns: ['name'],
          until: '==',
          rows: [],
          timeout: 0,
        },
      ],
      [
        {
          op: 'comment',
        },
      ],
      [
        {
          op: 'comment',
          comment: 5,
        },
      ],
      [
        {
          op: 'assert',
        },
      ],
      [
        {
          op: 'assert',
          lock: '1x',
        },
      ],
      [
        {
          op: 'abort',
          x: 1,
        },
      ],
      [
        {
          op: 'commit',
          durable: 1,
        },
      ],
      [],
      [
        {
          op: 'comment',
          comment: 'a',
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
        },
        {
          op: 'abort',
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a',
          },
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'b',
            i: -10,
          },
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'c',
            i: 100,
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['name', 'i'],
          sort: ['i'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['b'],
          sort: ['b'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [
            ['i', '>', -10],
            ['i', '<', 100],
          ],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'delete',
          table: 'Root',
          where: [['i', '<=', 0]],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['name'],
        },
        {
          op: 'abort',
        },
      ],
      [
        {
          op: 'delete',
          table: 'Root',
          where: [['i', '<=', 0]],
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a',
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [['name', '==', 'c']],
          row: {
            name: 'b',
          },
        },
        {
          op: 'update',
          table: 'Root',
          where: [['name', '==', 'b']],
          row: {
            name: 'd',
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [['name', '==', 'd']],
          row: {
            name: 'a',
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [['name', '==', 'd']],
          row: {
            i: 5,
          },
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'd',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'x',
          },
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'x',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 1,
          },
        },
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 2,
          },
        },
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 3,
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 1,
          },
        },
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 2,
          },
        },
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 3,
          },
        },
        {
          op: 'delete',
          table: 'Limited',
          where: [['a', '==', 3]],
        },
      ],
    ],
  },
  {
    name: 'string quoting in details; index conflict descriptions',
    txns: [
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a1',
            e: 'x1',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a1',
            e: '1x',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a1',
            e: 'a b',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a1',
            e: 'a-b.c_d',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a1',
            e: 'true',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a1',
            e: '',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a1',
            e: 'é',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a1',
            e: 'q"\n',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a1',
            e: '_x',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a',
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
          op: 'update',
          table: 'Root',
          where: [['name', '==', 'b']],
          row: {
            name: 'a',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 1,
            b: 'x y',
          },
        },
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 1,
            b: 'x y',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 1,
            b: 'x y',
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Limited',
          where: [],
          row: {
            a: 2,
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 1,
            b: 'x y',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 2,
            b: 'x y',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 2,
            b: 'x y',
            c: 1,
          },
        },
        {
          op: 'update',
          table: 'Limited',
          where: [['c', '==', ['set', []]]],
          row: {
            a: 3,
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Limited',
          where: [],
          row: {
            c: 5,
          },
        },
        {
          op: 'insert',
          table: 'Limited',
          row: {
            a: 2,
            b: 'x y',
          },
        },
      ],
    ],
  },
  {
    name: 'strong refs in maps, cycles, self refs, weak maps, weak peers, no-op changes',
    txns: [
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
          table: 'Child',
          row: {
            name: 'c2',
          },
          'uuid-name': 'c2',
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'r1',
            children: ['set', [['named-uuid', 'c1']]],
            child_map: ['map', [['x', ['named-uuid', 'c2']]]],
          },
        },
      ],
      [
        {
          op: 'delete',
          table: 'Child',
          where: [['name', '==', 'c1']],
        },
      ],
      [
        {
          op: 'delete',
          table: 'Child',
          where: [['name', '==', 'c2']],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'r2',
            child_map: ['map', [['y', ['uuid', '11111111-1111-1111-1111-111111111111']]]],
          },
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [['name', '==', 'r1']],
          mutations: [['child_map', 'delete', ['set', ['x']]]],
        },
        {
          op: 'select',
          table: 'Child',
          where: [],
          columns: ['name'],
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
          op: 'insert',
          table: 'Child',
          row: {
            name: 'c3',
          },
          'uuid-name': 'c3',
        },
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [
            ['children', 'insert', ['named-uuid', 'c3']],
            ['child_map', 'insert', ['map', [['z', ['named-uuid', 'c3']]]]],
          ],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['children', 'delete', ['set', []]]],
        },
        {
          op: 'delete',
          table: 'Child',
          where: [['name', '==', 'c3']],
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
        {
          op: 'delete',
          table: 'Child',
          where: [['name', '==', 'c3']],
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            child_map: ['map', []],
          },
        },
        {
          op: 'select',
          table: 'Child',
          where: [],
          columns: ['name'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Child',
          row: {
            name: 'loop1',
            kids: ['named-uuid', 'loop2'],
          },
          'uuid-name': 'loop1',
        },
        {
          op: 'insert',
          table: 'Child',
          row: {
            name: 'loop2',
            kids: ['named-uuid', 'loop1'],
          },
          'uuid-name': 'loop2',
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
          op: 'insert',
          table: 'Child',
          row: {
            name: 'selfref',
            kids: ['named-uuid', 's'],
          },
          'uuid-name': 's',
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
          op: 'insert',
          table: 'Child',
          row: {
            name: 'k',
            owner: ['named-uuid', 'rr'],
          },
          'uuid-name': 'k',
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'rr',
            children: ['named-uuid', 'k'],
          },
          'uuid-name': 'rr',
        },
      ],
      [
        {
          op: 'delete',
          table: 'Root',
          where: [['name', '==', 'rr']],
        },
      ],
      [
        {
          op: 'select',
          table: 'Child',
          where: [],
          columns: ['name', 'owner'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'w',
          },
          'uuid-name': 'w',
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'wm',
            weak_map: [
              'map',
              [
                [['named-uuid', 'w'], 1],
                [['uuid', '11111111-1111-1111-1111-111111111111'], 2],
              ],
            ],
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['name', '==', 'wm']],
          columns: ['weak_map'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'w2',
          },
          'uuid-name': 'w2',
        },
        {
          op: 'delete',
          table: 'Weak',
          where: [['name', '==', 'w2']],
        },
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'wm2',
            weak: ['named-uuid', 'w2'],
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['name', '==', 'wm2']],
          columns: ['weak'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'w3',
          },
          'uuid-name': 'w3',
        },
        {
          op: 'insert',
          table: 'WeakReq',
          row: {
            one: ['named-uuid', 'w3'],
            some: [
              'set',
              [
                ['named-uuid', 'w3'],
                ['uuid', '11111111-1111-1111-1111-111111111111'],
              ],
            ],
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'WeakReq',
          where: [],
          columns: ['some'],
        },
      ],
      [
        {
          op: 'delete',
          table: 'Weak',
          where: [['name', '==', 'w3']],
        },
      ],
      [
        {
          op: 'delete',
          table: 'Weak',
          where: [['name', '==', 'w']],
        },
        {
          op: 'select',
          table: 'Root',
          where: [['name', '==', 'wm']],
          columns: ['weak_map'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'p1',
            peer: ['named-uuid', 'p2'],
          },
          'uuid-name': 'p1',
        },
        {
          op: 'insert',
          table: 'Weak',
          row: {
            name: 'p2',
            peer: ['named-uuid', 'p1'],
          },
          'uuid-name': 'p2',
        },
      ],
      [
        {
          op: 'delete',
          table: 'Weak',
          where: [['name', '==', 'p1']],
        },
      ],
      [
        {
          op: 'select',
          table: 'Weak',
          where: [],
          columns: ['name', 'peer'],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'v',
          },
        },
        {
          op: 'update',
          table: 'Root',
          where: [['name', '==', 'v']],
          row: {
            i: 1,
          },
        },
        {
          op: 'update',
          table: 'Root',
          where: [['name', '==', 'v']],
          row: {
            i: 0,
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [['name', '==', 'v']],
          row: {
            i: 1,
          },
        },
        {
          op: 'update',
          table: 'Root',
          where: [['name', '==', 'v']],
          row: {
            i: 0,
          },
        },
      ],
      [
        {
          op: 'update',
          table: 'Root',
          where: [['name', '==', 'v']],
          row: {
            i: 2,
          },
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [['name', '==', 'v']],
          mutations: [['i', '+=', 0]],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 't',
          },
        },
        {
          op: 'delete',
          table: 'Root',
          where: [['name', '==', 't']],
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
];

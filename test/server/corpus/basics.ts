/**
 * Differential corpus: Operations, results and value parsing.
 * Each case runs on an empty database; see `types.ts`.
 * @module
 */

import type { CorpusCase } from './types.js';

/** Cases against the small test schema (`test/fixtures/test.ovsschema`). */
export const basics: readonly CorpusCase[] = [
  {
    name: 'insert, select, constraint and parse errors, abort, assert, delete',
    txns: [
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'a',
          },
          'uuid-name': 'r1',
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'b',
            e: 'alpha',
            sset: ['set', ['x', 'y']],
          },
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['name', '==', 'b']],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'c',
            i: 1000,
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'c',
            e: 'zzz',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'c',
            s: 'x',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'c',
            i: 'x',
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'c',
            iset: ['set', [1, 1]],
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'c',
            iset: ['set', [1, 2, 3, 4, 5, 6]],
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'c',
            nope: 1,
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Nope',
          row: {},
        },
      ],
      [
        {
          op: 'bogus',
          table: 'Root',
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {},
          extra: 1,
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {},
          extra: 1,
          more: 2,
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            fixed: 'q',
            name: 'z',
          },
        },
        {
          op: 'update',
          table: 'Root',
          where: [],
          row: {
            fixed: 'y',
          },
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['fixed', 'insert', 'y']],
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
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'w',
            children: ['named-uuid', 'nope'],
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'w',
            children: ['uuid', '11111111-2222-3333-4444-555555555555'],
          },
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 'w',
            _uuid: ['uuid', '11111111-2222-3333-4444-555555555555'],
          },
        },
      ],
      [
        {
          op: 'wait',
          table: 'Root',
          where: [],
          until: '==',
          rows: [],
          timeout: 0,
        },
      ],
      [
        {
          op: 'abort',
        },
        {
          op: 'comment',
          comment: 'x',
        },
      ],
      [
        {
          op: 'assert',
          lock: 'foo',
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['iset', '<', 1]],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['name', '<', 'x']],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['name', '~', 'x']],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [['name', '==', 1]],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [true],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['name', 'zz'],
        },
      ],
      [
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['name', 'name'],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['i', '/=', 0]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['r', '%=', 1]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['i', '+=', 1000]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['iset', 'insert', ['set', [1, 2, 3, 4, 5, 6]]]],
        },
      ],
      [
        {
          op: 'mutate',
          table: 'Root',
          where: [],
          mutations: [['sset', 'delete', ['set', ['', 'x', 'y']]]],
        },
      ],
      [
        {
          op: 'insert',
          table: 'Root',
          row: {
            name: 1,
          },
        },
      ],
      [
        {
          op: 'delete',
          table: 'Root',
          where: [['name', '==', 'b']],
        },
        {
          op: 'select',
          table: 'Root',
          where: [],
          columns: ['name'],
        },
      ],
    ],
  },
];

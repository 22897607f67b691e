/**
 * The columns a model has and a server's schema lacks (`absentColumns`),
 * the check of monitor conditions against them, and the row codec, which
 * builds rows with exactly the monitored columns (a column it does not
 * monitor is not a property of the row, never a default).
 */

import { describe, expect, it } from 'vitest';
import {
  absentColumns,
  compareSchemas,
  SchemaDriftError,
  usableColumns,
} from '../../../src/ovsdb/schema/compat.js';
import { serverConditions } from '../../../src/ovsdb/schema/compat-checks.js';
import { parseSchema } from '../../../src/ovsdb/schema/schema.js';
import { compileRowCodec } from '../../../src/rows/codec.js';

const MODEL = parseSchema({
  name: 'D',
  version: '2.0.0',
  tables: {
    T: {
      columns: {
        a: { type: 'string' },
        b: { type: 'integer' },
        c: { type: { key: 'string', min: 0, max: 'unlimited' } },
        d: { type: { key: 'integer', min: 0, max: 1 } },
      },
      isRoot: true,
    },
    New: { columns: { x: { type: 'string' } }, isRoot: true },
  },
});

const SERVER = parseSchema({
  name: 'D',
  version: '1.0.0',
  tables: {
    T: {
      columns: {
        a: { type: 'string' },
        // d of another atomic type: the model cannot read it.
        d: { type: { key: 'string', min: 0, max: 1 } },
      },
      isRoot: true,
    },
  },
});

describe('absentColumns', () => {
  const report = compareSchemas(MODEL, SERVER);

  it('lists the missing columns and those of an unreadable type, in the model’s order', () => {
    expect(report.missingColumns['T']).toEqual(['b', 'c']);
    expect(absentColumns(report, MODEL, 'T')).toEqual(['b', 'c', 'd']);
    expect(usableColumns(report, MODEL, 'T')).toEqual(['_version', 'a']);
  });

  it('is every column of a table the server lacks, and none of a table the model lacks', () => {
    expect(absentColumns(report, MODEL, 'New')).toEqual(['x']);
    expect(absentColumns(report, MODEL, 'Nope')).toEqual([]);
    expect(absentColumns(compareSchemas(MODEL, MODEL), MODEL, 'T')).toEqual([]);
  });

  it('a monitor condition on one is a SchemaDriftError naming table.column, or dropped', () => {
    const refuse = (where: Parameters<typeof serverConditions>[3]) =>
      serverConditions(report, MODEL, 'T', where, 'refuse');
    expect(() =>
      refuse([
        ['a', '==', 'x'],
        ['b', '==', 1],
      ]),
    ).toThrow(SchemaDriftError);
    let thrown: unknown;
    try {
      refuse([true, ['d', '==', 1]]);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toMatchObject({ table: 'T', column: 'd', opIndex: -1, serverVersion: '1.0.0' });
    expect((thrown as Error).message).toBe(
      "the monitor condition of table T: column T.d does not exist in the server's schema (version 1.0.0); the model is newer than the server",
    );
    expect(refuse([['a', '==', 'x'], true])).toEqual({
      where: [['a', '==', 'x'], true],
      dropped: [],
    });
    // Dropped, as the C IDL does: what is left is sent; nothing left is [false].
    const drop = (where: Parameters<typeof serverConditions>[3]) =>
      serverConditions(report, MODEL, 'T', where, 'drop');
    expect(
      drop([
        ['a', '==', 'x'],
        ['b', '==', 1],
      ]),
    ).toEqual({
      where: [['a', '==', 'x']],
      dropped: [['b', '==', 1]],
    });
    expect(
      drop([
        ['b', '==', 1],
        ['d', '==', 2],
      ]),
    ).toEqual({
      where: [false],
      dropped: [
        ['b', '==', 1],
        ['d', '==', 2],
      ],
    });
    expect(drop([])).toEqual({ where: [], dropped: [] });
  });
});

describe('the row codec', () => {
  it('builds rows with exactly the monitored columns', () => {
    const codec = compileRowCodec(MODEL.tables['T']!, ['a', 'c']);
    const uuid = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
    const row = codec.decodeRow(uuid, {});
    expect(row).toEqual({ _uuid: uuid, a: '', c: [] });
    expect(Object.keys(row)).toEqual(['_uuid', 'a', 'c']);
    expect('b' in row).toBe(false);
    const changed = codec.applyModify(codec.decodeRow(uuid, { a: 'x' }), { a: 'y', b: 5 });
    expect(changed).toEqual({ _uuid: uuid, a: 'y', c: [] });
    expect('b' in changed).toBe(false);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSchema } from '../../../src/ovsdb/schema/schema.js';
import type { ColumnSchema, DatabaseSchema } from '../../../src/ovsdb/schema/schema-types.js';
import {
  compileColumnCodec,
  compileTableCodec,
  encodeAtom,
} from '../../../src/ovsdb/values/datum.js';
import {
  columnValueProblem,
  validateColumnValue,
  validateRow,
} from '../../../src/ovsdb/values/validators.js';
import { DatumError } from '../../../src/ovsdb/wire/errors.js';
import { stringifyJson } from '../../../src/ovsdb/wire/json-stringify.js';
import { parseJson } from '../../../src/ovsdb/wire/json-text.js';
import { arbitraryRow, arbitraryValue, invalidValues } from '../../helpers/arbitraries.js';

/** A schema file, its integers read exactly. */
function readSchema(path: string): DatabaseSchema {
  return parseSchema(parseJson(readFileSync(path, 'utf8')));
}

const FIXTURES = join(import.meta.dirname, '../../fixtures/schemas');
/** A schema of 64-bit integer columns: unbounded, bounded, bounds beyond 2^53, maps and sets. */
const INT64_SCHEMA = join(import.meta.dirname, '../../fixtures/int64-client.ovsschema');
const schemas: [string, DatabaseSchema][] = [
  ...readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.ovsschema'))
    .sort()
    .map((f) => join(FIXTURES, f)),
  INT64_SCHEMA,
].map((path): [string, DatabaseSchema] => [basename(path), readSchema(path)]);

/** Wire text and back, as the peer and the framer do it (exact for 64-bit integers). */
const viaWire = (v: unknown): unknown => parseJson(stringifyJson(v));

/** Every column of every table of a schema, implicit ones included. */
function columnsOf(schema: DatabaseSchema): [string, ColumnSchema][] {
  return Object.values(schema.tables).flatMap((t) =>
    Object.values(t.columns).map((c): [string, ColumnSchema] => [t.name, c]),
  );
}

function isConstrained(column: ColumnSchema): boolean {
  const constrained = (b: ColumnSchema['type']['key'] | undefined) =>
    b !== undefined &&
    (b.enum !== undefined ||
      b.minInteger !== undefined ||
      b.maxInteger !== undefined ||
      b.minReal !== undefined ||
      b.maxReal !== undefined ||
      b.minLength !== undefined ||
      b.maxLength !== undefined);
  const { type } = column;
  const cardinality =
    type.kind !== 'scalar' &&
    type.kind !== 'optional' &&
    (type.min > 0 || Number.isFinite(type.max));
  return constrained(type.key) || constrained(type.value) || cardinality;
}

const RUNS = 8;

describe.each(schemas)('%s', (_file, schema) => {
  const columns = columnsOf(schema);

  it('has columns to test', () => {
    expect(columns.length).toBeGreaterThan(Object.keys(schema.tables).length * 2);
  });

  it('valid values pass the validator and round-trip through JSON', () => {
    for (const [table, column] of columns) {
      const codec = compileColumnCodec(table, column);
      fc.assert(
        fc.property(arbitraryValue(column), (value) => {
          expect(columnValueProblem(column, value)).toBeUndefined();
          const wire = viaWire(codec.encode(value));
          expect(codec.decode(wire)).toEqual(value);
        }),
        { numRuns: RUNS, seed: 1 },
      );
    }
  });

  it('one-element sets also decode from the bare atom', () => {
    for (const [table, column] of columns) {
      if (column.type.kind === 'map') continue;
      const codec = compileColumnCodec(table, column);
      fc.assert(
        fc.property(arbitraryValue(column), (value) => {
          const elems = Array.isArray(value) ? value : value === null ? [] : [value];
          if (elems.length !== 1) return;
          const bare = viaWire(encodeAtom(column.type.key, elems[0]));
          expect(codec.decode(bare)).toEqual(value);
          expect(codec.decode(['set', [bare]])).toEqual(value);
        }),
        { numRuns: RUNS, seed: 2 },
      );
    }
  });

  it('whole rows validate for insert and round-trip through the table codec', () => {
    for (const table of Object.values(schema.tables)) {
      const codec = compileTableCodec(table);
      fc.assert(
        fc.property(arbitraryRow(table, 'insert'), (row) => {
          validateRow(table, row, 'insert');
          const wire = viaWire(codec.encodeRow(row)) as Record<string, unknown>;
          expect(codec.decodeRow(wire)).toEqual(row);
        }),
        { numRuns: 3, seed: 3 },
      );
    }
  });

  it('values just outside each constraint are rejected, naming table and column', () => {
    let checked = 0;
    for (const [table, column] of columns) {
      if (!isConstrained(column)) continue;
      for (const bad of invalidValues(column)) {
        let error: unknown;
        try {
          validateColumnValue(table, column, bad.value);
        } catch (e) {
          error = e;
        }
        const where = `${table}.${column.name} (${bad.rule})`;
        expect(error, where).toBeInstanceOf(DatumError);
        const e = error as DatumError;
        expect([e.table, e.column], where).toEqual([table, column.name]);
        expect(e.reason, where).toContain(bad.reason);
        expect(e.message.startsWith(`${table}.${column.name}: `), where).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('64-bit integers', () => {
  const schema = readSchema(INT64_SCHEMA);
  const table = schema.tables['Counter'];
  if (table === undefined) throw new Error('no Counter table');
  const codec = compileTableCodec(table);

  it('generated integer values cover the whole int64 range, as numbers when safe and bigints beyond', () => {
    const column = table.columns['value'] as ColumnSchema;
    const values = fc.sample(arbitraryValue(column), { numRuns: 2000, seed: 5 });
    const bigs = values.filter((v) => typeof v === 'bigint') as bigint[];
    expect(bigs.length).toBeGreaterThan(100);
    expect(values.filter((v) => typeof v === 'number').length).toBeGreaterThan(100);
    for (const b of bigs)
      expect(b > BigInt(Number.MAX_SAFE_INTEGER) || b < -BigInt(Number.MAX_SAFE_INTEGER)).toBe(
        true,
      );
    expect(values).toContain(2n ** 63n - 1n);
    expect(values).toContain(-(2n ** 63n));
  });

  it('rows with 64-bit integers round-trip exactly through the wire text', () => {
    fc.assert(
      fc.property(arbitraryRow(table, 'full'), (row) => {
        validateRow(table, row, 'insert');
        const wire = viaWire(codec.encodeRow(row)) as Record<string, unknown>;
        const back = codec.decodeRow(wire);
        expect(back).toEqual(row);
      }),
      { numRuns: 300, seed: 6 },
    );
  });

  it('an unsafe JS number is a DatumError naming table.column, never a rounded value', () => {
    const e = (() => {
      try {
        codec.encodeRow({ value: 2 ** 53 + 1 });
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(DatumError);
    expect((e as DatumError).message).toMatch(
      /^Counter\.value: integer 9007199254740992 is not a safe JS integer .*pass it as a bigint/,
    );
    expect(() =>
      validateColumnValue('Counter', table.columns['counts'] as ColumnSchema, { a: 2 ** 60 }),
    ).toThrow(
      /Counter\.counts: value of map key "a": integer 1152921504606847000 is not a safe JS integer .*e.g. 1152921504606846976n/,
    );
  });

  it('checks bounds beyond 2^53 exactly', () => {
    const wide = table.columns['wide'] as ColumnSchema;
    expect(columnValueProblem(wide, 2n ** 62n)).toBeUndefined();
    expect(columnValueProblem(wide, 2n ** 62n + 1n)).toBe(
      'integer 4611686018427387905 is above maxInteger 4611686018427387904',
    );
    expect(columnValueProblem(wide, -(2n ** 62n))).toBeUndefined();
    expect(columnValueProblem(wide, -(2n ** 62n) - 1n)).toMatch(
      /below minInteger -4611686018427387904/,
    );
    const value = table.columns['value'] as ColumnSchema;
    expect(columnValueProblem(value, 2n ** 63n - 1n)).toBeUndefined();
    expect(columnValueProblem(value, 2n ** 63n)).toMatch(/outside the int64 range/);
    // A bigint within ±(2^53−1) is accepted and encoded in canonical form.
    expect(compileColumnCodec('Counter', value).encode(5n)).toBe(5);
    expect(compileColumnCodec('Counter', value).decode(2n ** 53n)).toBe(2n ** 53n);
  });

  it('integer map keys beyond 2^53 decode and encode exactly', () => {
    const byId = compileColumnCodec('Counter', table.columns['by_id'] as ColumnSchema);
    const wire = [
      'map',
      [
        [-(2n ** 63n), 'min'],
        [2n ** 53n + 1n, 'x'],
        [7, 'seven'],
      ],
    ];
    const value = byId.decode(wire) as Record<string, string>;
    expect(value).toStrictEqual({
      '-9223372036854775808': 'min',
      '9007199254740993': 'x',
      '7': 'seven',
    });
    expect(byId.encode(value)).toStrictEqual([
      'map',
      [
        [7, 'seven'],
        [-(2n ** 63n), 'min'],
        [2n ** 53n + 1n, 'x'],
      ],
    ]);
    expect(() => byId.encode({ '9223372036854775808': 'x' })).toThrow(/outside the int64 range/);
  });
});

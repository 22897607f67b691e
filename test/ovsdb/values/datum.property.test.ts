import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSchemaText } from '../../../src/ovsdb/schema/schema.js';
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
import { arbitraryRow, arbitraryValue, invalidValues } from '../../helpers/arbitraries.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/schemas');
const schemas: [string, DatabaseSchema][] = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.ovsschema'))
  .sort()
  .map((f) => [f, parseSchemaText(readFileSync(join(FIXTURES, f), 'utf8'))]);

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
          const wire: unknown = JSON.parse(JSON.stringify(codec.encode(value)));
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
          const bare: unknown = JSON.parse(JSON.stringify(encodeAtom(column.type.key, elems[0])));
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
          const wire = JSON.parse(JSON.stringify(codec.encodeRow(row))) as Record<string, unknown>;
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

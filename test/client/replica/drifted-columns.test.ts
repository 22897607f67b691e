/**
 * The row codec on columns whose type differs on the server: decoded (and
 * diffed) by the server's type, held in the model's form, and left out of a
 * row whose value has no form in the model's type, with that value kept
 * aside for later diffs. Every kind pair of one atomic type is covered.
 */

import { describe, expect, it } from 'vitest';
import { parseSchema } from '../../../src/ovsdb/schema/schema.js';
import type { TableSchema } from '../../../src/ovsdb/schema/schema-types.js';
import { compileRowCodec, valueAside } from '../../../src/rows/codec.js';

const U = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

function table(types: Record<string, unknown>): TableSchema {
  const columns = Object.fromEntries(Object.entries(types).map(([c, type]) => [c, { type }]));
  return parseSchema({ name: 'D', version: '1.0.0', tables: { T: { columns, isRoot: true } } })
    .tables['T']!;
}

const scalar = 'string';
const optional = { key: 'string', min: 0, max: 1 };
const set = (min: number, max: number | 'unlimited') => ({ key: 'string', min, max });

/** The codec of column `a` typed `model` in the model and `server` on the server. */
function codecFor(model: unknown, server: unknown) {
  const m = table({ a: model, b: 'integer' });
  const s = table({ a: server, b: 'integer' });
  return compileRowCodec(m, ['a', 'b'], { a: s.columns['a']! });
}

describe('a scalar in the model, an optional on the server', () => {
  const codec = codecFor(scalar, optional);

  it('reads a value as the scalar, and no value as a row without the column', () => {
    expect(codec.decodeRow(U, { a: 'x', b: 1 })).toEqual({ _uuid: U, a: 'x', b: 1 });
    // The server leaves its default (no value) out of the row: not the model's "" default.
    const none = codec.decodeRow(U, { b: 1 });
    expect(none).toEqual({ _uuid: U, b: 1 });
    expect('a' in none).toBe(false);
    expect('a' in codec.decodeRow(U, { a: ['set', []] })).toBe(false);
  });

  it('follows changes between the two', () => {
    const none = codec.decodeRow(U, {});
    const given = codec.applyModify(none, { a: 'y' });
    expect(given).toEqual({ _uuid: U, a: 'y', b: 0 });
    const gone = codec.applyModify(given, { a: ['set', []] });
    expect('a' in gone).toBe(false);
    // Another column's change keeps the column out.
    const other = codec.applyModify(gone, { b: 5 });
    expect(other).toEqual({ _uuid: U, b: 5 });
  });
});

describe('an optional in the model, a scalar on the server', () => {
  const codec = codecFor(optional, scalar);

  it('reads the scalar as the optional, and the server’s default "" rather than none', () => {
    expect(codec.decodeRow(U, { a: 'x' }).a).toBe('x');
    expect(codec.decodeRow(U, {}).a).toBe('');
    expect(codec.applyModify(codec.decodeRow(U, {}), { a: 'z' }).a).toBe('z');
  });
});

describe('an optional in the model, a set of up to 4 on the server', () => {
  const codec = codecFor(optional, set(0, 4));

  it('reads none and one element, and leaves out several, keeping them aside for diffs', () => {
    expect(codec.decodeRow(U, {}).a).toBeNull();
    expect(codec.decodeRow(U, { a: 'x' }).a).toBe('x');
    const two = codec.decodeRow(U, { a: ['set', ['x', 'y']] });
    expect('a' in two).toBe(false);
    expect(valueAside(two, 'a')).toEqual(['x', 'y']);
    // A diff of the server's set (symmetric difference) applies to the value aside.
    const three = codec.applyModify(two, { a: ['set', ['z']] });
    expect('a' in three).toBe(false);
    expect(valueAside(three, 'a')).toEqual(['x', 'y', 'z']);
    // An unrelated change keeps the value aside.
    const still = codec.applyModify(three, { b: 2 });
    expect(valueAside(still, 'a')).toEqual(['x', 'y', 'z']);
    const one = codec.applyModify(still, { a: ['set', ['x', 'z']] });
    expect(one.a).toBe('y');
    expect(valueAside(one, 'a')).toBeUndefined();
    expect(codec.applyModify(one, { a: 'y' }).a).toBeNull();
  });

  it('applies a plain update’s new value the same way', () => {
    const two = codec.applyNew(U, undefined, { a: ['set', ['x', 'y']] });
    expect('a' in two).toBe(false);
    expect(codec.applyNew(U, two, { a: ['set', ['y']] }).a).toBe('y');
  });
});

describe('a set in the model, a scalar or an optional on the server', () => {
  it('reads one value as a one-element set, none as the empty set', () => {
    const fromScalar = codecFor(set(0, 'unlimited'), scalar);
    expect(fromScalar.decodeRow(U, { a: 'x' }).a).toEqual(['x']);
    expect(fromScalar.decodeRow(U, {}).a).toEqual(['']);
    const fromOptional = codecFor(set(0, 'unlimited'), optional);
    expect(fromOptional.decodeRow(U, {}).a).toEqual([]);
    const row = fromOptional.applyModify(fromOptional.decodeRow(U, {}), { a: 'x' });
    expect(row.a).toEqual(['x']);
    expect(fromOptional.applyModify(row, { a: ['set', []] }).a).toEqual([]);
  });
});

describe('sets of other sizes', () => {
  it('fill the server’s default: no element where its min is 0, even when the model’s is 1', () => {
    // Logical_Router_Port.networks, min 1 in NB 7.6.0, 0 in 7.11.0.
    expect(codecFor(set(1, 'unlimited'), set(0, 'unlimited')).decodeRow(U, {}).a).toEqual([]);
    expect(codecFor(set(0, 'unlimited'), set(1, 'unlimited')).decodeRow(U, {}).a).toEqual(['']);
  });

  it('read a larger set than the model’s max as it is, and diff it', () => {
    const codec = codecFor(set(0, 3), set(0, 4));
    const four = codec.decodeRow(U, { a: ['set', ['a', 'b', 'c', 'd']] });
    expect(four.a).toEqual(['a', 'b', 'c', 'd']);
    expect(codec.applyModify(four, { a: ['set', ['a']] }).a).toEqual(['b', 'c', 'd']);
  });
});

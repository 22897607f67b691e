import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareAtoms, type Json } from '../../codegen/canonical.js';
import {
  aliasedType,
  aliasedUnion,
  asciiText,
  inlineJson,
  jsonLiteral,
  LINE_WIDTH,
  objectLiteral,
  propertyName,
  tsLiteral,
  tsNumber,
  tsString,
  typeReference,
} from '../../codegen/literals.js';

/** Evaluate a JS expression. */
function evaluate(expression: string): unknown {
  return new Function(`return (${expression});`)();
}

describe('integers beyond 2^53−1 (bigints)', () => {
  it('are written as bigint literals that evaluate back to the same value', () => {
    const big = 9223372036854775807n;
    expect(tsLiteral(big)).toBe('9223372036854775807n');
    expect(evaluate(tsLiteral(-big - 1n))).toBe(-big - 1n);
    expect(inlineJson({ maxInteger: big, enum: ['set', [1, big]] })).toBe(
      "{ maxInteger: 9223372036854775807n, enum: ['set', [1, 9223372036854775807n]] }",
    );
  });

  it('sort among numbers by value', () => {
    const atoms = [9007199254740993n, 3, -9007199254740993n, 9007199254740991];
    expect([...atoms].sort(compareAtoms)).toEqual([
      -9007199254740993n,
      3,
      9007199254740991,
      9007199254740993n,
    ]);
  });
});

describe('tsString', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", '"it\'s"'],
    ['say "hi"', '\'say "hi"\''],
    ['both \' and " "', "'both \\' and \" \"'"],
    ['tab\tnew\nline\\', "'tab\\tnew\\nline\\\\'"],
    ['line\u2028para\u2029', "'line\\u2028para\\u2029'"],
  ])('tsString(%j) is %s', (input, expected) => {
    expect(tsString(input)).toBe(expected);
    expect(evaluate(expected)).toBe(input);
  });

  it('evaluates back to any string, and is one line (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' })), (s) => {
        expect(evaluate(tsString(s))).toBe(s);
        expect(tsString(s)).not.toMatch(/[\n\r\u2028\u2029]/);
      }),
    );
  });
});

describe('asciiText', () => {
  it('is printable ASCII as it is, else an escaped literal of printable ASCII (property)', () => {
    expect(asciiText('3009684573 744')).toBe('3009684573 744');
    expect(asciiText('a\u2028b')).toBe("'a\\u2028b'");
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' })), (s) => {
        const text = asciiText(s);
        expect(text).toMatch(/^[ -~]*$/);
        if (text !== s) expect(evaluate(text)).toBe(s);
      }),
    );
  });
});

describe('numbers and names', () => {
  it('writes exponents without +, and rejects non-finite numbers', () => {
    expect(tsNumber(1e25)).toBe('1e25');
    expect(tsNumber(-1.5)).toBe('-1.5');
    expect(() => tsNumber(Number.NaN)).toThrow(RangeError);
  });

  it('quotes property names that are not identifiers', () => {
    expect(propertyName('external_ids')).toBe('external_ids');
    expect(propertyName('class')).toBe('class');
    expect(propertyName('dynamic-routing')).toBe("'dynamic-routing'");
  });
});

const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ maxLength: 30 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 8 }),
    fc.dictionary(
      fc.string({ minLength: 1, maxLength: 12 }).filter((k) => k !== '__proto__'),
      tie('value'),
      { maxKeys: 6 },
    ),
  ),
})).value;

describe('jsonLiteral', () => {
  it('evaluates back to the value, at any depth (property)', () => {
    fc.assert(
      fc.property(json, fc.nat(6), (value, depth) => {
        const text = jsonLiteral(value, { depth, before: 0, after: 1 });
        expect(evaluate(text)).toEqual(value);
      }),
    );
  });

  it('stays on one line when it fits and breaks by member when it does not', () => {
    const value = { key: { type: 'string', enum: ['set', ['a', 'b']] }, min: 0 };
    expect(jsonLiteral(value, { depth: 0, before: 0, after: 0 })).toBe(inlineJson(value));
    expect(inlineJson(value)).toBe(
      "{ key: { type: 'string', enum: ['set', ['a', 'b']] }, min: 0 }",
    );
    expect(jsonLiteral(value, { depth: 0, before: 60, after: 0 })).toBe(
      "{\n  key: { type: 'string', enum: ['set', ['a', 'b']] },\n  min: 0,\n}",
    );
  });

  it('keeps every line within the width when the words allow (property)', () => {
    const words = fc.array(fc.stringMatching(/^[a-z]{1,12}$/), { maxLength: 40 });
    fc.assert(
      fc.property(words, fc.array(fc.integer(), { maxLength: 60 }), (strings, numbers) => {
        const text = jsonLiteral(
          { strings, numbers, nested: { strings } },
          { depth: 1, before: 10, after: 1 },
        );
        const lines = text.split('\n');
        lines[0] = `${'  '.repeat(1)}${' '.repeat(10)}${lines[0]}`;
        for (const line of lines) expect(line.length).toBeLessThanOrEqual(LINE_WIDTH);
      }),
    );
  });

  it('packs numbers onto as few lines as fit', () => {
    const numbers = Array.from({ length: 40 }, (_, i) => 100 + i);
    const text = jsonLiteral(numbers, { depth: 0, before: 30, after: 10 });
    const lines = text.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[1]).toBe(`  ${numbers.slice(0, 19).join(', ')},`);
    expect(evaluate(text)).toEqual(numbers);
  });
});

describe('object literals and types', () => {
  it('objectLiteral puts one member per line, indented from its depth', () => {
    expect(
      objectLiteral(
        [
          ['a', '1'],
          ['b-c', "'x'"],
        ],
        1,
      ),
    ).toBe("{\n    a: 1,\n    'b-c': 'x',\n  }");
    expect(objectLiteral([], 3)).toBe('{}');
  });

  it('aliasedUnion is one line when the declaration fits, else one member per line', () => {
    expect(aliasedUnion('T', ["'a'", "'b'"])).toBe("'a' | 'b'");
    expect(aliasedUnion('T', [])).toBe('never');
    const long = Array.from({ length: 12 }, (_, i) => `'member_${i}'`);
    expect(aliasedUnion('T', long)).toBe(long.map((m) => `\n  | ${m}`).join(''));
  });

  it('aliasedType moves a long type to the next line', () => {
    expect(aliasedType('A', '(typeof A)[number]')).toBe('(typeof A)[number]');
    const name = 'A'.repeat(45);
    expect(aliasedType(name, `(typeof ${name})[number]`)).toBe(`\n  (typeof ${name})[number]`);
  });

  it('typeReference breaks several arguments that do not fit, never a single one', () => {
    expect(typeReference('TableTypes', ['A', 'B', 'C'], 1, 20, 1)).toBe('TableTypes<A, B, C>');
    const args = ['X'.repeat(30), 'Y'.repeat(30), 'Z'.repeat(30)];
    expect(typeReference('TableTypes', args, 1, 20, 1)).toBe(
      `TableTypes<\n    ${args.join(',\n    ')}\n  >`,
    );
    expect(typeReference('Uuid', ["'T'".repeat(60)], 1, 20, 1)).toBe(`Uuid<${"'T'".repeat(60)}>`);
  });
});

import { describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN } from '../../../src/ovsdb/values/int64.js';
import {
  joinPieces,
  MAX_STRING_UNITS,
  stringifyJson,
  stringifyJsonPieces,
  TextPieces,
} from '../../../src/ovsdb/wire/json-stringify.js';
import {
  DEFAULT_MAX_DEPTH,
  depthExceededAt,
  hasLongInteger,
  hasNulEscape,
  integerTokenValue,
  parseJson,
  parseJsonLossless,
  parseJsonMessage,
} from '../../../src/ovsdb/wire/json-text.js';

const SAFE = Number.MAX_SAFE_INTEGER;

describe('parseJsonLossless', () => {
  it('gives integer tokens their canonical int64', () => {
    expect(parseJsonLossless('[9223372036854775807,-9223372036854775808]')).toEqual([
      INT64_MAX,
      INT64_MIN,
    ]);
    const [a, b, c, d, e] = parseJsonLossless(
      '[9007199254740993,-9007199254740993,9007199254740991,-9007199254740991,9007199254740992]',
    ) as unknown[];
    expect(a).toBe(2n ** 53n + 1n);
    expect(b).toBe(-(2n ** 53n + 1n));
    expect(c).toBe(SAFE);
    expect(d).toBe(-SAFE);
    expect(e).toBe(2n ** 53n);
    // Padded safe values of 16+ digits are numbers.
    expect(parseJsonLossless('[1000000000000000,-1000000000000000]')).toEqual([1e15, -1e15]);
  });

  it('decodes an integer beyond int64 as the number JSON.parse gives', () => {
    for (const t of ['9223372036854775808', '-9223372036854775809', '123456789012345678901234']) {
      const v = parseJsonLossless(t);
      expect(typeof v).toBe('number');
      expect(v).toBe(JSON.parse(t));
    }
  });

  it('parses reals as JSON.parse does, whatever their digits', () => {
    for (const t of [
      '0.10000000000000001',
      '12345678901234567.5',
      '1e400',
      '-1.5E-7',
      '12345678901234567890e0',
      '-0',
      '-0.0',
      '0',
    ]) {
      expect(Object.is(parseJsonLossless(t), JSON.parse(t))).toBe(true);
    }
  });

  it('builds the same structures as JSON.parse', () => {
    for (const t of [
      '{}',
      '[]',
      ' { "a" : [ 1 , 2 , { } , [ ] ] , "b" : null , "c" : true , "d" : false } ',
      '{"a":1,"a":2,"b":3}',
      '{"__proto__":{"x":1},"constructor":2}',
      '{"__proto__":1,"__proto__":2}',
      '"a\\u00e9\\n\\"\\\\\\/\\ud83d\\ude00"',
      '"\\ud800 lone"',
      '"héllo ☃ 😀"',
      '{"2":1,"1":2,"b":3,"a":4}',
      '[[[[[[["deep"]]]]]]]',
      '\t\r\n[1]\n',
    ]) {
      const ours = parseJsonLossless(t);
      const theirs: unknown = JSON.parse(t);
      expect(ours).toStrictEqual(theirs);
      if (typeof theirs === 'object' && theirs !== null) {
        expect(Object.keys(ours as object)).toEqual(Object.keys(theirs));
      }
    }
    const proto = parseJsonLossless('{"__proto__":{"polluted":1}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.hasOwn(proto, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('rejects what JSON.parse rejects', () => {
    for (const t of [
      '',
      ' ',
      '{',
      '[1,]',
      '{"a":1,}',
      '{"a" 1}',
      '{a:1}',
      '[01]',
      '[-]',
      '[1.]',
      '[.5]',
      '[1e]',
      '[1e+]',
      '[+1]',
      '["a\u0001"]',
      '["\\x"]',
      '["\\u12"]',
      '"abc',
      '[1] x',
      '[1][2]',
      'tru',
      'nul',
      '[NaN]',
      '[Infinity]',
      "['a']",
      '[1 2]',
      '{"a":1 "b":2}',
      '[12345678901234567890 1]',
    ]) {
      expect(() => JSON.parse(t), t).toThrow(SyntaxError);
      expect(() => parseJsonLossless(t), t).toThrow(SyntaxError);
    }
  });

  it('enforces maxDepth without recursion', () => {
    const deep = (n: number): string => `${'['.repeat(n)}1${']'.repeat(n)}`;
    expect(parseJsonLossless(deep(5), 5)).toEqual([[[[[1]]]]]);
    expect(() => parseJsonLossless(deep(6), 5)).toThrow(/deeper than 5/);
    // Far deeper than any recursive parser survives.
    const v = parseJsonLossless(deep(200_000), 1_000_000);
    let d = 0;
    for (let x: unknown = v; Array.isArray(x); x = x[0]) d++;
    expect(d).toBe(200_000);
  });
});

describe('the nesting limit and U+0000', () => {
  const deep = (n: number): string => `${'['.repeat(n)}1${']'.repeat(n)}`;

  it('parseJson allows 1,000 levels on both paths and refuses one more', () => {
    expect(DEFAULT_MAX_DEPTH).toBe(1000);
    expect(parseJson(deep(1000))).toBeDefined();
    expect(parseJson(`[${deep(999)},12345678901234567890]`)).toBeDefined();
    expect(() => parseJson(deep(1001))).toThrow(
      new SyntaxError('Nesting deeper than 1000 levels in JSON at position 1000'),
    );
    expect(() => parseJson(`[${deep(1000)},12345678901234567890]`)).toThrow(
      /Nesting deeper than 1000 levels in JSON at position 1000/,
    );
    expect(() => parseJson(deep(100_000))).toThrow(SyntaxError);
    expect(() => parseJson(deep(6), 5)).toThrow(/deeper than 5 levels/);
  });

  it('depthExceededAt skips brackets inside strings, escaped quotes included', () => {
    const s = `["[[[[\\"[[[[",${deep(2)}]`;
    expect(depthExceededAt(s, 3)).toBe(-1);
    expect(depthExceededAt(s, 2)).toBe(s.lastIndexOf('[[') + 1);
    expect(depthExceededAt('["\\\\",[[1]]]', 3)).toBe(-1);
    expect(depthExceededAt('["\\\\",[[1]]]', 2)).toBe(7);
    expect(depthExceededAt('["unterminated [[[[', 1)).toBe(-1);
  });

  it('hasNulEscape finds the escape, not an escaped backslash before "u0000"', () => {
    expect(hasNulEscape('{"a":"\\u0000"}')).toBe(true);
    expect(hasNulEscape('{"a":"\\\\u0000"}')).toBe(false);
    expect(hasNulEscape('{"a":"\\\\\\u0000"}')).toBe(true);
    expect(hasNulEscape('{"a":"\\\\u0000","b":"\\u0000"}')).toBe(true);
    expect(hasNulEscape('{"a":"\\u0001"}')).toBe(false);
  });

  it('parseJsonMessage refuses U+0000 as OVS does; parseJson reads it', () => {
    const text = '{"method":"echo","params":["a\\u0000"],"id":1}';
    expect(() => parseJsonMessage(text)).toThrow(
      new SyntaxError('null bytes not supported in quoted strings: a string holds U+0000'),
    );
    expect(parseJson(text)).toEqual({ method: 'echo', params: ['a\u0000'], id: 1 });
    expect(() => parseJsonMessage(deep(1001))).toThrow(/Nesting deeper than 1000/);
    expect(parseJsonMessage('{"a":"\\\\u0000"}')).toEqual({ a: '\\u0000' });
  });
});

describe('hasLongInteger and parseJson', () => {
  it('sees 16-digit integer tokens outside strings only', () => {
    expect(hasLongInteger('{"a":1234567890123456}')).toBe(true);
    expect(hasLongInteger('{"a":-1234567890123456}')).toBe(true);
    expect(hasLongInteger('{"a":123456789012345}')).toBe(false);
    expect(hasLongInteger('{"a":"12345678901234567890"}')).toBe(false);
    expect(hasLongInteger('{"a":"x\\"12345678901234567890"}')).toBe(false);
    expect(hasLongInteger('{"a":0.12345678901234567}')).toBe(false);
    expect(hasLongInteger('{"a":12345678901234567.5}')).toBe(false);
    expect(hasLongInteger('{"a":12345678901234567e3}')).toBe(false);
    expect(hasLongInteger('{"a":"1234567890123456789","b":[9223372036854775807]}')).toBe(true);
  });

  it('parses long integers exactly and everything else with JSON.parse', () => {
    expect(parseJson('{"id":1,"result":[9223372036854775807]}')).toEqual({
      id: 1,
      result: [INT64_MAX],
    });
    expect(parseJson('{"x":"9223372036854775807"}')).toEqual({ x: '9223372036854775807' });
  });

  it('integerTokenValue is canonical', () => {
    expect(integerTokenValue('42')).toBe(42);
    expect(integerTokenValue('-0')).toBe(-0);
    expect(integerTokenValue('9007199254740991')).toBe(SAFE);
    expect(integerTokenValue('-9007199254740992')).toBe(-(2n ** 53n));
    expect(integerTokenValue('9223372036854775808')).toBe(2 ** 63);
  });
});

describe('stringifyJson', () => {
  it('is JSON.stringify for values without bigints', () => {
    const date = new Date(0);
    for (const v of [
      { a: 1, b: [1, 'x', null, true], c: { d: undefined } },
      [undefined, () => 1, Symbol('s')],
      { n: Number.NaN, i: Number.POSITIVE_INFINITY, z: -0 },
      date,
      'é"\n',
    ]) {
      expect(stringifyJson(v)).toBe(JSON.stringify(v));
    }
  });

  it('writes bigints as their digits with JSON.stringify rules around them', () => {
    const value = {
      a: INT64_MAX,
      b: [INT64_MIN, undefined, () => 0, 2n ** 53n + 1n, Number.NaN],
      c: undefined,
      d: { toJSON: (k: string) => `key ${k}` },
      e: new Date(0),
      f: Object(5n) as object,
      g: Object('s') as object,
      h: Object(1.5) as object,
      i: Object(false) as object,
      __proto__x: 1,
    };
    expect(stringifyJson(value)).toBe(
      '{"a":9223372036854775807,"b":[-9223372036854775808,null,null,9007199254740993,null],' +
        '"d":"key d","e":"1970-01-01T00:00:00.000Z","f":5,"g":"s","h":1.5,"i":false,"__proto__x":1}',
    );
    expect(stringifyJson(5n)).toBe('5');
    const own: Record<string, unknown> = {};
    Object.defineProperty(own, '__proto__', { value: 7n, enumerable: true });
    expect(stringifyJson(own)).toBe('{"__proto__":7}');
    expect(parseJsonLossless(stringifyJson(value))).toMatchObject({ a: INT64_MAX });
  });

  it('rejects cycles and values with no JSON text', () => {
    const cyc: Record<string, unknown> = { n: 1n };
    cyc['self'] = cyc;
    expect(() => stringifyJson(cyc)).toThrow(TypeError);
    expect(() => stringifyJson(undefined)).toThrow(TypeError);
    // Shared (not cyclic) subtrees are fine.
    const shared = [1n];
    expect(stringifyJson([shared, shared])).toBe('[[1],[1]]');
  });

  it('writes values nested deeper than JSON.stringify can', () => {
    let v: unknown = 9223372036854775807n;
    for (let i = 0; i < 200_000; i++) v = [v];
    const text = stringifyJson(v);
    expect(text.length).toBe(400_000 + 19);
    expect(text.slice(199_998, 200_019)).toBe('[[9223372036854775807');
  });
});

/** `JSON.stringify` with each bigint written as its digits: what `stringifyJson` must write. */
function reference(v: unknown): string {
  return (
    JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `@@${x}@@` : x)) ?? ''
  ).replace(/"@@(-?\d+)@@"/g, '$1');
}

describe('JSON text in pieces', () => {
  it('is one string, JSON.stringify itself, when it fits in one', () => {
    const v = { a: [1, 'x', null], b: { c: true } };
    expect(stringifyJsonPieces(v)).toBe(JSON.stringify(v));
    const out = new TextPieces();
    out.add('[');
    out.json(v);
    out.add(']');
    expect(out.finish()).toBe(`[${JSON.stringify(v)}]`);
  });

  it('writes what JSON.stringify would, member runs and all, when walked', () => {
    // A bigint sends the value through the walker: runs of small members are
    // written together, large or unusual ones (toJSON, nested bigints) walked.
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 5000; i++) wide[`k${i}`] = { n: i, s: 'x'.repeat(i % 97), l: [i, [i]] };
    const value = {
      big: 2n ** 63n - 1n,
      wide,
      rows: Array.from({ length: 3000 }, (_, i) => (i % 1000 === 7 ? { b: BigInt(i) } : [i, 'r'])),
      odd: [undefined, () => 1, Symbol('s'), { toJSON: (k: string) => `key ${k}` }, new Date(0)],
      long: 'é😀'.repeat(300_000),
      deep: [[[[[[1n]]]]]],
      '10': 'integer key',
      omitted: undefined,
    };
    expect(stringifyJson(value)).toBe(reference(value));
    expect(joinPieces(stringifyJsonPieces(value))).toBe(reference(value));
  });

  it('never cuts a surrogate pair when it writes a long string in slices', () => {
    for (const at of [(1 << 20) - 1, 1 << 20, (1 << 20) + 1]) {
      const s = `${'a'.repeat(at)}😀${'b'.repeat(10)}`;
      const value = [1n, s, '\ud800 lone'];
      expect(stringifyJson(value)).toBe(reference(value));
    }
  });

  it('writes a text longer than the longest string in pieces that each fit in one', () => {
    const s = 'y'.repeat(60 * 1024 * 1024);
    const value = { rows: Array.from({ length: 9 }, () => ({ pad: s })) };
    const pieces = stringifyJsonPieces(value);
    if (typeof pieces === 'string') throw new Error('one string');
    let bytes = 0;
    for (const p of pieces) {
      expect(p.byteLength).toBeLessThanOrEqual(128 * 1024 * 1024);
      bytes += p.byteLength;
    }
    const rowText = `{"pad":"${s}"}`;
    expect(bytes).toBe('{"rows":[]}'.length + 9 * rowText.length + 8);
    expect(bytes).toBeGreaterThan(MAX_STRING_UNITS);
    // Each piece is whole UTF-8 text; together they are the text.
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let head = '';
    for (const p of pieces) {
      head += decoder.decode(p.subarray(0, 64));
      if (head.length >= 64) break;
    }
    expect(head).toMatch(/^\{"rows":\[\{"pad":"y{20}/);
    let tail = '';
    for (let i = pieces.length - 1; i >= 0 && tail.length < 64; i--) {
      const p = pieces[i] as Uint8Array;
      tail = decoder.decode(p.subarray(Math.max(0, p.byteLength - 64))) + tail;
    }
    expect(tail).toMatch(/y{20}"\}\]\}$/);
    let commas = 0;
    for (const p of pieces) for (const b of p) if (b === 0x2c) commas++;
    expect(commas).toBe(8);
    expect(() => stringifyJson(value)).toThrow(/longer than the longest string/);
  });
});

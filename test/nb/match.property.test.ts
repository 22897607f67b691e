/**
 * Property test of the match builder: 10,000 random expression trees (that
 * OVN's rules accept, see `src/nb/match/check.ts`) built from hostile names (quotes, backslashes, `&&`, `||`, newlines, comment
 * markers, unicode up to astral planes); every one is written out, parsed
 * back by our parser to the same tree, is printable ASCII, and its string
 * literals, read by an independent JSON decoder, are exactly the names put
 * in, in order: no input escapes its quotes.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatMatch,
  InvalidMatchError,
  type MatchExpr,
  type MatchValue,
  match,
  parseMatch,
} from '../../src/nb/index.js';

const HOSTILE_PIECES = [
  '"',
  '\\',
  '\\"',
  '&&',
  '||',
  '!',
  '(',
  ')',
  '{',
  '}',
  '==',
  '\n',
  '\r',
  '\t',
  '\b',
  '\f',
  '\u000b',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u2028',
  '\u2029',
  '\ufeff',
  'é',
  '日本',
  '😀',
  '\u{10ffff}',
  '/*',
  '*/',
  '//',
  '$as',
  '@pg',
  '\\u0022',
  '" || 1 == 1 || "',
  '"; drop',
  'a"b',
  '\\\\"',
  ' ',
];

/** Strings made of hostile pieces and arbitrary code points (no NUL: OVN cannot represent it). */
const hostile = fc
  .array(
    fc.oneof(fc.constantFrom(...HOSTILE_PIECES), fc.string({ unit: 'binary', maxLength: 6 })),
    { maxLength: 8 },
  )
  .map((parts) => parts.join('').replaceAll('\u0000', '\u0001'));

const identifier = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.]{0,12}$/);
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join('.'));
const ipv4Value = fc.oneof(
  ipv4,
  fc.tuple(ipv4, fc.nat(32)).map(([a, l]) => `${a}/${l}`),
);
const ipv6Value = fc.oneof(
  fc.ipV6(),
  fc.tuple(fc.ipV6(), fc.nat(128)).map(([a, l]) => `${a}/${l}`),
);
const mac = fc
  .array(fc.nat(255), { minLength: 6, maxLength: 6 })
  .map((b) => b.map((x) => x.toString(16)).join(':'));

/** A value for a field, and sets of them, as builder inputs. */
function valueFor(
  kind: 'port' | 'ip4' | 'ip6' | 'int' | 'mac',
): fc.Arbitrary<string | number | MatchValue> {
  switch (kind) {
    case 'port':
      return fc.oneof(
        { weight: 4, arbitrary: hostile },
        { weight: 1, arbitrary: identifier.map((n) => match.portGroup(n)) },
      );
    case 'ip4':
      return fc.oneof(
        { weight: 4, arbitrary: ipv4Value },
        { weight: 1, arbitrary: identifier.map((n) => match.addressSet(n)) },
      );
    case 'ip6':
      return fc.oneof(
        { weight: 4, arbitrary: ipv6Value },
        { weight: 1, arbitrary: identifier.map((n) => match.addressSet(n)) },
      );
    case 'int':
      return fc.oneof(
        fc.nat(65535),
        fc.nat(0xffff).map((n) => match.int(`0x${n.toString(16)}`)),
      );
    case 'mac':
      return mac;
  }
}

const FIELDS = [
  ['inport', 'port'],
  ['outport', 'port'],
  ['ip4.src', 'ip4'],
  ['ip4.dst', 'ip4'],
  ['ip6.src', 'ip6'],
  ['ip6.dst', 'ip6'],
  ['tcp.dst', 'int'],
  ['udp.src', 'int'],
  ['reg0[0..3]', 'int'],
  ['eth.src', 'mac'],
] as const;

/**
 * A comparison OVN accepts under `negated` enclosing `!`: the nominal
 * string fields take `==` (or `!=` when negated) only.
 */
const comparison = (negated: boolean): fc.Arbitrary<MatchExpr> =>
  fc.constantFrom(...FIELDS).chain(([field, kind]) => {
    const single = valueFor(kind);
    const ops =
      kind === 'int'
        ? (['==', '!=', '<', '<=', '>', '>='] as const)
        : kind === 'port'
          ? ([negated ? '!=' : '=='] as const)
          : (['==', '!='] as const);
    const setOps = kind === 'port' ? ops : (['==', '!='] as const);
    return fc.oneof(
      fc
        .tuple(fc.constantFrom(...ops), single)
        .map(([op, v]) => match.compare(field as string, op, v)),
      fc
        .tuple(fc.constantFrom(...setOps), fc.array(single, { minLength: 1, maxLength: 4 }))
        .map(([op, vs]) => match.compare(field as string, op, vs)),
    );
  });

/** Fields alone: nominal predicates (ip4, ip6, tcp) only positively. */
const alone = (negated: boolean): fc.Arbitrary<MatchExpr> =>
  fc
    .constantFrom(
      ...(negated
        ? ['ct.new', 'reg1[5]', 'ip4.mcast']
        : ['ip4', 'ip6', 'tcp', 'ct.new', 'reg1[5]']),
    )
    .map((f) => match.field(f));

const leaf = (negated: boolean): fc.Arbitrary<MatchExpr> =>
  fc.oneof(
    { weight: 6, arbitrary: comparison(negated) },
    { weight: 1, arbitrary: alone(negated) },
    { weight: 1, arbitrary: fc.boolean().map((b) => (b ? match.always() : match.never())) },
  );

/** Trees OVN accepts: the polarity of each subtree decides its leaves. */
const trees = fc.letrec<{ pos: MatchExpr; neg: MatchExpr }>((tie) => ({
  pos: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf(false),
    tie('neg').map((e) => match.not(e)),
    fc.array(tie('pos'), { minLength: 2, maxLength: 4 }).map((es) => match.and(...es)),
    fc.array(tie('pos'), { minLength: 2, maxLength: 4 }).map((es) => match.or(...es)),
  ),
  neg: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf(true),
    tie('pos').map((e) => match.not(e)),
    fc.array(tie('neg'), { minLength: 2, maxLength: 4 }).map((es) => match.and(...es)),
    fc.array(tie('neg'), { minLength: 2, maxLength: 4 }).map((es) => match.or(...es)),
  ),
}));
const expr: fc.Arbitrary<MatchExpr> = trees.pos;

/** The string literals of `text`, found by scanning for quotes and decoded with JSON.parse (an independent decoder). */
function stringLiterals(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '"') continue;
    let j = i + 1;
    while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    out.push(JSON.parse(text.slice(i, j + 1)) as string);
    i = j;
  }
  return out;
}

/** The string values a tree holds, in writing order. */
function stringsOf(e: MatchExpr): string[] {
  switch (e.type) {
    case 'and':
    case 'or':
      return e.terms.flatMap(stringsOf);
    case 'not':
      return stringsOf(e.term);
    case 'compare': {
      const values = (Array.isArray(e.value) ? e.value : [e.value]) as MatchValue[];
      return values.flatMap((v) => (v.type === 'string' ? [v.value] : []));
    }
    default:
      return [];
  }
}

describe('match builder: hostile round trip', () => {
  it('10,000 trees: written, parsed back to the same tree, printable ASCII, no quote escape', () => {
    let strings = 0;
    fc.assert(
      fc.property(expr, (e) => {
        const text = formatMatch(e);
        expect(text).toMatch(/^[\x20-\x7e]*$/);
        expect(parseMatch(text)).toEqual(e);
        const expected = stringsOf(e);
        expect(stringLiterals(text)).toEqual(expected);
        strings += expected.length;
      }),
      { numRuns: 10_000 },
    );
    // The inputs really were hostile strings, many of them.
    expect(strings).toBeGreaterThan(5_000);
  });

  it('a single hostile name cannot inject operators: one comparison comes back', () => {
    fc.assert(
      fc.property(hostile, (name) => {
        const text = formatMatch(match.outport(name));
        expect(parseMatch(text)).toEqual({
          type: 'compare',
          field: 'outport',
          op: '==',
          value: { type: 'string', value: name },
        });
      }),
      { numRuns: 2_000 },
    );
  });

  it('strings OVN cannot represent are refused with InvalidMatchError', () => {
    fc.assert(
      fc.property(
        hostile,
        hostile,
        fc.constantFrom('\u0000', '\ud800', '\udfff', '\udc00x'),
        (a, b, bad) => {
          expect(() => match.outport(`${a}${bad}${b}`)).toThrow(InvalidMatchError);
        },
      ),
      { numRuns: 500 },
    );
  });
});

/**
 * Property tests of the exact JSON text layer: random JSON trees holding
 * 64-bit integers (and beyond) are written by an independent reference
 * serializer and must decode, through parseJsonLossless, parseJson and the
 * framer cut at random places, to the reference decoding (integers in
 * canonical int64 form); random JSON without long integers must decode
 * exactly as JSON.parse does; stringifyJson must write what the reference
 * serializer writes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN } from '../../../src/ovsdb/values/int64.js';
import { JsonStreamFramer } from '../../../src/ovsdb/wire/framer.js';
import { stringifyJson } from '../../../src/ovsdb/wire/json-stringify.js';
import { parseJson, parseJsonLossless } from '../../../src/ovsdb/wire/json-text.js';

const SEED = 20260301;
const enc = new TextEncoder();

/** A JSON tree: objects as pair lists (so duplicate and `__proto__` keys occur). */
type Tree =
  | { kind: 'int'; value: bigint }
  | { kind: 'real'; value: number }
  | { kind: 'leaf'; value: string | boolean | null }
  | { kind: 'array'; items: Tree[] }
  | { kind: 'object'; pairs: [string, Tree][] };

const BOUNDARY = [
  INT64_MAX,
  INT64_MIN,
  INT64_MAX + 1n,
  INT64_MIN - 1n,
  2n ** 53n + 1n,
  2n ** 53n,
  2n ** 53n - 1n,
  -(2n ** 53n + 1n),
  -(2n ** 53n),
  -(2n ** 53n - 1n),
  10n ** 15n,
  -(10n ** 15n),
  0n,
];

const intArb = fc.oneof(
  fc.constantFrom(...BOUNDARY),
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.bigInt({ min: -1000n, max: 1000n }),
);
const keyArb = fc.oneof(
  fc.constantFrom('__proto__', 'toString', 'valueOf', 'id', '1', 'a'),
  fc.string({ maxLength: 6 }),
);

const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    intArb.map((value): Tree => ({ kind: 'int', value })),
    fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .map((value): Tree => ({ kind: 'real', value })),
    fc
      .oneof(fc.string({ maxLength: 8 }), fc.boolean(), fc.constant(null))
      .map((value): Tree => ({ kind: 'leaf', value })),
    fc.array(tie('tree'), { maxLength: 4 }).map((items): Tree => ({ kind: 'array', items })),
    fc
      .array(fc.tuple(keyArb, tie('tree')), { maxLength: 4 })
      .map((pairs): Tree => ({ kind: 'object', pairs })),
  ),
})).tree;

const wsArb = fc.constantFrom('', ' ', '\n', '\t', '\r\n  ');

/** The reference text: recursive, with `ws` around every token. */
function text(t: Tree, ws: string): string {
  switch (t.kind) {
    case 'int':
      return t.value.toString();
    case 'real': {
      // Always a real token: with a fraction or an exponent.
      const s = JSON.stringify(t.value);
      return /[.eE]/.test(s) ? s : `${s}.0`;
    }
    case 'leaf':
      return JSON.stringify(t.value);
    case 'array':
      return `[${ws}${t.items.map((x) => text(x, ws)).join(`${ws},${ws}`)}${ws}]`;
    case 'object':
      return `{${ws}${t.pairs.map(([k, v]) => `${JSON.stringify(k)}${ws}:${ws}${text(v, ws)}`).join(`${ws},${ws}`)}${ws}}`;
  }
}

/** The reference decoding: canonical int64 for integers, JSON.parse's numbers beyond int64. */
function decoded(t: Tree): unknown {
  switch (t.kind) {
    case 'int': {
      const v = t.value;
      if (v < INT64_MIN || v > INT64_MAX) return Number(v.toString());
      return Number.isSafeInteger(Number(v)) && BigInt(Number(v)) === v ? Number(v) : v;
    }
    case 'real': {
      const s = JSON.stringify(t.value);
      return Number(/[.eE]/.test(s) ? s : `${s}.0`);
    }
    case 'leaf':
      return t.value;
    case 'array':
      return t.items.map(decoded);
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const [k, v] of t.pairs) {
        Object.defineProperty(o, k, {
          value: decoded(v),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return o;
    }
  }
}

/** A reference JSON writer for decoded values (recursive; bigints as digits). */
function refStringify(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${v.map(refStringify).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .map((k) => `${JSON.stringify(k)}:${refStringify(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** A tree without integers beyond ±(2^53−1), so JSON.parse is exact on its text. */
function safeOnly(t: Tree): Tree {
  switch (t.kind) {
    case 'int':
      return { kind: 'int', value: t.value % 2n ** 50n };
    case 'array':
      return { kind: 'array', items: t.items.map(safeOnly) };
    case 'object':
      return { kind: 'object', pairs: t.pairs.map(([k, v]) => [k, safeOnly(v)]) };
    default:
      return t;
  }
}

/** Feed `bytes` to a framer cut at `cuts` (sorted offsets). */
function frame(bytes: Uint8Array, cuts: number[]): { messages: unknown[]; lossless: number } {
  const framer = new JsonStreamFramer();
  const messages: unknown[] = [];
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    framer.pushInto(bytes.subarray(at, c), messages);
    at = c;
  }
  return { messages, lossless: framer.losslessMessages };
}

const cutsArb = (n: number): fc.Arbitrary<number[]> =>
  fc
    .uniqueArray(fc.integer({ min: 0, max: Math.max(0, n) }), { maxLength: 12 })
    .map((xs) => xs.sort((a, b) => a - b));

describe('exact JSON text (property)', () => {
  it('parseJsonLossless and parseJson decode big integers exactly', () => {
    fc.assert(
      fc.property(treeArb, wsArb, (tree, ws) => {
        const t = text(tree, ws);
        const want = decoded(tree);
        expect(parseJsonLossless(t)).toStrictEqual(want);
        expect(parseJson(t)).toStrictEqual(want);
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it('without long integers, parseJsonLossless is JSON.parse', () => {
    fc.assert(
      fc.property(treeArb, wsArb, (tree, ws) => {
        const t = text(safeOnly(tree), ws);
        const want: unknown = JSON.parse(t);
        expect(parseJsonLossless(t)).toStrictEqual(want);
      }),
      { seed: SEED, numRuns: 1500 },
    );
    fc.assert(
      fc.property(fc.json(), (t) => {
        fc.pre(!/[0-9]{16}/.test(t));
        expect(parseJsonLossless(t)).toStrictEqual(JSON.parse(t));
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it('stringifyJson writes what the reference writes and round-trips', () => {
    fc.assert(
      fc.property(treeArb, (tree) => {
        const want = decoded(tree);
        const s = stringifyJson(want);
        expect(s).toBe(refStringify(want));
        // Reads back as written (a real that is an integer beyond 2^53 comes back as its integer).
        expect(refStringify(parseJsonLossless(s))).toBe(s);
      }),
      { seed: SEED, numRuns: 1000 },
    );
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(stringifyJson(v)).toBe(JSON.stringify(v));
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it('the framer decodes messages with big integers exactly, whatever the cuts', () => {
    const msgArb = fc.array(fc.tuple(treeArb, wsArb), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(
        msgArb.chain((msgs) => {
          const stream = msgs
            .map(([t, ws]) => text({ kind: 'object', pairs: [['p', t]] }, ws))
            .join('\n');
          const bytes = enc.encode(stream);
          return fc.tuple(fc.constant(msgs), fc.constant(bytes), cutsArb(bytes.length));
        }),
        ([msgs, bytes, cuts]) => {
          const { messages } = frame(bytes, cuts);
          expect(messages).toStrictEqual(msgs.map(([t]) => ({ p: decoded(t) })));
        },
      ),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it('the framer uses JSON.parse exactly when no integer token has 16 digits or more', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(treeArb, wsArb), { minLength: 1, maxLength: 4 }).chain((msgs) => {
          const texts = msgs.map(([t, ws]) => text({ kind: 'object', pairs: [['p', t]] }, ws));
          const bytes = enc.encode(texts.join(''));
          return fc.tuple(fc.constant(texts), fc.constant(bytes), cutsArb(bytes.length));
        }),
        ([texts, bytes, cuts]) => {
          const { messages, lossless } = frame(bytes, cuts);
          // How many messages hold an integer token of 16+ digits (found with a regex on tokens).
          const long = texts.filter((t) =>
            /(^|[^0-9.eE+"\\])-?[0-9]{16,}(?![0-9.eE])/.test(t.replace(/"(?:[^"\\]|\\.)*"/g, '""')),
          ).length;
          expect(lossless).toBe(long);
          for (let i = 0; i < texts.length; i++) {
            const t = texts[i] as string;
            if (!/[0-9]{16}/.test(t)) expect(messages[i]).toStrictEqual(JSON.parse(t));
          }
        },
      ),
      { seed: SEED, numRuns: 1500 },
    );
  });
});

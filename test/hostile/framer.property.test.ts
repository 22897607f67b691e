/**
 * Properties of the framer and the parsers against generated hostile input:
 * deep frames (arrays and objects mixed, closed or not, around the limit),
 * wide ones, huge ones (past `maxMessageBytes`), strings holding U+0000
 * behind any number of backslashes, and random byte soup, each fed in
 * random chunks. Whatever comes in:
 *
 * - the framer throws nothing but a ProtocolError, and the parsers nothing
 *   but a SyntaxError;
 * - nothing they deliver nests deeper than the limit or is larger than
 *   `maxMessageBytes`, and the framer never holds more than that;
 * - below the limits they agree with `JSON.parse` (an integer token beyond
 *   2^53 is exact where `JSON.parse` rounds: compared as the number it
 *   rounds to), and at the limit they refuse exactly what nests deeper, and
 *   exactly the strings that hold U+0000.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../src/ovsdb/wire/errors.js';
import { DEFAULT_MAX_DEPTH, JsonStreamFramer } from '../../src/ovsdb/wire/framer.js';
import {
  depthExceededAt,
  hasNulEscape,
  parseJson,
  parseJsonMessage,
} from '../../src/ovsdb/wire/json-text.js';
import { LIMIT, nestingOf } from './helpers.js';

const enc = new TextEncoder();
const SEED = 23_0107;
const runs = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: true });

/** JSON text with bigints as the numbers `JSON.parse` rounds them to (for comparing). */
function asJsonParseSees(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x));
}

interface Fed {
  readonly frames: { text: string; value: unknown }[];
  readonly error: unknown;
  readonly maxBuffered: number;
}

/** Feed `bytes` to `framer` cut at `cuts` (positions modulo the length). */
function feed(framer: JsonStreamFramer, bytes: Uint8Array, cuts: readonly number[]): Fed {
  const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort(
    (a, b) => a - b,
  );
  const frames: { text: string; value: unknown }[] = [];
  let at = 0;
  let maxBuffered = 0;
  try {
    for (const p of [...points, bytes.length]) {
      framer.pushFramesInto(bytes.subarray(at, p), frames);
      maxBuffered = Math.max(maxBuffered, framer.bufferedBytes);
      at = p;
    }
  } catch (e) {
    return { frames, error: e, maxBuffered };
  }
  return { frames, error: undefined, maxBuffered };
}

/** The limits a property runs with. */
interface Limits {
  readonly maxDepth: number;
  readonly maxMessageBytes: number;
}

/** Everything the framer may do with any input under `limits`. */
function checkInvariants(fed: Fed, limits: Limits): void {
  if (fed.error !== undefined) expect(fed.error).toBeInstanceOf(ProtocolError);
  expect(fed.maxBuffered).toBeLessThanOrEqual(limits.maxMessageBytes);
  for (const f of fed.frames) {
    expect(nestingOf(f.text)).toBeLessThanOrEqual(limits.maxDepth);
    expect(enc.encode(f.text).length).toBeLessThanOrEqual(limits.maxMessageBytes);
    expect(hasNulEscape(f.text)).toBe(false);
  }
}

/** A value nested `depth` levels (arrays and objects by `shape`'s bits), around `leaf`. */
function nestedText(depth: number, shape: number, leaf: string, close: boolean): string {
  let open = '';
  let end = '';
  for (let i = 0; i < depth; i++) {
    if ((shape >> (i % 31)) & 1) {
      open += '{"k":';
      end = `}${end}`;
    } else {
      open += '[';
      end = `]${end}`;
    }
  }
  return close ? open + leaf + end : open + leaf;
}

const cuts = fc.array(fc.nat(), { maxLength: 8 });
/** Values without U+0000 (which no side accepts), as the generator for valid JSON. */
const json = fc.jsonValue({
  maxDepth: 4,
  stringUnit: fc
    .string({ unit: 'binary', minLength: 1, maxLength: 1 })
    .filter((c) => c !== '\u0000'),
});

describe('deep frames', () => {
  it('the default limit is the one measured on ovsdb-server 3.1', () => {
    expect(DEFAULT_MAX_DEPTH).toBe(LIMIT);
  });

  it('nesting up to maxDepth is delivered as JSON.parse reads it; one level more is a ProtocolError (400)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: -3, max: 3 }),
        fc.nat(),
        fc.constantFrom('1', '"s"', 'null', '[]', '{}', '12345678901234567890'),
        cuts,
        (maxDepth, delta, shape, leaf, c) => {
          const depth = Math.max(0, maxDepth - 1 + delta); // the message object is one level
          const leafDepth = leaf === '[]' || leaf === '{}' ? 1 : 0;
          const text = `{"v":${nestedText(depth, shape, leaf, true)}}`;
          const total = 1 + depth + leafDepth;
          expect(nestingOf(text)).toBe(total);
          const limits = { maxDepth, maxMessageBytes: 1 << 20 };
          const fed = feed(new JsonStreamFramer(limits), enc.encode(text), c);
          checkInvariants(fed, limits);
          if (total <= maxDepth) {
            expect(fed.error).toBeUndefined();
            expect(fed.frames.map((f) => asJsonParseSees(f.value))).toEqual([
              JSON.stringify(JSON.parse(text)),
            ]);
            expect(asJsonParseSees(parseJson(text, maxDepth))).toBe(
              JSON.stringify(JSON.parse(text)),
            );
          } else {
            expect((fed.error as Error).message).toMatch(`nesting deeper than ${maxDepth} levels`);
            expect(() => parseJson(text, maxDepth)).toThrow(SyntaxError);
            expect(depthExceededAt(text, maxDepth)).toBeGreaterThan(0);
          }
        },
      ),
      runs(400),
    );
  });

  it('at the default limit, deep frames open or closed, in any chunks (150)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(LIMIT - 1, LIMIT, LIMIT + 1, 2 * LIMIT, 20_000),
        fc.nat(),
        fc.boolean(),
        cuts,
        (depth, shape, close, c) => {
          const text = `{"v":${nestedText(depth - 1, shape, '0', close)}${close ? '}' : ''}`;
          const limits = { maxDepth: LIMIT, maxMessageBytes: 1 << 20 };
          const fed = feed(new JsonStreamFramer(), enc.encode(text), c);
          checkInvariants(fed, limits);
          if (depth > LIMIT) {
            expect(fed.error).toBeInstanceOf(ProtocolError);
            expect(() => parseJsonMessage(text)).toThrow(SyntaxError);
          } else if (close) {
            expect(fed.frames).toHaveLength(1);
            expect(JSON.stringify(fed.frames[0]!.value)).toBe(JSON.stringify(JSON.parse(text)));
            expect(JSON.stringify(parseJsonMessage(text))).toBe(JSON.stringify(JSON.parse(text)));
          } else {
            expect(fed.frames).toEqual([]);
            expect(fed.error).toBeUndefined();
          }
        },
      ),
      runs(150),
    );
  });
});

describe('wide and huge frames', () => {
  it('streams of valid messages arrive as JSON.parse reads them, in any chunks (300)', () => {
    fc.assert(
      fc.property(fc.array(json, { minLength: 1, maxLength: 6 }), cuts, (values, c) => {
        const texts = values.map((v) => JSON.stringify({ method: 'n', params: [v], id: null }));
        const limits = { maxDepth: LIMIT, maxMessageBytes: 1 << 20 };
        const fed = feed(new JsonStreamFramer(), enc.encode(texts.join('\n')), c);
        checkInvariants(fed, limits);
        expect(fed.error).toBeUndefined();
        expect(fed.frames.map((f) => f.text)).toEqual(texts);
        expect(fed.frames.map((f) => asJsonParseSees(f.value))).toEqual(
          texts.map((t) => JSON.stringify(JSON.parse(t))),
        );
        for (const t of texts)
          expect(asJsonParseSees(parseJsonMessage(t))).toBe(JSON.stringify(JSON.parse(t)));
      }),
      runs(300),
    );
  });

  it('wide arrays and objects (thousands of siblings) stay within the limits (60)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 20_000 }),
        fc.boolean(),
        cuts,
        (width, objects, c) => {
          const body = objects
            ? `{${Array.from({ length: width }, (_, i) => `"k${i}":[${i}]`).join(',')}}`
            : `[${Array.from({ length: width }, (_, i) => `{"a":[${i}]}`).join(',')}]`;
          const text = `{"method":"n","params":[${body}],"id":null}`;
          const limits = { maxDepth: LIMIT, maxMessageBytes: 1 << 20 };
          const fed = feed(new JsonStreamFramer(), enc.encode(text), c);
          checkInvariants(fed, limits);
          expect(fed.error).toBeUndefined();
          expect(JSON.stringify(fed.frames[0]?.value)).toBe(JSON.stringify(JSON.parse(text)));
        },
      ),
      runs(60),
    );
  });

  it('a message past maxMessageBytes is refused before it is held (200)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 16, max: 4096 }),
        fc.integer({ min: 1, max: 3 }),
        cuts,
        (max, factor, c) => {
          const text = `{"s":"${'x'.repeat(max * factor)}"}`;
          const limits = { maxDepth: LIMIT, maxMessageBytes: max };
          const fed = feed(new JsonStreamFramer(limits), enc.encode(text), c);
          checkInvariants(fed, limits);
          expect((fed.error as Error).message).toMatch(`exceeds the ${max}-byte limit`);
        },
      ),
      runs(200),
    );
  });
});

/** String contents that need no escape: no quote, backslash or control character. */
const plainText = fc.string({
  unit: fc
    .string({ minLength: 1, maxLength: 1 })
    .filter((c) => c >= ' ' && c !== '"' && c !== '\\'),
  maxLength: 8,
});

describe('U+0000', () => {
  it('a string is refused exactly when it holds U+0000, behind any run of backslashes (400)', () => {
    fc.assert(
      fc.property(
        plainText,
        fc.integer({ min: 0, max: 6 }),
        plainText,
        cuts,
        (before, slashes, after, c) => {
          const text = `{"method":"echo","params":["${before}${'\\'.repeat(slashes)}u0000${after}"],"id":1}`;
          const holdsNul = (JSON.parse(text).params[0] as string).includes('\u0000');
          expect(holdsNul).toBe(slashes % 2 === 1);
          const fed = feed(new JsonStreamFramer(), enc.encode(text), c);
          checkInvariants(fed, { maxDepth: LIMIT, maxMessageBytes: 1 << 20 });
          if (holdsNul) {
            expect((fed.error as Error).message).toMatch(
              /null bytes not supported in quoted strings/,
            );
            expect(() => parseJsonMessage(text)).toThrow(/null bytes not supported/);
          } else {
            expect(fed.error).toBeUndefined();
            expect(fed.frames[0]?.value).toEqual(JSON.parse(text));
            expect(parseJsonMessage(text)).toEqual(JSON.parse(text));
          }
        },
      ),
      runs(400),
    );
  });
});

describe('byte soup', () => {
  it('random bytes: only ProtocolError from the framer, SyntaxError from the parsers (1,500)', () => {
    const soup = fc.oneof(
      fc.uint8Array({ maxLength: 400 }),
      fc
        .array(
          fc.constantFrom(
            ...'{}[]{}[]":,\\ 0129eE.-+truefalsnul'.split(''),
            '\\u0000',
            'é',
            '\u0000',
          ),
          {
            maxLength: 400,
          },
        )
        .map((parts) => enc.encode(`{${parts.join('')}`)),
    );
    fc.assert(
      fc.property(soup, cuts, fc.integer({ min: 1, max: 64 }), (bytes, c, maxDepth) => {
        const limits = { maxDepth, maxMessageBytes: 256 };
        checkInvariants(feed(new JsonStreamFramer(limits), bytes, c), limits);
        const text = new TextDecoder().decode(bytes);
        for (const parse of [
          () => parseJson(text, maxDepth),
          () => parseJsonMessage(text, maxDepth),
        ]) {
          try {
            const v = parse();
            expect(nestingOf(JSON.stringify(v) ?? '')).toBeLessThanOrEqual(maxDepth);
          } catch (e) {
            expect(e).toBeInstanceOf(SyntaxError);
          }
        }
      }),
      runs(1500),
    );
  });
});

/**
 * The framer's search through long strings (`indexOf` for the closing quote
 * and the chunk's next backslash, past the first bytes of a string) against
 * its byte-by-byte scan. Fed one byte at a time, the framer never searches:
 * every string is stepped through byte by byte. So a stream of long strings
 * full of escapes (`\"`, `\\`, `\u0000`, a lone or trailing backslash, raw
 * quotes, brackets and digit runs inside strings) must give the same
 * messages, texts, errors (offsets included), lossless-parse count and
 * buffered bytes whole, cut at every offset, and cut at random offsets,
 * with and without a message size limit.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonStreamFramer } from '../../../src/ovsdb/wire/framer.js';

const enc = new TextEncoder();
const SEED = 20_261_205;
const runs = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: true });

/** What a framer made of a stream: frames, the error (as text), and its statistics. */
interface Outcome {
  readonly frames: string;
  readonly error: string | undefined;
  readonly lossless: number;
  readonly buffered: number;
}

function outcome(
  framer: JsonStreamFramer,
  frames: { text: string; value: unknown }[],
  error: unknown,
): Outcome {
  return {
    frames: JSON.stringify(frames, (_k, v: unknown) =>
      typeof v === 'bigint' ? `${v}n` : v === undefined ? null : v,
    ),
    error:
      error === undefined ? undefined : `${(error as Error).name}: ${(error as Error).message}`,
    lossless: framer.losslessMessages,
    buffered: framer.bufferedBytes,
  };
}

/** Feed `bytes` to a new framer cut at the sorted offsets `cuts`. */
function feed(bytes: Uint8Array, cuts: readonly number[], maxMessageBytes?: number): Outcome {
  const framer = new JsonStreamFramer(maxMessageBytes === undefined ? {} : { maxMessageBytes });
  const frames: { text: string; value: unknown }[] = [];
  let at = 0;
  try {
    for (const p of [...cuts, bytes.length]) {
      framer.pushFramesInto(bytes.subarray(at, p), frames);
      at = p;
    }
  } catch (e) {
    return outcome(framer, frames, e);
  }
  return outcome(framer, frames, undefined);
}

/** The byte-by-byte scan: one byte per push. */
function byteByByte(bytes: Uint8Array, maxMessageBytes?: number): Outcome {
  const cuts: number[] = [];
  for (let i = 1; i < bytes.length; i++) cuts.push(i);
  return feed(bytes, cuts, maxMessageBytes);
}

/** Pieces of string contents: plain runs short and long, escapes, and what is not allowed. */
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 80 }).map((n) => 'x'.repeat(n)) },
  { weight: 2, arbitrary: fc.constantFrom('\\"', '\\\\', '\\u0000', '\\u00e9', '\\n', '\\/') },
  { weight: 1, arbitrary: fc.constantFrom('é', '€', '{', '}', '[', ']', ',', ':', ' ') },
  { weight: 1, arbitrary: fc.constantFrom('12345678901234567', '"', '\\', '\\u', 'u') },
);

const stringBody = fc.array(piece, { maxLength: 12 }).map((ps) => ps.join(''));

/** A member value: a string, a long or short integer, a real, or nested arrays of strings. */
const value = fc.oneof(
  { weight: 5, arbitrary: stringBody.map((b) => `"${b}"`) },
  { weight: 1, arbitrary: fc.constantFrom('12345678901234567', '42', '1.2345678901234567e5') },
  {
    weight: 1,
    arbitrary: fc
      .array(stringBody, { maxLength: 4 })
      .map((bs) => `[${bs.map((b) => `["${b}"]`).join(',')}]`),
  },
);

/** A message of a few members (names may hold escapes too), or something that is not one. */
const message = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .array(fc.tuple(stringBody, value), { minLength: 1, maxLength: 5 })
      .map((ms) => `{${ms.map(([k, v]) => `"${k}":${v}`).join(',')}}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('[1]', '"x"', '{"a":"\\', '{"a":"b"', '{"a":1}}') },
);

const stream = fc
  .array(fc.tuple(message, fc.constantFrom('', ' ', '\n')), { minLength: 1, maxLength: 4 })
  .map((ms) => enc.encode(ms.map(([m, ws]) => m + ws).join('')));

describe('JsonStreamFramer: long strings searched', () => {
  it('gives what the byte-by-byte scan gives, whole and cut at every offset (250)', () => {
    fc.assert(
      fc.property(stream, (bytes) => {
        const want = byteByByte(bytes);
        expect(feed(bytes, [])).toEqual(want);
        for (let cut = 0; cut <= bytes.length; cut++) expect(feed(bytes, [cut])).toEqual(want);
      }),
      runs(250),
    );
  });

  it('gives what the byte-by-byte scan gives, in random chunks, under a size limit (500)', () => {
    fc.assert(
      fc.property(
        stream,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.option(fc.integer({ min: 2, max: 600 }), { nil: undefined }),
        (bytes, raw, limit) => {
          const cuts = [...new Set(raw.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          expect(feed(bytes, cuts, limit)).toEqual(byteByByte(bytes, limit));
        },
      ),
      runs(500),
    );
  });

  it('finds the escapes of strings that follow each other in one chunk', () => {
    // One backslash far into the chunk, found once for every string before it.
    const long = 'y'.repeat(100);
    const text = `{"a":"${long}","b":"${long}","c":"${long}\\u0000"}{"d":"${long}"}`;
    const got = feed(enc.encode(text), []);
    expect(got.error).toMatch(/null bytes not supported in quoted strings/);
    expect(got).toEqual(byteByByte(enc.encode(text)));
    const clean = `{"a":"${long}","b":"${long}\\\\","c":"${long}\\"u0000"}`;
    expect(feed(enc.encode(clean), [])).toEqual(byteByByte(enc.encode(clean)));
    expect(feed(enc.encode(clean), []).frames).toContain('u0000');
  });
});

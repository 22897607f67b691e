/**
 * The text checks whose regular expressions are written with each repeated
 * class spelled out (for speed) against the compact forms they replace:
 * `isUuid` against `^[0-9a-fA-F]{8}-…-[0-9a-fA-F]{12}$`, and
 * `hasLongInteger` (whose first pass looks for 16 digits in a row) against
 * the same scan behind `[0-9]{16}`, on texts made of digit runs of every
 * length around 16, hex letters, dashes and JSON punctuation; and the UUIDs
 * `newUuid` makes (version 4, random, distinct).
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUuid, newUuid } from '../../../src/ovsdb/values/uuid.js';
import { hasLongInteger, isFractionOrExponent } from '../../../src/ovsdb/wire/json-text.js';

const SEED = 20_261_205;
const runs = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: true });

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** `hasLongInteger` as it was written with `[0-9]{16}`. */
function referenceHasLongInteger(text: string): boolean {
  if (!/[0-9]{16}/.test(text)) return false;
  const n = text.length;
  const digit = (c: number) => c >= 0x30 && c <= 0x39;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      i++;
      continue;
    }
    if (digit(c)) {
      const s = i;
      while (i < n && digit(text.charCodeAt(i))) i++;
      if (
        i - s >= 16 &&
        !isFractionOrExponent(s > 0 ? text.charCodeAt(s - 1) : -1) &&
        !isFractionOrExponent(i < n ? text.charCodeAt(i) : -1)
      ) {
        return true;
      }
      continue;
    }
    i++;
  }
  return false;
}

const digits = fc
  .integer({ min: 1, max: 20 })
  .chain((n) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`)));
const piece = fc.oneof(
  { weight: 3, arbitrary: digits },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'a',
      'F',
      'g',
      '-',
      '"',
      '\\',
      '.',
      'e',
      'E',
      '+',
      ',',
      ':',
      '[',
      ']',
      ' ',
    ),
  },
);

describe('text checks with spelled-out regular expressions', () => {
  it('isUuid is the compact UUID pattern', () => {
    const uuidish = fc.oneof(
      fc.uuid(),
      fc.uuid().map((u) => u.toUpperCase()),
      fc
        .tuple(fc.uuid(), fc.nat(35), fc.constantFrom('g', '-', '0', 'A', '', 'x0'))
        .map(([u, at, c]) => u.slice(0, at) + c + u.slice(at + 1)),
      fc.array(piece, { maxLength: 12 }).map((ps) => ps.join('')),
    );
    fc.assert(
      fc.property(uuidish, (s) => {
        expect(isUuid(s)).toBe(s.length === 36 && UUID_RE.test(s));
      }),
      runs(3000),
    );
  });

  it('hasLongInteger finds what the scan behind [0-9]{16} finds', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (ps) => {
        const text = ps.join('');
        expect(hasLongInteger(text)).toBe(referenceHasLongInteger(text));
      }),
      runs(3000),
    );
  });

  it('newUuid makes distinct random version 4 UUIDs, flat lower-case text', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const u = newUuid();
      expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(isUuid(u)).toBe(true);
      seen.add(u);
    }
    expect(seen.size).toBe(5000);
    // Every hex digit shows up in every random position.
    const digits = Array.from({ length: 36 }, () => new Set<string>());
    for (const u of seen) for (let i = 0; i < 36; i++) digits[i]?.add(u[i] as string);
    for (const i of [0, 7, 9, 15, 16, 20, 35]) expect(digits[i]?.size).toBe(16);
    expect(digits[19]?.size).toBe(4);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countUtf8, utf8Length } from '../../../src/ovsdb/wire/utf8.js';

describe('the UTF-8 length of what the peer queues', () => {
  it("Node's count and the unit-by-unit one agree with TextEncoder, lone surrogates included", () => {
    const enc = new TextEncoder();
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: 0, max: 0x7f }),
            fc.integer({ min: 0, max: 0xffff }),
            fc.integer({ min: 0xd800, max: 0xdfff }),
          ),
          { maxLength: 64 },
        ),
        (units) => {
          const text = String.fromCharCode(...units);
          const want = enc.encode(text).length;
          expect(countUtf8(text)).toBe(want);
          expect(utf8Length(text)).toBe(want);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

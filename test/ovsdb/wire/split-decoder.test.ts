/**
 * Incremental decoding of large messages (`split-decoder.ts`): a message the
 * framer decodes as it arrives equals what a whole-message decode gives, for
 * any JSON, any chunking, and any size at which values become outer levels;
 * malformed ones fail with a ProtocolError as whole ones do.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/ovsdb/wire/errors.js';
import { JsonStreamFramer } from '../../../src/ovsdb/wire/framer.js';
import { parseJsonLossless } from '../../../src/ovsdb/wire/json-text.js';
import { REVIVE_DEPTH } from '../../../src/ovsdb/wire/split-decoder.js';

const enc = new TextEncoder();

/** Feed `text` to `framer` cut at `cuts` (fractions of its length). */
function feed(framer: JsonStreamFramer, text: string, cuts: readonly number[]): unknown[] {
  const bytes = enc.encode(text);
  const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  const out: unknown[] = [];
  let prev = 0;
  for (const c of [...at, bytes.length]) {
    if (c <= prev) continue;
    framer.pushInto(bytes.subarray(prev, c), out);
    prev = c;
  }
  return out;
}

const splitting = (leaf: number) =>
  new JsonStreamFramer({ splitThresholdBytes: 16, splitLeafMaxBytes: leaf });

describe('split decoding', () => {
  it('gives what a whole decode gives, for any JSON, chunking and leaf size', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 300 }),
        fc.boolean(),
        (obj, cuts, leaf, pretty) => {
          const text = JSON.stringify({ id: 1, result: obj, error: null }, null, pretty ? 2 : 0);
          const whole = parseJsonLossless(text);
          expect(feed(splitting(leaf), text, cuts)).toEqual([whole]);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a monitor reply of 20 MB with the default thresholds', () => {
    const rows: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      rows.push(
        `"${String(i).padStart(8, '0')}-0000-4000-8000-000000000000":{"initial":{"name":"lsp-${i}","addresses":["set",["0a:00:00:00:00:01 10.0.0.1"]],"tag":${i},"options":["map",[["k","v\\"${i}"]]],"up":true}}`,
      );
    }
    const text = `{"id":7,"result":[false,"0000",{"Logical_Switch_Port":{${rows.join(',')}},"Logical_Switch":{}}],"error":null}`;
    const whole = JSON.parse(text) as unknown;
    expect(text.length).toBeGreaterThan(8 * 1024 * 1024);
    const cuts = Array.from({ length: 300 }, (_, k) => k / 300);
    expect(feed(new JsonStreamFramer(), text, cuts)).toEqual([whole]);
  });

  it('keeps integers of 16 digits and more exact, and __proto__ keys as own properties', () => {
    const text =
      '{"id":1,"result":{"a":[9007199254740993,-9223372036854775808,1.5e300],"__proto__":{"x":1},"b":{"__proto__":2}},"error":null}';
    const [m] = feed(splitting(8), text, [0.1, 0.5, 0.9]) as [Record<string, unknown>];
    expect(m).toEqual(parseJsonLossless(text));
    const result = m['result'] as Record<string, unknown>;
    expect((result['a'] as unknown[])[0]).toBe(9007199254740993n);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
  });

  it('messages before and after a split one, in one chunk', () => {
    const small = '{"id":0,"result":[],"error":null}';
    const big = JSON.stringify({ id: 1, result: { rows: 'x'.repeat(100) }, error: null });
    const f = splitting(10);
    expect(feed(f, small + big + small, [0.4])).toEqual([
      JSON.parse(small),
      JSON.parse(big),
      JSON.parse(small),
    ]);
  });

  it.each([
    ['a missing colon', '{"id":1,"result":{"abcdefghijklmnop" 1},"error":null}'],
    ['a bad scalar', '{"id":1,"result":[1,2,3,4,5,6,7,8,9,tru],"error":null}'],
    ['a missing comma', '{"id":1,"result":{"a":1 "b":2, "cccccccccccccccc":3},"error":null}'],
    ['a bad leaf', '{"id":1,"result":[{"a":1,}, {"bbbbbbbbbbbbbbbbbbbb":2}],"error":null}'],
    ['U+0000 in a string', '{"id":1,"result":["xxxxxxxxxxxxxxxxxxxxxx","a\\u0000b"],"error":null}'],
  ])('%s is a ProtocolError, as in a whole decode', (_, text) => {
    expect(() => feed(new JsonStreamFramer(), text, [])).toThrow(ProtocolError);
    expect(() => feed(splitting(4), text, [0.3, 0.6])).toThrow(ProtocolError);
  });

  it('a member reviver sees every member of every object below the message, once, where it is', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),

        (obj) => {
          const text = JSON.stringify({ id: 1, result: obj, error: null });
          const whole = parseJsonLossless(text) as Record<string, unknown>;
          const seen: string[] = [];
          // A leaf of 1 byte: every object but the message is an outer level.
          const f = new JsonStreamFramer({
            splitThresholdBytes: 16,
            splitLeafMaxBytes: 1,
            splitReviverFor: (path, message, target) => {
              expect(Object.keys(target)).toEqual([]);
              if (path[0] === 'result') expect(message['id']).toBe(1);
              return (key, value) => {
                let at: unknown = whole;
                for (const p of path) at = (at as Record<string | number, unknown>)[p];
                expect(Object.hasOwn(at as object, key)).toBe(true);
                expect(value).toEqual((at as Record<string, unknown>)[key]);
                seen.push(JSON.stringify([...path, key]));
                return value;
              };
            },
          });
          // Cut at every byte: the message is split from its 17th byte on.
          const bytes = enc.encode(text);
          const out: unknown[] = [];
          for (let i = 0; i < bytes.length; i++) f.pushInto(bytes.subarray(i, i + 1), out);
          expect(out).toEqual([whole]);
          // Every member of every object under the message, by path.
          const members: string[] = [];
          const stack: [unknown, (string | number)[]][] = [[whole, []]];
          while (stack.length > 0) {
            const [v, path] = stack.pop()!;
            if (typeof v !== 'object' || v === null) continue;
            const isArray = Array.isArray(v);
            for (const [k, x] of Object.entries(v)) {
              const p = [...path, isArray ? Number(k) : k];
              if (!isArray && path.length > 0 && path.length <= REVIVE_DEPTH) {
                members.push(JSON.stringify(p));
              }
              stack.push([x, p]);
            }
          }
          expect(seen.sort()).toEqual(members.sort());
        },
      ),
      { numRuns: 500 },
    );
  });

  it('objects nested deeper than REVIVE_DEPTH are not revived, and no path grows past it', () => {
    // 1,000 nested objects, each an outer level (a leaf of 4 bytes).
    let text = '{"leaf":1}';
    for (let d = 0; d < 998; d++) text = `{"k${d % 10}":${text}}`;
    text = `{"id":1,"result":${text},"error":null}`;
    const lengths: number[] = [];
    const f = new JsonStreamFramer({
      splitThresholdBytes: 16,
      splitLeafMaxBytes: 4,
      splitReviverFor: (path) => {
        lengths.push(path.length);
        return (_key, value) => value;
      },
    });
    const bytes = enc.encode(text);
    const out: unknown[] = [];
    for (let i = 0; i < bytes.length; i += 7) f.pushInto(bytes.subarray(i, i + 7), out);
    expect(out).toEqual([JSON.parse(text)]);
    expect(Math.max(...lengths)).toBe(REVIVE_DEPTH);
    expect(lengths).toHaveLength(REVIVE_DEPTH);
  });

  it('a monitor reply of 20 MB: the rows of a table revived as they arrive, into the object given', () => {
    const rows: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      rows.push(
        `"${String(i).padStart(8, '0')}-0000-4000-8000-000000000000":{"initial":{"name":"lsp-${i}-padding","tag":${i}}}`,
      );
    }
    const text = `{"id":7,"result":[false,"0000",{"Logical_Switch_Port":{${rows.join(',')}},"Logical_Switch":{}}],"error":null}`;
    expect(text.length).toBeGreaterThan(8 * 1024 * 1024);
    const asked: string[] = [];
    let targetOfPorts: object | undefined;
    const f = new JsonStreamFramer({
      splitReviverFor: (path, _message, target) => {
        asked.push(JSON.stringify(path));
        if (path.join('/') !== 'result/2/Logical_Switch_Port') return undefined;
        targetOfPorts = target;
        return (key, value) => [key, (value as { initial: { tag: number } }).initial.tag];
      },
    });
    const [m] = feed(
      f,
      text,
      Array.from({ length: 300 }, (_, k) => k / 300),
    ) as [{ result: [boolean, string, Record<string, Record<string, unknown>>] }];
    // Only outer objects are asked about: the message's arrays are not, nor the small table.
    expect(asked).toEqual(['["result",2]', '["result",2,"Logical_Switch_Port"]']);
    const ports = m.result[2]['Logical_Switch_Port']!;
    expect(ports).toBe(targetOfPorts);
    const keys = Object.keys(ports);
    expect(keys).toHaveLength(100_000);
    keys.forEach((k, i) => {
      expect(ports[k]).toEqual([k, i]);
    });
    expect(m.result[2]['Logical_Switch']).toEqual({});
  });

  it('invalid UTF-8 in a split message is a ProtocolError', () => {
    const f = splitting(4);
    const bytes = enc.encode('{"id":1,"result":["aaaaaaaaaaaaaaaaaaaaaaaaa","b?"],"error":null}');
    bytes[bytes.indexOf(0x3f)] = 0xff;
    expect(() => f.push(bytes)).toThrow(ProtocolError);
  });
});

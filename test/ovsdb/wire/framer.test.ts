import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/ovsdb/wire/errors.js';
import { DEFAULT_MAX_DEPTH, JsonStreamFramer } from '../../../src/ovsdb/wire/framer.js';

const enc = new TextEncoder();
const bytes = (s: string): Uint8Array => enc.encode(s);

/** Push `data` split at the given offsets and collect every message. */
function pushSplit(framer: JsonStreamFramer, data: Uint8Array, cuts: number[]): unknown[] {
  const out: unknown[] = [];
  let prev = 0;
  for (const cut of [...cuts, data.length]) {
    out.push(...framer.push(data.subarray(prev, cut)));
    prev = cut;
  }
  return out;
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an exception');
}

describe('JsonStreamFramer', () => {
  it('returns one message per complete object, in order', () => {
    const f = new JsonStreamFramer();
    expect(
      f.push(bytes('{"id":1,"result":[],"error":null}{"id":2,"result":"x","error":null}')),
    ).toEqual([
      { id: 1, result: [], error: null },
      { id: 2, result: 'x', error: null },
    ]);
    expect(f.bufferedBytes).toBe(0);
  });

  it('holds a partial message until its end arrives', () => {
    const f = new JsonStreamFramer();
    expect(f.push(bytes('{"id":1,"res'))).toEqual([]);
    expect(f.bufferedBytes).toBe(12);
    expect(f.push(bytes('ult":{"a":[1,2,{"b":3}]},"error":null}{"id"'))).toEqual([
      { id: 1, result: { a: [1, 2, { b: 3 }] }, error: null },
    ]);
    expect(f.bufferedBytes).toBe(5);
    expect(f.push(bytes(':2,"result":0,"error":null}'))).toEqual([
      { id: 2, result: 0, error: null },
    ]);
    expect(f.bufferedBytes).toBe(0);
  });

  it('skips whitespace between messages (and accepts a chunk of only whitespace)', () => {
    const f = new JsonStreamFramer();
    expect(f.push(bytes(' \n\t\r{"a":1}\n\n  {"b" : 2}  \r\n'))).toEqual([{ a: 1 }, { b: 2 }]);
    expect(f.push(bytes('   \n'))).toEqual([]);
    expect(f.bufferedBytes).toBe(0);
  });

  it('ignores brackets and escaped quotes inside strings', () => {
    const f = new JsonStreamFramer();
    const text = '{"s":"}}]]{{[[\\"}\\\\","t":"\\\\\\"{"}{"u":"\\u007b"}';
    expect(f.push(bytes(text))).toEqual([{ s: '}}]]{{[["}\\', t: '\\"{' }, { u: '{' }]);
  });

  it('gives the same messages whatever byte boundaries the stream is split at', () => {
    const messages = [
      { id: 1, result: { name: 'sw-é-日本-😀', q: 'a"b\\c}', arr: [[], {}, [{}]] }, error: null },
      { method: 'update2', params: ['m', { T: { u: { modify: { s: '\\' } } } }], id: null },
      { id: 'echo', method: 'echo', params: ['\u0001\u001f\u2028'] },
    ];
    const text = messages.map((m) => JSON.stringify(m)).join(' \n');
    const data = bytes(text);
    // Every single cut point, including inside multi-byte UTF-8 sequences and escapes.
    for (let cut = 0; cut <= data.length; cut++) {
      expect(pushSplit(new JsonStreamFramer(), data, [cut])).toEqual(messages);
    }
    // And one byte at a time.
    const f = new JsonStreamFramer();
    const out: unknown[] = [];
    for (let i = 0; i < data.length; i++) out.push(...f.push(data.subarray(i, i + 1)));
    expect(out).toEqual(messages);
  });

  it('handles a backslash that ends a chunk', () => {
    const f = new JsonStreamFramer();
    expect(f.push(bytes('{"a":"x\\'))).toEqual([]);
    expect(f.push(bytes('"'))).toEqual([]); // the escaped quote does not end the string
    expect(f.push(bytes('}"}'))).toEqual([{ a: 'x"}' }]);
    expect(f.push(bytes('{"b":"\\\\'))).toEqual([]);
    expect(f.push(bytes('"}'))).toEqual([{ b: '\\' }]); // an escaped backslash does not escape the quote
  });

  it('does not mutate or keep a reference to chunks it has returned messages from', () => {
    const f = new JsonStreamFramer();
    const chunk = bytes('{"a":"bc');
    f.push(chunk);
    chunk.fill(0x20); // the caller reuses its buffer
    expect(f.push(bytes('d"}'))).toEqual([{ a: 'bcd' }]);
  });

  it('rejects a top-level value that is not an object, with its stream offset', () => {
    for (const [text, shown, offset] of [
      ['[1,2]', "'['", 0],
      ['  42', "'4'", 2],
      ['{"a":1} "str"', "'\"'", 8],
      ['{"a":1}\u00a0', 'byte', 7],
      ['null', "'n'", 0],
    ] as const) {
      const f = new JsonStreamFramer();
      const e = catchError(() => f.push(bytes(text)));
      expect(e).toBeInstanceOf(ProtocolError);
      expect((e as Error).message).toContain(`got ${shown}`);
      expect((e as Error).message).toContain(`stream offset ${offset}`);
      expect((e as Error).message).toContain('must be an object');
    }
  });

  it('reports the offset across pushes', () => {
    const f = new JsonStreamFramer();
    f.push(bytes('{"a":1}  '));
    const e = catchError(() => f.push(bytes('  x')));
    expect((e as Error).message).toContain('stream offset 11');
  });

  it('wraps JSON.parse errors of a complete frame in a ProtocolError', () => {
    for (const text of [
      '{"a":}',
      '{"a" 1}',
      '{"a":[1}]',
      '{]',
      '{"a":tru}',
      '{"a":1,}',
      '{"a":"\u0001"}',
    ]) {
      const e = catchError(() => new JsonStreamFramer().push(bytes(text)));
      expect(e, text).toBeInstanceOf(ProtocolError);
      expect((e as Error).message).toMatch(
        /invalid JSON in the \d+-byte message at stream offset 0/,
      );
      expect((e as Error).cause).toBeInstanceOf(SyntaxError);
    }
  });

  it('rejects invalid UTF-8 with a fatal decoder', () => {
    const cases = [
      [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d], // truncated 2-byte sequence
      [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d], // 0xff never valid
      [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d], // encoded surrogate
      [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d], // overlong '/'
    ];
    for (const c of cases) {
      const e = catchError(() => new JsonStreamFramer().push(new Uint8Array(c)));
      expect(e).toBeInstanceOf(ProtocolError);
      expect((e as Error).message).toMatch(/invalid UTF-8 in the \d+-byte message/);
    }
  });

  it('accepts a message of exactly maxMessageBytes and rejects one byte more', () => {
    const ok = '{"a":"' + 'x'.repeat(94) + '"}';
    expect(ok.length).toBe(102);
    expect(new JsonStreamFramer({ maxMessageBytes: 102 }).push(bytes(ok))).toEqual([
      { a: 'x'.repeat(94) },
    ]);
    const big = '{"a":"' + 'x'.repeat(95) + '"}';
    const e = catchError(() => new JsonStreamFramer({ maxMessageBytes: 102 }).push(bytes(big)));
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toContain('102-byte limit');
  });

  it('fails as soon as a message crosses maxMessageBytes, without buffering the rest', () => {
    const f = new JsonStreamFramer({ maxMessageBytes: 1000 });
    expect(f.push(bytes('{"a":"' + 'x'.repeat(900)))).toEqual([]);
    expect(f.bufferedBytes).toBe(906);
    expect(f.push(bytes('y'.repeat(94)))).toEqual([]);
    expect(f.bufferedBytes).toBe(1000);
    // The next byte crosses the limit: the message is still open, yet it fails now.
    const e = catchError(() => f.push(bytes('z')));
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toMatch(/exceeds the 1000-byte limit \(more than 1000 bytes/);
    expect(f.bufferedBytes).toBe(0);
  });

  it('applies maxMessageBytes per message, not to the stream', () => {
    const f = new JsonStreamFramer({ maxMessageBytes: 20 });
    const msg = '{"a":"0123456789"}'; // 18 bytes
    const out = f.push(bytes(msg.repeat(50)));
    expect(out).toHaveLength(50);
  });

  it('fails when nesting exceeds maxDepth and accepts nesting up to it', () => {
    const deep = (n: number): string => '{"a":' + '['.repeat(n - 1) + ']'.repeat(n - 1) + '}';
    expect(new JsonStreamFramer({ maxDepth: 50 }).push(bytes(deep(50)))).toHaveLength(1);
    const e = catchError(() => new JsonStreamFramer({ maxDepth: 50 }).push(bytes(deep(51))));
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toContain('nesting deeper than 50 levels');
  });

  it('survives the default depth cap and huge nesting without a crash', () => {
    const okDepth = DEFAULT_MAX_DEPTH;
    const ok = '{"a":' + '['.repeat(okDepth - 1) + ']'.repeat(okDepth - 1) + '}';
    expect(new JsonStreamFramer().push(bytes(ok))).toHaveLength(1);
    const huge = '{"a":' + '['.repeat(200_000);
    const e = catchError(() => new JsonStreamFramer().push(bytes(huge)));
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toContain(`nesting deeper than ${DEFAULT_MAX_DEPTH} levels`);
  });

  it('defaults to the limit of ovsdb-server: 1,000 levels counting the top-level object', () => {
    expect(DEFAULT_MAX_DEPTH).toBe(1000);
    const message = (n: number): string => `{"a":${'['.repeat(n - 1)}${']'.repeat(n - 1)}}`;
    expect(new JsonStreamFramer().push(bytes(message(1000)))).toHaveLength(1);
    const e = catchError(() => new JsonStreamFramer().push(bytes(message(1001))));
    expect((e as Error).message).toBe(
      'message nesting deeper than 1000 levels at stream offset 1004',
    );
  });

  it('refuses a string holding U+0000, wherever the escape falls across chunks', () => {
    const text = '{"a":"x"}{"method":"echo","params":["a\\u0000b"],"id":1}';
    const data = bytes(text);
    for (let cut = 0; cut <= data.length; cut++) {
      const f = new JsonStreamFramer();
      const out: unknown[] = [];
      const e = catchError(() => {
        f.pushInto(data.subarray(0, cut), out);
        f.pushInto(data.subarray(cut), out);
      });
      expect(e, `cut at ${cut}`).toBeInstanceOf(ProtocolError);
      expect((e as Error).message).toMatch(
        /^null bytes not supported in quoted strings: a string holds U\+0000 in the 46-byte message at stream offset 9$/,
      );
      expect(out).toEqual([{ a: 'x' }]);
    }
    // One byte at a time.
    const f = new JsonStreamFramer();
    const e = catchError(() => {
      for (const b of data) f.push(Uint8Array.of(b));
    });
    expect(e).toBeInstanceOf(ProtocolError);
  });

  it('takes an escaped backslash before "u0000" for what it is, and other \\u escapes', () => {
    const f = new JsonStreamFramer();
    expect(f.push(bytes('{"a":"\\\\u0000","b":"\\u0001\\u00e9","c":"\\\\\\u0041"}'))).toEqual([
      { a: '\\u0000', b: '\u0001\u00e9', c: '\\A' },
    ]);
    const e = catchError(() => f.push(bytes('{"a":"\\\\\\u0000"}')));
    expect((e as Error).message).toMatch(/^null bytes not supported/);
  });

  it('keeps the messages completed before an error when using pushInto', () => {
    const f = new JsonStreamFramer();
    const out: unknown[] = [];
    const e = catchError(() => f.pushInto(bytes('{"a":1}{"b":2}]garbage'), out));
    expect(e).toBeInstanceOf(ProtocolError);
    expect(out).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('stays failed until reset, then works again from a fresh stream', () => {
    const f = new JsonStreamFramer();
    const first = catchError(() => f.push(bytes('[')));
    expect(catchError(() => f.push(bytes('{"a":1}')))).toBe(first);
    f.reset();
    expect(f.push(bytes('{"a":1}'))).toEqual([{ a: 1 }]);
  });

  it('reset drops a partial message', () => {
    const f = new JsonStreamFramer();
    f.push(bytes('{"a":"half'));
    expect(f.bufferedBytes).toBeGreaterThan(0);
    f.reset();
    expect(f.bufferedBytes).toBe(0);
    expect(f.push(bytes('{"b":1}'))).toEqual([{ b: 1 }]);
  });

  it('validates its options', () => {
    expect(() => new JsonStreamFramer({ maxMessageBytes: 1 })).toThrow(RangeError);
    expect(() => new JsonStreamFramer({ maxDepth: 0 })).toThrow(RangeError);
  });

  it('takes linear time for a large message fed in small chunks', () => {
    // 4 MB in 64-byte chunks: a framer that rescanned its buffer on every push
    // would do ~10^11 byte steps here and never finish in time.
    const row =
      '{"name":"lsp-0001","addresses":["set",["0a:00:00:00:00:01 10.0.0.1"]],"s":"\\"x\\""},';
    const body = row.repeat(Math.ceil(4e6 / row.length));
    const data = bytes(`{"id":1,"result":[${body.slice(0, -1)}],"error":null}`);
    const f = new JsonStreamFramer();
    const t0 = performance.now();
    let out: unknown[] = [];
    for (let i = 0; i < data.length; i += 64) {
      const got = f.push(data.subarray(i, i + 64));
      if (got.length) out = got;
    }
    const elapsed = performance.now() - t0;
    expect(out).toHaveLength(1);
    expect((out[0] as { result: unknown[] }).result.length).toBe(Math.ceil(4e6 / row.length));
    expect(elapsed).toBeLessThan(5000);
  });
});

describe('JsonStreamFramer: 64-bit integers', () => {
  const MSG =
    '{"id":1,"result":[9223372036854775807,-9223372036854775808,9007199254740993,9007199254740991,"12345678901234567890",0.12345678901234567],"error":null}';
  const WANT = [
    2n ** 63n - 1n,
    -(2n ** 63n),
    2n ** 53n + 1n,
    2 ** 53 - 1,
    '12345678901234567890',
    Number('0.12345678901234567'),
  ];

  it('decodes integer tokens of 16+ digits exactly, wherever the stream is cut', () => {
    const data = bytes(`${MSG} ${MSG}`);
    for (let cut = 0; cut <= data.length; cut++) {
      const f = new JsonStreamFramer();
      const out = pushSplit(f, data, [cut]);
      expect(out, `cut at ${cut}`).toStrictEqual([
        { id: 1, result: WANT, error: null },
        { id: 1, result: WANT, error: null },
      ]);
      expect(f.losslessMessages).toBe(2);
    }
  });

  it('keeps JSON.parse for messages whose long digit runs are in strings or reals', () => {
    const reals = bytes(
      '{"a":[0.12345678901234567,12345678901234567.5,1234567890123456789e2,"99999999999999999999"]}' +
        '{"b":[1e-123456789012345678]}',
    );
    for (let cut = 0; cut <= reals.length; cut++) {
      const f = new JsonStreamFramer();
      const out = pushSplit(f, reals, [cut, Math.min(reals.length, cut + 3)]);
      expect(out[0], `cut at ${cut}`).toEqual(
        JSON.parse(
          '{"a":[0.12345678901234567,12345678901234567.5,1234567890123456789e2,"99999999999999999999"]}',
        ),
      );
      // An absurd 18-digit exponent is parsed losslessly (harmless: it is still a real).
      expect(f.losslessMessages, `cut at ${cut}`).toBe(1);
    }
  });

  it('gives text and value with pushFramesInto, the text exactly as received', () => {
    const f = new JsonStreamFramer();
    const out: { text: string; value: unknown }[] = [];
    f.pushFramesInto(bytes(' {"x" : 9223372036854775807 }\n{"y":'), out);
    f.pushFramesInto(bytes('"é"}'), out);
    expect(out).toStrictEqual([
      { text: '{"x" : 9223372036854775807 }', value: { x: 2n ** 63n - 1n } },
      { text: '{"y":"é"}', value: { y: 'é' } },
    ]);
  });

  it('reports invalid JSON on the lossless path as a ProtocolError', () => {
    const f = new JsonStreamFramer();
    const e = catchError(() => f.push(bytes('{"a":12345678901234567890,}')));
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toMatch(/invalid JSON in the 27-byte message at stream offset 0/);
  });
});

/**
 * Fuzzing of the framer and the JSON-RPC peer: 10,000 generated streams
 * (valid, malformed, oversized, deeply nested, random) fed both to a
 * JsonStreamFramer in random chunks and through a JsonRpcPeer over the memory
 * transport. Invariants: nothing throws except ProtocolError from the framer;
 * no unhandled rejection or uncaught exception; invalid input closes the peer
 * with a ProtocolError; valid messages arrive intact and in order.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/ovsdb/wire/errors.js';
import { DEFAULT_MAX_DEPTH, JsonStreamFramer } from '../../../src/ovsdb/wire/framer.js';
import { stringifyJson } from '../../../src/ovsdb/wire/json-stringify.js';
import { parseJsonLossless } from '../../../src/ovsdb/wire/json-text.js';
import { JsonRpcPeer } from '../../../src/ovsdb/wire/rpc.js';
import { createMemoryPair } from '../../helpers/memory-transport.js';

const enc = new TextEncoder();
const SEED = 20240607;

const unhandled: unknown[] = [];
const onUnhandled = (e: unknown): void => {
  unhandled.push(e);
};
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUnhandled);
  expect(unhandled).toEqual([]);
});

type Expect =
  /** These notifications' params, in order, and nothing else. */
  | { kind: 'valid'; params: unknown[] }
  /** A ProtocolError (after these notifications, which must arrive first), matching `pattern`. */
  | { kind: 'invalid'; params: unknown[]; pattern: RegExp; onEof?: boolean }
  /** Random input: any ProtocolError or any messages, but nothing else. */
  | { kind: 'unknown' };

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const notification = (params: unknown): string =>
  JSON.stringify({ method: 'n', params: [params], id: null });

/**
 * JSON.stringify then parse losslessly, so -0 and friends compare as they
 * arrive (and an unsafe integer's digits as the bigint they decode to).
 */
const normalize = (v: unknown): unknown => parseJsonLossless(JSON.stringify(v));

/** Feed `data` to a fresh framer cut at `cuts`; return messages and the error, if any. */
function runFramer(
  data: Uint8Array,
  cuts: readonly number[],
  maxMessageBytes: number | undefined,
): { messages: unknown[]; error: unknown } {
  const framer = new JsonStreamFramer(maxMessageBytes ? { maxMessageBytes } : {});
  const messages: unknown[] = [];
  const points = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  let prev = 0;
  try {
    for (const cut of [...points, data.length]) {
      framer.pushInto(data.subarray(prev, cut), messages);
      prev = cut;
    }
  } catch (e) {
    return { messages, error: e };
  }
  return { messages, error: undefined };
}

/** Feed `data` through a JsonRpcPeer over a memory transport in `chunkSize` chunks. */
async function runPeer(
  data: Uint8Array,
  chunkSize: number,
  maxMessageBytes: number | undefined,
  closeAtEof: boolean,
): Promise<{ params: unknown[]; reason: Error | undefined; closed: boolean }> {
  const [client, server] = createMemoryPair();
  server.attach({ data() {}, message() {}, drain() {}, close() {} });
  const params: unknown[] = [];
  const peer = new JsonRpcPeer(client, {
    ...(maxMessageBytes ? { maxMessageBytes } : {}),
    onNotification: (_m, p) => params.push(p[0]),
  });
  // A pending request must be rejected, never left unhandled, when input is bad.
  const pending = peer.request('pending', []).then(
    () => 'resolved',
    (e: unknown) => e,
  );
  client.injectBytes(data, chunkSize);
  if (closeAtEof) server.close();
  if (!peer.isClosed && !closeAtEof) {
    peer.close();
    await peer.closed;
    await pending;
    return { params, reason: undefined, closed: false };
  }
  const reason = await peer.closed;
  const settled = await pending;
  expect(settled).toBeInstanceOf(Error);
  return { params, reason, closed: true };
}

async function check(
  data: Uint8Array,
  expectation: Expect,
  cuts: readonly number[],
  chunkSize: number,
  maxMessageBytes?: number,
): Promise<void> {
  const framed = runFramer(data, cuts, maxMessageBytes);
  if (framed.error !== undefined) expect(framed.error).toBeInstanceOf(ProtocolError);
  const peer = await runPeer(
    data,
    chunkSize,
    maxMessageBytes,
    expectation.kind === 'invalid' && expectation.onEof === true,
  );
  if (peer.reason !== undefined) expect(peer.reason).toBeInstanceOf(ProtocolError);

  switch (expectation.kind) {
    case 'valid': {
      expect(framed.error).toBeUndefined();
      // Compared as JSON text: exact, and much cheaper than a deep equality on big values.
      const want = expectation.params.map((p) => ({ method: 'n', params: [p], id: null }));
      expect(stringifyJson(framed.messages)).toBe(JSON.stringify(want));
      expect(peer.closed).toBe(false);
      expect(stringifyJson(peer.params)).toBe(JSON.stringify(expectation.params));
      break;
    }
    case 'invalid': {
      const want = expectation.params.map(normalize);
      if (expectation.onEof) {
        // The stream just stops mid-message: the framer waits for more...
        expect(framed.error).toBeUndefined();
      } else {
        expect(framed.error).toBeInstanceOf(ProtocolError);
        expect((framed.error as Error).message).toMatch(expectation.pattern);
      }
      expect(framed.messages.map((m) => (m as { params: unknown[] }).params[0])).toEqual(want);
      // ...while the peer, told the stream ended, closes with a ProtocolError.
      expect(peer.closed).toBe(true);
      expect(peer.reason).toBeInstanceOf(ProtocolError);
      expect(peer.reason?.message).toMatch(
        expectation.onEof ? /middle of a message/ : expectation.pattern,
      );
      expect(peer.params).toEqual(want);
      break;
    }
    case 'unknown': {
      for (const m of framed.messages) expect(typeof m === 'object' && m !== null).toBe(true);
      if (framed.error !== undefined) {
        expect(peer.closed).toBe(true);
        expect(peer.reason).toBeInstanceOf(ProtocolError);
      }
      break;
    }
  }
}

/**
 * String characters biased towards what a framer must get right: quotes,
 * escapes, brackets, UTF-8, control characters. Never U+0000, which OVS's
 * JSON reader (and so the framer) refuses (see test/hostile).
 */
const tricky = fc.oneof(
  fc.constantFrom('"', '\\', '{', '}', '[', ']', '\\"', 'é', '€', '😀', '\u0001', '\n'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((c) => c !== '\u0000'),
);
const params = fc.jsonValue({ stringUnit: tricky, maxDepth: 3 });
const cuts = fc.array(fc.nat(), { maxLength: 12 });
const chunkSize = fc.integer({ min: 1, max: 97 });
const ws = fc.constantFrom('', ' ', '\n', '\r\n', '\t', '  \n ');
const runs = (numRuns: number): { numRuns: number; seed: number; endOnFailure: boolean } => ({
  numRuns,
  seed: SEED,
  endOnFailure: true,
});

/** Messages joined with random whitespace. */
const validStream = fc.array(fc.tuple(params, ws), { minLength: 1, maxLength: 5 }).map((items) => ({
  params: items.map(([p]) => p),
  bytes: enc.encode(items.map(([p, w]) => w + notification(p)).join('')),
}));

const INVALID_UTF8: readonly number[][] = [
  [0xff],
  [0xfe],
  [0x80],
  [0xbf],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xc3, 0x41],
  [0xe2, 0x82, 0x41],
  [0xed, 0xa0, 0x80],
  [0xe0, 0x80, 0x80],
  [0xf0, 0x80, 0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
];

describe('framer and peer fuzzing (10,000 cases)', () => {
  it('valid streams split at random points arrive intact (2,500)', async () => {
    await fc.assert(
      fc.asyncProperty(validStream, cuts, chunkSize, async (s, c, size) => {
        await check(s.bytes, { kind: 'valid', params: s.params }, c, size);
      }),
      runs(2500),
    );
  });

  it('valid streams split at every byte boundary arrive intact (500)', async () => {
    const small = fc.array(fc.jsonValue({ stringUnit: tricky, maxDepth: 2, depthSize: 'xsmall' }), {
      minLength: 1,
      maxLength: 2,
    });
    await fc.assert(
      fc.asyncProperty(small, async (ps) => {
        const bytes = enc.encode(ps.map(notification).join(''));
        const want = JSON.stringify(ps.map((p) => ({ method: 'n', params: [p], id: null })));
        const bad: number[] = [];
        for (let cut = 0; cut <= bytes.length; cut++) {
          const { messages, error } = runFramer(bytes, [cut], undefined);
          if (error !== undefined || stringifyJson(messages) !== want) bad.push(cut);
        }
        expect(bad).toEqual([]);
        await check(bytes, { kind: 'valid', params: ps }, [], 1);
      }),
      runs(500),
    );
  });

  it('truncated UTF-8 sequences are rejected (1,000)', async () => {
    const multi = fc.string({ unit: 'binary', minLength: 1, maxLength: 20 });
    await fc.assert(
      fc.asyncProperty(
        validStream,
        multi,
        fc.constantFrom('é', '€', '😀', '日本'),
        fc.nat(),
        fc.boolean(),
        cuts,
        chunkSize,
        async (before, text, wide, pick, atEof, c, size) => {
          const value = text + wide;
          const msg = enc.encode(notification(value));
          const conts: number[] = [];
          msg.forEach((b, i) => {
            if (b >= 0x80 && b <= 0xbf) conts.push(i);
          });
          if (atEof) {
            // The stream ends inside a multi-byte character.
            const cut = conts[pick % conts.length]!;
            const data = concat([before.bytes, msg.subarray(0, cut)]);
            await check(
              data,
              { kind: 'invalid', params: before.params, pattern: /./, onEof: true },
              c,
              size,
            );
          } else {
            const drop = conts[pick % conts.length]!;
            const broken = concat([msg.subarray(0, drop), msg.subarray(drop + 1)]);
            const data = concat([before.bytes, broken]);
            await check(
              data,
              { kind: 'invalid', params: before.params, pattern: /invalid UTF-8/ },
              c,
              size,
            );
          }
        },
      ),
      runs(1000),
    );
  });

  it('invalid UTF-8 bytes inside strings are rejected (1,000)', async () => {
    await fc.assert(
      fc.asyncProperty(
        validStream,
        fc.string({ maxLength: 10 }),
        fc.constantFrom(...INVALID_UTF8),
        fc.string({ maxLength: 10 }),
        cuts,
        chunkSize,
        async (before, pre, bad, post, c, size) => {
          const head = `{"method":"n","params":[${JSON.stringify(pre).slice(0, -1)}`;
          const tail = `${JSON.stringify(post).slice(1)}],"id":null}`;
          const data = concat([
            before.bytes,
            enc.encode(head),
            new Uint8Array(bad),
            enc.encode(tail),
          ]);
          await check(
            data,
            { kind: 'invalid', params: before.params, pattern: /invalid UTF-8/ },
            c,
            size,
          );
        },
      ),
      runs(1000),
    );
  });

  it('messages over a small maxMessageBytes are rejected as soon as they cross it (1,000)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 128, max: 2048 }),
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.boolean(),
        cuts,
        chunkSize,
        async (max, small, extra, complete, c, size) => {
          const big = notification('x'.repeat(max + extra));
          // Either the whole message or just enough of it to cross the limit.
          const bigBytes = enc.encode(complete ? big : big.slice(0, max + 1));
          const data = concat([enc.encode(small.map(notification).join('')), bigBytes]);
          await check(
            data,
            {
              kind: 'invalid',
              params: small,
              pattern: new RegExp(`exceeds the ${max}-byte limit`),
            },
            c,
            size,
            max,
          );
        },
      ),
      runs(1000),
    );
  });

  it('nesting past the depth cap is rejected without a crash (500)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: DEFAULT_MAX_DEPTH, max: 3 * DEFAULT_MAX_DEPTH }),
        fc.boolean(),
        fc.constantFrom('[', '{"a":'),
        cuts,
        fc.integer({ min: 512, max: 65536 }),
        async (depth, closeIt, open, c, size) => {
          const close = open === '[' ? ']' : '}';
          const text =
            '{"method":"n","params":' +
            open.repeat(depth) +
            (closeIt ? close.repeat(depth) : '') +
            '}';
          await check(
            enc.encode(text),
            { kind: 'invalid', params: [], pattern: /nesting deeper than/ },
            c,
            size,
          );
        },
      ),
      runs(500),
    );
  });

  it('deep nesting within the cap arrives intact (300)', async () => {
    await fc.assert(
      fc.asyncProperty(
        // The notification's object and params array are two levels of the cap.
        fc.integer({ min: 1, max: DEFAULT_MAX_DEPTH - 2 }),
        cuts,
        chunkSize,
        async (depth, c, size) => {
          let value: unknown = 'leaf';
          for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { k: value };
          await check(
            enc.encode(notification(value)),
            { kind: 'valid', params: [value] },
            c,
            size * 50,
          );
        },
      ),
      runs(300),
    );
  });

  it('random bytes never crash either side (2,000)', async () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      // Mostly JSON-ish punctuation, to get past the first byte more often.
      fc
        .array(fc.constantFrom(...'{}[]":,\\ \n0123456789truefalsnul'.split(''), 'é', '\u0000'), {
          maxLength: 200,
        })
        .map((cs) => enc.encode(`{${cs.join('')}`)),
    );
    await fc.assert(
      fc.asyncProperty(bytes, cuts, chunkSize, async (data, c, size) => {
        await check(data, { kind: 'unknown' }, c, size);
      }),
      runs(2000),
    );
  });

  it('garbage after valid messages: the valid ones arrive, then a ProtocolError (1,000)', async () => {
    const garbage = fc
      .tuple(
        fc
          .integer({ min: 0, max: 255 })
          .filter((b) => b !== 0x7b && ![0x20, 0x0a, 0x0d, 0x09].includes(b)),
        fc.uint8Array({ maxLength: 50 }),
      )
      .map(([first, rest]) => concat([new Uint8Array([first]), rest]));
    await fc.assert(
      fc.asyncProperty(validStream, ws, garbage, cuts, chunkSize, async (s, w, g, c, size) => {
        const data = concat([s.bytes, enc.encode(w), g]);
        await check(
          data,
          { kind: 'invalid', params: s.params, pattern: /must be an object/ },
          c,
          size,
        );
      }),
      runs(1000),
    );
  });

  it('well-formed JSON that is not JSON-RPC closes the peer (200)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string({ maxLength: 8 }), params, { maxKeys: 4 }),
        cuts,
        chunkSize,
        async (obj, c, size) => {
          const text = JSON.stringify({ ...obj, jsonrpc: '2.0' });
          const data = enc.encode(text);
          const framed = runFramer(data, c, undefined);
          expect(framed.error).toBeUndefined();
          expect(framed.messages).toEqual([parseJsonLossless(text)]);
          const peer = await runPeer(data, size, undefined, false);
          expect(peer.closed).toBe(true);
          expect(peer.reason).toBeInstanceOf(ProtocolError);
          expect(peer.reason?.message).toMatch(/malformed JSON-RPC message/);
        },
      ),
      runs(200),
    );
  });
});

/**
 * Streaming framer for OVSDB's JSON-RPC byte streams.
 *
 * OVSDB sends JSON values back to back with no delimiter. {@link JsonStreamFramer}
 * finds where each top-level object ends by tracking bracket depth while
 * skipping over strings (escape-aware), works on raw bytes so that a UTF-8
 * sequence split across two chunks is never decoded in halves, and keeps its
 * scan state between pushes so every byte is looked at once: the cost is linear
 * in the stream length however the stream is chunked. The first bytes of a
 * string are stepped through one by one (most strings are short); past
 * them, the closing quote and any backslash before it are found with
 * `indexOf`, the chunk's next backslash being remembered so that no byte is
 * searched for one twice.
 *
 * Only complete messages are decoded (with a fatal UTF-8 decoder) and parsed
 * with `JSON.parse`, except a message holding an integer token of 16 digits
 * or more (outside strings, not part of a real), which `JSON.parse` might
 * round: the scan counts digit runs as it goes, and such a message is parsed
 * by `parseJsonLossless`, which gives integers their canonical int64 (a
 * `bigint` beyond ±(2^53−1)).
 *
 * Two limits of OVS's own JSON reader (lib/json.c) hold on every side, as
 * `ovsdb-server` and its clients apply them: nesting deeper than `maxDepth`
 * (default 1,000 levels, the top-level object counting as one; its
 * `JSON_MAX_HEIGHT`) and a string holding U+0000 (`"\u0000"`: "null bytes
 * not supported in quoted strings") are a {@link ProtocolError}. The scan
 * counts the depth as it goes and fails at the first bracket too many,
 * before the message is buffered further; a `\u` escape is noted, and only
 * a message holding one is searched for `\u0000`. This module imports
 * nothing from Node.
 * @module
 */

import { ProtocolError } from './errors.js';
import { errorText } from './json.js';
import {
  DEFAULT_MAX_DEPTH,
  hasNulEscape,
  isFractionOrExponent,
  LONG_INTEGER_DIGITS,
  parseJsonLossless,
} from './json-text.js';
import { type MemberReviverFor, SplitDecoder } from './split-decoder.js';

/** Options of {@link JsonStreamFramer}. */
export interface JsonStreamFramerOptions {
  /**
   * Largest message accepted, in bytes (default 64 MiB). A message that grows
   * past it fails with a {@link ProtocolError} as soon as the limit is crossed,
   * before the rest of it is buffered.
   */
  maxMessageBytes?: number;
  /**
   * The limit of the next message, asked when its first byte arrives (at
   * most `maxMessageBytes`): e.g. the JSON-RPC peer's smaller limit while no
   * reply is expected. Default: `maxMessageBytes` for every message.
   */
  messageLimit?: () => number;
  /**
   * A message that grows past this many bytes before it ends is decoded as
   * its bytes arrive (`SplitDecoder`) instead of being buffered whole:
   * nothing of it but its parsed tree is held, and it may be larger than the
   * longest string V8 can make (512 MiB). Default
   * `DEFAULT_SPLIT_THRESHOLD_BYTES` (8 MiB). Not in
   * {@link JsonStreamFramer.pushFramesInto}, which gives each message's text.
   */
  splitThresholdBytes?: number;
  /** In a split message, the longest value parsed whole (default 64 KiB). */
  splitLeafMaxBytes?: number;
  /**
   * In a split message, what the members of each outer object become as
   * they are parsed (see {@link MemberReviverFor}). Default: as parsed.
   */
  splitReviverFor?: MemberReviverFor;
  /**
   * Deepest bracket nesting accepted, the top-level object counting as one
   * level (default {@link DEFAULT_MAX_DEPTH}, 1,000: ovsdb-server's limit).
   * A message that goes deeper fails with a {@link ProtocolError} at the
   * first bracket too many.
   */
  maxDepth?: number;
}

/** Default {@link JsonStreamFramerOptions.maxMessageBytes}: 64 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Default {@link JsonStreamFramerOptions.splitThresholdBytes}: 8 MiB. */
export const DEFAULT_SPLIT_THRESHOLD_BYTES = 8 * 1024 * 1024;

/** Default {@link JsonStreamFramerOptions.maxDepth}. */
export { DEFAULT_MAX_DEPTH };

/** One message as {@link JsonStreamFramer.pushFramesInto} gives it: its text and its value. */
export interface FramedMessage {
  /** The message's JSON text, exactly as received (decoded from UTF-8). */
  readonly text: string;
  /** The parsed message (integers in canonical int64 form). */
  readonly value: unknown;
}

// Byte classes used outside strings.
const OTHER = 0;
const OPEN = 1;
const CLOSE = 2;
const QUOTE = 3;
const DIGIT = 4;

const CLASS = new Uint8Array(256);
CLASS[0x7b] = OPEN; // {
CLASS[0x5b] = OPEN; // [
CLASS[0x7d] = CLOSE; // }
CLASS[0x5d] = CLOSE; // ]
CLASS[0x22] = QUOTE; // "
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = DIGIT;

const LBRACE = 0x7b;
const DQUOTE = 0x22;
const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

/** The bytes of a string stepped through one by one before the rest of it is searched with `indexOf`. */
const SHORT_STRING = 64;

/**
 * Splits a byte stream of concatenated JSON objects into parsed messages.
 *
 * ```ts
 * const framer = new JsonStreamFramer();
 * framer.push(bytes('{"id":1,"result":[],"error":null}{"id":2,'));
 * // → [{ id: 1, result: [], error: null }]
 * framer.push(bytes('"result":"x","error":null}'));
 * // → [{ id: 2, result: 'x', error: null }]
 * ```
 *
 * Every top-level value must be an object. Whitespace between values is
 * skipped. Anything else (a top-level array or scalar, invalid JSON, invalid
 * UTF-8, a message over `maxMessageBytes`, nesting deeper than `maxDepth`,
 * a string holding U+0000) throws a {@link ProtocolError}; after that the framer stays failed, throwing
 * the same error on every push, until {@link JsonStreamFramer.reset}.
 */
export class JsonStreamFramer {
  private readonly maxMessageBytes: number;
  private readonly messageLimit: (() => number) | undefined;
  /** The current message's limit. */
  private limit: number;
  private readonly maxDepth: number;
  private readonly splitThreshold: number;
  private readonly splitLeafMax: number;
  private readonly splitReviverFor: MemberReviverFor | undefined;
  /** Decodes the current message as it arrives, once it is large. */
  private split: SplitDecoder | undefined;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  /** Bytes of the current message held from earlier pushes (copies). */
  private pieces: Uint8Array[] = [];
  /** Bytes of the current message seen so far (held pieces plus this push's part). */
  private messageBytes = 0;
  /** Inside a top-level value. */
  private inMessage = false;
  /** Bracket depth inside the current message. */
  private depth = 0;
  /** Inside a JSON string. */
  private inString = false;
  /** The previous byte was a backslash inside a string. */
  private escaped = false;
  /** Stream offset of the first byte of the current push. */
  private offset = 0;
  /** Stream offset where the current message began. */
  private messageOffset = 0;
  /** Set once the stream was found invalid. */
  private failure: ProtocolError | undefined;
  /** Digits of the run that ended the previous push (0 when it did not end in one). */
  private run = 0;
  /** That run follows `.`, `e`, `E` or `+`: it is part of a real. */
  private runInReal = false;
  /** The last byte of the previous push. */
  private lastByte = -1;
  /** The current message holds an integer token of 16 digits or more. */
  private longInteger = false;
  /** The current message holds a `\u` escape (it may spell U+0000). */
  private unicodeEscape = false;
  /** Messages parsed by the lossless parser. */
  private losslessCount = 0;
  /** Give messages as `FramedMessage`s (text and value). */
  private withText = false;
  /**
   * The first backslash of the chunk being scanned at or after where one
   * was last looked for (the chunk's length when there is none): the next
   * one as long as the scan has not passed it. Reset for every chunk.
   */
  private backslashAt = -1;

  /** @param opts - limits; see {@link JsonStreamFramerOptions}. */
  constructor(opts: JsonStreamFramerOptions = {}) {
    const max = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    const depth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
    if (!(max >= 2)) throw new RangeError(`maxMessageBytes must be at least 2, got ${max}`);
    if (!(depth >= 1)) throw new RangeError(`maxDepth must be at least 1, got ${depth}`);
    this.maxMessageBytes = max;
    this.messageLimit = opts.messageLimit;
    this.limit = max;
    this.maxDepth = depth;
    this.splitThreshold = opts.splitThresholdBytes ?? DEFAULT_SPLIT_THRESHOLD_BYTES;
    this.splitLeafMax = opts.splitLeafMaxBytes ?? 64 * 1024;
    this.splitReviverFor = opts.splitReviverFor;
  }

  /**
   * How many messages so far held an integer token of 16 digits or more and
   * were parsed losslessly rather than with `JSON.parse` (a statistic).
   */
  get losslessMessages(): number {
    return this.losslessCount;
  }

  /** Bytes of an incomplete message held until the rest of it arrives. */
  get bufferedBytes(): number {
    return this.inMessage ? this.messageBytes : 0;
  }

  /** Forget any partial message and any earlier failure; the next byte starts a new stream. */
  reset(): void {
    this.clearMessage();
    this.offset = 0;
    this.failure = undefined;
  }

  /**
   * Feed the next chunk of the stream and get the messages it completed, in
   * order.
   * @throws ProtocolError when the stream is invalid; messages completed
   *   earlier in the same chunk are lost (use {@link JsonStreamFramer.pushInto}
   *   to keep them).
   */
  push(chunk: Uint8Array): unknown[] {
    const out: unknown[] = [];
    this.pushInto(chunk, out);
    return out;
  }

  /**
   * Like {@link JsonStreamFramer.push}, but appends the completed messages to
   * `out`. When it throws, `out` still holds every message that the chunk
   * completed before the invalid bytes.
   * @throws ProtocolError when the stream is invalid.
   */
  pushInto(chunk: Uint8Array, out: unknown[]): void {
    this.withText = false;
    this.pushChunk(chunk, out);
  }

  /**
   * Like {@link JsonStreamFramer.pushInto}, but each completed message is a
   * `FramedMessage`: its text exactly as received, and its value (for
   * a relay that checks a message and forwards its text unchanged).
   * @throws ProtocolError when the stream is invalid.
   */
  pushFramesInto(chunk: Uint8Array, out: FramedMessage[]): void {
    this.withText = true;
    this.pushChunk(chunk, out);
  }

  private pushChunk(chunk: Uint8Array, out: unknown[]): void {
    if (this.failure) throw this.failure;
    try {
      this.scanChunk(chunk, out);
    } catch (e) {
      const err =
        e instanceof ProtocolError
          ? e
          : new ProtocolError(`framer failed: ${errorText(e)}`, { cause: e });
      this.clearMessage();
      this.failure = err;
      throw err;
    }
    this.offset += chunk.length;
    if (chunk.length > 0) this.lastByte = chunk[chunk.length - 1]!;
  }

  private clearMessage(): void {
    this.pieces = [];
    this.messageBytes = 0;
    this.inMessage = false;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.run = 0;
    this.longInteger = false;
    this.unicodeEscape = false;
    this.split = undefined;
  }

  private scanChunk(chunk: Uint8Array, out: unknown[]): void {
    const n = chunk.length;
    let i = 0;
    this.backslashAt = -1;
    while (i < n) {
      let start: number;
      if (!this.inMessage) {
        // Skip whitespace between messages.
        let c = chunk[i]!;
        while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
          if (++i === n) return;
          c = chunk[i]!;
        }
        if (c !== LBRACE) throw this.notAnObject(chunk, i);
        this.inMessage = true;
        this.messageOffset = this.offset + i;
        this.messageBytes = 0;
        if (this.messageLimit) {
          this.limit = Math.max(2, Math.min(this.maxMessageBytes, this.messageLimit()));
        }
        start = i;
      } else {
        start = i;
      }
      const allowance = this.limit - this.messageBytes;
      const limit = n - i > allowance ? i + allowance : n;
      const end = this.scanMessage(chunk, i, limit);
      if (end < 0) {
        // The message continues past `limit`.
        if (limit < n) throw this.tooLarge();
        this.messageBytes += n - start;
        if (this.split === undefined && !this.withText && this.messageBytes > this.splitThreshold) {
          // Large: decode it as it arrives, from what is held so far.
          this.split = new SplitDecoder(
            this.splitLeafMax,
            this.maxDepth,
            `the message starting at stream offset ${this.messageOffset}`,
            this.splitReviverFor,
          );
          for (const p of this.pieces) {
            this.split.push(p, 0, p.length, this.longInteger, this.unicodeEscape);
          }
          this.pieces = [];
        } else if (this.split === undefined) {
          this.pieces.push(chunk.slice(start, n));
          return;
        }
        this.split.push(chunk, start, n, this.longInteger, this.unicodeEscape);
        return;
      }
      this.messageBytes += end - start;
      if (this.split !== undefined) {
        const split = this.split;
        split.push(chunk, start, end, this.longInteger, this.unicodeEscape);
        this.split = undefined;
        this.inMessage = false;
        this.longInteger = false;
        this.unicodeEscape = false;
        out.push(split.finish());
        i = end;
        continue;
      }
      let bytes: Uint8Array;
      if (this.pieces.length === 0) {
        bytes = chunk.subarray(start, end);
      } else {
        bytes = new Uint8Array(this.messageBytes);
        let at = 0;
        for (const p of this.pieces) {
          bytes.set(p, at);
          at += p.length;
        }
        bytes.set(chunk.subarray(start, end), at);
        this.pieces = [];
      }
      this.inMessage = false;
      const longInteger = this.longInteger;
      const unicodeEscape = this.unicodeEscape;
      this.longInteger = false;
      this.unicodeEscape = false;
      out.push(this.parse(bytes, longInteger, unicodeEscape));
      i = end;
    }
  }

  /**
   * Scan `chunk[from, to)` inside the current message. Returns the index just
   * past the message's closing brace, or -1 when `to` was reached first (the
   * scan state is then saved for the next call).
   */
  private scanMessage(chunk: Uint8Array, from: number, to: number): number {
    let i = from;
    let depth = this.depth;
    let inString = this.inString;
    if (inString && this.escaped) {
      // The byte after a backslash that ended the previous chunk.
      if (i === to) return -1;
      if (chunk[i] === LETTER_U) this.unicodeEscape = true;
      i++;
      this.escaped = false;
    } else if (this.run > 0) {
      // The rest of a digit run that ended the previous chunk.
      while (i < to && CLASS[chunk[i]!] === DIGIT) i++;
      const run = this.run + (i - from);
      if (i === to) {
        this.run = run;
        return -1;
      }
      this.run = 0;
      if (run >= LONG_INTEGER_DIGITS && !this.runInReal && !isFractionOrExponent(chunk[i]!)) {
        this.longInteger = true;
      }
    }
    const maxDepth = this.maxDepth;
    while (i < to) {
      if (inString) {
        // The first bytes of the string one by one: most strings end within them.
        const short = to - i > SHORT_STRING ? i + SHORT_STRING : to;
        for (;;) {
          const c = chunk[i++]!;
          if (c === DQUOTE) {
            inString = false;
            break;
          }
          if (c === BACKSLASH) {
            // Escapes are rare; a `\u` one may spell U+0000, checked once the message is whole.
            if (chunk[i] === LETTER_U) this.unicodeEscape = true;
            i++;
          }
          if (i >= short) break;
        }
        if (inString && i < to) {
          // A longer string: the rest of it by search.
          const end = this.skipString(chunk, i, to);
          if (end >= 0) {
            i = end;
            inString = false;
            continue;
          }
          i = -1 - end;
        }
        if (i > to) {
          // A backslash was the last byte: skip the escaped byte next time.
          this.escaped = true;
          i = to;
        }
        continue;
      }
      const cls = CLASS[chunk[i++]!]!;
      if (cls === OTHER) continue;
      if (cls === DIGIT) {
        // A digit run: an integer token of 16 digits or more needs a lossless parse.
        const start = i - 1;
        while (i < to && CLASS[chunk[i]!] === DIGIT) i++;
        if (i - start >= LONG_INTEGER_DIGITS || i === to) this.endRun(chunk, start, i, to);
        continue;
      }
      if (cls === QUOTE) {
        inString = true;
        if (i < to) continue;
        break;
      }
      if (cls === OPEN) {
        if (++depth > maxDepth) {
          this.depth = depth;
          throw new ProtocolError(
            `message nesting deeper than ${maxDepth} levels at stream offset ${this.offset + i - 1}`,
          );
        }
      } else if (--depth === 0) {
        this.depth = 0;
        this.inString = false;
        return i;
      }
    }
    this.depth = depth;
    this.inString = inString;
    return -1;
  }

  /**
   * The rest of a string from `chunk[i]` (`i < to`), as the byte loop of
   * {@link JsonStreamFramer.scanMessage} would step through it: the index
   * just past its closing quote, or, when the string goes on past `to`,
   * `-1 - j` with `j` where the loop would have stopped (`to`, or `to + 1`
   * when the last byte before `to` is a backslash). A `\u` escape on the
   * way is noted.
   */
  private skipString(chunk: Uint8Array, from: number, to: number): number {
    let quote = chunk.indexOf(DQUOTE, from);
    if (quote < 0 || quote > to) quote = to;
    let backslash = this.backslashAt;
    if (backslash < from) {
      backslash = chunk.indexOf(BACKSLASH, from);
      if (backslash < 0) backslash = chunk.length;
      this.backslashAt = backslash;
    }
    if (backslash >= quote) {
      // Nothing escaped before the quote (or before `to`).
      return quote < to ? quote + 1 : -1 - to;
    }
    // An escape: the rest byte by byte (a string with one usually has more,
    // such as a logical flow's escaped quotes, and a search per escape costs more).
    let i = backslash;
    while (i < to) {
      const c = chunk[i++];
      if (c === DQUOTE) return i;
      if (c === BACKSLASH) {
        // A `\u` escape may spell U+0000, checked once the message is whole.
        if (chunk[i] === LETTER_U) this.unicodeEscape = true;
        i++;
      }
    }
    return -1 - i;
  }

  /**
   * A digit run `chunk[start, end)` that is long or reaches `to`: note a long
   * integer token, or keep the run for the next chunk.
   */
  private endRun(chunk: Uint8Array, start: number, end: number, to: number): void {
    const before = start > 0 ? chunk[start - 1]! : this.lastByte;
    if (end === to) {
      this.run = end - start;
      this.runInReal = isFractionOrExponent(before);
    } else if (!isFractionOrExponent(before) && !isFractionOrExponent(chunk[end]!)) {
      this.longInteger = true;
    }
  }

  private parse(bytes: Uint8Array, longInteger: boolean, unicodeEscape: boolean): unknown {
    let text: string;
    try {
      text = this.decoder.decode(bytes);
    } catch (e) {
      throw new ProtocolError(
        `invalid UTF-8 in the ${bytes.length}-byte message at stream offset ${this.messageOffset}`,
        { cause: e },
      );
    }
    if (unicodeEscape && hasNulEscape(text)) {
      throw new ProtocolError(
        `null bytes not supported in quoted strings: a string holds U+0000 in the ${bytes.length}-byte message at stream offset ${this.messageOffset}`,
      );
    }
    let value: unknown;
    try {
      if (longInteger) {
        this.losslessCount++;
        value = parseJsonLossless(text, this.maxDepth);
      } else {
        value = JSON.parse(text);
      }
    } catch (e) {
      throw new ProtocolError(
        `invalid JSON in the ${bytes.length}-byte message at stream offset ${this.messageOffset}: ${errorText(e)}`,
        { cause: e },
      );
    }
    return this.withText ? { text, value } : value;
  }

  private notAnObject(chunk: Uint8Array, i: number): ProtocolError {
    const c = chunk[i]!;
    const shown = c >= 0x20 && c < 0x7f ? `'${String.fromCharCode(c)}'` : 'byte';
    return new ProtocolError(
      `expected '{' to start a JSON-RPC message at stream offset ${this.offset + i}, ` +
        `got ${shown} (0x${c.toString(16).padStart(2, '0')}): a top-level value must be an object`,
    );
  }

  private tooLarge(): ProtocolError {
    return new ProtocolError(
      `message starting at stream offset ${this.messageOffset} exceeds the ` +
        `${this.limit}-byte limit (more than ${this.limit} bytes received ` +
        `without the message ending)`,
    );
  }
}

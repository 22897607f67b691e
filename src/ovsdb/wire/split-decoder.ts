/**
 * Incremental decoding of one large JSON message, as its bytes arrive.
 *
 * A whole-message decode of a large reply (the initial monitor reply of a
 * big database: some 350 bytes per logical switch port) holds, at its peak,
 * the received bytes, one copy of them joined, their decoded text and the
 * parsed tree; and V8 cannot make a string of more than 2^29 − 24 UTF-16
 * units (512 MiB) at all. {@link SplitDecoder} holds none of them: it builds
 * the outer levels of the message (the large objects and arrays) itself, and
 * parses every value that ends within `leafMaxBytes` of its start (a row,
 * a key, a scalar) with `JSON.parse` from its own bytes, as soon as they are
 * in. So only the tree and one small value's bytes are held.
 *
 * A value that starts as a leaf and grows past `leafMaxBytes` before it ends
 * becomes an outer level: its bytes so far are scanned again, once (at most
 * `leafMaxBytes` of them), as children. The result equals `JSON.parse` of
 * the whole text (integers of 16 digits or more exact, as the framer's
 * lossless parse gives them; a `__proto__` key is an own property).
 *
 * A caller may turn the members of the outer objects into their final form
 * as they are parsed ({@link MemberReviverFor}): the rows of a large
 * monitor reply then become replica rows while the rest of the reply
 * arrives, and their parsed form is garbage at once instead of living as
 * long as the whole message.
 *
 * The framer ({@link JsonStreamFramer}) checks the nesting depth and finds
 * where the message ends before it hands bytes on; this class checks the
 * syntax of the outer levels, and `JSON.parse` that of each leaf.
 * @module
 */

import { ProtocolError } from './errors.js';
import { errorText, setOwn } from './json.js';
import { hasNulEscape, LONG_INTEGER_DIGITS, parseJsonLossless } from './json-text.js';

// What an outer level expects next.
const KEY_OR_END = 0; // after `{`
const KEY = 1; // after `,` in an object
const COLON = 2;
const VALUE = 3; // after `:`, or after `,` in an array
const VALUE_OR_END = 4; // after `[`
const COMMA_OR_END = 5;

// What is being captured.
const NONE = 0;
const STRING = 1;
const SCALAR = 2;
const CONTAINER = 3;

interface Level {
  readonly value: Record<string, unknown> | unknown[];
  readonly isArray: boolean;
  state: number;
  key: string | undefined;
  /**
   * Where the level is in the message: the keys and indexes down to it
   * (undefined below {@link REVIVE_DEPTH}, or without a reviver).
   */
  readonly path: readonly (string | number)[] | undefined;
  /** What each member of this (object) level becomes before it is stored (see {@link MemberReviverFor}). */
  readonly revive: MemberReviver | undefined;
}

/**
 * Turns one member of an object, `key` and its parsed value, into what is
 * stored under `key`; undefined leaves the member out (as a `JSON.parse`
 * reviver does).
 */
export type MemberReviver = (key: string, value: unknown) => unknown;

/**
 * Levels deeper than this are never revived, and their paths not kept (a
 * path is a copy of its parent's: keeping every one would cost the square
 * of a hostile message's depth).
 */
export const REVIVE_DEPTH = 8;

/**
 * Asked as each outer object level of a split message opens (down to
 * {@link REVIVE_DEPTH} levels below the message), with its path
 * from the message (`['result', 2, 'Logical_Switch']`), the message object
 * as built so far (its members before this one, e.g. `id`) and the object
 * that the level's members will be stored in: returns
 * a {@link MemberReviver} for that object's members, or undefined to store
 * them as parsed. A member that is itself an outer level is revived once it
 * is complete. Arrays, and values small enough to be parsed whole, are
 * never revived.
 */
export type MemberReviverFor = (
  path: readonly (string | number)[],
  message: Readonly<Record<string, unknown>>,
  target: Readonly<Record<string, unknown>>,
) => MemberReviver | undefined;

const LONG_RUN = new RegExp(`\\d{${LONG_INTEGER_DIGITS}}`);

/** See the module docs. */
export class SplitDecoder {
  private readonly levels: Level[] = [];
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private result: unknown;
  private done = false;

  /** The kind of value being captured (NONE: none). */
  private capture = NONE;
  /** The capture is a key. */
  private captureIsKey = false;
  /** Where the capture began in the bytes being scanned; -1: in earlier bytes. */
  private captureStart = -1;
  /** Bytes of the capture from earlier pushes. */
  private pieces: Uint8Array[] = [];
  private piecesBytes = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /**
   * The outer level's completed children not yet parsed, as the bytes of a
   * JSON array: `[`, then `key,value,` (objects) or `value,` (arrays) for
   * each; parsed together once they reach `leafMaxBytes`, or before the
   * level changes.
   */
  private batch = new Uint8Array(1024);
  private batchLen = 1;
  /** The bytes of the pending key (object levels). */
  private keyBytes: Uint8Array | undefined;
  private longInteger = true;
  private unicodeEscape = true;

  /**
   * @param leafMaxBytes - a value longer than this becomes an outer level.
   * @param maxDepth - the nesting limit, for the lossless parser.
   * @param where - how errors name the message (e.g. `the message at stream offset 0`).
   * @param reviverFor - see {@link MemberReviverFor}.
   */
  constructor(
    private readonly leafMaxBytes: number,
    private readonly maxDepth: number,
    private readonly where: string,
    private readonly reviverFor?: MemberReviverFor,
  ) {}

  /**
   * The next bytes of the message, `chunk[start, end)`, in order.
   * @param longInteger - an integer token of 16 digits or more was seen in
   *   the message up to `end` (the framer counts them as it scans): leaves
   *   are then parsed losslessly.
   * @param unicodeEscape - a `\u` escape was seen up to `end`: leaves are
   *   then checked for U+0000.
   */
  push(
    chunk: Uint8Array,
    start: number,
    end: number,
    longInteger = true,
    unicodeEscape = true,
  ): void {
    this.longInteger = longInteger;
    this.unicodeEscape = unicodeEscape;
    this.scan(chunk, start, end);
  }

  /** The message's value, once its last byte was pushed. */
  finish(): unknown {
    if (!this.done) throw this.invalid('the message ended early');
    return this.result;
  }

  private scan(chunk: Uint8Array, from: number, to: number): void {
    let i = from;
    if (this.capture !== NONE && this.captureStart < 0) this.captureStart = from;
    while (i < to) {
      if (this.capture !== NONE) {
        i = this.scanCapture(chunk, i, to);
        continue;
      }
      const c = chunk[i]!;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
        continue;
      }
      if (this.done) throw this.invalid(`a byte after the end (0x${c.toString(16)})`);
      const level = this.levels[this.levels.length - 1];
      if (level === undefined) {
        // The message itself: always an outer level.
        if (c !== 0x7b) throw this.invalid('a message must be an object');
        this.open(false);
        i++;
        continue;
      }
      switch (level.state) {
        case KEY_OR_END:
        case KEY:
          if (c === 0x7d && level.state === KEY_OR_END) {
            this.close();
          } else if (c === 0x22) {
            this.begin(STRING, true, i);
          } else throw this.unexpected(c, 'an object key');
          i++;
          break;
        case COLON:
          if (c !== 0x3a) throw this.unexpected(c, "':'");
          level.state = VALUE;
          i++;
          break;
        case VALUE:
        case VALUE_OR_END:
          if (c === 0x5d && level.state === VALUE_OR_END) {
            this.close();
            i++;
          } else if (c === 0x22) {
            this.begin(STRING, false, i);
            i++;
          } else if (c === 0x7b || c === 0x5b) {
            this.begin(CONTAINER, false, i);
            this.depth = 1;
            i++;
          } else {
            // A number, true, false or null: it ends at a delimiter.
            this.begin(SCALAR, false, i);
            i++;
          }
          break;
        default: // COMMA_OR_END
          if (c === 0x2c) level.state = level.isArray ? VALUE : KEY;
          else if (c === (level.isArray ? 0x5d : 0x7d)) this.close();
          else throw this.unexpected(c, level.isArray ? "',' or ']'" : "',' or '}'");
          i++;
      }
    }
    if (this.capture !== NONE && this.captureStart >= 0) {
      if (to > this.captureStart) {
        this.pieces.push(chunk.slice(this.captureStart, to));
        this.piecesBytes += to - this.captureStart;
      }
      this.captureStart = -1;
    }
  }

  private begin(kind: number, isKey: boolean, at: number): void {
    this.capture = kind;
    this.captureIsKey = isKey;
    this.captureStart = at;
    this.inString = false;
    this.escaped = false;
  }

  /** Scan the capture from `i`; returns where scanning goes on. */
  private scanCapture(chunk: Uint8Array, i: number, to: number): number {
    const kind = this.capture;
    if (kind === STRING) {
      // After the opening quote.
      const end = this.stringEnd(chunk, i, to);
      if (end < 0) return to;
      this.complete(chunk, end);
      return end;
    }
    if (kind === SCALAR) {
      while (i < to) {
        const c = chunk[i]!;
        if (
          c === 0x2c ||
          c === 0x7d ||
          c === 0x5d ||
          c === 0x20 ||
          c === 0x0a ||
          c === 0x0d ||
          c === 0x09
        ) {
          this.complete(chunk, i);
          return i;
        }
        i++;
      }
      return i;
    }
    // A container: find its end, or grow it into an outer level.
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    const limit = Math.min(to, i + Math.max(1, this.leafMaxBytes - this.captured(i)));
    while (i < limit) {
      if (inString) {
        this.escaped = escaped;
        const end = this.stringEnd(chunk, i, limit);
        escaped = this.escaped;
        if (end < 0) {
          i = limit;
          break;
        }
        inString = false;
        i = end;
        continue;
      }
      const c = chunk[i++]!;
      if (c === 0x22) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--depth === 0) {
          this.complete(chunk, i);
          return i;
        }
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    if (i < to || (i === to && this.captured(i) >= this.leafMaxBytes)) this.promote(chunk, i);
    return i;
  }

  /**
   * Inside a string from `chunk[i]` (`this.escaped`: the byte before was an
   * escaping backslash): the index just past its closing quote, or -1 when
   * `to` comes first (`this.escaped` then says whether `to - 1` escapes the
   * next byte). Quotes are found with `indexOf`; a quote closes the string
   * when an even number of backslashes precede it.
   */
  private stringEnd(chunk: Uint8Array, i: number, to: number): number {
    if (this.escaped) {
      if (i >= to) return -1;
      i++;
      this.escaped = false;
    }
    const from = i;
    for (;;) {
      const q = chunk.indexOf(0x22, i);
      if (q < 0 || q >= to) {
        let n = 0;
        for (let j = to - 1; j >= from && chunk[j] === 0x5c; j--) n++;
        this.escaped = n % 2 === 1;
        return -1;
      }
      let n = 0;
      for (let j = q - 1; j >= from && chunk[j] === 0x5c; j--) n++;
      if (n % 2 === 0) return q + 1;
      i = q + 1;
    }
  }

  /** Bytes captured so far, up to `chunk[i]` excluded. */
  private captured(i: number): number {
    return this.piecesBytes + (this.captureStart >= 0 ? i - this.captureStart : 0);
  }

  private takeBytes(chunk: Uint8Array, end: number): Uint8Array {
    const start = this.captureStart < 0 ? end : this.captureStart;
    if (this.pieces.length === 0) return chunk.subarray(start, end);
    const bytes = new Uint8Array(this.piecesBytes + (end - start));
    let at = 0;
    for (const p of this.pieces) {
      bytes.set(p, at);
      at += p.length;
    }
    bytes.set(chunk.subarray(start, end), at);
    this.pieces = [];
    this.piecesBytes = 0;
    return bytes;
  }

  /** The capture ends just before `chunk[end]`: add it to the batch (a key waits for its value). */
  private complete(chunk: Uint8Array, end: number): void {
    const bytes = this.takeBytes(chunk, end);
    const isKey = this.captureIsKey;
    this.capture = NONE;
    this.captureStart = -1;
    const level = this.levels[this.levels.length - 1]!;
    if (isKey) {
      // Held until its value ends (a copy: `chunk` belongs to the caller).
      this.keyBytes = bytes.slice();
      level.state = COLON;
      return;
    }
    const key = this.keyBytes;
    this.keyBytes = undefined;
    this.append(key, bytes);
    level.state = COMMA_OR_END;
    if (this.batchLen >= this.leafMaxBytes) this.flush();
  }

  private append(key: Uint8Array | undefined, value: Uint8Array): void {
    const need = this.batchLen + (key ? key.length + 1 : 0) + value.length + 1;
    if (need > this.batch.length) {
      const grown = new Uint8Array(Math.max(need, 2 * this.batch.length));
      grown.set(this.batch.subarray(0, this.batchLen));
      this.batch = grown;
    }
    const b = this.batch;
    let at = this.batchLen;
    if (key) {
      b.set(key, at);
      at += key.length;
      b[at++] = 0x2c; // , (a batch is `[key,value,key,value,…]`)
    }
    b.set(value, at);
    at += value.length;
    b[at++] = 0x2c; // ,
    this.batchLen = at;
  }

  /** Parse the batch and add its children to the outer level, in order. */
  private flush(): void {
    if (this.batchLen === 1) return;
    const level = this.levels[this.levels.length - 1]!;
    this.batch[0] = 0x5b;
    this.batch[this.batchLen - 1] = 0x5d;
    const part = this.parse(this.batch.subarray(0, this.batchLen)) as unknown[];
    this.batchLen = 1;
    if (level.isArray) {
      const arr = level.value as unknown[];
      for (let i = 0; i < part.length; i++) arr.push(part[i]);
    } else {
      // Keys and values alternate: no object is made only to be copied.
      const obj = level.value as Record<string, unknown>;
      const revive = level.revive;
      if (revive === undefined) {
        for (let i = 0; i < part.length; i += 2) setOwn(obj, part[i] as string, part[i + 1]);
      } else {
        for (let i = 0; i < part.length; i += 2) {
          const v = revive(part[i] as string, part[i + 1]);
          if (v !== undefined) setOwn(obj, part[i] as string, v);
        }
      }
    }
  }

  private parse(bytes: Uint8Array): unknown {
    let text: string;
    try {
      text = this.decoder.decode(bytes);
    } catch (e) {
      throw new ProtocolError(`invalid UTF-8 in ${this.where}`, { cause: e });
    }
    if (this.unicodeEscape && text.includes('\\u') && hasNulEscape(text)) {
      throw new ProtocolError(
        `null bytes not supported in quoted strings: a string holds U+0000 in ${this.where}`,
      );
    }
    try {
      return this.longInteger && LONG_RUN.test(text)
        ? parseJsonLossless(text, this.maxDepth)
        : JSON.parse(text);
    } catch (e) {
      throw this.invalid(errorText(e), e);
    }
  }

  /** A child level closed: store it after the children before it. */
  private store(level: Level, value: unknown): void {
    if (level.isArray) (level.value as unknown[]).push(value);
    else {
      const key = level.key as string;
      const v = level.revive === undefined ? value : level.revive(key, value);
      if (v !== undefined) setOwn(level.value as Record<string, unknown>, key, v);
    }
    level.state = COMMA_OR_END;
  }

  /** The container being captured is too long for a leaf: make it an outer level. */
  private promote(chunk: Uint8Array, i: number): void {
    const bytes = this.takeBytes(chunk, i);
    this.capture = NONE;
    this.captureStart = -1;
    // The children before it come first; then its key, parsed alone.
    this.flush();
    const parent = this.levels[this.levels.length - 1]!;
    if (!parent.isArray) {
      parent.key = this.parse(this.keyBytes!) as string;
      this.keyBytes = undefined;
    }
    this.open(bytes[0] === 0x5b);
    // Its bytes after the bracket, again, as children (a new capture may stay open).
    this.scan(bytes, 1, bytes.length);
    if (this.capture !== NONE) this.captureStart = i;
  }

  private open(isArray: boolean): void {
    this.flush();
    const value: Record<string, unknown> | unknown[] = isArray ? [] : {};
    const parent = this.levels[this.levels.length - 1];
    let path: readonly (string | number)[] | undefined;
    let revive: MemberReviver | undefined;
    if (parent === undefined) {
      path = this.reviverFor === undefined ? undefined : [];
    } else if (parent.path !== undefined && parent.path.length < REVIVE_DEPTH) {
      path = [
        ...parent.path,
        parent.isArray ? (parent.value as unknown[]).length : (parent.key as string),
      ];
      if (!isArray) {
        revive = this.reviverFor!(
          path,
          this.levels[0]!.value as Record<string, unknown>,
          value as Record<string, unknown>,
        );
      }
    }
    this.levels.push({
      value,
      isArray,
      state: isArray ? VALUE_OR_END : KEY_OR_END,
      key: undefined,
      path,
      revive,
    });
  }

  private close(): void {
    this.flush();
    const level = this.levels.pop()!;
    const parent = this.levels[this.levels.length - 1];
    if (parent === undefined) {
      this.result = level.value;
      this.done = true;
    } else this.store(parent, level.value);
  }

  private unexpected(c: number, expected: string): ProtocolError {
    const shown = c >= 0x20 && c < 0x7f ? `'${String.fromCharCode(c)}'` : `0x${c.toString(16)}`;
    return this.invalid(`expected ${expected}, got ${shown}`);
  }

  private invalid(why: string, cause?: unknown): ProtocolError {
    return new ProtocolError(
      `invalid JSON in ${this.where}: ${why}`,
      cause === undefined ? undefined : { cause },
    );
  }
}

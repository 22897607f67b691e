/**
 * JSON text in and out, exact for OVSDB's 64-bit integers.
 *
 * `JSON.parse` rounds an integer token beyond ±(2^53−1) to the nearest
 * double, and `JSON.stringify` throws on a `bigint`. ovnkit holds integers in
 * the canonical int64 form (a safe-integer `number`, or a `bigint` outside
 * ±(2^53−1); see `values/int64.ts`), so:
 *
 * - {@link parseJsonLossless} parses like `JSON.parse` but gives each integer
 *   token its canonical int64; {@link parseJson} uses it only for a text that
 *   holds an integer token of 16 digits or more, and `JSON.parse` otherwise;
 * - {@link stringifyJson} is `JSON.stringify`, except that a value holding a
 *   bigint is written by an exact serializer (a bigint as its decimal digits).
 *
 * Neither recurses: both keep an explicit stack, so no input can overflow
 * the call stack.
 *
 * Nesting is limited as OVS's JSON reader limits it (lib/json.c,
 * `JSON_MAX_HEIGHT`): {@link DEFAULT_MAX_DEPTH} levels, the outermost
 * container counting as one. ovsdb-server 3.1 answers an `echo` whose message
 * nests 1,000 levels deep (the top-level object and 999 arrays) and drops
 * the connection for 1,001 ("input exceeds maximum nesting depth 1000").
 * {@link parseJson} enforces the limit on every path, and
 * {@link parseJsonMessage} also refuses a string holding U+0000, as OVS does
 * ("null bytes not supported in quoted strings"): what a message transport
 * (WebSocket) delivers gets the same checks as the stream framer applies.
 * V8's `JSON.parse` is iterative at any depth, and its `JSON.stringify`
 * recurses but handles several thousand levels (about 4,000 from a shallow
 * stack; {@link stringifyJson} falls back to its iterative serializer when
 * it does not), so both are safe for anything within the limit.
 * This module imports nothing from Node.
 * @module
 */

/**
 * Default nesting limit of `parseJson`, `parseJsonLossless` and
 * of the framer: 1,000 levels, the outermost container counting as one, as
 * ovsdb-server 3.1 measures it.
 */
export const DEFAULT_MAX_DEPTH = 1000;

/** Integer tokens with fewer digits than this are always safe integers. */
export const LONG_INTEGER_DIGITS = 16;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The value of a JSON integer token's text (`-?[0-9]+`): its canonical int64
 * (a `number` when safe, a `bigint` beyond ±(2^53−1)), or, outside int64, the
 * `number` `JSON.parse` would give.
 */
export function integerTokenValue(token: string): number | bigint {
  const digits = token.charCodeAt(0) === 0x2d ? token.length - 1 : token.length;
  if (digits < LONG_INTEGER_DIGITS) return Number(token);
  const b = BigInt(token);
  if (b < INT64_MIN || b > INT64_MAX) return Number(token);
  return b >= SAFE_MIN && b <= SAFE_MAX ? Number(b) : b;
}

/**
 * A run of {@link LONG_INTEGER_DIGITS} digits, written as that many classes in
 * a row rather than `[0-9]{16}`: the same match, but the regexp engine then
 * looks ahead at the whole run and skips through a long text about three
 * times as fast (a database file is checked whole when it is read).
 */
const LONG_RUN = new RegExp('[0-9]'.repeat(LONG_INTEGER_DIGITS));

/**
 * True when `text` (JSON) has an integer token of 16 digits or more outside
 * strings: one that `JSON.parse` may round. Digits of a fraction or after an
 * exponent are not counted (a real's digits are not an integer token; an
 * absurdly long exponent counts, which only costs a lossless parse).
 */
export function hasLongInteger(text: string): boolean {
  if (!LONG_RUN.test(text)) return false;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string.
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
    if (c >= 0x30 && c <= 0x39) {
      const s = i;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      if (
        i - s >= LONG_INTEGER_DIGITS &&
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

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** `.`, `e`, `E` or `+`: a digit run next to one is part of a real, not an integer token. */
export function isFractionOrExponent(c: number): boolean {
  return c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b;
}

/**
 * Parse JSON text: `JSON.parse`, or {@link parseJsonLossless} when the text
 * holds an integer token `JSON.parse` may round ({@link hasLongInteger}).
 * Nesting deeper than `maxDepth` levels (the outermost container counting
 * as one) is refused on both paths.
 * @throws SyntaxError for invalid JSON, or nesting deeper than `maxDepth`.
 */
export function parseJson(text: string, maxDepth = DEFAULT_MAX_DEPTH): unknown {
  if (hasLongInteger(text)) return parseJsonLossless(text, maxDepth);
  // Valid JSON needs two characters a level: a shorter text cannot be too deep.
  if (text.length > 2 * maxDepth) {
    const at = depthExceededAt(text, maxDepth);
    if (at >= 0) throw depthError(text, at, maxDepth);
  }
  return JSON.parse(text);
}

/**
 * Parse one JSON-RPC message delivered whole (a WebSocket text frame) with
 * the checks the stream framer applies to each message it cuts: as
 * {@link parseJson}, and a string holding U+0000 is refused as OVS's JSON
 * reader refuses it.
 * @throws SyntaxError for invalid JSON, nesting deeper than `maxDepth`, or a
 *   `\u0000` escape.
 */
export function parseJsonMessage(text: string, maxDepth = DEFAULT_MAX_DEPTH): unknown {
  if (hasNulEscape(text)) {
    throw new SyntaxError('null bytes not supported in quoted strings: a string holds U+0000');
  }
  return parseJson(text, maxDepth);
}

/**
 * True when `text` (JSON) holds the escape `\u0000` (U+0000, which OVS's
 * JSON reader refuses in a string) rather than, say, an escaped backslash
 * followed by `u0000`.
 */
export function hasNulEscape(text: string): boolean {
  let at = text.indexOf('\\u0000');
  while (at >= 0) {
    // The backslash at `at` starts an escape when an even number of backslashes precede it.
    let k = at - 1;
    while (k >= 0 && text.charCodeAt(k) === 0x5c) k--;
    if ((at - 1 - k) % 2 === 0) return true;
    at = text.indexOf('\\u0000', at + 1);
  }
  return false;
}

/**
 * The index of the first bracket of `text` that opens a level deeper than
 * `maxDepth`, or -1 (brackets inside strings are skipped; the text is not
 * otherwise checked).
 */
export function depthExceededAt(text: string, maxDepth: number): number {
  const n = text.length;
  let depth = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i++);
    if (c === 0x22) {
      // Skip a string: find its closing quote (one not escaped).
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) return -1;
        let k = q - 1;
        while (text.charCodeAt(k) === 0x5c) k--;
        i = q + 1;
        if ((q - 1 - k) % 2 === 0) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return i - 1;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return -1;
}

function depthError(text: string, i: number, maxDepth: number): SyntaxError {
  return syntaxError(text, i, `Nesting deeper than ${maxDepth} levels`);
}

function syntaxError(text: string, i: number, what?: string): SyntaxError {
  if (i >= text.length) return new SyntaxError('Unexpected end of JSON input');
  return new SyntaxError(`${what ?? `Unexpected token '${text[i]}'`} in JSON at position ${i}`);
}

function skipWhitespace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

/** A container being filled, and the key its next value goes under (objects). */
interface Frame {
  readonly container: unknown[] | Record<string, unknown>;
  readonly isArray: boolean;
  key: string;
}

/**
 * `JSON.parse(text)`, except that an integer token (no fraction, no
 * exponent) becomes its canonical int64 ({@link integerTokenValue}): a
 * `number` when it is a safe integer, a `bigint` beyond ±(2^53−1). Objects
 * and arrays are as `JSON.parse` builds them (plain objects, later duplicate
 * keys win, a `__proto__` key is an own data property).
 *
 * Iterative (an explicit stack, never recursion).
 * @throws SyntaxError for invalid JSON, or nesting deeper than `maxDepth`.
 */
export function parseJsonLossless(text: string, maxDepth = DEFAULT_MAX_DEPTH): unknown {
  const n = text.length;
  const stack: Frame[] = [];
  let i = 0;
  let value: unknown;
  for (;;) {
    // A value starts at i.
    i = skipWhitespace(text, i);
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      if (stack.length >= maxDepth) throw depthError(text, i, maxDepth);
      const isArray = c === 0x5b;
      i = skipWhitespace(text, i + 1);
      const close = isArray ? 0x5d : 0x7d;
      if (text.charCodeAt(i) === close) {
        i++;
        value = isArray ? [] : {};
      } else {
        const frame: Frame = { container: isArray ? [] : {}, isArray, key: '' };
        stack.push(frame);
        if (!isArray) i = readKey(text, i, frame);
        continue;
      }
    } else if (c === 0x22) {
      const end = stringEnd(text, i);
      value = readString(text, i, end);
      i = end + 1;
    } else if (c === 0x2d || isDigit(c)) {
      const end = numberEnd(text, i);
      value = numberValue(text, i, end);
      i = end;
    } else if (c === 0x74 && text.startsWith('true', i)) {
      value = true;
      i += 4;
    } else if (c === 0x66 && text.startsWith('false', i)) {
      value = false;
      i += 5;
    } else if (c === 0x6e && text.startsWith('null', i)) {
      value = null;
      i += 4;
    } else {
      throw syntaxError(text, i);
    }
    // A value is complete: add it to its container, closing containers that end.
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) {
        i = skipWhitespace(text, i);
        if (i < n) throw syntaxError(text, i, `Unexpected non-whitespace character after JSON`);
        return value;
      }
      if (top.isArray) (top.container as unknown[]).push(value);
      else setOwn(top.container as Record<string, unknown>, top.key, value);
      i = skipWhitespace(text, i);
      const d = text.charCodeAt(i);
      if (d === 0x2c) {
        i++;
        if (!top.isArray) i = readKey(text, skipWhitespace(text, i), top);
        break;
      }
      if (d !== (top.isArray ? 0x5d : 0x7d)) throw syntaxError(text, i);
      i++;
      stack.pop();
      value = top.container;
    }
  }
}

/**
 * Set `obj[key] = value` as an own, enumerable property, also when `key` is
 * `__proto__` (which plain assignment would take as the prototype), as
 * `JSON.parse` does.
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    obj[key] = value;
  }
}

/** Read `"key":` at `i` into `frame.key`; returns the index just past the colon. */
function readKey(text: string, i: number, frame: Frame): number {
  if (text.charCodeAt(i) !== 0x22) throw syntaxError(text, i);
  const end = stringEnd(text, i);
  frame.key = readString(text, i, end);
  i = skipWhitespace(text, end + 1);
  if (text.charCodeAt(i) !== 0x3a) throw syntaxError(text, i);
  return i + 1;
}

/** The index of the closing quote of the string whose opening quote is at `i`. */
function stringEnd(text: string, i: number): number {
  const n = text.length;
  let j = i + 1;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return j;
    if (c === 0x5c) j += 2;
    else if (c < 0x20) throw syntaxError(text, j, 'Bad control character in string literal');
    else j++;
  }
  throw syntaxError(text, n, 'Unterminated string in JSON');
}

function readString(text: string, start: number, end: number): string {
  const body = text.slice(start + 1, end);
  // Escapes (rare in OVSDB) are decoded, and checked, by JSON.parse itself.
  return body.includes('\\') ? (JSON.parse(text.slice(start, end + 1)) as string) : body;
}

/** The index just past the number token at `i`, checked against JSON's grammar. */
function numberEnd(text: string, i: number): number {
  let j = i;
  if (text.charCodeAt(j) === 0x2d) j++;
  const first = text.charCodeAt(j);
  if (first === 0x30) j++;
  else if (first >= 0x31 && first <= 0x39) {
    while (isDigit(text.charCodeAt(j))) j++;
  } else throw syntaxError(text, j, 'No number after minus sign');
  if (text.charCodeAt(j) === 0x2e) {
    j++;
    if (!isDigit(text.charCodeAt(j))) throw syntaxError(text, j, 'Unterminated fractional number');
    while (isDigit(text.charCodeAt(j))) j++;
  }
  const e = text.charCodeAt(j);
  if (e === 0x65 || e === 0x45) {
    j++;
    const s = text.charCodeAt(j);
    if (s === 0x2b || s === 0x2d) j++;
    if (!isDigit(text.charCodeAt(j)))
      throw syntaxError(text, j, 'Exponent part is missing a number');
    while (isDigit(text.charCodeAt(j))) j++;
  }
  return j;
}

function numberValue(text: string, start: number, end: number): number | bigint {
  const token = text.slice(start, end);
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x2e || c === 0x65 || c === 0x45) return Number(token);
  }
  return integerTokenValue(token);
}

// ---- out ------------------------------------------------------------------

/**
 * The longest string V8 makes on 64-bit platforms: 2^29 − 24 UTF-16 units
 * (about 512 MiB of ASCII). Longer JSON text is written in pieces
 * ({@link TextPieces}).
 */
export const MAX_STRING_UNITS = 2 ** 29 - 24;

/**
 * Text as one string or, when it is long, as the UTF-8 bytes of its pieces,
 * to be written one after the other ({@link TextPieces}).
 */
export type TextInPieces = string | readonly Uint8Array[];

/** Text up to this long (UTF-16 units) is one string; longer text goes into pieces. */
const ONE_STRING_UNITS = 16 * 1024 * 1024;
/** In pieces, small texts are gathered up to this many UTF-16 units before they are encoded. */
const GATHER_UNITS = 64 * 1024;
/** The first arena of a text in pieces (bytes); each next one is twice as large, up to {@link ARENA_MAX}. */
const ARENA_MIN = 16 * 1024 * 1024;
const ARENA_MAX = 128 * 1024 * 1024;

const encoder = new TextEncoder();

/**
 * Text built in pieces, so that it may be longer than the longest string
 * ({@link MAX_STRING_UNITS}). Text up to 16 Mi UTF-16 units is one string;
 * past that, the text is encoded to UTF-8 as it comes, into a few large
 * buffers (16 MiB, then twice as large each, up to 128 MiB): the pieces are
 * the filled parts of those, ready to be written, and outside the
 * JavaScript heap. (Few large buffers rather than many small ones: the
 * engine collects garbage once for every 64 MiB of buffers allocated.)
 *
 * ```ts
 * const out = new TextPieces();
 * out.add('{"rows":');
 * out.json(rows); // in pieces when its text is long
 * out.add('}');
 * write(out.finish()); // a string, or the pieces' bytes in order
 * ```
 */
export class TextPieces {
  private readonly pieces: Uint8Array[] = [];
  /** Text not encoded yet. */
  private current = '';
  private units = 0;
  /** The buffer being filled, where the current piece starts in it, and how far it is filled. */
  private arena: Uint8Array | undefined;
  private pieceStart = 0;
  private at = 0;

  /** The UTF-16 units added so far. */
  get length(): number {
    return this.units;
  }

  /** Append `text` (no lone surrogate at either end: texts may be encoded on their own). */
  add(text: string): void {
    const n = text.length;
    this.units += n;
    const limit = this.arena === undefined ? ONE_STRING_UNITS : GATHER_UNITS;
    if (this.current.length + n <= limit) {
      this.current += text;
      return;
    }
    this.encode(this.current);
    if (n >= GATHER_UNITS) {
      this.encode(text);
      this.current = '';
    } else {
      this.current = text;
    }
  }

  /** Encode `text` into the arena, extending the current piece (into new arenas as they fill up). */
  private encode(text: string): void {
    let rest = text;
    while (rest.length > 0) {
      if (this.arena === undefined || this.arena.length - this.at < 4) this.newArena();
      const { read, written } = encoder.encodeInto(
        rest,
        (this.arena as Uint8Array).subarray(this.at),
      );
      this.at += written;
      if (read === rest.length) return;
      // The arena is full: the rest (from a character boundary) goes into the next one.
      rest = rest.slice(read);
      this.newArena();
    }
  }

  /** Close the current piece and start a new arena, twice as large as the last (up to {@link ARENA_MAX}). */
  private newArena(): void {
    const old = this.arena;
    if (old !== undefined && this.at > this.pieceStart) {
      this.pieces.push(old.subarray(this.pieceStart, this.at));
    }
    this.arena = new Uint8Array(
      old === undefined ? ARENA_MIN : Math.min(ARENA_MAX, 2 * old.length),
    );
    this.pieceStart = 0;
    this.at = 0;
  }

  /**
   * Append the JSON text of `value`, as {@link stringifyJson} writes it
   * (`JSON.stringify`'s text, a bigint as its digits), in pieces when it is
   * long.
   * @throws TypeError for a cyclic value, or a value with no JSON text.
   */
  json(value: unknown): void {
    if (!writeWhole(value, this)) writeExact(value, this);
  }

  /** The text: one string when it is short, else its pieces' bytes in order. */
  finish(): TextInPieces {
    if (this.arena === undefined) return this.current;
    this.encode(this.current);
    this.current = '';
    if (this.at > this.pieceStart) this.pieces.push(this.arena.subarray(this.pieceStart, this.at));
    this.pieceStart = this.at;
    return this.pieces;
  }
}

/** `text` as one string. @throws RangeError when it is longer than one string can be. */
export function joinPieces(text: TextInPieces): string {
  if (typeof text === 'string') return text;
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let units = 0;
  for (const p of text) {
    const part = decoder.decode(p);
    units += part.length;
    if (units > MAX_STRING_UNITS) {
      throw new RangeError(
        `a text of more than ${MAX_STRING_UNITS} UTF-16 units is longer than the longest string`,
      );
    }
    parts.push(part);
  }
  return parts.join('');
}

/** The JSON text of `value` ({@link stringifyJson}), in pieces when it is long. */
export function stringifyJsonPieces(value: unknown): TextInPieces {
  const out = new TextPieces();
  out.json(value);
  return out.finish();
}

/** `prefix`, `body` and `suffix` as one text: one string when `body` is one. */
export function framePieces(prefix: string, body: TextInPieces, suffix: string): TextInPieces {
  if (typeof body === 'string') {
    if (body.length <= MAX_STRING_UNITS - prefix.length - suffix.length) {
      return prefix + body + suffix;
    }
    return [encoder.encode(prefix), encoder.encode(body), encoder.encode(suffix)];
  }
  return [encoder.encode(prefix), ...body, encoder.encode(suffix)];
}

/**
 * `JSON.stringify(value)`, exact for bigints: a value that holds a `bigint`
 * is written by an exact serializer with the same rules as `JSON.stringify`
 * (`toJSON`, members that are `undefined`, functions or symbols left out of
 * objects and `null` in arrays, non-finite numbers as `null`), each bigint
 * as its decimal digits. Values without a bigint take `JSON.stringify`
 * itself.
 * @throws TypeError for a cyclic value, or a value with no JSON text
 *   (`undefined`, a function or a symbol at the top); RangeError for a text
 *   longer than the longest string ({@link stringifyJsonPieces} writes it).
 */
export function stringifyJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    // A bigint, nesting too deep for JSON.stringify's recursion, a text too
    // long for one string (or a cycle, which fails again in the walk).
    if (!(e instanceof TypeError) && !(e instanceof RangeError)) throw e;
    const out = new TextPieces();
    writeExact(value, out);
    return joinPieces(out.finish());
  }
  if (text === undefined) throw new TypeError(`${typeof value} has no JSON text`);
  return text;
}

/**
 * Values estimated below this many UTF-16 units of text are written with one
 * `JSON.stringify` (escapes, which the estimate leaves out, make a text at
 * most six times as long: still shorter than the longest string).
 */
const WHOLE_UNITS = 64 * 1024 * 1024;
/** Runs of members estimated below this are written with one `JSON.stringify` by the walk. */
const RUN_UNITS = GATHER_UNITS;
/** A container with more members than this is estimated from as many of them, evenly spread. */
const SAMPLE = 16;
/** The most values {@link estimate} looks at. */
const ESTIMATE_VISITS = 4096;

/**
 * About how many UTF-16 units of JSON text `v` makes (escapes left out),
 * from a sample: of a container with more than {@link SAMPLE} members, as
 * many of them are looked at and taken as typical. -1 when that takes more
 * than {@link ESTIMATE_VISITS} values (deep or irregular nesting, a cycle).
 * Never exact, so it only chooses how a value is written: a value that
 * turns out too long for one `JSON.stringify` is walked after all.
 */
function estimate(v: unknown, keysOf: (o: object) => string[] = Object.keys): number {
  const values: unknown[] = [v];
  const weights: number[] = [1];
  let units = 0;
  let visits = 0;
  while (values.length > 0) {
    if (++visits > ESTIMATE_VISITS) return -1;
    const x = values.pop();
    const w = weights.pop() as number;
    switch (typeof x) {
      case 'string':
        units += w * (x.length + 2);
        break;
      case 'object': {
        if (x === null) {
          units += w * 4;
          break;
        }
        const keys = Array.isArray(x) ? undefined : keysOf(x);
        const n = keys === undefined ? (x as unknown[]).length : keys.length;
        const step = n > SAMPLE ? n / SAMPLE : 1;
        const cw = w * step;
        units += w * (2 + n);
        for (let f = 0; f < n; f += step) {
          const i = Math.floor(f);
          if (keys === undefined) values.push((x as unknown[])[i]);
          else {
            const k = keys[i] as string;
            units += cw * (k.length + 3);
            values.push((x as Record<string, unknown>)[k]);
          }
          weights.push(cw);
        }
        break;
      }
      default:
        units += w * 8;
    }
  }
  return units;
}

/**
 * Write `value` with one `JSON.stringify` when its text is estimated short
 * enough; false when it is not, or `JSON.stringify` cannot write it (a
 * bigint, nesting too deep, longer than a string after all): then it is to
 * be walked.
 * @throws TypeError for a value with no JSON text.
 */
function writeWhole(value: unknown, out: TextPieces, units = estimate(value)): boolean {
  if (units > WHOLE_UNITS || (units < 0 && typeof value === 'object' && value !== null)) {
    return false;
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof TypeError) && !(e instanceof RangeError)) throw e;
    return false;
  }
  if (text === undefined) throw new TypeError(`${typeof value} has no JSON text`);
  out.add(text);
  return true;
}

interface OutFrame {
  readonly node: object;
  /** The keys of an object; undefined for an array. */
  readonly keys: string[] | undefined;
  /** Members. */
  readonly count: number;
  next: number;
  wrote: boolean;
  /**
   * How many members a run takes (a large container's members are taken
   * as alike, from its estimate); 0: each member is estimated.
   */
  readonly runLength: number;
  /** Members before this index are written one by one (a run of them failed). */
  oneByOne: number;
}

/** The value JSON.stringify serializes in place of `v` (toJSON, boxed primitives). */
function prepare(v: unknown, key: string): unknown {
  if ((typeof v === 'object' && v !== null) || typeof v === 'bigint') {
    const toJSON: unknown = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') v = (toJSON as (k: string) => unknown).call(v, key);
  }
  if (typeof v === 'object' && v !== null) {
    if (v instanceof Number) return Number(v);
    if (v instanceof String) return String(v);
    if (v instanceof Boolean || v instanceof BigInt) return v.valueOf();
  }
  return v;
}

function isOmitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/**
 * A member `JSON.stringify` may write within a run of its container's
 * members: not a bigint, and no `toJSON` (which is given the member's key or
 * index: an array's run is a slice, whose indexes differ).
 */
function runnable(v: unknown): boolean {
  if (typeof v === 'bigint') return false;
  return (
    typeof v !== 'object' || v === null || typeof (v as { toJSON?: unknown }).toJSON !== 'function'
  );
}

/** `JSON.stringify(s)` into `out`, in slices when `s` is long (a surrogate pair is never cut). */
function writeString(s: string, out: TextPieces): void {
  if (s.length <= GATHER_UNITS) {
    out.add(JSON.stringify(s));
    return;
  }
  out.add('"');
  for (let at = 0; at < s.length; ) {
    let end = Math.min(s.length, at + GATHER_UNITS);
    const last = s.charCodeAt(end - 1);
    if (end < s.length && last >= 0xd800 && last <= 0xdbff) end--;
    out.add(JSON.stringify(s.slice(at, end)).slice(1, -1));
    at = end;
  }
  out.add('"');
}

/**
 * The exact serializer behind {@link TextPieces.json}, into `out`: the
 * value's containers are walked (iteratively), and runs of members that
 * are short and plain are written together by `JSON.stringify`.
 * @throws TypeError for a cyclic value, or a value with no JSON text.
 */
function writeExact(value: unknown, out: TextPieces): void {
  const root = prepare(value, '');
  if (isOmitted(root)) throw new TypeError(`${typeof value} has no JSON text`);
  const stack: OutFrame[] = [];
  const open = new Set<object>();
  // The keys of the large objects met (listing a large object's keys is what an estimate costs).
  const keyLists = new Map<object, string[]>();
  const keysOf = (o: object): string[] => {
    let keys = keyLists.get(o);
    if (keys === undefined) {
      keys = Object.keys(o);
      if (keys.length > SAMPLE) keyLists.set(o, keys);
    }
    return keys;
  };

  /** Write `v` (prepared): a scalar, or the opening of a container to walk. */
  const write = (v: unknown): void => {
    switch (typeof v) {
      case 'string':
        writeString(v, out);
        return;
      case 'number':
        out.add(Number.isFinite(v) ? String(v) : 'null');
        return;
      case 'bigint':
        out.add(v.toString());
        return;
      case 'boolean':
        out.add(v ? 'true' : 'false');
        return;
      default: {
        if (v === null) {
          out.add('null');
          return;
        }
        const node = v as object;
        if (open.has(node)) throw new TypeError('Converting circular structure to JSON');
        open.add(node);
        const keys = Array.isArray(node) ? undefined : keysOf(node);
        const count = keys === undefined ? (node as unknown[]).length : keys.length;
        let runLength = 0;
        if (count > SAMPLE) {
          const units = estimate(node, keysOf);
          runLength =
            units < 0 ? 1 : Math.max(1, Math.floor(RUN_UNITS / Math.max(1, units / count)));
        }
        out.add(keys === undefined ? '[' : '{');
        stack.push({ node, keys, count, next: 0, wrote: false, runLength, oneByOne: 0 });
      }
    }
  };

  const member = (top: OutFrame, i: number): unknown =>
    top.keys === undefined
      ? (top.node as unknown[])[i]
      : (top.node as Record<string, unknown>)[top.keys[i] as string];

  /**
   * Write the members of `top` from `top.next` on that make a run (see
   * {@link runnable}; together estimated below {@link RUN_UNITS}) with one
   * `JSON.stringify`; false when the next member is to be written alone. A
   * container of one member that is walked at all has a long member.
   */
  const writeRun = (top: OutFrame): boolean => {
    const start = top.next;
    if (top.count === 1 || start < top.oneByOne) return false;
    let end = start;
    if (top.runLength > 0) {
      const limit = Math.min(top.count, start + top.runLength);
      while (end < limit && runnable(member(top, end))) end++;
    } else {
      let units = 0;
      while (end < top.count) {
        const v = member(top, end);
        if (!runnable(v)) break;
        const size = estimate(v, keysOf);
        if (size < 0 || size > RUN_UNITS || (units + size > RUN_UNITS && end > start)) break;
        units += size;
        end++;
      }
    }
    if (end === start) return false;
    let text: string;
    try {
      if (top.keys === undefined) {
        text = JSON.stringify((top.node as unknown[]).slice(start, end));
      } else {
        // Without a prototype: a dictionary from the start, no hidden class for each new key.
        const run = Object.create(null) as Record<string, unknown>;
        for (let i = start; i < end; i++) {
          const k = top.keys[i] as string;
          run[k] = (top.node as Record<string, unknown>)[k];
        }
        text = JSON.stringify(run);
      }
    } catch (e) {
      if (!(e instanceof TypeError) && !(e instanceof RangeError)) throw e;
      // A bigint deeper inside, nesting too deep, or longer than estimated: one by one.
      top.oneByOne = end;
      return false;
    }
    top.next = end;
    const inner = text.slice(1, -1);
    if (inner.length === 0) return true;
    out.add(top.wrote ? `,${inner}` : inner);
    top.wrote = true;
    return true;
  };

  /** Write member `v` of `top` (its comma or key already written): whole when short, else walked. */
  const writeMember = (v: unknown): void => {
    if (
      typeof v === 'object' &&
      v !== null &&
      runnable(v) &&
      writeWhole(v, out, estimate(v, keysOf))
    ) {
      return;
    }
    write(v);
  };

  write(root);
  for (;;) {
    const top = stack[stack.length - 1];
    if (top === undefined) break;
    if (top.next >= top.count) {
      out.add(top.keys === undefined ? ']' : '}');
      stack.pop();
      open.delete(top.node);
      continue;
    }
    if (writeRun(top)) continue;
    const i = top.next++;
    if (top.keys === undefined) {
      if (top.wrote) out.add(',');
      top.wrote = true;
      const v = prepare(member(top, i), String(i));
      if (isOmitted(v)) out.add('null');
      else if (top.count === 1) write(v);
      else writeMember(v);
    } else {
      const key = top.keys[i] as string;
      const v = prepare(member(top, i), key);
      if (isOmitted(v)) continue;
      out.add(top.wrote ? `,${JSON.stringify(key)}:` : `${JSON.stringify(key)}:`);
      top.wrote = true;
      if (top.count === 1) write(v);
      else writeMember(v);
    }
  }
}

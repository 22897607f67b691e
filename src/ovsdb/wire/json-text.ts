/**
 * JSON text in, exact for OVSDB's 64-bit integers (text out is
 * `json-stringify.ts`).
 *
 * `JSON.parse` rounds an integer token beyond ±(2^53−1) to the nearest
 * double. ovnkit holds integers in the canonical int64 form (a
 * safe-integer `number`, or a `bigint` outside ±(2^53−1); see
 * `values/int64.ts`), so {@link parseJsonLossless} parses like
 * `JSON.parse` but gives each integer token its canonical int64;
 * {@link parseJson} uses it only for a text that holds an integer token of
 * 16 digits or more, and `JSON.parse` otherwise. The parser does not
 * recurse: it keeps an explicit stack, so no input can overflow the call
 * stack.
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
 * V8's `JSON.parse` is iterative at any depth, so it is safe for anything
 * within the limit.
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

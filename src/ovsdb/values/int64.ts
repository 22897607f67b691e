/**
 * OVSDB integers are 64-bit (RFC 7047 §5.1). In JS an integer atom is a
 * `number` while it is a safe integer (|v| ≤ 2^53−1) and a `bigint` beyond
 * that, up to the int64 bounds: the **canonical form**. Every decoder
 * produces it, and every value the library holds is in it, so two equal
 * integers are always `===` and the common case costs nothing.
 *
 * A JS `number` that is not a safe integer (`2 ** 53 + 1` is already
 * rounded) is never taken as an integer: pass a `bigint` instead.
 * @module
 */

/** An OVSDB integer: a safe-integer `number`, or a `bigint` outside ±(2^53−1). */
export type Int64 = number | bigint;

/** The smallest int64, −2^63. */
export const INT64_MIN = -(2n ** 63n);
/** The largest int64, 2^63−1. */
export const INT64_MAX = 2n ** 63n - 1n;

const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** True for a value in canonical int64 form: a safe integer, or a bigint in range that is not safe. */
export function isInt64(v: unknown): v is Int64 {
  if (typeof v === 'number') return Number.isSafeInteger(v);
  if (typeof v === 'bigint')
    return v >= INT64_MIN && v <= INT64_MAX && (v < SAFE_MIN || v > SAFE_MAX);
  return false;
}

/**
 * The canonical form of an integer given as a safe-integer number or any
 * bigint; undefined when it is outside int64 (or a number that is not a safe
 * integer).
 */
export function toInt64(v: number | bigint): Int64 | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  if (v < INT64_MIN || v > INT64_MAX) return undefined;
  return v >= SAFE_MIN && v <= SAFE_MAX ? Number(v) : v;
}

/**
 * The canonical int64 of a JSON integer token's text (`-?[0-9]+`), or
 * undefined when it is outside int64.
 */
export function parseInt64(text: string): Int64 | undefined {
  // Up to 15 digits is always safe: the common path never builds a bigint.
  if (text.length <= 15) return Number(text);
  return toInt64(BigInt(text));
}

/** The canonical int64 that `v` (a number or bigint) denotes, as a bigint. */
export function int64BigInt(v: Int64): bigint {
  return typeof v === 'bigint' ? v : BigInt(v);
}

/** Compare two integers in canonical form numerically (numbers and bigints compare as values). */
export function compareInt64(a: Int64, b: Int64): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The operators of {@link int64Arith}: those of OVSDB's integer mutators. */
export type Int64Operator = '+' | '-' | '*' | '/' | '%';

/**
 * OVSDB's integer arithmetic (ovsdb-server's mutators `+= -= *= /= %=`),
 * exact over int64: `'range'` when the result leaves int64 (including
 * `INT64_MIN / -1`), `'domain'` for `/` or `%` by zero. `/` truncates toward
 * zero and `%` takes the dividend's sign, as C does.
 */
export function int64Arith(
  op: Int64Operator,
  a: Int64,
  b: Int64,
): { readonly value: Int64 } | 'range' | 'domain' {
  if ((op === '/' || op === '%') && (b === 0 || b === 0n)) return 'domain';
  if (typeof a === 'number' && typeof b === 'number') {
    let r: number;
    switch (op) {
      case '+':
        r = a + b;
        break;
      case '-':
        r = a - b;
        break;
      case '*':
        r = a * b;
        break;
      case '/':
        r = Math.trunc(a / b);
        break;
      case '%':
        r = a % b;
        break;
    }
    // Safe operands: a safe result is exact (a quotient of safe integers is, once truncated).
    if (Number.isSafeInteger(r)) return { value: r === 0 ? 0 : r };
  }
  const x = int64BigInt(a);
  const y = int64BigInt(b);
  let r: bigint;
  switch (op) {
    case '+':
      r = x + y;
      break;
    case '-':
      r = x - y;
      break;
    case '*':
      r = x * y;
      break;
    case '/':
      r = x / y;
      break;
    case '%':
      r = x % y;
      break;
  }
  const value = toInt64(r);
  return value === undefined ? 'range' : { value };
}

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

/** `mul_int`'s overflow test over bigints (their `/` truncates toward zero, as C's does). */
function mulOverflows(a: bigint, b: bigint): boolean {
  if (a > 0n) return b > 0n ? a >= INT64_MAX / b : b < INT64_MIN / a;
  if (b > 0n) return a < INT64_MIN / b;
  return a !== 0n && b !== 0n && b < INT64_MAX / b;
}

/** Operands below this magnitude multiply exactly as numbers, and ovsdb-server's `*=` never fails on them. */
const SMALL_FACTOR = 2 ** 26;

/**
 * An integer mutator exactly as ovsdb-server 3.1 applies it (`add_int`,
 * `sub_int`, `mul_int`, `div_int`, `mod_int` in ovsdb/mutation.c), which
 * differs from {@link int64Arith} where that code does:
 * - `INT64_MIN % -1` is `'range'` (as `INT64_MIN / -1` is);
 * - `*` takes `mul_int`'s overflow test as written. With both operands
 *   positive it fails when `a >= INT64_MAX / b`, so also for some products
 *   that fit (`INT64_MAX * 1`, `2 * (2^62−1)`); with both non-positive it tests
 *   `b < INT64_MAX / b`, so it fails for any `b < −3037000499` (`−1 * −3037000500`)
 *   and lets products beyond INT64_MAX through, wrapped to 64 bits
 *   (`INT64_MIN * −1` is INT64_MIN, `−2^62 * −2` is INT64_MIN). A negative
 *   `a` times 0 divides by zero in that test and ends ovsdb-server (SIGFPE);
 *   here it is 0.
 */
export function ovsdbIntMutate(
  op: Int64Operator,
  a: Int64,
  b: Int64,
): { readonly value: Int64 } | 'range' | 'domain' {
  switch (op) {
    case '*': {
      if (
        typeof a === 'number' &&
        typeof b === 'number' &&
        Math.abs(a) < SMALL_FACTOR &&
        Math.abs(b) < SMALL_FACTOR
      ) {
        const r = a * b;
        return { value: r === 0 ? 0 : r };
      }
      const x = int64BigInt(a);
      const y = int64BigInt(b);
      if (mulOverflows(x, y)) return 'range';
      return { value: toInt64(BigInt.asIntN(64, x * y)) as Int64 };
    }
    case '%':
      if (b === 0) return 'domain';
      if (a === INT64_MIN && b === -1) return 'range';
      return int64Arith(op, a, b);
    default:
      return int64Arith(op, a, b);
  }
}

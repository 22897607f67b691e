/**
 * Small helpers for JSON values and error text, shared by every layer: type
 * guards for objects, a bounded preview of a value for error messages, the
 * message of a caught value, and an own-property setter that is safe for a
 * `__proto__` key.
 * @module
 */

import { stringifyJson } from './json-stringify.js';

export { setOwn } from './json-text.js';

/** True when `v` is an object that is neither `null` nor an array. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when `v` is a plain object: its prototype is `Object.prototype` or `null` (so not an array). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * `value` as JSON text for an error message (a bigint as its digits), cut to
 * `max` characters (the last three being `...`). Falls back to
 * `String(value)` for what JSON cannot show (`undefined`, functions, cycles).
 */
export function preview(value: unknown, max = 120): string {
  let s: string;
  try {
    s = stringifyJson(value);
  } catch {
    s = String(value);
  }
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

/** The message of a caught value: an `Error`'s message, anything else as a string. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** True when `o` has at least one enumerable property (without listing them all). */
export function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/**
 * Argument checks shared by the DSL operations: ranges, enums, names and
 * string maps, each failing with a typed error that names the field.
 * @module
 */

import { InvalidArgumentError, OutOfRangeError } from './errors.js';

/** The priority range of ACLs, router policies, gateway chassis and HA chassis. */
export const PRIORITY_MIN = 0;
/** The priority range of ACLs, router policies, gateway chassis and HA chassis. */
export const PRIORITY_MAX = 32767;

/**
 * Check that `value` is an integer in `min..max`.
 * @throws OutOfRangeError when it is not.
 */
export function checkIntRange(field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new OutOfRangeError(field, value, min, max);
  }
  return value;
}

/**
 * Check a priority (0..32767).
 * @throws OutOfRangeError when it is out of range.
 */
export function checkPriority(field: string, value: unknown): number {
  return checkIntRange(field, value, PRIORITY_MIN, PRIORITY_MAX);
}

/**
 * Check that `value` is one of `allowed`.
 * @throws InvalidArgumentError when it is not.
 */
export function checkEnum<const E extends string>(
  field: string,
  value: unknown,
  allowed: readonly E[],
): E {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(
      field,
      value,
      `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`,
    );
  }
  return value as E;
}

/**
 * Check a name: a non-empty string.
 * @throws InvalidArgumentError when it is not.
 */
export function checkName(field: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new InvalidArgumentError(field, value, 'must be a non-empty string');
  }
  return value;
}

/**
 * Check a string-to-string map (options, external_ids) and return a plain copy.
 * @throws InvalidArgumentError when a key or value is not a string.
 */
export function checkStringMap(field: string, value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidArgumentError(field, value, 'must be an object of strings');
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') {
      throw new InvalidArgumentError(`${field}:${k}`, v, 'must be a string');
    }
    Object.defineProperty(out, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Check a map whose values may be `null` (a key to remove).
 * @throws InvalidArgumentError when a value is neither a string nor null.
 */
export function checkMapPatch(field: string, value: unknown): Record<string, string | null> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidArgumentError(
      field,
      value,
      'must be an object of strings (or null to remove a key)',
    );
  }
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (typeof v !== 'string' && v !== null) {
      throw new InvalidArgumentError(
        `${field}:${k}`,
        v,
        'must be a string, or null to remove the key',
      );
    }
    Object.defineProperty(out, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Check a list of strings.
 * @throws InvalidArgumentError when it is not one.
 */
export function checkStringList(field: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new InvalidArgumentError(field, value, 'must be a list of strings');
  }
  return [...value] as string[];
}

/** Remove `undefined` members (for `exactOptionalPropertyTypes` rows). */
export function defined<T extends object>(obj: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]: Exclude<T[K], undefined> };
}

/**
 * Operation handles: what `update`, `mutate`, `delete` and `select` return
 * while a transaction is being built, and {@link Resolved}, the type of a
 * callback's return value once the transaction has run.
 * @module
 */

import { isPlainObject } from '../ovsdb/wire/json.js';

declare const valueType: unique symbol;

/**
 * The future result of one operation of a transaction being built. Return it
 * (alone, or inside an object or array) from the transaction callback, and
 * the transaction's `value` holds the result in its place:
 *
 * ```ts
 * const { value } = await db.transact((tx) => ({
 *   ports: tx.select('Logical_Switch_Port', [['up', '==', true]], ['name']),
 *   renamed: tx.update('Logical_Switch', sw._uuid, { name: 'sw1' }),
 * }));
 * value.ports;   // { name: string }[]
 * value.renamed; // number of rows updated
 * ```
 *
 * @typeParam V - the result: the row count of `update`, `mutate` and
 *   `delete`, the rows of `select`.
 */
export class OperationHandle<V> {
  /** Type-level only: the result type. */
  declare readonly [valueType]: V;

  /** @internal Use the transaction builder's methods. */
  constructor(
    /** The operation's index in the transaction (0-based). */
    readonly index: number,
    /** The operation's `op`, e.g. `select`. */
    readonly op: string,
    /** The operation's table. */
    readonly table: string,
    /** @internal Turns the operation's wire result into `V`. */
    readonly decode: (result: Readonly<Record<string, unknown>>) => V,
  ) {
    Object.freeze(this);
  }
}

/**
 * The type of a transaction callback's return value `R` once the transaction
 * committed: every {@link OperationHandle} (at any depth of arrays and plain
 * objects) replaced by its result. Refs and other values stay as they are.
 */
export type Resolved<R> =
  R extends OperationHandle<infer V>
    ? V
    : R extends string | number | boolean | bigint | symbol | null | undefined
      ? R
      : R extends (...args: never[]) => unknown
        ? R
        : R extends readonly unknown[]
          ? { -readonly [K in keyof R]: Resolved<R[K]> }
          : R extends object
            ? { -readonly [K in keyof R]: Resolved<R[K]> }
            : R;

/** True when `value` holds an {@link OperationHandle} anywhere in its arrays and plain objects. */
export function containsHandle(value: unknown): boolean {
  if (value instanceof OperationHandle) return true;
  if (Array.isArray(value)) return value.some(containsHandle);
  if (isPlainObject(value)) return Object.values(value).some(containsHandle);
  return false;
}

/**
 * Replace every {@link OperationHandle} in `value` (at any depth of arrays
 * and plain objects) by `lookup(handle)`. Other values are returned as they
 * are; containers without handles are returned unchanged, not copied.
 */
export function resolveHandles<R>(
  value: R,
  lookup: (h: OperationHandle<unknown>) => unknown,
): Resolved<R> {
  if (typeof value !== 'object' || value === null) return value as Resolved<R>;
  return walk(value, lookup) as Resolved<R>;
}

function walk(value: unknown, lookup: (h: OperationHandle<unknown>) => unknown): unknown {
  if (value instanceof OperationHandle) return lookup(value);
  if (Array.isArray(value)) {
    if (!value.some(containsHandle)) return value;
    return value.map((v) => walk(v, lookup));
  }
  if (isPlainObject(value)) {
    if (!containsHandle(value)) return value;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) {
      const v = walk(value[k], lookup);
      if (k === '__proto__') {
        Object.defineProperty(out, k, {
          value: v,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else out[k] = v;
    }
    return out;
  }
  return value;
}

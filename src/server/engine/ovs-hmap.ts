/**
 * The iteration order of ovsdb-server's generic hash maps (`hmap`) keyed by a
 * JSON value, e.g. a session's monitors by monitor id. When a transaction
 * causes updates for several monitors of one session, ovsdb-server sends
 * them in this order.
 *
 * The map is reproduced node for node ({@link HmapBuckets}). The hash is OVS's `json_hash(value, 0)` (Murmur-based
 * `hash_string`, `hash_int` from `ovs-hash.ts`).
 * @module
 */

import { compareStrings } from '../../ovsdb/values/order.js';
import { HmapBuckets, hashInt, hashString } from './ovs-hash.js';

/**
 * OVS's `json_hash(value, basis)`, or undefined for values it cannot
 * reproduce (reals, and numbers that are not safe integers). Iterative (the
 * hash folds over the values in pre-order), so an id of any depth is safe.
 */
export function jsonHash(v: unknown, basis = 0): number | undefined {
  if (typeof v !== 'object' || v === null) return scalarHash(v, basis);
  const stack: { readonly node: object; readonly keys: string[] | undefined; next: number }[] = [];
  let h = basis;
  let cur: unknown = v;
  for (;;) {
    if (Array.isArray(cur)) {
      h = hashInt(cur.length, h);
      stack.push({ node: cur, keys: undefined, next: 0 });
    } else if (typeof cur === 'object' && cur !== null) {
      stack.push({ node: cur, keys: Object.keys(cur).sort(compareStrings), next: 0 });
    } else {
      const x = scalarHash(cur, h);
      if (x === undefined) return undefined;
      h = x;
    }
    // The next value in pre-order: an object's member name is hashed before its value.
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) return h;
      if (top.keys === undefined) {
        const a = top.node as unknown[];
        if (top.next < a.length) {
          cur = a[top.next++];
          break;
        }
      } else if (top.next < top.keys.length) {
        const k = top.keys[top.next++] as string;
        h = hashString(k, h);
        cur = (top.node as Record<string, unknown>)[k];
        break;
      }
      stack.pop();
    }
  }
}

/** {@link jsonHash} of a value that is not an array or object. */
function scalarHash(v: unknown, basis: number): number | undefined {
  if (typeof v === 'string') return hashString(v, basis);
  // JSON_NULL, JSON_FALSE and JSON_TRUE are 0, 1 and 2 in OVS's enum json_type.
  if (v === null) return hashInt(0, basis);
  if (v === false) return hashInt(1 << 8, basis);
  if (v === true) return hashInt(2 << 8, basis);
  // JSON_INTEGER hashes as hash_int(integer, basis): the int64 cut to its low 32 bits.
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) return undefined;
    return hashInt(v, basis);
  }
  if (typeof v === 'bigint') return hashInt(Number(BigInt.asUintN(32, v)), basis);
  return undefined;
}

/**
 * A set of values iterated in the order of an OVS `hmap` holding them.
 * Values whose key has no reproducible hash come after the others, in
 * insertion order.
 */
export class OvsHmapOrder<T> {
  private readonly buckets = new HmapBuckets<T>();
  private readonly unhashed: T[] = [];

  /** Insert `value` under JSON key `key`. */
  insert(key: unknown, value: T): void {
    const hash = jsonHash(key);
    if (hash === undefined) this.unhashed.push(value);
    else this.buckets.insert(hash, value);
  }

  /** Remove `value`. */
  remove(value: T): void {
    const i = this.unhashed.indexOf(value);
    if (i >= 0) this.unhashed.splice(i, 1);
    else this.buckets.remove(value);
  }

  /** The values in iteration order. */
  values(): T[] {
    return [...this.buckets.values(), ...this.unhashed];
  }
}

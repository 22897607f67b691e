/**
 * The iteration order of ovsdb-server's generic hash maps (`hmap`) keyed by a
 * JSON value, e.g. a session's monitors by monitor id. When a transaction
 * causes updates for several monitors of one session, ovsdb-server sends
 * them in this order.
 *
 * The map is reproduced node for node: a node is inserted at the head of
 * bucket `hash & mask`; the bucket array doubles (re-inserting bucket by
 * bucket) once the map holds more than two nodes per bucket; removal never
 * shrinks it. The hash is OVS's `json_hash(value, 0)` (Murmur-based
 * `hash_string`, `hash_int`).
 * @module
 */

const encoder = new TextEncoder();

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

function mhashAdd(hash: number, data: number): number {
  let h = hash >>> 0;
  if (data !== 0) {
    let d = Math.imul(data, 0xcc9e2d51) >>> 0;
    d = rotl(d, 15);
    d = Math.imul(d, 0x1b873593) >>> 0;
    h = (h ^ d) >>> 0;
  }
  h = rotl(h, 13);
  return (Math.imul(h, 5) + 0xe6546b64) >>> 0;
}

function mhashFinish(hash: number): number {
  let h = hash >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h = (h ^ (h >>> 13)) >>> 0;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  return h;
}

/** OVS's `hash_string(s, basis)`. */
export function hashString(s: string, basis: number): number {
  const b = encoder.encode(s);
  let hash = basis >>> 0;
  let i = 0;
  for (; i + 4 <= b.length; i += 4) {
    const word =
      ((b[i] as number) |
        ((b[i + 1] as number) << 8) |
        ((b[i + 2] as number) << 16) |
        ((b[i + 3] as number) << 24)) >>>
      0;
    hash = mhashAdd(hash, word);
  }
  if (i < b.length) {
    let tmp = 0;
    for (let j = 0; i + j < b.length; j++) tmp |= (b[i + j] as number) << (8 * j);
    hash = mhashAdd(hash, tmp >>> 0);
  }
  return mhashFinish((hash ^ b.length) >>> 0);
}

/** OVS's `hash_int(x, basis)` (`hash_2words`). */
export function hashInt(x: number, basis: number): number {
  return mhashFinish((mhashAdd(mhashAdd(x >>> 0, 0), basis >>> 0) ^ 8) >>> 0);
}

/**
 * OVS's `json_hash(value, basis)`, or undefined for values it cannot
 * reproduce (non-integer numbers, integers beyond 32 bits).
 */
export function jsonHash(v: unknown, basis = 0): number | undefined {
  if (typeof v === 'string') return hashString(v, basis);
  // JSON_NULL, JSON_FALSE and JSON_TRUE are 0, 1 and 2 in OVS's enum json_type.
  if (v === null) return hashInt(0, basis);
  if (v === false) return hashInt(1 << 8, basis);
  if (v === true) return hashInt(2 << 8, basis);
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || Math.abs(v) > 0xffffffff) return undefined;
    return hashInt(v, basis);
  }
  if (Array.isArray(v)) {
    let h: number | undefined = hashInt(v.length, basis);
    for (const e of v) {
      h = jsonHash(e, h);
      if (h === undefined) return undefined;
    }
    return h;
  }
  if (typeof v === 'object') {
    let h: number | undefined = basis;
    const obj = v as Record<string, unknown>;
    for (const k of Object.keys(obj).sort()) {
      h = jsonHash(obj[k], hashString(k, h));
      if (h === undefined) return undefined;
    }
    return h;
  }
  return undefined;
}

function calcMask(capacity: number): number {
  let mask = Math.floor(capacity / 2);
  mask |= mask >>> 1;
  mask |= mask >>> 2;
  mask |= mask >>> 4;
  mask |= mask >>> 8;
  mask |= mask >>> 16;
  mask |= (mask & 1) << 1;
  return mask;
}

interface Node<T> {
  readonly hash: number;
  readonly value: T;
}

/**
 * A set of values iterated in the order of an OVS `hmap` holding them.
 * Values whose key has no reproducible hash come after the others, in
 * insertion order.
 */
export class OvsHmapOrder<T> {
  private buckets: Node<T>[][] = [[]];
  private mask = 0;
  private n = 0;
  private readonly unhashed: T[] = [];

  /** Insert `value` under JSON key `key`. */
  insert(key: unknown, value: T): void {
    const hash = jsonHash(key);
    if (hash === undefined) {
      this.unhashed.push(value);
      return;
    }
    (this.buckets[(hash & this.mask) >>> 0] as Node<T>[]).unshift({ hash, value });
    this.n++;
    if (Math.floor(this.n / 2) > this.mask) {
      const newMask = calcMask(this.n);
      if (newMask > this.mask) {
        const next: Node<T>[][] = Array.from({ length: newMask + 1 }, () => []);
        for (const bucket of this.buckets) {
          for (const nd of bucket) (next[(nd.hash & newMask) >>> 0] as Node<T>[]).unshift(nd);
        }
        this.buckets = next;
        this.mask = newMask;
      }
    }
  }

  /** Remove `value`. */
  remove(value: T): void {
    const i = this.unhashed.indexOf(value);
    if (i >= 0) {
      this.unhashed.splice(i, 1);
      return;
    }
    for (const bucket of this.buckets) {
      const j = bucket.findIndex((nd) => nd.value === value);
      if (j >= 0) {
        bucket.splice(j, 1);
        this.n--;
        return;
      }
    }
  }

  /** The values in iteration order. */
  values(): T[] {
    const out: T[] = [];
    for (const bucket of this.buckets) for (const nd of bucket) out.push(nd.value);
    out.push(...this.unhashed);
    return out;
  }
}

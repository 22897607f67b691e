/**
 * The iteration order of ovsdb-server's string-keyed hash tables (`shash`).
 *
 * Several observable details of a `transact` reply follow that order: which of
 * several unknown members an error names, which column of a row is parsed (and
 * so reported) first, which row an index-conflict message calls "First". The
 * order is a pure function of the names and their insertion order: OVS hashes
 * a name with its Murmur-based `hash_string(name, 0)`, inserts it at the head
 * of bucket `hash & mask`, and doubles the bucket array (re-inserting bucket by
 * bucket) whenever the table holds more than two entries per bucket.
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

/** Hashes of names seen recently (column and member names repeat endlessly). */
const hashCache = new Map<string, number>();
const HASH_CACHE_LIMIT = 4096;

/** OVS's `hash_string(s, 0)` (little-endian, generic build). */
export function ovsHashString(s: string): number {
  let h = hashCache.get(s);
  if (h === undefined) {
    h = hashString(s, 0);
    if (hashCache.size >= HASH_CACHE_LIMIT) hashCache.clear();
    hashCache.set(s, h);
  }
  return h;
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
 * The buckets of an OVS `hmap`, node for node: a node is inserted at the
 * head of bucket `hash & mask`; the bucket array doubles (re-inserting bucket
 * by bucket) once the map holds more than two nodes per bucket; removal never
 * shrinks it. {@link HmapBuckets.values} is the map's iteration order.
 */
export class HmapBuckets<T> {
  private buckets: Node<T>[][] = [[]];
  private mask = 0;
  private n = 0;

  /** Insert `value` with hash `hash`. */
  insert(hash: number, value: T): void {
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

  /** Remove `value`; false when it is not in the map. */
  remove(value: T): boolean {
    for (const bucket of this.buckets) {
      const j = bucket.findIndex((nd) => nd.value === value);
      if (j >= 0) {
        bucket.splice(j, 1);
        this.n--;
        return true;
      }
    }
    return false;
  }

  /** The values in iteration order. */
  values(): T[] {
    const out: T[] = [];
    for (const bucket of this.buckets) for (const nd of bucket) out.push(nd.value);
    return out;
  }
}

/**
 * The order in which an OVS `shash` built by inserting `names` in the given
 * order iterates them. Duplicate names keep their first position.
 */
export function shashOrder(names: readonly string[]): string[] {
  if (names.length <= 1) return [...names];
  // Long lists (the row UUIDs of an update) seldom repeat: not worth a cache key.
  if (names.length > 64) return computeShashOrder(names);
  const key = JSON.stringify(names);
  let order = orderCache.get(key);
  if (order === undefined) {
    order = computeShashOrder(names);
    if (orderCache.size >= ORDER_CACHE_LIMIT) orderCache.clear();
    orderCache.set(key, order);
  }
  return [...order];
}

/** Orders of name lists seen recently (a row object's members repeat from row to row). */
const orderCache = new Map<string, readonly string[]>();
const ORDER_CACHE_LIMIT = 1024;

function computeShashOrder(names: readonly string[]): string[] {
  const map = new HmapBuckets<string>();
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) continue;
    seen.add(name);
    map.insert(ovsHashString(name), name);
  }
  return map.values();
}

const STANDARD_COLUMNS = ['_uuid', '_version'];

/**
 * Schemas read from a database file (the schema record `ovsdb-tool create`
 * or a compaction wrote), as opposed to a schema document (`.ovsschema`).
 */
const storedSchemas = new WeakSet<object>();

/**
 * Mark `schema` as read from a database file: its tables and columns are in
 * the order of the stored record, which ovsdb-server parses directly, so
 * {@link serverColumnOrder} and {@link serverTableOrder} start the chain
 * there rather than at `ovsdb-tool create`. Returns `schema`.
 */
export function markStoredSchema<T extends object>(schema: T): T {
  storedSchemas.add(schema);
  return schema;
}

/** Whether {@link markStoredSchema} marked `schema`. */
export function isStoredSchema(schema: object): boolean {
  return storedSchemas.has(schema);
}

/**
 * The order in which `ovsdb-tool create` iterates a table's columns (`_uuid`
 * and `_version` included), given the column names in the order of the
 * schema document it read: the standard columns, then the document's
 * columns as its JSON object iterates them.
 */
export function toolColumnOrder(fileOrder: readonly string[]): string[] {
  return shashOrder([...STANDARD_COLUMNS, ...shashOrder(fileOrder)]);
}

/**
 * The order in which ovsdb-server iterates a table's columns (`_uuid` and
 * `_version` included), given the column names in the order of the schema
 * document that `ovsdb-tool create` read (or, with `stored`, in the order of
 * the database file's schema record). The chain follows the schema through
 * `ovsdb-tool` (which stores it re-serialized in hash order) into the server.
 */
export function serverColumnOrder(fileOrder: readonly string[], stored = false): string[] {
  const record = stored ? fileOrder : serverObjectOrder(toolColumnOrder(fileOrder));
  return shashOrder([...STANDARD_COLUMNS, ...shashOrder(record)]);
}

/**
 * The order in which ovsdb-server creates a table's columns (their index
 * order: `_uuid`, `_version`, then the columns of the database file's schema
 * record as its JSON object iterates them). A monitor puts a row's members
 * into its JSON object in this order.
 */
export function serverColumnIndexOrder(fileOrder: readonly string[], stored = false): string[] {
  const record = stored ? fileOrder : serverObjectOrder(toolColumnOrder(fileOrder));
  return [...STANDARD_COLUMNS, ...shashOrder(record)];
}

/**
 * The order in which `ovsdb-tool create` iterates a database's tables, given
 * their order in the schema document: the document's JSON object, then the
 * schema's own table map.
 */
export function toolTableOrder(fileOrder: readonly string[]): string[] {
  return shashOrder(shashOrder(fileOrder));
}

/**
 * The order in which ovsdb-server iterates a database's tables, given their
 * order in the schema document that `ovsdb-tool create` read (or, with
 * `stored`, in the database file's schema record): the same chain as
 * {@link serverColumnOrder}, without the standard columns.
 */
export function serverTableOrder(fileOrder: readonly string[], stored = false): string[] {
  const record = stored ? fileOrder : shashOrder(toolTableOrder(fileOrder));
  return shashOrder(shashOrder(record));
}

/**
 * The order of the members of a JSON object that ovsdb-server builds by
 * inserting `names` in iteration order and writes without sorting (as in
 * `get_schema`), standard columns left out.
 */
export function serverObjectOrder(names: readonly string[]): string[] {
  return shashOrder(names.filter((n) => !STANDARD_COLUMNS.includes(n)));
}

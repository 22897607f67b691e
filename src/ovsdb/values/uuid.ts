declare const uuidBrand: unique symbol;

/**
 * A row UUID as it appears in JS: the canonical 36-character lower-case string,
 * branded with the name of the table the row lives in.
 *
 * The brand exists only at the type level, so `Uuid<'ACL'>` is a plain string at
 * run time, but a `Uuid<'ACL'>` is not assignable to `Uuid<'Logical_Switch_Port'>`.
 * `Uuid` (that is, `Uuid<string>`) accepts a UUID of any table.
 *
 * @typeParam T - the name of the table the row belongs to.
 */
export type Uuid<T extends string = string> = string & { readonly [uuidBrand]: T };

/** The all-zero UUID, used by `monitor_cond_since` when a client has no last transaction id. */
export const ZERO_UUID = '00000000-0000-0000-0000-000000000000' as Uuid<never>;

/**
 * A whole UUID whose hex digits are of class `hex`, with each repeated class
 * written out (`^[0-9a-f][0-9a-f]…-…$` rather than `^[0-9a-f]{8}-…$`): the
 * same match, which the regexp engine checks about 40% faster (every UUID of
 * a record is checked when a database file is read).
 */
function uuidPattern(hex: string): RegExp {
  return new RegExp(`^${[8, 4, 4, 4, 12].map((n) => hex.repeat(n)).join('-')}$`);
}

/** `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`. */
const UUID_RE = uuidPattern('[0-9a-fA-F]');

/** True when `s` is a UUID in the RFC 4122 textual form OVSDB uses. */
export function isUuid(s: unknown): s is Uuid {
  return typeof s === 'string' && s.length === 36 && UUID_RE.test(s);
}

/** {@link UUID_RE} with lower-case hex digits only. */
const CANONICAL_UUID_RE = uuidPattern('[0-9a-f]');

/**
 * True when `s` is a UUID in its canonical form, lower-case, as ovsdb-server
 * writes every UUID (a row key, a `["uuid", …]` atom): the check of every
 * UUID a client decodes from the server.
 */
export function isCanonicalUuid(s: string): boolean {
  return s.length === 36 && CANONICAL_UUID_RE.test(s);
}

/**
 * Brand a string as a UUID of table `T`, after checking its syntax.
 * @throws TypeError when `s` is not a UUID.
 */
export function asUuid<T extends string = string>(s: string): Uuid<T> {
  if (!isUuid(s)) throw new TypeError(`not a UUID: ${JSON.stringify(s)}`);
  return s.toLowerCase() as Uuid<T>;
}

/** UUIDs made from one draw of random bytes. */
const BATCH = 64;
/** Random bytes for the next UUIDs, 16 each. */
const random = new Uint8Array(16 * BATCH);
/** The next UUID's bytes in {@link random} (`BATCH`: draw again). */
let nextRandom = BATCH;
/** The character codes of the lower-case hex digits. */
const HEX = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/**
 * A fresh random (version 4) UUID for table `T`, e.g. for client-chosen insert UUIDs.
 *
 * Made from the platform's cryptographic random bytes (`crypto.getRandomValues`,
 * drawn for 64 UUIDs at a time) in one `String.fromCharCode`, so the string
 * is flat: `crypto.randomUUID` in Node builds it from some twenty pieces,
 * which cost a copy the first time it is hashed or compared, and memory
 * until then.
 */
export function newUuid<T extends string = string>(): Uuid<T> {
  if (nextRandom === BATCH) {
    globalThis.crypto.getRandomValues(random);
    nextRandom = 0;
  }
  const r = random;
  const b = 16 * nextRandom++;
  const h = HEX;
  // Version 4 (byte 6's high nibble), RFC 4122 variant (byte 8's two high bits 10).
  // Written out, without a helper to call per digit: this runs for every
  // inserted row, often before the engine has optimized it.
  const w = ((r[b + 8] as number) & 0x3f) | 0x80;
  return String.fromCharCode(
    h[(r[b] as number) >> 4] as number,
    h[(r[b] as number) & 15] as number,
    h[(r[b + 1] as number) >> 4] as number,
    h[(r[b + 1] as number) & 15] as number,
    h[(r[b + 2] as number) >> 4] as number,
    h[(r[b + 2] as number) & 15] as number,
    h[(r[b + 3] as number) >> 4] as number,
    h[(r[b + 3] as number) & 15] as number,
    0x2d,
    h[(r[b + 4] as number) >> 4] as number,
    h[(r[b + 4] as number) & 15] as number,
    h[(r[b + 5] as number) >> 4] as number,
    h[(r[b + 5] as number) & 15] as number,
    0x2d,
    0x34,
    h[(r[b + 6] as number) & 15] as number,
    h[(r[b + 7] as number) >> 4] as number,
    h[(r[b + 7] as number) & 15] as number,
    0x2d,
    h[w >> 4] as number,
    h[w & 15] as number,
    h[(r[b + 9] as number) >> 4] as number,
    h[(r[b + 9] as number) & 15] as number,
    0x2d,
    h[(r[b + 10] as number) >> 4] as number,
    h[(r[b + 10] as number) & 15] as number,
    h[(r[b + 11] as number) >> 4] as number,
    h[(r[b + 11] as number) & 15] as number,
    h[(r[b + 12] as number) >> 4] as number,
    h[(r[b + 12] as number) & 15] as number,
    h[(r[b + 13] as number) >> 4] as number,
    h[(r[b + 13] as number) & 15] as number,
    h[(r[b + 14] as number) >> 4] as number,
    h[(r[b + 14] as number) & 15] as number,
    h[(r[b + 15] as number) >> 4] as number,
    h[(r[b + 15] as number) & 15] as number,
  ) as Uuid<T>;
}

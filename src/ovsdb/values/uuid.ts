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
  const v = (r[b + 6] as number) & 0x0f;
  const w = ((r[b + 8] as number) & 0x3f) | 0x80;
  const x = (i: number): number => h[(r[b + i] as number) >> 4] as number;
  const y = (i: number): number => h[(r[b + i] as number) & 15] as number;
  return String.fromCharCode(
    x(0),
    y(0),
    x(1),
    y(1),
    x(2),
    y(2),
    x(3),
    y(3),
    0x2d,
    x(4),
    y(4),
    x(5),
    y(5),
    0x2d,
    0x34,
    h[v] as number,
    x(7),
    y(7),
    0x2d,
    h[w >> 4] as number,
    h[w & 15] as number,
    x(9),
    y(9),
    0x2d,
    x(10),
    y(10),
    x(11),
    y(11),
    x(12),
    y(12),
    x(13),
    y(13),
    x(14),
    y(14),
    x(15),
    y(15),
  ) as Uuid<T>;
}

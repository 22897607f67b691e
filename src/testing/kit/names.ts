/**
 * Row names of the test kit: the names a seed gives its rows, the UUIDs
 * they stand for, and deterministic UUIDs made from names.
 *
 * Every seeded database registers its names here while it is open, so that
 * a failure message can call a row by its seed name whichever view of the
 * database is checked (the server's tables or a client's replica).
 * @module
 */

import { createHash } from 'node:crypto';

/** A seeded row's name: its table and the name the seed gave it. */
export interface RowName {
  readonly table: string;
  readonly name: string;
}

/** The names of one seeded database: table → name → UUID, and back. */
export class NameBook {
  private readonly byTable = new Map<string, Map<string, string>>();
  private readonly byUuid = new Map<string, RowName>();

  /** Record that `name` in `table` is row `uuid`. */
  add(table: string, name: string, uuid: string): void {
    let names = this.byTable.get(table);
    if (names === undefined) {
      names = new Map();
      this.byTable.set(table, names);
    }
    names.set(name, uuid);
    this.byUuid.set(uuid, { table, name });
  }

  /** The UUID of row `name` of `table`, if the seed declared it. */
  uuid(table: string, name: string): string | undefined {
    return this.byTable.get(table)?.get(name);
  }

  /** The names declared for `table`. */
  names(table: string): ReadonlyMap<string, string> {
    return this.byTable.get(table) ?? new Map();
  }

  /** Every (UUID, name) pair. */
  entries(): IterableIterator<[string, RowName]> {
    return this.byUuid.entries();
  }
}

/** The names of every open seeded database, by UUID. */
const registry = new Map<string, RowName>();

/** Make the names of `book` known to failure messages (until {@link forgetNames}). */
export function registerNames(book: NameBook): void {
  for (const [uuid, name] of book.entries()) registry.set(uuid, name);
}

/** Forget the names of `book` (its database closed). */
export function forgetNames(book: NameBook): void {
  for (const [uuid, name] of book.entries()) {
    if (registry.get(uuid) === name) registry.delete(uuid);
  }
}

/** The seed name of row `uuid` of `table` in any open seeded database. */
export function seedNameOf(table: string, uuid: string): string | undefined {
  const n = registry.get(uuid);
  return n !== undefined && n.table === table ? n.name : undefined;
}

/** The seed name of row `uuid` (of any table) in any open seeded database. */
export function registeredName(uuid: string): string | undefined {
  return registry.get(uuid)?.name;
}

/**
 * A UUID made from a name (SHA-1 of `database/table/name`, in the layout of
 * an RFC 4122 version 5 UUID): the same name gives the same UUID in every
 * run, so dumps and snapshots of seeded rows are stable.
 */
export function nameUuid(database: string, table: string, name: string): string {
  const h = createHash('sha1').update(`${database}/${table}/${name}`).digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x50;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * The indexes a {@link TransactionView} keeps over its own changes, so that
 * its index reads (`lookup`, `byIndex`) see the transaction's inserts,
 * updates and deletes without scanning a table: the replica's index answers
 * for the rows the transaction did not touch, an {@link OverlayIndex} for
 * those it did.
 * @module
 */

import { toInt64 } from '../ovsdb/values/int64.js';
import type { Rec } from './view-rows.js';

/** An index key in canonical form: a bigint that is a safe integer becomes its number. */
export function canonicalKey(v: unknown): unknown {
  return typeof v === 'bigint' ? (toInt64(v) ?? v) : v;
}

/**
 * Key → UUIDs of the rows a transaction changed (inserted, updated, or
 * deleted: a deleted row has no keys). Kept up to date as the transaction's
 * overlay changes.
 */
export class OverlayIndex {
  private readonly byKey = new Map<unknown, Set<string>>();
  private readonly keysOf = new Map<string, readonly unknown[]>();

  /** @param keys - the keys a row is indexed under. */
  constructor(private readonly keys: (row: Rec) => readonly unknown[]) {}

  /** Index `row` (null: deleted) as the overlay's row `uuid`. */
  set(uuid: string, row: Rec | null): void {
    for (const k of this.keysOf.get(uuid) ?? []) {
      const s = this.byKey.get(k);
      s?.delete(uuid);
      if (s?.size === 0) this.byKey.delete(k);
    }
    if (row === null) {
      this.keysOf.delete(uuid);
      return;
    }
    const keys = this.keys(row).map(canonicalKey);
    this.keysOf.set(uuid, keys);
    for (const k of keys) {
      let s = this.byKey.get(k);
      if (s === undefined) {
        s = new Set();
        this.byKey.set(k, s);
      }
      s.add(uuid);
    }
  }

  /** The UUIDs of the changed rows indexed under `key`. */
  get(key: unknown): Iterable<string> {
    return this.byKey.get(canonicalKey(key)) ?? [];
  }
}

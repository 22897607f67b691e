/**
 * The bounded transaction history of one database, for `monitor_cond_since`.
 *
 * Every transaction that changes the database gets a transaction id (a
 * UUID). The history keeps the changes of the most recent ones (100 by
 * default, the limit ovsdb-server uses), so that a client that reconnects
 * with the id of the last transaction it saw is sent only what it missed
 * (`found: true`). An id older than the history, or unknown, means a full
 * dump (`found: false`).
 *
 * Unlike a standalone ovsdb-server, which keeps no history at all (only
 * clustered databases do), every database served here has one. A database
 * kept in a file takes its ids from the file's records, so that the history
 * is rebuilt with the same ids when the file is read again after a restart
 * (see `storage/db-file.ts`).
 * @module
 */

import { newUuid, ZERO_UUID } from '../../ovsdb/values/uuid.js';
import type { TxnChanges } from '../engine/executor.js';

/** One committed transaction: its id and its changes. */
export interface HistoryEntry {
  readonly id: string;
  readonly changes: TxnChanges;
}

/** The most recent committed transactions of a database. */
export class TxnHistory {
  private readonly entries: HistoryEntry[] = [];

  /** @param capacity - how many transactions to keep (0 keeps none: ids stay all-zero). */
  constructor(readonly capacity: number) {}

  /** The id of the last committed transaction, or the all-zero UUID when there is none. */
  get lastId(): string {
    return this.entries[this.entries.length - 1]?.id ?? ZERO_UUID;
  }

  /** How many transactions are kept. */
  get size(): number {
    return this.entries.length;
  }

  /**
   * Record a committed transaction; returns its id: `id` when given (a
   * database file's, see `storage/db-file.ts`), else a new random one; all
   * zeros when the capacity is 0.
   */
  add(changes: TxnChanges, id?: string): string {
    if (this.capacity <= 0) return ZERO_UUID;
    id ??= newUuid();
    this.entries.push({ id, changes });
    if (this.entries.length > this.capacity) {
      this.entries.splice(0, this.entries.length - this.capacity);
    }
    return id;
  }

  /**
   * The transactions committed after transaction `id`, oldest first: empty
   * when `id` is the last one, `undefined` when `id` is not in the history.
   */
  since(id: string): readonly HistoryEntry[] | undefined {
    const key = id.toLowerCase();
    for (let i = this.entries.length - 1; i >= 0; i--) {
      if ((this.entries[i] as HistoryEntry).id === key) return this.entries.slice(i + 1);
    }
    return undefined;
  }

  /**
   * Start from `entries` (oldest first, the transactions a database file's
   * replay rebuilt), forgetting what was kept; only the newest that fit
   * are kept.
   */
  seed(entries: readonly HistoryEntry[]): void {
    this.entries.length = 0;
    if (this.capacity <= 0) return;
    this.entries.push(...entries.slice(Math.max(0, entries.length - this.capacity)));
  }

  /** Forget every transaction. */
  clear(): void {
    this.entries.length = 0;
  }
}

/**
 * The database files of one server: each served database kept in a file
 * has its {@link DbStorage} here, by database name. A commit's record is
 * queued before the commit changes anything ({@link DatabaseFiles.record}),
 * the queued records are written before any byte leaves the server and soon
 * in any case ({@link DatabaseFiles.persist}), and the files are compacted
 * by ovsdb-server's rule (see `db-file.ts`).
 *
 * ## The server's files
 * A database served from a file ({@link CreateServerOptions.dbFiles},
 * {@link CreateServerOptions.dbFile}) is kept in ovsdb-server's standalone
 * format (see `db-file.ts`): every commit appends its record, and
 * the records of the commits so far are written before any byte leaves
 * the server (gathered into one write per batch of pipelined requests),
 * flushed to disk first when a commit was `durable`. The file is compacted
 * as ovsdb-server compacts it, and on demand ({@link OvsdbServer.compact}).
 * @module
 */

import type { DatabaseSchema } from '../../ovsdb/schema/schema-types.js';
import { OpError } from '../engine/op-error.js';
import type { TxnChanges } from '../engine/types.js';
import type { Served } from '../registry.js';
import type { LogLevel } from '../rpc/server-log.js';
import { type CompactionOptions, DbStorage } from './db-file.js';

/** What {@link DatabaseFiles} needs of the server that keeps them. */
export interface DatabaseFilesHost {
  /** How files are written (the server's `storage` option). */
  readonly storage:
    | { readonly columnDiff?: boolean | undefined; readonly compaction?: CompactionOptions | false }
    | undefined;
  /** How many transactions each database keeps for `monitor_cond_since`. */
  readonly historyLength: number;
  /** Write one line to the server's log. */
  log(module: string, level: LogLevel, text: string): void;
  /** Whether the server is closing (nothing more is scheduled then). */
  closing(): boolean;
  /** A file could not be written: the server stops. */
  fail(e: Error): void;
}

/** The database files of a server, by database name. */
export class DatabaseFiles {
  /** The files of the databases kept in one, by database name. */
  readonly storages = new Map<string, DbStorage>();
  /** Whether a storage has records waiting. */
  private dirty = false;
  private flushScheduled = false;

  constructor(private readonly host: DatabaseFilesHost) {}

  /** Open the database file `path` (created from `schema` when missing). */
  open(path: string, schema: DatabaseSchema | undefined): DbStorage {
    return DbStorage.open(path, {
      schema,
      columnDiff: this.host.storage?.columnDiff,
      compaction: this.host.storage?.compaction,
      history: this.host.historyLength,
      log: (module, level, text) => this.host.log(module, level, text),
    });
  }

  /**
   * Before a commit to `served` changes anything: queue its record for the
   * database's file, when it has one. Returns the transaction id the record
   * gives it (see `db-file.ts`), if any.
   * @throws OpError "resources exhausted" when the record cannot be made:
   *   the commit is refused, and nothing was queued.
   */
  record(served: Served, changes: TxnChanges, durable: boolean): string | undefined {
    const storage = served.reserved ? undefined : this.storages.get(served.name);
    if (storage === undefined || storage.db !== served.db) return undefined;
    let fileId: string | undefined;
    try {
      fileId = storage.record(changes, durable);
    } catch (e) {
      throw new OpError(
        'resources exhausted',
        `the record of this transaction for ${storage.path} cannot be made: ${(e as Error).message}`,
      );
    }
    if (storage.dirty) this.markDirty();
    return fileId;
  }

  /**
   * Write the records of every commit so far to the files. When a file
   * cannot be written the server stops ({@link DatabaseFilesHost.fail}).
   */
  persist(): void {
    if (!this.dirty) return;
    this.dirty = false;
    for (const st of this.storages.values()) {
      try {
        st.flush();
      } catch (e) {
        this.host.fail(e as Error);
        return;
      }
    }
  }

  /** Records wait: write them before anything is sent, and soon in any case. */
  private markDirty(): void {
    this.dirty = true;
    if (this.flushScheduled || this.host.closing()) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      if (this.host.closing()) return;
      this.persist();
      this.compactIfDue();
    });
  }

  /** Compact the files that ovsdb-server's rule says to (see `db-file.ts`). */
  private compactIfDue(): void {
    const now = Date.now();
    for (const st of this.storages.values()) {
      if (!st.shouldCompact(now)) continue;
      try {
        st.compact();
      } catch (e) {
        // The old file is kept; ovsdb-server retries a minute or two later.
        this.host.log('ovsdb', 'ERR', (e as Error).message);
      }
    }
  }

  /**
   * Close every file, dropping the records not yet written unless `save`
   * is true.
   */
  close(save: boolean): void {
    if (!save) for (const st of this.storages.values()) st.discard();
    for (const st of this.storages.values()) {
      try {
        st.close();
      } catch (e) {
        this.host.log('ovsdb_server', 'ERR', (e as Error).message);
      }
    }
  }
}

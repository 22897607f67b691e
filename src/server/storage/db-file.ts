/**
 * One database kept in a standalone OVSDB database file, in ovsdb-server's
 * own format (`log.ts`, `records.ts`): the schema record, then one record
 * per committed transaction. Files made by `ovsdb-tool create` or written
 * by ovsdb-server open here, and `ovsdb-tool` reads the files written here.
 *
 * ## Writing
 * {@link DbStorage.record} turns a commit into its record at once (the
 * server calls it before the commit changes anything, and refuses the
 * commit when it throws; a record longer than one string is made and kept
 * in pieces);
 * {@link DbStorage.flush} appends every record waiting (in one write) and,
 * when one of them came from a `durable` commit, flushes the file to disk
 * (`fdatasync`) as ovsdb-server does. The server flushes before any byte
 * leaves it (see `server.ts`), so no reply, and no update that shows a
 * commit, precedes that commit's record.
 *
 * ## Transaction ids
 * With a history (`history` > 0), each record's transaction id is made
 * from its SHA-1 chained to the id of the record before it
 * ({@link chainId}), the file's first record (the schema) starting the
 * chain. Reading the file computes the same ids, and the changes of the
 * last `history` records replayed are kept ({@link DbStorage.replayed}),
 * so the server's history after a restart is the one it had before, for
 * the records on disk. The records themselves are ovsdb-server's: nothing
 * is added to them. A compaction starts a new chain from the new file's
 * two records.
 *
 * ## Compaction
 * The file is rewritten as two records (the schema and every row) in a new
 * file that replaces the old one atomically (`<file>.tmp`, fsync, rename,
 * fsync of the directory). Automatically with ovsdb-server's rule: once 10
 * to 20 minutes have passed since the file was opened or last compacted,
 * when it has seen 100 records and grew past 10 MiB and past twice its size
 * after the last compaction; after 24 hours, whenever something was written.
 * On demand with {@link DbStorage.compact} (`ovs-appctl ovsdb-server/compact`).
 *
 * ## Opening
 * A damaged last record (a write cut short by a kill or a power loss) is
 * truncated away with a warning; damage before the end, and a record that
 * does not replay, is a {@link DbFileError} naming the file and the offset.
 * A stale `<file>.tmp` of a compaction that was cut short is removed. Given
 * a schema that differs from the file's, the data is converted to it as
 * `ovsdb-tool convert` does and the file rewritten; an ovnkit JSON snapshot
 * (the format of earlier versions) is checked as a database file is and
 * converted into one once, the snapshot kept as `<file>.snapshot-backup`.
 * @module
 */

import {
  closeSync,
  ftruncateSync,
  linkSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseSchema } from '../../ovsdb/schema/schema.js';
import type { DatabaseSchema } from '../../ovsdb/schema/schema-types.js';
import { isPlainObject } from '../../ovsdb/wire/json.js';
import { stringifyJson, stringifyJsonPieces } from '../../ovsdb/wire/json-stringify.js';
import { Database } from '../engine/database.js';
import type { TxnChanges } from '../engine/executor.js';
import { markStoredSchema } from '../engine/ovs-hash.js';
import { createdSchemaJson, schemaText, schemaToJson } from '../engine/schema-json.js';
import type { HistoryEntry } from '../monitor/history.js';
import { readSnapshot } from '../persistence.js';
import {
  chainId,
  DbFileError,
  ioText,
  LogWriter,
  RecordBuffer,
  type RecordParts,
  recordParts,
  replaceFile,
  type ScanOptions,
  STANDALONE_MAGIC,
  scanLog,
} from './log.js';
import { applyTxnRecord, convertDatabase, snapshotRecord, txnRecordText } from './records.js';

/** When the database file storage compacts on its own (defaults: ovsdb-server's rule). */
export interface CompactionOptions {
  /** Never before this many ms after opening or the last compaction (default 10 minutes)… */
  readonly minIntervalMs?: number | undefined;
  /** …plus a random share of this many ms (default 10 minutes). */
  readonly randomIntervalMs?: number | undefined;
  /** Then when the file is larger than this (default 10 MiB)… */
  readonly minBytes?: number | undefined;
  /** …and than twice its size after the last compaction, with at least this many records seen (default 100). */
  readonly minRecords?: number | undefined;
  /** After this many ms, whenever anything was written (default 24 hours). */
  readonly maxIntervalMs?: number | undefined;
}

/** Options of a database file. */
export interface DbFileOptions {
  /** Write changed set and map columns as diffs (`_is_diff`), as ovsdb-server does by default. Default true. */
  readonly columnDiff?: boolean | undefined;
  /** When to compact on its own; `false`: only on demand. */
  readonly compaction?: CompactionOptions | false | undefined;
  /**
   * How many transactions the server's history keeps: record ids are then
   * made from the records, and opening keeps the changes of that many
   * last records. 0 (the default): no ids.
   */
  readonly history?: number | undefined;
  /** @internal How large records are read (see `log.ts`). */
  readonly scan?: ScanOptions | undefined;
  /** Where warnings and notes go (module, level, text). */
  readonly log?:
    | ((module: string, level: 'INFO' | 'WARN' | 'ERR', text: string) => void)
    | undefined;
}

/** How to open a database file. */
export interface OpenDbFileOptions extends DbFileOptions {
  /**
   * The schema to serve: the file is created from it when missing, and its
   * data converted to it when the file holds another version. Without it,
   * the file's own schema is served and the file must exist.
   */
  readonly schema?: DatabaseSchema | undefined;
}

const MINUTE = 60_000;

/** A database and the file that keeps it. */
export class DbStorage {
  /** The records of commits not written yet. */
  private readonly pending = new RecordBuffer();
  private pendingDurable = false;
  private readonly columnDiff: boolean;
  private readonly compaction: { [K in keyof CompactionOptions]-?: number } | undefined;
  private readonly log: NonNullable<DbFileOptions['log']>;
  /** Records seen since opening: read (the schema included) and written (ovsdb-server's log length). */
  private records: number;
  /** The file's size after the last compaction (or after its first two records). */
  private base: number;
  private writtenSinceCompaction = false;
  private nextCompactMin = 0;
  private nextCompactMax = 0;
  private closed = false;
  private readonly history: number;
  /** The id of the last record queued or written ({@link chainId}). */
  private chain: string;
  /** The id of the last record written. */
  private writtenChain: string;
  /**
   * The last transactions replayed when the file was opened, oldest first
   * (at most `history`): the server's history starts from them. The oldest
   * one's changes are left out (no client is ever sent them).
   */
  replayed: readonly HistoryEntry[] = [];

  private constructor(
    /** The file, as an absolute path. */
    readonly path: string,
    /** The database it keeps. */
    public db: Database,
    private readonly writer: LogWriter,
    records: number,
    base: number,
    options: DbFileOptions,
    chain: string,
  ) {
    this.history = Math.max(0, options.history ?? 0);
    this.chain = chain;
    this.writtenChain = chain;
    this.records = records;
    this.base = base;
    this.columnDiff = options.columnDiff ?? true;
    this.log = options.log ?? (() => {});
    const c = options.compaction;
    this.compaction =
      c === false
        ? undefined
        : {
            minIntervalMs: c?.minIntervalMs ?? 10 * MINUTE,
            randomIntervalMs: c?.randomIntervalMs ?? 10 * MINUTE,
            minBytes: c?.minBytes ?? 10 * 1024 * 1024,
            minRecords: c?.minRecords ?? 100,
            maxIntervalMs: c?.maxIntervalMs ?? 24 * 60 * MINUTE,
          };
    this.schedule(false);
  }

  /**
   * Open the database file `path` for serving.
   * @throws DbFileError when it cannot be read, is damaged before its end,
   *   does not replay, or does not fit `options.schema`.
   */
  static open(path: string, options: OpenDbFileOptions = {}): DbStorage {
    const abs = resolve(path);
    const log = options.log ?? (() => {});
    const started = Date.now();
    removeStaleTemporaries(abs, log);
    let fd: number;
    try {
      // Opening a FIFO may block, and reading one, or a device, never ends.
      const kind = specialFileKind(abs);
      if (kind !== undefined) throw new DbFileError(path, `not a regular file but ${kind}`);
      fd = openSync(abs, 'r+');
    } catch (e) {
      if (e instanceof DbFileError) throw e;
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && options.schema !== undefined) {
        return DbStorage.create(abs, options.schema, options);
      }
      throw new DbFileError(path, `cannot open: ${ioText(e)}`);
    }
    let open = true;
    try {
      if (isJsonSnapshot(fd)) {
        closeSync(fd);
        open = false;
        return DbStorage.migrate(abs, options);
      }
      let db: Database | undefined;
      let base = 0;
      let n = 0;
      const history = Math.max(0, options.history ?? 0);
      let chain = '';
      const replayed: HistoryEntry[] = [];
      const scan = scanLog(
        fd,
        path,
        STANDALONE_MAGIC,
        (r) => {
          if (history > 0) chain = chainId(chain, r.sha1);
          if (db === undefined) {
            let schema: DatabaseSchema;
            try {
              schema = markStoredSchema(parseSchema(r.json));
            } catch (e) {
              throw new DbFileError(
                path,
                `not a database schema: ${(e as Error).message}`,
                r.offset,
              );
            }
            db = new Database(schema);
          } else {
            let changes: TxnChanges | null;
            try {
              changes = applyTxnRecord(db, r.json);
            } catch (e) {
              throw new DbFileError(path, (e as Error).message, r.offset);
            }
            if (history > 0 && changes !== null) {
              replayed.push({ id: chain, changes });
              if (replayed.length > 2 * history) replayed.splice(0, replayed.length - history);
            }
          }
          n++;
          if (n === 2) base = r.offset + r.size;
        },
        options.scan,
      );
      if (db === undefined) {
        throw new DbFileError(
          path,
          scan.torn === undefined
            ? 'empty file: no schema record'
            : `the schema record is damaged: ${scan.torn}`,
        );
      }
      if (scan.torn !== undefined) {
        log(
          'ovsdb_log',
          'WARN',
          `${path}: ${scan.torn}; truncating the file to the ${scan.records} good records (${scan.end} bytes)`,
        );
        try {
          ftruncateSync(fd, scan.end);
        } catch (e) {
          throw new DbFileError(path, `cannot truncate the damaged last record: ${ioText(e)}`);
        }
      }
      log(
        'ovsdb_file',
        'INFO',
        `${path}: read database ${db.schema.name}, ${scan.records} records (${scan.end} bytes), in ${Date.now() - started} ms`,
      );
      const storage = new DbStorage(
        abs,
        db,
        new LogWriter(path, fd, scan.end),
        scan.records,
        base,
        options,
        chain,
      );
      const kept = replayed.slice(Math.max(0, replayed.length - history));
      const oldest = kept[0];
      if (oldest !== undefined) kept[0] = { id: oldest.id, changes: { rows: [] } };
      storage.replayed = kept;
      if (options.schema !== undefined) storage.convertTo(options.schema);
      return storage;
    } catch (e) {
      if (open) closeSync(fd);
      throw e;
    }
  }

  /** Create `path` from `schema` (as `ovsdb-tool create`), atomically, and open it. */
  static create(path: string, schema: DatabaseSchema, options: DbFileOptions = {}): DbStorage {
    const abs = resolve(path);
    const records = [recordParts(stringifyJson(createdSchemaJson(schema)))];
    const { fd, size } = replaceFile(abs, bytesOf(records));
    options.log?.('ovsdb_file', 'INFO', `${path}: created database ${schema.name}`);
    return new DbStorage(
      abs,
      new Database(schema),
      new LogWriter(path, fd, size),
      1,
      0,
      options,
      chainOf(records, options.history),
    );
  }

  /**
   * Convert the ovnkit JSON snapshot at `path` into a database file (once),
   * keeping the snapshot as `<file>.snapshot-backup`. Its rows are replayed
   * on its own schema as one record of inserts ({@link applyTxnRecord}, as
   * {@link DbStorage.open} replays a record), so that what is written is
   * what the file will read back as; then, as for a database file, the
   * data is converted to `options.schema`. Nothing is written until the
   * rows replay.
   */
  private static migrate(path: string, options: OpenDbFileOptions): DbStorage {
    const snapshot = readSnapshot(path);
    const names = Object.keys(snapshot?.databases ?? {});
    const name = options.schema?.name ?? (names.length === 1 ? names[0] : undefined);
    const saved = name === undefined ? undefined : snapshot?.databases[name];
    if (saved === undefined || names.length !== 1) {
      throw new DbFileError(
        path,
        `an ovnkit JSON snapshot of ${names.length === 0 ? 'no database' : `database(s) ${names.join(', ')}`}: ` +
          `it converts into a database file only when it holds exactly the one database served from it${name === undefined ? '' : ` (${name})`}`,
      );
    }
    let db: Database;
    try {
      db = new Database(markStoredSchema(parseSchema(saved.schema)));
    } catch (e) {
      throw new DbFileError(path, `the snapshot's schema: ${(e as Error).message}`);
    }
    try {
      if (!isPlainObject(saved.rows)) throw new Error('"rows" must be a JSON object');
      applyTxnRecord(db, saved.rows);
    } catch (e) {
      throw new DbFileError(path, `the snapshot's rows: ${(e as Error).message}`);
    }
    const target = realpathSync(path);
    const backup = `${target}.snapshot-backup`;
    try {
      linkSync(target, backup);
    } catch (e) {
      throw new DbFileError(path, `cannot keep the snapshot as ${backup}: ${ioText(e)}`);
    }
    const columnDiff = options.columnDiff ?? true;
    const records = [
      recordParts(stringifyJson(schemaToJson(db.schema))),
      recordParts(
        stringifyJsonPieces(
          snapshotRecord(db, 'converted from an ovnkit JSON snapshot by ovnkit-server', columnDiff),
        ),
      ),
    ];
    const { fd, size } = replaceFile(path, bytesOf(records));
    options.log?.(
      'ovsdb_file',
      'WARN',
      `${path}: converted the ovnkit JSON snapshot into an OVSDB database file (database ${db.schema.name}); the snapshot is kept as ${backup}`,
    );
    const storage = new DbStorage(
      path,
      db,
      new LogWriter(path, fd, size),
      2,
      size,
      options,
      chainOf(records, options.history),
    );
    if (options.schema !== undefined) storage.convertTo(options.schema);
    return storage;
  }

  /** Whether records wait to be written. */
  get dirty(): boolean {
    return this.pending.count > 0;
  }

  /** The file's size (what is written so far). */
  get size(): number {
    return this.writer.size;
  }

  /**
   * Queue the record of a commit; `durable` commits are flushed to disk by
   * the next {@link DbStorage.flush}. Returns the commit's transaction id
   * when there is a history and the commit has a record (see the module
   * documentation), else undefined.
   */
  record(changes: TxnChanges, durable: boolean): string | undefined {
    if (this.closed) return undefined;
    const text = txnRecordText(this.db, changes, this.columnDiff);
    if (text === undefined) return undefined;
    const sha1 = this.pending.add(text);
    if (durable) this.pendingDurable = true;
    if (this.history === 0) return undefined;
    this.chain = chainId(this.chain, sha1);
    return this.chain;
  }

  /**
   * Append the queued records (one write) and fsync when one of them is durable.
   * @throws DbFileError when writing fails: the file then ends with the
   *   records written before, and the queued ones are dropped.
   */
  flush(): void {
    const n = this.pending.count;
    if (n === 0) return;
    const durable = this.pendingDurable;
    this.pendingDurable = false;
    try {
      this.writer.append(this.pending.bytes());
    } catch (e) {
      // The file ends with the records written before: the next ids follow them.
      this.chain = this.writtenChain;
      throw e;
    } finally {
      this.pending.clear();
    }
    this.writtenChain = this.chain;
    this.records += n;
    this.writtenSinceCompaction = true;
    if (durable) this.writer.sync();
  }

  /** Drop the queued records (a server stopping as if killed: none was acknowledged). */
  discard(): void {
    this.pending.clear();
    this.pendingDurable = false;
    this.chain = this.writtenChain;
  }

  /** Whether ovsdb-server's rule calls for compacting now (see the module documentation). */
  shouldCompact(now = Date.now()): boolean {
    if (this.compaction === undefined || this.closed || now < this.nextCompactMin) return false;
    if (!this.writtenSinceCompaction) return false;
    if (now >= this.nextCompactMax) return true;
    const size = this.writer.size;
    return (
      this.records >= this.compaction.minRecords &&
      size > this.compaction.minBytes &&
      size / 2 > this.base
    );
  }

  /**
   * Rewrite the file as its schema and one record of every row, replacing
   * it atomically. Queued records are written first.
   * @throws DbFileError when the new file cannot be written (the old one
   *   stays as it was) or the queued records cannot.
   */
  compact(comment = 'compacting database online', schemaRecord?: unknown): void {
    this.flush();
    this.rewrite(comment, schemaRecord);
  }

  /** Flush and close the file. */
  close(): void {
    if (this.closed) return;
    try {
      this.flush();
    } finally {
      this.closed = true;
      this.writer.close();
    }
  }

  /** `schemaRecord`: the schema record to write (default: the schema as `get_schema` returns it). */
  private rewrite(comment: string, schemaRecord: unknown = schemaToJson(this.db.schema)): void {
    const started = Date.now();
    let records: RecordParts[];
    try {
      records = [
        recordParts(stringifyJson(schemaRecord)),
        recordParts(stringifyJsonPieces(snapshotRecord(this.db, comment, this.columnDiff))),
      ];
    } catch (e) {
      this.schedule(true);
      throw new DbFileError(this.path, `cannot compact: ${(e as Error).message}`);
    }
    let replaced: { fd: number; size: number };
    try {
      replaced = replaceFile(this.path, bytesOf(records));
    } catch (e) {
      this.schedule(true);
      throw e;
    }
    this.writer.adopt(replaced.fd, replaced.size);
    this.chain = chainOf(records, this.history);
    this.writtenChain = this.chain;
    this.base = replaced.size;
    this.writtenSinceCompaction = false;
    this.schedule(false);
    this.log(
      'ovsdb',
      'INFO',
      `${this.path}: database compaction took ${Date.now() - started}ms (${replaced.size} bytes)`,
    );
  }

  /** Serve `schema` instead of the file's: convert the data and rewrite the file. */
  private convertTo(schema: DatabaseSchema): void {
    const from = this.db.schema;
    if (schema.name !== from.name) {
      throw new DbFileError(this.path, `holds database ${from.name}, not ${schema.name}`);
    }
    if (schemaText(schema) === schemaText(from)) return;
    try {
      this.db = convertDatabase(this.db, schema);
      this.replayed = [];
    } catch (e) {
      throw new DbFileError(
        this.path,
        `cannot convert database ${from.name} from schema version ${from.version} to ${schema.version}: ${(e as Error).message}`,
      );
    }
    this.rewrite(`converted to schema version ${schema.version} by ovnkit-server`);
    this.log(
      'ovsdb_file',
      'INFO',
      `${this.path}: converted database ${schema.name} from schema version ${from.version} to ${schema.version}`,
    );
  }

  /** ovsdb-server's `schedule_next_snapshot`: a random point in the next interval (quick: a tenth, after a failure). */
  private schedule(quick: boolean): void {
    const c = this.compaction;
    if (c === undefined) return;
    const now = Date.now();
    const div = quick ? 10 : 1;
    this.nextCompactMin = now + c.minIntervalMs / div + Math.random() * (c.randomIntervalMs / div);
    if (!quick) this.nextCompactMax = now + c.maxIntervalMs;
  }
}

/** The id of the last of a new file's `records` ({@link chainId}); '' without a history. */
function chainOf(records: readonly RecordParts[], history: number | undefined): string {
  if (!((history ?? 0) > 0)) return '';
  let chain = '';
  for (const r of records) chain = chainId(chain, r.sha1);
  return chain;
}

/** The bytes of `records`, in order. */
function bytesOf(records: readonly RecordParts[]): Buffer[] {
  return records.flatMap((r) => r.buffers);
}

/** What `path` is when it exists and is not a regular file (`a FIFO`, …), else undefined. */
function specialFileKind(path: string): string | undefined {
  let st: Stats;
  try {
    st = statSync(path);
  } catch {
    return undefined;
  }
  if (st.isFile()) return undefined;
  if (st.isFIFO()) return 'a FIFO';
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'a special file';
}

/** Whether the file open on `fd` starts as JSON text (an ovnkit snapshot) rather than a record header. */
function isJsonSnapshot(fd: number): boolean {
  const head = Buffer.alloc(64);
  const n = readSync(fd, head, 0, head.length, 0);
  const text = head.toString('latin1', 0, n).trimStart();
  return text.startsWith('{');
}

/**
 * Remove what a compaction or an earlier snapshot writer cut short by a
 * kill left next to `path`: `<file>.tmp` (ovsdb-server's name, which it
 * also removes before compacting) and `.<file>.<pid>.tmp`.
 */
function removeStaleTemporaries(path: string, log: NonNullable<DbFileOptions['log']>): void {
  const dir = dirname(path);
  const base = basename(path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const ours =
      name === `${base}.tmp` ||
      (name.startsWith(`.${base}.`) && /^\.\d+\.tmp$/.test(name.slice(base.length + 1)));
    if (!ours) continue;
    try {
      unlinkSync(join(dir, name));
      log('ovsdb_file', 'INFO', `${join(dir, name)}: removed a temporary file left by a kill`);
    } catch {
      // gone meanwhile
    }
  }
}

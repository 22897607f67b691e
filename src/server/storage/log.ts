/**
 * OVSDB's log file format (ovsdb(5), `ovsdb/log.c`): an append-only series of
 * records, each two lines:
 *
 * ```text
 * OVSDB JSON <length> <sha1>\n
 * <length bytes of JSON, the last one a LF>
 * ```
 *
 * `<length>` counts the bytes of the second line (its LF included) and
 * `<sha1>` is their SHA-1 in 40 lower-case hex digits. The JSON is one object
 * on one line: JSON text escapes every LF inside a string.
 *
 * Reading is bounded and never recursive: a header line is at most 128 bytes
 * (ovsdb-server's own limit), and a record's length is checked against what
 * the file holds before anything is allocated. A record of more than 64 MiB
 * is read a chunk at a time, each chunk hashed and parsed as it comes (the
 * framer's incremental decoder, with its nesting limit), so that no buffer
 * or string holds the whole record: records longer than the longest string
 * the JavaScript engine makes (512 MiB) are read too, as ovsdb-server
 * writes them.
 *
 * A damaged record is told apart by where it is:
 * - the **last** record (no complete record header line follows it) is a
 *   write cut short by a crash or a power loss: reading stops there and the
 *   caller truncates it away, as ovsdb-server does before its next write;
 * - a damaged record **before** the end is corruption: a {@link DbFileError}
 *   names the file and the offset, and nothing is loaded (ovsdb-server would
 *   load up to the damage and truncate the rest at its next write).
 *
 * A record whose hash holds was written whole: if its JSON is invalid (or
 * nests deeper than the parser's limit), or it is not an object, that is an
 * error wherever the record is.
 * @module
 */

import * as crypto from 'node:crypto';
import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  unlinkSync,
  writeSync,
  writevSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { JsonStreamFramer } from '../../ovsdb/wire/framer.js';
import { errorText } from '../../ovsdb/wire/json.js';
import type { TextInPieces } from '../../ovsdb/wire/json-stringify.js';
import { parseJson } from '../../ovsdb/wire/json-text.js';

/** The magic word of standalone database files. */
export const STANDALONE_MAGIC = 'JSON';
/** The magic word of clustered database files (not served here). */
export const CLUSTER_MAGIC = 'CLUSTER';

/** The longest header line read, as in ovsdb-server (`char header[128]`). */
const HEADER_MAX = 128;
/** Records longer than this are read a chunk at a time, never whole (see the module documentation). */
const STREAM_RECORD_BYTES = 64 * 1024 * 1024;
/** How much of such a record is read at a time. */
const STREAM_CHUNK = 4 * 1024 * 1024;
/** How much is read at a time when looking for a later record. */
const SCAN_CHUNK = 1 << 20;

const HEADER_RE = /^OVSDB ([^ \n]+) (0*[1-9][0-9]{0,14}) ([0-9a-fA-F]{40})\n$/;
const NEXT_HEADER = Buffer.from('OVSDB ');

/** A database file cannot be read, is damaged, or does not fit its schema. */
export class DbFileError extends Error {
  override name = 'DbFileError';
  constructor(
    /** The file. */
    readonly path: string,
    /** What is wrong. */
    readonly reason: string,
    /** The offset of the record at fault, when there is one. */
    readonly offset?: number | undefined,
  ) {
    super(
      offset === undefined
        ? `${path}: ${reason}`
        : `${path}: record at offset ${offset}: ${reason}`,
    );
  }
}

/** The text of an I/O error: `ENOSPC: no space left on device, write` → `no space left on device (ENOSPC)`. */
export function ioText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (typeof err?.code === 'string') {
    const m = /^[A-Z0-9_]+: (.*?)(?:, \w+.*)?$/.exec(err.message);
    return `${m?.[1] ?? err.message} (${err.code})`;
  }
  return e instanceof Error ? e.message : String(e);
}

/**
 * The SHA-1 of `data` in hex: the one-shot `crypto.hash` where Node has it
 * (20.12 and later), which costs about a microsecond less per record than
 * a `Hash` object.
 */
const sha1Hex: (data: Uint8Array) => string =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha1', data, 'hex')
    : (data) => crypto.createHash('sha1').update(data).digest('hex');

/** The bytes {@link encodeRecord} writes for `text` (`bodyLength`: its UTF-8 bytes and the LF). */
function recordLength(bodyLength: number, magic: string): number {
  return `OVSDB ${magic} ${bodyLength} `.length + 41 + bodyLength;
}

/**
 * Write the record of `text` (`bodyLength` = its UTF-8 length + 1) into
 * `out` at `at`, which has room for it ({@link recordLength}). Returns the
 * offset just past it. The text is encoded straight into place: the
 * header's length is known before the hash is.
 */
function encodeRecord(
  text: string,
  bodyLength: number,
  magic: string,
  out: Buffer,
  at: number,
): number {
  const prefix = `OVSDB ${magic} ${bodyLength} `;
  const headerLength = prefix.length + 41;
  const body = at + headerLength;
  const end = body + bodyLength;
  out.write(text, body, 'utf8');
  out[end - 1] = 0x0a;
  const sha1 = sha1Hex(out.subarray(body, end));
  out.write(prefix, at, 'latin1');
  out.write(sha1, at + prefix.length, 'latin1');
  out[body - 1] = 0x0a;
  return end;
}

/** One record: `OVSDB <magic> <length> <sha1>\n<text>\n`, as bytes. */
export function composeRecord(text: string, magic = STANDALONE_MAGIC): Buffer {
  const bodyLength = Buffer.byteLength(text, 'utf8') + 1;
  const out = Buffer.allocUnsafe(recordLength(bodyLength, magic));
  encodeRecord(text, bodyLength, magic, out, 0);
  return out;
}

const LF = Buffer.from('\n', 'latin1');

/** A record as buffers to write one after the other (see {@link recordParts}). */
export interface RecordParts {
  /** The record's header line, then its body. */
  readonly buffers: readonly Buffer[];
  /** The SHA-1 of its body (hex). */
  readonly sha1: string;
}

/**
 * The record of `text` ({@link composeRecord}), for a text of any length:
 * one buffer when it is one string, else its header line and its pieces'
 * bytes (not copied), so that no string or buffer holds the whole record.
 */
export function recordParts(text: TextInPieces, magic = STANDALONE_MAGIC): RecordParts {
  if (typeof text === 'string') {
    const record = composeRecord(text, magic);
    return { buffers: [record], sha1: composedSha1(record) };
  }
  const hash = crypto.createHash('sha1');
  const buffers: Buffer[] = [LF];
  let length = 1;
  for (const piece of text) {
    hash.update(piece);
    buffers.push(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
    length += piece.byteLength;
  }
  hash.update(LF);
  buffers.push(LF);
  const sha1 = hash.digest('hex');
  buffers[0] = Buffer.from(`OVSDB ${magic} ${length} ${sha1}\n`, 'latin1');
  return { buffers, sha1 };
}

/** The SHA-1 (hex) a record made by {@link composeRecord} names in its header. */
export function composedSha1(record: Buffer): string {
  const lf = record.indexOf(0x0a);
  return record.toString('latin1', lf - 40, lf);
}

/**
 * The transaction id of a record whose SHA-1 is `sha1`, following the
 * record whose id was `prev` (`''` for a file's first record): a UUID made
 * of the SHA-1 of both (version 5, RFC 4122 variant). Chaining makes
 * the id depend on every record before it, so two records of the same
 * text (the same change at the same millisecond) get different ids, and
 * reading the file again yields the same ids in the same order.
 */
export function chainId(prev: string, sha1: string): string {
  const h = sha1Hex(Buffer.from(`${prev}${sha1}`, 'latin1'));
  const v = ((Number.parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${v}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}

/** What a {@link RecordBuffer} keeps between flushes (larger buffers are let go once written). */
const KEEP_BYTES = 1 << 20;

/**
 * Records waiting to be appended, encoded one after another into one
 * buffer that is reused from flush to flush: no buffer per record, and one
 * write for all of them. A record in pieces (longer than one string can
 * be) keeps its own buffers, between those of the records around it.
 */
export class RecordBuffer {
  private buf: Buffer = Buffer.allocUnsafeSlow(64 * 1024);
  /** Where the records encoded in `buf` since the last record in pieces begin. */
  private start = 0;
  private used = 0;
  /** The bytes of the records before `start`, in order (records in pieces, and `buf`'s part before them). */
  private sealed: Buffer[] = [];
  /** How many records wait. */
  count = 0;

  constructor(private readonly magic = STANDALONE_MAGIC) {}

  /** Queue the record of `text`; returns its SHA-1 (hex). Nothing is queued when it throws. */
  add(text: TextInPieces): string {
    if (typeof text !== 'string') {
      const parts = recordParts(text, this.magic);
      if (this.used > this.start) this.sealed.push(this.buf.subarray(this.start, this.used));
      this.start = this.used;
      for (const b of parts.buffers) this.sealed.push(b);
      this.count++;
      return parts.sha1;
    }
    const bodyLength = Buffer.byteLength(text, 'utf8') + 1;
    const need = this.used + recordLength(bodyLength, this.magic);
    if (need > this.buf.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(need, this.buf.length * 2));
      this.buf.copy(bigger, this.start, this.start, this.used);
      this.buf = bigger;
    }
    const at = this.used + `OVSDB ${this.magic} ${bodyLength} `.length;
    this.used = encodeRecord(text, bodyLength, this.magic, this.buf, this.used);
    this.count++;
    return this.buf.toString('latin1', at, at + 40);
  }

  /** The queued records' bytes, in order (valid until the next {@link RecordBuffer.clear} or {@link RecordBuffer.add}). */
  bytes(): Buffer[] {
    const tail = this.buf.subarray(this.start, this.used);
    if (this.sealed.length === 0) return [tail];
    return tail.length === 0 ? this.sealed : [...this.sealed, tail];
  }

  /** Forget the queued records. */
  clear(): void {
    this.used = 0;
    this.start = 0;
    this.sealed = [];
    this.count = 0;
    if (this.buf.length > KEEP_BYTES) this.buf = Buffer.allocUnsafeSlow(64 * 1024);
  }
}

/** A record read from a log. */
export interface LogRecord {
  /** Where its header starts. */
  readonly offset: number;
  /** Its header and body bytes. */
  readonly size: number;
  /** Its JSON object. */
  readonly json: Record<string, unknown>;
  /** The SHA-1 of its body (hex, lower case). */
  readonly sha1: string;
}

/** How reading a log ended. */
export interface LogScan {
  /** The offset just past the last good record. */
  readonly end: number;
  /** The file's size. */
  readonly size: number;
  /** How many good records there were. */
  readonly records: number;
  /** The damaged last record, when there is one (from `end` to `size`). */
  readonly torn?: string | undefined;
}

function readFully(fd: number, buf: Uint8Array, position: number): number {
  let done = 0;
  while (done < buf.length) {
    const n = readSync(fd, buf, done, buf.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/**
 * Whether a complete record header line (`OVSDB <magic> <length> <sha1>\n`)
 * starts anywhere after `from` and before `size`. None can hide inside a
 * record's JSON, which holds no raw LF; so when none follows a damaged
 * record, that record is the last one.
 */
function recordFollows(fd: number, from: number, size: number): boolean {
  const overlap = NEXT_HEADER.length - 1;
  const buf = Buffer.allocUnsafe(SCAN_CHUNK + overlap);
  const line = Buffer.allocUnsafe(HEADER_MAX);
  let pos = from + 1;
  while (pos < size) {
    const n = readFully(fd, buf.subarray(0, Math.min(buf.length, size - pos)), pos);
    if (n === 0) return false;
    const chunk = buf.subarray(0, n);
    for (let i = chunk.indexOf(NEXT_HEADER); i >= 0; i = chunk.indexOf(NEXT_HEADER, i + 1)) {
      const m = readFully(fd, line.subarray(0, Math.min(HEADER_MAX, size - pos - i)), pos + i);
      const lf = line.subarray(0, m).indexOf(0x0a);
      if (lf >= 0 && HEADER_RE.test(line.toString('latin1', 0, lf + 1))) return true;
    }
    if (pos + n >= size) return false;
    pos += Math.max(1, n - overlap);
  }
  return false;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A record's body as read: its SHA-1, and its JSON (which throws when it is not valid JSON). */
interface RecordBody {
  readonly sha1: string;
  json(): unknown;
}

/** Read the `length` bytes of a record's body at `position` whole; undefined when the file ends first. */
function readRecord(fd: number, position: number, length: number): RecordBody | undefined {
  const body = Buffer.allocUnsafe(length);
  if (readFully(fd, body, position) !== length) return undefined;
  return { sha1: sha1Hex(body), json: () => parseJson(utf8.decode(body)) };
}

/**
 * Read the `length` bytes of a record's body at `position` a chunk at a
 * time, each chunk through the SHA-1 and the framer's incremental decoder
 * (its nesting limit and checks), so that nothing holds the whole body;
 * undefined when the file ends first. A parse error stops the parsing, not
 * the hashing: the hash decides first whether the record is whole.
 */
function readLargeRecord(
  fd: number,
  position: number,
  length: number,
  chunkBytes: number,
): RecordBody | undefined {
  const hash = crypto.createHash('sha1');
  const framer = new JsonStreamFramer({ maxMessageBytes: length });
  const values: unknown[] = [];
  let failure: unknown;
  let done = 0;
  // One buffer for every chunk: the framer and its decoder copy what they keep of a chunk
  // (a plain Uint8Array's slice is a copy).
  const buf = new Uint8Array(Math.max(1, Math.min(chunkBytes, length)));
  while (done < length) {
    const chunk = buf.subarray(0, Math.min(buf.length, length - done));
    const n = readFully(fd, chunk, position + done);
    if (n < chunk.length) return undefined;
    hash.update(chunk);
    if (failure === undefined) {
      try {
        framer.pushInto(chunk, values);
      } catch (e) {
        failure = e;
      }
    }
    done += n;
  }
  const sha1 = hash.digest('hex');
  return {
    sha1,
    json: () => {
      if (failure !== undefined) throw failure;
      if (values.length !== 1 || framer.bufferedBytes > 0) {
        throw new SyntaxError(
          values.length === 0 ? 'the record ends inside its value' : 'more than one value',
        );
      }
      return values[0];
    },
  };
}

/** @internal How {@link scanLog} reads large records (tests make every record large). */
export interface ScanOptions {
  /** Records longer than this many bytes are read a chunk at a time (default 64 MiB). */
  readonly streamRecordBytes?: number | undefined;
  /** The chunk (default 4 MiB). */
  readonly streamChunkBytes?: number | undefined;
}

/**
 * Read the records of the log open on `fd` (of `path`, for messages), in
 * order, passing each to `onRecord`; records must carry `magic`. Stops at a
 * damaged last record (see the module documentation) and reports it in
 * {@link LogScan.torn}. `onRecord` may throw; its error is passed on.
 * @throws DbFileError for a damaged record before the end, a read error, or
 *   a first record with another magic word.
 */
export function scanLog(
  fd: number,
  path: string,
  magic: string,
  onRecord: (record: LogRecord) => void,
  options: ScanOptions = {},
): LogScan {
  const streamAbove = options.streamRecordBytes ?? STREAM_RECORD_BYTES;
  const chunkBytes = options.streamChunkBytes ?? STREAM_CHUNK;
  let size: number;
  try {
    size = fstatSync(fd).size;
  } catch (e) {
    throw new DbFileError(path, `cannot read: ${ioText(e)}`);
  }
  let offset = 0;
  let records = 0;
  const header = Buffer.allocUnsafe(HEADER_MAX);
  const damaged = (reason: string): LogScan => {
    if (recordFollows(fd, offset, size)) {
      throw new DbFileError(
        path,
        `${reason}, and more records follow: the file is corrupt (the ${records} records before offset ${offset} are intact)`,
        offset,
      );
    }
    return { end: offset, size, records, torn: `${reason} (${size - offset} bytes at the end)` };
  };
  try {
    while (offset < size) {
      const n = readFully(fd, header.subarray(0, Math.min(HEADER_MAX, size - offset)), offset);
      const lf = header.subarray(0, n).indexOf(0x0a);
      if (lf < 0) {
        return damaged(
          n < HEADER_MAX ? 'header line cut short' : 'header line longer than 128 bytes',
        );
      }
      const line = header.toString('latin1', 0, lf + 1);
      const m = HEADER_RE.exec(line);
      if (m === null) return damaged(`unexpected header line ${JSON.stringify(line.trimEnd())}`);
      if (m[1] !== magic) {
        if (records === 0 && m[1] === CLUSTER_MAGIC) {
          throw new DbFileError(path, 'a clustered database: only standalone databases are served');
        }
        if (records === 0) {
          throw new DbFileError(path, `not a standalone database file (magic ${m[1]})`);
        }
        return damaged(`record of type ${m[1]} in a ${magic} log`);
      }
      const length = Number(m[2]);
      const dataOffset = offset + lf + 1;
      if (length > size - dataOffset) {
        return damaged(`record of ${length} bytes cut short at ${size - dataOffset} bytes`);
      }
      const read =
        length > streamAbove
          ? readLargeRecord(fd, dataOffset, length, chunkBytes)
          : readRecord(fd, dataOffset, length);
      if (read === undefined) return damaged(`record of ${length} bytes cut short`);
      const sha1 = read.sha1;
      if (sha1 !== (m[3] as string).toLowerCase()) {
        return damaged(`${length} bytes have SHA-1 hash ${sha1} but should have hash ${m[3]}`);
      }
      // The hash holds: the record was written whole. What it says is refused, wherever it is.
      let json: unknown;
      try {
        json = read.json();
      } catch (e) {
        throw new DbFileError(path, `${length} bytes are not valid JSON (${errorText(e)})`, offset);
      }
      if (typeof json !== 'object' || json === null || Array.isArray(json)) {
        throw new DbFileError(path, `${length} bytes are not a JSON object`, offset);
      }
      onRecord({ offset, size: lf + 1 + length, json: json as Record<string, unknown>, sha1 });
      records++;
      offset = dataOffset + length;
    }
  } catch (e) {
    if (e instanceof DbFileError) throw e;
    if ((e as NodeJS.ErrnoException).code !== undefined) {
      throw new DbFileError(path, `read error: ${ioText(e)}`, offset);
    }
    throw e;
  }
  return { end: offset, size, records };
}

/** fsync the directory holding `path`, so that a rename or a new name in it is on disk. */
export function fsyncDir(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dirname(path), 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems cannot fsync a directory; the rename itself stands.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Write `records` (their bytes, in order) to a new file that replaces `path` atomically, as
 * ovsdb-server compacts: `<path>.tmp` (a stale one removed first) is
 * written, flushed to disk, renamed over the real file (the target of a
 * symlink), and the directory flushed. Returns the new file's descriptor,
 * open for appending, and its size. On failure the temporary file is
 * removed and `path` is untouched.
 */
export function replaceFile(
  path: string,
  records: readonly Buffer[],
): { fd: number; size: number } {
  let target = path;
  try {
    target = realpathSync(path);
  } catch {
    // A new file.
  }
  const tmp = `${target}.tmp`;
  let fd: number | undefined;
  try {
    try {
      unlinkSync(tmp);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    fd = openSync(tmp, 'wx+', 0o660);
    let size = 0;
    for (const r of records) {
      writeAll(fd, r, size);
      size += r.length;
    }
    fdatasyncSync(fd);
    renameSync(tmp, target);
    fsyncDir(target);
    return { fd, size };
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already renamed
    }
    throw new DbFileError(path, `cannot write ${tmp}: ${ioText(e)}`);
  }
}

/** Write all of `buf` at `position`. */
export function writeAll(fd: number, buf: Buffer, position: number): void {
  let done = 0;
  while (done < buf.length) {
    done += writeSync(fd, buf, done, buf.length - done, position + done);
  }
}

/** Write all of `buffers` (`length` bytes in all) at `position`, in as few system calls as it takes. */
function writevAll(fd: number, buffers: readonly Buffer[], position: number, length: number): void {
  let done = writevSync(fd, buffers as Buffer[], position);
  if (done === length) return;
  // A short write: the rest one buffer at a time.
  let at = 0;
  for (const b of buffers) {
    const end = at + b.length;
    if (end > done) {
      const from = Math.max(0, done - at);
      writeAll(fd, b.subarray(from), position + at + from);
      done = end;
    }
    at = end;
  }
}

/** A log open for appending: where the next record goes, and the writes. */
export class LogWriter {
  constructor(
    /** The file, as named by the user. */
    readonly path: string,
    private fd: number,
    /** The offset just past the last record. */
    public size: number,
  ) {}

  /**
   * Append `buffers` (whole records) in one write. On failure what was
   * written is truncated away (as ovsdb-server does) and a
   * {@link DbFileError} thrown.
   */
  append(buffers: readonly Buffer[]): void {
    const start = this.size;
    let length = 0;
    for (const b of buffers) length += b.length;
    try {
      if (buffers.length === 1) writeAll(this.fd, buffers[0] as Buffer, start);
      else writevAll(this.fd, buffers, start, length);
    } catch (e) {
      try {
        ftruncateSync(this.fd, start);
      } catch {
        // nothing more can be done; the next open truncates the torn record
      }
      throw new DbFileError(this.path, `write failed: ${ioText(e)}`);
    }
    this.size = start + length;
  }

  /** Flush the appended records to disk (`fdatasync`, as ovsdb-server's commit_block). */
  sync(): void {
    try {
      fdatasyncSync(this.fd);
    } catch (e) {
      throw new DbFileError(this.path, `fsync failed: ${ioText(e)}`);
    }
  }

  /** Continue on another file (after {@link replaceFile}), closing the old one. */
  adopt(fd: number, size: number): void {
    const old = this.fd;
    this.fd = fd;
    this.size = size;
    try {
      closeSync(old);
    } catch {
      // already gone
    }
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}

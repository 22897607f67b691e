/**
 * What the file-backed sources share: parsing a JSON or YAML file that is
 * a list of items or `{ <member>: [...] }`, reading it safely
 * ({@link readRegularFile}), and {@link WatchedList}, which polls the file
 * and turns the differences between the lists it accepts into `add`,
 * `update` and `delete` events.
 *
 * The file is hostile input. It is read asynchronously (never on the event
 * loop), only when it is a regular file (a FIFO, a device such as
 * `/dev/zero`, a directory or a socket behind the path is refused without
 * reading it), up to a size bound, within a time limit, and one read at a
 * time. A new list is accepted only when it is whole: a read that raced a
 * write is dropped, and a list is taken only from a file that did not
 * change for `confirmMs` (read twice, the same version of the same file:
 * inode, size, modification and change times, contents) and that parses;
 * until then, and when it does not parse, the last good list stands. A
 * file caught half written (which would parse as fewer items, and delete
 * their pods or pools) is so never taken, as long as its writer does not
 * stall for `confirmMs` in the middle. Writers should still replace the file
 * atomically: write a new file next to it, then rename it over the old one.
 * @module
 */

import { createHash } from 'node:crypto';
import { type BigIntStats, constants, type Stats, unwatchFile, watchFile } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { SyncSignal } from './synced.js';

/**
 * Parse `text`, the contents of `path` (YAML when the name ends in `.yaml`
 * or `.yml`, else JSON): a list of `item`s or `{ [member]: [...] }`.
 * @throws Error naming the file and what is wrong.
 */
export function parseListFile<S extends z.ZodType>(
  path: string,
  text: string,
  item: S,
  member: string,
): z.infer<S>[] {
  const yaml = /\.ya?ml$/i.test(path);
  let data: unknown;
  try {
    if (yaml) {
      const doc = parseDocument(text);
      if (doc.errors.length > 0) throw doc.errors[0];
      data = doc.toJS();
    } else {
      data = JSON.parse(text);
    }
  } catch (e) {
    throw new Error(`${path}: not valid ${yaml ? 'YAML' : 'JSON'}: ${(e as Error).message}`);
  }
  const list = z.array(item);
  const parsed = Array.isArray(data)
    ? list.safeParse(data)
    : z.object({ [member]: list }).safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new Error(
      `${path}: ${where}${issue?.message ?? 'invalid'} (expected a list of ${member} or { ${member}: [...] })`,
    );
  }
  const out = parsed.data as z.infer<S>[] | Record<string, z.infer<S>[]>;
  return Array.isArray(out) ? out : out[member]!;
}

/** Default bound of a watched file's size: 64 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Default time limit of one read of a watched file, ms. */
export const DEFAULT_READ_TIMEOUT_MS = 5_000;
/** Default time a file must stay unchanged before its list is accepted, ms. */
export const DEFAULT_CONFIRM_MS = 1_000;

function kindOf(s: Stats | BigIntStats): string {
  if (s.isFIFO()) return 'a FIFO';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  if (s.isDirectory()) return 'a directory';
  if (s.isSocket()) return 'a socket';
  return 'not a file';
}

function checkRegular(path: string, s: Stats | BigIntStats, maxBytes: number): void {
  if (!s.isFile()) throw new Error(`${path}: not a regular file (${kindOf(s)}); not read`);
  if (s.size > maxBytes) {
    throw new Error(`${path}: ${s.size} bytes, more than the limit of ${maxBytes}; not read`);
  }
}

/** What {@link readRegularFile} read. */
export interface FileContents {
  readonly text: string;
  /**
   * The version of the file read: device, inode, size, modification and
   * change times (ns) and a digest of the contents. Two reads with the same
   * version read the same file, unchanged in between.
   */
  readonly version: string;
}

/**
 * Read the regular file `path` (symlinks followed) as UTF-8, without
 * blocking the event loop. Anything else behind the path (a FIFO, a
 * device, a directory, a socket) is refused before it is read; it is
 * opened non-blocking, so that a FIFO swapped in meanwhile cannot block
 * the open either, and checked again on the open descriptor.
 * @throws Error naming the file: not a regular file, larger than
 *   `maxBytes`, or changed while it was read.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<FileContents> {
  checkRegular(path, await stat(path), maxBytes);
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const before = await file.stat({ bigint: true });
    checkRegular(path, before, maxBytes);
    const size = Number(before.size);
    // One byte more than the size: a file that grew is seen as changed.
    const buf = Buffer.alloc(size + 1);
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await file.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    const after = await file.stat({ bigint: true });
    const stamp = (s: BigIntStats) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    if (n !== size || stamp(after) !== stamp(before)) {
      throw new Error(`${path}: changed while it was read`);
    }
    const contents = buf.subarray(0, n);
    const digest = createHash('sha256').update(contents).digest('base64');
    return { text: contents.toString('utf8'), version: `${stamp(after)}:${digest}` };
  } finally {
    await file.close();
  }
}

/** Options of a file-backed source. */
export interface WatchedFileOptions {
  /** Poll interval of the file's status, ms (default 250). */
  readonly intervalMs?: number | undefined;
  /**
   * How long the file must stay unchanged before its list is accepted: the
   * wait between a read and the read that confirms it, ms (default
   * {@link DEFAULT_CONFIRM_MS}).
   */
  readonly confirmMs?: number | undefined;
  /** Largest file read, bytes (default {@link DEFAULT_MAX_FILE_BYTES}). */
  readonly maxBytes?: number | undefined;
  /** Time limit of one read, ms (default {@link DEFAULT_READ_TIMEOUT_MS}). */
  readonly readTimeoutMs?: number | undefined;
  /** Called when the file cannot be read, parsed or accepted (the last good list is kept). */
  readonly onError?: ((error: Error) => void) | undefined;
}

/** A change of one item of a watched file. */
export type WatchedEventType = 'add' | 'update' | 'delete';

/**
 * The items of a watched file by key (see the module documentation for
 * when a new list is accepted). The file is polled from construction until
 * {@link WatchedList.close}; every accepted change is emitted to the
 * subscribed handlers as events made by `event`. It is synced once its
 * first list is accepted.
 */
export class WatchedList<K, V, E> {
  private items = new Map<K, V>();
  private readonly handlers = new Set<(event: E) => void>();
  private readonly sync = new SyncSignal();
  /** The version of the file whose list was accepted last. */
  private accepted: string | undefined;
  /** A version read, and when it was first read (`performance.now()`), waiting for its confirming read. */
  private pending: { readonly version: string; readonly at: number } | undefined;
  private confirmTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  /** A read is in flight (one that ran out of time stays so until it ends): no other one starts. */
  private stuck = false;
  private closed = false;
  private readonly listener = (): void => void this.reload();

  constructor(
    readonly path: string,
    private readonly parse: (path: string, text: string) => readonly V[],
    private readonly keyOf: (item: V) => K,
    private readonly event: (type: WatchedEventType, item: V) => E,
    private readonly options: WatchedFileOptions = {},
  ) {
    watchFile(path, { interval: options.intervalMs ?? 250 }, this.listener);
    void this.reload();
  }

  /** The items of the list last accepted. */
  values(): V[] {
    return [...this.items.values()];
  }

  /** Resolves once the first list is accepted. */
  whenSynced(): Promise<void> {
    return this.sync.promise;
  }

  /** Receive the events from now on; returns the unsubscribe function. */
  subscribe(handler: (event: E) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /**
   * Read the file again and emit the differences, if the list is accepted
   * (called by the watcher; callable directly). Reads run one at a time:
   * a call during a read reads again after it.
   */
  reload(): Promise<void> {
    if (this.queued !== undefined) return this.queued;
    if (this.running === undefined) return this.run();
    this.queued = this.running.then(() => {
      this.queued = undefined;
      return this.run();
    });
    return this.queued;
  }

  private run(): Promise<void> {
    const running = this.readAndApply().finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }

  private get confirmMs(): number {
    return this.options.confirmMs ?? DEFAULT_CONFIRM_MS;
  }

  private fail(error: Error): void {
    this.options.onError?.(error);
    // Not synced yet: try again later even if the file's status stays.
    if (!this.sync.synced) this.readLater(this.confirmMs);
  }

  /** Read again in `ms` (or earlier, when a read is due earlier already). */
  private readLater(ms: number): void {
    if (this.confirmTimer !== undefined || this.closed) return;
    this.confirmTimer = setTimeout(() => {
      this.confirmTimer = undefined;
      void this.reload();
    }, ms);
  }

  /** Read the file within the time limit, one read at a time. */
  private async read(): Promise<FileContents> {
    if (this.stuck) throw new Error(`${this.path}: the last read has not finished; not read again`);
    const ms = this.options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
    this.stuck = true;
    const reading = readRegularFile(this.path, this.options.maxBytes ?? DEFAULT_MAX_FILE_BYTES);
    const done = reading.finally(() => {
      this.stuck = false;
    });
    done.catch(() => {}); // reported through the race below, or after a timeout not at all
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.path}: not read within ${ms} ms`)), ms);
    });
    try {
      return await Promise.race([done, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async readAndApply(): Promise<void> {
    if (this.closed) return;
    let list: readonly V[];
    try {
      const { text, version } = await this.read();
      if (this.closed || version === this.accepted) {
        this.pending = undefined;
        return;
      }
      // Perhaps a file caught half written: taken only if it reads the same `confirmMs` later.
      const now = performance.now();
      if (this.pending?.version !== version) this.pending = { version, at: now };
      const wait = this.pending.at + this.confirmMs - now;
      if (wait > 0) {
        this.readLater(wait);
        return;
      }
      this.pending = undefined;
      list = this.parse(this.path, text);
      this.accepted = version;
    } catch (e) {
      if (!this.closed) this.fail(e as Error);
      return;
    }
    const next = new Map(list.map((v) => [this.keyOf(v), v]));
    const events: E[] = [];
    for (const [key, item] of next) {
      const old = this.items.get(key);
      if (old === undefined) events.push(this.event('add', item));
      else if (JSON.stringify(old) !== JSON.stringify(item))
        events.push(this.event('update', item));
    }
    for (const [key, item] of this.items) {
      if (!next.has(key)) events.push(this.event('delete', item));
    }
    this.items = next;
    this.sync.mark();
    for (const e of events) for (const h of this.handlers) h(e);
  }

  /** Stop watching and drop every handler. */
  close(): void {
    this.closed = true;
    this.handlers.clear();
    unwatchFile(this.path, this.listener);
    if (this.confirmTimer !== undefined) clearTimeout(this.confirmTimer);
    this.confirmTimer = undefined;
  }
}

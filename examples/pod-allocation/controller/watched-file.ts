/**
 * What the file-backed sources share: parsing a JSON or YAML file that is
 * a list of items or `{ <member>: [...] }`, and {@link WatchedList}, which
 * polls the file and turns the differences between its contents into
 * `add`, `update` and `delete` events. A file that does not parse is
 * reported to `onError` and ignored until it is fixed.
 * @module
 */

import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { parseDocument } from 'yaml';
import { z } from 'zod';

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

/** Options of a file-backed source. */
export interface WatchedFileOptions {
  /** Poll interval, ms (default 250). */
  readonly intervalMs?: number | undefined;
  /** Called when the file cannot be read or parsed. */
  readonly onError?: ((error: Error) => void) | undefined;
}

/** A change of one item of a watched file. */
export type WatchedEventType = 'add' | 'update' | 'delete';

/**
 * The items of a watched file by key. `subscribe` starts polling the file
 * (once, for every handler); `reload` reads it again and emits the
 * differences as events made by `event`.
 */
export class WatchedList<K, V, E> {
  private items: Map<K, V>;
  private readonly handlers = new Set<(event: E) => void>();
  private watching = false;
  private readonly listener = (): void => this.reload();

  /** @throws Error when the file cannot be read or parsed now. */
  constructor(
    readonly path: string,
    private readonly parse: (path: string, text: string) => readonly V[],
    private readonly keyOf: (item: V) => K,
    private readonly event: (type: WatchedEventType, item: V) => E,
    private readonly options: WatchedFileOptions = {},
  ) {
    this.items = this.read();
  }

  private read(): Map<K, V> {
    const items = this.parse(this.path, readFileSync(this.path, 'utf8'));
    return new Map(items.map((v) => [this.keyOf(v), v]));
  }

  /** The items the file held when last read. */
  values(): V[] {
    return [...this.items.values()];
  }

  /** Receive the events from now on; returns the unsubscribe function. */
  subscribe(handler: (event: E) => void): () => void {
    this.handlers.add(handler);
    if (!this.watching) {
      this.watching = true;
      watchFile(this.path, { interval: this.options.intervalMs ?? 250 }, this.listener);
    }
    return () => {
      this.handlers.delete(handler);
      if (this.handlers.size === 0) this.stopWatching();
    };
  }

  /** Read the file again and emit the differences (called by the watcher; callable directly). */
  reload(): void {
    let next: Map<K, V>;
    try {
      next = this.read();
    } catch (e) {
      this.options.onError?.(e as Error);
      return;
    }
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
    for (const e of events) for (const h of this.handlers) h(e);
  }

  private stopWatching(): void {
    if (!this.watching) return;
    this.watching = false;
    unwatchFile(this.path, this.listener);
  }

  /** Stop watching and drop every handler. */
  close(): void {
    this.handlers.clear();
    this.stopWatching();
  }
}

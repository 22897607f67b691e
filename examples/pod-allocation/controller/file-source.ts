/**
 * {@link FilePodSource}: a {@link PodSource} backed by a JSON or YAML file of
 * pods, either a list or `{ pods: [...] }`, each `{ namespace, name, node,
 * annotations?, ownerKind? }`. The file is watched (polled): when it
 * changes, the differences with the previous contents become `add`,
 * `update` and `delete` events. A file that does not parse is reported to
 * `onError` and ignored until it is fixed.
 * @module
 */

import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { type Pod, type PodKey, podKey } from './pod.js';
import type { PodEvent, PodSource } from './pod-source.js';

const PodSchema = z.object({
  namespace: z.string().min(1),
  name: z.string().min(1),
  node: z.string().min(1),
  annotations: z.record(z.string(), z.string()).optional(),
  ownerKind: z.string().optional(),
});
const ListSchema = z.array(PodSchema);
const FileSchema = z.object({ pods: ListSchema });

/**
 * Parse the text of a pods file (JSON, or YAML when `path` ends in `.yaml`
 * or `.yml`).
 * @throws Error naming the file and what is wrong.
 */
export function parsePodsFile(path: string, text: string): Pod[] {
  let data: unknown;
  try {
    if (/\.ya?ml$/i.test(path)) {
      const doc = parseDocument(text);
      if (doc.errors.length > 0) throw doc.errors[0];
      data = doc.toJS();
    } else {
      data = JSON.parse(text);
    }
  } catch (e) {
    throw new Error(
      `${path}: not valid ${/\.ya?ml$/i.test(path) ? 'YAML' : 'JSON'}: ${(e as Error).message}`,
    );
  }
  const parsed = Array.isArray(data) ? ListSchema.safeParse(data) : FileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new Error(
      `${path}: ${where}${issue?.message ?? 'invalid'} (expected a list of pods or { pods: [...] })`,
    );
  }
  const list = Array.isArray(parsed.data) ? parsed.data : parsed.data.pods;
  return list.map((p) => ({
    namespace: p.namespace,
    name: p.name,
    node: p.node,
    ...(p.annotations !== undefined ? { annotations: p.annotations } : {}),
    ...(p.ownerKind !== undefined ? { ownerKind: p.ownerKind } : {}),
  }));
}

/** Options of {@link FilePodSource}. */
export interface FilePodSourceOptions {
  /** Poll interval, ms (default 250). */
  readonly intervalMs?: number | undefined;
  /** Called when the file cannot be read or parsed. */
  readonly onError?: ((error: Error) => void) | undefined;
}

function samePod(a: Pod, b: Pod): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A pod source watching a JSON or YAML file. */
export class FilePodSource implements PodSource {
  private pods = new Map<PodKey, Pod>();
  private readonly handlers = new Set<(event: PodEvent) => void>();
  private watching = false;
  private readonly listener = () => this.reload();

  /**
   * Read the file now.
   * @throws Error when the file cannot be read or parsed at construction.
   */
  constructor(
    readonly path: string,
    private readonly options: FilePodSourceOptions = {},
  ) {
    this.pods = this.read();
  }

  private read(): Map<PodKey, Pod> {
    const pods = parsePodsFile(this.path, readFileSync(this.path, 'utf8'));
    return new Map(pods.map((p) => [podKey(p), p]));
  }

  /** {@inheritDoc PodSource.list} */
  async list(): Promise<readonly Pod[]> {
    return [...this.pods.values()];
  }

  /** {@inheritDoc PodSource.subscribe} */
  subscribe(handler: (event: PodEvent) => void): () => void {
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

  /**
   * Read the file again and emit the differences (called by the watcher;
   * callable directly).
   */
  reload(): void {
    let next: Map<PodKey, Pod>;
    try {
      next = this.read();
    } catch (e) {
      this.options.onError?.(e as Error);
      return;
    }
    const events: PodEvent[] = [];
    for (const [key, pod] of next) {
      const old = this.pods.get(key);
      if (old === undefined) events.push({ type: 'add', pod });
      else if (!samePod(old, pod)) events.push({ type: 'update', pod });
    }
    for (const [key, pod] of this.pods) if (!next.has(key)) events.push({ type: 'delete', pod });
    this.pods = next;
    for (const e of events) for (const h of this.handlers) h(e);
  }

  private stopWatching(): void {
    if (!this.watching) return;
    this.watching = false;
    unwatchFile(this.path, this.listener);
  }

  /** Stop watching. */
  close(): void {
    this.handlers.clear();
    this.stopWatching();
  }
}

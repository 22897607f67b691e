/**
 * {@link FileNodeSource}: a {@link NodeSource} backed by a JSON or YAML file
 * of nodes, either a list or `{ nodes: [...] }`, each `{ name, subnet?,
 * minIdle?, maxIdle?, batchSize?, idleTtlMs? }`. The file is watched
 * (polled): when it changes, the differences with the previous contents
 * become `add`, `update` and `delete` events. A file that does not parse is
 * reported to `onError` and ignored until it is fixed. Statuses written back
 * are kept in memory (`statuses`).
 * @module
 */

import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import type { PoolNode } from './node.js';
import type { NodeEvent, NodePoolStatus, NodeSource } from './node-source.js';

const NodeSchema = z.object({
  name: z.string().min(1),
  subnet: z.string().min(1).optional(),
  minIdle: z.number().optional(),
  maxIdle: z.number().optional(),
  batchSize: z.number().optional(),
  idleTtlMs: z.number().optional(),
});
const ListSchema = z.array(NodeSchema);
const FileSchema = z.object({ nodes: ListSchema });

/**
 * Parse the text of a nodes file (JSON, or YAML when `path` ends in `.yaml`
 * or `.yml`). Bounds are checked by the reconciler, per node.
 * @throws Error naming the file and what is wrong.
 */
export function parseNodesFile(path: string, text: string): PoolNode[] {
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
  const parsed = Array.isArray(data) ? ListSchema.safeParse(data) : FileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new Error(
      `${path}: ${where}${issue?.message ?? 'invalid'} (expected a list of nodes or { nodes: [...] })`,
    );
  }
  const list = Array.isArray(parsed.data) ? parsed.data : parsed.data.nodes;
  const seen = new Set<string>();
  return list.map((n, i) => {
    if (seen.has(n.name)) throw new Error(`${path}: ${i}.name: node ${n.name} is listed twice`);
    seen.add(n.name);
    const out: { -readonly [K in keyof PoolNode]: PoolNode[K] } = { name: n.name };
    for (const k of ['subnet', 'minIdle', 'maxIdle', 'batchSize', 'idleTtlMs'] as const) {
      if (n[k] !== undefined) (out as Record<string, unknown>)[k] = n[k];
    }
    return out;
  });
}

/** Options of {@link FileNodeSource}. */
export interface FileNodeSourceOptions {
  /** Poll interval, ms (default 250). */
  readonly intervalMs?: number | undefined;
  /** Called when the file cannot be read or parsed. */
  readonly onError?: ((error: Error) => void) | undefined;
}

/** A node source watching a JSON or YAML file. */
export class FileNodeSource implements NodeSource {
  private nodes = new Map<string, PoolNode>();
  private readonly handlers = new Set<(event: NodeEvent) => void>();
  private watching = false;
  private readonly listener = () => this.reload();
  /** The last status written back, per node. */
  readonly statuses = new Map<string, NodePoolStatus>();

  /**
   * Read the file now.
   * @throws Error when the file cannot be read or parsed at construction.
   */
  constructor(
    readonly path: string,
    private readonly options: FileNodeSourceOptions = {},
  ) {
    this.nodes = this.read();
  }

  private read(): Map<string, PoolNode> {
    return new Map(
      parseNodesFile(this.path, readFileSync(this.path, 'utf8')).map((n) => [n.name, n]),
    );
  }

  /** {@inheritDoc NodeSource.list} */
  async list(): Promise<readonly PoolNode[]> {
    return [...this.nodes.values()];
  }

  /** {@inheritDoc NodeSource.subscribe} */
  subscribe(handler: (event: NodeEvent) => void): () => void {
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

  /** {@inheritDoc NodeSource.reportStatus} */
  reportStatus(node: string, status: NodePoolStatus): void {
    this.statuses.set(node, status);
  }

  /**
   * Read the file again and emit the differences (called by the watcher;
   * callable directly).
   */
  reload(): void {
    let next: Map<string, PoolNode>;
    try {
      next = this.read();
    } catch (e) {
      this.options.onError?.(e as Error);
      return;
    }
    const events: NodeEvent[] = [];
    for (const [name, node] of next) {
      const old = this.nodes.get(name);
      if (old === undefined) events.push({ type: 'add', node });
      else if (JSON.stringify(old) !== JSON.stringify(node)) events.push({ type: 'update', node });
    }
    for (const [name, node] of this.nodes)
      if (!next.has(name)) events.push({ type: 'delete', node });
    this.nodes = next;
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

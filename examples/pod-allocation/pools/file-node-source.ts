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

import { z } from 'zod';
import { parseListFile, type WatchedFileOptions, WatchedList } from '../controller/watched-file.js';
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

/**
 * Parse the text of a nodes file (JSON, or YAML when `path` ends in `.yaml`
 * or `.yml`). Bounds are checked by the reconciler, per node.
 * @throws Error naming the file and what is wrong.
 */
export function parseNodesFile(path: string, text: string): PoolNode[] {
  const list = parseListFile(path, text, NodeSchema, 'nodes');
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
export type FileNodeSourceOptions = WatchedFileOptions;

/** A node source watching a JSON or YAML file. */
export class FileNodeSource implements NodeSource {
  private readonly nodes: WatchedList<string, PoolNode, NodeEvent>;
  /** The last status written back, per node. */
  readonly statuses = new Map<string, NodePoolStatus>();

  /**
   * Read the file now.
   * @throws Error when the file cannot be read or parsed at construction.
   */
  constructor(
    readonly path: string,
    options: FileNodeSourceOptions = {},
  ) {
    this.nodes = new WatchedList(
      path,
      parseNodesFile,
      (n) => n.name,
      (type, node) => ({ type, node }),
      options,
    );
  }

  /** {@inheritDoc NodeSource.list} */
  async list(): Promise<readonly PoolNode[]> {
    return this.nodes.values();
  }

  /** {@inheritDoc NodeSource.whenSynced} */
  whenSynced(): Promise<void> {
    // The file was read whole by the constructor.
    return Promise.resolve();
  }

  /** {@inheritDoc NodeSource.subscribe} */
  subscribe(handler: (event: NodeEvent) => void): () => void {
    return this.nodes.subscribe(handler);
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
    this.nodes.reload();
  }

  /** Stop watching. */
  close(): void {
    this.nodes.close();
  }
}

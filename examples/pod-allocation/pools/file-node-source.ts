/**
 * {@link FileNodeSource}: a {@link NodeSource} backed by a JSON or YAML file
 * of nodes, either a list or `{ nodes: [...] }`, each `{ name, subnet?,
 * minIdle?, maxIdle?, batchSize?, idleTtlMs? }`. The file is watched
 * (polled): when it changes, the differences with the last accepted list
 * become `add`, `update` and `delete` events. A list is accepted only when
 * it is whole (see `watched-file.ts`): a file that cannot be read or parsed
 * is reported to `onError` and the last good list kept, and a list that
 * drops nodes (which deletes their pools) must read the same twice; replace
 * the file atomically (write, then rename). Statuses written back are kept
 * in memory (`statuses`).
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
   * Start reading and watching the file (see `WatchedFileOptions`): the
   * source is synced once its first list is accepted; until then, and
   * whenever the file cannot be read, parsed or accepted, `onError` hears
   * why.
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
    return this.nodes.whenSynced();
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
   * Read the file again and emit the differences, if the list is accepted
   * (called by the watcher; callable directly).
   */
  reload(): Promise<void> {
    return this.nodes.reload();
  }

  /** Stop watching. */
  close(): void {
    this.nodes.close();
  }
}

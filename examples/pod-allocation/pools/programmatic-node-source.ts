/**
 * {@link ProgrammaticNodeSource}: a {@link NodeSource} driven by calls
 * (`add`, `update`, `delete`), for tests, demos and embedding. It keeps the
 * statuses the reconciler writes back, and counts the writes. It is synced
 * from the start, unless made with `synced: false`: then it is synced once
 * `markSynced()` says that every node that exists has been added.
 * @module
 */

import type { ProgrammaticSourceOptions } from '../controller/programmatic-source.js';
import { SyncSignal } from '../controller/synced.js';
import type { PoolNode } from './node.js';
import type { NodeEvent, NodePoolStatus, NodeSource } from './node-source.js';

/** A node source driven by method calls. */
export class ProgrammaticNodeSource implements NodeSource {
  private readonly nodes = new Map<string, PoolNode>();
  private readonly handlers = new Set<(event: NodeEvent) => void>();
  private readonly sync = new SyncSignal();
  /** The last status written back, per node. */
  readonly statuses = new Map<string, NodePoolStatus>();
  /** How many status writes there were, per node. */
  readonly statusWrites = new Map<string, number>();

  /**
   * @param nodes - nodes that exist from the start (no events for them).
   * @param options - see {@link ProgrammaticSourceOptions}.
   */
  constructor(nodes: readonly PoolNode[] = [], options: ProgrammaticSourceOptions = {}) {
    for (const n of nodes) this.nodes.set(n.name, n);
    if (options.synced ?? true) this.sync.mark();
  }

  /** {@inheritDoc NodeSource.list} */
  async list(): Promise<readonly PoolNode[]> {
    return [...this.nodes.values()];
  }

  /** {@inheritDoc NodeSource.whenSynced} */
  whenSynced(): Promise<void> {
    return this.sync.promise;
  }

  /** Say that every node that exists has been added (for a source made with `synced: false`). */
  markSynced(): void {
    this.sync.mark();
  }

  /** {@inheritDoc NodeSource.subscribe} */
  subscribe(handler: (event: NodeEvent) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** {@inheritDoc NodeSource.reportStatus} */
  reportStatus(node: string, status: NodePoolStatus): void {
    this.statuses.set(node, status);
    this.statusWrites.set(node, (this.statusWrites.get(node) ?? 0) + 1);
  }

  /** The total number of status writes. */
  get totalStatusWrites(): number {
    let n = 0;
    for (const v of this.statusWrites.values()) n += v;
    return n;
  }

  /** The node named `name`, if it exists. */
  get(name: string): PoolNode | undefined {
    return this.nodes.get(name);
  }

  /** A node joins (an `update` if it exists). */
  add(node: PoolNode): void {
    const type = this.nodes.has(node.name) ? 'update' : 'add';
    this.nodes.set(node.name, node);
    this.emit({ type, node });
  }

  /** Replace a node (an `add` if it does not exist). */
  update(node: PoolNode): void {
    this.add(node);
  }

  /** A node leaves; does nothing when it does not exist. */
  delete(name: string): void {
    const existing = this.nodes.get(name);
    if (existing === undefined) return;
    this.nodes.delete(name);
    this.statuses.delete(name);
    this.emit({ type: 'delete', node: existing });
  }

  private emit(event: NodeEvent): void {
    for (const h of this.handlers) h(event);
  }
}

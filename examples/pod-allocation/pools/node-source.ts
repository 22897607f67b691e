/**
 * {@link NodeSource}: where nodes come from, the same shape as `PodSource`:
 * a source lists the nodes it knows (for the initial sync and for garbage
 * collection), reports changes as events, says when it has listed
 * everything, and takes the pool status back (`reportStatus`, as
 * `PodSource.annotate` takes a pod's result). A Kubernetes node informer
 * fits it: `list()` is the lister, `subscribe` the event handler
 * registration, `whenSynced` its `HasSynced`, `reportStatus` a status patch.
 * @module
 */

import type { PoolFailureReason } from './failure.js';
import type { PoolNode } from './node.js';

/** A change of one node. `update` carries the new node; `delete` the last one known. */
export type NodeEvent =
  | { readonly type: 'add'; readonly node: PoolNode }
  | { readonly type: 'update'; readonly node: PoolNode }
  | { readonly type: 'delete'; readonly node: PoolNode };

/** A node's pool as the reconciler last saw it (what it writes back). */
export interface NodePoolStatus {
  readonly node: string;
  /** The subnet the pool draws from (undefined when the node has none). */
  readonly subnet: string | undefined;
  /** Idle entries in NB (claims in flight not counted). */
  readonly idle: number;
  /** Entries of this pool held by pods. */
  readonly inUse: number;
  readonly minIdle: number;
  readonly maxIdle: number;
  readonly batchSize: number;
  readonly idleTtlMs: number;
  /** Why the last reconcile failed, if it did. */
  readonly failure?: { readonly reason: PoolFailureReason; readonly message: string } | undefined;
}

/** Where nodes come from. */
export interface NodeSource {
  /** Every node the source knows now (every node that exists, once synced). */
  list(): Promise<readonly PoolNode[]>;
  /**
   * Resolves once the source has listed everything: from then on `list()`
   * holds every node that exists (a Kubernetes informer's `HasSynced`).
   * Nodes may arrive before it; the pools of nodes that are gone are
   * collected only after it, so that a node not listed yet never loses its
   * pool.
   */
  whenSynced(): Promise<void>;
  /** Receive events from now on; returns the unsubscribe function. */
  subscribe(handler: (event: NodeEvent) => void): () => void;
  /** Write a node's pool status back (optional; called only when it changed). */
  reportStatus?(node: string, status: NodePoolStatus): Promise<void> | void;
  /** Release what the source holds (watchers, timers). */
  close?(): Promise<void> | void;
}

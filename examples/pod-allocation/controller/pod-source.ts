/**
 * {@link PodSource}: where pods come from. A source lists the pods it knows
 * (for the initial sync and for garbage collection), reports changes as
 * events, and says when it has listed everything. A Kubernetes informer
 * fits this shape: `list()` is the lister, `subscribe` the event handler
 * registration, `whenSynced` its `HasSynced`, `annotate` a pod patch.
 * @module
 */

import type { Pod, PodKey } from './pod.js';

/** A change of one pod. `update` carries the new pod; `delete` the last one known. */
export type PodEvent =
  | { readonly type: 'add'; readonly pod: Pod }
  | { readonly type: 'update'; readonly pod: Pod }
  | { readonly type: 'delete'; readonly pod: Pod };

/** Where pods come from. */
export interface PodSource {
  /** Every pod the source knows now (every pod that exists, once synced). */
  list(): Promise<readonly Pod[]>;
  /**
   * Resolves once the source has listed everything: from then on `list()`
   * holds every pod that exists (a Kubernetes informer's `HasSynced`). Pods
   * may arrive before it (as `add` events, and in `list()`); garbage
   * collection waits for it, so that a pod not listed yet is never taken
   * for deleted.
   */
  whenSynced(): Promise<void>;
  /** Receive events from now on; returns the unsubscribe function. */
  subscribe(handler: (event: PodEvent) => void): () => void;
  /** Write result annotations back to the pod (optional). */
  annotate?(key: PodKey, annotations: Readonly<Record<string, string>>): Promise<void> | void;
  /** Release what the source holds (watchers, timers). */
  close?(): Promise<void> | void;
}

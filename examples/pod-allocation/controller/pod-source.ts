/**
 * {@link PodSource}: where pods come from. A source lists the pods it knows
 * (for the initial sync and for garbage collection) and reports changes as
 * events. A Kubernetes informer fits this shape: `list()` is the lister,
 * `subscribe` the event handler registration, `annotate` a pod patch.
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
  /** Every pod that exists now. */
  list(): Promise<readonly Pod[]>;
  /** Receive events from now on; returns the unsubscribe function. */
  subscribe(handler: (event: PodEvent) => void): () => void;
  /** Write result annotations back to the pod (optional). */
  annotate?(key: PodKey, annotations: Readonly<Record<string, string>>): Promise<void> | void;
  /** Release what the source holds (watchers, timers). */
  close?(): Promise<void> | void;
}

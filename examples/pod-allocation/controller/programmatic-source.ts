/**
 * {@link ProgrammaticPodSource}: a {@link PodSource} driven by calls
 * (`add`, `update`, `delete`), for tests, demos and embedding. It also keeps
 * the annotations the controller writes back. It is synced from the start,
 * unless made with `synced: false`: then it is synced once `markSynced()`
 * says that every pod that exists has been added.
 * @module
 */

import { type Pod, type PodKey, podKey } from './pod.js';
import type { PodEvent, PodSource } from './pod-source.js';
import { SyncSignal } from './synced.js';

/** Options of the programmatic sources. */
export interface ProgrammaticSourceOptions {
  /** Whether the source has listed everything from the start (default true; false: `markSynced()`). */
  readonly synced?: boolean | undefined;
}

/** A pod source driven by method calls. */
export class ProgrammaticPodSource implements PodSource {
  private readonly pods = new Map<PodKey, Pod>();
  private readonly handlers = new Set<(event: PodEvent) => void>();
  private readonly sync = new SyncSignal();
  /** The annotations written back by the controller, per pod. */
  readonly written = new Map<PodKey, Readonly<Record<string, string>>>();

  /**
   * @param pods - pods that exist from the start (no events for them).
   * @param options - see {@link ProgrammaticSourceOptions}.
   */
  constructor(pods: readonly Pod[] = [], options: ProgrammaticSourceOptions = {}) {
    for (const p of pods) this.pods.set(podKey(p), p);
    if (options.synced ?? true) this.sync.mark();
  }

  /** {@inheritDoc PodSource.list} */
  async list(): Promise<readonly Pod[]> {
    return [...this.pods.values()];
  }

  /** {@inheritDoc PodSource.whenSynced} */
  whenSynced(): Promise<void> {
    return this.sync.promise;
  }

  /** Say that every pod that exists has been added (for a source made with `synced: false`). */
  markSynced(): void {
    this.sync.mark();
  }

  /** {@inheritDoc PodSource.subscribe} */
  subscribe(handler: (event: PodEvent) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /** {@inheritDoc PodSource.annotate} */
  annotate(key: PodKey, annotations: Readonly<Record<string, string>>): void {
    this.written.set(key, annotations);
  }

  /** The pod with `key`, if it exists. */
  get(key: PodKey): Pod | undefined {
    return this.pods.get(key);
  }

  /** Create a pod (an `update` if it exists). */
  add(pod: Pod): void {
    const key = podKey(pod);
    const type = this.pods.has(key) ? 'update' : 'add';
    this.pods.set(key, pod);
    this.emit({ type, pod });
  }

  /** Replace a pod (an `add` if it does not exist). */
  update(pod: Pod): void {
    this.add(pod);
  }

  /** Delete a pod by key or pod; does nothing when it does not exist. */
  delete(pod: PodKey | Pick<Pod, 'namespace' | 'name'>): void {
    const key = typeof pod === 'string' ? pod : podKey(pod);
    const existing = this.pods.get(key);
    if (existing === undefined) return;
    this.pods.delete(key);
    this.written.delete(key);
    this.emit({ type: 'delete', pod: existing });
  }

  private emit(event: PodEvent): void {
    for (const h of this.handlers) h(event);
  }
}

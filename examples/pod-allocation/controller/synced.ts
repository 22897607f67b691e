/**
 * {@link SyncSignal}: a source's "has listed everything" signal, once. A
 * Kubernetes informer has it as `HasSynced` (its initial list is complete);
 * the sources here resolve `whenSynced()` through it, and the controllers
 * collect garbage only after it, so that an object the source has not
 * listed yet is never taken for deleted.
 * @module
 */

/** A one-shot signal: {@link SyncSignal.promise} resolves at the first {@link SyncSignal.mark}. */
export class SyncSignal {
  private done = false;
  private resolve: () => void = () => {};
  /** Resolves once marked. */
  readonly promise = new Promise<void>((resolve) => {
    this.resolve = resolve;
  });

  /** Whether it was marked. */
  get synced(): boolean {
    return this.done;
  }

  /** Mark it (later calls do nothing). */
  mark(): void {
    if (this.done) return;
    this.done = true;
    this.resolve();
  }
}

/**
 * {@link KeyedLock}: in-process mutual exclusion by name. The controller
 * takes the names of the shared rows a reconcile is about to create (a
 * namespace's or node's port group), so that two pods of a new namespace do
 * not both insert its port group (the second insert would violate the
 * unique index and fail the whole transaction).
 * @module
 */

/** Mutual exclusion by name. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Wait until every name is free, hold them, and resolve with the release
   * function. Names are taken in sorted order (no deadlock between callers).
   */
  async acquire(names: readonly string[]): Promise<() => void> {
    const releases: (() => void)[] = [];
    for (const name of [...new Set(names)].sort()) {
      const previous = this.tails.get(name) ?? Promise.resolve();
      let release!: () => void;
      const mine = new Promise<void>((r) => {
        release = r;
      });
      const tail = previous.then(() => mine);
      this.tails.set(name, tail);
      await previous;
      releases.push(() => {
        release();
        if (this.tails.get(name) === tail) this.tails.delete(name);
      });
    }
    return () => {
      for (const r of releases) r();
    };
  }

  /** How many names are held or waited for. */
  get size(): number {
    return this.tails.size;
  }
}

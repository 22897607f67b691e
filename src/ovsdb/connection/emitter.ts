/**
 * A small typed event emitter that runs in browsers and Node alike (it does not
 * use `node:events`).
 * @module
 */

/**
 * An event map: event name → tuple of listener arguments.
 *
 * ```ts
 * interface Events { data: [chunk: string]; close: [error: Error | undefined] }
 * ```
 */
export type EventMap<T> = { [K in keyof T]: readonly unknown[] };

/** A listener for event `K` of event map `T`. */
export type Listener<T extends EventMap<T>, K extends keyof T> = (...args: T[K]) => void;

/** Options of {@link TypedEmitter}. */
export interface TypedEmitterOptions {
  /**
   * Called when a listener throws. The error never propagates to `emit`'s
   * caller and never stops the other listeners. Default: `console.error`.
   */
  onListenerError?: (error: unknown, event: string) => void;
}

interface Entry<F> {
  readonly fn: F;
  readonly once: boolean;
}

/**
 * A typed event emitter.
 *
 * ```ts
 * const e = new TypedEmitter<{ tick: [n: number] }>();
 * e.on('tick', (n) => console.log(n));
 * e.emit('tick', 1); // logs 1, returns true
 * ```
 *
 * Listeners run synchronously in the order they were added. Adding or removing
 * listeners during an `emit` affects the next `emit`, not the current one. A
 * throwing listener is reported through {@link TypedEmitterOptions.onListenerError}
 * and the remaining listeners still run.
 */
export class TypedEmitter<T extends EventMap<T>> {
  private readonly listeners = new Map<keyof T, Entry<Listener<T, keyof T>>[]>();
  private readonly onListenerError: (error: unknown, event: string) => void;

  /** @param options - see {@link TypedEmitterOptions}. */
  constructor(options: TypedEmitterOptions = {}) {
    this.onListenerError =
      options.onListenerError ??
      ((error, event) => {
        console.error(`listener for "${event}" threw:`, error);
      });
  }

  /** Add `listener` for `event`. Adding the same function twice makes it run twice. */
  on<K extends keyof T>(event: K, listener: Listener<T, K>): this {
    return this.add(event, listener, false);
  }

  /** Add `listener` for the next `event` only. */
  once<K extends keyof T>(event: K, listener: Listener<T, K>): this {
    return this.add(event, listener, true);
  }

  /** Remove one registration of `listener` for `event` (the most recent one). */
  off<K extends keyof T>(event: K, listener: Listener<T, K>): this {
    const list = this.listeners.get(event);
    if (!list) return this;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i]!.fn === listener) {
        const next = list.slice(0, i).concat(list.slice(i + 1));
        if (next.length === 0) this.listeners.delete(event);
        else this.listeners.set(event, next);
        break;
      }
    }
    return this;
  }

  /** Remove every listener of `event`, or of every event when `event` is omitted. */
  removeAllListeners(event?: keyof T): this {
    if (event === undefined) this.listeners.clear();
    else this.listeners.delete(event);
    return this;
  }

  /** How many listeners `event` has. */
  listenerCount(event: keyof T): number {
    return this.listeners.get(event)?.length ?? 0;
  }

  /**
   * Call every listener of `event` with `args`, synchronously.
   * @returns true when `event` had listeners.
   */
  emit<K extends keyof T>(event: K, ...args: T[K]): boolean {
    const list = this.listeners.get(event);
    if (!list) return false;
    // The array is replaced, never mutated, on add/remove: `list` is a snapshot.
    for (const entry of list) {
      if (entry.once) this.removeEntry(event, entry);
      try {
        (entry.fn as Listener<T, K>)(...args);
      } catch (error) {
        this.report(error, event);
      }
    }
    return true;
  }

  private add<K extends keyof T>(event: K, listener: Listener<T, K>, once: boolean): this {
    if (typeof listener !== 'function') {
      throw new TypeError(`listener for "${String(event)}" must be a function`);
    }
    const list = this.listeners.get(event) ?? [];
    this.listeners.set(event, [...list, { fn: listener as unknown as Listener<T, keyof T>, once }]);
    return this;
  }

  private removeEntry(event: keyof T, entry: Entry<Listener<T, keyof T>>): void {
    const list = this.listeners.get(event);
    if (!list) return;
    const next = list.filter((e) => e !== entry);
    if (next.length === 0) this.listeners.delete(event);
    else this.listeners.set(event, next);
  }

  private report(error: unknown, event: keyof T): void {
    try {
      this.onListenerError(error, String(event));
    } catch {
      // A failing error hook must not break the emitter either.
    }
  }
}

/**
 * The replica's ordered event queue: row events and queued callbacks (the
 * client's status events) in one FIFO, delivered one at a time from a
 * microtask, never from inside the socket reader; a handler's promise is
 * awaited before the next event. The queue length drives backpressure: at
 * the high-water mark the owner is asked to pause reading, at the low-water
 * mark to resume (see `replica.ts` for the full model).
 * @module
 */

import type { Row } from '../../rows/codec.js';

/** The kinds of row event. */
export type RowEventKind = 'insert' | 'update' | 'delete';

/**
 * Where an event comes from: the server update that carried the change.
 * ovsdb-server may report several transactions in one update (it flushes a
 * session's monitors once per main-loop iteration, and merges the changes it
 * holds back while the session has unsent output), so one update is one
 * step between two states the database went through, in commit order.
 */
export interface EventContext {
  /**
   * The number of the update (monitor reply or notification) the change
   * came in; increasing. Events with the same batch happened together.
   */
  readonly batch: number;
  /** The update's last transaction id (`update3` and `monitor_cond_since` only). */
  readonly txnId: string | undefined;
}

/**
 * A row event handler: `insert` and `delete` receive the row (for `delete`,
 * the row as it was); `update` receives the new row and the old one. The last
 * argument tells which server update the change came in. A returned promise
 * is awaited before the next event is delivered.
 */
export type RowEventHandler<R, K extends RowEventKind> = K extends 'update'
  ? (row: R, old: R, context: EventContext) => void | Promise<void>
  : (row: R, context: EventContext) => void | Promise<void>;

/** Queue and delivery counters of a replica. */
export interface ReplicaEventStats {
  /** Events queued so far. */
  queued: number;
  /** Events delivered so far (all their handlers returned or settled). */
  delivered: number;
  /** The longest the queue has been. */
  maxQueueLength: number;
  /** How many times the replica asked to pause reading. */
  pauses: number;
}

/** Reports an error thrown by a handler or hook, with what threw. */
export type ErrorReport = (error: unknown, context: string) => void;

/** A registered handler. */
export interface HandlerEntry {
  readonly fn: (...args: never[]) => unknown;
  /** Only events with a higher sequence number reach this handler. */
  readonly since: number;
}

/** What emits row events: a table, by name, with its handlers per kind. */
export interface EventSource {
  readonly name: string;
  readonly handlers: Record<RowEventKind, HandlerEntry[]>;
}

/** Options of {@link EventQueue}. */
export interface EventQueueOptions {
  /** Queue length at which `onPressure` asks to pause reading. Default 10,000. */
  readonly highWaterMark?: number | undefined;
  /** Queue length at which reading resumes. Default half the high-water mark. */
  readonly lowWaterMark?: number | undefined;
  /** Called with true to ask the owner to stop reading, and false to resume. */
  readonly onPressure?: ((pause: boolean) => void) | undefined;
  /** Where handler errors go (it must not throw). */
  readonly report: ErrorReport;
}

/** One queued event. */
type QueuedEvent =
  | {
      readonly seq: number;
      readonly state: EventSource;
      readonly kind: RowEventKind;
      readonly row: Row;
      readonly old: Row | undefined;
      readonly context: EventContext;
    }
  | { readonly seq: number; readonly state: undefined; readonly deliver: () => unknown };

const YIELD_EVERY = 1000;

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    (typeof v === 'object' || typeof v === 'function') &&
    v !== null &&
    typeof (v as { then?: unknown }).then === 'function'
  );
}

/** Let I/O callbacks run (setImmediate in Node, a zero timeout elsewhere). */
const yieldToEventLoop = (): Promise<void> =>
  new Promise((resolve) => {
    if (typeof setImmediate === 'function') setImmediate(resolve);
    else setTimeout(resolve, 0);
  });

/** `onHandlerError` made safe to call: an error it throws is dropped. */
export function guardReport(onHandlerError: ErrorReport): ErrorReport {
  return (error, context) => {
    try {
      onHandlerError(error, context);
    } catch {
      // Nothing left to report to.
    }
  };
}

/** The ordered event queue of a replica, with backpressure. */
export class EventQueue {
  /** Queue and delivery counters. */
  readonly stats: ReplicaEventStats = {
    queued: 0,
    delivered: 0,
    maxQueueLength: 0,
    pauses: 0,
  };

  private readonly highWater: number;
  private readonly lowWater: number;
  private readonly onPressure: ((pause: boolean) => void) | undefined;
  private readonly report: ErrorReport;

  private context: EventContext = { batch: 0, txnId: undefined };
  private queue: (QueuedEvent | undefined)[] = [];
  private head = 0;
  private seq = 0;
  private pumping = false;
  private paused = false;
  private drainWaiters: (() => void)[] = [];

  constructor(options: EventQueueOptions) {
    this.highWater = Math.max(1, options.highWaterMark ?? 10_000);
    this.lowWater = Math.min(
      this.highWater - 1,
      options.lowWaterMark ?? Math.floor(this.highWater / 2),
    );
    this.onPressure = options.onPressure;
    this.report = options.report;
  }

  /**
   * Add `fn` to `list`: it receives the events queued from now on. Returns
   * a function that removes it.
   */
  subscribe(list: HandlerEntry[], fn: HandlerEntry['fn']): () => void {
    const entry: HandlerEntry = { fn, since: this.seq };
    list.push(entry);
    return () => {
      const i = list.indexOf(entry);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /**
   * Start a new batch: the changes emitted from now on came in one server
   * update (with transaction id `txnId`, when known).
   */
  beginBatch(txnId?: string): void {
    this.context = { batch: this.context.batch + 1, txnId };
  }

  /** Queue a `kind` event of `source` (when it has handlers for `kind`). */
  emit(source: EventSource, kind: RowEventKind, row: Row, old: Row | undefined): void {
    if (source.handlers[kind].length === 0) return;
    this.push({ seq: ++this.seq, state: source, kind, row, old, context: this.context });
  }

  /** Queue `deliver` behind the events queued so far; a returned promise is awaited like a handler's. */
  enqueueCallback(deliver: () => unknown): void {
    this.push({ seq: ++this.seq, state: undefined, deliver });
  }

  /** Events queued and not yet delivered. */
  get length(): number {
    return this.queue.length - this.head;
  }

  /** Resolves when every queued event has been delivered. */
  drained(): Promise<void> {
    if (this.length === 0 && !this.pumping) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private push(event: QueuedEvent): void {
    this.queue.push(event);
    this.stats.queued++;
    const length = this.length;
    if (length > this.stats.maxQueueLength) this.stats.maxQueueLength = length;
    if (!this.paused && length >= this.highWater) {
      this.paused = true;
      this.stats.pauses++;
      this.pressure(true);
    }
    if (!this.pumping) {
      this.pumping = true;
      queueMicrotask(() => {
        this.pump().catch((e: unknown) => this.report(e, 'event delivery'));
      });
    }
  }

  private pressure(pause: boolean): void {
    if (!this.onPressure) return;
    try {
      this.onPressure(pause);
    } catch (e) {
      this.report(e, 'pressure hook');
    }
  }

  private async pump(): Promise<void> {
    let sinceYield = 0;
    try {
      while (this.head < this.queue.length) {
        const event = this.queue[this.head]!;
        this.queue[this.head] = undefined;
        this.head++;
        // Handlers that return nothing run back to back, without a promise step each.
        const pending = this.deliver(event);
        if (pending !== undefined) await pending;
        this.stats.delivered++;
        if (this.head > 4096 && this.head * 2 > this.queue.length) {
          this.queue = this.queue.slice(this.head);
          this.head = 0;
        }
        if (this.paused && this.length <= this.lowWater) {
          this.paused = false;
          this.pressure(false);
        }
        if (++sinceYield >= YIELD_EVERY) {
          sinceYield = 0;
          await yieldToEventLoop();
        }
      }
    } finally {
      this.queue = [];
      this.head = 0;
      this.pumping = false;
      if (this.paused) {
        this.paused = false;
        this.pressure(false);
      }
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** Deliver `event`; returns a promise only when a handler returned one (to await before going on). */
  private deliver(event: QueuedEvent): Promise<void> | undefined {
    if (event.state === undefined) return this.call(event.deliver, [], 'status handler');
    const { state, kind, row, old, seq, context } = event;
    const handlers = state.handlers[kind];
    if (handlers.length === 0) return undefined;
    // A snapshot: handlers added or removed meanwhile affect the next event.
    const list = handlers.length === 1 ? handlers : handlers.slice();
    const args = kind === 'update' ? [row, old, context] : [row, context];
    for (let i = 0; i < list.length; i++) {
      const h = list[i]!;
      if (h.since >= seq) continue;
      const pending = this.call(h.fn, args, `${state.name} ${kind} handler`);
      if (pending !== undefined)
        return pending.then(() => this.deliverRest(list, i + 1, event, args));
    }
    return undefined;
  }

  /** The handlers of `list` from `from` on, after one of them returned a promise. */
  private async deliverRest(
    list: readonly HandlerEntry[],
    from: number,
    event: Extract<QueuedEvent, { state: EventSource }>,
    args: unknown[],
  ): Promise<void> {
    for (let i = from; i < list.length; i++) {
      const h = list[i]!;
      if (h.since >= event.seq) continue;
      const pending = this.call(h.fn, args, `${event.state.name} ${event.kind} handler`);
      if (pending !== undefined) await pending;
    }
  }

  /** Call a handler; a returned promise is awaited (its rejection reported) by the caller. */
  private call(
    fn: (...args: never[]) => unknown,
    args: unknown[],
    context: string,
  ): Promise<void> | undefined {
    let r: unknown;
    try {
      r = (fn as (...a: unknown[]) => unknown)(...args);
    } catch (e) {
      this.report(e, context);
      return undefined;
    }
    if (!isThenable(r)) return undefined;
    return Promise.resolve(r).then(
      () => undefined,
      (e: unknown) => this.report(e, context),
    );
  }
}

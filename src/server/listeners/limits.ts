/**
 * The bounds of the in-memory server's connections, which keep one client
 * (or many) from making the server buffer without end:
 *
 * - **`maxConnections`** (default: none, as ovsdb-server, which accepts
 *   connections until it runs out of file descriptors): connections beyond
 *   it are refused as they arrive (closed at once; WebSocket upgrades get
 *   HTTP 503), with a log line.
 * - **`maxInputBytes`** (default {@link DEFAULT_MAX_INPUT_BYTES}, 256 MiB):
 *   the bytes of incomplete messages held for all connections together.
 *   Each connection's message is already bounded by the framer's
 *   `maxMessageBytes` (64 MiB); without a total, many connections each
 *   sending most of a message held it all. The connection whose data takes
 *   the total past the bound is dropped, with a log line.
 * - **`maxBacklogBytes`** (default {@link DEFAULT_MAX_BACKLOG_BYTES}, 256
 *   MiB): what waits for one client that does not read. As ovsdb-server, the
 *   server stops reading a client whose socket is full and stops sending it
 *   monitor updates: its monitors' changes merge per row (a row changed a
 *   thousand times waits as one update), so memory follows the rows changed,
 *   not the transactions. The backlog counted is the size (JSON text) of
 *   those merged updates plus what was written to the client after its
 *   socket filled up (replies to waiting transactions, probes, lock
 *   notifications; what is written in the same turn as the message that
 *   filled it, such as the rest of one round of monitor updates, is not
 *   counted, so a single large reply or update never trips the bound). Past
 *   the bound the client is
 *   disconnected, with a log line; its merged updates are dropped.
 *   ovsdb-server has no such bound for clients (its own RAFT connections
 *   have one, `cluster/set-backlog-threshold`).
 *
 * Unix, tcp and ssl connections are counted exactly. WebSocket connections
 * count the bytes received since their last complete message (a frame's
 * headers included, within one read of the exact figure).
 * @module
 */

/** Default {@link ConnectionLimitOptions.maxInputBytes}: 256 MiB. */
export const DEFAULT_MAX_INPUT_BYTES = 256 * 1024 * 1024;

/** Default {@link ConnectionLimitOptions.maxBacklogBytes}: 256 MiB. */
export const DEFAULT_MAX_BACKLOG_BYTES = 256 * 1024 * 1024;

/** The bounds; see the module documentation. 0 or `Infinity`: no bound. */
export interface ConnectionLimitOptions {
  /** Most connections at once over the listeners (in-process ones are not counted). Default: no limit. */
  readonly maxConnections?: number | undefined;
  /** Most bytes of incomplete messages held for all connections together. Default 256 MiB. */
  readonly maxInputBytes?: number | undefined;
  /** Most bytes waiting for one client that does not read. Default 256 MiB. */
  readonly maxBacklogBytes?: number | undefined;
}

/** Counters of the bounds, for tests and diagnostics. */
export interface ConnectionLimitStats {
  /** Bytes of incomplete messages held now, over every connection. */
  readonly inputBytes: number;
  /** The most ever held at once. */
  readonly peakInputBytes: number;
  /** Connections refused by `maxConnections`. */
  readonly refusedConnections: number;
  /** Connections dropped by `maxInputBytes`. */
  readonly inputDrops: number;
  /** Connections dropped by `maxBacklogBytes`. */
  readonly backlogDrops: number;
  /** The largest backlog any connection had. */
  readonly peakBacklogBytes: number;
}

/**
 * The bounds of one server and their counters, shared by its listeners and
 * channels.
 */
export class ConnectionLimits {
  readonly maxConnections: number;
  readonly maxInputBytes: number;
  readonly maxBacklogBytes: number;
  private inputBytes = 0;
  private peakInputBytes = 0;
  private readonly held = new Map<object, number>();
  refusedConnections = 0;
  inputDrops = 0;
  backlogDrops = 0;
  peakBacklogBytes = 0;

  /** @throws RangeError for a bound that is negative or not a number. */
  constructor(options: ConnectionLimitOptions = {}) {
    this.maxConnections = bound('maxConnections', options.maxConnections, 0) || Infinity;
    this.maxInputBytes = bound('maxInputBytes', options.maxInputBytes, DEFAULT_MAX_INPUT_BYTES);
    this.maxBacklogBytes = bound(
      'maxBacklogBytes',
      options.maxBacklogBytes,
      DEFAULT_MAX_BACKLOG_BYTES,
    );
  }

  /**
   * Record that connection `owner` now holds `bytes` of an incomplete
   * message. False when that takes the total past `maxInputBytes`: the
   * caller then drops the connection (and calls {@link ConnectionLimits.release}).
   */
  holdInput(owner: object, bytes: number): boolean {
    const before = this.held.get(owner) ?? 0;
    if (bytes === before) return true;
    const total = this.inputBytes - before + bytes;
    if (bytes > before && total > this.maxInputBytes) {
      this.inputDrops++;
      return false;
    }
    if (bytes === 0) this.held.delete(owner);
    else this.held.set(owner, bytes);
    this.inputBytes = total;
    if (total > this.peakInputBytes) this.peakInputBytes = total;
    return true;
  }

  /** The bytes of incomplete messages held now, over every connection. */
  get totalInput(): number {
    return this.inputBytes;
  }

  /** Forget what connection `owner` held (it closed). */
  release(owner: object): void {
    const before = this.held.get(owner);
    if (before === undefined) return;
    this.held.delete(owner);
    this.inputBytes -= before;
  }

  /** A backlog meter for one connection; `over` drops it (called once, on a microtask). */
  meter(over: (bytes: number) => void): BacklogMeter {
    return new BacklogMeter(this, over);
  }

  stats(): ConnectionLimitStats {
    return {
      inputBytes: this.inputBytes,
      peakInputBytes: this.peakInputBytes,
      refusedConnections: this.refusedConnections,
      inputDrops: this.inputDrops,
      backlogDrops: this.backlogDrops,
      peakBacklogBytes: this.peakBacklogBytes,
    };
  }
}

/**
 * The backlog of one connection (see the module documentation): bytes
 * written since its socket filled up, plus the merged monitor updates
 * waiting for it.
 */
export class BacklogMeter {
  /** Bytes written since the connection became backlogged. */
  private written = 0;
  /** Bytes of merged monitor updates waiting. */
  private merged = 0;
  private tripped = false;

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly over: (bytes: number) => void,
  ) {}

  /** The backlog now, in bytes. */
  get bytes(): number {
    return this.written + this.merged;
  }

  /** True once the bound was passed (the connection is being dropped). */
  get exceeded(): boolean {
    return this.tripped;
  }

  /** `bytes` more were written while the connection was backlogged. */
  wrote(bytes: number): void {
    this.written += bytes;
    this.check();
  }

  /** The merged monitor updates waiting grew (or shrank) by `delta` bytes. */
  mergedChange(delta: number): void {
    this.merged += delta;
    this.check();
  }

  /** The connection drained: what was written has been sent. */
  drained(): void {
    this.written = 0;
  }

  private check(): void {
    const b = this.written + this.merged;
    if (b > this.limits.peakBacklogBytes) this.limits.peakBacklogBytes = b;
    if (b <= this.limits.maxBacklogBytes || this.tripped) return;
    this.tripped = true;
    this.limits.backlogDrops++;
    queueMicrotask(() => this.over(b));
  }
}

function bound(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(value >= 0)) throw new RangeError(`${name} must be a non-negative number, got ${value}`);
  return value === 0 && name !== 'maxConnections' ? Infinity : value;
}

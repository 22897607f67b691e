/**
 * The bytes a bridge holds for its clients, in both directions, and their
 * bounds. A session holds:
 * - from its client: a frame being received (counted per read, from the raw
 *   socket, until the frame is whole), frames waiting for the server
 *   connection to open, and what the server socket has not written yet;
 * - from its server: a message being received (the framer's partial
 *   message) and what was sent to the client but not yet written to its
 *   socket;
 * - its requests waiting for a reply: what each costs the bridge (its
 *   record and map entries, 400 bytes, plus its id and method; see `ids.ts`).
 *
 * Flow control keeps each direction small in the steady state (see
 * `bridge.ts`); the bounds catch what it cannot: one message as large as
 * `maxMessageBytes`, many clients at once. A session whose holdings pass
 * `maxSessionBufferedBytes`, or whose growth takes the bridge's total past
 * `maxBufferedBytes`, is closed with 1013 (try again later) and a log line.
 * A message to a client is checked before it is queued, so the bounds hold
 * to within one read (64 KiB) of the socket.
 * @module
 */

/** The bridge-wide total and bounds, with their counters. */
export class BufferBudget {
  /** Bytes held now, over every session. */
  total = 0;
  /** The most ever held at once, over every session. */
  peakTotal = 0;
  /** The most one session ever held. */
  peakSession = 0;
  /** Sessions closed for passing a bound. */
  drops = 0;

  constructor(
    /** Bound of the total. */
    readonly maxTotal: number,
    /** Bound of one session. */
    readonly maxSession: number,
  ) {}
}

/** One session's share of a {@link BufferBudget}. */
export class SessionBuffers {
  private held = 0;

  constructor(private readonly budget: BufferBudget) {}

  /** Bytes this session holds, as last reported. */
  get bytes(): number {
    return this.held;
  }

  /**
   * Whether holding `bytes` (instead of what was last reported) keeps within
   * the bounds; undefined when it does, else why not. Growth only is
   * refused: a session may always shrink.
   */
  check(bytes: number): string | undefined {
    if (bytes <= this.held) return undefined;
    const b = this.budget;
    if (bytes > b.maxSession) {
      return `the session would buffer ${bytes} bytes, over the ${b.maxSession}-byte bound of a session`;
    }
    const total = b.total - this.held + bytes;
    if (total > b.maxTotal) {
      return `the bridge would buffer ${total} bytes for its clients, over its ${b.maxTotal}-byte bound`;
    }
    return undefined;
  }

  /** Record that the session now holds `bytes`. */
  set(bytes: number): void {
    const b = this.budget;
    b.total += bytes - this.held;
    this.held = bytes;
    if (bytes > b.peakSession) b.peakSession = bytes;
    if (b.total > b.peakTotal) b.peakTotal = b.total;
  }

  /** The session is gone: it holds nothing. */
  release(): void {
    this.set(0);
  }
}

/**
 * What a JSON-RPC peer and each of its requests take: the peer's options,
 * the one options type of every send ({@link SendOptions}), and where a
 * request reports ({@link ReplyHandler}). Types only, so that the layers
 * above name them without the peer.
 * @module
 */

import type { MemberReviver } from './split-decoder.js';

/** Options of the JSON-RPC peer (`JsonRpcPeer`, rpc.ts). */
export interface PeerOptions {
  /**
   * Largest incoming message, in bytes: it must admit the largest reply
   * asked for (an initial monitor reply). Default
   * `DEFAULT_MAX_REPLY_BYTES` (1 GiB). A larger one closes the peer
   * with a {@link ProtocolError} as soon as the limit is crossed.
   */
  maxMessageBytes?: number;
  /**
   * Largest message that begins while no request of this peer is pending
   * (so that it cannot be a reply: a notification or a request from the
   * other side), in bytes; at most `maxMessageBytes`. Default
   * `DEFAULT_MAX_UNSOLICITED_BYTES` (64 MiB). See `limits.ts`.
   */
  maxUnsolicitedBytes?: number;
  /** Default per-request timeout in ms; undefined = none. */
  requestTimeoutMs?: number;
  /**
   * Most bytes (UTF-8) of messages waiting for the transport to drain;
   * default {@link DEFAULT_MAX_WRITE_QUEUE_BYTES} (64 MiB), `Infinity` for
   * no bound. A message that would take the queue past it (unless the queue
   * is empty: one message of any size may always wait) closes the peer with
   * a {@link WriteQueueFullError}: the other side is not reading.
   */
  maxWriteQueueBytes?: number;
  /**
   * Requests from the other side (besides echo, which is always answered with
   * the same params). Return the result or throw to send an error: an
   * {@link RpcError}'s `error` is sent as is, any other error as
   * `{"error": <message>}`. Without this hook every such request gets the
   * error `"unknown method"`, as ovsdb-server answers.
   */
  onRequest?: (method: string, params: readonly unknown[]) => unknown | Promise<unknown>;
  /** Notifications from the other side, in arrival order, synchronously. */
  onNotification?: (method: string, params: readonly unknown[]) => void;
  /** Called once when the peer closes; `error` is undefined for a local clean close. */
  onClose?: (error: Error | undefined) => void;
  /**
   * Called when one of the hooks above throws (or a request's `onSent` or
   * {@link ReplyHandler} does). The peer keeps
   * running. Default: `console.error`.
   */
  onHookError?: (error: unknown) => void;
}

/**
 * What one request takes besides its method and params: how long to wait
 * for the reply, a signal that gives up waiting, and a hook called as it is
 * sent. The one options type of every send: the connection's methods, and
 * the database client's transactions (raw and typed) extend it.
 */
export interface SendOptions {
  /**
   * Give up waiting for the reply after this many ms, with a
   * {@link RequestTimeoutError} (a late reply is then ignored); overrides
   * {@link PeerOptions.requestTimeoutMs}.
   */
  readonly timeoutMs?: number | undefined;
  /**
   * Aborting gives up waiting at once, with the signal's reason; an already
   * aborted signal sends nothing.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * When the wait is given up after the request was sent (`signal` aborts,
   * or `timeoutMs` passes), also send `cancel` for it: ovsdb-server then
   * drops a transaction it has not committed yet (a `wait` still blocking).
   */
  readonly cancelOnAbort?: boolean | undefined;
  /**
   * Called with the request's id just before it is written: from then on
   * it may take effect. The id is what `cancel` takes.
   */
  readonly onSent?: ((id: number) => void) | undefined;
}

/** {@link SendOptions} of a request whose reply may be large (a monitor's initial contents). */
export interface LargeReplyOptions extends SendOptions {
  /**
   * For a reply large enough to be decoded as its bytes arrive (over the
   * framer's split threshold, 8 MiB), what the members of its objects
   * become as they are parsed: see {@link ReplyReviver}. Only where the
   * reply's `id` comes before its `result`, as ovsdb-server writes it.
   */
  readonly reviveLargeReply?: ReplyReviver | undefined;
}

/**
 * Where a request sent with `JsonRpcPeer.send` reports: its id as it
 * is written, then exactly once either the reply's result or why none will
 * come. A caller that keeps its own state per request (a transaction) is its
 * own handler, so that a request costs no promise or closure.
 */
export interface ReplyHandler {
  /** The request's id, just before it is written (it may take effect from then on). */
  readonly onSent?: ((id: number) => void) | undefined;
  /** The reply's `result`. */
  onReply(result: unknown): void;
  /**
   * No result will come: an `RpcError` (the reply's `error`), a
   * `RequestTimeoutError`, the signal's reason, a
   * `ConnectionClosedError`, or a `TypeError` for params that cannot
   * be sent (then before `onSent`).
   */
  onError(error: unknown): void;
}

/**
 * Called as each object of a large reply's `result` opens, with its path
 * below `result` (`[]` for `result` itself, `[2, 'Logical_Switch']` for a
 * table of a `monitor_cond_since` reply) and the object its members will
 * be stored in (empty yet: the reply holds it there): returns what each member
 * (`key`, parsed value) of that object is stored as (undefined: the member
 * is left out, as with a `JSON.parse` reviver), or undefined to store
 * them as parsed. Lets a caller turn rows into their final form while the
 * rest of the reply is still arriving, so that their parsed form does not
 * outlive them. A member reviver that throws is reported
 * ({@link PeerOptions.onHookError}) and the member is stored as parsed. The
 * reply may still turn out malformed: what was revived is then dropped with
 * it. Small replies, objects small enough to be parsed whole, and objects
 * more than `REVIVE_DEPTH` (8) levels below the message are not revived.
 */
export type ReplyReviver = (
  path: readonly (string | number)[],
  target: Readonly<Record<string, unknown>>,
) => MemberReviver | undefined;

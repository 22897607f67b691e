/**
 * A JSON-RPC 1.0 peer in the dialect ovsdb-server speaks, over a
 * {@link Transport}.
 *
 * The dialect: messages carry only `method`, `params`, `result`, `error` and
 * `id` (ovsdb-server drops a connection that sends anything else, `jsonrpc`
 * included); `params` is always an array; notifications have `"id": null`;
 * replies are `{"id", "result", "error": null}` and error replies
 * `{"id", "error"}` (with or without `result`). Requests this peer sends get
 * increasing numeric ids.
 *
 * Integers are exact over int64 both ways: messages are written by
 * `stringifyJson` (a bigint as its digits) and read by the framer or
 * `parseJsonMessage` (an integer beyond ±(2^53−1) as a bigint). Both apply
 * OVS's JSON limits (nesting deeper than 1,000 levels, a string holding
 * U+0000): a message breaking one closes the peer with a
 * {@link ProtocolError}, as any malformed message does.
 *
 * This module imports nothing from Node, so it also runs in browsers.
 * @module
 */

import { ConnectionClosedError, ProtocolError, RequestTimeoutError, RpcError } from './errors.js';
import { JsonStreamFramer } from './framer.js';
import { errorText, preview } from './json.js';
import { stringifyJson } from './json-stringify.js';
import { parseJsonMessage } from './json-text.js';
import { DEFAULT_MAX_REPLY_BYTES, DEFAULT_MAX_UNSOLICITED_BYTES } from './limits.js';
import { errorPayload, isThenable, messageProblem } from './rpc-message.js';
import type {
  LargeReplyOptions,
  PeerOptions,
  ReplyHandler,
  ReplyReviver,
  SendOptions,
} from './rpc-options.js';
import type { MemberReviver } from './split-decoder.js';
import type { Transport } from './transport.js';
import { utf8Length } from './utf8.js';
import { DEFAULT_MAX_WRITE_QUEUE_BYTES, WriteQueue } from './write-queue.js';

export { DEFAULT_MAX_WRITE_QUEUE_BYTES } from './write-queue.js';

interface Pending {
  readonly method: string;
  readonly handler: ReplyHandler;
  readonly revive: ReplyReviver | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

const NO_OPTIONS: SendOptions = {};

/** A {@link ReplyHandler} that settles a promise (what {@link JsonRpcPeer.request} uses). */
class PromiseHandler implements ReplyHandler {
  constructor(
    readonly onReply: (result: unknown) => void,
    readonly onError: (error: unknown) => void,
    readonly onSent: ((id: number) => void) | undefined,
  ) {}
}

/**
 * One end of a JSON-RPC 1.0 conversation.
 *
 * ```ts
 * const peer = new JsonRpcPeer(transport);
 * const dbs = await peer.request<string[]>('list_dbs', []);
 * // sends {"method":"list_dbs","params":[],"id":0}
 * ```
 *
 * Incoming messages are handled synchronously in arrival order, so a
 * notification that arrives before a reply is delivered before that reply's
 * promise settles. Any malformed message closes the peer with a
 * {@link ProtocolError}; a reply to an unknown id is ignored. When the peer
 * closes, every pending request rejects with a {@link ConnectionClosedError}
 * (whose `cause` is the reason, when there is one). The peer never throws
 * asynchronously and never leaves a rejection of its own unhandled.
 */
export class JsonRpcPeer {
  /** Resolves when the peer closes, with the reason (undefined for a local clean close). */
  readonly closed: Promise<Error | undefined>;

  private readonly transport: Transport;
  private readonly options: PeerOptions;
  private readonly maxMessageBytes: number;
  private readonly maxUnsolicitedBytes: number;
  private readonly framer: JsonStreamFramer | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private isClosedFlag = false;
  private closeText = '';
  private closeError: Error | undefined;
  private resolveClosed!: (error: Error | undefined) => void;

  private readonly out: WriteQueue;

  /**
   * Attach to `transport` (which must not have a consumer yet).
   * @param options - see {@link PeerOptions}.
   */
  constructor(transport: Transport, options: PeerOptions = {}) {
    this.transport = transport;
    this.options = options;
    this.out = new WriteQueue(
      transport,
      options.maxWriteQueueBytes ?? DEFAULT_MAX_WRITE_QUEUE_BYTES,
      {
        full: (error) => this.shutdown(error, error.message),
        failed: (e) =>
          this.shutdown(
            e instanceof Error ? e : new ConnectionClosedError(errorText(e)),
            `write failed: ${errorText(e)}`,
          ),
      },
    );
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_REPLY_BYTES;
    this.maxUnsolicitedBytes = Math.min(
      this.maxMessageBytes,
      options.maxUnsolicitedBytes ?? DEFAULT_MAX_UNSOLICITED_BYTES,
    );
    this.framer =
      transport.kind === 'stream'
        ? new JsonStreamFramer({
            maxMessageBytes: this.maxMessageBytes,
            messageLimit: () => this.messageLimit(),
            splitReviverFor: (path, message, target) => this.reviverFor(path, message, target),
          })
        : undefined;
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    transport.attach({
      data: (chunk) => this.onData(chunk),
      message: (text) => this.onMessage(text),
      drain: () => this.out.onDrain(),
      close: (error) => this.onTransportClose(error),
    });
  }

  /** True once the peer is closed (locally, by the transport, or by a protocol error). */
  get isClosed(): boolean {
    return this.isClosedFlag;
  }

  /** Requests sent (or queued) and not yet answered, timed out, aborted or cancelled. */
  get pendingRequests(): number {
    return this.pending.size;
  }

  /**
   * The member reviver of the object at `path` of a split message: the
   * {@link RequestOptions.reviveLargeReply} of the pending request that
   * the message's `id` (read before its `result`) names.
   */
  private reviverFor(
    path: readonly (string | number)[],
    message: Readonly<Record<string, unknown>>,
    target: Readonly<Record<string, unknown>>,
  ): MemberReviver | undefined {
    if (path[0] !== 'result' || Object.hasOwn(message, 'method')) return undefined;
    const id = message['id'];
    const revive = typeof id === 'number' ? this.pending.get(id)?.revive : undefined;
    if (revive === undefined) return undefined;
    let member: MemberReviver | undefined;
    try {
      member = revive(path.slice(1), target);
    } catch (e) {
      this.reportHookError(e);
      return undefined;
    }
    if (member === undefined) return undefined;
    return (key, value) => {
      try {
        return member(key, value);
      } catch (e) {
        this.reportHookError(e);
        return value;
      }
    };
  }

  /** The limit of a message beginning now: a reply may be on its way only while a request is pending. */
  private messageLimit(): number {
    return this.pending.size > 0 ? this.maxMessageBytes : this.maxUnsolicitedBytes;
  }

  /** Messages waiting for the transport to drain (write backpressure). */
  get queuedWrites(): number {
    return this.out.length;
  }

  /** Bytes (UTF-8) of the messages waiting for the transport to drain. */
  get queuedWriteBytes(): number {
    return this.out.bytes;
  }

  /** The most bytes that ever waited at once (see {@link JsonRpcPeer.queuedWriteBytes}). */
  get peakQueuedWriteBytes(): number {
    return this.out.peakBytes;
  }

  /** The transport's description, e.g. `unix:/run/ovn/ovnnb_db.sock`. */
  get description(): string {
    return this.transport.description;
  }

  /**
   * Resolves when nothing is queued and the transport has accepted every
   * message (it did not ask to wait for `drain`), or when the peer closes.
   */
  drained(): Promise<void> {
    return this.out.drained();
  }

  /**
   * Send a request and wait for its reply's `result`.
   *
   * ```ts
   * await peer.request('echo', ['hi'], { timeoutMs: 1000 });
   * // sends {"method":"echo","params":["hi"],"id":3} → ['hi']
   * ```
   *
   * Rejects as {@link ReplyHandler.onError} describes: with
   * {@link RpcError} when the reply's `error` is not null, with
   * {@link RequestTimeoutError} on timeout, with the signal's reason when
   * `signal` aborts, with {@link ConnectionClosedError} when the peer is or
   * becomes closed, and with a `TypeError` when `params` cannot be
   * serialized.
   */
  request<R = unknown>(
    method: string,
    params: readonly unknown[],
    options: LargeReplyOptions = NO_OPTIONS,
  ): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.send(
        method,
        params,
        new PromiseHandler(resolve as (value: unknown) => void, reject, options.onSent),
        options,
        options.reviveLargeReply,
      );
    });
  }

  /**
   * Send a request and report to `handler`: its id as it is written, then
   * its reply's `result` or why none will come (see {@link ReplyHandler}).
   * `options` are those of {@link JsonRpcPeer.request}, but for `onSent`,
   * which the handler's replaces. A failure before sending (closed peer,
   * aborted signal, params that cannot be serialized) reaches the handler
   * at once, before `send` returns.
   */
  send(
    method: string,
    params: readonly unknown[],
    handler: ReplyHandler,
    options: SendOptions = NO_OPTIONS,
    revive?: ReplyReviver,
  ): void {
    if (this.isClosedFlag) {
      handler.onError(
        new ConnectionClosedError(
          `${method}: ${this.closeText}`,
          this.closeError ? { cause: this.closeError } : undefined,
        ),
      );
      return;
    }
    const { signal } = options;
    if (signal?.aborted) {
      handler.onError(signal.reason);
      return;
    }
    if (typeof method !== 'string') {
      handler.onError(new TypeError(`method must be a string, got ${typeof method}`));
      return;
    }
    if (!Array.isArray(params)) {
      handler.onError(new TypeError(`${method}: params must be an array`));
      return;
    }
    const id = this.nextId++;
    let text: string;
    try {
      text = stringifyJson({ method, params, id });
    } catch (e) {
      handler.onError(
        new TypeError(`${method}: params cannot be serialized to JSON: ${errorText(e)}`, {
          cause: e,
        }),
      );
      return;
    }
    const entry: Pending = {
      method,
      handler,
      revive,
      timer: undefined,
      signal: undefined,
      onAbort: undefined,
    };
    this.pending.set(id, entry);
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs;
    const cancel = options.cancelOnAbort === true;
    if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
      entry.timer = setTimeout(
        () => this.giveUp(id, entry, new RequestTimeoutError(method, timeoutMs), cancel),
        Math.max(0, timeoutMs),
      );
    }
    if (signal) {
      const onAbort = (): void => this.giveUp(id, entry, signal.reason, cancel);
      entry.signal = signal;
      entry.onAbort = onAbort;
      signal.addEventListener('abort', onAbort, { once: true });
    }
    if (handler.onSent !== undefined) {
      try {
        handler.onSent(id);
      } catch (e) {
        this.reportHookError(e);
      }
    }
    this.write(text);
  }

  /** Stop waiting for request `id` with `error`, and send `cancel` for it when asked to. */
  private giveUp(id: number, entry: Pending, error: unknown, cancel: boolean): void {
    if (this.pending.get(id) !== entry) return;
    this.pending.delete(id);
    this.cleanup(entry);
    if (cancel) this.notify('cancel', [id]);
    this.settle(entry, false, error);
  }

  /** Report the outcome of a request to its handler (a throwing handler is reported, not thrown). */
  private settle(entry: Pending, ok: boolean, value: unknown): void {
    try {
      if (ok) entry.handler.onReply(value);
      else entry.handler.onError(value);
    } catch (e) {
      this.reportHookError(e);
    }
  }

  /**
   * Send a notification (`"id": null`). Dropped silently when the peer is
   * closed.
   * @throws TypeError when `params` cannot be serialized.
   */
  notify(method: string, params: readonly unknown[]): void {
    if (this.isClosedFlag) return;
    if (!Array.isArray(params)) throw new TypeError(`${method}: params must be an array`);
    let text: string;
    try {
      text = stringifyJson({ method, params, id: null });
    } catch (e) {
      throw new TypeError(`${method}: params cannot be serialized to JSON: ${errorText(e)}`, {
        cause: e,
      });
    }
    this.write(text);
  }

  /**
   * Cancel request `id`: send `{"method":"cancel","params":[id],"id":null}` and
   * reject the pending request at once with an {@link RpcError} whose code is
   * `"canceled"`. The reject is local because ovsdb-server only answers a
   * cancelled request when the session is db-change-aware
   * (`set_db_change_aware`); otherwise it drops the request silently. A late
   * reply for the id is ignored.
   */
  cancel(id: number): void {
    const entry = this.pending.get(id);
    this.notify('cancel', [id]);
    if (entry) {
      this.pending.delete(id);
      this.cleanup(entry);
      this.settle(entry, false, new RpcError(entry.method, 'canceled'));
    }
  }

  /**
   * Close the peer and its transport. Pending requests reject with
   * {@link ConnectionClosedError}. With a string (or nothing) this is a clean
   * close and {@link JsonRpcPeer.closed} resolves with undefined; with an
   * `Error`, `closed` resolves with that error and it becomes the `cause` of
   * the pending requests' errors.
   */
  close(reason?: string | Error): void {
    if (this.isClosedFlag) return;
    if (reason instanceof Error) this.shutdown(reason, reason.message);
    else this.shutdown(undefined, reason ?? 'closed locally');
  }

  // ---- incoming ---------------------------------------------------------

  private onData(chunk: Uint8Array): void {
    if (this.isClosedFlag) return;
    if (!this.framer) {
      this.fail(new ProtocolError(`${this.description}: a message transport delivered raw bytes`));
      return;
    }
    const messages: unknown[] = [];
    let failure: unknown;
    try {
      this.framer.pushInto(chunk, messages);
    } catch (e) {
      failure = e;
    }
    for (const message of messages) {
      if (this.isClosedFlag) return;
      this.handle(message);
    }
    if (failure !== undefined && !this.isClosedFlag) {
      this.fail(
        failure instanceof ProtocolError
          ? failure
          : new ProtocolError(errorText(failure), { cause: failure }),
      );
    }
  }

  private onMessage(text: string): void {
    if (this.isClosedFlag) return;
    // Each UTF-16 unit takes 1 to 3 UTF-8 bytes: count exactly only when it matters.
    const limit = this.messageLimit();
    if (text.length * 3 > limit) {
      const bytes = utf8Length(text);
      if (bytes > limit) {
        this.fail(
          new ProtocolError(
            `${this.description}: ${bytes}-byte message exceeds the ${limit}-byte limit`,
          ),
        );
        return;
      }
    }
    let message: unknown;
    try {
      message = parseJsonMessage(text);
    } catch (e) {
      this.fail(
        new ProtocolError(`${this.description}: invalid JSON message: ${errorText(e)}`, {
          cause: e,
        }),
      );
      return;
    }
    this.handle(message);
  }

  private handle(message: unknown): void {
    const problem = messageProblem(message);
    if (problem !== undefined) {
      this.fail(
        new ProtocolError(
          `${this.description}: malformed JSON-RPC message: ${problem}: ${preview(message, 200)}`,
        ),
      );
      return;
    }
    const m = message as Record<string, unknown>;
    const id = m['id'];
    if (Object.hasOwn(m, 'method')) {
      const method = m['method'] as string;
      const params = m['params'] as readonly unknown[];
      if (id === undefined || id === null) this.dispatchNotification(method, params);
      else this.dispatchRequest(method, params, id);
      return;
    }
    if (typeof id !== 'number') return; // not one of ours
    const entry = this.pending.get(id);
    if (!entry) return; // timed out, aborted, or never sent: ignore
    this.pending.delete(id);
    this.cleanup(entry);
    const error = m['error'] ?? null;
    if (error !== null) this.settle(entry, false, new RpcError(entry.method, error));
    else this.settle(entry, true, m['result']);
  }

  private dispatchNotification(method: string, params: readonly unknown[]): void {
    const hook = this.options.onNotification;
    if (!hook) return;
    try {
      hook(method, params);
    } catch (e) {
      this.reportHookError(e);
    }
  }

  private dispatchRequest(method: string, params: readonly unknown[], id: unknown): void {
    if (method === 'echo') {
      this.reply(id, params);
      return;
    }
    const hook = this.options.onRequest;
    if (!hook) {
      this.replyError(id, 'unknown method');
      return;
    }
    let result: unknown;
    try {
      result = hook(method, params);
    } catch (e) {
      this.replyError(id, errorPayload(e));
      return;
    }
    if (isThenable(result)) {
      Promise.resolve(result).then(
        (value) => this.reply(id, value),
        (e: unknown) => this.replyError(id, errorPayload(e)),
      );
    } else {
      this.reply(id, result);
    }
  }

  private reply(id: unknown, result: unknown): void {
    if (this.isClosedFlag) return;
    let text: string;
    try {
      text = stringifyJson({ id, result: result === undefined ? null : result, error: null });
    } catch (e) {
      this.replyError(id, { error: `result cannot be serialized to JSON: ${errorText(e)}` });
      return;
    }
    this.write(text);
  }

  private replyError(id: unknown, error: unknown): void {
    if (this.isClosedFlag) return;
    let text: string;
    try {
      text = stringifyJson({ id, result: null, error: error ?? 'error' });
    } catch {
      text = stringifyJson({ id, result: null, error: 'error' });
    }
    this.write(text);
  }

  // ---- outgoing ---------------------------------------------------------

  private write(text: string): void {
    if (this.isClosedFlag) return;
    this.out.write(text);
  }

  // ---- closing ----------------------------------------------------------

  private onTransportClose(error: Error | undefined): void {
    if (this.isClosedFlag) return;
    const buffered = this.framer?.bufferedBytes ?? 0;
    let reason: Error;
    if (error) reason = error;
    else if (buffered > 0) {
      reason = new ProtocolError(
        `${this.description}: connection closed in the middle of a message (${buffered} bytes received)`,
      );
    } else reason = new ConnectionClosedError(`${this.description}: closed by the other side`);
    this.shutdown(reason, reason.message, false);
  }

  private fail(error: ProtocolError): void {
    if (this.isClosedFlag) return;
    this.shutdown(error, error.message);
  }

  private shutdown(error: Error | undefined, text: string, closeTransport = true): void {
    if (this.isClosedFlag) return;
    this.isClosedFlag = true;
    this.closeText = text;
    this.closeError = error && !(error instanceof ConnectionClosedError) ? error : undefined;
    const entries = [...this.pending.values()];
    this.pending.clear();
    for (const entry of entries) {
      this.cleanup(entry);
      this.settle(
        entry,
        false,
        new ConnectionClosedError(
          `${entry.method}: ${text}`,
          this.closeError ? { cause: this.closeError } : undefined,
        ),
      );
    }
    this.out.close();
    this.framer?.reset();
    if (closeTransport) {
      try {
        this.transport.close();
      } catch (e) {
        this.reportHookError(e);
      }
    }
    if (this.options.onClose) {
      try {
        this.options.onClose(error);
      } catch (e) {
        this.reportHookError(e);
      }
    }
    this.resolveClosed(error);
  }

  private cleanup(entry: Pending): void {
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    if (entry.signal && entry.onAbort) entry.signal.removeEventListener('abort', entry.onAbort);
    entry.timer = undefined;
    entry.onAbort = undefined;
  }

  private reportHookError(error: unknown): void {
    const hook = this.options.onHookError;
    try {
      if (hook) hook(error);
      else console.error(`${this.description}: JSON-RPC hook threw:`, error);
    } catch {
      // Nothing left to report to.
    }
  }
}

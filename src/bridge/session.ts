/**
 * One client of the bridge: a WebSocket client and its own connection to
 * the OVSDB server. Frames from the client are parsed, checked (JSON-RPC
 * members, the {@link BridgePolicy}) and forwarded re-serialized, so the
 * server gets exactly the message the policy checked; the server's byte
 * stream is cut back into messages and each one's text sent unchanged in its
 * own text frame (re-serialized only when a `list_dbs` reply is filtered).
 * Integers are exact both ways: 64-bit values beyond ±(2^53−1) are parsed
 * as bigints and written back as their digits. Both directions are
 * flow-controlled (see `bridge.ts`).
 * @module
 */

import type * as net from 'node:net';
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import type { SocketRemote } from '../ovsdb/transport/remote.js';
import { ProtocolError } from '../ovsdb/wire/errors.js';
import { type FramedMessage, JsonStreamFramer } from '../ovsdb/wire/framer.js';
import { stringifyJson } from '../ovsdb/wire/json-stringify.js';
import { parseJsonMessage } from '../ovsdb/wire/json-text.js';
import { messageProblem } from '../ovsdb/wire/rpc-message.js';
import { type BufferBudget, SessionBuffers } from './buffers.js';
import { RequestIds, topLevelIdSpan, withId } from './ids.js';
import type { BridgeLogger, BridgeOptions, BridgeStats } from './options.js';
import type { BridgePolicy } from './policy.js';
import { connectUpstream } from './upstream.js';

/** The bridge's counters, as its sessions update them. */
export type BridgeCounters = { -readonly [K in keyof BridgeStats]: BridgeStats[K] };

/** What a {@link BridgeSession} needs from its bridge. */
export interface BridgeSessionHost {
  /** The bridge's options (for the server's TLS settings). */
  readonly options: BridgeOptions;
  readonly counters: BridgeCounters;
  /** What clients may do. */
  readonly policy: BridgePolicy;
  /** The OVSDB server to connect to. */
  readonly upstream: SocketRemote;
  /** Largest frame a client may send, in bytes. */
  readonly maxFrameBytes: number;
  /** Largest message the server may send, in bytes. */
  readonly maxMessageBytes: number;
  /** Largest server message that begins while none of the client's requests is pending. */
  readonly maxUnsolicitedBytes: number;
  /** Bytes queued for the client above which the server socket is paused. */
  readonly highWaterMark: number;
  /** Bytes queued for the client at or below which the server socket is resumed. */
  readonly lowWaterMark: number;
  /** Requests of one client waiting for their replies at which the bridge stops reading it. */
  readonly maxPendingRequests: number;
  /** Timeout of connecting to the server, in ms. */
  readonly connectTimeoutMs: number;
  /** The bytes held for all clients, and their bounds. */
  readonly buffers: BufferBudget;
  /** Log `message` at `level` through the bridge's logger. */
  log(level: keyof BridgeLogger, message: string): void;
}

/** One WebSocket client and its server connection. */
export class BridgeSession {
  /** Resolves once the client's WebSocket has closed and the server socket is gone. */
  readonly finished: Promise<void>;
  /** Bytes sent to the client and not yet written to its socket. */
  queuedBytes = 0;

  private upstream: net.Socket | undefined;
  private readonly framer: JsonStreamFramer;
  private early: string[] | undefined = [];
  private closed = false;
  private upstreamPaused = false;
  private waitingForUpstreamDrain = false;
  private clientPaused = false;
  /** The client's requests waiting for their replies, under the bridge's own ids. */
  private readonly ids = new RequestIds();
  private resolveFinished!: () => void;
  private wsClosed = false;
  private awaitingPong = false;
  private killTimer: ReturnType<typeof setTimeout> | undefined;
  /** This session's share of the bridge's buffer budget. */
  private readonly held: SessionBuffers;
  /** Bytes read from the client since its last whole frame (a frame being received). */
  private partialIn = 0;
  /** Bytes of the frames waiting for the server connection to open. */
  private earlyBytes = 0;

  /**
   * @param socket The client's upgraded socket: what it reads counts
   *   against the buffer bounds until a frame is whole.
   */
  constructor(
    private readonly core: BridgeSessionHost,
    private readonly ws: WebSocket,
    private readonly name: string,
    socket?: Duplex | undefined,
  ) {
    this.held = new SessionBuffers(core.buffers);
    // Registered after ws's own listener: a read is counted once the frames it completed were delivered.
    socket?.on('data', (chunk: Buffer) => {
      if (this.closed) return;
      this.partialIn += chunk.length;
      this.account();
    });
    this.framer = new JsonStreamFramer({
      maxMessageBytes: core.maxMessageBytes,
      // A reply may be on its way only while a request of the client is pending.
      messageLimit: () => (this.ids.size > 0 ? core.maxMessageBytes : core.maxUnsolicitedBytes),
    });
    this.finished = new Promise((resolve) => {
      this.resolveFinished = resolve;
    });
    // ws closes an oversized frame with a bare 1009; say why.
    const close = ws.close.bind(ws);
    ws.close = (code?: number, data?: string | Buffer): void => {
      if (code === 1009 && (data === undefined || data.length === 0)) {
        close(code, `message too big: frames are limited to ${core.maxFrameBytes} bytes`);
        if (!this.closed) {
          this.closed = true;
          core.log('warn', `${name}: closed: a frame exceeded ${core.maxFrameBytes} bytes`);
          this.dropUpstream();
        }
        return;
      }
      close(code, data);
    };
  }

  /** Start serving the client: connect to the server and read the client's frames. */
  start(): void {
    const { ws, core } = this;
    this.setClientPaused(true);
    ws.on('message', (data: RawData, isBinary: boolean) => this.onClientMessage(data, isBinary));
    ws.on('error', (e: Error) => core.log('warn', `${this.name}: WebSocket error: ${e.message}`));
    ws.on('pong', () => {
      this.awaitingPong = false;
    });
    ws.on('close', (code: number, reason: Buffer) => {
      this.wsClosed = true;
      this.held.release();
      if (this.killTimer !== undefined) clearTimeout(this.killTimer);
      if (!this.closed) {
        this.closed = true;
        core.log(
          'info',
          `${this.name}: client closed (${code}${reason.length ? ` ${reason}` : ''})`,
        );
      }
      this.dropUpstream();
      this.resolveFinished();
    });
    connectUpstream(core.upstream, {
      tls: core.options.remoteTls,
      timeoutMs: core.connectTimeoutMs,
    }).then(
      (socket) => this.onUpstream(socket),
      (e: unknown) => {
        core.log('error', `${this.name}: ${e instanceof Error ? e.message : String(e)}`);
        this.close(1011, 'cannot reach the OVSDB server');
      },
    );
  }

  /**
   * Ping the client; drop it when the previous ping is still unanswered.
   * A client the bridge has stopped reading (flow control) cannot have its
   * answer read: it is closed with 1013 (try again later), which it sees
   * when it reads.
   */
  ping(): void {
    if (this.closed || this.wsClosed) return;
    if (this.awaitingPong && this.clientPaused && this.early === undefined) {
      this.core.counters.pingTimeouts++;
      this.core.log(
        'warn',
        `${this.name}: closed: stalled by flow control (${this.stallReason()}) for a ping interval`,
      );
      this.close(1013, `the bridge is overloaded: the client is stalled (${this.stallReason()})`);
      return;
    }
    if (this.awaitingPong) {
      this.core.counters.pingTimeouts++;
      this.core.log('warn', `${this.name}: dropped: no answer to a ping`);
      this.closed = true;
      this.dropUpstream();
      this.ws.terminate();
      return;
    }
    this.awaitingPong = true;
    try {
      this.ws.ping();
    } catch {
      // The socket is closing; 'close' follows.
    }
  }

  /** Close the client's WebSocket with `code` and `reason`, and the server socket. */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.dropUpstream();
    this.setClientPaused(false);
    try {
      this.ws.close(code, truncateReason(reason));
    } catch {
      this.ws.terminate();
    }
    // A client that does not read may never see the close frame.
    this.killTimer = setTimeout(() => this.ws.terminate(), 3000);
  }

  private onUpstream(socket: net.Socket): void {
    const { core } = this;
    if (this.closed) {
      socket.destroy();
      return;
    }
    core.counters.upstreamConnects++;
    this.upstream = socket;
    socket.on('data', (chunk: Buffer) => this.onServerData(chunk));
    socket.on('drain', () => {
      this.account();
      if (!this.waitingForUpstreamDrain) return;
      this.waitingForUpstreamDrain = false;
      this.updateClientFlow();
    });
    socket.on('close', () => {
      if (this.closed) return;
      core.log('warn', `${this.name}: the OVSDB server closed the connection`);
      this.close(1011, 'the OVSDB server closed the connection');
    });
    socket.resume();
    const early = this.early ?? [];
    this.early = undefined;
    this.earlyBytes = 0;
    for (const text of early) this.forwardToServer(text);
    this.updateClientFlow();
    this.account();
  }

  // ---- buffer bounds -----------------------------------------------------

  /** The bytes this session holds now (see `buffers.ts`), plus `extra`. */
  private holding(extra = 0): number {
    return (
      this.partialIn +
      this.earlyBytes +
      (this.upstream?.writableLength ?? 0) +
      this.framer.bufferedBytes +
      this.queuedBytes +
      this.ids.bytes +
      extra
    );
  }

  /** Record what the session holds; close it when that passes a bound. False when closed. */
  private account(extra = 0): boolean {
    const bytes = this.holding(extra);
    const why = this.held.check(bytes);
    if (why === undefined) {
      this.held.set(bytes - extra);
      return true;
    }
    this.core.buffers.drops++;
    this.core.log('warn', `${this.name}: closed: ${why}`);
    this.close(1013, 'the bridge is overloaded: its buffers are full');
    return false;
  }

  // ---- client → server ---------------------------------------------------

  private onClientMessage(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    this.partialIn = 0;
    if (isBinary) {
      this.close(1003, 'binary frames are not supported: send each JSON-RPC message as text');
      return;
    }
    const text = rawText(data);
    let message: unknown;
    try {
      // OVS's JSON limits too (nesting, U+0000): such a frame never reaches the server.
      message = parseJsonMessage(text);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      this.core.log('warn', `${this.name}: closed: invalid JSON: ${why.slice(0, 200)}`);
      this.close(1007, `invalid JSON: ${why}`);
      return;
    }
    const problem = messageProblem(message);
    if (problem !== undefined) {
      this.core.log('warn', `${this.name}: closed: malformed JSON-RPC message: ${problem}`);
      this.close(1008, `malformed JSON-RPC message: ${problem}`);
      return;
    }
    const m = message as Record<string, unknown>;
    const method = m['method'];
    if (typeof method !== 'string') {
      // A reply to a request of the server (its inactivity probe): up as is.
      this.toServer(stringifyJson(message));
      return;
    }
    const params = m['params'] as unknown[];
    const id = m['id'] ?? null;
    const idText = id === null ? 'null' : clientIdText(text, id);
    const decision = this.core.policy.check(method, params);
    if (!decision.allowed) {
      this.core.counters.refusedRequests++;
      this.core.log('info', `${this.name}: refused ${method}: ${decision.details}`);
      if (id !== null) {
        const error = stringifyJson({
          error: 'permission error',
          details: decision.details,
          refused_by: 'bridge',
          ...(decision.operation === undefined ? {} : { operation: decision.operation }),
        });
        this.sendToClient(`{"id":${idText},"result":null,"error":${error}}`);
      }
      return;
    }
    if (id === null) {
      if (method === 'cancel') {
        // Name the bridge's id of the request to cancel; a cancel that names
        // no pending request would cancel nothing on the server either.
        if (params.length !== 1) return;
        for (const up of this.ids.idsOf(params[0])) {
          this.toServer(`{"method":"cancel","params":[${up}],"id":null}`);
        }
        return;
      }
      this.toServer(stringifyJson({ method, params, id: null }));
      return;
    }
    const up = this.ids.forward(method, id, idText);
    this.toServer(stringifyJson({ method, params, id: up }));
    this.updateClientFlow();
  }

  /** Send `text` to the server, or hold it until the server socket is connected. */
  private toServer(text: string): void {
    if (this.early) {
      this.early.push(text);
      this.earlyBytes += text.length;
    } else this.forwardToServer(text);
    this.account();
  }

  private forwardToServer(text: string): void {
    const socket = this.upstream;
    if (!socket || this.closed) return;
    this.core.counters.messagesToServer++;
    if (!socket.write(text)) {
      if (!this.waitingForUpstreamDrain) this.core.counters.clientPauses++;
      this.waitingForUpstreamDrain = true;
      this.updateClientFlow();
    }
  }

  // ---- server → client ---------------------------------------------------

  private onServerData(chunk: Buffer): void {
    if (this.closed) return;
    const messages: FramedMessage[] = [];
    let failure: unknown;
    try {
      this.framer.pushFramesInto(chunk, messages);
    } catch (e) {
      failure = e;
    }
    for (const m of messages) {
      if (this.closed) return;
      this.forwardToClient(m);
    }
    if (!this.closed && !this.account()) return;
    if (failure !== undefined && !this.closed) {
      const text = failure instanceof Error ? failure.message : String(failure);
      this.core.log('error', `${this.name}: invalid data from the OVSDB server: ${text}`);
      const limit = failure instanceof ProtocolError && /exceeds the (\d+)-byte limit/.exec(text);
      if (limit) {
        this.close(1009, `a message from the OVSDB server exceeds the ${limit[1]}-byte limit`);
      } else {
        this.close(1011, 'invalid data from the OVSDB server');
      }
    }
  }

  /**
   * Forward one server message: requests and notifications as received;
   * a reply with the client's id in place of the bridge's (the rest of its
   * text as received), and a `list_dbs` reply's databases filtered.
   */
  private forwardToClient(message: FramedMessage): void {
    const m = message.value as Record<string, unknown>;
    if (typeof m['method'] === 'string') {
      this.sendToClient(message.text);
      return;
    }
    const request = this.ids.settle(m['id']);
    if (request === undefined) {
      this.core.log(
        'warn',
        `${this.name}: dropped a reply from the OVSDB server to no request of this client`,
      );
      return;
    }
    this.updateClientFlow();
    const idText = request.clientIdText;
    const result = m['result'];
    if (
      request.method === 'list_dbs' &&
      Array.isArray(result) &&
      this.core.policy.allowDbs !== undefined
    ) {
      const dbs = result.filter(
        (db) => typeof db === 'string' && this.core.policy.allowsDatabase(db),
      );
      const error = stringifyJson(m['error'] ?? null);
      this.sendToClient(`{"id":${idText},"result":${stringifyJson(dbs)},"error":${error}}`);
      return;
    }
    this.sendToClient(
      withId(message.text, idText) ??
        stringifyJson({ ...m, id: parseJsonMessage(idText) as unknown }),
    );
  }

  private sendToClient(text: string): void {
    if (this.closed && this.wsClosed) return;
    const bytes = Buffer.byteLength(text);
    const { core } = this;
    if (!this.closed && !this.account(bytes)) return;
    this.queuedBytes += bytes;
    core.counters.messagesToClients++;
    if (this.queuedBytes > core.counters.maxQueuedBytes) {
      core.counters.maxQueuedBytes = this.queuedBytes;
    }
    if (!this.wsClosed) this.held.set(this.holding());
    this.ws.send(text, () => {
      this.queuedBytes -= bytes;
      if (!this.wsClosed) this.held.set(this.holding());
      this.updateUpstreamFlow();
    });
    this.updateUpstreamFlow();
  }

  // ---- flow control ------------------------------------------------------

  private updateUpstreamFlow(): void {
    const { core } = this;
    if (!this.upstreamPaused && this.queuedBytes > core.highWaterMark) {
      this.upstreamPaused = true;
      core.counters.upstreamPauses++;
      this.upstream?.pause();
      this.updateClientFlow();
    } else if (this.upstreamPaused && this.queuedBytes <= core.lowWaterMark) {
      this.upstreamPaused = false;
      if (!this.closed) this.upstream?.resume();
      this.updateClientFlow();
    }
  }

  /**
   * Read the client only when its frames can go somewhere: the server
   * socket is connected and not backed up, the client is not so far
   * behind that even refusals would pile up, and fewer than
   * `maxPendingRequests` of its requests wait for their replies.
   */
  private updateClientFlow(): void {
    const wanted =
      !this.closed &&
      (this.early !== undefined ||
        this.waitingForUpstreamDrain ||
        this.upstreamPaused ||
        this.ids.size >= this.core.maxPendingRequests);
    this.setClientPaused(wanted);
  }

  /** Why the bridge does not read the client (see {@link BridgeSession.updateClientFlow}). */
  private stallReason(): string {
    if (this.waitingForUpstreamDrain) return 'the OVSDB server does not read';
    if (this.upstreamPaused) return 'it does not read';
    return `${this.ids.size} requests wait for their replies`;
  }

  private setClientPaused(paused: boolean): void {
    if (paused === this.clientPaused) return;
    this.clientPaused = paused;
    if (paused) this.ws.pause();
    else this.ws.resume();
  }

  private dropUpstream(): void {
    const socket = this.upstream;
    if (!socket) return;
    this.upstream = undefined;
    socket.removeAllListeners('data');
    socket.end();
    const timer = setTimeout(() => socket.destroy(), 1000);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.resume();
  }
}

/** The text of the top-level `id` of the client frame `text` (whose parsed id is `id`). */
function clientIdText(text: string, id: unknown): string {
  const span = topLevelIdSpan(text);
  return span === undefined ? stringifyJson(id) : text.slice(span.start, span.end);
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** Close reasons are limited to 123 bytes of UTF-8. */
function truncateReason(reason: string): string {
  if (Buffer.byteLength(reason) <= 123) return reason;
  let r = reason;
  while (Buffer.byteLength(`${r}…`) > 123) r = r.slice(0, -1);
  return `${r}…`;
}

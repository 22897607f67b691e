/**
 * One client session of the in-memory server: JSON-RPC 1.0 framing and
 * message checks exactly as ovsdb-server applies them, the inactivity probe,
 * and the per-session state (monitors, pending transactions, db-change
 * awareness).
 *
 * ## Messages
 * A message must be a JSON object whose members are among `method`,
 * `params`, `result`, `error` and `id` (a null member counts as absent), with
 * `params` an array. A request needs `method`, `params` and `id`; a
 * notification `method` and `params`. Anything else (another member such as
 * `"jsonrpc": "2.0"`, invalid JSON, a reply the server did not ask for) makes
 * the server log the problem and drop the connection without a reply. So
 * do OVS's JSON limits, as ovsdb-server applies them: nesting deeper than
 * 1,000 levels and a string holding U+0000 (in a value, a table or method
 * name, anywhere). A message whose handling fails unexpectedly drops only
 * its own connection (logged as an error); every other session goes on. An
 * `echo` request is answered at once with its params; a reply to the
 * server's own probe (`"id": "echo"`) is swallowed. Of notifications, only
 * `cancel` does anything.
 *
 * ## Inactivity probe
 * On tcp and ssl sessions, after `probeIntervalMs` without receiving
 * anything the server sends `{"method":"echo","params":[],"id":"echo"}`; if
 * nothing arrives within another interval it drops the connection.
 * @module
 */

import { ovsJsonText } from '../../ovsdb/values/ovs-text.js';
import { ProtocolError } from '../../ovsdb/wire/errors.js';
import { JsonStreamFramer } from '../../ovsdb/wire/framer.js';
import {
  framePieces,
  stringifyJson,
  stringifyJsonPieces,
  type TextInPieces,
} from '../../ovsdb/wire/json-stringify.js';
import { parseJsonMessage } from '../../ovsdb/wire/json-text.js';
import { OvsHmapOrder } from '../engine/ovs-hmap.js';
import type { BacklogMeter } from '../listeners/limits.js';
import type { Monitor } from '../monitor/monitor.js';
import type { SessionChannel } from './channel.js';
import { echoJson } from './echo-json.js';
import type { ServerLog } from './server-log.js';

/** What a session asks of its server. */
export interface SessionHost {
  readonly log: ServerLog;
  /**
   * Send the session's pending monitor updates. Called before the session
   * handles a message and before anything but an update is sent to it, as
   * ovsdb-server flushes a session's monitors then.
   */
  flush(session: Session): void;
  /** A request other than `echo`. */
  request(session: Session, method: string, params: unknown[], id: unknown): void;
  /** A notification. */
  notification(session: Session, method: string, params: unknown[]): void;
  /** The session ended; release everything it holds. */
  closed(session: Session): void;
  /**
   * Write the records of every commit made so far to their database files.
   * Called before anything leaves the server (before a write that is not
   * gathered into a batch, at the end of a batch, before closing), so that
   * no reply or update precedes the record of a commit it shows.
   */
  persist?(): void;
}

/** A transaction waiting (for a `wait` to be satisfied) on behalf of a session. */
export interface PendingTransaction {
  /** The request's id, as sent. */
  readonly id: unknown;
}

/** The text of a reply to request `id` whose result's JSON text is `result`. */
function replyText(id: unknown, result: TextInPieces): TextInPieces {
  return framePieces(`{"id":${stringifyJson(echoJson(id))},"result":`, result, ',"error":null}');
}

/** The key of a JSON value for id lookups (JSON equality). */
export function jsonKey(v: unknown): string {
  return ovsJsonText(v);
}

const MEMBERS = new Set(['method', 'params', 'result', 'error', 'id']);

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** `%.3g` for the probe interval in seconds, as the probe's log line prints it. */
function seconds(ms: number): string {
  return String(Number((ms / 1000).toPrecision(3)));
}

/**
 * Why a message is not valid JSON-RPC, in ovsdb-server's words (its
 * `jsonrpc_msg_from_json`), or undefined when it is valid. Also classifies it.
 */
function checkMessage(
  json: unknown,
):
  | { error: string }
  | { type: 'request' | 'notify' | 'reply' | 'error'; m: Record<string, unknown> } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { error: 'message is not a JSON object' };
  }
  const m = json as Record<string, unknown>;
  if (Object.hasOwn(m, 'method') && typeof m.method !== 'string') {
    return { error: 'method is not a JSON string' };
  }
  for (const k of Object.keys(m)) {
    if (!MEMBERS.has(k)) return { error: `message has unexpected member "${k}"` };
  }
  const hasMethod = present(m.method);
  const hasParams = present(m.params);
  const hasResult = present(m.result);
  const hasError = present(m.error);
  const hasId = present(m.id);
  const type = hasResult ? 'reply' : hasError ? 'error' : hasId ? 'request' : 'notify';
  if (hasParams && !Array.isArray(m.params)) return { error: '"params" must be JSON array' };
  const pattern: Record<typeof type, [boolean, boolean, boolean, boolean, boolean]> = {
    request: [true, true, false, false, true],
    notify: [true, true, false, false, false],
    reply: [false, false, true, false, true],
    error: [false, false, false, true, true],
  };
  const names = ['method', 'params', 'result', 'error', 'id'] as const;
  const have = [hasMethod, hasParams, hasResult, hasError, hasId];
  const typeName = type === 'notify' ? 'notification' : type;
  const want = pattern[type];
  for (let i = 0; i < names.length; i++) {
    if (have[i] !== want[i]) {
      return { error: `${typeName} must${want[i] ? '' : ' not'} have "${names[i]}"` };
    }
  }
  return { type, m };
}

/**
 * What a connection may do, from the remote it came through (a `Connection`
 * row's `role` and `read_only`, or a config file's options) and its peer.
 */
export interface SessionAccess {
  /** The RBAC role (see `engine/rbac.ts`); none or empty: no restriction. */
  readonly role?: string | undefined;
  /** Only read-only operations are allowed. */
  readonly readOnly?: boolean | undefined;
  /** The peer's identity for RBAC: the common name of its TLS certificate, if any. */
  readonly peerId?: string | undefined;
}

/** One connected client. */
export class Session {
  /** Set by `set_db_change_aware`. */
  dbChangeAware = false;
  /** Monitors by the JSON key of their id. */
  private readonly monitorsById = new Map<string, Monitor>();
  /** The same monitors in ovsdb-server's iteration order (its hash map of monitor ids). */
  private readonly monitorOrder = new OvsHmapOrder<Monitor>();
  /** Pending transactions by the JSON key of their request id. */
  readonly pending = new Map<string, PendingTransaction>();

  private readonly framer: JsonStreamFramer | undefined;
  private isClosed = false;
  private probeTimer: ReturnType<typeof setTimeout> | undefined;
  private probeIdle = false;
  private stateEntered = 0;
  private lastActivity = 0;

  constructor(
    private readonly channel: SessionChannel,
    private readonly host: SessionHost,
    private readonly probeIntervalMs: number,
    /** What the session may do (see {@link SessionAccess}). */
    readonly access: SessionAccess = {},
  ) {
    this.framer = channel.kind === 'stream' ? new JsonStreamFramer() : undefined;
    if (channel.probes && probeIntervalMs > 0) {
      this.stateEntered = Date.now();
      this.lastActivity = this.stateEntered;
      this.armProbe(probeIntervalMs);
    }
    channel.attach({
      data: (chunk) => this.onData(chunk),
      message: (text) => this.onText(text),
      close: () => this.onChannelClose(),
      batchEnd: () => this.host.persist?.(),
      bufferedInput: () => this.framer?.bufferedBytes ?? 0,
      // Serviced again once the client caught up: what its monitors merged meanwhile goes out.
      drain: () => {
        if (!this.isClosed) this.host.flush(this);
      },
    });
  }

  /** The monitor with id `id` (any JSON), if any. */
  monitor(id: unknown): Monitor | undefined {
    return this.monitorsById.get(jsonKey(id));
  }

  /** The session's monitors, in the order ovsdb-server would iterate them. */
  monitors(): Monitor[] {
    return this.monitorOrder.values();
  }

  /** Register monitor `m` under its id. */
  addMonitor(m: Monitor): void {
    this.monitorsById.set(jsonKey(m.id), m);
    this.monitorOrder.insert(m.id, m);
  }

  /** Forget monitor `m`. */
  removeMonitor(m: Monitor): void {
    if (this.monitorsById.get(jsonKey(m.id)) === m) this.monitorsById.delete(jsonKey(m.id));
    this.monitorOrder.remove(m);
  }

  /** The connection's name in logs, e.g. `unix#3`. */
  get name(): string {
    return this.channel.name;
  }

  /**
   * True while messages wait to be written to a client that reads too
   * slowly: ovsdb-server neither flushes the monitors of such a session nor
   * reads from it, so its monitors' changes merge until it catches up.
   */
  get backlogged(): boolean {
    return this.channel.backlogged === true;
  }

  /** The connection's backlog meter (listener connections), which merged monitor updates count against. */
  get backlogMeter(): BacklogMeter | undefined {
    return this.channel.backlog;
  }

  /** True once the session ended. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Send a reply (pending monitor updates go first). */
  reply(id: unknown, result: unknown): void {
    if (this.isClosed) return;
    this.host.flush(this);
    this.sendText(replyText(id, stringifyJsonPieces(result)));
  }

  /** Send a reply whose result is already JSON text (pending monitor updates go first). */
  replyWithText(id: unknown, result: TextInPieces): void {
    if (this.isClosed) return;
    this.host.flush(this);
    this.sendText(replyText(id, result));
  }

  /** Send an error reply, without a `result` member as ovsdb-server does (pending updates go first). */
  replyError(id: unknown, error: unknown): void {
    if (this.isClosed) return;
    this.host.flush(this);
    this.sendText(`{"id":${stringifyJson(echoJson(id))},"error":${stringifyJson(error)}}`);
  }

  /** Send a notification such as `locked` (pending monitor updates go first). */
  notify(method: string, params: readonly unknown[]): void {
    if (this.isClosed) return;
    this.host.flush(this);
    // The first param (a monitor's id, a lock's name) as ovsdb-server echoes it.
    const out = params.length > 0 ? [echoJson(params[0]), ...params.slice(1)] : params;
    this.sendText(`{"id":null,"method":${JSON.stringify(method)},"params":${stringifyJson(out)}}`);
  }

  /**
   * Send a monitor update notification: `method` with params the monitor's
   * id (as ovsdb-server echoes it), for version 3 the last transaction's id
   * (`txnId`), and the updates, already JSON text (in pieces when long).
   * With `flushFirst`, the pending updates of the session's monitors go
   * first.
   */
  notifyUpdate(
    method: string,
    monitorId: unknown,
    txnId: string | undefined,
    updates: TextInPieces,
    flushFirst = false,
  ): void {
    if (this.isClosed) return;
    if (flushFirst) this.host.flush(this);
    const lead = txnId === undefined ? '' : `${JSON.stringify(txnId)},`;
    this.sendText(
      framePieces(
        `{"id":null,"method":${JSON.stringify(method)},"params":[${stringifyJson(echoJson(monitorId))},${lead}`,
        updates,
        ']}',
      ),
    );
  }

  /** Send an already serialized message (one string, or its pieces in order). */
  sendText(text: TextInPieces): void {
    if (this.isClosed) return;
    if (this.channel.batching !== true) this.host.persist?.();
    if (!this.isClosed) this.channel.write(text);
  }

  /** End the session: queued messages are sent, then the connection is closed. */
  close(): void {
    if (this.isClosed) return;
    this.host.persist?.();
    if (this.isClosed) return;
    this.finish();
    this.channel.close();
  }

  /**
   * End the session because it cannot be sent what it is owed (a monitor
   * update): logged, then closed as {@link Session.close} does; its client
   * reconnects (and resumes its monitors).
   */
  fail(reason: string): void {
    if (this.isClosed) return;
    this.host.log.write('ovsdb_jsonrpc_server', 'ERR', `${this.name}: ${reason}, disconnecting`);
    this.close();
  }

  /** Drop the connection at once. */
  abort(): void {
    if (this.isClosed) return;
    this.finish();
    this.channel.abort();
  }

  // ---- incoming ---------------------------------------------------------

  private onData(chunk: Uint8Array): void {
    if (this.isClosed) return;
    this.activity();
    const messages: unknown[] = [];
    let failure: unknown;
    try {
      (this.framer as JsonStreamFramer).pushInto(chunk, messages);
    } catch (e) {
      failure = e;
    }
    for (const m of messages) {
      if (this.isClosed) return;
      this.handleSafely(m);
    }
    if (failure !== undefined && !this.isClosed) {
      const text = failure instanceof ProtocolError ? failure.message : String(failure);
      this.drop('jsonrpc', `error parsing stream: ${text}`);
    }
  }

  private onText(text: string): void {
    if (this.isClosed) return;
    this.activity();
    let json: unknown;
    try {
      json = parseJsonMessage(text);
    } catch (e) {
      this.drop('jsonrpc', `error parsing stream: ${(e as Error).message}`);
      return;
    }
    this.handleSafely(json);
  }

  /**
   * {@link Session.handle}, where a failure that escapes it (a bug, never an
   * answer the protocol defines) drops this session alone, logged, rather
   * than every session with the process.
   */
  private handleSafely(json: unknown): void {
    try {
      this.handle(json);
    } catch (e) {
      if (this.isClosed) return;
      const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      this.host.log.write(
        'jsonrpc',
        'ERR',
        `${this.name}: failed to handle a message: ${text.slice(0, 500)}`,
      );
      this.host.log.write('reconnect', 'WARN', `${this.name}: connection dropped (Protocol error)`);
      this.close();
    }
  }

  private handle(json: unknown): void {
    this.host.flush(this);
    const checked = checkMessage(json);
    if ('error' in checked) {
      this.drop('jsonrpc', `received bad JSON-RPC message: ${checked.error}`);
      return;
    }
    const { type, m } = checked;
    switch (type) {
      case 'request': {
        const method = m.method as string;
        const params = m.params as unknown[];
        if (method === 'echo') {
          this.sendText(replyText(m.id, stringifyJsonPieces(echoJson(params))));
          return;
        }
        this.host.request(this, method, params, m.id);
        return;
      }
      case 'notify':
        this.host.notification(this, m.method as string, m.params as unknown[]);
        return;
      case 'reply':
        if (m.id === 'echo') return;
        this.dropUnexpected('reply');
        return;
      case 'error':
        this.dropUnexpected('error');
        return;
    }
  }

  private dropUnexpected(kind: string): void {
    this.host.log.write(
      'ovsdb_jsonrpc_server',
      'WARN',
      `${this.name}: received unexpected ${kind} message`,
    );
    this.close();
  }

  private drop(module: string, text: string): void {
    this.host.flush(this);
    this.host.log.write(module, 'WARN', `${this.name}: ${text}`);
    this.host.log.write('reconnect', 'WARN', `${this.name}: connection dropped (Protocol error)`);
    this.close();
  }

  private onChannelClose(): void {
    if (this.isClosed) return;
    this.finish();
  }

  private finish(): void {
    this.isClosed = true;
    if (this.probeTimer !== undefined) clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    this.host.closed(this);
  }

  // ---- inactivity probe -------------------------------------------------

  private activity(): void {
    if (this.probeTimer === undefined) return;
    const now = Date.now();
    this.lastActivity = now;
    if (this.probeIdle) {
      this.probeIdle = false;
      this.stateEntered = now;
    }
  }

  private armProbe(delay: number): void {
    this.probeTimer = setTimeout(() => this.onProbeTimer(), Math.max(1, delay));
    this.probeTimer.unref?.();
  }

  private onProbeTimer(): void {
    if (this.isClosed) return;
    const now = Date.now();
    const interval = this.probeIntervalMs;
    if (!this.probeIdle) {
      const deadline = Math.max(this.lastActivity, this.stateEntered) + interval;
      if (now < deadline) {
        this.armProbe(deadline - now);
        return;
      }
      this.sendText('{"method":"echo","params":[],"id":"echo"}');
      this.probeIdle = true;
      this.stateEntered = now;
      this.armProbe(interval);
      return;
    }
    const deadline = this.stateEntered + interval;
    if (now < deadline) {
      this.armProbe(deadline - now);
      return;
    }
    this.host.log.write(
      'reconnect',
      'ERR',
      `${this.name}: no response to inactivity probe after ${seconds(interval)} seconds, disconnecting`,
    );
    this.close();
  }
}

/**
 * Request ids between a bridge client and its server connection. Every
 * request a client sends goes up with an id the bridge chose (0, 1, 2, … on
 * that connection); the reply comes back with the client's id exactly as
 * the client wrote it (any JSON: a string, a 64-bit or longer integer, an
 * object; its very text). What the bridge decides about a reply (is this
 * the answer to a `list_dbs` whose databases must be filtered?) it decides
 * from its own id, never from one a client chose: a client that reuses an
 * id, or sends `echo` and `list_dbs` with the same id, gets each reply
 * treated as the answer to the request it really answers.
 *
 * `cancel` names the request to cancel by the client's id; it goes up naming
 * the bridge's id(s) of the pending requests with that id (JSON equality).
 * @module
 */

import { ovsJsonText } from '../ovsdb/values/ovs-text.js';

/** A request forwarded to the server and not answered yet. */
export interface ForwardedRequest {
  /** The method, as the client sent it. */
  readonly method: string;
  /** The client's id, its JSON text exactly as the client sent it. */
  readonly clientIdText: string;
  /** The client's id's JSON-equality key (for `cancel`). */
  readonly key: string;
}

/**
 * What one pending request costs the bridge besides the text of its id and
 * method, in bytes: its record, its entries in the two maps and its id's
 * equality key (about 300 bytes measured with short ids, rounded up).
 */
export const PENDING_REQUEST_BYTES = 400;

/** The requests of one client waiting for their replies, by the bridge's id. */
export class RequestIds {
  /** Bytes the pending requests cost (see {@link PENDING_REQUEST_BYTES}), for the bridge's buffer accounting. */
  bytes = 0;
  private nextId = 0;
  private readonly pending = new Map<number, ForwardedRequest>();
  private readonly byKey = new Map<string, Set<number>>();

  /** How many requests wait for a reply. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Record a request and return the id to send it with.
   * @param clientId The client's id, parsed (for its equality key).
   * @param clientIdText Its text as the client wrote it.
   */
  forward(method: string, clientId: unknown, clientIdText: string): number {
    const id = this.nextId++;
    const key = ovsJsonText(clientId);
    this.pending.set(id, { method, clientIdText, key });
    let ids = this.byKey.get(key);
    if (ids === undefined) {
      ids = new Set();
      this.byKey.set(key, ids);
    }
    ids.add(id);
    this.bytes += cost(method, clientIdText);
    return id;
  }

  /** The request a server reply with `id` answers, forgotten; undefined when it is none of ours. */
  settle(id: unknown): ForwardedRequest | undefined {
    if (typeof id !== 'number') return undefined;
    const r = this.pending.get(id);
    if (r === undefined) return undefined;
    this.pending.delete(id);
    const ids = this.byKey.get(r.key);
    ids?.delete(id);
    if (ids?.size === 0) this.byKey.delete(r.key);
    this.bytes -= cost(r.method, r.clientIdText);
    return r;
  }

  /** The bridge's ids of the pending requests whose client id equals `clientId`, oldest first. */
  idsOf(clientId: unknown): number[] {
    return [...(this.byKey.get(ovsJsonText(clientId)) ?? [])];
  }
}

function cost(method: string, clientIdText: string): number {
  return PENDING_REQUEST_BYTES + method.length + 2 * clientIdText.length;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index just after the string that starts (with its quote) at `i`, or -1. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j + 1;
  }
  return -1;
}

/** The index just after the JSON value that starts at `i` (valid JSON assumed), or -1. */
function valueEnd(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) return stringEnd(text, i);
  if (first === LBRACE || first === LBRACKET) {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === QUOTE) {
        j = stringEnd(text, j);
        if (j < 0) return -1;
        j--;
      } else if (c === LBRACE || c === LBRACKET) depth++;
      else if (c === RBRACE || c === RBRACKET) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === COMMA || c === RBRACE || c === RBRACKET || isSpace(c)) break;
    j++;
  }
  return j > i ? j : -1;
}

/**
 * Where the value of the top-level `"id"` member of the JSON object `text`
 * is: `[start, end)`, of the last such member as `JSON.parse` takes it, or
 * undefined when there is none. `text` must be valid JSON (it was parsed).
 * A message that starts `{"id":` (what ovsdb-server and ovnkit-server
 * write) is read no further than its id.
 */
export function topLevelIdSpan(
  text: string,
  fast = false,
): { readonly start: number; readonly end: number } | undefined {
  if (fast && text.startsWith('{"id":')) {
    const start = skipSpace(text, 6);
    const end = valueEnd(text, start);
    return end < 0 ? undefined : { start, end };
  }
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== LBRACE) return undefined;
  i++;
  let found: { start: number; end: number } | undefined;
  for (;;) {
    i = skipSpace(text, i);
    const c = text.charCodeAt(i);
    if (Number.isNaN(c) || c === RBRACE) return found;
    if (c === COMMA) {
      i++;
      continue;
    }
    if (c !== QUOTE) return undefined;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return undefined;
    const raw = text.slice(i, keyEnd);
    const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    const start = skipSpace(text, i + 1);
    const end = valueEnd(text, start);
    if (end < 0) return undefined;
    if (key === 'id') found = { start, end };
    i = end;
  }
}

/**
 * `text` (a server reply whose top-level id is the bridge's) with that id
 * replaced by `idText`; undefined when the id cannot be found.
 */
export function withId(text: string, idText: string): string | undefined {
  const span = topLevelIdSpan(text, true);
  if (span === undefined) return undefined;
  return `${text.slice(0, span.start)}${idText}${text.slice(span.end)}`;
}

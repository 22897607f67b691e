/**
 * Bearer-token authentication for `ovnkit bridge`: the token comes in the
 * `Authorization: Bearer <token>` header, or, for browsers (which cannot set
 * headers on a WebSocket), in the `token` query parameter. Tokens are
 * compared in constant time (SHA-256 digests and `timingSafeEqual`), against
 * every accepted token, without an early exit.
 * @module
 */

import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** Where a request's token was found. */
export type TokenSource = 'header' | 'query';

/** A token presented by a client. */
export interface PresentedToken {
  readonly token: string;
  readonly source: TokenSource;
}

/** The outcome of {@link TokenAuthenticator.authenticate}. */
export type AuthResult =
  | { readonly ok: true; readonly source: TokenSource | 'none' }
  | { readonly ok: false; readonly reason: 'missing token' | 'invalid token' };

/** Checks bearer tokens against a fixed set of accepted ones. */
export class TokenAuthenticator {
  private readonly digests: readonly Buffer[];

  /**
   * @param tokens The accepted tokens; `undefined` disables authentication
   *   (every request is accepted).
   * @throws RangeError for an empty list or an empty token.
   */
  constructor(tokens: readonly string[] | undefined) {
    if (tokens === undefined) {
      this.digests = [];
      this.disabled = true;
      return;
    }
    if (tokens.length === 0) throw new RangeError('no token given');
    for (const t of tokens) {
      if (t === '') throw new RangeError('a token must not be empty');
    }
    this.digests = tokens.map(digest);
    this.disabled = false;
  }

  /** True when every request is accepted. */
  readonly disabled: boolean;

  /** Check the token an HTTP upgrade request carries. */
  authenticate(request: IncomingMessage): AuthResult {
    if (this.disabled) return { ok: true, source: 'none' };
    const presented = presentedToken(request);
    if (presented === undefined) return { ok: false, reason: 'missing token' };
    return this.matches(presented.token)
      ? { ok: true, source: presented.source }
      : { ok: false, reason: 'invalid token' };
  }

  /** Whether `token` is one of the accepted tokens (constant time in the token's contents). */
  matches(token: string): boolean {
    const d = digest(token);
    let ok = false;
    for (const accepted of this.digests) {
      // No early exit: every accepted token is compared.
      if (timingSafeEqual(d, accepted)) ok = true;
    }
    return ok;
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * The token a request presents: the `Authorization: Bearer` header when
 * present, else the `token` query parameter.
 */
export function presentedToken(request: IncomingMessage): PresentedToken | undefined {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header !== '') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    // A malformed Authorization header counts as an empty (invalid) token.
    return { token: m?.[1] ?? '', source: 'header' };
  }
  const url = request.url ?? '/';
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  const params = new URLSearchParams(url.slice(q + 1));
  const token = params.get('token');
  return token === null ? undefined : { token, source: 'query' };
}

/**
 * Read accepted tokens from a file: one per line; blank lines and lines
 * starting with `#` are ignored, surrounding white space is trimmed.
 * @throws Error when the file cannot be read or holds no token.
 */
export async function readTokenFile(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8');
  const tokens = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  if (tokens.length === 0) throw new Error(`${path}: the token file holds no token`);
  return tokens;
}

/** Whether `host` is a loopback address or `localhost` (where `--no-auth` is allowed). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (h === 'localhost') return true;
  const kind = isIP(h);
  if (kind === 4) return h.startsWith('127.');
  if (kind === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * The `Origin` check of WebSocket upgrades (cross-site WebSocket hijacking):
 * a browser lets any page open a WebSocket to any address and only says,
 * in the `Origin` header, which page asked. A listener that accepts every
 * origin lets a page from anywhere talk to it with the user's network
 * position (loopback included).
 *
 * The rule of {@link OriginPolicy.check}:
 * - no `Origin` header: not a browser (or a browser-less script), accepted;
 * - the origin is listed (`allowOrigins`), or `*` is listed: accepted;
 * - the origin is the listener's own: `<scheme>://<Host>` with the `Host`
 *   header the browser sent (scheme `http` for `ws:`, `https` for `wss:`),
 *   compared after URL normalization (lower-case host, default port
 *   dropped). A page cannot choose the `Host` header of its WebSocket
 *   requests, so the page must have been loaded from this very host and
 *   port. To keep DNS rebinding out (a hostile name resolved to 127.0.0.1
 *   gives the hostile page the same origin as the listener), the `Host`
 *   must also be an IP address, `localhost`, or the host the listener was
 *   given; a page served under another name must be listed.
 * - anything else, including the opaque origin `null` (sandboxed frames,
 *   `file:` pages) unless listed: refused, with HTTP 403 before the upgrade.
 *
 * `localhost` and `127.0.0.1` are different origins to a browser: a page
 * loaded from `http://localhost:8080/` must connect to `ws://localhost:8080/`.
 * @module
 */

import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** The outcome of {@link OriginPolicy.check}. */
export type OriginVerdict =
  | { readonly ok: true; readonly why: 'no origin' | 'listed' | 'any' | 'same origin' }
  | { readonly ok: false; readonly reason: string };

/** An `allowOrigins` entry is not an origin. */
export class OriginSyntaxError extends Error {
  override name = 'OriginSyntaxError';
}

/**
 * Normalize an origin as a browser writes it: `https://ui.example.com`,
 * `http://127.0.0.1:8080`, `http://[::1]:8080`; `*` and `null` are kept.
 * @throws {@link OriginSyntaxError} when `text` is not a scheme, a host and
 *   an optional port (no path, query, user or fragment).
 */
export function normalizeOrigin(text: string): string {
  if (text === '*' || text === 'null') return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OriginSyntaxError(
      `"${text}" is not an origin (expected e.g. https://ui.example.com)`,
    );
  }
  if (
    url.host === '' ||
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== '' ||
    (url.pathname !== '/' && url.pathname !== '')
  ) {
    throw new OriginSyntaxError(
      `"${text}" is not an origin: give only a scheme, a host and a port (e.g. https://ui.example.com:8443)`,
    );
  }
  // Other schemes (e.g. chrome-extension:) have an opaque URL origin: keep their text.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `${url.protocol}//${url.host}`;
  }
  return url.origin;
}

/** The `Origin` check of one listener; immutable. */
export class OriginPolicy {
  /** The listed origins, normalized. */
  readonly allowed: ReadonlySet<string>;
  /** True when `*` is listed: every origin is accepted. */
  readonly any: boolean;
  private readonly scheme: 'http' | 'https';
  private readonly listenHost: string;

  /**
   * @param kind The listener's scheme: `ws` (pages on `http:`) or `wss` (`https:`).
   * @param listenHost The host the listener was given (e.g. `127.0.0.1`, `0.0.0.0`).
   * @param allowOrigins Origins accepted besides the listener's own; `*` accepts any.
   * @throws {@link OriginSyntaxError} for an entry that is not an origin.
   */
  constructor(
    kind: 'ws' | 'wss',
    listenHost: string,
    allowOrigins: readonly string[] | undefined = undefined,
  ) {
    this.scheme = kind === 'wss' ? 'https' : 'http';
    this.listenHost = listenHost.toLowerCase();
    const allowed = new Set<string>();
    for (const o of allowOrigins ?? []) allowed.add(normalizeOrigin(o.trim()));
    this.any = allowed.has('*');
    allowed.delete('*');
    this.allowed = allowed;
  }

  /** Decide on an upgrade request. */
  check(request: IncomingMessage): OriginVerdict {
    const header = request.headers.origin;
    if (header === undefined) return { ok: true, why: 'no origin' };
    if (this.any) return { ok: true, why: 'any' };
    let origin: string;
    try {
      origin = normalizeOrigin(header);
    } catch {
      return { ok: false, reason: `origin ${JSON.stringify(header)} is not an origin` };
    }
    if (this.allowed.has(origin)) return { ok: true, why: 'listed' };
    const own = this.ownOrigin(request.headers.host);
    if (own !== undefined && own === origin) return { ok: true, why: 'same origin' };
    return { ok: false, reason: `origin ${origin} is not allowed` };
  }

  /**
   * The listener's origin as the request's `Host` names it, when that host
   * may serve a same-origin page (an IP address, `localhost`, or the listen
   * host); undefined otherwise.
   */
  private ownOrigin(host: string | undefined): string | undefined {
    if (host === undefined || host === '') return undefined;
    let url: URL;
    try {
      url = new URL(`${this.scheme}://${host}`);
    } catch {
      return undefined;
    }
    if (url.pathname !== '/' || url.username !== '' || url.search !== '') return undefined;
    const name = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    const trusted = isIP(name) !== 0 || name === 'localhost' || name === this.listenHost;
    return trusted ? url.origin : undefined;
  }
}

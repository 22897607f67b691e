/**
 * Where a WebSocket server listens: `ws://<ip>:<port>[/<path>]`,
 * `wss://…`, or the OVSDB-style `ws:<ip>:<port>` (port 0 picks a free port).
 *
 * ```ts
 * parseListenAddress('ws://127.0.0.1:8080/ovsdb'); // { kind: 'ws', host: '127.0.0.1', port: 8080, path: '/ovsdb' }
 * parseListenAddress('ws:127.0.0.1:0');            // { kind: 'ws', host: '127.0.0.1', port: 0, path: '/' }
 * ```
 * @module
 */

import { RemoteSyntaxError } from '../ovsdb/transport/remote.js';

/** A parsed WebSocket listen address. */
export interface ListenAddress {
  /** `wss` needs a certificate and key. */
  readonly kind: 'ws' | 'wss';
  /** The address to bind, without brackets (`0.0.0.0` or `::` for every address). */
  readonly host: string;
  /** 0–65535; 0 asks the system for a free port. */
  readonly port: number;
  /** The path WebSocket upgrades must use; `/` accepts any path. */
  readonly path: string;
}

const FORM =
  /^(wss?):(?:\/\/)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?(\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)?$/;

/**
 * Parse a WebSocket listen address.
 * @throws `RemoteSyntaxError` when it is not one.
 */
export function parseListenAddress(text: string): ListenAddress {
  const m = FORM.exec(text.trim());
  if (!m) {
    throw new RemoteSyntaxError(
      text,
      'expected ws://<ip>:<port>[/<path>], wss://<ip>:<port>[/<path>] or ws:<ip>:<port>',
    );
  }
  const kind = m[1] === 'wss' ? 'wss' : 'ws';
  const rawHost = m[2] ?? '';
  const host = rawHost.startsWith('[') ? rawHost.slice(1, -1) : rawHost;
  const port = m[3] === undefined ? (kind === 'ws' ? 80 : 443) : Number(m[3]);
  if (port > 65535) throw new RemoteSyntaxError(text, `port ${port} is out of range 0-65535`);
  return { kind, host, port, path: m[4] ?? '/' };
}

/** The URL clients use for a listener bound to `port` (a wildcard host becomes loopback). */
export function listenUrl(address: ListenAddress, port: number): string {
  const host =
    address.host === '0.0.0.0' ? '127.0.0.1' : address.host === '::' ? '::1' : address.host;
  const h = host.includes(':') ? `[${host}]` : host;
  return `${address.kind}://${h}:${port}${address.path}`;
}

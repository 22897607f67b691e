/**
 * A minimal static file server for `ovnkit bridge --static DIR`, so that a
 * browser page and the WebSocket it opens share one origin. It serves `GET`
 * and `HEAD` of regular files under DIR (`/` is `index.html`), refuses paths
 * that leave DIR, and sets `nosniff` and `no-store`.
 * @module
 */

import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** Answer one HTTP request from files under `root` (an absolute, real directory path). */
export async function serveStatic(
  root: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    reply(response, 405, 'method not allowed', { Allow: 'GET, HEAD' });
    return;
  }
  const raw = (request.url ?? '/').split('?')[0] ?? '/';
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    reply(response, 400, 'bad request');
    return;
  }
  if (path.includes('\0')) {
    reply(response, 400, 'bad request');
    return;
  }
  if (path.endsWith('/')) path += 'index.html';
  const candidate = resolve(join(root, path));
  if (candidate !== root && !candidate.startsWith(root + sep)) {
    reply(response, 404, 'not found');
    return;
  }
  let real: string;
  try {
    real = await realpath(candidate);
    if (real !== root && !real.startsWith(root + sep)) throw new Error('outside');
    const info = await stat(real);
    if (!info.isFile()) throw new Error('not a file');
    response.writeHead(200, {
      'Content-Type': TYPES[extname(real).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': info.size,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
  } catch {
    reply(response, 404, 'not found');
    return;
  }
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  const stream = createReadStream(real);
  stream.on('error', () => response.destroy());
  stream.pipe(response);
}

function reply(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  response.end(`${text}\n`);
}

/**
 * Giving up on a WebSocket that is still connecting (abort, or the open
 * timeout) rejects the open with the reason and raises nothing else: `ws`
 * reports such a socket with a late "closed before the connection was
 * established" error, which must not become an uncaught exception (as it did
 * when a database client was closed while its dial was in flight).
 */

import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNodeWebSocketTransport } from '../../src/ovsdb/transport/connect-ws.js';
import { sleep } from '../helpers/server.js';

/** An HTTP server that takes the upgrade request and never answers it. */
let server: Server;
let url: string;
const held: Socket[] = [];

beforeAll(async () => {
  server = createServer();
  server.on('upgrade', (_req, socket: Socket) => {
    held.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  url = `ws://127.0.0.1:${address.port}/ovsdb`;
});

afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function watchUncaught(): { errors: unknown[]; stop(): void } {
  const errors: unknown[] = [];
  const onError = (e: unknown) => errors.push(e);
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
  return {
    errors,
    stop() {
      process.off('uncaughtException', onError);
      process.off('unhandledRejection', onError);
    },
  };
}

describe('abandoning a WebSocket while it connects', () => {
  it('an abort rejects with the reason and raises no uncaught error', async () => {
    const watch = watchUncaught();
    try {
      const controller = new AbortController();
      const opening = openNodeWebSocketTransport(url, { signal: controller.signal });
      await sleep(50);
      const reason = new Error('client closed');
      controller.abort(reason);
      await expect(opening).rejects.toBe(reason);
      await sleep(100);
      expect(watch.errors).toEqual([]);
    } finally {
      watch.stop();
    }
  });

  it('the open timeout rejects and raises no uncaught error', async () => {
    const watch = watchUncaught();
    try {
      const opening = openNodeWebSocketTransport(url, { timeoutMs: 100 });
      await expect(opening).rejects.toThrow(/not open within 100 ms|handshake/i);
      await sleep(100);
      expect(watch.errors).toEqual([]);
    } finally {
      watch.stop();
    }
  });
});

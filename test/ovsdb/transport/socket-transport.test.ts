/**
 * The Node socket transports and `connect`: connection failures, the order of
 * events, back-pressure, and what a connection sees when the server goes
 * away, against both servers (a real ovsdb-server and the in-memory server).
 */

import { mkdtemp, rm } from 'node:fs/promises';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../../src/ovsdb/connection/connect.js';
import { RemoteSyntaxError } from '../../../src/ovsdb/transport/remote.js';
import {
  openSocketTransport,
  type SocketTransport,
} from '../../../src/ovsdb/transport/socket-transport.js';
import { ConnectionClosedError, OvsdbError } from '../../../src/ovsdb/wire/errors.js';
import type { TransportHandlers } from '../../../src/ovsdb/wire/transport.js';
import { DB, METHODS, nextEvent, sleep, TEST_SCHEMA, useServer } from '../../helpers/server.js';
import { SERVER_KINDS, startTestServer } from '../../helpers/servers.js';

interface Recorded {
  readonly events: string[];
  readonly text: () => string;
  readonly closed: Promise<Error | undefined>;
  readonly handlers: TransportHandlers;
}

function recorder(): Recorded {
  const events: string[] = [];
  const chunks: Buffer[] = [];
  let resolveClosed!: (e: Error | undefined) => void;
  const closed = new Promise<Error | undefined>((r) => {
    resolveClosed = r;
  });
  return {
    events,
    text: () => Buffer.concat(chunks).toString('utf8'),
    closed,
    handlers: {
      data: (c) => {
        events.push('data');
        chunks.push(Buffer.from(c));
      },
      message: () => events.push('message'),
      drain: () => events.push('drain'),
      close: (e) => {
        events.push(e ? `close:${e.message}` : 'close');
        resolveClosed(e);
      },
    },
  };
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

describe.each(SERVER_KINDS)('against %s', (kind) => {
  const fixture = useServer({}, kind);

  describe('openSocketTransport', () => {
    it.each(METHODS)('%s: a stream transport described by its remote', async (method) => {
      const tls =
        method === 'ssl'
          ? await import('../../../src/testing/index.js').then((m) =>
              m.readClientTls(fixture.server.pki!),
            )
          : undefined;
      const t = await openSocketTransport(fixture.remote(method), { tls });
      expect(t.kind).toBe('stream');
      expect(t.description).toBe(fixture.remote(method));
      const rec = recorder();
      t.attach(rec.handlers);
      expect(t.write('{"method":"echo","params":["hi"],"id":"x"}')).toBe(true);
      for (let i = 0; i < 100 && !rec.text().includes('}'); i++) await sleep(10);
      expect(JSON.parse(rec.text())).toEqual({ id: 'x', result: ['hi'], error: null });
      t.close();
      expect(await rec.closed).toBeUndefined();
      expect(rec.events.filter((e) => e.startsWith('close'))).toEqual(['close']);
      expect(t.write('{}')).toBe(false);
    });

    it('holds data that arrives before attach', async () => {
      const t = await openSocketTransport(fixture.remote('unix'));
      t.write('{"method":"list_dbs","params":[],"id":1}');
      await sleep(100);
      const rec = recorder();
      t.attach(rec.handlers);
      for (let i = 0; i < 100 && !rec.text().includes('}'); i++) await sleep(10);
      expect(JSON.parse(rec.text())).toEqual({ id: 1, result: [DB, '_Server'], error: null });
      t.close();
    });

    it('reports a close that happened before attach on attach', async () => {
      const t = await openSocketTransport(fixture.remote('unix'));
      // ovsdb-server drops a session that sends a JSON-RPC 2.0 member.
      t.write('{"jsonrpc":"2.0","method":"list_dbs","params":[],"id":1}');
      await sleep(300);
      const rec = recorder();
      t.attach(rec.handlers);
      await rec.closed;
      expect(rec.events.filter((e) => e.startsWith('close'))).toHaveLength(1);
    });

    it('refuses a second attach', async () => {
      const t = await openSocketTransport(fixture.remote('unix'));
      t.attach(recorder().handlers);
      expect(() => t.attach(recorder().handlers)).toThrow(/already attached/);
      t.close();
    });

    it('a refused tcp connection is a ConnectionClosedError with the socket error as cause', async () => {
      const port = await freePort();
      const err = await openSocketTransport(`tcp:127.0.0.1:${port}`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectionClosedError);
      expect((err as Error).message).toContain(`connect to tcp:127.0.0.1:${port} failed`);
      expect(((err as Error).cause as { code?: string }).code).toBe('ECONNREFUSED');
    });

    it('a missing unix socket is a ConnectionClosedError (ENOENT)', async () => {
      const err = await openSocketTransport('unix:/nonexistent/ovnkit/db.sock').catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ConnectionClosedError);
      expect(((err as Error).cause as { code?: string }).code).toBe('ENOENT');
    });

    it('rejects invalid and passive remotes before connecting', async () => {
      await expect(openSocketTransport('ptcp:6640')).rejects.toBeInstanceOf(RemoteSyntaxError);
      await expect(openSocketTransport('ws:localhost:80')).rejects.toThrow(/is a WebSocket remote/);
      await expect(openSocketTransport('tcp:127.0.0.1:1', { timeoutMs: 0 })).rejects.toThrow(
        /timeoutMs must be positive/,
      );
    });

    it('an already aborted signal rejects at once with its reason', async () => {
      const reason = new Error('no');
      await expect(
        openSocketTransport(fixture.remote('unix'), { signal: AbortSignal.abort(reason) }),
      ).rejects.toBe(reason);
    });

    it('reports back-pressure: write returns false, then drain', async () => {
      let peer: net.Socket | undefined;
      const server = net.createServer((s) => {
        peer = s;
        s.pause(); // read nothing until told to
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as net.AddressInfo;
      let t: SocketTransport | undefined;
      try {
        t = await openSocketTransport(`tcp:127.0.0.1:${port}`);
        const rec = recorder();
        t.attach(rec.handlers);
        const chunk = `"${'x'.repeat(1 << 20)}"`;
        let writes = 0;
        while (t.write(chunk)) {
          writes++;
          if (writes > 1000) throw new Error('write never reported back-pressure');
        }
        expect(t.bufferedBytes).toBeGreaterThan(0);
        expect(rec.events).not.toContain('drain');
        for (let i = 0; i < 100 && !peer; i++) await sleep(10);
        peer?.resume();
        for (let i = 0; i < 500 && !rec.events.includes('drain'); i++) await sleep(10);
        expect(rec.events).toContain('drain');
      } finally {
        t?.close();
        peer?.destroy();
        await new Promise((r) => server.close(r));
      }
    });
  });

  describe('connect', () => {
    it('passes connection options through (requestTimeoutMs)', async () => {
      const conn = await connect(fixture.remote('unix'), { requestTimeoutMs: 200 });
      const err = await conn
        .transact(DB, [
          {
            op: 'wait',
            table: 'Item',
            where: [['name', '==', 'never-there']],
            columns: ['n'],
            until: '==',
            rows: [{ n: 1 }],
            timeout: 60_000,
          },
        ])
        .catch((e: unknown) => e);
      expect((err as Error).name).toBe('RequestTimeoutError');
      conn.close();
    });

    it('accepts a parsed Remote', async () => {
      const path = fixture.remote('unix').slice('unix:'.length);
      const conn = await connect({ kind: 'unix', path });
      expect(await conn.listDbs()).toContain(DB);
      conn.close();
    });
  });

  describe('when the server goes away', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'ovnkit-away-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it.each(['unix', 'tcp'] as const)(
      '%s: a killed server closes the connection with an error and fails pending requests',
      async (method) => {
        const server = await startTestServer(kind, { schema: TEST_SCHEMA, remotes: [method] });
        try {
          const conn = await connect(server.remotes[method]!);
          const pending = conn
            .transact(DB, [
              {
                op: 'wait',
                table: 'Item',
                where: [['name', '==', 'x']],
                columns: ['n'],
                until: '==',
                rows: [{ n: 1 }],
                timeout: 60_000,
              },
            ])
            .catch((e: unknown) => e);
          await conn.echo('sync');
          const closeEvent = nextEvent(conn, 'close');
          await server.kill();
          const [error] = await closeEvent;
          expect(error).toBeInstanceOf(OvsdbError);
          expect(conn.isClosed).toBe(true);
          expect(await pending).toBeInstanceOf(ConnectionClosedError);
          // After a restart on the same remote, a new connection works again.
          await server.restart();
          const again = await connect(server.remotes[method]!);
          expect(await again.listDbs()).toContain(DB);
          again.close();
        } finally {
          await server.stop();
        }
      },
    );
  });
});

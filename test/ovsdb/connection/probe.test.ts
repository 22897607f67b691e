/**
 * The inactivity probe: the server sends `echo` to an idle tcp/ssl session
 * and drops it when no reply comes within another interval. The real
 * ovsdb-server's listeners here come from Connection rows
 * (`--remote=db:Test,Root,connections`) whose `inactivity_probe` is 1000 ms;
 * the in-memory server's from its `probeIntervalMs` option, also 1000 ms.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { OvsdbConnection } from '../../../src/ovsdb/connection/connection.js';
import { parseRemote } from '../../../src/ovsdb/transport/remote.js';
import { openSocketTransport } from '../../../src/ovsdb/transport/socket-transport.js';
import { readClientTls } from '../../../src/testing/index.js';
import { DB, sleep, useServer, WireTap } from '../../helpers/server.js';
import { SERVER_KINDS } from '../../helpers/servers.js';

const PROBE_MS = 1000;

describe.each(SERVER_KINDS)('against %s', (kind) => {
  const fixture = useServer(
    kind === 'ovsdb-server'
      ? { extraArgs: ['--remote=db:Test,Root,connections'] }
      : { probeIntervalMs: PROBE_MS },
    kind,
  );
  const ports: { tcp?: number; ssl?: number } = {};

  beforeAll(async () => {
    if (kind === 'memory') {
      for (const method of ['tcp', 'ssl'] as const) {
        const r = parseRemote(fixture.remote(method));
        if (r.kind !== 'unix') ports[method] = r.port;
      }
      return;
    }

    const conn = await fixture.connect('unix');
    await conn.transact(DB, [
      {
        op: 'insert',
        table: 'Connection',
        row: { target: 'ptcp:0:127.0.0.1', inactivity_probe: PROBE_MS },
        'uuid-name': 'tcp',
      },
      {
        op: 'insert',
        table: 'Connection',
        row: { target: 'pssl:0:127.0.0.1', inactivity_probe: PROBE_MS },
        'uuid-name': 'ssl',
      },
      {
        op: 'insert',
        table: 'Root',
        row: {
          connections: [
            'set',
            [
              ['named-uuid', 'tcp'],
              ['named-uuid', 'ssl'],
            ],
          ],
        },
      },
    ]);
    // The server reports the port it bound in Connection.status:bound_port.
    for (let i = 0; i < 250 && (ports.tcp === undefined || ports.ssl === undefined); i++) {
      const [sel] = await conn.transact(DB, [
        { op: 'select', table: 'Connection', where: [], columns: ['target', 'status'] },
      ]);
      for (const row of (
        sel as { rows: { target: string; status: [string, [string, string][]] }[] }
      ).rows) {
        const port = row.status[1].find(([k]) => k === 'bound_port')?.[1];
        if (port === undefined) continue;
        if (row.target.startsWith('ptcp:')) ports.tcp = Number(port);
        else ports.ssl = Number(port);
      }
      if (ports.tcp === undefined || ports.ssl === undefined) await sleep(20);
    }
    conn.close();
    if (ports.tcp === undefined || ports.ssl === undefined) {
      throw new Error(`the Connection listeners did not come up: ${JSON.stringify(ports)}`);
    }
  });

  const isProbe = (m: unknown) => {
    const msg = m as { method?: unknown; params?: unknown; id?: unknown };
    return msg.method === 'echo' && msg.id === 'echo';
  };

  describe.each(['tcp', 'ssl'] as const)('inactivity probe over %s', (method) => {
    it('is answered while idle, so the connection outlives several probe intervals', async () => {
      const port = ports[method];
      if (port === undefined) throw new Error('no port');
      const remote = `${method}:127.0.0.1:${port}`;
      const tls = method === 'ssl' ? await readClientTls(fixture.server.pki!) : undefined;
      const tap = new WireTap(await openSocketTransport(remote, { tls }));
      const conn = new OvsdbConnection(tap);

      // Control: a client that never answers is dropped after about two intervals.
      const start = Date.now();
      let silentClosedAt = 0;
      let silentClosed!: () => void;
      const silentDone = new Promise<void>((r) => {
        silentClosed = r;
      });
      const silent = await openSocketTransport(remote, { tls });
      silent.attach({
        data: () => undefined,
        message: () => undefined,
        drain: () => undefined,
        close: () => {
          silentClosedAt = Date.now() - start;
          silentClosed();
        },
      });

      // Idle for at least three intervals, and until the silent client is dropped
      // (bounded, in case a loaded machine delays the server).
      await Promise.race([silentDone, sleep(10 * PROBE_MS)]);
      const idle = 3.3 * PROBE_MS - (Date.now() - start);
      if (idle > 0) await sleep(idle);

      const probes = tap.received.filter(isProbe);
      expect(probes.length).toBeGreaterThanOrEqual(2);
      expect(probes[0]).toEqual({ method: 'echo', params: [], id: 'echo' });
      const replies = tap.sent.filter(
        (m) => (m as { id?: unknown }).id === 'echo' && 'result' in (m as object),
      );
      expect(replies.length).toBe(probes.length);
      expect(replies[0]).toEqual({ id: 'echo', result: [], error: null });
      expect(conn.isClosed).toBe(false);
      expect(await conn.echo('alive')).toEqual(['alive']);

      expect(silentClosedAt).toBeGreaterThan(1.5 * PROBE_MS);
      expect(silentClosedAt).toBeLessThan(10 * PROBE_MS);
      // ovsdb-server may write its log a moment after the disconnection.
      // The figure is the measured idle time ("1 seconds", or "1.01 seconds" on a loaded machine).
      const dropped = /no response to inactivity probe after 1(?:\.\d+)? seconds, disconnecting/;
      let log = await fixture.server.readLog();
      for (let i = 0; i < 60 && !dropped.test(log); i++) {
        await sleep(50);
        log = await fixture.server.readLog();
      }
      expect(log).toMatch(dropped);
      conn.close();
      silent.close();
    }, 15_000);
  });
});

/**
 * Acceptance (issue #25): a server that is busy but alive is not declared
 * dead. A scripted peer stands in for an ovsdb-server building the initial
 * reply of a large database: it answers the handshake, then writes nothing
 * at all for 25 s (five times the 5 s probe interval, as long as ovsdb-server
 * took for a 500k-port Northbound database; over tcp the client asks its
 * kernel all along whether the server's host answers, and it does) and
 * then sends an initial monitor reply larger than 64 MiB. Over unix and
 * over tcp, a client with default options becomes ready on the first
 * connection.
 */

import { describe, expect, it } from 'vitest';
import type { StatusEvent } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import { DEFAULT_PROBE_INTERVAL_MS } from '../../src/client/options.js';
import { BusyPeer } from './helpers/busy-peer.js';
import { TEST_MODEL } from './helpers/fixtures.js';

const SILENCE_MS = 25_000;
const ROWS = 1100;
const ROW_BYTES = 64 * 1024;

describe.concurrent('a busy server', () => {
  it.each(['unix', 'tcp'] as const)(
    'over %s: ready with default options after 25 s of silence and a reply over 64 MiB',
    async (kind) => {
      expect(SILENCE_MS).toBeGreaterThan(2 * DEFAULT_PROBE_INTERVAL_MS);
      const peer = await BusyPeer.start(kind, {
        silenceMs: SILENCE_MS,
        rows: ROWS,
        rowBytes: ROW_BYTES,
      });
      const statuses: StatusEvent[] = [];
      const client = connectDatabase({ remotes: peer.remote, model: TEST_MODEL });
      client.onStatus((e) => {
        statuses.push(e);
      });
      try {
        await client.ready;
        expect(client.count('Item')).toBe(ROWS);
        expect(peer.replyBytes).toBeGreaterThan(64 * 1024 * 1024);
        expect(peer.accepted).toBe(1);
        expect(peer.methods.filter((m) => m.startsWith('monitor'))).toEqual(['monitor_cond_since']);
        // No echo while the reply was owed: nothing for the busy server to queue.
        expect(peer.methods).not.toContain('echo');
        expect(statuses.map((e) => e.type)).toEqual(['connecting', 'connected']);
      } finally {
        await client.close();
        await peer.close();
      }
    },
    120_000,
  );
});

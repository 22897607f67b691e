/**
 * Relays judged as Open vSwitch's C client (ovsdb-cs) judges them, against
 * a real `ovsdb-server relay:Test:<source>` in front of a clustered
 * ovsdb-server:
 *
 * - a leader-only client (the default) never chooses a relay: it skips it
 *   and uses the source;
 * - a client that is not leader-only works through a relay: it reads the
 *   source's data and its transactions (forwarded by the relay) commit;
 * - a relay that has lost its source (`connected` false, which ovsdb-server
 *   reports 30 s after the loss) is left and then skipped, until its source
 *   is back.
 */

import { describe, expect, it } from 'vitest';
import type { StatusEvent } from '../../src/client/client.js';
import { connectDatabase } from '../../src/client/open.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { requireOvsdbServer, startOvsdbServer } from '../../src/testing/index.js';
import { DB, TEST_SCHEMA } from '../helpers/server.js';
import { TEST_MODEL } from './helpers/fixtures.js';

requireOvsdbServer();

const insert = (name: string): Operation[] => [
  { op: 'insert', table: 'Item', row: { name, n: 1 } } as Operation,
];

async function sourceAndRelay() {
  const source = await startOvsdbServer({ schema: TEST_SCHEMA, clustered: true });
  const relay = await startOvsdbServer({ schema: TEST_SCHEMA, relay: source.unixRemote });
  return {
    source,
    relay,
    stop: async () => {
      await relay.stop();
      await source.stop();
    },
  };
}

/** Resolves with the first status event `match` accepts. */
function nextEvent(
  client: { onStatus(h: (e: StatusEvent) => void): () => void },
  match: (e: StatusEvent) => boolean,
): Promise<StatusEvent> {
  return new Promise((resolve) => {
    const off = client.onStatus((e) => {
      if (match(e)) {
        off();
        resolve(e);
      }
    });
  });
}

describe.concurrent('relays', () => {
  it('a leader-only client never chooses a relay', async () => {
    const { source, relay, stop } = await sourceAndRelay();
    const client = connectDatabase({
      remotes: [relay.unixRemote, source.unixRemote],
      model: TEST_MODEL,
    });
    try {
      const connected = nextEvent(client, (e) => e.type === 'connected');
      await client.ready;
      expect(client.status.remote).toBe(source.unixRemote);
      const e = await connected;
      expect(e.servers).toMatchObject([
        {
          remote: relay.unixRemote,
          skipped: true,
          code: 'not-leader',
          reason: "the server is a relay of Test, never its cluster's leader",
        },
      ]);
    } finally {
      await client.close();
      await stop();
    }
  }, 60_000);

  it('a client that is not leader-only works through a relay', async () => {
    const { source, relay, stop } = await sourceAndRelay();
    const client = connectDatabase({
      remotes: relay.unixRemote,
      model: TEST_MODEL,
      leaderOnly: false,
    });
    try {
      await source.ovsdbClient('transact', JSON.stringify([DB, ...insert('from-source')]));
      await client.ready;
      expect(client.status.remote).toBe(relay.unixRemote);
      expect(client.health).toMatchObject({ remote: relay.unixRemote, role: 'relay' });
      await client.waitFor('Item', (r) => r.name === 'from-source', { timeoutMs: 10_000 });
      // A write through the relay is forwarded to the source and commits there.
      await client.transactRaw(insert('through-relay'));
      expect(client.find('Item', (r) => r.name === 'through-relay')).toBeDefined();
      const reply = JSON.parse(
        await source.ovsdbClient(
          'transact',
          JSON.stringify([DB, { op: 'select', table: 'Item', where: [], columns: ['name'] }]),
        ),
      ) as [{ rows: { name: string }[] }];
      expect(reply[0].rows.map((r) => r.name).sort()).toEqual(['from-source', 'through-relay']);
    } finally {
      await client.close();
      await stop();
    }
  }, 60_000);

  it('a relay that has lost its source is left, and skipped until its source is back', async () => {
    const { source, relay, stop } = await sourceAndRelay();
    const client = connectDatabase({
      remotes: relay.unixRemote,
      model: TEST_MODEL,
      leaderOnly: false,
      backoff: { initialDelayMs: 200, maxDelayMs: 1000 },
    });
    try {
      await client.ready;
      const left = nextEvent(client, (e) => e.type === 'disconnected');
      const skipped = nextEvent(client, (e) => e.type === 'reconnecting');
      await source.kill();
      // ovsdb-server reports the loss 30 s later (RELAY_MAX_RECONNECTION_MS).
      expect((await left).reason).toBe('the relay is not connected to its source of Test');
      expect((await skipped).servers).toMatchObject([
        { remote: relay.unixRemote, skipped: true, code: 'disconnected' },
      ]);
      expect(client.status.state).toBe('reconnecting');
      const back = nextEvent(client, (e) => e.type === 'resynced');
      await source.restart();
      expect((await back).remote).toBe(relay.unixRemote);
    } finally {
      await client.close();
      await stop();
    }
  }, 90_000);
});

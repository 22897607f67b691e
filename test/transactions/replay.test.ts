/**
 * verify + replay: two clients race to increment the same counter with
 * verify-then-update; conflicts are replayed against the refreshed replica,
 * and no increment is lost; against every target (both servers, and the
 * real one over `ws:` through the bridge).
 */

import { describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import { NB, type NBTables } from '../../src/nb/generated/index.js';
import { VerifyConflictError } from '../../src/transactions/index.js';
import { TARGETS } from '../helpers/targets.js';
import type { Transacting } from '../helpers/typed.js';
import { NB_SCHEMA_PATH, rejection, useServer } from './helpers.js';

const ROUNDS = 200;

async function increment(
  client: DatabaseClient<NBTables>,
  db: Transacting<NBTables>,
  by: number,
  retries: number,
) {
  return db.transact(
    (tx) => {
      const global = client.find('NB_Global', () => true);
      if (global === undefined) throw new Error('no NB_Global row');
      tx.verify(global, ['nb_cfg']);
      tx.update('NB_Global', global._uuid, { nb_cfg: Number(global.nb_cfg) + by });
      return global.nb_cfg;
    },
    { retries },
  );
}

describe.each(TARGETS)('verify and replay against %s', (target) => {
  const fixture = useServer(target, { schemaPath: NB_SCHEMA_PATH });

  describe('verify and replay', () => {
    it(`two clients racing ${ROUNDS} verify-then-update increments each lose none`, async () => {
      const a = await fixture.client(NB);
      const b = await fixture.client(NB);
      await a.db.transact((tx) => tx.insert('NB_Global', {}));
      await b.client.waitFor('NB_Global', () => true, { timeoutMs: 5000 });
      const run = async (side: typeof a, by: number) => {
        let replays = 0;
        let maxReplays = 0;
        for (let i = 0; i < ROUNDS; i++) {
          const r = await increment(side.client, side.db, by, 100);
          replays += r.replays;
          maxReplays = Math.max(maxReplays, r.replays);
        }
        return { replays, maxReplays };
      };
      const started = Date.now();
      const [ra, rb] = await Promise.all([run(a, 1), run(b, 1000)]);
      const ms = Date.now() - started;
      // Read the server (a replica may not have the other side's last update yet).
      const { value: rows } = await a.db.transact((tx) => tx.select('NB_Global', [], ['nb_cfg']));
      const final = rows[0]!.nb_cfg;
      // Every increment of both sides is there: ROUNDS × 1 + ROUNDS × 1000.
      expect(final).toBe(ROUNDS * 1 + ROUNDS * 1000);
      // The race did happen: some transactions were replayed.
      expect(ra.replays + rb.replays).toBeGreaterThan(0);
      console.log(
        `replay race: ${2 * ROUNDS} increments in ${ms} ms, final nb_cfg ${final}, replays ${ra.replays} + ${rb.replays} (max ${Math.max(ra.maxReplays, rb.maxReplays)} for one transaction)`,
      );
    });

    it('gives up with VerifyConflictError after `retries` replays', async () => {
      const a = await fixture.client(NB);
      const b = await fixture.client(NB);
      const stale = a.client.find('NB_Global', () => true)!;
      // Another client changes the row; a callback that verifies the stale copy
      // (not read from the replica) conflicts on every replay.
      await b.db.transact((t) => t.mutate('NB_Global', stale._uuid, [['nb_cfg', '+=', 1]]));
      await a.client.waitFor('NB_Global', (g) => g.nb_cfg !== stale.nb_cfg, { timeoutMs: 5000 });
      let calls = 0;
      const e = await rejection(
        a.db.transact(
          (tx) => {
            calls++;
            tx.verify(stale, ['nb_cfg']);
            tx.update('NB_Global', stale._uuid, { nb_cfg: Number(stale.nb_cfg) + 1 });
          },
          { retries: 2 },
        ),
      );
      expect(e).toBeInstanceOf(VerifyConflictError);
      expect(e).toMatchObject({
        uuid: stale._uuid,
        columns: ['nb_cfg'],
        replays: 2,
        op: 'wait',
        error: 'timed out',
      });
      expect(calls).toBe(3);
    });

    it('replays against the refreshed replica: a read-modify-write keeps a concurrent change', async () => {
      const a = await fixture.client(NB);
      const b = await fixture.client(NB);
      const uuid = a.client.find('NB_Global', () => true)!._uuid;
      const before = a.client.get('NB_Global', uuid)!.external_ids;
      let calls = 0;
      let other: Promise<unknown> | undefined;
      const result = await a.db.transact((tx) => {
        calls++;
        const g = a.client.get('NB_Global', uuid)!;
        if (calls === 1) {
          // Hold this attempt on the server until another client changes the
          // row: ovsdb-server then runs it again, and the verify fails.
          tx.wait('NB_Global', uuid, {
            columns: ['external_ids'],
            until: '!=',
            rows: [{ external_ids: before }],
            timeout: 5000,
          });
          other = b.db.transact((t) =>
            t.mutate('NB_Global', uuid, [['external_ids', 'insert', { b: 'y' }]]),
          );
        }
        tx.verify(g, ['external_ids']);
        tx.update('NB_Global', uuid, { external_ids: { ...g.external_ids, a: String(calls) } });
      });
      await other;
      expect(calls).toBe(2);
      expect(result.replays).toBe(1);
      expect(a.client.get('NB_Global', uuid)!.external_ids).toMatchObject({ a: '2', b: 'y' });
    });
  });
});

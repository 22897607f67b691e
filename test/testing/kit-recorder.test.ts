/**
 * The transaction recorder (`db.record()`): every `transact` a client
 * sends, in order, with its operations as sent and its outcome, as the
 * server saw them; the `toHaveSent`, `toHaveSentNothing` and
 * `toHaveSentAtMost` matchers (and `assertSent…`), whose failure messages
 * (checked by snapshot) list what was sent, seeded rows by name.
 */

import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/client/index.js';
import { createNb, lspAdd, NB } from '../../src/nb/index.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { assertSent, assertSentAtMost, assertSentNothing } from '../../src/testing/kit/assert.js';
import { seedDatabase } from '../../src/testing/kit/database.js';
import '../../src/testing/vitest.js';
import { closeAfterEach } from './kit-helpers.js';

const track = closeAfterEach();

async function rig() {
  const db = await seedDatabase(
    NB,
    { Logical_Switch: { sw0: { name: 'sw0' } } },
    { uuids: 'deterministic' },
  );
  track(db);
  const client = connectDatabase({ remotes: db.remote('controller'), dial: db.dial, model: NB });
  track(client);
  await client.ready;
  return { db, client };
}

function message(f: () => void): string {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the assertion passed');
}

describe('db.record()', () => {
  it('records each transaction a client sends, its operations and outcome, in order', async () => {
    const { db, client } = await rig();
    const rec = db.record();
    const nb = createNb(client);
    await nb.transact((t) => lspAdd(t, db.uuid('Logical_Switch', 'sw0'), 'p1'));
    await client
      .transactRaw([
        { op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' } } as Operation,
        { op: 'abort' },
      ])
      .catch(() => undefined);
    expect(rec.transactions.map((t) => [t.session, t.database, t.outcome])).toEqual([
      ['controller', 'OVN_Northbound', 'committed'],
      ['controller', 'OVN_Northbound', 'failed'],
    ]);
    // The DSL guards NB_Global's existence: the recording shows every operation sent.
    expect(rec).toHaveSent([
      [
        { op: 'wait', table: 'NB_Global' },
        { op: 'insert', table: 'NB_Global' },
        { op: 'insert', table: 'Logical_Switch_Port', row: { name: 'p1' } },
        {
          op: 'mutate',
          table: 'Logical_Switch',
          mutations: [['ports', 'insert', ['set', [['named-uuid', 'row1']]]]],
        },
      ],
      [{ op: 'insert', table: 'Logical_Switch' }, { op: 'abort' }],
    ]);
    expect(rec).toHaveSentAtMost(2);
    expect(rec).not.toHaveSentAtMost(1);
    // The client's monitors of _Server and the replies to them are not transactions.
    expect(rec.transactions.every((t) => t.database !== '_Server')).toBe(true);
  });

  it('records one connection label only when asked; clear and stop', async () => {
    const { db, client } = await rig();
    const mine = db.record({ session: 'controller' });
    const all = db.record();
    const other = db.connection('setup');
    await other.transact('OVN_Northbound', [
      { op: 'insert', table: 'Logical_Switch', row: { name: 'x' } },
    ]);
    other.close();
    expect(mine).toHaveSentNothing();
    expect(all).toHaveSentAtMost(1);
    expect(all.transactions[0]?.session).toBe('setup');
    all.clear();
    expect(all).toHaveSentNothing();
    all.stop();
    await client.transactRaw([{ op: 'insert', table: 'Logical_Switch', row: { name: 'y' } }]);
    expect(all).toHaveSentNothing();
    expect(mine).toHaveSent([[{ op: 'insert', table: 'Logical_Switch', row: { name: 'y' } }]]);
  });

  it('fails with a list of what was sent, seeded rows by name', async () => {
    const { db, client } = await rig();
    const rec = db.record();
    const nb = createNb(client);
    await nb.transact((t) => lspAdd(t, db.uuid('Logical_Switch', 'sw0'), 'p1'));
    const nothing = message(() => assertSentNothing(rec));
    expect(nothing).toMatchInlineSnapshot(`
      "expected no transaction to have been sent, and 1 transaction was:
        #1 controller committed
            wait NB_Global until == []
            insert NB_Global {} as @row0
            insert Logical_Switch_Port {name: "p1"} as @row1
            mutate Logical_Switch where _uuid == sw0: ports insert [@row1]"
    `);
    expect(message(() => assertSentAtMost(rec, 0))).toMatchInlineSnapshot(`
      "expected at most 0 transactions to have been sent, and 1 was:
        #1 controller committed
            wait NB_Global until == []
            insert NB_Global {} as @row0
            insert Logical_Switch_Port {name: "p1"} as @row1
            mutate Logical_Switch where _uuid == sw0: ports insert [@row1]"
    `);
    const wrong = message(() =>
      assertSent(rec, [[{ op: 'insert', table: 'ACL' }, { op: 'mutate' }]]),
    );
    expect(wrong).toMatchInlineSnapshot(`
      "the transactions sent differ from those expected:
      transaction #1: expected 2 operations, sent 4

      sent:
        #1 controller committed
            wait NB_Global until == []
            insert NB_Global {} as @row0
            insert Logical_Switch_Port {name: "p1"} as @row1
            mutate Logical_Switch where _uuid == sw0: ports insert [@row1]"
    `);
    expect(message(() => assertSent(rec, []))).toMatch(
      /^expected 0 transactions to have been sent, and 1 was:/,
    );
    try {
      assertSentNothing(rec);
    } catch (e) {
      expect(e).toBeInstanceOf(AssertionError);
    }
  });

  it('a transaction whose connection dropped before the reply is recorded without one', async () => {
    const { db, client } = await rig();
    const rec = db.record();
    db.session('controller').dropAfter(1, { method: 'transact' });
    await client
      .transactRaw([{ op: 'insert', table: 'Logical_Switch', row: { name: 'z' } }])
      .catch(() => undefined);
    expect(rec.transactions[0]?.outcome).toBe('no reply');
    expect(rec.transactions[0]?.results).toBeUndefined();
  });
});

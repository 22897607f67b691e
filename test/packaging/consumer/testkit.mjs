// A plain JavaScript consumer of the packed package's test kit under
// node:test (no vitest): a seeded in-memory database, a client dialing it,
// a dropped connection the client resumes from, the state and recorder
// assertions, and an assertion that fails with its diff.
import { AssertionError } from 'node:assert';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectDatabase } from 'ovnkit/client';
import { NB } from 'ovnkit/nb';
import { assertData, assertSent, invalidRow, seedDatabase } from 'ovnkit/testing';

test('a controller test on the test kit', async () => {
  const db = await seedDatabase(NB, {
    Logical_Switch: { sw0: { name: 'sw0', ports: ['p1'] } },
    Logical_Switch_Port: { p1: { name: 'p1' }, orphan: invalidRow({ name: 'orphan' }) },
  });
  const client = connectDatabase({ remotes: db.remote('controller'), dial: db.dial, model: NB });
  try {
    await client.ready;
    const recorder = db.record();
    await client.transactRaw([{ op: 'insert', table: 'Logical_Switch', row: { name: 'sw1' } }]);
    assertSent(recorder, [[{ op: 'insert', table: 'Logical_Switch', row: { name: 'sw1' } }]]);

    const resynced = new Promise((resolve) => {
      const off = client.onStatus((e) => {
        if (e.type === 'resynced') {
          off();
          resolve(e);
        }
      });
    });
    db.session('controller').drop();
    const event = await resynced;
    assert.equal(event.monitors[0].found, true);

    await assertData(client, {
      Logical_Switch: { sw0: { ports: ['p1'] }, other: { name: 'sw1' } },
      Logical_Switch_Port: { p1: {}, orphan: { name: 'orphan' } },
    });
    await assert.rejects(
      assertData(db, { Logical_Switch: { sw0: { name: 'sw9' } } }),
      (e) =>
        e instanceof AssertionError &&
        e.message.includes('Logical_Switch: 1 differs') &&
        e.message.includes('name: expected "sw9"'),
    );
  } finally {
    await client.close();
    await db.close();
  }
});

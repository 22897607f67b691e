/**
 * `createTestDatabase(model)` (`ovnkit/testing`): an in-memory server and a
 * connected, synced client of the model in one call.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defineModel } from '../../src/ovsdb/schema/model.js';
import { parseSchema } from '../../src/ovsdb/schema/schema.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { createTestDatabase } from '../../src/testing/index.js';

const model = defineModel(
  parseSchema(
    JSON.parse(
      readFileSync(new URL('../../schema/ovn-nb-7.18.0.ovsschema', import.meta.url), 'utf8'),
    ),
  ),
);

const addSwitch = (name: string): Operation =>
  ({ op: 'insert', table: 'Logical_Switch', row: { name } }) as Operation;

describe('createTestDatabase', () => {
  it('gives a ready client; its writes show in its replica and in a second client', async () => {
    const db = await createTestDatabase(model);
    try {
      expect(db.client.count('Logical_Switch')).toBe(0);
      const other = await db.connect();
      await db.client.transactRaw([addSwitch('sw0')]);
      // Read-your-writes: the replica has the row when transact resolves.
      expect(db.client.count('Logical_Switch')).toBe(1);
      const seen = await other.waitFor(
        'Logical_Switch',
        (r) => (r as { name?: string }).name === 'sw0',
        {
          timeoutMs: 5000,
        },
      );
      expect((seen as { name: string }).name).toBe('sw0');
      // The server holds it too.
      const engine = db.server.database('OVN_Northbound');
      expect(engine?.tables.get('Logical_Switch')?.rows.size).toBe(1);
    } finally {
      await db.close();
    }
    expect(db.server.sessionCount).toBe(0);
  });

  it('a raw connection talks to the same server; listen opens a socket too', async () => {
    const db = await createTestDatabase(model, { listen: ['ptcp:0:127.0.0.1'] });
    try {
      expect(db.server.remotes).toHaveLength(1);
      const conn = db.connection();
      expect(await conn.listDbs()).toEqual(['OVN_Northbound', '_Server']);
      await conn.transact('OVN_Northbound', [addSwitch('via-raw')]);
      await db.client.waitFor(
        'Logical_Switch',
        (r) => (r as { name?: string }).name === 'via-raw',
        {
          timeoutMs: 5000,
        },
      );
    } finally {
      await db.close();
    }
  });

  it('works with `await using`', async () => {
    let server: { sessionCount: number } | undefined;
    {
      await using db = await createTestDatabase(model);
      server = db.server;
      expect(server.sessionCount).toBeGreaterThan(0);
    }
    expect(server.sessionCount).toBe(0);
  });
});

/**
 * Seeded databases (`seedDatabase`): rows per table with references by
 * name, for the bundled NB model and another generated model; the seed
 * meets every commit rule (a row the server would garbage-collect is an
 * error); deterministic UUIDs; and deliberately invalid rows, stored as
 * given, which the server then treats as its commit checks say.
 */

import { describe, expect, it } from 'vitest';
import { SB } from '../../examples/sb-agent/model/index.js';
import { connectDatabase } from '../../src/client/index.js';
import { NB } from '../../src/nb/index.js';
import type { OvsdbConnection } from '../../src/ovsdb/connection/connection.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import type { OvsdbServer } from '../../src/server/index.js';
import { seedDatabase } from '../../src/testing/kit/database.js';
import { invalidRow } from '../../src/testing/kit/seed.js';
import { closeAfterEach } from './kit-helpers.js';

const track = closeAfterEach();

async function seeded<T extends { close(): Promise<void> }>(p: Promise<T>): Promise<T> {
  const db = await p;
  track(db);
  return db;
}

/** The engine's rows of `table` of `db`'s server. */
function rows(
  db: { readonly server: OvsdbServer; readonly model: { readonly name: string } },
  table: string,
) {
  return [...(db.server.database(db.model.name)?.tables.get(table)?.rows.values() ?? [])];
}

const T = 'OVN_Northbound';
async function tx(conn: OvsdbConnection, ops: object[]): Promise<unknown[]> {
  return new Promise((onReply, onError) =>
    conn.sendTransact(T, ops as Operation[], { onReply: onReply as (r: unknown) => void, onError }),
  );
}

describe('seedDatabase', () => {
  it('loads rows per table; a name in a reference column is the UUID of the row declared under it', async () => {
    const db = await seeded(
      seedDatabase(NB, {
        Logical_Switch: {
          sw0: { name: 'sw0', ports: ['p1', 'p2'], other_config: { subnet: '10.0.0.0/24' } },
        },
        Logical_Switch_Port: {
          p1: { name: 'p1', addresses: ['00:00:00:00:00:01 10.0.0.1'], dhcpv4_options: 'd4' },
          p2: { name: 'p2', tag_request: 7 },
        },
        DHCP_Options: { d4: { cidr: '10.0.0.0/24' } },
      }),
    );
    const sw = rows(db, 'Logical_Switch');
    expect(sw).toHaveLength(1);
    expect(sw[0]?.uuid).toBe(db.uuid('Logical_Switch', 'sw0'));
    expect(sw[0]?.fields['ports']?.keys).toEqual(
      [db.uuid('Logical_Switch_Port', 'p1'), db.uuid('Logical_Switch_Port', 'p2')].sort(),
    );
    // A client sees exactly that.
    const client = connectDatabase({ remotes: db.remote(), dial: db.dial, model: NB });
    track(client);
    await client.ready;
    const p1 = client.lookup('Logical_Switch_Port', { name: 'p1' });
    expect(p1?._uuid).toBe(db.uuid('Logical_Switch_Port', 'p1'));
    expect(p1?.dhcpv4_options).toBe(db.uuid('DHCP_Options', 'd4'));
    expect(client.lookup('Logical_Switch_Port', { name: 'p2' })?.tag_request).toBe(7);
    expect(client.get('Logical_Switch', db.uuid('Logical_Switch', 'sw0'))?.other_config).toEqual({
      subnet: '10.0.0.0/24',
    });
  });

  it('seeds any generated model: the SB model of an example, with its references', async () => {
    const db = await seeded(
      seedDatabase(SB, {
        Chassis: { ch1: { name: 'ch1', hostname: 'host-1', encaps: ['e1'] } },
        Encap: { e1: { type: 'geneve', ip: '192.0.2.1', chassis_name: 'ch1' } },
      }),
    );
    const chassis = rows(db, 'Chassis');
    expect(chassis[0]?.fields['encaps']?.keys).toEqual([db.uuid('Encap', 'e1')]);
  });

  it('deterministic UUIDs are the same in every database of the same seed; random ones differ', async () => {
    const seed = { Logical_Switch: { sw0: { name: 'sw0' } } } as const;
    const a = await seeded(seedDatabase(NB, seed, { uuids: 'deterministic' }));
    const b = await seeded(seedDatabase(NB, seed, { uuids: 'deterministic' }));
    const c = await seeded(seedDatabase(NB, seed));
    expect(a.uuid('Logical_Switch', 'sw0')).toBe(b.uuid('Logical_Switch', 'sw0'));
    expect(a.uuid('Logical_Switch', 'sw0')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab]/);
    expect(c.uuid('Logical_Switch', 'sw0')).not.toBe(a.uuid('Logical_Switch', 'sw0'));
  });

  it('refuses a row of a non-root table that no seeded row refers to: the server would garbage-collect it', async () => {
    await expect(
      seedDatabase(NB, {
        Logical_Switch: { sw0: { name: 'sw0', ports: ['p1'] } },
        Logical_Switch_Port: { p1: { name: 'p1' }, p2: { name: 'p2' } },
      }),
    ).rejects.toThrow(
      'seed: Logical_Switch_Port "p2" would be garbage-collected: Logical_Switch_Port is not a root table and no valid seeded row refers to it',
    );
  });

  it('refuses a row that breaks a constraint, naming the table, the row and the reason', async () => {
    await expect(
      seedDatabase(NB, {
        Port_Group: {
          pg: {
            name: 'pg',
            acls: ['a'],
          },
        },
        // A JavaScript caller gets past the types: the server's check stands.
        ACL: { a: { action: 'permit', direction: 'to-lport', match: 'ip4', priority: 1 } as never },
      }),
    ).rejects.toThrow(
      /^seed: ACL "a": constraint violation: .*permit.*\(wrap the row in invalidRow\(\) to seed it anyway\)$/s,
    );
    await expect(
      seedDatabase(NB, { Logical_Switch: { sw0: { name: 'sw0', ports: ['nope'] } } } as never),
    ).rejects.toThrow(
      'seed: Logical_Switch "sw0", column ports: "nope" is neither a UUID nor the name of a Logical_Switch_Port row of the seed',
    );
    await expect(
      seedDatabase(NB, { Logical_Switch: { sw0: { nmae: 'sw0' } } } as never),
    ).rejects.toThrow('seed: Logical_Switch "sw0": table Logical_Switch has no column nmae');
    await expect(seedDatabase(NB, { Logical_Swich: { sw0: {} } } as never)).rejects.toThrow(
      'seed: OVN_Northbound has no table Logical_Swich',
    );
  });
});

describe('invalid rows', () => {
  const DANGLING = '11111111-2222-4333-8444-555555555555';

  async function repairRig() {
    const db = await seeded(
      seedDatabase(NB, {
        Logical_Switch: {
          sw0: { name: 'sw0', ports: ['p1', 'dup'], acls: ['bad-acl'] },
          broken: invalidRow({ name: 'broken', ports: [DANGLING] }),
        },
        Logical_Switch_Port: {
          p1: { name: 'x' },
          // Shares p1's index value; a valid row refers to it.
          dup: invalidRow({ name: 'x' }),
          // On no switch: the server would have collected it.
          orphan: invalidRow({ name: 'orphan' }),
        },
        ACL: {
          'bad-acl': invalidRow({
            action: 'permit',
            direction: 'to-lport',
            match: 'ip',
            priority: 70000,
          }),
        },
      }),
    );
    const conn = db.connection();
    track({ close: async () => conn.close() });
    return { db, conn };
  }

  it('are stored as given, and a client reads them as stored', async () => {
    const { db } = await repairRig();
    const client = connectDatabase({ remotes: db.remote(), dial: db.dial, model: NB });
    track(client);
    await client.ready;
    expect([...client.rows('Logical_Switch_Port')].map((p) => p.name).sort()).toEqual([
      'orphan',
      'x',
      'x',
    ]);
    const acl = client.get('ACL', db.uuid('ACL', 'bad-acl'));
    expect(acl?.action).toBe('permit');
    expect(acl?.priority).toBe(70000);
    expect([...client.rows('Logical_Switch')].find((s) => s.name === 'broken')?.ports).toEqual([
      DANGLING,
    ]);
    // The valid switch's reference to the invalid port is there, and counted:
    // deleting the port it keeps alive is refused.
    expect(client.get('Logical_Switch', db.uuid('Logical_Switch', 'sw0'))?.ports).toContain(
      db.uuid('Logical_Switch_Port', 'dup'),
    );
  });

  it('an orphan of a non-root table is collected by the first transaction that modifies it', async () => {
    const { db, conn } = await repairRig();
    const orphan = db.uuid('Logical_Switch_Port', 'orphan');
    expect(rows(db, 'Logical_Switch_Port').map((r) => r.uuid)).toContain(orphan);
    const r = await tx(conn, [
      {
        op: 'update',
        table: 'Logical_Switch_Port',
        where: [['_uuid', '==', ['uuid', orphan]]],
        row: { external_ids: ['map', [['k', 'v']]] },
      },
    ]);
    expect(r).toEqual([{ count: 1 }]);
    expect(rows(db, 'Logical_Switch_Port').map((r) => r.uuid)).not.toContain(orphan);
  });

  it('a duplicate index value fails any change that keeps it, and a change to a free value repairs it', async () => {
    const { db, conn } = await repairRig();
    const where = [['_uuid', '==', ['uuid', db.uuid('Logical_Switch_Port', 'dup')]]];
    const keep = await tx(conn, [
      {
        op: 'update',
        table: 'Logical_Switch_Port',
        where,
        row: { external_ids: ['map', [['k', 'v']]] },
      },
    ]);
    expect((keep[1] as { error: string }).error).toBe('constraint violation');
    // The row holding the value in the index (the valid p1) can be modified.
    const p1 = await tx(conn, [
      {
        op: 'update',
        table: 'Logical_Switch_Port',
        where: [['_uuid', '==', ['uuid', db.uuid('Logical_Switch_Port', 'p1')]]],
        row: { external_ids: ['map', [['k', 'v']]] },
      },
    ]);
    expect(p1).toEqual([{ count: 1 }]);
    const repair = await tx(conn, [
      { op: 'update', table: 'Logical_Switch_Port', where, row: { name: 'y' } },
    ]);
    expect(repair).toEqual([{ count: 1 }]);
    // A valid row refers to the invalid one: its reference is counted.
    const del = await tx(conn, [{ op: 'delete', table: 'Logical_Switch_Port', where }]);
    expect((del[1] as { error: string }).error).toBe('referential integrity violation');
  });

  it('a value outside the constraints stays until the column is written with one they accept', async () => {
    const { db, conn } = await repairRig();
    const where = [['_uuid', '==', ['uuid', db.uuid('ACL', 'bad-acl')]]];
    expect(await tx(conn, [{ op: 'update', table: 'ACL', where, row: { name: 'n' } }])).toEqual([
      { count: 1 },
    ]);
    const bad = await tx(conn, [{ op: 'update', table: 'ACL', where, row: { priority: 70001 } }]);
    expect((bad[0] as { error: string }).error).toBe('constraint violation');
    expect(
      await tx(conn, [
        { op: 'update', table: 'ACL', where, row: { priority: 1000, action: 'allow' } },
      ]),
    ).toEqual([{ count: 1 }]);
    expect(db.dump()['ACL']).toEqual({
      'bad-acl': { action: 'allow', direction: 'to-lport', match: 'ip', name: 'n', priority: 1000 },
    });
  });

  it('a dangling reference stays until the column is written or the row deleted', async () => {
    const { db, conn } = await repairRig();
    const where = [['name', '==', 'broken']];
    expect(
      await tx(conn, [
        {
          op: 'update',
          table: 'Logical_Switch',
          where,
          row: { external_ids: ['map', [['k', 'v']]] },
        },
      ]),
    ).toEqual([{ count: 1 }]);
    expect(db.dump()['Logical_Switch']?.['broken']?.['ports']).toEqual([
      '(no Logical_Switch_Port 11111111)',
    ]);
    expect(
      await tx(conn, [
        { op: 'update', table: 'Logical_Switch', where, row: { ports: ['set', []] } },
      ]),
    ).toEqual([{ count: 1 }]);
    expect(db.dump()['Logical_Switch']?.['broken']?.['ports']).toBeUndefined();
  });
});

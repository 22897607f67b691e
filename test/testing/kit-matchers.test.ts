/**
 * The state matchers (`toHaveData`, `toHaveDataExact`, `toHaveDataSubset`,
 * `toHaveEmptyData` and their plain-function twins): rows matched by name
 * (seed names stand for their rows, other names for whichever rows fit),
 * sets and maps unordered; on a client's replica, compared once it has
 * caught up; failure messages (checked by snapshot) are diffs by name and
 * natural key, with no UUID in them; snapshots of a state are the same
 * whatever UUIDs the rows got.
 */

import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/client/index.js';
import { NB, type NBTables } from '../../src/nb/index.js';
import type { Operation } from '../../src/ovsdb/wire/wire.js';
import { assertData, assertEmptyData, stateSnapshot } from '../../src/testing/kit/assert.js';
import { type SeededDatabase, seedDatabase } from '../../src/testing/kit/database.js';
import '../../src/testing/vitest.js';
import { closeAfterEach } from './kit-helpers.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

const track = closeAfterEach();

/** A switch with two ports, one with a DHCP options row. */
async function network() {
  const db = await seedDatabase(NB, {
    Logical_Switch: {
      sw0: { name: 'sw0', ports: ['p1', 'p2'], other_config: { subnet: '10.0.0.0/24' } },
    },
    Logical_Switch_Port: {
      p1: { name: 'p1', addresses: ['00:00:00:00:00:01 10.0.0.1'], dhcpv4_options: 'd4' },
      p2: { name: 'p2', addresses: ['00:00:00:00:00:02 10.0.0.2', 'router'] },
    },
    DHCP_Options: {
      d4: { cidr: '10.0.0.0/24', options: { lease_time: '3600', router: '10.0.0.254' } },
    },
  });
  track(db);
  return db;
}

/** The error a rejected assertion threw, for its message. */
async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('the assertion passed');
}

async function write(db: SeededDatabase<NBTables, unknown>, ops: object[]): Promise<void> {
  const conn = db.connection('test');
  try {
    await conn.transact('OVN_Northbound', ops as Operation[]);
  } finally {
    conn.close();
  }
}

describe('toHaveData', () => {
  it('matches rows by seed name, sets and maps in any order, columns not given not compared', async () => {
    const db = await network();
    await expect(db).toHaveData({
      Logical_Switch: { sw0: { ports: ['p2', 'p1'] } },
      Logical_Switch_Port: {
        p1: { name: 'p1', dhcpv4_options: 'd4' },
        p2: { addresses: ['router', '00:00:00:00:00:02 10.0.0.2'] },
      },
      DHCP_Options: { d4: { options: { router: '10.0.0.254', lease_time: '3600' } } },
    });
    // A list form, without names; the table's rows must all be there.
    await expect(db).toHaveData({ Logical_Switch_Port: [{ name: 'p2' }, { name: 'p1' }] });
    await expect(db).not.toHaveData({ Logical_Switch_Port: [{ name: 'p2' }] });
  });

  it('binds names of rows the seed did not make to whichever rows make everything match', async () => {
    const db = await network();
    // Two switches with the same name, told apart only by the port each holds.
    await write(db, [
      { op: 'insert', table: 'Logical_Switch_Port', row: { name: 'q1' }, 'uuid-name': 'q1' },
      { op: 'insert', table: 'Logical_Switch_Port', row: { name: 'q2' }, 'uuid-name': 'q2' },
      { op: 'insert', table: 'Logical_Switch', row: { name: 'twin', ports: ['named-uuid', 'q2'] } },
      { op: 'insert', table: 'Logical_Switch', row: { name: 'twin', ports: ['named-uuid', 'q1'] } },
    ]);
    await expect(db).toHaveDataSubset({
      Logical_Switch: { a: { name: 'twin', ports: ['x1'] }, b: { name: 'twin', ports: ['x2'] } },
      Logical_Switch_Port: { x1: { name: 'q1' }, x2: { name: 'q2' } },
    });
    // The same names cannot stand for rows that contradict each other.
    await expect(db).not.toHaveDataSubset({
      Logical_Switch: { a: { name: 'twin', ports: ['x1'] }, b: { name: 'twin', ports: ['x1'] } },
      Logical_Switch_Port: { x1: { name: 'q1' } },
    });
  });

  it('fails with a diff by name and natural key: rows that differ, are missing, or were not expected', async () => {
    const db = await network();
    await write(db, [
      {
        op: 'insert',
        table: 'Logical_Switch_Port',
        row: { name: 'p3', addresses: '00:00:00:00:00:03 10.0.0.3' },
        'uuid-name': 'p3',
      },
      {
        op: 'mutate',
        table: 'Logical_Switch',
        where: [['name', '==', 'sw0']],
        mutations: [['ports', 'insert', ['named-uuid', 'p3']]],
      },
      {
        op: 'update',
        table: 'Logical_Switch_Port',
        where: [['name', '==', 'p1']],
        row: { addresses: '00:00:00:00:00:01 10.0.0.9' },
      },
    ]);
    const e = await failure(
      expect(db).toHaveData({
        Logical_Switch: { sw0: { ports: ['p1', 'p2', 'p4'] } },
        Logical_Switch_Port: {
          p1: { name: 'p1', addresses: ['00:00:00:00:00:01 10.0.0.1'] },
          p2: { name: 'p2' },
          p4: { name: 'p4', up: true },
        },
      }),
    );
    expect(e.message).not.toMatch(UUID);
    expect(e.message).toMatchInlineSnapshot(`
      "expected OVN_Northbound to have data: each table named holds exactly the rows given (columns not given are not compared)

      Logical_Switch: 1 differs
        ~ sw0 (Logical_Switch "sw0")
            ports: expected [p1, p2, p4]
                   received [Logical_Switch_Port "p3", p1, p2]

      Logical_Switch_Port: 1 differs, 1 missing, 1 unexpected
        ~ p1 (Logical_Switch_Port "p1")
            addresses: expected ["00:00:00:00:00:01 10.0.0.1"]
                       received ["00:00:00:00:00:01 10.0.0.9"]
        - p4  missing: {name: "p4", up: true}
        + Logical_Switch_Port "p3"  unexpected: {addresses: ["00:00:00:00:00:03 10.0.0.3"], name: "p3"}"
    `);
  });

  it('the plain function throws an AssertionError with the same diff, for other runners', async () => {
    const db = await network();
    const e = await failure(assertData(db, { Logical_Switch_Port: { p1: { name: 'p9' } } }));
    expect(e).toBeInstanceOf(AssertionError);
    expect(e.message).toMatchInlineSnapshot(`
      "expected OVN_Northbound to have data: each table named holds exactly the rows given (columns not given are not compared)

      Logical_Switch_Port: 1 differs, 1 unexpected
        ~ p1 (Logical_Switch_Port "p1")
            name: expected "p9"
                  received "p1"
        + p2  unexpected: {addresses: ["00:00:00:00:00:02 10.0.0.2", "router"], name: "p2"}"
    `);
    await assertData(db, { Logical_Switch_Port: { p1: { name: 'p1' }, p2: {} } });
  });

  it('names a row the expected state does not declare and no seed gave: an error, not a failure', async () => {
    const db = await network();
    await expect(
      expect(db).toHaveData({ Logical_Switch: { sw0: { ports: ['p1', 'nobody'] } } }),
    ).rejects.toThrow(
      'expected state: Logical_Switch sw0, column ports: "nobody" names no Logical_Switch_Port row of the expected state or of the seed',
    );
  });
});

describe('toHaveDataExact, toHaveDataSubset, toHaveEmptyData', () => {
  it('exact: every table named or empty, every column not given at its default', async () => {
    const db = await seedDatabase(NB, {
      Logical_Switch: { sw0: { name: 'sw0', other_config: { a: 'b' } } },
    });
    track(db);
    await expect(db).toHaveDataExact({
      Logical_Switch: { sw0: { name: 'sw0', other_config: { a: 'b' } } },
    });
    const e = await failure(
      expect(db).toHaveDataExact({ Logical_Switch: { sw0: { name: 'sw0' } } }),
    );
    expect(e.message).toMatchInlineSnapshot(`
      "expected OVN_Northbound to have exactly this data: every table holds exactly the rows given, every column not given holds its default

      Logical_Switch: 1 differs
        ~ sw0 (Logical_Switch "sw0")
            other_config: expected {}
                          received {"a": "b"}"
    `);
    await write(db, [
      { op: 'insert', table: 'Address_Set', row: { name: 'as1', addresses: '10.0.0.1' } },
    ]);
    const e2 = await failure(
      expect(db).toHaveDataExact({
        Logical_Switch: { sw0: { name: 'sw0', other_config: { a: 'b' } } },
      }),
    );
    expect(e2.message).toMatchInlineSnapshot(`
      "expected OVN_Northbound to have exactly this data: every table holds exactly the rows given, every column not given holds its default

      Address_Set: 1 unexpected
        + Address_Set "as1"  unexpected: {addresses: ["10.0.0.1"], name: "as1"}"
    `);
  });

  it('subset: the rows given are there, others may be', async () => {
    const db = await network();
    await expect(db).toHaveDataSubset({ Logical_Switch_Port: [{ name: 'p1' }] });
    const e = await failure(
      expect(db).toHaveDataSubset({ Logical_Switch_Port: [{ name: 'p1' }, { name: 'p7' }] }),
    );
    expect(e.message).toMatchInlineSnapshot(`
      "expected OVN_Northbound to have at least this data: each table named holds the rows given (columns not given are not compared)

      Logical_Switch_Port: 1 missing
        - Logical_Switch_Port[1]  missing: {name: "p7"}"
    `);
  });

  it('empty: every table, with what is there listed', async () => {
    const empty = await seedDatabase(NB);
    track(empty);
    await expect(empty).toHaveEmptyData();
    await assertEmptyData(empty);
    const db = await network();
    const e = await failure(expect(db).toHaveEmptyData());
    expect(e.message).not.toMatch(UUID);
    expect(e.message).toMatchInlineSnapshot(`
      "expected OVN_Northbound to be empty

      DHCP_Options: 1 unexpected
        + d4  unexpected: {cidr: "10.0.0.0/24", options: {"lease_time": "3600", "router": "10.0.0.254"}}

      Logical_Switch: 1 unexpected
        + sw0  unexpected: {name: "sw0", other_config: {"subnet": "10.0.0.0/24"}, ports: [p1, p2]}

      Logical_Switch_Port: 2 unexpected
        + p1  unexpected: {addresses: ["00:00:00:00:00:01 10.0.0.1"], dhcpv4_options: d4, name: "p1"}
        + p2  unexpected: {addresses: ["00:00:00:00:00:02 10.0.0.2", "router"], name: "p2"}"
    `);
  });
});

describe('on a client replica', () => {
  it('waits until the replica has caught up with the server: a slow client does not race the assertion', async () => {
    const db = await network();
    const client = connectDatabase({ remotes: db.remote('controller'), dial: db.dial, model: NB });
    track(client);
    await client.ready;
    // Everything the server sends this client now arrives 100 ms late.
    db.session('controller').delayReplies(100);
    await write(db, [{ op: 'insert', table: 'Logical_Switch', row: { name: 'sw-late' } }]);
    // Read now, the replica lacks the row: an assertion on it would race.
    expect([...client.rows('Logical_Switch')].map((s) => s.name)).toEqual(['sw0']);
    await expect(client).toHaveData({ Logical_Switch: [{ name: 'sw0' }, { name: 'sw-late' }] });
    // The row is there because the matcher waited, not by chance.
    expect([...client.rows('Logical_Switch')].map((s) => s.name).sort()).toEqual([
      'sw-late',
      'sw0',
    ]);
  });

  it('reads the same state from the replica as from the server, seed names included', async () => {
    const db = await network();
    const client = connectDatabase({ remotes: db.remote(), dial: db.dial, model: NB });
    track(client);
    await client.ready;
    const expected = {
      Logical_Switch: { sw0: { ports: ['p1', 'p2'] } },
      Logical_Switch_Port: { p1: { dhcpv4_options: 'd4' }, p2: {} },
    } as const;
    await expect(db).toHaveData(expected);
    await expect(client).toHaveData(expected);
    const e = await failure(
      expect(client).toHaveData({ Logical_Switch: { sw0: { ports: ['p1'] } } }),
    );
    expect(e.message).toMatchInlineSnapshot(`
      "expected OVN_Northbound to have data: each table named holds exactly the rows given (columns not given are not compared)

      Logical_Switch: 1 differs
        ~ sw0 (Logical_Switch "sw0")
            ports: expected [p1]
                   received [p1, p2]"
    `);
  });
});

describe('stateSnapshot and dump', () => {
  it('are the same for two databases whose rows got different UUIDs', async () => {
    const a = await network();
    const b = await network();
    expect(a.uuid('Logical_Switch', 'sw0')).not.toBe(b.uuid('Logical_Switch', 'sw0'));
    for (const db of [a, b]) {
      await write(db, [
        {
          op: 'insert',
          table: 'ACL',
          row: { action: 'allow', direction: 'to-lport', match: 'ip4', priority: 1001 },
          'uuid-name': 'acl',
        },
        { op: 'insert', table: 'Port_Group', row: { name: 'pg', acls: ['named-uuid', 'acl'] } },
      ]);
    }
    expect(await stateSnapshot(a)).toEqual(await stateSnapshot(b));
    expect(a.dump()).toEqual(b.dump());
    expect(JSON.stringify(a.dump())).not.toMatch(UUID);
    expect(a.dump()).toMatchInlineSnapshot(`
      {
        "ACL": {
          "ACL{priority=1001, match="ip4", direction="to-lport", action="allow"}": {
            "action": "allow",
            "direction": "to-lport",
            "match": "ip4",
            "priority": 1001,
          },
        },
        "DHCP_Options": {
          "d4": {
            "cidr": "10.0.0.0/24",
            "options": {
              "lease_time": "3600",
              "router": "10.0.0.254",
            },
          },
        },
        "Logical_Switch": {
          "sw0": {
            "name": "sw0",
            "other_config": {
              "subnet": "10.0.0.0/24",
            },
            "ports": [
              "p1",
              "p2",
            ],
          },
        },
        "Logical_Switch_Port": {
          "p1": {
            "addresses": [
              "00:00:00:00:00:01 10.0.0.1",
            ],
            "dhcpv4_options": "d4",
            "name": "p1",
          },
          "p2": {
            "addresses": [
              "00:00:00:00:00:02 10.0.0.2",
              "router",
            ],
            "name": "p2",
          },
        },
        "Port_Group": {
          "Port_Group "pg"": {
            "acls": [
              "ACL{priority=1001, match="ip4", direction="to-lport", action="allow"}",
            ],
            "name": "pg",
          },
        },
      }
    `);
  });
});

/**
 * Type tests of the test kit: a seed is typed by its model (tables,
 * columns, value types, references by declared names of the referenced
 * table, columns an insert must give), for the bundled NB model and for
 * another generated model (the SB model of an example); `uuid(table, name)`
 * takes only the seed's names; expected states of the matchers check
 * tables, columns and value types; the vitest matchers are on `expect`
 * and typed by what they are given.
 */

import { describe, expect, expectTypeOf, it } from 'vitest';
import { SB } from '../../examples/sb-agent/model/index.js';
import type { DatabaseClient } from '../../src/client/client.js';
import { NB, type NBTables } from '../../src/nb/generated/index.js';
import type { Uuid } from '../../src/ovsdb/values/uuid.js';
import {
  assertData,
  createTestCluster,
  createTestDatabase,
  invalidRow,
  type SeededDatabase,
  seedDatabase,
  startOvn,
  type TransactionRecorder,
} from '../../src/testing/index.js';
import '../../src/testing/vitest.js';

describe('seedDatabase', () => {
  it('takes rows per table by name, references by the names declared for the referenced table', async () => {
    const db = await seedDatabase(NB, {
      Logical_Switch: { sw0: { name: 'sw0', ports: ['p1', 'p2'], other_config: { a: 'b' } } },
      Logical_Switch_Port: {
        p1: { name: 'p1', addresses: ['00:00:00:00:00:01 10.0.0.1'], dhcpv4_options: 'd' },
        p2: { name: 'p2', tag_request: 5 },
      },
      DHCP_Options: { d: { cidr: '10.0.0.0/24' } },
    });
    expectTypeOf(db).toEqualTypeOf<
      SeededDatabase<
        NBTables,
        {
          readonly Logical_Switch: 'sw0';
          readonly Logical_Switch_Port: 'p1' | 'p2';
          readonly DHCP_Options: 'd';
        }
      >
    >();
    expectTypeOf(db.uuid('Logical_Switch_Port', 'p1')).toEqualTypeOf<Uuid<'Logical_Switch_Port'>>();
    // @ts-expect-error: no Logical_Switch_Port named p9 in the seed
    db.uuid('Logical_Switch_Port', 'p9');
    // @ts-expect-error: the seed has no ACL rows
    db.uuid('ACL', 'a');
  });

  it('refuses an unknown column, a wrong value type, an unknown table', async () => {
    // @ts-expect-error: Logical_Switch has no column nmae
    await seedDatabase(NB, { Logical_Switch: { sw0: { nmae: 'sw0' } } });
    // @ts-expect-error: name is a string
    await seedDatabase(NB, { Logical_Switch: { sw0: { name: 5 } } });
    // @ts-expect-error: tag_request is an integer
    await seedDatabase(NB, { Logical_Switch_Port: { p: { name: 'p', tag_request: '5' } } });
    // @ts-expect-error: external_ids maps strings to strings
    await seedDatabase(NB, { Logical_Switch: { sw0: { external_ids: { a: 1 } } } });
    // @ts-expect-error: NB has no table Logical_Swich
    await seedDatabase(NB, { Logical_Swich: { sw0: { name: 'sw0' } } });
  });

  it('refuses a reference to a name not declared for the referenced table', async () => {
    await seedDatabase(NB, {
      // @ts-expect-error: p3 is not a declared Logical_Switch_Port
      Logical_Switch: { sw0: { name: 'sw0', ports: ['p1', 'p3'] } },
      Logical_Switch_Port: { p1: { name: 'p1' } },
    });
    await seedDatabase(NB, {
      // @ts-expect-error: sw1 is a Logical_Switch, not a Logical_Switch_Port
      Logical_Switch: { sw0: { name: 'sw0', ports: ['sw1'] }, sw1: { name: 'sw1' } },
    });
    // A UUID of the referenced table is accepted.
    const u = '6a8b8c2e-0000-4000-8000-000000000001' as Uuid<'Logical_Switch_Port'>;
    await seedDatabase(NB, { Logical_Switch: { sw0: { name: 'sw0', ports: [u] } } });
  });

  it('requires the columns an insert must give, except in an invalid row', async () => {
    // ACL's action, direction, match and priority have no default their constraints accept.
    await seedDatabase(NB, {
      ACL: { a: { action: 'allow', direction: 'to-lport', match: 'ip4', priority: 1000 } },
    });
    // @ts-expect-error: an ACL needs action, direction, match and priority
    await seedDatabase(NB, { ACL: { a: { match: 'ip4' } } });
    await seedDatabase(NB, {
      // @ts-expect-error: action is one of the enum's values
      ACL: { a: { action: 'permit', direction: 'to-lport', match: 'ip4', priority: 1 } },
    });
    await seedDatabase(NB, { ACL: { a: invalidRow({ match: 'ip4' }) } });
    // Still typed inside: an unknown column is refused.
    // @ts-expect-error: ACL has no column mach
    await seedDatabase(NB, { ACL: { a: invalidRow({ mach: 'ip4' }) } });
  });

  it('types a seed of any generated model', async () => {
    const sb = await seedDatabase(SB, {
      Chassis: { ch1: { name: 'ch1', hostname: 'h1', encaps: ['e1'] } },
      Encap: { e1: { type: 'geneve', ip: '192.0.2.1', chassis_name: 'ch1' } },
    });
    expectTypeOf(sb.uuid('Encap', 'e1')).toEqualTypeOf<Uuid<'Encap'>>();
    // @ts-expect-error: a chassis needs encaps
    await seedDatabase(SB, { Chassis: { ch1: { name: 'ch1', hostname: 'h1' } } });
    // @ts-expect-error: e2 is not a declared Encap
    await seedDatabase(SB, { Chassis: { ch1: { name: 'ch1', hostname: 'h1', encaps: ['e2'] } } });
  });

  it('types createTestDatabase, createTestCluster and startOvn seeds the same way', async () => {
    const t = await createTestDatabase(NB, { seed: { Logical_Switch: { sw0: { name: 'sw0' } } } });
    expectTypeOf(t.client).toEqualTypeOf<DatabaseClient<NBTables, Record<never, never>>>();
    expectTypeOf(t.uuid('Logical_Switch', 'sw0')).toEqualTypeOf<Uuid<'Logical_Switch'>>();
    // @ts-expect-error: Logical_Switch has no column nmae
    await createTestDatabase(NB, { seed: { Logical_Switch: { sw0: { nmae: 'sw0' } } } });
    const c = await createTestCluster(NB, { Logical_Switch: { sw0: { name: 'sw0' } } });
    expectTypeOf(c.remotes).toEqualTypeOf<readonly string[]>();
    // @ts-expect-error: name is a string
    await createTestCluster(NB, { Logical_Switch: { sw0: { name: 1 } } });
    const ovn = await startOvn({ nbSeed: { Logical_Switch: { sw0: { name: 'sw0' } } } });
    expectTypeOf(ovn.uuid('Logical_Switch', 'sw0')).toEqualTypeOf<string>();
    // @ts-expect-error: Logical_Switch has no column nmae
    await startOvn({ nbSeed: { Logical_Switch: { sw0: { nmae: 'sw0' } } } });
  });
});

describe('state assertions', () => {
  it('check tables, columns and value types of the expected state; references take any name', async () => {
    const db = await seedDatabase(NB);
    await assertData(db, { Logical_Switch: { sw0: { name: 'sw0', ports: ['p1'] } } });
    await assertData(db, { Logical_Switch_Port: [{ name: 'p1' }, { name: 'p2', up: true }] });
    // @ts-expect-error: Logical_Switch has no column nmae
    await assertData(db, { Logical_Switch: { sw0: { nmae: 'sw0' } } });
    // @ts-expect-error: up is a boolean
    await assertData(db, { Logical_Switch_Port: [{ name: 'p1', up: 'yes' }] });
  });

  it('the vitest matchers are on expect, typed by the value given', async () => {
    const db = await seedDatabase(NB);
    await expect(db).toHaveData({ Logical_Switch: { sw0: { name: 'sw0' } } });
    await expect(db).toHaveDataExact({});
    await expect(db).toHaveDataSubset({ Logical_Switch: [{ name: 'sw0' }] });
    await expect(db).toHaveEmptyData();
    // @ts-expect-error: Logical_Switch has no column nmae
    await expect(db).toHaveData({ Logical_Switch: { sw0: { nmae: 'sw0' } } });
    const client = {} as DatabaseClient<NBTables>;
    await expect(client).toHaveData({ Logical_Switch_Port: [{ name: 'p1' }] });
    // @ts-expect-error: NB has no table Logical_Swich
    await expect(client).toHaveData({ Logical_Swich: [{ name: 'p1' }] });
    const recorder = {} as TransactionRecorder;
    expect(recorder).toHaveSent([
      [{ op: 'insert', table: 'Logical_Switch', row: { name: 'sw0' } }],
    ]);
    expect(recorder).toHaveSentNothing();
    expect(recorder).toHaveSentAtMost(1);
    // @ts-expect-error: no such operation
    expect(recorder).toHaveSent([[{ op: 'upsert', table: 'Logical_Switch' }]]);
  });
});

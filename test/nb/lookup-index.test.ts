/**
 * Names in tables with a schema index on `name` (ports, router ports, port
 * groups, address sets, HA chassis groups) are found through the replica's
 * index: the DSL's commands that name a port read none of the table's other
 * rows, against a real ovsdb-server with 2,000 ports. Names of switches
 * (no index) are still found by a scan, and a duplicate is still refused as
 * ambiguous.
 */

import { expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import type { NBTables } from '../../src/nb/generated/model.js';
import {
  AmbiguousNameError,
  createNb,
  getNamed,
  lsAdd,
  lspAdd,
  lspDel,
  lspGet,
  lspGetSwitch,
  lspSetAddresses,
  pgAdd,
} from '../../src/nb/index.js';
import { NB_SCHEMA_7_18, useNb } from './helpers/differential.js';

const server = useNb(NB_SCHEMA_7_18);

/** The client, counting the rows its reads of `table` visit. */
function counting(table: string): { client: DatabaseClient<NBTables>; visited: () => number } {
  let visited = 0;
  const c = server().client;
  const client = Object.create(c, {
    rows: {
      *value(t: string) {
        for (const r of c.rows(t as 'ACL')) {
          if (t === table) visited++;
          yield r;
        }
      },
    },
  }) as DatabaseClient<NBTables>;
  return { client, visited: () => visited };
}

it('commands naming a port read it through the name index, not the 2,000 other ports', async () => {
  const s = server();
  await s.nb.transact((t) => {
    const sw = lsAdd(t, 'sw-big');
    for (let i = 0; i < 2000; i++) lspAdd(t, sw, `p-${i}`);
    pgAdd(t, 'pg-big', { ports: ['p-1', 'p-2'] });
  });
  const { client, visited } = counting('Logical_Switch_Port');
  const nb = createNb(client);
  const { value } = await nb.transact((t) => {
    const got = lspGet(t, 'p-7');
    lspSetAddresses(t, 'p-8', ['00:00:00:00:00:08 10.0.0.8']);
    const sw = lspGetSwitch(t, 'p-9');
    lspDel(t, 'p-10');
    lspDel(t, 'p-1'); // also leaves the port group
    return { got: got?.name, sw: sw.name };
  });
  expect(value).toEqual({ got: 'p-7', sw: 'sw-big' });
  expect(visited()).toBe(0);
  expect(s.client.lookup('Logical_Switch_Port', { name: 'p-8' })?.addresses).toEqual([
    '00:00:00:00:00:08 10.0.0.8',
  ]);
  expect(s.client.lookup('Logical_Switch_Port', { name: 'p-10' })).toBeUndefined();
  const pg = s.client.lookup('Port_Group', { name: 'pg-big' })!;
  expect(pg.ports.map((u) => s.client.get('Logical_Switch_Port', u)?.name)).toEqual(['p-2']);
  // Created earlier in the same transaction: found through the view's own index.
  await nb.transact((t) => {
    lspAdd(t, 'sw-big', 'p-new');
    expect(getNamed(t, 'Logical_Switch_Port', 'p-new').name).toBe('p-new');
    lspDel(t, 'p-new');
    expect(lspGet(t, 'p-new', { ifExists: true })).toBeUndefined();
  });
  expect(visited()).toBe(0);
});

it('switch names (no index) are found by a scan, and a duplicate name is ambiguous', async () => {
  // Two switches of one name (the schema allows it; the DSL's lsAdd refuses it): raw inserts.
  await server().client.transactRaw([
    { op: 'insert', table: 'Logical_Switch', row: { name: 'dup' } },
    { op: 'insert', table: 'Logical_Switch', row: { name: 'dup' } },
  ]);
  const { client, visited } = counting('Logical_Switch');
  await expect(
    createNb(client).transact((t) => getNamed(t, 'Logical_Switch', 'dup')),
  ).rejects.toBeInstanceOf(AmbiguousNameError);
  expect(visited()).toBeGreaterThanOrEqual(3);
});

/**
 * The `compat` option's types: with it, the columns a server may lack are
 * typed `T | undefined` in every row a client, the transaction handle or the
 * DSL reads; without it the types are the model's, exactly.
 */

import { describe, expectTypeOf, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import { connectDatabase, openDatabase } from '../../src/client/open.js';
import {
  type Acl,
  aclAdd,
  aclList,
  connectNb,
  createNb,
  type LogicalRouter,
  type LogicalSwitchPort,
  lsAdd,
  lspAdd,
  NB,
  NB_COMPAT,
  type NBCompatTables,
  type NBTables,
} from '../../src/nb/index.js';
import type { CompatTables } from '../../src/ovsdb/schema/compat.js';
import type { ModelSchemaName } from '../../src/ovsdb/schema/model.js';
import type { Uuid } from '../../src/ovsdb/values/uuid.js';

// Never connected: only the types matter here.
declare const remotes: string;

describe('without compat', () => {
  it('rows are the model’s, exactly', () => {
    const c = connectDatabase({ remotes, model: NB });
    expectTypeOf(c).toEqualTypeOf<DatabaseClient<NBTables>>();
    expectTypeOf(c.get('ACL', 'x')).toEqualTypeOf<Acl | undefined>();
    expectTypeOf(c.get('ACL', 'x')!.tier).toEqualTypeOf<number>();
    const f = connectDatabase({ remotes, model: NB, compat: false });
    expectTypeOf(f).toEqualTypeOf<DatabaseClient<NBTables>>();
    expectTypeOf<CompatTables<NBTables, false>>().toEqualTypeOf<NBTables>();
  });
});

describe('compat: NB_COMPAT', () => {
  const c = connectDatabase({ remotes, model: NB, compat: NB_COMPAT });

  it('types the columns a supported server may lack T | undefined, and only those', () => {
    expectTypeOf(c).toEqualTypeOf<DatabaseClient<NBCompatTables>>();
    const acl = c.get('ACL', 'x')!;
    expectTypeOf(acl.tier).toEqualTypeOf<number | undefined>();
    expectTypeOf(acl.sample_new).toEqualTypeOf<Uuid<'Sample'> | null | undefined>();
    expectTypeOf(acl.priority).toEqualTypeOf<number>();
    expectTypeOf(acl.match).toEqualTypeOf<string>();
    expectTypeOf(acl._uuid).toEqualTypeOf<Uuid<'ACL'>>();
    const lsp = c.lookup('Logical_Switch_Port', { name: 'p1' })!;
    expectTypeOf(lsp.peer).toEqualTypeOf<LogicalSwitchPort['peer'] | undefined>();
    expectTypeOf(lsp.addresses).toEqualTypeOf<LogicalSwitchPort['addresses']>();
    expectTypeOf(c.find('NAT', (n) => n.priority === undefined)!.priority).toEqualTypeOf<
      number | undefined
    >();
    // A table with no such column keeps its row type.
    expectTypeOf([...c.rows('Logical_Router')]).toEqualTypeOf<LogicalRouter[]>();
  });

  it('types events, indexes and waitFor by the same rows', () => {
    c.on('ACL', 'update', (row, old) => {
      expectTypeOf(row.tier).toEqualTypeOf<number | undefined>();
      expectTypeOf(old.tier).toEqualTypeOf<number | undefined>();
    });
    const ix = connectDatabase({
      remotes,
      model: NB,
      compat: NB_COMPAT,
      indexes: {
        ACL: {
          tier: {
            compute: (a) => {
              expectTypeOf(a.tier).toEqualTypeOf<number | undefined>();
              return a.tier === undefined ? 'none' : String(a.tier);
            },
          },
        },
      },
    });
    expectTypeOf(ix.byIndex('ACL', 'tier', 'none')[0]!.tier).toEqualTypeOf<number | undefined>();
  });

  it('the DSL works over it, with its rows', async () => {
    const nb = createNb(c);
    await nb.transact((t) => {
      const sw = lsAdd(t, 'sw0');
      lspAdd(t, sw, 'p1');
      aclAdd(
        t,
        { switch: sw },
        { direction: 'to-lport', priority: 1, match: 'ip4', action: 'drop', tier: 1 },
      );
      expectTypeOf(aclList(t, { switch: 'sw0' })[0]!.tier).toEqualTypeOf<number | undefined>();
      expectTypeOf(t.get('ACL', 'x')!.tier).toEqualTypeOf<number | undefined>();
    });
    const connected = await connectNb({ remotes, compat: NB_COMPAT });
    expectTypeOf(connected.client.get('ACL', 'x')!.tier).toEqualTypeOf<number | undefined>();
    expectTypeOf(connected.client.get('ACL', 'x')!.priority).toEqualTypeOf<number>();
  });

  it('conditions, mutations and inserts keep the column types', async () => {
    const db = await openDatabase({ remotes, model: NB, compat: NB_COMPAT });
    expectTypeOf(db.get('ACL', 'x')!.tier).toEqualTypeOf<number | undefined>();
    await db.transact((tx) => {
      tx.insert('ACL', {
        direction: 'to-lport',
        priority: 1,
        match: 'ip4',
        action: 'drop',
        tier: 2,
      });
      tx.mutate('ACL', [['tier', '==', 1]], [['tier', '+=', 1]]);
      // @ts-expect-error: a condition value is the column's type, never undefined
      tx.mutate('ACL', [['tier', '==', undefined]], [['priority', '+=', 1]]);
      // @ts-expect-error: an integer column takes no map mutation
      tx.mutate('ACL', [['priority', '==', 1]], [['tier', 'insert', { a: 'b' }]]);
    });
  });
});

describe('compat: true and a spec of one’s own', () => {
  it('true types every column but _uuid and _version T | undefined', () => {
    const c = connectDatabase({ remotes, model: NB, compat: true });
    const lr = c.get('Logical_Router', 'x')!;
    expectTypeOf(lr.name).toEqualTypeOf<string | undefined>();
    expectTypeOf(lr._uuid).toEqualTypeOf<Uuid<'Logical_Router'>>();
    expectTypeOf(lr._version).toEqualTypeOf<Uuid>();
  });

  it('a spec given inline types only its columns', () => {
    const c = connectDatabase({ remotes, model: NB, compat: { ACL: ['tier'] } });
    expectTypeOf(c.get('ACL', 'x')!.tier).toEqualTypeOf<number | undefined>();
    expectTypeOf(c.get('ACL', 'x')!.sample_new).toEqualTypeOf<Uuid<'Sample'> | null>();
    expectTypeOf(c.get('NAT', 'x')!.priority).toEqualTypeOf<number>();
    // @ts-expect-error: ACL has no column nope
    connectDatabase({ remotes, model: NB, compat: { ACL: ['nope'] } });
    // @ts-expect-error: no table Nope
    connectDatabase({ remotes, model: NB, compat: { Nope: ['x'] } });
  });
});

describe('the model’s schema at type level', () => {
  it('is named by the generated table map, with or without compat', () => {
    expectTypeOf<ModelSchemaName<NBTables>>().toEqualTypeOf<'OVN_Northbound 7.18.0'>();
    expectTypeOf<ModelSchemaName<NBCompatTables>>().toEqualTypeOf<'OVN_Northbound 7.18.0'>();
  });
});

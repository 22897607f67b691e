/**
 * Type tests of the desired state: `DesiredState.add` takes the model's
 * insert columns, with a `KeyRef` of the referenced table (and only of that
 * table) wherever the column holds a UUID reference; it refuses unknown
 * columns and wrong value types and returns a `KeyRef` of its table; over
 * another NB model version the columns are that model's; `planDesired` and
 * `applyDesired` take a client of the state's model and give a `Plan` and an
 * `ApplyResult`; `set` types its row as `add` does, and `desiredReconciler`
 * takes a client of the state's model.
 */

import { describe, expectTypeOf, it } from 'vitest';
import type { DatabaseClient } from '../../src/client/client.js';
import {
  type ApplyResult,
  applyDesired,
  type DesiredReconciler,
  type DesiredRow,
  DesiredState,
  type DesiredStateErrorKind,
  desiredReconciler,
  KeyRef,
  keyOf,
  type Plan,
  planDesired,
  type ReconcilerStats,
  type WithKeyRefs,
} from '../../src/desired/index.js';
import { NB, type NBTables } from '../../src/nb/generated/index.js';
import { nbDesiredState } from '../../src/nb/index.js';
import type { Uuid } from '../../src/ovsdb/values/uuid.js';
import { NB as NB61, type NBTables as NB61Tables } from '../nb/fixtures/models/nb-6.1.0/index.js';
import { NB as NB70, type NBTables as NB70Tables } from '../nb/fixtures/models/nb-7.0.0/index.js';

declare const client: DatabaseClient<NBTables>;
declare const client61: DatabaseClient<NB61Tables>;

/** An ACL's columns, and a port group to hold it. */
const DROP = { direction: 'to-lport', priority: 1000, match: 'ip', action: 'drop' } as const;
const IN_PG = { in: keyOf('Port_Group', { name: 'pg1' }) };

describe('DesiredState.add', () => {
  const d = nbDesiredState(NB, { owner: 'tenant-a' });

  it('returns a KeyRef of its table', () => {
    const sw = d.add('Logical_Switch', { name: 'sw0' });
    expectTypeOf(sw).toEqualTypeOf<KeyRef<'Logical_Switch'>>();
    const lsp = d.add('Logical_Switch_Port', { name: 'p1' }, { in: sw });
    expectTypeOf(lsp).toEqualTypeOf<KeyRef<'Logical_Switch_Port'>>();
    expectTypeOf(lsp.table).toEqualTypeOf<'Logical_Switch_Port'>();
    expectTypeOf(keyOf('Port_Group', { name: 'pg1' })).toEqualTypeOf<KeyRef<'Port_Group'>>();
  });

  it('accepts the insert columns, with KeyRefs of the referenced table in reference columns', () => {
    const p1 = d.add(
      'Logical_Switch_Port',
      { name: 'p1' },
      { in: keyOf('Logical_Switch', { name: 'sw0' }) },
    );
    d.add('Port_Group', {
      name: 'pg1',
      ports: [p1, keyOf('Logical_Switch_Port', { name: 'p2' })],
      external_ids: { team: 'web' },
    });
    // A UUID of the right table is accepted too, and mixed with KeyRefs.
    const u = '6a8b8c2e-0000-4000-8000-000000000001' as Uuid<'Logical_Switch_Port'>;
    d.add('Port_Group', { name: 'pg2', ports: [u, p1] });
    // An optional reference: a KeyRef, a UUID or nothing.
    d.add(
      'Logical_Switch_Port',
      {
        name: 'p3',
        dhcpv4_options: keyOf('DHCP_Options', { cidr: '10.0.0.0/24' }),
      },
      { in: keyOf('Logical_Switch', { name: 'sw0' }) },
    );
    d.add(
      'Logical_Switch_Port',
      { name: 'p4', dhcpv4_options: null },
      { in: keyOf('Logical_Switch', { name: 'sw0' }) },
    );
    expectTypeOf<DesiredRow<NBTables, 'Port_Group'>['ports']>().toEqualTypeOf<
      readonly (Uuid<'Logical_Switch_Port'> | KeyRef<'Logical_Switch_Port'>)[] | undefined
    >();
    expectTypeOf<WithKeyRefs<Uuid<'ACL'>>>().toEqualTypeOf<Uuid<'ACL'> | KeyRef<'ACL'>>();
    expectTypeOf<WithKeyRefs<number>>().toEqualTypeOf<number>();
  });

  it('refuses a KeyRef or a UUID of another table in a reference column', () => {
    const sw = keyOf('Logical_Switch', { name: 'sw0' });
    // @ts-expect-error a switch is not a switch port
    d.add('Port_Group', { name: 'pg1', ports: [sw] });
    // @ts-expect-error a router port is not a switch port
    d.add('Port_Group', { name: 'pg1', ports: [keyOf('Logical_Router_Port', { name: 'lrp0' })] });
    // @ts-expect-error a KeyRef whose table is not known is not one of a switch port
    d.add('Port_Group', { name: 'pg1', ports: [new KeyRef('Logical_Switch_Port' as string, {})] });
    const acl = '6a8b8c2e-0000-4000-8000-000000000002' as Uuid<'ACL'>;
    // @ts-expect-error the UUID of an ACL is not that of a switch port
    d.add('Port_Group', { name: 'pg1', ports: [acl] });
    // @ts-expect-error a plain string is not a reference
    d.add('Port_Group', { name: 'pg1', ports: ['6a8b8c2e-0000-4000-8000-000000000003'] });
    // @ts-expect-error dhcpv4_options references DHCP_Options, not a switch
    d.add('Logical_Switch_Port', { name: 'p1', dhcpv4_options: sw }, { in: sw });
  });

  it('refuses unknown tables and columns and wrong value types', () => {
    // @ts-expect-error no such table
    d.add('Logical_Swtich', { name: 'sw0' });
    // @ts-expect-error no such column
    d.add('Logical_Switch', { name: 'sw0', prots: [] });
    // @ts-expect-error _uuid is not an insert column
    d.add('Logical_Switch', { name: 'sw0', _uuid: 'x' });
    // @ts-expect-error name is a string
    d.add('Logical_Switch', { name: 7 });
    // @ts-expect-error priority is a number
    d.add('ACL', { ...DROP, priority: '1000' }, IN_PG);
    // @ts-expect-error not a value of the direction enum
    d.add('ACL', { ...DROP, direction: 'inbound' }, IN_PG);
    // @ts-expect-error external_ids maps strings to strings
    d.add('Logical_Switch', { name: 'sw0', external_ids: { n: 1 } });
    // @ts-expect-error the options of add are known
    d.add('Logical_Switch', { name: 'sw0' }, { inside: keyOf('Logical_Router', { name: 'lr0' }) });
  });
});

describe('over other NB model versions', () => {
  it('takes the columns of the model it is created over', () => {
    const d61 = nbDesiredState(NB61, { owner: 'tenant-a' });
    const d70 = new DesiredState(NB70, { owner: 'tenant-a' });
    expectTypeOf(d61).toEqualTypeOf<DesiredState<NB61Tables>>();
    expectTypeOf(d70).toEqualTypeOf<DesiredState<NB70Tables>>();
    const pg = d61.add('Port_Group', {
      name: 'pg1',
      ports: [keyOf('Logical_Switch_Port', { name: 'p1' })],
    });
    expectTypeOf(pg).toEqualTypeOf<KeyRef<'Port_Group'>>();
    d61.add(
      'ACL',
      { direction: 'to-lport', priority: 1000, match: 'ip', action: 'drop' },
      { in: pg },
    );
    // ACL.tier came with NB 7.1; 6.1.0 and 7.0.0 have no such column.
    // @ts-expect-error no tier in 6.1.0
    d61.add('ACL', { ...DROP, tier: 1 }, { in: pg });
    // @ts-expect-error no tier in 7.0.0
    d70.add('ACL', { ...DROP, tier: 1 }, { in: pg });
    nbDesiredState(NB, { owner: 'tenant-a' }).add('ACL', { ...DROP, tier: 1 }, { in: pg });
    // Static_MAC_Binding came with NB 6.2.
    // @ts-expect-error no Static_MAC_Binding table in 6.1.0
    d61.add('Static_MAC_Binding', {
      logical_port: 'lrp0',
      ip: '10.0.0.1',
      mac: '0a:00:00:00:00:01',
    });
  });
});

describe('planDesired and applyDesired', () => {
  const d = nbDesiredState(NB, { owner: 'tenant-a' });

  it('give a Plan and an ApplyResult', () => {
    expectTypeOf(planDesired(client, d)).toEqualTypeOf<Plan>();
    expectTypeOf(applyDesired(client, d)).resolves.toEqualTypeOf<ApplyResult>();
    expectTypeOf<ApplyResult['outcome']>().toEqualTypeOf<'applied' | 'unchanged'>();
    expectTypeOf<ApplyResult['plan']>().toEqualTypeOf<Plan>();
    expectTypeOf<ApplyResult['conflicts']>().toEqualTypeOf<number>();
    expectTypeOf(planDesired(client, d).render()).toEqualTypeOf<string>();
    expectTypeOf<DesiredStateErrorKind>().toExtend<string>();
  });

  it('take a client of the state model', () => {
    // @ts-expect-error a 6.1.0 client for a 7.18.0 state
    void applyDesired(client61, d);
    void applyDesired(client61, nbDesiredState(NB61, { owner: 'tenant-a' }));
    // @ts-expect-error batchSize is a number
    void applyDesired(client, d, { batchSize: '10' });
  });
});

describe('DesiredState.set, delete and desiredReconciler', () => {
  const d = nbDesiredState(NB, { owner: 'tenant-a' });

  it('set takes what add takes and returns a KeyRef of its table; delete a KeyRef', () => {
    const sw = d.set('Logical_Switch', { name: 'sw0' });
    expectTypeOf(sw).toEqualTypeOf<KeyRef<'Logical_Switch'>>();
    const p = d.set('Logical_Switch_Port', { name: 'p1', addresses: ['router'] }, { in: sw });
    expectTypeOf(p).toEqualTypeOf<KeyRef<'Logical_Switch_Port'>>();
    // @ts-expect-error addresses is a set of strings
    d.set('Logical_Switch_Port', { name: 'p1', addresses: [1] }, { in: sw });
    // @ts-expect-error no such column
    d.set('Logical_Switch', { name: 'sw0', nope: 1 });
    expectTypeOf(d.delete(p)).toEqualTypeOf<boolean>();
  });

  it('the reconciler plans and applies over a client of the state model', () => {
    const r = desiredReconciler(client, d);
    expectTypeOf(r).toEqualTypeOf<DesiredReconciler<NBTables>>();
    expectTypeOf(r.plan()).resolves.toEqualTypeOf<Plan>();
    expectTypeOf(r.apply()).resolves.toEqualTypeOf<ApplyResult>();
    expectTypeOf(r.stats).toEqualTypeOf<ReconcilerStats>();
    expectTypeOf(r.stats.lastFullReason).toEqualTypeOf<string | undefined>();
    expectTypeOf(r.state).toEqualTypeOf<DesiredState<NBTables>>();
    // @ts-expect-error a 6.1.0 client for a 7.18.0 state
    desiredReconciler(client61, d);
    // @ts-expect-error retries is a number
    desiredReconciler(client, d, { retries: 'x' });
  });
});

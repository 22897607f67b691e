/**
 * Type tests of required insert columns: a column whose OVSDB default breaks
 * its own constraints (an enum without `""`, `minInteger` above 0, a
 * reference) is required in the generated `…Insert` type and optional in
 * `…Update`; every other column is optional. For the bundled NB 7.18.0 model
 * and the 6.1.0, 7.0.0 and 7.19.0 fixture models.
 */

import { describe, expectTypeOf, it } from 'vitest';
import type { NBTables } from '../../src/nb/index.js';
import type { InsertOf, TableMap, TableName, UpdateOf } from '../../src/ovsdb/schema/model.js';
import type { Uuid } from '../../src/ovsdb/values/uuid.js';
import type { TransactionBuilder } from '../../src/transactions/builder.js';
import type { NBTables as NB61Tables } from '../nb/fixtures/models/nb-6.1.0/index.js';
import type { NBTables as NB70Tables } from '../nb/fixtures/models/nb-7.0.0/index.js';
import type { NBTables as NB719Tables } from '../nb/fixtures/models/nb-7.19.0/index.js';

/** The keys of `T` that are not optional. */
type RequiredKeys<T> = {
  [K in keyof T]-?: object extends Pick<T, K> ? never : K;
}[keyof T];

type RequiredInsert<DB extends TableMap, T extends TableName<DB>> = RequiredKeys<InsertOf<DB, T>>;

describe('NB 7.18.0 (bundled)', () => {
  it('an ACL insert without action is a compile error; with action and direction it compiles', () => {
    // @ts-expect-error action is required: its default "" is not an ACL action
    const noAction: InsertOf<NBTables, 'ACL'> = { direction: 'to-lport', match: '1', priority: 1 };
    // @ts-expect-error direction is required too
    const noDirection: InsertOf<NBTables, 'ACL'> = { action: 'drop', match: '1', priority: 1 };
    const ok: InsertOf<NBTables, 'ACL'> = { action: 'drop', direction: 'to-lport' };
    expectTypeOf(noAction).not.toBeAny();
    expectTypeOf(noDirection).not.toBeAny();
    expectTypeOf(ok).not.toBeAny();
    expectTypeOf<RequiredInsert<NBTables, 'ACL'>>().toEqualTypeOf<'action' | 'direction'>();
  });

  it('an empty Logical_Switch insert is fine', () => {
    const empty: InsertOf<NBTables, 'Logical_Switch'> = {};
    expectTypeOf(empty).not.toBeAny();
    expectTypeOf<RequiredInsert<NBTables, 'Logical_Switch'>>().toBeNever();
  });

  it('the builder’s insert takes the insert type', () => {
    const tx = {} as TransactionBuilder<NBTables>;
    // @ts-expect-error action and direction are required
    tx.insert('ACL', { priority: 1 });
    tx.insert('ACL', { action: 'allow', direction: 'from-lport', priority: 1 });
    tx.insert('Logical_Switch', {});
  });

  it('required columns by constraint kind: enum, range, reference, min 1 set', () => {
    expectTypeOf<RequiredInsert<NBTables, 'Meter_Band'>>().toEqualTypeOf<'action' | 'rate'>();
    expectTypeOf<RequiredInsert<NBTables, 'Meter'>>().toEqualTypeOf<'bands' | 'unit'>();
    expectTypeOf<RequiredInsert<NBTables, 'Network_Function'>>().toEqualTypeOf<
      'id' | 'inport' | 'outport'
    >();
    expectTypeOf<RequiredInsert<NBTables, 'Sample'>>().toEqualTypeOf<'metadata'>();
    // Constraints that allow the default leave the column optional (ACL.priority is 0..32767).
    expectTypeOf<RequiredInsert<NBTables, 'Logical_Router_Static_Route'>>().toBeNever();
    expectTypeOf<RequiredInsert<NBTables, 'NAT'>>().toEqualTypeOf<'type'>();
  });

  it('update types keep every mutable column optional', () => {
    const update: UpdateOf<NBTables, 'ACL'> = {};
    const meter: UpdateOf<NBTables, 'Meter'> = { fair: true };
    expectTypeOf(update).not.toBeAny();
    expectTypeOf(meter).not.toBeAny();
    expectTypeOf<RequiredKeys<UpdateOf<NBTables, 'ACL'>>>().toBeNever();
    expectTypeOf<RequiredKeys<UpdateOf<NBTables, 'Network_Function'>>>().toBeNever();
  });
});

describe('fixture models', () => {
  it('NB 6.1.0', () => {
    // @ts-expect-error action is required
    const noAction: InsertOf<NB61Tables, 'ACL'> = { direction: 'to-lport', priority: 1 };
    const empty: InsertOf<NB61Tables, 'Logical_Switch'> = {};
    expectTypeOf(noAction).not.toBeAny();
    expectTypeOf(empty).not.toBeAny();
    expectTypeOf<RequiredInsert<NB61Tables, 'ACL'>>().toEqualTypeOf<'action' | 'direction'>();
    expectTypeOf<RequiredInsert<NB61Tables, 'Logical_Switch'>>().toBeNever();
    expectTypeOf<RequiredInsert<NB61Tables, 'Meter'>>().toEqualTypeOf<'bands' | 'unit'>();
  });

  it('NB 7.0.0', () => {
    // @ts-expect-error action is required
    const noAction: InsertOf<NB70Tables, 'ACL'> = { direction: 'to-lport', priority: 1 };
    const empty: InsertOf<NB70Tables, 'Logical_Switch'> = {};
    expectTypeOf(noAction).not.toBeAny();
    expectTypeOf(empty).not.toBeAny();
    expectTypeOf<RequiredInsert<NB70Tables, 'ACL'>>().toEqualTypeOf<'action' | 'direction'>();
    expectTypeOf<RequiredInsert<NB70Tables, 'Logical_Switch'>>().toBeNever();
    expectTypeOf<RequiredInsert<NB70Tables, 'Mirror'>>().toEqualTypeOf<'filter' | 'type'>();
  });

  it('NB 7.19.0', () => {
    // @ts-expect-error action is required
    const noAction: InsertOf<NB719Tables, 'ACL'> = { direction: 'to-lport', priority: 1 };
    const empty: InsertOf<NB719Tables, 'Logical_Switch'> = {};
    const nf: InsertOf<NB719Tables, 'Network_Function'> = {
      id: 1,
      inport: '' as Uuid<'Logical_Switch_Port'>,
    };
    expectTypeOf(noAction).not.toBeAny();
    expectTypeOf(empty).not.toBeAny();
    expectTypeOf(nf).not.toBeAny();
    expectTypeOf<RequiredInsert<NB719Tables, 'ACL'>>().toEqualTypeOf<'action' | 'direction'>();
    expectTypeOf<RequiredInsert<NB719Tables, 'Logical_Switch'>>().toBeNever();
    // In 7.19.0 Network_Function.outport is optional (min 0).
    expectTypeOf<RequiredInsert<NB719Tables, 'Network_Function'>>().toEqualTypeOf<
      'id' | 'inport'
    >();
  });
});

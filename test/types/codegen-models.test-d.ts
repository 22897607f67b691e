import { describe, expectTypeOf, it } from 'vitest';
import {
  type Acl,
  AclAction,
  type AclInsert,
  type AclUpdate,
  type LogicalSwitch,
  type LogicalSwitchInsert,
  type LogicalSwitchPort,
  type LogicalSwitchPortUpdate,
  type Nat,
  NB,
  type NBTables,
  type QoS,
} from '../../src/nb/index.js';
import type { InsertOf, RowOf, TableName, UpdateOf } from '../../src/ovsdb/schema/model.js';
import type { Int64 } from '../../src/ovsdb/values/int64.js';
import type { Uuid } from '../../src/ovsdb/values/uuid.js';
import {
  type EdgeCaseRow,
  type EdgeCaseRowInsert,
  type EdgeCaseRowUpdate,
  EdgeTest,
  type EdgeTestTables,
  type MapRow,
} from '../codegen/fixtures/edge-model/index.js';

describe('enum columns', () => {
  it('ACL.action is the union of its enum values, and the const array lists them', () => {
    expectTypeOf<Acl['action']>().toEqualTypeOf<
      'allow' | 'allow-related' | 'allow-stateless' | 'drop' | 'pass' | 'reject'
    >();
    expectTypeOf(AclAction).toEqualTypeOf<
      readonly ['allow', 'allow-related', 'allow-stateless', 'drop', 'pass', 'reject']
    >();
  });

  it('an insert accepts only enum values for ACL.action', () => {
    const ok: AclInsert = { action: 'allow-related', direction: 'to-lport', priority: 1001 };
    expectTypeOf(ok.action).toEqualTypeOf<AclAction>();
    // @ts-expect-error 'accept' is not an ACL action
    const bad: AclInsert = { action: 'accept', direction: 'to-lport' };
    // @ts-expect-error a plain string is not an ACL action
    const update: AclUpdate = { action: 'drop' as string };
    expectTypeOf(bad).not.toBeAny();
    expectTypeOf(update).not.toBeAny();
  });

  it('optional enum columns allow null (the empty set)', () => {
    expectTypeOf<Acl['severity']>().toEqualTypeOf<
      'alert' | 'debug' | 'info' | 'notice' | 'warning' | null
    >();
    expectTypeOf<Nat['type']>().toEqualTypeOf<'dnat' | 'dnat_and_snat' | 'snat'>();
  });

  it('maps with enum keys are partial records of those keys', () => {
    expectTypeOf<QoS['action']>().toEqualTypeOf<
      Readonly<Partial<Record<'dscp' | 'mark', number>>>
    >();
    // @ts-expect-error 'rate' is not a key of QoS.action
    const bad: QoS['action'] = { rate: 1 };
    expectTypeOf(bad).not.toBeAny();
  });
});

describe('references', () => {
  it('LogicalSwitch.ports holds Logical_Switch_Port UUIDs', () => {
    expectTypeOf<LogicalSwitch['ports']>().toEqualTypeOf<readonly Uuid<'Logical_Switch_Port'>[]>();
    expectTypeOf<LogicalSwitch['acls']>().toEqualTypeOf<readonly Uuid<'ACL'>[]>();
  });

  it('a Uuid of another table is not assignable', () => {
    const aclUuid = '00000000-0000-0000-0000-000000000001' as Uuid<'ACL'>;
    const lspUuid = '00000000-0000-0000-0000-000000000002' as Uuid<'Logical_Switch_Port'>;
    const ports: LogicalSwitch['ports'] = [lspUuid];
    // @ts-expect-error an ACL UUID is not a Logical_Switch_Port UUID
    const wrong: LogicalSwitch['ports'] = [aclUuid];
    // @ts-expect-error a plain string is not a UUID
    const plain: LogicalSwitch['ports'] = ['00000000-0000-0000-0000-000000000003'];
    expectTypeOf(ports).not.toBeAny();
    expectTypeOf(wrong).not.toBeAny();
    expectTypeOf(plain).not.toBeAny();
  });

  it('optional references are nullable', () => {
    expectTypeOf<
      LogicalSwitchPort['ha_chassis_group']
    >().toEqualTypeOf<Uuid<'HA_Chassis_Group'> | null>();
  });

  it('_uuid is branded with its own table, _version with none', () => {
    expectTypeOf<Acl['_uuid']>().toEqualTypeOf<Uuid<'ACL'>>();
    expectTypeOf<LogicalSwitchPort['_uuid']>().toEqualTypeOf<Uuid<'Logical_Switch_Port'>>();
    expectTypeOf<LogicalSwitchPort['_uuid']>().not.toEqualTypeOf<Uuid<'ACL'>>();
    expectTypeOf<Acl['_version']>().toEqualTypeOf<Uuid>();
  });
});

describe('rows, inserts and updates', () => {
  it('rows are read-only', () => {
    const row = {} as LogicalSwitchPort;
    // @ts-expect-error row properties are readonly
    row.name = 'lsp1';
    // @ts-expect-error set columns are readonly arrays
    row.addresses.push('00:00:00:00:00:01');
    expectTypeOf(row).not.toBeAny();
  });

  it('scalars, optionals, sets and string maps follow the codec representation', () => {
    expectTypeOf<LogicalSwitchPort['name']>().toEqualTypeOf<string>();
    expectTypeOf<LogicalSwitchPort['tag']>().toEqualTypeOf<number | null>();
    expectTypeOf<LogicalSwitchPort['addresses']>().toEqualTypeOf<readonly string[]>();
    expectTypeOf<LogicalSwitchPort['options']>().toEqualTypeOf<Readonly<Record<string, string>>>();
    expectTypeOf<LogicalSwitchPort['enabled']>().toEqualTypeOf<boolean | null>();
  });

  it('inserts make every declared column optional but those whose default is invalid, and exclude _uuid and _version', () => {
    type Flat<T> = { [K in keyof T]: T[K] };
    expectTypeOf<Flat<AclInsert>>().toEqualTypeOf<
      Flat<
        Partial<Omit<Acl, '_uuid' | '_version' | 'action' | 'direction'>> &
          Pick<Acl, 'action' | 'direction'>
      >
    >();
    expectTypeOf<Flat<LogicalSwitchInsert>>().toEqualTypeOf<
      Flat<Partial<Omit<LogicalSwitch, '_uuid' | '_version'>>>
    >();
    const empty: LogicalSwitchInsert = {};
    const required = { action: 'drop', direction: 'from-lport' } as const;
    // @ts-expect-error _uuid is not written by an insert
    const withUuid: AclInsert = { ...required, _uuid: '' as Uuid<'ACL'> };
    // @ts-expect-error unknown column
    const unknown: AclInsert = { ...required, prio: 1 };
    expectTypeOf(empty).not.toBeAny();
    expectTypeOf(withUuid).not.toBeAny();
    expectTypeOf(unknown).not.toBeAny();
  });

  it('with exactOptionalPropertyTypes an absent column is not undefined', () => {
    // @ts-expect-error undefined is not a column value; leave the column out instead
    const u: LogicalSwitchPortUpdate = { tag: undefined };
    const cleared: LogicalSwitchPortUpdate = { tag: null };
    expectTypeOf(u).not.toBeAny();
    expectTypeOf(cleared).not.toBeAny();
  });

  it('immutable columns are absent from update types (Edge_Case.fixed)', () => {
    expectTypeOf<EdgeCaseRow['fixed']>().toEqualTypeOf<string>();
    expectTypeOf<EdgeCaseRowInsert>().toHaveProperty('fixed');
    expectTypeOf<EdgeCaseRowUpdate>().not.toHaveProperty('fixed');
    expectTypeOf<EdgeCaseRowUpdate>().toHaveProperty('name');
    const insert: EdgeCaseRowInsert = {
      fixed: 'set once',
      name: 'a',
      flag: true,
      level: 1,
      quoted: "it's",
    };
    // @ts-expect-error fixed is immutable
    const update: EdgeCaseRowUpdate = { fixed: 'changed' };
    expectTypeOf(insert).not.toBeAny();
    expectTypeOf(update).not.toBeAny();
  });
});

describe('unusual column types (edge fixture)', () => {
  it('integer-keyed maps use number keys; boolean keys are "true"/"false"', () => {
    expectTypeOf<EdgeCaseRow['queues']>().toEqualTypeOf<Readonly<Record<number, Uuid<'Map'>>>>();
    // An unbounded integer value is 64-bit.
    expectTypeOf<EdgeCaseRow['bmap']>().toEqualTypeOf<
      Readonly<Partial<Record<'false' | 'true', Int64>>>
    >();
  });

  it('uuid-keyed maps are keyed by the referenced table', () => {
    expectTypeOf<EdgeCaseRow['by_ref']>().toEqualTypeOf<Readonly<Record<Uuid<'Map'>, Int64>>>();
  });

  it('integer, real and boolean enums become literal unions', () => {
    expectTypeOf<EdgeCaseRow['level']>().toEqualTypeOf<1 | 2 | 3>();
    expectTypeOf<EdgeCaseRow['ratio']>().toEqualTypeOf<0.5 | 1.5 | null>();
    expectTypeOf<EdgeCaseRow['flag']>().toEqualTypeOf<true>();
  });

  it('a uuid without refTable is any table’s Uuid', () => {
    expectTypeOf<EdgeCaseRow['other']>().toEqualTypeOf<Uuid | null>();
  });

  it('names that clash with globals or the model get a Row suffix', () => {
    expectTypeOf<MapRow['_uuid']>().toEqualTypeOf<Uuid<'Map'>>();
    expectTypeOf<EdgeTestTables['Edge_Test']['row']['x']>().toEqualTypeOf<Int64>();
    expectTypeOf(EdgeTest.tables).toEqualTypeOf<EdgeTestTables | undefined>();
  });
});

describe('the model', () => {
  it('NBTables maps table names to their row, insert and update types', () => {
    expectTypeOf<RowOf<NBTables, 'ACL'>>().toEqualTypeOf<Acl>();
    expectTypeOf<InsertOf<NBTables, 'ACL'>>().toEqualTypeOf<AclInsert>();
    expectTypeOf<
      UpdateOf<NBTables, 'Logical_Switch_Port'>
    >().toEqualTypeOf<LogicalSwitchPortUpdate>();
    expectTypeOf<TableName<NBTables>>().toExtend<string>();
    expectTypeOf<'Logical_Switch'>().toExtend<TableName<NBTables>>();
    expectTypeOf<'No_Such_Table'>().not.toExtend<TableName<NBTables>>();
  });

  it('NB is a DatabaseModel of NBTables', () => {
    expectTypeOf(NB.tables).toEqualTypeOf<NBTables | undefined>();
  });
});

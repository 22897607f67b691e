import { describe, expectTypeOf, it } from 'vitest';
import type {
  Acl,
  AclInsert,
  AclUpdate,
  Bfd,
  Mirror,
  NBTables,
  NbGlobal,
  NbGlobalInsert,
  NbGlobalUpdate,
} from '../../src/nb/index.js';
import type { Int64 } from '../../src/ovsdb/index.js';
import type { MutationOf } from '../../src/transactions/mutations.js';
import {
  type IntRange,
  type IntRangeInsert,
  IntRangeLevel,
  IntRangeTable,
} from '../codegen/fixtures/edge-model/index.js';

describe('64-bit integer columns of the NB model', () => {
  it('an integer column without bounds is Int64 (number | bigint)', () => {
    expectTypeOf<NbGlobal['nb_cfg']>().toEqualTypeOf<Int64>();
    expectTypeOf<NbGlobal['nb_cfg']>().toEqualTypeOf<number | bigint>();
    expectTypeOf<NbGlobal['hv_cfg_timestamp']>().toEqualTypeOf<Int64>();
    expectTypeOf<Mirror['index']>().toEqualTypeOf<Int64>();
  });

  it('a bound on one side only is not enough: BFD.min_tx (≥ 1) is Int64', () => {
    expectTypeOf<Bfd['min_tx']>().toEqualTypeOf<Int64 | null>();
  });

  it('an integer bounded within ±(2^53−1) stays number: ACL.priority (0..32767)', () => {
    expectTypeOf<Acl['priority']>().toEqualTypeOf<number>();
  });

  it('inserts and updates accept a bigint for NB_Global.nb_cfg', () => {
    const insert: NbGlobalInsert = { nb_cfg: 1n };
    const update: NbGlobalUpdate = { nb_cfg: 9223372036854775807n, sb_cfg: 2 };
    expectTypeOf(insert.nb_cfg).toEqualTypeOf<Int64 | undefined>();
    expectTypeOf(update).not.toBeAny();
  });

  it('ACL.priority: 1n is a type error', () => {
    const ok: AclInsert = { action: 'drop', direction: 'to-lport', priority: 1 };
    // @ts-expect-error ACL.priority is a number (0..32767), not a bigint
    const insert: AclInsert = { action: 'drop', direction: 'to-lport', priority: 1n };
    // @ts-expect-error ACL.priority is a number (0..32767), not a bigint
    const update: AclUpdate = { priority: 1n };
    expectTypeOf(ok).not.toBeAny();
    expectTypeOf(insert).not.toBeAny();
    expectTypeOf(update).not.toBeAny();
  });

  it('arithmetic mutations take a bigint operand for an Int64 column only', () => {
    const bump: MutationOf<NBTables, 'NB_Global'> = ['nb_cfg', '+=', 1n];
    const small: MutationOf<NBTables, 'NB_Global'> = ['nb_cfg', '+=', 1];
    const priority: MutationOf<NBTables, 'ACL'> = ['priority', '+=', 10];
    // @ts-expect-error ACL.priority is a number: its operand is too
    const big: MutationOf<NBTables, 'ACL'> = ['priority', '+=', 10n];
    expectTypeOf(bump).not.toBeAny();
    expectTypeOf(small).not.toBeAny();
    expectTypeOf(priority).not.toBeAny();
    expectTypeOf(big).not.toBeAny();
  });
});

describe('64-bit integer columns of the edge fixture', () => {
  it('bounds beyond ±(2^53−1), or at the int64 limits, make Int64; safe bounds keep number', () => {
    expectTypeOf<IntRange['counter']>().toEqualTypeOf<Int64>();
    expectTypeOf<IntRange['bounded']>().toEqualTypeOf<number>();
    expectTypeOf<IntRange['big']>().toEqualTypeOf<Int64>();
    expectTypeOf<IntRange['full']>().toEqualTypeOf<readonly Int64[]>();
  });

  it('an enum of big integers is a union of bigint and number literals', () => {
    expectTypeOf<IntRange['level']>().toEqualTypeOf<
      -9223372036854775808n | -1 | 9007199254740993n | 9223372036854775807n
    >();
    expectTypeOf(IntRangeLevel).toEqualTypeOf<
      readonly [-9223372036854775808n, -1, 9007199254740993n, 9223372036854775807n]
    >();
    const ok: IntRangeInsert = { level: 9007199254740993n };
    // @ts-expect-error 9007199254740992n is not one of the enum values
    const bad: IntRangeInsert = { level: 9007199254740992n };
    expectTypeOf(ok).not.toBeAny();
    expectTypeOf(bad).not.toBeAny();
  });

  it('an unbounded integer map key is a number or its decimal digits', () => {
    expectTypeOf<IntRange['by_id']>().toEqualTypeOf<
      Readonly<Record<number | `${bigint}`, number>>
    >();
    const ids: IntRange['by_id'] = { 1: 2, '9223372036854775807': 3 };
    expectTypeOf(ids[1]).toEqualTypeOf<number | undefined>();
    expectTypeOf(ids['9223372036854775807']).toEqualTypeOf<number | undefined>();
  });

  it('the table schema constant holds the big bounds as bigint literals', () => {
    expectTypeOf(
      IntRangeTable.columns.big.type.key.maxInteger,
    ).toEqualTypeOf<9223372036854775806n>();
    expectTypeOf(
      IntRangeTable.columns.bounded.type.key.maxInteger,
    ).toEqualTypeOf<9007199254740991>();
  });
});

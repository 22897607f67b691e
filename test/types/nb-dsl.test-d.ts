/**
 * Type tests of the DSL's public surface: refs are typed by table, options
 * are checked, enums are closed.
 */

import { describe, expectTypeOf, it } from 'vitest';
import {
  type AclSpec,
  type AclTarget,
  type LspType,
  lrpSet,
  lsAdd,
  lspAdd,
  lspSetOptions,
  lsSetDnsRecords,
  type MatchExpr,
  match,
  type NatTypeName,
  type Nb,
  type NbRow,
  type NbTxn,
  pgAdd,
} from '../../src/nb/index.js';
import type { Uuid } from '../../src/ovsdb/values/uuid.js';

declare const t: NbTxn;
declare const nb: Nb;

describe('DSL types', () => {
  it('returns refs typed by table', () => {
    expectTypeOf(lsAdd(t, 'sw0')).toEqualTypeOf<Uuid<'Logical_Switch'>>();
    expectTypeOf(lspAdd(t, 'sw0', 'p1')).toEqualTypeOf<Uuid<'Logical_Switch_Port'>>();
    expectTypeOf(pgAdd(t, 'pg1')).toEqualTypeOf<Uuid<'Port_Group'>>();
    expectTypeOf(t.get('Logical_Switch', 'x')).toEqualTypeOf<NbRow<'Logical_Switch'> | undefined>();
  });

  it('checks enums and option shapes', () => {
    // @ts-expect-error: not a port type
    const type: LspType = 'tunnel';
    // @ts-expect-error: not an ACL action
    const action: AclSpec['action'] = 'permit';
    // @ts-expect-error: a target is a switch or a port group
    const target: AclTarget = { router: 'lr0' };
    // @ts-expect-error: NAT types are closed
    const natType: NatTypeName = 'masquerade';
    expectTypeOf([type, action, target, natType]).not.toBeNever();
    expectTypeOf(match.outport('p1')).toEqualTypeOf<MatchExpr>();
    expectTypeOf(lspAdd).parameter(3).toMatchTypeOf<{ type?: LspType | undefined } | undefined>();
  });

  it('resolves operation results in nb.transact', () => {
    expectTypeOf(nb.transact((tx) => lsAdd(tx, 'sw0')))
      .resolves.toHaveProperty('value')
      .toEqualTypeOf<Uuid<'Logical_Switch'>>();
  });

  it('setters take null to remove a key, and { replace: true }', () => {
    lspSetOptions(t, 'p1', { 'requested-chassis': 'ch1', 'virtual-ip': null });
    lspSetOptions(t, 'p1', { 'requested-chassis': 'ch1' }, { replace: true });
    lrpSet(
      t,
      'lrp0',
      { options: { gateway_mtu: null }, externalIds: { a: '1' } },
      { replace: false },
    );
    lsSetDnsRecords(t, 'sw0', { 'a.example': null, 'b.example': ['10.0.0.1'] }, { replace: true });
    // @ts-expect-error: a map value is a string or null
    lspSetOptions(t, 'p1', { mtu: 1400 });
    // @ts-expect-error: replace is a boolean
    lspSetOptions(t, 'p1', {}, { replace: 'yes' });
  });

  it('index reads are typed by the table', () => {
    expectTypeOf(t.lookup('Logical_Switch_Port', { name: 'p1' })).toEqualTypeOf<
      NbRow<'Logical_Switch_Port'> | undefined
    >();
    expectTypeOf(t.byIndex('Logical_Switch', 'bySubnet', '10.0.0.0/24')).toEqualTypeOf<
      NbRow<'Logical_Switch'>[]
    >();
    // @ts-expect-error: a lookup key holds columns of the table
    t.lookup('Logical_Switch_Port', { nope: 'p1' });
  });
});

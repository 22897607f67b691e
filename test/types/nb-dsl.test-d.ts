/**
 * Type tests of the DSL's public surface: refs are typed by table, options
 * are checked, enums are closed.
 */

import { describe, expectTypeOf, it } from 'vitest';
import {
  type AclSpec,
  type AclTarget,
  type LspType,
  lsAdd,
  lspAdd,
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
});

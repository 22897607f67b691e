/**
 * Type tests of the match builder: with a literal field, an unknown field, a
 * value of the wrong kind (a string for an integer field, an IPv6 or
 * Ethernet address for an IPv4 field, a number for a string field, a port
 * group for an address field), an ordering operator on a field that takes
 * only == and !=, a string field alone and bits of a nominal field are
 * compile errors; with a field typed `string`, everything compiles and the
 * checks happen at run time.
 */

import { describe, expectTypeOf, it } from 'vitest';
import {
  MATCH_FIELDS,
  type MatchAddressSetRef,
  type MatchConstant,
  type MatchExpr,
  type MatchFieldArg,
  type MatchFieldName,
  type MatchOperatorArg,
  type MatchPortGroupRef,
  type MatchStringValue,
  match,
} from '../../src/nb/index.js';

declare const someField: string;
declare const someStrings: string[];
declare const ports: number[];

describe('match builder types', () => {
  it('accepts correct uses with literal fields', () => {
    expectTypeOf(match.eq('tcp.dst', 443)).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.eq('tcp.dst', [80, 443])).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.eq('tcp.dst', ports)).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.ne('udp.src', match.int('0x35'))).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.eq('tcp.dst', match.addressSet('ports'))).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.eq('ip4.src', '10.0.0.0/24')).toEqualTypeOf<MatchExpr>();
    expectTypeOf(
      match.eq('ip4.src', ['10.0.0.1', match.addressSet('as')]),
    ).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.eq('ip4.dst', someStrings)).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.ip4Src(['10.0.0.0/8', '192.168.0.1'])).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.eq('ip6.src', 'fd00::/64')).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.eq('eth.src', '00:00:00:00:00:01')).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.eq('inport', 'web-1')).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.eq('outport', ['a', match.portGroup('pg')])).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.eq('reg0[0..3]', 5)).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.eq('ct_label[96..127]', 1)).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.compare('tcp.dst', '<', 1024)).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.compare('reg0[3..5]', '>=', 2)).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.compare('ip.proto', '==', 6)).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.field('ip4')).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.field('ct.new')).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.field('reg1[5]')).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.inport(match.portGroup('pg'))).toEqualTypeOf<MatchExpr>();
  });

  it('falls back to run-time checks for a field typed string', () => {
    expectTypeOf(match.eq(someField, '443')).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.eq(someField, [1, 'x', match.portGroup('pg')])).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.compare(someField, '<', 'x')).toEqualTypeOf<MatchExpr>();
    expectTypeOf(match.field(someField)).toEqualTypeOf<MatchExpr>();
  });

  it('rejects unknown fields', () => {
    // @ts-expect-error: OVN's field is tcp.dst
    match.eq('tcp.dport', 443);
    // @ts-expect-error: no such register
    match.field('reg10');
    // @ts-expect-error: unknown, with bits
    match.eq('foo[0..3]', 1);
    expectTypeOf<
      MatchFieldArg<'tcp.dport'>
    >().toEqualTypeOf<'unknown OVN match field: tcp.dport'>();
    expectTypeOf<MatchFieldArg<'tcp.dst'>>().toEqualTypeOf<'tcp.dst'>();
    expectTypeOf<MatchFieldArg<string>>().toEqualTypeOf<string>();
  });

  it('rejects values of the wrong kind', () => {
    // @ts-expect-error: a string constant for an integer field
    match.eq('tcp.dst', '443');
    // @ts-expect-error: a string literal for an integer field
    match.eq('tcp.dst', match.str('443'));
    // @ts-expect-error: strings in a set for an integer field
    match.eq('udp.dst', [53, '5353']);
    // @ts-expect-error: a string for selected bits
    match.eq('reg0[0..3]', 'x');
    // @ts-expect-error: an IPv6 address for an IPv4 field
    match.eq('ip4.src', 'fd00::1');
    // @ts-expect-error: an Ethernet address in a set for an IPv4 field
    match.eq('ip4.dst', ['10.0.0.1', '00:00:00:00:00:01']);
    // @ts-expect-error: an IPv6 prefix for ip4.src
    match.ip4Src('fd00::/64');
    // @ts-expect-error: a port group (port names) for an address field
    match.eq('ip4.src', match.portGroup('pg'));
    // @ts-expect-error: a number for a string field
    match.eq('inport', 5);
    // @ts-expect-error: an address set (integers) for a string field
    match.inport(match.addressSet('as'));
    // @ts-expect-error: an address set for outport
    match.eq('outport', [match.addressSet('as')]);
  });

  it('rejects ordering operators on nominal and string fields and predicates', () => {
    // @ts-expect-error: inport is a string field
    match.compare('inport', '<', 'x');
    // @ts-expect-error: ip.proto is nominal
    match.compare('ip.proto', '>=', 6);
    // @ts-expect-error: predicates take == and !=
    match.compare('ip4.mcast', '>', 0);
    expectTypeOf<MatchOperatorArg<'ip.proto'>>().toEqualTypeOf<'==' | '!='>();
    expectTypeOf<MatchOperatorArg<'tcp.dst'>>().toEqualTypeOf<
      '==' | '!=' | '<' | '<=' | '>' | '>='
    >();
  });

  it('rejects a string field alone and bits of nominal fields', () => {
    // @ts-expect-error: a string field cannot stand alone
    match.field('inport');
    // @ts-expect-error: ip.proto is nominal: no bit selection
    match.eq('ip.proto[0..3]', 1);
    // @ts-expect-error: strings have no bits
    match.eq('outport[0]', 1);
  });

  it('types the values and the catalogue precisely', () => {
    expectTypeOf(match.int(1)).toEqualTypeOf<MatchConstant>();
    expectTypeOf(match.addr('10.0.0.1')).toEqualTypeOf<MatchConstant>();
    expectTypeOf(match.str('a')).toEqualTypeOf<MatchStringValue>();
    expectTypeOf(match.addressSet('a')).toEqualTypeOf<MatchAddressSetRef>();
    expectTypeOf(match.portGroup('a')).toEqualTypeOf<MatchPortGroupRef>();
    expectTypeOf(MATCH_FIELDS['tcp.dst'].width).toEqualTypeOf<16>();
    expectTypeOf(MATCH_FIELDS.ip4.kind).toEqualTypeOf<'predicate'>();
    expectTypeOf<'ct.new'>().toExtend<MatchFieldName>();
    expectTypeOf<'reg10'>().not.toExtend<MatchFieldName>();
  });
});

/**
 * The match field catalogue and the checks made with it: the catalogue is
 * consistent with itself (subfields within their parents, predicate levels
 * as OVN derives them from their expansions) and holds OVN's widths; every
 * kind of error the builders, `formatMatch`, `parseMatch` and `checkMatch`
 * raise names the field, the value and the reason; correct uses pass.
 */

import { describe, expect, it } from 'vitest';
import {
  checkMatch,
  constantInfo,
  formatMatch,
  InvalidMatchError,
  MATCH_FIELDS,
  type MatchExpr,
  type MatchFieldLevel,
  type MatchFieldSpec,
  MatchSyntaxError,
  match,
  matchField,
  parseMatch,
  resolveField,
} from '../../src/nb/index.js';

/** Field names typed as plain strings: the run-time checks, not the compile-time ones. */
const f = (name: string): string => name;

function thrown(fn: () => unknown): InvalidMatchError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InvalidMatchError) return e;
    throw e;
  }
  throw new Error('expected an InvalidMatchError');
}

const ENTRIES = Object.entries(MATCH_FIELDS) as [string, MatchFieldSpec][];

/** OVN's level of an expression: nominal if it uses a nominal symbol, else Boolean. */
function levelOf(e: MatchExpr): MatchFieldLevel {
  switch (e.type) {
    case 'and':
    case 'or':
      return e.terms.some((t) => levelOf(t) === 'nominal') ? 'nominal' : 'boolean';
    case 'not':
      return levelOf(e.term);
    case 'field':
    case 'compare':
      return resolveField(e.field).spec.level === 'nominal' ? 'nominal' : 'boolean';
    default:
      return 'boolean';
  }
}

describe('the match field catalogue', () => {
  it('holds OVN’s widths and kinds for the common fields', () => {
    const expected: Record<string, [MatchFieldSpec['kind'], number, MatchFieldLevel]> = {
      inport: ['string', 0, 'nominal'],
      outport: ['string', 0, 'nominal'],
      'eth.src': ['mac', 48, 'ordinal'],
      'eth.dst': ['mac', 48, 'ordinal'],
      'eth.type': ['integer', 16, 'nominal'],
      'vlan.tci': ['integer', 16, 'ordinal'],
      'vlan.vid': ['subfield', 12, 'ordinal'],
      'ip.proto': ['integer', 8, 'nominal'],
      'ip.dscp': ['integer', 6, 'nominal'],
      'ip.ecn': ['integer', 2, 'nominal'],
      'ip.ttl': ['integer', 8, 'nominal'],
      'ip4.src': ['ipv4', 32, 'ordinal'],
      'ip6.dst': ['ipv6', 128, 'ordinal'],
      'ip6.label': ['integer', 20, 'ordinal'],
      'icmp4.type': ['integer', 8, 'nominal'],
      'icmp6.code': ['integer', 8, 'nominal'],
      'tcp.dst': ['integer', 16, 'ordinal'],
      'tcp.flags': ['integer', 12, 'ordinal'],
      'udp.src': ['integer', 16, 'ordinal'],
      'sctp.dst': ['integer', 16, 'ordinal'],
      'arp.op': ['integer', 16, 'nominal'],
      'arp.spa': ['ipv4', 32, 'ordinal'],
      'arp.sha': ['mac', 48, 'ordinal'],
      'nd.target': ['ipv6', 128, 'ordinal'],
      'nd.sll': ['mac', 48, 'ordinal'],
      reg0: ['subfield', 32, 'ordinal'],
      reg9: ['subfield', 32, 'ordinal'],
      xreg0: ['subfield', 64, 'ordinal'],
      xreg4: ['integer', 64, 'ordinal'],
      xxreg1: ['integer', 128, 'ordinal'],
      flags: ['integer', 32, 'ordinal'],
      ct_mark: ['integer', 32, 'ordinal'],
      ct_label: ['integer', 128, 'ordinal'],
      ct_state: ['integer', 32, 'ordinal'],
      'ct.new': ['subfield', 1, 'ordinal'],
      'ct.trk': ['subfield', 1, 'ordinal'],
      ip4: ['predicate', 1, 'nominal'],
      tcp: ['predicate', 1, 'nominal'],
      igmp: ['predicate', 1, 'nominal'],
      'ip4.mcast': ['predicate', 1, 'boolean'],
      'eth.bcast': ['predicate', 1, 'boolean'],
      'pkt.mark': ['integer', 32, 'ordinal'],
    };
    for (const [name, [kind, width, level]] of Object.entries(expected)) {
      expect(matchField(name), name).toMatchObject({ kind, width, level });
    }
    // OVN has ten logical registers (reg10..15 hold the flags, zones and ports).
    for (let i = 0; i < 10; i++) expect(matchField(`reg${i}`)).toBeDefined();
    expect(matchField('reg10')).toBeUndefined();
    expect(matchField('xreg5')).toBeUndefined();
    expect(matchField('xxreg2')).toBeUndefined();
    for (const s of ['new', 'est', 'rel', 'rpl', 'inv', 'trk', 'snat', 'dnat']) {
      expect(matchField(`ct.${s}`)?.prereqs).toBe(s === 'trk' ? undefined : 'ct.trk');
    }
    expect(matchField('toString')).toBeUndefined();
    expect(ENTRIES.length).toBe(151);
  });

  it('subfields lie within ordinal parents and have the width of their bits', () => {
    for (const [name, spec] of ENTRIES) {
      if (spec.kind !== 'subfield') {
        expect(spec.of, name).toBeUndefined();
        continue;
      }
      const m = /^([^[]+)\[(\d+)(?:\.\.(\d+))?\]$/.exec(spec.of ?? '');
      expect(m, name).not.toBeNull();
      const parent = matchField(m![1]!);
      const lo = Number(m![2]);
      const hi = m![3] === undefined ? lo : Number(m![3]);
      expect(parent, name).toBeDefined();
      expect(parent!.level, name).toBe('ordinal');
      expect(hi, name).toBeLessThan(parent!.width);
      expect(spec.width, name).toBe(hi - lo + 1);
      expect(spec.level, name).toBe('ordinal');
    }
  });

  it('predicates parse, and their level is the one OVN derives from the expansion', () => {
    for (const [name, spec] of ENTRIES) {
      if (spec.kind !== 'predicate') {
        expect(spec.expansion, name).toBeUndefined();
        continue;
      }
      expect(spec.width, name).toBe(1);
      expect(levelOf(parseMatch(spec.expansion!)), name).toBe(spec.level);
    }
  });

  it('prerequisites parse; releases are YY.MM in order; strings have width 0', () => {
    for (const [name, spec] of ENTRIES) {
      if (spec.prereqs !== undefined) expect(() => parseMatch(spec.prereqs!), name).not.toThrow();
      for (const r of [spec.since, spec.until])
        if (r !== undefined) expect(r).toMatch(/^\d\d\.\d\d$/);
      if (spec.since !== undefined && spec.until !== undefined) {
        expect(spec.since < spec.until, name).toBe(true);
      }
      expect(spec.width === 0, name).toBe(spec.kind === 'string');
    }
  });
});

describe('constants as OVN reads them', () => {
  it('widths: bit length of numbers, 32/128/48 for addresses, the mask’s when masked', () => {
    const cases: [string, number][] = [
      ['0', 0],
      ['1', 1],
      ['65535', 16],
      ['65536', 17],
      ['0x00ff', 8],
      ['10.0.0.1', 32],
      ['0.0.0.0', 32],
      ['::', 128],
      ['fd00::1', 128],
      ['00:00:00:00:00:00', 48],
      ['10.0.0.0/8', 32],
      ['10.0.0.0/0', 0],
      ['0/0x6', 3],
      ['5/3', 2],
      ['10.0.0.0/0.0.255.255', 16],
      ['00:00:00:00:00:01/00:00:00:00:00:ff', 8],
    ];
    for (const [text, width] of cases) expect(constantInfo(text).width, text).toBe(width);
    expect(constantInfo('7/5').value).toBe(5n);
  });

  it('rejects what OVN’s lexer rejects', () => {
    for (const text of [
      '18446744073709551616',
      '1.2.3.4/33',
      '1.2.3.4/0x1',
      'x',
      `0x${'f'.repeat(257)}`,
    ]) {
      expect(() => constantInfo(text), text).toThrow(InvalidMatchError);
    }
  });
});

describe('match checks: each kind of error', () => {
  it('an unknown field, with a suggestion', () => {
    const e = thrown(() => match.eq(f('tcp.dport'), 443));
    expect(e.what).toBe('field');
    expect(e.value).toBe('tcp.dport');
    expect(e.reason).toContain('OVN has no field tcp.dport (did you mean tcp.dst?)');
    expect(() => match.field(f('reg10'))).toThrow(/OVN has no field reg10/);
    expect(() => parseMatch('ip4 && tcp.dport == 443')).toThrow(/OVN has no field tcp.dport/);
    expect(() => checkMatch({ type: 'field', field: 'nope' })).toThrow(InvalidMatchError);
  });

  it('a field the named OVN release lacks', () => {
    const later = match.eq('ct_mark.obs_stage', 1);
    expect(formatMatch(later)).toBe('ct_mark.obs_stage == 1');
    const e = thrown(() => formatMatch(later, { ovnRelease: '23.03' }));
    expect(e.reason).toBe(
      'OVN 23.03 has no field ct_mark.obs_stage (OVN defines it from 24.09 on)',
    );
    expect(() => parseMatch('ct_label.blocked', { ovnRelease: '24.09' })).toThrow(/up to 24.03/);
    expect(() => parseMatch('ct_label.blocked', { ovnRelease: '24.03.2' })).not.toThrow();
    expect(() => parseMatch('ct_label.natted', { ovnRelease: '20.06' })).toThrow(
      /OVN 20.09 to 24.03 define it/,
    );
    expect(() => parseMatch('ip4', { ovnRelease: 'latest' })).toThrow(/must be YY.MM/);
  });

  it('a string constant for an integer field, and the reverse', () => {
    const e = thrown(() => match.eq(f('tcp.dst'), '443'));
    expect(e.what).toBe('tcp.dst');
    expect(e.value).toEqual({ type: 'string', value: '443' });
    expect(e.reason).toContain('takes integer constants');
    expect(e.message).toContain('not the string "443"');
    expect(() => parseMatch('tcp.dst == "443"')).toThrow(/not the string "443"/);
    expect(() => match.eq(f('ip4.src'), match.portGroup('pg1'))).toThrow(/not the port group @pg1/);
    expect(() => match.eq(f('inport'), 5)).toThrow(/string field inport takes strings/);
    expect(() => match.inport(match.addressSet('as1') as never)).toThrow(/address set \$as1/);
    expect(() => parseMatch('outport == 10.0.0.1')).toThrow(/not the integer constant 10.0.0.1/);
    expect(() => match.eq(f('outport'), ['a', match.portGroup('pg')])).not.toThrow();
    expect(() => parseMatch('inport == {"a", @pg}')).not.toThrow();
  });

  it('constants wider than the field: out of range, IPv6 for IPv4, MAC for integers', () => {
    expect(thrown(() => match.eq(f('tcp.dst'), 65536)).reason).toBe(
      '65536 (17 bits) does not fit the 16-bit ordinal field tcp.dst',
    );
    expect(() => match.eq(f('tcp.dst'), 65535)).not.toThrow();
    expect(() => match.eq(f('ip.dscp'), 64)).toThrow(/64 \(7 bits\) does not fit the 6-bit/);
    expect(() => match.eq(f('ip.dscp'), 63)).not.toThrow();
    expect(() => match.eq(f('ip.ecn'), [1, 4])).toThrow(InvalidMatchError);
    const v6 = thrown(() => match.eq(f('ip4.src'), 'fd00::1'));
    expect(v6.what).toBe('ip4.src');
    expect(v6.value).toBe('fd00::1');
    expect(v6.reason).toBe(
      'the IPv6 address fd00::1 (128 bits) does not fit the 32-bit ordinal field ip4.src',
    );
    expect(() => match.ip4Dst(['10.0.0.1', 'fd00::/64'] as never)).toThrow(
      /IPv6 address fd00::\/64|128/,
    );
    expect(() => match.eq(f('tcp.dst'), match.addr('00:00:00:00:00:01'))).toThrow(
      /Ethernet address 00:00:00:00:00:01 \(48 bits\)/,
    );
    expect(() => match.eq(f('reg0'), match.addr('10.0.0.1'))).not.toThrow();
    expect(() => match.eq(f('xreg0'), match.addr('00:00:00:00:00:01'))).not.toThrow();
    expect(() => parseMatch('ip4 == 2')).toThrow(/does not fit the 1-bit nominal predicate ip4/);
    expect(() => parseMatch('reg0 == 0/0x1ffffffff')).toThrow(/33-bit mask/);
    // As in OVN, the symbol's width counts, also when bits are selected.
    expect(() => parseMatch('reg0[0..3] == 0xff')).not.toThrow();
    // An IPv4 address fits an IPv6 field (OVN accepts it).
    expect(() => match.ip6Src('10.0.0.1')).not.toThrow();
  });

  it('bit selections out of bounds or on fields that have no bits', () => {
    expect(thrown(() => match.eq(f('reg0[32]'), 1)).reason).toBe(
      'cannot select bit 32 of the 32-bit ordinal field reg0 (bits 0 to 31)',
    );
    expect(() => match.eq(f('reg0[31]'), 1)).not.toThrow();
    expect(() => match.eq(f('reg0[16..40]'), 1)).toThrow(/bits 16 to 40/);
    expect(() => match.eq(f('reg0[5..3]'), 1)).toThrow(/invalid bit range 5 to 3/);
    expect(() => match.eq(f('inport[0]'), 1)).toThrow(/cannot select bits of string field inport/);
    expect(() => parseMatch('ip.proto[0..3] == 1')).toThrow(/cannot select bits of 8-bit nominal/);
    expect(() => parseMatch('ip.proto[0..7] == 1')).not.toThrow();
    expect(() => match.field(f('ip4[1]'))).toThrow(/cannot select bit 1 of/);
  });

  it('ordering operators where OVN allows only == and !=', () => {
    expect(() => match.compare(f('inport'), '<', 'x')).toThrow(/string field inport, not </);
    expect(() => match.compare(f('ip.proto'), '>=', 6)).toThrow(/8-bit nominal field ip.proto/);
    expect(() => parseMatch('ip4 < 1')).toThrow(/nominal predicate ip4, not </);
    expect(() => parseMatch('ip4.mcast <= 1')).toThrow(/boolean predicate ip4.mcast/);
    expect(() => match.compare(f('tcp.dst'), '<', [1])).toThrow(
      /only == and != compare with a set/,
    );
    expect(() => parseMatch('tcp.dst > 0/1')).toThrow(/only == and != take masked constants/);
    expect(() => parseMatch('tcp.dst < {1}')).toThrow(MatchSyntaxError);
    expect(() => match.compare(f('ip4.src'), '>', '10.0.0.0/8')).toThrow(/masked/);
    expect(() => match.compare(f('tcp.dst'), '<', 1024)).not.toThrow();
    expect(() => parseMatch('ct.new < 1 && reg0[0..3] >= 2')).not.toThrow();
  });

  it('the rules that count enclosing `!`, checked when the tree is written', () => {
    const cases: [MatchExpr, RegExp | undefined][] = [
      [match.not(match.field('ip4')), /nominal predicate ip4 may only be tested positively/],
      [match.not(match.not(match.field('ip4'))), undefined],
      [match.not(match.and(match.field('ip4'), match.field('tcp'))), /ip4 may only be tested/],
      [match.not(match.field('ip4.mcast')), undefined],
      [match.eq('ip4', 0), /tested positively/],
      [match.not(match.eq('ip4', 0)), undefined],
      [match.ne('ip4', 0), undefined],
      [
        match.ne('ip.proto', 6),
        /may only be tested for equality: == \(or != under an odd number of !\), here !=/,
      ],
      [match.not(match.eq('ip.proto', 6)), /here == under !/],
      [match.not(match.ne('ip.proto', 6)), undefined],
      [match.ne('inport', 'a'), /string field inport may only be tested for equality/],
      [match.not(match.ne('inport', ['a', 'b'])), undefined],
      [match.ne('tcp.dst', 22), undefined],
      [match.field('reg0'), /needs an explicit != 0/],
      [match.not(match.field('reg0')), undefined],
      [match.field('reg0[3]'), undefined],
      [match.not(match.field('eth.type')), undefined],
    ];
    for (const [e, error] of cases) {
      if (error === undefined) expect(() => formatMatch(e), JSON.stringify(e)).not.toThrow();
      else expect(() => formatMatch(e), JSON.stringify(e)).toThrow(error);
      // The parser applies the same rules to the same text.
      const text = formatExpr(e);
      if (error === undefined) expect(() => parseMatch(text), text).not.toThrow();
      else expect(() => parseMatch(text), text).toThrow(error);
    }
    expect(() => match.field(f('inport'))).toThrow(/a string field cannot stand alone/);
  });

  it('existing callers’ matches still pass', () => {
    expect(
      formatMatch(match.and(match.outport(match.portGroup('pg_web')), match.eq('tcp.dst', 443))),
    ).toBe('outport == @pg_web && tcp.dst == 443');
    expect(formatMatch(match.and(match.inport('lrp0'), match.field('ip6')))).toBe(
      'inport == "lrp0" && ip6',
    );
    expect(formatMatch(match.field('ip4'))).toBe('ip4');
    expect(() =>
      parseMatch('ip4.src == 10.0.1.0/24 && ip4.dst == 8.8.8.8 && ct.est && !ct.new'),
    ).not.toThrow();
  });
});

/** The text of a tree without the checks (to feed the parser the same match). */
function formatExpr(e: MatchExpr): string {
  switch (e.type) {
    case 'and':
    case 'or':
      return e.terms
        .map((t) => (t.type === 'and' || t.type === 'or' ? `(${formatExpr(t)})` : formatExpr(t)))
        .join(e.type === 'and' ? ' && ' : ' || ');
    case 'not':
      return e.term.type === 'field' ? `!${formatExpr(e.term)}` : `!(${formatExpr(e.term)})`;
    case 'bool':
      return e.value ? '1' : '0';
    case 'field':
      return e.field;
    case 'compare': {
      const one = (v: unknown) => {
        const x = v as { type: string; text?: string; value?: string; name?: string };
        return x.type === 'string'
          ? JSON.stringify(x.value)
          : x.type === 'constant'
            ? x.text!
            : `$${x.name}`;
      };
      const rhs = Array.isArray(e.value) ? `{${e.value.map(one).join(', ')}}` : one(e.value);
      return `${e.field} ${e.op} ${rhs}`;
    }
  }
}

/**
 * The match builder's output for typical ACL and policy matches, and the
 * parser on OVN syntax the builder does not produce (comments, sets
 * without commas, masks, constants in every format).
 */

import { describe, expect, it } from 'vitest';
import {
  formatMatch,
  MatchSyntaxError,
  match,
  parseMatch,
  quoteMatchString,
} from '../../src/nb/index.js';

describe('formatMatch', () => {
  it('writes typical ACL matches', () => {
    expect(
      formatMatch(
        match.and(
          match.outport(match.portGroup('pg_web')),
          match.field('ip4'),
          match.eq('tcp.dst', [80, 443]),
        ),
      ),
    ).toBe('outport == @pg_web && ip4 && tcp.dst == {80, 443}');
    expect(
      formatMatch(
        match.and(
          match.inport('web-1'),
          match.ip4Src(match.addressSet('allowed')),
          match.not(match.ip4Dst('10.0.0.0/8')),
        ),
      ),
    ).toBe('inport == "web-1" && ip4.src == $allowed && !(ip4.dst == 10.0.0.0/8)');
    expect(
      formatMatch(
        match.or(match.and(match.field('tcp'), match.eq('tcp.dst', 22)), match.field('icmp4')),
      ),
    ).toBe('(tcp && tcp.dst == 22) || icmp4');
    expect(
      formatMatch(match.and(match.field('ip6'), match.ip6Src(['FD00::0001', 'fd00::/64']))),
    ).toBe('ip6 && ip6.src == {fd00::1, fd00::/64}');
    expect(formatMatch(match.eq('eth.src', '0A:0:0:0:0:1/ff:ff:ff:0:0:0'))).toBe(
      'eth.src == 0a:00:00:00:00:01/ff:ff:ff:00:00:00',
    );
    expect(formatMatch(match.compare('tcp.dst', '>=', match.int('0x400')))).toBe(
      'tcp.dst >= 0x400',
    );
    expect(formatMatch(match.not(match.not(match.field('ip4'))))).toBe('!(!ip4)');
    expect(formatMatch(match.and())).toBe('1');
    expect(formatMatch(match.or())).toBe('0');
    expect(formatMatch(match.and(match.field('ip4')))).toBe('ip4');
  });

  it('quotes strings with JSON escapes and \\u for everything outside printable ASCII', () => {
    expect(quoteMatchString('plain-name_1.2')).toBe('"plain-name_1.2"');
    expect(quoteMatchString('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quoteMatchString('\n\r\t\b\f\u000b\u007f')).toBe('"\\n\\r\\t\\b\\f\\u000b\\u007f"');
    expect(quoteMatchString('é😀\u2028')).toBe('"\\u00e9\\ud83d\\ude00\\u2028"');
    expect(JSON.parse(quoteMatchString('é😀 "x" \\'))).toBe('é😀 "x" \\');
  });
});

describe('parseMatch', () => {
  it('reads OVN syntax beyond what the builder writes', () => {
    expect(parseMatch('ip4 // all IPv4\n && /* still */ tcp')).toEqual({
      type: 'and',
      terms: [
        { type: 'field', field: 'ip4' },
        { type: 'field', field: 'tcp' },
      ],
    });
    expect(parseMatch('tcp.dst == {80 443, 8080}')).toEqual({
      type: 'compare',
      field: 'tcp.dst',
      op: '==',
      value: [
        { type: 'constant', text: '80' },
        { type: 'constant', text: '443' },
        { type: 'constant', text: '8080' },
      ],
    });
    expect(parseMatch('reg0[1..3] != 0/0x6')).toMatchObject({
      field: 'reg0[1..3]',
      op: '!=',
      value: { text: '0/0x6' },
    });
    expect(parseMatch('ip6.dst == ::ffff:10.0.0.1')).toMatchObject({
      value: { type: 'constant', text: '::ffff:10.0.0.1' },
    });
    expect(parseMatch('eth.dst == ab:cd:ef:00:00:01/ff:ff:ff:ff:ff:00')).toMatchObject({
      value: { text: 'ab:cd:ef:00:00:01/ff:ff:ff:ff:ff:00' },
    });
    expect(parseMatch('inport == "\\u00e9\\/"')).toMatchObject({
      value: { type: 'string', value: 'é/' },
    });
    expect(parseMatch('!ct.new')).toEqual({
      type: 'not',
      term: { type: 'field', field: 'ct.new' },
    });
    expect(parseMatch('!(ip4.src == 1.2.3.4)')).toEqual({
      type: 'not',
      term: {
        type: 'compare',
        field: 'ip4.src',
        op: '==',
        value: { type: 'constant', text: '1.2.3.4' },
      },
    });
    expect(parseMatch('((ip4))')).toEqual({ type: 'field', field: 'ip4' });
    expect(parseMatch('outport == @pg.1 && ip4.src == $as_1')).toMatchObject({
      terms: [
        { value: { type: 'portGroup', name: 'pg.1' } },
        { value: { type: 'addressSet', name: 'as_1' } },
      ],
    });
  });

  it('keeps parenthesized groups as written (no flattening across parentheses)', () => {
    const text = 'ip4 && (tcp && ct.new)';
    expect(parseMatch(text)).toEqual({
      type: 'and',
      terms: [
        { type: 'field', field: 'ip4' },
        {
          type: 'and',
          terms: [
            { type: 'field', field: 'tcp' },
            { type: 'field', field: 'ct.new' },
          ],
        },
      ],
    });
    expect(formatMatch(parseMatch(text))).toBe(text);
  });

  it('takes after `!` only a field, a constant or a parenthesized expression, as OVN does', () => {
    for (const text of ['!ip4.src == 1.2.3.4', '!!ip4.mcast', '!tcp.dst < 5']) {
      expect(() => parseMatch(text), text).toThrow(MatchSyntaxError);
    }
    expect(parseMatch('!(!ip4.mcast)')).toEqual({
      type: 'not',
      term: { type: 'not', term: { type: 'field', field: 'ip4.mcast' } },
    });
  });

  it('rejects an empty set, as OVN does', () => {
    expect(() => parseMatch('tcp.dst == {}')).toThrow(MatchSyntaxError);
    expect(parseMatch('tcp.dst == {80,}')).toMatchObject({ value: [{ text: '80' }] });
  });
});

/**
 * Address helpers: strict IP and MAC parsing, the canonical forms ovn-nbctl
 * stores, logical switch port addresses and port security entries, load
 * balancer endpoints.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatLspAddress,
  formatPortSecurity,
  InvalidAddressError,
  isMac,
  lspAddress,
  lspAddressIps,
  normalizeIp,
  normalizeMac,
  normalizePrefix,
  parseIp,
  parseLbEndpoint,
  parseLspAddress,
  parsePortSecurity,
  parsePrefix,
} from '../../src/nb/index.js';

describe('IP addresses', () => {
  it('accepts dotted quads without leading zeros, and RFC 4291 IPv6 without zone', () => {
    for (const ok of [
      '0.0.0.0',
      '10.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fd00::1',
      '2001:db8:0:0:0:0:0:1',
      '::ffff:10.0.0.1',
      'FE80::A',
    ]) {
      expect(parseIp(ok), ok).toBeDefined();
    }
    for (const bad of [
      '',
      '10.0.0',
      '10.0.0.256',
      '10.0.0.01',
      '1.2.3.4.5',
      ' 10.0.0.1',
      'fe80::1%eth0',
      ':::',
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '::g',
      '1.2.3.4::',
    ]) {
      expect(parseIp(bad), bad).toBeUndefined();
    }
  });

  it('writes IPv6 the way inet_ntop does', () => {
    expect(normalizeIp('2001:0db8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(normalizeIp('FD00:0:0:1:0:0:0:0')).toBe('fd00:0:0:1::');
    expect(normalizeIp('1:0:0:2:0:0:0:3')).toBe('1:0:0:2::3');
    expect(normalizeIp('1:0:0:0:1:0:0:0')).toBe('1::1:0:0:0');
    expect(normalizeIp('1:0:1:0:1:0:1:0')).toBe('1:0:1:0:1:0:1:0');
    expect(normalizeIp('::ffff:1.2.3.4')).toBe('::ffff:1.2.3.4');
    expect(normalizeIp('::1.2.3.4')).toBe('::1.2.3.4');
    expect(normalizeIp('0:0:0:0:0:0:0:0')).toBe('::');
  });

  it('normalizes prefixes as ovn-nbctl stores them', () => {
    expect(normalizePrefix('10.0.0.7/24')).toBe('10.0.0.0/24');
    expect(normalizePrefix('10.0.0.7/32')).toBe('10.0.0.7');
    expect(normalizePrefix('10.0.0.7')).toBe('10.0.0.7');
    expect(normalizePrefix('0.0.0.0/0')).toBe('0.0.0.0/0');
    expect(normalizePrefix('fd00::7/64')).toBe('fd00::/64');
    expect(normalizePrefix('fd00::7/128')).toBe('fd00::7');
    expect(parsePrefix('10.0.0.1/24')).toMatchObject({
      family: 4,
      length: 24,
      hasLength: true,
      text: '10.0.0.1',
    });
    for (const bad of ['10.0.0.0/33', '10.0.0.0/', '10.0.0.0/024', 'fd00::/129', '/24']) {
      expect(() => normalizePrefix(bad), bad).toThrow(InvalidAddressError);
    }
  });

  it('round-trips every address through its canonical form (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (ip) => {
        const p = parseIp(ip);
        expect(p).toBeDefined();
        expect(parseIp(p!.text)).toEqual(p);
      }),
      { numRuns: 2000 },
    );
  });

  it('family checks name the expected family', () => {
    expect(() => normalizeIp('fd00::1', 'nexthop', 4)).toThrow('an IPv6 address, IPv4 expected');
    expect(() => normalizePrefix('10.0.0.0/8', 'prefix', 6)).toThrow(
      'an IPv4 prefix, IPv6 expected',
    );
  });
});

describe('MAC addresses', () => {
  it('accepts one or two hex digits per group', () => {
    expect(isMac('00:00:00:00:00:01')).toBe(true);
    expect(isMac('0:0:0:0:0:1')).toBe(true);
    expect(isMac('0A:bC:00:00:00:01')).toBe(true);
    for (const bad of [
      '00:00:00:00:00',
      '00:00:00:00:00:00:00',
      '000:00:00:00:00:01',
      '00-00-00-00-00-01',
      'zz:00:00:00:00:01',
      '',
    ]) {
      expect(isMac(bad), bad).toBe(false);
    }
    expect(normalizeMac('A:b:0:0:0:1')).toBe('0a:0b:00:00:00:01');
  });
});

describe('logical switch port addresses', () => {
  it('parses every form', () => {
    expect(parseLspAddress('00:00:00:00:00:01 10.0.0.5 fd00::5')).toEqual({
      kind: 'static',
      mac: '00:00:00:00:00:01',
      ips: ['10.0.0.5', 'fd00::5'],
    });
    expect(parseLspAddress('00:00:00:00:00:01')).toEqual({
      kind: 'static',
      mac: '00:00:00:00:00:01',
      ips: [],
    });
    expect(parseLspAddress('dynamic')).toEqual({ kind: 'dynamic' });
    expect(parseLspAddress('dynamic 10.0.0.5')).toEqual({
      kind: 'dynamic',
      ipv4: '10.0.0.5',
      ipv6: undefined,
    });
    expect(parseLspAddress('dynamic fd00::5')).toEqual({
      kind: 'dynamic',
      ipv4: undefined,
      ipv6: 'fd00::5',
    });
    expect(parseLspAddress('dynamic 10.0.0.5 fd00::5')).toEqual({
      kind: 'dynamic',
      ipv4: '10.0.0.5',
      ipv6: 'fd00::5',
    });
    expect(parseLspAddress('00:00:00:00:00:01 dynamic')).toEqual({
      kind: 'dynamic',
      mac: '00:00:00:00:00:01',
    });
    expect(parseLspAddress('router')).toEqual({ kind: 'router' });
    expect(parseLspAddress('unknown')).toEqual({ kind: 'unknown' });
  });

  it('refuses malformed ones', () => {
    for (const bad of [
      '',
      'dynamic 10.0.0.5 10.0.0.6',
      'dynamic fd00::5 10.0.0.5',
      'dynamic x',
      '10.0.0.5',
      'router 10.0.0.1',
      '00:00:00:00:00:01 10.0.0.x',
    ]) {
      expect(() => parseLspAddress(bad), bad).toThrow(InvalidAddressError);
    }
  });

  it('builds them with the typed helpers, and reads the IPs they assign', () => {
    expect(formatLspAddress(lspAddress.static('00:00:00:00:00:01', '10.0.0.5', 'fd00::5'))).toBe(
      '00:00:00:00:00:01 10.0.0.5 fd00::5',
    );
    expect(formatLspAddress(lspAddress.dynamic({ ipv4: '10.0.0.5' }))).toBe('dynamic 10.0.0.5');
    expect(formatLspAddress(lspAddress.dynamic({ mac: '00:00:00:00:00:02' }))).toBe(
      '00:00:00:00:00:02 dynamic',
    );
    expect(formatLspAddress(lspAddress.router())).toBe('router');
    expect(formatLspAddress(lspAddress.unknown())).toBe('unknown');
    expect(() =>
      formatLspAddress(lspAddress.dynamic({ mac: '00:00:00:00:00:02', ipv4: '10.0.0.5' })),
    ).toThrow(InvalidAddressError);
    expect(lspAddressIps(parseLspAddress('00:00:00:00:00:01 10.0.0.5/24 FD00::5'))).toEqual([
      { family: 4, text: '10.0.0.5' },
      { family: 6, text: 'fd00::5' },
    ]);
  });

  it('round-trips generated addresses (property)', () => {
    const mac = fc
      .array(fc.nat(255), { minLength: 6, maxLength: 6 })
      .map((b) => b.map((x) => x.toString(16).padStart(2, '0')).join(':'));
    fc.assert(
      fc.property(mac, fc.array(fc.oneof(fc.ipV4(), fc.ipV6()), { maxLength: 4 }), (m, ips) => {
        const text = formatLspAddress(lspAddress.static(m, ...ips));
        expect(parseLspAddress(text)).toEqual({ kind: 'static', mac: m, ips });
      }),
      { numRuns: 500 },
    );
  });

  it('port security entries take prefixes and VIPs', () => {
    expect(parsePortSecurity('00:00:00:00:00:01 10.0.0.5/24 10.0.0.100')).toEqual({
      mac: '00:00:00:00:00:01',
      ips: ['10.0.0.5/24', '10.0.0.100'],
    });
    expect(formatPortSecurity({ mac: '00:00:00:00:00:01', ips: ['fd00::/64'] })).toBe(
      '00:00:00:00:00:01 fd00::/64',
    );
    expect(() => parsePortSecurity('10.0.0.5 00:00:00:00:00:01')).toThrow(InvalidAddressError);
  });
});

describe('load balancer endpoints', () => {
  it('parses and normalizes IP, IP:PORT and [IPv6]:PORT', () => {
    expect(parseLbEndpoint('10.0.0.10:80')).toEqual({
      family: 4,
      ip: '10.0.0.10',
      port: 80,
      text: '10.0.0.10:80',
    });
    expect(parseLbEndpoint('10.0.0.10')).toEqual({
      family: 4,
      ip: '10.0.0.10',
      port: undefined,
      text: '10.0.0.10',
    });
    expect(parseLbEndpoint('[FD00:0::10]:443')).toMatchObject({
      family: 6,
      port: 443,
      text: '[fd00::10]:443',
    });
    expect(parseLbEndpoint('fd00:0::10')).toMatchObject({
      family: 6,
      port: undefined,
      text: 'fd00::10',
    });
    for (const bad of [
      '10.0.0.10:0',
      '10.0.0.10:65536',
      'fd00::10:80x',
      '[10.0.0.1]:80',
      'host:80',
      '[fd00::1]:',
    ]) {
      expect(parseLbEndpoint(bad), bad).toBeUndefined();
    }
  });
});

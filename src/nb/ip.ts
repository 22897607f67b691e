/**
 * IP addresses and prefixes as OVN writes them: strict parsing of IPv4
 * (dotted quad, no leading zeros) and IPv6 (RFC 4291 text, optionally with a
 * trailing dotted quad, no zone index), prefixes `addr/len`, and the
 * canonical forms `ovn-nbctl` stores (`normalizePrefix` masks the host bits
 * and drops `/32` and `/128`; IPv6 is written the way `inet_ntop` does).
 *
 * ```ts
 * normalizeIp('2001:0db8:0:0::0001');   // '2001:db8::1'
 * normalizePrefix('10.0.0.7/24');        // '10.0.0.0/24'
 * normalizePrefix('10.0.0.7/32');        // '10.0.0.7'
 * ```
 * @module
 */

import { parseIpv4Bytes, parseIpv6Bytes } from '../ovsdb/transport/ip-bytes.js';
import { type AddressKind, InvalidAddressError } from './errors.js';

/** An address family. */
export type IpFamily = 4 | 6;

/** A parsed IP address. */
export interface ParsedIp {
  /** 4 or 6. */
  readonly family: IpFamily;
  /** The address bytes (4 or 16). */
  readonly bytes: readonly number[];
  /** The canonical text (`inet_ntop` form). */
  readonly text: string;
}

/** A parsed `addr` or `addr/len`. */
export interface ParsedPrefix extends ParsedIp {
  /** The prefix length (32 or 128 when none was written). */
  readonly length: number;
  /** True when the text had a `/len`. */
  readonly hasLength: boolean;
}

/** Write IPv6 bytes the way glibc's `inet_ntop` does (RFC 5952, with a dotted quad for `::a.b.c.d` and `::ffff:a.b.c.d`). */
export function formatIpv6(bytes: readonly number[]): string {
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  let bestBase = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) {
      bestBase = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) bestBase = -1;
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (bestBase !== -1 && i >= bestBase && i < bestBase + bestLen) {
      if (i === bestBase) out += ':';
      continue;
    }
    if (i !== 0) out += ':';
    if (i === 6 && bestBase === 0 && (bestLen === 6 || (bestLen === 5 && words[5] === 0xffff))) {
      out += `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`;
      break;
    }
    out += words[i]!.toString(16);
  }
  if (bestBase !== -1 && bestBase + bestLen === 8) out += ':';
  return out;
}

/**
 * Parse an IPv4 or IPv6 address (no prefix). Returns undefined when `s` is
 * not one.
 *
 * ```ts
 * parseIp('10.0.0.1');    // { family: 4, bytes: [10, 0, 0, 1], text: '10.0.0.1' }
 * parseIp('FD00::0:1');   // { family: 6, …, text: 'fd00::1' }
 * parseIp('10.0.0.01');   // undefined (leading zero)
 * ```
 */
export function parseIp(s: string): ParsedIp | undefined {
  if (typeof s !== 'string') return undefined;
  const v4 = parseIpv4Bytes(s);
  if (v4 !== undefined) return { family: 4, bytes: v4, text: v4.join('.') };
  if (!s.includes(':')) return undefined;
  const v6 = parseIpv6Bytes(s);
  if (v6 !== undefined) return { family: 6, bytes: v6, text: formatIpv6(v6) };
  return undefined;
}

/**
 * Parse `addr` or `addr/len` (a decimal length, 0..32 or 0..128). The host
 * bits may be set: `10.0.0.1/24` is a valid prefix (an interface address).
 */
export function parsePrefix(s: string): ParsedPrefix | undefined {
  if (typeof s !== 'string') return undefined;
  const slash = s.indexOf('/');
  const addr = parseIp(slash < 0 ? s : s.slice(0, slash));
  if (addr === undefined) return undefined;
  const max = addr.family === 4 ? 32 : 128;
  if (slash < 0) return { ...addr, length: max, hasLength: false };
  const lenText = s.slice(slash + 1);
  if (!/^(?:0|[1-9]\d{0,2})$/.test(lenText)) return undefined;
  const length = Number(lenText);
  if (length > max) return undefined;
  return { ...addr, length, hasLength: true };
}

/** The bytes of `bytes` with everything after the first `length` bits cleared. */
export function maskBytes(bytes: readonly number[], length: number): number[] {
  return bytes.map((b, i) => {
    const bits = Math.max(0, Math.min(8, length - i * 8));
    return bits === 0 ? 0 : b & ((0xff << (8 - bits)) & 0xff);
  });
}

function formatBytes(family: IpFamily, bytes: readonly number[]): string {
  return family === 4 ? bytes.join('.') : formatIpv6(bytes);
}

function kindOf(family: IpFamily | undefined, what: 'ip' | 'prefix'): AddressKind {
  if (what === 'ip') return family === 4 ? 'IPv4' : family === 6 ? 'IPv6' : 'IP';
  return family === 4 ? 'IPv4 CIDR' : family === 6 ? 'IPv6 CIDR' : 'IP or CIDR';
}

/**
 * The canonical text of an IP address (IPv6 compressed and lower-case).
 * @param family - require this family.
 * @param field - named in the error.
 * @throws InvalidAddressError when `s` is not an address (of `family`).
 */
export function normalizeIp(s: string, field?: string, family?: IpFamily): string {
  const ip = parseIp(s);
  if (ip === undefined) {
    throw new InvalidAddressError(kindOf(family, 'ip'), String(s), 'not an IP address', field);
  }
  if (family !== undefined && ip.family !== family) {
    throw new InvalidAddressError(
      kindOf(family, 'ip'),
      s,
      `an IPv${ip.family} address, IPv${family} expected`,
      field,
    );
  }
  return ip.text;
}

/**
 * Canonical prefix text, as `ovn-nbctl` stores route prefixes and NAT
 * networks: the host bits cleared, and a full-length prefix written as a
 * bare address.
 *
 * ```ts
 * normalizePrefix('10.0.0.7/24'); // '10.0.0.0/24'
 * normalizePrefix('10.0.0.7');    // '10.0.0.7'
 * normalizePrefix('fd00::7/128'); // 'fd00::7'
 * ```
 * @throws InvalidAddressError when `s` is not `addr[/len]` (of `family`).
 */
export function normalizePrefix(s: string, field?: string, family?: IpFamily): string {
  const p = parsePrefix(s);
  if (p === undefined) {
    throw new InvalidAddressError(
      kindOf(family, 'prefix'),
      String(s),
      'not an address or address/length',
      field,
    );
  }
  if (family !== undefined && p.family !== family) {
    throw new InvalidAddressError(
      kindOf(family, 'prefix'),
      s,
      `an IPv${p.family} prefix, IPv${family} expected`,
      field,
    );
  }
  const max = p.family === 4 ? 32 : 128;
  const net = formatBytes(p.family, maskBytes(p.bytes, p.length));
  return p.length === max ? net : `${net}/${p.length}`;
}

/**
 * Check an interface address with its prefix length (`10.0.0.1/24`), as
 * router port networks and DHCP `cidr`s are written; the text is returned as
 * given.
 * @param requireLength - the `/len` must be present (default true).
 * @throws InvalidAddressError when it is not one.
 */
export function checkCidr(s: string, field?: string, requireLength = true): ParsedPrefix {
  const p = parsePrefix(s);
  if (p === undefined || (requireLength && !p.hasLength)) {
    throw new InvalidAddressError(
      'CIDR',
      String(s),
      p === undefined ? 'not an address/length' : 'the /length is missing',
      field,
    );
  }
  return p;
}

/** True when prefix `net` (`addr/len`) contains address `ip` (same family). */
export function prefixContains(net: ParsedPrefix, ip: ParsedIp): boolean {
  if (net.family !== ip.family) return false;
  const a = maskBytes(net.bytes, net.length);
  const b = maskBytes(ip.bytes, net.length);
  return a.every((x, i) => x === b[i]);
}

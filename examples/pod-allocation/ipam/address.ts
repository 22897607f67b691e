/**
 * IP addresses as numbers: strict parsing (dotted-quad IPv4, IPv6 without a
 * zone), conversion to and from `bigint`, canonical text (RFC 5952 for IPv6),
 * and CIDR parsing. Parsing is done by `ipaddr.js`; the arithmetic is ours.
 * @module
 */

import ipaddr from 'ipaddr.js';

/** 4 or 6. */
export type Family = 4 | 6;

/** A parsed address: its family and its value as an unsigned integer. */
export interface Address {
  readonly family: Family;
  readonly value: bigint;
}

/** A parsed CIDR: the network address (host bits cleared) and the prefix length. */
export interface Cidr {
  readonly family: Family;
  /** The network address as an integer. */
  readonly network: bigint;
  /** The prefix length. */
  readonly prefix: number;
  /** Address width: 32 or 128. */
  readonly bits: number;
  /** Number of addresses in the range (2^(bits − prefix)). */
  readonly size: bigint;
  /** The canonical text, `network/prefix`. */
  readonly text: string;
}

function fromBytes(bytes: readonly number[]): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

/**
 * Parse an IP address strictly: IPv4 only as four decimal parts, IPv6 without
 * a zone; returns undefined for anything else.
 */
export function parseAddress(text: string): Address | undefined {
  if (typeof text !== 'string') return undefined;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) {
    return { family: 4, value: fromBytes(ipaddr.IPv4.parse(text).toByteArray()) };
  }
  if (text.includes(':') && ipaddr.IPv6.isValid(text)) {
    const ip = ipaddr.IPv6.parse(text);
    if (ip.zoneId !== undefined) return undefined;
    return { family: 6, value: fromBytes(ip.toByteArray()) };
  }
  return undefined;
}

/** The canonical text of an address (dotted quad, or RFC 5952 for IPv6). */
export function formatAddress(address: Address): string {
  const n = address.family === 4 ? 4 : 16;
  const bytes: number[] = new Array(n);
  let v = address.value;
  for (let i = n - 1; i >= 0; i--) {
    bytes[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return ipaddr.fromByteArray(bytes).toString();
}

/** The canonical text of an address given as text, or undefined when it is not one. */
export function canonicalAddress(text: string): string | undefined {
  const a = parseAddress(text);
  return a === undefined ? undefined : formatAddress(a);
}

/**
 * Parse `addr/len` into a {@link Cidr} (host bits cleared); undefined when
 * it is not a CIDR.
 */
export function parseCidr(text: string): Cidr | undefined {
  if (typeof text !== 'string') return undefined;
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const addr = parseAddress(text.slice(0, slash));
  const lenText = text.slice(slash + 1);
  if (addr === undefined || !/^\d{1,3}$/.test(lenText)) return undefined;
  const prefix = Number(lenText);
  const bits = addr.family === 4 ? 32 : 128;
  if (prefix > bits) return undefined;
  const hostBits = BigInt(bits - prefix);
  const network = (addr.value >> hostBits) << hostBits;
  return {
    family: addr.family,
    network,
    prefix,
    bits,
    size: 1n << hostBits,
    text: `${formatAddress({ family: addr.family, value: network })}/${prefix}`,
  };
}

/** True when `address` lies in `cidr`. */
export function cidrContains(cidr: Cidr, address: Address): boolean {
  return (
    address.family === cidr.family &&
    address.value >= cidr.network &&
    address.value < cidr.network + cidr.size
  );
}

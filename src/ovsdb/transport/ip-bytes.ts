/**
 * IP address text to bytes, strictly: IPv4 as a dotted quad without leading
 * zeros, IPv6 as RFC 4291 text, optionally ending in a dotted quad, without
 * a zone index. Used by the Northbound DSL's address checks and by the
 * kernel-state reader of TCP connections.
 * @module
 */

const DECIMAL_OCTET = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** The 4 bytes of a dotted quad (no leading zeros), or undefined. */
export function parseIpv4Bytes(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!DECIMAL_OCTET.test(p)) return undefined;
    out.push(Number(p));
  }
  return out;
}

/**
 * The 16 bytes of an IPv6 address (RFC 4291 text, optionally ending in a
 * dotted quad, no zone index), or undefined.
 */
export function parseIpv6Bytes(s: string): number[] | undefined {
  if (s.length === 0 || s.length > 45 || !/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (text: string): number[] | undefined => {
    if (text === '') return [];
    const out: number[] = [];
    const parts = text.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (p.includes('.')) {
        if (i !== parts.length - 1) return undefined;
        const v4 = parseIpv4Bytes(p);
        if (v4 === undefined) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!HEX_GROUP.test(p)) return undefined;
        out.push(Number.parseInt(p, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  if (head === undefined) return undefined;
  let words: number[];
  if (halves.length === 2) {
    const tail = groups(halves[1]!);
    if (tail === undefined) return undefined;
    // A dotted quad may only end the address.
    if (halves[0]!.includes('.')) return undefined;
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return undefined;
    words = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    words = head;
  }
  if (words.length !== 8) return undefined;
  const bytes: number[] = [];
  for (const w of words) bytes.push(w >> 8, w & 0xff);
  return bytes;
}

/**
 * The strings of `Logical_Switch_Port.addresses` and `port_security`, typed:
 * build them with {@link lspAddress}, read them with {@link parseLspAddress}.
 *
 * | string                               | {@link LspAddress}                                   |
 * | ------------------------------------ | ---------------------------------------------------- |
 * | `00:00:00:00:00:01 10.0.0.5 fd00::5` | `{ kind: 'static', mac, ips: ['10.0.0.5', 'fd00::5'] }` |
 * | `dynamic`                            | `{ kind: 'dynamic' }`                                 |
 * | `dynamic 10.0.0.5`                   | `{ kind: 'dynamic', ipv4: '10.0.0.5' }`               |
 * | `00:00:00:00:00:01 dynamic`          | `{ kind: 'dynamic', mac: '00:00:00:00:00:01' }`       |
 * | `router`                             | `{ kind: 'router' }`                                  |
 * | `unknown`                            | `{ kind: 'unknown' }`                                 |
 *
 * Port security entries have the static form, optionally with prefixes:
 * `00:00:00:00:00:01 10.0.0.5/24 10.0.0.100` (the last one a VIP of a virtual port).
 * @module
 */

import { InvalidAddressError } from './errors.js';
import { type IpFamily, parseIp, parsePrefix } from './ip.js';
import { isMac } from './mac.js';

/** One element of `Logical_Switch_Port.addresses`, typed. */
export type LspAddress =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'router' }
  | {
      readonly kind: 'dynamic';
      /** A fixed MAC, with dynamic IPs (`MAC dynamic`). */
      readonly mac?: string | undefined;
      /** A requested IPv4 address (`dynamic IP`). */
      readonly ipv4?: string | undefined;
      /** A requested IPv6 address (`dynamic IPv6`). */
      readonly ipv6?: string | undefined;
    }
  | {
      readonly kind: 'static';
      /** The Ethernet address. */
      readonly mac: string;
      /** IPv4 and IPv6 addresses (optionally `addr/len`), in the given order. */
      readonly ips: readonly string[];
    };

/** A port security entry: a MAC and the addresses (or prefixes) the port may use. */
export interface PortSecurityEntry {
  readonly mac: string;
  readonly ips: readonly string[];
}

/**
 * Builders of {@link LspAddress} values.
 *
 * ```ts
 * lspAddress.static('00:00:00:00:00:01', '10.0.0.5'); // "00:00:00:00:00:01 10.0.0.5"
 * lspAddress.dynamic({ ipv4: '10.0.0.5' });           // "dynamic 10.0.0.5"
 * lspAddress.router();                                 // "router"
 * ```
 */
export const lspAddress = {
  /** `MAC [IP...]`. */
  static(mac: string, ...ips: string[]): LspAddress {
    return { kind: 'static', mac, ips };
  },
  /** `dynamic`, `dynamic IP [IPv6]` or `MAC dynamic`. */
  dynamic(options: { mac?: string; ipv4?: string; ipv6?: string } = {}): LspAddress {
    return { kind: 'dynamic', mac: options.mac, ipv4: options.ipv4, ipv6: options.ipv6 };
  },
  /** `router`: the addresses of the peer router port (type `router` ports only). */
  router(): LspAddress {
    return { kind: 'router' };
  },
  /** `unknown`: the port also receives frames for unknown MACs. */
  unknown(): LspAddress {
    return { kind: 'unknown' };
  },
} as const;

const FIELD = 'Logical_Switch_Port.addresses';

function splitWords(s: string): string[] {
  return s.split(' ').filter((w) => w !== '');
}

function checkIps(
  words: readonly string[],
  original: string,
  kind: 'logical switch port address' | 'port security entry',
  field: string,
): string[] {
  for (const w of words) {
    if (parsePrefix(w) === undefined) {
      throw new InvalidAddressError(kind, original, `bad IP address ${JSON.stringify(w)}`, field);
    }
  }
  return [...words];
}

/**
 * Parse one element of `addresses`.
 *
 * ```ts
 * parseLspAddress('00:00:00:00:00:01 10.0.0.5');
 * // { kind: 'static', mac: '00:00:00:00:00:01', ips: ['10.0.0.5'] }
 * ```
 * @throws InvalidAddressError for anything else (a bad MAC, a bad IP, an IP
 *   before the MAC, more than one IPv4 or IPv6 after `dynamic`, …).
 */
export function parseLspAddress(s: string, field = FIELD): LspAddress {
  if (typeof s !== 'string') {
    throw new InvalidAddressError('logical switch port address', String(s), 'not a string', field);
  }
  const words = splitWords(s);
  const kind = 'logical switch port address';
  if (words.length === 0) throw new InvalidAddressError(kind, s, 'empty', field);
  const first = words[0]!;
  if (words.length === 1 && (first === 'unknown' || first === 'router' || first === 'dynamic')) {
    return { kind: first };
  }
  if (first === 'dynamic') {
    let ipv4: string | undefined;
    let ipv6: string | undefined;
    for (const w of words.slice(1)) {
      const ip = parseIp(w);
      if (ip === undefined)
        throw new InvalidAddressError(kind, s, `bad IP address ${JSON.stringify(w)}`, field);
      if (ip.family === 4) {
        if (ipv4 !== undefined)
          throw new InvalidAddressError(
            kind,
            s,
            'more than one IPv4 address after "dynamic"',
            field,
          );
        ipv4 = w;
      } else {
        if (ipv6 !== undefined)
          throw new InvalidAddressError(
            kind,
            s,
            'more than one IPv6 address after "dynamic"',
            field,
          );
        ipv6 = w;
      }
    }
    if (words.length === 3 && ipv4 !== words[1]) {
      throw new InvalidAddressError(
        kind,
        s,
        'after "dynamic", the IPv4 address comes before the IPv6 address',
        field,
      );
    }
    return { kind: 'dynamic', ipv4, ipv6 };
  }
  if (!isMac(first)) {
    const hint =
      parseIp(first) !== undefined
        ? ' (the Ethernet address must come before the IP addresses)'
        : '';
    throw new InvalidAddressError(kind, s, `bad MAC ${JSON.stringify(first)}${hint}`, field);
  }
  if (words.length === 2 && words[1] === 'dynamic') return { kind: 'dynamic', mac: first };
  return { kind: 'static', mac: first, ips: checkIps(words.slice(1), s, kind, field) };
}

/**
 * Write an {@link LspAddress} (or check and return a string) as stored in
 * `addresses`.
 * @throws InvalidAddressError when it is invalid.
 */
export function formatLspAddress(a: LspAddress | string, field = FIELD): string {
  if (typeof a === 'string') {
    parseLspAddress(a, field);
    return a;
  }
  let text: string;
  switch (a.kind) {
    case 'unknown':
    case 'router':
      return a.kind;
    case 'dynamic':
      text =
        a.mac !== undefined
          ? `${a.mac} dynamic`
          : ['dynamic', a.ipv4, a.ipv6].filter((x): x is string => x !== undefined).join(' ');
      break;
    case 'static':
      text = [a.mac, ...a.ips].join(' ');
      break;
    default:
      throw new InvalidAddressError(
        'logical switch port address',
        JSON.stringify(a),
        'unknown kind',
        field,
      );
  }
  const parsed = parseLspAddress(text, field);
  if (
    a.kind === 'dynamic' &&
    a.mac !== undefined &&
    (a.ipv4 !== undefined || a.ipv6 !== undefined)
  ) {
    throw new InvalidAddressError(
      'logical switch port address',
      text,
      '"MAC dynamic" takes no IP addresses',
      field,
    );
  }
  if (parsed.kind !== a.kind) {
    throw new InvalidAddressError(
      'logical switch port address',
      text,
      `does not read back as ${a.kind}`,
      field,
    );
  }
  return text;
}

/**
 * Parse a port security entry: `MAC [IP[/len] ...]`.
 * @throws InvalidAddressError when it is not one.
 */
export function parsePortSecurity(
  s: string,
  field = 'Logical_Switch_Port.port_security',
): PortSecurityEntry {
  const kind = 'port security entry';
  if (typeof s !== 'string') throw new InvalidAddressError(kind, String(s), 'not a string', field);
  const words = splitWords(s);
  if (words.length === 0) throw new InvalidAddressError(kind, s, 'empty', field);
  if (!isMac(words[0]!)) {
    throw new InvalidAddressError(kind, s, `bad MAC ${JSON.stringify(words[0])}`, field);
  }
  return { mac: words[0]!, ips: checkIps(words.slice(1), s, kind, field) };
}

/**
 * Write a port security entry (or check and return a string).
 * @throws InvalidAddressError when it is invalid.
 */
export function formatPortSecurity(
  e: PortSecurityEntry | string,
  field = 'Logical_Switch_Port.port_security',
): string {
  if (typeof e === 'string') {
    parsePortSecurity(e, field);
    return e;
  }
  const text = [e.mac, ...e.ips].join(' ');
  parsePortSecurity(text, field);
  return text;
}

/**
 * The IP addresses (without prefix lengths) an address element assigns:
 * the static IPs, or the requested ones of `dynamic`.
 */
export function lspAddressIps(
  a: LspAddress,
): { readonly family: IpFamily; readonly text: string }[] {
  const words =
    a.kind === 'static'
      ? a.ips
      : a.kind === 'dynamic'
        ? [a.ipv4, a.ipv6].filter((x): x is string => x !== undefined)
        : [];
  const out: { family: IpFamily; text: string }[] = [];
  for (const w of words) {
    const p = parsePrefix(w);
    if (p !== undefined) out.push({ family: p.family, text: p.text });
  }
  return out;
}

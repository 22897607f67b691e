/**
 * Ethernet (MAC) addresses: six colon-separated groups of one or two hex
 * digits, as OVN accepts them (`00:00:00:00:00:01`, `0:0:0:0:0:1`).
 * @module
 */

import { InvalidAddressError } from './errors.js';

const MAC = /^[0-9a-fA-F]{1,2}(?::[0-9a-fA-F]{1,2}){5}$/;

/** True when `s` is a MAC address. */
export function isMac(s: unknown): s is string {
  return typeof s === 'string' && MAC.test(s);
}

/**
 * The canonical form of a MAC address: lower case, two digits per group.
 *
 * ```ts
 * normalizeMac('0A:0:0:0:0:1'); // '0a:00:00:00:00:01'
 * ```
 * @throws InvalidAddressError when `s` is not a MAC address.
 */
export function normalizeMac(s: string, field?: string): string {
  checkMac(s, field);
  return s
    .split(':')
    .map((g) => g.toLowerCase().padStart(2, '0'))
    .join(':');
}

/**
 * Check that `s` is a MAC address and return it unchanged.
 * @throws InvalidAddressError when it is not.
 */
export function checkMac(s: string, field?: string): string {
  if (!isMac(s)) {
    throw new InvalidAddressError(
      'MAC',
      String(s),
      'expected six groups of hex digits separated by ":"',
      field,
    );
  }
  return s;
}

/**
 * MAC addresses for pods: a stable, locally administered unicast MAC derived
 * from the pod's key (so that a pod recreated with the same name gets the same
 * MAC), and parsing of an annotated MAC.
 * @module
 */

import { createHash } from 'node:crypto';

/**
 * A stable MAC for `key` (e.g. `ns/name`): the first six bytes of
 * SHA-256(key[#salt]) with the locally-administered bit set and the
 * multicast bit cleared. A different `salt` gives another MAC, for the rare
 * collision.
 *
 * ```ts
 * stableMac('default/web-0'); // '0a:…' style, e.g. '2e:5c:01:9a:44:f0'
 * ```
 */
export function stableMac(key: string, salt = 0): string {
  const digest = createHash('sha256')
    .update(salt === 0 ? key : `${key}#${salt}`)
    .digest();
  const bytes = [...digest.subarray(0, 6)];
  bytes[0] = ((bytes[0] ?? 0) | 0x02) & 0xfe;
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

const MAC_RE = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/i;

/**
 * The canonical (lower-case) form of a unicast MAC, or undefined when `text`
 * is not `xx:xx:xx:xx:xx:xx` or is a multicast address.
 */
export function parseUnicastMac(text: string): string | undefined {
  if (typeof text !== 'string' || !MAC_RE.test(text)) return undefined;
  const mac = text.toLowerCase();
  if ((Number.parseInt(mac.slice(0, 2), 16) & 0x01) !== 0) return undefined;
  return mac;
}

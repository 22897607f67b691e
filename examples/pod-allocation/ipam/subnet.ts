/**
 * Subnets: the definition a controller is configured with
 * ({@link SubnetSpec}: a name, one CIDR or a dual-stack pair
 * `"10.16.0.0/16,fd00:10:16::/64"`, gateways, excluded addresses) and its
 * parsed form ({@link Subnet}: one {@link AddressRange} per family).
 * @module
 */

import { type Family, formatAddress, parseAddress, parseCidr } from './address.js';
import { AddressRange, type ExcludedRange } from './address-range.js';
import { InvalidSubnetError } from './errors.js';

/** How a subnet is described in configuration. */
export interface SubnetSpec {
  /** The subnet's name; also the name of its logical switch. */
  readonly name: string;
  /** One CIDR, or an IPv4 and an IPv6 CIDR separated by a comma. */
  readonly cidr: string;
  /** The gateway(s), comma-separated, one per family (default: the first address of each CIDR). */
  readonly gateway?: string | undefined;
  /** Addresses (`10.16.0.5`) or inclusive ranges (`10.16.0.10..10.16.0.20`) never handed out. */
  readonly excludeIps?: readonly string[] | undefined;
}

/** A parsed subnet: its ranges, IPv4 first. */
export interface Subnet {
  readonly name: string;
  /** The spec it was parsed from. */
  readonly spec: SubnetSpec;
  /** One range per family, IPv4 first. */
  readonly ranges: readonly AddressRange[];
  /** The range of a family, if the subnet has that family. */
  range(family: Family): AddressRange | undefined;
}

function splitList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Parse and check a {@link SubnetSpec}.
 * @throws InvalidSubnetError naming what is wrong (bad CIDR, two CIDRs of one
 *   family, gateway outside its CIDR, exclude entry not parseable or outside).
 */
export function parseSubnet(spec: SubnetSpec): Subnet {
  const name = spec.name;
  if (typeof name !== 'string' || name === '') {
    throw new InvalidSubnetError(String(name), 'a subnet needs a non-empty name');
  }
  const cidrs = splitList(spec.cidr).map((c) => {
    const parsed = parseCidr(c);
    if (parsed === undefined)
      throw new InvalidSubnetError(name, `${JSON.stringify(c)} is not a CIDR`);
    if (parsed.size < 2n) throw new InvalidSubnetError(name, `${c} is too small`);
    return parsed;
  });
  if (
    cidrs.length === 0 ||
    cidrs.length > 2 ||
    (cidrs.length === 2 && cidrs[0]!.family === cidrs[1]!.family)
  ) {
    throw new InvalidSubnetError(
      name,
      `cidr ${JSON.stringify(spec.cidr)} must be one CIDR or one IPv4 and one IPv6 CIDR`,
    );
  }
  cidrs.sort((a, b) => a.family - b.family);
  const gateways = splitList(spec.gateway).map((g) => {
    const a = parseAddress(g);
    if (a === undefined)
      throw new InvalidSubnetError(name, `gateway ${JSON.stringify(g)} is not an IP address`);
    return a;
  });
  const excludes = (spec.excludeIps ?? []).map((entry) => {
    const [a, b, ...rest] = String(entry).split('..');
    const lo = parseAddress(a ?? '');
    const hi = b === undefined ? lo : parseAddress(b);
    if (
      rest.length > 0 ||
      lo === undefined ||
      hi === undefined ||
      lo.family !== hi.family ||
      hi.value < lo.value
    ) {
      throw new InvalidSubnetError(
        name,
        `excludeIps entry ${JSON.stringify(entry)} is not an address or a range a..b`,
      );
    }
    return { family: lo.family, range: { first: lo.value, last: hi.value, text: String(entry) } };
  });
  const ranges = cidrs.map((cidr) => {
    const gw = gateways.filter((g) => g.family === cidr.family);
    if (gw.length > 1) throw new InvalidSubnetError(name, `two IPv${cidr.family} gateways`);
    const gateway = gw[0]?.value ?? cidr.network + 1n;
    if (gateway < cidr.network || gateway >= cidr.network + cidr.size) {
      throw new InvalidSubnetError(
        name,
        `gateway ${formatAddress({ family: cidr.family, value: gateway })} is outside ${cidr.text}`,
      );
    }
    const mine: ExcludedRange[] = [];
    for (const e of excludes) {
      if (e.family !== cidr.family) continue;
      if (e.range.first < cidr.network || e.range.last >= cidr.network + cidr.size) {
        throw new InvalidSubnetError(
          name,
          `excludeIps entry ${e.range.text} is outside ${cidr.text}`,
        );
      }
      mine.push(e.range);
    }
    return new AddressRange(name, cidr, gateway, mine);
  });
  for (const g of gateways) {
    if (!ranges.some((r) => r.family === g.family)) {
      throw new InvalidSubnetError(name, `gateway ${formatAddress(g)} has no CIDR of its family`);
    }
  }
  for (const e of excludes) {
    if (!ranges.some((r) => r.family === e.family)) {
      throw new InvalidSubnetError(
        name,
        `excludeIps entry ${e.range.text} has no CIDR of its family`,
      );
    }
  }
  return {
    name,
    spec,
    ranges,
    range: (family) => ranges.find((r) => r.family === family),
  };
}

/**
 * {@link AddressRange}: the addresses of one family of one subnet: its CIDR,
 * gateway, reserved addresses (network, IPv4 broadcast), excluded ranges, and
 * which addresses are held by whom.
 *
 * Nothing is enumerated: the range keeps a map of used addresses (as
 * `bigint`), so an IPv6 /64 costs what its used addresses cost. `nextFree`
 * returns the lowest free address (scanning from a low-water mark over the
 * used set and jumping over excluded ranges); `randomFree` draws random
 * offsets and falls back to `nextFree` after a few misses.
 * @module
 */

import { randomFillSync } from 'node:crypto';
import { type Address, type Cidr, cidrContains, type Family, formatAddress } from './address.js';
import {
  AddressConflictError,
  ExcludedAddressError,
  OutsideCidrError,
  ReservedAddressError,
} from './errors.js';

/** An inclusive range of excluded addresses, with the text it came from. */
export interface ExcludedRange {
  readonly first: bigint;
  readonly last: bigint;
  readonly text: string;
}

/** How many random draws before falling back to a scan. */
const RANDOM_TRIES = 16;

function randomBelow(span: bigint): bigint {
  const words = new BigUint64Array(2);
  randomFillSync(words);
  const v = (words[0]! << 64n) | words[1]!;
  return v % span;
}

/** The addresses of one family of a subnet (see the module documentation). */
export class AddressRange {
  /** The family. */
  readonly family: Family;
  /** First and last assignable address. */
  readonly first: bigint;
  readonly last: bigint;
  private readonly used = new Map<bigint, string>();
  private readonly excluded: readonly ExcludedRange[];
  /** No free address is below this one. */
  private lowWater: bigint;

  /**
   * @param subnet - the subnet's name (for errors).
   * @param cidr - the range.
   * @param gateway - the gateway address (reserved).
   * @param excluded - excluded ranges (sorted or not).
   */
  constructor(
    readonly subnet: string,
    readonly cidr: Cidr,
    readonly gateway: bigint,
    excluded: readonly ExcludedRange[],
  ) {
    this.family = cidr.family;
    const smallV4 = cidr.family === 4 && cidr.prefix >= 31;
    this.first = smallV4 ? cidr.network : cidr.network + 1n;
    this.last = cidr.network + cidr.size - 1n - (cidr.family === 4 && !smallV4 ? 1n : 0n);
    this.excluded = [...excluded].sort((a, b) =>
      a.first < b.first ? -1 : a.first > b.first ? 1 : 0,
    );
    this.lowWater = this.first;
  }

  /** The gateway as text. */
  get gatewayText(): string {
    return formatAddress({ family: this.family, value: this.gateway });
  }

  /** How many addresses are held. */
  get usedCount(): number {
    return this.used.size;
  }

  /**
   * How many addresses can be assigned at all: the range without the
   * gateway and the excluded addresses (overlapping exclusions counted once).
   */
  get assignableCount(): bigint {
    let n = this.last - this.first + 1n;
    if (this.gateway >= this.first && this.gateway <= this.last) n -= 1n;
    let covered = this.first - 1n; // the highest address already taken off
    for (const r of this.excluded) {
      const from = r.first > covered + 1n ? r.first : covered + 1n;
      let to = r.last;
      if (to > this.last) to = this.last; // bigints: no Math.min
      if (to < from) continue;
      n -= to - from + 1n;
      if (this.gateway >= from && this.gateway <= to) n += 1n; // already taken off
      covered = to;
    }
    return n;
  }

  /** Who holds `value`, if anyone. */
  holder(value: bigint): string | undefined {
    return this.used.get(value);
  }

  /** The exclude entry covering `value`, if any. */
  exclusionOf(value: bigint): ExcludedRange | undefined {
    return this.excluded.find((r) => value >= r.first && value <= r.last);
  }

  /**
   * Check that `address` may be given to `owner`: in the CIDR, not reserved,
   * not excluded, not held by another owner.
   * @throws OutsideCidrError, ReservedAddressError, ExcludedAddressError, AddressConflictError.
   */
  check(address: Address, owner: string): void {
    this.validate(address);
    const holder = this.used.get(address.value);
    if (holder !== undefined && holder !== owner) {
      throw new AddressConflictError(this.subnet, formatAddress(address), holder);
    }
  }

  /**
   * Check that `address` may be handed out at all: in the CIDR, not
   * reserved, not excluded (whoever holds it).
   * @throws OutsideCidrError, ReservedAddressError, ExcludedAddressError.
   */
  validate(address: Address): void {
    const text = formatAddress(address);
    if (!cidrContains(this.cidr, address))
      throw new OutsideCidrError(this.subnet, text, this.cidr.text);
    if (address.value === this.gateway)
      throw new ReservedAddressError(this.subnet, text, 'gateway');
    if (address.value < this.first)
      throw new ReservedAddressError(this.subnet, text, 'network address');
    if (address.value > this.last)
      throw new ReservedAddressError(this.subnet, text, 'broadcast address');
    const ex = this.exclusionOf(address.value);
    if (ex !== undefined) throw new ExcludedAddressError(this.subnet, text, ex.text);
  }

  /** Mark `value` held by `owner` (no checks: call {@link check} first). */
  take(value: bigint, owner: string): void {
    this.used.set(value, owner);
  }

  /** Free `value` if `owner` holds it. */
  release(value: bigint, owner: string): void {
    if (this.used.get(value) !== owner) return;
    this.used.delete(value);
    if (value < this.lowWater) this.lowWater = value;
  }

  private free(value: bigint): boolean {
    return value !== this.gateway && !this.used.has(value) && this.exclusionOf(value) === undefined;
  }

  /** The lowest free address, or undefined when the range is full. */
  nextFree(): bigint | undefined {
    let v = this.lowWater;
    if (v < this.first) v = this.first;
    let e = 0;
    while (v <= this.last) {
      while (e < this.excluded.length && this.excluded[e]!.last < v) e++;
      const ex = this.excluded[e];
      if (ex !== undefined && v >= ex.first) {
        v = ex.last + 1n;
        continue;
      }
      if (v !== this.gateway && !this.used.has(v)) {
        this.lowWater = v;
        return v;
      }
      v++;
    }
    this.lowWater = v;
    return undefined;
  }

  /** A random free address, or undefined when the range is full. */
  randomFree(): bigint | undefined {
    const span = this.last - this.first + 1n;
    if (span <= 0n) return undefined;
    for (let i = 0; i < RANDOM_TRIES; i++) {
      const v = this.first + randomBelow(span);
      if (this.free(v)) return v;
    }
    return this.nextFree();
  }
}

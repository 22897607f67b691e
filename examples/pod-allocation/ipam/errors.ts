/**
 * IPAM errors. Each one names the subnet, the address or pool concerned and
 * why it was refused; `reason` is a short machine-readable code the
 * controller reports in its events.
 * @module
 */

/** Why an allocation was refused. */
export type IpamReason =
  | 'invalid-address'
  | 'outside-cidr'
  | 'excluded'
  | 'reserved'
  | 'conflict'
  | 'exhausted'
  | 'unknown-subnet'
  | 'invalid-subnet';

/** An allocation or configuration the IPAM refused. */
export class IpamError extends Error {
  /**
   * @param reason - the machine-readable reason.
   * @param subnet - the subnet concerned (or `''`).
   * @param message - what was wrong, in words.
   */
  constructor(
    readonly reason: IpamReason,
    readonly subnet: string,
    message: string,
  ) {
    super(subnet === '' ? message : `subnet ${subnet}: ${message}`);
    this.name = 'IpamError';
  }
}

/** A string that is not an IP (or MAC) address, or one of the wrong family. */
export class InvalidAddressError extends IpamError {
  /** @param value - the text given; `why` explains. */
  constructor(
    subnet: string,
    readonly value: string,
    why: string,
  ) {
    super('invalid-address', subnet, `${JSON.stringify(value)} ${why}`);
    this.name = 'InvalidAddressError';
  }
}

/** An address outside every CIDR of its family in the subnet. */
export class OutsideCidrError extends IpamError {
  /** @param ip - the address; `cidr` the subnet's CIDR of its family. */
  constructor(
    subnet: string,
    readonly ip: string,
    readonly cidr: string,
  ) {
    super('outside-cidr', subnet, `${ip} is outside ${cidr}`);
    this.name = 'OutsideCidrError';
  }
}

/** An address in the subnet's exclude list. */
export class ExcludedAddressError extends IpamError {
  /** @param ip - the address; `range` the exclude entry that covers it. */
  constructor(
    subnet: string,
    readonly ip: string,
    readonly range: string,
  ) {
    super('excluded', subnet, `${ip} is excluded (excludeIps entry ${range})`);
    this.name = 'ExcludedAddressError';
  }
}

/** The network, broadcast or gateway address. */
export class ReservedAddressError extends IpamError {
  /** @param ip - the address; `what` it is reserved as. */
  constructor(
    subnet: string,
    readonly ip: string,
    readonly what: string,
  ) {
    super('reserved', subnet, `${ip} is reserved (${what})`);
    this.name = 'ReservedAddressError';
  }
}

/** An address (or MAC) another owner holds. */
export class AddressConflictError extends IpamError {
  /** @param address - the IP or MAC; `holder` the owner that has it. */
  constructor(
    subnet: string,
    readonly address: string,
    readonly holder: string,
  ) {
    super('conflict', subnet, `${address} is already allocated to ${holder}`);
    this.name = 'AddressConflictError';
  }
}

/** No free address left (in the subnet, or in the requested pool). */
export class ExhaustedError extends IpamError {
  /** @param what - "IPv4 range 10.0.0.0/24", "IP pool [a, b]", … */
  constructor(
    subnet: string,
    readonly what: string,
  ) {
    super('exhausted', subnet, `no free address left in ${what}`);
    this.name = 'ExhaustedError';
  }
}

/** A subnet name the IPAM does not know. */
export class UnknownSubnetError extends IpamError {
  constructor(subnet: string) {
    super('unknown-subnet', subnet, 'no such subnet');
    this.name = 'UnknownSubnetError';
  }
}

/** A subnet definition that does not hold together. */
export class InvalidSubnetError extends IpamError {
  /** @param why - what is wrong with the definition. */
  constructor(subnet: string, why: string) {
    super('invalid-subnet', subnet, why);
    this.name = 'InvalidSubnetError';
  }
}

/**
 * The errors of the Northbound DSL. Every error is a class with fields a
 * program can inspect (what kind of object, which name or value, why);
 * messages are for people. All extend {@link NbError}, itself an
 * `OvsdbError`, and all are thrown before anything is sent (they describe the
 * request, not the server's answer), except {@link DuplicateNameError}, which
 * can also come from the server-side guard of a transaction, and
 * {@link NbWaitTimeoutError}.
 * @module
 */

import type { Int64 } from '../ovsdb/values/int64.js';
import { OvsdbError } from '../ovsdb/wire/errors.js';
import { preview } from '../ovsdb/wire/json.js';

/** Base class of the Northbound DSL's errors. */
export class NbError extends OvsdbError {
  override name = 'NbError';
}

/** What kind of address {@link InvalidAddressError} expected. */
export type AddressKind =
  | 'MAC'
  | 'IPv4'
  | 'IPv6'
  | 'IP'
  | 'IPv4 CIDR'
  | 'IPv6 CIDR'
  | 'CIDR'
  | 'IP or CIDR'
  | 'logical switch port address'
  | 'port security entry'
  | 'load balancer VIP'
  | 'load balancer backend';

/**
 * A MAC, IP address, CIDR or composite address string is malformed.
 *
 * ```ts
 * lspSetAddresses(t, 'web-1', ['00:00:00:00:00:zz 10.0.0.5']);
 * // InvalidAddressError: Logical_Switch_Port.addresses: "00:00:00:00:00:zz 10.0.0.5" is not a valid logical switch port address: bad MAC "00:00:00:00:00:zz"
 * ```
 */
export class InvalidAddressError extends NbError {
  override name = 'InvalidAddressError';
  constructor(
    /** The expected kind of address. */
    readonly kind: AddressKind,
    /** The offending value. */
    readonly value: string,
    /** Why it is invalid. */
    readonly reason: string,
    /** Where it was given, e.g. `Logical_Switch_Port.addresses` or `nexthop`. */
    readonly field?: string | undefined,
  ) {
    super(
      `${field ? `${field}: ` : ''}${JSON.stringify(value)} is not a valid ${kind}${reason ? `: ${reason}` : ''}`,
    );
  }
}

/**
 * A number is outside its allowed range (a priority outside 0..32767, a VLAN
 * tag outside 0..4095, a DHCP lease time, …).
 */
export class OutOfRangeError extends NbError {
  override name = 'OutOfRangeError';
  constructor(
    /** The field, e.g. `ACL.priority`. */
    readonly field: string,
    /** The offending value. */
    readonly value: unknown,
    /** The smallest allowed value. */
    readonly min: number,
    /** The largest allowed value. */
    readonly max: number,
  ) {
    super(`${field}: ${String(value)} is out of range (must be an integer in ${min}..${max})`);
  }
}

/** A DHCP option name that OVN does not know for this address family. */
export class UnknownDhcpOptionError extends NbError {
  override name = 'UnknownDhcpOptionError';
  constructor(
    /** The option name. */
    readonly option: string,
    /** The address family of the DHCP_Options row (its `cidr`). */
    readonly family: 'IPv4' | 'IPv6',
  ) {
    super(`unknown DHCP${family === 'IPv4' ? 'v4' : 'v6'} option "${option}"`);
  }
}

/** A known DHCP option with a value of the wrong format, or a mandatory option missing. */
export class InvalidDhcpOptionError extends NbError {
  override name = 'InvalidDhcpOptionError';
  constructor(
    /** The option name. */
    readonly option: string,
    /** The offending value (undefined for a missing mandatory option). */
    readonly value: unknown,
    /** Why it is invalid. */
    readonly reason: string,
  ) {
    super(
      `DHCP option ${option}: ${reason}${value === undefined ? '' : ` (value: ${JSON.stringify(value)})`}`,
    );
  }
}

/** A router policy with action `reroute` has no nexthop. */
export class MissingNexthopError extends NbError {
  override name = 'MissingNexthopError';
  constructor(
    /** The policy's priority. */
    readonly priority: number,
    /** The policy's match. */
    readonly match: string,
  ) {
    super(
      `Logical_Router_Policy (priority ${priority}, match ${JSON.stringify(match)}): action "reroute" needs at least one nexthop`,
    );
  }
}

/**
 * A NAT rule's logical IP does not fit its type: `dnat` and `dnat_and_snat`
 * need one IP address, `snat` an IP address or a network, and the logical IP
 * must be of the external IP's family.
 */
export class NatLogicalIpError extends NbError {
  override name = 'NatLogicalIpError';
  constructor(
    /** The NAT type. */
    readonly type: 'snat' | 'dnat' | 'dnat_and_snat',
    /** The logical IP given. */
    readonly logicalIp: string,
    /** Why it does not fit. */
    readonly reason: string,
  ) {
    super(`NAT ${type}: logical IP ${JSON.stringify(logicalIp)} ${reason}`);
  }
}

/** An argument is invalid for a reason not covered by a more specific error (an unknown enum value, options that exclude each other, …). */
export class InvalidArgumentError extends NbError {
  override name = 'InvalidArgumentError';
  constructor(
    /** The argument, e.g. `ACL.direction`. */
    readonly field: string,
    /** The offending value. */
    readonly value: unknown,
    /** Why it is invalid. */
    readonly reason: string,
  ) {
    super(`${field}: ${reason}${value === undefined ? '' : ` (value: ${preview(value)})`}`);
  }
}

/** What kind of Northbound object an error is about (the way OVN users name it). */
export type NbObjectKind =
  | 'logical switch'
  | 'logical switch port'
  | 'logical router'
  | 'logical router port'
  | 'port group'
  | 'ACL'
  | 'address set'
  | 'DHCP options'
  | 'NAT'
  | 'router policy'
  | 'static route'
  | 'load balancer'
  | 'load balancer VIP'
  | 'load balancer health check'
  | 'gateway chassis'
  | 'HA chassis group'
  | 'HA chassis'
  | 'BFD session'
  | 'mirror'
  | 'QoS rule'
  | 'meter'
  | 'forwarding group'
  | 'static MAC binding'
  | 'load balancer group'
  | 'CoPP policy'
  | 'NB_Global';

/** The object named does not exist (and `ifExists` was not given, or the operation needs it). */
export class NotFoundError extends NbError {
  override name = 'NotFoundError';
  constructor(
    /** The kind of object. */
    readonly kind: NbObjectKind,
    /** The name, UUID or key looked up. */
    readonly key: string,
    /** Where it was looked for, when relevant (e.g. `in router lr0`). */
    readonly where?: string | undefined,
  ) {
    super(`${kind} ${JSON.stringify(key)} not found${where ? ` ${where}` : ''}`);
  }
}

/**
 * The object to create already exists (and `mayExist` was not given), or it
 * exists in a way `mayExist` does not tolerate (e.g. a port of that name on
 * another switch). `detail` says which.
 */
export class AlreadyExistsError extends NbError {
  override name = 'AlreadyExistsError';
  constructor(
    /** The kind of object. */
    readonly kind: NbObjectKind,
    /** Its identity, e.g. the name or `(priority 100, match "…")`. */
    readonly key: string,
    /** What exists, when more than "it exists" is useful. */
    readonly detail?: string | undefined,
    /** The existing row's UUID, when known. */
    readonly uuid?: string | undefined,
  ) {
    super(`${kind} ${key} already exists${detail ? `: ${detail}` : ''}`);
  }
}

/**
 * A creation of a logical switch, router or load balancer failed on the
 * server because, by the time the transaction ran, another client had created
 * one with the same name (names of these tables are not indexed; the DSL adds
 * a server-side check to the transaction).
 */
export class DuplicateNameError extends AlreadyExistsError {
  override name = 'DuplicateNameError';
  constructor(kind: NbObjectKind, name: string, options?: { cause?: unknown }) {
    super(kind, JSON.stringify(name), 'another client created one with this name concurrently');
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * A name matches more than one row. Logical switch, logical router and load
 * balancer names are not unique in the schema; refer to such an object by
 * UUID instead.
 */
export class AmbiguousNameError extends NbError {
  override name = 'AmbiguousNameError';
  constructor(
    /** The kind of object. */
    readonly kind: NbObjectKind,
    /** The ambiguous name. */
    readonly objectName: string,
    /** The UUIDs of the rows with that name. */
    readonly uuids: readonly string[],
  ) {
    super(
      `ambiguous ${kind} name ${JSON.stringify(objectName)}: ${uuids.length} rows have it (${uuids.join(', ')}); use a UUID`,
    );
  }
}

/** `waitFor('sb' | 'hv')` gave up: the configuration sequence number did not catch up in time. */
export class NbWaitTimeoutError extends NbError {
  override name = 'NbWaitTimeoutError';
  constructor(
    /** What was waited for. */
    readonly target: 'sb' | 'hv',
    /** The `nb_cfg` value waited for. */
    readonly expected: Int64,
    /** The last `sb_cfg` (for `sb`) or min(`sb_cfg`, `hv_cfg`) (for `hv`) seen. */
    readonly current: Int64 | undefined,
    /** The timeout, ms. */
    readonly timeoutMs: number,
  ) {
    super(
      `waitFor(${target}): ${target === 'sb' ? 'sb_cfg' : 'hv_cfg'} did not reach nb_cfg ${expected} within ${timeoutMs} ms (last seen: ${current ?? 'none'}); is ovn-northd${target === 'hv' ? ' (and every ovn-controller)' : ''} running?`,
    );
  }
}

/** A match expression could not be built: an identifier that OVN cannot parse, an empty set, a string OVN cannot represent. */
export class InvalidMatchError extends NbError {
  override name = 'InvalidMatchError';
  constructor(
    /** What was being built, e.g. `port group name` or `field`. */
    readonly what: string,
    /** The offending value. */
    readonly value: unknown,
    /** Why it is invalid. */
    readonly reason: string,
  ) {
    super(`match ${what}: ${reason} (value: ${preview(value)})`);
  }
}

/** A match expression string does not parse. */
export class MatchSyntaxError extends NbError {
  override name = 'MatchSyntaxError';
  constructor(
    /** The whole input. */
    readonly input: string,
    /** The character offset of the problem. */
    readonly position: number,
    /** What is wrong. */
    readonly reason: string,
  ) {
    super(`match syntax error at offset ${position}: ${reason}`);
  }
}

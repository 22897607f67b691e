/**
 * Address sets: named sets of IPv4/IPv6 addresses, prefixes or Ethernet
 * addresses that matches refer to as `$name`. Create, delete, add and remove
 * addresses (`ovn-nbctl create Address_Set`, `add`/`remove … addresses`).
 *
 * Adding an address that is already in the set, or removing one that is
 * not, does nothing (set semantics).
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { AlreadyExistsError, InvalidAddressError, InvalidArgumentError } from './errors.js';
import type { CreateOptions, DeleteOptions } from './existence.js';
import { parsePrefix } from './ip.js';
import { type AddressSetRef, findNamed, getNamed, namedTarget, rowsNamed } from './lookup.js';
import { isMac } from './mac.js';
import type { NeedsOf, RowIn } from './needs.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkName, checkStringMap } from './validate.js';

/** Options of {@link addressSetAdd}. */
export interface AddressSetAddOptions extends CreateOptions {
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

function checkAddresses(addresses: readonly string[]): string[] {
  if (!Array.isArray(addresses))
    throw new InvalidArgumentError('Address_Set.addresses', addresses, 'must be a list');
  const out: string[] = [];
  for (const a of addresses) {
    if (typeof a !== 'string' || (parsePrefix(a) === undefined && !isMac(a))) {
      throw new InvalidAddressError(
        'IP or CIDR',
        String(a),
        'not an IP address, prefix or MAC',
        'Address_Set.addresses',
      );
    }
    if (!out.includes(a)) out.push(a);
  }
  return out;
}

/**
 * Create an address set.
 *
 * ```ts
 * addressSetAdd(t, 'blocked_v4', ['192.0.2.0/24', '198.51.100.7']);
 * // {"op":"insert","table":"Address_Set","row":{"addresses":["set",["192.0.2.0/24","198.51.100.7"]],
 * //   "name":"blocked_v4"},"uuid":"<as>","uuid-name":"row0"}
 * ```
 * @throws AlreadyExistsError (unless `mayExist`); InvalidAddressError for a bad address.
 */
export function addressSetAdd<DB extends NeedsOf<'addressSetAdd'>>(
  t: NbTxn<DB>,
  name: string,
  addresses?: readonly string[],
  options?: AddressSetAddOptions,
): Uuid<'Address_Set'>;
export function addressSetAdd(
  t: NbTxn,
  name: string,
  addresses: readonly string[] = [],
  options: AddressSetAddOptions = {},
): Uuid<'Address_Set'> {
  checkName('Address_Set.name', name);
  const list = checkAddresses(addresses);
  const externalIds =
    options.externalIds === undefined
      ? undefined
      : checkStringMap('Address_Set.external_ids', options.externalIds);
  const existing = rowsNamed(t, 'Address_Set', name)[0];
  if (existing !== undefined) {
    if (options.mayExist) return existing._uuid;
    throw new AlreadyExistsError('address set', JSON.stringify(name), undefined, existing._uuid);
  }
  return t.insert('Address_Set', {
    name,
    ...(list.length > 0 ? { addresses: list } : {}),
    ...(externalIds !== undefined ? { external_ids: externalIds } : {}),
  });
}

/**
 * Delete an address set.
 * @throws NotFoundError (unless `ifExists`).
 */
export function addressSetDel<DB extends NeedsOf<'addressSetDel'>>(
  t: NbTxn<DB>,
  as: AddressSetRef,
  options?: DeleteOptions,
): void;
export function addressSetDel(t: NbTxn, as: AddressSetRef, options: DeleteOptions = {}): void {
  const row = namedTarget(t, 'Address_Set', as, options);
  if (row === undefined) return;
  t.delete('Address_Set', row._uuid);
}

/**
 * Read an address set by name or UUID.
 * @throws NotFoundError (unless `ifExists`, which returns undefined).
 */
export function addressSetGet<DB extends NeedsOf<'addressSetGet'>>(
  t: NbTxn<DB>,
  as: AddressSetRef,
): RowIn<DB, 'Address_Set'>;
export function addressSetGet<DB extends NeedsOf<'addressSetGet'>>(
  t: NbTxn<DB>,
  as: AddressSetRef,
  options: DeleteOptions,
): RowIn<DB, 'Address_Set'> | undefined;
export function addressSetGet(
  t: NbTxn,
  as: AddressSetRef,
  options: DeleteOptions = {},
): NbRow<'Address_Set'> | undefined {
  return options.ifExists ? findNamed(t, 'Address_Set', as) : getNamed(t, 'Address_Set', as);
}

/**
 * Add addresses to a set.
 *
 * ```ts
 * addressSetAddAddresses(t, 'blocked_v4', ['203.0.113.9']);
 * // {"op":"mutate","table":"Address_Set",…,"mutations":[["addresses","insert",["set",["203.0.113.9"]]]]}
 * ```
 */
export function addressSetAddAddresses<DB extends NeedsOf<'addressSetAddAddresses'>>(
  t: NbTxn<DB>,
  as: AddressSetRef,
  addresses: readonly string[],
): void;
export function addressSetAddAddresses(
  t: NbTxn,
  as: AddressSetRef,
  addresses: readonly string[],
): void {
  const row = getNamed(t, 'Address_Set', as);
  t.addToSet(
    'Address_Set',
    row._uuid,
    'addresses',
    checkAddresses(addresses).filter((a) => !row.addresses.includes(a)),
  );
}

/** Remove addresses from a set. */
export function addressSetRemoveAddresses<DB extends NeedsOf<'addressSetRemoveAddresses'>>(
  t: NbTxn<DB>,
  as: AddressSetRef,
  addresses: readonly string[],
): void;
export function addressSetRemoveAddresses(
  t: NbTxn,
  as: AddressSetRef,
  addresses: readonly string[],
): void {
  const row = getNamed(t, 'Address_Set', as);
  if (!Array.isArray(addresses))
    throw new InvalidArgumentError('Address_Set.addresses', addresses, 'must be a list');
  t.removeFromSet(
    'Address_Set',
    row._uuid,
    'addresses',
    addresses.filter((a) => row.addresses.includes(a)),
  );
}

/** Make a set's addresses exactly `addresses`. */
export function addressSetSetAddresses<DB extends NeedsOf<'addressSetSetAddresses'>>(
  t: NbTxn<DB>,
  as: AddressSetRef,
  addresses: readonly string[],
): void;
export function addressSetSetAddresses(
  t: NbTxn,
  as: AddressSetRef,
  addresses: readonly string[],
): void {
  const row = getNamed(t, 'Address_Set', as);
  t.update('Address_Set', row._uuid, { addresses: checkAddresses(addresses) });
}

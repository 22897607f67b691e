/**
 * Logical routers: create, delete, read, options (`ovn-nbctl lr-add`,
 * `lr-del`, `lr-list`). Like switch names, router names are not unique in
 * the schema; {@link lrAdd} refuses duplicates (also on the server), and a
 * name several routers share is ambiguous.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import {
  AlreadyExistsError,
  AmbiguousNameError,
  DuplicateNameError,
  InvalidArgumentError,
} from './errors.js';
import type { CreateOptions, DeleteOptions } from './existence.js';
import { findNamed, getNamed, namedTarget, type RouterRef, rowsNamed } from './lookup.js';
import { type SetOptions, writeMap } from './maps.js';
import type { NeedsOf, RowIn } from './needs.js';
import { byName } from './order.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkMapPatch, checkName, checkStringMap } from './validate.js';

/** Options of {@link lrAdd}. */
export interface LrAddOptions extends CreateOptions {
  /** `options`, e.g. `{ chassis: 'gw-1' }` for a gateway router. */
  readonly options?: Readonly<Record<string, string>> | undefined;
  /** `enabled` (unset means enabled). */
  readonly enabled?: boolean | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

/**
 * Create a logical router (`ovn-nbctl lr-add`).
 *
 * ```ts
 * const lr = lrAdd(t, 'lr0');
 * // {"op":"wait","table":"Logical_Router","where":[["name","==","lr0"]],"columns":["name"],"until":"==","rows":[],"timeout":0}
 * // {"op":"insert","table":"Logical_Router","row":{"name":"lr0"},"uuid":"<lr>","uuid-name":"row0"}
 * ```
 * @throws AlreadyExistsError (unless `mayExist`); AmbiguousNameError.
 */
export function lrAdd<DB extends NeedsOf<'lrAdd'>>(
  t: NbTxn<DB>,
  name?: string,
  options?: LrAddOptions,
): Uuid<'Logical_Router'>;
export function lrAdd(t: NbTxn, name?: string, options: LrAddOptions = {}): Uuid<'Logical_Router'> {
  const opts =
    options.options === undefined
      ? undefined
      : checkStringMap('Logical_Router.options', options.options);
  const externalIds =
    options.externalIds === undefined
      ? undefined
      : checkStringMap('Logical_Router.external_ids', options.externalIds);
  if (options.enabled !== undefined && typeof options.enabled !== 'boolean') {
    throw new InvalidArgumentError('Logical_Router.enabled', options.enabled, 'must be a boolean');
  }
  if (name !== undefined) {
    checkName('Logical_Router.name', name);
    const existing = rowsNamed(t, 'Logical_Router', name);
    if (existing.length > 1) {
      throw new AmbiguousNameError('logical router', name, existing.map((r) => r._uuid).sort());
    }
    const found = existing[0];
    if (found !== undefined) {
      if (options.mayExist) return found._uuid;
      throw new AlreadyExistsError('logical router', JSON.stringify(name), undefined, found._uuid);
    }
    t.guardAbsent(
      'Logical_Router',
      'name',
      name,
      () => new DuplicateNameError('logical router', name),
    );
  } else if (options.mayExist) {
    throw new InvalidArgumentError('lrAdd', undefined, 'mayExist needs a name');
  }
  return t.insert('Logical_Router', {
    ...(name !== undefined ? { name } : {}),
    ...(opts !== undefined ? { options: opts } : {}),
    ...(options.enabled !== undefined ? { enabled: options.enabled } : {}),
    ...(externalIds !== undefined ? { external_ids: externalIds } : {}),
  });
}

/**
 * Delete a logical router with its ports, routes, policies and NAT rules
 * (`ovn-nbctl lr-del`).
 * @throws NotFoundError (unless `ifExists`); AmbiguousNameError.
 */
export function lrDel<DB extends NeedsOf<'lrDel'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  options?: DeleteOptions,
): void;
export function lrDel(t: NbTxn, router: RouterRef, options: DeleteOptions = {}): void {
  const row = namedTarget(t, 'Logical_Router', router, options);
  if (row === undefined) return;
  t.delete('Logical_Router', row._uuid);
}

/**
 * Read a logical router by name or UUID.
 * @throws NotFoundError (unless `ifExists`, which returns undefined); AmbiguousNameError.
 */
export function lrGet<DB extends NeedsOf<'lrGet'>>(
  t: NbTxn<DB>,
  router: RouterRef,
): RowIn<DB, 'Logical_Router'>;
export function lrGet<DB extends NeedsOf<'lrGet'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  options: DeleteOptions,
): RowIn<DB, 'Logical_Router'> | undefined;
export function lrGet(
  t: NbTxn,
  router: RouterRef,
  options: DeleteOptions = {},
): NbRow<'Logical_Router'> | undefined {
  return options.ifExists
    ? findNamed(t, 'Logical_Router', router)
    : getNamed(t, 'Logical_Router', router);
}

/** Every logical router, sorted by name (`ovn-nbctl lr-list`). */
export function lrList<DB extends NeedsOf<'lrList'>>(t: NbTxn<DB>): RowIn<DB, 'Logical_Router'>[];
export function lrList(t: NbTxn): NbRow<'Logical_Router'>[] {
  return t.rows('Logical_Router').sort(byName);
}

/**
 * Set keys of a router's `options` (others are kept; `null` removes a key),
 * or with `{ replace: true }` replace the whole map.
 */
export function lrSetOptions<DB extends NeedsOf<'lrSetOptions'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  options: Readonly<Record<string, string | null>>,
  setOptions?: SetOptions,
): void;
export function lrSetOptions(
  t: NbTxn,
  router: RouterRef,
  options: Readonly<Record<string, string | null>>,
  setOptions: SetOptions = {},
): void {
  const row = getNamed(t, 'Logical_Router', router);
  writeMap(
    t,
    'Logical_Router',
    row._uuid,
    'options',
    checkMapPatch('Logical_Router.options', options),
    setOptions,
  );
}

/**
 * Set keys of a router's `external_ids` (others are kept; `null` removes a
 * key), or with `{ replace: true }` replace the whole map.
 */
export function lrSetExternalIds<DB extends NeedsOf<'lrSetExternalIds'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  ids: Readonly<Record<string, string | null>>,
  options?: SetOptions,
): void;
export function lrSetExternalIds(
  t: NbTxn,
  router: RouterRef,
  ids: Readonly<Record<string, string | null>>,
  options: SetOptions = {},
): void {
  const row = getNamed(t, 'Logical_Router', router);
  writeMap(
    t,
    'Logical_Router',
    row._uuid,
    'external_ids',
    checkMapPatch('Logical_Router.external_ids', ids),
    options,
  );
}

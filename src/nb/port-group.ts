/**
 * Port groups: create (optionally with ports and ACLs), delete, and add,
 * remove or set their ports by name or UUID (`ovn-nbctl pg-add`,
 * `pg-set-ports`, `pg-del`; kube-ovn's `PortGroupAddPorts`,
 * `PortGroupRemovePorts`, `PortGroupSetPorts`).
 *
 * Adding a port that is already a member, or removing one that is not, does
 * nothing (set semantics); naming a port that does not exist is an error.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { type AclSpec, encodeAcl } from './acl.js';
import { AlreadyExistsError, InvalidArgumentError } from './errors.js';
import type { CreateOptions, DeleteOptions } from './existence.js';
import type { NBTables } from './generated/model.js';
import {
  findNamed,
  getNamed,
  namedTarget,
  type PortGroupRef,
  type PortRef,
  rowsNamed,
} from './lookup.js';
import type { NeedsOf, RowIn } from './needs.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkName, checkStringMap } from './validate.js';

/** Options of {@link pgAdd}. */
export interface PgAddOptions<DB = NBTables> extends CreateOptions {
  /** Member ports, by name or UUID. */
  readonly ports?: readonly PortRef[] | undefined;
  /** ACLs to create in the group. */
  readonly acls?: readonly AclSpec<DB>[] | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

function resolvePorts(t: NbTxn, ports: readonly PortRef[]): Uuid<'Logical_Switch_Port'>[] {
  if (!Array.isArray(ports))
    throw new InvalidArgumentError('Port_Group.ports', ports, 'must be a list');
  const out: Uuid<'Logical_Switch_Port'>[] = [];
  for (const p of ports) {
    const u = getNamed(t, 'Logical_Switch_Port', p)._uuid;
    if (!out.includes(u)) out.push(u);
  }
  return out;
}

/**
 * Create a port group (`ovn-nbctl pg-add`). Its name must be unique (the
 * schema indexes it); to be usable in matches as `@name`, it must be an
 * identifier (letters, digits, `_`, `.`).
 *
 * ```ts
 * pgAdd(t, 'pg_web', { ports: ['web-1', 'web-2'] });
 * // {"op":"insert","table":"Port_Group","row":{"name":"pg_web",
 * //   "ports":["set",[["uuid","<web-1>"],["uuid","<web-2>"]]]},"uuid":"<pg>","uuid-name":"row0"}
 * ```
 * @throws AlreadyExistsError (unless `mayExist`); NotFoundError for an unknown port.
 */
export function pgAdd<DB extends NeedsOf<'pgAdd'>>(
  t: NbTxn<DB>,
  name: string,
  options?: NoInfer<PgAddOptions<DB>>,
): Uuid<'Port_Group'>;
export function pgAdd(t: NbTxn, name: string, options: PgAddOptions = {}): Uuid<'Port_Group'> {
  checkName('Port_Group.name', name);
  const ports = options.ports === undefined ? [] : resolvePorts(t, options.ports);
  const acls = (options.acls ?? []).map(encodeAcl);
  const externalIds =
    options.externalIds === undefined
      ? undefined
      : checkStringMap('Port_Group.external_ids', options.externalIds);
  const existing = rowsNamed(t, 'Port_Group', name)[0];
  if (existing !== undefined) {
    if (options.mayExist) return existing._uuid;
    throw new AlreadyExistsError('port group', JSON.stringify(name), undefined, existing._uuid);
  }
  const aclRefs = acls.map((a) => t.insert('ACL', a));
  return t.insert('Port_Group', {
    name,
    ...(ports.length > 0 ? { ports } : {}),
    ...(aclRefs.length > 0 ? { acls: aclRefs } : {}),
    ...(externalIds !== undefined ? { external_ids: externalIds } : {}),
  });
}

/**
 * Delete a port group and its ACLs (`ovn-nbctl pg-del`).
 * @throws NotFoundError (unless `ifExists`).
 */
export function pgDel<DB extends NeedsOf<'pgDel'>>(
  t: NbTxn<DB>,
  pg: PortGroupRef,
  options?: DeleteOptions,
): void;
export function pgDel(t: NbTxn, pg: PortGroupRef, options: DeleteOptions = {}): void {
  const row = namedTarget(t, 'Port_Group', pg, options);
  if (row === undefined) return;
  t.delete('Port_Group', row._uuid);
}

/**
 * Read a port group by name or UUID.
 * @throws NotFoundError (unless `ifExists`, which returns undefined).
 */
export function pgGet<DB extends NeedsOf<'pgGet'>>(
  t: NbTxn<DB>,
  pg: PortGroupRef,
): RowIn<DB, 'Port_Group'>;
export function pgGet<DB extends NeedsOf<'pgGet'>>(
  t: NbTxn<DB>,
  pg: PortGroupRef,
  options: DeleteOptions,
): RowIn<DB, 'Port_Group'> | undefined;
export function pgGet(
  t: NbTxn,
  pg: PortGroupRef,
  options: DeleteOptions = {},
): NbRow<'Port_Group'> | undefined {
  return options.ifExists ? findNamed(t, 'Port_Group', pg) : getNamed(t, 'Port_Group', pg);
}

/**
 * Add ports to a port group (members already there are left alone).
 *
 * ```ts
 * pgAddPorts(t, 'pg_web', ['web-3']);
 * // {"op":"mutate","table":"Port_Group",…,"mutations":[["ports","insert",["set",[["uuid","<web-3>"]]]]]}
 * ```
 * @throws NotFoundError for an unknown group or port.
 */
export function pgAddPorts<DB extends NeedsOf<'pgAddPorts'>>(
  t: NbTxn<DB>,
  pg: PortGroupRef,
  ports: readonly PortRef[],
): void;
export function pgAddPorts(t: NbTxn, pg: PortGroupRef, ports: readonly PortRef[]): void {
  const row = getNamed(t, 'Port_Group', pg);
  const add = resolvePorts(t, ports).filter((u) => !row.ports.includes(u));
  t.addToSet('Port_Group', row._uuid, 'ports', add);
}

/**
 * Remove ports from a port group (non-members are ignored).
 * @throws NotFoundError for an unknown group or port.
 */
export function pgRemovePorts<DB extends NeedsOf<'pgRemovePorts'>>(
  t: NbTxn<DB>,
  pg: PortGroupRef,
  ports: readonly PortRef[],
): void;
export function pgRemovePorts(t: NbTxn, pg: PortGroupRef, ports: readonly PortRef[]): void {
  const row = getNamed(t, 'Port_Group', pg);
  const remove = resolvePorts(t, ports).filter((u) => row.ports.includes(u));
  t.removeFromSet('Port_Group', row._uuid, 'ports', remove);
}

/**
 * Make a port group's members exactly `ports` (`ovn-nbctl pg-set-ports`),
 * with a minimal mutate (insert the new, delete the gone), so that
 * concurrent changes to other members are kept.
 *
 * ```ts
 * pgSetPorts(t, 'pg_web', ['web-1', 'web-3']);
 * // {"op":"mutate","table":"Port_Group",…,"mutations":[["ports","insert",["set",[["uuid","<web-3>"]]]],
 * //                                              ["ports","delete",["set",[["uuid","<web-2>"]]]]]}
 * ```
 * @throws NotFoundError for an unknown group or port.
 */
export function pgSetPorts<DB extends NeedsOf<'pgSetPorts'>>(
  t: NbTxn<DB>,
  pg: PortGroupRef,
  ports: readonly PortRef[],
): void;
export function pgSetPorts(t: NbTxn, pg: PortGroupRef, ports: readonly PortRef[]): void {
  const row = getNamed(t, 'Port_Group', pg);
  const want = resolvePorts(t, ports);
  const add = want.filter((u) => !row.ports.includes(u));
  const remove = row.ports.filter((u) => !want.includes(u));
  const mutations: unknown[] = [];
  if (add.length > 0) mutations.push(['ports', 'insert', add]);
  if (remove.length > 0) mutations.push(['ports', 'delete', remove]);
  t.mutate('Port_Group', row._uuid, mutations as never);
}

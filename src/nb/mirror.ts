/**
 * Port mirrors: create, delete, list, and attach to or detach from logical
 * switch ports (`ovn-nbctl mirror-add`, `mirror-del`, `mirror-list`,
 * `lsp-attach-mirror`, `lsp-detach-mirror`). The `Mirror` table exists from
 * NB schema 7.0.0 (OVN 22.12): with a model generated from an older schema
 * these operations do not compile, and with a newer model against an older
 * server they fail with `SchemaDriftError` before anything is sent.
 *
 * A mirror's name is unique (a schema index): lookups by name use the index
 * (`t.lookup`), not a scan.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { isUuid } from '../ovsdb/values/uuid.js';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from './errors.js';
import { type CreateOptions, type DeleteOptions, existing } from './existence.js';
import type { NBTables } from './generated/model.js';
import { parseIp } from './ip.js';
import { getNamed, type PortRef } from './lookup.js';
import type { ColumnValue, NeedsOf, RowIn } from './needs.js';
import { byName } from './order.js';
import type { NbRow, NbTxn } from './txn.js';
import { checkEnum, checkIntRange, checkName, checkStringMap } from './validate.js';

/** Mirror types (those of the bundled model; `local` from NB 7.1.0, `lport` from 7.12.0). */
export const MIRROR_TYPES = ['gre', 'erspan', 'local', 'lport'] as const;
/** A mirror type. */
export type MirrorTypeName = (typeof MIRROR_TYPES)[number];
/** Which traffic a mirror copies (`both` from NB 7.1.0). */
export const MIRROR_FILTERS = ['from-lport', 'to-lport', 'both'] as const;
/** A mirror filter. */
export type MirrorFilterName = (typeof MIRROR_FILTERS)[number];

/** A mirror: with a model other than the bundled one (`DB`), the types and filters of its schema. */
export interface MirrorSpec<DB = NBTables> {
  /** `gre` or `erspan` (a tunnel to `sink`), `local` (an OVS interface), `lport` (a logical port). */
  readonly type: MirrorTypeName & ColumnValue<DB, 'Mirror', 'type'>;
  /** The tunnel key (GRE) or session ID (ERSPAN). */
  readonly index: number;
  /** Traffic leaving the VM (`from-lport`), entering it (`to-lport`), or `both`. */
  readonly filter: MirrorFilterName & ColumnValue<DB, 'Mirror', 'filter'>;
  /** The tunnel's remote IP (`gre`, `erspan`), or the interface or port name. */
  readonly sink: string;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string>> | undefined;
}

/** The values the model allows in a column with an enum, or `fallback`. */
function allowed<E extends string>(
  t: NbTxn,
  column: 'type' | 'filter',
  fallback: readonly E[],
): readonly E[] {
  const values = t.schema('Mirror').columns[column]?.type.key.enum;
  return values === undefined ? fallback : (values.filter((v) => typeof v === 'string') as E[]);
}

/** The mirror `ref` (a UUID or a name), by the table's name index. */
function findMirror(t: NbTxn, ref: string): NbRow<'Mirror'> | undefined {
  checkName('Mirror.name', ref);
  if (isUuid(ref)) {
    const row = t.get('Mirror', ref);
    if (row !== undefined) return row;
  }
  return t.lookup('Mirror', { name: ref });
}

/**
 * Create a mirror (`ovn-nbctl mirror-add NAME TYPE INDEX FILTER SINK`).
 *
 * ```ts
 * mirrorAdd(t, 'm0', { type: 'gre', index: 5, filter: 'to-lport', sink: '10.0.0.100' });
 * // {"op":"insert","table":"Mirror","row":{"filter":"to-lport","index":5,"name":"m0","sink":"10.0.0.100","type":"gre"},…}
 * ```
 * @throws AlreadyExistsError when a mirror has the name (unless `mayExist`:
 *   it is then returned as is); InvalidArgumentError for a type or filter the
 *   model does not have, or a `gre`/`erspan` sink that is not an IP.
 */
export function mirrorAdd<DB extends NeedsOf<'mirrorAdd'>>(
  t: NbTxn<DB>,
  name: string,
  spec: NoInfer<MirrorSpec<DB>>,
  options?: CreateOptions,
): Uuid<'Mirror'>;
export function mirrorAdd(
  t: NbTxn,
  name: string,
  spec: MirrorSpec,
  options: CreateOptions = {},
): Uuid<'Mirror'> {
  checkName('Mirror.name', name);
  if (spec === null || typeof spec !== 'object')
    throw new InvalidArgumentError('Mirror', spec, 'must be an object');
  const type = checkEnum('Mirror.type', spec.type, allowed(t, 'type', MIRROR_TYPES));
  const filter = checkEnum('Mirror.filter', spec.filter, allowed(t, 'filter', MIRROR_FILTERS));
  const index = checkIntRange('Mirror.index', spec.index, -(2 ** 53 - 1), 2 ** 53 - 1);
  const sink = checkName('Mirror.sink', spec.sink);
  if ((type === 'gre' || type === 'erspan') && parseIp(sink) === undefined) {
    throw new InvalidArgumentError('Mirror.sink', sink, `a ${type} mirror's sink is an IP address`);
  }
  const externalIds =
    spec.externalIds === undefined
      ? undefined
      : checkStringMap('Mirror.external_ids', spec.externalIds);
  const existing = findMirror(t, name);
  if (existing !== undefined && existing.name === name) {
    if (options.mayExist) return existing._uuid;
    throw new AlreadyExistsError('mirror', JSON.stringify(name), undefined, existing._uuid);
  }
  return t.insert('Mirror', {
    name,
    type,
    index,
    filter,
    sink,
    ...(externalIds !== undefined ? { external_ids: externalIds } : {}),
  });
}

/**
 * Delete a mirror (`ovn-nbctl mirror-del NAME`), removing it from the ports
 * that use it first, as `ovn-nbctl` does. (Their `mirror_rules` hold it
 * weakly, but ovsdb-server 3.1 leaves a dangling reference when the same
 * transaction also changes the port's `mirror_rules`; the removal is skipped
 * when the client does not monitor `Logical_Switch_Port`.)
 * @throws NotFoundError (unless `ifExists`).
 */
export function mirrorDel<DB extends NeedsOf<'mirrorDel'>>(
  t: NbTxn<DB>,
  mirror: string,
  options?: DeleteOptions,
): void;
export function mirrorDel(t: NbTxn, mirror: string, options: DeleteOptions = {}): void {
  const row = existing(findMirror(t, mirror), options, () => new NotFoundError('mirror', mirror));
  if (row === undefined) return;
  if (t.monitors('Logical_Switch_Port')) {
    for (const lsp of t.referrers('Logical_Switch_Port', 'mirror_rules', row._uuid)) {
      t.removeFromSet('Logical_Switch_Port', lsp._uuid, 'mirror_rules', [row._uuid]);
    }
  }
  t.delete('Mirror', row._uuid);
}

/**
 * Read a mirror by name or UUID.
 * @throws NotFoundError (unless `ifExists`, which returns undefined).
 */
export function mirrorGet<DB extends NeedsOf<'mirrorGet'>>(
  t: NbTxn<DB>,
  mirror: string,
): RowIn<DB, 'Mirror'>;
export function mirrorGet<DB extends NeedsOf<'mirrorGet'>>(
  t: NbTxn<DB>,
  mirror: string,
  options: DeleteOptions,
): RowIn<DB, 'Mirror'> | undefined;
export function mirrorGet(
  t: NbTxn,
  mirror: string,
  options: DeleteOptions = {},
): NbRow<'Mirror'> | undefined {
  const row = findMirror(t, mirror);
  if (row === undefined && !options.ifExists) throw new NotFoundError('mirror', mirror);
  return row;
}

/** Every mirror, sorted by name (`ovn-nbctl mirror-list`). */
export function mirrorList<DB extends NeedsOf<'mirrorList'>>(t: NbTxn<DB>): RowIn<DB, 'Mirror'>[];
export function mirrorList(t: NbTxn): NbRow<'Mirror'>[] {
  return t.rows('Mirror').sort(byName);
}

/**
 * Mirror a port's traffic (`ovn-nbctl lsp-attach-mirror PORT MIRROR`).
 *
 * ```ts
 * lspAttachMirror(t, 'web-1', 'm0');
 * // {"op":"mutate","table":"Logical_Switch_Port",…,"mutations":[["mirror_rules","insert",["set",[["uuid","<m0>"]]]]]}
 * ```
 * @throws NotFoundError for an unknown port or mirror; AlreadyExistsError
 *   when the mirror is attached already (unless `mayExist`).
 */
export function lspAttachMirror<DB extends NeedsOf<'lspAttachMirror'>>(
  t: NbTxn<DB>,
  port: PortRef,
  mirror: string,
  options?: CreateOptions,
): void;
export function lspAttachMirror(
  t: NbTxn,
  port: PortRef,
  mirror: string,
  options: CreateOptions = {},
): void {
  const lsp = getNamed(t, 'Logical_Switch_Port', port);
  const m = findMirror(t, mirror);
  if (m === undefined) throw new NotFoundError('mirror', mirror);
  if (lsp.mirror_rules.includes(m._uuid)) {
    if (options.mayExist) return;
    throw new AlreadyExistsError(
      'mirror',
      JSON.stringify(m.name),
      `it is already attached to port ${lsp.name}`,
      m._uuid,
    );
  }
  t.addToSet('Logical_Switch_Port', lsp._uuid, 'mirror_rules', [m._uuid]);
}

/**
 * Stop mirroring a port's traffic (`ovn-nbctl lsp-detach-mirror PORT MIRROR`).
 * @throws NotFoundError for an unknown port, or a mirror not attached to it
 *   (unless `ifExists`).
 */
export function lspDetachMirror<DB extends NeedsOf<'lspDetachMirror'>>(
  t: NbTxn<DB>,
  port: PortRef,
  mirror: string,
  options?: DeleteOptions,
): void;
export function lspDetachMirror(
  t: NbTxn,
  port: PortRef,
  mirror: string,
  options: DeleteOptions = {},
): void {
  const lsp = getNamed(t, 'Logical_Switch_Port', port);
  const found = findMirror(t, mirror);
  const m = existing(
    found !== undefined && lsp.mirror_rules.includes(found._uuid) ? found : undefined,
    options,
    () => new NotFoundError('mirror', mirror, `on port ${lsp.name}`),
  );
  if (m === undefined) return;
  t.removeFromSet('Logical_Switch_Port', lsp._uuid, 'mirror_rules', [m._uuid]);
}

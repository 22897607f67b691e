/**
 * Logical router ports: create (MAC, networks, peer, options, gateway
 * chassis, HA chassis group), configure, delete, and gateway chassis
 * (`ovn-nbctl lrp-add`, `lrp-del`, `lrp-set-gateway-chassis`,
 * `lrp-del-gateway-chassis`). {@link connectSwitchToRouter} makes the usual
 * pair: a router port and a `router`-type switch port facing it.
 * @module
 */

import type { Uuid } from '../ovsdb/values/uuid.js';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from './errors.js';
import { type CreateOptions, type DeleteOptions, existing } from './existence.js';
import { checkCidr, normalizePrefix } from './ip.js';
import {
  findNamed,
  getNamed,
  type HaChassisGroupRef,
  namedTarget,
  type RouterPortRef,
  type RouterRef,
  rowsNamed,
  type SwitchRef,
} from './lookup.js';
import { checkMac, normalizeMac } from './mac.js';
import { type MapPatch, type SetOptions, setKeysOf, writeMap } from './maps.js';
import type { NeedsOf, RowIn } from './needs.js';
import { byName } from './order.js';
import { lspAdd } from './switch-port.js';
import type { NbRow, NbTxn, NbUpdate } from './txn.js';
import { checkEnum, checkMapPatch, checkName, checkPriority } from './validate.js';

/**
 * The settable attributes of a logical router port. In `lrpSet`, each
 * attribute given replaces its column, except the maps (`options`,
 * `ipv6RaConfigs`, `externalIds`), which are merged (`null` removes a key)
 * unless `{ replace: true }`.
 */
export interface LrpSpec {
  /** `mac`. */
  readonly mac?: string | undefined;
  /** `networks`: `addr/len` entries (at least one). */
  readonly networks?: readonly string[] | undefined;
  /** `peer`: another router port (router-to-router links), or null. */
  readonly peer?: string | null | undefined;
  /** `options`, e.g. `{ 'gateway_mtu': '1400' }`. */
  readonly options?: Readonly<Record<string, string | null>> | undefined;
  /** `enabled` (null: unset, which means enabled). */
  readonly enabled?: boolean | null | undefined;
  /** `ha_chassis_group`, or null. */
  readonly haChassisGroup?: HaChassisGroupRef | null | undefined;
  /** `ipv6_ra_configs`. */
  readonly ipv6RaConfigs?: Readonly<Record<string, string | null>> | undefined;
  /** `external_ids`. */
  readonly externalIds?: Readonly<Record<string, string | null>> | undefined;
}

/** Options of {@link lrpAdd}. */
export interface LrpAddOptions extends Omit<LrpSpec, 'mac' | 'networks'>, CreateOptions {
  /** Gateway chassis to set (chassis name → priority), making the port a distributed gateway port. */
  readonly gatewayChassis?: Readonly<Record<string, number>> | undefined;
}

type LrpColumns = {
  -readonly [K in keyof NbUpdate<'Logical_Router_Port'>]: NbUpdate<'Logical_Router_Port'>[K];
};

function checkNetworks(networks: readonly string[]): string[] {
  if (!Array.isArray(networks) || networks.length === 0) {
    throw new InvalidArgumentError(
      'Logical_Router_Port.networks',
      networks,
      'a router port needs at least one network',
    );
  }
  for (const n of networks) checkCidr(n, 'Logical_Router_Port.networks');
  return [...networks];
}

/** The map columns of an {@link LrpSpec}: column → keys to set or remove. */
type LrpMaps = { options?: MapPatch; ipv6_ra_configs?: MapPatch; external_ids?: MapPatch };

function encodeSpec(t: NbTxn, spec: LrpSpec): { row: LrpColumns; maps: LrpMaps } {
  const row: LrpColumns = {};
  const maps: LrpMaps = {};
  if (spec.mac !== undefined) row.mac = checkMac(spec.mac, 'Logical_Router_Port.mac');
  if (spec.networks !== undefined) row.networks = checkNetworks(spec.networks);
  if (spec.peer !== undefined)
    row.peer = spec.peer === null ? null : checkName('Logical_Router_Port.peer', spec.peer);
  if (spec.options !== undefined)
    maps.options = checkMapPatch('Logical_Router_Port.options', spec.options);
  if (spec.enabled !== undefined) {
    if (spec.enabled !== null && typeof spec.enabled !== 'boolean') {
      throw new InvalidArgumentError(
        'Logical_Router_Port.enabled',
        spec.enabled,
        'must be a boolean or null',
      );
    }
    row.enabled = spec.enabled;
  }
  if (spec.haChassisGroup !== undefined) {
    row.ha_chassis_group =
      spec.haChassisGroup === null
        ? null
        : getNamed(t, 'HA_Chassis_Group', spec.haChassisGroup)._uuid;
  }
  if (spec.ipv6RaConfigs !== undefined)
    maps.ipv6_ra_configs = checkMapPatch('Logical_Router_Port.ipv6_ra_configs', spec.ipv6RaConfigs);
  if (spec.externalIds !== undefined)
    maps.external_ids = checkMapPatch('Logical_Router_Port.external_ids', spec.externalIds);
  return { row, maps };
}

/** The columns of a new port: its attributes, maps with their string keys. */
function newPortColumns(encoded: { row: LrpColumns; maps: LrpMaps }): LrpColumns {
  const out: LrpColumns = { ...encoded.row };
  for (const [column, patch] of Object.entries(encoded.maps) as [keyof LrpMaps, MapPatch][]) {
    out[column] = setKeysOf(patch);
  }
  return out;
}

function routersOf(t: NbTxn, port: string): NbRow<'Logical_Router'>[] {
  return t.referrers('Logical_Router', 'ports', port);
}

function sameNetworks(a: readonly string[], b: readonly string[]): boolean {
  const na = new Set(a.map((n) => normalizePrefix(n)));
  const nb = new Set(b.map((n) => normalizePrefix(n)));
  return na.size === nb.size && [...na].every((n) => nb.has(n));
}

/**
 * Create a logical router port (`ovn-nbctl lrp-add`).
 *
 * ```ts
 * lrpAdd(t, 'lr0', 'lr0-sw0', '00:00:00:00:ff:01', ['10.0.0.1/24', 'fd00::1/64']);
 * // {"op":"insert","table":"Logical_Router_Port","row":{"mac":"00:00:00:00:ff:01","name":"lr0-sw0",
 * //   "networks":["set",["10.0.0.1/24","fd00::1/64"]]},"uuid":"<lrp>","uuid-name":"row0"}
 * // {"op":"mutate","table":"Logical_Router",…,"mutations":[["ports","insert",["set",[["named-uuid","row0"]]]]]}
 * ```
 * @throws AlreadyExistsError when the port exists (unless `mayExist`, and it
 *   is on this router with the same MAC, networks and peer);
 *   InvalidAddressError for a bad MAC or network.
 */
export function lrpAdd<DB extends NeedsOf<'lrpAdd'>>(
  t: NbTxn<DB>,
  router: RouterRef,
  name: string,
  mac: string,
  networks: readonly string[],
  options?: LrpAddOptions,
): Uuid<'Logical_Router_Port'>;
export function lrpAdd(
  t: NbTxn,
  router: RouterRef,
  name: string,
  mac: string,
  networks: readonly string[],
  options: LrpAddOptions = {},
): Uuid<'Logical_Router_Port'> {
  checkName('Logical_Router_Port.name', name);
  const { mayExist, gatewayChassis, ...rest } = options;
  const columns = newPortColumns(encodeSpec(t, { ...rest, mac, networks }));
  const gc = Object.entries(gatewayChassis ?? {}).map(([c, p]) => {
    checkName('Gateway_Chassis.chassis_name', c);
    return [c, checkPriority('Gateway_Chassis.priority', p)] as const;
  });
  const lr = getNamed(t, 'Logical_Router', router);
  const existing = rowsNamed(t, 'Logical_Router_Port', name)[0];
  if (existing !== undefined) {
    const key = JSON.stringify(name);
    if (!mayExist)
      throw new AlreadyExistsError('logical router port', key, undefined, existing._uuid);
    const owners = routersOf(t, existing._uuid);
    if (!owners.some((o) => o._uuid === lr._uuid)) {
      const where =
        owners[0] === undefined ? 'in no router' : `in router ${owners[0].name || owners[0]._uuid}`;
      throw new AlreadyExistsError(
        'logical router port',
        key,
        `it exists ${where}`,
        existing._uuid,
      );
    }
    if (normalizeMac(existing.mac) !== normalizeMac(mac)) {
      throw new AlreadyExistsError(
        'logical router port',
        key,
        `it exists with MAC ${existing.mac}`,
        existing._uuid,
      );
    }
    if (!sameNetworks(existing.networks, networks)) {
      throw new AlreadyExistsError(
        'logical router port',
        key,
        'it exists with different networks',
        existing._uuid,
      );
    }
    if ((rest.peer ?? null) !== existing.peer) {
      throw new AlreadyExistsError(
        'logical router port',
        key,
        `it exists with peer ${JSON.stringify(existing.peer)}`,
        existing._uuid,
      );
    }
    return existing._uuid;
  }
  const gcRefs = gc.map(([c, p]) =>
    t.insert('Gateway_Chassis', { name: `${name}-${c}`, chassis_name: c, priority: p }),
  );
  const lrp = t.insert('Logical_Router_Port', {
    name,
    ...columns,
    ...(gcRefs.length > 0 ? { gateway_chassis: gcRefs } : {}),
  });
  t.addToSet('Logical_Router', lr._uuid, 'ports', [lrp]);
  return lrp;
}

/**
 * Delete a logical router port (`ovn-nbctl lrp-del`).
 * @throws NotFoundError (unless `ifExists`).
 */
export function lrpDel<DB extends NeedsOf<'lrpDel'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
  options?: DeleteOptions,
): void;
export function lrpDel(t: NbTxn, port: RouterPortRef, options: DeleteOptions = {}): void {
  const row = namedTarget(t, 'Logical_Router_Port', port, options);
  if (row === undefined) return;
  const owners = routersOf(t, row._uuid);
  for (const lr of owners) t.removeFromSet('Logical_Router', lr._uuid, 'ports', [row._uuid]);
  if (owners.length === 0) t.delete('Logical_Router_Port', row._uuid);
}

/**
 * Read a logical router port by name or UUID.
 * @throws NotFoundError (unless `ifExists`, which returns undefined).
 */
export function lrpGet<DB extends NeedsOf<'lrpGet'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
): RowIn<DB, 'Logical_Router_Port'>;
export function lrpGet<DB extends NeedsOf<'lrpGet'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
  options: DeleteOptions,
): RowIn<DB, 'Logical_Router_Port'> | undefined;
export function lrpGet(
  t: NbTxn,
  port: RouterPortRef,
  options: DeleteOptions = {},
): NbRow<'Logical_Router_Port'> | undefined {
  return options.ifExists
    ? findNamed(t, 'Logical_Router_Port', port)
    : getNamed(t, 'Logical_Router_Port', port);
}

/** The ports of a router, sorted by name (`ovn-nbctl lrp-list`). */
export function lrpList<DB extends NeedsOf<'lrpList'>>(
  t: NbTxn<DB>,
  router: RouterRef,
): RowIn<DB, 'Logical_Router_Port'>[];
export function lrpList(t: NbTxn, router: RouterRef): NbRow<'Logical_Router_Port'>[] {
  const lr = getNamed(t, 'Logical_Router', router);
  return lr.ports
    .map((u) => t.get('Logical_Router_Port', u))
    .filter((r): r is NbRow<'Logical_Router_Port'> => r !== undefined)
    .sort(byName);
}

/** The router a port is on. */
export function lrpGetRouter<DB extends NeedsOf<'lrpGetRouter'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
): RowIn<DB, 'Logical_Router'>;
export function lrpGetRouter(t: NbTxn, port: RouterPortRef): NbRow<'Logical_Router'> {
  const row = getNamed(t, 'Logical_Router_Port', port);
  const lr = routersOf(t, row._uuid)[0];
  if (lr === undefined) throw new NotFoundError('logical router', `of port ${row.name}`);
  return lr;
}

/**
 * Set attributes of a router port: each one given replaces its column,
 * except the maps (`options`, `ipv6RaConfigs`, `externalIds`), whose keys
 * are merged (`null` removes a key) unless `{ replace: true }`.
 *
 * ```ts
 * lrpSet(t, 'lr0-public', { options: { 'redirect-type': 'bridged' } }); // other options stay
 * // {"op":"mutate","table":"Logical_Router_Port",…,"mutations":[["options","delete",["set",["redirect-type"]]],
 * //   ["options","insert",["map",[["redirect-type","bridged"]]]]]}
 * ```
 */
export function lrpSet<DB extends NeedsOf<'lrpSet'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
  spec: LrpSpec,
  options?: SetOptions,
): void;
export function lrpSet(
  t: NbTxn,
  port: RouterPortRef,
  spec: LrpSpec,
  options: SetOptions = {},
): void {
  const row = getNamed(t, 'Logical_Router_Port', port);
  const { row: columns, maps } = encodeSpec(t, spec);
  if (Object.keys(columns).length > 0) t.update('Logical_Router_Port', row._uuid, columns);
  for (const [column, patch] of Object.entries(maps)) {
    writeMap(t, 'Logical_Router_Port', row._uuid, column, patch, options);
  }
}

/**
 * Make `chassis` a gateway chassis of the port with `priority`
 * (`ovn-nbctl lrp-set-gateway-chassis`): creates the `Gateway_Chassis` row
 * `<port>-<chassis>` or updates its priority.
 *
 * ```ts
 * lrpSetGatewayChassis(t, 'lr0-public', 'gw-1', 20);
 * // {"op":"insert","table":"Gateway_Chassis","row":{"chassis_name":"gw-1","name":"lr0-public-gw-1","priority":20},…}
 * // {"op":"mutate","table":"Logical_Router_Port",…,"mutations":[["gateway_chassis","insert",["set",[["named-uuid","row0"]]]]]}
 * ```
 * @throws OutOfRangeError for a priority outside 0..32767; NotFoundError.
 */
export function lrpSetGatewayChassis<DB extends NeedsOf<'lrpSetGatewayChassis'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
  chassis: string,
  priority?: number,
): Uuid<'Gateway_Chassis'>;
export function lrpSetGatewayChassis(
  t: NbTxn,
  port: RouterPortRef,
  chassis: string,
  priority = 0,
): Uuid<'Gateway_Chassis'> {
  checkName('Gateway_Chassis.chassis_name', chassis);
  const p = checkPriority('Gateway_Chassis.priority', priority);
  const lrp = getNamed(t, 'Logical_Router_Port', port);
  const name = `${lrp.name}-${chassis}`;
  const existing = rowsNamed(t, 'Gateway_Chassis', name)[0];
  let gc: Uuid<'Gateway_Chassis'>;
  if (existing !== undefined) {
    gc = existing._uuid;
    if (existing.priority !== p) t.update('Gateway_Chassis', gc, { priority: p });
  } else {
    gc = t.insert('Gateway_Chassis', { name, chassis_name: chassis, priority: p });
  }
  if (!t.get('Logical_Router_Port', lrp._uuid)!.gateway_chassis.includes(gc)) {
    t.addToSet('Logical_Router_Port', lrp._uuid, 'gateway_chassis', [gc]);
  }
  return gc;
}

/**
 * Remove a gateway chassis from a port (`ovn-nbctl lrp-del-gateway-chassis`).
 * @throws NotFoundError when the port has no such chassis (unless `ifExists`).
 */
export function lrpDelGatewayChassis<DB extends NeedsOf<'lrpDelGatewayChassis'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
  chassis: string,
  options?: DeleteOptions,
): void;
export function lrpDelGatewayChassis(
  t: NbTxn,
  port: RouterPortRef,
  chassis: string,
  options: DeleteOptions = {},
): void {
  const lrp = getNamed(t, 'Logical_Router_Port', port);
  const gc = existing(
    lrp.gateway_chassis
      .map((u) => t.get('Gateway_Chassis', u))
      .find((g) => g?.chassis_name === chassis),
    options,
    () => new NotFoundError('gateway chassis', chassis, `on router port ${lrp.name}`),
  );
  if (gc === undefined) return;
  t.removeFromSet('Logical_Router_Port', lrp._uuid, 'gateway_chassis', [gc._uuid]);
}

/** What {@link connectSwitchToRouter} needs. */
export interface ConnectSwitchToRouter extends CreateOptions {
  /** The switch. */
  readonly switch: SwitchRef;
  /** The router. */
  readonly router: RouterRef;
  /** The router port's MAC. */
  readonly mac: string;
  /** The router port's networks, e.g. `['10.0.0.1/24']`. */
  readonly networks: readonly string[];
  /** The router port's name (default `<router>-<switch>`). */
  readonly routerPort?: string | undefined;
  /** The switch port's name (default `<switch>-<router>`). */
  readonly switchPort?: string | undefined;
}

/** What {@link connectSwitchToRouter} created (or found, with `mayExist`). */
export interface SwitchRouterLink {
  /** The router port. */
  readonly routerPort: Uuid<'Logical_Router_Port'>;
  /** The switch port of type `router` facing it. */
  readonly switchPort: Uuid<'Logical_Switch_Port'>;
}

/**
 * Connect a switch to a router: a router port with the MAC and networks, and
 * a switch port of type `router` with addresses `router` and
 * `options:router-port` naming it (the usual `lrp-add` + `lsp-add` +
 * `lsp-set-type` + `lsp-set-addresses` + `lsp-set-options` sequence).
 *
 * ```ts
 * connectSwitchToRouter(t, { switch: 'sw0', router: 'lr0', mac: '00:00:00:00:ff:01', networks: ['10.0.0.1/24'] });
 * // lr0-sw0: {"op":"insert","table":"Logical_Router_Port",…} + mutate Logical_Router ports
 * // sw0-lr0: {"op":"insert","table":"Logical_Switch_Port","row":{"name":"sw0-lr0","type":"router","addresses":["set",["router"]],
 * //   "options":["map",[["router-port","lr0-sw0"]]]},…} + mutate Logical_Switch ports
 * ```
 */
export function connectSwitchToRouter<DB extends NeedsOf<'connectSwitchToRouter'>>(
  t: NbTxn<DB>,
  spec: ConnectSwitchToRouter,
): SwitchRouterLink;
export function connectSwitchToRouter(t: NbTxn, spec: ConnectSwitchToRouter): SwitchRouterLink {
  const ls = getNamed(t, 'Logical_Switch', spec.switch);
  const lr = getNamed(t, 'Logical_Router', spec.router);
  const lsName = ls.name || ls._uuid;
  const lrName = lr.name || lr._uuid;
  const lrpName = spec.routerPort ?? `${lrName}-${lsName}`;
  const lspName = spec.switchPort ?? `${lsName}-${lrName}`;
  const mayExist = spec.mayExist === true;
  const routerPort = lrpAdd(t, lr._uuid, lrpName, spec.mac, spec.networks, { mayExist });
  const switchPort = lspAdd(t, ls._uuid, lspName, {
    mayExist,
    type: 'router',
    addresses: ['router'],
    options: { 'router-port': lrpName },
  });
  return { routerPort, switchPort };
}

/** A gateway chassis of a router port, as `lrp-get-gateway-chassis` prints it. */
export interface LrpGatewayChassis {
  /** The `Gateway_Chassis` row's name (`<port>-<chassis>` when the DSL or `ovn-nbctl` made it). */
  readonly name: string;
  /** The chassis. */
  readonly chassisName: string;
  /** Its priority. */
  readonly priority: number;
}

/**
 * A router port's gateway chassis, highest priority first, then by name
 * descending, as `ovn-nbctl lrp-get-gateway-chassis` prints them
 * (`NAME PRIORITY`).
 * @throws NotFoundError for an unknown port.
 */
export function lrpGetGatewayChassis<DB extends NeedsOf<'lrpGetGatewayChassis'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
): LrpGatewayChassis[];
export function lrpGetGatewayChassis(t: NbTxn, port: RouterPortRef): LrpGatewayChassis[] {
  const lrp = getNamed(t, 'Logical_Router_Port', port);
  return lrp.gateway_chassis
    .map((u) => t.get('Gateway_Chassis', u))
    .filter((r): r is NbRow<'Gateway_Chassis'> => r !== undefined)
    .map((r) => ({ name: r.name, chassisName: r.chassis_name, priority: r.priority }))
    .sort((a, b) =>
      a.priority !== b.priority
        ? b.priority - a.priority
        : a.name < b.name
          ? 1
          : a.name > b.name
            ? -1
            : 0,
    );
}

/**
 * A router port's administrative state (`ovn-nbctl lrp-get-enabled` prints
 * `enabled` or `disabled`): true unless `enabled` is false.
 * @throws NotFoundError for an unknown port.
 */
export function lrpGetEnabled<DB extends NeedsOf<'lrpGetEnabled'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
): boolean;
export function lrpGetEnabled(t: NbTxn, port: RouterPortRef): boolean {
  return getNamed(t, 'Logical_Router_Port', port).enabled !== false;
}

/** How packets redirected to a gateway chassis travel: `overlay` (tunnelled) or `bridged`. */
export const LRP_REDIRECT_TYPES = ['overlay', 'bridged'] as const;
/** A redirect type. */
export type LrpRedirectType = (typeof LRP_REDIRECT_TYPES)[number];

/**
 * A router port's redirect type (`ovn-nbctl lrp-get-redirect-type`):
 * `options:redirect-type`, `overlay` when unset. A value other than
 * `overlay` or `bridged` (`ovn-nbctl lrp-set-redirect-type` stores
 * `BRIDGED` as typed) is returned as stored.
 * @throws NotFoundError for an unknown port.
 */
export function lrpGetRedirectType<DB extends NeedsOf<'lrpGetRedirectType'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
): LrpRedirectType | (string & {});
export function lrpGetRedirectType(t: NbTxn, port: RouterPortRef): string {
  return getNamed(t, 'Logical_Router_Port', port).options['redirect-type'] ?? 'overlay';
}

/**
 * Set a router port's redirect type (`ovn-nbctl lrp-set-redirect-type
 * PORT TYPE`): the `redirect-type` option, the other options kept.
 *
 * ```ts
 * lrpSetRedirectType(t, 'lr0-public', 'bridged');
 * // {"op":"mutate","table":"Logical_Router_Port",…,"mutations":[["options","delete",["set",["redirect-type"]]],
 * //   ["options","insert",["map",[["redirect-type","bridged"]]]]]}
 * ```
 * @throws InvalidArgumentError for a type other than `overlay` or
 *   `bridged` (`ovn-nbctl` also takes them in any case, and stores them
 *   as typed); NotFoundError for an unknown port.
 */
export function lrpSetRedirectType<DB extends NeedsOf<'lrpSetRedirectType'>>(
  t: NbTxn<DB>,
  port: RouterPortRef,
  type: LrpRedirectType,
): void;
export function lrpSetRedirectType(t: NbTxn, port: RouterPortRef, type: LrpRedirectType): void {
  const value = checkEnum('Logical_Router_Port.options:redirect-type', type, LRP_REDIRECT_TYPES);
  const lrp = getNamed(t, 'Logical_Router_Port', port);
  if (lrp.options['redirect-type'] === value) return;
  t.setMapKeys('Logical_Router_Port', lrp._uuid, 'options', { 'redirect-type': value });
}

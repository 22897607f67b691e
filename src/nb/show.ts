/**
 * {@link showNb}: the topology as text, in the format of `ovn-nbctl show`:
 * switches with their ports (type, parent, tag, addresses, router port),
 * then routers with their ports (MAC, networks, route table, gateway
 * chassis) and NAT rules. Unlike `ovn-nbctl`, which follows the database's
 * internal order, switches, routers, ports and NAT rules are sorted (by
 * name, or by external IP for NAT rules), so the output is stable.
 *
 * ```
 * switch 6069a4be-3d0a-46f4-88af-eb3a9779ad0e (sw0)
 *     port sw0-lr0
 *         type: router
 *         router-port: lr0-sw0
 *     port web-1
 *         addresses: ["00:00:00:00:00:05 10.0.0.5"]
 * router 3beda1de-374d-458b-9fdc-1df2aa790dfb (lr0)
 *     port lr0-sw0
 *         mac: "00:00:00:00:ff:01"
 *         networks: ["10.0.0.1/24"]
 *     nat 649ff86e-9e90-4d41-ba0e-500202e7a587
 *         external ip: "172.16.0.1"
 *         logical ip: "10.0.0.0/24"
 *         type: "snat"
 * ```
 * @module
 */

import type { DatabaseModel, TableMap } from '../ovsdb/schema/model.js';
import { isUuid } from '../ovsdb/values/uuid.js';
import type { NbReader, NbRow, NbTable } from './txn.js';

/** Options of {@link showNb}. */
export interface ShowOptions {
  /** Show only this switch or router (by name or UUID), as `ovn-nbctl show NAME`. */
  readonly only?: string | undefined;
}

function byName<T extends { readonly name: string; readonly _uuid: string }>(a: T, b: T): number {
  return a.name < b.name
    ? -1
    : a.name > b.name
      ? 1
      : a._uuid < b._uuid
        ? -1
        : a._uuid > b._uuid
          ? 1
          : 0;
}

function alias(ids: Readonly<Record<string, string>>, key: string): string {
  const a = ids[key];
  return a ? ` (aka ${a})` : '';
}

function quotedList(values: readonly string[]): string {
  return `[${values.map((v) => `"${v}"`).join(', ')}]`;
}

function rowsOf<T extends NbTable>(
  reader: NbReader,
  table: T,
  uuids: readonly string[],
): NbRow<T>[] {
  return uuids.map((u) => reader.get(table, u)).filter((r): r is NbRow<T> => r !== undefined);
}

function showSwitch(reader: NbReader, ls: NbRow<'Logical_Switch'>, out: string[]): void {
  out.push(`switch ${ls._uuid} (${ls.name})${alias(ls.external_ids, 'neutron:network_name')}`);
  for (const lsp of rowsOf(reader, 'Logical_Switch_Port', ls.ports).sort(byName)) {
    out.push(`    port ${lsp.name}${alias(lsp.external_ids, 'neutron:port_name')}`);
    if (lsp.type !== '') out.push(`        type: ${lsp.type}`);
    if (lsp.parent_name !== null) out.push(`        parent: ${lsp.parent_name}`);
    if (lsp.tag !== null) out.push(`        tag: ${lsp.tag}`);
    if (
      lsp.addresses.length > 0 &&
      !(lsp.addresses.length === 1 && lsp.addresses[0] === 'router')
    ) {
      out.push(`        addresses: ${quotedList(lsp.addresses)}`);
    }
    const routerPort = lsp.options['router-port'];
    if (routerPort !== undefined) out.push(`        router-port: ${routerPort}`);
  }
}

function showRouter(reader: NbReader, lr: NbRow<'Logical_Router'>, out: string[]): void {
  out.push(`router ${lr._uuid} (${lr.name})${alias(lr.external_ids, 'neutron:router_name')}`);
  for (const lrp of rowsOf(reader, 'Logical_Router_Port', lr.ports).sort(byName)) {
    out.push(`    port ${lrp.name}`);
    out.push(`        mac: "${lrp.mac}"`);
    if (lrp.networks.length > 0) out.push(`        networks: ${quotedList(lrp.networks)}`);
    const routeTable = lrp.options['route_table'];
    if (routeTable !== undefined) out.push(`        route-table: ${routeTable}`);
    if (lrp.gateway_chassis.length > 0) {
      const gcs = rowsOf(reader, 'Gateway_Chassis', lrp.gateway_chassis).sort((a, b) =>
        a.priority !== b.priority
          ? b.priority - a.priority
          : a.name < b.name
            ? 1
            : a.name > b.name
              ? -1
              : 0,
      );
      out.push(`        gateway chassis: [${gcs.map((g) => g.chassis_name).join(' ')}]`);
    }
  }
  const nats = rowsOf(reader, 'NAT', lr.nat).sort((a, b) =>
    a.external_ip !== b.external_ip
      ? a.external_ip < b.external_ip
        ? -1
        : 1
      : a.type !== b.type
        ? a.type < b.type
          ? -1
          : 1
        : a._uuid < b._uuid
          ? -1
          : 1,
  );
  for (const nat of nats) {
    out.push(`    nat ${nat._uuid}`);
    out.push(`        external ip: "${nat.external_ip}"`);
    if (nat.external_port_range !== '')
      out.push(`        external port(s): "${nat.external_port_range}"`);
    out.push(`        logical ip: "${nat.logical_ip}"`);
    out.push(`        type: "${nat.type}"`);
  }
}

function named<T extends 'Logical_Switch' | 'Logical_Router'>(
  reader: NbReader,
  table: T,
  key: string,
): NbRow<T>[] {
  if (isUuid(key)) {
    const row = reader.get(table, key);
    if (row !== undefined) return [row];
  }
  return [...reader.rows(table)].filter((r) => r.name === key);
}

/**
 * The topology as text (see the module documentation), ending with a
 * newline unless empty. Any NB model's reader serves (the columns shown are
 * in every NB schema).
 */
export function showNb(reader: NbReader, options?: ShowOptions): string;
export function showNb<DB extends TableMap>(
  reader: NbReader<DB> & { readonly model: DatabaseModel<DB> },
  options?: ShowOptions,
): string;
export function showNb(reader: NbReader, options: ShowOptions = {}): string {
  const out: string[] = [];
  const switches =
    options.only === undefined
      ? [...reader.rows('Logical_Switch')]
      : named(reader, 'Logical_Switch', options.only);
  const routers =
    options.only === undefined
      ? [...reader.rows('Logical_Router')]
      : named(reader, 'Logical_Router', options.only);
  for (const ls of switches.sort(byName)) showSwitch(reader, ls, out);
  for (const lr of routers.sort(byName)) showRouter(reader, lr, out);
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
